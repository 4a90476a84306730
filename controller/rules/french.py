"""French wording shared by the refusals and the flags: what the croupier's display says.

Amounts in euros as a French reader writes them (« 1 234,50 € »), positions as the felt names them."""

from __future__ import annotations

from .operations import DEALER


def euros_fr(cents: int) -> str:
    sign = "−" if cents < 0 else ""
    units = f"{abs(cents) // 100:,}".replace(",", "\u202f")  # a narrow no-break space between thousands
    return f"{sign}{units},{abs(cents) % 100:02d} €"


def who_fr(position: int) -> str:
    return "le croupier" if position == DEALER else f"place {position}"


def to_fr(position: int) -> str:
    """« au croupier », « à la place 3 »."""
    return "au croupier" if position == DEALER else f"à la place {position}"


def of_fr(position: int) -> str:
    """« du croupier », « de la place 3 »."""
    return "du croupier" if position == DEALER else f"de la place {position}"


def seats_fr(seats: list[int]) -> str:
    return ("place " if len(seats) == 1 else "places ") + ", ".join(map(str, seats))
