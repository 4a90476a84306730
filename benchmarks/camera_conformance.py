"""Conformance of the camera: the same coups played through the rendered camera and through the perfect camera,
compared coup by coup.

Run from the repository root (the rendered camera takes about half a minute a coup on 2 cores)::

    .venv/bin/python benchmarks/camera_conformance.py                     # the default corpus, a table of figures
    .venv/bin/python benchmarks/camera_conformance.py --json
    .venv/bin/python benchmarks/camera_conformance.py --script deploy/demo-script.toml --random 0
    .venv/bin/python benchmarks/camera_conformance.py --no-script --random 20 --json   # 100 fresh coups
    .venv/bin/python benchmarks/camera_conformance.py --no-script --random 20 --profile it --json   # one profile

Each part of the corpus is played twice by ``stud-table demo --headless`` (the real stack: bus, engine, store,
sensors, the vision process): once with ``--camera direct`` (the observations a perfect camera publishes) and once
with ``--camera rendered`` (frames drawn and read by the vision process with the committed models). Both event
stores are then read, and for each coup compared:

- the settlement: every box's net result in cents (seat, line), and whether the coup was voided;
- the flags: (kind, seat) as a multiset. A flag only the rendered run raised is a false flag; one only the perfect
  camera's run raised is a missed flag.

With ``--condition NAME`` (repeatable) the corpus is also played by the rendered camera under that condition
(``controller/sim/conditions.py``: sensor noise, motion blur, compression, glare, a blue felt, another deck, a knocked
camera), each compared apart with the perfect camera's run (``by_camera`` in the JSON).

It also counts the dealer's confirmations: the amounts the virtual dealer keyed because the camera could not vouch
for a zone's chips, and the cards he named because it could not tell them (the demo's summary lines), per run and
per coup of the rendered camera; and of the amounts, those that were neither the camera's reading nor the likeliest
amount but it (the two the display offers), with their digits: what he keys where a tap does not do.

The corpus: ``deploy/demo-script.toml`` (every fault kind of the script once), ``benchmarks/decision-timeout.toml``
(a player's decision time running out, waited for real: about 35 s a coup), ``benchmarks/high-stakes.toml`` (piles of
100 € chips too tall to count, which the dealer confirms), ``benchmarks/stacked.toml`` (bets built as casino
stacks, which the dealer confirms) and ``--random`` coups for each profile, in sessions of ``--session`` coups, each
drawn from a seed of its own (1 to 7 seats, bonus, purchase, jackpot as the profile has them; what they hold is
reported under ``random_coups_cover``). The time per
coup is the demo's own (« N coups played in X s »: the stack's start and the models' loading left out). It reports
what it measures; it is never a timed test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import secrets
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.profiles import profile_names  # noqa: E402
from controller.sim.conditions import CONDITIONS, DEFAULT_FRAME_SIZE, frame_size  # noqa: E402
from controller.sim.script import RANDOM_FAULTS, random_script  # noqa: E402

#: random coups played in one session (one demo run, one draw of seats)
SESSION_COUPS = 5
#: seconds between the start of the perfect camera's run and the rendered one's beside it: each stack probes for a
#: free port for its web server, then binds it; two probing at once could pick the same
STAGGER_S = 5.0

#: the scripts of the default corpus: every fault kind of the script once, a decision timer running out, and piles
#: too tall to count (the dealer confirms them)
DEFAULT_SCRIPTS = ["deploy/demo-script.toml", "benchmarks/decision-timeout.toml", "benchmarks/high-stakes.toml",
                   "benchmarks/stacked.toml"]


@dataclass(frozen=True)
class Coup:
    """What the store recorded of one coup."""

    settled: bool
    void: bool
    payouts: tuple[tuple[int, str, int], ...]  # (seat, line, net cents), sorted
    flags: Counter = field(compare=False)  # (kind, seat) -> count


@dataclass
class Part:
    """One part of the corpus, played with both cameras."""

    name: str
    args: list[str]
    coups: dict[str, dict[int, Coup]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # the demo's own time for its coups
    #: the amounts the dealer keyed because the camera could not vouch for them
    confirmations: dict[str, int] = field(default_factory=dict)
    #: of those amounts, the ones that were not among the two the display offers (the camera's reading and the
    #: likeliest but it), and their digits: what he would key where he taps one of the two otherwise
    keyed: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the stacks the dealer had spread for the camera (``--stacked-bets spread``)
    spreads: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)


def read_store(path: Path) -> dict[int, Coup]:
    """Every coup of an event store that was settled or flagged: its payouts (none while it never settled) and its
    flags."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        flags: dict[int, Counter] = {}
        for coup, kind, seat in db.execute("SELECT coup, kind, seat FROM flags"):
            flags.setdefault(coup, Counter())[(kind, seat)] += 1
        settled = {number: (bool(void), json.loads(settlement))
                   for number, void, settlement in db.execute("SELECT number, void, settlement FROM coups")}
    coups = {}
    for number in sorted(set(flags) | set(settled)):
        void, data = settled.get(number, (False, None))
        payouts = tuple(sorted((p["seat"], p["line"], p["net"]) for p in data["payouts"])) if data else ()
        coups[number] = Coup(data is not None, void or bool(data and data.get("void")), payouts,
                             flags.get(number, Counter()))
    return coups


