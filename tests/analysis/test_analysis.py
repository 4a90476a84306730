"""The analysis of the player's expectation (controller.analysis).

* The counting (inclusion-exclusion over the player's cards) against dealing every dealer hand,
  each kind of outcome settled by the rules core's ``settle``.
* The suit-symmetry classes against the number of deals.
* Sampling against the exact figures, within 4 standard errors.
* The published house edge of Caribbean Stud (Wizard of Odds: 5.224 % with optimal play).
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import numpy as np
import pytest

from controller.analysis import enumeration, kernels
from controller.analysis.expectation import analyze, deal_counts
from controller.rules.cards import Card, parse_cards
from controller.rules.profile import Profile, TableRules, parse_profile
from controller.rules.rank_table import BINOMIAL, rank_table
from controller.rules.ranking import ACE_KING, Category
from controller.rules.settlement import SeatInput, settle

PROFILES = Path(__file__).resolve().parents[2] / "seeds" / "profiles"
OUTCOMES = ("not_qualified", "win", "tie", "lose")


def load(name: str) -> Profile:
    return parse_profile((PROFILES / f"{name}.toml").read_text(encoding="utf-8"), f"{name}.toml")


# --- dealing every hand ----------------------------------------------------------


def main_game_net(profile: Profile, player: list[int], dealer: list[int]) -> int:
    """The rules core's settlement of a raised hand, in antes (ante 100 cents), no purchase price."""
    rules = TableRules(profile, minimum_cents=100, maximum_cents=10_000, marked_seats=profile.marked_seats_max)
    cards = tuple(Card.from_id(card) for card in player)
    seat = SeatInput(seat=1, ante=100, raise_amount=100 * profile.raise_multiple, folded=False, bonus=0, jackpot=0,
                     cards=cards, first_five=cards)
    net = settle(rules, [seat], [Card.from_id(card) for card in dealer]).net_for(1)
    assert net % 100 == 0
    return net // 100


def dealt_counts(profile: Profile, player: list[int], up: int, dead: set[int]) -> tuple[dict[str, int], int]:
    """Every dealer hand (``up`` and four cards outside ``dead``) against ``player``: counts by outcome
    and the sum of the settlements, each outcome's amount taken from ``settle`` on one such deal."""
    table = rank_table()
    qualify = table.rank_of_value(ACE_KING)
    unseen = [card for card in range(52) if card not in dead and card != up]
    hidden = np.array(list(itertools.combinations(unseen, 4)), dtype=np.int64)
    dealers = np.concatenate([np.full((len(hidden), 1), up), hidden], axis=1)
    dealer_ranks = table.rank_of(dealers)
    player_rank = table.rank_of(np.array([player]))[0]
    qualified = dealer_ranks >= qualify
    masks = {
        "not_qualified": ~qualified,
        "win": qualified & (dealer_ranks < player_rank),
        "tie": qualified & (dealer_ranks == player_rank),
        "lose": qualified & (dealer_ranks > player_rank),
    }
    counts = {outcome: int(mask.sum()) for outcome, mask in masks.items()}
    total = 0
    for mask in masks.values():
        if mask.any():
            example = dealers[np.argmax(mask)]
            total += int(mask.sum()) * main_game_net(profile, player, list(example))
    return counts, total


def random_deals(count: int, seed: int) -> list[tuple[tuple[int, ...], int]]:
    rng = random.Random(seed)
    deals = []
    for _ in range(count):
        cards = rng.sample(range(52), 6)
        deals.append((tuple(cards[:5]), cards[5]))
    return deals


def ids(text: str) -> tuple[int, ...]:
    return tuple(card.id for card in parse_cards(text))


#: Hands where the counting has edges: below ace-king, exactly ace-king, a royal flush, the up-card
#: completing dealer straight flushes, ties with a qualifying dealer.
EDGE_DEALS = [
    (ids("7c 5d 4h 3s 2c"), ids("As")[0]),
    (ids("Ac Kd 4h 3s 2c"), ids("5h")[0]),
    (ids("Ah Kh Qh Jh Th"), ids("9h")[0]),
    (ids("Ac Kd Qh Js 9c"), ids("Ad")[0]),
    (ids("2c 2d 3h 3s 4c"), ids("2h")[0]),
]


@pytest.mark.parametrize("profile_name", ["caribbean", "fr-2007"])
@pytest.mark.parametrize(("hand", "up"), EDGE_DEALS + random_deals(6, seed=7))
def test_raise_counts_match_dealing_every_dealer_hand(profile_name: str, hand: tuple[int, ...], up: int) -> None:
    profile = load(profile_name)
    counts, total = dealt_counts(profile, list(hand), up, set(hand))
    got = deal_counts(profile, hand, up, purchases=False)["raise"]
    assert got["counts"] == counts
    assert sum(counts.values()) == kernels.DEALER_HIDDEN_HANDS
    assert got["settlement"] == total


