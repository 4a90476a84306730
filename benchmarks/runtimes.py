"""Which runtime should the Pi run the table's detector on? ONNX Runtime, OpenVINO and NCNN, against the PyTorch
model ultralytics trains (the baseline), on the same seat crops, in the same run.

    .venv/bin/python benchmarks/runtimes.py            # figures, one per line
    .venv/bin/python benchmarks/runtimes.py --json     # one JSON object

Input: the table reader's 8 rectified seat crops (256 px) of the busiest scenes of a 7-seat coup, rendered by the
virtual camera at 1920x1080 — what the vision process hands the detector when every region changed. Each runtime
runs the same float32 batch with the same number of threads; its raw output is decoded by the same code
(``vision.onnx_detector.decode``) and compared box by box with PyTorch's (same class, IoU >= 0.9), so that a fast
runtime that reads differently is seen. NCNN's Python binding takes one image at a time: its batch is a loop.

Exports are made into ``build/runtimes/`` from ``models/table_detector.pt`` (OpenVINO and NCNN through ultralytics'
exporter: ``pip install openvino ncnn pnnx==20260526``); a runtime that is not installed is reported as missing.
Measured on this machine's x86 CPU, not a Pi's Cortex-A76: the ranking may differ there — run it on the Pi.
It reports what it measures; it is never a timed test. The machine is shared: quote medians and ratios.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import platform
import shutil
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# benchmarks/vision.py would shadow the vision package: keep this folder off the path, put the repository first
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from training.export_detector import WEIGHTS_PATH  # noqa: E402
from training.photo.evaluate import box_iou  # noqa: E402
from vision.onnx_detector import ONNX_PATH, Box, decode, to_batch  # noqa: E402
from vision.onnx_session import onnx_session  # noqa: E402

#: the coup filmed: all seven seats taken (shared with benchmarks/vision.py)
SCRIPT = (ROOT / "benchmarks" / "busy-coup.toml").read_text()
BUILD = ROOT / "build" / "runtimes"


def seat_crops(scenes: int, size: int) -> list[np.ndarray]:
    """Batches (8 x 3 x size x size, float32 RGB in 0..1) of the busiest scenes' seat crops."""
    from controller.felt.layout import load_layout
    from controller.sim.render import Renderer, TableCamera
    from controller.sim.script import parse_script
    from controller.sim.world import SceneChange, build_timeline
    from vision.calibrate import calibrate
    from vision.table_reader import rectified, seat_regions

    layout = load_layout()
    timeline = build_timeline(parse_script(SCRIPT))
    changes = [s.scene for s in timeline.opening + timeline.coups[0].steps if isinstance(s, SceneChange)]
    changes.sort(key=lambda s: len(s.cards) + sum(len(c.chips) for c in s.chips), reverse=True)
    renderer = Renderer(layout, TableCamera(), seed=1)
    frames = [renderer.render(scene, k) for k, scene in enumerate(changes[:scenes])]
    table_to_image = calibrate(frames[0], layout).table_to_image
    regions = seat_regions(layout)
    batches = []
    for frame in frames:
        crops = [rectified(frame, table_to_image @ r.crop_to_table(size), size) for r in regions]
        batches.append(to_batch(crops))
    return batches


def _export(fmt: str, size: int, batch: int) -> Path:
    """The table detector exported by ultralytics into BUILD (made once for each version of the weights)."""
    from ultralytics import YOLO

    version = hashlib.sha256(WEIGHTS_PATH.read_bytes()).hexdigest()[:12]
    target = BUILD / f"table_detector_{version}_{fmt}_model"
    if target.exists():
        return target
    BUILD.mkdir(parents=True, exist_ok=True)
    copy = BUILD / WEIGHTS_PATH.name
    shutil.copy(WEIGHTS_PATH, copy)
    made = Path(YOLO(str(copy), task="detect").export(format=fmt, imgsz=size, batch=batch))
    made.rename(target)
    return target


