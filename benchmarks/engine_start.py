"""Benchmark of the engine's start on a large store (a benchmark, not a test).

Builds a store of N events (default 1,000,000: simulated coups at a full table of 7, recorded by the engine itself
as it records them live, the last coup left in the middle), then starts ``stud-table engine`` on it, alternately
from its latest checkpoint and replaying the whole log (``--replay-all``, the baseline), and times each from the
process's start to the first snapshot it answers; and the engine's own part of it, in this process (the store opened,
the engine built and its state read: Python's start and the imports left out). Also the review's coup page: the
last settled coup replayed from the checkpoint before it, against the whole log replayed (a starting jackpot meter
no checkpoint was taken under). Prints the medians and their ratios.

    .venv/bin/python benchmarks/engine_start.py [--events 1000000] [--runs 3] [--baseline-runs 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import zmq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bus import CONFIG  # noqa: E402  (the bus benchmark's table, bus and store)

from controller.bus.clone import SnapshotTimeout, request_snapshot  # noqa: E402
from controller.bus.schema import Envelope  # noqa: E402
from controller.engine import Engine  # noqa: E402
from controller.profiles import load_profile  # noqa: E402
from controller.rules.profile import TableRules  # noqa: E402
from controller.rules.table import Table  # noqa: E402
from controller.signing import key_path, load_or_create_key  # noqa: E402
from controller.sim.coups import new_table, play_coup  # noqa: E402
from controller.sim.events import bus_events  # noqa: E402
from controller.store import EventStore  # noqa: E402

EPOCH_NS = 1_700_000_000_000_000_000


def table_rules() -> TableRules:
    return TableRules(load_profile("fr-2007"), 1000, 50000, 7, bonus=True, card_purchase=True)


def coup_envelopes(rules: TableRules, seed: int) -> Iterator[tuple[str, Envelope]]:
    """Endless coups as the bus carries them, one publisher numbering them; the simulated table is resumed from a
    checkpoint after each coup, so that it keeps only the coup in memory."""
    rng = random.Random(seed)
    table, t, seq, done = new_table(rules, rng, players=7), 0, 0, 0
    while True:
        t = play_coup(table, rng, t)
        for ms, topic, body in bus_events(table.log[done:]):
            seq += 1
            yield topic, Envelope("sim", seq, ms * 1_000_000, EPOCH_NS + ms * 1_000_000, body)
        table, done = Table.resume(rules, table.checkpoint()), 0


def build_store(folder: Path, events: int, seed: int) -> dict[str, float]:
    """The store, recorded through the engine's own ``record`` in batches of 512, as it records live events."""
    rules = table_rules()
    context = zmq.Context()
    store = EventStore(folder / "events.sqlite")
    key = load_or_create_key(key_path(folder / "events.sqlite"))  # the key ``stud-table engine`` signs with
    engine = Engine(rules, store, context, f"ipc://{folder}/build-sub.sock", f"ipc://{folder}/build-pub.sock",
                    f"ipc://{folder}/build-snap.sock", signing=("bench", key))
    started = time.perf_counter()
    source = coup_envelopes(rules, seed)
    batch: list[tuple[str, Envelope]] = []
    for _ in range(events):
        batch.append(next(source))
        if len(batch) == 512:
            engine.record(batch)
            batch = []
    if batch:
        engine.record(batch)
    seconds = time.perf_counter() - started
    state = engine.state()
    engine.close()
    store.close()
    context.destroy(linger=0)
    return {"events": events, "seconds": round(seconds, 1), "coups_settled": state["coups_settled"],
            "phase_at_end": state["phase"], "store_mib": round((folder / "events.sqlite").stat().st_size / 2**20)}


def first_snapshot(folder: Path, replay_all: bool) -> tuple[float, int]:
    """Seconds from the engine process's start to its first snapshot answered, and the events it stood at."""
    command = [sys.executable, "-m", "controller.cli", "engine", "--config", str(folder / "table.toml")]
    context = zmq.Context()
    started = time.perf_counter()
    engine = subprocess.Popen(command + (["--replay-all"] if replay_all else []), cwd=folder,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                reply = request_snapshot(context, f"ipc://{folder}/snap.sock", 50)
                return time.perf_counter() - started, int(reply["state"]["recorded_events"])
            except SnapshotTimeout:
                if engine.poll() is not None:
                    raise RuntimeError(f"the engine stopped with code {engine.returncode}") from None
    finally:
        engine.terminate()
        engine.wait(30)
        context.destroy(linger=0)


def engine_only(folder: Path, replay_all: bool) -> float:
    """Seconds from opening the store to the engine's first state, in this process (its imports done)."""
    context = zmq.Context()
    started = time.perf_counter()
    store = EventStore(folder / "events.sqlite")
    engine = Engine(table_rules(), store, context, f"ipc://{folder}/only-sub.sock", f"ipc://{folder}/only-pub.sock",
                    f"ipc://{folder}/only-snap.sock", signing=("bench", load_or_create_key(key_path(store.path))),
                    from_checkpoint=not replay_all)
    engine.state()
    seconds = time.perf_counter() - started
    engine.close()
    store.close()
    context.destroy(linger=0)
    return seconds


def review_replay(folder: Path, from_checkpoint: bool) -> float:
    """Seconds the review takes to rebuild the last settled coup's table (``StoreView.replay``)."""
    from controller.web.store_view import StoreView

    view = StoreView(folder / "events.sqlite", folder / "evidence", table_rules(), "bench",
                     jackpot_meter=0 if from_checkpoint else 1, key_file=key_path(folder / "events.sqlite"))
    last = view.coups()[-1]
    started = time.perf_counter()
    view.replay(last["number"], last["last_event"])
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3, help="starts from the checkpoint")
    parser.add_argument("--baseline-runs", type=int, default=1, help="starts replaying the whole log")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "table.toml").write_text(CONFIG)
        built = build_store(folder, args.events, args.seed)
        checkpoint, baseline, engine_checkpoint, engine_baseline = [], [], [], []
        review_checkpoint, review_baseline = [], []
        # Alternated, so that both see the same load and the same page cache.
        for run in range(max(args.runs, args.baseline_runs)):
            if run < args.runs:
                checkpoint.append(first_snapshot(folder, replay_all=False))
                engine_checkpoint.append(engine_only(folder, replay_all=False))
                review_checkpoint.append(review_replay(folder, from_checkpoint=True))
            if run < args.baseline_runs:
                baseline.append(first_snapshot(folder, replay_all=True))
                engine_baseline.append(engine_only(folder, replay_all=True))
                review_baseline.append(review_replay(folder, from_checkpoint=False))
    result = {
        "store": built,
        "engine_only_from_checkpoint_s": [round(seconds, 3) for seconds in engine_checkpoint],
        "engine_only_replay_all_s": [round(seconds, 3) for seconds in engine_baseline],
        "review_coup_from_checkpoint_s": [round(seconds, 3) for seconds in review_checkpoint],
        "review_coup_whole_log_s": [round(seconds, 3) for seconds in review_baseline],
        "from_checkpoint_s": [round(seconds, 3) for seconds, _ in checkpoint],
        "replay_all_s": [round(seconds, 3) for seconds, _ in baseline],
        "median_from_checkpoint_s": round(statistics.median(s for s, _ in checkpoint), 3),
        "median_replay_all_s": round(statistics.median(s for s, _ in baseline), 3) if baseline else None,
        "recorded_events_seen": sorted({events for _, events in checkpoint + baseline}),
    }
    if baseline:
        result["ratio"] = round(result["median_replay_all_s"] / result["median_from_checkpoint_s"], 1)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
