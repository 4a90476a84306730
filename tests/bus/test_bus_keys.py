"""Only the table's processes speak on its bus, each only its own topics: with keys (``stud-table keys``), every
socket is a CURVE client of the proxy or of the engine's snapshot server, which let in only the roles' keys and know
each sender by its key. Each attack of issue 23 is played here against real sockets, and refused."""

from __future__ import annotations

import errno
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import zmq
from busutil import wait_until
from tables import rules_for

from controller.bus.clone import SnapshotTimeout, request_snapshot
from controller.bus.keys import ROLES, Keys, bus_context, create_keys, engine_key
from controller.bus.proxy import Proxy
from controller.bus.schema import (
    BadMessage,
    ButtonPressed,
    CameraStatus,
    CardPlaced,
    DealerOperation,
    Envelope,
    TableState,
    encode,
)
from controller.bus.transport import Publisher, Subscriber
from controller.engine import Engine
from controller.store import EventStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def keyed_bus(tmp_path):
    """A proxy with keys; a context per role, and one for a stranger (a key pair of its own, the proxy's public key
    known, as anyone can read it)."""
    folder = tmp_path / "keys"
    create_keys(folder, simulator=True)
    keys = Keys(folder)
    publish, subscribe = f"ipc://{tmp_path}/pub.sock", f"ipc://{tmp_path}/sub.sock"
    proxy = Proxy(publish, subscribe, keys)
    contexts: dict[str, zmq.Context] = {role: bus_context(folder, role) for role in ROLES}
    stranger = zmq.Context()
    public, secret = zmq.curve_keypair()
    stranger.setsockopt(zmq.CURVE_PUBLICKEY, public)
    stranger.setsockopt(zmq.CURVE_SECRETKEY, secret)
    stranger.setsockopt(zmq.CURVE_SERVERKEY, keys.public("proxy"))
    contexts["stranger"], contexts["plain"] = stranger, zmq.Context()
    yield proxy, contexts, publish, subscribe, keys
    proxy.close()
    for context in contexts.values():
        context.destroy(linger=0)


def _listen(context, subscribe, prefixes=("vision.", "sensor.", "dealer.", "core.")) -> Subscriber:
    return Subscriber(context, subscribe, prefixes)


def _received(subscriber: Subscriber, wait_ms: int = 400) -> list[tuple[str, str]]:
    got = []
    while (message := subscriber.receive(wait_ms)) is not None:
        got.append((message[0], message[1].publisher))
    return got


def _joined(publisher: Publisher, subscriber: Subscriber) -> None:
    """Probe as the vision role until the subscription is through (ZeroMQ's slow joiner)."""
    assert wait_until(lambda: (publisher.publish("vision.camera", CameraStatus(True)),
                               subscriber.receive(50) is not None)[1], timeout=10)
    _received(subscriber, 200)


def test_a_role_passes_its_own_topics_and_nothing_else(keyed_bus):
    proxy, contexts, publish, subscribe, _keys = keyed_bus
    listener = _listen(contexts["engine"], subscribe)
    vision = Publisher(contexts["vision"], publish, "vision")
    _joined(vision, listener)
    vision.publish("vision.card", CardPlaced(1, "As", False))
    # what the probe of issue 23 did: a state published on the engine's topic, a button pressed, by another role
    vision.publish("core.state", TableState({"settlement": {"net": {"3": 100_000_000}}}))
    vision.publish("sensor.button", ButtonPressed("payment_done"))
    vision.publish("dealer.keypad", DealerOperation("open-session cards=As,Ks"))  # the deck chosen
    assert _received(listener) == [("vision.card", "vision")]
    assert proxy.refused == {("vision", "the vision role does not publish 'core.state'"): 1,
                             ("vision", "the vision role does not publish 'sensor.button'"): 1,
                             ("vision", "the vision role does not publish 'dealer.keypad'"): 1}
    vision.close()
    listener.close()


