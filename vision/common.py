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
