"""The felt's colour as the camera sees it, and crops recoloured to the felt the models were trained on.

The detector, the index reader, the chip counter and the stack reader were all trained on the virtual table's green
cloth. On another cloth (a blue one, say) the chip counter takes the bare felt for 1 € chips and asks the dealer
about every zone. Rather than a model per cloth, the reader learns the felt's colour from the frame (the median of
bare felt far from every zone and marker) and, where it differs from the trained one, moves the pixels of that
colour to the trained felt's colour before the models see them (a soft colour key in CIELAB): card stock, card
backs and chips keep their colours, as long as none is as close to the cloth's colour as ``KEY_NONE``.
"""

from __future__ import annotations

import cv2
import numpy as np

from controller.felt.chips import CHIP_SET
from controller.felt.layout import Layout

#: The trained felt in OpenCV's 8-bit CIELAB (L*255/100, a+128, b+128): what ``measure_felt`` reads of the virtual
#: table's green cloth under its lamp (tests/vision/test_felt_colour.py measures it again)
TRAINED_FELT_LAB = (106.0, 89.0, 161.0)
#: a cloth measured within this distance (8-bit Lab) of the trained one is left as it is
SAME_FELT = 12.0
#: pixels within KEY_FULL of the cloth's colour move all the way to the trained felt, none beyond KEY_NONE, in between
#: in proportion; the distance weighs lightness half, as the lamp makes the cloth lighter or darker from place to
#: place (on the blue cloth 95 % of the bare felt lies within 7, the card's blue back 31 away, the 1 € chip's face
#: 43, its side in shade much nearer). Chosen on renderer seeds 200-203 and 280-285 (blue cloth, piles of 1 to 5):
#: 16-26 read 272 zones right and sure, none wrong and sure, 8 unsure; 12-20: 264, 4, 12; 8-14: 98, 7, 7 of 112
KEY_FULL = 16.0
KEY_NONE = 26.0
LAB_WEIGHTS = np.array([0.5, 1.0, 1.0], np.float32)
#: a cloth whose colour lies within KEY_NONE + CLASH_MARGIN of a chip's printed colour is not keyed at all: keying
#: would paint those chips as felt (the shaded side of a chip of the cloth's own colour is keyed whatever is done)
CLASH_MARGIN = 8.0
#: bare felt is looked for on a grid of this step (mm), at least CLEARANCE_MM from every zone and marker and from
#: the felt's edge
GRID_MM = 30.0
CLEARANCE_MM = 40.0


def felt_points(layout: Layout) -> np.ndarray:
    """(N, 2) points of the felt, in mm, where nothing is laid in play: away from zones, markers and the edge."""
    xs = np.arange(CLEARANCE_MM, layout.width - CLEARANCE_MM, GRID_MM)
    ys = np.arange(CLEARANCE_MM, layout.height - CLEARANCE_MM, GRID_MM)
    points = [(float(x), float(y)) for y in ys for x in xs]
    markers = [(m.centre, m.size / 2 + CLEARANCE_MM) for m in layout.markers]
    return np.array([p for p in points
                     if all(zone.distance(*p) > CLEARANCE_MM for zone in layout.zones)
                     and all(np.hypot(p[0] - c[0], p[1] - c[1]) > reach for c, reach in markers)], float)


def measure_felt(frame_bgr: np.ndarray, layout: Layout, table_to_image: np.ndarray) -> np.ndarray:
    """The felt's colour in the frame: the median, per 8-bit Lab channel, of the bare felt points that fall inside
    the frame (an arm or a stray chip over a few of them does not move a median)."""
    points = felt_points(layout)
    image = cv2.perspectiveTransform(points[None], np.asarray(table_to_image, float))[0]
    h, w = frame_bgr.shape[:2]
    inside = (image[:, 0] >= 0) & (image[:, 0] < w - 1) & (image[:, 1] >= 0) & (image[:, 1] < h - 1)
    if inside.sum() < 20:
        raise ValueError(f"only {int(inside.sum())} bare felt points fall inside the frame: is it calibrated?")
    pixels = frame_bgr[np.round(image[inside, 1]).astype(int), np.round(image[inside, 0]).astype(int)]
    lab = cv2.cvtColor(pixels[None].astype(np.uint8), cv2.COLOR_BGR2LAB)[0].astype(np.float32)
    return np.median(lab, axis=0)


class FeltKey:
    """Recolours crops of the frame from the cloth measured (``felt_lab``) to the trained one; the identity where
    they are alike."""

    def __init__(self, felt_lab: np.ndarray | tuple[float, float, float]) -> None:
        self.felt_lab = np.asarray(felt_lab, np.float32)
        self.shift = np.asarray(TRAINED_FELT_LAB, np.float32) - self.felt_lab
        #: the chips (« 1 € face ») whose printed colour is too near the cloth's to key it
        self.clashes = [f"{kind.name} {part}" for kind in CHIP_SET
                        for part, rgb in (("face", kind.colour), ("stripes", kind.stripes))
                        if self._distance(_lab_of_rgb(rgb)) < KEY_NONE + CLASH_MARGIN]
        self.active = float(np.linalg.norm(self.shift)) > SAME_FELT and not self.clashes

    def _distance(self, lab: np.ndarray) -> float:
        return float(np.linalg.norm((lab - self.felt_lab) * LAB_WEIGHTS))

    def bgr(self, crop: np.ndarray) -> np.ndarray:
        """The crop (BGR, uint8, H x W x 3 or N x H x W x 3) with the cloth's pixels moved to the trained felt's
        colour; the same array when the cloth is the trained one."""
        return self._key(crop, cv2.COLOR_BGR2LAB, cv2.COLOR_LAB2BGR)

    def rgb(self, crop: np.ndarray) -> np.ndarray:
        """The same for an RGB crop."""
        return self._key(crop, cv2.COLOR_RGB2LAB, cv2.COLOR_LAB2RGB)

    def _key(self, crop: np.ndarray, to_lab: int, from_lab: int) -> np.ndarray:
        if not self.active:
            return crop
        if crop.ndim == 4:
            return np.stack([self._key(one, to_lab, from_lab) for one in crop])
        lab = cv2.cvtColor(np.ascontiguousarray(crop), to_lab).astype(np.float32)
        # judged on the pixel's neighbourhood, so that the sensor's noise does not speckle the key
        away = (cv2.blur(lab, (5, 5)) - self.felt_lab) * LAB_WEIGHTS
        distance = np.sqrt((away * away).sum(axis=2))
        weight = np.clip((KEY_NONE - distance) / (KEY_NONE - KEY_FULL), 0.0, 1.0)[..., None]
        lab += weight * self.shift
        return cv2.cvtColor(np.clip(lab, 0, 255).astype(np.uint8), from_lab)


def _lab_of_rgb(rgb: tuple[int, int, int]) -> np.ndarray:
    return cv2.cvtColor(np.array([[rgb[::-1]]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0].astype(np.float32)
