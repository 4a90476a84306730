"""A button press held until the camera has caught up with it: a dealer presses « fin de donne » as he lays the last
card, before the camera has reported it."""

from __future__ import annotations

import msgspec
import zmq
from busutil import endpoints, running_engine, send, wait_until
from refereeutil import event, opening_events
from tables import rules_for

from controller import engine as engine_module
from controller.bus.proxy import Proxy
from controller.bus.schema import (
    TOPIC_BODIES,
    AnyBody,
    ButtonPressed,
    CameraCaughtUp,
    CameraStatus,
    CameraWaitOver,
    CardPlaced,
    ChipsChanged,
    DealerOperation,
    Envelope,
)
from controller.referee import Referee
from controller.rules.cards import full_deck
from controller.rules.flags import FlagKind
from controller.rules.operations import Box, EndDeal, Fold, NoMoreBets
from controller.rules.table import Phase
from controller.store import EventStore

ANSWERING = CameraStatus(True, "camera", answers_waits=True)


def press(button: str, ms: int):
    return event(ButtonPressed(button), ms)


def caught_up(ms: int, seq: int):
    return event(CameraCaughtUp("test", seq), ms)


def betting(camera: CameraStatus = ANSWERING, purchase: bool = False) -> Referee:
    """Seats 1 and 3 taken, the camera online; seat 1's ante seen. ``purchase``: at the French rule of 2007, the
    card purchase offered (seed 002)."""
    referee = Referee(rules_for("fr-2007", card_purchase=True) if purchase else rules_for("fr-1959"))
    for body, t in [*opening_events(), (camera, 5), (ChipsChanged(1, "ante", 1000), 10)]:
        assert referee.handle(event(body, t)).refused is None, body
    return referee


def deal_all_but_the_last(referee: Referee, start: int) -> int:
    """Bets closed, shuffled, cut; the camera sees nine cards of ten dealt (seat 1, the dealer, in turn); the next
    event's time."""
    for body, t in [(DealerOperation("shuffle shuffles=5 cuts=2"), start),
                    (DealerOperation("cut seat=1 accepted=yes"), start + 1)]:
        assert referee.handle(event(body, t)).refused is None, body
    for t in range(start + 2, start + 11):
        position = 1 if t % 2 == start % 2 else 0
        assert referee.handle(event(CardPlaced(position, None, False), t)).refused is None
    return start + 11


def test_end_of_deal_pressed_before_the_camera_reported_the_last_card_is_played_after_it():
    referee = betting()
    held = referee.handle(press("no_more_bets", 11))
    assert held.awaits_camera and held.operation is None and referee.table.phase is Phase.BETTING
    released = referee.handle(caught_up(12, 11))
    assert [type(outcome.operation) for outcome in released.released] == [NoMoreBets]
    t = deal_all_but_the_last(referee, 20)
    assert referee.handle(press("end_of_deal", t)).awaits_camera
    assert referee.state()["awaiting_camera"] == [["test", t]]
    last = referee.handle(event(CardPlaced(0, str(full_deck()[0]), True), t + 1))  # the dealer's card, face up
    assert last.refused is None and referee.table.phase is Phase.DEALING
    outcome = referee.handle(caught_up(t + 2, t))
    assert [type(each.operation) for each in outcome.all()] == [EndDeal, type(None)]
    assert outcome.released[0].refused is None and not outcome.released[0].flags
    assert referee.table.phase is Phase.DECISIONS and not referee.table.coup.void
    assert referee.state()["awaiting_camera"] == []


def test_the_same_press_played_at_once_voids_the_coup_for_the_card_not_yet_reported():
    """What the wait prevents: a camera that does not answer waits is never waited for."""
    referee = betting(CameraStatus(True, "camera"))
    assert isinstance(referee.handle(press("no_more_bets", 11)).operation, NoMoreBets)
    t = deal_all_but_the_last(referee, 20)
    outcome = referee.handle(press("end_of_deal", t))
    assert isinstance(outcome.operation, EndDeal)
    assert FlagKind.WRONG_CARD_COUNT in {flag.kind for flag in outcome.flags}


