"""What the seed tests (``test_seed_*.py``, one file per seed text ``seeds/*.txt``) share.

Each seed's sentences are tested under the profile of that seed:

* 000 (arrêté du 23 décembre 1959) -> ``fr-1959``
* 002 (arrêté du 17 mai 2007, achat de carte, bonus) -> ``fr-2007``
* 003 (Italian summary, CasinoWeb) -> ``it``
* 004 (Caribbean Stud, jackpot progressif) -> ``caribbean``

Where several seeds state the same rule, each sentence has its own test, against its own profile; the check
itself is here (the ``check_*`` functions), beside the steps that build a table and read its result. The
sentences judged not machine-checkable are listed, with the reason, at the end of this module.

Money is in integer cents; seats are numbered 1..7 clockwise from the dealer's left; ``DEALER`` is 0.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

import pytest

from controller.profiles import load_profile
from controller.rules.cards import Card, full_deck, parse_card
from controller.rules.errors import ActionRefused
from controller.rules.flags import FlagKind, Severity
from controller.rules.operations import DEALER, Box
from controller.rules.profile import Profile, TableRules
from controller.rules.ranking import ACE_KING, Category, HandValue, evaluate
from controller.rules.settlement import Line, Outcome, Payout, Settlement
from controller.rules.table import HAND_SIZE, Decision, Phase, Table

FR_1959, FR_2007, IT, CARIBBEAN, CARIBBEAN_US = "fr-1959", "fr-2007", "it", "caribbean", "caribbean-us"

MINIMUM = 1_000  # 10.00 €
MAXIMUM = 100_000  # 1 000.00 €
ANTE = 2_000  # 20.00 €
RAISE = 2 * ANTE
BONUS_STAKE = MINIMUM // 5  # seed 002: 1/5 of the table minimum

# Dealer hands. The lowest hand that qualifies (ace-king-4-3-2) and the best one that does not (ace-queen).
DEALER_ACE_KING = "Ah Kd 4c 3d 2s"
DEALER_ACE_QUEEN = "Ad Qh Jd 8s 7d"
DEALER_FULL_HOUSE = "Kh Ks Kd 7s 7h"

# Player hands, none sharing a card with DEALER_ACE_KING or DEALER_ACE_QUEEN.
HIGH_CARD = "Ac Kh Qd 9s 6c"  # ace-king-queen: beats DEALER_ACE_KING, no combination
PAIR = "9c 9d 7h 6s 5c"
PAIR_TENS = "Tc Th 8d 7s 5d"
PAIR_JACKS = "Jc Jh 8c 7c 5h"
TWO_PAIR = "9c 9d 7h 7s 5c"
THREE_OF_A_KIND = "9c 9d 9h 7s 5c"
STRAIGHT = "9c 8d 7h 6s 5c"
FLUSH = "Qc Tc 8c 6c 5c"
FULL_HOUSE = "9c 9d 9h 7s 7c"
FOUR_OF_A_KIND = "9c 9d 9h 9s 5c"
STRAIGHT_FLUSH = "9h 8h 7h 6h 5h"
ROYAL_FLUSH = "As Ks Qs Js Ts"

SEAT_RANGE = tuple(range(1, 8))


# --- building a table, step by step ------------------------------------------------------------------------


@functools.cache
def profile_named(name: str) -> Profile:
    return load_profile(name)


def make_rules(profile: str, *, marked: int = 7, minimum: int = MINIMUM, maximum: int = MAXIMUM,
               **options: Any) -> TableRules:
    """A table of ``profile`` offering every option its profile allows, unless ``options`` say otherwise."""
    loaded = profile_named(profile)
    settings = {"bonus": loaded.bonus, "jackpot": loaded.jackpot, "card_purchase": loaded.card_purchase}
    settings.update(options)
    return TableRules(loaded, minimum, maximum, marked, **settings)


def now(table: Table) -> int:
    """The table clock for the next operation: 0.1 s after the last one."""
    return table.log[-1].t + 100 if table.log else 0


def cards(text: str) -> tuple[Card | None, ...]:
    """``"As Kd ??"``: ``??`` is a card dealt but not (yet) identified."""
    return tuple(None if part == "??" else parse_card(part) for part in text.split())


def seated(profile: str, seats: Iterable[int] = (1,), **table_options: Any) -> Table:
    """Session open with a counted deck of 52, players seated."""
    table = Table(make_rules(profile, **table_options))
    table.open_session(0, full_deck())
    for seat in seats:
        table.sit_down(now(table), seat)
    return table


def place_side_bets(table: Table, seat: int) -> None:
    """The side bets the table offers, at their right stake."""
    if table.rules.bonus:
        table.place_bet(now(table), seat, Box.BONUS, table.rules.bonus_stake_cents)
    if table.rules.jackpot:
        table.place_bet(now(table), seat, Box.JACKPOT, table.rules.profile.jackpot_stake_cents)


def bets_closed(profile: str, seats: Iterable[int] = (1,), *, side_bets: Iterable[int] = (),
                **table_options: Any) -> Table:
    """Antes placed on ``seats`` (side bets on ``side_bets``), then « rien ne va plus »."""
    seats = tuple(seats)
    table = seated(profile, seats, **table_options)
    for seat in seats:
        table.place_bet(now(table), seat, Box.ANTE, ANTE)
        if seat in side_bets:
            place_side_bets(table, seat)
    table.no_more_bets(now(table))
    return table


def shuffled(profile: str, seats: Iterable[int] = (1,), **kwargs: Any) -> Table:
    table = bets_closed(profile, seats, **kwargs)
    table.shuffle(now(table))
    return table


def ready_to_deal(profile: str, seats: Iterable[int] = (1,), **kwargs: Any) -> Table:
    """Shuffled five times, cut twice, and cut by the first player."""
    table = shuffled(profile, seats, **kwargs)
    table.offer_cut(now(table), table.players_in_play()[0], True)
    return table


def deal_steps(hands: Mapping[int, str], dealer: str) -> list[tuple[int, Card | None, bool]]:
    """The regulation order: one card to each hand from the dealer's left, then one to the dealer; five
    rounds; the dealer's fifth card face up."""
    by_position = {seat: cards(text) for seat, text in sorted(hands.items())}
    by_position[DEALER] = cards(dealer)
    rounds = max(len(held) for held in by_position.values())
    steps = []
    for index in range(rounds):
        for position, held in by_position.items():
            if index < len(held):
                steps.append((position, held[index], position == DEALER and index == HAND_SIZE - 1))
    return steps


