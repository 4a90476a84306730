"""Settlement: every branch of the seeds' payment rules, in exact cents, in paying order."""

from __future__ import annotations

import pytest
from tables import rules_for

from controller.rules.cards import parse_cards
from controller.rules.ranking import Category, evaluate
from controller.rules.settlement import Line, Outcome, SeatInput, settle

QUALIFIED = "Ac Kd 4s 3h 2c"  # ace-king: the weakest qualifying hand
NOT_QUALIFIED = "Ac Qd Js 9h 8c"


def seat(number: int, cards: str, ante: int = 1000, raised: bool = True, bonus: int = 0, jackpot: int = 0,
         purchase: int = 0, first_five: str | None = None, void: bool = False) -> SeatInput:
    return SeatInput(seat=number, ante=ante, raise_amount=2 * ante if raised else 0, folded=not raised,
                     bonus=bonus, jackpot=jackpot, cards=parse_cards(cards),
                     first_five=parse_cards(first_five or cards), purchase_price=purchase, hand_void=void)


def lines(settlement, number):
    return {p.line: (p.outcome, p.net) for p in settlement.payouts if p.seat == number}


EXAMPLES = {
    Category.PAIR: "9c 9d 2h 5s Kc",
    Category.TWO_PAIR: "9c 9d 2h 2s Kc",
    Category.THREE_OF_A_KIND: "9c 9d 9h 2s Kc",
    Category.STRAIGHT: "5c 6d 7h 8s 9c",
    Category.FLUSH: "2h 7h 9h Jh Kh",
    Category.FULL_HOUSE: "9c 9d 9h 2s 2c",
    Category.FOUR_OF_A_KIND: "9c 9d 9h 9s 2c",
    Category.STRAIGHT_FLUSH: "5s 6s 7s 8s 9s",
    Category.ROYAL_FLUSH: "Ts Js Qs Ks As",
}


@pytest.mark.parametrize("profile", ["fr-2007", "fr-1959", "it", "caribbean", "caribbean-us"])
@pytest.mark.parametrize("category", list(EXAMPLES))
def test_a_winning_hand_gets_the_ante_even_and_the_raise_by_the_paytable(profile, category):
    rules = rules_for(profile)
    dealer = "Ad Kh 3d 4c 6h" if category is not Category.STRAIGHT else QUALIFIED
    assert evaluate(parse_cards(EXAMPLES[category])).category is category
    result = settle(rules, [seat(3, EXAMPLES[category], ante=2500)], parse_cards(dealer))
    multiple = rules.profile.raise_paytable[category]
    assert lines(result, 3) == {Line.ANTE: (Outcome.WIN, 2500), Line.RAISE: (Outcome.WIN, 5000 * multiple)}
    assert result.house_net == -(2500 + 5000 * multiple)


def test_dealer_not_qualified_pays_antes_even_and_returns_raises():
    rules = rules_for("fr-1959")
    result = settle(rules, [seat(2, EXAMPLES[Category.FLUSH]), seat(5, "2c 5d 8h Ts Qc")], parse_cards(NOT_QUALIFIED))
    assert not result.dealer_qualifies
    assert lines(result, 2) == {Line.ANTE: (Outcome.WIN, 1000), Line.RAISE: (Outcome.RETURNED, 0)}
    assert lines(result, 5) == {Line.ANTE: (Outcome.WIN, 1000), Line.RAISE: (Outcome.RETURNED, 0)}
    assert result.labels() == ("Pas de jeu",) and result.labels("en") == ("No game",)


def test_caribbean_pays_a_full_house_raise_even_when_the_dealer_does_not_qualify():
    result = settle(rules_for("caribbean"), [seat(1, EXAMPLES[Category.FULL_HOUSE]), seat(2, EXAMPLES[Category.FLUSH])],
                    parse_cards(NOT_QUALIFIED))
    assert lines(result, 1) == {Line.ANTE: (Outcome.WIN, 1000), Line.RAISE: (Outcome.WIN, 2000 * 7)}
    assert lines(result, 2) == {Line.ANTE: (Outcome.WIN, 1000), Line.RAISE: (Outcome.RETURNED, 0)}
    us = settle(rules_for("caribbean-us"), [seat(1, EXAMPLES[Category.FULL_HOUSE])], parse_cards(NOT_QUALIFIED))
    assert lines(us, 1) == {Line.ANTE: (Outcome.WIN, 1000), Line.RAISE: (Outcome.RETURNED, 0)}


def test_a_tie_is_a_push_and_a_beaten_hand_loses_both():
    dealer = "Kc Kd 7h 5s 2c"
    result = settle(rules_for("fr-1959"), [seat(1, "Kh Ks 7c 5d 2d"), seat(4, "Qh Qs 7d 5c 3d")], parse_cards(dealer))
    assert lines(result, 1) == {Line.ANTE: (Outcome.PUSH, 0), Line.RAISE: (Outcome.PUSH, 0)}
    assert lines(result, 4) == {Line.ANTE: (Outcome.LOSE, -1000), Line.RAISE: (Outcome.LOSE, -2000)}
    assert "La banque gagne" not in result.labels()


