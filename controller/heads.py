"""Signed heads of the event log: what proves, to whoever keeps a copy, that the log was not cut or rewritten, nor
the flags and settlements the review shows changed.

At each coup's end the engine signs, with the table's key (``controller.signing``), a head: the record the coup
ended at, the chain's hash there, and a digest of every flag and settled coup the engine derived from the log up to
it (``DerivedDigest``: a running SHA-256, so a head costs the rows since the last one, not the whole history). The
heads are kept in the store and exported (``stud-table export-head``) to a copy kept elsewhere.

What each check proves: the store's own heads catch a change made by someone without the key (a record altered,
flags or a settlement changed, a settled coup's head deleted); a head kept elsewhere, checked with a public key kept
elsewhere, also catches one made with the key (a log cut short, rewritten and its chain computed again). Records
after the last head are named, not judged: they are the coup in progress, or were added since, and nothing signs
them yet. A replay signs only the coup ends after the last head the store holds: it never vouches for a history
that was not signed when it was played.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .errors import StudTableError
from .signing import canonical, sign, signed_by
from .store import GENESIS, EventStore, head_material, open_read_only

FORMAT = "stud-table-head/2"


class BadHead(StudTableError, ValueError):
    """A head file that cannot be used: named, with why."""


class DerivedDigest:
    """A hash chain of the review's rows derived from the log, in the order the engine records them: at each
    record, its flags (by ordinal), then the coup it settled. A chain, not one running hash, so that it can go on
    from a checkpoint's value (``start``)."""

    def __init__(self, start: str = GENESIS) -> None:
        self._hex = start

    def add_flag(self, event_id: int, ordinal: int, coup: int, kind: str, severity: str, seat: int | None,
                 detail: str) -> None:
        self._add(["flag", event_id, ordinal, coup, kind, severity, seat, detail])

    def add_coup(self, number: int, first_event: int, last_event: int | None, void: bool | int,
                 settlement: str | None) -> None:
        self._add(["coup", number, first_event, last_event, int(void), settlement])

    def _add(self, row: list[Any]) -> None:
        self._hex = hashlib.sha256(bytes.fromhex(self._hex) + canonical(row)).hexdigest()

    def hexdigest(self) -> str:
        return self._hex


def sign_head(store: EventStore, table_id: str, coup: int, last_event: int, derived: str,
              key: Ed25519PrivateKey, checkpoint: str) -> None:
    """Sign the head of ``coup``, which ended at record ``last_event`` (``derived``: the ``DerivedDigest`` there;
    ``checkpoint``: the SHA-256 of the checkpoint taken there), and keep it in the store. Nothing in it comes from
    a clock but the record's own time."""
    material = store.head_material(last_event)
    if material is None:
        raise ValueError(f"record {last_event} is not in the log")
    body = {"format": FORMAT, "table": table_id, "coup": coup, "event": last_event, "hash": material[0],
            "wall_ns": material[1], "derived": derived, "checkpoint": checkpoint}
    store.record_head(last_event, coup, json.dumps(body, sort_keys=True), sign(body, key))


def latest_head(path: str | Path) -> dict[str, Any] | None:
    """The store's latest signed head, as a document to keep elsewhere (``{"head": ..., "signature": ...}``), or
    None when no coup has ended yet."""
    db = open_read_only(path)
    try:
        rows = _heads(db)
    finally:
        db.close()
    return {"head": rows[-1][0], "signature": rows[-1][1]} if rows else None


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
    checked: dict[str, Any] = document
    return checked


@dataclass(frozen=True)
class HeadFindings:
    problems: list[str]  # what a signed head proves wrong
    notes: list[str]  # what no head vouches for yet


def store_has_heads(path: str | Path) -> bool:
    db = open_read_only(path)
    try:
        return bool(_heads(db))
    finally:
        db.close()


