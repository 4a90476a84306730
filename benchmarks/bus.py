"""Benchmark of the bus and the engine (a benchmark, not a test).

Prints, measured in the same run:
  * the bare bus's throughput: messages per second from one publisher through the
    XSUB/XPUB proxy to one subscriber, all on ipc:// (the baseline);
  * the engine at a paced input rate (default 10,000 events a second): the latency
    from an event's publication to the engine's first published state that includes
    it (p50, p99, max), the rate it sustained, and the store's size; with --outbox,
    published as the table's producers publish (kept until acknowledged);
  * with --keys, the bus encrypted and authenticated (CURVE, ``controller.bus.keys``): the
    bare bus with and without keys, alternated, and the engine on a bus with keys.

The proxy and the engine run as processes of their own (``stud-table proxy``,
``stud-table engine``), as on the Pi, the engine's SQLite store in WAL mode with
synchronous=FULL (one fsync per batch of events). The sender paces its events by
sleeping, never spinning, so that this process's listener takes each state when it
comes: by default the events due in each millisecond go out together (--tick-ms 1), as
the vision process publishes a frame's readings; with --tick-ms 0 each goes at its own
time, and the sender's ten thousand sleeps a second take it a third of a core of the
two that the engine and the proxy share with it.

    .venv/bin/python benchmarks/bus.py [--json] [--rate 10000] [--seconds 5] [--tick-ms 1] [--outbox] [--keys]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.bus.clone import SnapshotTimeout, request_snapshot  # noqa: E402
from controller.bus.keys import Keys, bus_context, create_keys, engine_key  # noqa: E402
from controller.bus.proxy import Proxy  # noqa: E402
from controller.bus.schema import ButtonPressed, Envelope, TableState, encode  # noqa: E402
from controller.bus.transport import Publisher, Subscriber  # noqa: E402
from controller.profiles import load_profile  # noqa: E402
from controller.rules.profile import TableRules  # noqa: E402
from controller.sim.coups import new_table, play_coup  # noqa: E402
from controller.sim.events import bus_events  # noqa: E402

CONFIG = """
[table]
id = "bench"
profile = "fr-2007"
minimum_cents = 1000
maximum_cents = 50000
bonus = true
card_purchase = true

[bus]
publish = "ipc://pub.sock"
subscribe = "ipc://sub.sock"
snapshot = "ipc://snap.sock"

[store]
path = "events.sqlite"
"""


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def bare_bus(folder: Path, count: int, keyed: bool = False) -> dict[str, float]:
    """Baseline: one publisher to one subscriber through the proxy; ``keyed``: all three with CURVE keys, the
    proxy checking each message's role."""
    folder.mkdir(parents=True, exist_ok=True)
    keys = folder / "keys" if keyed else None
    if keys is not None:
        create_keys(keys)
    proxy = Proxy(f"ipc://{folder}/bare-pub.sock", f"ipc://{folder}/bare-sub.sock", Keys(keys) if keys else None)
    context, listening = (bus_context(keys, "sensors"), bus_context(keys, "engine")) if keys else (zmq.Context(),) * 2
    subscriber = Subscriber(listening, f"ipc://{folder}/bare-sub.sock", ("sensor.",))
    publisher = Publisher(context, f"ipc://{folder}/bare-pub.sock", "sensors-bench")
    body = ButtonPressed("no_more_bets")
    while True:  # slow joiner: wait until the subscription is through
        publisher.publish("sensor.button", body)
        if subscriber.receive(50) is not None:
            break
    while subscriber.receive(100) is not None:
        pass
    received = 0

    def drain() -> None:
        nonlocal received
        while received < count and subscriber.receive(2000) is not None:
            received += 1

    reader = threading.Thread(target=drain)
    reader.start()
    started = time.perf_counter()
    for _ in range(count):
        publisher.publish("sensor.button", body)
    reader.join()
    elapsed = time.perf_counter() - started
    publisher.close()
    subscriber.close()
    proxy.close()
    for each in {context, listening}:
        each.destroy(linger=0)
    return {"messages": count, "received": received, "seconds": round(elapsed, 3),
            "messages_per_s": round(received / elapsed), "keys": keyed}


def commit_cost(folder: Path, count: int = 200) -> dict[str, float]:
    """The floor under the engine's latency: one durable commit (WAL, synchronous=FULL) of one event."""
    from controller.store import EventStore, NewEvent

    store = EventStore(folder / "commit.sqlite")
    times = []
    for seq in range(1, count + 1):
        started = time.perf_counter()
        store.append([NewEvent("sensor.button", "bench", seq, seq, seq, '{"type":"heartbeat","interval_ms":1}')])
        times.append((time.perf_counter() - started) * 1000)
    store.close()
    return {"commits": count, "p50_ms": round(percentile(times, 0.5), 3), "p99_ms": round(percentile(times, 0.99), 3)}


