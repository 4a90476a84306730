"""A table's history as plain text a person can read, and back, exactly.

    # stud-table history 1
    table profile=fr-2007 minimum=10.00 maximum=500.00 seats=7 bonus=yes jackpot=no purchase=yes
    0.000 open-session cards=2c,2d,2h,...
    12.250 bet seat=3 box=ante amount=20.00
    20.000 deal position=dealer card=Kd face_up=yes

The first token of a line is the table clock in seconds (millisecond precision).
Money is in euros with cents; ``position=dealer`` is the croupier's hand; card
indexes (``index``, ``discard``) count from 1; ``??`` is a card not yet identified.
Lines starting with ``#`` and blank lines are comments. ``profile=`` names a shipped profile, or a profile
file (``.toml``: the caller reads it, from the history file's folder when the path is relative).
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Iterable
from typing import Any

from .cards import parse_card
from .errors import CardError, HistoryError, TableRulesError
from .operations import DEALER, OPERATION_TYPES, Box, Operation
from .payment import PAID_ZONES
from .profile import Profile, TableRules

MAGIC = "# stud-table history 1"

_MONEY_FIELDS = {"amount", "price", "jackpot_meter"}
_POSITION_FIELDS = {"seat", "position"}
_INDEX_FIELDS = {"index", "discard"}
_BOOL_FIELDS = {"face_up", "accepted", "watched"}
_INT_FIELDS = {"shuffles", "cuts", "drawn"}
_MONEY = re.compile(r"^(\d+)\.(\d\d)$")


def format_money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"


def parse_money(text: str) -> int:
    match = _MONEY.match(text)
    if not match:
        raise ValueError(f"{text!r} is not an amount like 20.00")
    return int(match.group(1)) * 100 + int(match.group(2))


def _format_value(name: str, value: Any) -> str:
    if name in _MONEY_FIELDS:
        return format_money(value)
    if name in _POSITION_FIELDS:
        return "dealer" if value == DEALER else str(value)
    if name in _INDEX_FIELDS:
        return str(value + 1)
    if name in _BOOL_FIELDS:
        return "yes" if value else "no"
    if name == "card":
        return "??" if value is None else str(value)
    if name == "cards":
        return ",".join(str(card) for card in value)
    if name == "box":
        return str(value.value)
    if name == "reason":
        return shlex.quote(value)
    return str(value)


def _whole_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _parse_value(name: str, text: str) -> Any:
    """The field's value; a ``ValueError`` (or ``CardError``) that says what ``text`` is not, for the caller to
    prefix with the field's name."""
    if name in _MONEY_FIELDS:
        return parse_money(text)
    if name in _POSITION_FIELDS:
        if text == "dealer":
            return DEALER
        if not _whole_number(text):
            raise ValueError(f"{text!r} is not a seat number or dealer")
        return int(text)
    if name in _INDEX_FIELDS:
        # 0 would become -1, which Python reads as the last card: refused here
        if not _whole_number(text) or int(text) < 1:
            raise ValueError(f"{text!r} is not a card index (1, 2, ...: they count from 1)")
        return int(text) - 1
    if name in _BOOL_FIELDS:
        if text not in ("yes", "no"):
            raise ValueError(f"expected yes or no, got {text!r}")
        return text == "yes"
    if name == "card":
        return None if text == "??" else parse_card(text)
    if name == "cards":
        return tuple(parse_card(part) for part in text.split(",") if part)
    if name == "box":
        try:
            return Box(text)
        except ValueError:
            raise ValueError(f"{text!r} is not one of {', '.join(box.value for box in Box)}") from None
    if name == "zone" and text not in PAID_ZONES:
        raise ValueError(f"{text!r} is not one of {', '.join(PAID_ZONES)}")
    if name in _INT_FIELDS:
        if not _whole_number(text):
            raise ValueError(f"{text!r} is not a whole number like 3")
        return int(text)
    return text


