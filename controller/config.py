"""One TOML file per table: its rules, bus endpoints, store, pins, shoe and camera.

Validated on load: a mistake names the key and the line. Relative paths are
taken from the configuration file's folder.
"""

from __future__ import annotations

import ipaddress
import os
import ssl
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .gpio_config import DEVICE_KEYS, GpioConfig, GpioConfigError
from .profiles import load_profile
from .rules.errors import ProfileError, TableRulesError
from .rules.profile import TableRules
from .rules.tomlread import TomlError, TomlReader, load_toml


class ConfigError(TomlError):
    """A table configuration that cannot be used."""


#: Every key the table's processes read; any other is refused, so that a typo never goes unnoticed.
_SCHEMA: dict[str, set[str]] = {
    "table": {"id", "profile", "minimum_cents", "maximum_cents", "seats", "bonus", "jackpot", "card_purchase",
              "jackpot_meter_cents", "stacked_bets"},
    "bus": {"publish", "subscribe", "snapshot", "keys"},
    "store": {"path", "evidence"},
    "gpio": set(DEVICE_KEYS),
    "shoe": {"port", "baudrate"},
    "sensors": {"events_per_s"},
    "camera": {"source", "layout", "calibration"},
    "web": {"host", "port", "tls_certificate", "tls_key", "secure_cookies", "trusted_proxies",
            "allowed_hosts"},
}

#: bytes: a Unix socket's path holds 108 with its final NUL; ZeroMQ refuses a longer ipc:// path when binding
_IPC_PATH_MAX = 107


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
    #: the most events of one kind (a button, the shoe's card) a second the sensors process passes on; the rest
    #: are dropped and counted (controller/sensors/throttle.py)
    sensor_events_per_s: float = 20.0
    camera_source: str = "sim"
    #: the felt's layout file (controller/felt/layouts/stud-7.toml when not given)
    camera_layout: Path | None = None
    #: where ``stud-table calibrate`` saved the camera's homography (made from the first frames when missing);
    #: ``calibration.json`` beside the configuration when not given
    camera_calibration: Path = Path("calibration.json")
    #: the house rule for a bet built as a casino stack, which an overhead camera cannot count: "confirm" (the dealer
    #: confirms the amount) or "spread" (the display asks him to have it spread, and the camera reads the pile)
    stacked_bets: str = "confirm"
    web_host: str = "127.0.0.1"
    web_port: int = 8080
    #: the review served over HTTPS with this certificate and key (PEM files); plain HTTP when not given
    web_tls_certificate: Path | None = None
    web_tls_key: Path | None = None
    #: the session cookie sent only over HTTPS: true by default with TLS, or set behind a proxy that terminates it
    web_secure_cookies: bool = False
    #: the addresses (or networks) of the reverse proxies whose X-Forwarded-For is believed; no one's when empty,
    #: so a client cannot pick the address the login limit counts against
    web_trusted_proxies: tuple[str, ...] = ()
    #: the Host headers (name:port) the web server answers; any when empty (``controller.web.guard``)
    web_allowed_hosts: tuple[str, ...] = ()
    #: the profile's file, when ``table.profile`` names one rather than a shipped profile
    profile_file: Path | None = None
    #: the folder of the bus's CURVE keys (``stud-table keys``, ``controller.bus.keys``); None: the bus runs
    #: unencrypted, on ipc:// only, its sockets the service user's only
    bus_keys: Path | None = None


def _endpoint(reader: TomlReader, key: str, default: str, base: Path) -> str:
    value = reader.string(key, default)
    if value.startswith("ipc://") and len(value) > len("ipc://"):
        if value.endswith("/"):
            raise reader.fail(key, f"{value!r} names a folder: give the socket's file, like ipc://run/bus.sock")
        # an absolute path stays as it is; '..' is resolved so that one socket has one spelling
        path = Path(os.path.normpath(base / value[len("ipc://"):]))
        if len(str(path).encode()) > _IPC_PATH_MAX:
            raise reader.fail(key, f"the socket's path {path} is longer than {_IPC_PATH_MAX} bytes, the most a Unix "
                                   "socket takes: give a shorter one")
        return f"ipc://{path}"
    # The same text is bound by one process and connected to by the others: a host is needed, and not '*'.
    host, _, port = value.removeprefix("tcp://").rpartition(":")
    if value.startswith("tcp://") and host and host != "*" and port.isascii() and port.isdigit() \
            and 0 < int(port) < 65536:
        return value
    raise reader.fail(key, f"{value!r} is not an endpoint the table's processes can share "
                           "(ipc://PATH or tcp://HOST:PORT, with a host name or address)")


