"""Helpers for the web tests: a table configuration in a temporary folder, a store filled with
simulated coups (one with a card dealt face up during the deal), and users."""

from __future__ import annotations

from pathlib import Path

import zmq
from busutil import endpoints, simulated
from tables import rules_for

from controller.bus.schema import CardPlaced, Envelope
from controller.config import TableConfig, parse_config
from controller.engine import Engine
from controller.store import EventStore, NewEvent

PASSWORD = "correct horse battery"


def fast_hasher():
    """Argon2id with small costs: the tests hash many passwords on a busy machine."""
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


def table_config(folder: Path) -> TableConfig:
    publish, subscribe, snapshot = endpoints(folder)
    text = f"""[table]
id = "table-test"
profile = "fr-2007"
minimum_cents = 1000
maximum_cents = 50000
bonus = true
card_purchase = true

[bus]
publish = "{publish}"
subscribe = "{subscribe}"
snapshot = "{snapshot}"

[store]
path = "var/table.sqlite"
evidence = "var/evidence"
"""
    source = folder / "table.toml"
    source.write_text(text)
    (folder / "var").mkdir(exist_ok=True)
    return parse_config(text, source)


def faulty_coups(config: TableConfig, seed: int = 5, coups: int = 2) -> list[tuple[str, Envelope]]:
    """Simulated coups whose first coup has a player's second card dealt face up (CARD_EXPOSED)."""
    rules = rules_for("fr-2007", bonus=True, card_purchase=True)
    assert rules.profile == config.rules.profile
    _reference, envelopes = simulated(rules, seed=seed, coups=coups)
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
