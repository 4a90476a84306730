"""``stud-table demo``: the real table stack on a virtual table.

It starts ``stud-table run`` (proxy, engine, web) and ``stud-table sensors`` on configurations of its own, then
plays coups from a script (or drawn at random) as a timeline of world steps (controller/sim/world.py):

* the dealer's buttons and the cut card go through gpiozero mock pins inside the sensors process, driven over
  its ``--virtual-pins`` socket: the same debounce and bridge as on the Pi;
* the shoe is the firmware's own logic (firmware/tests_support) on the master end of a pseudo-terminal whose
  slave is the sensors process's serial port, by a link in the demo's folder (``run/shoe``, see PtyShoe); serial
  noise is garbage written on that line;
* the camera is virtual at the level of its observations (``DirectVision``: cards placed, identified, lifted,
  chips counted, camera status; any ``SceneDriver`` can take its place); the dealer's keypad entries go on
  ``dealer.keypad``.

The table's processes are asked to die with the demo (Linux), even when it is killed outright. They run in
process groups of their own: a Ctrl-C in the demo's terminal reaches the demo only, which stops the virtual table,
then the stack (SIGTERM; the supervisor stops its children, the proxy last), and prints its summary. SIGINT or
SIGTERM, once or twice, at any moment, is such a stop (``controller.shutdown``): the demo never sees a
``KeyboardInterrupt``, it polls the stop request wherever it waits (``Stopped``).

What it is doing goes on stdout as it happens: the stack's processes starting (from its log), the engine ready,
the vision process calibrating and loading its models, then each coup, and the summary.

Observations and keypad entries go out through one publisher, in order; before a sensor acts, the table waits
until its own last message is back from the proxy, and after, until the sensor's event is on the bus: the engine
sees the events in the order they happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tty
import webbrowser
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from statistics import median

import zmq

from controller.bus.clone import SnapshotTimeout, request_snapshot
from controller.bus.schema import (
    AnyBody,
    ButtonPressed,
    CameraStatus,
    CardPlaced,
    CoupSettled,
    CutCard,
    DealerOperation,
    FlagRaised,
    Refused,
    ShoeCardDrawn,
    TableState,
)
from controller.bus.transport import Publisher, Subscriber
from controller.rules.history import format_money, format_operation
from controller.rules.operations import DeclareVoid, Settle
from controller.shutdown import STOP, block_stop_signals, parent_death_signal
from firmware import protocol
from firmware.tests_support.bench import ShoeBench

from .camera import RenderedCamera
from .script import (
    JACKPOT_METER_CENTS,
    MAXIMUM_CENTS,
    MINIMUM_CENTS,
    CoupScript,
    Script,
    load_script,
    random_script,
)
from .world import (
    OBSERVED,
    ButtonPress,
    CameraDropout,
    CoupPlan,
    CutCardSensor,
    DirectVision,
    KeypadEntry,
    SceneChange,
    SceneDriver,
    SerialNoise,
    ShoeDraw,
    Step,
    World,
    observation_key,
)

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

[bus]
publish = "ipc://run/pub.sock"
subscribe = "ipc://run/sub.sock"
snapshot = "ipc://run/snap.sock"

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
"""

WAIT_S = 30.0


class Stopped(Exception):
    """The stop was asked for (SIGINT, SIGTERM): raised where the demo waits, never in the middle of a step."""


Stop = Callable[[], bool]


def _never() -> bool:
    return False


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