def test_a_role_cannot_write_another_ones_name(keyed_bus):
    proxy, contexts, publish, subscribe, _keys = keyed_bus
    listener = _listen(contexts["engine"], subscribe)
    vision = Publisher(contexts["vision"], publish, "vision")
    _joined(vision, listener)
    forger = Publisher(contexts["vision"], publish, "sensors-t1")  # the vision key, the sensors' name
    engine_named = Publisher(contexts["sensors"], publish, "engine")  # the sensors key, the engine's name
    forged = ("vision", "the vision role does not publish as 'sensors-t1'")
    named = ("sensors", "the sensors role does not publish as 'engine'")
    # a new publisher's first messages go nowhere until it is connected: sent until the proxy has seen them
    assert wait_until(lambda: (forger.publish("vision.card", CardPlaced(2, "Kd", False)),
                               engine_named.publish("sensor.button", ButtonPressed("no_more_bets")),
                               proxy.refused[forged] and proxy.refused[named])[-1], timeout=10)
    assert _received(listener) == []
    for socket in (vision, forger, engine_named, listener):
        socket.close()


@pytest.mark.parametrize("who", ["stranger", "plain"])
def test_a_peer_without_a_roles_key_neither_speaks_nor_hears(keyed_bus, who):
    proxy, contexts, publish, subscribe, _keys = keyed_bus
    listener = _listen(contexts["engine"], subscribe)
    vision = Publisher(contexts["vision"], publish, "vision")
    _joined(vision, listener)
    outsider = Publisher(contexts[who], publish, "vision")
    eavesdropper = _listen(contexts[who], subscribe)
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        outsider.publish("vision.card", CardPlaced(3, "Qh", False))
        vision.publish("vision.card", CardPlaced(1, "As", False))
        time.sleep(0.05)
    heard = _received(listener)
    assert heard and {publisher for _topic, publisher in heard} == {"vision"}  # only the vision key's cards
    assert _received(eavesdropper, 100) == []
    assert proxy.peers_refused >= 2  # its publisher and its subscriber, counted; their keys not kept
    for socket in (vision, outsider, eavesdropper, listener):
        socket.close()


def test_only_the_engine_hears_the_devices_and_no_subscriber_unsubscribes_another(keyed_bus):
    proxy, contexts, publish, subscribe, _keys = keyed_bus
    engine_side = _listen(contexts["engine"], subscribe)
    vision = Publisher(contexts["vision"], publish, "vision")
    _joined(vision, engine_side)
    # the web's key asks for the devices' topics and the engine's: it gets the engine's only
    web = _listen(contexts["web"], subscribe, ("vision.", "sensor.", "core."))
    engine = Publisher(contexts["engine"], publish, "engine")
    assert wait_until(lambda: (engine.publish("core.state", TableState({"phase": "betting"})),
                               web.receive(50) is not None)[1], timeout=10)
    _received(web, 200)
    # the vision key subscribes to the engine's topic, then unsubscribes: the web must still hear it
    snoop = contexts["vision"].socket(zmq.SUB)
    snoop.connect(subscribe)
    snoop.setsockopt(zmq.SUBSCRIBE, b"core.")
    snoop.setsockopt(zmq.SUBSCRIBE, b"vision.")
    time.sleep(0.3)
    snoop.setsockopt(zmq.UNSUBSCRIBE, b"core.")
    time.sleep(0.3)
    _received(engine_side, 200)
    vision.publish("vision.card", CardPlaced(1, "As", False))
    engine.publish("core.state", TableState({"phase": "dealing"}))
    assert _received(web) == [("core.state", "engine")]
    # two publishers: no order between them
    assert sorted(_received(engine_side)) == [("core.state", "engine"), ("vision.card", "vision")]
    assert snoop.poll(200) == 0  # nothing: it asked for the vision topic it may not hear, and let go of core.
    assert proxy.refused[("web", "the web role does not hear 'vision.'")] == 1
    assert proxy.refused[("web", "the web role does not hear 'sensor.'")] == 1
    assert proxy.refused[("vision", "the vision role does not hear 'vision.'")] == 1
    # a subscriber that goes (its connection closed, as at a process's restart) takes nothing from the others
    snoop.close()
    web_again = _listen(contexts["web"], subscribe, ("core.",))
    assert wait_until(lambda: (engine.publish("core.state", TableState({"phase": "paying"})),
                               web_again.receive(50) is not None)[1], timeout=10)
    web.close()
    time.sleep(0.3)
    _received(web_again, 200)
    engine.publish("core.state", TableState({"phase": "betting"}))
    vision.publish("vision.card", CardPlaced(2, "Kd", False))
    assert _received(web_again) == [("core.state", "engine")]
    assert ("vision.card", "vision") in _received(engine_side)
    for socket in (vision, engine, web_again, engine_side):
        socket.close()


