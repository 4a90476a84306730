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
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, Button, Buzzer, Device, DigitalInputDevice
from gpiozero.exc import GPIOZeroError

from controller.gpio_config import (
    BUTTON_KEYS,
    BuzzerConfig,
    GpioConfig,
    GpioConfigError,
    TowerLightConfig,
    gpio_pin,
)

log = logging.getLogger(__name__)

EventCallback = Callable[[str, dict[str, Any]], None]
Clock = Callable[[], int]


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
        """Each device's pin name on this board (``GPIO17``): the configuration's own check has already named the
        GPIO (and refused a pin used twice); this board must also have it on its header."""
        board = self._factory.board_info
        pins: dict[str, str] = {}
        for key, dev in self.config.devices().items():
            name = gpio_pin(key, dev.pin)
            found = [info for _header, info in board.find_pin(name)]
            if not found or "gpio" not in found[0].interfaces:
                raise GpioConfigError(key, "pin", f"{dev.pin!r} ({name}) is not a GPIO pin of this board")
            pins[key] = found[0].name
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
