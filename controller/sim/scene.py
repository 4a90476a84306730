"""What lies on the virtual felt at one instant: the cards in each zone, the chip stacks, arms passing over.

The virtual table changes this state step by step; the renderer draws it as the overhead camera would see it, and
the direct driver turns its changes into the observations the vision pipeline would publish.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class CardOnFelt:
    position: int  # seat 1..7, 0 for the dealer
    index: int  # 0-based slot in that hand, in order of arrival
    card: str  # the card's identity in the rules' form ("As", "Td"), known to the simulation only
    face_up: bool
    #: a player holding the card up to look at it: it is off the felt, under his hand
    lifted: bool = False


@dataclass(frozen=True)
class ChipStack:
    seat: int
    box: str  # ante, raise, bonus, jackpot
    chips: tuple[int, ...]  # denominations in cents, bottom to top (controller.felt.chips.CHIP_SET)
    #: a casino stack (every chip on the one below it, the camera seeing the top chip and part of the side) rather
    #: than piles spread for the camera, one per denomination
    stacked: bool = False


@dataclass(frozen=True)
class Arm:
    """A dealer's or player's arm over the felt, from the table's edge (start) to the hand (end), in mm."""

    start: tuple[float, float]
    end: tuple[float, float]
    width: float = 90.0


@dataclass(frozen=True)
class SceneState:
    cards: tuple[CardOnFelt, ...] = ()
    chips: tuple[ChipStack, ...] = ()
    arms: tuple[Arm, ...] = ()
    #: False while the camera is unplugged: no frame at all comes out
    camera_online: bool = True
    #: free text shown nowhere; handy when debugging a rendered frame
    note: str = field(default="", compare=False)

    def with_card(self, card: CardOnFelt) -> SceneState:
        kept = tuple(c for c in self.cards if (c.position, c.index) != (card.position, card.index))
        return replace(self, cards=kept + (card,))

    def without_card(self, position: int, index: int) -> SceneState:
        return replace(self, cards=tuple(c for c in self.cards if (c.position, c.index) != (position, index)))

    def with_chips(self, seat: int, box: str, chips: tuple[int, ...], stacked: bool = False) -> SceneState:
        kept = tuple(s for s in self.chips if (s.seat, s.box) != (seat, box))
        return replace(self, chips=kept + ((ChipStack(seat, box, chips, stacked),) if chips else ()))

    def hand(self, position: int) -> list[CardOnFelt]:
        return sorted((c for c in self.cards if c.position == position), key=lambda c: c.index)
