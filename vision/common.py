"""Shared constants and helpers for the card/chip vision pipeline."""

from __future__ import annotations

import csv
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

# Keep ultralytics offline: never fetch weights, fonts or telemetry.
os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_VERBOSE", "False")

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "models"
SHARED = ROOT.parent / "shared" / "realcards"
VAL_DIR = SHARED / "ScottJJosh-PokerSensei"
TRAIN_DIR = SHARED / "ScottJJosh-PokerSensei-train"
GEAXGX_DIR = SHARED / "geaxgx-cardfaces"
BUILD = ROOT / "build" / "vision"

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["C", "D", "H", "S"]
CARDS = [r + s for s in SUITS for r in RANKS]  # 52 labels, e.g. "AS", "10H"
# Identifier classes: the 52 faces, plus BACK and JOKER (so a wrong detector class can be corrected).
ID_CLASSES = CARDS + ["BACK", "JOKER"]
# Detector classes.
DET_CLASSES = ["card_face", "card_back", "chip"]


def det_class(label: str) -> int | None:
    """Map a manifest label to a detector class id (None: not a detector object)."""
    if label == "BACK":
        return 1
    if label.startswith("CHIP"):
        return 2
    if label == "JOKER" or label in CARDS:
        return 0
    return None


def split_card(label: str) -> tuple[str, str]:
    """'10H' -> ('10', 'H'); 'K?' -> ('K', '?')."""
    return label[:-1], label[-1]


@dataclass(frozen=True)
class Row:
    image: str
    label: str
    box: tuple[float, float, float, float] | None


def read_manifest(path: str | Path) -> dict[str, list[Row]]:
    """Read a manifest CSV (image,label,x1,y1,x2,y2) into {image: [rows]} keeping order."""
    out: dict[str, list[Row]] = defaultdict(list)
    with open(path, newline="") as f:
        for rec in csv.DictReader(f):
            img = rec["image"].strip()
            coords = [rec.get(k, "").strip() for k in ("x1", "y1", "x2", "y2")]
            box = tuple(float(c) for c in coords) if all(coords) else None
            out[img].append(Row(img, rec["label"].strip(), box))  # type: ignore[arg-type]
    return dict(out)


def area_warp(image, output_to_image, size: tuple[int, int]):
    """``image`` warped into an output of ``size`` (width, height), ``output_to_image`` (3 x 3) mapping output pixels
    to image pixels, with the edge's pixels repeated beyond the image. Where the output is smaller than its source,
    each output pixel averages the image pixels it covers: OpenCV's warps sample bilinearly whatever the flag
    (``INTER_AREA`` falls back to it), so a card photographed at 8 px/mm and read at 1.33 would be read from a few
    scattered pixels of its ink."""
    import cv2
    import numpy as np

    matrix = np.asarray(output_to_image, np.float64)
    width, height = size
    centre = np.float64([[[width / 2, height / 2], [width / 2 + 1, height / 2], [width / 2, height / 2 + 1]]])
    mapped = cv2.perspectiveTransform(centre, matrix)[0]
    jacobian = np.stack([mapped[1] - mapped[0], mapped[2] - mapped[0]], axis=1)  # image px per output px
    # how far one output pixel reaches along the image's x and y (a photo squeezed from 4:3 shrinks them unequally)
    shrink_x, shrink_y = (float(v) for v in np.linalg.norm(jacobian, axis=1))
    if max(shrink_x, shrink_y) > 1.01:
        # the part of the image the output covers (and an output pixel's reach around it), shrunk by area averaging
        # until the warp is about one to one
        corners = np.float64([[[0, 0], [width, 0], [width, height], [0, height]]])
        seen = cv2.perspectiveTransform(corners, matrix)[0]
        margin = int(np.ceil(max(shrink_x, shrink_y))) + 2
        h, w = image.shape[:2]
        x0, y0 = (int(np.clip(np.floor(v) - margin, 0, limit - 1))
                  for v, limit in zip(seen.min(0), (w, h), strict=True))
        x1, y1 = (int(np.clip(np.ceil(v) + margin, start + 1, limit))
                  for v, start, limit in zip(seen.max(0), (x0, y0), (w, h), strict=True))
        part = image[y0:y1, x0:x1]
        small = cv2.resize(part, (max(1, round(part.shape[1] / max(shrink_x, 1.0))),
                                  max(1, round(part.shape[0] / max(shrink_y, 1.0)))), interpolation=cv2.INTER_AREA)
        fx, fy = small.shape[1] / part.shape[1], small.shape[0] / part.shape[0]
        # image px -> small px: shift to the part, then scale (pixel centres: (x + 0.5) * f - 0.5)
        to_small = np.float64([[fx, 0, (0.5 - x0) * fx - 0.5], [0, fy, (0.5 - y0) * fy - 0.5], [0, 0, 1]])
        image, matrix = small, to_small @ matrix
    return cv2.warpPerspective(image, matrix, (width, height), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
