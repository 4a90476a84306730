"""The review's « saisies du croupier »: each amount and card the dealer keyed, beside the camera's last reading of
that zone or card, a difference marked (``controller.web.dealer_entries``), through the API and the coup's page."""

from __future__ import annotations

import pytest
from refereeutil import dealt_events, event
from starlette.testclient import TestClient
from tables import rules_for
from webutil import PASSWORD, SAME_SITE, fast_hasher, faulty_coups, recorded_store, table_config

from controller.bus.schema import ButtonPressed, CardIdentified, CardPlaced, ChipsChanged, DealerOperation, Envelope
from controller.referee import Referee
from controller.rules.french import euros_fr
from controller.rules.history import format_money
from controller.web.app import create_app
from controller.web.dealer_entries import DealerEntries


def _after(envelopes: list[tuple[str, Envelope]], index: int, topic: str, body, publisher: str,
           seq: int) -> None:
    """Insert an event just after ``envelopes[index]``, a nanosecond later, from another publisher."""
    before = envelopes[index][1]
    envelopes.insert(index + 1, (topic, Envelope(publisher, seq, before.mono_ns + 1, before.wall_ns + 1, body)))


def _replace(envelopes: list[tuple[str, Envelope]], index: int, body) -> None:
    topic, envelope = envelopes[index]
    envelopes[index] = (topic, Envelope(envelope.publisher, envelope.seq, envelope.mono_ns, envelope.wall_ns, body))


