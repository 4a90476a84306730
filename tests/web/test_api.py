"""The web server's API and pages through Starlette's TestClient: the live state, login and roles,
the review's coups, acknowledgements, the audit log and signed reports."""

from __future__ import annotations

import json
import re
import time

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient
from webutil import PASSWORD, SAME_SITE, fast_hasher, faulty_coups, recorded_store, table_config

from controller.store import EventStore
from controller.web.app import create_app
from controller.web.commands import create_user, verify_report_command
from controller.web.live import LiveTable
from controller.web.report import verify_report
from controller.web.reviewdb import ReviewDB

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("table")
    config = table_config(folder)
    state = recorded_store(config, faulty_coups(config))
    store = EventStore(config.store_path, config.evidence_dir)
    (event_id,) = store._db.execute("SELECT event_id FROM flags WHERE kind = 'card_exposed'").fetchone()
    store.add_evidence(PNG, "image/png", event_id)
    store.close()
    return config, state


@pytest.fixture
def client(table, tmp_path):
    config, state = table
    app = create_app(config, follower_factory=None, review_db_path=tmp_path / "review.sqlite",
                     key_path=tmp_path / "table.key", password_hasher=fast_hasher())
    reviews: ReviewDB = app.state.reviews
    for name, role in (("sam", "surveillance"), ("sue", "supervisor"), ("ada", "admin")):
        reviews.create_user(name, role, PASSWORD)
    app.state.live.set_state(state)
    with TestClient(app, headers=SAME_SITE) as client:
        yield client


def login(client, name: str) -> None:
    response = client.post("/api/login", json={"username": name, "password": PASSWORD})
    assert response.status_code == 200, response.text


def test_state_hides_the_players_cards_and_the_stream_starts_with_the_state(client, table):
    view = client.get("/api/state").json()
    assert view["state"]["coup"] == table[1]["coup"]
    for seat in view["state"]["seats"].values():
        assert "cards" not in seat and "card_count" in seat
    with client.stream("GET", "/api/stream?limit=1") as stream:
        lines = [line for line in stream.iter_lines() if line]
    assert lines[0] == "event: state" and json.loads(lines[1].removeprefix("data: "))["version"] == view["version"]
    page = client.get("/display")
    assert page.status_code == 200 and '"coup": ' in page.text  # the true state, without waiting for the stream


def test_the_pages_style_and_script_are_served_as_static_files(client):
    """Each file a page links to is served, with its type; nothing else of the package is reachable there."""
    linked = {"/display": ["/static/display.css", "/static/display.js"], "/review/login": ["/static/review.css"]}
    for page, files in linked.items():
        html = client.get(page).text
        for file in files:
            assert f'"{file}"' in html
            served = client.get(file)
            assert served.status_code == 200 and served.text.strip()
            kind = served.headers["content-type"].split(";")[0]
            assert kind in {"text/css", "text/javascript", "application/javascript"}
    assert "EventSource" in client.get("/static/display.js").text
    assert client.get("/static/%2e%2e/app.py").status_code == 404  # sent as is: the server must refuse to climb
    assert client.get("/static/missing.js").status_code == 404


def test_openapi_documents_the_api(client):
    schema = client.get("/openapi.json").json()
    assert schema["openapi"].startswith("3.")
    assert {"/api/state", "/api/stream", "/api/coups", "/api/coups/{number}/report", "/api/audit", "/api/users",
            "/api/users/{username}/disable"} <= set(schema["paths"])
    assert "table" in {param["name"] for param in schema["paths"]["/api/coups"]["get"]["parameters"]}
    assert "429" in schema["paths"]["/api/login"]["post"]["responses"]


