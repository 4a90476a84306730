"""The sensors process on the real bus: gpiozero MockFactory pins and the shoe over a pseudo-terminal
in, typed sensor events out; a flag from the engine lights the tower light."""

from __future__ import annotations

import os
import tty
from pathlib import Path

import pytest
import zmq
from busutil import raw_publisher, send, wait_until
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.bus.proxy import Proxy
from controller.bus.schema import ButtonPressed, Envelope, FlagRaised, ShoeCardDrawn
from controller.bus.transport import Subscriber
from controller.config import parse_config
from controller.sensors.bridge import SensorBridge
from firmware.tests_support.bench import ShoeBench

CONFIG = """
[table]
id = "t1"
profile = "fr-1959"
minimum_cents = 1000
maximum_cents = 50000

[bus]
publish = "ipc://pub.sock"
subscribe = "ipc://sub.sock"
snapshot = "ipc://snap.sock"

[gpio.no_more_bets]
pin = 17
bounce_time = 0.1  # long next to a stall of this busy thread: two stalls could fake two presses
[gpio.tower_light]
pin = 5

[shoe]
port = "{port}"
"""


@pytest.fixture
def bridge(tmp_path: Path):
    master, slave = os.openpty()
    tty.setraw(slave)
    port = tmp_path / "ttyACM-shoe"
    port.symlink_to(os.ttyname(slave))
    config = parse_config(CONFIG.format(port=port), tmp_path / "table.toml")
    proxy = Proxy(config.bus_publish, config.bus_subscribe)
    context = zmq.Context()
    factory = MockFactory(pin_class=MockPWMPin)
    bridge = SensorBridge(config, context, pin_factory=factory)
    listener = Subscriber(context, config.bus_subscribe, ("sensor.",))
    yield bridge, listener, factory, master, context, config
    bridge.close()
    listener.close()
    proxy.close()
    context.destroy(linger=0)
    os.close(master)
    os.close(slave)


def _next(listener: Subscriber, kind: type, timeout_s: float = 5.0):
    found = []

    def look() -> bool:
        message = listener.receive(50)
        if message is not None and isinstance(message[1].body, kind):
            found.append(message[1].body)
        return bool(found)

    assert wait_until(look, timeout=timeout_s), f"no {kind.__name__} on the bus"
    return found[0]


def test_a_dealer_button_press_with_contact_bounce_is_one_event_on_the_bus(bridge):
    sensors, listener, factory, _master, _context, _config = bridge
    assert wait_until(lambda: listener.receive(50) is not None)  # the heartbeat: subscribed
    pin = factory.pin(17)
    for _ in range(4):  # contact bounce
        pin.drive_low()
        pin.drive_high()
    pin.drive_low()
    assert _next(listener, ButtonPressed) == ButtonPressed("no_more_bets")
    pin.drive_high()
    sensors.gpio.wait_idle(2)
    extra = [m for m in iter(lambda: listener.receive(200), None) if isinstance(m[1].body, ButtonPressed)]
    assert extra == []


def test_cards_drawn_from_the_shoe_reach_the_bus_with_its_count(bridge):
    sensors, listener, _factory, master, _context, _config = bridge
    assert wait_until(lambda: listener.receive(50) is not None)  # the heartbeat: subscribed
    assert wait_until(lambda: sensors.shoe.connected)
    shoe = ShoeBench(write=lambda frame: os.write(master, frame))
    for _ in range(3):
        shoe.card()
    counts = []
    assert wait_until(lambda: ((m := listener.receive(50)) is not None and isinstance(m[1].body, ShoeCardDrawn)
                               and counts.append(m[1].body.count)) or counts == [1, 2, 3], timeout=5)
    assert counts == [1, 2, 3]


def test_a_critical_flag_from_the_engine_sets_the_tower_light_blinking(bridge):
    sensors, listener, factory, _master, context, config = bridge
    engine = raw_publisher(context, config.bus_publish)
    flag = FlagRaised(coup=1, kind="card_exposed", severity="critical", seat=3, detail="test")
    seq = 0

    def alarm_on() -> bool:
        nonlocal seq
        seq += 1
        send(engine, "core.flag", Envelope("engine", seq, seq, 0, flag))
        sensors.follow_engine(50)
        return sensors.gpio.alarm_level == "critical"

    assert wait_until(alarm_on, timeout=10)
    light = factory.pin(5)
    states = set()
    assert wait_until(lambda: states.add(light.state) or len(states) == 2, timeout=5)  # blinking: on and off
    engine.close()
