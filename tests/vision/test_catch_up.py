"""The camera tells the engine once it has caught up with a button press: every change begun before it reported."""

from __future__ import annotations

from controller.bus.schema import CardIdentified, CardPlaced, ChipsChanged
from vision.catch_up import CatchUp
from vision.tracker import Observation, Tracker, TrackerConfig

CONFIG = TrackerConfig(steady_frames=4, steady_ms=300, gone_frames=6, gone_ms=1500, forget_ms=500, match_mm=20)
BACK = Observation(1, "cards", "card_back", "BACK", 100.0, 400.0, 0.9)
ANTE = Observation(3, "ante", "chip", 1000, 100.0, 600.0, 0.9)


def play(tracker: Tracker, catch_up: CatchUp, frames: list[list[Observation]], t: int = 0,
         step_ms: int = 100, covered: dict[int, list[tuple[int, str]]] | None = None) -> list[tuple[int, object]]:
    """Each frame tracked then read for the presses, as the vision process does: (frame time, event or caught-up
    press) in the order told. ``covered``: the zones under a hand, by frame time."""
    told = []
    for observations in frames:
        events = tracker.track_timed(t, observations, (covered or {}).get(t, []))
        told += [(t, what) for what in catch_up.frame_read(t, tracker.undecided_since(), events)]
        t += step_ms
    return told


def names(told: list[tuple[int, object]]) -> list[object]:
    return [what if isinstance(what, tuple) else type(what).__name__ for _t, what in told]


def test_a_card_laid_as_the_button_is_pressed_is_reported_before_the_press_is_let_through():
    tracker, catch_up = Tracker(CONFIG), CatchUp()
    play(tracker, catch_up, [[]] * 3)
    tracker.track(300, [BACK])  # the card lands as the dealer presses
    catch_up.follow([["sensors", 7]])
    told = play(tracker, catch_up, [[BACK]] * 6, t=400)
    assert names(told) == ["CardPlaced", ("sensors", 7)]


def test_a_quiet_felt_lets_the_press_through_at_the_second_frame_read():
    tracker, catch_up = Tracker(CONFIG), CatchUp()
    catch_up.follow([["sensors", 3]])
    assert play(tracker, catch_up, [[], []]) == [(100, ("sensors", 3))]


def test_a_change_begun_after_the_press_does_not_hold_it():
    """Chips put down after « rien ne va plus » are a late bet: the press goes first."""
    tracker, catch_up = Tracker(CONFIG), CatchUp()
    catch_up.follow([["sensors", 4]])
    told = play(tracker, catch_up, [[], [], [ANTE], [ANTE], [ANTE], [ANTE], [ANTE]])
    assert names(told) == [("sensors", 4), "ChipsChanged"]


def test_presses_the_engine_no_longer_holds_are_forgotten_and_each_press_is_told_once():
    tracker, catch_up = Tracker(CONFIG), CatchUp()
    catch_up.follow([["sensors", 1], ["sensors", 2]])
    catch_up.follow([["sensors", 2]])  # the engine gave up on the first
    assert [press for _t, press in play(tracker, catch_up, [[]] * 4)] == [("sensors", 2)]
    catch_up.follow([["sensors", 2]])  # a state from before the engine read the answer: not awaited again
    assert not catch_up and play(tracker, catch_up, [[]] * 4, t=400) == []
    catch_up.follow("not a list")  # a state without the key changes nothing
    assert catch_up.all() == []


def test_the_tracker_names_when_its_oldest_undecided_change_began():
    tracker = Tracker(CONFIG)
    assert tracker.undecided_since() is None
    tracker.track(0, [ANTE])
    tracker.track(100, [ANTE, BACK])
    assert tracker.undecided_since() == 0
    for t in (200, 300):
        tracker.track(t, [ANTE, BACK])
    assert tracker.undecided_since() == 100  # the chips reported, the card not yet
    for t in (400, 500):
        tracker.track(t, [ANTE, BACK])
    assert tracker.undecided_since() is None


def test_chips_whose_count_flickers_are_undecided_from_their_first_change():
    """A pile put down before the press, its count flickering between two readings: the change began when it was
    first seen, not at the latest reading."""
    tracker = Tracker(CONFIG)
    other = Observation(3, "ante", "chip", 1500, 100.0, 600.0, 0.9)
    for t, reading in enumerate([ANTE, other, ANTE, other, ANTE]):
        tracker.track(100 * t, [reading])
    assert tracker.undecided_since() == 0


def test_a_raise_begun_after_the_press_and_decided_first_is_told_after_the_press():
    """The dealer presses « fin de donne » as his hand lays the last card, and stays over it; a player raises
    meanwhile. The raise is decided first, but began after the press: the engine must play it after the press."""
    tracker, catch_up = Tracker(CONFIG), CatchUp()
    catch_up.follow([["sensors", 9]])
    hand_over_seat_1 = {t: [(1, "cards")] for t in range(100, 600, 100)}
    raise_ = Observation(3, "raise", "chip", 2000, 100.0, 700.0, 0.9)
    frames = [[], [], *[[raise_]] * 4, *[[raise_, BACK]] * 5]
    told = play(tracker, catch_up, frames, covered=hand_over_seat_1)
    assert names(told) == ["CardPlaced", ("sensors", 9), "ChipsChanged"]


def test_an_event_held_holds_its_zones_next_ones_and_no_other_zone():
    catch_up = CatchUp()
    catch_up.follow([["sensors", 5]])
    assert catch_up.frame_read(0, 50) == []
    assert catch_up.frame_read(100, 50) == []  # the wait measured from this frame: changes begun after 100 wait
    placed, named = CardPlaced(4, None, False, 7), CardIdentified(4, 0, "Kd")
    raise_, other = ChipsChanged(2, "raise", 2000), CardIdentified(5, 1, "2c")
    told = catch_up.frame_read(200, 50, [(150, placed), (None, named), (90, raise_), (None, other)])
    assert told == [raise_, other]
    assert catch_up
    assert catch_up.frame_read(300, None) == [("sensors", 5), placed, named]
    assert not catch_up


def chips_held_for_a_press() -> tuple[CatchUp, ChipsChanged]:
    """A press awaited, its wait measured from 100 ms; chips decided at 200 ms, begun after it: held."""
    catch_up = CatchUp()
    catch_up.follow([["sensors", 5]])
    catch_up.frame_read(0, 50)
    catch_up.frame_read(100, 50)
    chips = ChipsChanged(2, "ante", 1000)
    assert catch_up.frame_read(200, 50, [(200, chips)]) == []
    return catch_up, chips


def test_events_held_are_told_when_the_camera_can_read_nothing():
    catch_up, chips = chips_held_for_a_press()
    assert catch_up.all() == [("sensors", 5), chips]


def test_events_held_for_a_press_the_engine_gave_up_on_are_told_at_once():
    catch_up, chips = chips_held_for_a_press()
    assert catch_up.follow([["sensors", 5]]) == []  # still held
    assert catch_up.follow([]) == [chips]  # the engine played the press without the camera
    assert not catch_up


def test_events_held_are_told_whatever_the_presses_when_the_camera_goes_offline():
    catch_up, chips = chips_held_for_a_press()
    assert catch_up.release() == [chips]
    assert catch_up.frame_read(300, None) == [("sensors", 5)]  # the press is still answered once caught up
