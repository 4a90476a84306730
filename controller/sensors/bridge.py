"""The sensors process: GPIO and the shoe's serial link, onto the bus.

It also listens to the engine: a flag turns the tower light and the buzzer
on (steady for a warning, blinking and beeping when critical); a new coup
clears them and resets the shoe's card count.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import zmq

from controller.bus.schema import (
    AnyBody,
    ButtonPressed,
    CutCard,
    FlagRaised,
    ShoeCardDrawn,
    ShoeLink,
    ShoePresence,
    TableState,
)
from controller.bus.transport import Publisher, Subscriber
from controller.config import TableConfig

from .gpio import TableSensors
from .shoe import ShoeLink as ShoeSerial
from .shoe import ShoeNotConnected

log = logging.getLogger(__name__)

_GPIO_EVENTS: dict[str, tuple[str, AnyBody]] = {
    "no_more_bets_pressed": ("sensor.button", ButtonPressed("no_more_bets")),
    "end_of_deal_pressed": ("sensor.button", ButtonPressed("end_of_deal")),
    "payment_done_pressed": ("sensor.button", ButtonPressed("payment_done")),
    "cut_card_seen": ("sensor.cut_card", CutCard(True)),
    "cut_card_cleared": ("sensor.cut_card", CutCard(False)),
    "shoe_present": ("sensor.shoe", ShoePresence(True)),
    "shoe_removed": ("sensor.shoe", ShoePresence(False)),
}


class SensorBridge:
    def __init__(self, config: TableConfig, context: zmq.Context, pin_factory: Any = None) -> None:
        self.publisher = Publisher(context, config.bus_publish, f"sensors-{config.table_id}",
                                   heartbeat_topic="sensor.heartbeat")
        self.gpio = TableSensors(config.gpio, self.on_gpio, pin_factory=pin_factory) if config.gpio else None
        self.shoe = ShoeSerial(config.shoe_port, self.on_shoe, baudrate=config.shoe_baudrate) \
            if config.shoe_port else None
        self.engine = Subscriber(context, config.bus_subscribe, ("core.",))
        self._phase: str | None = None
        self._stop = threading.Event()
        if self.shoe:
            self.shoe.start()

    def on_gpio(self, kind: str, body: dict[str, Any]) -> None:
        event = _GPIO_EVENTS.get(kind)
        if event is None:
            log.warning("sensors: unknown GPIO event %s %s", kind, body)
            return
        self.publisher.publish(*event)

    def on_shoe(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "card_drawn":
            self.publisher.publish("sensor.shoe", ShoeCardDrawn(body["count"]))
        elif kind == "cut_card_seen":
            self.publisher.publish("sensor.cut_card", CutCard(True))
        elif kind in ("disconnected", "reconnected", "corrupt_frame", "sequence_gap"):
            if kind in ("disconnected", "reconnected"):
                log.info("shoe: %s %s", kind, body)
            stats = self.shoe.stats if self.shoe else {}
            detail = body.get("reason", "") if kind == "disconnected" else kind
            self.publisher.publish("sensor.shoe", ShoeLink(
                connected=kind != "disconnected", corrupt_frames=stats.get("corrupt_frames", 0),
                sequence_gaps=stats.get("sequence_gaps", 0), detail=str(detail)))
        elif kind == "error":
            log.warning("shoe: %s", body.get("message") or body)

    def follow_engine(self, timeout_ms: int = 200) -> None:
        """Alarms on flags; a new coup clears them and resets the shoe's count."""
        message = self.engine.receive(timeout_ms)
        if message is None:
            return
        body = message[1].body
        if isinstance(body, FlagRaised) and self.gpio:
            self.gpio.alarm(True, body.severity)
        elif isinstance(body, TableState):
            phase = str(body.state.get("phase"))
            if phase == "dealing" and self._phase == "betting":
                if self.gpio:
                    self.gpio.clear_alarms()
                if self.shoe:
                    try:
                        self.shoe.reset_count()
                    except ShoeNotConnected:
                        log.warning("shoe: not connected; its count was not reset for the new coup")
            self._phase = phase

    def run(self) -> None:
        while not self._stop.is_set():
            self.follow_engine()

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        if self.gpio:
            self.gpio.close()
        if self.shoe:
            self.shoe.close()
        self.engine.close()
        self.publisher.close()
