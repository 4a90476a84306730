"""The review as its server really runs (uvicorn on a real socket): HTTPS with the table's certificate and Secure
session cookies; X-Forwarded-For believed only from the configured proxies, so that a client cannot choose the
address the login limit counts against; and the configuration's mistakes named by key."""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from webutil import PASSWORD, fast_hasher, free_port, table_config

from controller.config import ConfigError, TableConfig
from controller.web.app import create_app
from controller.web.commands import server_config


def write_certificate(folder) -> None:
    """A self-signed certificate for 127.0.0.1 and its key, as ``tls/review.pem`` and ``tls/review.key``."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "table-test")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
                   .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    (folder / "tls").mkdir()
    (folder / "tls" / "review.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (folder / "tls" / "review.key").write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


@contextmanager
def serving(config: TableConfig) -> Iterator[str]:
    """The table's web server on a free port, configured as ``stud-table web`` configures it; yields its base URL."""
    app = create_app(config, follower_factory=None, password_hasher=fast_hasher())
    app.state.reviews.create_user("sam", "surveillance", PASSWORD)
    port = free_port()
    server = uvicorn.Server(server_config(config, app, "127.0.0.1", port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the web server did not start"
        time.sleep(0.05)
    scheme = "https" if config.web_tls_certificate else "http"
    try:
        yield f"{scheme}://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def login(client: httpx.Client, base: str, password: str, forwarded_for: str | None = None) -> httpx.Response:
    headers = {"Origin": base} | ({"X-Forwarded-For": forwarded_for} if forwarded_for else {})
    return client.post(f"{base}/api/login", json={"username": "sam", "password": password}, headers=headers)


def test_https_with_the_tables_certificate_and_a_secure_session_cookie(tmp_path):
    write_certificate(tmp_path)
    config = table_config(tmp_path, '[web]\ntls_certificate = "tls/review.pem"\ntls_key = "tls/review.key"\n')
    assert config.web_secure_cookies
    with serving(config) as base, httpx.Client(verify=False) as client:
        assert base.startswith("https://")
        response = login(client, base, PASSWORD)
        assert response.status_code == 200
        cookie = response.headers["set-cookie"]
        assert "review_session=" in cookie and "Secure" in cookie and "SameSite=strict" in cookie
        with pytest.raises(httpx.HTTPError):  # plain HTTP on the same port gets nothing
            httpx.get(base.replace("https://", "http://") + "/review/login", timeout=5)


def test_plain_http_cookies_are_not_secure_unless_asked(tmp_path):
    with serving(table_config(tmp_path)) as base, httpx.Client() as client:
        assert "Secure" not in login(client, base, PASSWORD).headers["set-cookie"]
    (tmp_path / "behind").mkdir()
    config = table_config(tmp_path / "behind", "[web]\nsecure_cookies = true\n")  # a proxy in front speaks HTTPS
    with serving(config) as base, httpx.Client() as client:
        assert "Secure" in login(client, base, PASSWORD).headers["set-cookie"]


def test_a_spoofed_forwarded_address_does_not_dodge_the_login_limit(tmp_path):
    with serving(table_config(tmp_path)) as base, httpx.Client() as client:
        answers = [login(client, base, "wrong", forwarded_for=f"198.51.100.{n}").status_code for n in range(6)]
    # five free failures for (sam, 127.0.0.1), whatever address each request claimed; then a wait
    assert answers == [401] * 5 + [429]


def test_a_trusted_proxys_forwarded_address_is_the_clients(tmp_path):
    with serving(table_config(tmp_path, '[web]\ntrusted_proxies = ["127.0.0.1"]\n')) as base, \
            httpx.Client() as client:
        for _ in range(5):
            assert login(client, base, "wrong", forwarded_for="198.51.100.7").status_code == 401
        assert login(client, base, PASSWORD, forwarded_for="198.51.100.7").status_code == 429
        assert login(client, base, PASSWORD, forwarded_for="198.51.100.8").status_code == 200  # another desk


@pytest.mark.parametrize(("web", "key", "words"), [
    # the line named is the one given: the key missing has none
    ('tls_certificate = "tls/review.pem"', "web.tls_certificate", "web.tls_key is missing"),
    ('tls_key = "tls/review.key"', "web.tls_key", "web.tls_certificate is missing"),
    ('tls_certificate = "tls/nowhere.pem"\ntls_key = "tls/review.key"', "web.tls_certificate", "no such file"),
    ('tls_certificate = "table.toml"\ntls_key = "tls/review.key"', "web.tls_certificate", "not a PEM certificate"),
    ('trusted_proxies = "127.0.0.1"', "web.trusted_proxies", "a list of addresses"),
    ('trusted_proxies = ["proxy.local"]', "web.trusted_proxies", "not an address or a network"),
    ("secure_cookies = 1", "web.secure_cookies", "true or false"),
])
def test_web_security_mistakes_are_named_by_key_and_line(tmp_path, web, key, words):
    write_certificate(tmp_path)
    with pytest.raises(ConfigError) as refused:
        table_config(tmp_path, f"[web]\n{web}\n")
    assert refused.value.key == key and words in str(refused.value) and refused.value.line is not None
