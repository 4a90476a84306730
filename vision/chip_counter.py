"""The chip counter: how many chips of each denomination lie in a bet zone, from the zone as the camera sees it.

A bet is spread for the camera: each denomination's chips in a pile, each chip overlapping the one under it. The
detector finds a pile but often merges its chips into one box or misses the lowest one, so counting its boxes reads
a pile short (two 1 € chips read 1 €). This model looks at the whole zone instead: the zone's square, rectified from
the full-resolution frame into a small upright image, gives a count per denomination of the chip set.

Trained in torch (``training.train_chips``) on zones rendered by the virtual table's renderer and run here from its
ONNX export by ONNX Runtime, as the other models are.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from controller.felt.chips import CHIP_SET
from controller.felt.layout import Layout, Zone, axes, crop_to_table
from vision.common import MODELS
from vision.onnx_session import onnx_session

#: the denominations the model counts, in this order (cents)
DENOMINATIONS = [kind.cents for kind in CHIP_SET]
#: the model's output: a count of 0 .. MAX_COUNT - 1 per denomination, the top one meaning "that many or more": too
#: many to count (see the model card for what it was trained on)
MAX_COUNT = 7
#: the square around a bet zone's centre the model sees (mm): a pile of five spread chips (107 mm), and a third
#: denomination beside two others, still fit in it
CROP_MM = 120.0
#: the model's input side (0.8 px/mm: about the overhead camera's own resolution at 1920x1080)
CROP_PX = 96
ONNX_PATH = MODELS / "chip_counter.onnx"


def zone_to_table(layout: Layout, zone: Zone) -> np.ndarray:
    """3x3 matrix: pixel (u, v, 1) of the zone's crop -> table mm (x, y, 1); the crop's x axis runs along the bet's
    axis (``Layout.bet_axis``). Fixed with the layout: computed once per zone."""
    angle = layout.bet_axis(zone)
    ex, ey = axes(angle)
    return crop_to_table(np.asarray(zone.centre, float) - (ex + ey) * CROP_MM / 2, angle, CROP_MM / CROP_PX)


def zone_crop(frame_bgr: np.ndarray, crop_to_image: np.ndarray) -> np.ndarray:
    """The crop (``table_to_image @ zone_to_table(...)``) rectified upright from the frame, as RGB ``CROP_PX`` x
    ``CROP_PX``."""
    crop = cv2.warpPerspective(frame_bgr, crop_to_image, (CROP_PX, CROP_PX),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(crop[..., ::-1])


def crop_outline(crop_to_image: np.ndarray) -> tuple[tuple[float, float], ...]:
    """The crop's corners in the frame's pixels, for evidence images."""
    corners = np.array([[[0, 0], [CROP_PX, 0], [CROP_PX, CROP_PX], [0, CROP_PX]]], np.float64)
    return tuple((float(x), float(y)) for x, y in cv2.perspectiveTransform(corners, crop_to_image)[0])


class ChipCounter:
    """Runs the exported chip counter on RGB zone crops with ONNX Runtime."""

    def __init__(self, path: Path = ONNX_PATH, threads: int = 2) -> None:
        self.session, self.meta = zone_model_session(path, threads, "chip counter", "training.train_chips", CROP_PX,
                                                     [[len(DENOMINATIONS), MAX_COUNT]])
        self.input = self.session.get_inputs()[0].name

    def probabilities(self, crops_rgb: np.ndarray) -> np.ndarray:
        """(N, len(DENOMINATIONS), MAX_COUNT): for each crop and denomination, the probability of each count."""
        if len(crops_rgb) == 0:
            return np.zeros((0, len(DENOMINATIONS), MAX_COUNT), np.float32)
        x = np.ascontiguousarray(np.asarray(crops_rgb).transpose(0, 3, 1, 2), np.float32) / 255
        (probabilities,) = self.session.run(None, {self.input: x})
        return probabilities

    def count(self, crops_rgb: np.ndarray) -> list[tuple[dict[int, int], float]]:
        """For each crop: the chips counted per denomination (cents -> count, counts of zero left out) and the
        model's certainty of that whole reading (``reading_certainty``)."""
        return readings(self.probabilities(crops_rgb))


def zone_model_session(path: Path, threads: int, what: str, trainer: str, crop_px: int, gives: list[list[int]]):
    """A bet-zone model's ONNX Runtime session and its ``meta``, refused by name when missing, of other
    denominations than the chip set's, or taking or giving other shapes than this code's (3 x ``crop_px`` x
    ``crop_px`` crops in; ``gives``, each output's shape past the batch)."""
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no exported {what} (run: python -m {trainer} export)")
    session = onnx_session(path, threads)
    metadata = session.get_modelmeta().custom_metadata_map
    if json.loads(metadata.get("denominations", "[]")) != DENOMINATIONS:
        raise ValueError(f"{path}: its denominations are not the chip set's {DENOMINATIONS}")
    takes = list(session.get_inputs()[0].shape[1:])
    given = [list(output.shape[1:]) for output in session.get_outputs()]
    if takes != [3, crop_px, crop_px] or given != gives:
        raise ValueError(f"{path}: takes {takes} and gives {given}; this code crops 3 x {crop_px} x {crop_px} and "
                         f"reads {gives}")
    return session, json.loads(metadata.get("meta", "{}"))


def readings(probabilities: np.ndarray) -> list[tuple[dict[int, int], float]]:
    """For (N, denominations, counts) probabilities: each likeliest reading as cents -> count (counts of zero left
    out), with its certainty (``reading_certainty``)."""
    return [({cents: int(n) for cents, n in zip(DENOMINATIONS, counts, strict=True) if n}, float(certainty))
            for counts, certainty in zip(probabilities.argmax(2), reading_certainty(probabilities), strict=True)]


def next_likeliest(probabilities: np.ndarray) -> list[tuple[int, float]]:
    """For (N, denominations, counts) probabilities: each zone's likeliest reading but one, as its value in cents and
    its probability against the likeliest's, the readings differing in one denomination's count (the likeliest
    reading's value apart, no other reading is likelier). What the dealer is offered beside the camera's reading."""
    best = probabilities.argmax(2)
    rows = np.arange(probabilities.shape[1])
    values = np.array(DENOMINATIONS)
    found = []
    for p, counts in zip(probabilities, best, strict=True):
        top = p[rows, counts]
        others = p.copy()
        others[rows, counts] = -1.0
        ratio = others.max(1) / np.maximum(top, 1e-9)
        denomination = int(ratio.argmax())
        moved = counts.copy()
        moved[denomination] = others[denomination].argmax()
        found.append((int(values @ moved), float(ratio[denomination])))
    return found


def reading_certainty(probabilities: np.ndarray) -> np.ndarray:
    """(N,) for (N, denominations, counts) probabilities: the certainty of each likeliest reading, the product of
    each denomination's probability of its count; 0 when a denomination has too many chips to count (the top
    count, then a lower bound)."""
    counts = probabilities.argmax(2)
    certainty = np.take_along_axis(probabilities, counts[..., None], 2)[..., 0].prod(1)
    return np.where((counts == probabilities.shape[2] - 1).any(1), 0.0, certainty)
