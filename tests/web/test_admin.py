"""The review's access control through Starlette's TestClient: the login rate limit (HTTP 429, refusals
in the audit log) and the admin's user management (list, create, disable; admin role only)."""

from __future__ import annotations

import sqlite3

import pytest
from starlette.testclient import TestClient
from webutil import PASSWORD, SAME_SITE, fast_hasher, table_config

from controller.web.app import create_app
from controller.web.reviewdb import ReviewDB
from controller.web.throttle import LoginThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


def make_app(tmp_path, clock):
    throttle = LoginThrottle(free_per_user=3, free_per_source=6, first_delay_s=60, max_delay_s=600, forget_s=3600,
                             clock=clock)
    return create_app(table_config(tmp_path), follower_factory=None, review_db_path=tmp_path / "review.sqlite",
                      key_path=tmp_path / "table.key", password_hasher=fast_hasher(), login_throttle=throttle)


@pytest.fixture
def app(tmp_path, clock):
    app = make_app(tmp_path, clock)
    for name, role in (("sam", "surveillance"), ("sue", "supervisor"), ("ada", "admin")):
        app.state.reviews.create_user(name, role, PASSWORD)
    return app


@pytest.fixture
def client(app):
    with TestClient(app, headers=SAME_SITE) as client:
        yield client


def api_login(client, name: str, password: str = PASSWORD):
    return client.post("/api/login", json={"username": name, "password": password})


def audit(app, action: str) -> list[dict]:
    reviews: ReviewDB = app.state.reviews
    return [entry for entry in reviews.audit_log() if entry["action"] == action]


# --- the login rate limit ---------------------------------------------------------------------


def test_failed_logins_make_that_name_wait_from_that_address_the_wait_doubling(client, app, clock):
    for _ in range(3):
        assert api_login(client, "sam", "wrong password").status_code == 401
    refused = api_login(client, "sam")  # the right password, but too soon
    assert refused.status_code == 429 and "too many failed logins" in refused.json()["detail"]
    assert refused.headers["retry-after"] == "60"
    assert "review_session" not in refused.cookies
    assert api_login(client, "sue").status_code == 200  # another name, same address: below its limit
    clock.now += 61
    assert api_login(client, "sam", "wrong password").status_code == 401  # a fourth failure: twice the wait
    assert api_login(client, "sam").headers["retry-after"] == "120"
    clock.now += 121
    assert api_login(client, "sam").status_code == 200
    (refusals,) = audit(app, "login_refused")  # one row for the minute, counted
    assert refusals["count"] == 2 and refusals["username"] is None and "from testclient" in refusals["detail"]
    assert sum(entry["count"] for entry in audit(app, "login_failed")) == 4


def test_nobody_locks_an_account_for_everyone(app, clock):
    with TestClient(app, headers=SAME_SITE, client=("203.0.113.9", 4000)) as attacker:
        for _ in range(10):
            api_login(attacker, "ada", "guess")
        assert api_login(attacker, "ada").status_code == 429
    with TestClient(app, headers=SAME_SITE, client=("10.1.2.3", 5000)) as admin_desk:
        assert api_login(admin_desk, "ada").status_code == 200  # her own desk: never locked by another's guesses


def test_failures_are_forgotten_a_while_after_the_last(client, clock):
    for _ in range(2):
        assert api_login(client, "sam", "wrong password").status_code == 401
    clock.now += 3601
    for _ in range(2):
        assert api_login(client, "sam", "wrong password").status_code == 401
    assert api_login(client, "sam").status_code == 200


def test_guessing_many_names_makes_the_address_wait(client, app):
    for number in range(6):
        assert api_login(client, f"guess{number}", "wrong password").status_code == 401
    assert api_login(client, "ada").status_code == 429  # no guessed name reached 3, the address reached 6
    assert audit(app, "login_refused")[0]["detail"].startswith("api from testclient")


