"""Hand ranking, proved on every hand rather than sampled.

* Exhaustive: all 2,598,960 five-card hands go through the plain-Python
  ``evaluate`` and through the numpy ``rank_table``; both give the textbook
  category counts, 7,462 distinct values, and the same strength for every hand.
* Independent: the dense rank equals treys' rank on every hand, and more than a
  million random head-to-heads (and 20,000 against pokerkit) come out the same.
* Seed 000: the ace is low only in A-2-3-4-5 straights and straight flushes, the
  rank order of the cards, and the dealer's ace-king qualification.

The scalar pass over every hand is the long part (about 35 s on one core); it is
done once per module and shared by the tests that need it.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pokerkit
import pytest
import treys
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import RANK_NAMES_FR, SUIT_CHARS, Card, full_deck, parse_cards
from controller.rules.errors import RulesError
from controller.rules.rank_table import RankTable, all_hands, colex_index, rank_table, strengths_of
from controller.rules.ranking import (
    ACE_KING,
    CATEGORY_COUNTS,
    Category,
    HandValue,
    best_of,
    evaluate,
)

HANDS = 2_598_960
DISTINCT_VALUES = 7_462

#: The textbook figures, written out here so that a wrong constant in the module cannot vouch for itself.
TEXTBOOK_COUNTS = {
    Category.HIGH_CARD: 1_302_540,
    Category.PAIR: 1_098_240,
    Category.TWO_PAIR: 123_552,
    Category.THREE_OF_A_KIND: 54_912,
    Category.STRAIGHT: 10_200,
    Category.FLUSH: 5_108,
    Category.FULL_HOUSE: 3_744,
    Category.FOUR_OF_A_KIND: 624,
    Category.STRAIGHT_FLUSH: 36,
    Category.ROYAL_FLUSH: 4,
}
#: Distinct values per category: 1277 + 2860 + 858 + 858 + 10 + 1277 + 156 + 156 + 9 + 1 = 7462.
TEXTBOOK_DISTINCT = {
    Category.HIGH_CARD: 1_277,
    Category.PAIR: 2_860,
    Category.TWO_PAIR: 858,
    Category.THREE_OF_A_KIND: 858,
    Category.STRAIGHT: 10,
    Category.FLUSH: 1_277,
    Category.FULL_HOUSE: 156,
    Category.FOUR_OF_A_KIND: 156,
    Category.STRAIGHT_FLUSH: 9,
    Category.ROYAL_FLUSH: 1,
}

DECK = full_deck()


def hand(text: str) -> HandValue:
    return evaluate(parse_cards(text))


def parse_ids(text: str) -> np.ndarray:
    return np.array([[card.id for card in parse_cards(text)]])


def describe(ids: np.ndarray) -> str:
    return " ".join(str(Card.from_id(int(i))) for i in ids)


# --- the whole deck, shared -----------------------------------------------------


@pytest.fixture(scope="module")
def table() -> RankTable:
    return rank_table()


@pytest.fixture(scope="module")
def hands() -> np.ndarray:
    """Every hand as ascending card ids, row i being the hand of colex index i."""
    return all_hands()


@pytest.fixture(scope="module")
def evaluated() -> np.ndarray:
    """``evaluate(hand).strength`` for every hand, indexed by colex index: the plain-Python pass."""
    strengths = np.fromiter(
        (evaluate(cards).strength for cards in itertools.combinations(DECK, 5)), dtype=np.int64, count=HANDS
    )
    # itertools yields the hands in lexicographic order; place each at its colex index.
    lex_ids = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(52), 5)), dtype=np.int64, count=HANDS * 5
    ).reshape(-1, 5)
    by_colex = np.full(HANDS, -1, dtype=np.int64)
    by_colex[colex_index(lex_ids)] = strengths
    assert (by_colex >= 0).all(), "colex_index left a hand without a slot"
    return by_colex


def test_textbook_counts_are_the_modules_constant() -> None:
    assert CATEGORY_COUNTS == TEXTBOOK_COUNTS
    assert sum(TEXTBOOK_COUNTS.values()) == HANDS
    assert sum(TEXTBOOK_DISTINCT.values()) == DISTINCT_VALUES


def test_colex_index_numbers_every_hand_once(hands: np.ndarray) -> None:
    assert hands.shape == (HANDS, 5)
    assert (np.diff(hands, axis=1) > 0).all(), "rows are not strictly ascending card ids"
    assert np.array_equal(colex_index(hands), np.arange(HANDS))


def test_evaluate_gives_the_category_counts_on_every_hand(evaluated: np.ndarray) -> None:
    categories = evaluated >> 20
    counts = np.bincount(categories, minlength=len(Category))
    assert {Category(c): int(n) for c, n in enumerate(counts)} == TEXTBOOK_COUNTS
    distinct = np.unique(evaluated)
    assert len(distinct) == DISTINCT_VALUES
    per_category = np.bincount(distinct >> 20, minlength=len(Category))
    assert {Category(c): int(n) for c, n in enumerate(per_category)} == TEXTBOOK_DISTINCT


def test_table_gives_the_category_counts_and_7462_ranks(table: RankTable) -> None:
    assert table.rank_by_colex.shape == (HANDS,)
    assert len(table.strength_by_rank) == DISTINCT_VALUES
    assert (np.diff(table.strength_by_rank) > 0).all(), "ranks are not in increasing strength"
    assert np.array_equal(np.unique(table.rank_by_colex), np.arange(DISTINCT_VALUES)), "a dense rank is unused"
    counts = np.bincount(table.category_by_rank[table.rank_by_colex], minlength=len(Category))
    assert {Category(c): int(n) for c, n in enumerate(counts)} == TEXTBOOK_COUNTS
    assert table.rank_of(parse_ids("7c 5d 4h 3s 2c"))[0] == 0
    assert table.rank_of(parse_ids("As Ks Qs Js Ts"))[0] == DISTINCT_VALUES - 1


def test_table_strength_is_evaluate_strength_on_every_hand(
    table: RankTable, hands: np.ndarray, evaluated: np.ndarray
) -> None:
    from_table = table.strength_by_rank[table.rank_by_colex]
    wrong = np.flatnonzero(from_table != evaluated)
    examples = [f"{describe(hands[i])}: table {from_table[i]:#x}, evaluate {evaluated[i]:#x}" for i in wrong[:5]]
    assert wrong.size == 0, f"{wrong.size} hands differ, e.g. {examples}"


# --- an independent evaluator ----------------------------------------------------

TREYS_IDS = np.array([treys.Card.new(str(Card.from_id(i))) for i in range(52)], dtype=np.int64)
TREYS_EVALUATOR = treys.Evaluator()
#: treys' own five-card path (what ``Evaluator.evaluate`` dispatches to): 1 is the royal flush, 7462 the worst hand.
TREYS_FIVE = TREYS_EVALUATOR.hand_size_map[5]


def treys_scores(hands: np.ndarray, chunk: int = 100_000) -> np.ndarray:
    parts = [
        np.fromiter(map(TREYS_FIVE, TREYS_IDS[hands[start:start + chunk]].tolist()), dtype=np.int64)
        for start in range(0, len(hands), chunk)
    ]
    return np.concatenate(parts)


def test_dense_rank_is_treys_rank_on_every_hand(table: RankTable, hands: np.ndarray) -> None:
    theirs = DISTINCT_VALUES - treys_scores(hands)
    wrong = np.flatnonzero(theirs != table.rank_by_colex)
    examples = [f"{describe(hands[i])}: ours {table.rank_by_colex[i]}, treys {theirs[i]}" for i in wrong[:5]]
    assert wrong.size == 0, f"{wrong.size} hands ranked differently, e.g. {examples}"


def random_head_to_heads(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` rows of ten cards off one shuffled deck each: two disjoint hands, in dealt order."""
    decks = np.tile(np.arange(52, dtype=np.int64), (count, 1))
    return rng.permuted(decks, axis=1)[:, :10]


