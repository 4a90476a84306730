"""The bus over real ZeroMQ sockets (ipc:// in a temporary folder): proxy, typed
messages, sequence numbers, heartbeats, fuzzing, and late joiners (Clone pattern)."""

from __future__ import annotations

import json
import random
import re
import threading

import msgspec
import pytest
import zmq
from busutil import endpoints, raw_publisher, running_engine, send, simulated, wait_until
from tables import rules_for

from controller.bus.clone import TableFollower
from controller.bus.proxy import Proxy
from controller.bus.schema import (
    BadMessage,
    ButtonPressed,
    CameraStatus,
    CardPlaced,
    Envelope,
    EvidenceSaved,
    decode,
    encode,
)
from controller.bus.transport import Publisher, Subscriber
from controller.engine import Engine
from controller.public_state import public_state
from controller.rules.operations import DEALER, DealBoughtCard, DealCard
from controller.store import EventStore, NewEvent


@pytest.fixture
def bus(tmp_path):
    context = zmq.Context()
    publish, subscribe, snapshot = endpoints(tmp_path)
    proxy = Proxy(publish, subscribe)
    yield context, publish, subscribe, snapshot
    proxy.close()
    context.destroy(linger=0)


def _joined(publisher_socket, subscriber: Subscriber, topic: str = "vision.camera") -> None:
    """Publish probes until the subscription has reached the proxy (ZeroMQ's slow joiner)."""
    seq = 0

    def probe() -> bool:
        nonlocal seq
        seq += 1
        body = CameraStatus(True) if topic == "vision.camera" else ButtonPressed("no_more_bets")
        send(publisher_socket, topic, Envelope("probe", seq, seq, 0, body))
        return subscriber.receive(20) is not None

    assert wait_until(probe, timeout=10)
    while subscriber.receive(50) is not None:
        pass


def test_typed_messages_cross_the_proxy_in_order(bus):
    context, publish, subscribe, _ = bus
    subscriber = Subscriber(context, subscribe, ("vision.",))
    publisher = Publisher(context, publish, "camera")
    assert wait_until(lambda: (publisher.publish("vision.card", CardPlaced(1, "As", False)) and
                               subscriber.receive(20) is not None), timeout=10)
    first = publisher.seq
    for position in range(1, 8):
        publisher.publish("vision.card", CardPlaced(position, None, False))
    publisher.publish("sensor.button", ButtonPressed("no_more_bets"))  # another prefix: not for this subscriber
    received = []
    while (message := subscriber.receive(500)) is not None:
        if message[1].seq > first:  # not a join probe still in flight
            received.append(message)
    assert [env.seq for _, env in received] == list(range(first + 1, first + 8))
    assert [env.body.position for _, env in received] == list(range(1, 8))
    assert all(topic == "vision.card" for topic, _ in received)
    publisher.close()
    subscriber.close()


def _delivered(subscriber: Subscriber) -> list[Envelope]:
    """What the subscriber delivers until the bus has been quiet for 0.3 s."""
    delivered = []
    while (message := subscriber.receive(300)) is not None:
        delivered.append(message[1])
    return delivered


def test_out_of_sequence_messages_are_dropped_and_gaps_counted(bus):
    context, publish, subscribe, _ = bus
    subscriber = Subscriber(context, subscribe, ("sensor.",))
    raw = raw_publisher(context, publish)
    _joined(raw, subscriber, "sensor.button")
    body = ButtonPressed("end_of_deal")
    for seq in (1, 2, 2, 1, 5, 4, 6):
        send(raw, "sensor.button", Envelope("shoe", seq, seq, 0, body))
    delivered = [envelope.seq for envelope in _delivered(subscriber)]
    # 1 after 2 is a restart, accepted; 2 after 2 and 4 after 5 are old news.
    assert delivered == [1, 2, 1, 5, 6]
    assert subscriber.stats.dropped["out_of_sequence"] == 2
    assert subscriber.stats.missed == 3  # after the restart at #1, #2 to #4 never came
    raw.close()
    subscriber.close()


