"""A table's log turned back into the bus events that the camera, the sensors
and the dealer's keypad would have sent for it."""

from __future__ import annotations

from controller.bus.schema import AnyBody, ButtonPressed, CameraStatus, CardPlaced, ChipsChanged, DealerOperation
from controller.rules.history import format_operation
from controller.rules.operations import (
    DealBoughtCard,
    DealCard,
    EndCoup,
    EndDeal,
    NoMoreBets,
    Operation,
    PaymentDone,
    PaymentSeen,
    PlaceBet,
    Raise,
    Settle,
)


def bus_events(log: list[Operation]) -> list[tuple[int, str, AnyBody]]:
    """(time in ms, topic, body) for each operation; settlement is the engine's own doing."""
    events: list[tuple[int, str, AnyBody]] = []
    for op in log:
        body: AnyBody
        match op:
            case NoMoreBets():
                topic, body = "sensor.button", ButtonPressed("no_more_bets")
            case EndDeal():
                topic, body = "sensor.button", ButtonPressed("end_of_deal")
            case PaymentDone(watched=watched) | EndCoup(watched=watched):
                if watched:  # the camera watched that payment: the referee must know it is online
                    events.append((op.t, "vision.camera", CameraStatus(True)))
                topic, body = "sensor.button", ButtonPressed("payment_done")
            case DealCard(position=position, card=card, face_up=face_up):
                topic, body = "vision.card", CardPlaced(position, str(card) if card else None, face_up)
            case DealBoughtCard(seat=seat, card=card):
                topic, body = "vision.card", CardPlaced(seat, str(card) if card else None, True)
            case PlaceBet(seat=seat, box=box, amount=amount):
                topic, body = "vision.chips", ChipsChanged(seat, box.value, amount)  # type: ignore[arg-type]
            case PaymentSeen(seat=seat, zone=zone, amount=amount):
                topic, body = "vision.chips", ChipsChanged(seat, zone, amount)  # type: ignore[arg-type]
            case Raise(seat=seat, amount=amount):
                topic, body = "vision.chips", ChipsChanged(seat, "raise", amount)
            case Settle():
                continue
            case _:
                _time, line = format_operation(op).split(" ", 1)
                topic, body = "dealer.keypad", DealerOperation(line)
        events.append((op.t, topic, body))
    return events
