"""The table's processes for the demo: ``stud-table run`` (proxy, engine, web, vision) and ``stud-table sensors``,
on configurations of their own in the demo's folder, with the shoe on its pseudo-terminal.

The processes are asked to die with the demo (Linux), even when it is killed outright. They run in process groups
of their own: a Ctrl-C in the demo's terminal reaches the demo only, which stops them in order (SIGTERM; the
supervisor stops its children, the proxy last).
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import zmq

from controller.bus.clone import SnapshotTimeout, request_snapshot
from controller.bus.keys import Keys, bus_context, create_keys, engine_key
from controller.shutdown import parent_death_signal

from .devices import PtyShoe, Stop, Stopped, never
from .script import JACKPOT_METER_CENTS, MAXIMUM_CENTS, MINIMUM_CENTS

CONFIG = """# written by stud-table demo
[table]
id = "demo"
profile = "{profile}"
minimum_cents = {minimum}
maximum_cents = {maximum}
bonus = {bonus}
card_purchase = {purchase}
jackpot = {jackpot}
jackpot_meter_cents = {meter}
stacked_bets = "{stacked_bets}"

[bus]
publish = "ipc://run/pub.sock"
subscribe = "ipc://run/sub.sock"
snapshot = "ipc://run/snap.sock"
keys = "keys"

[store]
path = "var/events.sqlite"

[camera]
source = "{camera}"

[web]
host = "127.0.0.1"
port = {port}
"""

#: the sensors process's own configuration: the table's, plus the (mock) pins and the shoe's pty
SENSORS = """
[gpio.no_more_bets]
pin = 17
bounce_time = 0.005
[gpio.end_of_deal]
pin = 27
bounce_time = 0.005
[gpio.payment_done]
pin = 22
bounce_time = 0.005
[gpio.cut_card]
pin = 23
bounce_time = 0.005
[gpio.tower_light]
pin = 5
[gpio.buzzer]
pin = 6

[shoe]
port = "{port}"

