"""Every request passes the guard before any route: the browser protections on each response, the body's size
capped, and no state-changing request from another site (or from no site at all) reaching a route."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from webutil import PASSWORD, SAME_SITE, fast_hasher, table_config

from controller.web.app import create_app
from controller.web.guard import MAX_BODY_BYTES


@pytest.fixture
def client(tmp_path):
    app = create_app(table_config(tmp_path), follower_factory=None, review_db_path=tmp_path / "review.sqlite",
                     key_path=tmp_path / "table.key", password_hasher=fast_hasher())
    app.state.reviews.create_user("ada", "admin", PASSWORD)
    with TestClient(app) as client:
        yield client


LOGIN = {"username": "ada", "password": PASSWORD}


@pytest.mark.parametrize("path", ["/", "/review/login", "/api/state", "/static/display.js", "/nowhere"])
def test_every_response_carries_the_browser_protections(client, path):
    headers = client.get(path).headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "same-origin"


def test_a_state_changing_request_needs_this_sites_origin(client):
    refused = client.post("/api/login", json=LOGIN)  # no Origin: a script, not the app's page
    assert refused.status_code == 403 and "no Origin" in refused.json()["detail"]
    assert "review_session" not in refused.cookies
    elsewhere = client.post("/api/login", json=LOGIN, headers={"Origin": "https://evil.example"})
    assert elsewhere.status_code == 403 and "another site" in elsewhere.json()["detail"]
    page = client.post("/review/login", data=LOGIN, headers={"Origin": "https://evil.example"})
    assert page.status_code == 403 and "cross-site" in page.text
    assert client.post("/api/login", json=LOGIN, headers=SAME_SITE).status_code == 200


def test_the_api_takes_json_bodies_only(client):
    # text/plain and form bodies are what another site's page can post without the browser asking first
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = SAME_SITE | ({"Content-Type": content_type} if content_type else {})
        refused = client.post("/api/login", content=b'{"username": "ada", "password": "%s"}' % PASSWORD.encode(),
                              headers=headers)
        assert refused.status_code == 415 and "JSON" in refused.json()["detail"], content_type
    assert client.post("/api/login", json=LOGIN, headers=SAME_SITE).status_code == 200
    assert client.post("/api/logout", headers=SAME_SITE).status_code == 200  # no body: nothing to type


def test_a_body_over_the_limit_is_refused_announced_or_streamed(client):
    big = b"x" * (5 * 1024 * 1024)
    announced = client.post("/api/login", content=big, headers=SAME_SITE | {"Content-Type": "application/json"})
    assert announced.status_code == 413 and str(MAX_BODY_BYTES) in announced.json()["detail"]

    def chunks():
        for _ in range(80):
            yield b"x" * 1024

    streamed = client.post("/review/login", content=chunks(), headers=SAME_SITE)  # chunked: no Content-Length
    assert streamed.status_code == 413
    assert client.post("/review/login", data=LOGIN, headers=SAME_SITE, follow_redirects=False).status_code == 303


def test_a_chunked_body_must_say_it_is_json_too(client):
    def body():
        yield b'{"username": "ada", "password": "%s"}' % PASSWORD.encode()

    refused = client.post("/api/login", content=body(), headers=SAME_SITE | {"Content-Type": "text/plain"})
    assert refused.status_code == 415
    taken = client.post("/api/login", content=body(), headers=SAME_SITE | {"Content-Type": "application/json"})
    assert taken.status_code == 200


def test_a_repeated_origin_or_length_is_refused(client):
    # the route would read the first copy and a check the last: a client must not be able to choose
    for name, values in (("Origin", ["https://evil.example", "http://testserver"]),
                         ("Content-Length", ["2", "2"])):
        response = client.post("/api/logout", headers=[(name, value) for value in values] + list(SAME_SITE.items()))
        assert response.status_code == 400 and "repeated header" in response.json()["detail"], name


@pytest.mark.parametrize(("method", "path"), [("POST", "/api/logout"), ("POST", "/review/logout"),
                                              ("POST", "/api/coups/1/flags/1/0/ack"),
                                              ("POST", "/review/coups/1/flags/1/0/ack"),
                                              ("POST", "/api/users"), ("POST", "/api/users/sam/disable"),
                                              ("POST", "/review/admin/users/sam/disable"),
                                              ("POST", "/review/admin/users")])
def test_every_state_changing_route_needs_this_sites_origin(client, method, path):
    assert client.post("/api/login", json=LOGIN, headers=SAME_SITE).status_code == 200
    response = client.request(method, path, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403, path


def test_named_hosts_refuse_another_hosts_name(tmp_path):
    """DNS rebinding: another site's name pointed at this server's address sends its own Host and Origin."""
    config = table_config(tmp_path, '[web]\nallowed_hosts = ["review.casino.example:8080"]\n')
    app = create_app(config, follower_factory=None, review_db_path=tmp_path / "review.sqlite",
                     key_path=tmp_path / "table.key", password_hasher=fast_hasher())
    app.state.reviews.create_user("ada", "admin", PASSWORD)
    with TestClient(app, base_url="http://evil.example:8080") as rebound:
        refused = rebound.post("/api/login", json=LOGIN, headers={"Origin": "http://evil.example:8080"})
        assert refused.status_code == 400 and "review.casino.example:8080" in refused.json()["detail"]
    with TestClient(app, base_url="http://review.casino.example:8080") as named:
        taken = named.post("/api/login", json=LOGIN, headers={"Origin": "http://review.casino.example:8080"})
        assert taken.status_code == 200
