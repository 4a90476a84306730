"""What leaves the engine for the other processes and the croupier's display: the table's state with no hidden card.

The engine alone knows the players' cards and the dealer's face-down ones (the shoe reads each card it deals); the
vision, sensors and keypad processes, the web server and its display page (not behind a login) need none of them.
The review reads them from the store, behind its login."""

from __future__ import annotations

import copy
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
    fois »). A state already made public comes back the same."""
    if state is None:
        return None
    shown = copy.deepcopy(state)
    for seat in shown.get("seats", {}).values():
        if "cards" in seat:
            seat["card_count"] = len(seat.pop("cards") or [])
    dealer = shown.get("dealer") or {}
    cards, face_up = dealer.get("cards", []) or [], dealer.get("face_up", []) or []
    dealer["card_count"] = len(cards)
    dealer["cards"] = [card if index < len(face_up) and face_up[index] else None for index, card in enumerate(cards)]
    for flag in (*shown.get("flags", []), *shown.get("closing_flags", [])):
        for key in ("detail", "detail_fr"):
            flag[key] = without_cards(flag.get(key, ""))
    for refusal in shown.get("refusals", []):
        for key in ("reason", "reason_fr"):
            refusal[key] = without_cards(refusal.get(key, ""))
    return shown
