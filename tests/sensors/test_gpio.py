"""The table's GPIO sensors and outputs, on gpiozero's MockFactory: pins driven as the hardware would drive them.

Mock pins call gpiozero's callbacks in the thread that drives them; the debounce runs in TableSensors' own worker
thread. Tests wait on events (or on ``wait_idle``) with timeouts rather than sleeping for fixed times.
"""

from __future__ import annotations

import itertools
import threading
import time
import tomllib
from collections.abc import Callable
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPin

from controller.gpio_config import GpioConfig, GpioConfigError, InputConfig, gpio_pin
from controller.sensors.gpio import EVENT_KINDS, TableSensors

BOUNCE = 0.1  # seconds: long next to a few ms of simulated contact bounce, so a busy machine cannot fake stability
TIMEOUT = 5.0


class Recorder:
    """on_event that records, and lets a test wait for the n-th event."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self._cond = threading.Condition()

    def __call__(self, kind: str, body: dict[str, Any]) -> None:
        with self._cond:
            self.events.append((kind, body))
            self._cond.notify_all()

    def wait_for(self, n: int, timeout: float = TIMEOUT) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: len(self.events) >= n, timeout)

    @property
    def kinds(self) -> list[str]:
        return [k for k, _ in self.events]


def wait_until(predicate: Callable[[], bool], timeout: float = TIMEOUT) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.005)
    return predicate()


def bounce_to(pin: MockPin, high: bool, toggles: int = 4) -> int:
    """Contact bounce: the line flips ``toggles`` times within a few ms, then settles at ``high``. Returns the
    monotonic clock (ns) just before the last edge."""
    first, second = (pin.drive_high, pin.drive_low) if high else (pin.drive_low, pin.drive_high)
    for _ in range(toggles):
        first()
        time.sleep(0.0005)
        second()
        time.sleep(0.0005)
    before_last_edge = time.monotonic_ns()
    first()
    return before_last_edge


def full_config(**overrides: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "no_more_bets": {"pin": 17, "bounce_time": BOUNCE},
        "end_of_deal": {"pin": 27, "bounce_time": BOUNCE},
        "payment_done": {"pin": 23, "bounce_time": BOUNCE},
        "cut_card": {"pin": 22, "pull": "down", "bounce_time": BOUNCE},  # push-pull output, high on the blue card
        "shoe": {"pin": 5, "bounce_time": BOUNCE},  # switch to ground: closed (low) when the shoe is in place
        "tower_light": {"pin": 24, "blink_on_time": 0.02, "blink_off_time": 0.02},
        "buzzer": {"pin": 25, "beep_on_time": 0.01, "beep_off_time": 0.01, "beep_count": 3},
    }
    cfg.update(overrides)
    return cfg


@pytest.fixture
def factory() -> MockFactory:
    f = MockFactory()
    yield f
    f.reset()


@pytest.fixture
def table(factory: MockFactory):
    rec = Recorder()
    sensors = TableSensors(full_config(), rec, pin_factory=factory)
    yield sensors, rec, factory
    sensors.close()


# --- buttons ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("pin", "kind", "key"), [
    (17, "no_more_bets_pressed", "no_more_bets"),
    (27, "end_of_deal_pressed", "end_of_deal"),
    (23, "payment_done_pressed", "payment_done"),
])
def test_a_bouncing_press_is_one_event_and_the_release_none(table, pin, kind, key):
    sensors, rec, factory = table
    p = factory.pin(pin)
    assert p.state is True  # pulled up, not pressed

    bounce_to(p, high=False)  # press: the contact bounces, settles low
    assert rec.wait_for(1)
    bounce_to(p, high=True)  # release: bounces too
    assert sensors.wait_idle(TIMEOUT)

    assert rec.kinds == [kind]
    body = rec.events[0][1]
    assert body["device"] == key
    assert body["pin"] == f"GPIO{pin}"
    assert isinstance(body["t_ns"], int) and body["t_ns"] <= body["confirmed_t_ns"]

    bounce_to(p, high=False)  # the next press counts again
    assert rec.wait_for(2)
    assert rec.kinds == [kind, kind]


def test_a_press_counts_only_after_the_line_is_stable_for_bounce_time(table):
    _, rec, factory = table
    p = factory.pin(17)
    before_last_edge = bounce_to(p, high=False)
    assert rec.wait_for(1)
    body = rec.events[0][1]
    # Timed from the last edge (not the first), on the driver's clock: a stall in this thread cannot shorten it.
    assert body["t_ns"] >= before_last_edge
    assert body["confirmed_t_ns"] - before_last_edge >= BOUNCE * 0.95 * 1e9


def test_a_tap_shorter_than_the_debounce_is_not_a_press(table):
    sensors, rec, factory = table
    p = factory.pin(27)
    p.drive_low()
    p.drive_high()
    assert sensors.wait_idle(TIMEOUT)
    assert rec.events == []


def test_hold_time_ignores_short_presses(factory):
    rec = Recorder()
    cfg = {"no_more_bets": {"pin": 17, "bounce_time": 0.01, "hold_time": 0.3}}
    with TableSensors(cfg, rec, pin_factory=factory) as sensors:
        p = factory.pin(17)
        bounce_to(p, high=False)
        time.sleep(0.05)  # a brush of the button: well past the debounce, well short of the hold time
        bounce_to(p, high=True)
        assert sensors.wait_idle(TIMEOUT)
        assert rec.events == []

        started = time.monotonic()
        bounce_to(p, high=False)
        assert rec.wait_for(1)
        assert time.monotonic() - started >= 0.3 * 0.95
        assert rec.kinds == ["no_more_bets_pressed"]


def test_timestamps_come_from_the_injected_clock(factory):
    rec = Recorder()
    ticks = itertools.count(1_000, 1_000)
    with TableSensors({"payment_done": {"pin": 23, "bounce_time": 0.01}}, rec, pin_factory=factory,
                      clock=lambda: next(ticks)) as sensors:
        bounce_to(factory.pin(23), high=False)
        assert rec.wait_for(1)
        assert sensors.wait_idle(TIMEOUT)
    body = rec.events[0][1]
    assert body["t_ns"] % 1_000 == 0 and body["confirmed_t_ns"] % 1_000 == 0
    assert 1_000 < body["t_ns"] < body["confirmed_t_ns"]  # the last edge of the bounce, then the confirmation


# --- cut card and shoe ------------------------------------------------------------------------------------------


def test_a_cut_card_glitch_shorter_than_the_debounce_gives_nothing(table):
    sensors, rec, factory = table
    p = factory.pin(22)
    p.drive_high()
    time.sleep(0.002)
    p.drive_low()
    assert sensors.wait_idle(TIMEOUT)
    assert rec.events == []
    assert sensors.snapshot()["cut_card"] is False


def test_the_cut_card_gives_seen_then_cleared(table):
    sensors, rec, factory = table
    p = factory.pin(22)
    bounce_to(p, high=True)
    assert rec.wait_for(1)
    assert sensors.snapshot()["cut_card"] is True
    bounce_to(p, high=False)
    assert rec.wait_for(2)
    assert sensors.wait_idle(TIMEOUT)
    assert rec.kinds == ["cut_card_seen", "cut_card_cleared"]
    assert all(body["pin"] == "GPIO22" and body["device"] == "cut_card" for _, body in rec.events)


def test_the_shoe_switch_gives_present_then_removed(table):
    sensors, rec, factory = table
    p = factory.pin(5)
    assert sensors.snapshot()["shoe"] is False
    bounce_to(p, high=False)  # the shoe goes in: the switch closes to ground
    assert rec.wait_for(1)
    bounce_to(p, high=True)
    assert rec.wait_for(2)
    assert sensors.wait_idle(TIMEOUT)
    assert rec.kinds == ["shoe_present", "shoe_removed"]
    assert sensors.snapshot()["shoe"] is False


def test_pull_up_with_an_active_high_sensor(factory):
    # an open-collector output that releases the line (pulled up) when it sees the blue card
    rec = Recorder()
    cfg = {"cut_card": {"pin": 22, "pull": "up", "active_state": "high", "bounce_time": 0.01}}
    with TableSensors(cfg, rec, pin_factory=factory) as sensors:
        p = factory.pin(22)
        assert p.pull == "up"
        assert sensors.snapshot() == {"cut_card": True}
        bounce_to(p, high=False)
        assert rec.wait_for(1)
        bounce_to(p, high=True)
        assert rec.wait_for(2)
        assert rec.kinds == ["cut_card_cleared", "cut_card_seen"]


def test_floating_input_with_an_active_state(factory):
    rec = Recorder()
    cfg = {"cut_card": {"pin": 22, "pull": "floating", "active_state": False, "bounce_time": 0.01}}
    with TableSensors(cfg, rec, pin_factory=factory) as sensors:
        p = factory.pin(22)
        assert p.pull == "floating"
        assert sensors.snapshot() == {"cut_card": True}  # a floating mock pin reads low: active
        bounce_to(p, high=True)
        assert rec.wait_for(1)
        bounce_to(p, high=False)
        assert rec.wait_for(2)
        assert rec.kinds == ["cut_card_cleared", "cut_card_seen"]


def test_a_failing_on_event_does_not_stop_the_events(factory):
    got: list[str] = []
    seen = threading.Event()

    def on_event(kind: str, body: dict[str, Any]) -> None:
        got.append(kind)
        if len(got) == 1:
            raise RuntimeError("bus down")
        seen.set()

    with TableSensors({"shoe": {"pin": 5, "bounce_time": 0.01}}, on_event, pin_factory=factory):
        p = factory.pin(5)
        p.drive_low()
        assert wait_until(lambda: len(got) >= 1)
        p.drive_high()
        assert seen.wait(TIMEOUT)
        assert got == ["shoe_present", "shoe_removed"]


def test_event_kinds_are_the_published_ones():
    assert set(EVENT_KINDS) == {
        "no_more_bets_pressed", "end_of_deal_pressed", "payment_done_pressed",
        "cut_card_seen", "cut_card_cleared", "shoe_present", "shoe_removed",
    }


# --- outputs ------------------------------------------------------------------------------------------------------


def test_a_critical_alarm_blinks_the_light_and_beeps_then_clears(table):
    sensors, _, factory = table
    light, buzzer = factory.pin(24), factory.pin(25)
    sensors.alarm(True, "critical")
    assert sensors.alarm_level == "critical"
    assert wait_until(lambda: len(light.states) >= 6)  # blinking: on, off, on, off, ...
    light.assert_states([False, True, False, True, False, True])
    # three short beeps, then silence while the light keeps blinking
    assert wait_until(lambda: len(buzzer.states) >= 7)
    buzzer.assert_states([False, True, False, True, False, True, False])
    assert buzzer.state is False

    sensors.alarm(False, "critical")
    assert sensors.alarm_level is None
    assert light.state is False and buzzer.state is False
    n = len(light.states)
    time.sleep(0.1)  # several blink periods: checks for the absence of toggles, so a fixed wait
    assert len(light.states) == n  # the blink thread was stopped, not left running


def test_a_warning_is_a_steady_light_without_the_buzzer(table):
    sensors, _, factory = table
    light, buzzer = factory.pin(24), factory.pin(25)
    sensors.alarm(True, "warning")
    assert light.state is True
    assert [s.state for s in light.states] == [False, True]
    assert [s.state for s in buzzer.states] == [False]
    sensors.alarm(False, "warning")
    assert light.state is False


def test_the_highest_raised_alarm_wins(table):
    sensors, _, factory = table
    light = factory.pin(24)
    sensors.alarm(True, "warning")
    sensors.alarm(True, "critical")
    assert wait_until(lambda: len(light.states) >= 5)
    sensors.alarm(False, "critical")  # the warning is still raised: steady again
    assert sensors.alarm_level == "warning"
    assert light.state is True
    n = len(light.states)
    time.sleep(0.1)  # several blink periods: checks for the absence of toggles, so a fixed wait
    assert len(light.states) == n
    sensors.alarm(True, "info")  # info drives nothing
    sensors.alarm(False, "warning")
    assert sensors.alarm_level is None and light.state is False


def test_clear_alarms_switches_everything_off(table):
    sensors, _, factory = table
    sensors.alarm(True, "warning")
    sensors.alarm(True, "critical")
    sensors.clear_alarms()
    assert sensors.alarm_level is None
    assert factory.pin(24).state is False and factory.pin(25).state is False


def test_alarm_accepts_the_rules_severity_enum(table):
    from controller.rules.flags import Severity

    sensors, _, factory = table
    sensors.alarm(True, Severity.WARNING)
    assert factory.pin(24).state is True
    sensors.alarm(False, Severity.WARNING)
    assert factory.pin(24).state is False


def test_an_unknown_severity_is_refused(table):
    sensors, _, _ = table
    with pytest.raises(ValueError, match="severity"):
        sensors.alarm(True, "panic")


def test_active_low_outputs(factory):
    cfg = {"tower_light": {"pin": 24, "active_high": False}, "buzzer": {"pin": 25, "active_high": False}}
    with TableSensors(cfg, Recorder(), pin_factory=factory) as sensors:
        assert factory.pin(24).state is True and factory.pin(25).state is True  # off
        sensors.alarm(True, "warning")
        assert factory.pin(24).state is False


# --- closing --------------------------------------------------------------------------------------------------------


def test_close_releases_every_device(factory):
    rec = Recorder()
    sensors = TableSensors(full_config(), rec, pin_factory=factory)
    sensors.alarm(True, "critical")
    devices = list(sensors._devices)
    assert len(devices) == 7
    sensors.close()
    assert sensors.closed
    assert not any(t.name == "gpio-debounce" and t.is_alive() for t in threading.enumerate())
    assert factory.pin(24).state is False and factory.pin(25).state is False
    assert all(d.closed for d in devices)

    factory.pin(17).drive_low()  # nobody listens any more
    assert rec.events == []
    sensors.alarm(True, "critical")  # a no-op once closed
    sensors.close()  # twice is fine

    again = TableSensors(full_config(), rec, pin_factory=factory)  # the pins are free again
    again.close()


def test_a_device_that_cannot_open_releases_the_others(factory):
    # GPIO2 has a fixed pull-up (I2C) on the board: asking for a pull-down fails once the buttons are open
    cfg = full_config(shoe={"pin": 2, "pull": "down"})
    with pytest.raises(GpioConfigError, match=r"gpio\.shoe") as err:
        TableSensors(cfg, Recorder(), pin_factory=factory)
    assert err.value.key == "shoe"
    TableSensors(full_config(), Recorder(), pin_factory=factory).close()  # nothing was left reserved


def test_the_default_pin_factory_is_gpiozeros(factory, monkeypatch):
    monkeypatch.setattr(Device, "pin_factory", factory)
    rec = Recorder()
    with TableSensors({"no_more_bets": {"pin": 17, "bounce_time": 0.01}}, rec):
        factory.pin(17).drive_low()
        assert rec.wait_for(1)


# --- configuration ------------------------------------------------------------------------------------------------


def test_the_toml_form_loads():
    doc = tomllib.loads("""
        [gpio.no_more_bets]
        pin = 17
        [gpio.end_of_deal]
        pin = "GPIO27"
        bounce_time = 0.03
        hold_time = 0.2
        [gpio.payment_done]
        pin = "BOARD16"
        [gpio.cut_card]
        pin = 22
        pull = "floating"
        active_state = "high"
        bounce_time = 0.005
        [gpio.shoe]
        pin = 5
        active_state = "low"
        [gpio.tower_light]
        pin = 24
        active_high = false
        [gpio.buzzer]
        pin = 25
        beep_count = 0
    """)
    cfg = GpioConfig.from_dict(doc["gpio"])
    assert cfg.end_of_deal == InputConfig(pin="GPIO27", bounce_time=0.03, hold_time=0.2)
    assert cfg.cut_card is not None and cfg.cut_card.active_state is True and cfg.cut_card.active_high
    assert cfg.shoe is not None and cfg.shoe.active_high is False
    assert cfg.buzzer is not None and cfg.buzzer.beep_count == 0
    assert list(cfg.devices()) == ["no_more_bets", "end_of_deal", "payment_done", "cut_card", "shoe",
                                   "tower_light", "buzzer"]


@pytest.mark.parametrize(("cfg", "key", "words"), [
    ({"no_more_bets": {"pin": 17}, "end_of_deal": {"pin": "GPIO17"}}, "end_of_deal", "no_more_bets"),
    ({"cut_card": {"pin": "BCM22", "pull": "down"}, "buzzer": {"pin": 22}}, "buzzer", "cut_card"),
    ({"no_more_bets": {"pin": 17}, "end_of_deal": {"pin": "BOARD11"}}, "end_of_deal", "GPIO17, already used"),
    ({"shoe": {"pin": "J8:11"}, "buzzer": {"pin": "gpio17"}}, "buzzer", "already used by gpio.shoe"),
    ({"shoe": {"pin": -1}}, "shoe", "not a GPIO pin"),
    ({"shoe": {"pin": True}}, "shoe", "BCM number"),
    ({"shoe": {"pin": 4.0}}, "shoe", "BCM number"),
    ({"shoe": {"pin": ""}}, "shoe", "not a GPIO pin"),
    ({"shoe": {"pin": " 17"}}, "shoe", "not a GPIO pin"),
    ({"shoe": {"pin": "x"}}, "shoe", "not a GPIO pin"),
    ({"shoe": {"pin": "GPIO99"}}, "shoe", "not a GPIO pin"),
    ({"shoe": {"pin": 40}}, "shoe", "not a GPIO pin"),
    ({"shoe": {"pin": "WPI0"}}, "shoe", "not a GPIO pin"),  # wiringPi numbers are not taken
    ({"tower_light": {"pin": "BOARD1"}}, "tower_light", "not a GPIO pin"),  # 3V3
    ({"tower_light": {"pin": "J8:6"}}, "tower_light", "not a GPIO pin"),  # ground
    ({"tower_light": {"pin": "GND"}}, "tower_light", "not a GPIO pin"),
    ({"cut_card": {"pin": 22, "bounce_time": -0.01}}, "cut_card", ">= 0"),
    ({"cut_card": {"pin": 22, "bounce_time": 20}}, "cut_card", "not ms"),
    ({"cut_card": {"pin": 22, "bounce_time": "20ms"}}, "cut_card", "seconds"),
    ({"cut_card": {"pin": 22, "bounce_time": float("nan")}}, "cut_card", "seconds"),
    ({"payment_done": {"pin": 23, "hold_time": -1}}, "payment_done", ">= 0"),
    ({"shoe": {"pin": 5, "hold_time": 1.0}}, "shoe", "buttons"),
    ({"cut_card": {"pin": 22, "pull": "floating"}}, "cut_card", "active_state"),
    ({"cut_card": {"pin": 22, "pull": "sideways"}}, "cut_card", "pull"),
    ({"cut_card": {"pin": 22, "active_state": "on"}}, "cut_card", "'high' or 'low'"),
    ({"tower_light": {"pin": 24, "blink_on_time": 0}}, "tower_light", "> 0"),
    ({"tower_light": {"pin": 24, "active_high": "yes"}}, "tower_light", "true or false"),
    ({"buzzer": {"pin": 25, "beep_count": -1}}, "buzzer", "beep_count"),
    ({"buzzer": {"pin": 25, "beep_count": 2.5}}, "buzzer", "beep_count"),
    ({"buzzer": {}}, "buzzer", "missing"),
    ({"buzzer": {"pin": 25, "volume": 11}}, "buzzer", "unknown setting"),
    ({"siren": {"pin": 25}}, "siren", "unknown device"),
    ({"shoe": 5}, "shoe", "table of settings"),
])
def test_bad_configs_name_the_device(cfg, key, words):
    with pytest.raises(GpioConfigError) as err:
        GpioConfig.from_dict(cfg)
    assert err.value.key == key
    assert f"gpio.{key}" in str(err.value)
    assert words in str(err.value)


def test_the_pin_check_agrees_with_gpiozeros_board(factory):
    """The configuration's own pin check (run by every process, without gpiozero) names the same GPIO as
    gpiozero's 40-pin header for every pin and spelling, and refuses the power and ground pins."""
    for _number, info in factory.board_info.headers["J8"].pins.items():
        for name in info.names:
            if isinstance(name, str) and name.startswith(("WPI", "3V3", "5V", "GND")):
                continue
            if "gpio" in info.interfaces:
                assert gpio_pin("shoe", name) == info.name
            else:
                with pytest.raises(GpioConfigError, match="not a GPIO pin"):
                    gpio_pin("shoe", name)