def test_a_message_replayed_from_the_same_run_is_dropped_even_as_number_1(bus):
    context, publish, subscribe, _ = bus
    subscriber = Subscriber(context, subscribe, ("sensor.",))
    raw = raw_publisher(context, publish)
    _joined(raw, subscriber, "sensor.button")
    body = ButtonPressed("payment_done")
    for seq, instance in ((1, "run-a"), (2, "run-a"), (1, "run-a"), (2, "run-a"), (1, "run-b")):
        send(raw, "sensor.button", Envelope("sensors-t1", seq, seq, 0, body, instance))
    delivered = [(envelope.seq, envelope.instance) for envelope in _delivered(subscriber)]
    assert delivered == [(1, "run-a"), (2, "run-a"), (1, "run-b")]  # the replays dropped; a new run restarts at #1
    assert subscriber.stats.dropped["out_of_sequence"] == 2
    raw.close()
    subscriber.close()


def _mutations(rng: random.Random, valid: list[bytes]) -> list[list[bytes]]:
    topic, payload = valid
    choices = [
        lambda: [topic, bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200)))],
        lambda: [topic, payload[: rng.randint(0, len(payload))]],
        lambda: [topic, payload.replace(b'"seq":', b'"seq":-')],
        lambda: [topic, payload.replace(b"card_placed", b"card_plaecd")],
        lambda: [topic, payload.replace(b'"position":', b'"position":"x",')],
        lambda: [topic, payload[:-1] + b',"extra":1}'],
        lambda: [b"vision.\xff\xfe", payload],
        lambda: [topic, payload, b"third frame"],
        lambda: [topic],
        lambda: [topic, b"[" * 5000],
        lambda: [topic, b'{"publisher":"x","seq":1,"mono_ns":1,"wall_ns":1,"body":{"type":"heartbeat",'
                        b'"interval_ms":' + b"9" * 400 + b"}}"],
        lambda: [topic, b" " * (70 * 1024)],
        lambda: [topic, bytearray(payload).__setitem__(rng.randrange(len(payload)), rng.getrandbits(8))
                 or payload],
    ]
    out = []
    for _ in range(rng.randint(1, 3)):
        frames = rng.choice(choices)()
        out.append([bytes(frame) for frame in frames])
    return out


def test_fuzz_random_and_mutated_messages_never_stop_a_subscriber(bus):
    """20,000 bad messages interleaved with 2,000 good ones: every good one arrives, in order."""
    context, publish, subscribe, _ = bus
    subscribers = [Subscriber(context, subscribe, prefixes) for prefixes in
                   (("vision.",), ("vision.", "sensor."), ("",))]
    raw = raw_publisher(context, publish)
    for subscriber in subscribers:
        _joined(raw, subscriber)
    rng = random.Random(2024)
    sent_good = 0
    bad = 0
    done = threading.Event()

    def pump() -> None:
        nonlocal sent_good, bad
        for seq in range(1, 2001):
            envelope = Envelope("fuzzer", seq, seq, 0, CardPlaced(seq % 8, "Kd", seq % 2 == 0))
            frames = encode("vision.card", envelope)
            for mutated in _mutations(rng, frames) * 1:
                raw.send_multipart(mutated)
                bad += 1
            for _ in range(max(0, 10 - (bad - 10 * (seq - 1)))):  # keep about ten bad ones per good one
                raw.send_multipart([b"vision.card", bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64)))])
                bad += 1
            raw.send_multipart(frames)
            sent_good += 1
        done.set()

    pumping = threading.Thread(target=pump)
    pumping.start()
    results = []
    for subscriber in subscribers:
        good = []
        while len(good) < 2000:
            message = subscriber.receive(5000)
            if message is None:
                break
            if message[1].publisher == "fuzzer":
                good.append(message[1].seq)
        results.append(good)
    pumping.join()
    assert bad >= 20_000
    for subscriber, good in zip(subscribers, results, strict=True):
        assert good == list(range(1, 2001)), "every valid message, in order, none lost"
        dropped = sum(subscriber.stats.dropped.values())
        assert dropped >= 19_000, subscriber.stats
        assert subscriber.stats.dropped["malformed"] > 0 and subscriber.stats.dropped["oversized"] > 0
    raw.close()
    for subscriber in subscribers:
        subscriber.close()