def dealt_purchase(profile: Profile, hand: tuple[int, ...], up: int, discard: int) -> tuple[dict[str, int], int]:
    """Every card bought and every dealer hand from the 45 cards left."""
    counts = dict.fromkeys(OUTCOMES, 0)
    total = 0
    for bought in range(52):
        if bought in hand or bought == up:
            continue
        new_hand = [card for card in hand if card != discard] + [bought]
        some, settlement = dealt_counts(profile, new_hand, up, set(hand) | {bought})
        for outcome in OUTCOMES:
            counts[outcome] += some[outcome]
        total += settlement
    return counts, total


@pytest.mark.parametrize(
    ("hand", "up", "discard"),
    [
        (ids("Ah 9h 6h 2h Kc"), ids("Qs")[0], ids("Kc")[0]),  # four to a flush
        (ids("8c 8d Kh 4s 2c"), ids("8h")[0], ids("2c")[0]),  # a pair, the up-card one of its rank
    ],
)
def test_purchase_counts_match_dealing_every_card_and_dealer_hand(hand: tuple[int, ...], up: int,
                                                                  discard: int) -> None:
    profile = load("fr-2007")
    counts, total = dealt_purchase(profile, hand, up, discard)
    got = deal_counts(profile, hand, up)["buy"][discard]
    assert got["counts"] == counts
    assert sum(counts.values()) == kernels.PURCHASE_DEALS
    assert got["settlement"] == total


@pytest.mark.slow
@pytest.mark.parametrize(("hand", "up"), random_deals(3, seed=11))
def test_every_purchase_of_random_deals_matches_dealing(hand: tuple[int, ...], up: int) -> None:
    profile = load("fr-2007")
    got = deal_counts(profile, hand, up)["buy"]
    for discard in hand:
        counts, total = dealt_purchase(profile, hand, up, discard)
        assert got[discard] == {"counts": counts, "settlement": total}


def test_suit_classes_cover_every_deal_once() -> None:
    hands, ups, weights = enumeration._canonical_deals(BINOMIAL, enumeration.SUIT_PERMUTATIONS)
    assert int(weights.sum()) == kernels.HANDS * kernels.UP_CARDS
    assert len({bytes(hand) for hand in hands}) == 134_459  # five-card hands up to suit permutation
    assert all(up not in hand for hand, up in zip(hands[:1000].tolist(), ups[:1000].tolist(), strict=True))


# --- the entry point -----------------------------------------------------------------


def test_actions_are_checked() -> None:
    with pytest.raises(ValueError, match="strategy"):
        analyze(load("fr-1959"), "bluff")
    with pytest.raises(ValueError, match="card purchase"):
        analyze(load("fr-1959"), "optimal", actions=frozenset({"fold", "raise", "buy"}))
    with pytest.raises(ValueError, match="optimal strategy only"):
        analyze(load("fr-2007"), "always-raise", actions=frozenset({"raise"}))
    with pytest.raises(ValueError, match="unknown action"):
        analyze(load("fr-2007"), "optimal", actions=frozenset({"surrender"}))


def test_sampling_is_reproducible_and_consistent() -> None:
    profile = load("fr-2007")
    first = analyze(profile, "optimal", sample=3_000, seed=5)
    again = analyze(profile, "optimal", sample=3_000, seed=5)
    assert first == {**again, "seconds": first["seconds"]}
    assert first["deals"] == 3_000 and first["standard_error"] > 0
    assert sum(first["outcomes"].values()) == pytest.approx(1)
    assert 0 < first["purchase_rate"] < first["raise_rate"] < 1
    assert first["fold_rate"] == pytest.approx(1 - first["raise_rate"])


def assert_agree(exact_result: dict, sampled: dict) -> None:
    error = sampled["standard_error"]
    assert abs(sampled["house_edge"] - exact_result["house_edge"]) < 4 * error
    for key in ("raise_rate", "purchase_rate", "dealer_qualifies"):
        p = exact_result[key]
        assert abs(sampled[key] - p) <= 4 * (p * (1 - p) / sampled["deals"]) ** 0.5 + 1e-12, key


@pytest.mark.slow
@pytest.mark.parametrize(("profile_name", "strategy"), [("caribbean", "pair-plus"), ("fr-2007", "always-raise")])
def test_sampling_agrees_with_exact_fixed_strategies(profile_name: str, strategy: str) -> None:
    profile = load(profile_name)
    exact_result = analyze(profile, strategy)
    sampled = analyze(profile, strategy, sample=400_000, seed=1)
    assert_agree(exact_result, sampled)
    assert sum(exact_result["outcomes"].values()) == pytest.approx(1, abs=1e-12)
    for name, side_bet in exact_result["side_bets"].items():
        assert abs(sampled["side_bets"][name]["paid_probability"] - side_bet["paid_probability"]) < 4 * (
            side_bet["paid_probability"] / sampled["deals"]) ** 0.5, name


