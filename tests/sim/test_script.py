"""The virtual table's script (controller/sim/script.py) and the results the world expects of it (world.py),
through the pure rules core only: no bus, no processes."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from controller.rules.cards import full_deck, parse_card
from controller.sim.pace import GESTURE_SECONDS, DealerPace
from controller.sim.script import FAULTS, ScriptError, load_script, parse_script, random_script
from controller.sim.world import (
    ButtonPress,
    CameraDropout,
    CutCardSensor,
    DirectVision,
    SceneChange,
    SerialNoise,
    ShoeDraw,
    build_timeline,
)

ROOT = Path(__file__).resolve().parents[2]
DEMO_SCRIPT = ROOT / "deploy" / "demo-script.toml"

#: one clean coup, three seats raising; faults are appended as line 7
BASE = """profile = "fr-2007"
seats = [1, 3, 5]
[[coup]]
seed = 5
bets = { 1 = { ante = 1000 }, 3 = { ante = 1000 }, 5 = { ante = 1000 } }
decisions = { 1 = "raise", 3 = "raise", 5 = "raise" }
"""


def _flags(text: str) -> Counter[tuple[str, int | None]]:
    plan = build_timeline(parse_script(text)).coups[0]
    return Counter((flag.kind, flag.seat) for flag in plan.flags)


# --- parsing ------------------------------------------------------------------------------------------------------


TIMEOUT_SCRIPT = DEMO_SCRIPT.parent.parent / "benchmarks" / "decision-timeout.toml"


def test_a_decision_timeout_needs_a_profile_with_a_timer():
    text = ('profile = "fr-2007"\nseats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n'
            'faults = [{ kind = "decision_timeout", seat = 1 }]\n')
    with pytest.raises(ScriptError, match="faults\\[1\\].kind.*profile fr-2007 has no decision timer"):
        parse_script(text)


def test_the_demo_script_parses_with_its_seats_decks_decisions_and_every_fault_once():
    script = load_script(DEMO_SCRIPT)
    assert script.profile == "fr-2007" and script.seats == (1, 3, 5)
    assert len(script.coups) == 7
    first = script.coups[0]
    assert [str(card) for card in first.deck[:3]] == ["Ah", "Ad", "7c"]
    assert sorted(map(str, first.deck)) == sorted(map(str, full_deck()))  # the rest of the shoe follows
    assert first.bets[1].bonus == 200 and first.bets[3].ante == 2000
    assert (first.decisions[3].action, first.decisions[5].action, first.decisions[5].discard) == ("fold", "buy", 4)
    # every fault but the decision timeout, which needs a profile with a timer (benchmarks/decision-timeout.toml)
    assert sorted(f.kind for coup in script.coups for f in coup.faults) == sorted(set(FAULTS) - {"decision_timeout"})
    assert [f.kind for coup in load_script(TIMEOUT_SCRIPT).coups for f in coup.faults] == ["decision_timeout"] * 2
    assert script.coups[1].fault("camera_dropout")["seconds"] == 1.0  # type: ignore[index]
    assert script.coups[4].fault("bet_changed_after_rnvp")["box"] == "ante"  # type: ignore[index]  # default


def test_a_coup_without_a_deck_draws_a_reproducible_shuffle_from_the_scripts_seed():
    text = "seats = [1]\nseed = 3\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n"
    one, two = parse_script(text), parse_script(text)
    assert one.coups[0].deck == two.coups[0].deck
    assert one.coups[0].deck != one.coups[1].deck
    assert one.profile == "fr-2007"  # the default


@pytest.mark.parametrize(("text", "key", "line", "words"), [
    ("seats = [1]\nsets = 2\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n", "sets", 2, "unknown key"),
    ('profile = "xx"\nseats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n', "profile", 1, "xx"),
    ("seats = 3\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n", "seats", 1, "list of seat numbers"),
    ("seats = [1, 1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n", "seats", 1, "twice"),
    ("seats = [1, 9]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n", "seats", 1, "outside"),
    ("seats = [1]\n", "coup", None, "at least one [[coup]]"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n[[coup]]\nbest = 1\nbets = { 1 = { ante = 1 } }\n",
     "coup[2].best", 5, "unknown key"),
    ("seats = [1]\n[[coup]]\ndeck = \"As\"\nseed = 2\nbets = { 1 = { ante = 1000 } }\n", "coup[1].deck", 3,
     "not both"),
    ("seats = [1]\n[[coup]]\ndeck = \"As Zz\"\nbets = { 1 = { ante = 1000 } }\n", "coup[1].deck", 3, "Zz"),
    ("seats = [1]\n[[coup]]\ndeck = \"As Kd As\"\nbets = { 1 = { ante = 1000 } }\n", "coup[1].deck", 3,
     "duplicate_card"),
    ("seats = [1]\n[[coup]]\nbets = { 2 = { ante = 1000 } }\n", "coup[1].bets.2", 3, "not taken"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000, bonnus = 5 } }\n", "coup[1].bets.1.bonnus", 3,
     "unknown box"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 0 } }\n", "coup[1].bets.1.ante", 3, "has an ante"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\ndecisions = { 1 = \"check\" }\n",
     "coup[1].decisions.1", 4, "raise, fold, auto or buy"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"exposed_crad\", seat = 1 }]\n",
     "coup[1].faults[1].kind", 4, "exposed_card"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"wrong_count\", seat = 1 }]\n",
     "coup[1].faults[1].cards", 4, "needs cards"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"wrong_count\", seat = 1, "
     "cards = 5 }]\n", "coup[1].faults[1].cards", 4, "no fault"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"player_looks\", seat = 3 }]\n",
     "coup[1].faults[1].seat", 4, "no bets"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"vacant_seat_bet\", seat = 1 }]\n",
     "coup[1].faults[1].seat", 4, "is taken"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"duplicate_card\", seat = 1, "
     "round = 1 }]\n", "coup[1].faults[1].round", 4, "round 2..5"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"cut_card_missing\", seat = 1 }]\n",
     "coup[1].faults[1].seat", 4, "takes nothing"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nfaults = [{ kind = \"camera_dropout\", seconds = 99 }]\n",
     "coup[1].faults[1].seconds", 4, "0..60"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nstacked = 1\n", "coup[1].stacked", 4, "list of seats"),
    ("seats = [1, 2]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nstacked = [2]\n", "coup[1].stacked", 4, "no bets"),
    ("seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\nstacked = [8]\n", "coup[1].stacked", 4, "1..7"),
])
def test_each_mistake_names_its_key_and_line(text, key, line, words):
    with pytest.raises(ScriptError) as caught:
        parse_script(text, "table.toml")
    error = caught.value
    assert (error.key, error.line) == (key, line), str(error)
    assert words in str(error) and str(error).startswith("table.toml")


def test_a_toml_syntax_error_names_its_line():
    with pytest.raises(ScriptError) as caught:
        parse_script("seats = [1]\n[[coup]]\nbets = { 1 = \n", "broken.toml")
    assert caught.value.line == 3


def test_a_missing_script_file_is_a_script_error(tmp_path):
    with pytest.raises(ScriptError, match="nowhere.toml"):
        load_script(tmp_path / "nowhere.toml")


def test_a_bet_no_chips_can_make_names_its_coup_and_seat():
    text = "seats = [1]\n[[coup]]\nbets = { 1 = { ante = 1000 } }\n[[coup]]\nbets = { 1 = { ante = 1001 } }\n"
    with pytest.raises(ValueError, match="coup 2: ante of seat 1: 1001 cents cannot be made"):
        build_timeline(parse_script(text))


# --- random scripts -------------------------------------------------------------------------------------------------


def test_random_script_is_reproducible_from_its_seed_and_plays_through_the_rules():
    one, two, other = random_script(9, 12), random_script(9, 12), random_script(10, 12)
    assert one == two
    assert one != other
    assert len(one.coups) == 12
    timeline = build_timeline(one)
    assert len(timeline.coups) == 12 and all(plan.settlement for plan in timeline.coups)
    # a fault drawn gives at least one flag; a coup without one gives none
    for coup, plan in zip(one.coups, timeline.coups, strict=True):
        kinds = {fault.kind for fault in coup.faults}
        outcomes = {payout["outcome"] for payout in plan.settlement["payouts"]}
        # a payment fault needs a seat to pay (overpay, underpay) or a stake to take (stake_not_collected): in a coup
        # without one, it is not played
        unplayed = set()
        if "win" not in outcomes:
            unplayed |= {"overpay", "underpay"}
        if "lose" not in outcomes:
            unplayed.add("stake_not_collected")
        if kinds <= {"serial_noise"} | unplayed:
            assert plan.flags == [], (kinds, plan.flags)
        else:
            assert plan.flags, kinds


def test_random_players_buy_each_of_the_five_cards_where_the_profile_offers_the_purchase():
    buys = Counter(decision.discard for coup in random_script(5, 60, "fr-2007").coups
                   for decision in coup.decisions.values() if decision.action == "buy")
    assert set(buys) == {0, 1, 2, 3, 4}
    timeline = build_timeline(random_script(5, 60, "fr-2007"))
    assert all(plan.settlement for plan in timeline.coups)  # every purchase plays through the rules
    assert not any(decision.action == "buy" for coup in random_script(5, 60, "caribbean-us").coups
                   for decision in coup.decisions.values())


def test_every_gesture_of_a_timeline_takes_a_dealers_time_drawn_again_the_same_from_its_seed():
    timeline = build_timeline(load_script(DEMO_SCRIPT))
    gestures = Counter(step.gesture for plan in timeline.coups for step in plan.steps
                       if isinstance(step, SceneChange))
    assert set(gestures) <= set(GESTURE_SECONDS) and {"reach", "lay", "turn", "take", "chips"} <= set(gestures)
    one, two = DealerPace(7), DealerPace(7)
    drawn = [(g, one.seconds(g)) for g in gestures.elements()]
    assert drawn == [(g, two.seconds(g)) for g in gestures.elements()]
    assert all(GESTURE_SECONDS[g][0] <= s <= GESTURE_SECONDS[g][1] for g, s in drawn)
    cards = [one.seconds("reach") + one.seconds("lay") for _ in range(500)]
    assert min(cards) >= 0.4 and max(cards) <= 1.2  # a card every 0.4 to 1.2 s


# --- each fault, its flag -------------------------------------------------------------------------------------------


def test_a_clean_coup_raises_no_flag_and_settles():
    plan = build_timeline(parse_script(BASE)).coups[0]
    assert plan.flags == []
    assert {line["seat"] for line in plan.settlement["payouts"]} == {1, 3, 5}


@pytest.mark.parametrize(("fault", "expected"), [
    ('{ kind = "exposed_card", seat = 3, round = 2 }', {("card_exposed", 3): 1}),
    ('{ kind = "out_of_turn", seat = 5, round = 3 }', {("card_out_of_turn", 5): 1}),
    # seat 1 deals first anyway: it swaps with the next seat, whose card then comes too early
    ('{ kind = "out_of_turn", seat = 1, round = 2 }', {("card_out_of_turn", 3): 1}),
    # the sixth card comes after the dealer's fifth: a card too many
    ('{ kind = "wrong_count", seat = 5, cards = 6 }', {("wrong_card_count", None): 1, ("extra_card", 5): 1}),
    # seat 3 skipped in round 5: the cards after it come out of turn
    ('{ kind = "wrong_count", seat = 3, cards = 4 }',
     {("wrong_card_count", None): 1, ("card_out_of_turn", 5): 1, ("dealer_out_of_turn", 0): 1}),
    ('{ kind = "bet_changed_after_rnvp", seat = 3, amount = 3000 }', {("bet_after_no_more_bets", 3): 1}),
    ('{ kind = "vacant_seat_bet", seat = 2 }', {("bet_on_vacant_seat", 2): 1}),
    ('{ kind = "duplicate_card", seat = 1, round = 3 }', {("duplicate_card", 1): 1}),
    ('{ kind = "player_looks", seat = 3, round = 2 }', {("looked_before_end_of_deal", 3): 1}),
    ('{ kind = "cut_card_missing" }', {("deal_without_cut", None): 1}),
    # the camera and the shoe's line are the sensors' troubles, not the game's: no flag from the rules
    ('{ kind = "camera_dropout", seconds = 1.5 }', {}),
    ('{ kind = "serial_noise", bytes = 40 }', {}),
])
def test_each_fault_gives_exactly_its_flag(fault, expected):
    assert _flags(BASE + f"faults = [{fault}]\n") == Counter(expected)


def test_a_card_exposed_while_the_camera_is_out_is_not_expected_to_be_flagged():
    assert _flags(BASE + 'faults = [{ kind = "exposed_card", seat = 3, round = 2 }, '
                         '{ kind = "camera_dropout" }]\n') == Counter()


def test_the_faults_leave_their_marks_on_the_timeline():
    text = BASE + ('faults = [{ kind = "camera_dropout", seconds = 2.5 }, { kind = "serial_noise", bytes = 33 }, '
                   '{ kind = "cut_card_missing" }]\n')
    steps = build_timeline(parse_script(text)).coups[0].steps
    assert [s for s in steps if isinstance(s, CameraDropout)] == [CameraDropout(False, 2.5), CameraDropout(True)]
    noise = [s for s in steps if isinstance(s, SerialNoise)]
    assert len(noise) == 1 and len(noise[0].data) == 33 and 0 not in noise[0].data  # one chunk, no frame end
    assert not any(isinstance(s, CutCardSensor) for s in steps)
    clean = build_timeline(parse_script(BASE)).coups[0].steps
    assert [s.seen for s in clean if isinstance(s, CutCardSensor)] == [True, False]
    assert [s.button for s in clean if isinstance(s, ButtonPress)][:2] == ["no_more_bets", "end_of_deal"]
    assert [s.count for s in clean if isinstance(s, ShoeDraw)] == list(range(1, 21))  # 3 seats + dealer, 5 each


def test_the_duplicate_is_a_copy_of_the_dealers_card_of_the_round_before():
    text = BASE + 'faults = [{ kind = "duplicate_card", seat = 1, round = 3 }]\n'
    steps = build_timeline(parse_script(text)).coups[0].steps
    scenes = [s.scene for s in steps if isinstance(s, SceneChange)]
    dealt = max(scenes, key=lambda scene: len(scene.cards))
    seat_1, dealer = dealt.hand(1), dealt.hand(0)
    assert parse_card(seat_1[2].card) == parse_card(dealer[1].card)


def test_direct_vision_sees_only_while_the_camera_is_on_and_catches_up_after():
    text = BASE + 'faults = [{ kind = "camera_dropout" }]\n'
    steps = build_timeline(parse_script(text)).coups[0].steps
    vision = DirectVision()
    published: list[tuple[str, object]] = []
    for step in steps:
        if isinstance(step, SceneChange):
            published += vision.see(step.scene)
    camera = [body.online for topic, body in published if topic == "vision.camera"]  # type: ignore[attr-defined]
    assert camera == [False, True]
    placed = [body for topic, body in published if type(body).__name__ == "CardPlaced"]
    assert len(placed) == 20  # every card, those dealt unseen included once the camera is back
