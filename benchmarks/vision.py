"""Benchmark of the vision pipeline on overhead frames of the virtual table, against the plain-YOLO baseline.

Run from the repository root::

    .venv/bin/python benchmarks/vision.py            # figures, one per line
    .venv/bin/python benchmarks/vision.py --json     # one JSON object

For 1920x1080 and 3840x2160 frames of the same scenes (a scripted coup's busiest moments, the demo's deck, which no
model trained on), it measures, in the same run:

- the pipeline: ``TableReader.read`` (per-seat rectified crops, ONNX detector in one batch, index reader, chip
  colours) — frames per second and per-frame latency (median, p90);
- the baseline: ``YOLO(models/table_detector.pt).predict(frame, imgsz=640)`` on the whole frame (the same weights
  as the pipeline's ONNX export);
- the accuracy of both on the scenes' truth: share of the cards and chips found (a detection of the right kind
  within 25 mm of the object's centre on the felt), and for the pipeline, face up/down and identity right.

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

SCRIPT = """
profile = "fr-2007"
seats = [1, 2, 3, 4, 5, 6, 7]
seed = 3

[[coup]]
seed = 5
bets = { 1 = { ante = 1000, bonus = 50 }, 2 = { ante = 2500 }, 3 = { ante = 3500 }, 4 = { ante = 1500 }, 5 = { ante = 6000 }, 6 = { ante = 1000 }, 7 = { ante = 12500 } }
decisions = { 1 = "raise", 2 = "raise", 3 = "fold", 4 = "raise", 5 = "raise", 6 = "fold", 7 = "raise" }
"""  # noqa: E501 - one coup per line reads best


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

    from vision.render_data import under_an_arm, vision_label

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


def _measure(frames, run, repeat: int = 1) -> tuple[list[float], list]:
    times, outputs = [], []
    run(frames[0])  # warm-up
    for _ in range(repeat):
        for frame in frames:
            started = time.perf_counter()
            outputs.append(run(frame))
            times.append(time.perf_counter() - started)
    return times, outputs


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--scenes", type=int, default=8)
    args = parser.parse_args()

    import numpy as np
    import onnxruntime
    import torch
    from ultralytics import YOLO

    from controller.sim.render import Renderer, TableCamera
    from vision.calibrate import calibrate
    from vision.common import MODELS
    from vision.layout import load_layout
    from vision.table_reader import TableReader

    layout = load_layout()
    scenes = _scenes(args.scenes)
    baseline_model = YOLO(str(MODELS / "table_detector.pt"), task="detect")
    out: dict[str, object] = {"scenes": len(scenes), "torch_threads": torch.get_num_threads(),
                              "onnxruntime": onnxruntime.__version__, "machine": platform.machine(),
                              "python": platform.python_version()}
    for width, height in ((1920, 1080), (3840, 2160)):
        renderer = Renderer(layout, TableCamera(width=width, height=height), seed=9)
        frames = [renderer.render(scene, k * 100) for k, scene in enumerate(scenes)]
        truths = [_truth(renderer, scene) for scene in scenes]
        cal = calibrate(frames[0], layout)
        reader = TableReader(layout, cal.table_to_image)

        pipeline_times, readings = _measure(frames, reader.read)
        found_pipeline = [[("chip" if o.kind == "chip" else "card", o.x_mm, o.y_mm, o.label)
                           for o in r.observations] for r in readings]

        def baseline(frame, cal=cal):
            result = baseline_model.predict(frame, imgsz=640, device="cpu", verbose=False)[0]
            boxes = result.boxes.xyxy.numpy()
            centres = np.c_[(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2]
            table = cal.to_table(centres) if len(centres) else np.zeros((0, 2))
            kinds = ["chip" if int(c) == 2 else "card" for c in result.boxes.cls.numpy()]
            return [(k, float(x), float(y), None) for k, (x, y) in zip(kinds, table, strict=True)]

        baseline_times, found_baseline = _measure(frames, baseline)
        figures: dict[str, object] = {}
        for name, times, found in (("pipeline", pipeline_times, found_pipeline),
                                   ("baseline", baseline_times, found_baseline)):
            hits = {"card": 0, "chip": 0}
            totals = {"card": 0, "chip": 0}
            right = extra = 0
            for truth, seen in zip(truths, found, strict=True):
                h, t, r, e = _score(truth, seen)
                for k in hits:
                    hits[k] += h[k]
                    totals[k] += t[k]
                right += r
                extra += e
            figures[name] = {
                "fps": round(len(times) / sum(times), 2),
                "latency_ms_median": round(1000 * statistics.median(times), 1),
                "latency_ms_p90": round(1000 * sorted(times)[int(0.9 * (len(times) - 1))], 1),
                "card_recall": round(hits["card"] / max(1, totals["card"]), 3),
                "chip_recall": round(hits["chip"] / max(1, totals["chip"]), 3),
                "false_detections_per_frame": round(extra / len(frames), 2),
                "cards": totals["card"], "chips": totals["chip"],
            }
            if name == "pipeline":  # the baseline has no identifier: it only finds objects
                figures[name]["label_right"] = round(right / max(1, totals["card"] + totals["chip"]), 3)
        figures["throughput_ratio"] = round(figures["pipeline"]["fps"] / figures["baseline"]["fps"], 2)
        out[f"{width}x{height}"] = figures
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
