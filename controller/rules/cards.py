"""Cards of the 52-card deck, as the seeds describe it.

A card is written rank then suit: ``As`` (ace of spades), ``Td`` or ``10d``,
``7h``, ``2c``. Each card also has a dense id 0..51, ``(rank - 2) * 4 + suit``,
used by the ranking tables and the analysis.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .errors import CardError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
#: French names, as the croupier announces them (seed 000: "As, roi, dame, valet, dix ...").
RANK_NAMES_FR = {
    2: "deux", 3: "trois", 4: "quatre", 5: "cinq", 6: "six", 7: "sept", 8: "huit",
    9: "neuf", 10: "dix", 11: "valet", 12: "dame", 13: "roi", 14: "as",
}
SUIT_NAMES_FR = {"c": "trèfle", "d": "carreau", "h": "cœur", "s": "pique"}


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One card: rank 2..14 (14 is the ace) and suit one of ``c d h s``."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not 2 <= self.rank <= 14 or self.suit not in SUIT_CHARS:
            raise CardError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @property
    def id(self) -> int:
        return (self.rank - 2) * 4 + SUIT_CHARS.index(self.suit)

    @classmethod
    def from_id(cls, card_id: int) -> Card:
        if not 0 <= card_id < 52:
            raise CardError(f"card id {card_id} is outside 0..51")
        return _BY_ID[card_id]

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 2] + self.suit

    def name_fr(self) -> str:
        return f"{RANK_NAMES_FR[self.rank]} de {SUIT_NAMES_FR[self.suit]}"


@lru_cache(maxsize=1024)  # each card the camera and the shoe read is parsed: a few spellings, thousands of times
def parse_card(text: str) -> Card:
    """Read ``As``, ``td``, ``10H``...; raise ``CardError`` naming the text otherwise."""
    cleaned = text.strip()
    if len(cleaned) == 3 and cleaned[:2] == "10":
        cleaned = "T" + cleaned[2]
    if len(cleaned) != 2:
        raise CardError(f"unknown card {text!r}: expected rank then suit, like 'As' or '10d'")
    rank_char, suit_char = cleaned[0].upper(), cleaned[1].lower()
    if rank_char not in RANK_CHARS:
        raise CardError(f"unknown card {text!r}: rank {cleaned[0]!r} is not one of {RANK_CHARS}")
    if suit_char not in SUIT_CHARS:
        raise CardError(f"unknown card {text!r}: suit {cleaned[1]!r} is not one of {SUIT_CHARS}")
    return Card(RANK_CHARS.index(rank_char) + 2, suit_char)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Read cards separated by spaces or commas: ``"As Kd 7h"``."""
    return tuple(parse_card(part) for part in text.replace(",", " ").split())


def full_deck() -> tuple[Card, ...]:
    """The 52 cards in id order."""
    return tuple(_BY_ID)


def format_cards(cards: Iterable[Card | None]) -> str:
    return " ".join("??" if card is None else str(card) for card in cards)


_BY_ID = [Card(rank, suit) for rank in range(2, 15) for suit in SUIT_CHARS]
