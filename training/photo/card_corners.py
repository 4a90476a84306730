"""A photographed card's corner index, read by the table's index reader.

In a photograph nothing is known of the geometry, but a card on a contrasting surface shows its outline: GrabCut,
started from the detector's box, separates it from the background, and the smallest rectangle around it gives the
card's four corners. The card is then rectified from the photo, and its index corners are read by
``vision.index_reader`` (the model that reads the table's cards), which knows many decks' indices.

Which corners hold the index is not known: the photos may be stretched (the validation set's were squeezed to
640x640 from 4:3 frames), so the long side cannot be told from the short one. Both readings are tried — the top-left
and bottom-right corners with one side taken as the top, then with the other — and the pair the reader is surer of
is kept.

A card cut by the photo's edge shows only part of its outline, so the rectangle found around it is too short:
``cut_card_quads`` completes it beyond the edge to a card's proportions, and only the corners whose index lies
inside the photo are read.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.index_reader import INDEX_SIZE, RANK_MM, REGION_MM

CARD_MM = (63.0, 88.0)
#: GrabCut works on the box shrunk to at most this many pixels (enough for a card's outline, and fast)
GRABCUT_PX = 160


def card_outline(image_rgb: np.ndarray, box) -> np.ndarray | None:
    """The convex outline (N x 2, image pixels) of the card inside the detector's ``box`` (x1, y1, x2, y2), or None
    when no card-sized object stands out of its background there."""
    h, w = image_rgb.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = x2 - x1, y2 - y1
    if bw < 8 or bh < 8:
        return None
    # background around the box for GrabCut to learn from; a card cut by the photo's edge may be a sliver, with little
    # beside it unless the margin follows its long side
    cut = x1 <= 1 or y1 <= 1 or x2 >= w - 1 or y2 >= h - 1
    mx, my = (0.12 * max(bw, bh),) * 2 if cut else (0.12 * bw, 0.12 * bh)
    left, top = int(max(0, x1 - mx)), int(max(0, y1 - my))
    right, bottom = int(min(w, x2 + mx)), int(min(h, y2 + my))
    crop = image_rgb[top:bottom, left:right]
    scale = min(1.0, GRABCUT_PX / max(crop.shape[:2]))
    small = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else crop
    rect = (int((x1 - left) * scale), int((y1 - top) * scale), max(2, int(bw * scale)), max(2, int(bh * scale)))
    mask = np.zeros(small.shape[:2], np.uint8)
    # GrabCut's k-means starts from OpenCV's global generator, reset here for every box: same photo, same outline
    cv2.setRNGSeed(0)
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
    return (cv2.convexHull(outline)[:, 0] / scale + [left, top]).astype(np.float32)


def _clockwise(quad: np.ndarray) -> np.ndarray:
    # OpenCV's oriented area is positive for corners running clockwise on screen (y down)
    return quad[::-1].copy() if cv2.contourArea(quad.astype(np.float32), oriented=True) < 0 else quad


def _rectangle(outline: np.ndarray) -> np.ndarray:
    return _clockwise(cv2.boxPoints(cv2.minAreaRect(outline)))


def card_quad(image_rgb: np.ndarray, box) -> np.ndarray | None:
    """The card's four corners (4 x 2, image pixels, clockwise on screen) inside the detector's ``box``: the smallest
    rectangle around its outline; None when no card stands out of its background there."""
    outline = card_outline(image_rgb, box)
    return None if outline is None else _rectangle(outline)


def card_quads(image_rgb: np.ndarray, box) -> list[np.ndarray]:
    """The outlines to read a card by: ``card_quad``'s rectangle and, for a card cut by the photo's edge, that card
    completed beyond the edge (``cut_card_quads``). Empty when no card stands out of its background in ``box``."""
    outline = card_outline(image_rgb, box)
    return [] if outline is None else [_rectangle(outline)] + cut_card_quads(outline, image_rgb.shape)


def cut_card_quads(outline: np.ndarray, shape: tuple[int, ...]) -> list[np.ndarray]:
    """For the ``outline`` of a card cut by the photo's edge, the card completed beyond the edge: lined up with its
    sides inside the photo, as long across the edge as a card whose other side is the one seen whole — either way
    round, as the photo may be stretched (the reader is left to choose). Empty for a card not cut, one that only
    touches the edge, or one whose corner the edge cuts off."""
    h, w = shape[:2]
    tolerance = max(3.0, 0.02 * float(np.ptp(outline, axis=0).max()))
    x, y = outline[:, 0], outline[:, 1]
    on_edge = (x <= tolerance) | (y <= tolerance) | (x >= w - 1 - tolerance) | (y >= h - 1 - tolerance)
    if not on_edge.any() or on_edge.sum() > len(outline) - 2:
        return []
    # the card's own sides are the outline inside the photo: its smallest rectangle is lined up with them
    inside = outline[~on_edge] if (~on_edge).sum() >= 3 else outline
    side = cv2.boxPoints(cv2.minAreaRect(inside))
    along = (side[1] - side[0]) / max(float(np.linalg.norm(side[1] - side[0])), 1e-6)
    axes = np.stack([along, [-along[1], along[0]]])
    projected = outline @ axes.T  # each outline point in the card's own axes
    low, high = projected.min(0), projected.max(0)
    edge_mean = projected[on_edge].mean(0)
    # the cut end is the one the points on the photo's edge lie at
    cut_axis, cut_high = min(((a, end) for a in (0, 1) for end in (False, True)),
                             key=lambda ae: abs(edge_mean[ae[0]] - (high if ae[1] else low)[ae[0]]))
    whole, seen = float(high[1 - cut_axis] - low[1 - cut_axis]), float(high[cut_axis] - low[cut_axis])
    ratio = CARD_MM[1] / CARD_MM[0]
    # completed only when the photo's edge runs across the card from one side to the other: an edge that cuts off a
    # corner leaves no side whole to measure the card by
    if float(np.ptp(projected[on_edge, 1 - cut_axis])) < 0.8 * whole:
        return []
    # and when what is seen is not already a card's shape (a card that only touches the edge)
    if any(abs(seen / whole - proportion) < 0.05 * proportion for proportion in (ratio, 1 / ratio)):
        return []
    quads = []
    for length in (whole * ratio, whole / ratio):
        if length > 1.05 * seen:
            lo, hi = low.copy(), high.copy()
            if cut_high:
                hi[cut_axis] = lo[cut_axis] + length
            else:
                lo[cut_axis] = hi[cut_axis] - length
            corners = np.float32([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]]) @ axes
            quads.append(_clockwise(corners))
    return quads


def _card_to_image(quad: np.ndarray, rotation: int) -> np.ndarray:
    """Homography from card mm (top-left corner at ``quad[rotation]``) to image pixels."""
    card = np.float32([[0, 0], [CARD_MM[0], 0], [CARD_MM[0], CARD_MM[1]], [0, CARD_MM[1]]])
    return cv2.getPerspectiveTransform(card, np.roll(quad, -rotation, axis=0).astype(np.float32))


def corner_crops(image_rgb: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The index reader's input at the card's top-left corner for each of the quad's four rotations (4 x H x W x 3):
    rotations 0 and 2 read the two index corners when ``quad[0]``-``quad[1]`` is a short side, 1 and 3 otherwise."""
    width, height = INDEX_SIZE
    x0, y0, x1, y1 = REGION_MM
    region = np.array([[(x1 - x0) / width, 0, x0], [0, (y1 - y0) / height, y0], [0, 0, 1]])  # crop px -> card mm
    crops = []
    for rotation in range(4):
        crops.append(area_warp(image_rgb, _card_to_image(quad, rotation) @ region, (width, height)))
    return np.stack(crops)