#: shlex's messages, as a person who edits a history file reads them
_SHLEX_ERRORS = {"No closing quotation": "a quote is not closed", "No escaped character": "a backslash ends the line"}


#: a token as shlex splits a line without quotes or backslashes: a run of anything but its whitespace
_PLAIN_TOKEN = re.compile(r"[^ \t\r\n]+")


def _split(line: str, line_number: int) -> list[str]:
    if not any(mark in line for mark in "'\"\\"):  # the dealer's keypad lines: ten times faster than shlex
        return _PLAIN_TOKEN.findall(line)
    try:
        return shlex.split(line)
    except ValueError as error:
        raise HistoryError(line_number, _SHLEX_ERRORS.get(str(error), str(error))) from None


def format_time(ms: int) -> str:
    return f"{ms // 1000}.{ms % 1000:03d}"


def parse_time(text: str) -> int:
    seconds, _, millis = text.partition(".")
    if not seconds.isdigit() or len(millis) != 3 or not millis.isdigit():
        raise ValueError(f"{text!r} is not a time like 12.250 (seconds)")
    return int(seconds) * 1000 + int(millis)


def format_operation(op: Operation) -> str:
    parts = [format_time(op.t), op.kind]
    for field in dataclasses.fields(op):
        value = getattr(op, field.name)
        if field.name != "t" and value != field.default:  # a field left at its default is not written
            parts.append(f"{field.name}={_format_value(field.name, getattr(op, field.name))}")
    return " ".join(parts)


def parse_operation(line: str, line_number: int = 1) -> Operation:
    tokens = _split(line, line_number)
    if len(tokens) < 2:
        raise HistoryError(line_number, f"expected a time and an operation, got {line!r}")
    time_text, kind, *pairs = tokens
    op_type = OPERATION_TYPES.get(kind)
    if op_type is None:
        raise HistoryError(line_number, f"unknown operation {kind!r}; known: {', '.join(OPERATION_TYPES)}")
    fields = [field for field in dataclasses.fields(op_type) if field.name != "t"]
    names = [field.name for field in fields]
    values: dict[str, Any] = {}
    try:
        values["t"] = parse_time(time_text)
    except ValueError as error:
        raise HistoryError(line_number, f"time: {error}") from None
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or name not in names:
            raise HistoryError(line_number, f"unexpected {pair!r}; {kind} takes {', '.join(names) or 'nothing'}")
        if name in values:
            raise HistoryError(line_number, f"{name} is given twice")
        try:
            values[name] = _parse_value(name, text)
        except (ValueError, CardError) as error:
            raise HistoryError(line_number, f"{name}: {error}") from None
    missing = [f.name for f in fields if f.name not in values and f.default is dataclasses.MISSING]
    if missing:
        raise HistoryError(line_number, f"{kind} lacks {', '.join(missing)}")
    return op_type(**values)


def format_rules(rules: TableRules, profile: str | None = None) -> str:
    """The header; ``profile`` names the profile when its name is not enough (a profile file's path)."""
    return (
        f"table profile={shlex.quote(profile or rules.profile.name)} minimum={format_money(rules.minimum_cents)} "
        f"maximum={format_money(rules.maximum_cents)} seats={rules.marked_seats} "
        f"bonus={'yes' if rules.bonus else 'no'} jackpot={'yes' if rules.jackpot else 'no'} "
        f"purchase={'yes' if rules.card_purchase else 'no'}"
    )


def format_history(rules: TableRules, operations: Iterable[Operation]) -> str:
    lines = [MAGIC, format_rules(rules)]
    lines.extend(format_operation(op) for op in operations)
    return "\n".join(lines) + "\n"


_TABLE_KEYS = ("profile", "minimum", "maximum", "seats", "bonus", "jackpot", "purchase")
_TABLE_OPTIONS = ("bonus", "jackpot", "purchase")
#: the header's key for each field of ``TableRules``
_HEADER_KEYS = {"minimum_cents": "minimum", "maximum_cents": "maximum", "marked_seats": "seats", "bonus": "bonus",
                "jackpot": "jackpot", "card_purchase": "purchase"}


