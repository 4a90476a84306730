"""The croupier display at its busiest, in headless Chromium: seven seats paid with bonus and jackpot lines, four
alerts (one of them three times), a refused end of coup, the camera offline, and the camera's verdict on each payment
at its longest, at 1280×800 and 1920×1080, in French and in English, and again with two zones to confirm on top. Every
text must lie inside its box and inside the screen; the paying panel's amounts still to pay and its verdicts are at
least 32 px. The state is a real coup played through the referee, with the verdicts set by hand. Then the dealer asked
to confirm a bet the camera read unsure, until he keys its amount. Screenshots go to $STUD_TABLE_SCREENSHOTS (or the
test's temporary folder), with copies under build/screenshots/."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from pathlib import Path

import pytest
from busutil import wait_until
from webutil import CHROMIUM, CHROMIUM_ARGS, fast_hasher, free_port, table_config

from controller.bus.schema import (
    ButtonPressed,
    CameraCaughtUp,
    CameraStatus,
    CardPlaced,
    ChipsChanged,
    DealerOperation,
    Envelope,
    SensorFlood,
    ShoeLink,
)
from controller.profiles import PROFILES_DIR
from controller.referee import Referee
from controller.rules.cards import full_deck, parse_cards
from controller.rules.french import euros_fr
from controller.rules.history import format_operation
from controller.rules.operations import DEALER, Box, OpenSession, Raise
from controller.rules.profile import TableRules, parse_profile
from controller.rules.table import HAND_SIZE, Table
from controller.sim.events import bus_events
from controller.web.app import create_app

pytestmark = pytest.mark.browser
playwright_api = pytest.importorskip("playwright.sync_api")
uvicorn = pytest.importorskip("uvicorn")

KEPT = Path(__file__).resolve().parents[2] / "build" / "screenshots"

HANDS = {1: "2h 5h 8h Jh Kh", 2: "Qc Qd 3h 6c 9s", 3: "Jc 9d 6h 4c 3s", 4: "8c 8d 8s 5c 5d",
         5: "Tc Td 7h 7d 2c", 6: "9c Th Js Qh Kc", 7: "As Qs 6d 4d 3c", DEALER: "Ah Kd 7c 4s 2d"}


def bonus_and_jackpot_rules() -> TableRules:
    """The 2007 French game with the standard progressive jackpot added: every side line a seat can have."""
    french = (PROFILES_DIR / "fr-2007.toml").read_text(encoding="utf-8")
    caribbean = (PROFILES_DIR / "caribbean-us.toml").read_text(encoding="utf-8")
    profile = parse_profile(french + "\n" + caribbean[caribbean.index("[jackpot]"):], "fr-2007+jackpot")
    return TableRules(profile, 1000, 50000, 7, bonus=True, jackpot=True)


def busiest_coup(rules: TableRules) -> Table:
    """Seven players with ante, bonus and jackpot; card 1 of seat 3 seen face up three times in the deal; seat 5's
    ante raised after « rien ne va plus »; the shoe counting one card short; seat 2 raising 30 € on a 10 € ante;
    seat 7 folding; the dealer qualifies; the coup settled."""
    table = Table(rules)
    t = 0

    def tick() -> int:
        nonlocal t
        t += 500
        return t

    table.open_session(tick(), full_deck())
    seats = list(range(1, 8))
    for seat in seats:
        table.sit_down(tick(), seat)
        table.place_bet(tick(), seat, Box.ANTE, 1000)
        table.place_bet(tick(), seat, Box.BONUS, rules.bonus_stake_cents)
        table.place_bet(tick(), seat, Box.JACKPOT, rules.profile.jackpot_stake_cents)
    table.no_more_bets(tick())
    table.shuffle(tick())
    table.offer_cut(tick(), 1, True)
    hands = {position: parse_cards(cards) for position, cards in HANDS.items()}
    for round_index in range(HAND_SIZE):
        for position in seats + [DEALER]:
            table.deal_card(tick(), position, hands[position][round_index],
                            position == DEALER and round_index == HAND_SIZE - 1)
            if position == 3 and round_index < 3:
                table.expose_card(tick(), 3, 0)
    table.place_bet(tick(), 5, Box.ANTE, 1500)
    table.shoe_count(tick(), HAND_SIZE * 8 - 1)
    table.end_deal(tick())
    for seat in seats[:-1]:
        table.raise_(tick(), seat, 3000 if seat == 2 else 2000)
    table.fold(tick(), 7)
    table.show_dealer_hand(tick())
    table.settle(tick(), 1_000_000)
    return table


#: The camera's verdicts on the payments, the longest each can be: seat 6 paid short with a losing stake left, seat 5
#: overpaid, seat 4 paid right, seat 2 paid with the camera offline, seat 1 (next) already given too much; seats 7
#: and 3, owed nothing, still hold their stakes (not a fault before the coup ends).
PAYMENTS = {6: {"checked": True, "short": 123450, "not_collected": 100000}, 5: {"checked": True, "over": 100000},
            4: {"checked": True}, 2: {"checked": True, "watched": False}, 1: {"over": 100000},
            7: {"not_collected": 1300}, 3: {"not_collected": 3300}}


def busiest_state() -> dict:
    """The coup played as bus events through the referee, then four seats paid, the end of the coup asked for
    twice too early, and the camera gone. The camera's verdicts are set by hand (``PAYMENTS``): played through the
    referee, the faults would add alerts of their own, and a camera not heard of would have watched none."""
    rules = bonus_and_jackpot_rules()
    events = []
    for operation in busiest_coup(rules).log:
        if isinstance(operation, Raise) and operation.seat == 2:
            # a raise the rules would flag is held for the dealer even read sure (the referee): he keys it; not
            # twice the ante the camera read, it is refused until he counts that ante too, then keys it again
            raised = DealerOperation(format_operation(operation).split(" ", 1)[1])
            events += [raised, DealerOperation("bet seat=2 box=ante amount=10.00"), raised]
        else:
            events += [body for _ms, _topic, body in bus_events([operation])]
    events += [ButtonPressed("payment_done")] * 4 + [DealerOperation("end-coup"), DealerOperation("end-coup"),
                                                      CameraStatus(online=False)]
    referee = Referee(rules, jackpot_meter=1_000_000)
    for seq, body in enumerate(events, start=1):
        referee.handle(Envelope("test", seq, seq * 1_000_000, 1_700_000_000_000_000_000 + seq * 1_000_000, body))
    state = referee.state()
    assert state["payments_due"] == [1] and state["settlement"]["paying_order"] == [7, 6, 5, 4, 3, 2, 1]
    state["payments"] = {str(seat): {"checked": False, "watched": True, "over": 0, "short": 0, "not_collected": 0}
                         | payment for seat, payment in PAYMENTS.items()}
    return state


#: Two zones the camera could not vouch for, on top of the busiest state (set by hand like the verdicts): seat 1's
#: raise as it is paid (the box next to pay) and seat 3's ante as it is collected, both seats' cards full already.
TO_CONFIRM = [{"seat": 1, "box": "raise", "amount": 123450}, {"seat": 3, "box": "ante", "amount": 3300}]


@contextlib.contextmanager
def serving(folder: Path, state: dict, table_keys: str = ""):
    """The web server (uvicorn in a thread) of a table configured in ``folder``, showing ``state``: its app."""
    app = create_app(table_config(folder, table_keys=table_keys), follower_factory=None,
                     review_db_path=folder / "review.sqlite", key_path=folder / "table.key",
                     password_hasher=fast_hasher())
    app.state.live.connected = True
    app.state.live.set_state(state)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    assert wait_until(lambda: server.started, timeout=15)
    try:
        yield app, f"http://127.0.0.1:{port}/display"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def display(tmp_path_factory):
    """The web server showing the busiest state, and a browser."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium")
    state = busiest_state()
    with serving(tmp_path_factory.mktemp("display"), state) as (app, url), playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield {"url": url, "browser": browser, "state": state, "live": app.state.live}
        browser.close()


