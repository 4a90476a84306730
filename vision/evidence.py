"""Evidence images: the frame as the camera saw it, with the detections and the layout's zones drawn on it.

Written on request (a flagged seat, a disputed coup) into the evidence folder, named by the SHA-256 of the JPEG, as
the event store names its evidence files, so that the store's index and the review can refer to it by that hash.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from controller.felt.layout import Layout
from controller.files import write_atomically
from vision.calibrate import (
    HIGHLIGHT_COLOUR,
    ZONE_COLOUR,
    Calibration,
    draw_label,
    draw_zone_outlines,
    line_width,
)

BOX_COLOUR = (255, 200, 0)  # BGR: light blue
JPEG_QUALITY = 90


class Boxed(Protocol):
    """What draw_evidence needs of a detection (training.photo.identify.Detection has it)."""

    @property
    def box(self) -> tuple[float, float, float, float]: ...  # x1, y1, x2, y2 in frame pixels

    @property
    def label(self) -> str: ...

    @property
    def confidence(self) -> float: ...


def draw_evidence(image_bgr: np.ndarray, layout: Layout, cal: Calibration, detections: Iterable[Boxed],
                  highlight: Iterable[str] | None = None) -> np.ndarray:
    """A copy of the frame with every zone drawn (``highlight``'s zone names in red) and every detection's box,
    label and confidence. Detections that share a box (a bet zone's counted chips) are drawn once, each label with
    its count, stacked above the box."""
    cal.check_frame(image_bgr)
    marked = set(highlight or ())
    unknown = marked - {zone.name for zone in layout.zones}
    if unknown:
        raise ValueError(f"highlight: no zone {', '.join(sorted(unknown))} in layout {layout.name!r} "
                         f"(zone names look like seat.3.cards, seat.3.ante, dealer.cards, paying)")
    canvas = image_bgr.copy() if image_bgr.ndim == 3 else cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
    draw_zone_outlines(canvas, layout, cal, lambda zone: HIGHLIGHT_COLOUR if zone.name in marked else ZONE_COLOUR)
    width = line_width(canvas)
    by_box: dict[tuple[int, ...], Counter[tuple[str, float]]] = {}
    for detection in detections:
        box = tuple(int(round(v)) for v in detection.box)
        by_box.setdefault(box, Counter())[detection.label, detection.confidence] += 1
    line_height = max(12, canvas.shape[0] // 60)
    for (x1, y1, x2, y2), labels in by_box.items():
        cv2.rectangle(canvas, (x1, y1), (x2, y2), BOX_COLOUR, width, cv2.LINE_AA)
        for k, ((label, confidence), count) in enumerate(sorted(labels.items(), key=_label_order)):
            text = f"{label}{f' x{count}' if count > 1 else ''} {confidence:.2f}"
            draw_label(canvas, text, (x1, max(12, y1 - 4 - k * line_height)), BOX_COLOUR)
    return canvas


def _label_order(item: tuple[tuple[str, float], int]) -> tuple[int, str]:
    """Chips' labels (cents) by value, others by name."""
    label = item[0][0]
    return (int(label), "") if label.isdigit() else (0, label)


def save_evidence(image: np.ndarray, folder: str | Path) -> tuple[str, Path]:
    """Write the image as a JPEG named ``<sha256>.jpg`` in ``folder`` (synced, then renamed into place).

    The same image twice gives the same file, written once. Returns the hash and the path."""
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise ValueError(f"cannot encode an image of shape {getattr(image, 'shape', None)} as JPEG")
    content = encoded.tobytes()
    digest = hashlib.sha256(content).hexdigest()
    path = Path(folder) / f"{digest}.jpg"
    if not path.exists():
        write_atomically(path, content)
    return digest, path
