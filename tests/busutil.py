"""Helpers for bus tests: endpoints in a temporary folder, envelopes from simulated coups."""

from __future__ import annotations

import random
import threading
import time
from contextlib import contextmanager

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
