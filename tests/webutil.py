"""Helpers for the web tests: a table configuration in a temporary folder, a store filled with
simulated coups (one with a card dealt face up during the deal), coups with chosen cards, and users."""

from __future__ import annotations

import socket
from pathlib import Path

import zmq
from busutil import endpoints, simulated
from tables import rules_for

from controller.bus.schema import CardPlaced, Envelope
from controller.config import TableConfig, parse_config
from controller.engine import Engine
from controller.rules.cards import parse_cards
from controller.rules.operations import DEALER, Box
from controller.rules.table import HAND_SIZE, Table
from controller.sim.coups import STEP_MS
from controller.sim.events import bus_events
from controller.store import EventStore, NewEvent

PASSWORD = "correct horse battery"
#: Debian's browser, which Playwright drives by its path (its own download does not work here)
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fast_hasher():
    """Argon2id with small costs: the tests hash many passwords on a busy machine."""
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def table_config(folder: Path, extra: str = "", table_keys: str = "") -> TableConfig:
    """``extra``: more TOML after the configuration's tables (a ``[web]`` table, say); ``table_keys``: more keys
    of its ``[table]``."""
    publish, subscribe, snapshot = endpoints(folder)
    text = f"""[table]
id = "table-test"
profile = "fr-2007"
minimum_cents = 1000
maximum_cents = 50000
bonus = true
card_purchase = true
{table_keys}
[bus]
publish = "{publish}"
subscribe = "{subscribe}"
snapshot = "{snapshot}"

[store]
path = "var/table.sqlite"
evidence = "var/evidence"
""" + extra
    source = folder / "table.toml"
    source.write_text(text)
    (folder / "var").mkdir(exist_ok=True)
    return parse_config(text, source)


def scripted_coup(table: Table, players: list[str], dealer: str, bonus: bool = False) -> None:
    """One coup with chosen cards on an open table: the first len(players) seated players bet the minimum
    ante (and the bonus when asked), are dealt ``players`` (five cards each), all raise; the dealer shows
    ``dealer``; the coup is settled, paid and ended."""
    rules = table.rules
    t = table.log[-1].t

    def tick() -> int:
        nonlocal t
        t += STEP_MS
        return t

    seats = [n for n, seat in table.seats.items() if seat.occupied][:len(players)]
    assert len(seats) == len(players), "fewer seated players than hands"
    for seat in seats:
        table.place_bet(tick(), seat, Box.ANTE, rules.minimum_cents)
        if bonus:
            table.place_bet(tick(), seat, Box.BONUS, rules.bonus_stake_cents)
    table.no_more_bets(tick())
    table.shuffle(tick())
    table.offer_cut(tick(), seats[0], True)
    hands = {**{seat: parse_cards(cards) for seat, cards in zip(seats, players, strict=True)},
             DEALER: parse_cards(dealer)}
    for round_index in range(HAND_SIZE):
        for position in seats + [DEALER]:
            table.deal_card(tick(), position, hands[position][round_index],
                            position == DEALER and round_index == HAND_SIZE - 1)
    table.end_deal(tick())
    for seat in seats:
        table.raise_(tick(), seat, rules.minimum_cents * rules.profile.raise_multiple)
    table.show_dealer_hand(tick())
    table.settle(tick(), 1_000_000)
    for seat in table.payments_due():
        table.payment_done(tick(), seat)
    for seat in seats:
        for box, amount in table.seats[seat].bets.items():
            if amount:
                table.place_bet(tick(), seat, box, 0)
    table.end_coup(tick())


def faulty_coups(config: TableConfig, seed: int = 5, coups: int = 2,
                 scripted: tuple[dict, ...] = ()) -> list[tuple[str, Envelope]]:
    """Simulated coups whose first coup has a player's second card dealt face up (CARD_EXPOSED), then
    the ``scripted`` coups (keyword arguments of ``scripted_coup``)."""
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    assert rules.profile == config.rules.profile
    table, envelopes = simulated(rules, seed=seed, coups=coups)
    if scripted:
        for coup in scripted:
            scripted_coup(table, **coup)
        envelopes = [(topic, Envelope("sim", seq, ms * 1_000_000, 1_700_000_000_000_000_000 + ms * 1_000_000, body))
                     for seq, (ms, topic, body) in enumerate(bus_events(table.log), start=1)]
    seen = 0
    for index, (topic, envelope) in enumerate(envelopes):
        body = envelope.body
        if isinstance(body, CardPlaced) and body.position != 0:
            seen += 1
            if seen == 3:
                faulty = Envelope(envelope.publisher, envelope.seq, envelope.mono_ns, envelope.wall_ns,
                                  CardPlaced(body.position, body.card, True, body.order))
                envelopes[index] = (topic, faulty)
                break
    return envelopes


def recorded_store(config: TableConfig, envelopes: list[tuple[str, Envelope]]) -> dict:
    """Record the events as the engine would, let an engine replay them (which indexes flags and coups),
    and return its state."""
    import msgspec

    store = EventStore(config.store_path, config.evidence_dir)
    store.append([NewEvent(topic, env.publisher, env.seq, env.mono_ns, env.wall_ns,
                           msgspec.json.encode(env.body).decode()) for topic, env in envelopes])
    context = zmq.Context()
    publish, subscribe, snapshot = config.bus_publish, config.bus_subscribe, config.bus_snapshot
    engine = Engine(config.rules, store, context, subscribe, publish, snapshot)
    state = msgspec.to_builtins(engine.state())
    engine.close()
    store.close()
    context.destroy(linger=0)
    return state

#: what a browser sends with a form or a fetch from the app's own pages (TestClient's host is "testserver")
SAME_SITE = {"Origin": "http://testserver"}
