"""GPIO sensors and outputs of the stud table, on gpiozero.

Inputs
    * the dealer's three buttons: ``no_more_bets`` ("rien ne va plus"), ``end_of_deal`` ("fin de donne"),
      ``payment_done`` ("paiement terminé") -- a press is an event, a release is not;
    * ``cut_card``: the blue cut card's reflective/colour sensor (a digital line at the shoe's mouth or the
      discard rack) -- both edges are events;
    * ``shoe``: the shoe's presence (or lid) switch -- both edges are events.

Outputs
    * ``tower_light``: steady for a warning, blinking for a critical alarm;
    * ``buzzer``: a short beep pattern for a critical alarm.

Debounce is done here, in software, for every input and every pin factory alike: an edge counts only once the
line has stayed at its new level for ``bounce_time`` seconds (a press with ``hold_time``: for
``max(bounce_time, hold_time)``). Any further edge restarts the wait, so contact bounce gives one event and a glitch
shorter than ``bounce_time`` gives none. gpiozero's own pin-level ``bounce_time`` is left off on purpose: its meaning
differs between pin factories (RPi.GPIO ignores the edges that follow the first one, and so can miss the level the
contact settles at; lgpio waits for a stable level; the mock pins ignore it altogether), so the tests could not
speak for the Pi.

Events go to ``on_event(kind, body)``, called from one worker thread (never concurrently, never with a lock held):

    kind: one of :data:`EVENT_KINDS`
    body: {"device": "cut_card", "pin": "GPIO22",
           "t_ns": <clock() at the edge that began the new level>,
           "confirmed_t_ns": <clock() when the level had been stable long enough>}

The clock is injectable and defaults to :func:`time.monotonic_ns`.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from gpiozero import LED, Button, Buzzer, Device, DigitalInputDevice
from gpiozero.exc import GPIOZeroError

log = logging.getLogger(__name__)

EventCallback = Callable[[str, dict[str, Any]], None]
Clock = Callable[[], int]

BUTTON_KEYS = ("no_more_bets", "end_of_deal", "payment_done")
SENSOR_KEYS = ("cut_card", "shoe")
INPUT_KEYS = BUTTON_KEYS + SENSOR_KEYS
OUTPUT_KEYS = ("tower_light", "buzzer")
DEVICE_KEYS = INPUT_KEYS + OUTPUT_KEYS

#: device key -> (kind when the input becomes active, kind when it becomes inactive or None)
_EDGE_KINDS: dict[str, tuple[str, str | None]] = {
    "no_more_bets": ("no_more_bets_pressed", None),
    "end_of_deal": ("end_of_deal_pressed", None),
    "payment_done": ("payment_done_pressed", None),
    "cut_card": ("cut_card_seen", "cut_card_cleared"),
    "shoe": ("shoe_present", "shoe_removed"),
}
EVENT_KINDS: tuple[str, ...] = tuple(k for pair in _EDGE_KINDS.values() for k in pair if k is not None)

#: severities :meth:`TableSensors.alarm` accepts; "info" is accepted and drives nothing
SEVERITIES = ("info", "warning", "critical")

PULLS = ("up", "down", "floating")
#: a debounce longer than this is taken for milliseconds written as seconds
MAX_BOUNCE_TIME = 5.0


class GpioConfigError(ValueError):
    """A bad GPIO configuration. ``key`` is the device key (``"cut_card"``), ``field`` the setting (or None)."""

    def __init__(self, key: str, field: str | None, message: str) -> None:
        self.key = key
        self.field = field
        where = f"gpio.{key}" if field is None else f"gpio.{key}.{field}"
        super().__init__(f"{where}: {message}")


# --- configuration ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InputConfig:
    """One input line (a button, the cut card sensor, the shoe switch).

    ``pull``: ``"up"`` (internal pull-up; the input is active low unless ``active_state`` says otherwise),
    ``"down"`` (internal pull-down; active high unless told otherwise) or ``"floating"`` (an external resistor or a
    push-pull output; ``active_state`` is then required). ``active_state``: True when a high line means active
    (pressed, card seen, shoe present). ``bounce_time``: seconds a new level must hold before it counts.
    ``hold_time``: buttons only, seconds a press must last before it counts (0: just the debounce).
    """

    pin: int | str
    pull: str = "up"
    active_state: bool | None = None
    bounce_time: float = 0.02
    hold_time: float = 0.0

    @property
    def active_high(self) -> bool:
        if self.active_state is not None:
            return self.active_state
        return self.pull == "down"


@dataclass(frozen=True)
class TowerLightConfig:
    """The tower light: ``active_high`` False for a relay board that switches on a low line."""

    pin: int | str
    active_high: bool = True
    blink_on_time: float = 0.5
    blink_off_time: float = 0.5


@dataclass(frozen=True)
class BuzzerConfig:
    """The buzzer: a critical alarm beeps ``beep_count`` times (0: until the alarm is cleared)."""

    pin: int | str
    active_high: bool = True
    beep_on_time: float = 0.1
    beep_off_time: float = 0.1
    beep_count: int = 3


_DEVICE_CONFIG_TYPES: dict[str, type[Any]] = {
    **{k: InputConfig for k in INPUT_KEYS},
    "tower_light": TowerLightConfig,
    "buzzer": BuzzerConfig,
}


@dataclass(frozen=True)
class GpioConfig:
    """Pins of the table. A device left as None is not fitted: it gives no events, or drives nothing."""

    no_more_bets: InputConfig | None = None
    end_of_deal: InputConfig | None = None
    payment_done: InputConfig | None = None
    cut_card: InputConfig | None = None
    shoe: InputConfig | None = None
    tower_light: TowerLightConfig | None = None
    buzzer: BuzzerConfig | None = None

    def __post_init__(self) -> None:
        self.validate()

    def devices(self) -> dict[str, InputConfig | TowerLightConfig | BuzzerConfig]:
        """The fitted devices, by key, in a fixed order (inputs first)."""
        return {k: getattr(self, k) for k in DEVICE_KEYS if getattr(self, k) is not None}

    def validate(self) -> None:
        """Raise :class:`GpioConfigError` (naming the device key) on the first problem found."""
        seen: dict[str, str] = {}
        for key, dev in self.devices().items():
            expected = _DEVICE_CONFIG_TYPES[key]
            if not isinstance(dev, expected):
                raise GpioConfigError(key, None, f"expected a {expected.__name__}, got {type(dev).__name__}")
            canonical = _check_pin(key, dev.pin)
            if canonical in seen:
                raise GpioConfigError(key, "pin", f"{dev.pin!r} is already used by gpio.{seen[canonical]}")
            seen[canonical] = key
            if isinstance(dev, InputConfig):
                _check_input(key, dev)
            elif isinstance(dev, TowerLightConfig):
                _check_bool(key, "active_high", dev.active_high)
                _check_seconds(key, "blink_on_time", dev.blink_on_time, positive=True)
                _check_seconds(key, "blink_off_time", dev.blink_off_time, positive=True)
            else:
                _check_bool(key, "active_high", dev.active_high)
                _check_seconds(key, "beep_on_time", dev.beep_on_time, positive=True)
                _check_seconds(key, "beep_off_time", dev.beep_off_time, positive=True)
                if isinstance(dev.beep_count, bool) or not isinstance(dev.beep_count, int) or dev.beep_count < 0:
                    raise GpioConfigError(key, "beep_count",
                                          f"must be a whole number >= 0 (0: until cleared), got {dev.beep_count!r}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GpioConfig:
        """Build from plain data, e.g. the ``[gpio]`` table of the table's TOML config::

            [gpio.no_more_bets]
            pin = 17                 # BCM number, or "GPIO17", "BOARD11", "J8:11"
            pull = "up"              # "up" | "down" | "floating"
            active_state = "low"     # "high" | "low" | true | false; optional unless floating
            bounce_time = 0.02       # seconds
            hold_time = 0.0          # seconds, buttons only

            [gpio.tower_light]
            pin = 24
            active_high = true
            blink_on_time = 0.5
            blink_off_time = 0.5

            [gpio.buzzer]
            pin = 25
            beep_on_time = 0.1
            beep_off_time = 0.1
            beep_count = 3           # 0: until cleared

        An entry may also be an already built :class:`InputConfig` etc.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"gpio config: expected a mapping of device keys, got {type(data).__name__}")
        kwargs: dict[str, Any] = {}
        for key, entry in data.items():
            if key not in _DEVICE_CONFIG_TYPES:
                raise GpioConfigError(str(key), None, f"unknown device; expected one of {', '.join(DEVICE_KEYS)}")
            kind = _DEVICE_CONFIG_TYPES[key]
            if isinstance(entry, kind):
                kwargs[key] = entry
                continue
            if not isinstance(entry, Mapping):
                raise GpioConfigError(key, None, f"expected a table of settings, got {entry!r}")
            names = {f.name for f in fields(kind)}
            for name in entry:
                if name not in names:
                    expected = ", ".join(sorted(names))
                    raise GpioConfigError(key, str(name), f"unknown setting; expected one of {expected}")
            if "pin" not in entry:
                raise GpioConfigError(key, "pin", "missing")
            values = dict(entry)
            if kind is InputConfig and "active_state" in values:
                values["active_state"] = _parse_active_state(key, values["active_state"])
            kwargs[key] = kind(**values)
        return cls(**kwargs)


