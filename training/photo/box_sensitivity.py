"""How much of the photo reader's card accuracy rests on the detector's exact boxes.

    python -m training.photo.box_sensitivity --manifest build/vision/held_out_scenes.csv
    python -m training.photo.box_sensitivity --manifest ../shared/realcards/ScottJJosh-PokerSensei/manifest.csv

Each labelled face-up card is matched to the detector's box it overlaps most (IoU >= 0.5; unlike
``training.photo.evaluate``, which matches one to one, two labels may share a box; a face not matched counts as wrong),
read at that box and again at ``--jitters`` boxes whose four sides are moved by up to ``--jitter-px`` pixels, and never
by more than a quarter of the box's width or height (so that no box turns inside out); a side on the photo's edge can
only move inward. The moves are drawn from ``--seed``, the image's place in the manifest and the label's, so two
detectors' boxes of the same card are moved alike. A detector trained again boxes a card up to 16 px differently.

Reported: the faces right at the detector's box, right at every moved box too, the mean count right over the moved
boxes, the count right when the readers' probabilities are averaged over all the boxes, the faces whose reading
changes with the box, and the mean IoU with the label of the detector's boxes and of the moved ones.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from training.data import read_manifest
from training.photo.evaluate import box_iou, is_face
from vision.common import MODELS


def moved_boxes(box, jitter_px: int, jitters: int, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """``jitters`` copies of ``box`` (x1, y1, x2, y2), each side moved by up to ``jitter_px`` and at most a quarter of
    the box's width (x sides) or height (y sides), clipped to the image (width, height)."""
    box = np.asarray(box, dtype=float)
    width, height = box[2] - box[0], box[3] - box[1]
    reach = np.minimum(jitter_px, np.array([width, height, width, height]) / 4)
    offsets = rng.uniform(-1.0, 1.0, (jitters, 4)) * reach
    return np.clip(box + np.round(offsets), 0, [size[0], size[1], size[0], size[1]])


def box_sensitivity(manifest: Path, reader, jitter_px: int = 8, jitters: int = 6, seed: int = 0) -> dict:
    """Counts over the manifest's boxed face-up cards (rank-only ``K?`` labels are left out)."""
    import cv2

    faces = matched = right_at_box = right_at_every_move = right_when_averaged = 0
    right_at_moved = 0.0
    iou_at_box: list[float] = []
    iou_moved: list[float] = []
    changed = []
    for image_number, (image, rows) in enumerate(sorted(read_manifest(manifest).items())):
        path = manifest.parent / image
        bgr = cv2.imread(str(path))
        if bgr is None:
            raise FileNotFoundError(f"{manifest}: cannot read its image {path}")
        rgb = np.ascontiguousarray(bgr[..., ::-1])
        h, w = rgb.shape[:2]
        boxes, classes, _confidences = reader.detect(rgb)
        card_boxes = [b for b, c in zip(boxes, classes, strict=True) if c in (0, 1)]  # card_face, card_back
        for row_number, row in enumerate(rows):
            if row.box is None or not is_face(row.label) or row.label.endswith("?"):
                continue
            faces += 1
            best_iou, best = max(((box_iou(row.box, b), b) for b in card_boxes), key=lambda pair: pair[0],
                                 default=(0.0, None))
            if best is None or best_iou < 0.5:
                continue
            matched += 1
            rng = np.random.default_rng([seed, image_number, row_number])
            moved = moved_boxes(best, jitter_px, jitters, (w, h), rng)
            probabilities = reader.identify_crops(rgb, [list(best)] + moved.tolist())
            labels = [reader.classes[int(k)] for k in probabilities.argmax(1)]
            right = [label == row.label for label in labels]
            right_at_box += right[0]
            right_at_every_move += all(right)
            right_at_moved += sum(right[1:]) / jitters
            right_when_averaged += reader.classes[int(probabilities.mean(0).argmax())] == row.label
            iou_at_box.append(best_iou)
            iou_moved.extend(box_iou(row.box, b) for b in moved)
            if len(set(labels)) > 1:
                changed.append({"image": image, "label": row.label, "read": labels})
    return {
        "faces": faces,
        "faces_matched": matched,
        "right_at_box": right_at_box,
        "right_at_every_move": right_at_every_move,
        "mean_right_at_moved_boxes": round(right_at_moved, 1),
        "right_when_averaged": right_when_averaged,
        "faces_whose_reading_changes": len(changed),
        "of_them_right_at_box": sum(c["read"][0] == c["label"] for c in changed),
        "mean_iou_at_box": round(float(np.mean(iou_at_box)), 3) if iou_at_box else None,
        "mean_iou_at_moved_boxes": round(float(np.mean(iou_moved)), 3) if iou_moved else None,
        "jitter_px": jitter_px,
        "jitters": jitters,
        "changed": changed,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.photo.box_sensitivity", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--jitter-px", type=int, default=8)
    ap.add_argument("--jitters", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.jitter_px < 0 or a.jitters < 1:
        ap.error(f"--jitter-px must be >= 0 and --jitters >= 1 (got {a.jitter_px}, {a.jitters})")
    from training.photo.identify import CardReader

    print(json.dumps(box_sensitivity(a.manifest, CardReader(models=a.models), a.jitter_px, a.jitters, a.seed),
                     indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