def _doubted_coup(config):
    """The fixture's coups, the last one changed. The camera reads an ante 5 € short and unsure: the dealer keys the
    true amount. It cannot tell a player's first card and reads it unsure as another: the dealer names the true one
    while dealing. The same for the dealer's first card, named at the showdown (which settles the coup). Once the
    coup is settled it reads the ante's zone unsure: the dealer keys what lies there, the same amount. Returns the
    events and what the review should list, as (zone, keyed, camera, asked, differs)."""
    envelopes = faulty_coups(config, coups=3)
    # coup 1: the dealer names again, unasked, the card a player bought, as the camera read it when it was dealt
    buy_at = next(i for i, (_t, e) in enumerate(envelopes)
                  if isinstance(e.body, DealerOperation) and e.body.line.startswith("buy "))
    buyer, discard = (int(part.split("=")[1]) for part in envelopes[buy_at][1].body.line.split()[1:3])
    bought_at = next(i for i, (_t, e) in enumerate(envelopes)
                     if i > buy_at and isinstance(e.body, CardPlaced) and e.body.position == buyer)
    bought = envelopes[bought_at][1].body.card
    _after(envelopes, bought_at, "dealer.keypad",
           DealerOperation(f"identify position={buyer} index={discard} card={bought}"), "keypad-test", 6)
    last_no_more_bets = max(i for i, (_t, e) in enumerate(envelopes) if e.body == ButtonPressed("no_more_bets"))
    ante_at = max(i for i, (_t, e) in enumerate(envelopes[:last_no_more_bets])
                  if isinstance(e.body, ChipsChanged) and e.body.box == "ante" and e.body.amount)
    seat, ante = envelopes[ante_at][1].body.seat, envelopes[ante_at][1].body.amount
    _replace(envelopes, ante_at, ChipsChanged(seat, "ante", ante - 500, sure=False))
    keyed = DealerOperation(f"bet seat={seat} box=ante amount={format_money(ante)}")
    _after(envelopes, ante_at, "dealer.keypad", keyed, "keypad-test", 1)
    expected = [(f"place {seat}, ante", euros_fr(ante), euros_fr(ante - 500), True, True)]
    # a bonus read sure but off its stake: the table holds it all the same, and the dealer keys the stake
    bonus_at = max(i for i, (_t, e) in enumerate(envelopes[:last_no_more_bets + 1])
                   if isinstance(e.body, ChipsChanged) and e.body.box == "bonus" and e.body.amount)
    bonus_seat, stake = envelopes[bonus_at][1].body.seat, envelopes[bonus_at][1].body.amount
    _replace(envelopes, bonus_at, ChipsChanged(bonus_seat, "bonus", stake + 100))
    keyed = DealerOperation(f"bet seat={bonus_seat} box=bonus amount={format_money(stake)}")
    _after(envelopes, bonus_at, "dealer.keypad", keyed, "keypad-test", 7)
    expected.append((f"place {bonus_seat}, bonus", euros_fr(stake), euros_fr(stake + 100), True, True))

    def first_card(of_dealer: bool) -> tuple[int, int, str, str]:
        at = next(i for i, (_t, e) in enumerate(envelopes) if i > last_no_more_bets
                  and isinstance(e.body, CardPlaced) and (e.body.position == 0) == of_dealer)
        body = envelopes[at][1].body
        misread = "2d" if body.card != "2d" else "3d"
        _replace(envelopes, at, CardPlaced(body.position, None, body.face_up, body.order))
        _after(envelopes, at, "vision.card", CardIdentified(body.position, 0, misread, sure=False), "vision-test",
               1 if of_dealer else 2)
        return at + 1, body.position, body.card, misread

    read_at, position, card, misread = first_card(of_dealer=False)
    _after(envelopes, read_at, "dealer.keypad", DealerOperation(f"identify position={position} index=1 card={card}"),
           "keypad-test", 2)
    expected.append((f"place {position}, carte 1", card, misread, True, True))
    # a card the camera read sure as it was dealt, named again by the dealer unasked: the same card
    seen_at = next(i for i, (_t, e) in enumerate(envelopes) if i > read_at and isinstance(e.body, CardPlaced)
                   and e.body.card and e.body.position not in (0, position))
    seen = envelopes[seen_at][1].body
    _after(envelopes, seen_at, "dealer.keypad",
           DealerOperation(f"identify position={seen.position} index=1 card={seen.card}"), "keypad-test", 5)
    expected.append((f"place {seen.position}, carte 1", seen.card, seen.card, False, False))
    _read_at, _dealer, dealer_card, dealer_misread = first_card(of_dealer=True)
    shown = next(i for i, (_t, e) in enumerate(envelopes)
                 if i > last_no_more_bets and e.body == DealerOperation("show-dealer"))
    _after(envelopes, shown, "dealer.keypad", DealerOperation(f"identify position=0 index=1 card={dealer_card}"),
           "keypad-test", 3)
    _after(envelopes, shown + 1, "vision.chips", ChipsChanged(seat, "ante", ante, sure=False), "vision-test", 3)
    _after(envelopes, shown + 2, "dealer.keypad",
           DealerOperation(f"paying seat={seat} zone=ante amount={format_money(ante)}"), "keypad-test", 4)
    expected += [("croupier, carte 1", dealer_card, dealer_misread, True, True),
                 (f"place {seat}, ante", euros_fr(ante), euros_fr(ante), True, False)]
    return envelopes, seat, ante, expected, (f"place {buyer}, carte {discard}", bought, bought, False, False)


@pytest.fixture(scope="module")
def doubted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("table")
    config = table_config(folder)
    envelopes, seat, ante, expected, bought = _doubted_coup(config)
    recorded_store(config, envelopes)
    app = create_app(config, follower_factory=None, review_db_path=folder / "review.sqlite",
                     key_path=folder / "table.key", password_hasher=fast_hasher())
    app.state.reviews.create_user("sam", "surveillance", PASSWORD)
    app.state.reviews.create_user("sue", "supervisor", PASSWORD)
    with TestClient(app, headers=SAME_SITE) as client:
        assert client.post("/api/login", json={"username": "sam", "password": PASSWORD}).status_code == 200
        yield client, seat, ante, expected, bought


