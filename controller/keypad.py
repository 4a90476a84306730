"""What the dealer enters to confirm a zone the table asks about (``Referee.to_confirm``): the amounts his screen
offers to tap, and the keypad line an amount stands for in each phase. The virtual dealer and the display's tap
(``controller.web.taps``) enter the same lines as a dealer keying them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.rules.history import format_money


def offered(to_confirm: Mapping[str, Any], phase: str) -> set[int]:
    """The amounts offered to tap for a zone to confirm (an entry of the state's ``to_confirm``): the camera's
    reading, unless it is only a lower bound (a pile too tall to count), and the likeliest amount but it. None while
    the coup is paid: the reading is of the pile before he paid into it, and he keys what he paid (offering what
    the zone should hold would invite a confirmation without a count)."""
    if phase == "paying":
        return set()
    amounts = {int(to_confirm.get("alternative") or 0)}
    if not to_confirm.get("at_least"):
        amounts.add(int(to_confirm["amount"]))
    return amounts - {0}


def confirming_line(phase: str, seat: int, zone: str, amount: int) -> str:
    """The keypad line that says ``zone`` of ``seat`` holds ``amount`` cents: a payment seen while the coup is paid,
    a raise, else a bet."""
    if phase == "paying":
        return f"paying seat={seat} zone={zone} amount={format_money(amount)}"
    if zone == "raise":
        return f"raise seat={seat} amount={format_money(amount)}"
    return f"bet seat={seat} box={zone} amount={format_money(amount)}"
