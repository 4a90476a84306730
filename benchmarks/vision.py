"""Benchmark of the vision pipeline on overhead frames of the virtual table, against the plain-YOLO baseline.

Run from the repository root::

    .venv/bin/python benchmarks/vision.py            # figures, one per line
    .venv/bin/python benchmarks/vision.py --json     # one JSON object

For 1920x1080 and 3840x2160 frames of the same scenes (a scripted coup's busiest moments, the demo's deck, which no
model trained on), it measures, in the same run (the busy scenes read by both in turn, frame by frame, and each frame of
the coup film read by the pipeline then the baseline, so that both see the same load):

- the pipeline: ``TableReader.read`` (per-seat rectified crops, ONNX detector in one batch, index reader, chip
  counter) — frames per second and per-frame latency (median, p90);
- the baseline: ``YOLO(models/table_detector.pt).predict(frame, imgsz=640)`` on the whole frame (the same weights
  as the pipeline's ONNX export);
- the accuracy of both on the scenes' truth: share of the cards found (a detection of the right kind within 25 mm
  of the card's centre on the felt) and, for the pipeline, face up/down and identity right; the baseline's chips
  found the same way; the pipeline's bet zones valued right, every zone not covered by an arm, empty ones
  included (it counts a zone's chips, it does not place them). The baseline's false detections count its chips;
  the pipeline's count cards only.

It reports what it measures; it is never a timed test. The machine is shared: quote medians and ratios.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

# This file is named like the package it measures: keep its own folder off the path, put the repository first.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))
sys.modules.pop("vision", None)

#: the coup filmed: all seven seats taken (shared with benchmarks/runtimes.py)
SCRIPT = (_HERE / "busy-coup.toml").read_text()


def _scenes(count: int):
    from controller.sim.script import parse_script
    from controller.sim.world import SceneChange, build_timeline

    timeline = build_timeline(parse_script(SCRIPT))
    scenes = [s.scene for s in timeline.opening + timeline.coups[0].steps if isinstance(s, SceneChange)]
    # the busiest moments: most cards and chips on the felt
    scenes.sort(key=lambda s: len(s.cards) + sum(len(c.chips) for c in s.chips), reverse=True)
    return scenes[:count]


def _truth(renderer, scene):
    """(kind, x mm, y mm, label) of every object the camera can see."""
    import numpy as np

    from training.render_data import under_an_arm
    from vision.common import vision_label

    objects = []
    for card in scene.cards:
        centre = renderer.card_quad(card).mean(0)
        if not card.lifted and not under_an_arm(centre, scene.arms):
            objects.append(("card", centre, vision_label(card.card) if card.face_up else "BACK"))
    for stack in scene.chips:
        for cents, centre in renderer.chip_centres(stack):
            if not under_an_arm(np.array(centre), scene.arms):
                objects.append(("chip", np.array(centre), str(cents)))
    return objects


def _zones_scored(layout, scene, reading) -> tuple[dict[tuple[int, str], int], dict[tuple[int, str], int]]:
    """Every bet zone the reader did not find covered (the tracker ignores those), empty ones included: its true
    value and the value read, in cents."""
    from controller.felt.layout import BET_AREAS
    from vision.table_reader import zone_values

    truth = {(stack.seat, stack.box): sum(stack.chips) for stack in scene.chips}
    read = zone_values(reading.observations)
    zones = [(seat, area) for seat in layout.seats() for area in BET_AREAS if (seat, area) not in reading.occluded]
    return {zone: truth.get(zone, 0) for zone in zones}, {zone: read.get(zone, 0) for zone in zones}


def _score(truth, found):
    """found: (kind, x, y, label or None). Greedy nearest matching within 25 mm, by kind."""
    import numpy as np

    used: set[int] = set()
    hits = {"card": 0, "chip": 0}
    right = 0
    for kind, centre, label in truth:
        best, best_d = None, 25.0
        for k, (fkind, fx, fy, _label) in enumerate(found):
            if k in used or fkind != kind:
                continue
            d = float(np.hypot(fx - centre[0], fy - centre[1]))
            if d < best_d:
                best, best_d = k, d
        if best is not None:
            used.add(best)
            hits[kind] += 1
            right += int(found[best][3] == label)
    totals = {k: sum(1 for t in truth if t[0] == k) for k in hits}
    return hits, totals, right, len(found) - len(used)


def _measure_alternately(frames, first, second) -> tuple[tuple[list[float], list], tuple[list[float], list]]:
    """Each frame read by both, in turn (which goes first alternates from frame to frame), so that both see the
    same load (measured one after the other, a change of load between the two halves moves their ratio). Returns
    each one's times and outputs, in frame order."""
    runs = (first, second)
    times: tuple[list[float], list[float]] = ([], [])
    outputs: tuple[list, list] = ([], [])
    for run in runs:
        run(frames[0])  # warm-up
    for k, frame in enumerate(frames):
        for i in ((0, 1) if k % 2 == 0 else (1, 0)):
            started = time.perf_counter()
            outputs[i].append(runs[i](frame))
            times[i].append(time.perf_counter() - started)
    return (times[0], outputs[0]), (times[1], outputs[1])


