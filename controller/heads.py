"""Signed heads of the event log: what proves, to whoever keeps a copy, that the log was not cut, rewritten or
added to behind the table's back, nor the flags and settlements the review shows changed.

At each coup's end the engine signs, with the table's key (``controller.signing``), a head: the record the coup
ended at, the chain's hash there, and a digest of the flags and settled coups up to it (``store.derived_digest``).
The heads are kept in the store and exported (``stud-table export-head``) to a copy kept elsewhere: the store's own
heads catch a change made without the key; a head kept elsewhere catches one made with it (a truncated store, a log
rewritten and its chain computed again, a record appended with a right hash after the last head).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .errors import StudTableError
from .signing import sign, signed_by
from .store import EventStore, head_material, open_read_only

FORMAT = "stud-table-head/1"


class BadHead(StudTableError, ValueError):
    """A head file that cannot be used: named, with why."""


def head_body(table_id: str, coup: int, last_event: int, material: tuple[str, int, str] | None) -> dict[str, Any]:
    """What a head signs: the table, the coup that ended, its last record, the chain's hash there and the digest of
    the flags and settlements up to it (``material``: ``store.head_material``). Nothing in it comes from a clock
    but the record's own time: a replay signs the same head again."""
    if material is None:
        raise ValueError(f"record {last_event} is not in the log")
    chain_hash, wall_ns, derived = material
    return {"format": FORMAT, "table": table_id, "coup": coup, "event": last_event, "hash": chain_hash,
            "wall_ns": wall_ns, "derived": derived}


def sign_head(store: EventStore, table_id: str, coup: int, last_event: int, key: Ed25519PrivateKey) -> None:
    """Sign the head of ``coup``, which ended at record ``last_event``, and keep it in the store."""
    body = head_body(table_id, coup, last_event, store.head_material(last_event))
    store.record_head(last_event, coup, json.dumps(body, sort_keys=True), sign(body, key))


def latest_head(path: str | Path) -> dict[str, Any] | None:
    """The store's latest signed head, as a document to keep elsewhere (``{"head": ..., "signature": ...}``), or
    None when no coup has ended yet."""
    db = open_read_only(path)
    try:
        row = db.execute("SELECT body, signature FROM heads ORDER BY last_event DESC LIMIT 1").fetchone()
    finally:
        db.close()
    return None if row is None else {"head": json.loads(row[0]), "signature": row[1]}


def load_head(path: str | Path) -> dict[str, Any]:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BadHead(f"{path}: cannot read a head ({error})") from None
    head = document.get("head") if isinstance(document, dict) else None
    if not isinstance(head, dict) or head.get("format") != FORMAT or not isinstance(document.get("signature"), str):
        raise BadHead(f"{path}: not a signed head ({FORMAT}, written by stud-table export-head)")
    for field, kind in (("coup", int), ("event", int), ("hash", str), ("derived", str)):
        if not isinstance(head.get(field), kind):
            raise BadHead(f"{path}: the head's {field!r} is missing or not a {kind.__name__}")
    return document


@dataclass(frozen=True)
class HeadFindings:
    problems: list[str]  # what a signed head proves wrong
    notes: list[str]  # what no head vouches for yet


def check_heads(path: str | Path, key: Ed25519PublicKey, kept: dict[str, Any] | None = None) -> HeadFindings:
    """Check the store's own heads, and ``kept`` (a head document kept elsewhere) when given, against the log and
    the review's flags and settlements; name the records after the last head that no signature covers."""
    db = open_read_only(path)
    problems: list[str] = []
    try:
        records = db.execute("SELECT COUNT(*), MAX(id) FROM events").fetchone()
        last_id = records[1] or 0
        heads = [(json.loads(body), signature) for body, signature in
                 db.execute("SELECT body, signature FROM heads ORDER BY last_event")]
        if kept is not None:
            heads.append((kept["head"], kept["signature"]))
        covered = 0
        for head, signature in heads:
            where = f"the head of coup {head.get('coup')} (record {head.get('event')})"
            if not signed_by(head, signature, key):
                problems.append(f"{where}: bad signature: altered, or not signed by this table's key")
                continue
            problems += _against_log(db, head, where, last_id)
            covered = max(covered, int(head["event"]))
    finally:
        db.close()
    notes = []
    if last_id > covered:
        first = covered + 1
        span = f"record {first}" if first == last_id else f"records {first}..{last_id}"
        notes.append(f"{span} after the last signed head: no signature covers them yet (a coup in progress, or "
                     "added since)")
    return HeadFindings(problems, notes)


def _against_log(db: sqlite3.Connection, head: dict[str, Any], where: str, last_id: int) -> list[str]:
    event = int(head["event"])
    if event > last_id:
        return [f"{where}: the log was cut: the head covers records 1..{event}, the store ends at {last_id}"]
    material = head_material(db, event)
    if material is None or material[0] != head["hash"]:
        return [f"{where}: records up to {event} were rewritten: the chain's hash there is not the signed one"]
    if material[2] != head["derived"]:
        return [f"{where}: the flags or settlements up to record {event} were changed since it was signed"]
    return []