_NUMERIC_PIN = re.compile(r"(?:GPIO|BCM)?(\d+)", re.IGNORECASE)


def _check_pin(key: str, pin: object) -> str:
    """Static check of a pin spec; returns a normalised name for spotting duplicates before the board is known."""
    if isinstance(pin, bool) or not isinstance(pin, int | str):
        raise GpioConfigError(key, "pin", f"expected a BCM number or a pin name such as 'GPIO17', got {pin!r}")
    if isinstance(pin, int):
        if pin < 0:
            raise GpioConfigError(key, "pin", f"invalid pin number {pin}")
        return f"GPIO{pin}"
    spec = pin.strip()
    if not spec or spec != pin:
        raise GpioConfigError(key, "pin", f"invalid pin name {pin!r}")
    m = _NUMERIC_PIN.fullmatch(spec)
    return f"GPIO{int(m.group(1))}" if m else spec.upper()


def _check_bool(key: str, field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise GpioConfigError(key, field, f"expected true or false, got {value!r}")


def _check_seconds(key: str, field: str, value: object, *, positive: bool = False,
                   maximum: float | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise GpioConfigError(key, field, f"expected a number of seconds, got {value!r}")
    if value < 0 or (positive and value == 0):
        raise GpioConfigError(key, field, f"must be {'> 0' if positive else '>= 0'} seconds, got {value!r}")
    if maximum is not None and value > maximum:
        raise GpioConfigError(key, field, f"{value!r} s is more than {maximum} s; the unit is seconds, not ms")


def _check_input(key: str, dev: InputConfig) -> None:
    if dev.pull not in PULLS:
        raise GpioConfigError(key, "pull", f"expected one of {', '.join(PULLS)}, got {dev.pull!r}")
    if dev.active_state is not None:
        _check_bool(key, "active_state", dev.active_state)
    elif dev.pull == "floating":
        raise GpioConfigError(key, "active_state", "required when pull is 'floating' (is the line active high or low?)")
    _check_seconds(key, "bounce_time", dev.bounce_time, maximum=MAX_BOUNCE_TIME)
    _check_seconds(key, "hold_time", dev.hold_time)
    if dev.hold_time and key not in BUTTON_KEYS:
        raise GpioConfigError(key, "hold_time", "only the dealer's buttons take a hold_time")


def _parse_active_state(key: str, value: object) -> object:
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("high", "low"):
            return word == "high"
        raise GpioConfigError(key, "active_state", f"expected 'high' or 'low', got {value!r}")
    return value  # a bool, or something validate() will refuse


# --- the devices ----------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Input:
    key: str
    device: DigitalInputDevice
    pin: str
    press_delay: float
    release_delay: float
    stable: bool
    level: bool
    edge_ns: int
    deadline: float | None = None  # time.monotonic() at which ``level`` counts, if no edge comes first

    def delay(self, level: bool) -> float:
        return self.press_delay if level else self.release_delay


def _severity_name(severity: object) -> str:
    name = getattr(severity, "name", severity)  # also takes controller.rules.flags.Severity
    if isinstance(name, str) and name.lower() in SEVERITIES:
        return name.lower()
    raise ValueError(f"unknown alarm severity {severity!r}; expected one of {', '.join(SEVERITIES)}")


class TableSensors:
    """The table's GPIO devices: debounced input events to ``on_event``, and :meth:`alarm` for the outputs.

    ``config``: a :class:`GpioConfig` or the plain mapping :meth:`GpioConfig.from_dict` takes.
    ``pin_factory``: gpiozero's injection point (``MockFactory()`` in tests); None: gpiozero's default factory.
    ``clock``: the timestamps in event bodies, in ns (default :func:`time.monotonic_ns`); debounce timing itself
    always runs on :func:`time.monotonic`.
    """

    def __init__(self, config: GpioConfig | Mapping[str, Any], on_event: EventCallback, *,
                 pin_factory: Any = None, clock: Clock = time.monotonic_ns) -> None:
        self.config = config if isinstance(config, GpioConfig) else GpioConfig.from_dict(config)
        if not callable(on_event):
            raise TypeError("on_event must be callable as on_event(kind, body)")
        self._on_event = on_event
        self._clock = clock
        if pin_factory is None:
            Device.ensure_pin_factory()
            pin_factory = Device.pin_factory
        self._factory = pin_factory
        self._cond = threading.Condition()
        self._out_lock = threading.Lock()
        self._closed = False
        self._dispatching = False
        self._inputs: dict[str, _Input] = {}
        self._devices: list[Any] = []
        self.tower_light: LED | None = None
        self.buzzer: Buzzer | None = None
        self._alarms: set[str] = set()
        self._alarm_level: str | None = None

        pins = self._resolve_pins()
        try:
            for key, dev in self.config.devices().items():
                try:
                    self._open(key, dev, pins[key])
                except GPIOZeroError as exc:
                    raise GpioConfigError(key, None, f"cannot open {pins[key]}: {exc}") from exc
        except BaseException:
            self._close_devices()
            raise
        self._worker = threading.Thread(target=self._run, name="gpio-debounce", daemon=True)
        self._worker.start()

    # --- set-up ---

    def _resolve_pins(self) -> dict[str, str]:
        """Each device's pin name on this board (``GPIO17``), refusing non-GPIO pins and a pin used twice."""
        board = self._factory.board_info
        pins: dict[str, str] = {}
        owner: dict[str, str] = {}
        for key, dev in self.config.devices().items():
            spec = dev.pin
            found = [info for _header, info in board.find_pin(spec)]
            if not found and isinstance(spec, str) and _NUMERIC_PIN.fullmatch(spec):
                found = [info for _header, info in board.find_pin(_check_pin(key, spec))]
            if not found:
                raise GpioConfigError(key, "pin", f"{spec!r} is not a pin of this board")
            info = found[0]
            if "gpio" not in info.interfaces:
                raise GpioConfigError(key, "pin", f"{spec!r} is {info.name}, not a GPIO pin")
            if info.name in owner:
                raise GpioConfigError(key, "pin", f"{spec!r} is {info.name}, already used by gpio.{owner[info.name]}")
            owner[info.name] = key
            pins[key] = info.name
        return pins

    def _open(self, key: str, dev: Any, pin: str) -> None:
        factory = self._factory
        if isinstance(dev, TowerLightConfig):
            self.tower_light = LED(pin, active_high=dev.active_high, initial_value=False, pin_factory=factory)
            self._devices.append(self.tower_light)
            return
        if isinstance(dev, BuzzerConfig):
            self.buzzer = Buzzer(pin, active_high=dev.active_high, initial_value=False, pin_factory=factory)
            self._devices.append(self.buzzer)
            return
        # gpiozero ties the pull to the active state (up: active low, down: active high); any other pairing is
        # opened as floating with an explicit active state, and the pull set afterwards.
        native = {"up": False, "down": True}
        if dev.pull == "floating":
            pull_up, active_state, late_pull = None, dev.active_state, None
        elif dev.active_state is None or dev.active_state == native[dev.pull]:
            pull_up, active_state, late_pull = dev.pull == "up", None, None
        else:
            pull_up, active_state, late_pull = None, dev.active_state, dev.pull
        if key in BUTTON_KEYS:
            # hold_time given to gpiozero too: its is_held agrees, and its hold thread (which close() joins) never
            # sleeps longer than that (its default, 1 s, would make close() hang that long under a pressed button)
            device = Button(pin, pull_up=pull_up, active_state=active_state, bounce_time=None,
                            hold_time=dev.hold_time, pin_factory=factory)
        else:
            device = DigitalInputDevice(pin, pull_up=pull_up, active_state=active_state, bounce_time=None,
                                        pin_factory=factory)
        self._devices.append(device)
        if late_pull is not None:
            device.pin.pull = late_pull
        level = bool(device.is_active)
        inp = _Input(key=key, device=device, pin=pin, press_delay=max(dev.bounce_time, dev.hold_time),
                     release_delay=dev.bounce_time, stable=level, level=level, edge_ns=self._clock())
        self._inputs[key] = inp
        device.when_activated = lambda: self._on_edge(inp, True)
        device.when_deactivated = lambda: self._on_edge(inp, False)

    # --- inputs ---

    def _on_edge(self, inp: _Input, level: bool) -> None:
        """gpiozero's callback (its thread on the Pi, the driving thread with mock pins): restart the wait."""
        with self._cond:
            if self._closed:
                return
            inp.level = level
            inp.edge_ns = self._clock()
            inp.deadline = time.monotonic() + inp.delay(level)
            self._cond.notify_all()

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                now = time.monotonic()
                events: list[tuple[str, dict[str, Any]]] = []
                next_deadline: float | None = None
                for inp in self._inputs.values():
                    if inp.deadline is None:
                        continue
                    if inp.deadline > now:
                        next_deadline = inp.deadline if next_deadline is None else min(next_deadline, inp.deadline)
                        continue
                    inp.deadline = None
                    try:
                        live = bool(inp.device.is_active)
                    except Exception:  # a read failing on the Pi must not stop the other inputs
                        log.exception("gpio: cannot read %s (%s)", inp.key, inp.pin)
                        live = inp.level
                    if live != inp.level:  # an edge the driver did not report: wait for it to settle too
                        inp.level, inp.edge_ns, inp.deadline = live, self._clock(), now + inp.delay(live)
                        next_deadline = inp.deadline if next_deadline is None else min(next_deadline, inp.deadline)
                        continue
                    if live == inp.stable:
                        continue
                    inp.stable = live
                    kind = _EDGE_KINDS[inp.key][0 if live else 1]
                    if kind is not None:
                        events.append((kind, {"device": inp.key, "pin": inp.pin, "t_ns": inp.edge_ns,
                                              "confirmed_t_ns": self._clock()}))
                if events:
                    self._dispatching = True
                    self._cond.release()
                    try:
                        for kind, body in events:
                            self._emit(kind, body)
                    finally:
                        self._cond.acquire()
                        self._dispatching = False
                    continue
                self._cond.notify_all()  # for wait_idle()
                self._cond.wait(None if next_deadline is None else next_deadline - now)
            self._cond.notify_all()

    def _emit(self, kind: str, body: dict[str, Any]) -> None:
        try:
            self._on_event(kind, body)
        except Exception:
            log.exception("gpio: on_event(%r, %r) raised", kind, body)

    def _idle(self) -> bool:
        return self._closed or (not self._dispatching and all(i.deadline is None for i in self._inputs.values()))

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Wait until no edge is waiting out its debounce and no event is being delivered; False on timeout."""
        with self._cond:
            return self._cond.wait_for(self._idle, timeout)

    def snapshot(self) -> dict[str, bool]:
        """The debounced state of each fitted input: pressed, card seen, shoe present."""
        with self._cond:
            return {key: inp.stable for key, inp in self._inputs.items()}

    # --- outputs ---

    def alarm(self, on: bool, severity: Any = "warning") -> None:
        """Raise (``on``) or clear an alarm of ``severity`` ("warning", "critical"; "info" drives nothing).

        Alarms of different severities are held separately and the outputs show the highest one still raised:
        warning, tower light steady; critical, tower light blinking and the buzzer's beep pattern; none, all off.
        Raising an alarm already raised changes nothing (the beeps do not restart).
        """
        name = _severity_name(severity)
        with self._out_lock:
            if self._closed:
                return
            if on:
                self._alarms.add(name)
            else:
                self._alarms.discard(name)
            level = next((s for s in ("critical", "warning") if s in self._alarms), None)
            if level != self._alarm_level:
                self._alarm_level = level
                self._drive_outputs(level)

    def clear_alarms(self) -> None:
        """Clear every alarm: outputs off."""
        with self._out_lock:
            self._alarms.clear()
            if self._alarm_level is not None and not self._closed:
                self._alarm_level = None
                self._drive_outputs(None)

    @property
    def alarm_level(self) -> str | None:
        """What the outputs show: "critical", "warning" or None."""
        return self._alarm_level

    def _drive_outputs(self, level: str | None) -> None:
        light, buzzer = self.config.tower_light, self.config.buzzer
        if self.tower_light is not None and light is not None:
            if level == "critical":
                self.tower_light.blink(on_time=light.blink_on_time, off_time=light.blink_off_time, background=True)
            elif level == "warning":
                self.tower_light.on()
            else:
                self.tower_light.off()
        if self.buzzer is not None and buzzer is not None:
            if level == "critical":
                self.buzzer.beep(on_time=buzzer.beep_on_time, off_time=buzzer.beep_off_time,
                                 n=buzzer.beep_count or None, background=True)
            else:
                self.buzzer.off()

    # --- shutting down ---

    def close(self) -> None:
        """Stop the events, switch the outputs off and release every device. Safe to call twice."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            self._cond.notify_all()
        if threading.current_thread() is not self._worker:
            self._worker.join(timeout=5.0)
        with self._out_lock:
            self._alarms.clear()
            self._alarm_level = None
            for out in (self.tower_light, self.buzzer):
                if out is not None:
                    try:
                        out.off()
                    except Exception:
                        log.exception("gpio: cannot switch off %r", out)
        self._close_devices()

    def _close_devices(self) -> None:
        # A Button's hold thread notices a stop only every 0.1 s, and close() joins it: tell them all first, so the
        # buttons take 0.1 s together rather than 0.1 s each.
        for device in self._devices:
            stopping = getattr(getattr(device, "_hold_thread", None), "stopping", None)
            if isinstance(stopping, threading.Event):
                stopping.set()
        while self._devices:
            device = self._devices.pop()
            try:
                device.close()
            except Exception:
                log.exception("gpio: cannot close %r", device)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> TableSensors:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
