"""A photographed card's corner index, read by the table's index reader.

In a photograph nothing is known of the geometry, but a card on a contrasting surface shows its outline: GrabCut,
started from the detector's box, separates it from the background, and the smallest rectangle around it gives the
card's four corners. The card is then rectified from the photo, and its index corners are read by
``vision.index_reader`` (the model that reads the table's cards), which knows many decks' indices.

Which corners hold the index is not known: the photos may be stretched (the validation set's were squeezed to
640x640 from 4:3 frames), so the long side cannot be told from the short one. Both readings are tried — the top-left
and bottom-right corners with one side taken as the top, then with the other — and the pair the reader is surer of
is kept.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.index_reader import INDEX_SIZE, REGION_MM

CARD_MM = (63.0, 88.0)
#: GrabCut works on the box shrunk to at most this many pixels (enough for a card's outline, and fast)
GRABCUT_PX = 160


def card_quad(image_rgb: np.ndarray, box) -> np.ndarray | None:
    """The card's four corners (4 x 2, image pixels, clockwise on screen) inside the detector's ``box`` (x1, y1, x2,
    y2), or None when no card-sized object stands out of its background there."""
    h, w = image_rgb.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    if bw < 8 or bh < 8:
        return None
    margin = 0.12
    left, top = int(max(0, x1 - margin * bw)), int(max(0, y1 - margin * bh))
    right, bottom = int(min(w, x2 + margin * bw)), int(min(h, y2 + margin * bh))
    crop = image_rgb[top:bottom, left:right]
    scale = min(1.0, GRABCUT_PX / max(crop.shape[:2]))
    small = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else crop
    rect = (int((x1 - left) * scale), int((y1 - top) * scale), max(2, int(bw * scale)), max(2, int(bh * scale)))
    mask = np.zeros(small.shape[:2], np.uint8)
    try:
        cv2.grabCut(np.ascontiguousarray(small[..., ::-1]), mask, rect, np.zeros((1, 65)), np.zeros((1, 65)), 3,
                    cv2.GC_INIT_WITH_RECT)
    except cv2.error:  # a box GrabCut cannot model (one colour only, for instance)
        return None
    foreground = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    contours, _ = cv2.findContours(foreground, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea)
    if cv2.contourArea(outline) < 0.3 * rect[2] * rect[3]:
        return None
    quad = cv2.boxPoints(cv2.minAreaRect(cv2.convexHull(outline))) / scale + [left, top]
    # OpenCV's oriented area is positive for corners running clockwise on screen (y down)
    return quad[::-1].copy() if cv2.contourArea(quad.astype(np.float32), oriented=True) < 0 else quad


def corner_crops(image_rgb: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The index reader's input at the card's top-left corner for each of the quad's four rotations (4 x H x W x 3):
    rotations 0 and 2 read the two index corners when ``quad[0]``-``quad[1]`` is a short side, 1 and 3 otherwise."""
    width, height = INDEX_SIZE
    x0, y0, x1, y1 = REGION_MM
    region = np.array([[(x1 - x0) / width, 0, x0], [0, (y1 - y0) / height, y0], [0, 0, 1]])  # crop px -> card mm
    card = np.float32([[0, 0], [CARD_MM[0], 0], [CARD_MM[0], CARD_MM[1]], [0, CARD_MM[1]]])
    crops = []
    for rotation in range(4):
        to_image = cv2.getPerspectiveTransform(card, np.roll(quad, -rotation, axis=0).astype(np.float32))
        crops.append(cv2.warpPerspective(image_rgb, to_image @ region, (width, height),
                                         flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE))
    return np.stack(crops)


def index_probabilities(probabilities: np.ndarray) -> np.ndarray:
    """The four corner readings' probabilities (4 x classes) -> one: the mean of the pair (0, 2) or (1, 3) whose
    readings are surer (the pair of corners that hold the index)."""
    pairs = (probabilities[[0, 2]], probabilities[[1, 3]])
    return max(pairs, key=lambda pair: float(pair.max(1).mean())).mean(0)
