"""The referee: observations (a card placed, chips changed, a button) turned into rules operations.

It is deterministic: its only inputs are the events and the state, and its clock
is the events' own wall timestamps. It knows nothing of the bus's sockets, so the
store's readers (export, replay, review) play events through it without zmq.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
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
    SensorFlood,
    ShoeCardDrawn,
    ShoeLink,
    ShoePresence,
)
from .rules.cards import parse_card
from .rules.errors import ActionRefused, CardError, HistoryError, RulesError
from .rules.flags import Flag
from .rules.french import euros_fr
from .rules.history import format_time, parse_operation
from .rules.operations import (
    DEALER,
    Box,
    ConfirmAnte,
    DealBoughtCard,
    DealCard,
    DecisionTimeout,
    EndCoup,
    EndDeal,
    ExposeCard,
    Fold,
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
    refused_fr,
)
from .rules.profile import TableRules
from .rules.summary import table_summary
from .rules.table import Decision, Phase, Table, TableCheckpoint

log = logging.getLogger(__name__)

#: How many refusals of the coup the state keeps, the latest last.
KEPT_REFUSALS = 5
#: The bet zones as the dealer names them (the raise box is no ``Box``: a raise is a decision, not a bet).
ZONES_FR = {**{box.value: box.label_fr.lower() for box in Box}, "raise": "relance"}


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

    def shown(self) -> dict[str, Any]:
        """What the state carries of it (the operation stays in the referee)."""
        return {"kind": self.kind, "action_fr": self.action_fr, "reason": self.reason, "reason_fr": self.reason_fr,
                "count": self.count}


def _refusal(kind: str, reason: str, reason_fr: str, action_fr: str | None = None,
             operation: Operation | None = None) -> Refusal:
    return Refusal(kind, action_fr or refused_fr(kind), reason, reason_fr, operation=operation)


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


@dataclass
class Devices:
    camera_online: bool | None = None
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


class Referee:
    """Maps observations to rules operations and applies them to the table."""

    def __init__(self, rules: TableRules, jackpot_meter: int = 0) -> None:
        self.table = Table(rules)
        self.devices = Devices()
        self.jackpot_meter = jackpot_meter
        self._last_t = 0
        self._origin_ms: int | None = None
        #: the refusals of the coup still standing, the latest last (see ``_remember``)
        self.refusals: list[Refusal] = []
        #: zones whose chips the camera could not vouch for, (seat, box) -> its reading (the amount, and whether it is
        #: only a lower bound): held « à confirmer » until the dealer keys the amount or the camera reads it sure
        self.to_confirm: dict[tuple[int, str], ChipsChanged] = {}
        #: cards the camera could not tell, (position, index) -> its likeliest reading: unknown to the rules (the
        #: settlement waits for them) until the dealer keys the card or the camera reads it sure
        self.cards_to_confirm: dict[tuple[int, int], str] = {}
        #: zones whose last reading the camera could not vouch for (a pile too tall to count, « au moins », or a
        #: casino stack), (seat, box) -> that reading: chips paid into them cannot be told, so the dealer keys what
        #: he paid there
        self.unvouched: dict[tuple[int, str], ChipsChanged] = {}
        #: the zones the dealer keyed an amount for in this coup's payment
        self._keyed_paying: set[tuple[int, str]] = set()
        #: seats whose ante as the camera read it at « rien ne va plus » is in doubt, -> that reading: their raise
        #: is not twice it (from above, two identical chips stacked can look like one). Only the dealer's count
        #: settles it (``ConfirmAnte``), or the seat's leaving the decisions
        self._antes_in_doubt: dict[int, ChipsChanged] = {}
        #: seats whose ante in this coup is the dealer's word, not the camera's: no raise puts it in doubt
        self._antes_keyed: set[int] = set()
        #: zones of this coup the dealer's count showed the camera misread, surely: its readings of them are not
        #: vouched for until the coup ends (an empty zone apart)
        self._misread: set[tuple[int, str]] = set()
        self._refusals_moment = (self.table.coup.number, self.table.phase)

    @classmethod
    def resume(cls, rules: TableRules, checkpoint: RefereeCheckpoint) -> Referee:
        """The referee as it stood at ``checkpoint``: it goes on exactly as the one the checkpoint was taken of."""
        referee = cls(rules, checkpoint.jackpot_meter)
        referee.table = Table.resume(rules, checkpoint.table)
        referee.devices = checkpoint.devices
        referee._origin_ms, referee._last_t = checkpoint.origin_ms, checkpoint.last_t
        referee.to_confirm = {(reading.seat, reading.box): reading for reading in checkpoint.to_confirm}
        referee.unvouched = {(reading.seat, reading.box): reading for reading in checkpoint.unvouched}
        referee._refusals_moment = (referee.table.coup.number, referee.table.phase)
        return referee

    def checkpoint(self) -> RefereeCheckpoint:
        """The referee between two coups; ``ValueError`` in the middle of one (``Table.checkpoint``). The coup's
        refusals, card doubts and keyed payments end with it: a new coup starts without them."""
        table = self.table.checkpoint()
        if self.refusals or self.cards_to_confirm or self._keyed_paying:
            raise ValueError("a checkpoint is taken between coups: this coup's refusals or doubts are still open")
        return RefereeCheckpoint(table, self.devices, self.jackpot_meter, self._origin_ms, self._last_t,
                                 list(self.to_confirm.values()), list(self.unvouched.values()))

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
                seat = table.seats.get(position)
                if (table.phase is Phase.DECISIONS and seat is not None and seat.discard is not None
                        and not seat.bought_card_dealt):
                    return DealBoughtCard(t, position, card)
                return DealCard(t, position, card, face_up)
            case CardIdentified(position=position, index=index, card=text, sure=False):
                parse_card(text)  # an unknown card is refused by name, as a sure one would be
                hand = table.hand_of(position) if position in table.seats or position == DEALER else None
                if hand is not None and 0 <= index < len(hand.cards) and hand.cards[index] is None:
                    self.cards_to_confirm[position, index] = text
                return None  # nothing is decided on a card the camera cannot tell: the dealer names it
            case CardIdentified(position=position, index=index, card=text):
                return IdentifyCard(t, position, index, parse_card(text))
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
                return _refusal("raise", "chips in the raise box are a raise only while the seat decides",
                                f"jetons dans la case relance de la place {seat} hors de sa décision")
            case ChipsChanged(seat=seat, box=box, amount=amount):
                return PlaceBet(t, seat, Box(box), amount)
            case ShoeCardDrawn(count=count):
                if table.phase in (Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN):
                    return ShoeCount(t, count)
                return _refusal("shoe-count", "shoe count outside a deal", "compte du sabot hors d'une donne")
            case DealerOperation(line=line):
                return self._keyed(parse_operation(f"{format_time(t)} {line}"))
            case JackpotMeter(amount=amount):
                if amount < 0:
                    return _refusal("jackpot-meter", f"a jackpot meter of {amount} cents",
                                    f"compteur du jackpot à {euros_fr(amount)}", "compteur du jackpot refusé")
                self.jackpot_meter = amount
            case CameraStatus(online=online, moved_px=moved_px):
                self.devices.camera_online = online
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
        try:
            outcome = self._handle(envelope)
            self._ask_payments_unseen()
        except Exception as error:  # a bug must not stop the table: the event stays recorded, the refusal says why
            log.exception("engine: internal error on %s", envelope)
            name, reason = type(envelope.body).__name__, f"internal error: {type(error).__name__}: {error}"
            outcome = Outcome(refused=reason, refusal=_refusal(name, reason, f"erreur interne ({type(error).__name__})",
                                                               f"événement {name} refusé"))
        self._remember(outcome)
        return outcome

    def _handle(self, envelope: Envelope) -> Outcome:
        try:
            operation = self.operation_for(envelope)
        except (CardError, HistoryError, ValueError) as error:
            operation, unreadable = None, error
        else:
            unreadable = None
        if isinstance(envelope.body, ChipsChanged):
            reading = envelope.body
            misread = bool(reading.amount) and (reading.seat, reading.box) in self._misread
            if reading.sure and (misread or self._breaks_a_betting_rule(reading, operation)):
                envelope = msgspec.structs.replace(envelope, body=msgspec.structs.replace(reading, sure=False))
            self._note_unvouched(envelope.body)
        elif isinstance(operation, Raise):
            self._doubt_the_ante(operation)  # the dealer's count of a raise
        if unreadable is not None:
            return Outcome(refused=str(unreadable), refusal=_unreadable(envelope, str(unreadable)))
        if operation is None:
            return Outcome()
        if isinstance(operation, Refusal):
            return Outcome(refused=operation.reason, refusal=operation)
        body = envelope.body
        if isinstance(body, ChipsChanged) and body.sure and not (body.box == "ante"
                                                                 and body.seat in self._antes_in_doubt):
            # a sure reading settles a doubt, whatever it does; an ante in doubt was read sure, and is the doubt
            self.to_confirm.pop((body.seat, body.box), None)
        if (isinstance(body, ChipsChanged) and not body.sure
                and (self.table.phase in (Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN) or self._pays_early(body))):
            # Nothing is decided or flagged on a doubtful amount: a raise, or a bet that seems to move after « rien
            # ne va plus », waits for the dealer's amount (or a sure reading). While bets are placed or a coup paid,
            # the reading is taken as read and the dealer's amount replaces it; the button waits for it.
            self.to_confirm[body.seat, body.box] = body
            return Outcome()
        if waiting := self._confirmation_wait(operation):
            if isinstance(operation, Raise):  # asked again once the ante is confirmed
                self.to_confirm.setdefault((operation.seat, "raise"),
                                           ChipsChanged(operation.seat, "raise", operation.amount, sure=False))
            return Outcome(operation, refused=waiting.reason, refusal=waiting)
        flags_before = len(self.table.flags)
        coup = self.table.coup.number
        try:
            self.table.apply(operation)
        except RulesError as error:
            refused = self._settlement_wait(operation) or _as_refused(operation, error)
            return Outcome(operation, refused=str(refused),
                           refusal=_refusal(refused.action, refused.reason, refused.reason_fr, operation=operation))
        self._follow_confirmations(envelope, operation, coup)
        self._follow_card_confirmations(operation, coup)
        # Once the dealer's hand is shown and every card needed is known, the coup is settled.
        if self.table.phase is Phase.SHOWDOWN:
            settle = Settle(operation.t, self.jackpot_meter)
            try:
                self.table.apply(settle)
                operation = settle
            except RulesError as error:
                wait = _as_refused(settle, error)
                return Outcome(operation, flags=self.table.flags[flags_before:], settlement_waits=str(wait),
                               refusal=_refusal(wait.action, wait.reason, wait.reason_fr, operation=settle))
        return Outcome(operation, flags=self.table.flags[flags_before:])

    def _confirmation_wait(self, operation: Operation) -> Refusal | None:
        """« Rien ne va plus » waits for every bet to be vouched for, « paiement terminé » for the seat's zones and
        the coup's end for all (unless the camera is not watching: nothing is checked then), a raise for its ante
        in doubt."""
        if isinstance(operation, Raise) and operation.seat in self._antes_in_doubt:
            seat, ante = operation.seat, self.table.seats[operation.seat].fixed.get(Box.ANTE, 0)
            return _refusal(operation.kind, f"seat {seat} ante: to be confirmed, the raise of {operation.amount} "
                            f"cents not being {self.table.rules.profile.raise_multiple} times the {ante} read",
                            f"place {seat} ante : montant à confirmer (relance : {euros_fr(operation.amount)} ; "
                            f"ante lue : {euros_fr(ante)})", operation=operation)
        if isinstance(operation, NoMoreBets):
            waiting = sorted(self.to_confirm)
        elif isinstance(operation, PaymentDone | EndCoup) and operation.watched:
            waiting = sorted(key for key in self.to_confirm
                             if not isinstance(operation, PaymentDone) or key[0] == operation.seat)
        else:
            return None
        if not waiting:
            return None
        names = ", ".join(f"seat {seat} {box}" for seat, box in waiting)
        names_fr = ", ".join(f"place {seat} {ZONES_FR[box]}" for seat, box in waiting)
        amounts = "montants" if len(waiting) > 1 else "montant"
        return _refusal(operation.kind, f"{names}: the camera's reading is to be confirmed",
                        f"{names_fr} : {amounts} à confirmer", operation=operation)

    def _follow_confirmations(self, envelope: Envelope, operation: Operation, coup: int) -> None:
        """A chip reading the camera does not vouch for is held « à confirmer »; the dealer's amount keyed for that
        zone, or the camera's next sure reading, settles it; a fold or a decision timeout settles a doubtful raise.
        A new coup keeps only the doubts on antes left on the felt for it."""
        if self.table.coup.number != coup:
            self._keyed_paying, self._antes_in_doubt, self._antes_keyed, self._misread = set(), {}, set(), set()
            self.to_confirm = {(seat, box): reading for (seat, box), reading in self.to_confirm.items()
                               if box == "ante" and self.table.seats[seat].bets.get(Box.ANTE)}
            return
        # Tests of type, not a ``match`` of (event, operation) pairs: this runs on every event, thousands a second.
        body = envelope.body
        if isinstance(body, ChipsChanged) and not body.sure:
            self.to_confirm[body.seat, body.box] = body
        elif isinstance(operation, Raise | Fold | DecisionTimeout):
            self.to_confirm.pop((operation.seat, "raise"), None)
        elif isinstance(operation, ConfirmAnte):
            read = self._antes_in_doubt.pop(operation.seat)
            self.to_confirm.pop((operation.seat, "ante"), None)
            self._antes_keyed.add(operation.seat)
            if read.amount != operation.amount:
                self._misread.add((operation.seat, "ante"))
                self.unvouched[operation.seat, "ante"] = read
        elif isinstance(body, DealerOperation) and isinstance(operation, PlaceBet):
            self.to_confirm.pop((operation.seat, operation.box.value), None)
            if operation.box is Box.ANTE:
                self._antes_keyed.add(operation.seat)
        elif isinstance(body, ChipsChanged) and body.box == "ante" and isinstance(operation, PlaceBet):
            if self.table.phase is Phase.BETTING:
                self._antes_keyed.discard(body.seat)  # the camera's sure reading is the bet now
        elif isinstance(body, DealerOperation) and isinstance(operation, PaymentSeen):
            self.to_confirm.pop((operation.seat, operation.zone), None)
            self._keyed_paying.add((operation.seat, operation.zone))
        if self._antes_in_doubt:  # rarely: this runs on every event
            for seat in [seat for seat in self._antes_in_doubt if not self._may_count_ante(seat)]:
                # decided, folded, timed out, its hand or the coup void: the rules take no count of its ante now
                del self._antes_in_doubt[seat]
                self.to_confirm.pop((seat, "ante"), None)

    def _breaks_a_betting_rule(self, reading: ChipsChanged, operation: Operation | Refusal | None) -> bool:
        """Whether a chip reading the camera vouches for would, taken as read (``operation``), be flagged for its
        amount alone: an ante outside the table's limits, a side bet off its stake, a raise not the rule's multiple
        of the ante. From above, a stack can show no more than its top chip (``vision.stack_reader``): such a
        reading is held « à confirmer » like a doubtful one, and the flag, if any, is raised on the dealer's
        amount."""
        table, amount = self.table, reading.amount
        if isinstance(operation, Raise):
            required = table.raise_required(operation.seat)
            return bool(required) and amount != required
        if not isinstance(operation, PlaceBet) or table.phase is not Phase.BETTING or not amount:
            return False
        if operation.box is Box.ANTE:
            return not table.ante_within_limits(amount)
        stake = table.side_bet_stake(operation.box)
        return stake is not None and amount != stake

    def _keyed(self, operation: Operation) -> Operation | Refusal:
        """The dealer's operation, the amount he keys for an ante in doubt (``_antes_in_doubt``) being its count:
        a correction of the ante fixed at « rien ne va plus » is taken only on a doubt the table raised."""
        if (isinstance(operation, PlaceBet) and operation.box is Box.ANTE and operation.seat in self._antes_in_doubt
                and self.table.phase is Phase.DECISIONS):
            return ConfirmAnte(operation.t, operation.seat, operation.amount)
        if isinstance(operation, ConfirmAnte) and operation.seat not in self._antes_in_doubt:
            return _refusal(operation.kind, f"seat {operation.seat}'s ante is not in doubt",
                            f"l'ante de la place {operation.seat} n'est pas en doute")
        return operation

    def _doubt_the_ante(self, raised: Raise) -> None:
        """The dealer's raise not twice the ante the camera read at « rien ne va plus »: that reading may be a
        stack's top chip, so he is asked to count the ante before his raise is judged (a player's wrong raise is
        flagged on his count). An ante he keyed himself, one seen moved since (flagged then: the ante fixed is what
        is settled), or a seat not deciding, is not put in doubt; nor is the ante by the camera's own reading of a
        raise, which may be the misread one (the dealer is asked the raise)."""
        seat, state = raised.seat, self.table.seats.get(raised.seat)
        if (state is None or seat in self._antes_keyed or not self._may_count_ante(seat) or not self.table.can(raised)
                or state.bets.get(Box.ANTE) != (ante := state.fixed[Box.ANTE])
                or raised.amount == self.table.raise_required(seat)):
            return
        self._antes_in_doubt[seat] = self.to_confirm[seat, "ante"] = ChipsChanged(seat, "ante", ante)

    def _may_count_ante(self, seat: int) -> bool:
        """Whether the rules would take the dealer's count of the seat's ante now (``ConfirmAnte``)."""
        return self.table.can(ConfirmAnte(self.table.last_t, seat, 1))

    def _note_unvouched(self, reading: ChipsChanged) -> None:
        if reading.at_least or not reading.sure:
            self.unvouched[reading.seat, reading.box] = reading
        else:
            self.unvouched.pop((reading.seat, reading.box), None)

    def _ask_payments_unseen(self) -> None:
        """The seat to be paid next: each of its zones the camera could not vouch for (a pile too tall to count, a
        casino stack) is held « à confirmer » until the dealer keys what lies there once paid. The camera would not
        tell the chips he adds (a payment judged on the pile as it was would be flagged short); the next seat is
        asked in its turn, so that he keys each amount after paying it."""
        if self.table.phase is not Phase.PAYING or not (due := self.table.payments_due()):
            return
        for (seat, box), reading in self.unvouched.items():
            if seat == due[0] and (seat, box) not in self._keyed_paying:
                self.to_confirm.setdefault((seat, box), reading)

    def _pays_early(self, reading: ChipsChanged) -> bool:
        """Whether the reading, taken as read, would be chips paid to a seat before the one due: a payment out of
        order is flagged on the dealer's amount or a sure reading, never on a doubtful one."""
        due = self.table.payments_due() if self.table.phase is Phase.PAYING else []
        seen = self.table.coup.seen_paying.get(reading.seat, {}).get(reading.box, 0)
        return reading.seat in due and due[0] != reading.seat and reading.amount > seen

    def _follow_card_confirmations(self, operation: Operation, coup: int) -> None:
        """A card in doubt is settled once identified, by the dealer or by the camera's next sure reading; a new
        coup starts with none."""
        if self.table.coup.number != coup:
            self.cards_to_confirm = {}
        elif isinstance(operation, IdentifyCard):
            self.cards_to_confirm.pop((operation.position, operation.index), None)

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

    def _remember(self, outcome: Outcome) -> None:
        """Keep the coup's refusals for the display. One stands while its reason holds: after each accepted
        operation the refused one is checked again, and goes once the table would take it (or says its new
        reason: « places 3, 5 encore à payer », then « place 5 encore à payer »); the camera's next reading,
        accepted a second later, does not wipe it before the dealer has read it. A new phase of the coup starts
        afresh. The same refusal again counts on its entry; the settlement's wait is a standing condition, said
        again after each event of the showdown, so it is kept once, not counted."""
        moment = (self.table.coup.number, self.table.phase)
        if moment != self._refusals_moment:
            self.refusals, self._refusals_moment = [], moment
        if outcome.operation is not None and outcome.refused is None:
            self.refusals = [kept for r in self.refusals if (kept := self._still_refused(r, outcome.operation))]
        refusal = outcome.refusal
        if refusal is None:
            return
        same = next((r for r in self.refusals if (r.kind, r.reason) == (refusal.kind, refusal.reason)), None)
        if same is not None and outcome.settlement_waits is not None:
            return
        if same is not None:
            self.refusals.remove(same)
            refusal.count = same.count + 1
        self.refusals = [*self.refusals, refusal][-KEPT_REFUSALS:]

    def _still_refused(self, refusal: Refusal, accepted: Operation) -> Refusal | None:
        """``refusal`` as it stands now that ``accepted`` went through: None once the table would take it."""
        if refusal.operation is None:
            return None if refusal.kind == accepted.kind else refusal
        now = self.table.last_t
        if waiting := self._confirmation_wait(replace(refusal.operation, t=now)):
            return replace(refusal, reason=waiting.reason, reason_fr=waiting.reason_fr)
        try:
            self.table.verify(replace(refusal.operation, t=now))
        except RulesError as error:
            reason = (self._settlement_wait(replace(refusal.operation, t=now))
                      or _as_refused(refusal.operation, error))
            return replace(refusal, reason=reason.reason, reason_fr=reason.reason_fr)
        return None

    def state(self) -> dict[str, Any]:
        summary = table_summary(self.table)
        summary["devices"] = msgspec.to_builtins(self.devices)
        summary["raised_by"] = {str(n): s.decision.value for n, s in self.table.seats.items()
                                if s.decision is Decision.RAISE}
        summary["refusals"] = [refusal.shown() for refusal in self.refusals]
        summary["to_confirm"] = [{"seat": seat, "box": box, "amount": reading.amount, "at_least": reading.at_least}
                                 for (seat, box), reading in sorted(self.to_confirm.items())]
        summary["cards_to_confirm"] = [{"position": position, "index": index, "read": read}
                                       for (position, index), read in sorted(self.cards_to_confirm.items())]
        return summary


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
            return _refusal("deal", reason, f"carte « {text} » inconnue")
        case CardIdentified(card=text):
            return _refusal("identify", reason, f"carte « {text} » inconnue")
        case DealerOperation(line=line):
            return _refusal("keypad", reason, f"ligne illisible : « {line} »", "saisie du croupier refusée")
    name = type(envelope.body).__name__
    return _refusal(name, reason, "événement illisible", f"événement {name} refusé")