def test_the_openapi_description_and_the_routes_agree(client):
    """Every method routed under /api is described, and every described path and method is routed,
    with the path's parameters."""
    routed = {(re.sub(r":\w+}", "}", route.path), method.lower())
              for route in client.app.routes if isinstance(route, Route) and route.path.startswith("/api/")
              for method in route.methods or () if method != "HEAD"}
    paths = client.get("/openapi.json").json()["paths"]
    assert {(path, method) for path, operations in paths.items() for method in operations} == routed
    for path, operations in paths.items():
        for method, operation in operations.items():
            named = {param["name"] for param in operation.get("parameters", []) if param["in"] == "path"}
            assert named == set(re.findall(r"{(\w+)}", path)), (method, path)


def test_login_roles_and_sessions(client):
    assert client.get("/api/coups").status_code == 401
    assert client.get("/review", follow_redirects=False).headers["location"] == "/review/login"
    assert client.post("/api/login", json={"username": "sam", "password": "wrong"}).status_code == 401
    login(client, "sam")
    assert client.get("/api/coups").status_code == 200
    # surveillance may not export nor read the audit log: 403, and no data
    for path in ("/api/audit", "/api/coups/1/report", "/review/audit"):
        response = client.get(path)
        assert response.status_code == 403 and "events" not in response.text
    client.post("/api/logout")
    assert client.get("/api/coups").status_code == 401


def test_sessions_expire(table, tmp_path):
    config, _state = table
    app = create_app(config, follower_factory=None, review_db_path=tmp_path / "r.sqlite", session_ttl_s=-1,
                     password_hasher=fast_hasher())
    app.state.reviews.create_user("sam", "surveillance", PASSWORD)
    with TestClient(app, headers=SAME_SITE) as client:
        login(client, "sam")
        assert client.get("/api/coups").status_code == 401


def test_coups_filtered_and_a_flag_acknowledged_for_good(client):
    login(client, "sue")
    coups = client.get("/api/coups").json()
    assert [(c["table_id"], c["number"]) for c in coups] == [("table-test", 1), ("table-test", 2)]
    assert client.get("/api/coups", params={"table": "table-test", "kind": "card_exposed"}).json()[0]["number"] == 1
    unknown = client.get("/api/coups", params={"table": "table-9"})
    assert unknown.status_code == 400 and "table-9" in unknown.json()["detail"]
    assert "table-test" in unknown.json()["detail"]  # the error names the tables there are
    flagged = client.get("/api/coups", params={"kind": "card_exposed"}).json()
    assert [c["number"] for c in flagged] == [1] and flagged[0]["flags_pending"] == 1
    assert client.get("/api/coups", params={"date_from": "2099-01-01"}).json() == []
    assert [c["number"] for c in client.get("/api/coups", params={"acknowledged": "no"}).json()] == [1]
    coup = client.get("/api/coups/1").json()
    flag = next(f for f in coup["flags"] if f["kind"] == "card_exposed")
    assert coup["events"][0]["id"] == coup["first_event"] and coup["table"]["settlement"] is not None
    assert coup["camera_count"] > 0
    ack = client.post(f"/api/coups/1/flags/{flag['event_id']}/{flag['ordinal']}/ack", json={"note": "vu, rien"})
    assert ack.status_code == 201
    assert [c["number"] for c in client.get("/api/coups", params={"acknowledged": "yes"}).json()] == [1]
    audit = client.get("/api/audit").json()
    assert any(a["action"] == "acknowledge_flag" and a["username"] == "sue" and "vu, rien" in a["detail"]
               for a in audit)
    reviews: ReviewDB = client.app.state.reviews
    with pytest.raises(Exception, match="append-only"):
        reviews._db.execute("DELETE FROM acknowledgements")
    with pytest.raises(Exception, match="append-only"):
        reviews._db.execute("UPDATE audit SET detail = ''")
    page = client.get("/review/coups/1")
    assert "Carte exposée" in page.text and "vu, rien" in page.text and "table table-test" in page.text
    assert client.get("/api/coups/1").json()["table_id"] == "table-test"


