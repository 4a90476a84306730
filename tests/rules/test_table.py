"""The coup as a log of operations: checks that refuse with a reason, replay, unknown cards."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tables import HANDS, betting_table, dealt_table, rules_for, showdown

from controller.rules.cards import full_deck, parse_card, parse_cards
from controller.rules.errors import ActionRefused
from controller.rules.flags import FlagKind
from controller.rules.operations import (
    DEALER,
    OPERATION_TYPES,
    AcknowledgeAlerts,
    Box,
    BuyCard,
    ConfirmAnte,
    DealCard,
    EndCoup,
    ExposeCard,
    Fold,
    NoMoreBets,
    PlaceBet,
    PlayerLooks,
    Raise,
    refused_fr,
)
from controller.rules.summary import table_summary
from controller.rules.table import Phase, Table
from controller.sim.coups import new_table, play_coup

T = 10_000


def test_every_action_has_a_check_a_question_and_the_action():
    table = betting_table(rules_for(), {1: 1000})
    early_raise = Raise(30, 1, 2000)
    assert not table.can(early_raise)
    with pytest.raises(ActionRefused, match="the table is in phase 'betting', not decisions") as caught:
        table.verify(early_raise)
    assert caught.value.action == "raise"
    assert table.can(NoMoreBets(30))
    op = table.no_more_bets(30)
    assert table.log[-1] is op and table.phase is Phase.DEALING


@pytest.mark.parametrize("make, reason, reason_fr", [
    (lambda t: t.fold(T, 9), "seat 9 is not one of the table's seats 1..7",
     "la place 9 n'est pas une place de la table (1 à 7)"),
    (lambda t: t.deal_card(T, 1, None), "the table is in phase 'decisions', not dealing",
     "la table est en phase « décisions », pas « donne »"),
    (lambda t: t.fold(T, 2), "seat 2 has no hand in this coup", "la place 2 n'a pas de main dans ce coup"),
    (lambda t: t.buy_card(T, 3, 0, 1000), "seat 3 has not raised", "la place 3 n'a pas relancé"),
    (lambda t: t.show_dealer_hand(T), "seat 1 has not decided", "la place 1 n'a pas décidé"),
    (lambda t: t.end_coup(T), "not paying", "pas « paiements »"),
    (lambda t: t.identify_card(T, 1, 5, parse_card("2h")), "position 1 holds 5 cards, no card 6",
     "place 1 : 5 cartes, pas de carte 6"),
    (lambda t: t.identify_card(T, 1, 0, parse_card("2h")), "card 1 of position 1 is already known as As",
     "la carte 1 (place 1) est déjà connue : As"),
    (lambda t: t.open_session(T, full_deck()), "not closed or betting", "pas « table fermée » ou « mises »"),
    (lambda t: t.raise_(T, 1, -5), "a raise of -5 cents", "relance de −0,05 €"),
    (lambda t: t.confirm_ante(T, 1, 0), "an ante of 0 cents", "ante de 0,00 €"),
    (lambda t: t.confirm_ante(T, 2, 2000), "seat 2 has no hand in this coup", "la place 2 n'a pas de main"),
])
def test_refusals_say_why_in_english_and_in_french(make, reason, reason_fr):
    table = dealt_table(rules_for(card_purchase=True), HANDS)
    before = (list(table.log), list(table.flags))
    with pytest.raises(ActionRefused, match=reason.replace("(", r"\(").replace(")", r"\)")) as caught:
        make(table)
    assert reason_fr in caught.value.reason_fr
    assert (table.log, table.flags) == before, "a refused action changes nothing"


def test_the_refused_action_is_named_in_french_agreeing_with_it():
    assert refused_fr("end-coup") == "fin de coup refusée"
    assert refused_fr("shuffle") == "mélange refusé"
    assert all(refused_fr(kind).endswith(("refusé", "refusée")) and not refused_fr(kind).startswith(kind)
               for kind in OPERATION_TYPES)


def test_a_flag_says_in_french_what_happened_with_its_amounts_and_what_to_do():
    table = dealt_table(rules_for(), HANDS)
    table.raise_(T, 1, 3000)
    (flag,) = table.coup_flags()
    assert flag.kind is FlagKind.RAISE_NOT_TWICE_ANTE
    assert flag.detail_fr == ("relance de 30,00 € ; la règle est exactement 2 fois l'ante, 20,00 € ; "
                              "réglée au montant de la règle, l'excédent rendu")
    assert flag.kind.instruction_fr == "Régler la relance comme indiqué ; appeler le chef de table"
    assert all(kind.instruction_fr and kind.instruction_en for kind in FlagKind)


def test_an_ante_confirmed_while_its_seat_decides_is_the_ante_its_raise_and_settlement_go_by():
    table = dealt_table(rules_for(), HANDS, {1: 2500, 3: 1000})
    table.confirm_ante(T, 1, 5000)
    assert table.seats[1].fixed[Box.ANTE] == 5000 and table.raise_required(1) == 10000
    assert table.coup_flags() == []
    table.raise_(T, 1, 10000)
    assert table.coup_flags() == []  # twice the ante confirmed: no wrong raise
    with pytest.raises(ActionRefused, match="seat 1 has already chosen to raise"):
        table.confirm_ante(T, 1, 2500)  # the decision is judged on the ante as it stood
    table.fold(T, 3)
    table.show_dealer_hand(T)
    table.settle(T)
    ante_line = next(p for p in table.last_settlement.payouts if p.seat == 1 and p.line.value == "ante")
    assert ante_line.stake == 5000
    # an ante confirmed outside the table's limits is flagged as at « rien ne va plus »
    table = dealt_table(rules_for(), HANDS)
    table.confirm_ante(T, 3, 60000)
    assert [(flag.kind, flag.seat) for flag in table.coup_flags()] == [(FlagKind.BET_OUTSIDE_LIMITS, 3)]


def test_a_bought_card_the_camera_never_read_is_what_the_settlement_waits_for():
    table = dealt_table(rules_for(card_purchase=True), HANDS)
    table.raise_(T, 1, 2000)
    table.buy_card(T, 1, 4, 1000)
    table.fold(T, 3)
    table.deal_bought_card(T, 1, None)
    table.show_dealer_hand(T)
    with pytest.raises(ActionRefused, match="seat 1's bought card has not been seen") as caught:
        table.settle(T)
    assert caught.value.reason_fr == "carte achetée place 1 non vue"


def test_time_never_goes_backwards():
    table = betting_table(rules_for(), {1: 1000})
    with pytest.raises(ActionRefused, match="time 5 ms is before the last operation's 20 ms"):
        table.no_more_bets(5)


def test_an_incomplete_deck_is_refused_and_named():
    table = Table(rules_for())
    deck = list(full_deck())
    deck[deck.index(parse_card("Qh"))] = parse_card("Qs")
    with pytest.raises(ActionRefused, match="missing: Qh; twice: Qs"):
        table.open_session(0, deck)


def test_cards_unknown_at_the_deal_are_identified_later():
    rules = rules_for("fr-1959")
    table = betting_table(rules, {2: 1000})
    table.no_more_bets(30)
    table.shuffle(31)
    table.offer_cut(32, 2, True)
    for round_index in range(5):
        table.deal_card(40 + round_index, 2, None)
        table.deal_card(40 + round_index, DEALER, None, face_up=round_index == 4)
    table.end_deal(50)
    table.raise_(51, 2, 2000)
    table.show_dealer_hand(52)
    with pytest.raises(ActionRefused, match="the dealer's cards are not all identified"):
        table.settle(53)
    assert table.cards_awaited() == [(DEALER, index) for index in range(5)]  # dealt unseen, the face-up fifth too
    for index, card in enumerate(parse_cards("As Ks 2d 3c 4h")):
        table.identify_card(53, DEALER, index, card)
    with pytest.raises(ActionRefused, match="seat 2's cards are not all identified"):
        table.settle(54)  # the dealer qualifies: seat 2's hand must be seen
    assert table.cards_awaited() == [(2, index) for index in range(5)]
    for index, card in enumerate(parse_cards("Ah Kh Qh Jh Th")):
        table.identify_card(54, 2, index, card)
    table.settle(55)
    assert table.settlement is not None
    assert table.settlement.net_for(2) == 1000 + 2000 * 100  # royal flush: raise paid 100 to 1


def test_a_card_the_settlement_did_not_need_is_identified_after_it_and_a_second_sighting_flagged():
    """The dealer does not qualify: the players' hands are not needed to settle. The camera reads them after; each
    card is recorded, and one seen twice in the coup is a foreign card all the same."""
    table = betting_table(rules_for("fr-1959"), {2: 1000})
    table.no_more_bets(30)
    table.shuffle(31)
    table.offer_cut(32, 2, True)
    dealer = parse_cards("Qs Js 2d 3c 4h")
    for round_index in range(5):
        table.deal_card(40 + round_index, 2, None)
        table.deal_card(40 + round_index, DEALER, dealer[round_index], face_up=round_index == 4)
    table.end_deal(50)
    table.raise_(51, 2, 2000)
    table.show_dealer_hand(52)
    table.settle(53)
    assert table.phase is Phase.PAYING
    table.identify_card(54, 2, 0, parse_card("Ah"))
    table.identify_card(55, 2, 1, parse_card("2d"))
    assert [str(card) for card in table.seats[2].hand.cards[:2]] == ["Ah", "2d"]
    assert [(flag.kind, flag.seat) for flag in table.coup_flags()] == [(FlagKind.DUPLICATE_CARD, 2)]
    with pytest.raises(ActionRefused, match="already known as Ah"):
        table.identify_card(56, 2, 0, parse_card("Kh"))


def test_the_expected_position_follows_the_regulation_order():
    table = betting_table(rules_for("fr-1959"), {2: 1000, 5: 1000, 7: 1000})
    table.no_more_bets(30)
    order = []
    deck = list(full_deck())
    for _ in range(20):
        position = table.expected_position()
        assert position is not None
        order.append(position)
        table.deal_card(40, position, deck.pop(), face_up=position == DEALER and len(order) == 20)
    assert order == [2, 5, 7, DEALER] * 5
    assert table.expected_position() is None
    assert [f.kind for f in table.flags] == [FlagKind.DEAL_WITHOUT_CUT]


def test_the_shoes_count_is_checked_against_the_cards_seen():
    table = betting_table(rules_for("fr-1959"), {1: 1000})
    table.no_more_bets(30)
    table.shuffle(31)
    table.offer_cut(32, 1, True)
    deck = list(full_deck())
    for index in range(10):
        table.deal_card(40 + index, table.expected_position(), deck.pop(), face_up=index == 9)
        table.shoe_count(40 + index, index + 1 + (index == 9))  # the beam counted one card too many at the end
    table.end_deal(60)
    [flag] = [f for f in table.flags if f.kind is FlagKind.SHOE_COUNT_MISMATCH]
    assert flag.detail == "at the end of the deal the shoe counted 11 cards drawn, the table saw 10"
    agreeing = betting_table(rules_for("fr-1959"), {1: 1000})
    agreeing.no_more_bets(30)
    for index in range(10):
        agreeing.deal_card(40 + index, agreeing.expected_position(), deck[index], face_up=index == 9)
    agreeing.shoe_count(50, 10)
    agreeing.end_deal(60)
    assert not [f for f in agreeing.flags if f.kind is FlagKind.SHOE_COUNT_MISMATCH]


def test_a_void_coup_returns_every_bet_and_needs_no_payment():
    table = dealt_table(rules_for(bonus=True), HANDS, side_bets={(1, Box.BONUS): 200})
    table.declare_void(300, "joueurs 1 et 3 : échange d'informations")
    table.settle(301)
    settlement = table.settlement
    assert settlement is not None and settlement.void
    assert {(p.seat, p.line.value, p.outcome.value, p.net) for p in settlement.payouts} == {
        (3, "ante", "returned", 0), (1, "ante", "returned", 0), (1, "bonus", "returned", 0)}
    assert settlement.labels() == ("Coup nul",)
    table.end_coup(302)
    assert table.phase is Phase.BETTING and table.coup.number == 2


def test_payments_are_crossed_off_in_paying_order():
    hands = {1: "As Ad 7c 8h 9s", 4: "Kh Kd 2c 3s 5h", 6: "Qs Qd 2d 3h 5c", DEALER: "Ac Kc 4d 6d 8s"}
    table = showdown(dealt_table(rules_for("fr-1959"), hands), {1: True, 4: True, 6: True})
    assert table.payments_due() == [6, 4, 1]
    table.payment_done(400, 4)  # seat 4 before seat 6: done, but flagged
    assert table.flags[-1].kind is FlagKind.PAID_OUT_OF_ORDER
    with pytest.raises(ActionRefused, match="seats 6, 1 are still to be paid"):
        table.verify(EndCoup(401))
    table.payment_done(401, 6)
    table.payment_done(402, 1)
    table.end_coup(403)


def test_a_decision_timer_needs_its_time_to_have_run():
    hands = {1: "As Ad 7c 8h 9s", 2: "2c 3d 9h Jc Qs", DEALER: "Ac Kc 4d 5d 6s"}
    table = dealt_table(rules_for("caribbean"), hands)
    started = table.log[-1].t
    with pytest.raises(ActionRefused, match="of the 30 s have passed"):
        table.decision_timeout(started + 29_999, 1)
    table.decision_timeout(started + 30_000, 1)
    table.decision_timeout(started + 30_000, 2)
    assert table.seats[1].raise_amount == 2000 and table.seats[2].decision.value == "fold"
    fr = dealt_table(rules_for("fr-2007"), hands)
    with pytest.raises(ActionRefused, match="profile fr-2007 has no decision timer"):
        fr.decision_timeout(10**9, 1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), profile=st.sampled_from(["fr-2007", "caribbean", "fr-1959"]))
def test_the_same_log_gives_the_same_state_flags_and_payouts(seed, profile):
    rules = rules_for(profile, bonus=profile == "fr-2007", card_purchase=profile == "fr-2007",
                      jackpot=profile == "caribbean")
    rng = random.Random(seed)
    table = new_table(rules, rng)
    t = 0
    for _ in range(3):
        t = play_coup(table, rng, t)
    first, second = Table.replay(rules, table.log), Table.replay(rules, list(table.log))
    assert table_summary(first, True) == table_summary(second, True) == table_summary(table, True)
    assert first.settlements == table.settlements


def _random_operation(data, kind, t, seat, deck):
    if kind == "deal":
        return DealCard(t, seat, data.draw(st.sampled_from(deck)), data.draw(st.booleans()))
    if kind == "fold":
        return Fold(t, seat)
    if kind == "raise":
        return Raise(t, seat, data.draw(st.integers(-10, 5000)))
    if kind == "buy":
        return BuyCard(t, seat, data.draw(st.integers(-1, 6)), 1000)
    if kind == "bet":
        return PlaceBet(t, seat, Box.ANTE, data.draw(st.integers(-5, 5000)))
    if kind == "confirm-ante":
        return ConfirmAnte(t, seat, data.draw(st.integers(-5, 5000)))
    if kind == "look":
        return PlayerLooks(t, seat)
    if kind == "expose":
        return ExposeCard(t, seat, data.draw(st.integers(-1, 6)))
    return EndCoup(t)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_random_operations_are_refused_or_applied_never_crash(data):
    """Whatever arrives, the core either applies it or refuses it with ActionRefused."""
    table = dealt_table(rules_for(card_purchase=True, bonus=True), HANDS)
    deck = list(full_deck())
    for step in range(30):
        kind = data.draw(st.sampled_from(["deal", "fold", "raise", "buy", "bet", "confirm-ante", "end", "look",
                                          "expose"]))
        seat = data.draw(st.integers(-1, 9))
        t = table.log[-1].t + step
        op = _random_operation(data, kind, t, seat, deck)
        if table.can(op):
            table.apply(op)
        else:
            with pytest.raises(ActionRefused):
                table.apply(op)
    Table.replay(table.rules, table.log)  # the log that was kept replays as it is


def _alerts_shown(table: Table) -> list[tuple[str, int | None]]:
    return [(f["kind"], f["seat"]) for f in table_summary(table)["closing_flags"]]


def _next_coups_first_card(table: Table, t: int) -> None:
    table.place_bet(t, 1, Box.ANTE, 1000)
    table.no_more_bets(t + 1)
    table.deal_card(t + 2, 1, None, face_up=False)


def test_a_void_coups_alerts_stay_until_the_dealer_acknowledges_them():
    table = dealt_table(rules_for(), HANDS)
    table.declare_void(300, "joueurs 1 et 3 : échange d'informations")
    table.settle(301)
    table.end_coup(302)
    # between coups: a checkpoint carries them
    table = Table.resume(table.rules, table.checkpoint())
    _next_coups_first_card(table, 303)
    assert _alerts_shown(table) == [("coup_declared_void", None)], "past the next coup's first card"
    table.acknowledge_alerts(306)
    assert _alerts_shown(table) == []
    # pressed again, or replayed from a coup exported alone: nothing more to acknowledge, nothing refused
    table.acknowledge_alerts(307)
    assert Table(table.rules).can(AcknowledgeAlerts(1))


def test_a_coups_alerts_go_at_the_next_coups_first_card_or_once_acknowledged():
    hands = {1: "As Ad 7c 8h 9s", 4: "Kh Kd 2c 3s 5h", DEALER: "Ac Kc 4d 6d 8s"}
    for acknowledged in (False, True):
        table = showdown(dealt_table(rules_for("fr-1959"), hands), {1: True, 4: True})
        table.payment_done(400, 1)  # seat 1 before seat 4: flagged
        table.payment_done(401, 4)
        table.end_coup(402)
        assert _alerts_shown(table) == [("paid_out_of_order", 1)]
        if acknowledged:
            table.acknowledge_alerts(403)
            assert _alerts_shown(table) == []
        _next_coups_first_card(table, 404)
        assert _alerts_shown(table) == []
        assert [f.kind for f in table.flags][:1] == [FlagKind.PAID_OUT_OF_ORDER], "recorded all the same"


def test_a_void_coups_alerts_outlast_the_next_coups_end_and_a_replay():
    table = dealt_table(rules_for("fr-1959"), {1: "As Ad 7c 8h 9s", DEALER: "Ac Kc 4d 6d 8s"})
    table.declare_void(300, "échange d'informations")
    table.settle(301)
    table.end_coup(302)
    _next_coups_first_card(table, 303)
    for t, (position, card) in enumerate([(DEALER, "2c"), (1, "3c"), (DEALER, "4c"), (1, "5c"), (DEALER, "6c"),
                                          (1, "7c"), (DEALER, "8c"), (1, "9c"), (DEALER, "Tc")], start=310):
        table.deal_card(t, position, parse_card(card), face_up=t == 318)
    table.end_deal(320)
    table.fold(321, 1)
    table.show_dealer_hand(322)
    table.settle(323)
    table.end_coup(324)
    assert table.coup.number == 3
    replayed = Table.replay(table.rules, table.log)
    # the void coup's alert held, the last coup's own (dealt without a cut) beside it
    assert _alerts_shown(replayed) == _alerts_shown(table) == [("coup_declared_void", None),
                                                               ("deal_without_cut", None)]
