"""The main job: ``stud-table demo`` runs the real stack (proxy, engine, store, web) on the virtual table."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zmq

from controller.bus.keys import Keys, create_keys, keyed_client
from controller.sensors.gpio import TableSensors
from controller.sensors.shoe import ShoeLink
from controller.sensors.virtual import VirtualPinsServer, mock_factory
from controller.sim.devices import PtyShoe, VirtualPins

ROOT = Path(__file__).resolve().parents[2]


def test_demo_headless_plays_the_coups_through_the_real_stack_and_exits_0(tmp_path):
    result = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--coups", "3", "--headless",
                             "--camera", "direct", "--folder", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "croupier display: http://127.0.0.1:" in out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("coup ")] == ["coup 1", "coup 2",
                                                                                           "coup 3"]
    assert "3 coups played" in out
    store = tmp_path / "var" / "events.sqlite"
    db = sqlite3.connect(store)
    settled = db.execute("SELECT COUNT(*) FROM coups WHERE settlement IS NOT NULL").fetchone()[0]
    db.close()
    assert settled == 3
    check = subprocess.run([sys.executable, "-m", "controller.cli", "verify-log", str(store)], cwd=ROOT,
                           capture_output=True, text=True)
    assert check.returncode == 0 and "the chain is intact" in check.stdout


# --- the virtual table's wiring ---------------------------------------------------------------------------------


def _wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_sensors_process_left_from_an_earlier_demo_cannot_take_the_new_demos_shoe(tmp_path):
    """The pty's /dev/pts number is reused once the earlier demo's pty is closed; the sensors process opens the
    demo's own link to it, so one still retrying an earlier demo's port never reaches (nor locks) the new shoe."""
    for demo in ("earlier", "now"):
        (tmp_path / demo).mkdir()
    earlier = PtyShoe(tmp_path / "earlier" / "shoe")
    stale_events: list[str] = []
    stale = ShoeLink(str(earlier.link), lambda kind, body: stale_events.append(kind), backoff_initial=0.05,
                     backoff_max=0.1).start()
    try:
        assert _wait_until(lambda: stale.connected)
        earlier.close()
        assert _wait_until(lambda: "disconnected" in stale_events)
        shoe = PtyShoe(tmp_path / "now" / "shoe")
        try:
            counts: list[int] = []
            link = ShoeLink(str(shoe.link), lambda kind, body: counts.append(body["count"])
                            if kind == "card_drawn" else None).start()
            try:
                assert _wait_until(lambda: link.connected and shoe.status_requests == 1)
                link.reset_count()
                assert _wait_until(lambda: shoe.resets == 1)
                shoe.draw()
                assert _wait_until(lambda: counts == [1])
                time.sleep(0.5)  # several retries of the stale link
                assert not stale.connected and shoe.status_requests == 1
            finally:
                link.close()
        finally:
            shoe.close()
        assert not (tmp_path / "now" / "shoe").exists()
    finally:
        stale.close()


def test_with_keys_the_virtual_pins_answer_the_simulators_key_only(tmp_path):
    """The pins are the dealer's buttons: with the bus's keys, a client without keys, or with another role's key,
    gets no answer and presses nothing; the simulator's key does."""
    create_keys(tmp_path / "keys", simulator=True)
    keys = Keys(tmp_path / "keys")
    events: list[str] = []
    factory = mock_factory()
    sensors = TableSensors({"no_more_bets": {"pin": 17, "bounce_time": 0.005}},
                           lambda kind, body: events.append(kind), pin_factory=factory)
    context = zmq.Context()
    endpoint = f"ipc://{tmp_path}/pins.sock"
    server = VirtualPinsServer(context, endpoint, sensors, factory, keys)
    strangers = []
    for role in (None, "vision"):
        stranger = context.socket(zmq.REQ)
        stranger.setsockopt(zmq.LINGER, 0)
        if role is not None:
            keyed_client(stranger, keys, role, "sensors")
        stranger.connect(endpoint)
        stranger.send(b'{"device": "no_more_bets", "action": "press"}')
        strangers.append(stranger)
    pins = VirtualPins(context, endpoint, keys=keys)
    try:
        assert stat.S_IMODE((tmp_path / "pins.sock").stat().st_mode) == 0o600
        pins.act("no_more_bets", "press")
        assert not any(stranger.poll(1000) for stranger in strangers)
        assert _wait_until(lambda: len(events) == 1)
        time.sleep(0.2)
        assert events == ["no_more_bets_pressed"]
    finally:
        for stranger in strangers:
            stranger.close()
        pins.close()
        server.close()
        sensors.close()
        context.term()


