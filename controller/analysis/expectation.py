"""The player's expectation at five-card stud, exact (full enumeration) or sampled: ``analyze``.

The deal: the player's five cards ``P``, the dealer's up-card ``u`` (the player sees it before deciding)
and the dealer's four hidden cards from the 46 unseen ones. The player folds, raises, or (where the profile
allows it) raises and buys a card: he discards ``d``, pays the price and receives ``c`` from the 46 unseen
cards; the dealer's hidden cards are then four of the 45 others.

``enumeration`` counts every deal, ``sampling`` deals random ones; both decide and count with the numba
kernels of ``kernels``, and ``figures`` turns their sums into the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..rules.profile import Profile
from .enumeration import exact_result
from .kernels import (
    DEALER_HIDDEN_HANDS,
    NO_FLOOR,
    count_tables,
    evaluate_purchases,
    hand_rank,
    kernel_rules,
    new_scratch,
    outcome_counts,
    raise_counts,
    settlement_sum,
)
from .sampling import sampled_result

STRATEGIES = ("optimal", "pair-plus", "always-raise")
ACTIONS = ("fold", "raise", "buy")


def deal_counts(profile: Profile, hand: tuple[int, ...], up: int, purchases: bool = True) -> dict:
    """Exact counts for one deal seen by the player: his five card ids and the dealer's up-card id.

    ``raise``: dealer hands (of 163,185) by outcome and the raise's total settlement; ``buy`` (one
    entry per discarded card id, when ``purchases``): the same over the 46 x 148,995 (card bought,
    dealer's hidden cards), price not included.
    """
    if len(set(hand)) != 5 or up in hand or not all(0 <= card < 52 for card in (*hand, up)):
        raise ValueError(f"expected five distinct card ids and another up-card, not {hand} and {up}")
    tables = count_tables()
    rules = kernel_rules(profile)
    cards = np.array(sorted(hand), dtype=np.int64)
    w = new_scratch(len(tables.category))
    rank = int(hand_rank(cards, tables))
    category = int(tables.category[rank])
    nq_count, below, equal = raise_counts(cards, up, rank, tables, w.base, w.merged)
    counts = outcome_counts(DEALER_HIDDEN_HANDS, nq_count, below, equal, rank, tables.qualify)
    result: dict = {"raise": {
        "counts": dict(zip(("not_qualified", "win", "tie", "lose"), map(int, counts), strict=True)),
        "settlement": int(settlement_sum(rules, category, counts[0], counts[1], counts[3])),
    }}
    if purchases:
        evaluate_purchases(cards, up, rules, tables, NO_FLOOR, w)  # every purchase a candidate: all exact
        result["buy"] = {
            int(cards[discard]): {
                "counts": dict(zip(("not_qualified", "win", "tie", "lose"),
                                   map(int, w.buy_counts[discard].sum(axis=1)), strict=True)),
                "settlement": int(w.buy_value[discard]),
            }
            for discard in range(5)
        }
    return result


def allowed_actions(profile: Profile, strategy: str, actions: frozenset[str] | None) -> frozenset[str]:
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
    allowed = allowed_actions(profile, strategy, actions)
    if sample is not None and sample <= 0:
        raise ValueError(f"sample must be a positive number of deals, not {sample}")
    started = time.monotonic()
    report = progress or (lambda fraction: None)
    say = phase or (lambda text: None)
    tables = count_tables(say)
    rules = kernel_rules(profile)
    strategy_code = STRATEGIES.index(strategy)
    flags = ("fold" in allowed, "raise" in allowed, "buy" in allowed)
    buys = strategy == "optimal" and flags[2]
    if sample is None:
        result = exact_result(profile, strategy_code, flags, buys, rules, tables, jackpot_meter_units, say, report)
    else:
        result = sampled_result(profile, strategy_code, flags, buys, rules, tables, sample, seed,
                                 jackpot_meter_units, say, report)
    result.update(profile=profile.name, strategy=strategy, actions=sorted(allowed),
                  seconds=round(time.monotonic() - started, 1))
    return result
