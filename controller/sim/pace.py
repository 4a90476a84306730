"""How long a dealer's gestures take at a real table: the virtual dealer who never waits for the camera.

Each scene change the world makes is one gesture (``SceneChange.gesture``); the dealer moves on once it is done,
whatever the vision process has seen by then. The times are drawn uniformly within each range below, from a seed, so
a run can be played again. They follow a dealer's usual pace: a card every 0.4 to 1.2 s (the reach to the zone,
then the card laid), a card turned up in 0.3 to 0.8 s, a discard taken in 0.3 to 0.8 s and the bought card laid in
its place 0.4 to 1.2 s later, chips pushed in or out in 0.5 to 1.5 s, a player holding his cards up 1 to 3 s to
read them.
"""

from __future__ import annotations

import random

#: seconds each gesture takes: (shortest, longest)
GESTURE_SECONDS: dict[str, tuple[float, float]] = {
    "reach": (0.2, 0.5),  # the hand with the card from the shoe to the zone
    "lay": (0.2, 0.7),  # the card laid and the hand drawn back
    "turn": (0.3, 0.8),  # a card turned up (or back down) where it lies
    "take": (0.3, 0.8),  # a discard or a folded hand taken off the felt
    "chips": (0.5, 1.5),  # chips put in a zone, pushed in, paid or taken
    "collect": (0.8, 2.0),  # every card swept off the felt at the coup's end
    "read": (1.0, 3.0),  # a player holding his five cards up while he reads them
    "camera": (0.0, 0.0),  # the camera going off or coming back: no gesture
    "change": (0.3, 1.0),  # any other change on the felt
}


class DealerPace:
    """The seconds each gesture takes, drawn from ``GESTURE_SECONDS`` with a seeded generator."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def seconds(self, gesture: str) -> float:
        shortest, longest = GESTURE_SECONDS.get(gesture, GESTURE_SECONDS["change"])
        return self._random.uniform(shortest, longest)
