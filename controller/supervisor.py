"""``stud-table run``: the table's processes, supervised.

Each part runs as its own process (the same code paths as on the Pi); one that
dies is started again after a short, growing delay, and a health line is
logged every ``health_every`` seconds.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from .shutdown import STOP, parent_death_signal, wait_until

log = logging.getLogger("stud-table.run")


#: Linux: each child gets SIGTERM should the supervisor die, even killed outright
_die_with_parent = parent_death_signal()


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restarts: int = 0
    next_start: float = 0.0
    backoff: float = field(default=0.5)

    def start(self) -> None:
        # In a process group of its own: a Ctrl-C in the supervisor's terminal reaches the supervisor only, which
        # stops its children in order (SIGTERM), never a child still loading its modules.
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, process_group=0,
                                        preexec_fn=_die_with_parent)
        self.started_at = time.monotonic()
        log.info("started %s (pid %d)", self.name, self.process.pid)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def table_processes(config: Path, with_sensors: bool, with_vision: bool = False) -> list[Child]:
    """The proxy first (the bus the others connect to; stopped last), then the others."""
    # -P: the children import the installed package, as the parent does, never a checkout that is their
    # working directory (the Pi's service runs in /opt/stud-table)
    python = [sys.executable, "-P", "-m", "controller.cli"]
    children = [Child("proxy", [*python, "proxy", "--config", str(config)]),
                Child("engine", [*python, "engine", "--config", str(config)])]
    if with_sensors:
        children.append(Child("sensors", [*python, "sensors", "--config", str(config)]))
    if with_vision:
        children.append(Child("vision", [*python, "vision", "--config", str(config)]))
    children.append(Child("web", [*python, "web", "--config", str(config)]))
    return children


class Supervisor:
    """``stop_timeout``: how long a child has to stop on SIGTERM before it is killed (and the log says so)."""

    def __init__(self, children: list[Child], health_every: float = 30.0, stop_timeout: float = 10.0) -> None:
        self.children = children
        self.health_every = health_every
        self.stop_timeout = stop_timeout
        self._stopping = False  # a plain flag: set from a signal handler, polled by the loop
        self.killed: list[str] = []

    def stop(self) -> None:
        self._stopping = True

    def _sleep(self, seconds: float) -> bool:
        """Sleep, in short steps; True as soon as the stop is asked for."""
        return wait_until(lambda: self._stopping, seconds)

    def run(self) -> None:
        for child in self.children:
            if self._stopping:
                break
            child.start()
            self._sleep(0.2)  # the proxy binds before the others connect
        last_health = time.monotonic()
        while not self._sleep(0.2):
            now = time.monotonic()
            for child in self.children:
                if child.alive:
                    if now - child.started_at > 30:
                        child.backoff = 0.5  # stable again
                    continue
                if child.next_start == 0.0:
                    code = child.process.returncode if child.process else None
                    log.warning("%s exited (code %s); restarting in %.1f s", child.name, code, child.backoff)
                    child.next_start = now + child.backoff
                    child.backoff = min(child.backoff * 2, 30.0)
                elif now >= child.next_start:
                    child.restarts += 1
                    child.next_start = 0.0
                    child.start()
            if now - last_health >= self.health_every:
                last_health = now
                log.info("health: %s", ", ".join(
                    f"{c.name} {'up' if c.alive else 'DOWN'} {now - c.started_at:.0f}s restarts={c.restarts}"
                    for c in self.children))
        self.shutdown()

    def shutdown(self) -> None:
        """SIGTERM to every child but the first (the proxy), each given ``stop_timeout`` seconds; then the proxy, so
        the bus carries the others' last messages. A child that does not stop in time is killed, and logged."""
        began = time.monotonic()
        for wave in (self.children[1:][::-1], self.children[:1]):
            self._stop_all(wave)
        log.info("stopped in %.1f s%s", time.monotonic() - began,
                 f" ({len(self.killed)} killed: {', '.join(self.killed)})" if self.killed else "")

    def _stop_all(self, children: list[Child]) -> None:
        began = time.monotonic()
        running = [child for child in children if child.alive]  # not the ones dead and waiting for a restart
        for child in running:
            assert child.process is not None
            child.process.terminate()
        deadline = began + self.stop_timeout
        for child in running:
            assert child.process is not None
            try:
                code = child.process.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
                self.killed.append(child.name)
                log.error("killed %s after %.1f s (pid %d): it did not stop on SIGTERM", child.name,
                          time.monotonic() - began, child.process.pid)
                continue
            log.info("%s stopped (code %s) in %.1f s", child.name, code, time.monotonic() - began)


def serve(supervisor: Supervisor) -> None:
    """Run until SIGTERM or SIGINT (the process's stop request: ``controller.shutdown.STOP``); a second signal
    while the children are stopped changes nothing."""
    callback = STOP.on_stop(supervisor.stop)  # STOP's handler: installed by ``controller.cli.main``
    try:
        supervisor.run()
    finally:
        STOP.forget(callback)
