"""A recorded coup out of the event store, as a history file that ``stud-table replay`` reads back.

The store records what the bus carried (cards placed, chips, buttons, keypad lines), not rules
operations: the operations are what the engine's ``Referee`` made of those events. So the export plays
the store through a ``Referee`` exactly as the engine does when it starts (the same rules, the same
starting jackpot meter, evidence events left out as the engine leaves them out of its referee), and cuts
the resulting log at the coup's bounds: the same operations, at the same table clock, as the engine's.

A coup's own operations are not enough to replay it from an empty table: a coup after the first starts
where the previous one left the table. ``EndCoup`` keeps only three things from before: the session is
open (the deck was counted: ``open-session``), which seats are taken, and the chips left in the ante
boxes (they play in the coming coup). The history therefore starts with those, as of the moment the
coup began: the session's last opening, then ``sit`` (and ``bet``) for each seat as it stood. A vacant
seat with an ante left on it is sat, bet and stood up again, so that no ``bet on a vacant seat`` flag is
raised twice. None of these lines raises a flag, so the replay's flags and payouts are the coup's own;
only the coup's number and the operation counts differ from the engine's (the replay counts from 1).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import msgspec

from .bus.schema import AnyBody, Envelope, EvidenceSaved
from .errors import StudTableError
from .profiles import load_profile, profile_names
from .referee import Referee
from .replay import SQLITE_MAGIC
from .rules.history import MAGIC, format_operation, format_rules
from .rules.operations import Box, OpenSession, Operation, PlaceBet, SitDown, StandUp
from .rules.profile import TableRules
from .rules.table import Table


class ExportError(StudTableError):
    """The store cannot be read, or holds no such coup: the message says which."""


@dataclass(frozen=True)
class CoupHistory:
    coup: int
    #: the lines that restore the table as the previous coup left it
    preamble: tuple[Operation, ...]
    #: the coup's own operations, as the engine applied them
    operations: tuple[Operation, ...]
    #: the recorded events the coup's operations came from (None when it has none yet)
    first_event: int | None
    last_event: int | None
    #: recorded events whose body could not be read: the engine skips them too
    unreadable: int
    ended: bool

    def text(self, rules: TableRules, source: str, profile: str | None = None) -> str:
        """The history file; ``profile`` names the profile in the header (see ``profile_reference``)."""
        events = (f"events {self.first_event}..{self.last_event}" if self.first_event is not None
                  else "no operation yet")
        lines = [MAGIC,
                 f"# coup {self.coup} of {source} ({events}), as the engine played it; "
                 + ("ended" if self.ended else "still in progress when exported"),
                 format_rules(rules, profile)]
        if self.preamble:
            lines.append(f"# the table as coup {self.coup - 1} left it: the session's opening, the seats taken, "
                         "the antes on the felt")
            lines.extend(format_operation(op) for op in self.preamble)
            lines.append(f"# coup {self.coup}")
        if self.unreadable:
            lines.append(f"# {self.unreadable} recorded events up to this coup could not be read; "
                         "the engine skips them too")
        lines.extend(format_operation(op) for op in self.operations)
        return "\n".join(lines) + "\n"


def profile_reference(rules: TableRules, profile_file: Path | None, history_folder: Path | None) -> str | None:
    """How the history's header names the profile: None (by its name) when the rules are the shipped profile of
    that name, otherwise by the profile file's path, where replay reads the very same rules. The name alone
    would let replay find other rules, or none (a copy that keeps a shipped name with its payouts edited, a
    renamed one). The path is relative to ``history_folder`` (replay's base) so that the two can move together;
    absolute when the history goes to standard output."""
    name = rules.profile.name
    if name in profile_names() and load_profile(name) == rules.profile:
        return None
    if profile_file is None:  # rules that come from no file: nothing replay could read them from
        raise ExportError(f"profile {name}: not the shipped profile of that name, and not from a file")
    if history_folder is None:
        return str(profile_file.resolve())
    return os.path.relpath(profile_file.resolve(), history_folder.resolve())


def _stored_rows(path: Path) -> Generator[tuple[int, str, int, int, int, str], None, None]:
    """The recorded events in order, read as they are needed (the export stops at the coup's end)."""
    if path.is_dir():
        raise ExportError(f"{path} is a directory, not a table's event store")
    if not path.is_file():
        raise ExportError(f"{path}: no such file")
    with path.open("rb") as handle:
        if handle.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC:
            raise ExportError(f"{path} is not a SQLite database: not a table's event store")
    # Read-only: the engine is the store's only writer, and it may be running.
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        try:
            cursor = db.execute("SELECT id, publisher, seq, mono_ns, wall_ns, body FROM events ORDER BY id")
        except sqlite3.DatabaseError as error:
            raise ExportError(f"{path}: not a table's event store ({error})") from None
        try:
            yield from cursor
        except sqlite3.DatabaseError as error:
            raise ExportError(f"{path}: the event store cannot be read ({error})") from None
    finally:
        db.close()


def coup_history(store_path: str | Path, rules: TableRules, coup: int, jackpot_meter: int = 0) -> CoupHistory:
    """Coup ``coup`` (numbered as the engine numbers them, from 1) of the store at ``store_path``."""
    path = Path(store_path)
    if coup < 1:
        raise ExportError(f"coup {coup}: coups are numbered from 1")
    referee = Referee(rules, jackpot_meter)
    table = referee.table
    preamble: list[Operation] = []
    start = 0  # where the coup begins in the table's log
    first_event: int | None = None
    last_event: int | None = None
    unreadable = 0
    rows = _stored_rows(path)
    for event_id, publisher, seq, mono_ns, wall_ns, body in rows:
        try:
            decoded = msgspec.json.decode(body, type=AnyBody)
        except msgspec.DecodeError:
            unreadable += 1
            continue
        if isinstance(decoded, EvidenceSaved):
            continue  # the engine files evidence itself: its referee (and the table clock) never sees it
        before_coup, before_ops = table.coup.number, len(table.log)
        referee.handle(Envelope(publisher, seq, mono_ns, wall_ns, decoded))
        if before_coup == coup and len(table.log) > before_ops:
            first_event = event_id if first_event is None else first_event
            last_event = event_id
        if table.coup.number != before_coup and table.coup.number == coup:
            preamble, start = _table_as_left(table), len(table.log)
        if table.coup.number > coup:
            break
    rows.close()  # the store is closed now, not when the generator is collected
    if table.coup.number < coup:
        raise ExportError(f"{path}: no coup {coup}: the store's last coup is coup {table.coup.number}")
    ended = table.coup.number > coup
    operations = table.log[start:table.coup.start_index] if ended else table.log[start:]
    return CoupHistory(coup, tuple(preamble), tuple(operations), first_event, last_event, unreadable, ended)


def _table_as_left(table: Table) -> list[Operation]:
    """The operations that bring an empty table to where the coup just ended left ``table`` (see the module's
    text), all at the moment it ended."""
    t = table.log[-1].t
    opening = next(op for op in reversed(table.log) if isinstance(op, OpenSession))
    operations: list[Operation] = [opening]
    for number, seat in table.seats.items():
        ante = seat.bets.get(Box.ANTE, 0)
        if not (seat.occupied or ante):
            continue
        operations.append(SitDown(t, number))
        if ante:
            operations.append(PlaceBet(t, number, Box.ANTE, ante))
        if not seat.occupied:
            operations.append(StandUp(t, number))
    # Checked, not assumed: should EndCoup ever keep more than this, the export says so instead of lying.
    scratch = Table.replay(table.rules, operations)
    if scratch.seats != table.seats or scratch.phase is not table.phase or scratch.flags:
        raise ExportError(f"coup {table.coup.number}: the table as coup {table.coup.number - 1} left it cannot be "
                          "restored by sit and bet lines (the export needs updating)")
    return operations
