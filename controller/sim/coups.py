"""Random but reproducible coups, played through the rules core.

The randomness lives here, outside the rules core: the deck's order and the
players' choices are drawn from a seeded ``random.Random`` and handed to the
table as operations.
"""

from __future__ import annotations

import random

from controller.rules.cards import full_deck
from controller.rules.operations import DEALER, Box, PaymentSeen
from controller.rules.profile import TableRules
from controller.rules.ranking import Category, evaluate
from controller.rules.table import HAND_SIZE, Phase, Table

#: Seconds between two operations at a live table, in milliseconds.
STEP_MS = 700


def new_table(rules: TableRules, rng: random.Random, t: int = 0, players: int | None = None) -> Table:
    """A table with its session open and some seats taken."""
    table = Table(rules)
    table.open_session(t, full_deck())
    count = players or rng.randint(1, min(rules.marked_seats, rules.profile.players_max))
    for seat in sorted(rng.sample(list(rules.seats), count)):
        table.sit_down(t, seat)
    return table


def play_coup(table: Table, rng: random.Random, t: int, jackpot_meter: int = 1_000_000) -> int:
    """Play one regular coup from the bets to the end; returns the clock after it."""
    assert table.phase is Phase.BETTING
    rules = table.rules

    def tick() -> int:
        nonlocal t
        t += STEP_MS
        return t

    seated = [n for n, seat in table.seats.items() if seat.occupied]
    step = max(rules.minimum_cents // 2, 100)
    for seat in seated:
        ante = rng.randrange(rules.minimum_cents, rules.maximum_cents // 4 + 1, step)
        table.place_bet(tick(), seat, Box.ANTE, ante)
        if rules.bonus and rng.random() < 0.4:
            table.place_bet(tick(), seat, Box.BONUS, rules.bonus_stake_cents)
        if rules.jackpot and rng.random() < 0.4:
            table.place_bet(tick(), seat, Box.JACKPOT, rules.profile.jackpot_stake_cents)
    table.no_more_bets(tick())
    table.shuffle(tick())
    players = table.players_in_play()
    table.offer_cut(tick(), players[0], True)

    deck = list(full_deck())
    rng.shuffle(deck)
    for _round in range(HAND_SIZE):
        for position in players + [DEALER]:
            face_up = position == DEALER and _round == HAND_SIZE - 1
            table.deal_card(tick(), position, deck.pop(), face_up)
    table.end_deal(tick())

    for seat in players:
        cards = [card for card in table.seats[seat].hand.cards if card is not None]
        value = evaluate(cards)
        ante = table.seats[seat].fixed[Box.ANTE]
        if value.category >= Category.PAIR or (value.ranks[0] == 14 and value.ranks[1] == 13):
            table.raise_(tick(), seat, ante * rules.profile.raise_multiple)
        elif rules.card_purchase and rng.random() < 0.3:
            table.raise_(tick(), seat, ante * rules.profile.raise_multiple)
            discard = min(range(HAND_SIZE), key=lambda i: cards[i].rank)
            table.buy_card(tick(), seat, discard, ante * rules.profile.purchase_price_in_antes)
            if table.seats[seat].bets.get(Box.BONUS):
                table.place_bet(tick(), seat, Box.BONUS, 0)
        else:
            table.fold(tick(), seat)
    for seat in players:
        if table.seats[seat].discard is not None:
            table.deal_bought_card(tick(), seat, deck.pop())
    table.show_dealer_hand(tick())
    table.settle(tick(), jackpot_meter)
    for seat in table.payments_due():
        table.payment_done(tick(), seat)
    # The dealer collects the losing chips and the players pick up the rest: the boxes are empty. (No camera
    # watched the payment, so « paiement terminé » checked nothing.)
    for seat in players:
        for box, amount in table.seats[seat].bets.items():
            if amount:
                table.apply(PaymentSeen(tick(), seat, box.value, 0))
    table.end_coup(tick())
    return t