def _figures(times: list[float], truths: list, found: list, zones: list | None = None) -> dict[str, object]:
    """Speed and accuracy of one reader over frames: ``found`` holds, per frame, (kind, x, y, label or None).

    The baseline only finds objects: its cards and chips are scored as found or not. The pipeline names each card
    (``label_right``) and values each bet zone (``zones``: per frame, the zones' true and read values in cents); its
    chips are counted per zone, not placed one by one, so they are scored by zone."""
    hits = {"card": 0, "chip": 0}
    totals = {"card": 0, "chip": 0}
    right = extra = 0
    for truth, seen in zip(truths, found, strict=True):
        if zones is not None:
            truth = [t for t in truth if t[0] == "card"]
        h, t, r, e = _score(truth, seen)
        for k in hits:
            hits[k] += h[k]
            totals[k] += t[k]
        right += r
        extra += e
    figures: dict[str, object] = {
        "frames": len(times),
        "fps": round(len(times) / sum(times), 2),
        "latency_ms_median": round(1000 * statistics.median(times), 1),
        "latency_ms_p90": round(1000 * sorted(times)[int(0.9 * (len(times) - 1))], 1),
        "card_recall": round(hits["card"] / max(1, totals["card"]), 3),
        "false_card_detections_per_frame" if zones is not None else "false_detections_per_frame":
            round(extra / len(times), 2),
        "cards": totals["card"],
    }
    if zones is None:
        figures.update(chip_recall=round(hits["chip"] / max(1, totals["chip"]), 3), chips=totals["chip"])
    else:
        figures["label_right"] = round(right / max(1, totals["card"]), 3)
        valued = [want == read[zone] for wanted, read in zones for zone, want in wanted.items()]
        figures.update(chip_zones_right=round(sum(valued) / max(1, len(valued)), 3), chip_zones=len(valued))
    return figures


def _pipeline_found(reading) -> list[tuple[str, float, float, str]]:
    return [("card", o.x_mm, o.y_mm, o.label) for o in reading.observations if o.kind != "chip"]





