"""What ``stud-table replay`` needs around the pure rules core: the file read as bytes (so that a SQLite
store or a file that is not UTF-8 is named as such), the header's profile loaded, and the plain report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .profiles import load_profile
from .rules.errors import HistoryError, ProfileError
from .rules.history import History, format_money
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
comments. `stud-table export-history STORE.sqlite --coup N --config TABLE.toml`
writes the history of a coup recorded in a table's store."""


#: The first bytes of every SQLite database file.
SQLITE_MAGIC = b"SQLite format 3\x00"


class ReplayError(Exception):
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


def history_rules(history: History) -> TableRules:
    """The table's rules from the header: its profile loaded, its values checked against it.
    Every refusal is a ``HistoryError`` on the header's line that names the field."""
    try:
        profile = load_profile(history.profile_name)
    except ProfileError as error:
        raise HistoryError(history.header_line, f"profile: {error}") from None
    except OSError as error:
        raise HistoryError(history.header_line, f"profile: cannot read {history.profile_name}: "
                                                f"{error.strerror or error}") from None
    except UnicodeDecodeError:
        raise HistoryError(history.header_line, f"profile: {history.profile_name} is not UTF-8 text") from None
    return history.rules(profile)


def _euros(cents: int, sign: bool = False) -> str:
    text = format_money(cents)
    return f"+{text}" if sign and cents > 0 else text


def _who(seat: int | None) -> str:
    return "table" if seat is None else "dealer" if seat == 0 else f"seat {seat}"


def report(summary: dict[str, Any]) -> str:
    """The replayed table in plain text: its state, its flags, then each settlement's payouts in paying order."""
    settlements = summary.get("settlements", [])
    lines = [f"coup {summary['coup']}, phase {summary['phase']}: {summary['operations']} operations, "
             f"{len(summary['flags'])} flags, {len(settlements)} coups settled"]
    if summary["flags"]:
        lines.append("flags:")
        lines.extend(f"  [{flag['severity']}] {_who(flag['seat'])}: {flag['label_fr']}: {flag['detail']}"
                     for flag in summary["flags"])
    for number, settlement in enumerate(settlements, start=1):
        dealer = settlement["dealer_hand"] or "not known"
        qualifies = "qualifies" if settlement["dealer_qualifies"] else "does not qualify"
        announced = "; ".join(settlement["announced"])
        lines.append(f"settlement {number}: dealer {dealer} ({qualifies})" + (f"; {announced}" if announced else "")
                     + ("; the coup is void" if settlement["void"] else ""))
        lines.append(f"  {'seat':>4}  {'line':<9} {'stake €':>10}  {'outcome':<8} {'net €':>10}  reason")
        for payout in settlement["payouts"]:
            lines.append(f"  {payout['seat']:>4}  {payout['line']:<9} {_euros(payout['stake']):>10}  "
                         f"{payout['outcome']:<8} {_euros(payout['net'], sign=True):>10}  {payout['reason']}")
        lines.append(f"  house: {_euros(settlement['house_net'], sign=True)} €")
    return "\n".join(lines) + "\n"
