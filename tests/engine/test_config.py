"""The table's configuration: every wrong value is refused on load, naming the key and the line, before any
process starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import ConfigError, load_config

ROOT = Path(__file__).resolve().parents[2]
STUD_TABLE = Path(sys.executable).parent / "stud-table"

BASE = """\
[table]
id = "t1"
profile = "fr-2007"
minimum_cents = 1000
maximum_cents = 50000
seats = 7
bonus = true
card_purchase = false
jackpot = false
jackpot_meter_cents = 0

[bus]
publish = "ipc://run/pub.sock"
subscribe = "ipc://run/sub.sock"
snapshot = "ipc://run/snap.sock"

[store]
path = "var/t.sqlite"
evidence = "var/evidence"

[gpio.cut_card]
pin = 23
bounce_time = 0.05

[shoe]
port = "/dev/ttyACM0"
baudrate = 115200

[camera]
source = "/dev/video0"
calibration = "calibration.json"

[web]
host = "127.0.0.1"
port = 8080
"""


#: BASE without its [gpio.cut_card] table, for a top-level ``gpio = ...``
NO_GPIO = BASE.replace("[gpio.cut_card]\npin = 23\nbounce_time = 0.05\n\n", "")


def _write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "table.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _refused(tmp_path: Path, text: str | bytes) -> ConfigError:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    return err.value


def _line_of(text: str) -> int:
    return BASE.splitlines().index(text) + 1


def test_the_base_of_these_tests_loads(tmp_path):
    config = load_config(_write(tmp_path, BASE))
    assert config.table_id == "t1" and config.rules.bonus and config.rules.marked_seats == 7
    assert config.bus_publish == f"ipc://{tmp_path}/run/pub.sock"
    assert config.gpio == {"cut_card": {"pin": 23, "bounce_time": 0.05}}


def test_the_example_configuration_loads():
    config = load_config(ROOT / "deploy" / "table.example.toml")
    assert config.table_id == "table-1"
    assert config.rules.profile.name == "fr-2007"
    assert set(config.gpio) == {"no_more_bets", "end_of_deal", "payment_done", "cut_card", "shoe", "tower_light",
                                "buzzer"}
    assert config.camera_source == "/dev/video0" and config.web_port == 8080


# Each case: the line of BASE replaced, what replaces it, the key named, and words of the message.
WRONG_VALUES = [
    # types, each key
    ('id = "t1"', "id = 5", "table.id", "expected some text"),
    ('id = "t1"', 'id = "  "', "table.id", "expected some text"),
    ('profile = "fr-2007"', "profile = 7", "table.profile", "expected some text"),
    ("minimum_cents = 1000", 'minimum_cents = "1000"', "table.minimum_cents", "whole number"),
    ("minimum_cents = 1000", "minimum_cents = true", "table.minimum_cents", "whole number, got True"),
    ("jackpot_meter_cents = 0", 'jackpot_meter_cents = 0\nstacked_bets = "spred"', "table.stacked_bets",
     "expected one of confirm, spread, got 'spred'"),
    ("maximum_cents = 50000", "maximum_cents = 500.5", "table.maximum_cents", "whole number"),
    ("seats = 7", "seats = true", "table.seats", "whole number, got True"),
    ("bonus = true", 'bonus = "yes"', "table.bonus", "true or false"),
    ("card_purchase = false", "card_purchase = 1", "table.card_purchase", "true or false"),
    ("jackpot = false", "jackpot = 0", "table.jackpot", "true or false"),
    ("jackpot_meter_cents = 0", "jackpot_meter_cents = 1.5", "table.jackpot_meter_cents", "whole number"),
    ('publish = "ipc://run/pub.sock"', "publish = 5555", "bus.publish", "expected some text"),
    ('path = "var/t.sqlite"', "path = 1", "store.path", "expected some text"),
    ('evidence = "var/evidence"', "evidence = false", "store.evidence", "expected some text"),
    ('port = "/dev/ttyACM0"', "port = 0", "shoe.port", "expected some text"),
    ("baudrate = 115200", 'baudrate = "fast"', "shoe.baudrate", "whole number"),
    ("baudrate = 115200", "baudrate = true", "shoe.baudrate", "whole number, got True"),
    ('source = "/dev/video0"', "source = 0", "camera.source", "expected some text"),
    ('calibration = "calibration.json"', "calibration = []", "camera.calibration", "expected some text"),
    ('calibration = "calibration.json"', "layout = false", "camera.layout", "expected some text"),
    ('host = "127.0.0.1"', "host = 127", "web.host", "expected some text"),
    ("port = 8080", 'port = "8080"', "web.port", "whole number"),
    ("port = 8080", "port = true", "web.port", "whole number, got True"),
    ("bounce_time = 0.05", 'bounce_time = "50ms"', "gpio.cut_card.bounce_time", "seconds"),
    # ranges, and values the profile does not allow
    ("minimum_cents = 1000", "minimum_cents = 0", "table.minimum_cents", "0 cents (0.00 €) is not above zero"),
    ("minimum_cents = 1000", "minimum_cents = 1000000001", "table.minimum_cents", "is above 1000000000"),
    ("minimum_cents = 1000", "minimum_cents = 1001", "table.minimum_cents",
     "the bonus stake, 1/5 of the minimum 1001 cents, is not a whole number of cents"),
    ("maximum_cents = 50000", "maximum_cents = 500", "table.maximum_cents",
     "500 cents (5.00 €) is below the minimum 1000 cents (10.00 €)"),
    ("maximum_cents = 50000", "maximum_cents = 1000000001", "table.maximum_cents", "is above 1000000000"),
    ("seats = 7", "seats = 3", "table.seats", "3 is below the profile's 5 (fr-2007)"),
    ("seats = 7", "seats = 8", "table.seats", "8 is above the profile's 7 (fr-2007)"),
    ("jackpot = false", "jackpot = true", "table.jackpot", "profile fr-2007 has no jackpot"),
    ("jackpot_meter_cents = 0", "jackpot_meter_cents = -1", "table.jackpot_meter_cents", "outside"),
    ("baudrate = 115200", "baudrate = 0", "shoe.baudrate", "outside 300..4000000"),
    ("port = 8080", "port = 70000", "web.port", "outside 1..65535"),
    ('profile = "fr-2007"', 'profile = "fr-2077"', "table.profile", "no such profile"),
    ('profile = "fr-2007"', 'profile = "mine.toml"', "table.profile", "cannot read"),
    ('calibration = "calibration.json"', 'layout = "felt.toml"', "camera.layout", "no such file"),
    # bus endpoints
    ('publish = "ipc://run/pub.sock"', 'publish = "http://host:80"', "bus.publish", "ipc://PATH or tcp://HOST:PORT"),
    ('publish = "ipc://run/pub.sock"', 'publish = "ipc://"', "bus.publish", "ipc://PATH"),
    ('publish = "ipc://run/pub.sock"', 'publish = "tcp://*:5555"', "bus.publish", "with a host name"),
    ('publish = "ipc://run/pub.sock"', 'publish = "tcp://host"', "bus.publish", "tcp://HOST:PORT"),
    ('publish = "ipc://run/pub.sock"', 'publish = "tcp://host:70000"', "bus.publish", "tcp://HOST:PORT"),
    ('publish = "ipc://run/pub.sock"', 'publish = "tcp://127.0.0.1:5555"', "bus.publish",
     "can speak on a bus without keys: set bus.keys"),
    ('publish = "ipc://run/pub.sock"', 'publish = "inproc://bus"', "bus.publish", "ipc://PATH"),
    ('source = "/dev/video0"', 'source = "zmq+tcp://127.0.0.1:5560"', "camera.source",
     "can show the camera any frame without keys: set bus.keys"),
    ('publish = "ipc://run/pub.sock"', f'publish = "ipc:///tmp/{"x" * 110}"', "bus.publish", "longer than 107"),
    ('publish = "ipc://run/pub.sock"', 'publish = "ipc://run/"', "bus.publish", "names a folder"),
    ('subscribe = "ipc://run/sub.sock"', 'subscribe = "ipc://run/pub.sock"', "bus.subscribe",
     "bus.publish's endpoint too"),
    ('snapshot = "ipc://run/snap.sock"', 'snapshot = "ipc://run/pub.sock"', "bus.snapshot",
     "bus.publish's endpoint too"),
    ('snapshot = "ipc://run/snap.sock"', 'snapshot = "ipc://run/sub.sock"', "bus.snapshot",
     "bus.subscribe's endpoint too"),
    # pins, as the sensors process would refuse them
    ("pin = 23", 'pin = "x"', "gpio.cut_card.pin", "'x' is not a GPIO pin (BCM number 0-27"),
    ("pin = 23", "pin = 40", "gpio.cut_card.pin", "not a GPIO pin"),
    ("pin = 23", 'pin = "BOARD6"', "gpio.cut_card.pin", "not a GPIO pin"),  # ground
    ("pin = 23", "pin = 2.5", "gpio.cut_card.pin", "not a GPIO pin"),
    ("pin = 23", "pin = 23\nvolume = 11", "gpio.cut_card.volume", "unknown setting"),
    # keys no process reads
    ('source = "/dev/video0"', 'source = "/dev/video0"\nwidth = "wide"', "camera.width", "unknown key"),
    ('source = "/dev/video0"', 'source = "/dev/video0"\nfps = -5', "camera.fps", "unknown key"),
    ("[gpio.cut_card]", "[gpio.cut_crad]", "gpio.cut_crad", "unknown key (did you mean 'cut_card'?)"),
    ("[camera]", "[camara]", "camara", "unknown table (did you mean 'camera'?)"),
]


@pytest.mark.parametrize(("old", "new", "key", "words"), WRONG_VALUES, ids=lambda v: str(v)[:40])
def test_a_wrong_value_is_refused_with_its_key_and_line(tmp_path, old, new, key, words):
    line = _line_of(old) + new.count("\n")  # an added key is on the line after the one replaced
    error = _refused(tmp_path, BASE.replace(old, new, 1))
    assert error.key == key
    assert error.line == line
    assert str(error).startswith(f"{tmp_path / 'table.toml'}, line {line}: key '{key}': ")
    assert str(error).count(key) == 1  # named once, not again by the check that found it
    assert words in str(error)


@pytest.mark.parametrize("spelling", ["ipc://{folder}/run/sub.sock", "ipc://run/../run/./sub.sock"])
def test_the_same_socket_spelled_two_ways_is_refused(tmp_path, spelling):
    # A relative path is taken from the configuration's folder, '..' resolved: these name the one socket.
    old = 'snapshot = "ipc://run/snap.sock"'
    error = _refused(tmp_path, BASE.replace(old, f'snapshot = "{spelling.format(folder=tmp_path)}"'))
    assert (error.key, error.line) == ("bus.snapshot", _line_of(old))
    assert "bus.subscribe's endpoint too" in str(error)


def test_one_tcp_port_is_refused_for_two_sockets_whatever_the_hosts_spelling(tmp_path):
    tcp = (BASE.replace('publish = "ipc://run/pub.sock"', 'publish = "tcp://127.0.0.1:5555"')
           .replace('subscribe = "ipc://run/sub.sock"', 'subscribe = "tcp://localhost:5556"')
           .replace('snapshot = "ipc://run/snap.sock"', 'snapshot = "ipc://run/snap.sock"\nkeys = "keys"'))
    assert load_config(_write(tmp_path, tcp)).bus_subscribe == "tcp://localhost:5556"
    keyed_camera = tcp.replace('source = "/dev/video0"', 'source = "zmq+tcp://127.0.0.1:5560"')
    assert load_config(_write(tmp_path, keyed_camera)).camera_source == "zmq+tcp://127.0.0.1:5560"
    error = _refused(tmp_path, tcp.replace("localhost:5556", "localhost:5555"))
    assert (error.key, error.line) == ("bus.subscribe", _line_of('subscribe = "ipc://run/sub.sock"'))
    assert "bus.publish's endpoint too" in str(error)
    error = _refused(tmp_path, tcp.replace("port = 8080", "port = 5556"))
    assert error.key == "web.port" and "bus.subscribe's port too" in str(error)


def test_a_profile_file_is_taken_from_the_configurations_folder(tmp_path):
    (tmp_path / "mine.toml").write_text((ROOT / "seeds" / "profiles" / "fr-2007.toml").read_text(encoding="utf-8"),
                                        encoding="utf-8")
    config = load_config(_write(tmp_path, BASE.replace('profile = "fr-2007"', 'profile = "mine.toml"')))
    assert config.rules.profile.name == "fr-2007"


def test_a_file_that_is_not_utf8_is_refused_with_its_line(tmp_path):
    text = BASE.replace('id = "t1"', 'id = "tablé"').encode("latin-1")
    error = _refused(tmp_path, text)
    assert (error.key, error.line) == ("", 2)
    assert str(error) == (f"{tmp_path / 'table.toml'}, line 2: byte 0xe9 at column 11 is not UTF-8: "
                          "save the file as UTF-8")


def test_a_top_level_gpio_value_is_refused_as_not_a_table(tmp_path):
    error = _refused(tmp_path, "gpio = 5\n" + NO_GPIO)
    assert (error.key, error.line) == ("gpio", 1)
    assert "must be a table [gpio], got 5" in str(error)


def test_a_top_level_table_value_is_refused_as_not_a_table(tmp_path):
    error = _refused(tmp_path, "table = 5\n" + BASE[BASE.index("[bus]"):])
    assert (error.key, error.line) == ("table", 1)
    assert "must be a table [table], got 5" in str(error)
    assert "did you mean" not in str(error)


@pytest.mark.parametrize(("module", "loads_it"), [("controller.config", False),
                                                 ("controller.gpio_config", False),
                                                 ("controller.sensors.gpio", True)])  # the check can fail
def test_loading_the_configuration_does_not_load_gpiozero(module, loads_it):
    # every process loads the configuration; only the sensors process needs gpiozero
    code = f"import sys, {module}; print('gpiozero' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, timeout=60, capture_output=True,
                            text=True)
    assert result.stdout.strip() == str(loads_it)


@pytest.mark.parametrize(("command", "text", "where"), [
    ("sensors", BASE.replace("pin = 23", 'pin = "x"'), f"line {_line_of('pin = 23')}: key 'gpio.cut_card.pin'"),
    ("run", BASE.replace('id = "t1"', 'id = "tablé"').encode("latin-1"), "line 2: byte 0xe9 at column"),
    ("run", "gpio = 5\n" + NO_GPIO, "line 1: key 'gpio': must be a table [gpio]"),
])
def test_the_command_stops_with_the_key_and_line_and_no_traceback(tmp_path, command, text, where):
    config = _write(tmp_path, text)
    result = subprocess.run([str(STUD_TABLE), command, "--config", str(config)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith(f"stud-table: {config}, {where}")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "run").exists()  # no process started: none made its socket's folder
