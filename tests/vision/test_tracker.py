"""The tracker: sequences of per-frame observations in, table events out."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tables import rules_for

from controller.bus.schema import (
    ButtonPressed,
    CardExposed,
    CardIdentified,
    CardPlaced,
    CardRemoved,
    CardsLifted,
    ChipsChanged,
    Envelope,
)
from controller.referee import Referee
from controller.rules.cards import full_deck
from controller.rules.operations import Box
from vision.common import rules_card
from vision.tracker import Observation, Tracker, TrackerConfig

STEP_MS = 100  # 10 frames a second
CONFIG = TrackerConfig(steady_frames=4, steady_ms=300, gone_frames=6, gone_ms=1500, forget_ms=500, match_mm=20)


def back(seat: int, x: float, y: float = 400.0) -> Observation:
    return Observation(seat, "cards", "card_back", "BACK", x, y, 0.9)


def face(seat: int, label: str, x: float, y: float = 400.0) -> Observation:
    return Observation(seat, "cards", "card_face", label, x, y, 0.9)


def chip(seat: int, area: str, cents: int, x: float = 100.0, y: float = 600.0) -> Observation:
    return Observation(seat, area, "chip", cents, x, y, 0.9)


class Feed:
    """Plays frames into a tracker at a steady rate and keeps what each frame returned."""

    def __init__(self, tracker: Tracker | None = None, step_ms: int = STEP_MS) -> None:
        self.tracker = tracker or Tracker(CONFIG)
        self.t = 0
        self.step_ms = step_ms
        self.per_frame: list[list[object]] = []

    def frames(self, count: int, observations: list[Observation] = (), occluded=()) -> list[object]:
        events = []
        for _ in range(count):
            out = self.tracker.track(self.t, list(observations), occluded)
            self.per_frame.append(out)
            events += out
            self.t += self.step_ms
        return events


def test_a_card_counts_after_n_frames_spanning_m_ms():
    feed = Feed()
    assert feed.frames(3, [back(3, 500)]) == []
    assert feed.frames(1, [back(3, 500)]) == [CardPlaced(3, None, False, 1)]
    assert feed.frames(20, [back(3, 500)]) == []  # counted once

    fast = Feed(step_ms=10)  # at 100 frames a second, 4 frames are not yet 300 ms
    events = fast.frames(31, [back(3, 500)])
    assert events == [CardPlaced(3, None, False, 1)]
    assert fast.per_frame[-1] == events  # settled at the frame reaching 300 ms, not before


def test_a_flicker_and_a_card_carried_past_never_count():
    feed = Feed()
    assert feed.frames(1, [back(2, 700)]) == []
    assert feed.frames(6, []) == []  # unseen for 600 ms > forget_ms
    assert feed.frames(3, [back(2, 700)]) == []  # the first sighting was forgotten: 3 frames so far
    assert feed.frames(1, [back(2, 700)]) == [CardPlaced(2, None, False, 1)]
    # a card held in the croupier's hand over seat 5: its zone is occluded, so nothing there counts
    assert feed.frames(10, [face(5, "QH", 300)], occluded=[(5, "cards")]) == []


def test_identity_is_the_majority_of_the_steady_frames():
    feed = Feed()
    reads = ["AS", "AS", "4S", "AS"]
    events = []
    for label in reads:
        events += feed.frames(1, [face(0, label, 900)])
    assert events == [CardPlaced(0, "As", True, 1)]
    feed.tracker.new_coup()
    events = []
    for obs in [face(1, "10H", 1500), back(1, 1500), face(1, "10H", 1500), face(1, "10H", 1500)]:
        events += feed.frames(1, [obs])
    assert events == [CardPlaced(1, "Th", True, 1)]


def test_face_and_back_tied_read_as_face_down():
    feed = Feed()
    events = []
    for obs in [face(4, "KD", 800), back(4, 800), face(4, "KD", 800), back(4, 800)]:
        events += feed.frames(1, [obs])
    assert events == [CardPlaced(4, None, False, 1)]


def test_order_of_arrival_across_seats_and_staggered_cards_in_a_hand():
    feed = Feed()
    table: list[Observation] = []
    events = []
    for obs in [back(1, 1500), back(2, 1200), face(0, "7C", 900), back(1, 1540)]:  # seat 1's 2nd card is 40 mm on
        table.append(obs)
        events += feed.frames(2, table)
    events += feed.frames(10, table)
    assert events == [CardPlaced(1, None, False, 1), CardPlaced(2, None, False, 2), CardPlaced(0, "7c", True, 3),
                      CardPlaced(1, None, False, 4)]


def test_cards_settling_in_the_same_frame_are_ordered_by_first_sight():
    feed = Feed()
    events = feed.frames(1, [back(6, 400)])
    # seat 2's card is seen later but lost no frame: both settle in the same frame at the latest
    events += feed.frames(1, [back(2, 1200)], occluded=[(6, "cards")])
    events += feed.frames(6, [back(6, 400), back(2, 1200)])
    assert sorted((e.order, e.position) for e in events) == [(1, 6), (2, 2)]


def test_the_dealers_card_hidden_by_his_arm_reaching_for_the_next_seat_is_still_placed_first():
    """The dealer lays his card, then reaches over it for seat 4: his card is first seen a frame after seat 4's, as
    his arm leaves his zone. It was laid while his arm was over his zone, before seat 4's: it is placed first."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    assert feed.frames(2, [], occluded=[(0, "cards")]) == []  # his arm: his card laid under it
    feed.frames(1, [back(4, 600)], occluded=[(0, "cards")])  # seat 4's card laid; his arm on its way back
    events = feed.frames(8, [back(4, 600), back(0, 900)])
    assert [(e.position, e.order) for e in events] == [(0, 1), (4, 2)]


