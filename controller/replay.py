"""What ``stud-table replay`` needs around the pure rules core: the file read as bytes (so that a SQLite
store or a file that is not UTF-8 is named as such), the header's profile loaded, and the plain report."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from .errors import StudTableError
from .profiles import load_profile
from .progress import report_table
from .rules.errors import HistoryError, ProfileError
from .rules.history import History, format_money
from .rules.operations import OPERATION_TYPES
from .rules.profile import TableRules

#: What ``stud-table replay --help`` shows of the format (rules/history.py describes it whole).
FORMAT_EXAMPLE = """\
A history file is UTF-8 text: the table's header, then one operation a line, each
starting with the table clock in seconds (3 decimals). Example:

  # stud-table history 1
  table profile=fr-2007 minimum=10.00 maximum=500.00 seats=7 bonus=yes jackpot=no purchase=yes
  0.000 open-session cards=2c,2d,2h,2s,3c,3d,...
  0.000 sit seat=3
  12.250 bet seat=3 box=ante amount=20.00
  14.000 no-more-bets
  ...
  20.000 deal position=dealer card=Kd face_up=yes
  ...
  31.500 raise seat=3 amount=40.00

open-session lists the 52 cards counted. Money is in euros with cents;
position=dealer is the croupier's hand; card indexes (index=, discard=) count
from 1; card=?? is a card not yet identified; lines starting with # are
comments. profile= names a shipped profile, or a profile file (.toml, taken
from the history file's folder when relative). The operations:
""" + textwrap.fill(", ".join(OPERATION_TYPES), width=80, initial_indent="  ", subsequent_indent="  ",
                    break_on_hyphens=False) + """
`stud-table export-history STORE.sqlite --coup N --config TABLE.toml` writes
the history of a coup recorded in a table's store."""


#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"


class ReplayError(StudTableError):
    """A file that is not a history file; the message names it."""


def history_text(path: Path) -> str:
    """The file's text; a SQLite store or bytes that are not UTF-8 are named as such."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ReplayError(f"{path}: cannot read it: {error.strerror or error}") from None
    if data.startswith(SQLITE_MAGIC):
        raise ReplayError(f"{path} is a SQLite database, not a history file: use `stud-table export-history "
                          f"{path} --coup N --config TABLE.toml` to write a recorded coup's history")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ReplayError(f"{path}, line {line}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset "
                          f"{error.start}): a history file is UTF-8") from None


def history_rules(history: History, folder: Path) -> TableRules:
    """The table's rules from the header: its profile loaded (a ``.toml`` path from ``folder``, the history
    file's), its values checked against it. Every refusal is a ``HistoryError`` on the header's line that names
    the field."""
    name = history.profile_name
    source = folder / name if name.endswith(".toml") else name
    try:
        profile = load_profile(source)
    except ProfileError as error:
        raise HistoryError(history.header_line, f"profile: {error}") from None
    except OSError as error:
        raise HistoryError(history.header_line, f"profile: cannot read {source}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise HistoryError(history.header_line, f"profile: {source} is not UTF-8 text") from None
    return history.rules(profile)


def _euros(cents: int, sign: bool = False) -> str:
    text = format_money(cents)
    return f"+{text}" if sign and cents > 0 else text


def _who(seat: int | None) -> str:
    return "table" if seat is None else "dealer" if seat == 0 else f"seat {seat}"


def report(summary: dict[str, Any]) -> list[Text | Table]:
    """The replayed table, for ``print_report``: its state, its flags, then each settlement's payouts in paying
    order. Every text is plain ``Text``: a flag's ``[warning]`` or a void's reason is never read as rich markup."""
    settlements = summary.get("settlements", [])
    parts: list[Text | Table] = [Text(f"coup {summary['coup']}, phase {summary['phase']}: {summary['operations']} "
                                      f"operations, {len(summary['flags'])} flags, {len(settlements)} coups settled")]
    if summary["flags"]:
        parts.append(Text("flags:"))
        parts.extend(Text(f"  [{flag['severity']}] {_who(flag['seat'])}: {flag['label_fr']}: {flag['detail']}")
                     for flag in summary["flags"])
    for number, settlement in enumerate(settlements, start=1):
        dealer = settlement["dealer_hand"] or "not known"
        qualifies = "qualifies" if settlement["dealer_qualifies"] else "does not qualify"
        announced = "; ".join(settlement["announced"])
        title = (f"settlement {number}: dealer {dealer} ({qualifies})" + (f"; {announced}" if announced else "")
                 + ("; the coup is void" if settlement["void"] else ""))
        table = report_table(None, "seat", "line", "stake €", "outcome", "net €", "reason")
        table.title = Text(title)
        table.columns[1].justify = table.columns[3].justify = "left"  # words, not amounts
        for payout in settlement["payouts"]:
            table.add_row(*(Text(cell) for cell in (str(payout["seat"]), payout["line"], _euros(payout["stake"]),
                                                     payout["outcome"], _euros(payout["net"], sign=True),
                                                     payout["reason"])))
        parts.extend([table, Text(f"house: {_euros(settlement['house_net'], sign=True)} €")])
    return parts