def test_an_ipv6_host_is_one_source_whatever_address_of_its_network_it_uses(app):
    for n in range(6):  # six addresses of one /64: the source's own limit (6) is reached
        with TestClient(app, headers=SAME_SITE, client=(f"2001:db8:1:2::{n + 1:x}", 4000)) as guesser:
            assert api_login(guesser, f"guess{n}", "wrong password").status_code == 401
    with TestClient(app, headers=SAME_SITE, client=("2001:db8:1:2::99", 4000)) as same_network:
        assert api_login(same_network, "ada").status_code == 429
    with TestClient(app, headers=SAME_SITE, client=("2001:db8:1:3::1", 4000)) as another_network:
        assert api_login(another_network, "ada").status_code == 200


def test_a_clock_stepped_back_never_lengthens_the_wait(client, clock):
    for _ in range(3):
        api_login(client, "sam", "wrong password")
    clock.now -= 3000  # the wall clock set back by 50 minutes
    assert api_login(client, "sam").headers["retry-after"] == "60"


def test_the_wait_outlives_a_restart_of_the_review(tmp_path, app, client, clock):
    for _ in range(3):
        assert api_login(client, "sam", "wrong password").status_code == 401
    with TestClient(make_app(tmp_path, clock), headers=SAME_SITE) as restarted:
        assert api_login(restarted, "sam").status_code == 429