def test_the_bank_wins_when_it_beats_every_hand():
    hands = [seat(1, "Qh Qs 7c 5d 2d"), seat(6, "Jh Js 7d 5c 3d"), seat(7, "2c 3c 5h 8d Kc", raised=False)]
    result = settle(rules_for("fr-1959"), hands, parse_cards("Kc Kd 7h 5s 2h"))
    assert result.labels() == ("La banque gagne",)
    assert result.house_net == 3000 + 3000 + 1000


def test_payouts_come_counter_clockwise_from_the_dealers_right():
    hands = [seat(n, cards) for n, cards in [(1, "9c 9d 2h 5s Kc"), (7, "8c 8d 2d 5c Kh"), (4, "7c 7d 2s 5h Ks")]]
    result = settle(rules_for("fr-1959"), hands, parse_cards(QUALIFIED))
    assert result.paying_order == (7, 4, 1)
    assert [p.line for p in result.payouts if p.seat == 7] == [Line.ANTE, Line.RAISE]


def test_the_bonus_follows_seed_002():
    rules = rules_for("fr-2007", bonus=True)
    flush = EXAMPLES[Category.FLUSH]
    # Paid even when the dealer does not qualify, after the raise.
    result = settle(rules, [seat(1, flush, bonus=200)], parse_cards(NOT_QUALIFIED))
    assert lines(result, 1)[Line.BONUS] == (Outcome.WIN, 200 * 100)
    assert [p.line for p in result.payouts] == [Line.ANTE, Line.RAISE, Line.BONUS]
    assert "Bonus payé" in result.labels()
    # Lost when the dealer qualifies and beats the player.
    beaten = settle(rules, [seat(1, flush, bonus=200)], parse_cards("2c 2d 2h 2s 9d"))
    assert lines(beaten, 1)[Line.BONUS] == (Outcome.LOSE, -200)
    # Lost below a flush, lost on a fold, lost after a purchase.
    straight = settle(rules, [seat(1, EXAMPLES[Category.STRAIGHT], bonus=200)], parse_cards(QUALIFIED))
    assert lines(straight, 1)[Line.BONUS] == (Outcome.LOSE, -200)
    folded = settle(rules, [seat(1, flush, bonus=200, raised=False)], parse_cards(QUALIFIED))
    assert lines(folded, 1) == {Line.ANTE: (Outcome.LOSE, -1000), Line.BONUS: (Outcome.LOSE, -200)}
    bought = settle(rules, [seat(1, flush, bonus=200, purchase=1000)], parse_cards(QUALIFIED))
    assert lines(bought, 1) == {Line.PURCHASE: (Outcome.LOSE, -1000), Line.ANTE: (Outcome.WIN, 1000),
                                Line.RAISE: (Outcome.WIN, 2000 * 8), Line.BONUS: (Outcome.LOSE, -200)}


@pytest.mark.parametrize("category, multiple", [(Category.FULL_HOUSE, 150), (Category.FOUR_OF_A_KIND, 1000),
                                                (Category.STRAIGHT_FLUSH, 2000), (Category.ROYAL_FLUSH, 5000)])
def test_the_bonus_paytable(category, multiple):
    result = settle(rules_for("fr-2007", bonus=True), [seat(1, EXAMPLES[category], bonus=400)],
                    parse_cards(QUALIFIED))
    assert lines(result, 1)[Line.BONUS] == (Outcome.WIN, 400 * multiple)


def test_the_jackpot_is_paid_on_the_first_five_cards_whatever_the_dealer_holds():
    rules = rules_for("caribbean", jackpot=True)
    royal, quads = EXAMPLES[Category.ROYAL_FLUSH], EXAMPLES[Category.FOUR_OF_A_KIND]
    meter = 12_345_67
    result = settle(rules, [seat(1, royal, jackpot=50), seat(2, quads, jackpot=50), seat(3, "2c 3d 9h Jc Qs",
                    jackpot=50)], parse_cards("Ah Ad Ac 2h 2d"), jackpot_meter=meter)
    assert lines(result, 1)[Line.JACKPOT] == (Outcome.WIN, meter - 50)
    assert lines(result, 2)[Line.JACKPOT] == (Outcome.WIN, 25000 - 50)
    assert lines(result, 3)[Line.JACKPOT] == (Outcome.LOSE, -50)
    folded = settle(rules, [seat(1, royal, jackpot=50, raised=False)], None, jackpot_meter=meter)
    assert lines(folded, 1)[Line.JACKPOT] == (Outcome.LOSE, -50)


def test_a_void_hand_gets_its_stakes_back():
    result = settle(rules_for("fr-2007", bonus=True), [seat(2, EXAMPLES[Category.FLUSH], bonus=200, void=True)],
                    parse_cards(QUALIFIED))
    assert lines(result, 2) == {Line.ANTE: (Outcome.RETURNED, 0), Line.RAISE: (Outcome.RETURNED, 0),
                                Line.BONUS: (Outcome.RETURNED, 0)}


def test_every_amount_is_an_integer_number_of_cents():
    result = settle(rules_for("caribbean", jackpot=True), [seat(1, EXAMPLES[Category.STRAIGHT_FLUSH], ante=333,
                    jackpot=50)], parse_cards(QUALIFIED), jackpot_meter=1_000_001)
    assert all(type(p.net) is int and type(p.stake) is int for p in result.payouts)
    assert lines(result, 1)[Line.JACKPOT] == (Outcome.WIN, 100_000 - 50)  # 10 % of the meter, rounded down