def bench_rules() -> TableRules:
    """The benchmark's table: fr-2007, 7 seats, bonus and card purchase (the most events a coup makes)."""
    return TableRules(load_profile("fr-2007"), 1000, 50000, 7, bonus=True, card_purchase=True)


def coup_events(count: int, seed: int) -> list[tuple[str, object]]:
    rng = random.Random(seed)
    table = new_table(bench_rules(), rng, players=7)
    t = 0
    while len(table.log) < count * 1.2:  # a few operations (settlement) make no event
        t = play_coup(table, rng, t)
    return [(topic, body) for _ms, topic, body in bus_events(table.log)][:count]


def engine_latency(folder: Path, rate: int, seconds: float, seed: int, outbox: bool = False,
                   keyed: bool = False, tick_s: float = 0.0) -> dict[str, object]:
    """``keyed``: a bus with CURVE keys, the events published with the simulator's key (it may publish every topic
    a coup's events carry), the states heard with the web server's. ``tick_s``: the events due within each tick
    published together at its start (a camera frame's readings, as the vision process publishes them); 0: each at
    its own time. Each event's latency counts from the moment it was sent."""
    config = folder / "table.toml"
    keys = folder / "engine-keys" if keyed else None
    snapshot = 'snapshot = "ipc://snap.sock"'
    config.write_text(CONFIG.replace(snapshot, f'{snapshot}\nkeys = "engine-keys"') if keys else CONFIG)
    if keys is not None:
        create_keys(keys, simulator=True)
    # The proxy and the engine in processes of their own, as `stud-table run` starts them: the proxy with keys
    # forwards in Python, and must not share a GIL with this process's sender and listener.
    processes: dict[str, subprocess.Popen[bytes]] = {}
    context, listening = (bus_context(keys, "simulator"), bus_context(keys, "web")) if keys else (zmq.Context(),) * 2
    try:
        for command, ready in (("proxy", lambda: (folder / "pub.sock").exists() and (folder / "sub.sock").exists()),
                               ("engine", lambda: _answers(listening, folder, keys))):
            with open(folder / f"{command}.log", "wb") as log:
                processes[command] = subprocess.Popen(
                    [sys.executable, "-m", "controller.cli", command, "--config", str(config)], cwd=ROOT, stdout=log,
                    stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 30
            while not ready():
                if processes[command].poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"stud-table {command} did not start:\n"
                                       f"{(folder / f'{command}.log').read_text(errors='replace')[-2000:]}")
                time.sleep(0.05)
        total = int(rate * seconds)
        events = coup_events(total, seed)
        sender = context.socket(zmq.PUB)
        sender.setsockopt(zmq.SNDHWM, 0)
        sender.connect(f"ipc://{folder}/pub.sock")
        # With an outbox, the producer as vision and sensors are: it keeps each event until the engine acknowledges it.
        producer = Publisher(context, f"ipc://{folder}/pub.sock", "virtual-table",
                             acknowledged_at=f"ipc://{folder}/sub.sock") if outbox else None
        listener = Subscriber(listening, f"ipc://{folder}/sub.sock", ("core.",))
        time.sleep(1.0)  # the engine's subscription and ours reach the proxy
        sent_at: list[float] = [0.0] * (total + 1)
        state_at: list[tuple[float, int]] = []
        done = threading.Event()

        def listen() -> None:
            while not done.is_set():
                message = listener.receive(100)
                if message is not None and isinstance(message[1].body, TableState):
                    state_at.append((time.perf_counter(), int(message[1].body.state["recorded_events"])))

        reader = threading.Thread(target=listen)
        reader.start()
        started = time.perf_counter()
        interval = 1.0 / rate
        for index, (topic, body) in enumerate(events, start=1):
            # Each event at its time, or at once when late; with a tick, the events due in it go together at its
            # start. The wait sleeps, never spins: a spinning sender holds the GIL, and the listener's thread would
            # take each state only when its turn came (up to 5 ms later).
            due = index * interval
            if tick_s:
                due = due // tick_s * tick_s
            wait = started + due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            sent_at[index] = time.perf_counter()
            if producer is not None:
                producer.publish(topic, body)  # type: ignore[arg-type]
            else:
                envelope = Envelope("virtual-table", index, time.monotonic_ns(), time.time_ns(), body)  # type: ignore[arg-type]
                sender.send_multipart(encode(topic, envelope))
        send_seconds = time.perf_counter() - started
        wait_until = time.monotonic() + 60
        while (not state_at or state_at[-1][1] < total) and time.monotonic() < wait_until:
            time.sleep(0.05)
        done.set()
        reader.join()
        finished = state_at[-1][0] - started if state_at else float("nan")
        # Each event's latency: until the first state whose count includes it.
        latencies = []
        pointer = 0
        for index in range(1, total + 1):
            while pointer < len(state_at) and state_at[pointer][1] < index:
                pointer += 1
            if pointer == len(state_at):
                break
            latencies.append((state_at[pointer][0] - sent_at[index]) * 1000)
        unacknowledged = len(producer.outbox) if producer is not None and producer.outbox is not None else None
        if producer is not None:
            producer.close()
        sender.close()
        listener.close()
        store_size = os.path.getsize(folder / "events.sqlite") + os.path.getsize(folder / "events.sqlite-wal") \
            if (folder / "events.sqlite-wal").exists() else os.path.getsize(folder / "events.sqlite")
        return {
            "target_rate": rate,
            "tick_ms": tick_s * 1000,
            "events": total,
            "send_rate": round(total / send_seconds),
            "engine_rate": round(len(latencies) / finished) if latencies else 0,
            "events_answered": len(latencies),
            "states_published": len(state_at),
            "latency_ms": {"p50": round(percentile(latencies, 0.50), 3), "p99": round(percentile(latencies, 0.99), 3),
                           "max": round(max(latencies), 3), "mean": round(statistics.fmean(latencies), 3)}
            if latencies else None,
            "store_bytes": store_size,
            "outbox": outbox,
            "unacknowledged_at_end": unacknowledged,
        }
    finally:
        for process in reversed(processes.values()):  # the engine, then the proxy
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for each in {context, listening}:
            each.destroy(linger=0)


