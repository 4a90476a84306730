"""The sensors process on the real bus: gpiozero MockFactory pins and the shoe over a pseudo-terminal
in, typed sensor events out; a flag from the engine lights the tower light."""

from __future__ import annotations

import os
import random
import re
import select
import tty
from pathlib import Path

import pytest
import zmq
from busutil import raw_publisher, send, wait_until
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.bus.proxy import Proxy
from controller.bus.schema import (
    ButtonPressed,
    Envelope,
    FlagRaised,
    SensorFlood,
    ShoeCardDrawn,
    ShoeLink,
    TableState,
)
from controller.bus.transport import Subscriber
from controller.config import parse_config
from controller.sensors.bridge import NewCoupWatch, SensorBridge
from controller.sensors.throttle import BURST
from firmware import protocol
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


def _collect(listener: Subscriber, sensors: SensorBridge, until, timeout_s: float = 10.0) -> list:
    """Bodies from the bus (heartbeats left out) until ``until(bodies)``, the bridge's main loop's check run between
    reads as ``run`` does."""
    bodies: list = []

    def look() -> bool:
        sensors.tell_what_calmed()
        message = listener.receive(50)
        if message is not None and message[0] != "sensor.heartbeat":
            bodies.append(message[1].body)
        return until(bodies)

    assert wait_until(look, timeout=timeout_s), f"not seen in {timeout_s} s: {bodies[-5:]}"
    return bodies


def test_serial_noise_is_told_twice_noisy_then_clean_with_its_counts_not_once_per_chunk(bridge):
    sensors, listener, _factory, master, _context, _config = bridge
    assert wait_until(lambda: listener.receive(50) is not None)
    assert wait_until(lambda: sensors.shoe.connected)
    _collect(listener, sensors, lambda bodies: True)
    noise = bytes(random.Random(7).randrange(1, 256) if i % 97 else 0 for i in range(64 * 1024))
    for start in range(0, len(noise), 4096):  # 64 KiB of garbage with frame ends in it: hundreds of corrupt frames
        os.write(master, noise[start:start + 4096])
    links = lambda bodies: [b for b in bodies if isinstance(b, ShoeLink)]  # noqa: E731
    bodies = _collect(listener, sensors, lambda bodies: any(not b.noisy for b in links(bodies)), timeout_s=15)
    noisy, clean = links(bodies)
    assert noisy.noisy and noisy.connected and noisy.detail.startswith("noisy")
    assert not clean.noisy and clean.corrupt_frames == sensors.shoe.stats["corrupt_frames"] > 100
    assert re.fullmatch(r"clean again after \d+ faults", clean.detail)
    # the link still reads the shoe
    ShoeBench(write=lambda frame: os.write(master, frame)).card()
    assert _next(listener, ShoeCardDrawn).count >= 1


def test_a_shoe_sending_cards_faster_than_any_dealer_is_throttled_and_the_drops_counted(bridge):
    sensors, listener, _factory, master, _context, _config = bridge
    assert wait_until(lambda: listener.receive(50) is not None)
    assert wait_until(lambda: sensors.shoe.connected)
    shoe = ShoeBench(write=lambda frame: os.write(master, frame))
    for _ in range(300):
        shoe.card()
    ended = lambda bodies: any(isinstance(b, SensorFlood) and not b.flooding for b in bodies)  # noqa: E731
    bodies = _collect(listener, sensors, ended, timeout_s=15)
    cards = [b.count for b in bodies if isinstance(b, ShoeCardDrawn)]
    floods = [b for b in bodies if isinstance(b, SensorFlood)]
    assert floods[0] == SensorFlood("shoe:card_drawn", flooding=True)
    assert floods[-1].kind == "shoe:card_drawn" and floods[-1].dropped == 300 - len(cards) > 0
    assert cards == sorted(cards) and BURST <= len(cards) < 300


def _host_requests(master: int, decoder: protocol.Decoder) -> list[int]:
    """The frame types the bridge has written to the shoe so far."""
    types = []
    while select.select([master], [], [], 0.05)[0]:
        types += [frame.type for frame in decoder.feed(os.read(master, 4096)) if isinstance(frame, protocol.Frame)]
    return types


def test_each_new_coup_dealt_resets_the_shoe_count_once_on_the_bus(bridge):
    sensors, _listener, _factory, master, context, config = bridge
    assert wait_until(lambda: sensors.shoe.connected)
    engine = raw_publisher(context, config.bus_publish)
    seq = 0

    def publish(body, follow_ms: int = 5000) -> None:
        nonlocal seq
        seq += 1
        send(engine, "core.state" if isinstance(body, TableState) else "core.flag",
             Envelope("engine", seq, seq, 0, body))
        sensors.follow_engine(follow_ms)  # returns as soon as the message is in

    flag = FlagRaised(coup=3, kind="card_exposed", severity="warning", seat=2, detail="test")
    assert wait_until(lambda: publish(flag, 200) or sensors.gpio.alarm_level == "warning", timeout=10)  # subscribed
    while sensors.engine.receive(300) is not None:
        pass  # the probe's flags that arrived late
    decoder = protocol.Decoder()
    _host_requests(master, decoder)  # the status request on opening the port
    resets = []
    for coup, phase in [(3, "decisions"), (3, "paying"), (4, "dealing"), (4, "decisions"), (4, "paying"),
                        (5, "betting"), (5, "dealing"), (5, "showdown")]:
        publish(TableState(_state(coup, phase, 0 if phase in ("betting", "dealing") else 5)))
        if protocol.RESET_COUNT in _host_requests(master, decoder):
            resets.append((coup, phase))
    assert resets == [(4, "dealing"), (5, "dealing")]
    assert sensors.gpio.alarm_level is None  # a new coup clears the alarms
    engine.close()


def _state(coup: int, phase: str, cards: int = 0) -> dict[str, object]:
    return {"coup": coup, "phase": phase, "seats": {"1": {"card_count": cards}}, "dealer": {"card_count": 0}}


@pytest.mark.parametrize(("states", "resets"), [
    # a busy engine's one state per batch: from a coup's payments straight to the next one's deal
    ([_state(3, "decisions", 5), _state(3, "paying", 5), _state(4, "dealing"), _state(4, "decisions", 5),
      _state(5, "betting"), _state(5, "dealing"), _state(5, "showdown", 5)], [2, 5]),
    # started while a coup's cards are being dealt: that coup keeps the shoe's count
    ([_state(4, "dealing", 2), _state(4, "decisions", 5), _state(5, "dealing")], [2]),
    # started between coups, the next state already the next coup's deal (no card out yet)
    ([_state(4, "dealing"), _state(4, "decisions", 5), _state(5, "dealing")], [0, 2]),
    # started during the bets
    ([_state(4, "betting"), _state(4, "dealing")], [1]),
    # the engine on a new store counts its coups from 1 again
    ([_state(7, "betting"), _state(7, "dealing"), _state(1, "closed"), _state(1, "betting"), _state(1, "dealing"),
      _state(1, "paying", 5)], [1, 4]),
])
def test_the_shoe_count_is_reset_once_per_coup_dealt_told_by_its_number(states, resets):
    watch = NewCoupWatch()
    assert [k for k, state in enumerate(states) if watch.dealt(state)] == resets
