"""What the dealer keyed in a coup, beside what the camera read there last: the review's « saisies du croupier ».

The table asks the dealer for an amount or a card the camera could not vouch for, and takes his answer; he may also
key an amount or a card it never asked about. Either way the table goes by his word, and a flag would cry wolf each
time the camera was the one wrong. Surveillance sees each entry beside the camera's last reading of that zone or
card instead, the differences marked: a dealer who keys other amounts than the chips on the felt shows there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.bus.schema import CardIdentified, ChipsChanged, DealerOperation, Envelope
from controller.referee import ZONES_FR, Outcome, Referee
from controller.rules.cards import parse_card
from controller.rules.errors import CardError
from controller.rules.french import euros_fr
from controller.rules.operations import (
    DEALER,
    ConfirmAnte,
    DealBoughtCard,
    DealCard,
    IdentifyCard,
    Operation,
    PaymentSeen,
    PlaceBet,
    Raise,
)


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
    """Plays a replay's events through the referee (``play``), noting the camera's readings and the dealer's
    entries as they go. The readings are those of the coup under way only: what an entry is compared with does not
    depend on where the replay started."""

    def __init__(self) -> None:
        self._chips: dict[tuple[int, str], _Reading] = {}
        self._cards: dict[tuple[int, int], _Reading] = {}
        #: the entries, oldest first: the dicts the review shows, each with its coup's number
        self.entries: list[dict[str, Any]] = []

    def play(self, referee: Referee, event_id: int, at: str | None, envelope: Envelope) -> Outcome:
        """``referee.handle(envelope)``, noting what the event read or keyed; ``at``: its time as the review shows
        it."""
        table = referee.table
        coup, logged = table.coup.number, len(table.log)
        asked_amounts, asked_cards = set(referee.to_confirm), set(referee.cards_to_confirm)
        outcome = referee.handle(envelope)
        # What the event did, the settlement it completed apart (a card named at the showdown settles the coup).
        played = table.log[logged] if outcome.refused is None and len(table.log) > logged else None
        body = envelope.body
        match body:
            case ChipsChanged(seat=seat, box=box, amount=amount, sure=sure, at_least=at_least):
                self._chips[seat, box] = _Reading(amount, sure and not at_least, event_id, at_least)
            case CardIdentified(position=position, index=index, card=card, sure=sure):
                self._cards[position, index] = _Reading(_card_text(card), sure, event_id)
            case DealerOperation() if played is not None:
                self._note_entry(coup, event_id, at, played, asked_amounts, asked_cards)
        if isinstance(played, DealCard | DealBoughtCard) and not isinstance(body, DealerOperation):
            self._note_card_dealt(referee, event_id, played)
        if table.coup.number != coup:
            self._chips, self._cards = {}, {}
        return outcome

    def _note_card_dealt(self, referee: Referee, event_id: int, dealt: DealCard | DealBoughtCard) -> None:
        """The card the camera saw dealt, where it went: at the end of the hand, or in a bought card's place."""
        if isinstance(dealt, DealBoughtCard):
            position, index = dealt.seat, referee.table.seats[dealt.seat].discard
        else:
            position = dealt.position
            index = len(referee.table.hand_of(position).cards) - 1
        if index is None:
            return
        if dealt.card is None:
            self._cards.pop((position, index), None)  # dealt unread: no reading of it yet
        else:
            self._cards[position, index] = _Reading(str(dealt.card), True, event_id)

    def _note_entry(self, coup: int, event_id: int, at: str | None, keyed: Operation,
                    asked_amounts: set[tuple[int, str]], asked_cards: set[tuple[int, int]]) -> None:
        match keyed:
            case PlaceBet(seat=seat, box=box, amount=amount):
                zone = (seat, box.value)
            case ConfirmAnte(seat=seat, amount=amount):
                zone = (seat, "ante")
            case Raise(seat=seat, amount=amount):
                zone = (seat, "raise")
            case PaymentSeen(seat=seat, zone=paid, amount=amount):
                zone = (seat, paid)
            case IdentifyCard(position=position, index=index, card=card):
                where = "croupier" if position == DEALER else f"place {position}"
                self._add(coup, event_id, at, f"{where}, carte {index + 1}", self._cards.get((position, index)),
                          str(card), str(card), (position, index) in asked_cards)
                return
            case _:
                return
        self._add(coup, event_id, at, f"place {zone[0]}, {ZONES_FR.get(zone[1], zone[1])}", self._chips.get(zone),
                  amount, euros_fr(amount), zone in asked_amounts)

    def _add(self, coup: int, event_id: int, at: str | None, where: str, read: _Reading | None, keyed: int | str,
             keyed_text: str, asked: bool) -> None:
        self.entries.append({
            "coup": coup, "event_id": event_id, "at": at, "where": where, "keyed": keyed_text, "asked": asked,
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