def test_a_silent_publisher_is_reported_gone_then_back(bus):
    context, publish, subscribe, _ = bus
    events = []
    subscriber = Subscriber(context, subscribe, ("sensor.",), silence_ms=600,
                            on_peer=lambda name, alive: events.append((name, alive)))
    shoe = Publisher(context, publish, "shoe", heartbeat_topic="sensor.heartbeat", heartbeat_ms=100)
    assert wait_until(lambda: subscriber.receive(50) is not None and "shoe" in subscriber.peers)
    shoe.close()
    assert wait_until(lambda: subscriber.receive(50) is None and ("shoe", False) in events, timeout=5)
    assert subscriber.stats.reconnects >= 0
    shoe = Publisher(context, publish, "shoe", heartbeat_topic="sensor.heartbeat", heartbeat_ms=100)
    assert wait_until(lambda: subscriber.receive(50) is not None and ("shoe", True) in events, timeout=10)
    shoe.close()
    subscriber.close()


def test_a_late_joiner_gets_the_snapshot_then_every_update_without_gap_or_duplicate(bus, tmp_path):
    context, publish, subscribe, snapshot = bus
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    reference, envelopes = simulated(rules, seed=5, coups=3)
    with running_engine(*bus, rules, tmp_path / "events.sqlite") as (engine, store, raw):
        probe = Subscriber(context, subscribe, ("core.",))
        assert wait_until(lambda: probe.receive(50) is not None)  # the engine's heartbeat: the bus is up
        half = len(envelopes) // 2
        # The engine's own subscription may still be joining: resend until it has recorded the first event.
        assert wait_until(lambda: (send(raw, *envelopes[0]), store.last_id >= 1)[1], timeout=10)
        for topic, envelope in envelopes[1:half]:
            send(raw, topic, envelope)
        assert wait_until(lambda: engine.store.last_id >= half, timeout=20)
        follower = TableFollower(context, subscribe, snapshot)
        assert follower.state["recorded_events"] >= half
        for topic, envelope in envelopes[half:]:
            send(raw, topic, envelope)
        assert wait_until(lambda: (follower.poll(50), follower.state["recorded_events"] == len(envelopes))[1],
                          timeout=30)
        assert follower.state["coup"] == reference.coup.number
        assert follower.state == public_state(msgspec.to_builtins(engine.state()))
        assert follower.state["coups_settled"] == 3
        assert follower.state["last_settlement"]["house_net"] == reference.settlements[-1].house_net


def test_a_follower_that_missed_updates_takes_a_new_snapshot(bus, tmp_path):
    """Updates published while the follower's subscription is not at the proxy (as just after it subscribes) are
    missed; the engine's next message shows the gap and the follower catches up from a new snapshot."""
    context, publish, subscribe, snapshot = bus
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    reference, envelopes = simulated(rules, seed=5, coups=1)
    with running_engine(*bus, rules, tmp_path / "events.sqlite") as (engine, store, raw):
        follower = TableFollower(context, subscribe, snapshot)
        assert wait_until(lambda: follower.poll(50) is not None, timeout=10)  # its subscription is at the proxy
        follower.subscriber.socket.setsockopt(zmq.UNSUBSCRIBE, b"core.")
        # Unsubscribed once no heartbeat (one a second) comes for 1.5 s.
        assert wait_until(lambda: follower.subscriber.receive(1500) is None, timeout=15)
        assert wait_until(lambda: (send(raw, *envelopes[0]), store.last_id >= 1)[1], timeout=10)
        for topic, envelope in envelopes[1:]:
            send(raw, topic, envelope)
        assert wait_until(lambda: engine.acted_id >= len(envelopes), timeout=20)
        assert follower.state["recorded_events"] < len(envelopes)  # it saw none of that
        follower.subscriber.socket.setsockopt(zmq.SUBSCRIBE, b"core.")
        assert wait_until(lambda: (follower.poll(50), follower.state["recorded_events"] == len(envelopes))[1],
                          timeout=15)
        assert follower.resyncs >= 1
        assert follower.state == public_state(msgspec.to_builtins(engine.state()))
        assert follower.state["coups_settled"] == 1