@pytest.fixture
def screenshots(tmp_path):
    folder = Path(os.environ.get("STUD_TABLE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    KEPT.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> None:
        path = folder / name
        page.screenshot(path=str(path))
        shutil.copyfile(path, KEPT / name)

    return take


#: Each element with text of its own: where its text lies, against its own box, every box that clips it, and the
#: screen. A text that wraps or overflows past any of them is reported with the offending edge.
OUTSIDE = """() => {
  const view = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
  const out = [];
  const inside = (r, box) => r.left >= box.left - 1 && r.top >= box.top - 1 && r.right <= box.right + 1
    && r.bottom <= box.bottom + 1;
  for (const e of document.body.querySelectorAll("*")) {
    if (["SCRIPT", "STYLE"].includes(e.tagName)) continue;
    for (const node of e.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE || !node.textContent.trim()) continue;
      const range = document.createRange(); range.selectNodeContents(node);
      const text = range.getBoundingClientRect();
      const boxes = [["its box", e.getBoundingClientRect()], ["the screen", view]];
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
        const clips = getComputedStyle(a).overflow !== "visible";
        if (a === e.parentElement || clips) boxes.push([a.className || a.id || a.tagName, a.getBoundingClientRect()]);
      }
      for (const [name, box] of boxes) {
        const what = `${node.textContent.trim().slice(0, 40)} (${e.className || e.tagName})`;
        if (!inside(text, box)) out.push(`${what} outside ${name}`);
      }
    }
  }
  return out;
}"""


@pytest.fixture
def shown(display):
    """Shows a state other than the busiest for one test, then the busiest again for the next."""
    yield display["live"].set_state
    display["live"].set_state(display["state"])


@pytest.mark.parametrize("width, height", [(1280, 800), (1920, 1080)])
@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("unsure", [False, True], ids=["", "to-confirm"])
def test_the_busiest_display_fits_the_screen(display, shown, screenshots, width, height, lang, unsure):
    if unsure:
        shown(display["state"] | {"to_confirm": TO_CONFIRM})
    expect = playwright_api.expect
    page = display["browser"].new_page(viewport={"width": width, "height": height})
    page.goto(f"{display['url']}?lang={lang}")
    french = lang == "fr"
    expect(page.locator("#devices")).to_have_text("⚠ Caméra hors ligne" if french else "⚠ Camera offline")
    expect(page.locator(".refused")).to_have_count(1)
    expect(page.locator(".payouts li")).to_have_count(7)
    expect(page.locator(".payouts .fault")).to_have_count(4)
    if not unsure:
        expect(page.locator(".flag")).to_have_count(4)
        expect(page.locator("#more")).to_be_empty()
        expect(page.locator(".banner.confirm")).to_have_count(0)
    else:
        # The prompts stay; where the seats have no room left, the oldest alerts give way to them, counted in the
        # header (at 1280×800 two of them, a row of the grid; the French alerts are longer).
        expect(page.locator(".banner.confirm")).to_have_count(2)
        expect(page.locator(".seat .bet.unsure")).to_have_count(2)
        expect(page.locator(".payouts li.unsure .state")).to_have_text(["à confirmer" if french else "to confirm"] * 2)
        titles = [flag["label_fr"] if french else flag["kind"].replace("_", " ").capitalize()
                  for flag in display["state"]["flags"]]
        titles = list(dict.fromkeys(titles))  # one banner a kind and seat, the first seen first
        assert len(titles) == 4
        hidden = len(titles) - page.locator(".flag").count()
        assert hidden == 2 if height == 800 else hidden in (0, 2), hidden
        expect(page.locator(".flag .title")).to_contain_text(titles[hidden:])
        expect(page.locator("#more")).to_have_text(f"⚠ +{hidden} {'alertes' if french else 'alerts'}" if hidden else "")
    name = "display-busiest" + ("-to-confirm" if unsure else "")
    screenshots(page, f"{name}-{lang}-{width}x{height}.png")
    assert page.evaluate(OUTSIDE) == []
    # Read from 2 m: the amounts of the three seats not paid yet, the verdicts (the amounts paid shrink).
    sizes = page.locator(".payouts li:not(.checked) .figure, .payouts .verdict").evaluate_all(
        "es => es.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert len(sizes) == 3 * 2 + 6 and min(sizes) >= 32
    # The seats' results too, at 1920×1080 where the four alerts leave them room
    results = page.locator(".seat .result > span:last-child").evaluate_all(
        "es => es.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert min(results) >= 32 if (height, unsure) == (1080, False) else max(results) < 32
    page.close()


@pytest.mark.parametrize("width, height", [(1280, 800), (1920, 1080)])
def test_a_card_the_camera_cannot_tell_is_asked_of_the_dealer_beside_the_amounts(display, shown, screenshots, width,
                                                                                 height):
    shown(display["state"] | {"to_confirm": TO_CONFIRM[:1],
                              "cards_to_confirm": [{"position": 0, "index": 4, "read": "Th"}]})
    page = display["browser"].new_page(viewport={"width": width, "height": height})
    page.goto(f"{display['url']}?lang=fr")
    prompts = page.locator(".banner.confirm")
    playwright_api.expect(prompts).to_have_count(2)
    playwright_api.expect(prompts.nth(1)).to_have_text(
        "⌨À confirmer : Croupier, carte 5 — lu 10♥ ? → lire la carte et la saisir")
    screenshots(page, f"display-card-to-confirm-fr-{width}x{height}.png")
    assert page.evaluate(OUTSIDE) == []
    page.close()


def test_the_dealer_sees_the_refusal_the_alerts_and_what_to_do(display):
    state = display["state"]
    due = state["payments_due"]
    refusal = state["refusals"][-1]
    expect = playwright_api.expect
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")
    assert refusal["reason_fr"] == "place 1 encore à payer"
    expect(page.locator(".refused")).to_have_text("✖Fin de coup refusée : place 1 encore à payer ×2")
    exposed = page.locator(".flag", has_text="Carte exposée")
    expect(exposed).to_contain_text("ALERTE : Carte exposée — place 3 ×3")
    expect(exposed).to_contain_text("→ Retourner la carte, poursuivre la donne")
    raised = page.locator(".flag", has_text="Relance différente")
    expect(raised).to_contain_text("relance de 30,00 € ; la règle est exactement 2 fois l'ante, 20,00 €")
    expect(raised).to_contain_text("→ Régler la relance comme indiqué ; appeler le chef de table")
    expect(page.locator(".flag", has_text="Mise changée")).to_contain_text("passé de 10,00 € à 15,00 €")
    expect(page.locator(".flag", has_text="Compte du sabot")).to_contain_text("le sabot a compté 39 cartes")
    # The next box to pay: highlighted in the panel and on the felt; the four paid before it crossed off.
    expect(page.locator(".payouts li.next")).to_have_attribute("data-seat", str(due[0]))
    expect(page.locator(".payouts li.next .state")).to_have_text("▶")
    expect(page.locator(".seat.next")).to_have_attribute("data-seat", str(due[0]))
    expect(page.locator(".payouts li.paid")).to_have_count(4)
    seat_1 = [p for p in state["settlement"]["payouts"] if p["seat"] == 1]
    pay = sum(p["net"] for p in seat_1 if p["net"] > 0)
    collect = -sum(p["net"] for p in seat_1 if p["net"] < 0)
    row = page.locator('.payouts li[data-seat="1"]')
    expect(row.locator(".pay")).to_have_text(euros(pay))
    expect(row.locator(".collect")).to_have_text(euros(collect) if collect else "—")
    expect(page.locator(".payouts .head").first).to_have_text("à payerà ramasser")
    page.get_by_role("button", name="Language").click()
    expect(page.locator(".refused")).to_have_text(f"✖End coup refused: {refusal['reason']} ×2")
    expect(page.locator(".flag", has_text="Card exposed").locator(".todo")).to_have_text(
        "→ Turn the card over, go on dealing")
    page.close()


def test_the_dealer_sees_the_cameras_verdict_on_each_payment(display):
    """Once « paiement terminé » is pressed for a seat: « payée ✓ », what is wrong, or « non vérifié » when the camera
    was offline. Before it, only chips beyond what the seat is owed: what is still to pay or to collect is no fault
    yet."""
    expect = playwright_api.expect
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")

    def row(seat: int):
        return page.locator(f'.payouts li[data-seat="{seat}"]')

    def verdicts(words: dict[str, str], amount) -> None:
        expect(row(6).locator(".fault")).to_have_text([f"{words['short']} {amount(123450)}",
                                                       f"{words['stake']} {amount(100000)}"])
        expect(row(6).locator(".figure")).to_have_count(0)  # only what to put right
        expect(row(6)).to_have_class("paid checked wrong")
        expect(row(5).locator(".fault")).to_have_text([f"{words['over']} {amount(100000)}"])
        expect(row(4).locator(".state")).to_have_text(words["right"])
        expect(row(2).locator(".state")).to_have_text(words["unchecked"])
        for seat in (4, 2):
            expect(row(seat)).to_have_class("paid checked")
            expect(row(seat).locator(".fault")).to_have_count(0)
            expect(row(seat).locator(".figure")).to_have_count(2)  # crossed off, what was to pay and to collect
        # Seat 1, being paid: already too much; seats 7 and 3 still hold the stakes to collect, no fault yet.
        expect(row(1).locator(".state")).to_have_text("▶")
        expect(row(1).locator(".fault")).to_have_text([f"{words['over']} {amount(100000)}"])
        expect(row(1).locator(".pay")).to_have_text(amount(41900))
        for seat in (7, 3):
            expect(row(seat).locator(".state")).to_have_text("")
            expect(row(seat).locator(".fault")).to_have_count(0)

    verdicts({"short": "manque", "stake": "mise à ramasser", "over": "trop payé", "right": "payée ✓",
              "unchecked": "non vérifié"}, euros)
    fault = row(6).locator(".fault").first
    assert fault.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(200, 16, 46)"  # the alerts' red
    page.get_by_role("button", name="Language").click()
    verdicts({"short": "short", "stake": "stake to collect", "over": "overpaid", "right": "paid ✓",
              "unchecked": "not checked"}, lambda cents: f"€{cents // 100:,}.{cents % 100:02d}")
    # Seat 1 before the dealer puts anything down: all it is owed is short, which is no fault yet. (The page's own
    # state, the stream closed first so that nothing comes over it.)
    page.evaluate("""() => {
      source.close();
      view.state.payments["1"] = {checked: false, watched: true, over: 0, short: 41900, not_collected: 0};
      render();
    }""")
    expect(row(1).locator(".fault")).to_have_count(0)
    expect(row(1).locator(".state")).to_have_text("▶")
    expect(row(6).locator(".fault")).to_have_count(2)
    page.close()


def euros(cents: int) -> str:
    units = f"{cents // 100:,}".replace(",", "\u202f")
    return f"{units},{cents % 100:02d} €"


def test_the_dealer_confirms_a_bet_the_camera_read_unsure(display, shown):
    """Seat 1's ante and bonus read unsure in the betting: one prompt for the seat, its rows marked, « rien ne va
    plus » refused; gone once the dealer keys the amounts. A referee fed bus events, its state shown as it goes."""
    rules = bonus_and_jackpot_rules()
    referee = Referee(rules)
    seq = 0

    def play(*bodies) -> None:
        nonlocal seq
        for body in bodies:
            seq += 1
            referee.handle(Envelope("test", seq, seq * 1_000_000, 1_700_000_000_000_000_000 + seq * 1_000_000, body))
        shown(referee.state())

    play(DealerOperation(format_operation(OpenSession(0, full_deck())).split(" ", 1)[1]),
         DealerOperation("sit seat=1"), DealerOperation("sit seat=3"), ChipsChanged(3, "ante", 1000),
         ChipsChanged(1, "ante", 6000, sure=False, at_least=True),  # a pile too tall to count
         ChipsChanged(1, "bonus", rules.bonus_stake_cents, sure=False),
         ButtonPressed("no_more_bets"))
    expect = playwright_api.expect
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")
    prompt = page.locator(".banner.confirm")
    seat = page.locator('.seat[data-seat="1"]')
    expect(prompt).to_have_count(1)
    expect(prompt).to_have_text("⌨À confirmer : place 1, ante — au moins 60,00 € ; bonus — lu 2,00 € "
                                "→ compter les jetons : toucher le bon montant, ou le saisirbonus 2,00 €")
    # the bonus read is offered to tap; the ante, a pile too tall to count, only to key
    expect(prompt.locator(".tap")).to_have_text(["bonus 2,00 €"])
    expect(seat.locator(".bet.unsure")).to_have_text(["à confirmerAnte60,00 €", "à confirmerBonus2,00 €"])
    expect(page.locator('.seat[data-seat="3"] .bet.unsure')).to_have_count(0)
    expect(page.locator(".refused")).to_contain_text("« rien ne va plus » refusé : place 1 ante, place 1 bonus")
    assert prompt.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 160, 0)"  # amber, not the red
    assert page.evaluate(OUTSIDE) == []
    page.screenshot(path=str(KEPT / "display-to-confirm-fr-1280x800.png"))
    page.get_by_role("button", name="Language").click()
    expect(prompt).to_have_text("⌨To confirm: seat 1, ante — at least €60.00; bonus — read €2.00 "
                                "→ count the chips: tap the right amount, or key itbonus €2.00")
    expect(seat.locator(".bet.unsure .tag")).to_have_text(["to confirm", "to confirm"])
    page.screenshot(path=str(KEPT / "display-to-confirm-en-1280x800.png"))
    # The dealer counts and keys the ante: the bonus is still to confirm.
    play(DealerOperation("bet seat=1 box=ante amount=85.00"))
    expect(prompt).to_have_text("⌨To confirm: seat 1, bonus — read €2.00 → count the chips: tap the right amount, or "
                                "key it€2.00")
    expect(seat.locator(".bet.unsure")).to_have_text(["to confirmBonus€2.00"])
    expect(seat.locator(".bet", has_text="Ante")).to_have_text("Ante€85.00")
    # And the bonus: nothing left to confirm, and « rien ne va plus » goes through.
    play(DealerOperation(f"bet seat=1 box=bonus amount={rules.bonus_stake_cents / 100:.2f}"))
    expect(prompt).to_have_count(0)
    expect(page.locator(".seat .bet.unsure, .seat .tag.confirm")).to_have_count(0)
    play(ButtonPressed("no_more_bets"))
    expect(page.locator("#phase")).to_have_text("Dealing")
    expect(page.locator(".refused")).to_have_count(0)
    page.close()


def handled(referee: Referee, bodies: list, first_seq: int = 1) -> None:
    """Bus events from publisher "test" into the referee, a millisecond apart."""
    for seq, body in enumerate(bodies, first_seq):
        referee.handle(Envelope("test", seq, seq * 1_000_000, 1_700_000_000_000_000_000 + seq * 1_000_000, body))


def test_a_noisy_shoe_link_and_a_flooding_sensor_are_shown_from_the_referees_state(display, shown):
    """Bus events into a referee, its state on the display: amber while the link is noisy or a sensor floods,
    gone once each is told calm."""
    referee = Referee(bonus_and_jackpot_rules())
    events = [ShoeLink(True, corrupt_frames=3, detail="noisy: corrupt_frame", noisy=True),
              SensorFlood("gpio:no_more_bets_pressed", flooding=True)]
    handled(referee, events)
    shown(referee.state())
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")
    playwright_api.expect(page.locator("#devices .status-warn")).to_have_text(
        ["⚠ Liaison du sabot bruitée", "⚠ Capteur emballé (gpio:no_more_bets_pressed)"])
    calm = [ShoeLink(True, corrupt_frames=250, detail="clean again after 250 faults"),
            SensorFlood("gpio:no_more_bets_pressed", flooding=False, dropped=400)]
    handled(referee, calm, first_seq=3)
    shown(referee.state())
    playwright_api.expect(page.locator("#devices .status-warn")).to_have_count(0)
    page.close()


def test_a_button_held_for_the_camera_is_said_until_the_camera_has_caught_up(display, shown):
    """The dealer pressed as he laid the last card: the display says the press is taken and the camera is finishing
    its reading, and says nothing more once the camera has caught up."""
    referee = Referee(bonus_and_jackpot_rules())
    events = [CameraStatus(True, "camera", answers_waits=True), ButtonPressed("no_more_bets")]
    handled(referee, events)
    shown(referee.state())
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")
    playwright_api.expect(page.locator("#devices .status-wait")).to_have_text(
        ["⏳ Bouton pris : la caméra finit de lire la table"])
    referee.handle(Envelope("vision", 1, 3_000_000, 1_700_000_000_003_000_000, CameraCaughtUp("test", 2)))
    shown(referee.state())
    playwright_api.expect(page.locator("#devices .status-wait")).to_have_count(0)
    page.close()


def test_a_bet_on_a_vacant_seat_is_not_dimmed_with_the_seat(display, shown):
    from refereeutil import event, opening_events

    referee = Referee(bonus_and_jackpot_rules())
    for body, t in [*opening_events(), (ChipsChanged(5, "ante", 1000), 10)]:
        referee.handle(event(body, t))
    assert [flag["kind"] for flag in referee.state()["flags"]] == ["bet_on_vacant_seat"]
    shown(referee.state())
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")
    seat = page.locator('.seat[data-seat="5"]')
    playwright_api.expect(seat).to_have_class("seat vacant flagged")
    assert seat.evaluate("box => getComputedStyle(box).opacity") == "1"
    assert page.locator('.seat[data-seat="6"]').evaluate("box => getComputedStyle(box).opacity") == "0.45"
    page.close()


def test_a_zone_in_doubt_while_paying_shows_no_figure_and_the_banner_says_what_it_should_hold(display, shown):
    state = display["state"] | {"to_confirm": TO_CONFIRM}
    line = next(p for p in state["settlement"]["payouts"] if p["seat"] == 1 and p["line"] == "raise")
    should_hold = 0 if line["outcome"] == "lose" else line["stake"] + max(line["net"], 0)
    shown(state)
    page = display["browser"].new_page(viewport={"width": 1920, "height": 1080})
    page.goto(display["url"] + "?lang=fr")
    banner = page.locator('.banner.confirm[data-seat="1"]')
    playwright_api.expect(banner).to_contain_text(f"relance — lu {euros_fr(123450)}, doit contenir "
                                                  f"{euros_fr(should_hold)}")
    row = page.locator('.seat[data-seat="1"] .bet.unsure')
    playwright_api.expect(row).to_have_text("à confirmerRelance")
    page.close()


def test_a_card_the_camera_lost_before_reading_it_is_asked_as_not_read(display, shown):
    shown(display["state"] | {"cards_to_confirm": [{"position": 6, "index": 4, "read": ""}]})
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{display['url']}?lang=fr")
    playwright_api.expect(page.locator(".banner.confirm")).to_have_text(
        "⌨À confirmer : place 6, carte 5 — non lue → lire la carte et la saisir")
    page.close()


def test_a_void_coups_alert_stays_into_the_next_coup_until_the_dealer_keys_ack(display, shown):
    """The chief voids a coup; the next coup's first card is dealt: the alert is still up, said to be an earlier
    coup's with the key that acknowledges it; once the dealer keys « ack », it is gone."""
    from tables import dealt_table, rules_for

    table = dealt_table(rules_for("fr-1959"), {1: "As Ad 7c 8h 9s", DEALER: "Ac Kc 4d 6d 8s"})
    table.declare_void(300, "échange d'informations")
    events = [body for _ms, _topic, body in bus_events(table.log)]
    # the chief settles the void coup (its bets returned), the dealer ends it, the next coup begins
    events += [DealerOperation("settle jackpot_meter=0.00"), ButtonPressed("payment_done"),
               ChipsChanged(1, "ante", 1000), ButtonPressed("no_more_bets"), CardPlaced(1, None, False)]
    referee = Referee(table.rules)
    handled(referee, events)
    state = referee.state()
    assert (state["coup"], state["phase"], state["refusals"]) == (2, "dealing", [])
    shown(state)
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")
    alert = page.locator(".flag.earlier")
    playwright_api.expect(alert).to_have_count(1)
    playwright_api.expect(alert).to_contain_text("coup précédentALERTE : Coup déclaré nul")
    playwright_api.expect(alert.locator(".ack")).to_have_text("(lue : touche ack)")
    assert alert.get_attribute("data-held") == "1"
    handled(referee, [DealerOperation("ack")], first_seq=len(events) + 1)
    assert referee.state()["closing_flags"] == []
    shown(referee.state())
    playwright_api.expect(page.locator(".flag.earlier")).to_have_count(0)
    page.close()


@pytest.mark.parametrize("width, height", [(1280, 800), (1920, 1080)])
def test_each_seats_results_and_where_it_stands_in_the_payment_are_read_from_2_m(display, shown, screenshots, width,
                                                                                height):
    """One alert, as most coups have at most: every line's result on the seat boxes at 32 px or more, and each box
    says where it stands: to pay (seat 1, next); paid, as the camera judged it (seat 4 right, seats 5 and 6 to put
    right, seat 2 unchecked, the camera off); or to collect (seats 3 and 7, owed nothing).
    The busiest coup's results come down to the seats' size only where they would push its alerts off the screen."""
    shown(display["state"] | {"flags": display["state"]["flags"][:1], "refusals": []})
    page = display["browser"].new_page(viewport={"width": width, "height": height})
    page.goto(f"{display['url']}?lang=fr")
    playwright_api.expect(page.locator(".flag")).to_have_count(1)
    standing = {n: page.locator(f'.seat[data-seat="{n}"] .standing').inner_text() for n in range(1, 8)}
    assert standing == {1: "à payer", 2: "payée", 3: "à ramasser", 4: "payée ✓", 5: "à corriger", 6: "à corriger",
                        7: "à ramasser"}
    sizes = page.locator(".seat .result > span:last-child").evaluate_all(
        "es => es.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert len(sizes) == len(display["state"]["settlement"]["payouts"]) and min(sizes) >= 32, sizes
    screenshots(page, f"display-seat-results-fr-{width}x{height}.png")
    assert page.evaluate(OUTSIDE) == []
    page.close()


def test_a_bet_read_unsure_is_offered_with_the_likeliest_amount_but_it(display, shown):
    """The camera reads seat 3's ante 10 € unsure, 20 € being the next likeliest (two chips stacked, read as one):
    the banner offers both; a pile too tall to count offers its lower bound alone."""
    from refereeutil import event, opening_events

    referee = Referee(bonus_and_jackpot_rules())
    for body, t in [*opening_events(), (ChipsChanged(3, "ante", 1000, sure=False, alternative=2000), 10),
                    (ChipsChanged(4, "ante", 6000, sure=False, at_least=True, alternative=7000), 11)]:
        referee.handle(event(body, t))
    assert [(c["seat"], c["alternative"]) for c in referee.state()["to_confirm"]] == [(3, 2000), (4, 0)]
    shown(referee.state())
    page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
    page.goto(display["url"] + "?lang=fr")
    playwright_api.expect(page.locator('.banner.confirm[data-seat="3"] .title')).to_have_text(
        f"À confirmer : place 3, ante — lu {euros_fr(1000)} ou {euros_fr(2000)}")
    playwright_api.expect(page.locator('.banner.confirm[data-seat="4"] .title')).to_have_text(
        f"À confirmer : place 4, ante — au moins {euros_fr(6000)}")
    page.close()


def test_where_the_house_spreads_stacked_bets_the_dealer_is_asked_to_have_one_spread(display, tmp_path):
    """``stacked_bets = "spread"``: a stack the camera could not count is asked spread, the zone tagged « à étaler »;
    a pile read unsure that is no stack is still asked to confirm; while paying, every zone is asked its amount."""
    from refereeutil import event, opening_events

    referee = Referee(bonus_and_jackpot_rules())
    for body, t in [*opening_events(), (ChipsChanged(3, "ante", 1000, sure=False, alternative=2000, stacked=True), 10),
                    (ChipsChanged(3, "bonus", 500, sure=False, stacked=True), 11),
                    (ChipsChanged(5, "ante", 3000, sure=False), 12)]:
        referee.handle(event(body, t))
    with serving(tmp_path, referee.state(), 'stacked_bets = "spread"') as (app, url):
        page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
        page.goto(url + "?lang=fr")
        spread = page.locator(".banner.spread")
        playwright_api.expect(spread).to_have_text(
            "↔Étalez la mise : place 3, ante ; bonus → faire étaler la pile par le joueur, la caméra la lira")
        playwright_api.expect(page.locator('.seat[data-seat="3"] .tag.confirm')).to_have_text(["à étaler"] * 2)
        playwright_api.expect(page.locator('.banner.confirm:not(.spread)')).to_have_text(
            f"⌨À confirmer : place 5, ante — lu {euros_fr(3000)} → compter les jetons : toucher le bon montant, ou le "
            f"saisir{euros_fr(3000)}")
        app.state.live.set_state(referee.state() | {"phase": "paying"})  # paying: he counts what he paid
        playwright_api.expect(page.locator(".banner.spread")).to_have_count(0)
        playwright_api.expect(page.locator(".banner.confirm")).to_have_count(2)
        page.close()
    with serving(tmp_path, referee.state()) as (app, url):  # the house rule by default: confirm
        page = display["browser"].new_page(viewport={"width": 1280, "height": 800})
        page.goto(url + "?lang=fr")
        playwright_api.expect(page.locator(".banner.spread")).to_have_count(0)
        playwright_api.expect(page.locator(".banner.confirm")).to_have_count(2)
        page.close()
