"""``stud-table run``: the table's processes, supervised.

Each part runs as its own process (the same code paths as on the Pi); one that
dies is started again after a short, growing delay, and a health line is
logged every ``health_every`` seconds.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("stud-table.run")


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
        self.process = subprocess.Popen(self.argv)
        self.started_at = time.monotonic()
        log.info("started %s (pid %d)", self.name, self.process.pid)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def table_processes(config: Path, with_sensors: bool, with_vision: bool = False) -> list[Child]:
    python = [sys.executable, "-m", "controller.cli"]
    children = [Child("proxy", [*python, "proxy", "--config", str(config)]),
                Child("engine", [*python, "engine", "--config", str(config)])]
    if with_sensors:
        children.append(Child("sensors", [*python, "sensors", "--config", str(config)]))
    if with_vision:
        children.append(Child("vision", [*python, "vision", "--config", str(config)]))
    children.append(Child("web", [*python, "web", "--config", str(config)]))
    return children


class Supervisor:
    def __init__(self, children: list[Child], health_every: float = 30.0) -> None:
        self.children = children
        self.health_every = health_every
        self._stop = threading.Event()

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        for child in self.children:
            child.start()
            time.sleep(0.2)  # the proxy binds before the others connect
        last_health = time.monotonic()
        while not self._stop.wait(0.2):
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
        for child in reversed(self.children):
            if child.alive and child.process:
                child.process.terminate()
        for child in reversed(self.children):
            if child.process:
                try:
                    child.process.wait(10)
                except subprocess.TimeoutExpired:
                    child.process.kill()
        log.info("stopped")


def serve(supervisor: Supervisor) -> None:
    signal.signal(signal.SIGTERM, lambda *_: supervisor.stop())
    signal.signal(signal.SIGINT, lambda *_: supervisor.stop())
    supervisor.run()
