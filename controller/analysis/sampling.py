"""The sampled run (Monte Carlo): random deals, each decided as in the exact run and settled on its own cards.

The generator's stream depends only on the seed, not on the threads: a run is reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from numba import njit, parallel_chunksize, prange

from ..rules.profile import Profile
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
    COL_VALUE_SQUARED,
    COLUMNS,
    COMPILING,
    DEALER_HIDDEN_HANDS,
    FOLD,
    LOSE,
    NOT_QUALIFIED,
    OPTIMAL,
    RAISE,
    RAISE_SCALE,
    TIE,
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


@njit(cache=True, inline="always")
def next_random(state):
    """splitmix64: a small generator whose stream depends only on the seed, not on the threads."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _random_below(state, bound):
    return np.int64(((next_random(state) >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32))


@njit(cache=True)
def _settle_raised(rules, player_rank, dealer_rank, tb):
    """(net in antes, outcome) of a raised hand against the dealer's five cards, price not included."""
    category = tb.category[player_rank]
    if dealer_rank < tb.qualify:
        return rules.not_qualified_pays[category], NOT_QUALIFIED
    if player_rank > dealer_rank:
        return rules.win_pays[category], WIN
    if player_rank == dealer_rank:
        return 0, TIE
    return -rules.lose_pays, LOSE


@njit(cache=True, parallel=True)
def _sample_chunk(block_sizes, block_seeds, strategy, allow_fold, allow_raise, allow_buy, rules, tb):
    """Deal ``block_sizes[b]`` random deals per block and settle them; rows of unweighted sums."""
    n_blocks = block_sizes.shape[0]
    out = np.zeros((n_blocks, COLUMNS), np.int64)
    evaluate_buy = strategy == OPTIMAL and allow_buy
    n_ranks = tb.category.shape[0]
    for block in prange(n_blocks):
        row = out[block]
        state = np.empty(1, np.uint64)
        state[0] = block_seeds[block]
        deck = np.arange(52)
        hand = np.empty(5, np.int64)
        dealer = np.empty(5, np.int64)
        final_hand = np.empty(5, np.int64)
        w = new_scratch(n_ranks)
        for _ in range(block_sizes[block]):
            # Player 5, up-card, dealer's 4 hidden, then the card a purchase would bring.
            for i in range(11):
                j = i + _random_below(state, 52 - i)
                deck[i], deck[j] = deck[j], deck[i]
            hand[:] = np.sort(deck[:5])
            up = deck[5]
            rank = hand_rank(hand, tb)
            category = tb.category[rank]
            nq_count, below, equal = raise_counts(hand, up, rank, tb, w.base, w.merged)
            nq, win, tie, lose = outcome_counts(DEALER_HIDDEN_HANDS, nq_count, below, equal, rank, tb.qualify)
            raise_value = settlement_sum(rules, category, nq, win, lose) * RAISE_SCALE
            if evaluate_buy:
                evaluate_purchases(hand, up, rules, tb, decision_floor(allow_fold, allow_raise, raise_value), w)
            action = choose(strategy, allow_fold, allow_raise, evaluate_buy, category, raise_value, w.candidate,
                             w.buy_value, rules.price)
            dealer[:] = np.sort(deck[5:10])
            dealer_rank = hand_rank(dealer, tb)
            row[COL_DEALER_QUALIFIES] += 1 if dealer_rank >= tb.qualify else 0
            row[BLOCK_FIRST_FIVE + category] += 1
            if action == FOLD:
                net = -1
                row[COL_FOLD] += 1
            else:
                row[BLOCK_PLAYED_FIRST_FIVE + category] += 1
                block_start = BLOCK_RAISED
                final_rank = rank
                net = 0
                if action == RAISE:
                    row[COL_RAISE] += 1
                else:
                    row[COL_BUY] += 1
                    block_start = BLOCK_BOUGHT
                    final_hand[:] = hand
                    final_hand[action - BUY] = deck[10]
                    final_hand.sort()
                    final_rank = hand_rank(final_hand, tb)
                    net = -rules.price
                gain, outcome = _settle_raised(rules, final_rank, dealer_rank, tb)
                net += gain
                row[block_start + outcome * CATEGORIES + tb.category[final_rank]] += 1
            row[COL_VALUE] += net
            row[COL_VALUE_SQUARED] += net * net
    return out


def _seed_of(seed: int, chunk: int, block: int) -> int:
    return (seed * 1_000_003 + chunk * 4099 + block * 0x9E3779B9 + 1) % 2**64


def sampled_result(profile: Profile, strategy_code: int, flags: tuple[bool, bool, bool], buys: bool,
                    rules: KernelRules, tables: CountTables, sample: int, seed: int, jackpot_meter_units: float,
                    say: Callable[[str], None], report: Callable[[float], None]) -> dict:
    """``sample`` random deals from ``seed``: the figures of ``figures.summary`` and their standard error."""
    n_blocks = 64
    chunk = 2_000 if buys else 1_000_000
    sums = np.zeros(COLUMNS, dtype=object)
    done = 0
    chunk_number = 0
    say(COMPILING.format("sampler"))
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
    result = summary(profile, sums, sample, jackpot_meter_units)
    mean = Fraction(int(sums[COL_VALUE]), sample)
    variance = Fraction(int(sums[COL_VALUE_SQUARED]), sample) - mean * mean
    result.update(mode="sample", deals=sample, seed=seed,
                  standard_error=math.sqrt(variance * sample / (sample - 1) / sample) if sample > 1 else None)
    return result
