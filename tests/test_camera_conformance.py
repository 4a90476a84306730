"""The camera conformance benchmark's comparison (benchmarks/camera_conformance.py): two runs of the same coups with
the perfect camera agree exactly, and a changed payout, a false flag, a missed flag and a voided coup are counted."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
    conformance.play(part, "direct", folder / "a")
    first = part.coups["direct"]
    conformance.play(part, "direct", folder / "b")
    part.coups["rendered"], part.seconds["rendered"] = part.coups["direct"], part.seconds["direct"]
    part.coups["direct"] = first
    return part


def test_two_runs_with_the_perfect_camera_agree(conformance, demo_script_twice) -> None:
    result = conformance.compare([demo_script_twice])
    assert result["coups"] == 7 and result["settlements_identical"] == 1.0
    assert result["false_flags"] == result["missed_flags"] == result["voided_differently"] == 0
    assert result["differences"] == []
    # the script's faults were raised, so the flags compared are not empty
    assert sum(sum(coup.flags.values()) for coup in demo_script_twice.coups["direct"].values()) == 9


def test_a_changed_payout_and_flags_are_counted(conformance, demo_script_twice) -> None:
    perfect = demo_script_twice.coups["direct"]
    changed = dict(perfect)
    first, *rest = perfect[1].payouts
    changed[1] = dataclasses.replace(perfect[1], payouts=(first[:2] + (first[2] + 500,), *rest))
    changed[2] = dataclasses.replace(perfect[2], flags=perfect[2].flags + Counter({("bet_after_no_more_bets", 4): 2}))
    changed[3] = dataclasses.replace(perfect[3], flags=Counter(), void=True)
    part = conformance.Part("changed", [], coups={"direct": perfect, "rendered": changed},
                            seconds={"direct": 1.0, "rendered": 7.0})
    result = conformance.compare([part])
    assert result["settlements_identical_count"] == 5 and result["voided_differently"] == 1
    assert result["false_flags_by_kind"] == {"bet_after_no_more_bets": 2}
    assert result["missed_flags"] == sum(perfect[3].flags.values()) > 0
    assert any(line.startswith("changed coup 1: payouts differ") for line in result["differences"])
    assert result["seconds_per_coup"] == {"direct": 0.1, "rendered": 1.0}
