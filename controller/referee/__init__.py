"""The referee: observations (a card placed, chips changed, a button) turned into rules operations.

It is deterministic: its only inputs are the events and the state, and its clock
is the events' own wall timestamps. It knows nothing of the bus's sockets, so the
store's readers (export, replay, review) play events through it without zmq.
What it holds « à confirmer » is ``doubts.Doubts``; what the display keeps showing of
its refusals, ``refusals.StandingRefusals``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any

import msgspec

from ..bus.schema import (
    ButtonPressed,
    CameraCaughtUp,
    CameraStatus,
    CameraWaitOver,
    CardExposed,
    CardIdentified,
    CardPlaced,
    CardRemoved,
    CardsLifted,
    ChipsChanged,
    CutCard,
    DealerOperation,
    Envelope,
    JackpotMeter,
    SensorFlood,
    ShoeCardDrawn,
    ShoeLink,
    ShoePresence,
)
from ..rules.cards import parse_card
from ..rules.errors import ActionRefused, CardError, HistoryError, RulesError
from ..rules.flags import Flag
from ..rules.french import euros_fr
from ..rules.history import format_time, parse_operation
from ..rules.operations import (
    Box,
    BuyCard,
    DealBoughtCard,
    DealCard,
    EndCoup,
    EndDeal,
    ExposeCard,
    IdentifyCard,
    NoMoreBets,
    Operation,
    PaymentDone,
    PaymentSeen,
    PlaceBet,
    PlayerLooks,
    Raise,
    Settle,
    ShoeCount,
)
from ..rules.profile import TableRules
from ..rules.summary import table_summary
from ..rules.table import Decision, Phase, Table, TableCheckpoint
from .doubts import ZONES_FR, Doubts
from .refusals import KEPT_REFUSALS, Refusal, StandingRefusals

__all__ = ["KEPT_REFUSALS", "ZONES_FR", "Devices", "Outcome", "Referee", "RefereeCheckpoint", "Refusal"]

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    """What one event did to the table."""

    operation: Operation | None = None
    refused: str | None = None
    flags: list[Flag] = field(default_factory=list)
    #: why the coup, its dealer's hand shown, cannot be settled yet
    settlement_waits: str | None = None
    #: the refusal or the settlement's wait, in English and in French
    refusal: Refusal | None = None
    #: what the button presses this event let through did (``Referee.awaiting``), in order, played before it
    released: list[Outcome] = field(default_factory=list)
    #: a button press held until the camera has caught up with it (or what the dealer keyed behind one)
    awaits_camera: bool = False
    #: for an outcome in ``released``: the kind of event it played (``ButtonPressed``, ``DealerOperation``)
    event: str = ""
    #: what waited for this event did, played after it: the chip readings held while the showdown waited, once it
    #: settled the coup (``Referee.before_settlement``); a purchase keyed before its raise, once it is the raise
    #: (``Referee.buys_before_raise``)
    then: list[Outcome] = field(default_factory=list)

    def all(self) -> list[Outcome]:
        """The outcomes of the presses released, then this event's own, then what it let through."""
        return [*self.released, self, *self.then]


@dataclass
class Devices:
    camera_online: bool | None = None
    #: the vision process answers the engine's wait on a button press (``CameraStatus.answers_waits``)
    camera_answers_waits: bool = False
    #: times the camera was knocked and calibrated again, and how far its last knock moved the felt (pixels)
    camera_knocks: int = 0
    camera_moved_px: float = 0.0
    shoe_connected: bool | None = None
    shoe_present: bool | None = None
    cut_card_seen: bool | None = None
    shoe_corrupt_frames: int = 0
    shoe_sequence_gaps: int = 0
    shoe_noisy: bool = False
    #: the kinds of device event being dropped now because they come faster than any dealer makes them
    flooding: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RefereeCheckpoint:
    """The referee between two coups (``Referee.checkpoint``): what it carries from one coup to the next."""

    table: TableCheckpoint
    devices: Devices
    jackpot_meter: int
    origin_ms: int | None
    last_t: int
    #: doubts on antes left on the felt for the next coup, and the zones whose last reading was not vouched for
    to_confirm: list[ChipsChanged]
    unvouched: list[ChipsChanged]
    #: button presses still held for the camera (a coup's end released the presses before it, not those after)
    awaiting: list[Envelope] = field(default_factory=list)


