"""Reading a TOML file whose every mistake must name the key and the line.

``tomllib`` gives values but not where they came from; ``find_line`` finds the
line of a dotted key in the text, so that a typo in a profile or a table's
configuration is reported as ``table-1.toml, line 12: key 'pins.cut_card': ...``.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable
from typing import Any

from ..errors import StudTableError

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.\-\s\"]+?)\s*\]\s*(#.*)?$")
_ASSIGN = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=")


class TomlError(StudTableError, ValueError):
    """A value that cannot be used: names the file, the key and, when known, the line."""

    def __init__(self, source: str, key: str, line: int | None, message: str) -> None:
        self.source = source
        self.key = key
        self.line = line
        where = f"{source}, line {line}" if line is not None else source
        about = f"key '{key}': " if key else ""  # no key: the file itself (unreadable, not UTF-8)
        super().__init__(f"{where}: {about}{message}")


def find_line(text: str, dotted_key: str) -> int | None:
    """The 1-based line where ``table.key`` is set (or its table begins)."""
    *table_path, key = dotted_key.split(".")
    table = ".".join(table_path)
    current = ""
    header_line = None
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            current = header.group(1).replace(" ", "").replace('"', "")
            if current == dotted_key:
                return number
            if current == table:
                header_line = number
            continue
        assign = _ASSIGN.match(line)
        if assign and current == table and assign.group(1) == key:
            return number
    return header_line


def suggest(word: Any, choices: Any) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def load_toml(text: str, source: str, error: Callable[[str, str, int | None, str], TomlError]) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as failure:
        match = re.search(r"line (\d+)", str(failure))
        raise error(source, "(syntax)", int(match.group(1)) if match else None, str(failure)) from None


class TomlReader:
    """Typed access to parsed TOML, raising errors that carry key and line."""

    def __init__(self, text: str, source: str, data: dict[str, Any],
                 error: Callable[[str, str, int | None, str], TomlError] = TomlError) -> None:
        self.text = text
        self.source = source
        self.data = data
        self._error = error

    def fail(self, key: str, message: str) -> TomlError:
        return self._error(self.source, key, find_line(self.text, key), message)

    def raw(self, key: str, default: Any = ...) -> Any:
        node: Any = self.data
        for part in key.split("."):
            if not isinstance(node, dict) or part not in node:
                if default is ...:
                    raise self.fail(key, "missing")
                return default
            node = node[part]
        return node

    def integer(self, key: str, low: int | None, high: int | None, default: Any = ...) -> int:
        """A whole number within ``low..high`` (None: no bound on that side, another check's own)."""
        value = self.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected a whole number, got {value!r}")
        if low is not None and high is not None and not low <= value <= high:
            raise self.fail(key, f"{value} is outside {low}..{high}")
        if high is not None and value > high:
            raise self.fail(key, f"{value} is above {high}")
        if low is not None and value < low:
            raise self.fail(key, f"{value} is below {low}")
        return value

    def number(self, key: str, low: float, high: float, default: Any = ...) -> float:
        value = self.raw(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"expected a number, got {value!r}")
        if not low <= value <= high:
            raise self.fail(key, f"{value} is outside {low}..{high}")
        return float(value)

    def boolean(self, key: str, default: Any = ...) -> bool:
        value = self.raw(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, got {value!r}")
        return value

    def string(self, key: str, default: Any = ...) -> str:
        value = self.raw(key, default)
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"expected some text, got {value!r}")
        return value

    def check_keys(self, schema: dict[str, set[str]], top_level: set[str],
                   extra_keys: frozenset[str] | set[str] = frozenset()) -> None:
        """Refuse any table or key the schema does not know, suggesting the closest."""
        for name, value in self.data.items():
            if name in schema and not isinstance(value, dict):
                raise self.fail(name, f"must be a table [{name}], got {value!r}")
            if name in top_level and isinstance(value, dict):
                raise self.fail(name, "must be a value, not a table")
            if isinstance(value, dict):
                if name not in schema:
                    raise self.fail(name, f"unknown table{suggest(name, schema)}")
                allowed = schema[name] | extra_keys
                for key in value:
                    if key not in allowed:
                        raise self.fail(f"{name}.{key}", f"unknown key{suggest(key, allowed)}")
            elif name not in top_level:
                raise self.fail(name, f"unknown key{suggest(name, top_level | set(schema))}")