def test_cards_dealt_while_the_camera_was_off_come_in_the_dealing_order_though_one_zone_is_under_an_arm():
    """The camera comes back after two rounds dealt unseen, the dealer's arm over seat 1 for its first frames: seat
    1's cards, seen last, were dealt first in each round."""
    along_x = {1: (1.0, 0.0), 3: (1.0, 0.0), 0: (-1.0, 0.0)}
    feed = Feed(Tracker(CONFIG, dealing=True, stagger=along_x))
    others = [back(3, 1200), back(3, 1240), back(0, 900), back(0, 860)]
    events = feed.frames(3, others, occluded=[(1, "cards")])
    events += feed.frames(6, [*others, back(1, 1500), back(1, 1540)])
    assert [(e.position, e.order) for e in events] == [(1, 1), (3, 2), (0, 3), (1, 4), (3, 5), (0, 6)]


def test_a_card_waits_for_one_laid_before_it_at_most_order_wait_ms():
    """A zone under a hand since before the card was laid holds its placement back, not for ever."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    feed.frames(1, [], occluded=[(0, "cards")])
    assert feed.frames(20, [back(4, 600)], occluded=[(0, "cards")]) == [CardPlaced(4, None, False, 1)]
    # first seen at 100 ms, steadily at 400 ms (its fourth frame): placed order_wait_ms (1.5 s) later
    assert [feed.step_ms * i for i, out in enumerate(feed.per_frame) if out] == [400 + CONFIG.order_wait_ms]


def test_cards_first_seen_together_are_numbered_in_the_dealing_order():
    """The camera comes back after two rounds dealt unseen: round by round along each hand's stagger, seats from the
    dealer's left, the dealer last, whatever order the detector lists them in."""
    along_x = {1: (1.0, 0.0), 3: (1.0, 0.0), 0: (-1.0, 0.0)}  # the dealer's hand is laid the other way
    feed = Feed(Tracker(CONFIG, dealing=True, stagger=along_x))
    first_round = [back(1, 1500), back(3, 1200), back(0, 900)]
    feed.frames(6, first_round)
    unseen = [back(0, 820), back(3, 1280), back(1, 1540), back(0, 860), back(3, 1240), back(1, 1580)]
    events = feed.frames(6, first_round + unseen)
    assert [(e.position, e.order) for e in events] == [(1, 4), (3, 5), (0, 6), (1, 7), (3, 8), (0, 9)]
    # the camera lost after seat 1's second card: seat 3 and the dealer had one card fewer
    feed = Feed(Tracker(CONFIG, dealing=True, stagger=along_x))
    feed.frames(6, first_round + [back(1, 1540)])
    events = feed.frames(6, first_round + [back(1, 1540), back(0, 860), back(3, 1240), back(0, 820), back(3, 1280),
                                           back(1, 1580)])
    assert [e.position for e in events] == [3, 0, 1, 3, 0]
    # without the stagger the order is the detector's, seats still before the dealer
    feed = Feed(Tracker(CONFIG, dealing=True))
    events = feed.frames(6, [back(0, 900), back(3, 1200), back(1, 1500)])
    assert [e.position for e in events] == [1, 3, 0]


def test_a_hand_passing_over_the_cards_removes_nothing():
    feed = Feed()
    cards = [back(3, 500), back(3, 540), face(0, "9D", 900)]
    feed.frames(5, cards)
    # an arm over seat 3 and the dealer for 5 s: the cards are not seen, the zones are marked occluded
    assert feed.frames(50, [], occluded=[(3, "cards"), (0, "cards")]) == []
    # the arm goes; the detector sees only one card for a second, then all of them again
    assert feed.frames(10, [back(3, 500)]) == []
    assert feed.frames(20, cards) == []
    # an arm the occlusion detector missed, gone again within the steady period, removes nothing either
    assert feed.frames(14, []) == []
    assert feed.frames(5, cards) == []


def test_a_players_card_gone_during_the_deal_is_him_looking_and_it_comes_back_the_same():
    feed = Feed(Tracker(CONFIG, dealing=True))
    feed.frames(5, [back(5, 600), back(5, 640)])
    assert feed.frames(5, [back(5, 600)]) == []  # missing for only 0.5 s
    events = feed.frames(15, [back(5, 600)])
    assert events == [CardsLifted(5)]
    assert feed.frames(20, [back(5, 600), back(5, 640)]) == []  # put back: the same card, not a new one
    assert feed.frames(20, [back(5, 600), back(5, 640), back(5, 680)]) == [CardPlaced(5, None, False, 3)]