class Referee:
    """Maps observations to rules operations and applies them to the table."""

    def __init__(self, rules: TableRules, jackpot_meter: int = 0) -> None:
        self.table = Table(rules)
        self.devices = Devices()
        self.jackpot_meter = jackpot_meter
        self._last_t = 0
        self._origin_ms: int | None = None
        self.doubts = Doubts()
        self.standing = StandingRefusals(self._moment())
        #: button presses held until the camera has read the felt up to them, oldest first, and what the dealer keyed
        #: after them. A dealer presses « fin de donne » as he lays the last card, before the camera has reported
        #: it: played at once, the press would find a card missing. The camera answers each (``CameraCaughtUp``);
        #: the engine gives up on an answer after ``engine.CAMERA_WAIT_S`` (``CameraWaitOver``); both are recorded,
        #: so a replay holds and releases each press exactly as it was.
        self.awaiting: list[Envelope] = []
        #: the camera's chip readings while the dealer's hand is shown but the coup not yet settled (a card still
        #: to be read or named). A dealer pays and collects as soon as his hand is turned, not when the camera has
        #: read it: played at once, his payments would be bets moved after « rien ne va plus ». They are played
        #: as the coup's payment once it settles; a bet a player moves meanwhile is then judged by the payment
        #: check (overpaid, stake not collected).
        self.before_settlement: list[Envelope] = []
        #: card purchases keyed before the camera reported the seat's raise (laid as the player asked for the card,
        #: after the frame the purchase's wait was measured from), by seat: refused, then played once it raises
        self.buys_before_raise: dict[int, Envelope] = {}

    @classmethod
    def resume(cls, rules: TableRules, checkpoint: RefereeCheckpoint) -> Referee:
        """The referee as it stood at ``checkpoint``: it goes on exactly as the one the checkpoint was taken of."""
        referee = cls(rules, checkpoint.jackpot_meter)
        referee.table = Table.resume(rules, checkpoint.table)
        referee.devices = checkpoint.devices
        referee._origin_ms, referee._last_t = checkpoint.origin_ms, checkpoint.last_t
        referee.doubts = Doubts(checkpoint.to_confirm, checkpoint.unvouched)
        referee.standing = StandingRefusals(referee._moment())
        referee.awaiting = list(checkpoint.awaiting)
        return referee

    def checkpoint(self) -> RefereeCheckpoint:
        """The referee between two coups; ``ValueError`` in the middle of one (``Table.checkpoint``). The coup's
        refusals, card doubts and keyed payments end with it: a new coup starts without them."""
        table = self.table.checkpoint()
        if self.standing.refusals or self.doubts.in_the_coup() or self.before_settlement or self.buys_before_raise:
            raise ValueError("a checkpoint is taken between coups: this coup's refusals or doubts are still open")
        to_confirm, unvouched = self.doubts.carried()
        return RefereeCheckpoint(table, self.devices, self.jackpot_meter, self._origin_ms, self._last_t,
                                 to_confirm, unvouched, list(self.awaiting))

    @property
    def refusals(self) -> list[Refusal]:
        """The refusals of the coup still standing, the latest last."""
        return self.standing.refusals

    @property
    def to_confirm(self) -> dict[tuple[int, str], ChipsChanged]:
        """The zones « à confirmer », (seat, box) -> the camera's reading (``Doubts.to_confirm``)."""
        return self.doubts.to_confirm

    @property
    def cards_to_confirm(self) -> dict[tuple[int, int], str]:
        """The cards « à confirmer », (position, index) -> the likeliest reading (``Doubts.cards_to_confirm``)."""
        return self.doubts.cards_to_confirm

    @property
    def unvouched(self) -> dict[tuple[int, str], ChipsChanged]:
        """The zones whose last reading the camera could not vouch for (``Doubts.unvouched``)."""
        return self.doubts.unvouched

    def _moment(self) -> tuple[int, Phase]:
        """The coup and phase the standing refusals belong to."""
        return self.table.coup.number, self.table.phase

    def _clock(self, envelope: Envelope) -> int:
        """The table clock: ms of wall time since the first event, never going back.
        Wall time, not monotonic: the monotonic clock starts again at each boot, the recorded wall time does not."""
        wall_ms = envelope.wall_ns // 1_000_000
        if self._origin_ms is None:
            self._origin_ms = wall_ms
        self._last_t = max(self._last_t, wall_ms - self._origin_ms)
        return self._last_t

    def operation_for(self, envelope: Envelope) -> Operation | Refusal | None:
        """The rules operation an event stands for; a refusal says why there is none."""
        body, table = envelope.body, self.table
        t = self._clock(envelope)
        match body:
            case ButtonPressed(button="no_more_bets"):
                return NoMoreBets(t)
            case ButtonPressed(button="end_of_deal"):
                return EndDeal(t)
            case ButtonPressed(button="payment_done"):
                seat = table.seat_being_paid()
                watched = self.devices.camera_online is True  # a camera offline, or never heard of, saw nothing paid
                return PaymentDone(t, seat, watched) if seat is not None else EndCoup(t, watched)
            case CardPlaced(position=position, card=text, face_up=face_up):
                card = parse_card(text) if text else None
                state = table.seats.get(position)
                if (table.phase is Phase.DECISIONS and state is not None and state.discard is not None
                        and not state.bought_card_dealt):
                    return DealBoughtCard(t, position, card)
                return DealCard(t, position, card, face_up)
            case CardIdentified(position=position, index=index, card=text, sure=False):
                parse_card(text)  # an unknown card is refused by name, as a sure one would be
                self.doubts.doubt_the_card(table, position, index, text)
                return None  # nothing is decided on a card the camera cannot tell: the dealer names it
            case CardIdentified(position=position, index=index, card=text):
                return IdentifyCard(t, position, index, parse_card(text))
            case CardRemoved(position=position, index=index) if table.phase is Phase.SHOWDOWN:
                # a card the settlement may still need, gone from the camera's sight before it was read (lost under
                # a hand, a card turned too fast): the dealer names it, rather than the coup never settling
                if self.doubts.may_settle_on(table, position):
                    self.doubts.doubt_the_card(table, position, index, "")
                return None
            case CardExposed(position=position, index=index):
                return ExposeCard(t, position, index)
            case CardsLifted(seat=seat):
                return PlayerLooks(t, seat)
            case ChipsChanged(seat=seat, box=box, amount=amount) if table.phase is Phase.PAYING:
                return PaymentSeen(t, seat, box, amount)
            case ChipsChanged(box="raise", amount=0) if table.phase is not Phase.DECISIONS:
                return None  # a raise box emptied (a player picking his chips up after the coup) is no raise
            case ChipsChanged(seat=seat, box="raise", amount=amount):
                state = table.seats.get(seat)
                if table.phase is Phase.DECISIONS and state is not None and state.decision is None and amount:
                    return Raise(t, seat, amount)
                if state is not None and state.decision is Decision.RAISE and amount == state.raise_amount:
                    return None  # the raise as already decided (the rule raised for a player out of time)
                return Refusal.of("raise", "chips in the raise box are a raise only while the seat decides",
                                  f"jetons dans la case relance de la place {seat} hors de sa décision")
            case ChipsChanged(seat=seat, box=box, amount=amount):
                return PlaceBet(t, seat, Box(box), amount)
            case ShoeCardDrawn(count=count):
                if table.phase in (Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN):
                    return ShoeCount(t, count)
                return Refusal.of("shoe-count", "shoe count outside a deal", "compte du sabot hors d'une donne")
            case DealerOperation(line=line):
                return self.doubts.keyed_operation(parse_operation(f"{format_time(t)} {line}"), table)
            case JackpotMeter(amount=amount):
                if amount < 0:
                    return Refusal.of("jackpot-meter", f"a jackpot meter of {amount} cents",
                                      f"compteur du jackpot à {euros_fr(amount)}", "compteur du jackpot refusé")
                self.jackpot_meter = amount
            case CameraStatus(online=online, moved_px=moved_px, answers_waits=answers):
                self.devices.camera_online, self.devices.camera_answers_waits = online, online and answers
                if moved_px:
                    self.devices.camera_knocks += 1
                    self.devices.camera_moved_px = moved_px
            case ShoeLink(connected=connected, corrupt_frames=corrupt, sequence_gaps=gaps, noisy=noisy):
                self.devices.shoe_connected, self.devices.shoe_noisy = connected, noisy
                self.devices.shoe_corrupt_frames, self.devices.shoe_sequence_gaps = corrupt, gaps
            case SensorFlood(kind=kind, flooding=flooding):
                others = [name for name in self.devices.flooding if name != kind]
                self.devices.flooding = [*others, kind] if flooding else others
            case ShoePresence(present=present):
                self.devices.shoe_present = present
            case CutCard(seen=seen):
                self.devices.cut_card_seen = seen
        return None

    def handle(self, envelope: Envelope) -> Outcome:
        """Play one event: a button press the camera may not have caught up with is held (``awaiting``); an event
        that releases held presses plays them first (``Outcome.released``)."""
        body = envelope.body
        # the dealer's own inputs keep their order: what he keys after a held press waits behind it
        if (_is_press(body) and self.devices.camera_answers_waits
                or isinstance(body, ButtonPressed | DealerOperation) and self.awaiting):
            self._clock(envelope)
            self.awaiting.append(envelope)
            return Outcome(awaits_camera=True)
        released = []
        for _press in self._released_by(body):
            press = self.awaiting.pop(0)
            coup = self.table.coup.number
            played = self._play(press)
            played.event = type(press.body).__name__
            released += [played, *self._play_held_over()]
            if self.table.coup.number != coup:  # a coup's end: what was pressed after it waits on
                break
        outcome = self._play(envelope)
        outcome.released = released
        outcome.then = self._play_held_over()
        return outcome

    def _play_held_over(self) -> list[Outcome]:
        """What waited for the event just played: the chip readings of a showdown now settled, a purchase whose
        seat has now raised."""
        outcomes = self._play_before_settlement()
        for seat, envelope in list(self.buys_before_raise.items()):
            state = self.table.seats.get(seat)
            if self.table.phase is not Phase.DECISIONS or state is None or state.decision is not None:
                del self.buys_before_raise[seat]
                if state is not None and state.decision is Decision.RAISE and self.table.phase is Phase.DECISIONS:
                    outcomes.append(self._play_later(envelope))
        return outcomes

    def _play_later(self, envelope: Envelope) -> Outcome:
        """An event held over, played now, its outcome named after it."""
        outcome = self._play(envelope)
        outcome.event = type(envelope.body).__name__
        return outcome

    def _play_before_settlement(self) -> list[Outcome]:
        """The chip readings held while the showdown waited, played once it is settled (a void coup's included:
        its stakes are returned)."""
        if not self.before_settlement or self.table.phase is not Phase.PAYING:
            return []
        held, self.before_settlement = self.before_settlement, []
        return [self._play_later(envelope) for envelope in held]

    def _released_by(self, body: object) -> list[Envelope]:
        """The held presses ``body`` lets through: those up to the one the camera caught up with or the engine
        gave up on, or all of them once the camera is offline or no longer answers."""
        match body:
            case CameraCaughtUp(publisher=publisher, seq=seq) | CameraWaitOver(publisher=publisher, seq=seq):
                for position, press in enumerate(self.awaiting):
                    if (press.publisher, press.seq) == (publisher, seq):
                        # with it, what the dealer keyed after it, up to his next press
                        end = position + 1
                        while end < len(self.awaiting) and not _is_press(self.awaiting[end].body):
                            end += 1
                        return self.awaiting[:end]
            case CameraStatus(online=False) | CameraStatus(answers_waits=False):
                return list(self.awaiting)
        return []

    def _play(self, envelope: Envelope) -> Outcome:
        if isinstance(envelope.body, ChipsChanged) and self.table.phase is Phase.SHOWDOWN:
            self._clock(envelope)
            self.before_settlement.append(envelope)
            return Outcome()
        try:
            outcome = self._handle(envelope)
            self.doubts.ask_payments_unseen(self.table)
        except Exception as error:  # a bug must not stop the table: the event stays recorded, the refusal says why
            log.exception("engine: internal error on %s", envelope)
            name, reason = type(envelope.body).__name__, f"internal error: {type(error).__name__}: {error}"
            outcome = Outcome(refused=reason, refusal=Refusal.of(name, reason,
                                                                 f"erreur interne ({type(error).__name__})",
                                                                 f"événement {name} refusé"))
        # The display keeps the coup's refusals while their reason holds (``StandingRefusals``).
        self.standing.remember(self._moment(), outcome.operation if outcome.refused is None else None,
                               outcome.refusal, outcome.settlement_waits is not None, self._refused_now)
        return outcome

    def _handle(self, envelope: Envelope) -> Outcome:
        unreadable: Exception | None = None
        try:
            operation = self.operation_for(envelope)
        except (CardError, HistoryError, ValueError) as error:
            operation, unreadable = None, error
        if isinstance(envelope.body, ChipsChanged):
            reading = self.doubts.taken(envelope.body, operation, self.table)
            if reading is not envelope.body:
                envelope = msgspec.structs.replace(envelope, body=reading)
        elif isinstance(operation, Raise):
            self.doubts.doubt_the_ante(operation, self.table)  # the dealer's count of a raise
        if unreadable is not None:
            return Outcome(refused=str(unreadable), refusal=_unreadable(envelope, str(unreadable)))
        if operation is None:
            return Outcome()
        if isinstance(operation, Refusal):
            return Outcome(refused=operation.reason, refusal=operation)
        body = envelope.body
        if isinstance(body, ChipsChanged) and self.doubts.held(body, self.table):
            return Outcome()
        if waiting := self.doubts.refuse_until_confirmed(operation, self.table):
            return Outcome(operation, refused=waiting.reason, refusal=waiting)
        flags_before = len(self.table.flags)
        coup = self.table.coup.number
        try:
            self.table.apply(operation)
        except RulesError as error:
            if (isinstance(operation, BuyCard) and isinstance(body, DealerOperation)
                    and self.table.phase is Phase.DECISIONS and operation.seat in self.table.seats
                    and self.table.seats[operation.seat].decision is None):
                self.buys_before_raise[operation.seat] = envelope
            waits = self._settlement_wait(operation)
            if waits is not None:
                self.doubts.ask_cards_awaited(self.table)
            refused = waits or _as_refused(operation, error)
            return Outcome(operation, refused=str(refused),
                           refusal=Refusal.of(refused.action, refused.reason, refused.reason_fr, operation=operation))
        if self.table.coup.number != coup:
            self.doubts.new_coup(self.table)
        else:
            self.doubts.follow(body, operation, self.table)
        # Once the dealer's hand is shown and every card needed is known, the coup is settled.
        if self.table.phase is Phase.SHOWDOWN:
            settle = Settle(operation.t, self.jackpot_meter)
            try:
                self.table.apply(settle)
                operation = settle
            except RulesError as error:
                wait = _as_refused(settle, error)
                return Outcome(operation, flags=self.table.flags[flags_before:], settlement_waits=str(wait),
                               refusal=Refusal.of(wait.action, wait.reason, wait.reason_fr, operation=settle))
        return Outcome(operation, flags=self.table.flags[flags_before:])

    def _settlement_wait(self, operation: Operation) -> ActionRefused | None:
        """A payment or the coup's end refused while the showdown waits to be settled: the wait is the reason
        the dealer needs (« carte achetée place 5 non vue »), not the phase."""
        if self.table.phase is not Phase.SHOWDOWN or not isinstance(operation, PaymentDone | EndCoup):
            return None
        try:
            self.table.verify(Settle(operation.t, self.jackpot_meter))
        except RulesError as error:
            wait = _as_refused(operation, error)
            return ActionRefused(operation.kind, wait.reason, wait.reason_fr)
        return None

    def _refused_now(self, operation: Operation) -> Refusal | ActionRefused | None:
        """What refuses ``operation`` at the table's present time: a doubt it waits for, the settlement's wait, or
        the rules. None once the table would take it."""
        now = replace(operation, t=self.table.last_t)
        if waiting := self.doubts.wait_for(now, self.table):
            return waiting
        try:
            self.table.verify(now)
        except RulesError as error:
            return self._settlement_wait(now) or _as_refused(operation, error)
        return None

    def state(self) -> dict[str, Any]:
        summary = table_summary(self.table)
        summary["devices"] = msgspec.to_builtins(self.devices)
        summary["raised_by"] = {str(n): s.decision.value for n, s in self.table.seats.items()
                                if s.decision is Decision.RAISE}
        summary["refusals"] = [refusal.shown() for refusal in self.standing.refusals]
        summary["awaiting_camera"] = [[press.publisher, press.seq] for press in self.awaiting
                                      if _is_press(press.body)]
        summary.update(self.doubts.shown())
        return summary


