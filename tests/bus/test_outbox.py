"""No event lost while the engine restarts: producers keep what they publish until the engine acknowledges it
(``controller.bus.outbox``); the engine records each producer's events once and in the order published."""

from __future__ import annotations

import json
import random
import signal
import threading
import time

import msgspec
import zmq
from busutil import endpoints, engine_config, engine_log, running_engine, send, simulated, start_engine, wait_until
from tables import rules_for

from controller.bus.clone import SnapshotTimeout, request_snapshot
from controller.bus.outbox import Intake
from controller.bus.proxy import Proxy
from controller.bus.schema import Acknowledged, ButtonPressed, Envelope
from controller.bus.transport import Publisher
from controller.engine import GAP_WAIT_S
from controller.referee import Referee
from controller.rules.summary import settlement_data
from controller.store import EventStore, verify_log

BODY = ButtonPressed("no_more_bets")


def _envelope(seq: int, after: int | None, instance: str = "a") -> Envelope:
    return Envelope("vision", seq, seq, seq, BODY, instance, after)


def test_intake_records_in_order_once_and_asks_again_after_a_gap():
    intake = Intake({})
    verdicts = [intake.judge(_envelope(seq, after)) for seq, after in ((1, 0), (2, 1), (4, 3), (2, 1), (3, 2))]
    assert verdicts == ["record", "record", "gap", "duplicate", "record"]
    assert intake.acknowledgements() == [Acknowledged("vision", "a", 3, gap=True)]
    assert intake.judge(_envelope(4, 3)) == "record"  # #4 resent, now after the #3 recorded
    assert intake.acknowledgements() == [Acknowledged("vision", "a", 4, gap=False)]


def test_a_gap_asks_for_what_follows_the_last_event_committed_not_the_last_held():
    intake = Intake({"vision": ("a", 10)})
    held = [_envelope(11, 10), _envelope(12, 11), _envelope(14, 13)]  # #13 missing; #11 and #12 only held
    assert intake.gaps(held) == {("vision", "a"): Acknowledged("vision", "a", 10, gap=True)}
    assert intake.judge(_envelope(11, 10)) == "record"  # gaps() changed nothing


def test_intake_skips_numbers_the_outbox_never_kept():
    intake = Intake({"vision": ("a", 10)})  # the store's last event from this run: #10
    # #11 and #12 were heartbeats (not kept, not recorded): #13 names #10 as the one before it.
    assert intake.judge(_envelope(13, 10)) == "record"
    assert intake.judge(_envelope(9, 8)) == "duplicate"


def test_intake_takes_a_new_run_from_its_first_event_only():
    intake = Intake({"vision": ("a", 500)})
    assert intake.judge(_envelope(3, 2, instance="b")) == "gap"  # the new run's first two were missed
    assert intake.acknowledgements() == [Acknowledged("vision", "b", 0, gap=True)]
    assert [intake.judge(_envelope(seq, seq - 1, instance="b")) for seq in (1, 2, 3)] == ["record"] * 3
    assert intake.judge(_envelope(501, 500, instance="a")) == "gap"  # the old run cannot come back in between


def test_a_publisher_without_an_outbox_is_recorded_as_it_comes():
    intake = Intake({})
    assert [intake.judge(_envelope(seq, None)) for seq in (1, 5, 3)] == ["record"] * 3
    assert intake.acknowledgements() == []



def _engine_up(context: zmq.Context, endpoint: str) -> bool:
    try:
        request_snapshot(context, endpoint, timeout_ms=200)
        return True
    except SnapshotTimeout:
        return False


