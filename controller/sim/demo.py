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

The table's processes are asked to die with the demo (Linux), even when it is killed outright.

Observations and keypad entries go out through one publisher, in order; before a sensor acts, the table waits
until its own last message is back from the proxy, and after, until the sensor's event is on the bus: the engine
sees the events in the order they happened.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tty
import webbrowser
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

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
from firmware import protocol
from firmware.tests_support.bench import ShoeBench

from .camera import RenderedCamera
from .script import JACKPOT_METER_CENTS, MAXIMUM_CENTS, MINIMUM_CENTS, Script, load_script, random_script
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

    def __init__(self, context: zmq.Context, endpoint: str) -> None:
        self.socket = context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.setsockopt(zmq.RCVTIMEO, int(WAIT_S * 1000))
        self.socket.connect(endpoint)

    def act(self, device: str, action: str) -> None:
        self.socket.send(json.dumps({"device": device, "action": action}).encode())
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
                 on_settled: Callable[[CoupSettled], None] | None = None, vision: SceneDriver | None = None) -> None:
        self.shoe, self.pins = shoe, pins
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

    # -- reading the bus
    def _absorb(self, timeout_ms: int) -> None:
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
            self.state_seen = True
        elif isinstance(body, CoupSettled):
            self.results.settled.append(body)
            if self.on_settled:
                self.on_settled(body)
        if envelope.publisher == "vision" and isinstance(body, OBSERVED):
            self._vision_seen.append(body)

    def _wait(self, condition: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not condition():
            if time.monotonic() > deadline:
                raise RuntimeError(f"the virtual table waited {WAIT_S:.0f} s for {what}")
            self._absorb(50)

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
                    time.sleep(self.pace_s)
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

        while time.monotonic() < deadline and not wanted <= got():
            self._absorb(20)
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


@dataclass
class Stack:
    """The table's processes on a virtual table, in ``folder``."""

    folder: Path
    run: subprocess.Popen[bytes]
    sensors: subprocess.Popen[bytes]
    shoe: PtyShoe
    port: int
    logs: list[object]

    def stop(self) -> None:
        for process in (self.sensors, self.run):
            process.terminate()
        for process in (self.sensors, self.run):
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
        self.shoe.close()
        for log in self.logs:
            log.close()  # type: ignore[attr-defined]


#: how long the virtual table waits for the camera to see a change, and shows a change that shows nothing new
VISION_WAIT_S = 10.0
SCENE_HOLD_S = 0.4


def _parent_death_signal() -> Callable[[], None] | None:
    """Linux: a child asks for SIGTERM when the demo dies, even killed outright (a test's timeout), so no table
    stack or sensors process outlives it. Looked up here, in the parent: the child only makes the call."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (AttributeError, OSError):
        return None
    pr_set_pdeathsig = 1
    return lambda: prctl(pr_set_pdeathsig, signal.SIGTERM)


_die_with_parent = _parent_death_signal()


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
    # Started before the shoe's thread: no other thread runs while they fork.
    run = subprocess.Popen([*python, "run", "--config", str(folder / "table.toml")], stdout=run_log,
                           stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
    sensors = subprocess.Popen([*python, "sensors", "--config", str(folder / "sensors.toml"), "--virtual-pins",
                                f"ipc://{folder}/run/pins.sock"], stdout=sensors_log, stderr=subprocess.STDOUT,
                               preexec_fn=_die_with_parent)
    shoe = PtyShoe(shoe_link)
    return Stack(folder, run, sensors, shoe, port, [run_log, sensors_log])


def wait_for_engine(context: zmq.Context, stack: Stack) -> dict[str, object]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for name, process in (("table stack", stack.run), ("sensors process", stack.sensors)):
            if process.poll() is not None:
                raise RuntimeError(f"the {name} exited (code {process.returncode}); see its log in {stack.folder}")
        try:
            return request_snapshot(context, f"ipc://{stack.folder}/run/snap.sock", timeout_ms=500)
        except SnapshotTimeout:
            continue
    raise RuntimeError("the engine did not answer within 60 s")


def plans(script: Script) -> Iterator[tuple[list[Step], CoupPlan]]:
    """The opening steps with the first coup, then each coup; played lazily (a random session may be long)."""
    world = World(script.profile)
    opening = world.open(script.seats)
    for number, coup in enumerate(script.coups):
        yield (opening if number == 0 else []), world.play(coup)


def _stop_on_sigterm(*_: object) -> None:
    """A SIGTERM stops the demo as Ctrl-C does. Only the first: ``timeout`` and systemd signal the whole process
    group, so a second one comes while the stack is being stopped, and must not cut that short."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def run_demo(coups: int | None, seed: int, profile_name: str, headless: bool, pace_s: float,
             folder: Path | None = None, script: str | None = None, camera: str = "rendered") -> int:
    """``camera``: ``rendered`` (frames through the real vision process) or ``direct`` (the observations a perfect
    camera would publish, for fast runs)."""
    played_script = load_script(script) if script else random_script(seed, coups or 100_000, profile_name)
    if coups is None and script:
        coups = len(played_script.coups)
    folder = folder or Path(tempfile.mkdtemp(prefix="stud-table-demo-"))
    folder.mkdir(parents=True, exist_ok=True)
    stack = start_stack(folder, played_script.profile, rendered=camera == "rendered")
    context = zmq.Context()
    # A SIGTERM (systemd, timeout) stops the demo as Ctrl-C does: the stack is stopped too.
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        return _play(context, stack, played_script, coups, headless, pace_s, camera, seed)
    except KeyboardInterrupt:
        print("\nstopped")
        return 0
    finally:
        stack.stop()
        context.destroy(linger=0)


