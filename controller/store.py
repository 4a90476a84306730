"""The event store: SQLite in WAL mode, an append-only log whose every record
carries the hash of the one before it.

An event counts as recorded once ``append`` has returned: the transaction is
committed with ``synchronous=FULL``, so a crash or a power cut after that
cannot lose it. Triggers refuse UPDATE and DELETE on the log; ``verify`` finds
any record altered, inserted or deleted behind SQLite's back and says which.

Flags, coups and evidence are indexes for the review, derived from the log by
the engine: they can be rebuilt by replaying it. At each coup's end the engine
signs a head (``controller.heads``): the chain's hash at that record and a
digest of the flags and settlements up to it, so that a copy of the head kept
elsewhere proves the log and what the review shows were not cut, rewritten or
changed since.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from .errors import StudTableError
from .files import write_atomically

GENESIS = "0" * 64


def append_only(table: str, what: str) -> str:
    """SQL: the triggers that refuse any UPDATE or DELETE on ``table``, saying ``what`` is append-only."""
    return "".join(f"CREATE TRIGGER IF NOT EXISTS {table}_no_{verb.lower()} BEFORE {verb} ON {table}\n"
                   f"BEGIN SELECT RAISE(ABORT, '{what}'); END;\n" for verb in ("UPDATE", "DELETE"))


SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    topic TEXT NOT NULL,
    publisher TEXT NOT NULL,
    seq INTEGER NOT NULL,
    mono_ns INTEGER NOT NULL,
    wall_ns INTEGER NOT NULL,
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    instance TEXT NOT NULL DEFAULT '',  -- the publisher's run, for its outbox's order (outside the hash)
    UNIQUE (publisher, seq, mono_ns)
);
CREATE INDEX IF NOT EXISTS events_by_publisher ON events (publisher, id);
""" + append_only("events", "the event log is append-only") + """

CREATE TABLE IF NOT EXISTS flags (
    event_id INTEGER NOT NULL REFERENCES events(id),
    ordinal INTEGER NOT NULL,
    coup INTEGER NOT NULL,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,
    seat INTEGER,
    detail TEXT NOT NULL,
    PRIMARY KEY (event_id, ordinal)
);
CREATE INDEX IF NOT EXISTS flags_by_kind ON flags (kind, coup);
""" + append_only("flags", "flags are append-only") + """
CREATE TABLE IF NOT EXISTS coups (
    number INTEGER PRIMARY KEY,
    first_event INTEGER NOT NULL,
    last_event INTEGER,
    void INTEGER NOT NULL DEFAULT 0,
    settlement TEXT
);
""" + append_only("coups", "settled coups are append-only") + """
CREATE TABLE IF NOT EXISTS heads (
    last_event INTEGER PRIMARY KEY REFERENCES events(id),
    coup INTEGER NOT NULL,
    body TEXT NOT NULL,
    signature TEXT NOT NULL
);
""" + append_only("heads", "signed heads are append-only") + """
CREATE TABLE IF NOT EXISTS evidence (
    sha256 TEXT NOT NULL,
    event_id INTEGER REFERENCES events(id),
    file TEXT NOT NULL,
    media_type TEXT NOT NULL,
    PRIMARY KEY (sha256, event_id)  -- one frame may be the evidence of several flags
);
""" + append_only("evidence", "evidence is append-only") + """
CREATE TABLE IF NOT EXISTS checkpoints (
    after_event INTEGER NOT NULL REFERENCES events(id),
    rules TEXT NOT NULL,  -- the fingerprint of the table's rules the coups were played under
    body TEXT NOT NULL,
    sha256 TEXT NOT NULL,  -- of body; the coup's signed head names it
    PRIMARY KEY (after_event, rules)
);
""" + append_only("checkpoints", "checkpoints are append-only") + """
"""


@dataclass(frozen=True)
class StoredEvent:
    id: int
    topic: str
    publisher: str
    seq: int
    mono_ns: int
    wall_ns: int
    body: str
    prev_hash: str
    hash: str


def record_hash(prev_hash: str, event_id: int, topic: str, publisher: str, seq: int, mono_ns: int, wall_ns: int,
                body: str) -> str:
    material = bytearray()
    for part in (prev_hash, str(event_id), topic, publisher, str(seq), str(mono_ns), str(wall_ns), body):
        encoded = part.encode()
        material += len(encoded).to_bytes(4, "big")  # length-prefixed: no two records hash alike by shifting
        material += encoded
    return hashlib.sha256(material).hexdigest()


