"""Exports the trained detector (ultralytics YOLO) to ONNX, as ``vision.onnx_detector`` runs it at the table.

    python -m training.export_detector      # models/table_detector.pt -> models/table_detector.onnx
"""

from __future__ import annotations

import sys
from pathlib import Path

from vision.common import MODELS

#: the table detector's trained weights (ultralytics), whose export the table runs (``vision.onnx_detector``)
WEIGHTS_PATH = MODELS / "table_detector.pt"


def export(weights: Path = WEIGHTS_PATH, imgsz: int | None = None) -> Path:
    """Export the trained detector to ONNX (dynamic batch) beside its weights."""
    import shutil
    import tempfile

    from ultralytics import YOLO

    model = YOLO(str(weights), task="detect")
    size = imgsz or int((getattr(model, "ckpt", None) or {}).get("train_args", {}).get("imgsz", 256))
    with tempfile.TemporaryDirectory() as work:  # ultralytics writes beside the weights: work on a copy
        copy = Path(work) / weights.name
        shutil.copy(weights, copy)
        made = YOLO(str(copy), task="detect").export(format="onnx", imgsz=size, dynamic=True, simplify=False,
                                                     opset=17)
        target = weights.with_suffix(".onnx")
        shutil.move(made, target)
    return target


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m training.export_detector")
    parser.add_argument("--weights", default=str(WEIGHTS_PATH))
    args = parser.parse_args(argv)
    print(f"exported to {export(Path(args.weights))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