def _announce(body: CoupSettled) -> None:
    settlement = body.settlement
    announced = " · ".join(settlement.get("announced", [])) or "jeu"  # type: ignore[arg-type]
    print(f"coup {body.coup}: croupier {settlement.get('dealer_hand') or '-'} · {announced} · "
          f"banque {format_money(int(settlement.get('house_net', 0)))} €", flush=True)  # type: ignore[arg-type]


def _play(context: zmq.Context, stack: Stack, script: Script, coups: int | None, headless: bool,
          pace_s: float, camera: str = "direct", seed: int = 0) -> int:
    wait_for_engine(context, stack)
    url = f"http://127.0.0.1:{stack.port}/display"
    print(f"table stack running in {stack.folder} (logs: table.log, sensors.log)")
    print(f"croupier display: {url}")
    print(f"surveillance review: http://127.0.0.1:{stack.port}/review "
          f"(create a user: stud-table web-user --config {stack.folder / 'table.toml'} NAME supervisor)")
    if not headless:
        webbrowser.open(url)
    pins = VirtualPins(context, f"ipc://{stack.folder}/run/pins.sock")
    driver = RenderedCamera(context, camera_endpoint(stack.folder), seed=seed) if camera == "rendered" else None
    table = VirtualTable(context, stack.folder, stack.shoe, pins, pace_s=pace_s, on_settled=_announce,
                         vision=driver)
    try:
        table.wait_ready()
        played = 0
        for opening, plan in plans(script):
            if coups is not None and played >= coups:
                break
            table.play(opening + plan.steps)
            table.finish_coup(plan, recover=driver is not None)
            played += 1
    except RuntimeError as error:
        print(f"stud-table demo: {error}; see the logs in {stack.folder}", file=sys.stderr)
        return 1
    finally:
        table.close()
        pins.close()
        if driver is not None:
            driver.close()
    results = table.results
    print(f"{played} coups played, {sum(results.flags.values())} flags {dict(results.flags)}, "
          f"paid {format_money(results.paid)} €")
    if driver is not None:
        print(f"camera: {driver.sender.sent} frames sent to the vision process, which published "
              f"{results.vision_matched} of the {results.vision_expected} observations a perfect camera would have"
              + (f"; differences: {'; '.join(results.vision_misses[:12])}" if results.vision_misses else ""))
    print(f"event store: {stack.folder / 'var' / 'events.sqlite'}")
    return 0