def test_a_bet_the_camera_reports_after_the_press_but_saw_before_it_is_a_bet_not_a_late_one():
    referee = betting()
    referee.handle(press("no_more_bets", 11))
    assert referee.handle(event(ChipsChanged(3, "ante", 1000), 12)).refused is None
    outcome = referee.handle(caught_up(13, 11))
    assert isinstance(outcome.released[0].operation, NoMoreBets) and not outcome.released[0].flags
    assert referee.table.seats[3].fixed[Box.ANTE] == 1000 and referee.table.seats[3].in_play


def test_presses_are_released_in_order_up_to_the_one_caught_up_with():
    referee = betting()
    referee.handle(press("no_more_bets", 11))
    referee.handle(press("end_of_deal", 12))  # refused once played: no card dealt
    assert referee.state()["awaiting_camera"] == [["test", 11], ["test", 12]]
    assert referee.handle(caught_up(13, 99)).released == []  # a press not held: nothing let through
    outcome = referee.handle(caught_up(14, 12))
    assert [type(each.operation) for each in outcome.released] == [NoMoreBets, EndDeal]
    assert outcome.released[1].refused is not None and referee.awaiting == []


def test_the_engine_giving_up_on_the_camera_plays_the_press():
    referee = betting()
    referee.handle(press("no_more_bets", 11))
    outcome = referee.handle(event(CameraWaitOver("test", 11), 3011))
    assert isinstance(outcome.released[0].operation, NoMoreBets) and referee.table.phase is Phase.DEALING


def test_a_camera_going_offline_lets_every_press_through_as_pressed_while_it_watched():
    referee = betting()
    referee.handle(press("no_more_bets", 11))
    outcome = referee.handle(event(CameraStatus(False, "no frame"), 12))
    assert isinstance(outcome.released[0].operation, NoMoreBets)
    assert referee.devices.camera_online is False and not referee.devices.camera_answers_waits
    assert isinstance(referee.handle(press("end_of_deal", 13)).operation, EndDeal)  # not held: nothing watches


def test_a_press_held_at_a_coups_end_goes_into_the_checkpoint_and_is_still_held_after_it():
    referee = Referee(rules_for("fr-1959"))
    referee.handle(event(ANSWERING, 1))
    referee.handle(press("no_more_bets", 11))  # refused once played: the session is not open
    checkpoint = referee.checkpoint()  # the table closed: between coups
    resumed = Referee.resume(rules_for("fr-1959"), checkpoint)
    assert resumed.state()["awaiting_camera"] == [["test", 11]]
    released = resumed.handle(caught_up(12, 11)).released
    assert isinstance(released[0].operation, NoMoreBets) and released[0].refused and resumed.awaiting == []


def test_the_engine_records_when_it_gave_up_on_the_camera_and_a_replay_releases_the_press_there(
        tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "CAMERA_WAIT_S", 0.3)
    publish, subscribe, snapshot = endpoints(tmp_path)
    context = zmq.Context()
    proxy = Proxy(publish, subscribe)
    rules = rules_for("fr-1959")
    bodies = [*opening_events(), (ANSWERING, 5), (ChipsChanged(1, "ante", 1000), 10),
              (ButtonPressed("no_more_bets"), 11)]
    envelopes = [(topic_of(body), event(body, t)) for body, t in bodies]
    try:
        with running_engine(context, publish, subscribe, snapshot, rules, tmp_path / "events.sqlite") as (
                engine, store, raw):
            assert wait_until(lambda: (send(raw, *envelopes[0]), store.last_id >= 1)[1], timeout=10)
            for envelope in envelopes[1:]:
                send(raw, *envelope)
            assert wait_until(lambda: engine.referee.table.phase is Phase.DEALING, timeout=10)
            live = msgspec.to_builtins(engine.state())
            topics = [topic for (topic,) in store.db.execute("SELECT topic FROM events ORDER BY id")]
        assert topics[-2:] == ["sensor.button", "core.camera_wait"]
        replayed = Referee(rules)
        for stored in EventStore(tmp_path / "events.sqlite").events():
            replayed.handle(Envelope(stored.publisher, stored.seq, stored.mono_ns, stored.wall_ns,
                                     msgspec.json.decode(stored.body, type=AnyBody)))
        assert replayed.table.phase is Phase.DEALING and replayed.awaiting == []
        assert msgspec.to_builtins(replayed.state())["seats"] == live["seats"]
    finally:
        proxy.close()
        context.destroy(linger=0)