def test_a_card_dealt_face_up_and_turned_over_before_it_settled_is_still_seen_exposed():
    """At a real dealer's pace an exposed card lies face up for half a second: two frames of its face, then its
    back. Read face down by the majority of its frames, it is placed face down and reported exposed; a single
    frame of a face (a misread) is not an exposure."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    events = feed.frames(2, [face(4, "2C", 700)]) + feed.frames(4, [back(4, 700)])
    assert events == [CardPlaced(4, None, False, 1), CardExposed(4, 0)]
    events = feed.frames(1, [back(4, 700), face(4, "9D", 740)]) + feed.frames(5, [back(4, 700), back(4, 740)])
    assert events == [CardPlaced(4, None, False, 2)]
    # two misreads among a dozen frames of a back (a card held back by one laid before it): no exposure
    feed = Feed(Tracker(CONFIG, dealing=True))
    feed.frames(1, [], occluded=[(0, "cards")])
    events = feed.frames(2, [face(4, "9D", 700)], occluded=[(0, "cards")])
    events += feed.frames(10, [back(4, 700)], occluded=[(0, "cards")]) + feed.frames(4, [back(4, 700)])
    assert events == [CardPlaced(4, None, False, 1)]


def test_a_players_whole_hand_lifted_to_look_is_seen_as_fast_as_a_card_laid():
    """A player reads his cards in a second or two, shorter than ``gone_ms``: his whole hand missing at once, zone
    visible, for ``lifted_ms`` is a look; one card of the hand missing that long is not yet anything."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    hand = [back(5, 600), back(5, 640)]
    feed.frames(5, hand)
    assert feed.frames(7, [back(5, 600)]) == []  # one card of two missing 0.7 s
    feed.frames(5, hand)
    assert feed.frames(6, []) == []  # 0.5 s: not yet
    assert feed.frames(1, []) == [CardsLifted(5)]
    assert feed.frames(10, hand) == []  # laid back: the same cards
    # a hand of one card missing that long is not yet a look (a card missed by the detector a few frames); missing
    # for ``lifted_one_ms``, shorter than a player reads it and than ``gone_ms``, it is
    feed = Feed(Tracker(CONFIG, dealing=True))
    feed.frames(5, [back(5, 600)])
    assert feed.frames(7, []) == []
    assert feed.frames(2, []) == []  # 0.8 s
    assert feed.frames(1, []) == [CardsLifted(5)]  # 0.9 s
    assert feed.frames(10, [back(5, 600)]) == []  # laid back: the same card


@pytest.mark.parametrize("held", [True, False])
def test_a_card_seen_in_a_players_hand_while_he_peeks_is_no_new_card(held):
    """While his cards are off the felt, the detector may find one raised in his hand at the zone's edge; read as
    held it is no card dealt (not held, it would count as one: out of turn, a card too many)."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    hand = [back(3, 600), back(3, 628)]
    feed.frames(5, hand)
    raised = replace(back(3, 640, 460), held=held)
    events = feed.frames(20, [raised])
    if not held:
        assert CardPlaced(3, None, False, 3) in events
        return
    assert events == [CardsLifted(3)]
    assert feed.frames(20, hand) == []  # put back: the same cards


def test_a_counted_card_seen_only_in_a_hand_neither_goes_nor_moves_nor_turns():
    """A hand over a card on the felt (its zone not covered enough to count as occluded): the card is read as held.
    That proves neither that it is still there nor that it went: it is not counted gone, however long, and when the
    hand leaves it is where it was, showing the face it showed."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    feed.frames(5, [back(4, 900)])
    in_hand = replace(face(4, "AS", 915), held=True)  # 15 mm off, read face up: the card in the hand, half raised
    assert feed.frames(30, [in_hand]) == []  # 3 s: twice gone_ms; no CardsLifted, no CardExposed
    assert feed.frames(20, [back(4, 900)]) == []  # the same card, face down where it lay: nothing new
    assert feed.frames(20, [back(4, 900), back(4, 940)]) == [CardPlaced(4, None, False, 2)]