@dataclasses.dataclass(frozen=True)
class _Header:
    """The header's values, read; each error names the field as the header spells it."""

    minimum_cents: int
    maximum_cents: int
    seats: int
    options: dict[str, bool]


def _read_header(settings: dict[str, str], line_number: int) -> _Header:
    def fail(key: str, message: str) -> HistoryError:
        return HistoryError(line_number, f"{key}: {message}")

    money = {}
    for key in ("minimum", "maximum"):
        try:
            money[key] = parse_money(settings[key])
        except ValueError as error:
            raise fail(key, str(error)) from None
    seats_text = settings["seats"]
    if not (seats_text.isascii() and seats_text.isdigit()):
        raise fail("seats", f"{seats_text!r} is not a number of seats like 7")
    options = {}
    for key in _TABLE_OPTIONS:
        if settings[key] not in ("yes", "no"):
            raise fail(key, f"expected yes or no, got {settings[key]!r}")
        options[key] = settings[key] == "yes"
    return _Header(money["minimum"], money["maximum"], int(seats_text), options)


@dataclasses.dataclass(frozen=True)
class History:
    profile_name: str
    settings: dict[str, str]
    operations: tuple[Operation, ...]
    #: the header's line, and each operation's line, in the text: errors name them
    header_line: int
    lines: tuple[int, ...]

    def rules(self, profile: Profile) -> TableRules:
        """The table's rules, given the profile that the header names. A value the profile refuses
        (``TableRules``' own check) is a ``HistoryError`` on the header's line, naming the field as the header
        spells it."""
        header = _read_header(self.settings, self.header_line)
        try:
            return TableRules(
                profile,
                minimum_cents=header.minimum_cents,
                maximum_cents=header.maximum_cents,
                marked_seats=header.seats,
                bonus=header.options["bonus"],
                jackpot=header.options["jackpot"],
                card_purchase=header.options["purchase"],
            )
        except TableRulesError as error:
            raise HistoryError(self.header_line, f"{_HEADER_KEYS[error.field]}: {error.message}") from None


def _parse_header(line: str, line_number: int) -> dict[str, str]:
    settings: dict[str, str] = {}
    for pair in _split(line, line_number)[1:]:  # a profile file's path may be quoted
        key, sep, value = pair.partition("=")
        if not sep or key not in _TABLE_KEYS:
            raise HistoryError(line_number, f"unexpected {pair!r} in the table header; "
                                            f"it takes {', '.join(_TABLE_KEYS)}")
        if key in settings:
            raise HistoryError(line_number, f"{key} is given twice")
        settings[key] = value
    missing = [key for key in _TABLE_KEYS if key not in settings]
    if missing:
        raise HistoryError(line_number, f"the table header lacks {', '.join(missing)}")
    _read_header(settings, line_number)  # the values the profile need not be known for: refused here
    return settings


def parse_history(text: str) -> History:
    settings: dict[str, str] | None = None
    header_line = 1
    operations: list[Operation] = []
    lines: list[int] = []
    # Lines end at \n only (\r\n too, stripped): the numbers are an editor's, and a void's reason may hold any
    # other separator that str.splitlines would cut it at.
    # A byte-order mark, as Windows editors write at the start of a UTF-8 file, is not part of the text.
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if settings is None:
            if not line.startswith("table "):
                raise HistoryError(number, "the first line must be the 'table profile=... minimum=...' header")
            settings, header_line = _parse_header(line, number), number
            continue
        operations.append(parse_operation(line, number))
        lines.append(number)
    if settings is None:
        raise HistoryError(1, "empty history: no table header")
    return History(settings["profile"], settings, tuple(operations), header_line, tuple(lines))
