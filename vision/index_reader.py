"""The index reader: which card it is, from the card's top-left corner as the overhead camera sees it.

On the felt the cards of a hand are laid « légèrement décalées »: each card covers most of the one before, whose
top-left corner — rank and suit index — stays visible. The table reader knows each card's box in the seat's upright
crop, so it rectifies that corner from the full-resolution frame into a small upright image; this model reads it.
(The photo identifier of ``training.photo.identify`` reads whole cards at any angle, for photos where nothing is
known of the geometry.)

The model is trained in torch (``training.train_index``) and run here from its ONNX export by ONNX Runtime, as the
detector is: the Pi installs no torch.

Classes: the 52 cards and ``BACK``.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from controller.felt.layout import axes, crop_to_table
from vision.common import CARDS, MODELS
from vision.onnx_session import onnx_session

INDEX_CLASSES = CARDS + ["BACK"]
#: the corner's region on the card, in mm from its top-left corner: a little margin, the index and a first pip
REGION_MM = (-3.0, -3.0, 33.0, 45.0)
#: the model's input, width x height (1.33 px/mm)
INDEX_SIZE = (48, 64)
#: the part of the index that must be seen for a corner to be read, in mm from the card's top-left corner: its rank
#: (the suit pip below it may be cut off by the photo's edge; the training shows the reader such corners)
RANK_MM = (2.0, 3.0, 12.0, 14.0)
ONNX_PATH = MODELS / "card_index.onnx"


def index_crop(frame_bgr: np.ndarray, table_to_image: np.ndarray, corner_mm, angle_deg: float,
               scale: float = 1.0) -> np.ndarray:
    """The card's corner region rectified upright from the frame, as RGB ``INDEX_SIZE``. ``corner_mm`` is the card's
    top-left corner on the felt, ``angle_deg`` the direction of its top edge (as ``Zone.angle``)."""
    x0, y0, x1, y1 = (v * scale for v in REGION_MM)
    w, h = INDEX_SIZE
    ex, ey = axes(angle_deg)
    origin = np.asarray(corner_mm, float) + ex * x0 + ey * y0
    m = np.asarray(table_to_image, float) @ crop_to_table(origin, angle_deg, (x1 - x0) / w, (y1 - y0) / h)
    crop = cv2.warpPerspective(frame_bgr, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
    return np.ascontiguousarray(crop[..., ::-1])


class IndexReader:
    """Runs the exported index reader on RGB corner crops with ONNX Runtime."""

    def __init__(self, path: Path = ONNX_PATH, threads: int = 2) -> None:
        if not Path(path).exists():
            raise FileNotFoundError(f"{path}: no exported index reader (run: python -m training.train_index export)")
        self.session = onnx_session(path, threads)
        metadata = self.session.get_modelmeta().custom_metadata_map
        if json.loads(metadata.get("classes", "[]")) != INDEX_CLASSES:
            raise ValueError(f"{path}: its classes are not this code's INDEX_CLASSES")
        self.input = self.session.get_inputs()[0].name
        self.meta = json.loads(metadata.get("meta", "{}"))

    def probabilities(self, crops_rgb: np.ndarray, batch: int = 512) -> np.ndarray:
        """(N, len(INDEX_CLASSES)) softmax for N RGB uint8 crops of ``INDEX_SIZE``, in batches."""
        if len(crops_rgb) == 0:
            return np.zeros((0, len(INDEX_CLASSES)), np.float32)
        out = []
        for k in range(0, len(crops_rgb), batch):
            x = np.ascontiguousarray(np.asarray(crops_rgb[k:k + batch]).transpose(0, 3, 1, 2), np.float32) / 255
            (probabilities,) = self.session.run(None, {self.input: x})
            out.append(probabilities)
        return np.concatenate(out)