def test_a_flood_of_failed_logins_is_a_few_counted_rows_not_one_per_request(client, app):
    for number in range(300):
        api_login(client, f"name{number % 30}", f"guess {number}")  # thirty names guessed from one source
    rows = audit(app, "login_failed") + audit(app, "login_refused")
    assert len(rows) <= 4  # a row per action, source and minute (two if the run crosses a minute)
    assert sum(row["count"] for row in rows) == 300
    db = sqlite3.connect(app.state.reviews.path)
    for statement in ("UPDATE audit SET detail = 'nothing' WHERE action = 'login_failed'",
                      "UPDATE audit SET count = 1 WHERE action = 'login_failed'",  # a count never goes down
                      "UPDATE audit SET count = count + 2 WHERE action = 'login_failed'",  # it steps by one
                      "UPDATE audit SET count = 'abc' WHERE action = 'login_failed'",
                      "UPDATE audit SET count = 9 WHERE action = 'user_created'",  # nor is an ungrouped row counted
                      "INSERT OR REPLACE INTO audit (id, at, username, action, detail) "
                      "SELECT id, at, 'nobody', action, 'rewritten' FROM audit LIMIT 1",
                      "DELETE FROM audit"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute(statement)
    db.close()


def test_the_login_page_says_why_it_refuses(client, app):
    for _ in range(3):
        page = client.post("/review/login", data={"username": "sam", "password": "wrong password"})
        assert page.status_code == 401 and "incorrect" in page.text
    page = client.post("/review/login", data={"username": "sam", "password": PASSWORD}, follow_redirects=False)
    assert page.status_code == 429 and "Trop de connexions échouées" in page.text and "1 min" in page.text
    assert audit(app, "login_refused")[0]["detail"].startswith("page from")


def test_bad_throttle_settings_are_refused():
    with pytest.raises(ValueError, match="at least one free failure"):
        LoginThrottle(free_per_user=0)
    with pytest.raises(ValueError, match="remembered at least as long"):
        LoginThrottle(max_delay_s=7200, forget_s=3600)


# --- user management --------------------------------------------------------------------------


def test_only_an_admin_manages_users(client, app):
    for name in ("sam", "sue"):
        assert api_login(client, name).status_code == 200
        for method, path, body in (("GET", "/api/users", None),
                                   ("POST", "/api/users", {"username": "eve", "role": "admin", "password": PASSWORD}),
                                   ("POST", "/api/users/sam/disable", None),
                                   ("GET", "/review/admin", None),
                                   ("POST", "/review/admin/users/sam/disable", None)):
            response = client.request(method, path, json=body)
            assert response.status_code == 403, (name, path)
            assert "ada" not in response.text and "eve" not in response.text
        client.post("/api/logout")
    assert [user["username"] for user in app.state.reviews.users()] == ["ada", "sam", "sue"]
    assert app.state.reviews.users()[1]["disabled_at"] is None
    assert len([e for e in audit(app, "denied") if "(needs admin)" in e["detail"]]) == 10
    assert client.get("/api/users").status_code == 401


def test_an_admin_creates_and_disables_users_and_every_step_is_audited(client, app):
    assert api_login(client, "ada").status_code == 200
    listed = client.get("/api/users").json()
    assert [(u["username"], u["role"], u["disabled"]) for u in listed] == [
        ("ada", "admin", None), ("sam", "surveillance", None), ("sue", "supervisor", None)]
    assert all("password" not in key for user in listed for key in user)
    created = client.post("/api/users", json={"username": "tom", "role": "supervisor", "password": "tom's secret"})
    assert created.status_code == 201 and created.json() == {"username": "tom", "role": "supervisor"}
    (stored_hash,) = app.state.reviews._db.execute("SELECT password_hash FROM users WHERE username = 'tom'").fetchone()
    assert stored_hash.startswith("$argon2id$") and "tom's secret" not in stored_hash
    (entry,) = audit(app, "user_created")[:1]
    assert entry["username"] == "ada" and entry["detail"] == "tom (supervisor)"

    with TestClient(app, headers=SAME_SITE) as tom:  # the new user logs in, and loses the session once disabled
        assert api_login(tom, "tom", "tom's secret").json()["role"] == "supervisor"
        assert tom.get("/api/audit").status_code == 200
        assert client.post("/api/users/tom/disable").json() == {"username": "tom", "disabled": True}
        assert tom.get("/api/audit").status_code == 401
        assert api_login(tom, "tom", "tom's secret").status_code == 401
    assert [e["detail"] for e in audit(app, "user_disabled") if e["username"] == "ada"] == ["tom"]
    tom_row = next(u for u in client.get("/api/users").json() if u["username"] == "tom")
    assert tom_row["disabled"] is not None  # kept, with when it was disabled

    assert client.post("/api/users/tom/disable").status_code == 409
    assert client.post("/api/users/nobody/disable").status_code == 404
    assert client.post("/api/users/ada/disable").status_code == 400  # not one's own account
    assert client.post("/api/users", json={"username": "tom", "role": "admin", "password": PASSWORD}
                       ).status_code == 409
    for bad, word in (({"username": "kim", "role": "boss", "password": PASSWORD}, "role"),
                      ({"username": "a b", "role": "admin", "password": PASSWORD}, "user name"),
                      ({"username": "kim\n", "role": "admin", "password": PASSWORD}, "user name"),
                      ({"username": "kim", "role": "admin", "password": "short"}, "8 characters")):
        response = client.post("/api/users", json=bad)
        assert response.status_code == 400 and word in response.json()["detail"]
    assert client.post("/api/users", content=b"not json").status_code == 415  # not said to be JSON
    assert client.post("/api/users", content=b"not json", headers={"Content-Type": "application/json"}
                       ).status_code == 400
    assert "kim" not in {u["username"] for u in app.state.reviews.users()}


def test_the_admin_page_lists_creates_and_disables(client, app):
    client.post("/review/login", data={"username": "ada", "password": PASSWORD})
    page = client.get("/review/admin")
    assert page.status_code == 200 and 'data-user="sue"' in page.text and "supervisor" in page.text
    created = client.post("/review/admin/users", data={"username": "kim", "role": "surveillance",
                                                        "password": PASSWORD}, follow_redirects=False)
    assert created.status_code == 303 and created.headers["location"] == "/review/admin"
    refused = client.post("/review/admin/users", data={"username": "kim", "role": "surveillance",
                                                        "password": PASSWORD})
    assert refused.status_code == 409 and "exists already" in refused.text
    assert client.post("/review/admin/users/kim/disable", follow_redirects=False).status_code == 303
    page = client.get("/review/admin")
    kim_row = page.text.split('data-user="kim"')[1].split("</tr>")[0]
    assert "désactivé le" in kim_row and "Désactiver" not in kim_row
    assert {e["action"] for e in app.state.reviews.audit_log() if e["username"] == "ada"} >= {
        "view_users", "open_create_user", "user_created", "open_disable_user", "user_disabled"}