def test_a_card_first_seen_in_a_hand_is_forgotten_if_only_ever_seen_there():
    """A card seen once on the felt, then only in a hand, is forgotten after forget_ms: the frames that see it in a
    hand do not keep it, and cannot add up, with a few stray frames, to a card dealt."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    raised = back(6, 640, 460)
    for _ in range(6):  # a stray frame not read as held, then a second of frames in the hand
        assert feed.frames(1, [raised]) == []
        assert feed.frames(10, [replace(raised, held=True)]) == []
    assert feed.frames(3, [raised]) == []  # three frames on the felt, 300 ms: not yet a card
    assert feed.frames(1, [raised]) == [CardPlaced(6, None, False, 1)]  # the fourth: steady, counted


def test_after_the_deal_a_discard_is_removed_and_the_bought_card_takes_its_place():
    feed = Feed(Tracker(CONFIG, dealing=True))
    hand = [back(2, 1200 + 40 * i) for i in range(5)]
    feed.frames(5, hand)
    feed.tracker.follow({"phase": "decisions", "coup": 1, "seats": {"2": {"awaits_bought_card": True}}})
    without_third = hand[:2] + hand[3:]
    assert feed.frames(20, without_third) == [CardRemoved(2, 2)]
    assert feed.frames(10, [*without_third, face(2, "JS", 1280)]) == [CardPlaced(2, "Js", True, 6)]
    # at the showdown the croupier turns the hand face up in place: the bought card is index 2, known already
    shown = [face(2, label, 1200 + 40 * i) for i, label in enumerate(["2C", "3C", "JS", "5C", "6C"])]
    events = feed.frames(10, shown)
    assert events == [CardIdentified(2, 0, "2c"), CardIdentified(2, 1, "3c"), CardIdentified(2, 3, "5c"),
                      CardIdentified(2, 4, "6c")]


@pytest.mark.parametrize("phase", ["decisions", "showdown", "paying"])
def test_a_card_lost_under_the_next_one_after_the_deal_comes_back_as_itself_in_a_hand_that_buys_nothing(phase):
    feed = Feed(Tracker(CONFIG, dealing=True))
    hand = [back(7, 1200 + 28 * i) for i in range(5)]
    feed.frames(5, hand)
    # seat 2 buys a card; seat 7 does not
    feed.tracker.follow({"phase": phase, "coup": 1, "seats": {"2": {"awaits_bought_card": True},
                                                              "7": {"awaits_bought_card": False}}})
    # its third card, turned face up, is half covered by the fourth and not detected for 2 s
    turned = [face(7, "9H", 1200), face(7, "8H", 1228), *hand[3:]]
    assert feed.frames(20, turned) == [CardIdentified(7, 0, "9h"), CardIdentified(7, 1, "8h"), CardRemoved(7, 2)]
    # the detector sees it again: the same card, identified in its place, not a sixth card
    shown = [*turned[:2], face(7, "JH", 1257), *turned[2:]]
    assert feed.frames(10, shown) == [CardIdentified(7, 2, "Jh")]
    assert feed.frames(10, [*shown[:3], face(7, "3H", 1284), face(7, "4H", 1312)]) == [
        CardIdentified(7, 3, "3h"), CardIdentified(7, 4, "4h")]


def test_a_card_that_cannot_be_the_one_gone_is_a_new_card_and_so_is_any_before_the_engine_has_said():
    feed = Feed(Tracker(CONFIG, dealing=True))
    hand = [back(7, 1200 + 28 * i) for i in range(5)]
    feed.frames(5, hand)
    feed.tracker.follow({"phase": "decisions", "coup": 1, "seats": {"7": {"awaits_bought_card": False}}})
    shown = [face(7, "9H", 1200), *hand[1:]]
    assert feed.frames(10, shown) == [CardIdentified(7, 0, "9h")]
    assert feed.frames(20, shown[1:]) == [CardRemoved(7, 0)]
    # another face where the nine of hearts went: not the nine, so a card the rules must judge
    assert feed.frames(10, [face(7, "JS", 1200), *shown[1:]]) == [CardPlaced(7, "Js", True, 6)]
    # a tracker the engine has told nothing of its seats keeps to the discard's rule
    feed = Feed(Tracker(CONFIG, dealing=True))
    feed.frames(5, hand)
    feed.tracker.set_phase(False)
    assert feed.frames(20, hand[:2] + hand[3:]) == [CardRemoved(7, 2)]
    assert feed.frames(10, hand) == [CardPlaced(7, None, False, 6)]


def test_a_whole_hand_gone_after_the_deal_comes_back_as_the_same_cards():
    feed = Feed()
    feed.tracker.set_phase(True)
    feed.frames(5, [back(0, 900), back(0, 940)])
    feed.tracker.set_phase(False)
    assert feed.frames(20, []) == [CardRemoved(0, 0), CardRemoved(0, 1)]
    # the croupier picked the dealer's hand up and lays it back face up, elsewhere in the zone
    events = feed.frames(10, [face(0, "AH", 1000), face(0, "KH", 1040)])
    assert all(isinstance(e, CardIdentified) for e in events)
    assert sorted(e.index for e in events) == [0, 1] and sorted(e.card for e in events) == ["Ah", "Kh"]


def test_a_card_turned_face_up_is_exposed_during_the_deal_and_identified_after():
    feed = Feed(Tracker(CONFIG, dealing=True))
    feed.frames(5, [back(4, 700), back(4, 740)])
    assert feed.frames(1, [back(4, 700), face(4, "KD", 740)]) == []  # one misread frame turns nothing
    assert feed.frames(5, [back(4, 700), back(4, 740)]) == []
    assert feed.frames(5, [back(4, 700), face(4, "KD", 740)]) == [CardExposed(4, 1)]
    assert feed.frames(5, [back(4, 700), back(4, 740)]) == []  # turned back over: nothing to say
    feed.tracker.set_phase(False)
    reads = ["KD", "KD", "KH", "KD", "KD"]
    events = []
    for label in reads:
        events += feed.frames(1, [face(4, "3S", 700), face(4, label, 740)])
    assert events == [CardIdentified(4, 0, "3s"), CardIdentified(4, 1, "Kd")]


def test_chip_totals_are_reported_once_steady():
    feed = Feed()
    assert feed.frames(3, [chip(3, "ante", 500)]) == []
    assert feed.frames(1, [chip(3, "ante", 500)]) == [ChipsChanged(3, "ante", 500)]
    # one frame where a chip is misread, and a second chip being laid under the croupier's hand
    assert feed.frames(1, [chip(3, "ante", 500), chip(3, "ante", 2500, 110)]) == []
    assert feed.frames(10, [chip(3, "ante", 500), chip(3, "ante", 2500, 110)], occluded=[(3, "ante")]) == []
    assert feed.frames(2, [chip(3, "ante", 500)]) == []
    events = feed.frames(6, [chip(3, "ante", 500), chip(3, "ante", 1000, 110), chip(3, "raise", 1000, 200)])
    assert events == [ChipsChanged(3, "ante", 1500), ChipsChanged(3, "raise", 1000)]
    assert feed.frames(10, []) == [ChipsChanged(3, "ante", 0), ChipsChanged(3, "raise", 0)]


def test_new_coup_restarts_the_order_and_ignores_the_last_coups_cards_still_on_the_felt():
    feed = Feed(Tracker(CONFIG, dealing=True))
    old = [back(1, 1500), back(1, 1540)]
    assert len(feed.frames(10, old)) == 2
    feed.tracker.follow({"phase": "paying", "coup": 1})
    feed.tracker.follow({"phase": "betting", "coup": 2})
    assert feed.tracker.dealing is False
    assert feed.frames(10, old) == []  # not new cards
    assert feed.frames(20, []) == []  # collected: nothing to report
    feed.tracker.follow({"phase": "dealing", "coup": 2})
    assert feed.frames(10, [back(3, 500)]) == [CardPlaced(3, None, False, 1)]
    assert feed.frames(10, [back(3, 500)], occluded=[(3, "cards")]) == []
    # the index restarted too: the first card of seat 3 in this coup is index 0
    assert feed.frames(10, [face(3, "5H", 500)]) == [CardExposed(3, 0)]


def test_weak_card_detections_are_ignored_but_a_zones_chips_count_whole():
    feed = Feed()
    assert feed.frames(10, [Observation(3, "cards", "card_back", "BACK", 500, 400, 0.1)]) == []
    # a count of two chips the counter is unsure of is still two chips, never one or none, and said unsure
    unsure = [Observation(3, "ante", "chip", 500, 500, 600, 0.2), Observation(3, "ante", "chip", 500, 500, 600, 0.2)]
    assert feed.frames(10, unsure) == [ChipsChanged(3, "ante", 1000, sure=False)]
    # a pile too tall to count (the counter's certainty 0): its total is only a lower bound, and said so
    tall = [replace(o, seat=4, confidence=0.0) for o in unsure]
    assert feed.frames(10, unsure + tall) == [ChipsChanged(4, "ante", 1000, sure=False, at_least=True)]


def test_a_count_read_unsure_carries_the_likeliest_amount_but_it_for_the_dealer():
    feed = Feed()
    # two 5 € chips, or three: the reader's next likeliest value travels on each chip of the zone
    unsure = [Observation(3, "ante", "chip", 500, 500, 600, 0.5, alternative=1500)] * 2
    assert feed.frames(10, unsure) == [ChipsChanged(3, "ante", 1000, sure=False, alternative=1500)]
    # read sure, or too tall to count (a lower bound): no amount offered beside it
    sure = [replace(o, confidence=0.99) for o in unsure]
    assert feed.frames(10, sure) == [ChipsChanged(3, "ante", 1000)]
    tall = [replace(o, seat=4, confidence=0.0) for o in unsure]
    assert feed.frames(10, sure + tall) == [ChipsChanged(4, "ante", 1000, sure=False, at_least=True)]
    with pytest.raises(ValueError, match="alternative must be a value in cents"):
        replace(unsure[0], alternative=-5)


def test_a_count_read_unsure_then_sure_is_reported_again_sure_and_a_steady_one_once():
    feed = Feed()
    vouched = TrackerConfig().sure_certainty
    two = [Observation(3, "ante", "chip", 500, 500, 600, vouched - 0.1)] * 2
    assert feed.frames(10, two) == [ChipsChanged(3, "ante", 1000, sure=False)]
    sure = [replace(o, confidence=vouched) for o in two]
    assert feed.frames(10, sure) == [ChipsChanged(3, "ante", 1000, sure=True)]
    assert feed.frames(10, [replace(o, confidence=0.99) for o in two]) == []
    # a brief doubt, shorter than the steady period, is never reported
    assert feed.frames(2, two) == [] and feed.frames(10, sure) == []


def test_rules_card_spelling():
    assert [rules_card(x) for x in ("AS", "10H", "2C", "QD")] == ["As", "Th", "2c", "Qd"]
    with pytest.raises(ValueError, match="'1H'"):
        rules_card("1H")


@pytest.mark.parametrize(("args", "message"), [
    ((3, "cards", "card_up", "AS"), "kind 'card_up'"),
    ((9, "cards", "card_back", "BACK"), "seat must be 1..7"),
    ((0, "ante", "chip", 500), "chips are tracked in a seat's"),
    ((3, "ante", "chip", "500"), "value in cents"),
    ((3, "ante", "card_face", "AS"), "cards areas only"),
    ((3, "cards", "card_face", "As"), "'As' is not a card"),
    ((3, "cards", "card_back", "AS"), "card_back's label"),
])
def test_bad_observations_are_refused_by_name(args, message):
    with pytest.raises(ValueError, match=message):
        Observation(*args, 10.0, 10.0, 0.9)


def test_bad_frames_and_settings_are_refused():
    tracker = Tracker(CONFIG)
    tracker.track(1000, [])
    with pytest.raises(ValueError, match="frame time went back: 900 ms after 1000 ms"):
        tracker.track(900, [])
    with pytest.raises(ValueError, match="occluded zone 'seat.3.cards'"):
        tracker.track(1100, [], ["seat.3.cards"])
    with pytest.raises(ValueError, match="steady_frames"):
        TrackerConfig(steady_frames=0)
    with pytest.raises(ValueError, match="without a phase"):
        tracker.follow({"phase": "dealing"})


def test_the_engine_takes_a_tracked_coup_as_dealt():
    """The tracker's events, fed to the engine's referee, make the coup the camera saw: every event accepted."""
    referee = Referee(rules_for())
    table = referee.table
    table.open_session(0, full_deck())
    for seat in (1, 2):
        table.sit_down(0, seat)
    tracker = Tracker(CONFIG)
    feed = Feed(tracker)
    refused = []

    def play(count: int, observations: list[Observation], occluded=()) -> None:
        for _ in range(count):
            for body in tracker.track(feed.t, observations, occluded):
                assert not isinstance(body, CardRemoved)
                outcome = referee.handle(Envelope("vision", 1, 0, feed.t * 1_000_000, body))
                refused.extend([outcome.refused] if outcome.refused else [])
            tracker.follow(referee.state())
            feed.t += STEP_MS

    felt = [chip(1, "ante", 1000, 1500, 600), chip(2, "ante", 500, 1200, 600), chip(2, "ante", 500, 1210, 600)]
    play(6, felt)
    referee.handle(Envelope("sensor", 1, 0, feed.t * 1_000_000, ButtonPressed("no_more_bets")))
    table.shuffle(table.log[-1].t)
    table.offer_cut(table.log[-1].t, 1, True)
    tracker.follow(referee.state())
    assert tracker.dealing
    hands = {1: ["2C", "3C", "4C", "5C", "7D"], 2: ["2H", "3H", "4H", "5H", "7S"], 0: ["AS", "KS", "QS", "JS", "9S"]}
    x0 = {1: 1500, 2: 1200, 0: 900}
    for round_ in range(5):
        for position in (1, 2, 0):
            x = x0[position] + 40 * round_
            dealer_fifth = position == 0 and round_ == 4
            felt.append(face(position, hands[position][round_], x) if dealer_fifth else back(position, x))
            play(2, felt, occluded=[(position, "cards")])  # the croupier's hand lays the card
            play(6, felt)
    referee.handle(Envelope("sensor", 1, 0, feed.t * 1_000_000, ButtonPressed("end_of_deal")))
    tracker.follow(referee.state())
    assert not tracker.dealing
    # seat 1 shows his hand: turned face up in place
    shown = [face(1, label, x0[1] + 40 * i) for i, label in enumerate(hands[1])]
    felt = [o for o in felt if (o.seat, o.area) != (1, "cards")] + shown
    play(6, felt)
    assert refused == []
    assert [str(c) for c in table.seats[1].hand.cards] == ["2c", "3c", "4c", "5c", "7d"]
    assert table.seats[2].hand.cards == [None] * 5
    assert table.hand_of(0).cards[:4] == [None] * 4 and str(table.hand_of(0).cards[4]) == "9s"
    assert table.seats[2].bets[Box.ANTE] == 1000
    assert table.coup.deal_in_order and not table.coup_flags()


def test_a_face_its_frames_disagree_on_is_placed_unknown_and_named_once_they_agree():
    feed = Feed()
    events = []
    for label in ["7H", "7D", "7H", "7D"]:  # two reads of four: no identity is vouched for
        events += feed.frames(1, [face(0, label, 900)])
    assert events == [CardPlaced(0, None, True, 1)]
    assert feed.frames(3, [face(0, "7H", 900)]) == []  # 5 of 7: not yet three in four
    assert feed.frames(1, [face(0, "7H", 900)]) == [CardIdentified(0, 0, "7h")]  # 6 of 8
    assert feed.frames(10, [face(0, "7H", 900)]) == []  # once


def test_a_card_still_in_doubt_goes_out_unsure_once_and_a_later_agreement_names_it():
    config = replace(CONFIG, doubt_ms=1000)
    feed = Feed(Tracker(config))
    feed.frames(4, [back(4, 700)])
    events = []
    for label in ["KD", "KH", "KD", "KH"] * 3:  # turned up at the showdown; the reads never agree
        events += feed.frames(1, [face(4, label, 700)])
    assert events == [CardIdentified(4, 0, "Kd", sure=False)]  # the likeliest, after doubt_ms, for the dealer
    assert [e for e in feed.per_frame if e] == [[CardPlaced(4, None, False, 1)], events]
    assert feed.frames(10, [face(4, "KH", 700)]) == []  # 16 of 22 read KH: still in doubt, asked once
    assert feed.frames(30, [face(4, "KH", 700)]) == [CardIdentified(4, 0, "Kh")]  # 18 of 24 at the 2nd


def test_a_face_read_unsurely_in_every_frame_is_placed_unknown_and_goes_to_the_dealer_with_its_reading():
    """A deck the index reader never learnt: the same wrong card read in every frame, but less likely than not. The
    frames agree, yet nothing vouches for it: the dealer names it, shown the reading."""
    feed = Feed()
    doubtful = replace(face(0, "3H", 900), identity_certainty=0.27)
    events = feed.frames(5, [doubtful])
    assert events == [CardPlaced(0, None, True, 1)]
    assert feed.frames(10, [doubtful]) == [CardIdentified(0, 0, "3h", sure=False)]
    assert feed.frames(10, [doubtful]) == []  # asked once
    # read surely from now on: named once three in four of its face reads agree on it
    assert feed.frames(75, [face(0, "3H", 900)]) == [CardIdentified(0, 0, "3h")]  # 75 of its 100 face reads


@pytest.mark.parametrize(("unsure_frames", "named"), [(1, [CardIdentified(2, 0, "Qs")]), (2, [])])
def test_a_card_turned_up_and_read_unsurely_in_one_frame_of_four_is_named_but_in_two_is_not(unsure_frames, named):
    feed = Feed()
    feed.frames(4, [back(2, 700)])
    unsure = replace(face(2, "QS", 700), identity_certainty=0.4)
    events = []
    for seen in [face(2, "QS", 700)] * (4 - unsure_frames) + [unsure] * unsure_frames:
        events += feed.frames(1, [seen])
    assert events == named


def test_an_identity_certainty_outside_0_1_is_refused_by_name():
    with pytest.raises(ValueError, match="identity_certainty 1.5 is outside 0..1"):
        replace(face(0, "3H", 900), identity_certainty=1.5)
    with pytest.raises(ValueError, match="sure_identity must be within 0..1"):
        TrackerConfig(sure_identity=-0.1)


def test_a_card_turned_up_with_one_misread_in_four_is_named_at_once():
    feed = Feed()
    feed.frames(4, [back(2, 700)])
    events = []
    for label in ["QS", "QS", "QC", "QS"]:
        events += feed.frames(1, [face(2, label, 700)])
    assert events == [CardIdentified(2, 0, "Qs")]


def test_a_face_read_as_a_card_already_in_play_goes_to_the_dealer_once():
    feed = Feed()
    assert feed.frames(5, [face(0, "AH", 900)]) == [CardPlaced(0, "Ah", True, 1)]
    # a second ace of hearts laid face up: a misread likelier than a second deck's card; the dealer names it
    events = feed.frames(10, [face(0, "AH", 900), face(3, "AH", 700)])
    assert events == [CardPlaced(3, None, True, 2), CardIdentified(3, 0, "Ah", sure=False)]
    # a face-down card turned up and read as the same: asked once; what it reads once turned again is vouched for
    feed.frames(5, [face(0, "AH", 900), face(3, "AH", 700), back(5, 700)])
    turned = feed.frames(10, [face(0, "AH", 900), face(3, "AH", 700), face(5, "AH", 700)])
    assert turned == [CardIdentified(5, 0, "Ah", sure=False)]
    feed.frames(10, [face(0, "AH", 900), face(3, "AH", 700), back(5, 700)])
    assert feed.frames(10, [face(0, "AH", 900), face(3, "AH", 700), face(5, "KH", 700)]) == [
        CardIdentified(5, 0, "Kh")]


def buying(seat: int, discard: int) -> dict[str, object]:
    """The engine's state once ``seat`` has bought a card for its card ``discard``."""
    return {"phase": "decisions", "coup": 1, "seats": {str(seat): {"awaits_bought_card": True, "discard": discard}}}