def deal(table: Table, hands: Mapping[int, str], dealer: str, start: int = 0, stop: int | None = None) -> None:
    for position, card, face_up in deal_steps(hands, dealer)[start:stop]:
        table.deal_card(now(table), position, card, face_up)


def dealt(profile: str, hands: Mapping[int, str], dealer: str, **kwargs: Any) -> Table:
    """The deal done and ended (« fin de donne »): the players may decide."""
    table = ready_to_deal(profile, sorted(hands), **kwargs)
    deal(table, hands, dealer)
    table.end_deal(now(table))
    assert FlagKind.DUPLICATE_CARD not in kinds(table), "the test's hands share a card"
    return table


def finish(table: Table, folds: Iterable[int] = (), meter: int = 0) -> Settlement:
    """Every undecided player raises twice his ante (or folds), the dealer shows, the coup is settled."""
    for seat in table.players_in_play():
        state = table.seats[seat]
        if state.decision is None and not state.hand_void:
            if seat in folds:
                table.fold(now(table), seat)
            else:
                table.raise_(now(table), seat, state.fixed[Box.ANTE] * table.rules.profile.raise_multiple)
    table.show_dealer_hand(now(table))
    table.settle(now(table), meter)
    assert table.settlement is not None
    return table.settlement


def play(profile: str, hands: Mapping[int, str], dealer: str, *, folds: Iterable[int] = (), meter: int = 0,
         **kwargs: Any) -> Table:
    """A whole regular coup up to its settlement."""
    table = dealt(profile, hands, dealer, **kwargs)
    finish(table, folds, meter)
    return table


def pay_all(table: Table) -> None:
    for seat in table.payments_due():
        table.payment_done(now(table), seat)


# --- reading the result ---------------------------------------------------------------------------------------


def kinds(table: Table) -> list[FlagKind]:
    return [flag.kind for flag in table.flags]


def flagged(table: Table, kind: FlagKind) -> list[int | None]:
    """The seats concerned by each flag of this kind, in order."""
    return [flag.seat for flag in table.flags if flag.kind is kind]


def payout(table: Table, seat: int, line: Line) -> Payout:
    assert table.settlement is not None
    found = [p for p in table.settlement.payouts if p.seat == seat and p.line is line]
    assert len(found) == 1, f"seat {seat} has {len(found)} {line.value} lines: {table.settlement.payouts}"
    return found[0]


def lines_of(table: Table, seat: int) -> list[Line]:
    assert table.settlement is not None
    return [p.line for p in table.settlement.payouts if p.seat == seat]


def value(text: str) -> HandValue:
    return evaluate([card for card in cards(text) if card is not None])


def refused(action: Any, *args: Any) -> bool:
    """True when the table refuses the named action (``table.fold``, ...) with these arguments."""
    try:
        action(*args)
    except ActionRefused:
        return True
    return False


# --- checks shared by the seeds that state the same rule -----------------------------------------------------


def check_deck_of_52_cards(profile: str) -> None:
    deck = full_deck()
    assert len(set(deck)) == 52
    table = Table(make_rules(profile))
    for wrong in (deck[:51], deck[:51] + deck[:1], deck + deck[:1]):
        assert refused(table.open_session, 0, wrong)
    assert table.phase is Phase.CLOSED
    table.open_session(0, deck)
    assert table.phase is Phase.BETTING
    # One deck: the same card seen twice in a coup is a foreign card.
    table = ready_to_deal(profile, (1, 2))
    deal(table, {1: "As", 2: "As"}, "")
    assert flagged(table, FlagKind.DUPLICATE_CARD) == [2]


def check_counted_then_shuffled_five_times_and_cut_twice(profile: str, counted: bool = True) -> None:
    if counted:
        table = Table(make_rules(profile))
        assert refused(table.open_session, 0, full_deck()[1:])  # one card missing at the count
    table = bets_closed(profile)
    table.shuffle(now(table), 5, 2)
    assert kinds(table) == []
    for shuffles, cuts in ((4, 2), (5, 1), (6, 3)):
        table = bets_closed(profile)
        table.shuffle(now(table), shuffles, cuts)
        assert kinds(table) == [FlagKind.SHUFFLE_INCOMPLETE]


def check_cut_by_player_at_far_left(profile: str) -> None:
    table = shuffled(profile, (2, 4, 6))
    table.offer_cut(now(table), 2, True)
    deal(table, {2: "??", 4: "??", 6: "??"}, "??")
    assert kinds(table) == []
    assert refused(table.offer_cut, now(table), 2, True)  # « dernière coupe »
    table = shuffled(profile, (2, 4, 6))
    table.offer_cut(now(table), 4, True)
    assert flagged(table, FlagKind.CUT_OUT_OF_ORDER) == [4]
    table = shuffled(profile, (2, 4, 6))
    deal(table, {2: "??"}, "")
    assert kinds(table) == [FlagKind.DEAL_WITHOUT_CUT]