class PtyShoe:
    """The shoe's end of its USB cable: the firmware's logic writing into a pty's master, reading the host's
    requests from it; its clock follows real time.

    The sensors process opens ``link`` (as on the Pi it opens /dev/serial/by-id/..., a link udev keeps pointing at
    the shoe), never the pty's own name: /dev/pts numbers are reused as soon as a pty is closed, so a sensors
    process outliving an earlier demo, still retrying its port, would take this pty (its exclusive lock then
    keeps ours out, and the requests go to the wrong host)."""

    def __init__(self, link: Path) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.link = link
        link.unlink(missing_ok=True)
        link.symlink_to(os.ttyname(self._slave))
        self.resets = 0  # RESET_COUNT requests served
        self.status_requests = 0  # STATUS_REQUEST served (the host sends one each time it opens the port)
        self._decoder = protocol.Decoder()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.bench = ShoeBench(write=self._write)
        self._thread = threading.Thread(target=self._pump, name="pty-shoe", daemon=True)
        self._thread.start()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + 2
        while view and time.monotonic() < deadline:
            if select.select([], [self.master], [], 0.1)[1]:
                with contextlib.suppress(BlockingIOError):
                    view = view[os.write(self.master, view):]

    def _pump(self) -> None:
        block_stop_signals()
        last = time.monotonic()
        while not self._stop.is_set():
            readable = select.select([self.master], [], [], 0.02)[0]
            with self._lock:
                if readable:
                    with contextlib.suppress(BlockingIOError, OSError):
                        data = os.read(self.master, 4096)
                        self.bench.shoe.receive(data)
                        for frame in self._decoder.feed(data):
                            if isinstance(frame, protocol.Frame):
                                self.resets += frame.type == protocol.RESET_COUNT
                                self.status_requests += frame.type == protocol.STATUS_REQUEST
                now = time.monotonic()
                self.bench.run(min(int((now - last) * 1000), 1000), step=5)
                last = now

    def draw(self) -> None:
        """One card out of the shoe, through its beam."""
        with self._lock:
            self.bench.card()

    def noise(self, data: bytes) -> None:
        with self._lock:
            self._write(data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.link.unlink(missing_ok=True)
        os.close(self.master)
        os.close(self._slave)


class VirtualPins:
    """The client of the sensors process's ``--virtual-pins`` socket."""

    def __init__(self, context: zmq.Context, endpoint: str, stop: Stop = _never) -> None:
        self.socket = context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(endpoint)
        self.stop = stop

    def act(self, device: str, action: str) -> None:
        self.socket.send(json.dumps({"device": device, "action": action}).encode())
        deadline = time.monotonic() + WAIT_S
        while not self.socket.poll(100):  # in steps: a stop (the sensors process may be gone) is not kept waiting
            if self.stop():
                raise Stopped
            if time.monotonic() > deadline:
                raise RuntimeError(f"virtual pins: {device} {action}: no answer within {WAIT_S:.0f} s")
        reply = json.loads(self.socket.recv())
        if not reply.get("ok"):
            raise RuntimeError(f"virtual pins: {device} {action}: {reply.get('error')}")

    def close(self) -> None:
        self.socket.close()


@dataclass
class Results:
    flags: Counter[str] = field(default_factory=Counter)
    settled: list[CoupSettled] = field(default_factory=list)
    #: seconds from a card landing (its observation sent) to its event back from the bus
    card_delays: list[float] = field(default_factory=list)
    #: seconds from a card leaving the shoe (its beam cleared) to the shoe's count on the bus
    shoe_delays: list[float] = field(default_factory=list)
    #: with the rendered camera: what a perfect camera would have published, against what the vision process did
    vision_expected: int = 0
    vision_matched: int = 0
    vision_misses: list[str] = field(default_factory=list)
    #: seconds from a scene change shown to the camera to the last of its observations on the bus
    vision_delays: list[float] = field(default_factory=list)
    #: coups the table chief had to declare void (the camera missed what the rules needed)
    voided_by_chief: list[int] = field(default_factory=list)

    @property
    def paid(self) -> int:
        return sum(int(line["net"]) for body in self.settled  # type: ignore[index,union-attr]
                   for line in body.settlement.get("payouts", []) if int(line["net"]) > 0)  # type: ignore


class VirtualTable:
    """Plays a timeline's steps on the running stack and reads what comes back on the bus."""

    def __init__(self, context: zmq.Context, folder: Path, shoe: PtyShoe, pins: VirtualPins,
                 pace_s: float = 0.0, dropout_scale: float = 1.0,
                 on_settled: Callable[[CoupSettled], None] | None = None, vision: SceneDriver | None = None,
                 stop: Stop = _never, tick: Callable[[], None] | None = None) -> None:
        """``stop``: polled wherever the table waits (``Stopped`` once it says so); ``tick``: called there too, for
        the progress lines."""
        self.shoe, self.pins = shoe, pins
        self.stop, self.tick = stop, tick
        self.pace_s, self.dropout_scale = pace_s, dropout_scale
        self.on_settled = on_settled
        self.publisher = Publisher(context, f"ipc://{folder}/run/pub.sock", "virtual-table",
                                   heartbeat_topic="vision.heartbeat")
        self.bus = Subscriber(context, f"ipc://{folder}/run/sub.sock", ("vision.", "sensor.", "dealer.", "core."))
        self.vision = vision or DirectVision()
        self.results = Results()
        self._own_seq_seen = 0
        self._sent_cards: dict[int, float] = {}
        self._sensors: Counter[object] = Counter()
        self._shoe_count = -1
        self._dropout_until = 0.0
        self._publishers: set[str] = set()
        self._vision_seen: list[AnyBody] = []
        self.last_refusal = ""
        self.coup_number = 0
        self.state_seen = False
        self.phase = ""
        self.waiting_for = ""

    # -- reading the bus
    def _absorb(self, timeout_ms: int) -> None:
        if self.stop():
            raise Stopped
        if self.tick:
            self.tick()
        message = self.bus.receive(timeout_ms)
        if message is None:
            return
        _topic, envelope = message
        body = envelope.body
        self._publishers.add(envelope.publisher)
        if envelope.publisher == self.publisher.name:
            self._own_seq_seen = max(self._own_seq_seen, envelope.seq)
            sent = self._sent_cards.pop(envelope.seq, None)
            if sent is not None:
                self.results.card_delays.append(time.perf_counter() - sent)
        elif isinstance(body, ButtonPressed):
            self._sensors["button", body.button] += 1
        elif isinstance(body, CutCard):
            self._sensors["cut_card", body.seen] += 1
        elif isinstance(body, ShoeCardDrawn):
            self._shoe_count = body.count
        elif isinstance(body, FlagRaised):
            self.results.flags[body.kind] += 1
        elif isinstance(body, Refused):
            self.last_refusal = body.reason
        elif isinstance(body, TableState):
            coup = body.state.get("coup")
            self.coup_number = coup if isinstance(coup, int) else self.coup_number
            self.phase = str(body.state.get("phase") or "")
            self.state_seen = True
        elif isinstance(body, CoupSettled):
            self.results.settled.append(body)
            if self.on_settled:
                self.on_settled(body)
        if envelope.publisher == "vision" and isinstance(body, OBSERVED):
            self._vision_seen.append(body)

    def _wait(self, condition: Callable[[], bool], what: str, seconds: float = WAIT_S) -> None:
        deadline = time.monotonic() + seconds
        self.waiting_for = what
        while not condition():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the virtual table waited {seconds:.0f} s for {what}")
            self._absorb(50)
        self.waiting_for = ""

    def pause(self, seconds: float) -> None:
        """The pace between two events, reading the bus meanwhile."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self._absorb(max(1, int(min(left, 0.05) * 1000)))

    def wait_ready(self) -> None:
        """Until the sensors process publishes (its heartbeat) and has opened the shoe's port (its status request
        on connection), and our own messages come back."""
        self._wait(lambda: any(name.startswith("sensors-") for name in self._publishers), "the sensors process")
        self._wait(lambda: self.shoe.status_requests > 0, "the sensors process to open the shoe's port")
        self.publisher.publish("vision.camera", CameraStatus(True, "virtual camera"))
        self._flush()

    def _flush(self) -> None:
        seq = self.publisher.seq
        self._wait(lambda: self._own_seq_seen >= seq, "our own messages back from the proxy")

    def _sensor(self, key: object, act: Callable[[], None], what: str) -> None:
        self._flush()
        before = self._sensors[key]
        act()
        self._wait(lambda: self._sensors[key] > before, what)

    # -- playing
    def play(self, steps: list[Step]) -> None:
        for step in steps:
            self.step(step)

    def step(self, step: Step) -> None:
        match step:
            case SceneChange(scene=scene):
                for topic, body in self.vision.see(scene):
                    self.publisher.publish(topic, body)
                    if isinstance(body, CardPlaced):
                        self._sent_cards[self.publisher.seq] = time.perf_counter()
                if self._sent_cards:  # read it back at once: its delay is then the bus's, not our next step's
                    self._flush()
                if isinstance(self.vision, RenderedCamera):
                    self._watch_camera(self.vision)
                if self.pace_s:
                    self.pause(self.pace_s)
            case KeypadEntry(line=line):
                self.publisher.publish("dealer.keypad", DealerOperation(line))
            case ButtonPress(button=button):
                resets = self.shoe.resets
                self._sensor(("button", button), lambda: self.pins.act(button, "press"),
                             f"the {button} button's event")
                if button == "no_more_bets":  # the sensors process resets the shoe's count for the new coup
                    self._wait(lambda: self.shoe.resets > resets, "the shoe's count reset")
            case CutCardSensor(seen=seen):
                self._sensor(("cut_card", seen), lambda: self.pins.act("cut_card", "on" if seen else "off"),
                             "the cut card's event")
            case ShoeDraw(count=count):
                drawn = time.perf_counter()  # the firmware's frame goes out within draw(): counted in
                self.shoe.draw()
                self._wait(lambda: self._shoe_count == count, f"the shoe's card {count}")
                self.results.shoe_delays.append(time.perf_counter() - drawn)
            case CameraDropout(online=False, seconds=seconds):
                self._dropout_until = time.monotonic() + seconds * self.dropout_scale
            case CameraDropout(online=True):
                while time.monotonic() < self._dropout_until:
                    self._absorb(20)
            case SerialNoise(data=data):
                self.shoe.noise(data)

    def _watch_camera(self, camera: RenderedCamera) -> None:
        """Until the vision process has published what a perfect camera would for this scene change (or a while
        has passed: what it missed is counted, and the table goes on as a dealer would)."""
        wanted = Counter(observation_key(body) for _topic, body in camera.expected if isinstance(body, OBSERVED))
        shown = time.perf_counter()
        deadline = time.monotonic() + (VISION_WAIT_S if wanted else SCENE_HOLD_S)
        start = len(self._vision_seen)

        def got() -> Counter[tuple[object, ...]]:
            return Counter(observation_key(body) for body in self._vision_seen[start:])

        self.waiting_for = "the vision process to see the change"
        while time.monotonic() < deadline and not wanted <= got():
            self._absorb(20)
        self.waiting_for = ""
        seen = got()
        if wanted and wanted <= seen:
            self.results.vision_delays.append(time.perf_counter() - shown)
        self.results.vision_expected += wanted.total()
        self.results.vision_matched += (wanted & seen).total()
        self.results.vision_misses += [f"missed {key}" for key in (wanted - seen).elements()]
        self.results.vision_misses += [f"extra {key}" for key in (seen - wanted).elements()]

    def finish_coup(self, plan: CoupPlan, recover: bool = False) -> None:
        """Until the coup is settled. With ``recover`` (a real camera may miss things), a coup that does not settle
        is handled as a table chief would: declared void, settled (every stake returned) and paid, and play goes on.
        """
        settled = lambda: any(s.coup == plan.number for s in self.results.settled)  # noqa: E731
        try:
            self._wait(settled, f"coup {plan.number}'s payouts")
        except RuntimeError:
            if not recover:
                raise
            print(f"coup {plan.number} did not settle ({self.last_refusal or 'no reason given'}): the table chief "
                  f"declares it void", flush=True)
            self.results.voided_by_chief.append(plan.number)
            for op in (DeclareVoid(0, "the camera did not see the whole coup"), Settle(0, JACKPOT_METER_CENTS)):
                self.publisher.publish("dealer.keypad", DealerOperation(format_operation(op).split(" ", 1)[1]))
            self._wait(settled, f"coup {plan.number}'s payouts once void")
            for _ in range(8):  # one press per seat paid, then the end of the coup
                if self.coup_number > plan.number:
                    break
                self.state_seen = False
                self._sensor(("button", "payment_done"), lambda: self.pins.act("payment_done", "press"),
                             "the payment_done button's event")
                self._wait(lambda: self.state_seen, "the table's state after the press")
        self._flush()

    def close(self) -> None:
        self.publisher.close()
        self.bus.close()


#: how long the virtual table waits for the camera to see a change, and shows a change that shows nothing new
VISION_WAIT_S = 10.0
SCENE_HOLD_S = 0.4
#: how long the stack has to stop on SIGTERM (its supervisor gives each wave of children 10 s)
STACK_STOP_S = 30.0
#: how long the demo waits for the vision process to calibrate and load its models before it plays anyway
VISION_READY_S = 180.0
#: a progress line when nothing was printed for this long
QUIET_S = 5.0


@dataclass
class Stack:
    """The table's processes on a virtual table, in ``folder``."""

    folder: Path
    run: subprocess.Popen[bytes]
    sensors: subprocess.Popen[bytes]
    shoe: PtyShoe
    port: int
    logs: list[object]

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
        return killed


