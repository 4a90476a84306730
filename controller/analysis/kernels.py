"""The numba kernels of the analysis: counting the dealer's hands for one deal seen by the player.

For one ``(P, u)`` (the player's five cards, the dealer's up-card) the dealer holds ``u`` and four cards
avoiding ``P``; the kernels count those hands by outcome instead of dealing them:

* By inclusion-exclusion over the subsets ``S`` of ``P``, the number of such dealer hands with rank below
  ``t`` is the alternating sum of the number of five-card hands containing ``{u} + S`` with rank below ``t``.
  Those are precomputed (``count_tables``) for every card set of one to four cards: cumulative counts for sets
  of one or two cards, sorted rank lists (1,176 or 48 ranks) for three or four.
* The purchase. With ``c`` bought the dealer's cards also avoid ``c``: the count is the one without ``c``
  (a dense cumulative table built once per ``(P, u)``) minus the hands containing ``{u, c} + S``, for the
  26 subsets ``S`` of ``P`` of at most three cards. That correction is costly (memory-bound), so a cheap
  upper bound of each purchase is computed first, and the exact value only where the bound reaches the
  best of folding and raising (about one (P, u) in five). The decisions and figures are the same as
  without the bound (a test checks it).

Amounts are in antes (ante 1, raise ``raise_multiple``). Every per-``(P, u)`` figure is an integer in
units of 1/(46 x 148,995) of that ``(P, u)``'s probability, so that decisions compare exact integers and
the totals are exact fractions. The statistics row (the ``COL_*`` and ``BLOCK_*`` columns) is what the
enumeration and the sampler sum and ``figures`` reads.

The names the other modules of ``controller.analysis`` use are public; those with a leading underscore are this
module's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import njit

from ..rules.profile import Profile
from ..rules.rank_table import BINOMIAL, rank_table
from ..rules.ranking import ACE_KING, Category

HANDS = 2_598_960
UP_CARDS = 47
DEALER_HIDDEN_HANDS = 163_185  # C(46, 4): the dealer's hidden cards beside the player's five and the up-card
HIDDEN_AFTER_PURCHASE = 148_995  # C(45, 4): once the bought card is out too
PURCHASE_DEALS = 46 * HIDDEN_AFTER_PURCHASE  # (card bought, dealer's hidden cards), per (P, u)
#: Per-(P, u) figures are integers in units of 1/PURCHASE_DEALS; a raise's dealer hands count 42 each.
UNIT = PURCHASE_DEALS
RAISE_SCALE = UNIT // DEALER_HIDDEN_HANDS
assert RAISE_SCALE * DEALER_HIDDEN_HANDS == UNIT

OPTIMAL, _PAIR_PLUS, _ALWAYS_RAISE = 0, 1, 2  # the strategies' indices in expectation.STRATEGIES
NO_FLOOR = -(1 << 62)  # below any value: every purchase evaluated exactly
FOLD, RAISE, BUY = 0, 1, 2  # action codes; a purchase is BUY + the discarded card's index
NOT_QUALIFIED, WIN, TIE, LOSE = 0, 1, 2, 3
CATEGORIES = len(Category)

# Columns of the statistics row: each a sum, over deals, of weight x units.
COL_VALUE = 0  # the player's net result, purchase price included
COL_FOLD = 1
COL_RAISE = 2  # raised without a purchase
COL_BUY = 3  # raised and bought a card
COL_DEALER_QUALIFIES = 4
BLOCK_RAISED = 5  # + outcome * 10 + final category: hands raised without a purchase
BLOCK_BOUGHT = BLOCK_RAISED + 4 * CATEGORIES  # the same after a purchase
BLOCK_FIRST_FIVE = BLOCK_BOUGHT + 4 * CATEGORIES  # + category of the first five cards, every deal
BLOCK_PLAYED_FIRST_FIVE = BLOCK_FIRST_FIVE + CATEGORIES  # the same, hands not folded
COL_VALUE_SQUARED = BLOCK_PLAYED_FIRST_FIVE + CATEGORIES  # sampling only
COLUMNS = COL_VALUE_SQUARED + 1

_SET3_HANDS = 1176  # C(49, 2) hands hold a given three-card set
_BLOCK = 32  # ranks per block of sorted3: 64 bytes
_SET3_BLOCKS = (_SET3_HANDS + _BLOCK - 1) // _BLOCK
_SET3_STRIDE = _SET3_BLOCKS * _BLOCK  # padded with _PAD, which no threshold reaches
_PAD = 32767

_POPCOUNT = np.array([bin(mask).count("1") for mask in range(32)], dtype=np.int64)

class CountTables(NamedTuple):
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


class KernelRules(NamedTuple):
    """The main game's settlement of a raised hand, per final category, in antes."""

    win_pays: npt.NDArray[np.int64]  # dealer qualified and beaten: ante + raise x paytable
    not_qualified_pays: npt.NDArray[np.int64]  # dealer not qualified
    lose_pays: int  # ante + raise lost
    price: int  # of the card purchase



