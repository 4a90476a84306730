"""How much of the photo reader's card accuracy rests on the detector's exact box.

    python -m vision.box_sensitivity --manifest build/vision/held_out_scenes.csv
    python -m vision.box_sensitivity --manifest ../shared/realcards/ScottJJosh-PokerSensei/manifest.csv

Each labelled face-up card that a detector box matches (IoU >= 0.5, the best box) is read at that box and again at
``--jitters`` boxes whose four sides are moved by up to ``--jitter-px`` pixels (seeded: the same run gives the same
figures). A detector trained again boxes a card a few pixels differently (up to 16 px, session 13), so the figures
say how much a card count measured at one detector's boxes is owed to them. The jittered boxes are on average worse
than the detector's own, so ``expected_right_under_jitter`` is a low figure, not a prediction.
``right_when_averaged`` reads each card by the mean of the readers' probabilities over its boxes (a way to read
that the box moves less; session 13 tried it: not adopted, see models/MODEL_CARD.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from vision.common import MODELS, read_manifest
from vision.evaluate import _is_face, box_iou


def box_sensitivity(manifest: Path, reader, jitter_px: int = 8, jitters: int = 6, seed: int = 0) -> dict:
    """Counts over the manifest's boxed face-up cards (rank-only ``K?`` labels are left out: the rank alone is not
    what flips)."""
    import cv2

    rng = np.random.default_rng(seed)
    faces = matched = right_at_box = right_at_every_jitter = right_when_averaged = 0
    expected = 0.0
    changed = []
    for image, rows in sorted(read_manifest(manifest).items()):
        cards = [r for r in rows if r.box is not None and _is_face(r.label) and not r.label.endswith("?")]
        if not cards:
            continue
        bgr = cv2.imread(str(manifest.parent / image))
        if bgr is None:
            raise FileNotFoundError(f"{manifest}: cannot read {image}")
        rgb = np.ascontiguousarray(bgr[..., ::-1])
        h, w = rgb.shape[:2]
        boxes, classes, _confidences = reader.detect(rgb)
        card_boxes = [b for b, c in zip(boxes, classes, strict=True) if c in (0, 1)]  # card_face, card_back
        for row in cards:
            faces += 1
            best = max(card_boxes, key=lambda b: box_iou(row.box, b), default=None)
            if best is None or box_iou(row.box, best) < 0.5:
                continue
            matched += 1
            moved = np.clip(np.asarray(best) + rng.integers(-jitter_px, jitter_px + 1, (jitters, 4)), 0, [w, h, w, h])
            probabilities = reader.identify_crops(rgb, [list(best)] + moved.tolist())
            labels = [reader.classes[int(k)] for k in probabilities.argmax(1)]
            right = [label == row.label for label in labels]
            right_at_box += right[0]
            right_at_every_jitter += all(right)
            right_when_averaged += reader.classes[int(probabilities.mean(0).argmax())] == row.label
            expected += sum(right) / len(right)
            if len(set(labels)) > 1:
                changed.append({"image": image, "label": row.label, "read": labels})
    return {
        "faces": faces,
        "faces_matched": matched,
        "right_at_box": right_at_box,
        "right_at_every_jitter": right_at_every_jitter,
        "expected_right_under_jitter": round(expected, 1),
        "right_when_averaged": right_when_averaged,
        "readings_changed_by_the_box": len(changed),
        "jitter_px": jitter_px,
        "jitters": jitters,
        "changed": changed,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.box_sensitivity", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--models", type=Path, default=MODELS)
    ap.add_argument("--jitter-px", type=int, default=8)
    ap.add_argument("--jitters", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.jitter_px < 0 or a.jitters < 1:
        ap.error(f"--jitter-px must be >= 0 and --jitters >= 1 (got {a.jitter_px}, {a.jitters})")
    from vision.identify import CardReader

    print(json.dumps(box_sensitivity(a.manifest, CardReader(models=a.models), a.jitter_px, a.jitters, a.seed),
                     indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
