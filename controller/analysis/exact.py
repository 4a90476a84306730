"""The player's expectation at five-card stud, exact (full enumeration) or sampled.

The deal: the player's five cards ``P``, the dealer's up-card ``u`` (the player sees
it before deciding) and the dealer's four hidden cards from the 46 unseen ones:
2,598,960 x 47 x 163,185 = 19,933,230,517,200 deals. The player folds, raises, or
(where the profile allows it) raises and buys a card: he discards ``d``, pays the
price and receives ``c`` from the 46 unseen cards; the dealer's hidden cards are
then four of the 45 others.

How the exact run stays short:

* Suit symmetry. The 24 permutations of the suits map deals to deals of equal value,
  so only one ``(P, u)`` per orbit is evaluated (5,649,150 of them), weighted by the
  orbit's size.
* Counting instead of dealing. For one ``(P, u)`` the dealer holds ``u`` and four
  cards avoiding ``P``. By inclusion-exclusion over the subsets ``S`` of ``P``, the
  number of such dealer hands with rank below ``t`` is the alternating sum of the
  number of five-card hands containing ``{u} + S`` with rank below ``t``. Those
  are precomputed for every card set of one to four cards: cumulative counts for
  sets of one or two cards, sorted rank lists (1,176 or 48 ranks) for three or four.
* The purchase. With ``c`` bought the dealer's cards also avoid ``c``: the count is
  the one without ``c`` (a dense cumulative table built once per ``(P, u)``) minus
  the hands containing ``{u, c} + S``, for the 26 subsets ``S`` of ``P`` of at most
  three cards. That correction is costly (memory-bound), so a cheap upper bound of
  each purchase is computed first, and the exact value only where the bound reaches
  the best of folding and raising (about one (P, u) in five). The decisions and
  figures are the same as without the bound (a test checks it).

Running times on two cores: about 30 seconds for a profile without purchase, about
7 minutes for fr-2007 with the purchase (13 on a busy machine); plus about 10 seconds
of tables and, on first use, the numba compilation (about a minute, cached after).

Amounts are in antes (ante 1, raise ``raise_multiple``). Every per-``(P, u)``
figure is an integer in units of 1/(46 x 148,995) of that ``(P, u)``'s probability,
so that decisions compare exact integers and the totals are exact fractions.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit, parallel_chunksize, prange

from ..rules.profile import Profile
from ..rules.ranking import ACE_KING, BINOMIAL, Category, rank_table

STRATEGIES = ("optimal", "pair-plus", "always-raise")
ACTIONS = ("fold", "raise", "buy")

HANDS = 2_598_960
UP_CARDS = 47
DEALER_HIDDEN_HANDS = 163_185  # C(46, 4): the dealer's hidden cards beside the player's five and the up-card
HIDDEN_AFTER_PURCHASE = 148_995  # C(45, 4): once the bought card is out too
PURCHASE_DEALS = 46 * HIDDEN_AFTER_PURCHASE  # (card bought, dealer's hidden cards), per (P, u)
#: Per-(P, u) figures are integers in units of 1/PURCHASE_DEALS; a raise's dealer hands count 42 each.
UNIT = PURCHASE_DEALS
RAISE_SCALE = UNIT // DEALER_HIDDEN_HANDS
assert RAISE_SCALE * DEALER_HIDDEN_HANDS == UNIT

_OPTIMAL, _PAIR_PLUS, _ALWAYS_RAISE = 0, 1, 2
_NO_FLOOR = -(1 << 62)  # below any value: every purchase evaluated exactly
_FOLD, _RAISE, _BUY = 0, 1, 2  # action codes; a purchase is _BUY + the discarded card's index
_NOT_QUALIFIED, _WIN, _TIE, _LOSE = 0, 1, 2, 3
_CATEGORIES = len(Category)

# Columns of the statistics row: each a sum, over deals, of weight x units.
_COL_VALUE = 0  # the player's net result, purchase price included
_COL_FOLD = 1
_COL_RAISE = 2  # raised without a purchase
_COL_BUY = 3  # raised and bought a card
_COL_DEALER_QUALIFIES = 4
_BLOCK_RAISED = 5  # + outcome * 10 + final category: hands raised without a purchase
_BLOCK_BOUGHT = _BLOCK_RAISED + 4 * _CATEGORIES  # the same after a purchase
_BLOCK_FIRST_FIVE = _BLOCK_BOUGHT + 4 * _CATEGORIES  # + category of the first five cards, every deal
_BLOCK_PLAYED_FIRST_FIVE = _BLOCK_FIRST_FIVE + _CATEGORIES  # the same, hands not folded
_COL_VALUE_SQUARED = _BLOCK_PLAYED_FIRST_FIVE + _CATEGORIES  # sampling only
_COLUMNS = _COL_VALUE_SQUARED + 1

_SET3_HANDS = 1176  # C(49, 2) hands hold a given three-card set
_BLOCK = 32  # ranks per block of sorted3: 64 bytes
_SET3_BLOCKS = (_SET3_HANDS + _BLOCK - 1) // _BLOCK
_SET3_STRIDE = _SET3_BLOCKS * _BLOCK  # padded with _PAD, which no threshold reaches
_PAD = 32767

_POPCOUNT = np.array([bin(mask).count("1") for mask in range(32)], dtype=np.int64)
_SUIT_PERMUTATIONS = np.array(
    [(a, b, c, d) for a in range(4) for b in range(4) for c in range(4) for d in range(4) if len({a, b, c, d}) == 4],
    dtype=np.int64,
)


class _Tables(NamedTuple):
    """Counts of five-card hands holding given cards, by rank (see the module's docstring)."""

    rank5: npt.NDArray[np.int16]  # dense rank by colex index
    category: npt.NDArray[np.int64]  # category by dense rank
    binom: npt.NDArray[np.int64]
    qualify: int  # the dealer qualifies with a rank of at least this
    cum1: npt.NDArray[np.int32]  # [card, t]: hands holding the card with rank < t
    cum2: npt.NDArray[np.uint16]  # [pair index, t]
    not_qualified2: npt.NDArray[np.int32]  # cum2[:, qualify], small enough to stay in cache
    sorted3: npt.NDArray[np.int16]  # 1,176 sorted ranks per three-card set (padded to 1,184), by colex index
    fence3: npt.NDArray[np.int16]  # the first rank of each 32-rank block of sorted3: a search reads 3 cache lines
    not_qualified3: npt.NDArray[np.int32]
    sorted4: npt.NDArray[np.int16]  # 48 sorted ranks per four-card set (searched in place: no table to miss)


class _Rules(NamedTuple):
    """The main game's settlement of a raised hand, per final category, in antes."""

    win_pays: npt.NDArray[np.int64]  # dealer qualified and beaten: ante + raise x paytable
    not_qualified_pays: npt.NDArray[np.int64]  # dealer not qualified
    lose_pays: int  # ante + raise lost
    price: int  # of the card purchase


# --- counting kernels ----------------------------------------------------------


@njit(cache=True, inline="always")
def _below(values, start, length, threshold):
    """How many of the sorted ``values[start:start + length]`` are below ``threshold``."""
    low = start
    while length > 0:
        half = length >> 1
        if values[low + half] < threshold:
            low += half + 1
            length -= half + 1
        else:
            length = half
    return low - start


@njit(cache=True, inline="always")
def _pair_index(low, high):
    return low + ((high * (high - 1)) >> 1)


@njit(cache=True, inline="always")
def _count_containing(cards, size, threshold, tb):
    """(hands holding the ascending ``cards[:size]`` with rank < threshold, those with rank == threshold)."""
    if size == 1:
        below = np.int64(tb.cum1[cards[0], threshold])
        return below, np.int64(tb.cum1[cards[0], threshold + 1]) - below
    if size == 2:
        index = _pair_index(cards[0], cards[1])
        below = np.int64(tb.cum2[index, threshold])
        return below, np.int64(tb.cum2[index, threshold + 1]) - below
    if size == 5:
        index = tb.binom[cards[0], 1] + tb.binom[cards[1], 2] + tb.binom[cards[2], 3]
        index += tb.binom[cards[3], 4] + tb.binom[cards[4], 5]
        rank = tb.rank5[index]
        return (1 if rank < threshold else 0), (1 if rank == threshold else 0)
    index = tb.binom[cards[0], 1] + tb.binom[cards[1], 2] + tb.binom[cards[2], 3]
    if size == 3:
        values = tb.sorted3
        start = index * _SET3_STRIDE
        blocks = _below(tb.fence3, index * _SET3_BLOCKS, _SET3_BLOCKS, threshold)
        if blocks == 0:
            below = 0
        else:
            block_start = start + (blocks - 1) * _BLOCK
            below = (blocks - 1) * _BLOCK + _below(values, block_start, _BLOCK, threshold)
        end = start + _SET3_STRIDE
    else:
        index += tb.binom[cards[3], 4]
        values = tb.sorted4
        start = index * 48
        below = _below(values, start, 48, threshold)
        end = start + 48
    equal = 0
    position = start + below
    while position < end and values[position] == threshold:
        equal += 1
        position += 1
    return below, equal


@njit(cache=True, inline="always")
def _count_not_qualified(cards, size, tb):
    """Hands holding the ascending ``cards[:size]`` that do not qualify the dealer."""
    if size == 1:
        return tb.cum1[cards[0], tb.qualify]
    if size == 2:
        return tb.not_qualified2[_pair_index(cards[0], cards[1])]
    index = tb.binom[cards[0], 1] + tb.binom[cards[1], 2] + tb.binom[cards[2], 3]
    if size == 3:
        return tb.not_qualified3[index]
    index += tb.binom[cards[3], 4]
    if size == 4:
        return _below(tb.sorted4, index * 48, 48, tb.qualify)
    return 1 if tb.rank5[index + tb.binom[cards[4], 5]] < tb.qualify else 0


@njit(cache=True, inline="always")
def _merge_subset(base, base_size, hand, mask, merged):
    """Write the ascending union of ``base[:base_size]`` and the cards of ``hand`` picked by ``mask``."""
    size = 0
    j = 0
    for i in range(5):
        if (mask >> i) & 1:
            card = hand[i]
            while j < base_size and base[j] < card:
                merged[size] = base[j]
                size += 1
                j += 1
            merged[size] = card
            size += 1
    while j < base_size:
        merged[size] = base[j]
        size += 1
        j += 1
    return size


@njit(cache=True, inline="always")
def _hand_rank(hand, tb):
    index = tb.binom[hand[0], 1] + tb.binom[hand[1], 2] + tb.binom[hand[2], 3]
    return tb.rank5[index + tb.binom[hand[3], 4] + tb.binom[hand[4], 5]]


@njit(cache=True)
def _raise_counts(hand, up, rank, tb, base, merged):
    """Dealer hands (``up`` and four of the 46 unseen cards): (not qualified, rank < rank, rank == rank)."""
    base[0] = up
    not_qualified = 0
    below = 0
    equal = 0
    for mask in range(31):  # every subset of the player's cards but all five
        size = _merge_subset(base, 1, hand, mask, merged)
        sign = 1 - 2 * (_POPCOUNT[mask] & 1)
        not_qualified += sign * _count_not_qualified(merged, size, tb)
        if rank >= tb.qualify:
            b, e = _count_containing(merged, size, rank, tb)
            below += sign * b
            equal += sign * e
    return not_qualified, below, equal


@njit(cache=True, inline="always")
def _outcomes(total, not_qualified, below, equal, rank, qualify):
    """(not qualified, win, tie, lose) counts of the dealer's hands against the player's rank."""
    if rank < qualify:  # every qualifying dealer hand beats the player
        return not_qualified, 0, 0, total - not_qualified
    return not_qualified, below - not_qualified, equal, total - below - equal


@njit(cache=True, inline="always")
def _settlement_sum(rules, category, not_qualified, win, lose):
    return not_qualified * rules.not_qualified_pays[category] + win * rules.win_pays[category] - lose * rules.lose_pays


class _Scratch(NamedTuple):
    """Working arrays of one thread."""

    merged: npt.NDArray[np.int64]  # a card set, ascending
    base: npt.NDArray[np.int64]
    new_hand: npt.NDArray[np.int64]
    bought: npt.NDArray[np.int64]  # the 46 cards a purchase may bring
    new_ranks: npt.NDArray[np.int64]  # [bought, discard]: the new hand's rank
    g_below: npt.NDArray[np.int64]
    g_equal: npt.NDArray[np.int64]
    histogram: npt.NDArray[np.int32]  # [rank]
    all_below: npt.NDArray[np.int32]  # [t]: dealer hands avoiding the player's five with rank < t
    candidate: npt.NDArray[np.bool_]  # [discard]: its purchase may beat folding or raising
    buy_value: npt.NDArray[np.int64]  # [discard]: settlement sum; an upper bound where not a candidate
    buy_counts: npt.NDArray[np.int64]  # [discard, outcome, category]


@njit(cache=True)
def _new_scratch(n_ranks):
    return _Scratch(np.empty(5, np.int64), np.empty(2, np.int64), np.empty(5, np.int64), np.empty(46, np.int64),
                    np.empty((46, 5), np.int64), np.empty(5, np.int64), np.empty(5, np.int64),
                    np.empty(n_ranks + 1, np.int32), np.empty(n_ranks + 1, np.int32), np.empty(5, np.bool_),
                    np.empty(5, np.int64),
                    np.empty((5, 4, _CATEGORIES), np.int64))


@njit(cache=True)
def _evaluate_purchases(hand, up, rules, tb, floor, w):
    """Every purchase for (``hand``, ``up``): discard ``hand[d]``, receive each of the 46 unseen cards.

    ``w.buy_value[d]``: sum over the card received and the dealer's 148,995 hidden hands of the
    raised hand's settlement, price not included; ``w.buy_counts[d, outcome, category]``: the counts.
    Both are exact for the discards whose purchase may be worth ``floor`` (the best other action, in
    units of 1/UNIT) or more: ``w.candidate[d]``. The others only get an upper bound, below ``floor``.
    """
    qualify = tb.qualify
    merged, base, histogram, all_below = w.merged, w.base, w.histogram, w.all_below
    # all_below: the sets {u} + S with |S| >= 2 are scattered into a histogram, which is made
    # cumulative while the cum1/cum2 rows of {u} and {u, p} are added, in one pass.
    histogram[:] = 0
    base[0] = up
    for mask in range(31):
        subset_size = _POPCOUNT[mask]
        if subset_size < 2:
            continue
        size = _merge_subset(base, 1, hand, mask, merged)
        sign = 1 - 2 * (subset_size & 1)
        if size == 5:
            histogram[_hand_rank(merged, tb)] += sign
            continue
        index = tb.binom[merged[0], 1] + tb.binom[merged[1], 2] + tb.binom[merged[2], 3]
        if size == 3:
            for position in range(index * _SET3_STRIDE, index * _SET3_STRIDE + _SET3_HANDS):
                histogram[tb.sorted3[position]] += sign
        else:
            index += tb.binom[merged[3], 4]
            for position in range(index * 48, index * 48 + 48):
                histogram[tb.sorted4[position]] += sign
    row1 = tb.cum1[up]
    rows = [tb.cum2[_pair_index(min(up, hand[i]), max(up, hand[i]))] for i in range(5)]
    row2a, row2b, row2c, row2d, row2e = rows[0], rows[1], rows[2], rows[3], rows[4]
    running = np.int32(0)
    for t in range(all_below.shape[0]):
        pairs = np.int32(row2a[t]) + np.int32(row2b[t]) + np.int32(row2c[t]) + np.int32(row2d[t]) + np.int32(row2e[t])
        all_below[t] = row1[t] - pairs + running
        running += histogram[t]
    all_not_qualified = np.int64(all_below[qualify])

    # Pass 1: the new hands' ranks, and an upper bound of each purchase. The dealer hands holding
    # the bought card (impossible now) number at least g_low below the qualifying rank (Bonferroni:
    # inclusion-exclusion stopped after the single player cards), and at least as many below the new
    # hand's rank; fewer of them removed can only help the player.
    w.buy_value[:] = 0
    n_bought = 0
    next_card = 0
    for bought in range(52):
        if bought == up:
            continue
        while next_card < 5 and hand[next_card] < bought:
            next_card += 1
        if next_card < 5 and hand[next_card] == bought:
            continue
        w.bought[n_bought] = bought
        for discard in range(5):
            size = 0
            placed = False
            for i in range(5):
                if i == discard:
                    continue
                if not placed and bought < hand[i]:
                    w.new_hand[size] = bought
                    size += 1
                    placed = True
                w.new_hand[size] = hand[i]
                size += 1
            if not placed:
                w.new_hand[4] = bought
            w.new_ranks[n_bought, discard] = _hand_rank(w.new_hand, tb)
        base[0] = min(up, bought)
        base[1] = max(up, bought)
        g_low = tb.not_qualified2[_pair_index(base[0], base[1])]
        for mask in (1, 2, 4, 8, 16):
            _merge_subset(base, 2, hand, mask, merged)
            g_low -= _count_not_qualified(merged, 3, tb)
        for discard in range(5):
            rank = w.new_ranks[n_bought, discard]
            category = tb.category[rank]
            a = rules.not_qualified_pays[category]
            loss = rules.lose_pays
            if rank < qualify:  # nq * a - (total - nq) * loss, nq at most all_not_qualified - g_low
                bound = (all_not_qualified - g_low) * (a + loss) - HIDDEN_AFTER_PURCHASE * loss
            else:
                b = rules.win_pays[category]
                bound = (all_not_qualified * (a - b) - g_low * (a + loss) + all_below[rank] * b
                         + all_below[rank + 1] * loss - HIDDEN_AFTER_PURCHASE * loss)
            w.buy_value[discard] += bound
        n_bought += 1
    any_candidate = False
    for discard in range(5):
        w.candidate[discard] = w.buy_value[discard] - rules.price * UNIT >= floor
        any_candidate = any_candidate or w.candidate[discard]
    if not any_candidate:
        return

    # Pass 2, exact, for the candidates: remove the dealer hands holding {u, c} + S, S in the player's cards.
    for discard in range(5):
        if w.candidate[discard]:
            w.buy_value[discard] = 0
    w.buy_counts[:] = 0
    for j in range(n_bought):
        bought = w.bought[j]
        base[0] = min(up, bought)
        base[1] = max(up, bought)
        g_not_qualified = 0
        w.g_below[:] = 0
        w.g_equal[:] = 0
        for mask in range(32):
            subset_size = _POPCOUNT[mask]
            if subset_size > 3:
                continue
            size = _merge_subset(base, 2, hand, mask, merged)
            sign = 1 - 2 * (subset_size & 1)
            g_not_qualified += sign * _count_not_qualified(merged, size, tb)
            for discard in range(5):
                if w.candidate[discard] and w.new_ranks[j, discard] >= qualify:
                    b, e = _count_containing(merged, size, w.new_ranks[j, discard], tb)
                    w.g_below[discard] += sign * b
                    w.g_equal[discard] += sign * e
        not_qualified = all_not_qualified - g_not_qualified
        for discard in range(5):
            if not w.candidate[discard]:
                continue
            rank = w.new_ranks[j, discard]
            below = 0
            equal = 0
            if rank >= qualify:
                below = all_below[rank] - w.g_below[discard]
                equal = all_below[rank + 1] - all_below[rank] - w.g_equal[discard]
            nq, win, tie, lose = _outcomes(HIDDEN_AFTER_PURCHASE, not_qualified, below, equal, rank, qualify)
            category = tb.category[rank]
            w.buy_value[discard] += _settlement_sum(rules, category, nq, win, lose)
            w.buy_counts[discard, _NOT_QUALIFIED, category] += nq
            w.buy_counts[discard, _WIN, category] += win
            w.buy_counts[discard, _TIE, category] += tie
            w.buy_counts[discard, _LOSE, category] += lose


@njit(cache=True, inline="always")
def _floor(allow_fold, allow_raise, raise_value):
    """The best value of the other actions allowed, in units of 1/UNIT: what a purchase must reach."""
    floor = _NO_FLOOR
    if allow_fold:
        floor = -UNIT
    if allow_raise:
        floor = max(floor, raise_value)
    return floor


@njit(cache=True)
def _choose(strategy, allow_fold, allow_raise, allow_buy, category, raise_value, candidate, buy_value, price):
    """The action taken; values in units of 1/UNIT, ``raise_value`` and ``buy_value`` without the price."""
    if strategy == _PAIR_PLUS:
        return _RAISE if category >= 1 else _FOLD
    if strategy == _ALWAYS_RAISE:
        return _RAISE
    # Ties go to the first of fold, raise, buy: the smaller wager.
    best = -1
    best_value = 0
    if allow_fold:
        best, best_value = _FOLD, -UNIT
    if allow_raise and (best < 0 or raise_value > best_value):
        best, best_value = _RAISE, raise_value
    if allow_buy:
        for discard in range(5):
            value = buy_value[discard] - price * UNIT
            if candidate[discard] and (best < 0 or value > best_value):
                best, best_value = _BUY + discard, value
    return best


# --- the exact run -------------------------------------------------------------


@njit(cache=True, parallel=True)
def _exact_chunk(hands, ups, weights, strategy, allow_fold, allow_raise, allow_buy, rules, tb, n_blocks, prune=True):
    """Weighted statistics rows (one per block) for the (P, u) classes given.

    ``prune``: evaluate exactly only the purchases whose upper bound reaches the best other action.
    """
    n = ups.shape[0]
    out = np.zeros((n_blocks, _COLUMNS), np.int64)
    evaluate_buy = strategy == _OPTIMAL and allow_buy
    n_ranks = tb.category.shape[0]
    for block in prange(n_blocks):
        row = out[block]
        hand = np.empty(5, np.int64)
        w = _new_scratch(n_ranks)
        for item in range(block * n // n_blocks, (block + 1) * n // n_blocks):
            for i in range(5):
                hand[i] = hands[item, i]
            up = np.int64(ups[item])
            weight = weights[item]
            rank = _hand_rank(hand, tb)
            category = tb.category[rank]
            nq_count, below, equal = _raise_counts(hand, up, rank, tb, w.base, w.merged)
            nq, win, tie, lose = _outcomes(DEALER_HIDDEN_HANDS, nq_count, below, equal, rank, tb.qualify)
            raise_value = _settlement_sum(rules, category, nq, win, lose) * RAISE_SCALE
            if evaluate_buy:
                floor = _floor(allow_fold, allow_raise, raise_value) if prune else _NO_FLOOR
                _evaluate_purchases(hand, up, rules, tb, floor, w)
            action = _choose(strategy, allow_fold, allow_raise, evaluate_buy, category, raise_value, w.candidate,
                             w.buy_value, rules.price)
            row[_COL_DEALER_QUALIFIES] += weight * (DEALER_HIDDEN_HANDS - nq_count) * RAISE_SCALE
            row[_BLOCK_FIRST_FIVE + category] += weight * UNIT
            if action == _FOLD:
                row[_COL_VALUE] -= weight * UNIT
                row[_COL_FOLD] += weight * UNIT
                continue
            row[_BLOCK_PLAYED_FIRST_FIVE + category] += weight * UNIT
            if action == _RAISE:
                row[_COL_VALUE] += weight * raise_value
                row[_COL_RAISE] += weight * UNIT
                scaled = weight * RAISE_SCALE
                row[_BLOCK_RAISED + _NOT_QUALIFIED * _CATEGORIES + category] += scaled * nq
                row[_BLOCK_RAISED + _WIN * _CATEGORIES + category] += scaled * win
                row[_BLOCK_RAISED + _TIE * _CATEGORIES + category] += scaled * tie
                row[_BLOCK_RAISED + _LOSE * _CATEGORIES + category] += scaled * lose
                continue
            discard = action - _BUY
            row[_COL_VALUE] += weight * (w.buy_value[discard] - rules.price * UNIT)
            row[_COL_BUY] += weight * UNIT
            for outcome in range(4):
                for final in range(_CATEGORIES):
                    row[_BLOCK_BOUGHT + outcome * _CATEGORIES + final] += weight * w.buy_counts[discard, outcome, final]
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


@njit(cache=True)
def _build_tables(rank5, binom, n_ranks, qualify):
    """Per card set of one to four cards, the ranks of the five-card hands holding it."""
    hist1 = np.zeros((52, n_ranks + 1), np.int32)
    hist2 = np.zeros((1326, n_ranks + 1), np.int32)  # stored as uint16: at most C(50, 3) = 19,600
    sorted3 = np.full(22100 * _SET3_STRIDE, _PAD, np.int16)
    filled3 = np.zeros(22100, np.int64)
    sorted4 = np.empty(270725 * 48, np.int16)
    filled4 = np.zeros(270725, np.int64)
    cards = np.empty(5, np.int64)
    for e in range(4, 52):
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        rank = rank5[binom[a, 1] + binom[b, 2] + binom[c, 3] + binom[d, 4] + binom[e, 5]]
                        cards[0], cards[1], cards[2], cards[3], cards[4] = a, b, c, d, e
                        for i in range(5):
                            hist1[cards[i], rank] += 1
                            for j in range(i + 1, 5):
                                hist2[_pair_index(cards[i], cards[j]), rank] += 1
                                for k in range(j + 1, 5):
                                    index = binom[cards[i], 1] + binom[cards[j], 2] + binom[cards[k], 3]
                                    sorted3[index * _SET3_STRIDE + filled3[index]] = rank
                                    filled3[index] += 1
                        for left_out in range(5):
                            index = 0
                            slot = 1
                            for i in range(5):
                                if i != left_out:
                                    index += binom[cards[i], slot]
                                    slot += 1
                            sorted4[index * 48 + filled4[index]] = rank
                            filled4[index] += 1
    # hist -> cumulative: cum[t] = hands with rank < t, for t in 0..n_ranks.
    for table in (hist1, hist2):
        for row in range(table.shape[0]):
            running = 0
            for t in range(n_ranks + 1):
                count = table[row, t]
                table[row, t] = running
                running += count
    cum2 = hist2.astype(np.uint16)
    not_qualified2 = hist2[:, qualify].copy()
    not_qualified3 = np.empty(22100, np.int32)
    fence3 = np.empty(22100 * _SET3_BLOCKS, np.int16)
    for index in range(22100):
        segment = sorted3[index * _SET3_STRIDE:index * _SET3_STRIDE + _SET3_HANDS]
        segment.sort()
        not_qualified3[index] = _below(segment, 0, _SET3_HANDS, qualify)
        for block in range(_SET3_BLOCKS):
            fence3[index * _SET3_BLOCKS + block] = sorted3[index * _SET3_STRIDE + block * _BLOCK]
    for index in range(270725):
        sorted4[index * 48:(index + 1) * 48].sort()
    return hist1, cum2, not_qualified2, sorted3, fence3, not_qualified3, sorted4


_TABLES: _Tables | None = None


def _tables() -> _Tables:
    """Built once per process (a few seconds after the rank table)."""
    global _TABLES
    if _TABLES is None:
        ranking = rank_table()
        rank5 = ranking.rank_by_colex
        n_ranks = len(ranking.strength_by_rank)
        qualify = ranking.rank_of_value(ACE_KING)
        _TABLES = _Tables(rank5, np.ascontiguousarray(ranking.category_by_rank, dtype=np.int64), BINOMIAL,
                          qualify, *_build_tables(rank5, BINOMIAL, n_ranks, qualify))
    return _TABLES


# --- sampling -------------------------------------------------------------------


@njit(cache=True, inline="always")
def _next_random(state):
    """splitmix64: a small generator whose stream depends only on the seed, not on the threads."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _random_below(state, bound):
    return np.int64(((_next_random(state) >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32))


@njit(cache=True)
def _settle_raised(rules, player_rank, dealer_rank, tb):
    """(net in antes, outcome) of a raised hand against the dealer's five cards, price not included."""
    category = tb.category[player_rank]
    if dealer_rank < tb.qualify:
        return rules.not_qualified_pays[category], _NOT_QUALIFIED
    if player_rank > dealer_rank:
        return rules.win_pays[category], _WIN
    if player_rank == dealer_rank:
        return 0, _TIE
    return -rules.lose_pays, _LOSE


@njit(cache=True, parallel=True)
def _sample_chunk(block_sizes, block_seeds, strategy, allow_fold, allow_raise, allow_buy, rules, tb):
    """Deal ``block_sizes[b]`` random deals per block and settle them; rows of unweighted sums."""
    n_blocks = block_sizes.shape[0]
    out = np.zeros((n_blocks, _COLUMNS), np.int64)
    evaluate_buy = strategy == _OPTIMAL and allow_buy
    n_ranks = tb.category.shape[0]
    for block in prange(n_blocks):
        row = out[block]
        state = np.empty(1, np.uint64)
        state[0] = block_seeds[block]
        deck = np.arange(52)
        hand = np.empty(5, np.int64)
        dealer = np.empty(5, np.int64)
        final_hand = np.empty(5, np.int64)
        w = _new_scratch(n_ranks)
        for _ in range(block_sizes[block]):
            # Player 5, up-card, dealer's 4 hidden, then the card a purchase would bring.
            for i in range(11):
                j = i + _random_below(state, 52 - i)
                deck[i], deck[j] = deck[j], deck[i]
            hand[:] = np.sort(deck[:5])
            up = deck[5]
            rank = _hand_rank(hand, tb)
            category = tb.category[rank]
            nq_count, below, equal = _raise_counts(hand, up, rank, tb, w.base, w.merged)
            nq, win, tie, lose = _outcomes(DEALER_HIDDEN_HANDS, nq_count, below, equal, rank, tb.qualify)
            raise_value = _settlement_sum(rules, category, nq, win, lose) * RAISE_SCALE
            if evaluate_buy:
                _evaluate_purchases(hand, up, rules, tb, _floor(allow_fold, allow_raise, raise_value), w)
            action = _choose(strategy, allow_fold, allow_raise, evaluate_buy, category, raise_value, w.candidate,
                             w.buy_value, rules.price)
            dealer[:] = np.sort(deck[5:10])
            dealer_rank = _hand_rank(dealer, tb)
            row[_COL_DEALER_QUALIFIES] += 1 if dealer_rank >= tb.qualify else 0
            row[_BLOCK_FIRST_FIVE + category] += 1
            if action == _FOLD:
                net = -1
                row[_COL_FOLD] += 1
            else:
                row[_BLOCK_PLAYED_FIRST_FIVE + category] += 1
                block_start = _BLOCK_RAISED
                final_rank = rank
                net = 0
                if action == _RAISE:
                    row[_COL_RAISE] += 1
                else:
                    row[_COL_BUY] += 1
                    block_start = _BLOCK_BOUGHT
                    final_hand[:] = hand
                    final_hand[action - _BUY] = deck[10]
                    final_hand.sort()
                    final_rank = _hand_rank(final_hand, tb)
                    net = -rules.price
                gain, outcome = _settle_raised(rules, final_rank, dealer_rank, tb)
                net += gain
                row[block_start + outcome * _CATEGORIES + tb.category[final_rank]] += 1
            row[_COL_VALUE] += net
            row[_COL_VALUE_SQUARED] += net * net
    return out


# --- the entry point --------------------------------------------------------------


def deal_counts(profile: Profile, hand: tuple[int, ...], up: int, purchases: bool = True) -> dict:
    """Exact counts for one deal seen by the player: his five card ids and the dealer's up-card id.

    ``raise``: dealer hands (of 163,185) by outcome and the raise's total settlement; ``buy`` (one
    entry per discarded card id, when ``purchases``): the same over the 46 x 148,995 (card bought,
    dealer's hidden cards), price not included.
    """
    if len(set(hand)) != 5 or up in hand or not all(0 <= card < 52 for card in (*hand, up)):
        raise ValueError(f"expected five distinct card ids and another up-card, not {hand} and {up}")
    tables = _tables()
    rules = _rules_of(profile)
    cards = np.array(sorted(hand), dtype=np.int64)
    w = _new_scratch(len(tables.category))
    rank = int(_hand_rank(cards, tables))
    category = int(tables.category[rank])
    nq_count, below, equal = _raise_counts(cards, up, rank, tables, w.base, w.merged)
    counts = _outcomes(DEALER_HIDDEN_HANDS, nq_count, below, equal, rank, tables.qualify)
    result: dict = {"raise": {
        "counts": dict(zip(("not_qualified", "win", "tie", "lose"), map(int, counts), strict=True)),
        "settlement": int(_settlement_sum(rules, category, counts[0], counts[1], counts[3])),
    }}
    if purchases:
        _evaluate_purchases(cards, up, rules, tables, _NO_FLOOR, w)  # every purchase a candidate: all exact
        result["buy"] = {
            int(cards[discard]): {
                "counts": dict(zip(("not_qualified", "win", "tie", "lose"),
                                   map(int, w.buy_counts[discard].sum(axis=1)), strict=True)),
                "settlement": int(w.buy_value[discard]),
            }
            for discard in range(5)
        }
    return result


def _rules_of(profile: Profile) -> _Rules:
    raise_multiple = profile.raise_multiple
    win_pays = np.zeros(_CATEGORIES, np.int64)
    not_qualified_pays = np.zeros(_CATEGORIES, np.int64)
    paid_from = profile.raise_paid_when_not_qualified_from
    for category in Category:
        raise_pays = raise_multiple * profile.raise_pays(category)
        win_pays[category] = 1 + raise_pays
        not_qualified_pays[category] = profile.ante_pays_when_not_qualified
        if paid_from is not None and category >= paid_from:
            not_qualified_pays[category] += raise_pays
    return _Rules(win_pays, not_qualified_pays, 1 + raise_multiple, profile.purchase_price_in_antes)


def _allowed_actions(profile: Profile, strategy: str, actions: frozenset[str] | None) -> frozenset[str]:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if actions is not None and strategy != "optimal":
        raise ValueError(f"actions restrict the optimal strategy only, not {strategy!r}")
    if actions is None:
        return frozenset({"fold", "raise", "buy"} if profile.card_purchase else {"fold", "raise"})
    unknown = set(actions) - set(ACTIONS)
    if unknown:
        raise ValueError(f"unknown action(s) {', '.join(sorted(unknown))}: expected some of {', '.join(ACTIONS)}")
    if not actions:
        raise ValueError("no action allowed")
    if "buy" in actions and not profile.card_purchase:
        raise ValueError(f"profile {profile.name} has no card purchase")
    return frozenset(actions)


def analyze(
    profile: Profile,
    strategy: str,
    actions: frozenset[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
    jackpot_meter_units: float = 100_000,
    phase: Callable[[str], None] | None = None,
) -> dict:
    """The player's expectation on ``profile`` under ``strategy``: exact, or from ``sample`` random deals.

    ``strategy``: ``optimal`` (each decision the best expectation among the allowed actions; the
    player sees his five cards and the dealer's up-card), ``pair-plus`` (raise with a pair or
    better, else fold) or ``always-raise``; neither of the last two buys. ``actions`` (optimal only)
    restricts the decisions to a subset of fold, raise and buy. ``jackpot_meter_units``: the
    progressive meter assumed, in jackpot stakes. ``phase`` is called with what the run starts doing (the
    tables, numba's compilation, the deals), ``progress`` with the fraction of the deals done.

    Returns figures per unit of ante: ``house_edge`` (the player's expected loss on the main game,
    purchase price included), ``element_of_risk`` (that loss over ``expected_wager``: ante, raise
    and purchase price), ``raise_rate`` (purchases included), ``purchase_rate``, ``fold_rate``,
    ``dealer_qualifies``, ``outcomes`` (fold, dealer_not_qualified, win, tie, lose: probabilities
    summing to 1), ``win_by_category`` (of the final hand), ``side_bets`` (per unit of their stake,
    under the same strategy), ``deals``; exact runs add ``house_edge_fraction``, sampled runs
    ``standard_error`` (of house_edge).
    """
    allowed = _allowed_actions(profile, strategy, actions)
    if sample is not None and sample <= 0:
        raise ValueError(f"sample must be a positive number of deals, not {sample}")
    started = time.monotonic()
    report = progress or (lambda fraction: None)
    say = phase or (lambda text: None)
    if _TABLES is None:
        say(f"ranking the {HANDS:,} five-card hands")
        rank_table()
        say("counting the hands that hold each set of one to four cards")
    tables = _tables()
    rules = _rules_of(profile)
    strategy_code = STRATEGIES.index(strategy)
    flags = ("fold" in allowed, "raise" in allowed, "buy" in allowed)
    buys = strategy == "optimal" and flags[2]
    # numba compiles a kernel on its first call (about a minute; its cache then serves later runs, and a fresh
    # process cannot tell which it will be): it is called on no deals first, under its own phase, so that the
    # estimate of the time left counts only the deals.
    compiling = "compiling or loading the {} (numba: about a minute the first time, then from its cache)"

    if sample is None:
        say("finding the deals that differ up to the suits")
        hands, ups, weights = _canonical_deals(BINOMIAL, _SUIT_PERMUTATIONS)
        chunk = 8_000 if buys else 400_000
        sums = np.zeros(_COLUMNS, dtype=object)  # Python integers: exact
        say(compiling.format("enumeration"))
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
        result = _summary(profile, sums, total, jackpot_meter_units)
        house_edge = Fraction(-int(sums[_COL_VALUE]), total)
        result.update(
            mode="exact",
            deals=HANDS * UP_CARDS * DEALER_HIDDEN_HANDS,
            purchase_deals=HANDS * UP_CARDS * PURCHASE_DEALS if buys else 0,
            classes=len(ups),
            house_edge_fraction=f"{house_edge.numerator}/{house_edge.denominator}",
        )
    else:
        n_blocks = 64
        chunk = 2_000 if buys else 1_000_000
        sums = np.zeros(_COLUMNS, dtype=object)
        done = 0
        chunk_number = 0
        say(compiling.format("sampler"))
        _sample_chunk(np.zeros(n_blocks, np.int64), np.zeros(n_blocks, np.uint64), strategy_code, *flags, rules, tables)
        say(f"dealing {sample:,} random deals")
        with parallel_chunksize(1):
            while done < sample:
                size = min(chunk, sample - done)
                block_sizes = np.array([size * (b + 1) // n_blocks - size * b // n_blocks for b in range(n_blocks)])
                block_seeds = np.array(
                    [_seed_of(seed, chunk_number, b) for b in range(n_blocks)], dtype=np.uint64)
                rows = _sample_chunk(block_sizes, block_seeds, strategy_code, *flags, rules, tables)
                sums += rows.astype(object).sum(axis=0)
                done += size
                chunk_number += 1
                report(done / sample)
        result = _summary(profile, sums, sample, jackpot_meter_units)
        mean = Fraction(int(sums[_COL_VALUE]), sample)
        variance = Fraction(int(sums[_COL_VALUE_SQUARED]), sample) - mean * mean
        result.update(mode="sample", deals=sample, seed=seed,
                      standard_error=math.sqrt(variance * sample / (sample - 1) / sample) if sample > 1 else None)
    result.update(profile=profile.name, strategy=strategy, actions=sorted(allowed),
                  seconds=round(time.monotonic() - started, 1))
    return result


def _seed_of(seed: int, chunk: int, block: int) -> int:
    return (seed * 1_000_003 + chunk * 4099 + block * 0x9E3779B9 + 1) % 2**64


def _summary(profile: Profile, sums: npt.NDArray[np.object_], total: int, jackpot_meter_units: float) -> dict:
    """The report's figures from the summed statistics (``total``: the sum standing for probability 1)."""

    def share(value: int) -> float:
        return float(Fraction(int(value), total))

    def outcome_sum(outcome: int) -> int:
        return sum(sums[block + outcome * _CATEGORIES + k]
                   for block in (_BLOCK_RAISED, _BLOCK_BOUGHT) for k in range(_CATEGORIES))

    fold_rate = share(sums[_COL_FOLD])
    purchase_rate = share(sums[_COL_BUY])
    raise_rate = share(sums[_COL_RAISE] + sums[_COL_BUY])
    house_edge = -share(sums[_COL_VALUE])
    expected_wager = 1 + profile.raise_multiple * raise_rate + profile.purchase_price_in_antes * purchase_rate
    result: dict = {
        "house_edge": house_edge,
        "element_of_risk": house_edge / expected_wager,
        "expected_wager": expected_wager,
        "raise_rate": raise_rate,
        "purchase_rate": purchase_rate,
        "fold_rate": fold_rate,
        "dealer_qualifies": share(sums[_COL_DEALER_QUALIFIES]),
        "outcomes": {
            "fold": fold_rate,
            "dealer_not_qualified": share(outcome_sum(_NOT_QUALIFIED)),
            "win": share(outcome_sum(_WIN)),
            "tie": share(outcome_sum(_TIE)),
            "lose": share(outcome_sum(_LOSE)),
        },
        "win_by_category": {
            category.key: share(sum(sums[block + _WIN * _CATEGORIES + category]
                                    for block in (_BLOCK_RAISED, _BLOCK_BOUGHT)))
            for category in Category
        },
        "side_bets": {},
    }
    if profile.bonus:
        result["side_bets"]["bonus"] = _bonus_return(profile, sums, share)
    if profile.jackpot:
        result["side_bets"]["jackpot"] = _jackpot_return(profile, sums, share, jackpot_meter_units)
    return result


def _bonus_return(profile: Profile, sums: npt.NDArray[np.object_], share: Callable[[int], float]) -> dict:
    """Per unit of bonus stake: paid with a raised hand of a paying category unless a qualified
    dealer beats it; lost on a fold, and after a purchase where the profile says so."""
    paid = 0.0
    expected = 0.0
    blocks = [_BLOCK_RAISED] if profile.purchase_forfeits_bonus else [_BLOCK_RAISED, _BLOCK_BOUGHT]
    outcomes = [_WIN, _TIE] + ([_NOT_QUALIFIED] if profile.bonus_paid_when_not_qualified else [])
    for category, multiple in profile.bonus_paytable.items():
        probability = share(sum(sums[block + outcome * _CATEGORIES + category]
                                for block in blocks for outcome in outcomes))
        paid += probability
        expected += probability * multiple
    expected_return = expected - (1 - paid)  # the stake stays with a paid bonus
    return {"expected_return": expected_return, "house_edge": -expected_return, "paid_probability": paid}


def _jackpot_return(profile: Profile, sums: npt.NDArray[np.object_], share: Callable[[int], float],
                    meter_units: float) -> dict:
    """Per unit of jackpot stake, the meter at ``meter_units`` stakes: paid on the first five cards
    whatever the dealer holds; forfeited by a fold where the profile says so."""
    block = _BLOCK_PLAYED_FIRST_FIVE if profile.jackpot_forfeited_by_fold else _BLOCK_FIRST_FIVE
    fixed = 0.0  # expected fixed awards, in stakes
    meter_share = 0.0  # expected fraction of the meter won
    paid = 0.0
    for category, award in profile.jackpot_paytable.items():
        probability = share(sums[block + category])
        paid += probability
        if award.fixed_cents is not None:
            fixed += probability * award.fixed_cents / profile.jackpot_stake_cents
        else:
            assert award.meter_percent is not None
            meter_share += probability * award.meter_percent / 100
    expected_return = fixed + meter_share * meter_units - 1  # the stake is collected, paid or not
    return {
        "meter_units": meter_units,
        "meter_assumption": f"the meter stands at {meter_units:g} jackpot stakes; what feeds it is not counted",
        "expected_return": expected_return,
        "house_edge": -expected_return,
        "paid_probability": paid,
        "break_even_meter_units": (1 - fixed) / meter_share if meter_share else None,
    }
