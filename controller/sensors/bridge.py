"""The sensors process: GPIO and the shoe's serial link, onto the bus.

What a device could flood the bus with is throttled (``throttle``): a noisy serial line is told when it turns
noisy and when it is clean again, not per corrupt chunk; each kind of event goes out at a rate no dealer reaches, the
rest counted.

It also listens to the engine: a flag turns the tower light and the buzzer
on (steady for a warning, blinking and beeping when critical); a new coup
clears them and resets the shoe's card count.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import zmq

from controller.bus.schema import (
    AnyBody,
    ButtonPressed,
    CutCard,
    FlagRaised,
    SensorFlood,
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
from .throttle import NoiseWatch, RateLimit

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


class NewCoupWatch:
    """Tells, from the engine's states, when a coup's deal begins: the shoe's count is reset then, once a coup.

    The engine publishes one state per batch of events: a busy engine may go from one coup's payments to the next
    one's deal in one state, its bets never published. So a coup is told by its number, not by a change of phase."""

    def __init__(self) -> None:
        #: the coup whose deal reset the count, or that was under way when this process started
        self._counted: int | None = None
        self._first = True

    def dealt(self, state: dict[str, object]) -> bool:
        """Whether ``state`` is the first one seen of a coup past its bets, the shoe's count to be reset for it. A
        coup whose cards were already being dealt when this process started keeps the count the shoe has."""
        coup, phase = state.get("coup"), state.get("phase")
        first, self._first = self._first, False
        if not isinstance(coup, int) or phase in ("betting", "closed", None):
            return False
        if self._counted is not None and coup < self._counted:
            self._counted = None  # a new store: the engine counts its coups from 1 again
        if coup == self._counted:
            return False
        self._counted = coup
        return not (first and _cards_dealt(state))


def _cards_dealt(state: dict[str, object]) -> bool:
    """Whether any card of the state's coup lies on the felt (the public state counts each hand's cards)."""
    hands = [*dict(state.get("seats") or {}).values(), state.get("dealer") or {}]
    return any(isinstance(hand, dict) and hand.get("card_count") for hand in hands)


class SensorBridge:
    def __init__(self, config: TableConfig, context: zmq.Context, pin_factory: Any = None,
                 clock: Any = time.monotonic) -> None:
        self.publisher = Publisher(context, config.bus_publish, f"sensors-{config.table_id}",
                                   heartbeat_topic="sensor.heartbeat", acknowledged_at=config.bus_subscribe)
        self._clock = clock
        self.noise = NoiseWatch()
        self.limit = RateLimit(per_s=config.sensor_events_per_s)
        self._throttle_lock = threading.Lock()  # GPIO, the shoe's thread and the main loop all publish
        self.gpio = TableSensors(config.gpio, self.on_gpio, pin_factory=pin_factory) if config.gpio else None
        self.shoe = ShoeSerial(config.shoe_port, self.on_shoe, baudrate=config.shoe_baudrate) \
            if config.shoe_port else None
        self.engine = Subscriber(context, config.bus_subscribe, ("core.",))
        self.new_coups = NewCoupWatch()
        self._stop = threading.Event()
        if self.shoe:
            self.shoe.start()

    def _publish(self, kind: str, topic: str, body: AnyBody) -> None:
        """``body`` on the bus unless its kind floods: then dropped and counted, the flood told once."""
        with self._throttle_lock:
            was_flooding = self.limit.flooding(kind)
            if self.limit.allow(kind, self._clock()):
                self.publisher.publish(topic, body)
                return
            if not was_flooding:
                log.warning("sensors: %s events come faster than %.0f a second: dropped and counted", kind,
                            self.limit.per_s)
                self.publisher.publish("sensor.flood", SensorFlood(kind, flooding=True))

    def _link(self, connected: bool, detail: str) -> ShoeLink:
        stats = self.shoe.stats if self.shoe else {}
        return ShoeLink(connected=connected, corrupt_frames=stats.get("corrupt_frames", 0),
                        sequence_gaps=stats.get("sequence_gaps", 0), detail=detail, noisy=self.noise.noisy)

    def on_gpio(self, kind: str, body: dict[str, Any]) -> None:
        event = _GPIO_EVENTS.get(kind)
        if event is None:
            log.warning("sensors: unknown GPIO event %s %s", kind, body)
            return
        self._publish(f"gpio:{kind}", *event)

    def on_shoe(self, kind: str, body: dict[str, Any]) -> None:
        if kind == "card_drawn":
            self._publish("shoe:card_drawn", "sensor.shoe", ShoeCardDrawn(body["count"]))
        elif kind == "cut_card_seen":
            self._publish("shoe:cut_card_seen", "sensor.cut_card", CutCard(True))
        elif kind in ("disconnected", "reconnected"):
            log.info("shoe: %s %s", kind, body)
            detail = str(body.get("reason", "")) if kind == "disconnected" else kind
            self.publisher.publish("sensor.shoe", self._link(kind != "disconnected", detail))
        elif kind in ("corrupt_frame", "sequence_gap"):
            with self._throttle_lock:
                turned_noisy = self.noise.fault(self._clock())
            if turned_noisy:
                log.warning("shoe: the serial link is noisy (%s)", kind)
                self.publisher.publish("sensor.shoe", self._link(True, f"noisy: {kind}"))
        elif kind == "error":
            log.warning("shoe: %s", body.get("message") or body)

    def tell_what_calmed(self) -> None:
        """A noisy link clean again, a flood over: each told once, with its counts."""
        now = self._clock()
        with self._throttle_lock:
            faults = self.noise.faults
            settled = self.noise.settled(now)
            ended = self.limit.floods_ended(now)
        if settled:
            log.info("shoe: the serial link is clean again after %d corrupt frames or gaps", faults)
            self.publisher.publish("sensor.shoe", self._link(True, f"clean again after {faults} faults"))
        for kind, dropped in ended:
            log.info("sensors: %s events calm again; %d dropped", kind, dropped)
            self.publisher.publish("sensor.flood", SensorFlood(kind, flooding=False, dropped=dropped))

    def follow_engine(self, timeout_ms: int = 200) -> None:
        """Alarms on flags; a new coup clears them and resets the shoe's count."""
        message = self.engine.receive(timeout_ms)
        if message is None:
            return
        body = message[1].body
        if isinstance(body, FlagRaised) and self.gpio:
            self.gpio.alarm(True, body.severity)
        elif isinstance(body, TableState) and self.new_coups.dealt(body.state):
            if self.gpio:
                self.gpio.clear_alarms()
            if self.shoe:
                try:
                    self.shoe.reset_count()
                except ShoeNotConnected:
                    log.warning("shoe: not connected; its count was not reset for the new coup")

    def run(self) -> None:
        while not self._stop.is_set():
            self.follow_engine()
            self.tell_what_calmed()

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        if self.gpio:
            self.gpio.close()
        if self.shoe:
            self.shoe.close()
        self.engine.close()
        self.publisher.close()