def test_head_to_heads_agree_with_treys(table: RankTable) -> None:
    rng = np.random.default_rng(20_000_000)
    comparisons, chunk = 1_000_000, 100_000
    outcomes: Counter[int] = Counter()
    for _ in range(comparisons // chunk):
        deals = random_head_to_heads(rng, chunk)
        left, right = deals[:, :5], deals[:, 5:]
        ours = np.sign(table.rank_of(left).astype(np.int64) - table.rank_of(right))
        theirs = np.sign(treys_scores(right) - treys_scores(left))  # treys: lower is better
        wrong = np.flatnonzero(ours != theirs)
        examples = [f"{describe(left[i])} vs {describe(right[i])}: ours {ours[i]}, treys {theirs[i]}"
                    for i in wrong[:5]]
        assert wrong.size == 0, f"{wrong.size} comparisons differ, e.g. {examples}"
        outcomes.update(ours.tolist())
    assert sum(outcomes.values()) == comparisons
    # Every outcome occurs, ties included (rare: 84 in this million).
    assert min(outcomes[-1], outcomes[1]) > 450_000 and outcomes[0] > 0


def test_head_to_heads_agree_with_pokerkit(table: RankTable) -> None:
    cards = [next(pokerkit.Card.parse(str(Card.from_id(i)))) for i in range(52)]
    rng = np.random.default_rng(20_000)
    deals = random_head_to_heads(rng, 20_000)
    left, right = deals[:, :5], deals[:, 5:]
    left_ranks, right_ranks = table.rank_of(left).tolist(), table.rank_of(right).tolist()
    wrong = []
    for a, b, rank_a, rank_b in zip(left.tolist(), right.tolist(), left_ranks, right_ranks, strict=True):
        mine = pokerkit.StandardHighHand([cards[i] for i in a])
        other = pokerkit.StandardHighHand([cards[i] for i in b])
        expected = (rank_a > rank_b) - (rank_a < rank_b)
        theirs = (mine > other) - (mine < other)
        if theirs != expected or (mine == other) != (expected == 0):
            wrong.append(f"{mine!r} vs {other!r}: ours {expected}, pokerkit {theirs}")
        # pokerkit's entry index is a dense rank too, from 0 for 7-5-4-3-2: it is ours exactly.
        elif (mine.entry.index, other.entry.index) != (rank_a, rank_b):
            wrong.append(f"{mine!r} vs {other!r}: ranks {rank_a}, {rank_b}; pokerkit {mine.entry}, {other.entry}")
    assert not wrong, f"{len(wrong)} hands differ, e.g. {wrong[:5]}"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
def test_best_of_seven_agrees_with_treys(ids: list[int]) -> None:
    value = best_of([Card.from_id(i) for i in ids])
    theirs = TREYS_EVALUATOR.evaluate(TREYS_IDS[ids[:2]].tolist(), TREYS_IDS[ids[2:]].tolist())
    assert rank_table().rank_of_value(value) == DISTINCT_VALUES - theirs


# --- properties -------------------------------------------------------------------

five_ids = st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True)


