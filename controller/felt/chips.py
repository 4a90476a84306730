"""The table's chip set: each denomination's colour, as printed on the chip's face, and how to make a stack's value.

The virtual table paints these colours, and the chip counter (``vision.chip_counter``) was trained on them: it
counts chips of exactly these denominations, so another casino's set means a counter trained on its chips.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChipKind:
    cents: int
    name: str
    #: the face's main colour, RGB
    colour: tuple[int, int, int]
    #: the edge stripes' colour, RGB
    stripes: tuple[int, int, int]


#: A casino chip's diameter (the common 39 mm), as the virtual table draws it.
CHIP_DIAMETER_MM = 39.0
#: and its thickness (a 10 g clay chip): ten stacked chips stand 33 mm high
CHIP_THICKNESS_MM = 3.3

#: The default chip set (euros): 0.50 € is the bonus token of seed 004 (« le jeton 0,5 € »).
CHIP_SET: tuple[ChipKind, ...] = (
    ChipKind(50, "0,50 €", (235, 235, 228), (200, 40, 40)),
    ChipKind(100, "1 €", (40, 90, 200), (240, 240, 240)),
    ChipKind(500, "5 €", (200, 35, 35), (240, 240, 240)),
    ChipKind(2500, "25 €", (30, 140, 60), (240, 240, 240)),
    ChipKind(10000, "100 €", (25, 25, 25), (240, 240, 240)),
)


def chip_kind(cents: int) -> ChipKind:
    for kind in CHIP_SET:
        if kind.cents == cents:
            return kind
    raise ValueError(f"no chip of {cents} cents in the chip set ({', '.join(k.name for k in CHIP_SET)})")


def make_stack(amount_cents: int) -> tuple[int, ...]:
    """The fewest chips that make an amount, largest at the bottom (as a player stacks them)."""
    if amount_cents < 0:
        raise ValueError(f"a stack of {amount_cents} cents")
    chips: list[int] = []
    rest = amount_cents
    for kind in sorted(CHIP_SET, key=lambda k: -k.cents):
        count, rest = divmod(rest, kind.cents)
        chips += [kind.cents] * count
    if rest:
        raise ValueError(f"{amount_cents} cents cannot be made with the chip set (smallest chip {CHIP_SET[0].name})")
    return tuple(chips)
