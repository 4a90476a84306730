"""Where the training and evaluation data lie, and how their manifests are read."""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from vision.common import CARDS, MODELS

ROOT = MODELS.parent
SHARED = ROOT.parent / "shared" / "realcards"
VAL_DIR = SHARED / "ScottJJosh-PokerSensei"
TRAIN_DIR = SHARED / "ScottJJosh-PokerSensei-train"
GEAXGX_DIR = SHARED / "geaxgx-cardfaces"
BUILD = ROOT / "build" / "vision"

# Identifier classes: the 52 faces, plus BACK and JOKER (so a wrong detector class can be corrected).
ID_CLASSES = CARDS + ["BACK", "JOKER"]


def det_class(label: str) -> int | None:
    """Map a manifest label to a detector class id (None: not a detector object)."""
    if label == "BACK":
        return 1
    if label.startswith("CHIP"):
        return 2
    if label == "JOKER" or label in CARDS:
        return 0
    return None


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