#: Linux: a child asks for SIGTERM when the demo dies, even killed outright (a test's timeout), so no table stack or
#: sensors process outlives it
_die_with_parent = parent_death_signal()


def camera_endpoint(folder: Path) -> str:
    return f"zmq+ipc://{folder}/run/camera.sock"


def start_stack(folder: Path, profile_name: str, rendered: bool = False) -> Stack:
    """The table's processes; with ``rendered``, a vision process reads the virtual camera's frames."""
    from .script import table_rules

    rules = table_rules(profile_name)
    (folder / "run").mkdir(parents=True, exist_ok=True)
    port = _free_port()
    table = CONFIG.format(profile=profile_name, minimum=MINIMUM_CENTS, maximum=MAXIMUM_CENTS,
                          bonus=_toml_bool(rules.bonus), purchase=_toml_bool(rules.card_purchase),
                          jackpot=_toml_bool(rules.jackpot), meter=JACKPOT_METER_CENTS, port=port,
                          camera=camera_endpoint(folder) if rendered else "sim")
    (folder / "table.toml").write_text(table)
    shoe_link = folder / "run" / "shoe"
    (folder / "sensors.toml").write_text(table + SENSORS.format(port=shoe_link))
    python = [sys.executable, "-m", "controller.cli"]
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
    return Stack(folder, run, sensors, shoe, port, [run_log, sensors_log])