def play(part: Part, camera: str, folder: Path, timeout_s: float,
         camera_size: tuple[int, int] = DEFAULT_FRAME_SIZE, dealer: str = "real") -> None:
    """``part`` played by the demo with ``camera`` (``rendered``, or ``rendered+CONDITION``, or ``direct``; a
    rendered camera's frames of ``camera_size``); a run that fails or hangs is recorded as failed, not fatal."""
    kind, _, condition = camera.partition("+")
    try:
        done = subprocess.run([sys.executable, "-m", "controller.cli", "demo", "--headless", "--camera", kind,
                               *(["--camera-condition", condition] if condition else []),
                               *(["--camera-size", f"{camera_size[0]}x{camera_size[1]}"] if kind == "rendered"
                                 else []),
                               "--dealer", dealer, "--folder", str(folder), *part.args], cwd=ROOT,
                              capture_output=True, text=True,
                              timeout=timeout_s)
    except subprocess.TimeoutExpired:
        part.failed[camera] = f"no end after {timeout_s:.0f} s"
        return
    if done.returncode != 0:
        part.failed[camera] = f"the demo exited {done.returncode}: {done.stderr.strip()[-300:]}"
        return
    played = re.search(r"(\d+) coups? played in ([\d.]+) s", done.stdout)
    part.seconds[camera] = float(played.group(2)) if played else float("nan")
    confirmed = re.search(r"amounts the dealer confirmed \(.*?\): (\d+)", done.stdout)
    named = re.search(r"cards the dealer named \(.*?\): (\d+)", done.stdout)
    part.confirmations[camera] = (int(confirmed.group(1)) if confirmed else 0) + (int(named.group(1)) if named else 0)
    keyed = re.search(r"one tap\): \d+; keyed: (\d+) \((\d+) digits\)", done.stdout)
    part.keyed[camera] = (int(keyed.group(1)), int(keyed.group(2))) if keyed else (0, 0)
    spread = re.search(r"stacks the dealer had spread for the camera: (\d+)", done.stdout)
    part.spreads[camera] = int(spread.group(1)) if spread else 0
    part.coups[camera] = read_store(folder / "var" / "events.sqlite")


