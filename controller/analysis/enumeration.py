"""The exact run: every deal of five-card stud, counted.

The deal: the player's five cards ``P``, the dealer's up-card ``u`` and the dealer's four hidden cards from
the 46 unseen ones: 2,598,960 x 47 x 163,185 = 19,933,230,517,200 deals. The 24 permutations of the suits
map deals to deals of equal value, so only one ``(P, u)`` per orbit is evaluated (5,649,150 of them),
weighted by the orbit's size; the dealer's hands are counted, not dealt (``kernels``).

Running times on two cores: about 30 seconds for a profile without purchase, about 7 minutes for fr-2007
with the purchase (13 on a busy machine); plus about 10 seconds of tables and, on first use, the numba
compilation (about a minute, cached after).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numba import njit, parallel_chunksize, prange

from ..rules.profile import Profile
from ..rules.rank_table import BINOMIAL
from .figures import summary
from .kernels import (
    BLOCK_BOUGHT,
    BLOCK_FIRST_FIVE,
    BLOCK_PLAYED_FIRST_FIVE,
    BLOCK_RAISED,
    BUY,
    CATEGORIES,
    COL_BUY,
    COL_DEALER_QUALIFIES,
    COL_FOLD,
    COL_RAISE,
    COL_VALUE,
    COLUMNS,
    COMPILING,
    DEALER_HIDDEN_HANDS,
    FOLD,
    HANDS,
    LOSE,
    NO_FLOOR,
    NOT_QUALIFIED,
    OPTIMAL,
    PURCHASE_DEALS,
    RAISE,
    RAISE_SCALE,
    TIE,
    UNIT,
    UP_CARDS,
    WIN,
    CountTables,
    KernelRules,
    choose,
    decision_floor,
    evaluate_purchases,
    hand_rank,
    new_scratch,
    outcome_counts,
    raise_counts,
    settlement_sum,
)

SUIT_PERMUTATIONS = np.array(
    [(a, b, c, d) for a in range(4) for b in range(4) for c in range(4) for d in range(4) if len({a, b, c, d}) == 4],
    dtype=np.int64,
)


@njit(cache=True, parallel=True)
def _exact_chunk(hands, ups, weights, strategy, allow_fold, allow_raise, allow_buy, rules, tb, n_blocks, prune=True):
    """Weighted statistics rows (one per block) for the (P, u) classes given.

    ``prune``: evaluate exactly only the purchases whose upper bound reaches the best other action.
    """
    n = ups.shape[0]
    out = np.zeros((n_blocks, COLUMNS), np.int64)
    evaluate_buy = strategy == OPTIMAL and allow_buy
    n_ranks = tb.category.shape[0]
    for block in prange(n_blocks):
        row = out[block]
        hand = np.empty(5, np.int64)
        w = new_scratch(n_ranks)
        for item in range(block * n // n_blocks, (block + 1) * n // n_blocks):
            for i in range(5):
                hand[i] = hands[item, i]
            up = np.int64(ups[item])
            weight = weights[item]
            rank = hand_rank(hand, tb)
            category = tb.category[rank]
            nq_count, below, equal = raise_counts(hand, up, rank, tb, w.base, w.merged)
            nq, win, tie, lose = outcome_counts(DEALER_HIDDEN_HANDS, nq_count, below, equal, rank, tb.qualify)
            raise_value = settlement_sum(rules, category, nq, win, lose) * RAISE_SCALE
            if evaluate_buy:
                floor = decision_floor(allow_fold, allow_raise, raise_value) if prune else NO_FLOOR
                evaluate_purchases(hand, up, rules, tb, floor, w)
            action = choose(strategy, allow_fold, allow_raise, evaluate_buy, category, raise_value, w.candidate,
                             w.buy_value, rules.price)
            row[COL_DEALER_QUALIFIES] += weight * (DEALER_HIDDEN_HANDS - nq_count) * RAISE_SCALE
            row[BLOCK_FIRST_FIVE + category] += weight * UNIT
            if action == FOLD:
                row[COL_VALUE] -= weight * UNIT
                row[COL_FOLD] += weight * UNIT
                continue
            row[BLOCK_PLAYED_FIRST_FIVE + category] += weight * UNIT
            if action == RAISE:
                row[COL_VALUE] += weight * raise_value
                row[COL_RAISE] += weight * UNIT
                scaled = weight * RAISE_SCALE
                row[BLOCK_RAISED + NOT_QUALIFIED * CATEGORIES + category] += scaled * nq
                row[BLOCK_RAISED + WIN * CATEGORIES + category] += scaled * win
                row[BLOCK_RAISED + TIE * CATEGORIES + category] += scaled * tie
                row[BLOCK_RAISED + LOSE * CATEGORIES + category] += scaled * lose
                continue
            discard = action - BUY
            row[COL_VALUE] += weight * (w.buy_value[discard] - rules.price * UNIT)
            row[COL_BUY] += weight * UNIT
            for outcome in range(4):
                for final in range(CATEGORIES):
                    row[BLOCK_BOUGHT + outcome * CATEGORIES + final] += weight * w.buy_counts[discard, outcome, final]
    return out


@njit(cache=True)
def _canonical_deals(binom, permutations):
    """One (P, u) per orbit under the suit permutations, with the orbit's size.

    Returns (hands: int8[n, 5] ascending, up-cards: int8[n], weights: int64[n]).
    """
    n_perms = permutations.shape[0]
    permuted = np.empty(5, np.int64)
    most = HANDS // 16  # 134,459 hands are canonical, about 1 in 19
    hands_out = np.empty((most, 5), np.int8)
    ups_out = np.empty(most * UP_CARDS, np.int8)
    hand_of_item = np.empty(most * UP_CARDS, np.int64)
    weights_out = np.empty(most * UP_CARDS, np.int64)
    stabilizer = np.empty(n_perms, np.int64)
    orbit_of_up = np.empty(52, np.int64)
    n_hands = 0
    n_items = 0
    for e in range(4, 52):
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        own = binom[a, 1] + binom[b, 2] + binom[c, 3] + binom[d, 4] + binom[e, 5]
                        canonical = True
                        n_stab = 0
                        for p in range(n_perms):
                            permuted[0] = (a & ~3) | permutations[p, a & 3]
                            permuted[1] = (b & ~3) | permutations[p, b & 3]
                            permuted[2] = (c & ~3) | permutations[p, c & 3]
                            permuted[3] = (d & ~3) | permutations[p, d & 3]
                            permuted[4] = (e & ~3) | permutations[p, e & 3]
                            permuted.sort()
                            index = 0
                            for i in range(5):
                                index += binom[permuted[i], i + 1]
                            if index < own:
                                canonical = False
                                break
                            if index == own:
                                stabilizer[n_stab] = p
                                n_stab += 1
                        if not canonical:
                            continue
                        hands_out[n_hands, 0] = a
                        hands_out[n_hands, 1] = b
                        hands_out[n_hands, 2] = c
                        hands_out[n_hands, 3] = d
                        hands_out[n_hands, 4] = e
                        # The up-cards, one per orbit of the hand's stabilizer.
                        orbit_of_up[:] = 0
                        for up in range(52):
                            if up in (a, b, c, d, e):
                                continue
                            smallest = up
                            for s in range(n_stab):
                                image = (up & ~3) | permutations[stabilizer[s], up & 3]
                                smallest = min(smallest, image)
                            orbit_of_up[smallest] += 1
                        for up in range(52):
                            if orbit_of_up[up]:
                                ups_out[n_items] = up
                                hand_of_item[n_items] = n_hands
                                weights_out[n_items] = (n_perms // n_stab) * orbit_of_up[up]
                                n_items += 1
                        n_hands += 1
    hands = np.empty((n_items, 5), np.int8)
    for item in range(n_items):
        hands[item] = hands_out[hand_of_item[item]]
    return hands, ups_out[:n_items].copy(), weights_out[:n_items].copy()


def exact_result(profile: Profile, strategy_code: int, flags: tuple[bool, bool, bool], buys: bool,
                  rules: KernelRules, tables: CountTables, jackpot_meter_units: float, say: Callable[[str], None],
                  report: Callable[[float], None]) -> dict:
    """Every deal, one (P, u) per suit class: the figures of ``figures.summary`` and the exact counts."""
    say("finding the deals that differ up to the suits")
    hands, ups, weights = _canonical_deals(BINOMIAL, SUIT_PERMUTATIONS)
    chunk = 8_000 if buys else 400_000
    sums = np.zeros(COLUMNS, dtype=object)  # Python integers: exact
    say(COMPILING.format("enumeration"))
    _exact_chunk(hands[:0], ups[:0], weights[:0], strategy_code, *flags, rules, tables, 64)
    say(f"enumerating {len(ups):,} classes of deals" + (", every card purchase" if buys else ""))
    with parallel_chunksize(1):  # blocks differ in cost: hand them out one by one
        for start in range(0, len(ups), chunk):
            stop = min(start + chunk, len(ups))
            rows = _exact_chunk(hands[start:stop], ups[start:stop], weights[start:stop], strategy_code, *flags,
                                rules, tables, 64)
            sums += rows.astype(object).sum(axis=0)
            report(stop / len(ups))
    total = HANDS * UP_CARDS * UNIT
    result = summary(profile, sums, total, jackpot_meter_units)
    house_edge = Fraction(-int(sums[COL_VALUE]), total)
    result.update(
        mode="exact",
        deals=HANDS * UP_CARDS * DEALER_HIDDEN_HANDS,
        purchase_deals=HANDS * UP_CARDS * PURCHASE_DEALS if buys else 0,
        classes=len(ups),
        house_edge_fraction=f"{house_edge.numerator}/{house_edge.denominator}",
    )
    return result
