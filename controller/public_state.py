"""What leaves the engine for the other processes and the croupier's display: the table's state with no hidden card.

The engine alone knows the players' cards and the dealer's face-down ones (the shoe reads each card it deals); the
vision, sensors and keypad processes, the web server and its display page (not behind a login) need none of them.
The review reads them from the store, behind its login."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

#: A card as the rules core writes it (``As``, ``Td``), standing alone in a text.
_CARD = re.compile(r"(?<!\w)[2-9TJQKA][cdhs](?!\w)")
#: The value of a keypad line's card field, however the dealer spelt it (``card=ah``, ``card=10H``), echoed in the
#: refusal of a line the table could not read.
_KEYED_CARDS = re.compile(r"(?<!\w)(cards?=)[^\s»]+", re.IGNORECASE)
HIDDEN = "▮"


def without_cards(text: str) -> str:
    """``text`` with every card it names replaced by ``HIDDEN`` (« As vue une deuxième fois » → « ▮ vue … »)."""
    return _CARD.sub(HIDDEN, _KEYED_CARDS.sub(rf"\1{HIDDEN}", text))


def public_state(state: dict[str, Any] | None) -> dict[str, Any] | None:
    """The state as any process may hear it: no player's card values (their count instead), only the dealer's
    face-up cards, the categories of the hands turned over only, and flags and refusals that name no card (a flag
    may name a hole card: « As vue une deuxième fois »). A card the camera read and asks the dealer to confirm
    (``cards_to_confirm``) stays: the camera saw it face up, and the dealer must know which card is meant. A state
    already made public comes back the same. ``state`` is not changed, nor deep-copied: the engine makes a public
    state for each batch of events.
    """
    if state is None:
        return None
    shown = dict(state)
    shown["seats"] = {number: _public_seat(seat) for number, seat in state.get("seats", {}).items()}
    dealer = state.get("dealer") or {}
    cards, face_up = dealer.get("cards", []) or [], dealer.get("face_up", []) or []
    shown["dealer"] = {**dealer, "card_count": len(cards),
                       "cards": [card if index < len(face_up) and face_up[index] else None
                                 for index, card in enumerate(cards)]}
    for key in ("settlement", "last_settlement"):
        if state.get(key) is not None:
            shown[key] = public_settlement(state[key])
    for key in ("flags", "closing_flags"):
        if key in state:
            shown[key] = [_without_cards_in(flag, ("detail", "detail_fr")) for flag in state[key]]
    if "refusals" in state:
        shown["refusals"] = [_without_cards_in(refusal, ("reason", "reason_fr")) for refusal in state["refusals"]]
    return shown


def public_settlement(settlement: dict[str, Any], hands_shown: Iterable[int] | None = None) -> dict[str, Any]:
    """A settlement (``rules.summary.settlement_data``) with the hands' categories of the seats whose cards were
    turned over only (``hands_shown``, by default the settlement's own list, none when it has none): when the
    dealer does not qualify, a hand that claims nothing stays face down, though the shoe told the engine its
    cards."""
    shown = {str(seat) for seat in (settlement.get("hands_shown", []) if hands_shown is None else hands_shown)}
    return {**settlement, "hands": {seat: name for seat, name in settlement.get("hands", {}).items() if seat in shown}}


def _public_seat(seat: dict[str, Any]) -> dict[str, Any]:
    if "cards" not in seat:
        return seat
    shown = {key: value for key, value in seat.items() if key != "cards"}
    shown["card_count"] = len(seat["cards"] or [])
    return shown


def _without_cards_in(entry: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {**entry, **{key: without_cards(entry.get(key, "")) for key in keys}}
