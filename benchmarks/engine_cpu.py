"""Benchmark of the engine's CPU per event (a benchmark, not a test): where its time goes.

The same coups' events (``benchmarks/bus.py``'s: 7 seats, every kind of event a coup makes) are played in this
process, no bus, in rounds that alternate so that each part sees the same load:
  * the engine: ``Engine.record`` of batches of 50 (record, play, one durable commit a batch, the state published
    once a batch), its store in a temporary folder, WAL and synchronous=FULL as at the table;
  * the store alone: the same batches appended and committed (the floor under the engine's durability);
  * the referee alone: the events played through the rules, nothing recorded.
It prints the median over the rounds of each part's CPU time per event, in µs, and its wall time (the commits'
waits for the disk included). At 10,000 events a second the engine has 100 µs of one core an event, receiving and
decoding them included (about 10 µs more than this measures); ``benchmarks/bus.py`` measures that rate through the
bus, the engine in a process of its own.

    .venv/bin/python benchmarks/engine_cpu.py [--json] [--events 20000] [--rounds 3] [--batch 50]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import msgspec
import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bus import bench_rules, coup_events  # noqa: E402

from controller.bus.schema import Envelope  # noqa: E402
from controller.engine import Engine  # noqa: E402
from controller.referee import Referee  # noqa: E402
from controller.store import EventStore, NewEvent  # noqa: E402


def _timed(work) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def engine_round(folder: Path, messages: list[tuple[str, Envelope]], batch: int) -> tuple[float, float]:
    context = zmq.Context()
    engine = Engine(bench_rules(), EventStore(folder / "engine.sqlite"), context, f"ipc://{folder}/sub",
                    f"ipc://{folder}/pub", f"ipc://{folder}/snap")
    try:
        return _timed(lambda: [engine.record(messages[i:i + batch]) for i in range(0, len(messages), batch)])
    finally:
        engine.close()
        engine.store.close()
        context.destroy(linger=0)


def store_round(folder: Path, messages: list[tuple[str, Envelope]], batch: int) -> tuple[float, float]:
    store = EventStore(folder / "store.sqlite")
    events = [NewEvent(topic, env.publisher, env.seq, env.mono_ns, env.wall_ns, msgspec.json.encode(env.body).decode())
              for topic, env in messages]
    try:
        return _timed(lambda: [store.append(events[i:i + batch]) for i in range(0, len(events), batch)])
    finally:
        store.close()


def referee_round(messages: list[tuple[str, Envelope]]) -> tuple[float, float]:
    referee = Referee(bench_rules())
    return _timed(lambda: [referee.handle(envelope) for _topic, envelope in messages])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=50)
    args = parser.parse_args()
    now = time.time_ns()
    messages = [(topic, Envelope("virtual-table", seq, seq * 1000, now + seq * 100_000, body))  # type: ignore[arg-type]
                for seq, (topic, body) in enumerate(coup_events(args.events, seed=1), start=1)]
    timings: dict[str, list[tuple[float, float]]] = {"engine": [], "store": [], "referee": []}
    for round_number in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix=f"bench-engine-{round_number}-") as folder:
            timings["engine"].append(engine_round(Path(folder), messages, args.batch))
            timings["store"].append(store_round(Path(folder), messages, args.batch))
            timings["referee"].append(referee_round(messages))
    per_event = {part: {"cpu_us": round(statistics.median(cpu for cpu, _wall in runs) * 1e6 / args.events, 1),
                        "wall_us": round(statistics.median(wall for _cpu, wall in runs) * 1e6 / args.events, 1)}
                 for part, runs in timings.items()}
    result = {"events": args.events, "batch": args.batch, "rounds": args.rounds, "per_event": per_event,
              "load_average": os.getloadavg(), "cpus": os.cpu_count()}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for part, figures in per_event.items():
        print(f"{part:8s} {figures['cpu_us']:6.1f} µs of CPU an event ({figures['wall_us']:.1f} µs wall), median of "
              f"{args.rounds} rounds")
    print(f"{args.events:,} events in batches of {args.batch}; load average {result['load_average']}, "
          f"{result['cpus']} CPUs")


if __name__ == "__main__":
    main()
