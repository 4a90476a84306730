"""The check of a seat's payment: what the camera sees in the seat's zones once the dealer has paid and collected,
against what the settlement says.

The dealer pays a winning line by putting its winnings beside the stake in the line's zone, collects a losing line's
stake, and leaves a push or a returned stake where it lies (seed 000: « procède au ramassage des chances perdantes
et au paiement des mains gagnantes »). So each zone should then hold what it held at the settlement plus the line's
net: the winnings on a win, minus the stake on a loss, nothing on a push. What a zone held is the camera's reading
(the raise box: the raise as taken), not the stake settled: chips that stayed in a zone after « rien ne va plus »
(flagged then) are neither paid nor collected, and are not counted twice. A push's stake is the player's to take back
at any moment, and a losing zone once emptied may take the player's next bet: neither is judged short or left.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .settlement import Line, Outcome, Settlement

#: the zones of a seat the camera watches while the coup is paid, and the settlement's line each holds (the purchase
#: price lies on the paying strip and is collected with the discarded card, before the payment)
PAID_ZONES: dict[str, Line] = {"ante": Line.ANTE, "raise": Line.RAISE, "bonus": Line.BONUS, "jackpot": Line.JACKPOT}

_ZONE_OF_LINE = {line: zone for zone, line in PAID_ZONES.items()}


@dataclass(frozen=True)
class PaymentCheck:
    """One seat's payment as the camera saw it, amounts in cents."""

    seat: int
    #: each zone with a line: what it should hold once paid and collected
    expected: dict[str, int]
    #: what the camera sees there
    seen: dict[str, int]
    #: the zones whose line is won, and those whose line is lost (the others are pushed or returned)
    won: frozenset[str]
    lost: frozenset[str]
    #: the lost zones the camera saw collected at some moment of the payment (emptied down to what they should keep)
    collected: frozenset[str] = frozenset()
    #: False when the camera did not watch the payment (offline): nothing is judged
    watched: bool = True

    @property
    def _paid_difference(self) -> int:
        """What the seat's zones hold beyond what they should (below 0: short): a won zone either way, a pushed or
        returned one only beyond its stake (the stake is the player's to take back at any moment)."""
        won = sum(self.seen[zone] - self.expected[zone] for zone in self.won)
        pushed = sum(max(0, self.seen[zone] - self.expected[zone]) for zone in self.expected
                     if zone not in self.won and zone not in self.lost)
        return won + pushed

    @property
    def over(self) -> int:
        """Paid beyond what the seat is owed (the seat's zones together: winnings put in the wrong zone of the
        right seat are no fault)."""
        return max(0, self._paid_difference)

    @property
    def short(self) -> int:
        """Paid short of what the seat is owed."""
        return max(0, -self._paid_difference)

    @property
    def not_collected(self) -> int:
        """What the losing zones the dealer never emptied still hold of their stakes (a zone he collected and
        the player then put chips in again, his next bet, is collected)."""
        return sum(max(0, self.seen[zone] - self.expected[zone]) for zone in self.lost - self.collected)

    @property
    def right(self) -> bool:
        return not (self.over or self.short or self.not_collected)


def check_payment(settlement: Settlement, seat: int, held: Mapping[str, int], seen: Mapping[str, int],
                  collected: Iterable[str] = (), watched: bool = True) -> PaymentCheck:
    """``held``: each zone's chips when the coup was settled; ``seen``: now (a zone absent from either holds
    nothing); ``collected``: the lost zones seen emptied meanwhile."""
    expected: dict[str, int] = {}
    won: set[str] = set()
    lost: set[str] = set()
    for payout in settlement.payouts:
        if payout.seat != seat or (zone := _ZONE_OF_LINE.get(payout.line)) is None:
            continue
        # A losing stake already gone (a fold's chips, a bonus collected at a purchase) leaves the zone empty.
        expected[zone] = max(0, held.get(zone, 0) + payout.net)
        if payout.outcome is Outcome.WIN:
            won.add(zone)
        elif payout.outcome is Outcome.LOSE:
            lost.add(zone)
    seen_now = {zone: seen.get(zone, 0) for zone in expected}
    emptied = {zone for zone in lost if zone in collected or seen_now[zone] <= expected[zone]}
    return PaymentCheck(seat, expected, seen_now, frozenset(won), frozenset(lost), frozenset(emptied), watched)
