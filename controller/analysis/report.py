"""``stud-table analyze``'s plain report: the figures of ``expectation.analyze`` as tables, in words and units."""

from __future__ import annotations

import math
from typing import Any

from rich.text import Text

from ..progress import clock, report_table
from ..rules.ranking import Category


def percent(value: float | None) -> str:
    """A share in percent with four significant digits: ``5.224 %``, ``0.0001539 %``; ``-`` for none."""
    if value is None:
        return "-"
    points = value * 100
    if points == 0:
        return "0 %"
    decimals = min(10, max(1, 3 - math.floor(math.log10(abs(points)))))
    return f"{points:.{decimals}f} %"


def one_in(value: float | None) -> str:
    """``1 in 649,740`` for a share below one in a hundred; else nothing."""
    if value is None or not 0 < value < 0.01:
        return ""
    return f"1 in {round(1 / value):,}"


def _antes(value: float) -> str:
    return f"{value:.4f} antes"


def _category_name(key: str) -> str:
    return key.replace("_", " ").capitalize()


def analysis_report(result: dict, jackpot_stake_cents: int | None = None) -> list[Any]:
    """The renderables (lines and tables) for ``result``; ``jackpot_stake_cents`` turns the jackpot meter, in
    stakes, into euros. Every field of the result is shown: one this report does not know is listed at the end."""
    left = dict(result)

    def take(key: str, default: Any = None) -> Any:
        return left.pop(key, default)

    profile, strategy, actions = take("profile"), take("strategy"), take("actions")
    mode, deals, seconds = take("mode"), take("deals"), take("seconds")
    lines: list[Any] = [Text(f"{profile}: the {strategy} strategy, deciding among {', '.join(actions or [])}",
                             style="bold")]
    if mode == "exact":
        classes, purchase_deals = take("classes"), take("purchase_deals")
        lines.append(Text(f"exact, over every one of {deals:,} deals ({classes:,} classes up to the suits)"
                          + (f" and {purchase_deals:,} card purchases" if purchase_deals else "")
                          + (f", in {clock(seconds)}" if seconds is not None else "")))
    else:
        lines.append(Text(f"sampled: {deals:,} random deals (seed {take('seed')})"
                          + (f", in {clock(seconds)}" if seconds is not None else "")
                          + "; each figure is off by its sampling error"))

    main = report_table("Main game, per hand", "figure", "value", "meaning")
    main.add_row("House edge", percent(take("house_edge")),
                 "of the ante: the player's expected loss, purchase price included")
    fraction = take("house_edge_fraction")
    if fraction is not None:
        main.add_row("House edge, exactly", fraction, "of the ante")
    if "standard_error" in left:
        main.add_row("Its standard error", percent(take("standard_error")), "of the ante (sampling)")
    main.add_row("Element of risk", percent(take("element_of_risk")), "of all the player wagers")
    main.add_row("Expected wager", _antes(take("expected_wager")), "ante, raise and purchase price")
    main.add_row("Raises", percent(take("raise_rate")), "of hands (purchases included)")
    main.add_row("Card purchases", percent(take("purchase_rate")), "of hands")
    main.add_row("Folds", percent(take("fold_rate")), "of hands")
    main.add_row("Dealer qualifies", percent(take("dealer_qualifies")), "of deals")
    tables: list[Any] = [main]

    outcomes = dict(take("outcomes") or {})
    if outcomes:
        table = report_table("Outcomes, of all deals", "outcome", "share", "")
        names = {"fold": "Player folds", "dealer_not_qualified": "Raised; the dealer does not qualify",
                 "win": "Raised; the player wins", "tie": "Raised; a tie", "lose": "Raised; the player loses"}
        for key, name in names.items():
            if key in outcomes:
                value = outcomes.pop(key)
                table.add_row(name, percent(value), one_in(value))
        for key, value in outcomes.items():
            table.add_row(_category_name(key), percent(value), one_in(value))
        tables.append(table)

    wins = dict(take("win_by_category") or {})
    if wins:
        table = report_table("Wins against a qualified dealer, by the player's final hand, of all deals",
                             "final hand", "share", "")
        for category in sorted(Category, reverse=True):
            if category.key in wins:
                value = wins.pop(category.key)
                table.add_row(_category_name(category.key), percent(value), one_in(value))
        for key, value in wins.items():
            table.add_row(_category_name(key), percent(value), one_in(value))
        tables.append(table)

    side_bets = dict(take("side_bets") or {})
    if side_bets:
        table = report_table("Side bets, per unit of their own stake", "figure", "value", "meaning")
        for name, figures in side_bets.items():
            figures = dict(figures)
            title = name.capitalize()
            meter = figures.pop("meter_units", None)
            assumption = figures.pop("meter_assumption", None)
            if meter is not None:
                euros = (f"{meter * jackpot_stake_cents / 100:,.2f} € at {jackpot_stake_cents / 100:,.2f} € a "
                         "stake; ") if jackpot_stake_cents else ""
                table.add_row(f"{title}: meter assumed", f"{meter:,.0f} stakes", euros + (assumption or ""))
            table.add_row(f"{title}: expected return", percent(figures.pop("expected_return", None)),
                          "of the stake (negative: the player loses)")
            table.add_row(f"{title}: house edge", percent(figures.pop("house_edge", None)), "of the stake")
            table.add_row(f"{title}: paid", percent(figures.pop("paid_probability", None)), "of deals")
            if "break_even_meter_units" in figures:
                break_even = figures.pop("break_even_meter_units")
                if break_even is None:
                    table.add_row(f"{title}: break-even meter", "none", "no award is a share of the meter")
                else:
                    table.add_row(f"{title}: break-even meter", f"{break_even:,.0f} stakes",
                                  "the meter at which the expected return is zero")
            for key, value in figures.items():
                table.add_row(f"{title}: {_category_name(key).lower()}", _plain(value), "")
        tables.append(table)

    if left:  # a field added to analyze() that this report does not know yet
        table = report_table("Other figures", "figure", "value")
        for key, value in _flatten(left):
            table.add_row(key, _plain(value))
        tables.append(table)
    return [*lines, *tables]


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    if isinstance(value, list | tuple):
        return ", ".join(map(_plain, value))
    return str(value)


def _flatten(figures: dict, prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in figures.items():
        name = f"{prefix}{_category_name(str(key)) if not prefix else str(key).replace('_', ' ')}"
        if isinstance(value, dict):
            rows += _flatten(value, f"{name}: ")
        else:
            rows.append((name, value))
    return rows
