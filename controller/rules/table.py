"""The table as a log of operations (after pokerkit's state model).

``Table.apply(op)`` first checks the operation against the state and refuses it
with a reason (``ActionRefused``) when the state cannot take it; otherwise it
appends the operation to the log, updates the state and records any
irregularity as a ``Flag``. ``verify(op)`` only checks, ``can(op)`` answers
yes or no. Replaying the same log gives the same state, flags and payouts.

What is refused and what is flagged: an operation that makes no sense in the
state (a raise before the deal, a card dealt to seat 9) is refused; something
that happened at the table against the rules (a card dealt out of turn, a bet
moved after « rien ne va plus ») is recorded and flagged, because it did happen.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from .cards import Card
from .errors import ActionRefused
from .flags import Flag, FlagKind, Severity
from .french import euros_fr, of_fr, seats_fr, to_fr, who_fr
from .operations import (
    AMOUNT_FIELDS,
    DEALER,
    AcknowledgeAlerts,
    Box,
    BuyCard,
    ConfirmAnte,
    DealBoughtCard,
    DealCard,
    DecisionTimeout,
    DeclareVoid,
    EndCoup,
    EndDeal,
    ExposeCard,
    Fold,
    IdentifyCard,
    NoMoreBets,
    OfferCut,
    OpenSession,
    Operation,
    PaymentDone,
    PaymentSeen,
    PlaceBet,
    PlayerLooks,
    Raise,
    Settle,
    ShoeCount,
    ShowDealerHand,
    Shuffle,
    SitDown,
    StandUp,
)
from .payment import PAID_ZONES, PaymentCheck, check_payment
from .profile import TableRules
from .ranking import ACE_KING, evaluate
from .settlement import Outcome, SeatInput, Settlement, settle

HAND_SIZE = 5
#: Seed 000: « mélangé cinq fois et coupé deux fois ».
SHUFFLES, CUTS = 5, 2


def who(position: int) -> str:
    return "the dealer" if position == DEALER else f"seat {position}"


class Phase(enum.Enum):
    CLOSED = "closed"  # no session open: the cards are not yet counted
    BETTING = "betting"
    DEALING = "dealing"  # after « rien ne va plus »: shuffle, cut, deal
    DECISIONS = "decisions"
    SHOWDOWN = "showdown"  # the dealer's hand is shown
    PAYING = "paying"  # settled; payments being made

    @property
    def label_fr(self) -> str:
        return _PHASES_FR[self]


_PHASES_FR = {Phase.CLOSED: "table fermée", Phase.BETTING: "mises", Phase.DEALING: "donne",
              Phase.DECISIONS: "décisions", Phase.SHOWDOWN: "abattage", Phase.PAYING: "paiements"}


class Decision(enum.Enum):
    FOLD = "fold"
    RAISE = "raise"


@dataclass
class Hand:
    cards: list[Card | None] = field(default_factory=list)
    face_up: list[bool] = field(default_factory=list)


@dataclass
class SeatState:
    number: int
    occupied: bool = False
    #: the chips seen in each box now
    bets: dict[Box, int] = field(default_factory=dict)
    #: the bets as they stood at « rien ne va plus »: these are settled
    fixed: dict[Box, int] = field(default_factory=dict)
    in_play: bool = False
    hand: Hand = field(default_factory=Hand)
    hand_void: bool = False
    decision: Decision | None = None
    raise_amount: int = 0
    discard: int | None = None
    discarded: Card | None = None
    purchase_price: int = 0
    bought_card_dealt: bool = False

    @property
    def first_five(self) -> list[Card | None]:
        """The five cards first dealt, the discarded one in place of a bought one."""
        cards = list(self.hand.cards)
        if self.discard is not None and self.bought_card_dealt:
            cards[self.discard] = self.discarded
        return cards


@dataclass
class CoupState:
    number: int
    start_index: int
    dealer: Hand = field(default_factory=Hand)
    shuffled: bool = False
    cut_done: bool = False
    cut_offers: list[int] = field(default_factory=list)
    deal_without_cut_flagged: bool = False
    void: bool = False
    decisions_started_at: int | None = None
    settlement: Settlement | None = None
    paid: list[int] = field(default_factory=list)
    seen: set[Card] = field(default_factory=set)
    #: seats with a hand, fixed at « rien ne va plus »
    players: list[int] = field(default_factory=list)
    #: while no card went out of turn, the next position follows from the count alone
    deal_in_order: bool = True
    #: seats owed a payment, in paying order, fixed at settlement
    owed: list[int] = field(default_factory=list)
    shoe_count: int | None = None
    cards_dealt: int = 0
    #: each seat's zones (``payment.PAID_ZONES``) as they held chips when the coup was settled, then as the camera
    #: sees them while it is paid
    held: dict[int, dict[str, int]] = field(default_factory=dict)
    seen_paying: dict[int, dict[str, int]] = field(default_factory=dict)
    #: the losing zones (seat, zone) the camera saw emptied while the coup was paid
    collected: set[tuple[int, str]] = field(default_factory=set)
    #: each seat's payment as checked (owed seats at « paiement terminé », the others at the coup's end)
    payment_checks: dict[int, PaymentCheck] = field(default_factory=dict)
    #: seats that got chips before an earlier seat in paying order was paid (flagged once)
    paid_early: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Past:
    """What a table resumed from a checkpoint knows of the coups before it: how many there were, not their
    operations (a table that runs for years keeps only its coup in memory)."""

    operations: int = 0
    flags: int = 0
    settlements: int = 0
    #: the time of the last operation: no operation may come before it
    last_t: int = 0
    last_settlement: Settlement | None = None


@dataclass(frozen=True)
class TableCheckpoint:
    """A table between two coups, all that the coups after it depend on (``Table.checkpoint``)."""

    phase: Phase
    seats: dict[int, SeatState]
    coup: CoupState
    closing_flags: list[Flag]
    past: Past
    held_flags: list[Flag] = field(default_factory=list)


Op = TypeVar("Op", bound=Operation)


class Table:
    """One table's session: its log, its state and its flags."""

    def __init__(self, rules: TableRules) -> None:
        self.rules = rules
        self.log: list[Operation] = []
        self.flags: list[Flag] = []
        self.phase = Phase.CLOSED
        self.seats = {number: SeatState(number) for number in rules.seats}
        self.coup = CoupState(number=1, start_index=0)
        self.settlements: list[Settlement] = []
        #: the last coup's flags, its end's payment checks included: the display shows them into the next coup
        self.closing_flags: list[Flag] = []
        #: the alerts of void coups, shown until the dealer acknowledges them (``AcknowledgeAlerts``)
        self.held_flags: list[Flag] = []
        #: the coups before the log's first operation, for a table resumed from a checkpoint
        self.past = Past()

    # --- the generic interface ---------------------------------------------

    @classmethod
    def replay(cls, rules: TableRules, operations: Iterable[Operation]) -> Table:
        table = cls(rules)
        for operation in operations:
            table.apply(operation)
        return table

    @classmethod
    def resume(cls, rules: TableRules, checkpoint: TableCheckpoint) -> Table:
        """The table as it stood at ``checkpoint``; it goes on exactly as the table the checkpoint was taken of."""
        table = cls(rules)
        table.phase, table.seats, table.coup = checkpoint.phase, checkpoint.seats, checkpoint.coup
        table.closing_flags, table.past = checkpoint.closing_flags, checkpoint.past
        table.held_flags = checkpoint.held_flags
        return table

    def checkpoint(self) -> TableCheckpoint:
        """The table between two coups (before its session opens, or once a coup has ended and before the next
        one's first operation); ``ValueError`` in the middle of a coup."""
        if self.phase not in (Phase.CLOSED, Phase.BETTING) or self.coup_log():
            raise ValueError(f"a checkpoint is taken between coups, not in coup {self.coup.number} "
                             f"({self.phase.value}, {len(self.coup_log())} operations)")
        past = Past(self.operation_count, self.flag_count, self.settlement_count, self.last_t, self.last_settlement)
        return TableCheckpoint(self.phase, self.seats, self.coup, self.closing_flags, past, self.held_flags)

    @property
    def operation_count(self) -> int:
        """Operations applied since the session's first, those before a checkpoint included."""
        return self.past.operations + len(self.log)

    @property
    def flag_count(self) -> int:
        return self.past.flags + len(self.flags)

    @property
    def settlement_count(self) -> int:
        return self.past.settlements + len(self.settlements)

    @property
    def last_settlement(self) -> Settlement | None:
        return self.settlements[-1] if self.settlements else self.past.last_settlement

    @property
    def last_t(self) -> int:
        return self.log[-1].t if self.log else self.past.last_t

    def verify(self, op: Operation) -> None:
        """Raise ``ActionRefused`` with the reason if ``op`` cannot be applied now."""
        handlers = self._HANDLERS.get(type(op))
        if handlers is None:
            raise ActionRefused(type(op).__name__, "not an operation of the table", "opération inconnue de la table")
        self._require_whole_cents(op)
        if op.t < 0:
            raise ActionRefused(op.kind, f"time {op.t} ms is negative", f"heure {op.t} ms négative")
        if op.t < self.last_t:
            raise ActionRefused(op.kind, f"time {op.t} ms is before the last operation's {self.last_t} ms",
                                f"heure {op.t} ms antérieure à la dernière opération ({self.last_t} ms)")
        handlers[0](self, op)

    def can(self, op: Operation) -> bool:
        try:
            self.verify(op)
        except ActionRefused:
            return False
        return True

    def apply(self, op: Op) -> Op:
        """Check ``op``, then append it to the log and update the state."""
        self.verify(op)
        self.log.append(op)
        try:
            self._HANDLERS[type(op)][1](self, op)
        except Exception:
            # A handler that fails leaves no half-applied operation in the log.
            self.log.pop()
            raise
        return op

    # --- named actions, for readable callers --------------------------------

    def open_session(self, t: int, cards: Iterable[Card]) -> OpenSession:
        return self.apply(OpenSession(t, tuple(cards)))

    def sit_down(self, t: int, seat: int) -> SitDown:
        return self.apply(SitDown(t, seat))

    def stand_up(self, t: int, seat: int) -> StandUp:
        return self.apply(StandUp(t, seat))

    def place_bet(self, t: int, seat: int, box: Box, amount: int) -> PlaceBet:
        return self.apply(PlaceBet(t, seat, box, amount))

    def no_more_bets(self, t: int) -> NoMoreBets:
        return self.apply(NoMoreBets(t))

    def shuffle(self, t: int, shuffles: int = SHUFFLES, cuts: int = CUTS) -> Shuffle:
        return self.apply(Shuffle(t, shuffles, cuts))

    def offer_cut(self, t: int, seat: int, accepted: bool) -> OfferCut:
        return self.apply(OfferCut(t, seat, accepted))

    def deal_card(self, t: int, position: int, card: Card | None, face_up: bool = False) -> DealCard:
        return self.apply(DealCard(t, position, card, face_up))

    def identify_card(self, t: int, position: int, index: int, card: Card) -> IdentifyCard:
        return self.apply(IdentifyCard(t, position, index, card))

    def expose_card(self, t: int, position: int, index: int) -> ExposeCard:
        return self.apply(ExposeCard(t, position, index))

    def player_looks(self, t: int, seat: int) -> PlayerLooks:
        return self.apply(PlayerLooks(t, seat))

    def end_deal(self, t: int) -> EndDeal:
        return self.apply(EndDeal(t))

    def confirm_ante(self, t: int, seat: int, amount: int) -> ConfirmAnte:
        return self.apply(ConfirmAnte(t, seat, amount))

    def fold(self, t: int, seat: int) -> Fold:
        return self.apply(Fold(t, seat))

    def raise_(self, t: int, seat: int, amount: int) -> Raise:
        return self.apply(Raise(t, seat, amount))

    def buy_card(self, t: int, seat: int, discard: int, price: int) -> BuyCard:
        return self.apply(BuyCard(t, seat, discard, price))

    def deal_bought_card(self, t: int, seat: int, card: Card | None) -> DealBoughtCard:
        return self.apply(DealBoughtCard(t, seat, card))

    def decision_timeout(self, t: int, seat: int) -> DecisionTimeout:
        return self.apply(DecisionTimeout(t, seat))

    def show_dealer_hand(self, t: int) -> ShowDealerHand:
        return self.apply(ShowDealerHand(t))

    def settle(self, t: int, jackpot_meter: int = 0) -> Settle:
        return self.apply(Settle(t, jackpot_meter))

    def payment_done(self, t: int, seat: int, watched: bool = False) -> PaymentDone:
        return self.apply(PaymentDone(t, seat, watched))

    def shoe_count(self, t: int, drawn: int) -> ShoeCount:
        return self.apply(ShoeCount(t, drawn))

    def declare_void(self, t: int, reason: str) -> DeclareVoid:
        return self.apply(DeclareVoid(t, reason))

    def end_coup(self, t: int, watched: bool = False) -> EndCoup:
        return self.apply(EndCoup(t, watched))

    def acknowledge_alerts(self, t: int) -> AcknowledgeAlerts:
        return self.apply(AcknowledgeAlerts(t))

    # --- what the state says --------------------------------------------------

    @property
    def settlement(self) -> Settlement | None:
        return self.coup.settlement

    def players_in_play(self) -> list[int]:
        return self.coup.players

    # --- the amounts the rules require (the referee asks them too, before it takes a reading as read) ---------

    def ante_within_limits(self, cents: int) -> bool:
        return self.rules.minimum_cents <= cents <= self.rules.maximum_cents

    def side_bet_stake(self, box: Box) -> int | None:
        """The stake a side bet must be, or None where the table does not offer it."""
        if box is Box.BONUS:
            return self.rules.bonus_stake_cents if self.rules.bonus else None
        return self.rules.profile.jackpot_stake_cents if self.rules.jackpot else None

    def cards_awaited(self) -> list[tuple[int, int]]:
        """The cards the showdown's settlement waits for, unknown yet, as (position, index): the dealer's, then,
        once his are known, those of each raised hand it must rank (``_verify_settle``)."""
        if self.phase is not Phase.SHOWDOWN or self.coup.void:
            return []
        raised = [self.seats[n] for n in self.players_in_play()
                  if self.seats[n].decision is Decision.RAISE and not self.seats[n].hand_void]
        if not raised:
            return []
        dealer = self.coup.dealer.cards
        if None in dealer:
            return [(DEALER, index) for index, card in enumerate(dealer) if card is None]
        qualifies = evaluate([card for card in dealer if card is not None]) >= ACE_KING
        return [(seat.number, index) for seat in raised
                if qualifies or seat.fixed.get(Box.BONUS) or self.rules.profile.raise_paid_when_not_qualified_from
                is not None for index, card in enumerate(seat.hand.cards) if card is None]

    def raise_required(self, seat: int) -> int:
        """The raise the rule asks of the seat: its ante fixed at « rien ne va plus » (or as the dealer confirmed it
        since, ``ConfirmAnte``) times the profile's multiple."""
        return self.seats[seat].fixed.get(Box.ANTE, 0) * self.rules.profile.raise_multiple

    def hand_of(self, position: int) -> Hand:
        return self.coup.dealer if position == DEALER else self.seats[position].hand

    def coup_flags(self) -> list[Flag]:
        return [flag for flag in self.flags if flag.op_index >= self.coup.start_index]

    def earlier_alerts(self) -> list[Flag]:
        """The alerts of coups before this one still shown: a void coup's until the dealer acknowledges them, the
        last coup's until he does or this coup's first card is dealt (a dealer reads them between coups)."""
        between_coups = self.phase is Phase.BETTING or (self.phase is Phase.DEALING and not self.coup.cards_dealt)
        return self.held_flags + (self.closing_flags if between_coups else [])

    def coup_log(self) -> list[Operation]:
        return self.log[self.coup.start_index - self.past.operations:]

    def expected_position(self) -> int | None:
        """Who gets the next card of the deal: seat by seat from the dealer's
        left, then the dealer, five rounds (seed 000). None when it is done."""
        order = self.coup.players + [DEALER]
        if self.coup.deal_in_order:
            dealt = self.coup.cards_dealt
            return order[dealt % len(order)] if dealt < HAND_SIZE * len(order) else None
        for round_number in range(1, HAND_SIZE + 1):
            for position in order:
                if len(self.hand_of(position).cards) < round_number:
                    return position
        return None

    def payments_due(self) -> list[int]:
        """Seats still to be paid, in paying order (counter-clockwise)."""
        return [seat for seat in self.coup.owed if seat not in self.coup.paid]

    def payment_check(self, seat: int) -> PaymentCheck | None:
        """The seat's payment: as checked once done, else as the camera sees it now (None outside the payment, or
        for a seat the settlement has no line for)."""
        coup = self.coup
        if seat in coup.payment_checks:
            return coup.payment_checks[seat]
        if self.phase is not Phase.PAYING or coup.settlement is None or seat not in coup.settlement.paying_order:
            return None
        return check_payment(coup.settlement, seat, coup.held.get(seat, {}), coup.seen_paying.get(seat, {}),
                             self._collected(seat))

    def seat_being_paid(self) -> int | None:
        """The seat « paiement terminé » is for: the first due in paying order whose zones the dealer has paid
        into, or else the first due (a dealer who paid a later seat first is judged on that seat)."""
        due = self.payments_due()
        coup = self.coup
        for seat in due:
            held, seen = coup.held.get(seat, {}), coup.seen_paying.get(seat, {})
            if any(seen.get(zone, 0) > amount for zone, amount in held.items()):
                return seat
        return due[0] if due else None

    def _collected(self, seat: int) -> set[str]:
        return {zone for number, zone in self.coup.collected if number == seat}

    # --- helpers ----------------------------------------------------------------

    def _cards_dealt(self) -> bool:
        return bool(self.coup.dealer.cards) or any(seat.hand.cards for seat in self.seats.values())

    def _flag(self, kind: FlagKind, severity: Severity, seat: int | None, detail: str, detail_fr: str) -> None:
        self.flags.append(Flag(kind, severity, seat, self.operation_count - 1, detail, detail_fr))

    @staticmethod
    def _require_whole_cents(op: Operation) -> None:
        """Every amount of the rules core is a whole number of cents, an ``int``: not a ``bool`` (``True`` is no
        1-cent ante), not a float (not even ``10.0``), not a ``Decimal`` nor a text. Checked before anything else
        reads the amount, for every operation that carries one (``operations.AMOUNT_FIELDS``)."""
        for name, what, what_fr in AMOUNT_FIELDS[type(op)]:
            value = getattr(op, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ActionRefused(op.kind, f"the {what} {value!r} is not a whole number of cents "
                                             f"(an int, not a {type(value).__name__})",
                                    f"{what_fr} invalide ({value!r}) : pas un nombre entier de centimes")

    def _refuse_unless(self, condition: bool, op: Operation, reason: str, reason_fr: str) -> None:
        if not condition:
            raise ActionRefused(op.kind, reason, reason_fr)

    def _require_phase(self, op: Operation, *phases: Phase) -> None:
        if self.phase not in phases:
            wanted = " or ".join(phase.value for phase in phases)
            wanted_fr = " ou ".join(f"« {phase.label_fr} »" for phase in phases)
            raise ActionRefused(op.kind, f"the table is in phase '{self.phase.value}', not {wanted}",
                                f"la table est en phase « {self.phase.label_fr} », pas {wanted_fr}")

    def _require_seat(self, op: Operation, seat: int) -> SeatState:
        if seat not in self.seats:
            raise ActionRefused(op.kind, f"seat {seat} is not one of the table's seats 1..{len(self.seats)}",
                                f"la place {seat} n'est pas une place de la table (1 à {len(self.seats)})")
        return self.seats[seat]

    def _require_player(self, op: Operation, seat: int) -> SeatState:
        state = self._require_seat(op, seat)
        self._refuse_unless(state.in_play, op, f"seat {seat} has no hand in this coup",
                            f"la place {seat} n'a pas de main dans ce coup")
        return state

    def _require_position(self, op: Operation, position: int) -> Hand:
        if position == DEALER:
            return self.coup.dealer
        return self._require_seat(op, position).hand

    def _see(self, card: Card | None, position: int) -> None:
        """Seed 000 deals from one deck of 52: a card seen twice is a foreign card."""
        if card is None:
            return
        if card in self.coup.seen:
            self._flag(FlagKind.DUPLICATE_CARD, Severity.CRITICAL, position,
                       f"{card} seen a second time in this coup (at {who(position)})",
                       f"{card} vue une deuxième fois dans ce coup ({who_fr(position)})")
        self.coup.seen.add(card)

    # --- session and seats --------------------------------------------------------

    def _verify_open_session(self, op: OpenSession) -> None:
        self._require_phase(op, Phase.CLOSED, Phase.BETTING)
        distinct = set(op.cards)
        if len(op.cards) != 52 or len(distinct) != 52:
            from .cards import full_deck

            missing = [str(card) for card in full_deck() if card not in distinct]
            doubled = sorted({str(card) for card in op.cards if op.cards.count(card) > 1})
            raise ActionRefused(
                op.kind,
                f"the deck counts {len(op.cards)} cards, {len(distinct)} distinct; "
                f"missing: {' '.join(missing) or 'none'}; twice: {' '.join(doubled) or 'none'}",
                f"le jeu compte {len(op.cards)} cartes dont {len(distinct)} différentes ; "
                f"manquent : {' '.join(missing) or 'aucune'} ; en double : {' '.join(doubled) or 'aucune'}",
            )

    def _open_session(self, op: OpenSession) -> None:
        self.phase = Phase.BETTING

    def _verify_sit_down(self, op: SitDown) -> None:
        self._require_phase(op, Phase.CLOSED, Phase.BETTING)
        seat = self._require_seat(op, op.seat)
        self._refuse_unless(not seat.occupied, op, f"seat {op.seat} is already taken",
                            f"la place {op.seat} est déjà prise")

    def _sit_down(self, op: SitDown) -> None:
        self.seats[op.seat].occupied = True

    def _verify_stand_up(self, op: StandUp) -> None:
        seat = self._require_seat(op, op.seat)
        self._refuse_unless(seat.occupied, op, f"seat {op.seat} is vacant", f"la place {op.seat} est libre")
        self._refuse_unless(not seat.in_play, op, f"seat {op.seat} has a hand in play",
                            f"la place {op.seat} a une main en jeu")

    def _stand_up(self, op: StandUp) -> None:
        self.seats[op.seat].occupied = False

    # --- bets ---------------------------------------------------------------

    def _verify_place_bet(self, op: PlaceBet) -> None:
        self._require_phase(op, Phase.BETTING, Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN, Phase.PAYING)
        self._require_seat(op, op.seat)
        self._refuse_unless(op.amount >= 0, op, f"a bet of {op.amount} cents is negative",
                            f"mise négative de {euros_fr(op.amount)}")

    def _place_bet(self, op: PlaceBet) -> None:
        seat = self.seats[op.seat]
        before = seat.bets.get(op.box, 0)
        seat.bets[op.box] = op.amount
        if self.phase is Phase.BETTING:
            if not seat.occupied and op.amount:
                # Seed 000: « ne peuvent miser sur les emplacements vacants ».
                self._flag(FlagKind.BET_ON_VACANT_SEAT, Severity.WARNING, op.seat,
                           f"{op.box.value} {op.amount} cents on vacant seat {op.seat}",
                           f"{op.box.label_fr} de {euros_fr(op.amount)} sur la place libre {op.seat}")
            return
        if self.phase is Phase.PAYING:
            # the dealer's amount keyed while paying is what the payment is checked on, as a reading would be
            if op.seat in self.coup.seen_paying:
                self.coup.seen_paying[op.seat][op.box.value] = op.amount
                self._note_collected(op.seat)
            return  # paying and collecting move chips; that is the point
        if before == op.amount:
            return
        if (op.box is Box.BONUS and self.phase is Phase.DEALING and seat.in_play
                and not seat.fixed.get(Box.BONUS) and op.amount):
            # Seed 002: « Le bonus doit être joué avant la fin de la donne. »
            seat.fixed[Box.BONUS] = op.amount
            self._check_side_bet(seat, Box.BONUS)
            return
        collecting = op.amount == 0 and (
            (op.box is Box.BONUS and seat.discard is not None)
            or (seat.decision is Decision.FOLD and op.box in (Box.ANTE, Box.BONUS, Box.JACKPOT))
        )
        if not collecting:
            # Seed 000: « ne peuvent être placées, modifiées ou retirées après le rien ne va plus ».
            self._flag(FlagKind.BET_AFTER_NO_MORE_BETS, Severity.CRITICAL, op.seat,
                       f"{op.box.value} of seat {op.seat} went from {before} to {op.amount} cents "
                       f"after « rien ne va plus »; the bet as fixed then is settled",
                       f"{op.box.label_fr} de la place {op.seat} passé de {euros_fr(before)} à {euros_fr(op.amount)} "
                       f"après « rien ne va plus » ; la mise d'alors est réglée")

    def _verify_no_more_bets(self, op: NoMoreBets) -> None:
        self._require_phase(op, Phase.BETTING)
        players = [n for n, s in self.seats.items() if s.occupied and s.bets.get(Box.ANTE, 0) > 0]
        self._refuse_unless(bool(players), op, "no occupied seat has an ante",
                            "aucune place occupée n'a d'ante")

    def _no_more_bets(self, op: NoMoreBets) -> None:
        rules = self.rules
        for number, seat in self.seats.items():
            seat.fixed = {box: amount for box, amount in seat.bets.items() if amount}
            ante = seat.fixed.get(Box.ANTE, 0)
            seat.in_play = seat.occupied and ante > 0
            if not seat.occupied:
                continue
            if ante:
                self._check_ante_limits(number, ante)
            for box in (Box.BONUS, Box.JACKPOT):
                self._check_side_bet(seat, box)
        self.coup.players = [number for number, seat in self.seats.items() if seat.in_play]
        players_max = rules.profile.players_max
        if len(self.coup.players) > players_max:
            self._flag(FlagKind.TOO_MANY_PLAYERS, Severity.WARNING, None,
                       f"{len(self.coup.players)} players, the profile allows {players_max}",
                       f"{len(self.coup.players)} joueurs, la règle en permet {players_max}")
        self.phase = Phase.DEALING

    def _check_ante_limits(self, number: int, ante: int) -> None:
        rules = self.rules
        if not self.ante_within_limits(ante):
            self._flag(FlagKind.BET_OUTSIDE_LIMITS, Severity.WARNING, number,
                       f"ante {ante} cents outside the table's {rules.minimum_cents}..{rules.maximum_cents}",
                       f"ante de {euros_fr(ante)} hors des limites de la table "
                       f"({euros_fr(rules.minimum_cents)} à {euros_fr(rules.maximum_cents)})")

    def _check_side_bet(self, seat: SeatState, box: Box) -> None:
        """A side bet plays only when offered, beside an ante, and at the profile's stake
        (seed 004: « n'est honorée que si le jeton 0,5 € est visible »); otherwise it is returned."""
        amount = seat.fixed.get(box, 0)
        if not amount:
            return
        stake = self.side_bet_stake(box)
        if stake is None:
            kind, why, why_fr = FlagKind.SIDE_BET_NOT_OFFERED, "this table does not offer it", \
                "cette table ne le propose pas"
        elif not seat.fixed.get(Box.ANTE):
            kind, why, why_fr = FlagKind.SIDE_BET_WITHOUT_ANTE, "there is no ante", "il n'y a pas d'ante"
        elif amount != stake:
            kind = FlagKind.BONUS_STAKE_WRONG if box is Box.BONUS else FlagKind.JACKPOT_STAKE_WRONG
            why, why_fr = f"the stake is {stake} cents", f"la mise est de {euros_fr(stake)}"
        else:
            return
        self._flag(kind, Severity.WARNING, seat.number, f"{box.value} of {amount} cents on seat {seat.number}: "
                   f"{why}; it does not play and is returned",
                   f"{box.label_fr} de {euros_fr(amount)} sur la place {seat.number} : {why_fr} ; "
                   "il ne joue pas et est rendu")
        del seat.fixed[box]

    # --- shuffle, cut, deal ---------------------------------------------------

    def _verify_shuffle(self, op: Shuffle) -> None:
        self._require_phase(op, Phase.DEALING)
        self._refuse_unless(not self._cards_dealt(), op, "the deal has begun", "la donne a commencé")

    def _shuffle(self, op: Shuffle) -> None:
        self.coup.shuffled = True
        self.coup.cut_done = False
        self.coup.cut_offers = []
        if (op.shuffles, op.cuts) != (SHUFFLES, CUTS):
            self._flag(FlagKind.SHUFFLE_INCOMPLETE, Severity.WARNING, None,
                       f"{op.shuffles} shuffles and {op.cuts} cuts; the rule is {SHUFFLES} and {CUTS}",
                       f"{op.shuffles} mélanges et {op.cuts} coupes ; la règle est {SHUFFLES} et {CUTS}")

    def _expected_cut_seat(self) -> int:
        """The player at the dealer's far left first, refusals passing clockwise,
        back to the first when all refuse (seed 000)."""
        players = self.players_in_play()
        return players[len(self.coup.cut_offers) % len(players)]

    def _verify_offer_cut(self, op: OfferCut) -> None:
        self._require_phase(op, Phase.DEALING)
        self._refuse_unless(self.coup.shuffled, op, "the cards have not been shuffled",
                            "les cartes n'ont pas été mélangées")
        self._refuse_unless(not self.coup.cut_done, op, "the cut is already made", "la coupe est déjà faite")
        self._require_player(op, op.seat)

    def _offer_cut(self, op: OfferCut) -> None:
        expected = self._expected_cut_seat()
        if op.seat != expected:
            self._flag(FlagKind.CUT_OUT_OF_ORDER, Severity.INFO, op.seat,
                       f"cut offered to seat {op.seat}; it was seat {expected}'s turn",
                       f"coupe présentée à la place {op.seat} ; c'était le tour de la place {expected}")
        self.coup.cut_offers.append(op.seat)
        self.coup.cut_done = op.accepted

    def _verify_deal_card(self, op: DealCard) -> None:
        self._require_phase(op, Phase.DEALING)
        self._require_position(op, op.position)

    def _deal_card(self, op: DealCard) -> None:
        coup = self.coup
        if not (coup.shuffled and coup.cut_done) and not coup.deal_without_cut_flagged:
            coup.deal_without_cut_flagged = True
            self._flag(FlagKind.DEAL_WITHOUT_CUT, Severity.WARNING, None,
                       "dealing began before the shuffle and the player's cut were recorded",
                       "la donne a commencé avant le mélange et la coupe du joueur")
        expected = self.expected_position()
        hand = self.hand_of(op.position)
        if len(hand.cards) >= HAND_SIZE:
            # Seed 000: « Le coup est nul quand le nombre de cartes composant la main [...] est incorrect »
            self._flag(FlagKind.EXTRA_CARD, Severity.WARNING, op.position,
                       f"card {len(hand.cards) + 1} dealt to {who(op.position)}, whose hand is complete",
                       f"carte {len(hand.cards) + 1} donnée {to_fr(op.position)}, dont la main est complète")
            self.coup.deal_in_order = False
        elif op.position != expected:
            if DEALER in (op.position, expected):
                kind = FlagKind.DEALER_OUT_OF_TURN
            else:
                kind = FlagKind.CARD_OUT_OF_TURN
            turn = "nobody (the deal is complete)" if expected is None else who(expected)
            turn_fr = "c'était la fin de la donne" if expected is None else f"c'était le tour {of_fr(expected)}"
            self._flag(kind, Severity.WARNING, op.position,
                       f"card dealt to {who(op.position)}; it was the turn of {turn}",
                       f"carte donnée {to_fr(op.position)} ; {turn_fr}")
            self.coup.deal_in_order = False
        dealer_fifth = op.position == DEALER and len(hand.cards) == HAND_SIZE - 1
        if op.face_up and not dealer_fifth:
            # Seed 000: « Une carte exposée ne constitue pas une maldonne. Elle est retournée et la donne se poursuit. »
            self._flag(FlagKind.CARD_EXPOSED, Severity.WARNING, op.position,
                       f"card {len(hand.cards) + 1} of {who(op.position)} dealt face up "
                       f"({op.card or 'unidentified'}); turned over, the deal goes on",
                       f"carte {len(hand.cards) + 1} ({who_fr(op.position)}) donnée face visible "
                       f"({op.card or 'non identifiée'}) ; retournée, la donne continue")
        hand.cards.append(op.card)
        hand.face_up.append(op.face_up and dealer_fifth)
        self.coup.cards_dealt += 1
        self._see(op.card, op.position)

    def _verify_identify_card(self, op: IdentifyCard) -> None:
        self._require_phase(op, Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN, Phase.PAYING)
        hand = self._require_position(op, op.position)
        self._require_card(op, hand, op.position, op.index)
        known = hand.cards[op.index]
        self._refuse_unless(known is None or known == op.card, op,
                            f"card {op.index + 1} of position {op.position} is already known as {known}",
                            f"la carte {op.index + 1} ({who_fr(op.position)}) est déjà connue : {known}")

    def _require_card(self, op: Operation, hand: Hand, position: int, index: int) -> None:
        self._refuse_unless(0 <= index < len(hand.cards), op,
                            f"position {position} holds {len(hand.cards)} cards, no card {index + 1}",
                            f"{who_fr(position)} : {len(hand.cards)} cartes, pas de carte {index + 1}")

    def _identify_card(self, op: IdentifyCard) -> None:
        """A card read once the coup is settled is one the settlement did not need (a folded hand, the players'
        hands when the dealer does not qualify): recorded all the same, a second sighting being a foreign card."""
        hand = self.hand_of(op.position)
        if hand.cards[op.index] is None:
            hand.cards[op.index] = op.card
            self._see(op.card, op.position)
            seat = self.seats.get(op.position)
            if seat is not None and seat.discard == op.index and not seat.bought_card_dealt:
                seat.discarded = op.card

    def _verify_expose_card(self, op: ExposeCard) -> None:
        self._require_phase(op, Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN)
        hand = self._require_position(op, op.position)
        self._require_card(op, hand, op.position, op.index)

    def _expose_card(self, op: ExposeCard) -> None:
        hand = self.hand_of(op.position)
        if self.phase is not Phase.DEALING:
            hand.face_up[op.index] = True
            return
        if op.position == DEALER and op.index == HAND_SIZE - 1:
            hand.face_up[op.index] = True  # the dealer's fifth card: it must be seen
            return
        self._flag(FlagKind.CARD_EXPOSED, Severity.WARNING, op.position,
                   f"card {op.index + 1} of {who(op.position)} seen face up during the deal; "
                   "turned over, the deal goes on",
                   f"carte {op.index + 1} ({who_fr(op.position)}) vue face visible pendant la donne ; "
                   "retournée, la donne continue")

    def _verify_player_looks(self, op: PlayerLooks) -> None:
        self._require_phase(op, Phase.DEALING, Phase.DECISIONS)
        self._require_player(op, op.seat)

    def _player_looks(self, op: PlayerLooks) -> None:
        seat = self.seats[op.seat]
        if self.phase is Phase.DEALING and not seat.hand_void:
            # Seed 000: « La main d'un joueur est nulle quand celui-ci en prend connaissance avant la fin de la donne. »
            seat.hand_void = True
            self._flag(FlagKind.LOOKED_BEFORE_END_OF_DEAL, Severity.CRITICAL, op.seat,
                       f"seat {op.seat} looked at his cards before the end of the deal: his hand is void",
                       f"la place {op.seat} a regardé ses cartes avant la fin de la donne : sa main est nulle")

    def _verify_end_deal(self, op: EndDeal) -> None:
        self._require_phase(op, Phase.DEALING)
        self._refuse_unless(self._cards_dealt(), op, "no card has been dealt", "aucune carte n'a été donnée")

    def _end_deal(self, op: EndDeal) -> None:
        wrong, wrong_fr = [], []
        for position in self.players_in_play() + [DEALER]:
            count = len(self.hand_of(position).cards)
            if count != HAND_SIZE:
                wrong.append(f"{who(position)} has {count}")
                wrong_fr.append(f"{who_fr(position)} : {count}")
        dealer = self.coup.dealer
        if len(dealer.cards) == HAND_SIZE and not dealer.face_up[-1]:
            self._flag(FlagKind.DEALER_FIFTH_NOT_SHOWN, Severity.WARNING, DEALER,
                       "the dealer's fifth card was not dealt face up",
                       "la cinquième carte du croupier n'a pas été donnée face visible")
        if wrong:
            # Seed 000: « Le coup est nul quand le nombre de cartes composant la main ... est incorrect ».
            self.coup.void = True
            self._flag(FlagKind.WRONG_CARD_COUNT, Severity.CRITICAL, None,
                       f"{'; '.join(wrong)} cards instead of {HAND_SIZE}: the coup is void",
                       f"{' ; '.join(wrong_fr)} cartes au lieu de {HAND_SIZE} : le coup est nul")
        self._check_shoe_count("the end of the deal", "à la fin de la donne")
        self.phase = Phase.DECISIONS
        self.coup.decisions_started_at = op.t

    # --- decisions --------------------------------------------------------------

    def _require_deciding(self, op: Operation, seat_number: int) -> SeatState:
        self._require_phase(op, Phase.DECISIONS)
        self._refuse_unless(not self.coup.void, op, "the coup is void", "le coup est nul")
        seat = self._require_player(op, seat_number)
        self._refuse_unless(not seat.hand_void, op, f"seat {seat_number}'s hand is void",
                            f"la main de la place {seat_number} est nulle")
        if seat.decision is not None:
            chosen_fr = "passer" if seat.decision is Decision.FOLD else "relancer"
            raise ActionRefused(op.kind, f"seat {seat_number} has already chosen to {seat.decision.value}",
                                f"la place {seat_number} a déjà choisi de {chosen_fr}")
        return seat

    def _verify_confirm_ante(self, op: ConfirmAnte) -> None:
        # before the seat's decision: its raise, and any flag on it, are judged on the ante confirmed
        self._require_deciding(op, op.seat)
        self._refuse_unless(op.amount > 0, op, f"an ante of {op.amount} cents",
                            f"ante de {euros_fr(op.amount)}")

    def _confirm_ante(self, op: ConfirmAnte) -> None:
        seat = self.seats[op.seat]
        if seat.fixed[Box.ANTE] == op.amount:
            return
        seat.fixed[Box.ANTE] = seat.bets[Box.ANTE] = op.amount
        self._check_ante_limits(op.seat, op.amount)

    def _verify_fold(self, op: Fold) -> None:
        self._require_deciding(op, op.seat)

    def _fold(self, op: Fold) -> None:
        self.seats[op.seat].decision = Decision.FOLD

    def _verify_raise(self, op: Raise) -> None:
        self._require_deciding(op, op.seat)
        self._refuse_unless(op.amount > 0, op, f"a raise of {op.amount} cents",
                            f"relance de {euros_fr(op.amount)}")

    def _raise(self, op: Raise) -> None:
        seat = self.seats[op.seat]
        seat.decision = Decision.RAISE
        seat.raise_amount = op.amount
        required = self.raise_required(op.seat)
        if op.amount != required:
            over = op.amount > required
            settled = "settled at the rule's amount, the excess returned" if over else "settled on the amount placed"
            settled_fr = "réglée au montant de la règle, l'excédent rendu" if over else "réglée sur le montant posé"
            self._flag(FlagKind.RAISE_NOT_TWICE_ANTE, Severity.CRITICAL, op.seat,
                       f"raise of {op.amount} cents; the rule is exactly {self.rules.profile.raise_multiple} "
                       f"times the ante, {required} cents; {settled}",
                       f"relance de {euros_fr(op.amount)} ; la règle est exactement "
                       f"{self.rules.profile.raise_multiple} fois l'ante, {euros_fr(required)} ; {settled_fr}")

    def _verify_buy_card(self, op: BuyCard) -> None:
        self._require_phase(op, Phase.DECISIONS)
        self._refuse_unless(self.rules.card_purchase, op, "this table does not offer the card purchase",
                            "cette table ne propose pas l'achat de carte")
        seat = self._require_player(op, op.seat)
        self._refuse_unless(seat.decision is Decision.RAISE, op,
                            f"seat {op.seat} has not raised: a card is bought together with the raise",
                            f"la place {op.seat} n'a pas relancé : la carte s'achète avec la relance")
        self._refuse_unless(seat.discard is None, op, f"seat {op.seat} has already bought a card",
                            f"la place {op.seat} a déjà acheté une carte")
        self._refuse_unless(0 <= op.discard < HAND_SIZE, op, f"card {op.discard + 1} is not one of the five",
                            f"la carte {op.discard + 1} n'est pas l'une des cinq")
        self._refuse_unless(op.price > 0, op, f"a purchase price of {op.price} cents",
                            f"prix d'achat de {euros_fr(op.price)}")

    def _buy_card(self, op: BuyCard) -> None:
        seat = self.seats[op.seat]
        seat.discard = op.discard
        seat.discarded = seat.hand.cards[op.discard]
        seat.purchase_price = op.price
        required = seat.fixed[Box.ANTE] * self.rules.profile.purchase_price_in_antes
        if op.price != required:
            self._flag(FlagKind.PURCHASE_PRICE_WRONG, Severity.CRITICAL, op.seat,
                       f"card bought for {op.price} cents; the price is the ante, {required} cents",
                       f"carte achetée {euros_fr(op.price)} ; le prix est l'ante, {euros_fr(required)}")

    def _verify_deal_bought_card(self, op: DealBoughtCard) -> None:
        self._require_phase(op, Phase.DECISIONS)
        seat = self._require_player(op, op.seat)
        self._refuse_unless(seat.discard is not None, op, f"seat {op.seat} has not bought a card",
                            f"la place {op.seat} n'a pas acheté de carte")
        self._refuse_unless(not seat.bought_card_dealt, op, f"seat {op.seat} already has its bought card",
                            f"la place {op.seat} a déjà sa carte achetée")

    def _deal_bought_card(self, op: DealBoughtCard) -> None:
        seat = self.seats[op.seat]
        waiting = [n for n in self.players_in_play()
                   if n < op.seat and self.seats[n].discard is not None and not self.seats[n].bought_card_dealt]
        if waiting:
            # Seed 002: « Le croupier, dans l'ordre de distribution, distribue au joueur une carte ouverte ».
            self._flag(FlagKind.PURCHASE_OUT_OF_ORDER, Severity.INFO, op.seat,
                       f"bought card dealt to seat {op.seat} before seat {waiting[0]}'s",
                       f"carte achetée donnée à la place {op.seat} avant celle de la place {waiting[0]}")
        assert seat.discard is not None
        seat.hand.cards[seat.discard] = op.card
        seat.hand.face_up[seat.discard] = True
        seat.bought_card_dealt = True
        self.coup.cards_dealt += 1
        self._see(op.card, op.seat)

    def _verify_decision_timeout(self, op: DecisionTimeout) -> None:
        profile = self.rules.profile
        self._refuse_unless(profile.decision_timer, op, f"profile {profile.name} has no decision timer",
                            f"la règle {profile.name} n'a pas de temps de décision")
        seat = self._require_deciding(op, op.seat)
        started = self.coup.decisions_started_at or 0
        limit = profile.decision_seconds * 1000
        elapsed = f"{(op.t - started) / 1000:.1f}"
        self._refuse_unless(op.t - started >= limit, op,
                            f"{elapsed} s of the {profile.decision_seconds} s have passed",
                            f"{elapsed.replace('.', ',')} s écoulées sur {profile.decision_seconds} s")
        self._refuse_unless(None not in seat.hand.cards, op,
                            f"seat {op.seat}'s cards are not all identified: cannot tell a pair",
                            f"cartes de la place {op.seat} pas toutes identifiées : impossible de voir une paire")
        self._require_distinct(op, seat.hand.cards, op.seat)

    def _decision_timeout(self, op: DecisionTimeout) -> None:
        seat = self.seats[op.seat]
        profile = self.rules.profile
        value = evaluate([card for card in seat.hand.cards if card is not None])
        if profile.auto_raise_from is not None and value.category >= profile.auto_raise_from:
            seat.decision = Decision.RAISE
            seat.raise_amount = self.raise_required(op.seat)
            # the hand's category stays out of the detail: the kiosk shows it while the hand is still face down
            outcome, outcome_fr = "raised automatically (the profile's rule for its hand)", "relance d'office"
        else:
            seat.decision = Decision.FOLD
            outcome, outcome_fr = "folded", "passe d'office"
        self._flag(FlagKind.DECISION_TIMEOUT, Severity.INFO, op.seat,
                   f"seat {op.seat} did not act within {profile.decision_seconds} s: {outcome}",
                   f"la place {op.seat} n'a pas décidé en {profile.decision_seconds} s : {outcome_fr}")

    # --- showdown and settlement -----------------------------------------------

    def _verify_show_dealer_hand(self, op: ShowDealerHand) -> None:
        self._require_phase(op, Phase.DECISIONS)
        self._refuse_unless(not self.coup.void, op, "the coup is void: settle it", "le coup est nul : le régler")
        for number in self.players_in_play():
            seat = self.seats[number]
            if seat.hand_void:
                continue
            self._refuse_unless(seat.decision is not None, op, f"seat {number} has not decided",
                                f"la place {number} n'a pas décidé")
            self._refuse_unless(seat.discard is None or seat.bought_card_dealt, op,
                                f"seat {number}'s bought card has not been dealt",
                                f"carte achetée place {number} non donnée")

    def _show_dealer_hand(self, op: ShowDealerHand) -> None:
        for number in self.players_in_play():
            seat = self.seats[number]
            if seat.discard is not None and self.rules.profile.purchase_forfeits_bonus and seat.bets.get(Box.BONUS, 0):
                # Seed 002: « la mise est aussitôt récupérée par le croupier ».
                self._flag(FlagKind.BONUS_KEPT_AFTER_PURCHASE, Severity.CRITICAL, number,
                           f"seat {number} bought a card but its bonus stake is still on the felt",
                           f"la place {number} a acheté une carte mais sa mise de bonus est encore sur le tapis")
        for index in range(len(self.coup.dealer.face_up)):
            self.coup.dealer.face_up[index] = True
        if any(self.seats[n].discard is not None for n in self.players_in_play()):
            self._check_shoe_count("the bought cards", "aux cartes achetées")
        self.phase = Phase.SHOWDOWN

    def _seat_inputs(self) -> list[SeatInput]:
        inputs = []
        for number in self.players_in_play():
            seat = self.seats[number]
            inputs.append(SeatInput(
                seat=number,
                ante=seat.fixed.get(Box.ANTE, 0),
                # A raise above the rule's amount is settled at the rule's amount; the excess goes back.
                raise_amount=min(seat.raise_amount, self.raise_required(number))
                if seat.decision is Decision.RAISE else 0,
                folded=seat.decision is Decision.FOLD,
                bonus=seat.fixed.get(Box.BONUS, 0),
                jackpot=seat.fixed.get(Box.JACKPOT, 0),
                cards=tuple(card for card in seat.hand.cards if card is not None),
                first_five=tuple(card for card in seat.first_five if card is not None),
                purchase_price=seat.purchase_price,
                bought=seat.discard is not None,
                hand_void=seat.hand_void,
            ))
        return inputs

    def _verify_settle(self, op: Settle) -> None:
        self._refuse_unless(op.jackpot_meter >= 0, op, "a negative jackpot meter", "compteur du jackpot négatif")
        if self.coup.void:
            self._require_phase(op, Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN)
            return
        self._require_phase(op, Phase.SHOWDOWN)
        raised = [self.seats[n] for n in self.players_in_play()
                  if self.seats[n].decision is Decision.RAISE and not self.seats[n].hand_void]
        if not raised:
            return
        dealer = self.coup.dealer.cards
        self._refuse_unless(None not in dealer, op, "the dealer's cards are not all identified",
                            "cartes du croupier pas toutes identifiées")
        self._require_distinct(op, dealer, DEALER)
        qualifies = evaluate([card for card in dealer if card is not None]) >= ACE_KING
        profile = self.rules.profile
        for seat in raised:
            # Seed 002: when the dealer does not qualify, only the hands that claim something are turned over.
            if qualifies or seat.fixed.get(Box.BONUS) or profile.raise_paid_when_not_qualified_from is not None:
                self._require_identified(op, seat)
                self._require_distinct(op, seat.hand.cards, seat.number)
            if seat.fixed.get(Box.JACKPOT):
                self._refuse_unless(None not in seat.first_five, op,
                                    f"seat {seat.number}'s first five cards are not all identified",
                                    f"cinq premières cartes de la place {seat.number} pas toutes identifiées")
                self._require_distinct(op, seat.first_five, seat.number)

    def _require_identified(self, op: Operation, seat: SeatState) -> None:
        """Every card of the hand known; a bought card the camera never read is named as such."""
        if seat.discard is not None and seat.hand.cards[seat.discard] is None:
            raise ActionRefused(op.kind, f"seat {seat.number}'s bought card has not been seen",
                                f"carte achetée place {seat.number} non vue")
        self._refuse_unless(None not in seat.hand.cards, op, f"seat {seat.number}'s cards are not all identified",
                            f"cartes de la place {seat.number} pas toutes identifiées")

    def _require_distinct(self, op: Operation, cards: list[Card | None], position: int) -> None:
        """A hand holding the same card twice cannot be ranked: the coup must be voided or the card corrected."""
        known = [card for card in cards if card is not None]
        doubled = sorted({str(card) for card in known if known.count(card) > 1})
        if doubled:
            raise ActionRefused(op.kind, f"{who(position)} holds {' '.join(doubled)} twice (a foreign card): "
                                         "correct the card or declare the coup void",
                                f"{who_fr(position)} : {' '.join(doubled)} en double (carte étrangère) : "
                                "corriger la carte ou déclarer le coup nul")

    def _settle(self, op: Settle) -> None:
        dealer = self.coup.dealer.cards
        known = len(dealer) == HAND_SIZE and None not in dealer
        dealer_cards = tuple(card for card in dealer if card is not None) if known else None
        settlement = settle(self.rules, self._seat_inputs(), dealer_cards, op.jackpot_meter, self.coup.void)
        self.coup.settlement = settlement
        self.coup.owed = list(dict.fromkeys(p.seat for p in settlement.payouts if p.outcome is Outcome.WIN))
        for number in settlement.paying_order:
            seat = self.seats[number]
            held = {zone: seat.bets.get(Box(zone), 0) for zone in PAID_ZONES if zone != "raise"}
            held["raise"] = seat.raise_amount if seat.decision is Decision.RAISE else 0
            self.coup.held[number] = held
            self.coup.seen_paying[number] = dict(held)
            self._note_collected(number)
        self.settlements.append(settlement)
        self.phase = Phase.PAYING

    def _verify_payment_seen(self, op: PaymentSeen) -> None:
        self._require_phase(op, Phase.PAYING)
        self._require_seat(op, op.seat)
        self._refuse_unless(op.zone in PAID_ZONES, op, f"no zone {op.zone!r} (expected {', '.join(PAID_ZONES)})",
                            f"pas de case « {op.zone} »")
        self._refuse_unless(op.amount >= 0, op, f"{op.amount} cents of chips", f"jetons de {euros_fr(op.amount)}")

    def _payment_seen(self, op: PaymentSeen) -> None:
        coup, seat = self.coup, self.seats[op.seat]
        zones = coup.seen_paying.setdefault(op.seat, {})
        before = zones.get(op.zone, 0)
        zones[op.zone] = op.amount
        if op.zone != "raise":
            seat.bets[Box(op.zone)] = op.amount
        self._note_collected(op.seat)
        due = self.payments_due()
        if op.amount > before and op.seat in due and due[0] != op.seat and op.seat not in coup.paid_early:
            coup.paid_early.add(op.seat)
            self._flag(FlagKind.PAID_OUT_OF_ORDER, Severity.INFO, op.seat,
                       f"chips put in seat {op.seat}'s {op.zone} before seat {due[0]} was paid "
                       "(counter-clockwise from the dealer's right)",
                       f"jetons posés place {op.seat} avant le paiement de la place {due[0]} (sens inverse des "
                       "aiguilles d'une montre depuis la droite du croupier)")

    def _verify_payment_done(self, op: PaymentDone) -> None:
        self._require_phase(op, Phase.PAYING)
        due = self.payments_due()
        self._refuse_unless(op.seat in due, op, f"seat {op.seat} has nothing left to be paid",
                            f"la place {op.seat} n'a plus rien à recevoir")

    def _payment_done(self, op: PaymentDone) -> None:
        due = self.payments_due()
        if due[0] != op.seat and op.seat not in self.coup.paid_early:
            # Seed 000: « Il opère suivant le sens contraire des aiguilles d'une montre. »
            self._flag(FlagKind.PAID_OUT_OF_ORDER, Severity.INFO, op.seat,
                       f"seat {op.seat} paid before seat {due[0]} (counter-clockwise from the dealer's right)",
                       f"place {op.seat} payée avant la place {due[0]} (sens inverse des aiguilles d'une montre "
                       "depuis la droite du croupier)")
        self._check_payment(op.seat, op.watched)
        self.coup.paid.append(op.seat)

    def _note_collected(self, number: int) -> None:
        """Remember the seat's losing zones that are emptied now: collected, whatever is put there afterwards."""
        coup = self.coup
        if coup.settlement is None or number not in coup.settlement.paying_order:
            return
        check = check_payment(coup.settlement, number, coup.held.get(number, {}), coup.seen_paying.get(number, {}))
        coup.collected |= {(number, zone) for zone in check.collected}

    def _check_payment(self, number: int, watched: bool) -> None:
        """Judge the seat's payment as the camera sees it now, and flag what is wrong."""
        coup = self.coup
        assert coup.settlement is not None
        check = check_payment(coup.settlement, number, coup.held.get(number, {}), coup.seen_paying.get(number, {}),
                              self._collected(number), watched)
        coup.payment_checks[number] = check
        if not watched:
            return
        if check.over:
            self._flag(FlagKind.OVERPAID, Severity.CRITICAL, number,
                       f"seat {number} paid {check.over} cents too much",
                       f"place {number} : trop payé de {euros_fr(check.over)}")
        if check.short:
            self._flag(FlagKind.UNDERPAID, Severity.CRITICAL, number,
                       f"seat {number} paid {check.short} cents short",
                       f"place {number} : il manque {euros_fr(check.short)}")
        if check.not_collected:
            self._flag(FlagKind.STAKE_NOT_COLLECTED, Severity.CRITICAL, number,
                       f"seat {number}: {check.not_collected} cents of losing stakes not collected",
                       f"place {number} : reste {euros_fr(check.not_collected)} de mise perdue à ramasser")

    def _verify_shoe_count(self, op: ShoeCount) -> None:
        self._require_phase(op, Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN)
        self._refuse_unless(op.drawn >= 0, op, f"a count of {op.drawn} cards",
                            f"compte de {op.drawn} cartes")

    def _shoe_count(self, op: ShoeCount) -> None:
        self.coup.shoe_count = op.drawn

    def _check_shoe_count(self, moment: str, moment_fr: str) -> None:
        """The shoe's beam and the camera must agree on how many cards left the shoe."""
        shoe, seen = self.coup.shoe_count, self.coup.cards_dealt
        if shoe is not None and shoe != seen:
            self._flag(FlagKind.SHOE_COUNT_MISMATCH, Severity.WARNING, None,
                       f"at {moment} the shoe counted {shoe} cards drawn, the table saw {seen}",
                       f"{moment_fr}, le sabot a compté {shoe} cartes tirées, la table en a vu {seen}")

    def _verify_declare_void(self, op: DeclareVoid) -> None:
        self._require_phase(op, Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN)
        self._refuse_unless(not self.coup.void, op, "the coup is already void", "le coup est déjà nul")
        self._refuse_unless("\n" not in op.reason and "\r" not in op.reason, op, "the reason must be one line",
                            "le motif doit tenir sur une ligne")

    def _declare_void(self, op: DeclareVoid) -> None:
        self.coup.void = True
        self._flag(FlagKind.COUP_DECLARED_VOID, Severity.CRITICAL, None, f"coup declared void: {op.reason}",
                   f"coup déclaré nul : {op.reason}")

    def _verify_end_coup(self, op: EndCoup) -> None:
        self._require_phase(op, Phase.PAYING)
        due = self.payments_due()
        self._refuse_unless(not due, op, f"seats {', '.join(map(str, due))} are still to be paid",
                            f"{seats_fr(due)} encore à payer")

    def _end_coup(self, op: EndCoup) -> None:
        settlement = self.coup.settlement
        for number in settlement.paying_order if settlement else ():
            if number not in self.coup.payment_checks:
                self._check_payment(number, op.watched)
        # The coup's alerts stay on the display (``earlier_alerts``); a void coup's until they are acknowledged
        if self.coup.void:
            self.held_flags = self.held_flags + self.coup_flags()
            self.closing_flags = []
        else:
            self.closing_flags = self.coup_flags()
        # Chips still in an ante box (left after a push, or already put down for the next coup) stay there;
        # a side bet is for the coming hand only (seed 004: « pour la main à venir »).
        self.seats = {number: SeatState(number, occupied=seat.occupied,
                                        bets={Box.ANTE: seat.bets[Box.ANTE]} if seat.bets.get(Box.ANTE) else {})
                      for number, seat in self.seats.items()}
        self.coup = CoupState(number=self.coup.number + 1, start_index=self.operation_count)
        self.phase = Phase.BETTING

    def _verify_acknowledge_alerts(self, op: AcknowledgeAlerts) -> None:
        """Always taken: a key pressed twice, or a coup exported alone (whose replay starts with no earlier coup's
        alert), acknowledges nothing more."""

    def _acknowledge_alerts(self, op: AcknowledgeAlerts) -> None:
        self.held_flags, self.closing_flags = [], []

    #: each operation's check, then its effect: functions of the class, not methods bound to a table (a bound
    #: method would keep its table alive in a cycle that only the garbage collector's full passes free)
    _HANDLERS: ClassVar[dict[type[Operation], tuple[Callable[[Table, Any], None], Callable[[Table, Any], None]]]] = {
        OpenSession: (_verify_open_session, _open_session),
        SitDown: (_verify_sit_down, _sit_down),
        StandUp: (_verify_stand_up, _stand_up),
        PlaceBet: (_verify_place_bet, _place_bet),
        NoMoreBets: (_verify_no_more_bets, _no_more_bets),
        Shuffle: (_verify_shuffle, _shuffle),
        OfferCut: (_verify_offer_cut, _offer_cut),
        DealCard: (_verify_deal_card, _deal_card),
        IdentifyCard: (_verify_identify_card, _identify_card),
        ExposeCard: (_verify_expose_card, _expose_card),
        PlayerLooks: (_verify_player_looks, _player_looks),
        EndDeal: (_verify_end_deal, _end_deal),
        ConfirmAnte: (_verify_confirm_ante, _confirm_ante),
        Fold: (_verify_fold, _fold),
        Raise: (_verify_raise, _raise),
        BuyCard: (_verify_buy_card, _buy_card),
        DealBoughtCard: (_verify_deal_bought_card, _deal_bought_card),
        DecisionTimeout: (_verify_decision_timeout, _decision_timeout),
        ShowDealerHand: (_verify_show_dealer_hand, _show_dealer_hand),
        Settle: (_verify_settle, _settle),
        PaymentSeen: (_verify_payment_seen, _payment_seen),
        PaymentDone: (_verify_payment_done, _payment_done),
        ShoeCount: (_verify_shoe_count, _shoe_count),
        DeclareVoid: (_verify_declare_void, _declare_void),
        EndCoup: (_verify_end_coup, _end_coup),
        AcknowledgeAlerts: (_verify_acknowledge_alerts, _acknowledge_alerts),
    }