[sensors]
events_per_s = 2000  # the virtual dealer deals at the machine's speed: a few hundred cards a second
"""


def _free_port(preferred: int = 8080) -> int:
    for port in (preferred, 0):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise OSError("no free TCP port on 127.0.0.1")


def _toml_bool(value: bool) -> str:
    return "true" if value else "false"


#: how long the stack has to stop on SIGTERM (its supervisor gives each wave of children 10 s)
STACK_STOP_S = 30.0


@dataclass
class Stack:
    """The table's processes on a virtual table, in ``folder``."""

    folder: Path
    run: subprocess.Popen[bytes]
    sensors: subprocess.Popen[bytes]
    shoe: PtyShoe
    port: int
    logs: list[object]
    #: the demo's own sockets on the table's bus (the virtual table's, a snapshot's), with the simulator's key
    bus: zmq.Context

    @property
    def keys(self) -> Keys:
        """The table's keys: the bus's, the virtual camera's and the virtual pins' (the simulator's key among them)."""
        return Keys(self.folder / "keys")

    def stop(self, timeout_s: float = STACK_STOP_S) -> list[str]:
        """SIGTERM to both (the supervisor stops its own children, the proxy last), waiting ``timeout_s`` at most;
        one still running then is killed. Returns what had to be killed, as a person reads it."""
        began = time.monotonic()
        for process in (self.sensors, self.run):
            if process.poll() is None:
                process.terminate()
        killed = []
        for name, process in (("sensors process", self.sensors), ("table stack (stud-table run)", self.run)):
            try:
                process.wait(max(0.0, began + timeout_s - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
                killed.append(f"killed the {name} after {time.monotonic() - began:.1f} s")
        self.shoe.close()
        for log in self.logs:
            log.close()  # type: ignore[attr-defined]
        self.bus.destroy(linger=0)
        return killed


#: Linux: a child asks for SIGTERM when the demo dies, even killed outright (a test's timeout), so no table stack or
#: sensors process outlives it
_die_with_parent = parent_death_signal()


def camera_endpoint(folder: Path) -> str:
    return f"zmq+ipc://{folder}/run/camera.sock"


def start_stack(folder: Path, profile_name: str, rendered: bool = False, stacked_bets: str = "confirm") -> Stack:
    """The table's processes; with ``rendered``, a vision process reads the virtual camera's frames;
    ``stacked_bets``: the house rule for a stacked bet (``controller.config.STACKED_BETS``)."""
    from .script import table_rules

    rules = table_rules(profile_name)
    (folder / "run").mkdir(mode=0o700, parents=True, exist_ok=True)
    create_keys(folder / "keys", simulator=True)  # the bus encrypted and authenticated, as on a real table
    port = _free_port()
    table = CONFIG.format(profile=profile_name, minimum=MINIMUM_CENTS, maximum=MAXIMUM_CENTS,
                          bonus=_toml_bool(rules.bonus), purchase=_toml_bool(rules.card_purchase),
                          jackpot=_toml_bool(rules.jackpot), meter=JACKPOT_METER_CENTS, port=port,
                          stacked_bets=stacked_bets,
                          camera=camera_endpoint(folder) if rendered else "sim")
    (folder / "table.toml").write_text(table)
    shoe_link = folder / "run" / "shoe"
    (folder / "sensors.toml").write_text(table + SENSORS.format(port=shoe_link))
    # -P: the children import the installed package, as the parent does, never a checkout that is their
    # working directory (the Pi's service runs in /opt/stud-table)
    python = [sys.executable, "-P", "-m", "controller.cli"]
    run_log = open(folder / "table.log", "w")  # noqa: SIM115 - kept open for the child's lifetime
    sensors_log = open(folder / "sensors.log", "w")  # noqa: SIM115
    # Started before the shoe's thread: no other thread runs while they fork. Each in a process group of its own:
    # a Ctrl-C in the demo's terminal is the demo's to handle (it stops them in order), never theirs.
    run = subprocess.Popen([*python, "run", "--config", str(folder / "table.toml")], stdout=run_log,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, process_group=0,
                           preexec_fn=_die_with_parent)
    sensors = subprocess.Popen([*python, "sensors", "--config", str(folder / "sensors.toml"), "--virtual-pins",
                                f"ipc://{folder}/run/pins.sock"], stdout=sensors_log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, process_group=0, preexec_fn=_die_with_parent)
    shoe = PtyShoe(shoe_link)
    return Stack(folder, run, sensors, shoe, port, [run_log, sensors_log], bus_context(folder / "keys", "simulator"))


def wait_for_engine(stack: Stack, stop: Stop = never, tick: Callable[[], None] | None = None) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if stop():
            raise Stopped
        if tick:
            tick()
        for name, process in (("table stack", stack.run), ("sensors process", stack.sensors)):
            if process.poll() is not None:
                raise RuntimeError(f"the {name} exited (code {process.returncode}); see its log in {stack.folder}")
        try:
            return request_snapshot(stack.bus, f"ipc://{stack.folder}/run/snap.sock", timeout_ms=200,
                                    engine_key=engine_key(stack.folder / "keys"))
        except SnapshotTimeout:
            continue
    raise RuntimeError("the engine did not answer within 60 s")


#: lines of the stack's log (table.log) worth a progress line: pattern -> what the person reads
_LOG_LINES = [
    (re.compile(r"stud-table\.run INFO started (\w+) \(pid \d+\)"), "  started {0}"),
    (re.compile(r"engine: replayed (\d+) recorded events"), "  engine: {0} events replayed from the store"),
    (re.compile(r"Uvicorn running on (\S+)"), "  web server listening on {0}"),
    (re.compile(r"vision: calibrated \(RMS ([\d.]+) mm, markers (\[[^\]]*\])"),
     "  vision: felt calibrated on markers {1} (RMS {0} mm)"),
    (re.compile(r"vision: cannot calibrate: (.*)"), "  vision: cannot calibrate yet: {0}"),
    (re.compile(r"vision: reader ready in ([\d.]+) s"), "  vision: the table reader's ONNX models loaded in {0} s"),
    (re.compile(r"stud-table\.run (?:WARNING|ERROR) (.*)"), "  table stack: {0}"),
]


class StackLog:
    """Follows the stack's log as it grows, for the progress lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._partial = ""
        self.vision_ready = False

    def new_lines(self) -> list[str]:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as file:
                file.seek(self._offset)
                text = file.read()
                self._offset = file.tell()
        except OSError:
            return []
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        said = []
        for line in lines:
            self.vision_ready |= "vision: reader ready" in line
            for pattern, template in _LOG_LINES:
                if match := pattern.search(line):
                    said.append(template.format(*match.groups()))
                    break
        return said