def test_a_pin_missing_from_the_board_is_refused_when_opened():
    # The first Pi's 26-pin header has no GPIO27: the board, not the configuration, knows that.
    old_board = MockFactory(revision="0002")
    try:
        with pytest.raises(GpioConfigError, match=r"end_of_deal\.pin: 27 \(GPIO27\) is not a GPIO pin of this board"):
            TableSensors({"end_of_deal": {"pin": 27}}, Recorder(), pin_factory=old_board)
    finally:
        old_board.reset()


def test_dataclass_configs_are_validated_too():
    with pytest.raises(GpioConfigError, match=r"gpio\.cut_card\.bounce_time"):
        GpioConfig(cut_card=InputConfig(pin=22, bounce_time=-1))
    with pytest.raises(GpioConfigError, match=r"gpio\.shoe"):
        GpioConfig(shoe={"pin": 5})  # type: ignore[arg-type]


def test_pin_spellings_resolve_to_one_gpio(factory):
    rec = Recorder()
    cfg = {"no_more_bets": {"pin": "gpio17", "bounce_time": 0.01}, "shoe": {"pin": "BOARD29", "bounce_time": 0.01}}
    with TableSensors(cfg, rec, pin_factory=factory):
        factory.pin(5).drive_low()  # BOARD29 is GPIO5
        factory.pin(17).drive_low()
        assert rec.wait_for(2)
        assert sorted((b["device"], b["pin"]) for _, b in rec.events) == [("no_more_bets", "GPIO17"), ("shoe", "GPIO5")]