def check_refused_cut_passes_clockwise(profile: str) -> None:
    table = shuffled(profile, (2, 4, 6))
    table.offer_cut(now(table), 2, False)
    table.offer_cut(now(table), 4, True)
    deal(table, {2: "??"}, "")
    assert kinds(table) == []
    table = shuffled(profile, (2, 4, 6))
    table.offer_cut(now(table), 2, False)
    table.offer_cut(now(table), 6, True)
    assert flagged(table, FlagKind.CUT_OUT_OF_ORDER) == [6]


def check_betting_closed_before_shuffle_and_deal(profile: str) -> None:
    table = seated(profile, (1, 3))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 3, Box.ANTE, MAXIMUM + 100)
    table.place_bet(now(table), 5, Box.ANTE, ANTE)  # seat 5 is vacant
    assert refused(table.shuffle, now(table))
    assert refused(table.deal_card, now(table), 1, None, False)
    table.no_more_bets(now(table))
    # The bets are checked (place and amount) when the games are stopped, before the shuffle.
    assert flagged(table, FlagKind.BET_ON_VACANT_SEAT) == [5]
    assert flagged(table, FlagKind.BET_OUTSIDE_LIMITS) == [3]
    assert table.players_in_play() == [1, 3]
    assert table.seats[1].fixed == {Box.ANTE: ANTE}
    table.shuffle(now(table))
    assert table.phase is Phase.DEALING


def check_bets_within_limits_before_shuffle(profile: str) -> None:
    table = seated(profile, (1, 2, 3, 4))
    for seat, ante in ((1, MINIMUM - 100), (2, MINIMUM), (3, MAXIMUM), (4, MAXIMUM + 100)):
        table.place_bet(now(table), seat, Box.ANTE, ante)
    table.no_more_bets(now(table))
    assert flagged(table, FlagKind.BET_OUTSIDE_LIMITS) == [1, 4]
    flags_before_shuffle = len(table.flags)
    table.shuffle(now(table))
    assert len(table.flags) == flags_before_shuffle


def check_one_player_suffices(profile: str) -> None:
    table = seated(profile, (3,))
    assert refused(table.no_more_bets, now(table))  # no player has an ante yet
    table = play(profile, {3: PAIR}, DEALER_ACE_KING)
    assert table.players_in_play() == [3]
    assert kinds(table) == []
    assert payout(table, 3, Line.RAISE).outcome is Outcome.WIN
    pay_all(table)
    table.end_coup(now(table))
    assert table.phase is Phase.BETTING


def check_only_marked_seats_hold_hands(profile: str) -> None:
    rules = make_rules(profile, marked=5)
    assert list(rules.seats) == [1, 2, 3, 4, 5]
    table = Table(rules)
    table.open_session(0, full_deck())
    for seat in (1, 2, 4):
        table.sit_down(now(table), seat)
    assert refused(table.sit_down, now(table), 6)
    for seat in (1, 2, 3):  # seat 3 is marked but nobody sits there
        table.place_bet(now(table), seat, Box.ANTE, ANTE)
    table.no_more_bets(now(table))
    assert table.players_in_play() == [1, 2]
    assert table.seats[3].in_play is False


def check_five_to_seven_marked_seats(profile: str) -> None:
    for marked in (4, 8):
        with pytest.raises(ValueError):
            make_rules(profile, marked=marked)
    for marked in (5, 6, 7):
        assert len(make_rules(profile, marked=marked).seats) == marked


def check_seats_numbered_one_to_seven_clockwise(profile: str) -> None:
    table = ready_to_deal(profile, SEAT_RANGE)
    assert tuple(table.seats) == SEAT_RANGE
    order = []
    for _ in range(len(SEAT_RANGE) + 1):  # one round: seven players, then the dealer
        position = table.expected_position()
        assert position is not None
        order.append(position)
        table.deal_card(now(table), position, None)
    assert order == [1, 2, 3, 4, 5, 6, 7, DEALER]
    assert kinds(table) == []


def check_one_hand_each_and_no_bet_on_vacant_seat(profile: str) -> None:
    table = seated(profile, (1,))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 2, Box.ANTE, ANTE)  # seat 2 is vacant
    assert flagged(table, FlagKind.BET_ON_VACANT_SEAT) == [2]
    table.no_more_bets(now(table))
    assert table.players_in_play() == [1]
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: PAIR}, DEALER_ACE_KING)
    assert len(table.seats[1].hand.cards) == HAND_SIZE
    table.deal_card(now(table), 1, None)  # a second hand, or a sixth card, for seat 1
    assert flagged(table, FlagKind.EXTRA_CARD) == [1]


def check_bets_frozen_at_no_more_bets(profile: str) -> None:
    table = seated(profile, (1, 3, 5))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.place_bet(now(table), 3, Box.ANTE, ANTE)
    table.no_more_bets(now(table))
    table.place_bet(now(table), 1, Box.ANTE, 3 * ANTE)  # modified
    table.place_bet(now(table), 3, Box.ANTE, 0)  # withdrawn
    table.place_bet(now(table), 5, Box.ANTE, ANTE)  # placed
    assert flagged(table, FlagKind.BET_AFTER_NO_MORE_BETS) == [1, 3, 5]
    assert table.players_in_play() == [1, 3]
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: PAIR, 3: PAIR_TENS}, DEALER_ACE_QUEEN)
    table.end_deal(now(table))
    finish(table)
    # The bets are settled as they stood at « rien ne va plus ».
    assert payout(table, 1, Line.ANTE).net == ANTE
    assert payout(table, 3, Line.ANTE).net == ANTE
    assert lines_of(table, 5) == []


