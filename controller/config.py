"""One TOML file per table: its rules, bus endpoints, store, pins, shoe and camera.

Validated on load: a mistake names the key and the line. Relative paths are
taken from the configuration file's folder.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .profiles import load_profile
from .rules.errors import ProfileError
from .rules.profile import TableRules
from .rules.tomlread import TomlError, TomlReader, load_toml
from .sensors.gpio import GpioConfig, GpioConfigError


class ConfigError(TomlError):
    """A table configuration that cannot be used."""


_SCHEMA: dict[str, set[str]] = {
    "table": {"id", "profile", "minimum_cents", "maximum_cents", "seats", "bonus", "jackpot", "card_purchase",
              "jackpot_meter_cents"},
    "bus": {"publish", "subscribe", "snapshot"},
    "store": {"path", "evidence"},
    "shoe": {"port", "baudrate"},
    "camera": {"source", "width", "height", "fps", "layout", "calibration"},
    "web": {"host", "port"},
}


@dataclass(frozen=True)
class TableConfig:
    source: Path
    table_id: str
    rules: TableRules
    jackpot_meter_cents: int
    bus_publish: str
    bus_subscribe: str
    bus_snapshot: str
    store_path: Path
    evidence_dir: Path
    #: the ``[gpio]`` table, checked by ``GpioConfig``; empty when the table has no GPIO
    gpio: dict[str, Any] = field(default_factory=dict)
    shoe_port: str | None = None
    shoe_baudrate: int = 115200
    camera_source: str = "sim"
    #: the felt's layout file (vision/layouts/stud-7.toml when not given)
    camera_layout: Path | None = None
    #: where ``stud-table calibrate`` saved the camera's homography (made from the first frames when missing);
    #: ``calibration.json`` beside the configuration when not given
    camera_calibration: Path = Path("calibration.json")
    web_host: str = "127.0.0.1"
    web_port: int = 8080


def _endpoint(reader: TomlReader, key: str, default: str, base: Path) -> str:
    value = reader.string(key, default)
    if not value.startswith(("ipc://", "tcp://", "inproc://")):
        raise reader.fail(key, f"{value!r} is not a ZeroMQ endpoint (ipc://PATH or tcp://HOST:PORT)")
    if value.startswith("ipc://") and not value.startswith("ipc:///"):
        value = "ipc://" + str(base / value[len("ipc://"):])
    return value


def parse_config(text: str, source: Path) -> TableConfig:
    data = load_toml(text, str(source), ConfigError)
    gpio = data.pop("gpio", {})
    reader = TomlReader(text, str(source), data, ConfigError)
    reader.check_keys(_SCHEMA, set())
    try:
        GpioConfig.from_dict(gpio)
    except GpioConfigError as error:
        key = f"gpio.{error.key}" + (f".{error.field}" if error.field else "")
        raise reader.fail(key, str(error)) from None
    base = source.resolve().parent
    profile_name = reader.string("table.profile")
    try:
        profile = load_profile(profile_name)
    except ProfileError as error:
        raise reader.fail("table.profile", str(error)) from None
    try:
        rules = TableRules(
            profile,
            minimum_cents=reader.integer("table.minimum_cents", 1, 10**9),
            maximum_cents=reader.integer("table.maximum_cents", 1, 10**9),
            marked_seats=reader.integer("table.seats", 1, 7, profile.marked_seats_max),
            bonus=reader.boolean("table.bonus", False),
            jackpot=reader.boolean("table.jackpot", False),
            card_purchase=reader.boolean("table.card_purchase", False),
        )
    except ValueError as error:
        if isinstance(error, TomlError):
            raise
        raise reader.fail("table", str(error)) from None
    store_path = base / reader.string("store.path", "var/table.sqlite")
    shoe_port: Any = reader.raw("shoe.port", None)
    return TableConfig(
        source=source,
        table_id=reader.string("table.id"),
        rules=rules,
        jackpot_meter_cents=reader.integer("table.jackpot_meter_cents", 0, 10**12, 0),
        bus_publish=_endpoint(reader, "bus.publish", "ipc://run/bus-publish.sock", base),
        bus_subscribe=_endpoint(reader, "bus.subscribe", "ipc://run/bus-subscribe.sock", base),
        bus_snapshot=_endpoint(reader, "bus.snapshot", "ipc://run/snapshot.sock", base),
        store_path=store_path,
        evidence_dir=base / reader.string("store.evidence", "var/evidence"),
        gpio=gpio,
        shoe_port=reader.string("shoe.port") if shoe_port is not None else None,
        shoe_baudrate=reader.integer("shoe.baudrate", 300, 4_000_000, 115200),
        camera_source=reader.string("camera.source", "sim"),
        camera_layout=base / reader.string("camera.layout") if reader.raw("camera.layout", None) else None,
        camera_calibration=base / reader.string("camera.calibration", "calibration.json"),
        web_host=reader.string("web.host", "127.0.0.1"),
        web_port=reader.integer("web.port", 1, 65535, 8080),
    )


def load_config(path: str | Path) -> TableConfig:
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(str(source), "(file)", None, error.strerror or str(error)) from None
    return parse_config(text, source)