def wait_for_engine(context: zmq.Context, stack: Stack, stop: Stop = _never,
                    tick: Callable[[], None] | None = None) -> dict[str, object]:
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
            return request_snapshot(context, f"ipc://{stack.folder}/run/snap.sock", timeout_ms=200)
        except SnapshotTimeout:
            continue
    raise RuntimeError("the engine did not answer within 60 s")


def plans(script: Script, coups: Iterable[CoupScript] | None = None) -> Iterator[tuple[list[Step], CoupPlan]]:
    """The opening steps with the first coup, then each coup; played lazily (a random session may be long).
    ``coups``: in place of the script's own (an endless draw)."""
    world = World(script.profile)
    opening = world.open(script.seats)
    for number, coup in enumerate(script.coups if coups is None else coups):
        yield (opening if number == 0 else []), world.play(coup)


def random_coups(seed: int, profile_name: str) -> Iterator[CoupScript]:
    """``random_script(seed, n)``'s coups, without end and without drawing them all first (100 000 coups take
    seconds): the first coups of a draw do not depend on how many are drawn, so each longer draw goes on where the
    last one stopped."""
    drawn, count = 0, 64
    while True:
        script = random_script(seed, count, profile_name)
        yield from script.coups[drawn:]
        drawn, count = count, count * 2