def check_deal_starts_at_dealers_left_clockwise(profile: str) -> None:
    table = ready_to_deal(profile, (2, 5))
    assert table.expected_position() == 2
    deal(table, {2: PAIR, 5: PAIR_TENS}, DEALER_ACE_KING)
    assert kinds(table) == []
    assert all(not up for seat in (2, 5) for up in table.seats[seat].hand.face_up)
    table = ready_to_deal(profile, (2, 5))
    table.deal_card(now(table), 5, None)
    assert flagged(table, FlagKind.CARD_OUT_OF_TURN) == [5]
    table = ready_to_deal(profile, (2, 5))
    table.deal_card(now(table), 2, None, face_up=True)
    assert flagged(table, FlagKind.CARD_EXPOSED) == [2]


def check_dealer_takes_his_card_after_first_round(profile: str) -> None:
    table = ready_to_deal(profile, (2, 5))
    deal(table, {2: "??", 5: "??"}, "")
    assert table.expected_position() == DEALER
    table.deal_card(now(table), DEALER, None)
    assert table.expected_position() == 2
    assert kinds(table) == []
    table = ready_to_deal(profile, (2, 5))
    deal(table, {2: "??"}, "")
    table.deal_card(now(table), DEALER, None)
    assert flagged(table, FlagKind.DEALER_OUT_OF_TURN) == [DEALER]


def check_dealer_takes_only_one_card_in_first_round(profile: str) -> None:
    table = ready_to_deal(profile, (2, 5))
    deal(table, {2: "??", 5: "??"}, "??")
    table.deal_card(now(table), DEALER, None)  # a second card to himself in the first round
    assert flagged(table, FlagKind.DEALER_OUT_OF_TURN) == [DEALER]


def check_dealer_card_at_start_of_first_round(profile: str) -> None:
    """The literal Italian: the dealer's own card comes at the start of the first round."""
    table = ready_to_deal(profile, (2, 5))
    table.deal_card(now(table), DEALER, None)
    deal(table, {2: "??", 5: "??"}, "")
    assert FlagKind.DEALER_OUT_OF_TURN not in kinds(table)


def check_four_more_rounds_in_same_order(profile: str) -> None:
    table = ready_to_deal(profile, (2, 5))
    deal(table, {2: PAIR, 5: PAIR_TENS}, DEALER_ACE_KING)
    assert [len(table.hand_of(position).cards) for position in (2, 5, DEALER)] == [HAND_SIZE] * 3
    assert table.expected_position() is None
    assert kinds(table) == []
    table.deal_card(now(table), DEALER, None)  # a sixth round: a card too many, not one out of turn
    assert flagged(table, FlagKind.EXTRA_CARD) == [DEALER]
    assert FlagKind.DEALER_OUT_OF_TURN not in kinds(table)
    table = ready_to_deal(profile, (2, 5))
    deal(table, {2: "??", 5: "??"}, "??")  # first round
    table.deal_card(now(table), 5, None)  # second round begun at seat 5
    assert flagged(table, FlagKind.CARD_OUT_OF_TURN) == [5]


def check_face_down_but_dealers_fifth(profile: str) -> None:
    table = ready_to_deal(profile, (1,))
    deal(table, {1: PAIR}, DEALER_ACE_KING)
    table.end_deal(now(table))
    assert table.hand_of(DEALER).face_up == [False, False, False, False, True]
    assert table.seats[1].hand.face_up == [False] * HAND_SIZE
    assert kinds(table) == []
    table = ready_to_deal(profile, (1,))
    for position, card, _face_up in deal_steps({1: PAIR}, DEALER_ACE_KING):
        table.deal_card(now(table), position, card, False)  # the dealer's fifth too
    table.end_deal(now(table))
    assert kinds(table) == [FlagKind.DEALER_FIFTH_NOT_SHOWN]
    table = ready_to_deal(profile, (1,))
    table.deal_card(now(table), 1, None)
    table.deal_card(now(table), DEALER, None, face_up=True)  # the dealer's first card
    assert flagged(table, FlagKind.CARD_EXPOSED) == [DEALER]


