"""Benchmark of the whole table stack on the virtual table (a benchmark, not a test).

Runs what ``stud-table demo --headless`` runs (proxy, engine with its SQLite store, web, sensors on mock pins, the
shoe's firmware on a pty, the camera's observations) for a fixed number of random coups, as fast as the stack
answers (the table waits for each sensor's event and each coup's payouts, never for a clock), and prints:
  * coups per hour sustained, against a live table's pace of about 60 an hour;
  * CPU seconds (while playing, and in all) and peak RSS of each process, from /proc;
  * the delay from a card landing to its event on the bus (p50, p99): the camera's observation sent to it coming
    back from the proxy, and a card through the shoe's beam to the shoe's count on the bus (pty, serial link,
    sensors process).

With ``--camera rendered`` the camera is the virtual table's rendered frames read by the real vision process
(committed models): the card delay is then from the frame showing the new card to its last observation on the bus,
and the figures say how many of a perfect camera's observations the vision process made.

    .venv/bin/python benchmarks/table.py [--json] [--coups 20] [--seed 1] [--camera direct|rendered]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import zmq

ROOT = Path(__file__).resolve().parent.parent
# In place of this script's folder: benchmarks/vision.py would shadow the vision package (a namespace package).
sys.path[0] = str(ROOT)

from controller.sim.camera import RenderedCamera  # noqa: E402
from controller.sim.demo import plans  # noqa: E402
from controller.sim.devices import VirtualPins  # noqa: E402
from controller.sim.script import random_script  # noqa: E402
from controller.sim.stack import camera_endpoint, start_stack, wait_for_engine  # noqa: E402
from controller.sim.virtual_table import VirtualTable  # noqa: E402

LIVE_COUPS_PER_HOUR = 60
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _delays_ms(values: list[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"count": len(values), "p50": round(percentile(values, 0.5) * 1000, 2),
            "p99": round(percentile(values, 0.99) * 1000, 2), "max": round(max(values) * 1000, 2)}


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def _name(pid: int) -> str:
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    command = next((word for word in argv[argv.index("controller.cli") + 1:] if word), "?") \
        if "controller.cli" in argv else Path(argv[0]).name
    return command


def stack_processes(run_pid: int, sensors_pid: int) -> dict[str, int]:
    """The table's processes by role: the bench itself (the virtual table), the supervisor and its children."""
    processes = {"virtual-table (this process)": os.getpid(), "run (supervisor)": run_pid, "sensors": sensors_pid}
    for child in _children(run_pid):
        processes[_name(child)] = child
    return processes


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def run(coups: int, seed: int, camera: str = "direct") -> dict[str, object]:
    script = random_script(seed, coups)
    rendered = camera == "rendered"
    with tempfile.TemporaryDirectory(prefix="bench-table-") as name:
        folder = Path(name)
        stack = start_stack(folder, script.profile, rendered=rendered)
        context = zmq.Context()
        pins = table = driver = None
        try:
            wait_for_engine(stack)
            pins = VirtualPins(context, f"ipc://{folder}/run/pins.sock", keys=stack.keys)
            driver = RenderedCamera(context, camera_endpoint(folder), seed=seed, keys=stack.keys) if rendered else None
            table = VirtualTable(stack.bus, folder, stack.shoe, pins, vision=driver)
            table.wait_ready()
            processes = stack_processes(stack.run.pid, stack.sensors.pid)
            cpu_before = {role: cpu_seconds(pid) for role, pid in processes.items()}
            started = time.perf_counter()
            for opening, plan in plans(script):
                table.play(opening + plan.steps)
                table.finish_coup(plan, recover=rendered)
            elapsed = time.perf_counter() - started
            usage = {role: {"pid": pid, "cpu_s_playing": round(cpu_seconds(pid) - cpu_before[role], 2),
                            "cpu_s_total": round(cpu_seconds(pid), 2), "peak_rss_mib": peak_rss_mib(pid)}
                     for role, pid in processes.items()}
            results = table.results
        finally:
            if table:
                table.close()
            if pins:
                pins.close()
            if driver:
                driver.close()
            stack.stop()
            context.destroy(linger=0)
    per_hour = coups / elapsed * 3600
    return {"coups": coups, "seed": seed, "camera": camera, "seconds": round(elapsed, 2),
            "coups_per_hour": round(per_hour), "times_live_pace": round(per_hour / LIVE_COUPS_PER_HOUR, 1),
            "flags": sum(results.flags.values()),
            "card_on_felt_to_bus_ms": _delays_ms(results.vision_delays if rendered else results.card_delays),
            "observations_right": f"{results.vision_matched}/{results.vision_expected}" if rendered else None,
            "coups_voided_by_chief": results.voided_by_chief,
            "shoe_card_to_bus_ms": _delays_ms(results.shoe_delays), "processes": usage,
            "load_average": os.getloadavg(), "cpus": os.cpu_count()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--coups", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--camera", choices=["direct", "rendered"], default="direct")
    args = parser.parse_args()
    if args.coups < 1:
        parser.error("--coups must be at least 1")
    result = run(args.coups, args.seed, args.camera)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{result['coups']} coups in {result['seconds']} s: {result['coups_per_hour']:,} coups/h sustained, "
          f"{result['times_live_pace']}x a live table's {LIVE_COUPS_PER_HOUR}/h ({result['flags']} flags)")
    for label, key in (("card on the felt -> bus", "card_on_felt_to_bus_ms"),
                       ("card through the shoe -> bus", "shoe_card_to_bus_ms")):
        delays = result[key]
        print(f"{label}: p50 {delays['p50']} ms, p99 {delays['p99']} ms, max {delays['max']} ms "  # type: ignore[index]
              f"({delays['count']} cards)" if delays else f"{label}: no cards")  # type: ignore[index]
    for role, usage in result["processes"].items():  # type: ignore[attr-defined]
        print(f"  {role:30} cpu {usage['cpu_s_playing']:7.2f} s playing, {usage['cpu_s_total']:7.2f} s in all; "
              f"peak RSS {usage['peak_rss_mib']:7.1f} MiB")
    if result["observations_right"]:
        print(f"vision: {result['observations_right']} of a perfect camera's observations; coups the chief voided: "
              f"{result['coups_voided_by_chief'] or 'none'}")
    print(f"load average {result['load_average']}, {result['cpus']} CPUs")


if __name__ == "__main__":
    main()