def test_sigkill_of_the_engine_twenty_times_while_producers_publish_loses_nothing(tmp_path):
    """Two producers publish coups' events, 400 a second between them, waiting for nobody; the engine is killed
    (SIGKILL) 20 times at random moments and started again. Every event published is recorded exactly once, in
    each producer's order, and the coups settle as an uninterrupted run settles them."""
    config = engine_config(tmp_path, "outbox")
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    _reference, envelopes = simulated(rules, seed=5, coups=500)  # more than the kills take: published until then
    # The table's events split between two producers as on the Pi: the camera's and the rest (buttons, keypad).
    streams = {"vision": [(t, e.body) for t, e in envelopes if t.startswith("vision.")],
               "sensors": [(t, e.body) for t, e in envelopes if not t.startswith("vision.")]}
    context = zmq.Context()
    proxy = Proxy(f"ipc://{tmp_path}/run/pub.sock", f"ipc://{tmp_path}/run/sub.sock")
    snapshot_endpoint = f"ipc://{tmp_path}/run/snap.sock"
    engine = start_engine(config)
    assert wait_until(lambda: _engine_up(context, snapshot_endpoint), 30)
    # One thread publishes through both producers, in the coups' order: the uninterrupted run's input.
    order = [("vision" if t.startswith("vision.") else "sensors", t, e.body) for t, e in envelopes]
    publishers = {name: Publisher(context, f"ipc://{tmp_path}/run/pub.sock", name, heartbeat_topic="sensor.heartbeat",
                                  acknowledged_at=f"ipc://{tmp_path}/run/sub.sock") for name in streams}
    published: list[Envelope] = []
    done, stop_producing = threading.Event(), threading.Event()

    def produce() -> None:
        time.sleep(0.5)  # the publishers' connections reach the proxy
        for name, topic, body in order:
            if stop_producing.is_set():
                break
            published.append(publishers[name].publish(topic, body))
            time.sleep(1 / 400)
        done.set()

    producer = threading.Thread(target=produce)
    producer.start()
    rng = random.Random(11)
    kills = 0
    published_while_down = 0  # events no engine was there to receive: recorded only if resent
    try:
        while kills < 20:
            assert not done.is_set(), f"the coups were over after {kills} kills: publish more of them"
            time.sleep(rng.uniform(0.3, 1.5))  # the engine up, playing live
            engine.send_signal(signal.SIGKILL)
            engine.wait()
            killed_at = len(published)
            kills += 1
            engine = start_engine(config)
            assert wait_until(lambda: _engine_up(context, snapshot_endpoint), 30), engine_log(config)
            published_while_down += len(published) - killed_at
        time.sleep(1.0)
        stop_producing.set()
        producer.join()
        assert wait_until(lambda: all(len(p.outbox) == 0 for p in publishers.values()), 60), \
            {name: len(p.outbox) for name, p in publishers.items()}
        engine.send_signal(signal.SIGTERM)
        assert engine.wait(10) == 0, engine_log(config)
    finally:
        stop_producing.set()
        producer.join()
        if engine.poll() is None:
            engine.kill()
        for publisher in publishers.values():
            publisher.close()
        proxy.close()
        context.destroy(linger=0)

    store_path = tmp_path / "var" / "events.sqlite"
    assert verify_log(store_path).ok
    store = EventStore(store_path)
    stored = list(store.events())
    coups = store.coups()
    store.close()
    assert published_while_down > 100  # the kills did cost events in flight: the outboxes sent them again
    for name in streams:
        mine = [(e.seq, e.body) for e in stored if e.publisher == name]
        sent = [(e.seq, msgspec.json.encode(e.body).decode()) for e in published if e.publisher == name]
        assert mine == sent  # every one, once, in order
    # The engine's coups: those an uninterrupted run of the same events settles, with the same payouts.
    uninterrupted = Referee(rules)
    for envelope in published:
        assert uninterrupted.handle(envelope).refused is None
    expected = [settlement_data(s, rules.profile.language) for s in uninterrupted.table.settlements]
    assert len(expected) >= 100 and [json.loads(settlement) for *_rest, settlement in coups] == expected


def test_each_gap_waits_its_own_time_before_it_is_taken_as_lost(tmp_path):
    """Producer a's gap has waited 2 s when producer b's opens: a's is given up, b's still waits, and b's missing
    event, resent a moment later, is recorded in its place, not taken for a duplicate."""
    context = zmq.Context()
    publish, subscribe, snapshot = endpoints(tmp_path)
    proxy = Proxy(publish, subscribe)
    rules = rules_for("fr-2007")

    def event(name: str, seq: int, after: int) -> tuple[str, Envelope]:
        return "sensor.button", Envelope(name, seq, seq, 1_700_000_000_000_000_000 + seq * 1_000_000 + len(name),
                                         BODY, "run-" + name, after)

    try:
        with running_engine(context, publish, subscribe, snapshot, rules, tmp_path / "events.sqlite") as (
                _engine, store, raw):
            first = event("a", 1, 0)
            assert wait_until(lambda: (send(raw, *first), store.last_id >= 1)[1], timeout=10)  # the bus is up
            send(raw, *event("a", 3, 2))  # a's #2 never comes
            time.sleep(GAP_WAIT_S - 0.5)
            send(raw, *event("b", 5, 4))  # b's #4 is late
            time.sleep(1.0)  # a's gap is over its wait, b's is not: nothing is recorded yet
            assert store.last_id == 1
            send(raw, *event("b", 4, 0))
            assert wait_until(lambda: store.last_id >= 4, timeout=5)
            recorded = [(e.publisher, e.seq) for e in store.events()]
    finally:
        proxy.close()
        context.destroy(linger=0)
    assert recorded == [("a", 1), ("a", 3), ("b", 4), ("b", 5)]