def index_inside(quad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """For each of ``corner_crops``' four rotations, whether the index's rank there lies inside the photo (4 bools):
    the part that must be seen for the corner to be read (``index_reader.RANK_MM``)."""
    h, w = shape[:2]
    x0, y0, x1, y1 = RANK_MM
    rank = np.float32([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]])
    inside = []
    for rotation in range(4):
        points = cv2.perspectiveTransform(rank, _card_to_image(quad, rotation))[0]
        inside.append(bool((points >= -2).all() and (points[:, 0] <= w + 1).all() and (points[:, 1] <= h + 1).all()))
    return np.array(inside)


def index_reading(probabilities: np.ndarray, inside: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The four corner readings' probabilities (4 x classes) -> (one reading, how sure it is): the mean of the pair
    (0, 2) or (1, 3) whose readings are surer (the pair of corners that hold the index), counting only the corners
    whose index is ``inside`` the photo. With no such corner: an even reading, sureness 0."""
    inside = np.ones(4, bool) if inside is None else inside
    pairs = [probabilities[[k for k in pair if inside[k]]] for pair in ((0, 2), (1, 3))]
    pairs = [pair for pair in pairs if len(pair)]
    if not pairs:
        return np.full(probabilities.shape[1], 1.0 / probabilities.shape[1]), 0.0
    surest = max(pairs, key=lambda pair: float(pair.max(1).mean()))
    return surest.mean(0), float(surest.max(1).mean())


def index_probabilities(probabilities: np.ndarray) -> np.ndarray:
    """The four corner readings' probabilities (4 x classes) -> one (``index_reading`` with every corner inside)."""
    return index_reading(probabilities)[0]


def area_warp(image, output_to_image, size: tuple[int, int]):
    """``image`` warped into an output of ``size`` (width, height), ``output_to_image`` (3 x 3) mapping output pixels
    to image pixels, with the edge's pixels repeated beyond the image. Where the output is smaller than its source,
    each output pixel averages the image pixels it covers: OpenCV's warps sample bilinearly whatever the flag
    (``INTER_AREA`` falls back to it), so a card photographed at 8 px/mm and read at 1.33 would be read from a few
    scattered pixels of its ink."""
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