def check_exposed_card_is_no_misdeal(profile: str) -> None:
    table = ready_to_deal(profile, (1, 2))
    steps = deal_steps({1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    for index, (position, card, face_up) in enumerate(steps):
        table.deal_card(now(table), position, card, face_up or index == 0)
    table.end_deal(now(table))
    [flag] = table.flags
    assert (flag.kind, flag.severity, flag.seat) == (FlagKind.CARD_EXPOSED, Severity.WARNING, 1)
    assert table.coup.void is False
    settlement = finish(table)
    assert settlement.void is False
    assert payout(table, 1, Line.RAISE).outcome is Outcome.WIN


def check_exposed_card_turned_over_deal_goes_on(profile: str) -> None:
    table = ready_to_deal(profile, (1, 2))
    table.deal_card(now(table), 1, parse_card("9c"), face_up=True)
    assert table.seats[1].hand.face_up == [False]  # turned over
    assert table.expected_position() == 2  # the deal goes on
    deal(table, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING, start=1, stop=5)
    table.expose_card(now(table), 2, 1)  # seen face up during the deal
    assert table.seats[2].hand.face_up == [False, False]
    deal(table, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING, start=5)
    table.end_deal(now(table))
    assert flagged(table, FlagKind.CARD_EXPOSED) == [1, 2]
    assert table.phase is Phase.DECISIONS
    assert not refused(table.raise_, now(table), 1, RAISE)


def check_wrong_card_count_voids_coup(profile: str, position: int) -> None:
    """``position``: the hand that gets four cards (a seat), or six (the dealer)."""
    hands = {1: PAIR, 2: PAIR_TENS}
    dealer = DEALER_ACE_KING
    if position == DEALER:
        dealer += " Qs"
    else:
        hands[position] = hands[position].rsplit(" ", 1)[0]
    table = ready_to_deal(profile, (1, 2), side_bets=(1, 2))
    deal(table, hands, dealer)
    table.end_deal(now(table))
    assert table.coup.void is True
    assert flagged(table, FlagKind.WRONG_CARD_COUNT) == [None]
    assert refused(table.raise_, now(table), 1, RAISE)
    table.settle(now(table))
    assert table.settlement is not None and table.settlement.void is True
    assert {p.outcome for p in table.settlement.payouts} == {Outcome.RETURNED}
    assert {p.seat for p in table.settlement.payouts} == {1, 2}
    assert table.settlement.house_net == 0


def check_declared_void_returns_every_bet(profile: str) -> None:
    table = dealt(profile, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING, side_bets=(1,))
    table.raise_(now(table), 1, RAISE)
    table.declare_void(now(table), "les joueurs échangent des informations sur le contenu de leur main")
    assert flagged(table, FlagKind.COUP_DECLARED_VOID) == [None]
    assert refused(table.raise_, now(table), 2, RAISE)
    assert refused(table.show_dealer_hand, now(table))
    table.settle(now(table))
    settlement = table.settlement
    assert settlement is not None and settlement.void is True
    assert all(p.outcome is Outcome.RETURNED and p.net == 0 for p in settlement.payouts)
    assert payout(table, 1, Line.RAISE).stake == RAISE
    assert payout(table, 2, Line.ANTE).stake == ANTE


def check_hand_void_when_looked_at_before_end_of_deal(profile: str) -> None:
    hands = {1: PAIR, 2: PAIR_TENS}
    table = ready_to_deal(profile, (1, 2))
    deal(table, hands, DEALER_ACE_KING, stop=3)
    table.player_looks(now(table), 1)
    assert table.seats[1].hand_void is True
    deal(table, hands, DEALER_ACE_KING, start=3)
    table.end_deal(now(table))
    table.player_looks(now(table), 2)  # after the end of the deal: allowed
    assert table.seats[2].hand_void is False
    assert flagged(table, FlagKind.LOOKED_BEFORE_END_OF_DEAL) == [1]
    assert table.coup.void is False
    assert refused(table.raise_, now(table), 1, RAISE)
    finish(table)
    assert payout(table, 1, Line.ANTE).outcome is Outcome.RETURNED
    assert payout(table, 2, Line.RAISE).outcome is Outcome.WIN


RANKS_HIGH_TO_LOW = "AKQJT98765432"


def check_card_ranks_in_decreasing_order(profile: str) -> None:
    # Pairs: the pair of each rank beats the pair of the next rank down.
    pairs = []
    for rank in RANKS_HIGH_TO_LOW:
        kickers = [other for other in RANKS_HIGH_TO_LOW if other != rank][-3:]
        pairs.append(value(f"{rank}c {rank}d {kickers[0]}h {kickers[1]}s {kickers[2]}c"))
    assert pairs == sorted(pairs, reverse=True) and len(set(pairs)) == 13
    # High cards: the highest card decides, ace highest (r, r-2, r-3, r-4, r-5: no straight).
    highs = []
    for index, rank in enumerate(RANKS_HIGH_TO_LOW[:8]):
        lower = RANKS_HIGH_TO_LOW[index + 2:index + 6]
        highs.append(value(f"{rank}c {lower[0]}d {lower[1]}h {lower[2]}s {lower[3]}c"))
    assert highs == sorted(highs, reverse=True) and len(set(highs)) == 8
    # And through a coup: pair of kings beats the dealer's queens, pair of jacks does not.
    table = play(profile, {1: "Kc Kd 7h 4s 2c", 2: "Jc Jd 8h 6s 2d"}, "Qh Qs 9c 5d 3h")
    assert payout(table, 1, Line.RAISE).outcome is Outcome.WIN
    assert payout(table, 2, Line.RAISE).outcome is Outcome.LOSE


def check_ace_is_one_only_in_straights(profile: str) -> None:
    wheel = value("Ah 2c 3d 4s 5h")
    assert wheel.category is Category.STRAIGHT
    assert value("Kc Kd Ks 7h 2d") < wheel < value("2d 3c 4h 5s 6c")
    steel_wheel = value("Ah 2h 3h 4h 5h")
    assert steel_wheel.category is Category.STRAIGHT_FLUSH
    assert steel_wheel < value("2d 3d 4d 5d 6d")
    assert value("Qc Kd Ah 2s 3c").category is Category.HIGH_CARD  # no straight round the corner
    # Everywhere else the ace is the highest card.
    assert value("Ah 6c 4d 3s 2h") > value("Kc Qd Jh 9s 8c")
    assert value("Ac Ad 3h 4s 5c") > value("Kc Kd Qh Js 9c")
    assert value("Ah Kc 4d 3s 2h") == ACE_KING
    # Through a coup: the dealer's wheel is a straight, it qualifies and beats three kings.
    table = play(profile, {1: "Kc Kd Ks 7h 2c"}, "As 2d 3c 4h 5s")
    assert table.settlement is not None and table.settlement.dealer_qualifies
    assert payout(table, 1, Line.RAISE).outcome is Outcome.LOSE


def check_decisions_only_after_end_of_deal(profile: str) -> None:
    table = ready_to_deal(profile, (1, 2))
    deal(table, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    assert refused(table.fold, now(table), 1)
    assert refused(table.raise_, now(table), 2, RAISE)
    table.end_deal(now(table))
    table.fold(now(table), 1)
    table.raise_(now(table), 2, RAISE)
    assert table.seats[1].decision is Decision.FOLD
    assert table.seats[2].decision is Decision.RAISE


def check_fold_announced_passe(profile: str) -> None:
    table = play(profile, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING, folds=(1,))
    assert table.seats[1].decision is Decision.FOLD
    ante = payout(table, 1, Line.ANTE)
    assert (ante.outcome, ante.reason) == (Outcome.LOSE, "passe")
    assert table.settlement is not None
    assert 1 not in table.settlement.hand_values  # a folded hand is not compared
    assert 2 in table.settlement.hand_values


def check_dealer_collects_folded_ante(profile: str) -> None:
    table = dealt(profile, {1: TWO_PAIR}, DEALER_ACE_QUEEN)  # the dealer will not qualify
    table.fold(now(table), 1)
    table.place_bet(now(table), 1, Box.ANTE, 0)  # the dealer collects the ante
    assert kinds(table) == []
    finish(table)
    ante = payout(table, 1, Line.ANTE)
    assert (ante.outcome, ante.net) == (Outcome.LOSE, -ANTE)
    assert lines_of(table, 1) == [Line.ANTE]


def check_raise_is_twice_the_ante(profile: str) -> None:
    table = dealt(profile, {1: PAIR, 2: PAIR_TENS, 3: PAIR_JACKS}, DEALER_ACE_KING)
    table.raise_(now(table), 1, 2 * ANTE)
    table.raise_(now(table), 2, ANTE)
    table.raise_(now(table), 3, 3 * ANTE)
    assert flagged(table, FlagKind.RAISE_NOT_TWICE_ANTE) == [2, 3]
    finish(table)
    assert payout(table, 1, Line.RAISE).stake == 2 * ANTE


def check_dealer_shows_when_every_player_has_decided(profile: str) -> None:
    table = dealt(profile, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    assert table.hand_of(DEALER).face_up == [False, False, False, False, True]
    table.raise_(now(table), 1, RAISE)
    assert refused(table.show_dealer_hand, now(table))  # seat 2 has not decided
    table.fold(now(table), 2)
    table.show_dealer_hand(now(table))
    assert table.phase is Phase.SHOWDOWN
    assert table.hand_of(DEALER).face_up == [True] * HAND_SIZE
    table.settle(now(table))
    assert table.settlement is not None
    assert table.settlement.dealer_value == value(DEALER_ACE_KING)  # his best combination


def check_decision_cannot_be_changed(profile: str) -> None:
    table = dealt(profile, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    table.fold(now(table), 1)
    table.raise_(now(table), 2, RAISE)
    assert refused(table.raise_, now(table), 1, RAISE)
    assert refused(table.fold, now(table), 2)
    assert refused(table.raise_, now(table), 2, 2 * RAISE)
    assert table.seats[1].decision is Decision.FOLD
    assert table.seats[2].raise_amount == RAISE


def check_no_game_pays_antes_only(profile: str, announced: str = "Pas de jeu") -> None:
    table = play(profile, {1: TWO_PAIR, 2: HIGH_CARD}, DEALER_ACE_QUEEN)
    settlement = table.settlement
    assert settlement is not None
    assert settlement.dealer_qualifies is False
    assert settlement.void is False
    assert announced in settlement.labels(load_profile(profile).language)
    # Seed 002: no game, no side bet: the hands stay face down (unless the profile pays raises on the hand)
    assert settlement.hands_shown == (() if load_profile(profile).raise_paid_when_not_qualified_from is None
                                      else (1, 2))
    for seat in (1, 2):
        ante, raise_ = payout(table, seat, Line.ANTE), payout(table, seat, Line.RAISE)
        assert (ante.outcome, ante.net) == (Outcome.WIN, ANTE)
        assert (raise_.outcome, raise_.net) == (Outcome.RETURNED, 0)


def check_antes_paid_even_money(profile: str) -> None:
    table = play(profile, {1: FLUSH}, DEALER_ACE_QUEEN)  # no game
    assert payout(table, 1, Line.ANTE).net == ANTE
    table = play(profile, {1: ROYAL_FLUSH}, DEALER_ACE_KING)  # a winning royal flush
    assert payout(table, 1, Line.RAISE).net > RAISE
    assert payout(table, 1, Line.ANTE).net == ANTE


def check_ace_king_qualifies(profile: str) -> None:
    table = play(profile, {1: PAIR, 2: "Ac Qd Jh 8s 6c"}, DEALER_ACE_KING)
    settlement = table.settlement
    assert settlement is not None
    assert settlement.dealer_qualifies is True
    assert settlement.hands_shown == (1, 2)  # every hand that raised is turned over
    assert "Pas de jeu" not in settlement.labels(load_profile(profile).language)
    assert payout(table, 1, Line.RAISE).outcome is Outcome.WIN
    assert payout(table, 2, Line.ANTE).outcome is Outcome.LOSE  # ace-queen loses to ace-king
    table = play(profile, {1: PAIR}, DEALER_ACE_QUEEN)
    assert table.settlement is not None and table.settlement.dealer_qualifies is False


def check_each_hand_compared_with_the_dealers(profile: str) -> None:
    hands = {1: "Tc Td 4h 4s 2c", 3: "3d 3h Ac Jd 9s", 5: "Qc Qd 7h 5s 2d"}
    table = play(profile, hands, "8h 8s Kc 6d 3c")
    settlement = table.settlement
    assert settlement is not None
    assert set(settlement.hand_values) == {1, 3, 5}
    two_pair, pair_of_threes, queens = (payout(table, seat, Line.RAISE) for seat in (1, 3, 5))
    assert (two_pair.outcome, queens.outcome, pair_of_threes.outcome) == (Outcome.WIN, Outcome.WIN, Outcome.LOSE)
    # The winning combination is announced: the player's, or the dealer's.
    assert payout(table, 1, Line.ANTE).reason.startswith("Deux paires bat")
    assert payout(table, 3, Line.ANTE).reason.startswith("Paire bat")
    assert two_pair.net == RAISE * table.rules.profile.raise_pays(Category.TWO_PAIR)
    assert two_pair.net > queens.net > 0
    assert pair_of_threes.net == -RAISE


def check_equal_hands_are_void(profile: str) -> None:
    table = play(profile, {1: "As Kc 9d 6h 3c", 2: "Ac Ks 9h 6d 2c"}, "Ah Kd 9c 6s 3h")
    for line in (Line.ANTE, Line.RAISE):
        tie = payout(table, 1, line)
        assert (tie.outcome, tie.net) == (Outcome.PUSH, 0)
    assert payout(table, 2, Line.RAISE).outcome is Outcome.LOSE  # only the last card differs


def check_dealer_pays_counter_clockwise(profile: str) -> None:
    hands = {2: PAIR, 4: PAIR_TENS, 6: PAIR_JACKS}
    table = play(profile, hands, DEALER_ACE_KING)
    assert table.settlement is not None and table.settlement.paying_order == (6, 4, 2)
    assert table.payments_due() == [6, 4, 2]
    pay_all(table)
    assert kinds(table) == []
    table = play(profile, hands, DEALER_ACE_KING)
    table.payment_done(now(table), 2)
    assert flagged(table, FlagKind.PAID_OUT_OF_ORDER) == [2]


def check_beaten_hand_loses_ante_and_raise(profile: str) -> None:
    table = play(profile, {1: PAIR}, "Kc Ks 8d 4h 2c")
    assert payout(table, 1, Line.ANTE).net == -ANTE
    assert payout(table, 1, Line.RAISE).net == -RAISE
    assert table.settlement is not None and table.settlement.net_for(1) == -(ANTE + RAISE)


def check_bank_wins_announced(profile: str, announced: str = "La banque gagne") -> None:
    dealer = "Kc Ks 8s 8h 2c"  # two pair
    table = play(profile, {1: PAIR, 2: PAIR_TENS, 3: PAIR_JACKS}, dealer, folds=(3,))
    assert table.settlement is not None and announced in table.settlement.labels(load_profile(profile).language)
    table = play(profile, {1: PAIR, 2: "Tc Th Td 7s 5d"}, dealer)  # seat 2's three tens win
    assert table.settlement is not None and announced not in table.settlement.labels(load_profile(profile).language)


def check_new_coup_after_shuffle_and_cut(profile: str) -> None:
    table = play(profile, {1: PAIR, 2: PAIR_TENS}, DEALER_ACE_KING)
    assert refused(table.end_coup, now(table))  # not before the payments
    pay_all(table)
    table.place_bet(now(table), 2, Box.ANTE, 0)  # seat 2's chips picked up; seat 1 lets his ante stand
    table.end_coup(now(table))
    assert (table.phase, table.coup.number) == (Phase.BETTING, 2)
    assert all(not seat.hand.cards and seat.decision is None for seat in table.seats.values())
    assert {n: s.bets.get(Box.ANTE, 0) for n, s in table.seats.items() if n in (1, 2)} == {1: ANTE, 2: 0}
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.no_more_bets(now(table))
    table.deal_card(now(table), 1, None)  # without the shuffle and the cut
    assert [flag.kind for flag in table.coup_flags()] == [FlagKind.DEAL_WITHOUT_CUT]


def check_deck_serves_several_coups_and_can_be_replaced(profile: str) -> None:
    table = play(profile, {1: PAIR}, DEALER_ACE_KING)
    pay_all(table)
    table.end_coup(now(table))
    table.place_bet(now(table), 1, Box.ANTE, ANTE)
    table.no_more_bets(now(table))
    table.shuffle(now(table))
    table.offer_cut(now(table), 1, True)
    deal(table, {1: PAIR}, DEALER_ACE_KING)  # the same cards again, from the same deck
    table.end_deal(now(table))
    finish(table)
    pay_all(table)
    table.end_coup(now(table))
    assert kinds(table) == []
    assert refused(table.open_session, now(table), full_deck()[:-1])
    table.open_session(now(table), full_deck())  # a new deck, between two coups
    assert table.phase is Phase.BETTING


def check_raise_pays_per_combination(profile: str, hand: str, category: Category, multiple: int) -> None:
    table = play(profile, {1: hand}, DEALER_ACE_KING)
    assert table.settlement is not None and table.settlement.hand_values[1].category is category
    raise_ = payout(table, 1, Line.RAISE)
    assert (raise_.outcome, raise_.net) == (Outcome.WIN, RAISE * multiple)
    assert payout(table, 1, Line.ANTE).net == ANTE


# --- sentences judged not machine-checkable -----------------------------------------------------------------
#
# Titles, headings, dates and page furniture are no rules and are left out: 000 « Article 57-15 AUTONOME
# ABROGE ... » (twice); 002 « Règles du Stud Poker », « Ces règles sont tirées de l'arreté du 17 mai 2007 ... »,
# « Achat de carte : », « Bonus : », « Combinaisons autorisées au jeu du stud poker. »; 003 « CasinoWeb - Stud
# poker », « Sunday 02 September 2007 », « Inizio del gioco in Stud Poker », « ©Casinoweb », « [Indietro] »;
# 004 « Comment jouer » and its list, the section titles (« Enjeux », « Enjeux min. et max. », « Enjeu
# progressif », « Distribution de la main », « Détermination de la main gagnante », « Prise et paiement des
# mises », « Structure de paiement ... »), « Vous trouverez ci-après les règles ... » (twice) and the footer.
#
# Physical handling of the cards, which the table records only as its outcome (a cut made, a deal, a coup ended):
#   000 « Le joueur place sa coupe sur la carte de coupe de couleur bleue disposée devant lui sur le tapis, afin
#       de dissimuler la dernière carte du jeu. »  (002 and 003 say the same: « ... afin de cacher la dernière
#       carte du jeu. », « Il giocatore piazza un colpo sulla carta di colore blu ... »)
#   000 « Au fur et à mesure de la donne, elles sont disposées sur la précédente légèrement décalées afin de
#       contrôler la main. »  (002 the same)
#   000 « Les cartes sont distribuées à hauteur des zones de mise. »  (002 « ... au niveau des zones de mise. »)
#   000 « Dans tous les cas, les joueurs, après reconnaissance de leur main, disposent immédiatement leurs cartes,
#       figures cachées, bien en évidence sur le tapis à la vue du croupier. »  (002 the same; 003 « In tutti i
#       casi, i giocatori, dopo aver conosciuto le loro mani, dispongono immediatamente le loro carte ... »). The
#       sentence that follows it (« Dès lors, ils ne peuvent plus y toucher. ») is tested as « a decision stands ».
#   000 « Quel que soit le cas de figure, le croupier enlève les cartes, main par main et de droite à gauche et
#       les dispose dans le réceptacle. » and « Il brûle les siennes en dernier lieu. »  (002 the same, « ... à la
#       fin. »): the core records the collection as one EndCoup, not hand by hand.
#   002 « Le joueur ne touche à aucun moment la carte achetée. »
#
# Burnt cards: the core keeps no deck order and no burn pile, so a card burnt (never dealt) leaves nothing in the
# log to check. A « burn » operation would make these checkable:
#   000 « Dès lors, toute carte détachée et découverte par erreur est immédiatement brûlée. »  (002 « Si une
#       carte est détachée et découverte par erreur elle est immédiatement brûlée. »; 003 « Dalla loro, tutte le
#       carte staccate e scoperte per errore sono immediatamente bruciate. »)
#   000 « Les cartes restantes sont brûlées et placées dans le réceptacle. »  (002 the same)
#
# Things the table cannot see:
#   000 « Les dispositions des articles 40 et 41 relatives au dépôt, à la conservation, à l'usage et au mélange
#       des cartes sont applicables ... »: those articles are not among the seeds.
#   000 « Le personnel affecté à la table comprend : un chef de table et un croupier-tailleur. », « Tous deux sont
#       responsables de la clarté et de la régularité du jeu, des paiements et de toutes les opérations
#       effectuées à la table. » and « Ces employés ne peuvent être relevés en cours de donne, de déroulement du
#       jeu ou des paiements. »: the core records no staff.
#   000 « Aucune personne debout ne peut miser sur la main d'un joueur assis. »  (003 « Nessuna persona in piedi
#       non può puntare sulla mano di un giocatore seduto. »): the core sees chips in a box, not whose they are.
#   000 « Aucun enjeu sur annonce n'est toléré. »: a bet by word leaves no chip; only chips are bets to the core.
#   000 « Ils sont responsables du classement de leurs cartes et du choix de leur combinaison. »  (002 the same;
#       003 « Sono responsabili della classificazione delle loro carte e della scelta della loro combinazione. »):
#       a matter of responsibility; the core values every hand at its best.
#   000 « Au début de chaque séance, il doit être fait usage de cartes neuves. » and « Le jeu du stud poker ... à
#       teinte unie, de même type et de même format que les cartes de black-jack ... »: only their countable
#       part (a session opens with a counted deck of 52) is tested; new cards, colour and format are not seen.
#   The exchange of information between players (000, 002, 003 « les joueurs échangent des informations ... »;
#       004 « ... ni communiquer ou échanger d'informations à propos de leurs mains. »): only its consequence, the
#       coup declared void by the table chief (DeclareVoid), is tested.
#
# Seed 004, the online game's interface and what the seed leaves out:
#   « Comme pour les jeux de cartes de table similaires, le mécanisme du CARIBBEAN STUD^® POKER propose des
#       résolutions d'enjeu et jeu rapide. »: a description.
#   « Les règles relatives aux enjeux minimum et maximum sont publiées dans le hall du jeu. »: publication.
#   « Tous les enjeux doivent être effectués à l'aide des boutons d'enjeu et de la case à cocher Jackpot
#       progressif. »: the buttons of the online game; at the table, chips in a box.
#   « Chaque joueur reçoit un capital temps pour décider de placer l'ante et la mise de jackpot. » and « Avant la
#       distribution de chaque main, chaque joueur reçoit un capital temps pour placer la mise d'ante et de jackpot
#       progressif. »: no duration and no consequence are given; the betting closes with the dealer's « rien ne va
#       plus » (the decision time, which has a stated consequence, is tested).
#   « Le tableau ci-dessous répertorie les cotes payées pour la mise des mains gagnantes (répertoriées par ordre
#       décroissant) : » and « Les mains progressives et les montants de paiement correspondants sont répertoriés
#       ci-dessous. »: both tables are missing from the seed; the profile's figures are assumptions, and the tests
#       read them from the profile rather than assert them.