def _bus(reader: TomlReader, base: Path) -> dict[str, str]:
    """The three endpoints, each bound by its own socket: two alike would stop the second process binding."""
    defaults = {"publish": "ipc://run/bus-publish.sock", "subscribe": "ipc://run/bus-subscribe.sock",
                "snapshot": "ipc://run/snapshot.sock"}
    endpoints: dict[str, str] = {}
    for name, default in defaults.items():
        endpoint = _endpoint(reader, f"bus.{name}", default, base)
        for other, taken in endpoints.items():
            # one machine binds them all: a TCP port is taken whatever the host's spelling (localhost, 127.0.0.1)
            if endpoint == taken or (_tcp_port(endpoint) or -1) == _tcp_port(taken):
                raise reader.fail(f"bus.{name}", f"{endpoint!r} is bus.{other}'s endpoint too ({taken!r}): each "
                                                 "needs its own")
        endpoints[name] = endpoint
    return endpoints


def _tcp_port(endpoint: str) -> int | None:
    return int(endpoint.rpartition(":")[2]) if endpoint.startswith("tcp://") else None


#: the configuration's key for each field of ``TableRules``
_RULES_KEYS = {"minimum_cents": "table.minimum_cents", "maximum_cents": "table.maximum_cents",
               "marked_seats": "table.seats", "bonus": "table.bonus", "jackpot": "table.jackpot",
               "card_purchase": "table.card_purchase"}