def test_each_entry_of_the_dealer_stands_beside_the_cameras_reading(doubted):
    client, seat, ante, expected, _bought = doubted
    last = client.get("/api/coups").json()[-1]["number"]
    coup = client.get(f"/api/coups/{last}").json()
    assert [(e["where"], e["keyed"], e["camera"], e["asked"], e["differs"]) for e in coup["dealer_entries"]] == expected
    assert [entry["camera_sure"] for entry in coup["dealer_entries"]] == [False, True, False, True, False, False]
    assert all(entry["coup"] == last for entry in coup["dealer_entries"])
    assert coup["settled"] and coup["table"]["settlement"] is not None  # the dealer's card named: the coup settled
    assert coup["table"]["seats"][str(seat)]["fixed_bets"]["ante"] == ante  # the table went by the dealer's word
    page = client.get(f"/review/coups/{last}").text
    assert "Saisies du croupier" in page and page.count("différente de la caméra") == 4
    assert page.count("lecture sûre hors des règles des mises") == 1
    assert f"{euros_fr(ante - 500)} (incertaine)" in page


def test_a_difference_from_a_lower_bound_is_an_amount_below_it():
    from controller.web.dealer_entries import _Reading

    at_least = _Reading(2500, False, 1, at_least=True)
    assert at_least.text == "au moins 25,00 €"
    assert not at_least.differs(2500) and not at_least.differs(3000) and at_least.differs(2000)
    assert _Reading(2500, True, 1).differs(3000) and not _Reading(2500, True, 1).differs(2500)
    assert _Reading("Kh", True, 1).differs("Kd") and not _Reading("Kh", True, 1).differs("Kh")


def test_a_bought_card_named_again_is_compared_with_the_bought_card(doubted):
    """The camera's reading of a bought card is filed in the discard's place, not after the hand's last card."""
    client, bought = doubted[0], doubted[4]
    first = client.get("/api/coups").json()[0]["number"]
    entries = client.get(f"/api/coups/{first}").json()["dealer_entries"]
    assert [(e["where"], e["keyed"], e["camera"], e["asked"], e["differs"]) for e in entries] == [bought]


def test_a_coup_without_a_doubt_lists_no_entry(doubted):
    client = doubted[0]
    second = client.get("/api/coups").json()[1]["number"]
    assert client.get(f"/api/coups/{second}").json()["dealer_entries"] == []
    assert "Aucune saisie." in client.get(f"/review/coups/{second}").text


def test_the_signed_report_carries_the_entries(doubted):
    client, seat = doubted[0], doubted[1]
    assert client.post("/api/login", json={"username": "sue", "password": PASSWORD}).status_code == 200
    last = client.get("/api/coups").json()[-1]["number"]
    report = client.get(f"/api/coups/{last}/report").json()["report"]
    assert [entry["where"] for entry in report["dealer_entries"] if entry["differs"]][0] == f"place {seat}, ante"


def test_an_ante_the_dealer_counted_because_of_a_raise_shows_beside_the_cameras_reading():
    """The camera read a 50 € ante as its top 25 € chip, sure; the raise was not twice that, so the dealer counted
    the ante (``ConfirmAnte``), then the raise again, asked: surveillance sees his count beside the camera's
    reading, the difference marked."""
    referee, entries = Referee(rules_for("fr-1959")), DealerEntries()
    events = [*dealt_events(2500), (DealerOperation("raise seat=1 amount=100.00"), 31),
              (DealerOperation("bet seat=1 box=ante amount=50.00"), 32),
              (DealerOperation("raise seat=1 amount=100.00"), 33)]
    for event_id, (body, t) in enumerate(events, 1):
        entries.play(referee, event_id, None, event(body, t))
    shown = [(e["where"], e["keyed"], e["camera"], e["camera_sure"], e["asked"], e["differs"]) for e in entries.entries
             if "ante" in e["where"] or "relance" in e["where"]]
    assert shown == [("place 1, ante", euros_fr(5000), euros_fr(2500), True, True, True),
                     ("place 1, relance", euros_fr(10000), None, None, True, False)]