def test_a_signed_report_verifies_and_an_altered_one_does_not(client, tmp_path, capsys):
    login(client, "sue")
    response = client.get("/api/coups/1/report")
    assert response.status_code == 200
    report_file = tmp_path / "report.json"
    report_file.write_bytes(response.content)
    public = client.app.state.key_path.with_suffix(".pub")
    ok, message = verify_report(report_file, public)
    assert ok, message
    assert verify_report_command(report_file, public) == 0
    document = json.loads(response.content)
    assert document["report"]["flags"][0]["kind"] == "card_exposed"
    document["report"]["events"][3]["body"] += " "
    report_file.write_text(json.dumps(document))
    ok, message = verify_report(report_file, public)
    assert not ok and "signature" in message
    assert verify_report_command(report_file, public) == 1


def test_create_user_command(table, tmp_path):
    config, _ = table
    db = tmp_path / "users.sqlite"
    assert create_user(config.source, "tom", "supervisor", PASSWORD, review_db=db, hasher=fast_hasher()) == 0
    assert create_user(config.source, "tom", "supervisor", PASSWORD, review_db=db, hasher=fast_hasher()) == 1
    assert create_user(config.source, "bob", "boss", PASSWORD, review_db=db, hasher=fast_hasher()) == 2
    assert ReviewDB(db, hasher=fast_hasher()).authenticate("tom", PASSWORD).role == "supervisor"


def test_evidence_is_listed_with_its_flag_and_served_to_reviewers_only(client):
    login(client, "sam")
    coup = client.get("/api/coups/1").json()
    flag = next(f for f in coup["flags"] if f["kind"] == "card_exposed")
    (evidence,) = flag["evidence"]
    image = client.get(f"/review/evidence/{evidence['sha256']}")
    assert image.status_code == 200 and image.content == PNG and image.headers["content-type"] == "image/png"
    assert client.get("/review/evidence/..%2F..%2Fetc%2Fpasswd").status_code == 404
    client.post("/api/logout")
    assert client.get(f"/review/evidence/{evidence['sha256']}", follow_redirects=False).status_code == 303


class FakeFollower:
    def __init__(self, states):
        self.states = list(states)
        self.state = self.states.pop(0)

    def poll(self, timeout_ms):
        if not self.states:
            time.sleep(timeout_ms / 1000)
            return None
        self.state = self.states.pop(0)
        return object()

    def close(self):
        pass


def test_the_live_table_retries_until_the_engine_answers_then_follows_it():
    attempts = []

    def factory():
        attempts.append(1)
        if len(attempts) < 3:
            raise TimeoutError("no snapshot")
        return FakeFollower([{"coup": 1, "seats": {}}, {"coup": 2, "seats": {"1": {"cards": ["As"]}}}])

    live = LiveTable(factory, retry_s=0.01)
    live.start()
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (live.state or {}).get("coup") != 2:
            time.sleep(0.01)
        view = live.view()
        assert view["connected"] and view["state"]["coup"] == 2 and len(attempts) == 3
        assert view["state"]["seats"]["1"] == {"card_count": 1}
    finally:
        live.stop()


def test_the_kiosk_names_only_the_hands_turned_over():
    """No game (the dealer's ace-queen): seat 1, who claims nothing, keeps his four of a kind face down; seat 2 turns
    his flush over for the bonus. The engine knows both hands from the shoe and the review shows both; the kiosk,
    and the bus, only seat 2's."""
    import seedchecks

    from controller.public_state import public_settlement, public_state
    from controller.rules.summary import settlement_data, table_summary

    four_nines = "9c 9d 9h 9s 2c"  # no card of the flush's
    table = seedchecks.play("fr-2007", {1: four_nines, 2: seedchecks.FLUSH}, seedchecks.DEALER_ACE_QUEEN,
                            side_bets=[2], bonus=True)
    assert table.settlement is not None and not table.settlement.dealer_qualifies
    assert table.settlement.hands_shown == (2,)
    state = table_summary(table)
    assert state["settlement"]["hands"] == {"1": "Carré", "2": "Couleur"}  # what the review knows
    shown = public_state(state)
    assert shown["settlement"]["hands"] == {"2": "Couleur"} == shown["last_settlement"]["hands"]
    assert public_state(shown) == shown
    assert public_settlement(settlement_data(table.settlement), table.settlement.hands_shown)["hands"] == {
        "2": "Couleur"}
    # the dealer qualifies: every hand that raised is turned over
    table = seedchecks.play("fr-2007", {1: four_nines, 2: seedchecks.FLUSH}, seedchecks.DEALER_ACE_KING,
                            side_bets=[2], bonus=True)
    assert public_state(table_summary(table))["settlement"]["hands"] == {"1": "Carré", "2": "Couleur"}