def _answers(listening: zmq.Context, folder: Path, keys: Path | None) -> bool:
    """Whether the engine answers a snapshot (it has replayed its store and serves)."""
    try:
        request_snapshot(listening, f"ipc://{folder}/snap.sock", 300, engine_key=engine_key(keys))
        return True
    except SnapshotTimeout:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--rate", type=int, default=10_000, help="events a second offered to the engine")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--bare", type=int, default=100_000, help="messages for the bare-bus baseline")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tick-ms", type=float, default=1.0,
                        help="publish the events due in each tick together, as a frame's readings go out (0: each "
                             "event at its own time; the sender's sleeps then cost it a third of a core)")
    parser.add_argument("--outbox", action="store_true",
                        help="publish through an outbox, as vision and sensors do (the engine acknowledges each batch)")
    parser.add_argument("--keys", action="store_true",
                        help="the bus with CURVE keys: the bare bus with and without (3 runs each, alternated), the "
                             "engine with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-bus-") as folder:
        bare = bare_bus(Path(folder), args.bare)
        bare_runs = []
        if args.keys:
            for run in range(3):
                for keyed in (False, True):
                    bare_runs.append(bare_bus(Path(folder) / f"bare-{run}-{keyed}", args.bare, keyed))
        commit = commit_cost(Path(folder))
        engine = engine_latency(Path(folder), args.rate, args.seconds, args.seed, args.outbox, args.keys,
                                args.tick_ms / 1000)
    result = {"load_average": os.getloadavg(), "cpus": os.cpu_count(), "bare_bus": bare, "durable_commit": commit,
              "engine": engine}
    if bare_runs:
        result["bare_bus_runs"] = bare_runs
        for keyed in (False, True):
            rates = [run["messages_per_s"] for run in bare_runs if run["keys"] is keyed]
            result["bare_bus_median_with_keys" if keyed else "bare_bus_median_without_keys"] = statistics.median(rates)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"bare bus (baseline): {bare['messages_per_s']:,} messages/s ({bare['received']:,} of {bare['messages']:,})")
    if bare_runs:
        print(f"bare bus, 3 runs alternated: median {result['bare_bus_median_without_keys']:,} messages/s without "
              f"keys, {result['bare_bus_median_with_keys']:,} with")
    print(f"one durable commit (the latency floor): p50 {commit['p50_ms']} ms, p99 {commit['p99_ms']} ms")
    lat = engine["latency_ms"]
    print(f"engine at {engine['target_rate']:,} events/s offered in ticks of {engine['tick_ms']} ms (sent "
          f"{engine['send_rate']:,}/s): "
          f"answered {engine['events_answered']:,}/{engine['events']:,} at {engine['engine_rate']:,}/s; "
          f"latency publish→state p50 {lat['p50']} ms, p99 {lat['p99']} ms, max {lat['max']} ms"
          if lat else "engine answered nothing")
    if engine["outbox"]:
        print(f"published through an outbox: {engine['unacknowledged_at_end']} events left unacknowledged")
    print(f"load average {result['load_average']}, {result['cpus']} CPUs")


if __name__ == "__main__":
    main()
