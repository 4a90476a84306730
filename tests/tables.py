"""Helpers for tests: a table brought to a given phase with given cards."""

from __future__ import annotations

from controller.profiles import load_profile
from controller.rules.cards import full_deck, parse_cards
from controller.rules.operations import DEALER, Box
from controller.rules.profile import TableRules
from controller.rules.table import Table

#: Seat 1 a pair of aces, seat 3 nothing, the dealer ace-king (he qualifies): the coup the table's tests deal.
HANDS = {1: "As Ad 7c 8h 9s", 3: "2c 3d 9h Jc Qs", DEALER: "Ac Kc 4d 5d 6s"}


def rules_for(profile: str = "fr-2007", minimum: int = 1000, maximum: int = 50000, seats: int | None = None,
              **options: bool) -> TableRules:
    p = load_profile(profile)
    return TableRules(p, minimum, maximum, seats or p.marked_seats_max, **options)


def betting_table(rules: TableRules, antes: dict[int, int], side_bets: dict[tuple[int, Box], int] | None = None
                  ) -> Table:
    table = Table(rules)
    table.open_session(0, full_deck())
    for seat in antes:
        table.sit_down(10, seat)
    for seat, amount in antes.items():
        table.place_bet(20, seat, Box.ANTE, amount)
    for (seat, box), amount in (side_bets or {}).items():
        table.place_bet(20, seat, box, amount)
    return table


def dealt_table(rules: TableRules, hands: dict[int, str], antes: dict[int, int] | None = None,
                side_bets: dict[tuple[int, Box], int] | None = None) -> Table:
    """Bets, « rien ne va plus », shuffle, cut, and the regulation deal of ``hands``
    (seat -> five cards; ``DEALER`` for the croupier), then the end of the deal."""
    players = sorted(seat for seat in hands if seat != DEALER)
    table = betting_table(rules, antes or {seat: 1000 for seat in players}, side_bets)
    table.no_more_bets(30)
    table.shuffle(40)
    table.offer_cut(50, players[0], True)
    cards = {seat: parse_cards(text) for seat, text in hands.items()}
    t = 100
    for round_index in range(5):
        for position in players + [DEALER]:
            t += 1
            table.deal_card(t, position, cards[position][round_index], position == DEALER and round_index == 4)
    table.end_deal(t + 1)
    return table


def showdown(table: Table, raises: dict[int, bool], jackpot_meter: int = 0) -> Table:
    """Each seat raises (True) or folds (False), the dealer shows, the coup is settled."""
    t = table.log[-1].t + 1
    for seat, raising in raises.items():
        if raising:
            table.raise_(t, seat, table.seats[seat].fixed[Box.ANTE] * table.rules.profile.raise_multiple)
        else:
            table.fold(t, seat)
    table.show_dealer_hand(t)
    table.settle(t, jackpot_meter)
    return table
