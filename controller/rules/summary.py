"""The table's state, flags and payouts as plain data (for JSON, the bus and the displays)."""

from __future__ import annotations

from typing import Any

from .cards import Card
from .flags import Flag
from .operations import DEALER
from .settlement import Settlement
from .table import Phase, Table


def _cards(cards: list[Card | None]) -> list[str | None]:
    return [None if card is None else str(card) for card in cards]


def flag_data(flag: Flag) -> dict[str, Any]:
    return {
        "kind": flag.kind.value,
        "label_fr": flag.kind.label_fr,
        "severity": flag.severity.name.lower(),
        "seat": flag.seat,
        "op_index": flag.op_index,
        "detail": flag.detail,
        "detail_fr": flag.detail_fr,
        "instruction_fr": flag.kind.instruction_fr,
        "instruction_en": flag.kind.instruction_en,
    }


def settlement_data(settlement: Settlement, language: str = "fr") -> dict[str, Any]:
    return {
        "void": settlement.void,
        "dealer_hand": settlement.dealer_value.describe_fr() if settlement.dealer_value else None,
        "dealer_qualifies": settlement.dealer_qualifies,
        "announcements": [announcement.value for announcement in settlement.announcements],
        "announced": list(settlement.labels(language)),
        "announced_en": list(settlement.labels("en")),
        "paying_order": list(settlement.paying_order),
        "hands": {str(seat): value.category.name_fr for seat, value in settlement.hand_values.items()},
        "payouts": [
            {
                "seat": p.seat,
                "line": p.line.value,
                "stake": p.stake,
                "outcome": p.outcome.value,
                "net": p.net,
                "reason": p.reason,
            }
            for p in settlement.payouts
        ],
        "house_net": settlement.house_net,
    }


def _settlement_now(settlement: Settlement | None, language: str) -> dict[str, Any] | None:
    """A settlement in the table's state: as recorded, and which seats' hands were turned over to settle it (the
    state's public view names only those hands: ``controller.public_state``)."""
    if settlement is None:
        return None
    return {**settlement_data(settlement, language), "hands_shown": list(settlement.hands_shown)}


def payments_data(table: Table) -> dict[str, dict[str, Any]]:
    """Each seat's payment while the coup is paid, as the camera sees it (``checked``: judged at « paiement
    terminé »; before that, the dealer's progress): cents too much, short, and losing stakes left."""
    settlement = table.settlement
    if settlement is None or table.phase is not Phase.PAYING:
        return {}
    payments = {}
    for seat in settlement.paying_order:
        check = table.payment_check(seat)
        if check is None:
            continue
        payments[str(seat)] = {
            "checked": seat in table.coup.payment_checks,
            "watched": check.watched,
            "over": check.over,
            "short": check.short,
            "not_collected": check.not_collected,
        }
    return payments


def table_summary(table: Table, history: bool = False) -> dict[str, Any]:
    """The table now: the coup in progress, its flags, and the last settlement.
    With ``history``, every flag and settlement of the session (for replays)."""
    seats = {}
    for number, seat in table.seats.items():
        if not (seat.occupied or seat.in_play or any(seat.bets.values())):
            continue
        seats[str(number)] = {
            "occupied": seat.occupied,
            "in_play": seat.in_play,
            "bets": {box.value: amount for box, amount in seat.bets.items() if amount},
            "fixed_bets": {box.value: amount for box, amount in seat.fixed.items()},
            "cards": _cards(seat.hand.cards),
            "decision": seat.decision.value if seat.decision else None,
            "raise": seat.raise_amount,
            "hand_void": seat.hand_void,
            # a card bought and not yet dealt: the only card a hand can still receive after the deal
            "awaits_bought_card": seat.discard is not None and not seat.bought_card_dealt,
            # which card it replaces: the camera tells the bought card laid in its place from the discard
            "discard": seat.discard if seat.discard is not None and not seat.bought_card_dealt else None,
        }
    language = table.rules.profile.language
    return {
        "profile": table.rules.profile.name,
        "phase": table.phase.value,
        "coup": table.coup.number,
        "operations": table.operation_count,
        "coup_void": table.coup.void,
        "dealer": {"cards": _cards(table.hand_of(DEALER).cards), "face_up": table.hand_of(DEALER).face_up},
        "seats": seats,
        "expected_position": table.expected_position() if table.phase.value == "dealing" else None,
        "payments_due": table.payments_due(),
        "payments": payments_data(table),
        "flags": [flag_data(flag) for flag in (table.flags if history else table.coup_flags())],
        # earlier coups' alerts still shown (a void coup's until acknowledged, the last coup's until the first card)
        "closing_flags": [flag_data(flag) | {"held": flag in table.held_flags} for flag in table.earlier_alerts()],
        "settlement": _settlement_now(table.settlement, language),
        "last_settlement": _settlement_now(table.last_settlement, language),
        "coups_settled": table.settlement_count,
        "flags_total": table.flag_count,
        **({"settlements": [settlement_data(s, language) for s in table.settlements]} if history else {}),
    }
