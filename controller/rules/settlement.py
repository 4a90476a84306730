"""Settlement of a coup: every bet's outcome, in integer cents, with its reason.

Seed 000: the dealer qualifies with ace-king or better; if not, « pas de jeu »:
antes paid even money, raises returned. If he does, each hand is compared with
his; equal hands are void (a push); a beaten hand loses ante and raise. The
dealer pays counter-clockwise, from his right: seat 7 first, seat 1 last.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .french import euros_fr
from .profile import TableRules
from .ranking import ACE_KING, HandValue, evaluate


class Announcement(enum.Enum):
    """What the croupier announces aloud, in the language of the profile's seed."""

    NO_GAME = "no_game"
    BANK_WINS = "bank_wins"
    BONUS_PAID = "bonus_paid"
    COUP_VOID = "coup_void"

    def label(self, language: str = "fr") -> str:
        return _ANNOUNCEMENTS[language][self]


_ANNOUNCEMENTS = {
    # Seeds 000 and 002: « pas de jeu », « banque gagne » / « la banque gagne », « bonus payé », « le coup est nul ».
    "fr": {Announcement.NO_GAME: "Pas de jeu", Announcement.BANK_WINS: "La banque gagne",
           Announcement.BONUS_PAID: "Bonus payé", Announcement.COUP_VOID: "Coup nul"},
    # Seed 003: « gioco nullo », « il banco vince », « il gioco è nullo ».
    "it": {Announcement.NO_GAME: "Gioco nullo", Announcement.BANK_WINS: "Il banco vince",
           Announcement.BONUS_PAID: "Bonus pagato", Announcement.COUP_VOID: "Colpo nullo"},
    "en": {Announcement.NO_GAME: "No game", Announcement.BANK_WINS: "The bank wins",
           Announcement.BONUS_PAID: "Bonus paid", Announcement.COUP_VOID: "Coup void"},
}


