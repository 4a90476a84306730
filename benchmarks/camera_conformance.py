"""Conformance of the camera: the same coups played through the rendered camera and through the perfect camera,
compared coup by coup.

Run from the repository root (the rendered camera takes about half a minute a coup on 2 cores)::

    .venv/bin/python benchmarks/camera_conformance.py                     # the default corpus, a table of figures
    .venv/bin/python benchmarks/camera_conformance.py --json
    .venv/bin/python benchmarks/camera_conformance.py --script deploy/demo-script.toml --random 0

Each part of the corpus is played twice by ``stud-table demo --headless`` (the real stack: bus, engine, store,
sensors, the vision process): once with ``--camera direct`` (the observations a perfect camera publishes) and once
with ``--camera rendered`` (frames drawn and read by the vision process with the committed models). Both event
stores are then read, and for each coup compared:

- the settlement: every box's net result in cents (seat, line), and whether the coup was voided;
- the flags: (kind, seat) as a multiset. A flag only the rendered run raised is a false flag; one only the perfect
  camera's run raised is a missed flag.

The corpus: ``deploy/demo-script.toml`` (every fault kind of the script once) and ``--random`` coups drawn from a
seed for each profile (1 to 7 seats, bonus, purchase, jackpot as the profile has them). Wall time per coup is each
run's, as the demo measures it. It reports what it measures; it is never a timed test.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILES = ("fr-1959", "fr-2007", "it", "caribbean", "caribbean-us")


@dataclass(frozen=True)
class Coup:
    """What the store recorded of one coup."""

    void: bool
    payouts: tuple[tuple[int, str, int], ...]  # (seat, line, net cents), sorted
    flags: Counter = field(compare=False)  # (kind, seat) -> count


@dataclass
class Part:
    """One part of the corpus, played with both cameras."""

    name: str
    args: list[str]
    coups: dict[str, dict[int, Coup]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def read_store(path: Path) -> dict[int, Coup]:
    """Every coup of an event store: its settlement's payouts (None for a coup never settled) and its flags."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        flags: dict[int, Counter] = {}
        for coup, kind, seat in db.execute("SELECT coup, kind, seat FROM flags"):
            flags.setdefault(coup, Counter())[(kind, seat)] += 1
        coups = {}
        for number, void, settlement in db.execute("SELECT number, void, settlement FROM coups ORDER BY number"):
            data = json.loads(settlement) if settlement else {"payouts": []}
            payouts = tuple(sorted((p["seat"], p["line"], p["net"]) for p in data["payouts"]))
            coups[number] = Coup(bool(void) or bool(data.get("void")), payouts, flags.get(number, Counter()))
    return coups


def play(part: Part, camera: str, folder: Path) -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--headless", "--camera", camera,
                           "--folder", str(folder), *part.args], cwd=ROOT, capture_output=True, text=True)
    part.seconds[camera] = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"{part.name} ({camera}): the demo exited {done.returncode}: {done.stderr.strip()[-500:]}")
    part.coups[camera] = read_store(folder / "var" / "events.sqlite")


def compare(parts: list[Part]) -> dict[str, object]:
    coups = same = voided_differently = 0
    false_flags: Counter = Counter()
    missed_flags: Counter = Counter()
    differences: list[str] = []
    for part in parts:
        perfect, rendered = part.coups["direct"], part.coups["rendered"]
        for number in sorted(set(perfect) | set(rendered)):
            coups += 1
            want, got = perfect.get(number), rendered.get(number)
            if want is None or got is None:
                only = "rendered" if want is None else "perfect"
                differences.append(f"{part.name} coup {number}: recorded by the {only} camera's run only")
                continue
            same += want == got
            voided_differently += want.void != got.void
            if want.payouts != got.payouts:
                wrong = sorted(set(want.payouts) ^ set(got.payouts))
                differences.append(f"{part.name} coup {number}: payouts differ {wrong}")
            for kind_seat, count in (got.flags - want.flags).items():
                false_flags[kind_seat[0]] += count
                differences.append(f"{part.name} coup {number}: false flag {kind_seat} x{count}")
            for kind_seat, count in (want.flags - got.flags).items():
                missed_flags[kind_seat[0]] += count
                differences.append(f"{part.name} coup {number}: missed flag {kind_seat} x{count}")
    played = {camera: sum(len(p.coups[camera]) for p in parts) for camera in ("direct", "rendered")}
    return {
        "coups": coups,
        "settlements_identical": round(same / coups, 3) if coups else None,
        "settlements_identical_count": same,
        "voided_differently": voided_differently,
        "false_flags": sum(false_flags.values()), "false_flags_by_kind": dict(false_flags),
        "missed_flags": sum(missed_flags.values()), "missed_flags_by_kind": dict(missed_flags),
        "confirmations_per_coup": None,  # the dealer's confirmations are not built yet
        "seconds_per_coup": {camera: round(sum(p.seconds[camera] for p in parts) / max(1, played[camera]), 1)
                             for camera in ("direct", "rendered")},
        "differences": differences,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--script", action="append", default=None,
                        help="a coup script (repeatable; default deploy/demo-script.toml)")
    parser.add_argument("--random", type=int, default=3, help="random coups per profile (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    scripts = args.script if args.script is not None else ["deploy/demo-script.toml"]
    parts = [Part(f"script {s}", ["--script", s]) for s in scripts]
    if args.random:
        parts += [Part(f"{profile} seed {args.seed}", ["--coups", str(args.random), "--seed", str(args.seed),
                                                         "--profile", profile]) for profile in PROFILES]
    with tempfile.TemporaryDirectory(prefix="conformance-") as work:
        for k, part in enumerate(parts):
            for camera in ("direct", "rendered"):
                print(f"[{k + 1}/{len(parts)}] {part.name}: {camera} camera", file=sys.stderr, flush=True)
                play(part, camera, Path(work) / f"{k}-{camera}")
    result = compare(parts)
    if args.json:
        print(json.dumps(result))
        return 0
    for key, value in result.items():
        if key != "differences":
            print(f"{key}: {value}")
    print("differences:" if result["differences"] else "differences: none")
    for line in result["differences"]:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