def dealt_hand(seat: int) -> tuple[Feed, list[Observation]]:
    """Five cards dealt face down to ``seat``, staggered as the felt lays them (28 mm apart: a removed card's spot
    is then within reach of no other card's)."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    hand = [back(seat, 1200 + 28 * i) for i in range(5)]
    assert len(feed.frames(5, hand)) == 5
    feed.tracker.follow({"phase": "decisions", "coup": 1, "seats": {str(seat): {"awaits_bought_card": False}}})
    return feed, hand


@pytest.mark.parametrize("seat", range(1, 8))
@pytest.mark.parametrize("discard", range(5))
def test_a_bought_card_laid_where_the_shown_discard_lay_is_a_removal_and_a_placement(discard, seat):
    """A dealer takes the discard and lays the bought card in its place in one movement, before the discard could
    be seen gone: the new face on its spot is the bought card, never a new face of the discard."""
    feed, hand = dealt_hand(seat)
    shown = [*hand[:discard], face(seat, "9H", 1200 + 28 * discard), *hand[discard + 1:]]
    assert feed.frames(5, shown) == [CardIdentified(seat, discard, "9h")]
    feed.tracker.follow(buying(seat, discard))
    laid = [*hand[:discard], face(seat, "KS", 1200 + 28 * discard), *hand[discard + 1:]]
    assert feed.frames(10, laid) == [CardRemoved(seat, discard), CardPlaced(seat, "Ks", True, 6)]
    assert feed.frames(20, laid) == []  # once
    # the hand turned up at the showdown: the bought card known, the others identified in their places
    feed.tracker.follow({"phase": "showdown", "coup": 1, "seats": {str(seat): {"awaits_bought_card": False}}})
    labels = ["2C", "3C", "4C", "5C", "6C"]
    labels[discard] = "KS"
    events = feed.frames(10, [face(seat, label, 1200 + 28 * i) for i, label in enumerate(labels)])
    assert events == [CardIdentified(seat, i, rules_card(label)) for i, label in enumerate(labels) if i != discard]


@pytest.mark.parametrize("seat", range(1, 8))
@pytest.mark.parametrize("discard", range(5))
def test_a_discard_taken_where_its_neighbours_still_show_a_back_is_removed_and_that_back_is_no_card(discard, seat):
    """From above, a staggered hand with a middle card gone still shows a card's shape there (the cards under and
    over it): the detector finds a back on the discard's spot. That is the discard taken, not a card turned face
    down, and that back never counts as a card; the bought card laid there does."""
    feed, hand = dealt_hand(seat)
    spot = 1200 + 28 * discard
    assert feed.frames(5, [*hand[:discard], face(seat, "9H", spot), *hand[discard + 1:]]) == [
        CardIdentified(seat, discard, "9h")]
    feed.tracker.follow(buying(seat, discard))
    phantom = [*hand[:discard], back(seat, spot + 3), *hand[discard + 1:]]
    assert feed.frames(30, phantom) == [CardRemoved(seat, discard)]
    laid = [*hand[:discard], face(seat, "KS", spot), *hand[discard + 1:]]
    assert feed.frames(10, laid) == [CardPlaced(seat, "Ks", True, 6)]


def test_a_card_laid_while_the_dealers_hand_is_still_over_the_zone_counts_once_the_hand_has_left():
    """The dealer lays a card and draws his hand back over the zone: the frames under the hand are no evidence,
    the card is not forgotten meanwhile, and it counts once seen steadily without the hand. Meanwhile it is a
    change still undecided, so a button pressed then waits for it (``Tracker.undecided_since``)."""
    feed = Feed(Tracker(CONFIG, dealing=True))
    assert feed.frames(8, [back(4, 600)], occluded=[(4, "cards")]) == []
    assert feed.tracker.undecided_since() == 0
    assert feed.frames(4, [back(4, 600)]) == [CardPlaced(4, None, False, 1)]
    assert feed.tracker.undecided_since() is None


def test_two_changes_in_one_zone_within_the_trackers_window_are_reported_as_where_they_ended():
    """Chips added twice within the steady window: one total, the last; two cards laid in one hand within it: two
    cards, in the order laid."""
    feed = Feed()
    assert feed.frames(2, [chip(3, "ante", 1000)]) == []
    assert feed.frames(2, [chip(3, "ante", 1000), chip(3, "ante", 500, 110)]) == []
    assert feed.frames(4, [chip(3, "ante", 1000), chip(3, "ante", 1000, 110)]) == [ChipsChanged(3, "ante", 2000)]
    chips = [chip(3, "ante", 1000), chip(3, "ante", 1000, 110)]
    cards = feed.frames(1, [*chips, back(3, 500)]) + feed.frames(6, [*chips, back(3, 500), back(3, 540)])
    assert cards == [CardPlaced(3, None, False, 1), CardPlaced(3, None, False, 2)]


def test_a_face_down_discard_replaced_in_place_and_a_discard_turned_up_before_the_purchase():
    feed, hand = dealt_hand(2)
    feed.tracker.follow(buying(2, 1))
    # never shown: the first face on its spot after the purchase is the bought card
    laid = [hand[0], face(2, "QD", 1228), *hand[2:]]
    assert feed.frames(10, laid) == [CardRemoved(2, 1), CardPlaced(2, "Qd", True, 6)]
    # a discard whose face began to show before the tracker heard of the purchase is the discard turned up
    feed, hand = dealt_hand(2)
    shown = [hand[0], face(2, "QD", 1228), *hand[2:]]
    assert feed.frames(2, shown) == []
    feed.tracker.follow(buying(2, 1))
    assert feed.frames(10, shown) == [CardIdentified(2, 1, "Qd")]
    assert feed.frames(10, [hand[0], face(2, "7S", 1228), *hand[2:]]) == [CardRemoved(2, 1),
                                                                          CardPlaced(2, "7s", True, 6)]


def test_another_face_on_a_card_of_a_seat_buying_nothing_or_not_its_discard_is_no_new_card():
    feed, hand = dealt_hand(4)
    shown = [face(4, "9H", 1200), *hand[1:]]
    assert feed.frames(5, shown) == [CardIdentified(4, 0, "9h")]
    assert feed.frames(20, [face(4, "KS", 1200), *hand[1:]]) == []  # a misread of a known card, ignored
    feed.tracker.follow(buying(4, 3))
    assert feed.frames(20, [face(4, "KS", 1200), *hand[1:]]) == []  # not the discard's spot


@pytest.mark.parametrize("seat", [1, 4, 7])
@pytest.mark.parametrize("discard", range(5))
def test_a_discard_seen_gone_then_the_bought_card_laid_in_its_place_is_a_placement(discard, seat):
    """The dealer takes the discard and, slower than a card is seen gone, lays the bought card in its place: the
    discard's removal, then a card placed, never the discard's index identified."""
    feed, hand = dealt_hand(seat)
    spot = 1200 + 28 * discard
    assert feed.frames(5, [*hand[:discard], face(seat, "9H", spot), *hand[discard + 1:]]) == [
        CardIdentified(seat, discard, "9h")]
    feed.tracker.follow(buying(seat, discard))
    gone = [*hand[:discard], *hand[discard + 1:]]
    assert feed.frames(30, gone) == [CardRemoved(seat, discard)]
    laid = [*hand[:discard], face(seat, "KS", spot), *hand[discard + 1:]]
    assert feed.frames(10, laid) == [CardPlaced(seat, "Ks", True, 6)]