def _is_press(body: object) -> bool:
    """Whether the camera must catch up with ``body`` before it is played: a button, or a card purchase keyed (the
    player lays his raise as he asks for a card, and the purchase is refused without the raise)."""
    return isinstance(body, ButtonPressed) or isinstance(body, DealerOperation) and body.line.split()[:1] == ["buy"]


def _as_refused(operation: Operation, error: RulesError) -> ActionRefused:
    """The rules core refuses with ``ActionRefused``; any other of its errors (a hand it cannot rank) still
    refuses the operation, its reason in English only."""
    if isinstance(error, ActionRefused):
        return error
    return ActionRefused(operation.kind, str(error), f"erreur des règles ({error})")


def _unreadable(envelope: Envelope, reason: str) -> Refusal:
    """An event that names no card or no operation: what was unreadable, in French."""
    match envelope.body:
        case CardPlaced(card=text):
            return Refusal.of("deal", reason, f"carte « {text} » inconnue")
        case CardIdentified(card=text):
            return Refusal.of("identify", reason, f"carte « {text} » inconnue")
        case DealerOperation(line=line):
            return Refusal.of("keypad", reason, f"ligne illisible : « {line} »", "saisie du croupier refusée")
    name = type(envelope.body).__name__
    return Refusal.of(name, reason, "événement illisible", f"événement {name} refusé")
