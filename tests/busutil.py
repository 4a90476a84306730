"""Helpers for bus tests: endpoints in a temporary folder, envelopes from simulated coups."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import zmq

from controller.bus.schema import Envelope, encode
from controller.engine import Engine
from controller.rules.profile import TableRules
from controller.sim.coups import new_table, play_coup
from controller.sim.events import bus_events
from controller.store import EventStore


def endpoints(folder) -> tuple[str, str, str]:
    return (f"ipc://{folder}/pub.sock", f"ipc://{folder}/sub.sock", f"ipc://{folder}/snap.sock")


def simulated(rules: TableRules, seed: int, coups: int):
    """The reference table (played directly) and the bus envelopes that stand for it."""
    rng = random.Random(seed)
    table = new_table(rules, rng)
    t = 0
    for _ in range(coups):
        t = play_coup(table, rng, t)
    envelopes = []
    for seq, (ms, topic, body) in enumerate(bus_events(table.log), start=1):
        envelopes.append((topic, Envelope("sim", seq, ms * 1_000_000, 1_700_000_000_000_000_000 + ms * 1_000_000,
                                          body)))
    return table, envelopes


def raw_publisher(context: zmq.Context, endpoint: str) -> zmq.Socket:
    socket = context.socket(zmq.PUB)
    socket.setsockopt(zmq.LINGER, 1000)
    socket.setsockopt(zmq.SNDHWM, 0)
    socket.connect(endpoint)
    return socket


def send(socket: zmq.Socket, topic: str, envelope: Envelope) -> None:
    socket.send_multipart(encode(topic, envelope))


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.01) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


@contextmanager
def running_engine(context, publish, subscribe, snapshot, rules, store_path, **engine_options):
    """An engine on the bus in a thread, its store, and a raw publisher to play recorded events through it."""
    store = EventStore(store_path)
    engine = Engine(rules, store, context, subscribe, publish, snapshot, **engine_options)
    running = threading.Thread(target=engine.run)
    running.start()
    raw = raw_publisher(context, publish)
    try:
        yield engine, store, raw
    finally:
        engine.stop()
        running.join()
        engine.close()
        raw.close()
        store.close()


ENGINE_CONFIG = """
[table]
id = "{table_id}"
profile = "fr-2007"
minimum_cents = 1000
maximum_cents = 50000
seats = 7
bonus = true
card_purchase = true

[bus]
publish = "ipc://run/pub.sock"
subscribe = "ipc://run/sub.sock"
snapshot = "ipc://run/snap.sock"

[store]
path = "var/events.sqlite"
"""


def engine_config(folder: Path, table_id: str) -> Path:
    """A table's configuration in ``folder`` for an engine run as its own process (``start_engine``): its bus
    under ``folder/run``, its store ``folder/var/events.sqlite``."""
    (folder / "run").mkdir(exist_ok=True)
    config = folder / "table.toml"
    config.write_text(ENGINE_CONFIG.format(table_id=table_id))
    return config


def start_engine(config: Path) -> subprocess.Popen:
    """``stud-table engine`` as on the Pi; its log appended to ``engine.log`` beside the configuration (a file, not
    a pipe: nobody reads it while the engine runs, and a full pipe would stop it)."""
    with (config.parent / "engine.log").open("ab") as log:
        return subprocess.Popen([sys.executable, "-m", "controller.cli", "engine", "--config", str(config)],
                                cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.DEVNULL, stderr=log)


def engine_log(config: Path) -> str:
    """The end of the engine's log (for an assertion's message)."""
    return (config.parent / "engine.log").read_text(errors="replace")[-3000:]
