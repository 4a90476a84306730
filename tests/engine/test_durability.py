"""A crash must not lose a recorded event: the engine is killed with SIGKILL at
random moments during many coups, restarted, and must end exactly where an
uninterrupted run ends."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
import zmq
from busutil import engine_config, engine_log, raw_publisher, send, simulated, start_engine
from tables import rules_for

from controller.bus.clone import SnapshotTimeout, request_snapshot
from controller.bus.proxy import Proxy
from controller.bus.schema import AnyBody, Envelope
from controller.referee import Referee
from controller.store import EventStore, verify_log

ROOT = Path(__file__).resolve().parents[2]




def _recorded(context, endpoint) -> dict | None:
    try:
        return request_snapshot(context, endpoint, timeout_ms=300)
    except SnapshotTimeout:
        return None


def test_sigkill_at_random_moments_loses_no_recorded_event(tmp_path):
    config = engine_config(tmp_path, "durability")
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    reference, envelopes = simulated(rules, seed=99, coups=12)
    context = zmq.Context()
    proxy = Proxy(f"ipc://{tmp_path}/run/pub.sock", f"ipc://{tmp_path}/run/sub.sock")
    snapshot_endpoint = f"ipc://{tmp_path}/run/snap.sock"
    raw = raw_publisher(context, f"ipc://{tmp_path}/run/pub.sock")
    rng = random.Random(7)
    # Kill points spread over the run; each kill lands a few ms after a burst was sent, mid-flight.
    kill_points = sorted(rng.sample(range(10, len(envelopes) - 10), 8))
    engine = start_engine(config)
    kills, resumed_checks = 0, 0
    # What the engine had recorded at its first reply since it (re)started: until it records more, its subscription
    # may still be joining the proxy and part of a burst could be lost (a gap, not a crash's loss): one event at a time.
    recorded_at_start = 0
    try:
        deadline = time.monotonic() + 240
        recorded = 0
        while recorded < len(envelopes):
            assert time.monotonic() < deadline, f"stuck at {recorded}/{len(envelopes)} after {kills} kills"
            reply = _recorded(context, snapshot_endpoint)
            if reply is None:
                continue
            recorded = reply["recorded"].get("sim", 0)
            if kills > resumed_checks:
                # Just restarted: the table it rebuilt is the one those recorded events make.
                replica = Referee(rules)
                for _topic, envelope in envelopes[:recorded]:
                    replica.handle(envelope)
                state = reply["state"]
                assert state["operations"] == len(replica.table.log)
                assert state["coup"] == replica.table.coup.number and state["phase"] == replica.table.phase.value
                resumed_checks = kills
                recorded_at_start = recorded
            burst = rng.randint(1, 30)  # drawn every round, one burst or not: the draws stay in step with the rounds
            if recorded <= recorded_at_start:
                burst = 1
            for topic, envelope in envelopes[recorded:recorded + burst]:
                send(raw, topic, envelope)
            if kills < len(kill_points) and recorded >= kill_points[kills]:
                time.sleep(rng.uniform(0, 0.02))
                engine.send_signal(signal.SIGKILL)
                engine.wait()
                kills += 1
                engine = start_engine(config)
            else:
                time.sleep(0.005)
        engine.send_signal(signal.SIGTERM)
        assert engine.wait(10) == 0, engine_log(config)
    finally:
        if engine.poll() is None:
            engine.kill()
        raw.close()
        proxy.close()
        context.destroy(linger=0)

    assert kills == 8 and resumed_checks == 8
    store_path = tmp_path / "var" / "events.sqlite"
    report = verify_log(store_path)
    assert report.ok, report.problems
    store = EventStore(store_path)
    stored = list(store.events())
    store.close()
    # Every event recorded exactly once, in the order sent.
    assert [(e.publisher, e.seq) for e in stored] == [("sim", env.seq) for _topic, env in envelopes]
    # The same coups and payouts as the uninterrupted run.
    replica = Referee(rules)
    for event in stored:
        replica.handle(Envelope(event.publisher, event.seq, event.mono_ns, event.wall_ns,
                                msgspec.json.decode(event.body, type=AnyBody)))
    assert replica.table.settlements == reference.settlements
    assert len(reference.settlements) == 12


@pytest.mark.parametrize("tamper, expected", [
    ("UPDATE events SET body = body || ' ' WHERE id = 5",
     "record 5 altered: its content does not match its hash"),
    ("DELETE FROM events WHERE id = 7", "record 7 deleted: ids jump from 6 to 8"),
    ("INSERT INTO events SELECT 21, topic, publisher, seq, mono_ns + 1, wall_ns, body, prev_hash, hash, instance "
     "FROM events WHERE id = 3", "record 21 does not follow record 20: inserted"),
])
def test_verify_log_names_the_record_that_was_tampered_with(tmp_path, tamper, expected):
    import sqlite3

    rules = rules_for("fr-1959")
    _reference, envelopes = simulated(rules, seed=1, coups=1)
    store = EventStore(tmp_path / "events.sqlite")
    from controller.store import NewEvent

    store.append([NewEvent(topic, env.publisher, env.seq, env.mono_ns, env.wall_ns,
                           msgspec.json.encode(env.body).decode()) for topic, env in envelopes[:20]])
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store._db.execute("UPDATE events SET body = '' WHERE id = 2")
    store.close()
    assert verify_log(tmp_path / "events.sqlite").ok
    db = sqlite3.connect(tmp_path / "events.sqlite")
    db.executescript("DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete;")  # a hand on the keyboard
    db.execute(tamper)
    db.commit()
    db.close()
    result = subprocess.run([sys.executable, "-m", "controller.cli", "verify-log", str(tmp_path / "events.sqlite")],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1
    assert expected in result.stdout


def test_verify_log_passes_an_intact_log(tmp_path):
    store = EventStore(tmp_path / "e.sqlite")
    store.close()
    result = subprocess.run([sys.executable, "-m", "controller.cli", "verify-log", str(tmp_path / "e.sqlite")],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0 and "0 records, the chain is intact" in result.stdout
    assert os.path.exists(tmp_path / "e.sqlite")


def test_a_batch_holding_a_resend_records_the_others_once_and_chained(tmp_path):
    """The store inserts a batch in one statement; a resend inside it (publisher, sequence and time already
    recorded) sends it back to event-by-event chaining: the resend gets no id, the others follow on without a gap."""
    from controller.store import NewEvent

    def event(seq: int) -> NewEvent:
        return NewEvent("sensor.button", "sensors-1", seq, seq * 10, seq * 100, f'{{"seq":{seq}}}')

    store = EventStore(tmp_path / "e.sqlite")
    assert store.append([event(1), event(2)]) == [1, 2]
    with store.transaction():
        assert store.append([event(3), event(2), event(4)]) == [3, None, 4]
        assert store.append([]) == []
        assert store.append([event(5)]) == [5]
    assert store.last_id == 5
    assert [(stored.id, stored.seq) for stored in store.events()] == [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]
    store.close()
    report = verify_log(tmp_path / "e.sqlite")
    assert report.ok and report.records == 5, report.problems
