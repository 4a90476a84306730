"""The review's « saisies du croupier »: each amount and card the dealer keyed, beside the camera's last reading of
that zone or card, a difference marked (``controller.web.dealer_entries``), through the API and the coup's page."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from webutil import PASSWORD, SAME_SITE, fast_hasher, faulty_coups, recorded_store, table_config

from controller.bus.schema import ButtonPressed, CardIdentified, CardPlaced, ChipsChanged, DealerOperation, Envelope
from controller.rules.french import euros_fr
from controller.rules.history import format_money
from controller.web.app import create_app


def _after(envelopes: list[tuple[str, Envelope]], index: int, topic: str, body, publisher: str,
           seq: int) -> None:
    """Insert an event just after ``envelopes[index]``, a nanosecond later, from another publisher."""
    before = envelopes[index][1]
    envelopes.insert(index + 1, (topic, Envelope(publisher, seq, before.mono_ns + 1, before.wall_ns + 1, body)))


def _doubted_coup(config):
    """The fixture's coups, the last one changed: the camera reads an ante 5 € short and unsure, and the dealer
    keys the true amount; it cannot tell a player's first card, reads it unsure as another, and the dealer names
    the true one. Returns the events, the seat and its ante, and the card's position and its true card."""
    envelopes = faulty_coups(config)
    last_no_more_bets = max(i for i, (_t, e) in enumerate(envelopes) if e.body == ButtonPressed("no_more_bets"))
    ante_at = max(i for i, (_t, e) in enumerate(envelopes[:last_no_more_bets])
                  if isinstance(e.body, ChipsChanged) and e.body.box == "ante" and e.body.amount)
    topic, envelope = envelopes[ante_at]
    seat, ante = envelope.body.seat, envelope.body.amount
    envelopes[ante_at] = (topic, Envelope(envelope.publisher, envelope.seq, envelope.mono_ns, envelope.wall_ns,
                                          ChipsChanged(seat, "ante", ante - 500, sure=False)))
    keyed = DealerOperation(f"bet seat={seat} box=ante amount={format_money(ante)}")
    _after(envelopes, ante_at, "dealer.keypad", keyed, "keypad-test", 1)
    card_at = next(i for i, (_t, e) in enumerate(envelopes) if i > last_no_more_bets
                   and isinstance(e.body, CardPlaced) and e.body.position != 0)
    topic, envelope = envelopes[card_at]
    position, card = envelope.body.position, envelope.body.card
    misread = "2c" if card != "2c" else "3c"
    envelopes[card_at] = (topic, Envelope(envelope.publisher, envelope.seq, envelope.mono_ns, envelope.wall_ns,
                                          CardPlaced(position, None, envelope.body.face_up, envelope.body.order)))
    _after(envelopes, card_at, "vision.card", CardIdentified(position, 0, misread, sure=False), "vision-test", 1)
    _after(envelopes, card_at + 1, "dealer.keypad",
           DealerOperation(f"identify position={position} index=1 card={card}"), "keypad-test", 2)
    return envelopes, seat, ante, position, card, misread


@pytest.fixture(scope="module")
def doubted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("table")
    config = table_config(folder)
    envelopes, seat, ante, position, card, misread = _doubted_coup(config)
    recorded_store(config, envelopes)
    app = create_app(config, follower_factory=None, review_db_path=folder / "review.sqlite",
                     key_path=folder / "table.key", password_hasher=fast_hasher())
    app.state.reviews.create_user("sam", "surveillance", PASSWORD)
    app.state.reviews.create_user("sue", "supervisor", PASSWORD)
    with TestClient(app, headers=SAME_SITE) as client:
        assert client.post("/api/login", json={"username": "sam", "password": PASSWORD}).status_code == 200
        yield client, seat, ante, position, card, misread


def test_each_entry_of_the_dealer_stands_beside_the_cameras_reading(doubted):
    client, seat, ante, position, card, misread = doubted
    last = client.get("/api/coups").json()[-1]["number"]
    coup = client.get(f"/api/coups/{last}").json()
    entries = {entry["where"]: entry for entry in coup["dealer_entries"]}
    assert set(entries) == {f"place {seat}, ante", f"place {position}, carte 1"}
    amount = entries[f"place {seat}, ante"]
    assert (amount["camera"], amount["camera_sure"], amount["keyed"]) == (euros_fr(ante - 500), False, euros_fr(ante))
    assert amount["asked"] and amount["differs"]
    named = entries[f"place {position}, carte 1"]
    assert (named["camera"], named["camera_sure"], named["keyed"]) == (misread, False, card)
    assert named["asked"] and named["differs"]
    assert coup["table"]["seats"][str(seat)]["fixed_bets"]["ante"] == ante  # the table went by the dealer's word
    page = client.get(f"/review/coups/{last}").text
    assert "Saisies du croupier" in page and page.count("différente de la caméra") == 2
    assert f"{euros_fr(ante - 500)} (incertaine)" in page


def test_a_coup_without_a_doubt_lists_no_entry(doubted):
    client = doubted[0]
    first = client.get("/api/coups").json()[0]["number"]
    assert client.get(f"/api/coups/{first}").json()["dealer_entries"] == []
    assert "Aucune saisie." in client.get(f"/review/coups/{first}").text


def test_the_signed_report_carries_the_entries(doubted):
    client, seat = doubted[0], doubted[1]
    assert client.post("/api/login", json={"username": "sue", "password": PASSWORD}).status_code == 200
    last = client.get("/api/coups").json()[-1]["number"]
    report = client.get(f"/api/coups/{last}/report").json()["report"]
    assert [entry["where"] for entry in report["dealer_entries"] if entry["differs"]][0] == f"place {seat}, ante"