def check_heads(path: str | Path, key: Ed25519PublicKey, kept: dict[str, Any] | None = None) -> HeadFindings:
    """Check the store's own heads, and ``kept`` (a head document kept elsewhere) when given, against the log and
    the review's flags and settlements; name the settled coups whose head is missing, and the records after the
    last head that no signature covers."""
    db = open_read_only(path)
    try:
        last_id = int(db.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])
        stored = _heads(db)
        heads = stored + ([(kept["head"], kept["signature"])] if kept is not None else [])
        problems, covered = [], 0
        valid = []
        for head, signature in heads:
            if signed_by(head, signature, key):
                valid.append(head)
            else:
                problems.append(f"{_where(head)}: bad signature: altered, or not signed by this table's key")
        derived = dict(_derived_digests(db, sorted({int(head["event"]) for head in valid})))
        for head in valid:
            problems += _against_log(db, head, last_id, derived.get(int(head["event"])))
            covered = max(covered, int(head["event"]))
        signed_coups = {int(head["coup"]) for head, _signature in stored}
        settled = db.execute("SELECT number, last_event FROM coups ORDER BY number").fetchall()
        for number, settled_at in settled[:-1]:  # the last settled coup may still be being paid
            if number not in signed_coups:
                problems.append(f"coup {number} (settled at record {settled_at}) has no signed head: heads were "
                                "deleted, or never written")
    finally:
        db.close()
    notes = []
    if last_id > covered:
        first = covered + 1
        span = f"record {first}" if first == last_id else f"records {first}..{last_id}"
        notes.append(f"{span} after the last signed head: no signature covers them yet (a coup in progress, or "
                     "added since)")
    return HeadFindings(problems, notes)


def _heads(db: sqlite3.Connection) -> list[tuple[dict[str, Any], str]]:
    """The store's heads, oldest first; none in a store from before signed heads."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'heads'").fetchone() is None:
        return []
    return [(json.loads(body), signature)
            for body, signature in db.execute("SELECT body, signature FROM heads ORDER BY last_event")]


def _where(head: dict[str, Any]) -> str:
    return f"the head of coup {head.get('coup')} (record {head.get('event')})"


def _against_log(db: sqlite3.Connection, head: dict[str, Any], last_id: int, derived: str | None) -> list[str]:
    event = int(head["event"])
    if event > last_id:
        return [f"{_where(head)}: the log was cut: the head covers records 1..{event}, the store ends at {last_id}"]
    material = head_material(db, event)
    if material is None or material[0] != head["hash"]:
        return [f"{_where(head)}: records up to {event} were rewritten: the chain's hash there is not the signed one"]
    if derived != head["derived"]:
        return [f"{_where(head)}: the flags or settlements up to record {event} were changed since it was signed"]
    if "checkpoint" in head and not _checkpoint_intact(db, event, head["checkpoint"]):
        return [f"{_where(head)}: the checkpoint at record {event} was changed or deleted since it was signed"]
    return []


def _checkpoint_intact(db: sqlite3.Connection, event: int, signed: str) -> bool:
    """Whether the store holds, at record ``event``, the checkpoint a head signed, its content unchanged."""
    rows = db.execute("SELECT body FROM checkpoints WHERE after_event = ? AND sha256 = ?", (event, signed))
    return any(hashlib.sha256(body.encode()).hexdigest() == signed for (body,) in rows)


def _derived_digests(db: sqlite3.Connection, events: list[int]) -> Iterator[tuple[int, str]]:
    """For each of ``events`` (ascending), the ``DerivedDigest`` of the stored rows up to it: one pass over them."""
    digest = DerivedDigest()
    rows = db.execute(
        "SELECT event_id, 0, ordinal, coup, kind, severity, seat, detail, NULL FROM flags "
        "UNION ALL SELECT last_event, 1, number, first_event, NULL, NULL, void, NULL, settlement FROM coups "
        "WHERE last_event IS NOT NULL ORDER BY 1, 2, 3")
    pending = iter(rows)
    row = next(pending, None)
    for event in events:
        while row is not None and row[0] <= event:
            if row[1] == 0:
                digest.add_flag(row[0], row[2], row[3], row[4], row[5], row[6], row[7])
            else:
                digest.add_coup(row[2], row[3], row[0], row[6], row[8])
            row = next(pending, None)
        yield event, digest.hexdigest()
