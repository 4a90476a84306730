"""The check of a seat's payment: what the camera sees in the seat's zones once the dealer has paid and collected,
against what the settlement says.

The dealer pays a winning line by putting its winnings beside the stake in the line's zone, collects a losing line's
stake, and leaves a push or a returned stake where it lies (seed 000: « procède au ramassage des chances perdantes
et au paiement des mains gagnantes »). So each zone should then hold what it held at the settlement plus the line's
net: the winnings on a win, minus the stake on a loss, nothing on a push. What a zone held is the camera's reading,
not the stake settled: chips that stayed in a zone after « rien ne va plus » (flagged then) are neither paid nor
collected, and are not counted twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .settlement import Line, Outcome, Settlement

#: the zones of a seat the camera watches while the coup is paid, and the settlement's line each holds (the purchase
#: price lies on the paying strip and is collected with the discarded card, before the payment)
PAID_ZONES: dict[str, Line] = {"ante": Line.ANTE, "raise": Line.RAISE, "bonus": Line.BONUS, "jackpot": Line.JACKPOT}


@dataclass(frozen=True)
class PaymentCheck:
    """One seat's payment as the camera saw it, amounts in cents."""

    seat: int
    #: each zone with a line: what it should hold once paid and collected
    expected: dict[str, int]
    #: what the camera sees there
    seen: dict[str, int]
    #: the zones whose line is lost
    lost: frozenset[str]
    #: False when the camera did not watch the payment (offline): nothing is judged
    watched: bool = True

    @property
    def _paid_difference(self) -> int:
        """Over the zones won, pushed or returned: what they hold beyond what they should (below 0: short)."""
        return sum(self.seen[zone] - self.expected[zone] for zone in self.expected if zone not in self.lost)

    @property
    def over(self) -> int:
        """Paid beyond what the seat is owed (the seat's zones together: winnings put in the wrong zone of the
        right seat are no fault)."""
        return max(0, self._paid_difference)

    @property
    def short(self) -> int:
        """Paid short of what the seat is owed, a stake taken from a push included, and chips taken from a losing
        zone beyond its stake."""
        taken = sum(max(0, self.expected[zone] - self.seen[zone]) for zone in self.lost)
        return max(0, -self._paid_difference) + taken

    @property
    def not_collected(self) -> int:
        """What the losing zones still hold of their stakes."""
        return sum(max(0, self.seen[zone] - self.expected[zone]) for zone in self.lost)

    @property
    def right(self) -> bool:
        return not (self.over or self.short or self.not_collected)


def check_payment(settlement: Settlement, seat: int, held: Mapping[str, int], seen: Mapping[str, int],
                  watched: bool = True) -> PaymentCheck:
    """``held``: each zone's chips when the coup was settled; ``seen``: now (a zone absent from either holds
    nothing)."""
    expected: dict[str, int] = {}
    lost: set[str] = set()
    zone_of = {line: zone for zone, line in PAID_ZONES.items()}
    for payout in settlement.payouts:
        zone = zone_of.get(payout.line)
        if payout.seat != seat or zone is None:
            continue
        # A losing stake already gone (a fold's chips, a bonus collected at a purchase) leaves the zone empty.
        expected[zone] = max(0, held.get(zone, 0) + payout.net)
        if payout.outcome is Outcome.LOSE:
            lost.add(zone)
    return PaymentCheck(seat, expected, {zone: seen.get(zone, 0) for zone in expected}, frozenset(lost), watched)
