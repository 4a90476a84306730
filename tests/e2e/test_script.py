"""End to end: deploy/demo-script.toml played through the whole table stack (proxy, engine, store, web, sensors on
mock pins, the shoe's firmware on a pty, the camera's observations), then the store checked against what the pure
rules core says the script must give: every expected flag, no other, and each coup's payouts."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from controller.sim.script import load_script
from controller.sim.world import build_timeline

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "demo-script.toml"


def test_the_demo_script_through_the_whole_stack_leaves_exactly_the_expected_flags_and_payouts(tmp_path):
    timeline = build_timeline(load_script(SCRIPT))
    expected_flags = Counter((flag.coup, flag.kind, flag.severity, flag.seat)
                             for plan in timeline.coups for flag in plan.flags)
    assert len(expected_flags) >= 9  # the script is meant to use every fault; a script gone soft fails here

    result = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--script", str(SCRIPT), "--headless",
                             "--camera", "direct", "--folder", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=420)
    logs = "".join(f"\n--- {name}\n{(tmp_path / name).read_text()[-3000:]}" for name in ("table.log", "sensors.log")
                   if (tmp_path / name).exists())
    assert result.returncode == 0, result.stdout + result.stderr + logs
    assert f"{len(timeline.coups)} coups played" in result.stdout

    store = tmp_path / "var" / "events.sqlite"
    db = sqlite3.connect(store)
    try:
        stored_flags = Counter(db.execute("SELECT coup, kind, severity, seat FROM flags").fetchall())
        coups = {number: (bool(void), json.loads(settlement)) for number, void, settlement
                 in db.execute("SELECT number, void, settlement FROM coups WHERE settlement IS NOT NULL")}
    finally:
        db.close()
    assert stored_flags - expected_flags == Counter(), "flags the script does not call for"
    assert expected_flags - stored_flags == Counter(), "flags the table missed"

    assert sorted(coups) == [plan.number for plan in timeline.coups]
    for plan in timeline.coups:  # the whole settlement: payouts line by line, announcements, the house's net
        void, settlement = coups[plan.number]
        assert (void, settlement) == (plan.settlement["void"], plan.settlement), f"coup {plan.number}"
    assert any(void for void, _ in coups.values())  # the wrong count voids its coup

    check = subprocess.run([sys.executable, "-m", "controller.cli", "verify-log", str(store)], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and "the chain is intact" in check.stdout, check.stdout + check.stderr


@pytest.mark.slow
def test_a_decision_time_running_out_is_waited_for_keyed_and_decided_by_the_rule(tmp_path):
    script = tmp_path / "timeout.toml"
    script.write_text((ROOT / "benchmarks" / "decision-timeout.toml").read_text().split("\n[[coup]]\nseed = 2")[0])
    timeline = build_timeline(load_script(script))
    assert [f.kind for f in timeline.coups[0].flags] == ["decision_timeout"]
    result = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--script", str(script), "--headless",
                             "--camera", "direct", "--folder", str(tmp_path / "run")],
                            cwd=ROOT, capture_output=True, text=True, timeout=420)
    assert result.returncode == 0, result.stdout + result.stderr
    db = sqlite3.connect(tmp_path / "run" / "var" / "events.sqlite")
    try:
        flags = db.execute("SELECT kind, seat FROM flags").fetchall()
        (settlement,) = db.execute("SELECT settlement FROM coups WHERE number = 1").fetchone()
    finally:
        db.close()
    assert flags == [("decision_timeout", 4)]
    assert json.loads(settlement) == timeline.coups[0].settlement  # the rule raised for seat 4: its raise was paid
