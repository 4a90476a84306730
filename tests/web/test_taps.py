"""The dealer's taps reach the bus as his keypad lines: only from the table's own machine, only on a zone the table
asks about and an amount it offers; what the API answers otherwise. Through Starlette's TestClient (the client's
address chosen), the line received on a real ZeroMQ socket where the proxy would be."""

from __future__ import annotations

import pytest
import zmq
from starlette.testclient import TestClient
from webutil import fast_hasher, table_config

from controller.bus.schema import DealerOperation, decode
from controller.web.app import create_app

BASE = "http://127.0.0.1:8000"  # the kiosk's browser, on the table's machine
ORIGIN = {"Origin": BASE}
ASKED = {"seat": 3, "box": "ante", "amount": 1000, "at_least": False, "alternative": 2000, "stacked": False}


@pytest.fixture
def table(tmp_path):
    """The app showing seat 3's ante « à confirmer » in the betting, and a socket bound where the proxy takes what
    the table's processes publish."""
    config = table_config(tmp_path)
    context = zmq.Context()
    proxy_side = context.socket(zmq.SUB)
    proxy_side.setsockopt(zmq.SUBSCRIBE, b"")
    proxy_side.bind(config.bus_publish)
    app = create_app(config, follower_factory=None, review_db_path=tmp_path / "review.sqlite",
                     key_path=tmp_path / "table.key", password_hasher=fast_hasher())
    app.state.live.set_state({"phase": "betting", "coup": 1, "to_confirm": [ASKED]})
    yield app, proxy_side
    proxy_side.close(linger=0)
    context.term()


def keyed(socket: zmq.Socket) -> dict[int, DealerOperation]:
    """The keypad lines received, by their sequence number (the outbox sends a line again until the engine, absent
    here, acknowledges it: the same number)."""
    frames = []
    while socket.poll(2000 if not frames else 200):
        frames.append(decode(socket.recv_multipart()))
    return {envelope.seq: envelope.body for topic, envelope in frames if topic == "dealer.keypad"}


def test_a_tap_on_an_amount_offered_is_the_dealers_keypad_line_on_the_bus(table):
    app, proxy_side = table
    with TestClient(app, base_url=BASE, client=("127.0.0.1", 50000)) as client:
        answer = client.post("/api/display/confirm", json={"seat": 3, "box": "ante", "amount": 2000}, headers=ORIGIN)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"keyed": "bet seat=3 box=ante amount=20.00"}
        assert keyed(proxy_side) == {1: DealerOperation("bet seat=3 box=ante amount=20.00")}
        # a second tap before the table has taken the first (a finger twice, a button drawn again): not keyed again
        again = client.post("/api/display/confirm", json={"seat": 3, "box": "ante", "amount": 2000}, headers=ORIGIN)
        assert again.status_code == 409 and "a tap was sent already" in again.json()["detail"]
        assert set(keyed(proxy_side)) <= {1}


@pytest.mark.parametrize("body, status, detail", [
    ({"seat": 3, "box": "ante", "amount": 1500}, 422, "seat 3 ante: 1500 cents is not an amount offered; key it"),
    ({"seat": 4, "box": "ante", "amount": 1000}, 409, "seat 4 ante: nothing to confirm there now"),
    ({"seat": "3", "box": "ante", "amount": 1000}, 400, "expected a JSON object such as"),
    ([3, "ante", 1000], 400, "expected a JSON object such as"),
])
def test_a_tap_on_anything_but_an_amount_offered_is_refused_and_nothing_is_keyed(table, body, status, detail):
    app, proxy_side = table
    with TestClient(app, base_url=BASE, client=("127.0.0.1", 50000)) as client:
        answer = client.post("/api/display/confirm", json=body, headers=ORIGIN)
        assert answer.status_code == status and detail in answer.json()["detail"], answer.text
    assert keyed(proxy_side) == {}


def test_no_amount_is_offered_to_tap_while_the_coup_is_paid(table):
    """While paying, the reading is of the pile before he paid into it: he keys what he paid."""
    app, proxy_side = table
    app.state.live.set_state({"phase": "paying", "coup": 1, "to_confirm": [{**ASKED, "alternative": 0}]})
    with TestClient(app, base_url=BASE, client=("127.0.0.1", 50000)) as client:
        answer = client.post("/api/display/confirm", json={"seat": 3, "box": "ante", "amount": 1000}, headers=ORIGIN)
    assert answer.status_code == 422
    assert keyed(proxy_side) == {}


def test_a_tap_from_another_machine_is_refused(table):
    """The display may be watched from the network; no one there keys for the dealer."""
    app, proxy_side = table
    with TestClient(app, base_url=BASE, client=("192.168.1.20", 50000)) as client:
        answer = client.post("/api/display/confirm", json={"seat": 3, "box": "ante", "amount": 2000}, headers=ORIGIN)
    assert answer.status_code == 403
    assert answer.json()["detail"] == "a tap is taken only from the table's own screen"
    assert keyed(proxy_side) == {}


@pytest.mark.parametrize("headers", [
    {"X-Forwarded-For": "192.168.1.20"},  # through a proxy on this machine: any client looks local
    {"Host": "rebound.example:8000", "Origin": "http://rebound.example:8000"},  # a name made to resolve here
], ids=["proxied", "dns-rebinding"])
def test_a_tap_that_only_looks_local_is_refused(table, headers):
    app, proxy_side = table
    with TestClient(app, base_url=BASE, client=("127.0.0.1", 50000)) as client:
        answer = client.post("/api/display/confirm", json={"seat": 3, "box": "ante", "amount": 2000},
                             headers={**ORIGIN, **headers})
    assert answer.status_code == 403, answer.text
    assert keyed(proxy_side) == {}