def test_virtual_pins_press_a_button_once_through_the_debounce_and_refuse_unknown_requests(tmp_path):
    events: list[str] = []
    factory = mock_factory()
    sensors = TableSensors({"no_more_bets": {"pin": 17, "bounce_time": 0.005}, "cut_card": {"pin": 23}},
                           lambda kind, body: events.append(kind), pin_factory=factory)
    context = zmq.Context()
    server = VirtualPinsServer(context, f"ipc://{tmp_path}/pins.sock", sensors, factory)
    pins = VirtualPins(context, f"ipc://{tmp_path}/pins.sock")
    try:
        pins.act("no_more_bets", "press")
        pins.act("no_more_bets", "press")
        pins.act("cut_card", "on")
        assert sensors.snapshot() == {"no_more_bets": False, "cut_card": True}  # the press is over when it answers
        pins.act("cut_card", "off")
        assert _wait_until(lambda: len(events) == 4)
        assert events == ["no_more_bets_pressed", "no_more_bets_pressed", "cut_card_seen", "cut_card_cleared"]
        with pytest.raises(RuntimeError, match="no fitted input 'payment_done'"):
            pins.act("payment_done", "press")
        with pytest.raises(RuntimeError, match="unknown action 'hold'"):
            pins.act("no_more_bets", "hold")
    finally:
        pins.close()
        server.close()
        sensors.close()
        context.destroy(linger=0)


def test_virtual_pins_need_gpio_pins_in_the_configuration(tmp_path):
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "t"\nprofile = "fr-2007"\nminimum_cents = 1000\nmaximum_cents = 50000\n'
                      f'[bus]\npublish = "ipc://{tmp_path}/p"\nsubscribe = "ipc://{tmp_path}/s"\n')
    result = subprocess.run([sys.executable, "-m", "controller.cli", "sensors", "--config", str(config),
                             "--virtual-pins", f"ipc://{tmp_path}/pins.sock"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 2 and "--virtual-pins needs [gpio.*]" in result.stderr


@pytest.mark.parametrize(("dealer", "raised", "said"), [
    ("Ac Qd Js 9h 8c", False, "pas de jeu"),  # every player folded: nothing announced, the dealer still does not play
    ("Ac Qd Js 9h 8c", True, "Pas de jeu"),  # announced by the rules: said once
    ("Ac Kd 4s 3h 2c", False, "jeu"),
    ("Kc Kd 7h 5s 2h", True, "jeu · La banque gagne"),
])
def test_the_coup_line_says_whether_the_dealer_plays(dealer, raised, said) -> None:
    from tables import rules_for

    from controller.rules.cards import parse_cards
    from controller.rules.settlement import SeatInput, settle
    from controller.rules.summary import settlement_data
    from controller.sim.demo import coup_line

    hand = parse_cards("9c 9d 2h 5s Qc")
    seat = SeatInput(seat=3, ante=1000, raise_amount=2000 if raised else 0, folded=not raised, bonus=0, jackpot=0,
                     cards=hand, first_five=hand)
    settlement = settlement_data(settle(rules_for("fr-2007"), [seat], parse_cards(dealer)))
    line = coup_line(7, settlement)
    assert line.startswith(f"coup 7: croupier {settlement['dealer_hand']} · {said} · banque ")
    void = settlement_data(settle(rules_for("fr-2007"), [seat], None, coup_void=True))
    assert " · Coup nul · " in coup_line(8, void) and "jeu" not in coup_line(8, void)
    folded = SeatInput(seat=3, ante=1000, raise_amount=0, folded=True, bonus=0, jackpot=0, cards=hand, first_five=hand)
    unseen = settlement_data(settle(rules_for("fr-2007"), [folded], None))  # all folded, the dealer's cards unseen
    assert coup_line(9, unseen) == "coup 9: croupier - · banque 10.00 €"