def topic_of(body) -> str:
    return next(topic for topic, kinds in TOPIC_BODIES.items() if type(body) in kinds)


def test_what_the_dealer_keys_after_a_held_press_waits_behind_it():
    """He presses « fin de donne » and keys seat 1's fold at once: the fold is played after the end of the deal,
    not refused before it; what the camera reports meanwhile is not held."""
    referee = betting()
    referee.handle(press("no_more_bets", 11))
    referee.handle(caught_up(12, 11))
    t = deal_all_but_the_last(referee, 20)
    referee.handle(press("end_of_deal", t))
    assert referee.handle(event(DealerOperation("fold seat=1"), t + 1)).awaits_camera
    assert referee.state()["awaiting_camera"] == [["test", t]]  # the camera is asked about presses only
    assert referee.handle(event(CardPlaced(0, str(full_deck()[0]), True), t + 2)).refused is None
    outcome = referee.handle(caught_up(t + 3, t))
    assert [type(each.operation) for each in outcome.released] == [EndDeal, Fold]
    assert all(each.refused is None for each in outcome.released) and referee.awaiting == []


def deciding_with_purchase() -> tuple[Referee, int]:
    """At the French rule of 2007 (the purchase offered), seat 1 dealt and deciding, each press caught up with: the
    referee and the time of the deal's end."""
    referee = betting(purchase=True)
    referee.handle(press("no_more_bets", 11))
    referee.handle(caught_up(12, 11))
    t = deal_all_but_the_last(referee, 20)
    referee.handle(press("end_of_deal", t))
    referee.handle(event(CardPlaced(0, str(full_deck()[0]), True), t + 1))
    referee.handle(caught_up(t + 2, t))
    return referee, t


def test_a_purchase_keyed_as_the_player_lays_his_raise_waits_for_the_camera_to_report_the_raise():
    """A player lays his raise and asks for a card in one breath; the dealer keys the purchase before the camera
    has reported the raise. Played at once it would be refused (no raise); it is held like a button."""
    referee, t = deciding_with_purchase()
    assert referee.table.phase is Phase.DECISIONS
    held = referee.handle(event(DealerOperation("buy seat=1 discard=2 price=10.00"), t + 3))
    assert held.awaits_camera and referee.state()["awaiting_camera"] == [["test", t + 3]]
    assert referee.handle(event(ChipsChanged(1, "raise", 2000), t + 4)).refused is None
    outcome = referee.handle(caught_up(t + 5, t + 3))
    assert [type(each.operation).__name__ for each in outcome.released] == ["BuyCard"]
    assert outcome.released[0].refused is None and referee.table.seats[1].discard == 1


def a_purchase_refused_for_want_of_the_raise() -> tuple[Referee, int]:
    """Seat 1 keys a purchase, the camera's answer comes before its raise: refused. The referee, the next time."""
    referee, t = deciding_with_purchase()
    referee.handle(event(DealerOperation("buy seat=1 discard=2 price=10.00"), t + 3))
    refused = referee.handle(caught_up(t + 4, t + 3)).released[0]
    assert refused.refused is not None and "has not raised" in refused.refused
    return referee, t + 5


def test_a_purchase_keyed_before_the_raise_it_goes_with_is_played_once_the_raise_is_seen():
    """The raise laid just after the purchase is keyed (after the frame its wait is measured from) is reported after
    the camera's answer: the purchase is refused for want of a raise, then played once the raise comes."""
    referee, t = a_purchase_refused_for_want_of_the_raise()
    outcome = referee.handle(event(ChipsChanged(1, "raise", 2000), t))
    assert [(type(each.operation).__name__, each.refused) for each in outcome.all()] == [
        ("Raise", None), ("BuyCard", None)]
    assert referee.table.seats[1].discard == 1 and referee.buys_before_raise == {}
    assert referee.state()["refusals"] == []  # the refusal shown a moment is gone with its reason


def test_a_purchase_refused_for_want_of_the_raise_is_forgotten_when_the_seat_folds():
    referee, t = a_purchase_refused_for_want_of_the_raise()
    outcome = referee.handle(event(DealerOperation("fold seat=1"), t))
    assert [type(each.operation).__name__ for each in outcome.all()] == ["Fold"]
    assert referee.buys_before_raise == {} and referee.table.seats[1].discard is None
