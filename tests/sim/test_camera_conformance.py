"""The camera conformance benchmark's comparison (benchmarks/camera_conformance.py): two runs of the same coups with
the perfect camera agree exactly, and a changed payout, a false flag, a missed flag and a voided coup are counted."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def conformance():
    spec = importlib.util.spec_from_file_location("camera_conformance", ROOT / "benchmarks" / "camera_conformance.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.fixture(scope="module")
def demo_script_twice(conformance, tmp_path_factory):
    part = conformance.Part("demo script", ["--script", "deploy/demo-script.toml"])
    folder = tmp_path_factory.mktemp("conformance")
    # what is checked is the comparison: the patient dealer, instant with the perfect camera, plays it fastest
    conformance.play(part, "direct", folder / "a", timeout_s=300, dealer="patient")
    first = part.coups["direct"]
    conformance.play(part, "direct", folder / "b", timeout_s=300, dealer="patient")
    assert part.failed == {}
    part.coups["rendered"], part.seconds["rendered"] = part.coups["direct"], part.seconds["direct"]
    part.coups["direct"] = first
    return part


def test_two_runs_with_the_perfect_camera_agree(conformance, demo_script_twice) -> None:
    result = conformance.compare([demo_script_twice])
    assert result["coups"] == 7 and result["settlements_identical"] == 1.0
    assert result["false_flags"] == result["missed_flags"] == result["voided_differently"] == 0
    assert result["differences"] == []
    # the script's faults were raised, so the flags compared are not empty
    assert sum(sum(coup.flags.values()) for coup in demo_script_twice.coups["direct"].values()) == 12


def test_a_changed_payout_and_flags_are_counted(conformance, demo_script_twice) -> None:
    perfect = demo_script_twice.coups["direct"]
    assert all(coup.settled for coup in perfect.values())
    changed = dict(perfect)
    first, *rest = perfect[1].payouts
    changed[1] = dataclasses.replace(perfect[1], payouts=(first[:2] + (first[2] + 500,), *rest))
    changed[2] = dataclasses.replace(perfect[2], flags=perfect[2].flags + Counter({("bet_after_no_more_bets", 4): 2}))
    # voided by the chief: every line returned, and his own flag
    changed[3] = dataclasses.replace(perfect[3], void=True, payouts=tuple((s, line, 0) for s, line, _ in
                                                                          perfect[3].payouts),
                                     flags=Counter({("coup_declared_void", None): 1}))
    del changed[7]  # never recorded by the rendered run
    part = conformance.Part("changed", [], coups={"direct": perfect, "rendered": changed},
                            seconds={"direct": 1.0, "rendered": 6.0})
    result = conformance.compare([part])
    assert result["coups"] == 7 and result["settlements_identical_count"] == 4  # 2 (flags only), 4, 5, 6
    assert result["voided_differently"] == 1 and result["coups_unmatched"] == 1
    assert result["false_flags_by_kind"] == {"bet_after_no_more_bets": 2, "coup_declared_void": 1}
    assert result["missed_flags"] == sum(perfect[3].flags.values()) + sum(perfect[7].flags.values()) > 1
    lines = result["differences"]
    assert "changed coup 1: payouts (seat, line, net cents) of the perfect camera's run only " \
           f"[{first}], of the rendered camera's run only [{first[:2] + (first[2] + 500,)}]" in lines
    assert "changed coup 3: void in the rendered camera's run only" in lines
    assert "changed coup 7: recorded by the perfect camera's run only" in lines
    assert result["seconds_per_coup"] == {"direct": round(1 / 7, 2), "rendered": 1.0}


def test_flags_of_a_coup_never_settled_are_read(conformance, tmp_path) -> None:
    """A coup the engine flagged but never settled (the stack stopped mid-coup) still has its flags compared."""
    import sqlite3

    from controller.store import EventStore

    path = tmp_path / "events.sqlite"
    EventStore(path).close()  # the real schema
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA ignore_check_constraints = 1")
        db.execute("PRAGMA foreign_keys = OFF")
        db.execute("INSERT INTO flags VALUES (1, 0, 4, 'card_exposed', 'warning', 2, 'seen')")
    coups = conformance.read_store(path)
    assert coups == {4: conformance.Coup(False, False, (), Counter())}
    assert coups[4].flags == Counter({("card_exposed", 2): 1})


@pytest.mark.slow
def test_a_slice_through_the_rendered_camera_settles_exactly_as_the_perfect_camera(conformance, tmp_path) -> None:
    """The demo script's first two coups, through the whole stack with each camera: a raise, a fold, a bonus, a
    card bought (the discard taken away, the bought card dealt in its place), then a card exposed during the deal
    and the camera unplugged for two rounds. Every box's settlement, every flag and the voids agree."""
    part = conformance.Part("slice", ["--script", "deploy/demo-script.toml", "--coups", "2"])
    for camera in ("direct", "rendered"):
        conformance.play(part, camera, tmp_path / camera, timeout_s=600)
    assert part.failed == {}
    result = conformance.compare([part])
    assert result["differences"] == []
    assert (result["coups"], result["settlements_identical"], result["false_flags"], result["missed_flags"],
            result["voided_differently"], result["coups_unmatched"]) == (2, 1.0, 0, 0, 0, 0)
    assert sum(sum(coup.flags.values()) for coup in part.coups["direct"].values()) >= 1  # the exposed card's flag
