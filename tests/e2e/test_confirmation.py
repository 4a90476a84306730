"""End to end: a camera that cannot vouch for some chips. The engine holds each such zone « à confirmer », the
virtual dealer keys what lies there, and every coup still settles and flags exactly as the pure rules core says."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

import zmq

from controller.bus.schema import AnyBody, ChipsChanged
from controller.sim.devices import VirtualPins
from controller.sim.scene import SceneState
from controller.sim.script import parse_script
from controller.sim.stack import start_stack, wait_for_engine
from controller.sim.virtual_table import VirtualTable
from controller.sim.world import DirectVision, build_timeline

SCRIPT = """
profile = "fr-2007"
seats = [1, 3]

[[coup]]
seed = 21
bets = { 1 = { ante = 2000 }, 3 = { ante = 1500 } }
decisions = { 1 = "raise", 3 = "raise" }
faults = [{ kind = "overpay", amount = 500 }]

[[coup]]
seed = 22
bets = { 1 = { ante = 1000 }, 3 = { ante = 3500 } }
decisions = { 1 = "raise", 3 = "fold" }
"""


class DoubtingVision(DirectVision):
    """A perfect camera, except that it cannot vouch for any ante holding chips: it reads it 5 € off, unsure, every
    other time with the right amount as its next likeliest (the display offers it to tap). With ``settles``, the
    right reading follows at once, sure (the camera's next frames settling its doubt)."""

    def __init__(self, settles: bool = False) -> None:
        super().__init__()
        self.settles = settles
        self.doubts = 0
        self.offered: set[tuple[int, int]] = set()

    def see(self, scene: SceneState) -> list[tuple[str, AnyBody]]:
        events = []
        for topic, body in super().see(scene):
            if isinstance(body, ChipsChanged) and body.box == "ante" and body.amount:
                offered = body.amount if self.doubts % 2 else 0
                if offered:
                    self.offered.add((body.seat, offered))
                events.append((topic, ChipsChanged(body.seat, body.box, body.amount + 500, sure=False,
                                                   alternative=offered)))
                self.doubts += 1
                if not self.settles:
                    continue
            events.append((topic, body))
        return events


class TopChipVision(DirectVision):
    """A perfect camera, except that a casino stack of two identical chips looks to it like one chip, and it is
    sure of it: the silent misread an overhead camera can make (models/EXPERIMENTS.md, 2026-12-06)."""

    def __init__(self) -> None:
        super().__init__()
        self.misreads = 0

    def see(self, scene: SceneState) -> list[tuple[str, AnyBody]]:
        events = []
        stacks = {(stack.seat, stack.box): stack for stack in scene.chips}
        for topic, body in super().see(scene):
            stack = stacks.get((body.seat, body.box)) if isinstance(body, ChipsChanged) else None
            if stack is not None and stack.stacked and len(stack.chips) == 2 and stack.chips[0] == stack.chips[1]:
                body = ChipsChanged(body.seat, body.box, stack.chips[1])
                self.misreads += 1
            events.append((topic, body))
        return events


class StackBlindVision(DirectVision):
    """A perfect camera, except that it cannot count a casino stack: it reads its top chip, unsure, as a stack's
    reading; once the stack is spread, it reads the zone right and sure."""

    def see(self, scene: SceneState) -> list[tuple[str, AnyBody]]:
        stacked_before = {(s.seat, s.box): s.stacked for s in self.seen.chips}
        stacks = {(s.seat, s.box): s for s in scene.chips}
        events = []
        for topic, body in super().see(scene):
            stack = stacks.get((body.seat, body.box)) if isinstance(body, ChipsChanged) else None
            if stack is not None and stack.stacked:
                body = ChipsChanged(body.seat, body.box, stack.chips[-1], sure=False, stacked=True)
            events.append((topic, body))
        for (seat, box), stack in stacks.items():
            if stacked_before.get((seat, box)) and not stack.stacked:
                events.append(("vision.chips", ChipsChanged(seat, box, sum(stack.chips))))  # type: ignore[arg-type]
        return events


def _play(tmp_path, vision: DirectVision, script_text: str = SCRIPT, stacked_bets: str = "confirm"):
    """The script played on the real stack with ``vision`` for a camera: the timeline and the virtual table's results
    (the dealer's confirmations among them)."""
    script = parse_script(script_text)
    timeline = build_timeline(script)
    stack = start_stack(tmp_path, script.profile, stacked_bets=stacked_bets)
    context = zmq.Context()
    pins = table = None
    try:
        wait_for_engine(stack)
        pins = VirtualPins(context, f"ipc://{stack.folder}/run/pins.sock", keys=stack.keys)
        table = VirtualTable(stack.bus, stack.folder, stack.shoe, pins, vision=vision,
                             spreads_stacks=stacked_bets == "spread")
        table.wait_ready()
        table.play(timeline.opening)
        for plan in timeline.coups:
            table.play(plan.steps)
            table.finish_coup(plan)
        table.pause(0.5)
        return timeline, table.results
    finally:
        for part in (table, pins):
            if part is not None:
                part.close()
        stack.stop()
        context.destroy(linger=0)


def _recorded(tmp_path) -> tuple[Counter, dict[int, object]]:
    db = sqlite3.connect(tmp_path / "var" / "events.sqlite")
    try:
        flags = Counter(db.execute("SELECT coup, kind, seat FROM flags").fetchall())
        settled = {number: json.loads(settlement) for number, settlement
                   in db.execute("SELECT number, settlement FROM coups WHERE settlement IS NOT NULL")}
    finally:
        db.close()
    return flags, settled


def test_every_doubt_is_confirmed_by_the_dealer_and_the_coups_settle_as_the_rules_core_says(tmp_path):
    vision = DoubtingVision()
    timeline, results = _play(tmp_path, vision)
    confirmations = results.confirmations
    # each ante read wrong and unsure, while bet and while paid, was keyed by the dealer with what lay there
    assert vision.doubts >= 4 and len(confirmations) == vision.doubts
    assert all(zone == "ante" and amount > 0 for _coup, _seat, zone, amount in confirmations)
    # an amount offered beside the reading is one tap; the others are keyed, digit by digit (« 20 »). While paying,
    # he keys what lies in the zone once paid, which was not offered (the camera's reading was of the zone before)
    digits = results.confirmation_digits
    tapped = [(seat, amount) for d, (_coup, seat, _zone, amount) in zip(digits, confirmations, strict=True) if d == 0]
    assert len(tapped) >= 2 and set(tapped) <= vision.offered
    assert all(d == len(str(amount // 100)) for d, (*_, amount) in zip(digits, confirmations, strict=True) if d)
    flags, settled = _recorded(tmp_path)
    assert flags == Counter((f.coup, f.kind, f.seat) for plan in timeline.coups for f in plan.flags)
    assert (1, "overpaid", 3) in flags or (1, "overpaid", 1) in flags
    assert settled == {plan.number: plan.settlement for plan in timeline.coups}


def test_a_doubt_the_camera_settles_itself_is_not_keyed_by_the_dealer(tmp_path):
    """The display drops its question once the camera reads the zone surely; the dealer, looking at it, keys
    nothing, even where the question was up a moment before."""
    vision = DoubtingVision(settles=True)
    timeline, results = _play(tmp_path, vision)
    confirmations = results.confirmations
    assert vision.doubts >= 4 and confirmations == []
    flags, settled = _recorded(tmp_path)
    assert flags == Counter((f.coup, f.kind, f.seat) for plan in timeline.coups for f in plan.flags)
    assert settled == {plan.number: plan.settlement for plan in timeline.coups}


def test_an_ante_misread_surely_is_counted_by_the_dealer_once_the_raise_is_not_twice_it(tmp_path):
    """Seat 1's 50 € ante is two 25 € chips stacked, read as one: its 100 € raise (one chip) is not twice the ante
    read, so the dealer is asked the raise, then the ante, then the raise again, and the coup settles and flags as
    the rules core says (without the ante's count: the raise flagged, the ante paid 25 €)."""
    script = """
profile = "fr-2007"
seats = [1, 3]

[[coup]]
seed = 21
bets = { 1 = { ante = 5000 }, 3 = { ante = 1500 } }
decisions = { 1 = "raise", 3 = "raise" }
stacked = [1]
"""
    vision = TopChipVision()
    timeline, results = _play(tmp_path, vision, script)
    confirmations = results.confirmations
    assert vision.misreads >= 1
    asked = [(seat, zone, amount) for _coup, seat, zone, amount in confirmations]
    assert asked[:3] == [(1, "raise", 10000), (1, "ante", 5000), (1, "raise", 10000)]
    # the camera's readings of that ante are doubted from then on: he keys what he paid there (the dealer does
    # not qualify: 50 € on the 50 € ante)
    assert (1, "ante", 10000) in asked[3:]
    flags, settled = _recorded(tmp_path)
    assert flags == Counter((f.coup, f.kind, f.seat) for plan in timeline.coups for f in plan.flags)
    assert settled == {plan.number: plan.settlement for plan in timeline.coups}


STACKED = """
profile = "fr-2007"
seats = [2, 5, 7]

[[coup]]
seed = 23
bets = { 2 = { ante = 3500 }, 5 = { ante = 2000 }, 7 = { ante = 10000 } }
decisions = { 2 = "raise", 5 = "fold", 7 = "raise" }
stacked = [2, 5, 7]
"""


def test_where_the_house_spreads_stacked_bets_the_dealer_has_each_spread_and_keys_no_amount(tmp_path):
    """``stacked_bets = "spread"``: each stack the camera cannot count is asked spread, the camera reads the pile,
    and the coup settles and flags as the rules core says with no amount keyed."""
    vision = StackBlindVision()
    timeline, results = _play(tmp_path, vision, STACKED, stacked_bets="spread")
    # the antes, and the raises (a stacked seat raises in a stack too); seat 5 folds
    assert sorted((seat, zone) for _coup, seat, zone in results.spreads) == [
        (2, "ante"), (2, "raise"), (5, "ante"), (7, "ante"), (7, "raise")]
    assert results.confirmations == []
    flags, settled = _recorded(tmp_path)
    assert flags == Counter((f.coup, f.kind, f.seat) for plan in timeline.coups for f in plan.flags)
    assert settled == {plan.number: plan.settlement for plan in timeline.coups}


def test_where_the_house_confirms_stacked_bets_the_dealer_keys_each(tmp_path):
    vision = StackBlindVision()
    timeline, results = _play(tmp_path, vision, STACKED)
    assert results.spreads == []
    keyed = {(seat, zone, amount) for _coup, seat, zone, amount in results.confirmations}
    assert {(2, "ante", 3500), (2, "raise", 7000), (5, "ante", 2000), (7, "ante", 10000)} <= keyed
    _flags, settled = _recorded(tmp_path)
    assert settled == {plan.number: plan.settlement for plan in timeline.coups}
