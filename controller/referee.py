"""The referee: observations (a card placed, chips changed, a button) turned into rules operations.

It is deterministic: its only inputs are the events and the state, and its clock
is the events' own wall timestamps. It knows nothing of the bus's sockets, so the
store's readers (export, replay, review) play events through it without zmq.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import msgspec

from .bus.schema import (
    ButtonPressed,
    CameraStatus,
    CardExposed,
    CardIdentified,
    CardPlaced,
    CardsLifted,
    ChipsChanged,
    CutCard,
    DealerOperation,
    Envelope,
    JackpotMeter,
    ShoeCardDrawn,
    ShoeLink,
    ShoePresence,
)
from .rules.cards import parse_card
from .rules.errors import CardError, HistoryError, RulesError
from .rules.flags import Flag
from .rules.history import format_time, parse_operation
from .rules.operations import (
    Box,
    DealBoughtCard,
    DealCard,
    EndCoup,
    EndDeal,
    ExposeCard,
    IdentifyCard,
    NoMoreBets,
    Operation,
    PaymentDone,
    PlaceBet,
    PlayerLooks,
    Raise,
    Settle,
    ShoeCount,
)
from .rules.profile import TableRules
from .rules.summary import table_summary
from .rules.table import Decision, Phase, Table

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    """What one event did to the table."""

    operation: Operation | None = None
    refused: str | None = None
    flags: list[Flag] = field(default_factory=list)
    #: why the coup, its dealer's hand shown, cannot be settled yet
    settlement_waits: str | None = None


@dataclass
class Devices:
    camera_online: bool | None = None
    shoe_connected: bool | None = None
    shoe_present: bool | None = None
    cut_card_seen: bool | None = None
    shoe_corrupt_frames: int = 0
    shoe_sequence_gaps: int = 0


class Referee:
    """Maps observations to rules operations and applies them to the table."""

    def __init__(self, rules: TableRules, jackpot_meter: int = 0) -> None:
        self.table = Table(rules)
        self.devices = Devices()
        self.jackpot_meter = jackpot_meter
        self._last_t = 0
        self._origin_ms: int | None = None

    def _clock(self, envelope: Envelope) -> int:
        """The table clock: ms of wall time since the first event, never going back.
        Wall time, not monotonic: the monotonic clock starts again at each boot, the recorded wall time does not."""
        wall_ms = envelope.wall_ns // 1_000_000
        if self._origin_ms is None:
            self._origin_ms = wall_ms
        self._last_t = max(self._last_t, wall_ms - self._origin_ms)
        return self._last_t

    def operation_for(self, envelope: Envelope) -> Operation | str | None:
        """The rules operation an event stands for; a string says why there is none."""
        body, table = envelope.body, self.table
        t = self._clock(envelope)
        match body:
            case ButtonPressed(button="no_more_bets"):
                return NoMoreBets(t)
            case ButtonPressed(button="end_of_deal"):
                return EndDeal(t)
            case ButtonPressed(button="payment_done"):
                due = table.payments_due()
                return PaymentDone(t, due[0]) if due else EndCoup(t)
            case CardPlaced(position=position, card=text, face_up=face_up):
                card = parse_card(text) if text else None
                seat = table.seats.get(position)
                if (table.phase is Phase.DECISIONS and seat is not None and seat.discard is not None
                        and not seat.bought_card_dealt):
                    return DealBoughtCard(t, position, card)
                return DealCard(t, position, card, face_up)
            case CardIdentified(position=position, index=index, card=text):
                return IdentifyCard(t, position, index, parse_card(text))
            case CardExposed(position=position, index=index):
                return ExposeCard(t, position, index)
            case CardsLifted(seat=seat):
                return PlayerLooks(t, seat)
            case ChipsChanged(seat=seat, box="raise", amount=amount):
                state = table.seats.get(seat)
                if table.phase is Phase.DECISIONS and state is not None and state.decision is None and amount:
                    return Raise(t, seat, amount)
                return "chips in the raise box are a raise only while the seat decides"
            case ChipsChanged(seat=seat, box=box, amount=amount):
                return PlaceBet(t, seat, Box(box), amount)
            case ShoeCardDrawn(count=count):
                return ShoeCount(t, count) if table.phase in (Phase.DEALING, Phase.DECISIONS,
                                                                Phase.SHOWDOWN) else "shoe count outside a deal"
            case DealerOperation(line=line):
                return parse_operation(f"{format_time(t)} {line}")
            case JackpotMeter(amount=amount):
                if amount < 0:
                    return f"a jackpot meter of {amount} cents"
                self.jackpot_meter = amount
            case CameraStatus(online=online):
                self.devices.camera_online = online
            case ShoeLink(connected=connected, corrupt_frames=corrupt, sequence_gaps=gaps):
                self.devices.shoe_connected = connected
                self.devices.shoe_corrupt_frames, self.devices.shoe_sequence_gaps = corrupt, gaps
            case ShoePresence(present=present):
                self.devices.shoe_present = present
            case CutCard(seen=seen):
                self.devices.cut_card_seen = seen
        return None

    def handle(self, envelope: Envelope) -> Outcome:
        try:
            return self._handle(envelope)
        except Exception as error:  # a bug must not stop the table: the event stays recorded, the refusal says why
            log.exception("engine: internal error on %s", envelope)
            return Outcome(refused=f"internal error: {type(error).__name__}: {error}")

    def _handle(self, envelope: Envelope) -> Outcome:
        try:
            operation = self.operation_for(envelope)
        except (CardError, HistoryError, ValueError) as error:
            return Outcome(refused=str(error))
        if operation is None:
            return Outcome()
        if isinstance(operation, str):
            return Outcome(refused=operation)
        flags_before = len(self.table.flags)
        try:
            self.table.apply(operation)
        except RulesError as error:
            return Outcome(operation, refused=str(error))
        # Once the dealer's hand is shown and every card needed is known, the coup is settled.
        settle = Settle(operation.t, self.jackpot_meter)
        if self.table.phase is Phase.SHOWDOWN:
            try:
                self.table.apply(settle)
                operation = settle
            except RulesError as error:
                return Outcome(operation, flags=self.table.flags[flags_before:], settlement_waits=str(error))
        return Outcome(operation, flags=self.table.flags[flags_before:])

    def state(self) -> dict[str, Any]:
        summary = table_summary(self.table)
        summary["devices"] = msgspec.to_builtins(self.devices)
        summary["raised_by"] = {str(n): s.decision.value for n, s in self.table.seats.items()
                                if s.decision is Decision.RAISE}
        return summary
