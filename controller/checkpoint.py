"""The engine's checkpoints: the table as it stood at a coup's end, so that a start replays only what follows.

At each coup's end the engine records, in the same transaction as the event that ended it, the referee's state
between the two coups (``Referee.checkpoint``), the record it follows and the digest of the review's rows up to it;
the coup's signed head names the checkpoint's SHA-256 (``controller.heads``), so the chain and the signature vouch
for it as they do for the log. The engine goes on from the checkpoint it has just written, as a restarted engine
would: the two cannot drift apart, and the coups already played leave memory.

A checkpoint belongs to the rules it was taken under (``rules_fingerprint``): with other rules (the configuration
changed), the engine replays the whole log, as it always did.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import msgspec

from .errors import StudTableError
from .referee import RefereeCheckpoint
from .rules.profile import TableRules
from .signing import canonical

FORMAT = "stud-table-checkpoint/1"


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


def rules_fingerprint(rules: TableRules) -> str:
    # Fractions (the payout odds) as their text; dictionaries sorted, whatever order the profile was read in.
    return hashlib.sha256(canonical(msgspec.to_builtins(rules, enc_hook=str, str_keys=True))).hexdigest()


def encode(checkpoint: Checkpoint) -> tuple[str, str]:
    """The checkpoint as stored, and its SHA-256."""
    body = msgspec.json.encode(checkpoint)
    return body.decode(), hashlib.sha256(body).hexdigest()


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
