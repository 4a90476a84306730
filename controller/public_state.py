"""What leaves the engine for the other processes and the croupier's display: the table's state with no hidden card.

The engine alone knows the players' cards and the dealer's face-down ones (the shoe reads each card it deals); the
vision, sensors and keypad processes, the web server and its display page (not behind a login) need none of them.
The review reads them from the store, behind its login."""

from __future__ import annotations

import re
from typing import Any

#: A card as the rules core writes it (``As``, ``Td``), standing alone in a text.
_CARD = re.compile(r"(?<!\w)[2-9TJQKA][cdhs](?!\w)")
HIDDEN = "▮"


def without_cards(text: str) -> str:
    """``text`` with every card it names replaced by ``HIDDEN`` (« As vue une deuxième fois » → « ▮ vue … »)."""
    return _CARD.sub(HIDDEN, text)


def public_state(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """The state as any process may hear it: no player's card values (their count instead), only the dealer's
    face-up cards, and flags and refusals that name no card (a flag may name a hole card: « As vue une deuxième
    fois »). A state already made public comes back the same. ``state`` is not changed; what the result shares with
    it names no card (the engine publishes a state per batch of events: no deep copy)."""
    if state is None:
        return None
    shown = dict(state)
    shown["seats"] = {number: _public_seat(seat) for number, seat in state.get("seats", {}).items()}
    dealer = state.get("dealer") or {}
    cards, face_up = dealer.get("cards", []) or [], dealer.get("face_up", []) or []
    shown["dealer"] = {**dealer, "card_count": len(cards),
                       "cards": [card if index < len(face_up) and face_up[index] else None
                                 for index, card in enumerate(cards)]}
    for key in ("flags", "closing_flags"):
        if key in state:
            shown[key] = [_without_cards_in(flag, ("detail", "detail_fr")) for flag in state[key]]
    if "refusals" in state:
        shown["refusals"] = [_without_cards_in(refusal, ("reason", "reason_fr")) for refusal in state["refusals"]]
    return shown


def _public_seat(seat: dict[str, Any]) -> dict[str, Any]:
    if "cards" not in seat:
        return seat
    shown = {key: value for key, value in seat.items() if key != "cards"}
    shown["card_count"] = len(seat["cards"] or [])
    return shown


def _without_cards_in(entry: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {**entry, **{key: without_cards(entry.get(key, "")) for key in keys}}