@settings(max_examples=300, deadline=None)
@given(five_ids, st.permutations(SUIT_CHARS), st.randoms(use_true_random=False))
def test_value_ignores_suit_names_and_card_order(ids: list[int], suits: list[str], rnd: random.Random) -> None:
    cards = [Card.from_id(i) for i in ids]
    renamed = [Card(card.rank, suits[SUIT_CHARS.index(card.suit)]) for card in cards]
    rnd.shuffle(renamed)
    assert evaluate(renamed) == evaluate(cards)
    shuffled = np.array([[card.id for card in renamed]])
    assert rank_table().rank_of(shuffled)[0] == rank_table().rank_of(np.array([ids]))[0]


@settings(max_examples=300, deadline=None)
@given(five_ids, st.permutations(range(5)))
def test_batch_strength_is_evaluate_strength_in_any_column_order(ids: list[int], order: list[int]) -> None:
    row = np.array([[ids[i] for i in order]])
    assert strengths_of(row)[0] == evaluate([Card.from_id(i) for i in ids]).strength


# --- seed 000: the order of the cards and the ace ---------------------------------

#: Seed 000, as written (no comma between "trois" and "deux").
SEED_ORDER = "As, roi, dame, valet, dix, neuf, huit, sept, six, cinq, quatre, trois deux"