def compare(parts: list[Part], rendered: str = "rendered") -> dict[str, object]:
    """The perfect camera's runs against the ``rendered`` ones (``rendered+CONDITION`` for a condition's)."""
    coups = same = voided_differently = unmatched = 0
    false_flags: Counter = Counter()
    missed_flags: Counter = Counter()
    differences: list[str] = []
    compared = [part for part in parts if not {"direct", rendered} & set(part.failed)]
    for part in compared:
        perfect, seen = part.coups["direct"], part.coups[rendered]
        if sorted(perfect) != list(range(1, len(perfect) + 1)):
            differences.append(f"{part.name}: the perfect camera's coups are numbered {sorted(perfect)}")
        for number in sorted(set(perfect) | set(seen)):
            coups += 1
            want = perfect.get(number) or Coup(False, False, (), Counter())
            got = seen.get(number) or Coup(False, False, (), Counter())
            where = f"{part.name} coup {number}"
            if number not in perfect or number not in seen:
                unmatched += 1
                differences.append(f"{where}: recorded by the {'rendered' if number in seen else 'perfect'}"
                                   " camera's run only")
            same += want == got
            if want.void != got.void:
                voided_differently += 1
                differences.append(f"{where}: void in the {'rendered' if got.void else 'perfect'} camera's run only")
            elif want.payouts != got.payouts:
                differences.append(f"{where}: payouts (seat, line, net cents) of the perfect camera's run only "
                                   f"{sorted(set(want.payouts) - set(got.payouts))}, of the rendered camera's run "
                                   f"only {sorted(set(got.payouts) - set(want.payouts))}")
            for kind_seat, count in sorted((got.flags - want.flags).items(), key=str):
                false_flags[kind_seat[0]] += count
                differences.append(f"{where}: false flag {kind_seat} x{count}")
            for kind_seat, count in sorted((want.flags - got.flags).items(), key=str):
                missed_flags[kind_seat[0]] += count
                differences.append(f"{where}: missed flag {kind_seat} x{count}")
    cameras = ("direct", rendered)
    played = {camera: sum(len([c for c in p.coups[camera].values() if c.settled]) for p in compared)
              for camera in cameras}
    return {
        "camera": rendered,
        "coups": coups,
        "settlements_identical": round(same / coups, 3) if coups else None,
        "settlements_identical_count": same,
        "voided_differently": voided_differently,
        "coups_unmatched": unmatched,
        "false_flags": sum(false_flags.values()), "false_flags_by_kind": dict(false_flags),
        "missed_flags": sum(missed_flags.values()), "missed_flags_by_kind": dict(missed_flags),
        "confirmations": {camera: sum(p.confirmations.get(camera, 0) for p in compared) for camera in cameras},
        "confirmations_per_coup": round(sum(p.confirmations.get(rendered, 0) for p in compared) / coups, 3)
        if coups else None,
        # amounts confirmed a coup that were neither offered amount (keyed), and their digits
        "amounts_keyed_per_coup": round(sum(p.keyed.get(rendered, (0, 0))[0] for p in compared) / coups, 3)
        if coups else None,
        "digits_keyed_per_coup": round(sum(p.keyed.get(rendered, (0, 0))[1] for p in compared) / coups, 3)
        if coups else None,
        "spreads_per_coup": round(sum(p.spreads.get(rendered, 0) for p in compared) / coups, 3) if coups else None,
        "seconds_per_coup": {camera: round(sum(p.seconds[camera] for p in compared) / max(1, played[camera]), 2)
                             for camera in cameras},
        "parts_failed": {part.name: part.failed for part in parts if part.failed},
        "differences": differences,
    }


def random_sessions(seed: int, per_profile: int, session: int,
                    profiles: list[str] | None) -> list[tuple[str, int, int]]:
    """The random coups as sessions: (profile, seed, coups). Each session has a seed of its own (``seed`` counting
    on, in the order of every profile's sessions, so that a profile played alone keeps the seeds it has in the whole
    corpus), and with it its own seats: no two sessions play the same draw of seats and bets."""
    sessions, number = [], 0
    for profile in profile_names():
        left = per_profile
        while left > 0:
            coups = min(session, left)
            if profiles is None or profile in profiles:
                sessions.append((profile, seed + number, coups))
            number, left = number + 1, left - coups
    return sessions


