"""End to end in headless Chromium: a real proxy, engine and web server; a coup driven through the bus
(with a card dealt face up during the deal); what the croupier sees on /display, and a supervisor
acknowledging the flag in the review. Screenshots go to test-artifacts/."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
import zmq
from busutil import raw_publisher, send, wait_until
from webutil import PASSWORD, fast_hasher, faulty_coups, table_config

from controller.bus.proxy import Proxy
from controller.bus.schema import ButtonPressed, CardPlaced
from controller.bus.transport import Subscriber
from controller.engine import Engine
from controller.store import EventStore
from controller.web.app import create_app

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """Proxy + engine (threads) + the web server (uvicorn in a thread), all on a temporary table."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium")
    folder = tmp_path_factory.mktemp("web")
    config = table_config(folder)
    context = zmq.Context()
    proxy = Proxy(config.bus_publish, config.bus_subscribe)
    store = EventStore(config.store_path, config.evidence_dir)
    engine = Engine(config.rules, store, context, config.bus_subscribe, config.bus_publish, config.bus_snapshot)
    engine_thread = threading.Thread(target=engine.run, daemon=True)
    engine_thread.start()
    app = create_app(config, review_db_path=folder / "review.sqlite", key_path=folder / "table.key",
                     password_hasher=fast_hasher())
    app.state.reviews.create_user("sue", "supervisor", PASSWORD)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=1))
    server_thread = threading.Thread(target=server.run, daemon=True)
    server_thread.start()
    assert wait_until(lambda: server.started, timeout=15)
    raw = raw_publisher(context, config.bus_publish)
    probe = Subscriber(context, config.bus_subscribe, ("core.",))
    assert wait_until(lambda: probe.receive(50) is not None)  # the engine's heartbeat: the bus is up
    probe.close()
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield {"url": f"http://127.0.0.1:{port}", "send": lambda envelope: send(raw, *envelope), "store": store,
               "engine": engine, "browser": browser, "config": config}
        browser.close()
    server.should_exit = True
    server_thread.join(timeout=10)
    engine.stop()
    engine_thread.join(timeout=10)
    engine.close()
    raw.close()
    proxy.close()
    store.close()
    context.destroy(linger=0)


def drive(stack, envelopes, upto: int) -> None:
    """Send envelopes[:upto] (the engine's subscription may still be joining: resend the first until recorded)."""
    store = stack["store"]
    if store.last_id == 0:
        assert wait_until(lambda: (stack["send"](envelopes[0]), store.last_id >= 1)[1], timeout=10)
    for envelope in envelopes[store.last_id:upto]:
        stack["send"](envelope)
    assert wait_until(lambda: store.last_id >= upto, timeout=20)


def test_the_croupier_display_follows_a_coup(stack):
    ARTIFACTS.mkdir(exist_ok=True)
    envelopes = faulty_coups(stack["config"], seed=24, coups=1)  # the dealer does not qualify
    exposed = next(i for i, (_t, env) in enumerate(envelopes)
                   if isinstance(env.body, CardPlaced) and env.body.face_up and env.body.position != 0)
    first_payment = next(i for i, (_t, env) in enumerate(envelopes)
                         if isinstance(env.body, ButtonPressed) and env.body.button == "payment_done")
    expect = playwright_api.expect
    page = stack["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(stack["url"] + "/display")

    # The deal: « Rien ne va plus », and the exposed card's flag in words.
    drive(stack, envelopes, exposed + 1)
    expect(page.locator("#announcements")).to_contain_text("Rien ne va plus")
    flag = page.get_by_role("alert").first
    expect(flag).to_contain_text("ALERTE : Carte exposée")
    seat = envelopes[exposed][1].body.position
    expect(flag).to_contain_text(f"place {seat}")
    expect(page.locator(f'.seat[data-seat="{seat}"]')).to_contain_text("⚠ ALERTE")
    page.screenshot(path=str(ARTIFACTS / "display-deal-1280x800.png"))

    # The settlement, and the first seat in paying order paid.
    drive(stack, envelopes, first_payment + 1)
    state = stack["engine"].state()
    settlement = state["settlement"]
    expect(page.locator(".payouts li.paid")).to_have_count(1)
    assert settlement["announced"] == ["Pas de jeu"]
    expect(page.locator("#announcements")).to_have_text("Pas de jeu")
    rows = page.locator(".payouts li")
    expect(rows).to_have_count(len(settlement["paying_order"]))
    assert [int(s) for s in rows.evaluate_all("rows => rows.map(r => r.dataset.seat)")] == settlement["paying_order"]
    first_owed = next(p["seat"] for p in settlement["payouts"] if p["outcome"] == "win")
    expect(page.locator(f'.payouts li.paid[data-seat="{first_owed}"]')).to_contain_text("payé ✓")
    for index, seat_number in enumerate(settlement["paying_order"]):
        net = sum(p["net"] for p in settlement["payouts"] if p["seat"] == seat_number)
        expect(rows.nth(index)).to_contain_text(f"Place {seat_number}")
        expect(rows.nth(index).locator(".net")).to_have_text(euros_fr(net))
    for seat_number, hand in settlement["hands"].items():
        expect(page.locator(f'.seat[data-seat="{seat_number}"] .hand')).to_have_text(hand)
    for number in range(1, 8):
        expect(page.locator(f'.seat[data-seat="{number}"]')).to_contain_text(f"Place {number}")
    page.screenshot(path=str(ARTIFACTS / "display-paying-1280x800.png"))
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.reload()  # a reload shows the true state at once, from the follower's snapshot
    expect(page.locator(".payouts li.paid")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "display-paying-1920x1080.png"))
    page.get_by_role("button", name="Language").click()
    expect(page.get_by_role("alert").first).to_contain_text("ALERT: Card exposed")
    page.screenshot(path=str(ARTIFACTS / "display-paying-en-1920x1080.png"))
    page.close()


def test_a_supervisor_acknowledges_the_flag_in_the_review(stack):
    expect = playwright_api.expect
    page = stack["browser"].new_page(viewport={"width": 1280, "height": 900})
    page.goto(stack["url"] + "/review")
    page.get_by_label("Utilisateur").fill("sue")
    page.get_by_label("Mot de passe").fill(PASSWORD)
    page.get_by_role("button", name="Se connecter").click()
    expect(page.get_by_role("link", name="Coup 1")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "review-list.png"))
    page.get_by_role("link", name="Coup 1").click()
    flag = page.locator(".flag").first
    expect(flag).to_contain_text("Carte exposée")
    flag.get_by_label("Note").fill("Carte retournée, donne poursuivie — vérifié à la vidéo")
    flag.get_by_role("button", name="Acquitter").click()
    expect(page.locator(".flag .ack")).to_contain_text("Acquittée par sue")
    page.screenshot(path=str(ARTIFACTS / "review-coup.png"), full_page=False)
    page.get_by_role("link", name="Journal d'audit").click()
    row = page.locator("#audit tr", has_text="acknowledge_flag")
    expect(row).to_contain_text("vérifié à la vidéo")
    expect(row).to_contain_text("sue")
    page.screenshot(path=str(ARTIFACTS / "review-audit.png"))
    page.close()


def euros_fr(cents: int) -> str:
    sign = "−" if cents < 0 else ("+" if cents > 0 else "")
    units = f"{abs(cents) // 100:,}".replace(",", "\u202f")
    return f"{sign}{units},{abs(cents) % 100:02d} €"

