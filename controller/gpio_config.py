"""The table's GPIO settings (the ``[gpio]`` table of its configuration), checked without gpiozero.

Kept apart from ``sensors/gpio.py`` so that every process can check a configuration, pins included, without loading
gpiozero: only the sensors process opens the pins.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .errors import StudTableError

BUTTON_KEYS = ("no_more_bets", "end_of_deal", "payment_done")
SENSOR_KEYS = ("cut_card", "shoe")
INPUT_KEYS = BUTTON_KEYS + SENSOR_KEYS
OUTPUT_KEYS = ("tower_light", "buzzer")
DEVICE_KEYS = INPUT_KEYS + OUTPUT_KEYS

PULLS = ("up", "down", "floating")
#: a debounce longer than this is taken for milliseconds written as seconds
MAX_BOUNCE_TIME = 5.0


class GpioConfigError(StudTableError, ValueError):
    """A bad GPIO configuration. ``key`` is the device key (``"cut_card"``), ``field`` the setting (or None)."""

    def __init__(self, key: str, field: str | None, message: str) -> None:
        self.key = key
        self.field = field
        self.reason = message  # without the key, for messages that name it their own way
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
            canonical = gpio_pin(key, dev.pin)
            if canonical in seen:
                raise GpioConfigError(key, "pin", f"{dev.pin!r} is {canonical}, already used by gpio.{seen[canonical]}")
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


#: The 40-pin J8 header of every Raspberry Pi since the B+ (2014): physical pin -> BCM GPIO number. The others are
#: power and ground. gpiozero's board data agrees (tests/engine/test_config.py checks it against its mock Pi).
_HEADER_GPIO = {3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10, 21: 9,
                22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19, 36: 16, 37: 26,
                38: 20, 40: 21}
_PIN_SPEC = re.compile(r"(GPIO|BCM|BOARD|J8:)?(\d+)", re.IGNORECASE)
PIN_HELP = "BCM number 0-27 or a name like GPIO17, BOARD11 or J8:11"


def gpio_pin(key: str, pin: object) -> str:
    """The GPIO that ``pin`` names on the 40-pin header (``"GPIO17"``); anything else is refused.

    Run when the configuration is loaded, so that a pin the sensors process could not open stops every process
    before one starts; the sensors process then asks its board for the GPIO by this name.
    """
    if isinstance(pin, bool) or not isinstance(pin, int | str):
        raise GpioConfigError(key, "pin", f"{pin!r} is not a GPIO pin ({PIN_HELP})")
    m = _PIN_SPEC.fullmatch(str(pin))
    number = int(m.group(2)) if m else None
    if m and m.group(1) and m.group(1).upper() in ("BOARD", "J8:"):
        number = _HEADER_GPIO.get(int(m.group(2)))
    if number is None or not 0 <= number <= 27:
        raise GpioConfigError(key, "pin", f"{pin!r} is not a GPIO pin ({PIN_HELP})")
    return f"GPIO{number}"


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