def _rules(reader: TomlReader, base: Path) -> TableRules:
    """The table's rules: each value's type read here, its bounds checked by ``TableRules`` itself (the rules
    core's one check of a table's setting against its profile), whose refusal is named by key and line."""
    name = reader.string("table.profile")
    try:
        # a profile file, like every path here, is taken from the configuration's folder
        profile = load_profile(base / name if name.endswith(".toml") else name)
    except ProfileError as error:
        raise reader.fail("table.profile", str(error)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise reader.fail("table.profile", f"cannot read {base / name}: {error}") from None
    try:
        return TableRules(
            profile,
            # the configuration's own bound, ten million euros; 0 < minimum <= maximum is the rules' check
            minimum_cents=reader.integer("table.minimum_cents", None, 10**9),
            maximum_cents=reader.integer("table.maximum_cents", None, 10**9),
            marked_seats=reader.integer("table.seats", None, None, profile.marked_seats_max),
            bonus=reader.boolean("table.bonus", False),
            jackpot=reader.boolean("table.jackpot", False),
            card_purchase=reader.boolean("table.card_purchase", False),
        )
    except TableRulesError as error:
        raise reader.fail(_RULES_KEYS[error.field], error.message) from None


def parse_config(text: str, source: Path) -> TableConfig:
    data = load_toml(text, str(source), ConfigError)
    reader = TomlReader(text, str(source), data, ConfigError)
    reader.check_keys(_SCHEMA, set())
    gpio = data.get("gpio", {})
    try:
        GpioConfig.from_dict(gpio)  # the pins as the sensors process will check them, before any process starts
    except GpioConfigError as error:
        key = f"gpio.{error.key}" + (f".{error.field}" if error.field else "")
        raise reader.fail(key, error.reason) from None
    base = source.resolve().parent
    rules = _rules(reader, base)
    bus = _bus(reader, base)
    keys = base / reader.string("bus.keys") if reader.raw("bus.keys", None) is not None else None
    for name, endpoint in bus.items():
        if keys is None and endpoint.startswith("tcp://"):
            raise reader.fail(f"bus.{name}", f"{endpoint!r}: anyone who reaches a TCP port can speak on a bus without "
                                             "keys: set bus.keys (made by `stud-table keys`), or use ipc://")
    camera_source = reader.string("camera.source", "sim")
    if keys is None and camera_source.strip().startswith("zmq+tcp://"):
        raise reader.fail("camera.source", f"{camera_source!r}: anyone who reaches a TCP port can show the camera "
                                           "any frame without keys: set bus.keys (made by `stud-table keys`), or "
                                           "use zmq+ipc://")
    layout = None
    if reader.raw("camera.layout", None) is not None:
        layout = base / reader.string("camera.layout")
        if not layout.is_file():
            raise reader.fail("camera.layout", f"no such file: {layout}")
    shoe_port: Any = reader.raw("shoe.port", None)
    return TableConfig(
        source=source,
        table_id=reader.string("table.id"),
        rules=rules,
        jackpot_meter_cents=reader.integer("table.jackpot_meter_cents", 0, 10**12, 0),
        stacked_bets=_stacked_bets(reader),
        bus_publish=bus["publish"],
        bus_subscribe=bus["subscribe"],
        bus_snapshot=bus["snapshot"],
        store_path=base / reader.string("store.path", "var/table.sqlite"),
        evidence_dir=base / reader.string("store.evidence", "var/evidence"),
        gpio=gpio,
        shoe_port=reader.string("shoe.port") if shoe_port is not None else None,
        shoe_baudrate=reader.integer("shoe.baudrate", 300, 4_000_000, 115200),
        sensor_events_per_s=reader.number("sensors.events_per_s", 1, 100_000, 20.0),
        camera_source=camera_source,
        camera_layout=layout,
        camera_calibration=base / reader.string("camera.calibration", "calibration.json"),
        web_host=reader.string("web.host", "127.0.0.1"),
        web_port=_web_port(reader, bus),
        **_web_security(reader, base),
        profile_file=base / profile if (profile := reader.string("table.profile")).endswith(".toml") else None,
        bus_keys=keys,
    )


#: the house rules for a casino stack (``TableConfig.stacked_bets``)
STACKED_BETS = ("confirm", "spread")


def _stacked_bets(reader: TomlReader) -> str:
    rule = reader.string("table.stacked_bets", "confirm")
    if rule not in STACKED_BETS:
        raise reader.fail("table.stacked_bets", f"expected one of {', '.join(STACKED_BETS)}, got {rule!r}")
    return rule


def _web_port(reader: TomlReader, bus: dict[str, str]) -> int:
    port = reader.integer("web.port", 1, 65535, 8080)
    for name, endpoint in bus.items():
        if _tcp_port(endpoint) == port:
            raise reader.fail("web.port", f"{port} is bus.{name}'s port too ({endpoint!r}): each needs its own")
    return port


def _web_security(reader: TomlReader, base: Path) -> dict[str, Any]:
    files: dict[str, Path | None] = {}
    for name in ("web.tls_certificate", "web.tls_key"):
        file = base / reader.string(name) if reader.raw(name, None) is not None else None
        if file is not None and not file.is_file():
            raise reader.fail(name, f"no such file: {file}")
        files[name] = file
    certificate, key = files["web.tls_certificate"], files["web.tls_key"]
    if (certificate is None) != (key is None):
        missing = "web.tls_key" if key is None else "web.tls_certificate"
        raise reader.fail("web.tls_certificate" if key is None else "web.tls_key",
                          f"HTTPS needs both the certificate and its key: {missing} is missing")
    if certificate is not None and key is not None:
        try:  # read now, so that a wrong file is named with its key rather than when the server starts
            ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(certificate, key)
        except (ssl.SSLError, OSError) as error:
            raise reader.fail("web.tls_certificate", f"{certificate} and {key} are not a PEM certificate and its "
                                                     f"key: {error}") from None
    proxies = reader.raw("web.trusted_proxies", [])
    if not isinstance(proxies, list) or not all(isinstance(proxy, str) for proxy in proxies):
        raise reader.fail("web.trusted_proxies", f"expected a list of addresses, got {proxies!r}")
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy)
        except ValueError:
            raise reader.fail("web.trusted_proxies", f"{proxy!r} is not an address or a network "
                                                     "(like \"192.0.2.10\" or \"10.0.0.0/24\")") from None
    hosts = reader.raw("web.allowed_hosts", [])
    if not isinstance(hosts, list) or not all(isinstance(host, str) and host.strip() for host in hosts):
        raise reader.fail("web.allowed_hosts", f"expected a list of host names with their port, got {hosts!r}")
    return {"web_tls_certificate": certificate, "web_tls_key": key, "web_allowed_hosts": tuple(hosts),
            "web_secure_cookies": reader.boolean("web.secure_cookies", certificate is not None),
            "web_trusted_proxies": tuple(proxies)}


def load_config(path: str | Path) -> TableConfig:
    source = Path(path)
    try:
        raw = source.read_bytes()
    except OSError as error:
        raise ConfigError(str(source), "", None, error.strerror or str(error)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[:error.start].count(b"\n") + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        raise ConfigError(str(source), "", line,
                          f"byte 0x{raw[error.start]:02x} at column {column} is not UTF-8: save the file as UTF-8"
                          ) from None
    return parse_config(text, source)
