"""Five-card hand ranking (seed 000: "As, roi, dame ... trois deux. L'as vaut un
dans les seules combinaisons de la quinte et de la quinte flush").

Two evaluators that must agree, and are tested to agree on all 2,598,960 hands:

* ``evaluate`` ranks one hand in plain Python, for the coup state machine;
* ``rank_table.RankTable`` ranks every hand at once with numpy and then answers
  batches by table lookup, for the analysis and the benchmarks (its own module:
  the table's processes never load numpy for it).

A hand's ``strength`` is an integer: higher beats lower, equal ties. It packs the
category in the high bits and the five ranks, ordered by (count, rank) and with
the ace counted as 1 in A-2-3-4-5, in five 4-bit slots below.
"""

from __future__ import annotations

import enum
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Card
from .errors import RulesError


class Category(enum.IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8
    ROYAL_FLUSH = 9

    @property
    def name_fr(self) -> str:
        return CATEGORY_NAMES_FR[self]

    @property
    def key(self) -> str:
        """The name used in profiles and histories: ``full_house``."""
        return self.name.lower()


CATEGORY_NAMES_FR = {
    Category.HIGH_CARD: "Carte haute",
    Category.PAIR: "Paire",
    Category.TWO_PAIR: "Deux paires",
    Category.THREE_OF_A_KIND: "Brelan",
    Category.STRAIGHT: "Quinte",
    Category.FLUSH: "Couleur",
    Category.FULL_HOUSE: "Full",
    Category.FOUR_OF_A_KIND: "Carré",
    Category.STRAIGHT_FLUSH: "Quinte flush",
    Category.ROYAL_FLUSH: "Quinte royale",
}

#: Number of 5-card hands in each category: the figures the exhaustive test checks.
CATEGORY_COUNTS = {
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

_CATEGORY_SHIFT = 20
_CATEGORY_OF = {category.value: category for category in Category}


def _pack(category: int, ordered_ranks: Sequence[int]) -> int:
    value = category
    for rank in ordered_ranks:
        value = (value << 4) | rank
    return value


@dataclass(frozen=True, order=True, slots=True)
class HandValue:
    """The value of a five-card hand; compares as poker hands compare."""

    strength: int

    @property
    def category(self) -> Category:
        return _CATEGORY_OF[self.strength >> _CATEGORY_SHIFT]  # a lookup: ``Category(n)`` costs ten times more

    @property
    def ranks(self) -> tuple[int, ...]:
        """The five ranks in tie-break order (ace as 1 in the wheel)."""
        return tuple((self.strength >> (4 * slot)) & 0xF for slot in range(4, -1, -1))

    def describe_fr(self) -> str:
        names = {14: "as", 13: "roi", 12: "dame", 11: "valet", 1: "as"}
        top = self.ranks[0]
        if self.category is Category.HIGH_CARD:
            second = self.ranks[1]
            return f"{names.get(top, str(top))}/{names.get(second, str(second))}"
        return self.category.name_fr


#: The dealer qualifies with ace-king or better (seed 000: "la combinaison As/roi ou mieux").
ACE_KING = HandValue(_pack(Category.HIGH_CARD, (14, 13, 4, 3, 2)))


def evaluate(cards: Sequence[Card]) -> HandValue:
    """The value of exactly five distinct cards."""
    if len(cards) != 5:
        raise RulesError(f"a hand has five cards, not {len(cards)}")
    if len(set(cards)) != 5:
        raise RulesError(f"a hand cannot hold the same card twice: {' '.join(map(str, cards))}")
    counts = Counter(card.rank for card in cards)
    # Ranks ordered by how many of each, then by rank: KKK22 -> K K K 2 2.
    ordered = sorted((card.rank for card in cards), key=lambda rank: (counts[rank], rank), reverse=True)
    flush = len({card.suit for card in cards}) == 1
    straight = len(counts) == 5 and ordered[0] - ordered[4] == 4
    if ordered == [14, 5, 4, 3, 2]:
        straight, ordered = True, [5, 4, 3, 2, 1]
    shape = sorted(counts.values(), reverse=True)
    if straight and flush:
        category = Category.ROYAL_FLUSH if ordered[0] == 14 else Category.STRAIGHT_FLUSH
    elif shape[0] == 4:
        category = Category.FOUR_OF_A_KIND
    elif shape[:2] == [3, 2]:
        category = Category.FULL_HOUSE
    elif flush:
        category = Category.FLUSH
    elif straight:
        category = Category.STRAIGHT
    elif shape[0] == 3:
        category = Category.THREE_OF_A_KIND
    elif shape[:2] == [2, 2]:
        category = Category.TWO_PAIR
    elif shape[0] == 2:
        category = Category.PAIR
    else:
        category = Category.HIGH_CARD
    return HandValue(_pack(category, ordered))


def best_of(cards: Sequence[Card]) -> HandValue:
    """The best five-card value among more than five cards."""
    return max(evaluate(combo) for combo in itertools.combinations(cards, 5))
