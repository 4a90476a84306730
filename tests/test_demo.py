"""The main job: ``stud-table demo`` runs the real stack (proxy, engine, store, web) on the virtual table."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_demo_headless_plays_the_coups_through_the_real_stack_and_exits_0(tmp_path):
    result = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--coups", "3", "--headless",
                             "--folder", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "croupier display: http://127.0.0.1:" in out
    assert [line.split(":")[0] for line in out.splitlines() if line.startswith("coup ")] == ["coup 1", "coup 2",
                                                                                           "coup 3"]
    assert "3 coups played" in out
    store = tmp_path / "var" / "events.sqlite"
    db = sqlite3.connect(store)
    settled = db.execute("SELECT COUNT(*) FROM coups WHERE settlement IS NOT NULL").fetchone()[0]
    db.close()
    assert settled == 3
    check = subprocess.run([sys.executable, "-m", "controller.cli", "verify-log", str(store)], cwd=ROOT,
                           capture_output=True, text=True)
    assert check.returncode == 0 and "the chain is intact" in check.stdout
