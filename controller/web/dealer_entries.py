"""What the dealer keyed in a coup, beside what the camera read there last: the review's « saisies du croupier ».

The table asks the dealer for an amount or a card the camera could not vouch for, and takes his answer; he may also
key an amount or a card it never asked about. Either way the table goes by his word, and a flag would cry wolf each
time the camera was the one wrong. Surveillance sees each entry beside the camera's last reading of that zone or
card instead, the differences marked: a dealer who keys other amounts than the chips on the felt shows there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.bus.schema import AnyBody, CardIdentified, CardPlaced, ChipsChanged, DealerOperation
from controller.referee import ZONES_FR, Outcome, Referee
from controller.rules.cards import parse_card
from controller.rules.errors import CardError
from controller.rules.french import euros_fr
from controller.rules.operations import DEALER, IdentifyCard, PaymentSeen, PlaceBet, Raise


@dataclass(frozen=True)
class _Reading:
    """The camera's last reading of a zone (an amount in cents, or its lower bound) or of a card."""

    value: int | str
    sure: bool
    event_id: int
    at_least: bool = False

    @property
    def text(self) -> str:
        if isinstance(self.value, str):
            return self.value
        return f"au moins {euros_fr(self.value)}" if self.at_least else euros_fr(self.value)

    def differs(self, keyed: int | str) -> bool:
        if self.at_least and isinstance(keyed, int) and isinstance(self.value, int):
            return keyed < self.value
        return keyed != self.value


class DealerEntries:
    """Fed each event of a replay, before and after the referee plays it (``before``, ``after``)."""

    def __init__(self) -> None:
        self._chips: dict[tuple[int, str], _Reading] = {}
        self._cards: dict[tuple[int, int], _Reading] = {}
        self._asked_amounts: set[tuple[int, str]] = set()
        self._asked_cards: set[tuple[int, int]] = set()
        self._dealt_index: int | None = None
        #: the entries, oldest first: the dicts the review shows
        self.entries: list[dict[str, Any]] = []

    def before(self, referee: Referee, body: AnyBody) -> None:
        """What the table asks the dealer, and where the card about to be dealt goes, before the event is played."""
        self._asked_amounts = set(referee.to_confirm)
        self._asked_cards = set(referee.cards_to_confirm)
        self._dealt_index = None
        if isinstance(body, CardPlaced):
            table = referee.table
            if body.position == DEALER or body.position in table.seats:
                self._dealt_index = len(table.hand_of(body.position).cards)

    def after(self, event_id: int, at: str | None, body: AnyBody, outcome: Outcome) -> None:
        """Note the camera's reading, or the dealer's entry the table took."""
        match body:
            case ChipsChanged(seat=seat, box=box, amount=amount, sure=sure, at_least=at_least):
                self._chips[seat, box] = _Reading(amount, sure and not at_least, event_id, at_least)
            case CardIdentified(position=position, index=index, card=card, sure=sure):
                self._cards[position, index] = _Reading(_card_text(card), sure, event_id)
            case CardPlaced(position=position, card=card) if card and self._dealt_index is not None:
                self._cards[position, self._dealt_index] = _Reading(_card_text(card), True, event_id)
            case DealerOperation() if outcome.refused is None:
                self._note_entry(event_id, at, outcome)

    def _note_entry(self, event_id: int, at: str | None, outcome: Outcome) -> None:
        match outcome.operation:
            case PlaceBet(seat=seat, box=box, amount=amount):
                zone = (seat, box.value)
            case Raise(seat=seat, amount=amount):
                zone = (seat, "raise")
            case PaymentSeen(seat=seat, zone=paid, amount=amount):
                zone = (seat, paid)
            case IdentifyCard(position=position, index=index, card=card):
                where = "croupier" if position == DEALER else f"place {position}"
                self._add(event_id, at, f"{where}, carte {index + 1}", self._cards.get((position, index)), str(card),
                          str(card), (position, index) in self._asked_cards)
                return
            case _:
                return
        self._add(event_id, at, f"place {zone[0]}, {ZONES_FR.get(zone[1], zone[1])}", self._chips.get(zone), amount,
                  euros_fr(amount), zone in self._asked_amounts)

    def _add(self, event_id: int, at: str | None, where: str, read: _Reading | None, keyed: int | str,
             keyed_text: str, asked: bool) -> None:
        self.entries.append({
            "event_id": event_id, "at": at, "where": where, "keyed": keyed_text, "asked": asked,
            "camera": read.text if read else None, "camera_sure": read.sure if read else None,
            "camera_event": read.event_id if read else None,
            "differs": read is not None and read.differs(keyed),
        })


def _card_text(text: str) -> str:
    """A card as the rules core writes it (``Kh``), or as the camera sent it when it names none."""
    try:
        return str(parse_card(text))
    except CardError:
        return text