@pytest.mark.slow
def test_caribbean_stud_published_house_edge() -> None:
    """Wizard of Odds, Caribbean Stud Poker: 5.224 % with optimal play; element of risk 2.56 %.
    (The standard paytable: a winning ace-king or less is paid 1 to 1 on the raise.)"""
    profile = load("caribbean-us")
    assert profile.raise_pays(Category.HIGH_CARD) == 1
    result = analyze(profile, "optimal")
    assert result["deals"] == 19_933_230_517_200
    assert round(100 * result["house_edge"], 3) == 5.224
    assert round(100 * result["element_of_risk"], 2) == 2.56
    sampled = analyze(profile, "optimal", sample=300_000, seed=2)
    assert_agree(result, sampled)


@pytest.mark.slow
def test_purchase_exact_agrees_with_sampling() -> None:
    """The full purchase enumeration: several minutes on two cores."""
    profile = load("fr-2007")
    result = analyze(profile, "optimal")
    assert result["purchase_deals"] == 19_933_230_517_200 * 42
    without = analyze(profile, "optimal", actions=frozenset({"fold", "raise"}))
    assert result["house_edge"] <= without["house_edge"]  # an option can only help the player
    assert without["purchase_rate"] == 0
    sampled = analyze(profile, "optimal", sample=40_000, seed=3)
    assert_agree(result, sampled)


def test_purchase_bound_changes_nothing() -> None:
    """The exact run evaluates a purchase exactly only where its upper bound reaches folding or
    raising: the same figures as evaluating every purchase, on a sample of (P, u) classes."""
    profile = load("fr-2007")
    hands, ups, weights = enumeration._canonical_deals(BINOMIAL, enumeration.SUIT_PERMUTATIONS)
    chosen = np.sort(np.random.default_rng(4).choice(len(ups), 400, replace=False))
    arguments = (hands[chosen], ups[chosen], weights[chosen], 0, True, True, True, kernels.kernel_rules(profile),
                 kernels.count_tables(), 4)
    pruned = enumeration._exact_chunk(*arguments).sum(axis=0)
    full = enumeration._exact_chunk(*arguments, False).sum(axis=0)
    assert pruned[kernels.COL_BUY] > 0
    assert (pruned == full).all()


# --- the command's report and progress ------------------------------------------------------------------------


ANALYZE_SAMPLE = ["analyze", "--profile", "caribbean-us", "--strategy", "optimal", "--sample", "2000", "--seed", "1"]


def test_analyze_prints_tables_of_named_figures_with_units_and_nothing_on_a_non_terminal_stderr(capsys,
                                                                                              monkeypatch) -> None:
    from controller.analysis.report import percent
    from controller.cli import main

    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):  # rich's switches, which would make a pipe count as a terminal
        monkeypatch.delenv(name, raising=False)

    assert main(ANALYZE_SAMPLE) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # stderr is not a terminal here: no progress, no carriage returns
    out = captured.out
    result = analyze(load("caribbean-us"), "optimal", sample=2_000, seed=1)  # the same deals
    for line in (f"House edge {percent(result['house_edge'])} of the ante",
                 f"Its standard error {percent(result['standard_error'])} of the ante",
                 f"Expected wager {result['expected_wager']:.4f} antes",
                 f"Dealer qualifies {percent(result['dealer_qualifies'])} of deals",
                 f"Player folds {percent(result['outcomes']['fold'])}",
                 f"Full house {percent(result['win_by_category']['full_house'])}",
                 f"Jackpot: house edge {percent(result['side_bets']['jackpot']['house_edge'])} of the stake",
                 "sampled: 2,000 random deals (seed 1)"):
        assert line in " ".join(out.split()), line
    assert "Jackpot: meter assumed 100,000 stakes 100,000.00 € at 1.00 € a stake" in " ".join(out.split())
    assert "{" not in out and "}" not in out and "house_edge" not in out and "Other figures" not in out
    assert "\r" not in out and "\x1b" not in out


def test_analyze_shows_phases_and_a_bar_on_a_terminal_and_its_json_stays_clean(capsys, monkeypatch) -> None:
    import json

    from controller.cli import main

    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich's switch: stderr counts as a terminal
    monkeypatch.setenv("COLUMNS", "200")
    assert main([*ANALYZE_SAMPLE, "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["deals"] == 2_000 and "house_edge" in result
    assert "dealing 2,000 random deals" in captured.err and "100%" in captured.err
    assert main([*ANALYZE_SAMPLE, "--json", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_the_report_shows_every_field_even_one_it_does_not_know(capsys, monkeypatch) -> None:
    from controller.analysis.report import analysis_report
    from controller.progress import print_report

    result = analyze(load("fr-2007"), "optimal", sample=500, seed=2)
    exact_like = {key: value for key, value in result.items() if key not in ("seed", "standard_error")}
    exact_like.update(mode="exact", classes=5_649_150, purchase_deals=12, house_edge_fraction="1/20",
                      new_figure={"in_antes": 0.5})
    monkeypatch.setenv("COLUMNS", "200")
    print_report(*analysis_report(exact_like))
    text = " ".join(capsys.readouterr().out.split())
    assert "exact, over every one of 500 deals (5,649,150 classes up to the suits) and 12 card purchases" in text
    assert "House edge, exactly 1/20 of the ante" in text
    assert "Bonus: paid" in text and "Card purchases" in text
    assert "Other figures" in text and "New figure: in antes 0.5" in text
