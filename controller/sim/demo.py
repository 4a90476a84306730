"""``stud-table demo``: the real table stack on a virtual table.

It starts the table's processes (controller/sim/stack.py), then plays coups from a script (or drawn at random) as
a timeline of world steps (controller/sim/world.py) on the virtual table (controller/sim/virtual_table.py), whose
shoe and pins are the devices of controller/sim/devices.py. SIGINT or SIGTERM, once or twice, at any moment, stops
the virtual table, then the stack, and prints the summary (``controller.shutdown``): the demo never sees a
``KeyboardInterrupt``, it polls the stop request wherever it waits (``Stopped``).

What it is doing goes on stdout as it happens: the stack's processes starting (from its log), the engine ready,
the vision process calibrating and loading its models, then each coup, and the summary.
"""

from __future__ import annotations

import contextlib
import sys
import tempfile
import time
import webbrowser
from collections.abc import Iterable, Iterator
from pathlib import Path
from statistics import median
from typing import Any

import zmq

from controller.bus.schema import CoupSettled
from controller.rules.history import format_money
from controller.shutdown import STOP

from .camera import RenderedCamera
from .conditions import DEFAULT_FRAME_SIZE
from .devices import Stopped, VirtualPins
from .pace import DealerPace
from .script import CoupScript, Script, load_script, random_script
from .stack import Stack, StackLog, camera_endpoint, start_stack, wait_for_engine
from .virtual_table import Results, VirtualTable
from .world import (
    ButtonPress,
    CameraDropout,
    CoupPlan,
    CutCardSensor,
    KeypadEntry,
    Pause,
    SceneChange,
    SerialNoise,
    ShoeDraw,
    Step,
    World,
)

#: how long the demo waits for the vision process to calibrate and load its models before it plays anyway
VISION_READY_S = 180.0
#: a progress line when nothing was printed for this long
QUIET_S = 5.0


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


def run_demo(coups: int | None, seed: int, profile_name: str, headless: bool, pace_s: float,
             folder: Path | None = None, script: str | None = None, camera: str = "rendered",
             conditions: frozenset[str] = frozenset(), camera_size: tuple[int, int] | None = None,
             dealer: str = "real", stacked_bets: str = "confirm") -> int:
    """``dealer``: ``real`` (his gestures at a real dealer's pace, never waiting for the camera) or ``patient``
    (waiting for the vision process after every change). ``camera``: ``rendered`` (frames of ``camera_size``
    pixels, default ``DEFAULT_FRAME_SIZE``, through the real vision process, drawn under ``conditions``:
    ``conditions.CONDITIONS``) or ``direct`` (the observations a perfect camera would publish, for fast runs).
    ``stacked_bets``: the house rule for a stacked bet (``controller.config.STACKED_BETS``).
    Until ``coups`` are played, or SIGINT or SIGTERM (once or twice, at any moment: an orderly stop, then the
    summary; exit 0: ``STOP``'s handler, installed by ``controller.cli.main``)."""
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
                 f"profile {played_script.profile}, {dealer} dealer, {camera} camera"
                 f"{' (' + ', '.join(sorted(conditions)) + ')' if conditions else ''}, "
                 f"{_coups(coups) if coups is not None else 'until Ctrl-C'}; folder {folder}")
    if STOP.requested:
        return 0
    report.say(f"starting the table stack: bus proxy, engine and its store, web{', vision' if rendered else ''}, "
               f"sensors (logs: table.log, sensors.log)")
    stack = start_stack(folder, played_script.profile, rendered=rendered, stacked_bets=stacked_bets)
    context = zmq.Context()
    stack_log = StackLog(folder / "table.log")
    outcome: list[str] = []
    try:
        return _play(context, stack, played_script, coups, headless, pace_s, camera, seed, report=report,
                     stack_log=stack_log, coups_to_play=endless, outcome=outcome, conditions=conditions,
                     camera_size=camera_size, dealer=dealer, spreads_stacks=stacked_bets == "spread")
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
    report.plain(coup_line(body.coup, body.settlement))


