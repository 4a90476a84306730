"""The engine's checkpoints: the table as it stood at a coup's end, so that a start replays only what follows.

At each coup's end the engine records, in the same transaction as the event that ended it, the referee's state
between the two coups (``Referee.checkpoint``), the record it follows and the digest of the review's rows up to it;
the coup's signed head names the checkpoint's SHA-256 (``controller.heads``), so the chain and the signature vouch
for it as they do for the log. The engine goes on from the checkpoint it has just written, as a restarted engine
would: the two cannot drift apart, and the coups already played leave memory.

A checkpoint belongs to the rules and the starting jackpot meter it was taken under (``rules_fingerprint``): with
others (the configuration changed), the engine replays the whole log, as it always did.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from .errors import StudTableError
from .referee import RefereeCheckpoint
from .rules.profile import TableRules
from .signing import canonical, signed_by

#: /2: the void coups' alerts held for the dealer's acknowledgement (``Table.held_flags``); a /1 checkpoint is not
#: taken up, the log is replayed whole instead
FORMAT = "stud-table-checkpoint/2"


class BadCheckpoint(StudTableError, ValueError):
    """A recorded checkpoint that cannot be used, and why."""


@dataclass(frozen=True)
class Checkpoint:
    format: str
    #: the coup that ended, and the record it ended at: the replay goes on after it
    ended_coup: int
    after_event: int
    #: the ``heads.DerivedDigest`` of the flags and coups recorded up to that record
    derived: str
    referee: RefereeCheckpoint


def rules_fingerprint(rules: TableRules, jackpot_meter: int) -> str:
    """What the coups were played under: the table's rules and the jackpot meter it started from."""
    # Fractions (the payout odds) as their text; dictionaries sorted, whatever order the profile was read in.
    rules_data = msgspec.to_builtins(rules, enc_hook=str, str_keys=True)
    return hashlib.sha256(canonical({"rules": rules_data, "jackpot_meter": jackpot_meter})).hexdigest()


def encode(checkpoint: Checkpoint) -> tuple[str, str]:
    """The checkpoint as stored, and its SHA-256."""
    body = msgspec.json.encode(checkpoint)
    return body.decode(), hashlib.sha256(body).hexdigest()


def latest(db: sqlite3.Connection, fingerprint: str, until_event: int,
           key: Ed25519PublicKey | None = None) -> tuple[Checkpoint, str] | None:
    """The latest checkpoint taken under the rules and starting meter of ``fingerprint`` (``rules_fingerprint``) at
    or before record ``until_event``, and its
    SHA-256, checked against it and against its coup's head; with the table's public ``key``, that head must be
    there and signed by it. None when there is none (in a store from before checkpoints too); ``BadCheckpoint`` when
    it cannot be trusted."""
    try:
        row = db.execute("SELECT after_event, body, sha256 FROM checkpoints WHERE rules = ? AND after_event <= ? "
                         "ORDER BY after_event DESC LIMIT 1",
                         (fingerprint, until_event)).fetchone()
        head = db.execute("SELECT body, signature FROM heads WHERE last_event = ?", (row[0],)).fetchone() \
            if row else None
    except sqlite3.OperationalError:  # no such table: a store written before checkpoints
        return None
    if row is None:
        return None
    after_event, body, sha256 = row
    signed = None
    if head is not None:
        try:
            head_body = json.loads(head[0])
            signed = head_body.get("checkpoint")
        except (ValueError, AttributeError) as error:
            raise BadCheckpoint(f"the head of record {after_event} cannot be read ({error})") from None
        if key is not None and not signed_by(head_body, head[1], key):
            raise BadCheckpoint(f"the head of record {after_event} is not signed by the table's key")
    elif key is not None:
        raise BadCheckpoint(f"no signed head at record {after_event} vouches for it")
    return decode(body, sha256, signed), sha256


def decode(body: str, sha256: str, signed: str | None = None) -> Checkpoint:
    """The checkpoint stored as ``body``; ``BadCheckpoint`` when its content is not what its SHA-256, or the
    ``signed`` one of its coup's head, says, or when it cannot be read."""
    actual = hashlib.sha256(body.encode()).hexdigest()
    if actual != sha256:
        raise BadCheckpoint(f"its content does not match its SHA-256 ({actual} for {sha256})")
    if signed is not None and signed != sha256:
        raise BadCheckpoint(f"its coup's signed head names another checkpoint ({signed})")
    try:
        checkpoint = msgspec.json.decode(body, type=Checkpoint)
    except msgspec.DecodeError as error:
        raise BadCheckpoint(f"it cannot be read: {error}") from None
    if checkpoint.format != FORMAT:
        raise BadCheckpoint(f"its format is {checkpoint.format!r}, not {FORMAT!r}")
    return checkpoint