def seed_ranks() -> list[int]:
    by_name = {name: rank for rank, name in RANK_NAMES_FR.items()}
    return [by_name[word] for word in SEED_ORDER.lower().replace(",", " ").split()]


def test_seed_rank_order_is_ace_high() -> None:
    assert seed_ranks() == list(range(14, 1, -1))


def is_straight(ranks: list[int]) -> bool:
    distinct = sorted(set(ranks))
    return len(distinct) == 5 and (distinct[4] - distinct[0] == 4 or distinct == [2, 3, 4, 5, 14])


@pytest.mark.parametrize("higher, lower", list(itertools.pairwise(range(14, 1, -1))))
def test_each_rank_beats_the_next_in_the_seed_order(higher: int, lower: int) -> None:
    def cards(*ranks: int) -> list[Card]:
        return [Card(rank, suit) for rank, suit in zip(ranks, "cdhsc", strict=True)]

    # Four other ranks that make a straight with neither card: the hands then differ in that one card only.
    others = next(
        list(kickers)
        for kickers in itertools.combinations([r for r in range(2, 15) if r not in (higher, lower)], 4)
        if not is_straight([higher, *kickers]) and not is_straight([lower, *kickers])
    )
    top, below = evaluate(cards(higher, *others)), evaluate(cards(lower, *others))
    assert top.category is below.category is Category.HIGH_CARD
    assert top > below
    assert evaluate(cards(higher, higher, *others[:3])) > evaluate(cards(lower, lower, *others[:3]))
    assert evaluate(cards(higher, higher, higher, *others[:2])) > evaluate(cards(lower, lower, lower, *others[:2]))
    assert evaluate(cards(higher, higher, higher, higher, others[0])) > evaluate(
        cards(lower, lower, lower, lower, others[0])
    )


def test_high_cards_in_seed_order() -> None:
    # A K Q J 9 > K Q J T 8 > ... : the first differing card decides, in the seed's order.
    assert hand("As Kd Qh Jc 9s") > hand("Ks Qd Jh Tc 8s") > hand("Qs Jd Th 9c 7s") > hand("7s 5d 4h 3c 2s")
    assert hand("As 6d 5h 3c 2s") > hand("Ks Qd Jh Tc 8s")  # the ace is high outside straights
    assert hand("Ah Ad 3c 4s 5s") > hand("Kh Kd Qc Js 9s")
    assert hand("Ah Ad Ac 2s 2h") > hand("Kh Kd Kc As Ah")


def test_wheel_is_the_lowest_straight() -> None:
    wheel = hand("As 2d 3h 4c 5s")
    assert wheel.category is Category.STRAIGHT
    assert wheel.ranks == (5, 4, 3, 2, 1)
    assert wheel < hand("2s 3d 4h 5c 6s")
    assert wheel > hand("As Ad Ah Kc Qs")  # any straight beats three of a kind
    assert hand("Ts Jd Qh Kc As").ranks[0] == 14  # broadway: the ace is high at the top


def test_steel_wheel_is_the_lowest_straight_flush() -> None:
    steel = hand("Ah 2h 3h 4h 5h")
    assert steel.category is Category.STRAIGHT_FLUSH
    assert steel.ranks == (5, 4, 3, 2, 1)
    assert steel < hand("2h 3h 4h 5h 6h")
    assert steel > hand("As Ad Ah Ac Ks")  # any straight flush beats four of a kind
    assert hand("Th Jh Qh Kh Ah").category is Category.ROYAL_FLUSH


