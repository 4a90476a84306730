"""The referee's doubts: the chip amounts and the cards held « à confirmer », and what settles them.

Never a silently wrong amount: a chip reading the camera does not vouch for is held until the dealer keys the amount
or the camera reads it sure; a card it cannot tell stays unknown to the rules until the dealer names it or the
camera reads it sure. The rules table is passed in to each decision, as it stands at that moment.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ..bus.schema import AnyBody, ChipsChanged, DealerOperation
from ..rules.french import euros_fr
from ..rules.operations import (
    DEALER,
    Box,
    ConfirmAnte,
    DecisionTimeout,
    EndCoup,
    Fold,
    IdentifyCard,
    NoMoreBets,
    Operation,
    PaymentDone,
    PaymentSeen,
    PlaceBet,
    Raise,
)
from ..rules.table import Decision, Phase, Table
from .refusals import Refusal

#: The bet zones as the dealer names them (the raise box is no ``Box``: a raise is a decision, not a bet).
ZONES_FR = {**{box.value: box.label_fr.lower() for box in Box}, "raise": "relance"}


class Doubts:
    """The zones and cards « à confirmer », and the decisions about them. The zones left unvouched, and the doubts
    on antes left on the felt, go on into the next coup (``carried``); the rest end with their coup
    (``new_coup``)."""

    def __init__(self, to_confirm: Iterable[ChipsChanged] = (), unvouched: Iterable[ChipsChanged] = ()) -> None:
        #: zones whose chips the camera could not vouch for, (seat, box) -> its reading (the amount, and whether it
        #: is only a lower bound): held « à confirmer » until the dealer keys the amount or the camera reads it sure
        self.to_confirm: dict[tuple[int, str], ChipsChanged] = {(r.seat, r.box): r for r in to_confirm}
        #: cards the camera could not tell, (position, index) -> its likeliest reading: unknown to the rules (the
        #: settlement waits for them) until the dealer keys the card or the camera reads it sure
        self.cards_to_confirm: dict[tuple[int, int], str] = {}
        #: zones whose last reading the camera could not vouch for (a pile too tall to count, « au moins », or a
        #: casino stack), (seat, box) -> that reading: chips paid into them cannot be told, so the dealer keys what
        #: he paid there
        self.unvouched: dict[tuple[int, str], ChipsChanged] = {(r.seat, r.box): r for r in unvouched}
        #: the zones the dealer keyed an amount for in this coup's payment
        self._keyed_paying: set[tuple[int, str]] = set()
        #: seats whose ante as the camera read it at « rien ne va plus » is in doubt, -> that reading: their raise
        #: is not twice it (from above, two identical chips stacked can look like one). Only the dealer's count
        #: settles it (``ConfirmAnte``), or the seat's leaving the decisions
        self._antes_in_doubt: dict[int, ChipsChanged] = {}
        #: seats whose ante in this coup is the dealer's word, not the camera's: no raise puts it in doubt
        self._antes_keyed: set[int] = set()
        #: zones of this coup the dealer's count showed the camera misread, surely: its readings of them are not
        #: vouched for until the coup ends (an empty zone apart)
        self._misread: set[tuple[int, str]] = set()

    def new_coup(self, table: Table) -> None:
        """A coup starts: it keeps only the doubts on antes left on the felt for it, and the zones unvouched."""
        self._keyed_paying, self._antes_in_doubt, self._antes_keyed, self._misread = set(), {}, set(), set()
        self.to_confirm = {(seat, box): reading for (seat, box), reading in self.to_confirm.items()
                           if box == "ante" and table.seats[seat].bets.get(Box.ANTE)}
        self.cards_to_confirm = {}

    def carried(self) -> tuple[list[ChipsChanged], list[ChipsChanged]]:
        """What goes on into the next coup: the zones « à confirmer » and the zones unvouched."""
        return list(self.to_confirm.values()), list(self.unvouched.values())

    def in_the_coup(self) -> bool:
        """Whether doubts that end with the coup (its cards, its keyed payments) are open: the coup is not over."""
        return bool(self.cards_to_confirm or self._keyed_paying)

    def shown(self) -> dict[str, list[dict[str, Any]]]:
        """What the state carries of them: the zones and the cards « à confirmer » (a zone with the camera's
        reading and, where it has one, the likeliest amount but it: the two the dealer is offered)."""
        return {"to_confirm": [{"seat": seat, "box": box, "amount": reading.amount, "at_least": reading.at_least,
                                "alternative": reading.alternative if 0 < reading.alternative != reading.amount
                                and not reading.at_least else 0, "stacked": reading.stacked}
                               for (seat, box), reading in sorted(self.to_confirm.items())],
                "cards_to_confirm": [{"position": position, "index": index, "read": read}
                                     for (position, index), read in sorted(self.cards_to_confirm.items())]}

    def doubt_the_card(self, table: Table, position: int, index: int, read: str) -> None:
        """The camera cannot tell the card at ``position``, ``index`` (``read``: its likeliest reading, "" when it
        never read it): a card the rules do not know yet is asked of the dealer, one they know is no question."""
        hand = table.hand_of(position) if position in table.seats or position == DEALER else None
        if hand is not None and 0 <= index < len(hand.cards) and hand.cards[index] is None:
            self.cards_to_confirm[position, index] = read

    def ask_cards_awaited(self, table: Table) -> None:
        """The dealer pressed on while the settlement still waits for cards (« paiement terminé » refused): the
        camera had its chance to read them (a card lost under a hand, taken for gone), so he is asked to name
        each."""
        for position, index in table.cards_awaited():
            self.doubt_the_card(table, position, index, "")

    @staticmethod
    def may_settle_on(table: Table, position: int) -> bool:
        """Whether the settlement may need the cards of ``position``: the dealer's, or a hand still in play."""
        state = table.seats.get(position)
        return position == DEALER or (state is not None and state.in_play and not state.hand_void
                                      and state.decision is not Decision.FOLD)

    def keyed_operation(self, operation: Operation, table: Table) -> Operation | Refusal:
        """The dealer's operation, the amount he keys for an ante in doubt being its count: a correction of the
        ante fixed at « rien ne va plus » is taken only on a doubt the table raised."""
        if (isinstance(operation, PlaceBet) and operation.box is Box.ANTE and operation.seat in self._antes_in_doubt
                and table.phase is Phase.DECISIONS):
            return ConfirmAnte(operation.t, operation.seat, operation.amount)
        if isinstance(operation, ConfirmAnte) and operation.seat not in self._antes_in_doubt:
            return Refusal.of(operation.kind, f"seat {operation.seat}'s ante is not in doubt",
                              f"l'ante de la place {operation.seat} n'est pas en doute")
        return operation

    def taken(self, reading: ChipsChanged, operation: Operation | Refusal | None, table: Table) -> ChipsChanged:
        """The camera's chip reading as the referee takes it: a sure one of a zone the dealer's count showed
        misread, or one that, taken as read (``operation``), would be flagged for its amount alone, is not vouched
        for. The zone is noted unvouched, or vouched for again."""
        if reading.sure and ((reading.amount and (reading.seat, reading.box) in self._misread)
                             or self._breaks_a_betting_rule(reading, operation, table)):
            reading = msgspec.structs.replace(reading, sure=False)
        if reading.at_least or not reading.sure:
            self.unvouched[reading.seat, reading.box] = reading
        else:
            self.unvouched.pop((reading.seat, reading.box), None)
        return reading

    def held(self, reading: ChipsChanged, table: Table) -> bool:
        """Whether the reading is held « à confirmer » instead of being acted on. A sure reading settles its zone's
        doubt, whatever it does; an ante in doubt was read sure, and is the doubt. Nothing is decided or flagged on
        a doubtful amount: a raise, or a bet that seems to move after « rien ne va plus », waits for the dealer's
        amount (or a sure reading). While bets are placed or a coup paid, the reading is taken as read and the
        dealer's amount replaces it; the button waits for it."""
        if reading.sure:
            if not (reading.box == "ante" and reading.seat in self._antes_in_doubt):
                self.to_confirm.pop((reading.seat, reading.box), None)
            return False
        if table.phase in (Phase.DEALING, Phase.DECISIONS, Phase.SHOWDOWN) or self._pays_early(reading, table):
            self.to_confirm[reading.seat, reading.box] = reading
            return True
        return False

    def doubt_the_ante(self, raised: Raise, table: Table) -> None:
        """The dealer's raise not twice the ante the camera read at « rien ne va plus »: that reading may be a
        stack's top chip, so he is asked to count the ante before his raise is judged (a player's wrong raise is
        flagged on his count). An ante he keyed himself, one seen moved since (flagged then: the ante fixed is what
        is settled), or a seat not deciding, is not put in doubt; nor is the ante by the camera's own reading of a
        raise, which may be the misread one (the dealer is asked the raise)."""
        seat, state = raised.seat, table.seats.get(raised.seat)
        if (state is None or seat in self._antes_keyed or not self._may_count_ante(seat, table) or not table.can(raised)
                or state.bets.get(Box.ANTE) != (ante := state.fixed[Box.ANTE])
                or raised.amount == table.raise_required(seat)):
            return
        self._antes_in_doubt[seat] = self.to_confirm[seat, "ante"] = ChipsChanged(seat, "ante", ante)

    def wait_for(self, operation: Operation, table: Table) -> Refusal | None:
        """What ``operation`` waits for: « rien ne va plus » for every bet to be vouched for, « paiement terminé »
        for the seat's zones and the coup's end for all (unless the camera is not watching: nothing is checked
        then), a raise for its ante in doubt. None: no doubt holds it."""
        if isinstance(operation, Raise) and operation.seat in self._antes_in_doubt:
            seat, ante = operation.seat, table.seats[operation.seat].fixed.get(Box.ANTE, 0)
            return Refusal.of(operation.kind, f"seat {seat} ante: to be confirmed, the raise of {operation.amount} "
                              f"cents not being {table.rules.profile.raise_multiple} times the {ante} read",
                              f"place {seat} ante : montant à confirmer (relance : {euros_fr(operation.amount)} ; "
                              f"ante lue : {euros_fr(ante)})", operation=operation)
        if isinstance(operation, NoMoreBets):
            waiting = sorted(self.to_confirm)
        elif isinstance(operation, PaymentDone | EndCoup) and operation.watched:
            waiting = sorted(key for key in self.to_confirm
                             if not isinstance(operation, PaymentDone) or key[0] == operation.seat)
        else:
            return None
        if not waiting:
            return None
        names = ", ".join(f"seat {seat} {box}" for seat, box in waiting)
        names_fr = ", ".join(f"place {seat} {ZONES_FR[box]}" for seat, box in waiting)
        amounts = "montants" if len(waiting) > 1 else "montant"
        return Refusal.of(operation.kind, f"{names}: the camera's reading is to be confirmed",
                          f"{names_fr} : {amounts} à confirmer", operation=operation)

    def refuse_until_confirmed(self, operation: Operation, table: Table) -> Refusal | None:
        """``wait_for``; a raise refused until its ante is confirmed is held « à confirmer », to be asked again
        then."""
        waiting = self.wait_for(operation, table)
        if waiting is not None and isinstance(operation, Raise):
            self.to_confirm.setdefault((operation.seat, "raise"),
                                       ChipsChanged(operation.seat, "raise", operation.amount, sure=False))
        return waiting

    def follow(self, body: AnyBody, operation: Operation, table: Table) -> None:
        """The table took ``operation`` (for the event ``body``) within the coup: the dealer's amount keyed for a
        zone, or the camera's next sure reading, settles its doubt; a fold or a decision timeout settles a doubtful
        raise; a card identified settles its doubt."""
        # Tests of type, not a ``match`` of (event, operation) pairs: this runs on every event, thousands a second.
        if isinstance(body, ChipsChanged) and not body.sure:
            self.to_confirm[body.seat, body.box] = body
        elif isinstance(operation, Raise | Fold | DecisionTimeout):
            self.to_confirm.pop((operation.seat, "raise"), None)
        elif isinstance(operation, ConfirmAnte):
            read = self._antes_in_doubt.pop(operation.seat)
            self.to_confirm.pop((operation.seat, "ante"), None)
            self._antes_keyed.add(operation.seat)
            if read.amount != operation.amount:
                self._misread.add((operation.seat, "ante"))
                self.unvouched[operation.seat, "ante"] = read
        elif isinstance(body, DealerOperation) and isinstance(operation, PlaceBet):
            self.to_confirm.pop((operation.seat, operation.box.value), None)
            if operation.box is Box.ANTE:
                self._antes_keyed.add(operation.seat)
        elif isinstance(body, ChipsChanged) and body.box == "ante" and isinstance(operation, PlaceBet):
            if table.phase is Phase.BETTING:
                self._antes_keyed.discard(body.seat)  # the camera's sure reading is the bet now
        elif isinstance(body, DealerOperation) and isinstance(operation, PaymentSeen):
            self.to_confirm.pop((operation.seat, operation.zone), None)
            self._keyed_paying.add((operation.seat, operation.zone))
        elif isinstance(operation, IdentifyCard):
            self.cards_to_confirm.pop((operation.position, operation.index), None)
        if self._antes_in_doubt:  # rarely: this runs on every event
            for seat in [seat for seat in self._antes_in_doubt if not self._may_count_ante(seat, table)]:
                # decided, folded, timed out, its hand or the coup void: the rules take no count of its ante now
                del self._antes_in_doubt[seat]
                self.to_confirm.pop((seat, "ante"), None)

    def ask_payments_unseen(self, table: Table) -> None:
        """The seat to be paid next: each of its zones the camera could not vouch for (a pile too tall to count, a
        casino stack) is held « à confirmer » until the dealer keys what lies there once paid. The camera would not
        tell the chips he adds (a payment judged on the pile as it was would be flagged short); the next seat is
        asked in its turn, so that he keys each amount after paying it."""
        if table.phase is not Phase.PAYING or not (due := table.payments_due()):
            return
        for (seat, box), reading in self.unvouched.items():
            if seat == due[0] and (seat, box) not in self._keyed_paying:
                # the reading was of the zone before he paid into it: no amount but it to offer
                self.to_confirm.setdefault((seat, box), msgspec.structs.replace(reading, alternative=0))

    @staticmethod
    def _breaks_a_betting_rule(reading: ChipsChanged, operation: Operation | Refusal | None, table: Table) -> bool:
        """Whether a chip reading the camera vouches for would, taken as read (``operation``), be flagged for its
        amount alone: an ante outside the table's limits, a side bet off its stake, a raise not the rule's multiple
        of the ante. From above, a stack can show no more than its top chip (``vision.stack_reader``): such a
        reading is held « à confirmer » like a doubtful one, and the flag, if any, is raised on the dealer's
        amount."""
        amount = reading.amount
        if isinstance(operation, Raise):
            required = table.raise_required(operation.seat)
            return bool(required) and amount != required
        if not isinstance(operation, PlaceBet) or table.phase is not Phase.BETTING or not amount:
            return False
        if operation.box is Box.ANTE:
            return not table.ante_within_limits(amount)
        stake = table.side_bet_stake(operation.box)
        return stake is not None and amount != stake

    @staticmethod
    def _may_count_ante(seat: int, table: Table) -> bool:
        """Whether the rules would take the dealer's count of the seat's ante now (``ConfirmAnte``)."""
        return table.can(ConfirmAnte(table.last_t, seat, 1))

    @staticmethod
    def _pays_early(reading: ChipsChanged, table: Table) -> bool:
        """Whether the reading, taken as read, would be chips paid to a seat before the one due: a payment out of
        order is flagged on the dealer's amount or a sure reading, never on a doubtful one."""
        due = table.payments_due() if table.phase is Phase.PAYING else []
        seen = table.coup.seen_paying.get(reading.seat, {}).get(reading.box, 0)
        return reading.seat in due and due[0] != reading.seat and reading.amount > seen