class Reporter:
    """The demo's lines on stdout: progress stamped with the seconds since the start, and plain ones."""

    def __init__(self) -> None:
        self.began = time.monotonic()
        self.last = self.began

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def say(self, text: str) -> None:
        self.plain(f"[{self.elapsed():6.1f} s] {text}")

    def plain(self, text: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # stdout closed (a pipe to head): the demo goes on
            print(text, flush=True)
        self.last = time.monotonic()

    def quiet_for(self) -> float:
        return time.monotonic() - self.last


#: lines of the stack's log (table.log) worth a progress line: pattern -> what the person reads
_LOG_LINES = [
    (re.compile(r"stud-table\.run INFO started (\w+) \(pid \d+\)"), "  started {0}"),
    (re.compile(r"engine: replayed (\d+) recorded events"), "  engine: {0} events replayed from the store"),
    (re.compile(r"Uvicorn running on (\S+)"), "  web server listening on {0}"),
    (re.compile(r"vision: calibrated \(RMS ([\d.]+) mm, markers (\[[^\]]*\])"),
     "  vision: felt calibrated on markers {1} (RMS {0} mm)"),
    (re.compile(r"vision: cannot calibrate: (.*)"), "  vision: cannot calibrate yet: {0}"),
    (re.compile(r"vision: reader ready in ([\d.]+) s"), "  vision: detector and identifier models loaded in {0} s"),
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


def run_demo(coups: int | None, seed: int, profile_name: str, headless: bool, pace_s: float,
             folder: Path | None = None, script: str | None = None, camera: str = "rendered") -> int:
    """``camera``: ``rendered`` (frames through the real vision process) or ``direct`` (the observations a perfect
    camera would publish, for fast runs). Until ``coups`` are played, or SIGINT or SIGTERM (once or twice, at any
    moment: an orderly stop, then the summary; exit 0: ``STOP``'s handler, installed by ``controller.cli.main``)."""
    report = Reporter()
    if script:
        played_script = load_script(script)
        endless: Iterable[CoupScript] | None = None
        coups = len(played_script.coups) if coups is None else coups
    else:
        played_script = random_script(seed, 0, profile_name)  # its seats; the coups are drawn as they are played
        endless = random_coups(seed, profile_name)
    folder = folder or Path(tempfile.mkdtemp(prefix="stud-table-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    rendered = camera == "rendered"
    report.plain(f"stud-table demo: {'the script ' + script if script else f'random coups (seed {seed})'}, "
                 f"profile {played_script.profile}, {camera} camera, "
                 f"{_coups(coups) if coups is not None else 'until Ctrl-C'}; folder {folder}")
    if STOP.requested:
        return 0
    report.say(f"starting the table stack: bus proxy, engine and its store, web{', vision' if rendered else ''}, "
               f"sensors (logs: table.log, sensors.log)")
    stack = start_stack(folder, played_script.profile, rendered=rendered)
    context = zmq.Context()
    stack_log = StackLog(folder / "table.log")
    outcome: list[str] = []
    try:
        return _play(context, stack, played_script, coups, headless, pace_s, camera, seed, report=report,
                     stack_log=stack_log, coups_to_play=endless, outcome=outcome)
    finally:
        report.say(f"stopping{' on ' + STOP.describe() if STOP.requested else ''}: the table stack (sensors, "
                   f"web{', vision' if rendered else ''}, engine, then the bus proxy)...")
        began = time.monotonic()
        killed = stack.stop()
        for line in stack_log.new_lines():
            report.say(line)
        for line in killed:
            report.say(f"  {line}")
        context.destroy(linger=0)
        report.say(f"table stack stopped in {time.monotonic() - began:.1f} s")
        store = folder / "var" / "events.sqlite"
        events = _store_events(store) if store.exists() else None
        for line in outcome + [f"event store: {store}" + (
                f" ({events} events; check its chain: stud-table verify-log {store})" if events is not None else "")]:
            report.plain(line)


def _announce(report: Reporter, body: CoupSettled) -> None:
    settlement = body.settlement
    announced = " · ".join(settlement.get("announced", [])) or "jeu"  # type: ignore[arg-type]
    report.plain(f"coup {body.coup}: croupier {settlement.get('dealer_hand') or '-'} · {announced} · "
                 f"banque {format_money(int(settlement.get('house_net', 0)))} €")  # type: ignore[arg-type]


_STEP_WORDS: dict[type, str] = {SceneChange: "a change on the felt", ButtonPress: "a button", ShoeDraw: "a card out "
                                "of the shoe", KeypadEntry: "a keypad entry", CutCardSensor: "the cut card",
                                CameraDropout: "the camera unplugged", SerialNoise: "noise on the shoe's line"}


def _coups(count: int) -> str:
    return f"{count} coup{'s' if count != 1 else ''}"


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    return (f"median {median(ordered) * 1000:.1f} ms, 99th percentile "
            f"{ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000:.1f} ms, over {len(ordered)}")


def _store_events(path: Path) -> int | None:
    import sqlite3

    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return int(db.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return None


def _play(context: zmq.Context, stack: Stack, script: Script, coups: int | None, headless: bool,
          pace_s: float, camera: str = "direct", seed: int = 0, report: Reporter | None = None,
          stack_log: StackLog | None = None, coups_to_play: Iterable[CoupScript] | None = None,
          outcome: list[str] | None = None) -> int:
    """The coups, on the running stack; their summary goes into ``outcome`` (printed once the stack is stopped)."""
    report = report or Reporter()
    stack_log = stack_log or StackLog(stack.folder / "table.log")
    outcome = outcome if outcome is not None else []
    stop = lambda: STOP.requested  # noqa: E731
    rendered = camera == "rendered"
    progress = {"coup": 0, "step": 0, "steps": 0, "what": ""}
    playing = [False]
    log_read = [0.0]

    def tick() -> None:
        """Called wherever the table waits (often): the stack's log read twice a second, a line when quiet."""
        now = time.monotonic()
        if now - log_read[0] >= 0.5:
            log_read[0] = now
            for line in stack_log.new_lines():
                report.say(line)
        if report.quiet_for() < QUIET_S:
            return
        if not playing[0]:
            report.say("  still starting...")
        elif table is not None:
            waiting = f", waiting for {table.waiting_for}" if table.waiting_for else ""
            report.say(f"  coup {progress['coup']} under way: step {progress['step']} of {progress['steps']} "
                       f"({progress['what']}), phase {table.phase or '?'}{waiting}")

    table: VirtualTable | None = None
    pins: VirtualPins | None = None
    driver: RenderedCamera | None = None
    played = 0
    began = time.monotonic()
    results = Results()
    try:
        wait_for_engine(context, stack, stop=stop, tick=tick)
        report.say("engine ready: it answers for the table's state")
        url = f"http://127.0.0.1:{stack.port}/display"
        report.plain(f"croupier display: {url}")
        report.plain(f"surveillance review: http://127.0.0.1:{stack.port}/review "
                     f"(create a user: stud-table web-user --config {stack.folder / 'table.toml'} NAME supervisor)")
        if not headless:
            webbrowser.open(url)
        pins = VirtualPins(context, f"ipc://{stack.folder}/run/pins.sock", stop=stop)
        driver = RenderedCamera(context, camera_endpoint(stack.folder), seed=seed) if rendered else None
        table = VirtualTable(context, stack.folder, stack.shoe, pins, pace_s=pace_s,
                             on_settled=lambda body: _announce(report, body), vision=driver, stop=stop, tick=tick)
        results = table.results
        report.say("waiting for the sensors process (mock GPIO pins, the shoe's serial port)...")
        table.wait_ready()
        report.say("sensors process ready: its heartbeat on the bus, the shoe's port open")
        if driver is not None:
            report.say("vision process: calibrating on the virtual camera's first frames, loading the detector and "
                       "identifier models (can take a minute)...")
            deadline = time.monotonic() + VISION_READY_S
            while not stack_log.vision_ready and time.monotonic() < deadline:
                table.pause(0.1)
            if not stack_log.vision_ready:
                report.say(f"  the vision process is not ready after {VISION_READY_S:.0f} s: playing anyway "
                           f"(see table.log)")
        report.say(f"playing{f' {_coups(coups)}' if coups is not None else ''} (Ctrl-C stops the demo)")
        playing[0] = True
        began = time.monotonic()
        for opening, plan in plans(script, coups_to_play):
            if coups is not None and played >= coups:
                break
            steps = opening + plan.steps
            progress.update(coup=plan.number, steps=len(steps))
            for index, step in enumerate(steps, 1):
                progress.update(step=index, what=_STEP_WORDS.get(type(step), type(step).__name__))
                table.step(step)
            table.finish_coup(plan, recover=driver is not None)
            played += 1
    except Stopped:
        pass
    except RuntimeError as error:
        if not STOP.requested:  # a stop may take the stack down under a wait: that is no error
            print(f"stud-table demo: {error}; see the logs in {stack.folder}", file=sys.stderr, flush=True)
            return 1
    finally:
        for part in (table, pins, driver):
            if part is not None:
                part.close()
        outcome += _summary(played, time.monotonic() - began if playing[0] else None, results, driver)
    return 0


def _summary(played: int, seconds: float | None, results: Results, driver: RenderedCamera | None) -> list[str]:
    """``seconds``: of play; None when the stop came before the first coup began."""
    flags = sum(results.flags.values())
    stopped = f", stopped on {STOP.describe()}" if STOP.requested else ""
    if seconds is None:
        return [f"no coup played{stopped} before the table was ready"]
    rate = f" ({played / seconds * 60:.1f} coups per minute)" if played and seconds > 0 else ""
    lines = [f"{_coups(played)} played in {seconds:.1f} s{rate}{stopped}",
             f"  flags raised: {flags}" + (f" ({', '.join(f'{kind} {n}' for kind, n in results.flags.most_common())})"
                                           if flags else ""),
             f"  paid to the players: {format_money(results.paid)} €"]
    if results.voided_by_chief:
        lines.append(f"  coups the table chief declared void: {len(results.voided_by_chief)} "
                     f"({', '.join(map(str, results.voided_by_chief))})")
    if results.card_delays:
        lines.append(f"  a card placed, to its event back from the bus: {_ms(results.card_delays)} cards")
    if results.shoe_delays:
        lines.append(f"  a card out of the shoe, to its count on the bus: {_ms(results.shoe_delays)} cards")
    if driver is not None:
        lines.append(f"camera: {driver.sender.sent} frames sent to the vision process, which published "
                     f"{results.vision_matched} of the {results.vision_expected} observations a perfect camera "
                     f"would have" + (f"; differences: {'; '.join(results.vision_misses[:12])}"
                                      if results.vision_misses else ""))
        if results.vision_delays:
            lines.append(f"  a change on the felt, to the last of its observations on the bus: "
                         f"{_ms(results.vision_delays)} changes")
    return lines
