"""The review's access control through Starlette's TestClient: the login rate limit (HTTP 429, refusals
in the audit log) and the admin's user management (list, create, disable; admin role only)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from webutil import PASSWORD, fast_hasher, table_config

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


@pytest.fixture
def app(tmp_path, clock):
    throttle = LoginThrottle(max_failures_per_user=3, max_failures_per_address=6, window_s=60, lockout_s=120,
                             clock=clock)
    app = create_app(table_config(tmp_path), follower_factory=None, review_db_path=tmp_path / "review.sqlite",
                     key_path=tmp_path / "table.key", password_hasher=fast_hasher(), login_throttle=throttle)
    for name, role in (("sam", "surveillance"), ("sue", "supervisor"), ("ada", "admin")):
        app.state.reviews.create_user(name, role, PASSWORD)
    return app


@pytest.fixture
def client(app):
    with TestClient(app) as client:
        yield client


def api_login(client, name: str, password: str = PASSWORD):
    return client.post("/api/login", json={"username": name, "password": password})


def audit(app, action: str) -> list[dict]:
    reviews: ReviewDB = app.state.reviews
    return [entry for entry in reviews.audit_log() if entry["action"] == action]


# --- the login rate limit ---------------------------------------------------------------------


def test_failed_logins_lock_the_user_name_out_for_a_while(client, app, clock):
    for _ in range(3):
        assert api_login(client, "sam", "wrong password").status_code == 401
    refused = api_login(client, "sam")  # the right password, but too late
    assert refused.status_code == 429 and "too many failed logins" in refused.json()["detail"]
    assert refused.headers["retry-after"] == "120"
    assert "review_session" not in refused.cookies
    (entry,) = audit(app, "login_refused")
    assert entry["username"] == "sam" and "locked out for 120 s" in entry["detail"]
    assert api_login(client, "sue").status_code == 200  # another name, same address: below its limit
    clock.now += 119
    assert api_login(client, "sam").status_code == 429
    clock.now += 2
    assert api_login(client, "sam").status_code == 200
    assert len(audit(app, "login_refused")) == 2 and len(audit(app, "login_failed")) == 3


def test_failures_older_than_the_window_are_forgotten(client, clock):
    for _ in range(2):
        assert api_login(client, "sam", "wrong password").status_code == 401
    clock.now += 61
    for _ in range(2):
        assert api_login(client, "sam", "wrong password").status_code == 401
    assert api_login(client, "sam").status_code == 200


def test_guessing_many_names_locks_the_address_out(client, app):
    for number in range(6):
        assert api_login(client, f"guess{number}", "wrong password").status_code == 401
    assert api_login(client, "ada").status_code == 429  # no guessed name reached 3, the address reached 6
    assert audit(app, "login_refused")[0]["detail"].startswith("api from testclient")


def test_the_login_page_says_why_it_refuses(client, app):
    for _ in range(3):
        page = client.post("/review/login", data={"username": "sam", "password": "wrong password"})
        assert page.status_code == 401 and "incorrect" in page.text
    page = client.post("/review/login", data={"username": "sam", "password": PASSWORD}, follow_redirects=False)
    assert page.status_code == 429 and "Trop de connexions échouées" in page.text and "2 min" in page.text
    assert audit(app, "login_refused")[0]["detail"].startswith("page from")


def test_bad_throttle_settings_are_refused():
    with pytest.raises(ValueError, match="at least one failure"):
        LoginThrottle(max_failures_per_user=0)


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

    with TestClient(app) as tom:  # the new user logs in, and loses the session once disabled
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
    assert client.post("/api/users", content=b"not json").status_code == 400
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