def test_a_signal_in_the_proxys_thread_passes_no_subscription_up_twice(keyed_bus, monkeypatch):
    """A signal the proxy's thread takes restarts its forwarding: what it passed up to the publishers stays passed
    up, each subscription once, and a subscriber that comes afterwards still hears."""
    _proxy, contexts, publish, subscribe, _keys = keyed_bus
    engine = contexts["engine"].socket(zmq.XPUB)  # a publisher shown every subscription passed up to it
    engine.setsockopt(zmq.XPUB_VERBOSE, 1)
    engine.connect(publish)
    passed_up: list[bytes] = []

    def take_passed_up(wait_ms: int) -> None:
        while engine.poll(wait_ms):
            passed_up.append(engine.recv())

    interrupt = threading.Event()
    real_poll = zmq.Poller.poll

    def poll(self, *args, **kwargs):
        if threading.current_thread().name == "bus-proxy" and interrupt.is_set():
            interrupt.clear()
            raise zmq.InterruptedSystemCall(errno.EINTR)
        return real_poll(self, *args, **kwargs)

    monkeypatch.setattr(zmq.Poller, "poll", poll)
    time.sleep(0.3)  # connected before the first subscription
    listeners = [contexts["web"].socket(zmq.SUB) for _ in range(3)]
    for listener in listeners:
        listener.connect(subscribe)
    listeners[0].setsockopt(zmq.SUBSCRIBE, b"core.state")
    assert wait_until(lambda: (take_passed_up(50), passed_up)[1] == [b"\x01core.state"], timeout=10)
    interrupt.set()  # the proxy's next poll, after the subscription below, is interrupted
    listeners[1].setsockopt(zmq.SUBSCRIBE, b"core.flag")
    assert wait_until(lambda: (take_passed_up(50), not interrupt.is_set())[1], timeout=10)
    listeners[2].setsockopt(zmq.SUBSCRIBE, b"core.state")
    state = encode("core.state", Envelope("engine", 1, 1, 1, TableState({"phase": "betting"})))
    assert wait_until(lambda: (engine.send_multipart(state), listeners[2].poll(50))[1], timeout=10)
    take_passed_up(300)
    assert passed_up == [b"\x01core.state", b"\x01core.flag"]
    for socket in (engine, *listeners):
        socket.close(linger=0)


def test_a_topic_must_carry_its_own_kind_of_message(keyed_bus):
    proxy, contexts, publish, subscribe, _keys = keyed_bus
    with pytest.raises(BadMessage, match="topic mismatch: vision.card does not carry TableState"):
        encode("vision.card", Envelope("vision", 1, 1, 1, TableState({})))
    listener = _listen(contexts["engine"], subscribe)
    vision = Publisher(contexts["vision"], publish, "vision")
    _joined(vision, listener)
    raw = contexts["vision"].socket(zmq.PUB)
    raw.connect(publish)
    time.sleep(0.3)
    forged = Envelope("vision", 1, 1, 1, TableState({"phase": "paying"}))
    raw.send_multipart([b"vision.card", encode("core.state", forged)[1]])  # a state, under a card's topic
    assert _received(listener) == []
    assert listener.stats.dropped["topic_mismatch"] == 1
    raw.close()
    vision.close()
    listener.close()


