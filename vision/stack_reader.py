"""The stack reader: whether a bet zone holds a casino stack (two chips or more, each on the one below), and if so
how many chips of each denomination it holds.

Seen from the overhead camera a stack shows its top chip and, because the lens is not straight above the bet zones
(570 to 760 mm off its axis on the virtual table), a crescent of its side: each chip's edge, about 1.1 to 1.5 px
thick at 1920x1080, the top chip shifted away from the point under the lens by that much per chip. The chip counter
(``vision.chip_counter``) looks at the whole zone at 0.8 px/mm, where that crescent is a pixel or two: it reads a
stack as its top chip. This model looks only at the middle of the zone, where a stack is built, at 1.4 px/mm, and
says whether a stack is there (the counter's reading then does not stand) and what it holds.

Its reading and the counter's are merged by ``merge_readings``; a zone whose stack it cannot read with certainty is
reported unsure and goes to the dealer (the tracker's ``sure_certainty``).

A chip's side is a pixel or two at 1920x1080 and two or three at 3840x2160, so one reader is trained per camera
resolution, each on zones rendered at it, and the table runs the one trained nearest its own camera's resolution at
the bet zones (``reader_for``). Trained in torch (``training.train_stacks``) on zones rendered by the virtual table's
renderer; run here from its ONNX export by ONNX Runtime.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from controller.felt.layout import Zone, crop_to_table
from vision.chip_counter import DENOMINATIONS, next_likeliest, readings, zone_model_session
from vision.common import MODELS

#: a count of 0 .. STACK_MAX_COUNT - 1 chips per denomination, the top one meaning "that many or more"
STACK_MAX_COUNT = 12
#: the square around the zone's centre the model sees (mm): a chip (39 mm) with up to 12 chips of side beside it
#: whichever way the lens lies, and a hand's wobble
STACK_CROP_MM = 80.0
STACK_CROP_PX = 112
ONNX_PATH = MODELS / "stack_reader.onnx"


@dataclass(frozen=True)
class TrainedReader:
    """A stack reader and the camera it was trained for."""

    #: the camera's resolution at the bet zones (px/mm, ``zone_resolution``) in the frames it was trained on
    px_per_mm: float
    path: Path
    #: the certainty from which its own reading of a stack is vouched for; a surer one than the tracker's, chosen on
    #: renderer seeds 200-211 so that none of its stack readings there was wrong and sure (models/EXPERIMENTS.md)
    vouch_from: float


#: the stack readers: the virtual table's camera at 1920x1080 and at 3840x2160
READERS = (TrainedReader(0.9, ONNX_PATH, 0.98), TrainedReader(1.8, MODELS / "stack_reader_4k.onnx", 0.95))
#: A lone chip the counter reads is not vouched for once the stack reader gives a stack this much chance: from above,
#: two chips of one colour stacked show one. Chosen on renderer seeds 200-211 (``benchmarks/chips.py --first-seed 200
#: --built-stacks``): the 6 lone readings wrong and sure there had 0.00087 to 0.066, the 82 right ones at most
#: 0.00011; with a third of the zones stacked (``--stacked-share 0.35``) it sends 10 of 36 right lone chips to the
#: dealer (models/EXPERIMENTS.md, 2026-12-07).
LONE_CHIP_DOUBT = 0.0003
#: the certainty given to a reading that contradicts itself or that its reader is not sure enough of
#: (``TrainedReader.vouch_from``): low enough that no tracker vouches for it, not 0 (a certainty of 0 says "too many
#: to count")
UNSURE = 0.01


def stack_zone_to_table(zone: Zone) -> np.ndarray:
    """3x3 matrix: pixel (u, v, 1) of the zone's stack crop -> table mm; the crop is square with the felt's axes
    (the direction of a stack's side is the lens's, not the bet's), centred on the zone's centre."""
    origin = np.asarray(zone.centre, float) - STACK_CROP_MM / 2
    return crop_to_table(origin, 0.0, STACK_CROP_MM / STACK_CROP_PX)


def zone_resolution(table_to_image: np.ndarray, zones: list[Zone]) -> float:
    """The camera's median resolution at the zones' centres (px/mm), from the table -> image homography."""
    if not zones:
        raise ValueError("no bet zone to measure the camera's resolution at")
    scales = []
    for zone in zones:
        x, y = zone.centre
        points = np.array([[[x, y], [x + 1, y], [x, y + 1]]], np.float64)
        centre, along_x, along_y = cv2.perspectiveTransform(points, np.asarray(table_to_image, np.float64))[0]
        scales.append(np.sqrt(abs(np.linalg.det(np.stack([along_x - centre, along_y - centre])))))
    return float(np.median(scales))


def reader_for(px_per_mm: float) -> TrainedReader:
    """The stack reader trained at the resolution nearest ``px_per_mm`` (by ratio)."""
    return min(READERS, key=lambda trained: abs(np.log(px_per_mm / trained.px_per_mm)))


def stack_crop(frame_bgr: np.ndarray, crop_to_image: np.ndarray) -> np.ndarray:
    """The crop (``table_to_image @ stack_zone_to_table(zone)``) from the full-resolution frame, RGB."""
    crop = cv2.warpPerspective(frame_bgr, crop_to_image, (STACK_CROP_PX, STACK_CROP_PX),
                               flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(crop[..., ::-1])


class StackReader:
    """Runs the exported stack reader on RGB stack crops with ONNX Runtime."""

    def __init__(self, path: Path = ONNX_PATH, threads: int = 2) -> None:
        self.path = Path(path).resolve()
        #: the certainty from which its stack readings are vouched for (``TrainedReader``); a reader not among
        #: ``READERS`` (one being trained) has no rule of its own: the tracker's alone
        self.vouch_from = next((trained.vouch_from for trained in READERS if trained.path.resolve() == self.path),
                               0.0)
        self.session, self.meta = zone_model_session(path, threads, "stack reader", "training.train_stacks",
                                                     STACK_CROP_PX, [[], [len(DENOMINATIONS), STACK_MAX_COUNT]])
        self.input = self.session.get_inputs()[0].name

    def probabilities(self, crops_rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N,) the probability that each crop holds a stack of two chips or more, and (N, len(DENOMINATIONS),
        STACK_MAX_COUNT) the probability of each count per denomination if it does."""
        if len(crops_rgb) == 0:
            return np.zeros(0, np.float32), np.zeros((0, len(DENOMINATIONS), STACK_MAX_COUNT), np.float32)
        x = np.ascontiguousarray(np.asarray(crops_rgb).transpose(0, 3, 1, 2), np.float32) / 255
        stacked, counts = self.session.run(None, {self.input: x})
        return stacked, counts


def merge_readings(counter: np.ndarray, stacked: np.ndarray, stack_counts: np.ndarray, vouch_from: float = 0.0
                   ) -> list[tuple[dict[int, int], float]]:
    """For each zone, its chips per denomination and the certainty of that reading, from the chip counter's
    probabilities (N, denominations, MAX_COUNT) and the stack reader's (``StackReader.probabilities``).

    The reading of the likelier kind is given: the counter's, with its certainty times the probability that no
    stack is there, or the stack reader's, with its certainty times the probability that one is. So a zone the
    stack reader is unsure about is unsure whichever reading is given. A count at either model's top class (too
    many to count) has certainty 0, as ``reading_certainty`` says. A stack reading of fewer than two chips, or
    lacking a denomination the counter sees, is given ``UNSURE``, and so is a stack reading whose certainty is under
    ``vouch_from`` (the reader's ``StackReader.vouch_from``), and a lone chip read by the counter where the stack
    reader gives a stack ``LONE_CHIP_DOUBT`` or more."""
    chosen = []
    for spread, stack, p in zip(readings(counter), readings(stack_counts), stacked, strict=True):
        if p < 0.5:
            certainty = spread[1] * float(1 - p)
            lone = sum(spread[0].values()) == 1 and p >= LONE_CHIP_DOUBT
            chosen.append((spread[0], min(certainty, UNSURE) if lone else certainty))
        elif sum(stack[0].values()) < 2 or not set(spread[0]) <= set(stack[0]):
            # a "stack" of fewer than two chips contradicts itself; a denomination the counter sees in the zone
            # but the stack reader (which sees only its middle) does not may be chips beside the stack: unsure
            chosen.append((stack[0], min(stack[1] * float(p), UNSURE)))
        else:
            certainty = stack[1] * float(p)
            chosen.append((stack[0], certainty if certainty >= vouch_from else min(certainty, UNSURE)))
    return chosen


def alternatives(counter: np.ndarray, stacked: np.ndarray, stack_counts: np.ndarray,
                 chosen: list[tuple[dict[int, int], float]]) -> list[int]:
    """For each zone, the value in cents of the likeliest reading other than the one ``chosen`` for it
    (``merge_readings``): the other model's reading, or either model's next likeliest (``next_likeliest``), each
    weighed as ``merge_readings`` weighs its kind; 0 where there is none. The dealer is offered it beside the
    camera's reading: from above, two chips stacked read as one is the counter's likeliest error, and the stack
    reader's reading its likeliest correction."""
    found = []
    spread_next, stack_next = next_likeliest(counter), next_likeliest(stack_counts)
    for k, (spread, stack, p) in enumerate(zip(readings(counter), readings(stack_counts), stacked, strict=True)):
        p = float(p)
        candidates = [(spread[1] * (1 - p), _value(spread[0])),
                      (spread[1] * spread_next[k][1] * (1 - p), spread_next[k][0]),
                      (stack[1] * stack_next[k][1] * p, stack_next[k][0])]
        if sum(stack[0].values()) >= 2:
            candidates.append((stack[1] * p, _value(stack[0])))
        read = _value(chosen[k][0])
        weight, value = max(((w, v) for w, v in candidates if v not in (0, read)), default=(0.0, 0))
        found.append(value if weight > 0 else 0)
    return found


def _value(counts: dict[int, int]) -> int:
    return sum(cents * count for cents, count in counts.items())
