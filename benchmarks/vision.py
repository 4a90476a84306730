"""Benchmark of the card reader: seconds per image (detector + identifier), on validation photos.

Run from the repository root::

    .venv/bin/python benchmarks/vision.py            # figures, one per line
    .venv/bin/python benchmarks/vision.py --json     # one JSON object

Reports the median over images of the wall time of ``CardReader.read`` (CPU), the model load time, and the
number of torch threads. This script reports what it measures; it is never a timed test.
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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--images", type=int, default=20)
    a = ap.parse_args()
    import torch

    from vision.common import VAL_DIR
    from vision.identify import CardReader

    t0 = time.perf_counter()
    reader = CardReader()
    load_s = time.perf_counter() - t0
    imgs = sorted((VAL_DIR / "images").glob("*.jpg"))[: a.images]
    if imgs:
        reader.read(imgs[0])  # warm-up
    times, n_det = [], 0
    for p in imgs:
        t = time.perf_counter()
        n_det += len(reader.read(p))
        times.append(time.perf_counter() - t)
    out = {
        "load_seconds": round(load_s, 3),
        "images": len(times),
        "median_seconds_per_image": round(statistics.median(times), 4) if times else None,
        "max_seconds_per_image": round(max(times), 4) if times else None,
        "detections": n_det,
        "torch_threads": torch.get_num_threads(),
        "detector_imgsz": reader.imgsz,
        "machine": platform.machine(),
        "python": platform.python_version(),
    }
    if a.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