@pytest.mark.parametrize("text", ["Ks As 2d 3h 4c", "Qs Ks As 2h 3c", "Js Qs Ks As 2s"])
def test_no_straight_turns_the_corner(text: str) -> None:
    value = hand(text)
    assert value.category in (Category.HIGH_CARD, Category.FLUSH)
    assert value.ranks[0] == 14, "the ace counts high when it makes no straight"


def test_ace_is_one_only_in_the_wheel_on_every_hand(table: RankTable) -> None:
    strengths = table.strength_by_rank
    slots = np.stack([(strengths >> (4 * slot)) & 0xF for slot in range(4, -1, -1)], axis=1)
    has_one = (slots == 1).any(axis=1)
    categories = strengths >> 20
    wheels = np.flatnonzero(has_one)
    assert sorted(Category(int(c)) for c in categories[wheels]) == [Category.STRAIGHT, Category.STRAIGHT_FLUSH]
    assert (slots[wheels] == [5, 4, 3, 2, 1]).all()


# --- seed 000: the dealer qualifies with ace-king ---------------------------------


def qualifies(text: str) -> bool:
    return hand(text) >= ACE_KING


def test_ace_king_is_the_smallest_qualifying_hand(table: RankTable) -> None:
    assert hand("As Kd 4h 3c 2s") == ACE_KING
    assert ACE_KING.describe_fr() == "as/roi"
    assert qualifies("As Kd 4h 3c 2s")
    assert qualifies("Kd As 2s 3c 4h")  # K-A-2-3-4 is no straight, but it is ace-king
    assert not qualifies("As Qd Jh Tc 8s")
    assert not qualifies("As Qd Jh Tc 9s")  # the best hand without the king
    assert not qualifies("Ks Qd Jh Tc 8s")
    rank = table.rank_of_value(ACE_KING)
    assert table.strength_by_rank[rank] == ACE_KING.strength
    assert HandValue(int(table.strength_by_rank[rank - 1])) == hand("As Qd Jh Tc 9s")


@pytest.mark.parametrize("text", ["2s 2d 3h 4c 6s", "2s 2d 7h 8c 9s", "3s 3d 2h 2c 4s", "As 2d 3h 4c 5s"])
def test_any_pair_or_better_qualifies(text: str) -> None:
    assert qualifies(text)


def test_qualification_on_every_value(table: RankTable) -> None:
    strengths = table.strength_by_rank
    categories = strengths >> 20
    top, second = (strengths >> 16) & 0xF, (strengths >> 12) & 0xF
    expected = (categories > Category.HIGH_CARD) | ((top == 14) & (second == 13))
    assert np.array_equal(strengths >= ACE_KING.strength, expected)
    hands_qualifying = int(np.count_nonzero(expected[table.rank_by_colex]))
    # Every pair or better, plus the ace-king high cards: 4**5 - 4 suitings of each A K x y z, x y z from 11 ranks.
    ace_king_high = (4**5 - 4) * (math.comb(11, 3) - 1)  # minus A-K-Q-J-T, a straight
    assert hands_qualifying == HANDS - TEXTBOOK_COUNTS[Category.HIGH_CARD] + ace_king_high


# --- invalid input -----------------------------------------------------------------


@pytest.mark.parametrize("text, count", [("As Kd Qh Jc", 4), ("As Kd Qh Jc Ts 9s", 6), ("", 0)])
def test_wrong_number_of_cards_is_refused(text: str, count: int) -> None:
    with pytest.raises(RulesError, match=f"a hand has five cards, not {count}"):
        evaluate(parse_cards(text))


def test_a_card_twice_is_refused() -> None:
    with pytest.raises(RulesError, match=r"the same card twice: As Kd As Jc Ts"):
        evaluate(parse_cards("As Kd As Jc Ts"))


def test_errors_are_value_errors_for_unknown_cards() -> None:
    with pytest.raises(ValueError, match="unknown card 'Xs'"):
        parse_cards("As Kd Xs Jc Ts")
