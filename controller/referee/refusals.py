"""The refusals the croupier's display shows, and those it keeps showing while their reason holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from ..rules.errors import ActionRefused
from ..rules.operations import Operation, refused_fr
from ..rules.table import Phase

#: How many refusals of the coup the state keeps, the latest last.
KEPT_REFUSALS = 5


@dataclass
class Refusal:
    """A refused action as the croupier's display shows it."""

    #: the operation kind (``end-coup``), or what the event was when it stands for no operation (``keypad``)
    kind: str
    #: the refused action in French: « fin de coup refusée »
    action_fr: str
    reason: str
    reason_fr: str
    #: how many times the same action was refused for the same reason in this coup
    count: int = 1
    #: the operation refused, checked again as the table moves on (None: the event stood for no operation)
    operation: Operation | None = None

    @classmethod
    def of(cls, kind: str, reason: str, reason_fr: str, action_fr: str | None = None,
           operation: Operation | None = None) -> Refusal:
        """The refusal of ``kind``, its action named in French after the kind unless ``action_fr`` names it."""
        return cls(kind, action_fr or refused_fr(kind), reason, reason_fr, operation=operation)

    def shown(self) -> dict[str, Any]:
        """What the state carries of it (the operation stays in the referee)."""
        return {"kind": self.kind, "action_fr": self.action_fr, "reason": self.reason, "reason_fr": self.reason_fr,
                "count": self.count}


#: What refuses an operation now, the table as it stands (None: the table would take it).
RefusedNow: TypeAlias = Callable[[Operation], Refusal | ActionRefused | None]


class StandingRefusals:
    """The coup's refusals the display keeps showing, the latest last. One stands while its reason holds: after each
    accepted operation the refused one is checked again, and goes once the table would take it (or says its new
    reason: « places 3, 5 encore à payer », then « place 5 encore à payer »); the camera's next reading, accepted a
    second later, does not wipe it before the dealer has read it. A new phase of the coup starts afresh."""

    def __init__(self, moment: tuple[int, Phase]) -> None:
        self.refusals: list[Refusal] = []
        #: the coup and phase the refusals belong to
        self._moment = moment

    def remember(self, moment: tuple[int, Phase], accepted: Operation | None, refusal: Refusal | None,
                 standing_condition: bool, refused_now: RefusedNow) -> None:
        """What one event did, at ``moment`` (the coup's number and phase after it): the operation the table
        ``accepted``, or the ``refusal``. The same refusal again counts on its entry; a ``standing_condition`` (the
        settlement's wait, said again after each event of the showdown) is kept once, not counted."""
        if moment != self._moment:
            self.refusals, self._moment = [], moment
        if accepted is not None:
            self.refusals = [kept for r in self.refusals if (kept := self._still_refused(r, accepted, refused_now))]
        if refusal is None:
            return
        same = next((r for r in self.refusals if (r.kind, r.reason) == (refusal.kind, refusal.reason)), None)
        if same is not None and standing_condition:
            return
        if same is not None:
            self.refusals.remove(same)
            refusal.count = same.count + 1
        self.refusals = [*self.refusals, refusal][-KEPT_REFUSALS:]

    @staticmethod
    def _still_refused(refusal: Refusal, accepted: Operation, refused_now: RefusedNow) -> Refusal | None:
        """``refusal`` as it stands now that ``accepted`` went through: None once the table would take it. A refusal
        of no operation (an unreadable line) stands until an operation of its kind goes through."""
        if refusal.operation is None:
            return None if refusal.kind == accepted.kind else refusal
        if (reason := refused_now(refusal.operation)) is None:
            return None
        return replace(refusal, reason=reason.reason, reason_fr=reason.reason_fr)