class Outcome(enum.Enum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    RETURNED = "returned"


class Line(enum.Enum):
    """What a payout line settles, in the order the dealer pays a seat."""

    ANTE = "ante"
    RAISE = "raise"
    PURCHASE = "purchase"
    BONUS = "bonus"
    JACKPOT = "jackpot"


@dataclass(frozen=True, slots=True)
class Payout:
    seat: int
    line: Line
    stake: int
    outcome: Outcome
    #: the player's gain in cents: the amount paid on a win, minus the stake on a loss
    net: int
    reason: str


@dataclass(frozen=True, slots=True)
class SeatInput:
    """What settlement needs of one seat."""

    seat: int
    ante: int
    raise_amount: int  # 0 when folded
    folded: bool
    bonus: int
    jackpot: int
    #: the final five cards (after a purchase)
    cards: tuple[Card, ...]
    #: the first five cards dealt, for the progressive jackpot
    first_five: tuple[Card, ...]
    purchase_price: int = 0
    #: a card was bought (whatever its price): the bonus is forfeited (seed 002)
    bought: bool = False
    hand_void: bool = False


@dataclass(frozen=True)
class Settlement:
    dealer_value: HandValue | None
    dealer_qualifies: bool
    void: bool
    #: every line, in paying order (seat 7 down to seat 1)
    payouts: tuple[Payout, ...]
    announcements: tuple[Announcement, ...]
    hand_values: dict[int, HandValue]
    #: the seats whose hands are turned over to settle them (Seed 002: when the dealer does not qualify, only the
    #: hands that claim something); ``hand_values`` may know more, from the shoe
    hands_shown: tuple[int, ...] = ()

    def labels(self, language: str = "fr") -> tuple[str, ...]:
        return tuple(announcement.label(language) for announcement in self.announcements)

    @property
    def paying_order(self) -> tuple[int, ...]:
        seats: list[int] = []
        for payout in self.payouts:
            if not seats or seats[-1] != payout.seat:
                seats.append(payout.seat)
        return tuple(seats)

    def net_for(self, seat: int) -> int:
        return sum(p.net for p in self.payouts if p.seat == seat)

    @property
    def house_net(self) -> int:
        return -sum(p.net for p in self.payouts)


def settle(
    rules: TableRules,
    seats: Sequence[SeatInput],
    dealer_cards: Sequence[Card] | None,
    jackpot_meter: int = 0,
    coup_void: bool = False,
) -> Settlement:
    """Settle every seat. ``dealer_cards`` may be None only when the coup is void."""
    profile = rules.profile
    ordered = sorted(seats, key=lambda s: s.seat, reverse=True)  # counter-clockwise
    payouts: list[Payout] = []
    values: dict[int, HandValue] = {}
    shown: list[int] = []

    if coup_void:
        for seat in ordered:
            payouts.extend(_returned(seat, "coup nul"))
        return Settlement(None, False, True, tuple(payouts), (Announcement.COUP_VOID,), values)

    # The dealer's hand is needed only when some hand is contested.
    dealer = evaluate(dealer_cards) if dealer_cards else None
    qualifies = dealer is not None and dealer >= ACE_KING
    contested = beaten = 0
    bonus_paid = False
    for seat in ordered:
        if seat.hand_void:
            payouts.extend(_returned(seat, "main nulle"))
            continue
        lines: list[Payout] = []
        if seat.folded:
            lines.append(Payout(seat.seat, Line.ANTE, seat.ante, Outcome.LOSE, -seat.ante, "passe"))
            if seat.bonus:
                lines.append(Payout(seat.seat, Line.BONUS, seat.bonus, Outcome.LOSE, -seat.bonus, "passe"))
        else:
            if dealer is None:
                raise ValueError(f"seat {seat.seat} raised: the dealer's five cards are needed")
            contested += 1
            # Seed 002: when the dealer does not qualify, only a bonus claimant's cards need turning over.
            value = evaluate(seat.cards) if len(seat.cards) == 5 else None
            needed = qualifies or seat.bonus or profile.raise_paid_when_not_qualified_from is not None
            if value is None and needed:
                raise ValueError(f"seat {seat.seat}'s five cards are needed to settle it")
            if value is not None:
                values[seat.seat] = value
            if needed:
                shown.append(seat.seat)
            main = _main_game(rules, seat, value, dealer, qualifies)
            beaten += any(p.line is Line.ANTE and p.outcome is Outcome.LOSE for p in main)
            lines.extend(main)
            if seat.bonus and value is not None:
                bonus_line = _bonus(rules, seat, value, dealer, qualifies)
                bonus_paid = bonus_paid or bonus_line.outcome is Outcome.WIN
                lines.append(bonus_line)
        if seat.jackpot:
            lines.append(_jackpot(rules, seat, jackpot_meter))
        payouts.extend(lines)

    announcements: list[Announcement] = []
    if contested and not qualifies:
        announcements.append(Announcement.NO_GAME)
    elif contested and beaten == contested:
        announcements.append(Announcement.BANK_WINS)
    if bonus_paid:
        announcements.append(Announcement.BONUS_PAID)
    return Settlement(dealer, qualifies, False, tuple(payouts), tuple(announcements), values, tuple(sorted(shown)))


def _main_game(rules: TableRules, seat: SeatInput, value: HandValue | None, dealer: HandValue,
               qualifies: bool) -> list[Payout]:
    """The purchase, ante and raise lines of a hand that raised."""
    profile = rules.profile
    lines: list[Payout] = []
    if seat.purchase_price:
        lines.append(Payout(seat.seat, Line.PURCHASE, seat.purchase_price, Outcome.LOSE, -seat.purchase_price,
                            "achat de carte"))
    if not qualifies:
        ante_win = seat.ante * profile.ante_pays_when_not_qualified
        lines.append(Payout(seat.seat, Line.ANTE, seat.ante, Outcome.WIN, ante_win,
                            f"pas de jeu : ante payée {profile.ante_pays_when_not_qualified} pour 1"))
        paid_from = profile.raise_paid_when_not_qualified_from
        if value is not None and paid_from is not None and value.category >= paid_from:
            multiple = profile.raise_pays(value.category)
            lines.append(Payout(seat.seat, Line.RAISE, seat.raise_amount, Outcome.WIN, seat.raise_amount * multiple,
                                f"pas de jeu, {value.describe_fr()} : relance payée {multiple} pour 1"))
        else:
            lines.append(Payout(seat.seat, Line.RAISE, seat.raise_amount, Outcome.RETURNED, 0,
                                "pas de jeu : relance rendue"))
        return lines
    assert value is not None
    name = value.describe_fr()
    if value > dealer:
        multiple = profile.raise_pays(value.category)
        lines.append(Payout(seat.seat, Line.ANTE, seat.ante, Outcome.WIN, seat.ante,
                            f"{name} bat {dealer.describe_fr()} : ante payée 1 pour 1"))
        if multiple:
            lines.append(Payout(seat.seat, Line.RAISE, seat.raise_amount, Outcome.WIN, seat.raise_amount * multiple,
                                f"{name} : relance payée {multiple} pour 1"))
        else:
            # Seed 002: « Les joueurs ne peuvent faire usage que des combinaisons suivantes » (from a pair).
            lines.append(Payout(seat.seat, Line.RAISE, seat.raise_amount, Outcome.RETURNED, 0,
                                f"{name} : aucune combinaison payée, relance rendue"))
    elif value == dealer:
        for line, stake in ((Line.ANTE, seat.ante), (Line.RAISE, seat.raise_amount)):
            lines.append(Payout(seat.seat, line, stake, Outcome.PUSH, 0, f"égalité ({name})"))
    else:
        reason = f"{dealer.describe_fr()} bat {name}"
        lines.append(Payout(seat.seat, Line.ANTE, seat.ante, Outcome.LOSE, -seat.ante, reason))
        lines.append(Payout(seat.seat, Line.RAISE, seat.raise_amount, Outcome.LOSE, -seat.raise_amount, reason))
    return lines


def _returned(seat: SeatInput, reason: str) -> list[Payout]:
    stakes = ((Line.ANTE, seat.ante), (Line.RAISE, seat.raise_amount), (Line.PURCHASE, seat.purchase_price),
              (Line.BONUS, seat.bonus), (Line.JACKPOT, seat.jackpot))
    return [Payout(seat.seat, line, stake, Outcome.RETURNED, 0, reason) for line, stake in stakes if stake]


def _bonus(rules: TableRules, seat: SeatInput, value: HandValue, dealer: HandValue, qualifies: bool) -> Payout:
    """Seed 002: paid from a flush up, even when the dealer does not qualify;
    lost when the dealer qualifies and beats the player, or after a card purchase."""
    profile = rules.profile
    multiple = profile.bonus_pays(value.category)

    def lost(reason: str) -> Payout:
        return Payout(seat.seat, Line.BONUS, seat.bonus, Outcome.LOSE, -seat.bonus, reason)

    if (seat.bought or seat.purchase_price) and profile.purchase_forfeits_bonus:
        return lost("achat de carte : bonus perdu")
    if not multiple:
        return lost(f"{value.describe_fr()} : pas de bonus")
    if qualifies and value < dealer:
        return lost("main battue par le croupier : bonus perdu")
    if not qualifies and not profile.bonus_paid_when_not_qualified:
        return lost("pas de jeu : bonus perdu")
    return Payout(seat.seat, Line.BONUS, seat.bonus, Outcome.WIN, seat.bonus * multiple,
                  f"{value.category.name_fr} : bonus payé {multiple} fois la mise")


def _jackpot(rules: TableRules, seat: SeatInput, meter: int) -> Payout:
    """Seed 004: paid on the first five cards, whatever the dealer holds."""
    profile = rules.profile
    if seat.folded and profile.jackpot_forfeited_by_fold:
        return Payout(seat.seat, Line.JACKPOT, seat.jackpot, Outcome.LOSE, -seat.jackpot, "passe : jackpot perdu")
    category = evaluate(seat.first_five).category
    award = profile.jackpot_paytable.get(category)
    if award is None:
        return Payout(seat.seat, Line.JACKPOT, seat.jackpot, Outcome.LOSE, -seat.jackpot,
                      f"{category.name_fr} : pas de jackpot")
    amount = award.amount(meter)
    return Payout(seat.seat, Line.JACKPOT, seat.jackpot, Outcome.WIN, amount - seat.jackpot,
                  f"{category.name_fr} : jackpot {euros_fr(amount)}")