def test_no_player_card_leaves_the_engine(bus, tmp_path):
    """The players' cards (the shoe reads them as it deals) reach the engine and the store, and nothing the engine
    publishes names one: neither its states, its flags and refusals, nor a snapshot taken in the middle of the
    deal. The dealer's cards appear once face up."""
    context, publish, subscribe, snapshot = bus
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    reference, envelopes = simulated(rules, seed=7, coups=1)  # one deck: a player's card is no dealer's
    players_cards = {str(op.card) for op in reference.log if (isinstance(op, DealBoughtCard) or isinstance(
        op, DealCard) and op.position != DEALER) and op.card is not None}
    assert len(players_cards) >= 10
    with running_engine(*bus, rules, tmp_path / "events.sqlite") as (engine, store, raw):
        listener = context.socket(zmq.SUB)
        listener.setsockopt(zmq.SUBSCRIBE, b"core.")
        listener.connect(subscribe)
        assert wait_until(lambda: listener.poll(50) != 0)  # the engine's heartbeat: the listener is subscribed
        assert wait_until(lambda: (send(raw, *envelopes[0]), store.last_id >= 1)[1], timeout=10)
        dealt = next(i for i, (_topic, envelope) in enumerate(envelopes)
                     if isinstance(envelope.body, ButtonPressed) and envelope.body.button == "end_of_deal")
        for topic, envelope in envelopes[1:dealt]:
            send(raw, topic, envelope)
        assert wait_until(lambda: engine.acted_id >= dealt - 1, timeout=20)
        mid_deal = TableFollower(context, subscribe, snapshot).state
        known = engine.state()["seats"]
        for topic, envelope in envelopes[dealt:]:
            send(raw, topic, envelope)
        assert wait_until(lambda: engine.acted_id >= len(envelopes), timeout=30)
        heard = []
        while listener.poll(500):
            heard.append(b"".join(listener.recv_multipart()).decode())
        listener.close()
    # the test's premise: the engine knew the hands dealt
    assert sum(len(seat["cards"]) for seat in known.values()) >= 5
    assert sum(seat["card_count"] for seat in mid_deal["seats"].values()) >= 5
    assert all("cards" not in seat for seat in mid_deal["seats"].values())
    dealer_face_down = [str(op.card) for op in reference.log
                        if isinstance(op, DealCard) and op.position == DEALER and not op.face_up]
    assert len(dealer_face_down) == 4 and mid_deal["dealer"]["cards"][:4] == [None] * 4
    assert not [card for card in dealer_face_down if re.search(rf"(?<!\w){card}(?!\w)", json.dumps(mid_deal))]
    said = " ".join(heard) + json.dumps(mid_deal)
    assert "table_state" in said and "coup_settled" in said, heard
    leaks = [card for card in players_cards if re.search(rf"(?<!\w){card}(?!\w)", said)]
    assert not leaks, [m[max(0, m.find(leaks[0]) - 300):m.find(leaks[0]) + 100] for m in heard if leaks[0] in m]


def test_the_engine_counts_an_evidence_event_as_acted_on(bus, tmp_path):
    """``recorded_events`` (what the table has acted on) includes evidence events, linked or refused."""
    context, publish, subscribe, snapshot = bus
    rules = rules_for("fr-1959")
    store = EventStore(tmp_path / "events.sqlite", tmp_path / "evidence")
    digest = store.add_evidence(b"a frame", "image/png", None)
    bodies = [ButtonPressed("no_more_bets"),
              EvidenceSaved(digest, f"{digest}.png", "image/png", event_id=1),
              EvidenceSaved("0" * 64, "missing.png", "image/png", event_id=1)]  # refused: no such file
    store.append([NewEvent("sensor.x", "test", n, n, n, msgspec.json.encode(body).decode())
                  for n, body in enumerate(bodies, start=1)])
    engine = Engine(rules, store, context, subscribe, publish, snapshot)  # replays the three
    try:
        assert engine.state()["recorded_events"] == 3
        assert [row[0] for row in store._db.execute("SELECT event_id FROM evidence WHERE event_id IS NOT NULL")] == [1]
    finally:
        engine.close()
        store.close()


@pytest.mark.parametrize("field", ["seq", "mono_ns", "wall_ns"])
def test_a_number_the_store_cannot_hold_is_refused_with_its_field(field):
    """The store keeps these in 64-bit SQLite columns: 2**63 would stop the engine's append, so decoding refuses it."""
    fields = {"publisher": "vision", "seq": 1, "mono_ns": 1, "wall_ns": 1,
              "body": {"type": "heartbeat", "interval_ms": 1000}}
    assert decode([b"vision.heartbeat", json.dumps(fields).encode()])[1].seq == 1
    for wrong in (2**63, -1):
        payload = json.dumps({**fields, field: wrong}).encode()
        with pytest.raises(BadMessage, match=field):
            decode([b"vision.heartbeat", payload])