#: The UNIQUE (publisher, seq, mono_ns) key turns a resend into a no-op.
_INSERT_EVENT = ("INSERT INTO events (id, topic, publisher, seq, mono_ns, wall_ns, body, prev_hash, hash, instance)"
                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (publisher, seq, mono_ns) DO NOTHING")


class NewEvent(NamedTuple):
    """An event to record (a tuple: the engine makes thousands a second, three times faster than a dataclass)."""

    topic: str
    publisher: str
    seq: int
    mono_ns: int
    wall_ns: int
    body: str
    instance: str = ""


#: an event's row in the log: ``_INSERT_EVENT``'s parameters
EventRow = tuple[int, str, str, int, int, int, str, str, str, str]


def _chained_row(event_id: int, prev_hash: str, event: NewEvent) -> EventRow:
    """The event's row, chained after ``prev_hash``."""
    digest = record_hash(prev_hash, event_id, event.topic, event.publisher, event.seq, event.mono_ns, event.wall_ns,
                         event.body)
    return (event_id, event.topic, event.publisher, event.seq, event.mono_ns, event.wall_ns, event.body, prev_hash,
            digest, event.instance)


class EventStore:
    def __init__(self, path: str | Path, evidence_dir: str | Path | None = None) -> None:
        self.path = Path(path)
        self.evidence_dir = Path(evidence_dir) if evidence_dir else self.path.parent / "evidence"
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        if "instance" not in {row[1] for row in self._db.execute("PRAGMA table_info(events)")}:
            self._db.execute("ALTER TABLE events ADD COLUMN instance TEXT NOT NULL DEFAULT ''")
        last: tuple[int, str] | None = self._db.execute(
            "SELECT id, hash FROM events ORDER BY id DESC LIMIT 1").fetchone()
        self._last_id, self._last_hash = (last[0], last[1]) if last else (0, GENESIS)

    @property
    def last_id(self) -> int:
        return self._last_id

    @property
    def db(self) -> sqlite3.Connection:
        """The connection, for readers that query the store's tables themselves (``checkpoint.latest``)."""
        return self._db

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One durable commit for everything written inside: the engine's batch of events and the flags, coups and
        heads it derived from them, so a batch costs one fsync, not one per row. Nothing written inside counts as
        recorded before the block ends; an exception rolls it all back."""
        self._db.execute("BEGIN IMMEDIATE")
        last = self._last_id, self._last_hash
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            self._last_id, self._last_hash = last
            raise

    def append(self, events: list[NewEvent]) -> list[int | None]:
        """Record events, durably in their own transaction unless inside ``transaction()``. Returns each one's id, or
        None for an event already recorded (the same publisher, sequence and time: a resend)."""
        if not self._db.in_transaction:
            with self.transaction():
                return self.append(events)
        if not events:
            return []
        # Read the chain's head inside the transaction: right even if another writer appended meanwhile.
        head = self._db.execute("SELECT id, hash FROM events ORDER BY id DESC LIMIT 1").fetchone()
        last_id, last_hash = (head[0], head[1]) if head else (0, GENESIS)
        # Chained as if none were a resend, and inserted in one statement (the engine's batches of thousands of
        # events a second); should the store know one already, the batch is taken back and chained event by event.
        rows: list[EventRow] = []
        for event_id, event in enumerate(events, start=last_id + 1):
            rows.append(_chained_row(event_id, rows[-1][8] if rows else last_hash, event))
        self._db.execute("SAVEPOINT append_batch")
        if self._db.executemany(_INSERT_EVENT, rows).rowcount == len(rows):
            self._db.execute("RELEASE append_batch")
            self._last_id, self._last_hash = rows[-1][0], rows[-1][8]
            return [row[0] for row in rows]
        self._db.execute("ROLLBACK TO append_batch")
        self._db.execute("RELEASE append_batch")
        ids: list[int | None] = []
        for event in events:
            row = _chained_row(last_id + 1, last_hash, event)
            if self._db.execute(_INSERT_EVENT, row).rowcount:
                ids.append(row[0])
                last_id, last_hash = row[0], row[8]
            else:
                ids.append(None)
        self._last_id, self._last_hash = last_id, last_hash
        return ids

    def events(self, after_id: int = 0) -> Iterator[StoredEvent]:
        cursor = self._db.execute(
            "SELECT id, topic, publisher, seq, mono_ns, wall_ns, body, prev_hash, hash FROM events"
            " WHERE id > ? ORDER BY id", (after_id,))
        for row in cursor:
            yield StoredEvent(*row)

    def last_seq_by_publisher(self) -> dict[str, int]:
        return {publisher: seq for publisher, (_instance, seq) in self.last_by_publisher().items()}

    def last_by_publisher(self) -> dict[str, tuple[str, int]]:
        """Publisher -> (its run, sequence number) of the last event recorded from it."""
        # One index lookup per publisher (there are a handful), not a scan of the whole log.
        last: dict[str, tuple[str, int]] = {}
        publisher = self._db.execute("SELECT MIN(publisher) FROM events").fetchone()[0]
        while publisher is not None:
            last[publisher] = self._db.execute("SELECT instance, seq FROM events WHERE publisher = ? "
                                               "ORDER BY id DESC LIMIT 1", (publisher,)).fetchone()
            publisher = self._db.execute("SELECT MIN(publisher) FROM events WHERE publisher > ?",
                                         (publisher,)).fetchone()[0]
        return last

    # --- checkpoints (controller.checkpoint) ------------------------------------

    def record_checkpoint(self, after_event: int, rules: str, body: str, sha256: str) -> None:
        self._db.execute("INSERT OR IGNORE INTO checkpoints VALUES (?, ?, ?, ?)", (after_event, rules, body, sha256))

    # --- derived indexes -----------------------------------------------------

    def record_flag(self, event_id: int, ordinal: int, coup: int, kind: str, severity: str, seat: int | None,
                    detail: str) -> None:
        self._db.execute("INSERT OR IGNORE INTO flags VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (event_id, ordinal, coup, kind, severity, seat, detail))

    def record_coup(self, number: int, first_event: int, last_event: int | None, void: bool,
                    settlement: str | None) -> None:
        # Recorded once, at settlement; a replay finds it there and changes nothing.
        self._db.execute("INSERT OR IGNORE INTO coups VALUES (?, ?, ?, ?, ?)",
                         (number, first_event, last_event, int(void), settlement))

    def flags(self) -> list[tuple[int, str, str, int | None, str]]:
        return self._db.execute("SELECT coup, kind, severity, seat, detail FROM flags ORDER BY event_id, ordinal"
                                ).fetchall()

    def coups(self) -> list[tuple[int, int, int | None, int, str | None]]:
        return self._db.execute("SELECT number, first_event, last_event, void, settlement FROM coups ORDER BY number"
                                ).fetchall()

    # --- signed heads (controller.heads) ---------------------------------------

    def head_material(self, last_event: int) -> tuple[str, int] | None:
        return head_material(self._db, last_event)

    def last_head_event(self) -> int:
        """The record the latest signed head covers up to; 0 when none."""
        return int(self._db.execute("SELECT COALESCE(MAX(last_event), 0) FROM heads").fetchone()[0])

    def record_head(self, last_event: int, coup: int, body: str, signature: str) -> None:
        self._db.execute("INSERT OR IGNORE INTO heads VALUES (?, ?, ?, ?)", (last_event, coup, body, signature))

    def add_evidence(self, content: bytes, media_type: str, event_id: int | None) -> str:
        """Store a file named by its content's SHA-256 (written, synced, then renamed into place)."""
        digest = hashlib.sha256(content).hexdigest()
        suffix = {"image/jpeg": ".jpg", "image/png": ".png"}.get(media_type, ".bin")
        self.evidence_dir.mkdir(parents=True, exist_ok=True)
        final = self.evidence_dir / f"{digest}{suffix}"
        if not final.exists():
            write_atomically(final, content)
        self.link_evidence(digest, event_id, final.name, media_type)
        return digest

    def link_evidence(self, sha256: str, event_id: int | None, file: str, media_type: str) -> None:
        """Record an evidence file already in the evidence folder (written there by another process)."""
        self._db.execute("INSERT OR IGNORE INTO evidence VALUES (?, ?, ?, ?)", (sha256, event_id, file, media_type))

    def close(self) -> None:
        self._db.close()


class NotAStore(StudTableError, ValueError):
    """A file that is not an event store (not SQLite, or SQLite without the log)."""


def open_read_only(path: str | Path) -> sqlite3.Connection:
    """The store at ``path`` for reading; ``NotAStore`` when it is not one."""
    try:
        db = sqlite3.connect(f"file:{Path(path)}?mode=ro", uri=True)
    except sqlite3.DatabaseError as error:
        raise NotAStore(f"{path}: cannot open it ({error})") from None
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(events)")}
    except sqlite3.DatabaseError as error:
        db.close()
        raise NotAStore(f"{path} is not an event store: {error}") from None
    if not {"id", "body", "prev_hash", "hash"} <= columns:
        db.close()
        raise NotAStore(f"{path} is not an event store: it has no event log")
    return db


def head_material(db: sqlite3.Connection, last_event: int) -> tuple[str, int] | None:
    """The chain's hash at record ``last_event`` and the record's wall time; None when the log has no such record."""
    row = db.execute("SELECT hash, wall_ns FROM events WHERE id = ?", (last_event,)).fetchone()
    return None if row is None else (row[0], row[1])


@dataclass(frozen=True)
class VerifyReport:
    records: int
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_log(path: str | Path) -> VerifyReport:
    """Walk the chain from the first record; name every record that breaks it. ``NotAStore`` when ``path`` is not
    an event store."""
    db = open_read_only(path)
    problems: list[str] = []
    expected_id, prev_hash, count = 1, GENESIS, 0
    rows = db.execute("SELECT id, topic, publisher, seq, mono_ns, wall_ns, body, prev_hash, hash FROM events "
                      "ORDER BY id")
    for row in rows:
        event = StoredEvent(*row)
        count += 1
        if event.id != expected_id:
            missing = f"{expected_id}" if event.id == expected_id + 1 else f"{expected_id}..{event.id - 1}"
            problems.append(f"record {missing} deleted: ids jump from {expected_id - 1} to {event.id}")
        if event.prev_hash != prev_hash:
            problems.append(f"record {event.id} does not follow record {event.id - 1}: inserted, or its "
                            "predecessor was altered or deleted")
        actual = record_hash(event.prev_hash, event.id, event.topic, event.publisher, event.seq, event.mono_ns,
                             event.wall_ns, event.body)
        if actual != event.hash:
            problems.append(f"record {event.id} altered: its content does not match its hash")
        expected_id, prev_hash = event.id + 1, event.hash
    db.close()
    return VerifyReport(count, problems)
