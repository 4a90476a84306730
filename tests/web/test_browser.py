"""End to end in headless Chromium: a real proxy, engine and web server; coups driven through the bus
(the first with a card dealt face up during the deal, then a bonus paid, then a coup the bank wins);
what the croupier sees on /display, in French and in English, and a supervisor filtering the coups and
acknowledging the flag in the review. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest
import zmq
from busutil import raw_publisher, send, wait_until
from webutil import CHROMIUM, CHROMIUM_ARGS, PASSWORD, fast_hasher, faulty_coups, free_port, table_config

from controller.bus.proxy import Proxy
from controller.bus.schema import ButtonPressed, CardPlaced, ChipsChanged, Envelope
from controller.bus.transport import Subscriber
from controller.engine import Engine
from controller.rules.operations import Box
from controller.store import EventStore
from controller.web.app import create_app

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
playwright_api.expect.set_options(timeout=15_000)  # engine -> proxy -> follower -> SSE -> page, on a loaded machine
uvicorn = pytest.importorskip("uvicorn")

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


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
    # The test's raw publisher sends no heartbeats: without this the engine would reconnect after 3.5 s of quiet
    # between two drives, and a burst sent in that instant would be lost at the proxy.
    engine.subscriber.silence_ms = 10**9
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
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield {"url": f"http://127.0.0.1:{port}", "send": lambda envelope: send(raw, *envelope), "store": store,
               "engine": engine, "browser": browser, "config": config, "envelopes": the_coups(config)}
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


def the_coups(config):
    """Coup 1: the dealer does not qualify (« Pas de jeu ») and a card is dealt face up; coup 2: a flush with
    a bonus bet against the dealer's pair of aces (« Bonus payé »); coup 3: the dealer's kings beat a pair
    of twos (« La banque gagne »)."""
    return faulty_coups(config, seed=24, coups=1, scripted=(
        {"players": ["2h 5h 8h Jh Kh"], "dealer": "As Ad 3c 4d 9s", "bonus": True},
        {"players": ["2c 2d 7s 9c Jd"], "dealer": "Kc Kd 3s 5h 8c"}))


def buttons(envelopes, name: str) -> list[int]:
    return [i for i, (_t, env) in enumerate(envelopes)
            if isinstance(env.body, ButtonPressed) and env.body.button == name]


def drive(stack, envelopes, upto: int) -> None:
    """Send envelopes[:upto] (the engine's subscription may still be joining: resend the first until recorded),
    then wait until the engine has acted on them: it records a whole batch before it acts on any of it."""
    store = stack["store"]
    if store.last_id == 0:
        assert wait_until(lambda: (stack["send"](envelopes[0]), store.last_id >= 1)[1], timeout=10)
    for envelope in envelopes[store.last_id:upto]:
        stack["send"](envelope)
    assert wait_until(lambda: store.last_id >= upto, timeout=20)
    assert wait_until(lambda: stack["engine"].acted_id >= upto, timeout=20)


def test_the_croupier_display_follows_a_coup(stack):
    ARTIFACTS.mkdir(exist_ok=True)
    envelopes = stack["envelopes"]
    exposed = next(i for i, (_t, env) in enumerate(envelopes)
                   if isinstance(env.body, CardPlaced) and env.body.face_up and env.body.position != 0)
    first_payment = buttons(envelopes, "payment_done")[0]
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
    # No camera reported here: the seat is crossed off, its payment « non vérifié ».
    expect(page.locator(f'.payouts li.paid[data-seat="{first_owed}"] .state')).to_have_text("non vérifié")
    for index, seat_number in enumerate(settlement["paying_order"]):
        nets = [p["net"] for p in settlement["payouts"] if p["seat"] == seat_number]
        pay, collect = sum(n for n in nets if n > 0), -sum(n for n in nets if n < 0)
        expect(rows.nth(index)).to_contain_text(f"Place {seat_number}")
        expect(rows.nth(index).locator(".pay")).to_have_text(euros_fr(pay)[1:] if pay else "—")
        expect(rows.nth(index).locator(".collect")).to_have_text(euros_fr(-collect)[1:] if collect else "—")
    shown = {str(seat) for seat in settlement["hands_shown"]}
    assert set(settlement["hands"]) - shown  # no game: some hand claims nothing and stays face down (Seed 002)
    for seat_number, hand in settlement["hands"].items():
        named = page.locator(f'.seat[data-seat="{seat_number}"] .hand')
        if seat_number in shown:
            expect(named).to_have_text(hand)
        else:  # the shoe read it, the engine knows it: the kiosk does not name it
            expect(named).to_have_count(0)
    for number in range(1, 8):
        expect(page.locator(f'.seat[data-seat="{number}"]')).to_contain_text(f"Place {number}")
    page.screenshot(path=str(ARTIFACTS / "display-paying-1280x800.png"))
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.reload()  # a reload shows the true state at once, from the follower's snapshot
    expect(page.locator(".payouts li.paid")).to_have_count(1)
    page.screenshot(path=str(ARTIFACTS / "display-paying-1920x1080.png"))
    page.get_by_role("button", name="Language").click()
    expect(page.get_by_role("alert").first).to_contain_text("ALERT: Card exposed")
    expect(page.locator("#announcements")).to_have_text("No game")
    expect(page.locator("#payouts h2")).to_have_text("Payouts (paying order)")
    page.screenshot(path=str(ARTIFACTS / "display-paying-en-1920x1080.png"))
    page.close()


def test_the_display_shows_the_announcements_in_french_and_in_english(stack):
    """« Rien ne va plus » in the deal, « Bonus payé » and « La banque gagne » at the settlements."""
    envelopes = stack["envelopes"]
    expect = playwright_api.expect
    page = stack["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(stack["url"] + "/display")
    announcements = page.locator("#announcements")
    language = page.get_by_role("button", name="Language")

    def in_both(french: str, english: str) -> None:
        expect(announcements).to_have_text(french)
        language.click()
        expect(announcements).to_have_text(english)
        language.click()
        expect(announcements).to_have_text(french)

    # Coup 2: the first card dealt after « rien ne va plus ».
    no_more_bets = buttons(envelopes, "no_more_bets")[1]
    first_card = next(i for i, (_t, env) in enumerate(envelopes)
                      if i > no_more_bets and isinstance(env.body, CardPlaced))
    drive(stack, envelopes, first_card + 1)
    expect(page.locator("#coup")).to_have_text("Coup 2")
    in_both("Rien ne va plus", "No more bets")

    # Coup 2 settled and its winner paid: the flush's bonus.
    deal_end = buttons(envelopes, "end_of_deal")[1]
    paid = next(i for i in buttons(envelopes, "payment_done") if i > deal_end)
    drive(stack, envelopes, paid + 1)
    settlement = stack["engine"].state()["settlement"]
    assert settlement["announced"] == ["Bonus payé"] and settlement["announced_en"] == ["Bonus paid"]
    (bonus,) = [p for p in settlement["payouts"] if p["line"] == "bonus"]
    seat = page.locator(f'.seat[data-seat="{bonus["seat"]}"]')
    expect(seat.locator(".hand")).to_have_text("Couleur")
    # on the seat's box, whole euros say no cents
    assert bonus["net"] % 100 == 0 and 0 < bonus["net"] < 100_000
    expect(seat.locator(".result", has_text="Bonus")).to_have_text(f"Bonus+{bonus['net'] // 100} €")
    in_both("Bonus payé", "Bonus paid")
    page.screenshot(path=str(ARTIFACTS / "display-bonus-paid-1280x800.png"))
    language.click()
    expect(seat.locator(".hand")).to_have_text("Flush")
    expect(seat.locator(".result", has_text="Bonus")).to_contain_text("Bonus+€")
    expect(page.locator('.seat[data-seat="2"]')).to_contain_text("0 cards")  # English plural, French « 0 carte »
    page.screenshot(path=str(ARTIFACTS / "display-bonus-paid-en-1280x800.png"))
    language.click()

    # Coup 3 settled (all but its end): the dealer's kings beat the pair.
    drive(stack, envelopes, len(envelopes) - 1)
    assert stack["engine"].state()["settlement"]["announced"] == ["La banque gagne"]
    expect(page.locator("#coup")).to_have_text("Coup 3")
    in_both("La banque gagne", "The bank wins")
    expect(page.locator("#dealer .hand")).to_have_text("Paire — qualifié")
    page.screenshot(path=str(ARTIFACTS / "display-bank-wins-1280x800.png"))
    page.close()


def test_a_supervisor_filters_the_coups_and_acknowledges_the_flag_in_the_review(stack):
    drive(stack, stack["envelopes"], len(stack["envelopes"]))  # all three coups recorded, whatever ran before
    expect = playwright_api.expect
    page = stack["browser"].new_page(viewport={"width": 1280, "height": 900})
    page.goto(stack["url"] + "/review")
    page.get_by_label("Utilisateur").fill("sue")
    page.get_by_label("Mot de passe").fill(PASSWORD)
    page.get_by_role("button", name="Se connecter").click()
    rows = page.locator("#coups tr:has(td)")
    expect(rows).to_have_count(3)
    page.get_by_label("Table").select_option("table-test")
    page.get_by_label("Alerte").select_option("card_exposed")
    page.get_by_role("button", name="Filtrer").click()
    expect(page).to_have_url(re.compile(r"table=table-test.*kind=card_exposed"))
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("table-test")
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


def test_the_dealer_taps_the_amount_the_camera_offers_and_the_table_takes_it(stack):
    """After the three coups, the camera reads an occupied seat's ante unsure: 10 €, or 20 € (two chips stacked).
    The dealer taps « 20,00 € » on his screen: the web server enters it on the bus as his keypad line, the engine
    records and plays it, and the banner goes."""
    drive(stack, stack["envelopes"], len(stack["envelopes"]))
    engine, store = stack["engine"], stack["store"]
    seat = min(number for number, state in engine.referee.table.seats.items() if state.occupied)
    before = store.last_id
    unsure = Envelope("camera-test", 1, time.monotonic_ns(), time.time_ns(),
                      ChipsChanged(seat, "ante", 1000, sure=False, alternative=2000))
    assert wait_until(lambda: (stack["send"](("vision.chips", unsure)), store.last_id > before)[1], timeout=10)
    expect = playwright_api.expect
    page = stack["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(stack["url"] + "/display?lang=fr")
    prompt = page.locator(f'.banner.confirm[data-seat="{seat}"]')
    expect(prompt.locator(".tap")).to_have_text([euros_fr(1000).lstrip("+"), euros_fr(2000).lstrip("+")])
    expect(prompt.locator(".todo")).to_have_text("→ compter les jetons : toucher le bon montant, ou le saisir")
    box = prompt.locator(".tap").nth(1).bounding_box()
    assert box is not None and box["height"] >= 48 and box["width"] >= 48  # a finger's target
    page.screenshot(path=str(ARTIFACTS / "display-tap.png"))
    prompt.get_by_role("button", name=euros_fr(2000).lstrip("+")).click()
    expect(prompt).to_have_count(0)
    keyed = [body for topic, publisher, body in store.db.execute(
        "SELECT topic, publisher, body FROM events WHERE id > ?", (before,)) if publisher == "keypad-display"]
    assert [json.loads(body)["line"] for body in keyed] == [f"bet seat={seat} box=ante amount=20.00"]
    assert engine.referee.table.seats[seat].bets[Box.ANTE] == 2000
    page.close()


def euros_fr(cents: int) -> str:
    sign = "−" if cents < 0 else ("+" if cents > 0 else "")
    units = f"{abs(cents) // 100:,}".replace(",", "\u202f")
    return f"{sign}{units},{abs(cents) % 100:02d} €"