def coup_line(coup: int, settlement: dict[str, Any]) -> str:
    """A settled coup in one line, in the croupier's French words: the dealer's hand, whether he plays (« jeu » /
    « pas de jeu », said even when every player folded and the rules announce nothing), what the croupier
    announces (in the profile's language), the bank's result."""
    announced = list(settlement.get("announced", []))
    known = settlement.get("dealer_hand") is not None  # None: every player folded before his cards were seen
    if known and not settlement.get("void") and "no_game" not in settlement.get("announcements", []):
        announced.insert(0, "jeu" if settlement.get("dealer_qualifies") else "pas de jeu")
    parts = [f"croupier {settlement.get('dealer_hand') or '-'}", *announced,
             f"banque {format_money(int(settlement.get('house_net', 0)))} €"]
    return f"coup {coup}: {' · '.join(parts)}"


_STEP_WORDS: dict[type, str] = {SceneChange: "a change on the felt", ButtonPress: "a button", ShoeDraw: "a card out "
                                "of the shoe", KeypadEntry: "a keypad entry", CutCardSensor: "the cut card",
                                CameraDropout: "the camera unplugged", SerialNoise: "noise on the shoe's line",
                                Pause: "a decision time running out"}


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
          outcome: list[str] | None = None, conditions: frozenset[str] = frozenset(),
          camera_size: tuple[int, int] | None = None, dealer: str = "real", spreads_stacks: bool = False) -> int:
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
        wait_for_engine(stack, stop=stop, tick=tick)
        report.say("engine ready: it answers for the table's state")
        url = f"http://127.0.0.1:{stack.port}/display"
        report.plain(f"croupier display: {url}")
        report.plain(f"surveillance review: http://127.0.0.1:{stack.port}/review "
                     f"(create a user: stud-table web-user --config {stack.folder / 'table.toml'} NAME supervisor)")
        if not headless:
            webbrowser.open(url)
        pins = VirtualPins(context, f"ipc://{stack.folder}/run/pins.sock", stop=stop, keys=stack.keys)
        driver = (RenderedCamera(context, camera_endpoint(stack.folder), seed=seed,
                                 size=camera_size or DEFAULT_FRAME_SIZE,
                                 conditions=conditions, keys=stack.keys) if rendered else None)
        table = VirtualTable(stack.bus, stack.folder, stack.shoe, pins, pace_s=pace_s,
                             on_settled=lambda body: _announce(report, body), vision=driver, stop=stop, tick=tick,
                             dealer_pace=DealerPace(seed) if dealer == "real" else None, spreads_stacks=spreads_stacks)
        results = table.results
        report.say("waiting for the sensors process (mock GPIO pins, the shoe's serial port)...")
        table.wait_ready()
        report.say("sensors process ready: its heartbeat on the bus, the shoe's port open")
        if driver is not None:
            report.say("vision process: calibrating on the virtual camera's first frames, loading the table "
                       "reader's models (can take a minute)...")
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
    if results.confirmations:
        lines.append(f"  amounts the dealer confirmed (the camera could not vouch for them): "
                     f"{len(results.confirmations)} ("
                     + ", ".join(f"coup {c} seat {s} {z} {format_money(a)} €" for c, s, z, a in results.confirmations)
                     + ")")
        taps = results.confirmation_digits.count(0)
        lines.append(f"    of them one of the two amounts offered (one tap): {taps}; keyed: "
                     f"{len(results.confirmation_digits) - taps} ({sum(results.confirmation_digits)} digits)")
    if results.spreads:
        lines.append(f"  stacks the dealer had spread for the camera: {len(results.spreads)} ("
                     + ", ".join(f"coup {c} seat {s} {z}" for c, s, z in results.spreads) + ")")
    if results.card_confirmations:
        lines.append(f"  cards the dealer named (the camera could not tell them): {len(results.card_confirmations)} ("
                     + ", ".join(f"coup {c} position {p} card {i + 1} {card}"
                                 for c, p, i, card in results.card_confirmations) + ")")
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
