"""The report's figures from the summed statistics row of the exact run or of the sampler.

Shares of the deals (house edge, rates, outcomes, wins by category) and the side bets' returns, per unit of
their stake; ``report`` turns them into tables.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from ..rules.profile import Profile
from ..rules.ranking import Category
from .kernels import (
    BLOCK_BOUGHT,
    BLOCK_FIRST_FIVE,
    BLOCK_PLAYED_FIRST_FIVE,
    BLOCK_RAISED,
    CATEGORIES,
    COL_BUY,
    COL_DEALER_QUALIFIES,
    COL_FOLD,
    COL_RAISE,
    COL_VALUE,
    LOSE,
    NOT_QUALIFIED,
    TIE,
    WIN,
)


def summary(profile: Profile, sums: npt.NDArray[np.object_], total: int, jackpot_meter_units: float) -> dict:
    """The report's figures from the summed statistics (``total``: the sum standing for probability 1)."""

    def share(value: int) -> float:
        return float(Fraction(int(value), total))

    def outcome_sum(outcome: int) -> int:
        return sum(sums[block + outcome * CATEGORIES + k]
                   for block in (BLOCK_RAISED, BLOCK_BOUGHT) for k in range(CATEGORIES))

    fold_rate = share(sums[COL_FOLD])
    purchase_rate = share(sums[COL_BUY])
    raise_rate = share(sums[COL_RAISE] + sums[COL_BUY])
    house_edge = -share(sums[COL_VALUE])
    expected_wager = 1 + profile.raise_multiple * raise_rate + profile.purchase_price_in_antes * purchase_rate
    result: dict = {
        "house_edge": house_edge,
        "element_of_risk": house_edge / expected_wager,
        "expected_wager": expected_wager,
        "raise_rate": raise_rate,
        "purchase_rate": purchase_rate,
        "fold_rate": fold_rate,
        "dealer_qualifies": share(sums[COL_DEALER_QUALIFIES]),
        "outcomes": {
            "fold": fold_rate,
            "dealer_not_qualified": share(outcome_sum(NOT_QUALIFIED)),
            "win": share(outcome_sum(WIN)),
            "tie": share(outcome_sum(TIE)),
            "lose": share(outcome_sum(LOSE)),
        },
        "win_by_category": {
            category.key: share(sum(sums[block + WIN * CATEGORIES + category]
                                    for block in (BLOCK_RAISED, BLOCK_BOUGHT)))
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
    blocks = [BLOCK_RAISED] if profile.purchase_forfeits_bonus else [BLOCK_RAISED, BLOCK_BOUGHT]
    outcomes = [WIN, TIE] + ([NOT_QUALIFIED] if profile.bonus_paid_when_not_qualified else [])
    for category, multiple in profile.bonus_paytable.items():
        probability = share(sum(sums[block + outcome * CATEGORIES + category]
                                for block in blocks for outcome in outcomes))
        paid += probability
        expected += probability * multiple
    expected_return = expected - (1 - paid)  # the stake stays with a paid bonus
    return {"expected_return": expected_return, "house_edge": -expected_return, "paid_probability": paid}


def _jackpot_return(profile: Profile, sums: npt.NDArray[np.object_], share: Callable[[int], float],
                    meter_units: float) -> dict:
    """Per unit of jackpot stake, the meter at ``meter_units`` stakes: paid on the first five cards
    whatever the dealer holds; forfeited by a fold where the profile says so."""
    block = BLOCK_PLAYED_FIRST_FIVE if profile.jackpot_forfeited_by_fold else BLOCK_FIRST_FIVE
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
