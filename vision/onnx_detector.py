"""The card/chip detector as the Pi runs it: the YOLO model exported to ONNX, run by ONNX Runtime on batches of
square crops, with its own decoding (no ultralytics at run time).

    python -m training.export_detector      # models/table_detector.pt -> models/table_detector.onnx

ONNX Runtime, OpenVINO and NCNN are measured against each other by ``benchmarks/runtimes.py`` (same crops, same
threads, the same decoding); see the model card for the figures and the choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.common import DET_CLASSES, MODELS
from vision.onnx_session import onnx_session

#: the table's detector, exported from ``table_detector.pt`` (``training.export_detector``), trained on the overhead
#: crops of the felt as well as on photos (``card_detector.pt`` is the photo reader's)
ONNX_PATH = MODELS / "table_detector.onnx"


@dataclass(frozen=True)
class Box:
    """One detection in a crop: corners in the crop's pixels, class index (DET_CLASSES) and confidence."""

    x1: float
    y1: float
    x2: float
    y2: float
    cls: int
    confidence: float

    @property
    def kind(self) -> str:
        return DET_CLASSES[self.cls]


def _nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> list[int]:
    order = np.argsort(-scores)
    keep: list[int] = []
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while len(order):
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        ix = np.clip(np.minimum(boxes[i, 2], boxes[rest, 2]) - np.maximum(boxes[i, 0], boxes[rest, 0]), 0, None)
        iy = np.clip(np.minimum(boxes[i, 3], boxes[rest, 3]) - np.maximum(boxes[i, 1], boxes[rest, 1]), 0, None)
        inter = ix * iy
        order = rest[inter / (area[i] + area[rest] - inter + 1e-9) < iou]
    return keep


class OnnxDetector:
    """Runs the exported detector on square BGR crops of ``imgsz`` pixels, all in one batch."""

    def __init__(self, path: Path = ONNX_PATH, conf: float = 0.3, iou: float = 0.6, threads: int = 2) -> None:
        """``iou``: boxes overlapping more than this are one object. A spread pile's chips overlap their neighbours'
        boxes by up to about 0.5 and laid cards by about 0.4: 0.6 keeps them apart (0.5 lost a chip in four)."""
        if not Path(path).exists():
            raise FileNotFoundError(f"{path}: no exported detector (run: python -m training.export_detector)")
        self.session = onnx_session(path, threads)
        self.input = self.session.get_inputs()[0].name
        shape = self.session.get_inputs()[0].shape
        self.imgsz = int(shape[2]) if isinstance(shape[2], int) else int(
            self.session.get_modelmeta().custom_metadata_map.get("imgsz", "[256, 256]").strip("[]").split(",")[0])
        self.conf, self.iou = conf, iou

    def detect(self, crops_bgr: list[np.ndarray]) -> list[list[Box]]:
        """Detections for each crop (each ``imgsz`` x ``imgsz`` x 3, BGR uint8), class-agnostic NMS per crop."""
        if not crops_bgr:
            return []
        for crop in crops_bgr:
            if crop.shape != (self.imgsz, self.imgsz, 3):
                raise ValueError(f"crop of shape {crop.shape}: the detector takes {self.imgsz}x{self.imgsz}x3")
        (out,) = self.session.run(None, {self.input: to_batch(crops_bgr)})
        return decode(out, self.conf, self.iou)


def to_batch(crops_bgr: list[np.ndarray]) -> np.ndarray:
    """BGR uint8 crops -> the model's input: N x 3 x H x W float32 RGB in 0..1."""
    return np.ascontiguousarray(np.stack(crops_bgr)[..., ::-1].transpose(0, 3, 1, 2), np.float32) / 255.0


def decode(predictions: np.ndarray, conf: float = 0.3, iou: float = 0.6) -> list[list[Box]]:
    """The exported model's raw output (N x (4 + classes) x anchors: centre, size, class scores) -> each crop's
    boxes above ``conf``, after class-agnostic NMS at ``iou``."""
    results: list[list[Box]] = []
    for pred in predictions:
        scores = pred[4:].max(0)
        mask = scores >= conf
        if not mask.any():
            results.append([])
            continue
        cx, cy, w, h = pred[:4, mask]
        boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
        cls = pred[4:, mask].argmax(0)
        kept = _nms(boxes, scores[mask], iou)
        results.append([Box(*(float(v) for v in boxes[k]), int(cls[k]), float(scores[mask][k])) for k in kept])
    return results