def kernel_rules(profile: Profile) -> KernelRules:
    raise_multiple = profile.raise_multiple
    win_pays = np.zeros(CATEGORIES, np.int64)
    not_qualified_pays = np.zeros(CATEGORIES, np.int64)
    paid_from = profile.raise_paid_when_not_qualified_from
    for category in Category:
        raise_pays = raise_multiple * profile.raise_pays(category)
        win_pays[category] = 1 + raise_pays
        not_qualified_pays[category] = profile.ante_pays_when_not_qualified
        if paid_from is not None and category >= paid_from:
            not_qualified_pays[category] += raise_pays
    return KernelRules(win_pays, not_qualified_pays, 1 + raise_multiple, profile.purchase_price_in_antes)


# numba compiles a kernel on its first call (about a minute; its cache then serves later runs, and a fresh
# process cannot tell which it will be): the drivers call theirs on no deals first, under this phase, so that
# the estimate of the time left counts only the deals.
COMPILING = "compiling or loading the {} (numba: about a minute the first time, then from its cache)"


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
def hand_rank(hand, tb):
    index = tb.binom[hand[0], 1] + tb.binom[hand[1], 2] + tb.binom[hand[2], 3]
    return tb.rank5[index + tb.binom[hand[3], 4] + tb.binom[hand[4], 5]]


@njit(cache=True)
def raise_counts(hand, up, rank, tb, base, merged):
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
def outcome_counts(total, not_qualified, below, equal, rank, qualify):
    """(not qualified, win, tie, lose) counts of the dealer's hands against the player's rank."""
    if rank < qualify:  # every qualifying dealer hand beats the player
        return not_qualified, 0, 0, total - not_qualified
    return not_qualified, below - not_qualified, equal, total - below - equal


@njit(cache=True, inline="always")
def settlement_sum(rules, category, not_qualified, win, lose):
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
def new_scratch(n_ranks):
    return _Scratch(np.empty(5, np.int64), np.empty(2, np.int64), np.empty(5, np.int64), np.empty(46, np.int64),
                    np.empty((46, 5), np.int64), np.empty(5, np.int64), np.empty(5, np.int64),
                    np.empty(n_ranks + 1, np.int32), np.empty(n_ranks + 1, np.int32), np.empty(5, np.bool_),
                    np.empty(5, np.int64),
                    np.empty((5, 4, CATEGORIES), np.int64))


@njit(cache=True)
def evaluate_purchases(hand, up, rules, tb, floor, w):
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
            histogram[hand_rank(merged, tb)] += sign
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
            w.new_ranks[n_bought, discard] = hand_rank(w.new_hand, tb)
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
            nq, win, tie, lose = outcome_counts(HIDDEN_AFTER_PURCHASE, not_qualified, below, equal, rank, qualify)
            category = tb.category[rank]
            w.buy_value[discard] += settlement_sum(rules, category, nq, win, lose)
            w.buy_counts[discard, NOT_QUALIFIED, category] += nq
            w.buy_counts[discard, WIN, category] += win
            w.buy_counts[discard, TIE, category] += tie
            w.buy_counts[discard, LOSE, category] += lose


@njit(cache=True, inline="always")
def decision_floor(allow_fold, allow_raise, raise_value):
    """The best value of the other actions allowed, in units of 1/UNIT: what a purchase must reach."""
    floor = NO_FLOOR
    if allow_fold:
        floor = -UNIT
    if allow_raise:
        floor = max(floor, raise_value)
    return floor


@njit(cache=True)
def choose(strategy, allow_fold, allow_raise, allow_buy, category, raise_value, candidate, buy_value, price):
    """The action taken; values in units of 1/UNIT, ``raise_value`` and ``buy_value`` without the price."""
    if strategy == _PAIR_PLUS:
        return RAISE if category >= 1 else FOLD
    if strategy == _ALWAYS_RAISE:
        return RAISE
    # Ties go to the first of fold, raise, buy: the smaller wager.
    best = -1
    best_value = 0
    if allow_fold:
        best, best_value = FOLD, -UNIT
    if allow_raise and (best < 0 or raise_value > best_value):
        best, best_value = RAISE, raise_value
    if allow_buy:
        for discard in range(5):
            value = buy_value[discard] - price * UNIT
            if candidate[discard] and (best < 0 or value > best_value):
                best, best_value = BUY + discard, value
    return best


# --- the count tables -------------------------------------------------------------


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


_TABLES: CountTables | None = None


def count_tables(say: Callable[[str], None] | None = None) -> CountTables:
    """Built once per process (a few seconds after the rank table); ``say`` is told each step of a build."""
    global _TABLES
    if _TABLES is None:
        if say:
            say(f"ranking the {HANDS:,} five-card hands")
        ranking = rank_table()
        if say:
            say("counting the hands that hold each set of one to four cards")
        rank5 = ranking.rank_by_colex
        n_ranks = len(ranking.strength_by_rank)
        qualify = ranking.rank_of_value(ACE_KING)
        _TABLES = CountTables(rank5, np.ascontiguousarray(ranking.category_by_rank, dtype=np.int64), BINOMIAL,
                          qualify, *_build_tables(rank5, BINOMIAL, n_ranks, qualify))
    return _TABLES