def _resolution(width: int, height: int, layout, scenes, steps, baseline_model) -> dict[str, object]:
    """Both parts of the benchmark at one frame size."""
    import numpy as np

    from controller.sim.render import Renderer, TableCamera
    from training.table_replay import replay
    from vision.calibrate import calibrate
    from vision.table_reader import TableReader
    from vision.tracker import Tracker, hand_stagger

    renderer = Renderer(layout, TableCamera(width=width, height=height), seed=9)
    frames = [renderer.render(scene, k * 100) for k, scene in enumerate(scenes)]
    truths = [_truth(renderer, scene) for scene in scenes]
    cal = calibrate(frames[0], layout)

    def baseline(frame):
        result = baseline_model.predict(frame, imgsz=640, device="cpu", verbose=False)[0]
        boxes = result.boxes.xyxy.numpy()
        centres = np.c_[(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2]
        table = cal.to_table(centres) if len(centres) else np.zeros((0, 2))
        kinds = ["chip" if int(c) == 2 else "card" for c in result.boxes.cls.numpy()]
        return [(k, float(x), float(y), None) for k, (x, y) in zip(kinds, table, strict=True)]

    # 1. the busiest scenes, each region read at every frame (change_threshold=-1): the worst case
    every_region = TableReader(layout, cal.table_to_image, change_threshold=-1)
    (pipeline_times, readings), (baseline_times, found_baseline) = _measure_alternately(frames, every_region.read,
                                                                                         baseline)
    busy = {"pipeline": _figures(pipeline_times, truths, [_pipeline_found(r) for r in readings],
                                 [_zones_scored(layout, scene, r) for scene, r in zip(scenes, readings, strict=True)]),
            "baseline": _figures(baseline_times, truths, found_baseline)}
    busy["throughput_ratio"] = round(busy["pipeline"]["fps"] / busy["baseline"]["fps"], 2)

    # 2. the whole coup as the camera films it (each scene change held 6 frames), through the pipeline as the vision
    # process runs it (a region that did not change keeps its reading) and the tracker; the baseline on each frame
    reader = TableReader(layout, cal.table_to_image)
    film_truths: list = []
    film_found: list = []
    film_zones: list = []
    film_baseline: list = []
    film_baseline_times: list[float] = []

    def on_frame(frame, scene, reading):
        film_truths.append(_truth(renderer, scene))
        film_found.append(_pipeline_found(reading))
        film_zones.append(_zones_scored(layout, scene, reading))
        started = time.perf_counter()
        film_baseline.append(baseline(frame))
        film_baseline_times.append(time.perf_counter() - started)

    report = replay(steps, renderer, reader, Tracker(stagger=hand_stagger(layout)), on_frame=on_frame)
    film = {"pipeline": _figures(report.read_seconds, film_truths, film_found, film_zones),
            "baseline": _figures(film_baseline_times, film_truths, film_baseline)}
    film["throughput_ratio"] = round(film["pipeline"]["fps"] / film["baseline"]["fps"], 2)
    film["regions_reused"] = round(reader.stats.regions_reused
                                   / max(1, reader.stats.regions_reused + reader.stats.regions_read), 3)
    film["tracker_observations_right"] = f"{report.matched}/{len(report.expected)}"
    return {"busy_scenes": busy, "coup_film": film}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--scenes", type=int, default=8)
    parser.add_argument("--film-steps", type=int, default=None, help="film only the timeline's first N steps")
    args = parser.parse_args()

    import onnxruntime
    import torch
    from ultralytics import YOLO

    from controller.felt.layout import load_layout
    from controller.sim.script import parse_script
    from controller.sim.world import SceneChange, build_timeline
    from vision.common import MODELS

    layout = load_layout()
    scenes = _scenes(args.scenes)
    timeline = build_timeline(parse_script(SCRIPT))
    steps = (timeline.opening + timeline.coups[0].steps)[:args.film_steps]
    if args.film_steps is not None and args.film_steps < 1:
        parser.error(f"--film-steps {args.film_steps}: give 1 or more")
    if not any(isinstance(step, SceneChange) and step.scene.camera_online for step in steps):
        parser.error(f"--film-steps {args.film_steps}: those steps show the camera nothing, so nothing is filmed")
    baseline_model = YOLO(str(MODELS / "table_detector.pt"), task="detect")
    out: dict[str, object] = {"scenes": len(scenes), "torch_threads": torch.get_num_threads(),
                              "onnxruntime": onnxruntime.__version__, "machine": platform.machine(),
                              "python": platform.python_version()}
    for width, height in ((1920, 1080), (3840, 2160)):
        out[f"{width}x{height}"] = _resolution(width, height, layout, scenes, steps, baseline_model)
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            if isinstance(value, dict):
                for part, figures in value.items():
                    print(f"{key} {part}: {figures}")
            else:
                print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