def test_the_sockets_are_the_service_users_only(keyed_bus, tmp_path):
    for name in ("pub.sock", "sub.sock"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600
    folder = tmp_path / "keys"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for secret in folder.glob("*.key_secret"):
        assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_the_snapshot_comes_from_the_engine_and_only_to_the_tables_roles(keyed_bus, tmp_path):
    _proxy, contexts, publish, subscribe, keys = keyed_bus
    snapshot = f"ipc://{tmp_path}/snap.sock"
    store = EventStore(tmp_path / "events.sqlite")
    engine = Engine(rules_for("fr-2007"), store, contexts["engine"], subscribe, publish, snapshot, keys=keys)
    try:
        assert stat.S_IMODE((tmp_path / "snap.sock").stat().st_mode) == 0o600
        engine_public = engine_key(keys.folder)
        served = []

        poller = zmq.Poller()
        poller.register(engine.snapshots, zmq.POLLIN)
        poller.register(engine._handshakes.monitor, zmq.POLLIN)

        def answer() -> None:  # as the engine's loop does
            ready = dict(poller.poll(50))
            if engine.snapshots in ready:
                engine.answer_snapshot()
                served.append(1)
            if engine._handshakes.monitor in ready:
                engine._handshakes.take()

        import threading

        stop = threading.Event()
        server = threading.Thread(target=lambda: [answer() for _ in iter(stop.is_set, True)])
        server.start()
        try:
            reply = request_snapshot(contexts["web"], snapshot, 2000, engine_key=engine_public)
            assert reply["publisher"] == "engine" and "state" in reply
            for who in ("stranger", "plain"):  # not one of the table's roles: no answer, nothing learnt
                with pytest.raises(SnapshotTimeout):
                    request_snapshot(contexts[who], snapshot, 500, engine_key=engine_public)
            # a server that is not the engine (the proxy's key in its place) is never believed
            with pytest.raises(SnapshotTimeout):
                request_snapshot(contexts["web"], snapshot, 500, engine_key=keys.public("proxy"))
        finally:
            stop.set()
            server.join()
        assert len(served) == 1
        # the stranger's key refused by the ZAP handler; the plain peer, and the client that took the proxy for the
        # engine, cut off in the handshake, before any key is looked at
        assert engine._authenticator is not None and engine._authenticator.refused >= 1
        assert engine.peers_refused >= engine._authenticator.refused + 1
    finally:
        engine.close()
        store.close()


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def test_stud_table_keys_makes_each_roles_pair_once(tmp_path):
    config = tmp_path / "table.toml"
    text = ('[table]\nid = "t"\nprofile = "fr-2007"\nminimum_cents = 1000\nmaximum_cents = 50000\n'
            '[bus]\npublish = "ipc://run/pub.sock"\nsubscribe = "ipc://run/sub.sock"\nsnapshot = "ipc://run/snap.sock"\n')
    config.write_text(text)
    done = _cli("keys", "--config", str(config))
    assert done.returncode == 2 and "names no folder for the keys: add keys" in done.stderr
    assert "Traceback" not in done.stderr
    config.write_text(text + 'keys = "keys"\n')
    done = _cli("keys", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert "made proxy, engine, vision, sensors, keypad, web" in done.stdout
    assert not (tmp_path / "keys" / "simulator.key").exists()  # the demo's key is made only when asked
    before = (tmp_path / "keys" / "engine.key_secret").read_bytes()
    done = _cli("keys", "--config", str(config))
    assert "made none" in done.stdout and (tmp_path / "keys" / "engine.key_secret").read_bytes() == before
    (tmp_path / "keys" / "engine.key_secret").unlink()
    done = _cli("engine", "--config", str(config))  # a process without its key stops with one line
    assert done.returncode == 2 and "the engine key pair cannot be read" in done.stderr
    assert "Traceback" not in done.stderr
