"""Exceptions of the rules core.

One root, ``RulesError``; each leaf also inherits the builtin it resembles, so
callers may catch either (the shape of gpiozero's ``exc.py``).
"""

from __future__ import annotations

from ..errors import StudTableError
from .tomlread import TomlError


class RulesError(StudTableError):
    """Root of every error raised by the rules core."""


class CardError(RulesError, ValueError):
    """A card text that names no card of a 52-card deck."""


class ProfileError(RulesError, TomlError):
    """A rule profile that cannot be used: names the key and, when known, the line."""


class TableRulesError(RulesError, ValueError):
    """A table's setting that its profile does not allow (``profile.TableRules``). Each problem names the field of
    ``TableRules`` it is about, so that a caller can name its own key for it (a configuration's ``table.seats``, a
    history header's ``seats``); the first is ``field`` and ``message``."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        self.field, self.message = problems[0]
        super().__init__("; ".join(f"{field}: {message}" for field, message in problems))


class ActionRefused(RulesError, ValueError):
    """An action that the coup's state does not allow. The reason says why, in English (the logs, the
    history's tools) and in French (the croupier's display)."""

    def __init__(self, action: str, reason: str, reason_fr: str) -> None:
        self.action = action
        self.reason = reason
        self.reason_fr = reason_fr
        super().__init__(f"{action} refused: {reason}")


class HistoryError(RulesError, ValueError):
    """A line of a coup history that cannot be read."""

    def __init__(self, line_number: int, message: str) -> None:
        self.line_number = line_number
        self.message = message
        super().__init__(f"history line {line_number}: {message}")