def coverage(sessions: list[tuple[str, int, int]]) -> dict[str, object]:
    """What the random coups hold, as drawn (``random_script``): seats taken per session, each fault kind, each card
    index bought, bets built as casino stacks."""
    seats: Counter = Counter()
    faults: Counter = Counter()
    bought: Counter = Counter()
    stacked = coups = 0
    for profile, seed, count in sessions:
        script = random_script(seed, count, profile)
        seats[len(script.seats)] += 1
        for coup in script.coups:
            coups += 1
            faults.update(fault.kind for fault in coup.faults)
            bought.update(decision.discard for decision in coup.decisions.values() if decision.action == "buy")
            stacked += len(coup.stacked)
    return {"coups": coups, "sessions": len(sessions), "profiles": sorted({s[0] for s in sessions}),
            "sessions_by_seats": dict(sorted(seats.items())), "faults": dict(sorted(faults.items())),
            "faults_never_drawn": [kind for kind in RANDOM_FAULTS if kind not in faults],
            "cards_bought_by_index": dict(sorted(bought.items())), "stacked_bets": stacked}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--script", action="append", default=None,
                        help=f"a coup script (repeatable; default {' and '.join(DEFAULT_SCRIPTS)})")
    parser.add_argument("--no-script", action="store_true", help="random coups only")
    parser.add_argument("--random", type=int, default=3, help="random coups per profile (default 3)")
    parser.add_argument("--session", type=int, default=SESSION_COUPS,
                        help=f"random coups per session (default {SESSION_COUPS}): each session draws its own seats "
                             "(1 to the profile's most) from a seed of its own")
    parser.add_argument("--seed", type=int, default=None,
                        help="the first profile's seed, the next ones counting on (default: a new one, drawn and "
                             "printed at the start; give it again to replay that corpus)")
    parser.add_argument("--dealer", choices=["real", "patient"], default="real",
                        help="the virtual dealer of both cameras' runs (stud-table demo --dealer)")
    parser.add_argument("--stacked-bets", choices=["confirm", "spread"], default="confirm",
                        help="the house rule for a stacked bet in both cameras' runs (stud-table demo --stacked-bets)")
    parser.add_argument("--profile", action="append", choices=profile_names(), default=None,
                        help="random coups of this profile only (repeatable; default every profile); its seed is "
                             "the one it has in the whole corpus")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="keep each run's folder (configuration, event store, logs) under DIR, to look into a "
                             "difference afterwards")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds one demo run may take (default 1800)")
    parser.add_argument("--condition", action="append", choices=sorted(CONDITIONS), default=[], metavar="NAME",
                        help="also play the corpus with the rendered camera under this condition, compared apart "
                             f"(repeatable): {', '.join(CONDITIONS)}")
    parser.add_argument("--camera-size", type=frame_size, default=DEFAULT_FRAME_SIZE, metavar="WIDTHxHEIGHT",
                        help="the rendered camera's frame in pixels (default 1920x1080)")
    parser.add_argument("--conditions-only", action="store_true",
                        help="with --condition: skip the rendered camera's plain run")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = secrets.randbelow(10**6)
    print(f"camera conformance: random coups from seed {args.seed} (replay: --seed {args.seed}), "
          f"{args.dealer} dealer", file=sys.stderr, flush=True)
    if args.conditions_only and not args.condition:
        parser.error("--conditions-only needs --condition")
    if args.no_script and args.script:
        parser.error("--no-script with --script: give one or the other")
    scripts = [] if args.no_script else args.script if args.script is not None else DEFAULT_SCRIPTS
    parts = [Part(f"script {s}", ["--script", s]) for s in scripts]
    random_parts = random_sessions(args.seed, args.random, args.session, args.profile)
    parts += [Part(f"{profile} seed {seed}", ["--coups", str(coups), "--seed", str(seed), "--profile", profile])
              for profile, seed, coups in random_parts]
    if not parts:
        parser.error("nothing to play: --no-script needs --random 1 or more")
    for part in parts:
        part.args += ["--stacked-bets", args.stacked_bets]
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
    with (contextlib.nullcontext(str(args.keep)) if args.keep is not None
          else tempfile.TemporaryDirectory(prefix="conformance-")) as work:
        renders = ([] if args.conditions_only else ["rendered"]) + [f"rendered+{c}" for c in args.condition]
        for k, part in enumerate(parts):
            print(f"[{k + 1}/{len(parts)}] {part.name}: the direct camera beside the {', '.join(renders)}",
                  file=sys.stderr, flush=True)
            # The perfect camera's run is paced by the dealer, not by the processor: played beside the others
            with ThreadPoolExecutor(max_workers=1) as beside:
                direct = beside.submit(play, part, "direct", Path(work) / f"{k}-direct", args.timeout,
                                       args.camera_size, args.dealer)
                time.sleep(STAGGER_S)
                for camera in renders:
                    play(part, camera, Path(work) / f"{k}-{camera}", args.timeout, args.camera_size, args.dealer)
                direct.result()
    size = f"{args.camera_size[0]}x{args.camera_size[1]}"
    covered = coverage(random_parts)
    results = [{**compare(parts, camera), "camera_size": size, "seed": args.seed, "dealer": args.dealer,
                "stacked_bets": args.stacked_bets,
                "random_coups_cover": covered} for camera in renders]
    result = results[0] if len(results) == 1 else {"by_camera": {r["camera"]: r for r in results}}
    if args.json:
        print(json.dumps(result))
        return 0
    for each in results:
        for key, value in each.items():
            if key != "differences":
                print(f"{key}: {value}")
        print("differences:" if each["differences"] else "differences: none")
        for line in each["differences"]:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