def runners(threads: int, size: int, batch: int) -> dict[str, object]:
    """name -> a function (batch -> raw output, N x (4 + classes) x anchors), or the reason it cannot run."""
    out: dict[str, object] = {}

    import torch
    from ultralytics import YOLO

    torch.set_num_threads(threads)
    net = YOLO(str(WEIGHTS_PATH), task="detect").model.float().eval()

    def run_torch(batch: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            result = net(torch.from_numpy(batch))
        return (result[0] if isinstance(result, list | tuple) else result).numpy()

    out["pytorch (baseline)"] = run_torch

    session = onnx_session(ONNX_PATH, threads)  # as the vision process runs it
    input_name = session.get_inputs()[0].name
    out["onnxruntime"] = lambda batch: session.run(None, {input_name: batch})[0]

    if importlib.util.find_spec("openvino") is None:
        out["openvino"] = "not installed (pip install openvino)"
    else:
        import openvino as ov

        folder = _export("openvino", size, batch)
        core = ov.Core()
        compiled = core.compile_model(str(next(folder.glob("*.xml"))), "CPU",
                                      {"INFERENCE_NUM_THREADS": threads, "PERFORMANCE_HINT": "LATENCY"})
        out["openvino"] = lambda batch: compiled(batch)[0]

    if importlib.util.find_spec("ncnn") is None or importlib.util.find_spec("pnnx") is None:
        out["ncnn"] = "not installed (pip install ncnn pnnx==20260526)"
    else:
        import ncnn

        folder = _export("ncnn", size, 1)  # its Python binding runs one image at a time
        ncnn_net = ncnn.Net()
        ncnn_net.opt.num_threads = threads
        ncnn_net.load_param(str(folder / "model.ncnn.param"))
        ncnn_net.load_model(str(folder / "model.ncnn.bin"))
        ncnn_input, ncnn_output = ncnn_net.input_names()[0], ncnn_net.output_names()[0]

        def run_ncnn(batch: np.ndarray) -> np.ndarray:
            outputs = []
            for image in batch:
                with ncnn_net.create_extractor() as extractor:
                    extractor.input(ncnn_input, ncnn.Mat(np.ascontiguousarray(image)))
                    outputs.append(np.array(extractor.extract(ncnn_output)[1]))
            return np.stack(outputs)

        out["ncnn"] = run_ncnn
    return out


def _corners(box: Box) -> tuple[float, float, float, float]:
    return (box.x1, box.y1, box.x2, box.y2)


def agreement(reference: list[list[Box]], other: list[list[Box]]) -> float:
    """Share of the reference's boxes that the other output has too (same class, IoU >= 0.9)."""
    matched = total = 0
    for ref_boxes, boxes in zip(reference, other, strict=True):
        total += len(ref_boxes)
        used: set[int] = set()
        for ref in ref_boxes:
            for k, box in enumerate(boxes):
                if k not in used and box.cls == ref.cls and box_iou(_corners(ref), _corners(box)) >= 0.9:
                    used.add(k)
                    matched += 1
                    break
    return matched / total if total else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--scenes", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=5, help="passes over the scenes")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    size = 256
    batches = seat_crops(args.scenes, size)
    report: dict[str, object] = {"machine": f"{platform.machine()} {platform.processor()}".strip(),
                                 "threads": args.threads, "batch": "8 seat crops of 256 px", "runtimes": {}}
    reference: list[list[Box]] = []
    baseline_median = None
    for name, run in runners(args.threads, size, len(batches[0])).items():
        if isinstance(run, str):
            report["runtimes"][name] = {"missing": run}  # type: ignore[index]
            continue
        outputs = [run(batch) for batch in batches]  # warm-up, and the boxes compared
        times = []
        for _ in range(args.repeat):
            for batch in batches:
                started = time.perf_counter()
                run(batch)
                times.append(time.perf_counter() - started)
        boxes = [b for output in outputs for b in decode(np.asarray(output))]
        if not reference:
            reference = boxes
        median = statistics.median(times) * 1000
        baseline_median = baseline_median or median
        report["runtimes"][name] = {  # type: ignore[index]
            "median_ms_per_batch": round(median, 1),
            "p90_ms_per_batch": round(sorted(times)[int(0.9 * (len(times) - 1))] * 1000, 1),
            "speed_vs_pytorch": round(baseline_median / median, 2),
            "boxes": sum(len(b) for b in boxes),
            "boxes_agreeing_with_pytorch": round(agreement(reference, boxes), 3),
        }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['machine']}, {args.threads} threads, {report['batch']}, {len(batches)} scenes x {args.repeat}")
        for name, figures in report["runtimes"].items():  # type: ignore[union-attr]
            print(f"{name:20s} " + "  ".join(f"{k} {v}" for k, v in figures.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