def test_the_kiosk_names_no_card_in_the_flags_and_the_refusals():
    """Seat 1's fourth card read as the ace of spades it already holds: the flag and the settlement's wait name
    it, for the review; the display, not behind a login, gets them without it."""
    from tables import dealt_table, rules_for

    from controller.bus.schema import DealerOperation, Envelope
    from controller.referee import Referee
    from controller.rules.operations import DEALER
    from controller.sim.events import bus_events
    from controller.web.live import public_state

    rules = rules_for("fr-1959")
    table = dealt_table(rules, {1: "As Kd 7h As 2c", DEALER: "Ac Kc 4d 5d 6s"})
    table.raise_(table.log[-1].t + 1, 1, 2000)
    bodies = [body for _ms, _topic, body in bus_events(table.log)] + [DealerOperation("show-dealer")]
    referee = Referee(rules)
    for seq, body in enumerate(bodies, start=1):
        referee.handle(Envelope("test", seq, seq * 1_000_000, seq * 1_000_000, body))
    state = referee.state()
    (flag,) = state["flags"]
    assert flag["detail_fr"] == "As vue une deuxième fois dans ce coup (place 1)"
    shown = public_state(state)
    (flag,), (wait,) = shown["flags"], shown["refusals"]
    assert (flag["detail"], flag["detail_fr"]) == ("▮ seen a second time in this coup (at seat 1)",
                                                   "▮ vue une deuxième fois dans ce coup (place 1)")
    assert wait["reason_fr"] == "place 1 : ▮ en double (carte étrangère) : corriger la carte ou déclarer le coup nul"
    assert "As" not in json.dumps(shown["refusals"]) and state["refusals"][0]["reason"].startswith("seat 1 holds As")


def test_a_card_in_a_keypad_line_the_table_could_not_read_is_masked_however_spelt():
    """The refusal of an unreadable keypad line echoes the line: its card field, lowercase or « 10h », is masked
    on the way to the display; the referee's own state (the review's) keeps it."""
    from tables import dealt_table, rules_for

    from controller.bus.schema import DealerOperation, Envelope
    from controller.referee import Referee
    from controller.rules.operations import DEALER
    from controller.sim.events import bus_events
    from controller.web.live import public_state

    rules = rules_for("fr-1959")
    table = dealt_table(rules, {1: "As Kd 7h Qs 2c", DEALER: "Ac Kc 4d 5d 6s"})
    typed = ["identify position=1 index=2 card=kd colour=red", "identify position=1 index=3 card=10H colour=blue"]
    bodies = [body for _ms, _topic, body in bus_events(table.log)] + [DealerOperation(line) for line in typed]
    referee = Referee(rules)
    for seq, body in enumerate(bodies, start=1):
        referee.handle(Envelope("test", seq, seq * 1_000_000, seq * 1_000_000, body))
    refusals = referee.state()["refusals"]
    assert [refusal["reason_fr"] for refusal in refusals] == [f"ligne illisible : « {line} »" for line in typed]
    shown = public_state(referee.state())["refusals"]
    assert [refusal["reason_fr"] for refusal in shown] == [
        "ligne illisible : « identify position=1 index=2 card=▮ colour=red »",
        "ligne illisible : « identify position=1 index=3 card=▮ colour=blue »"]
