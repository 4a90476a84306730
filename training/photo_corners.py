"""The index reader's photographed corners: corner crops of the real train photos, cut as the photo reader cuts them.

The photo reader (``training.photo.identify``) finds each card's outline by GrabCut in the detector's box and reads the
four corners of the rectified card (``training.photo.card_corners``); this module cuts the same crops from the labelled
boxes of the train photos (``shared/realcards/ScottJJosh-PokerSensei-train``), so that the index reader learns real
light, real decks and real blur, not only the rendered felt.

    git show 7ce95c1:models/card_index.pt > build/vision/card_index_7ce95c1.pt   # the reader that labels the corners
    python -m training.photo_corners --out build/vision/photo_corners.npz --reader build/vision/card_index_7ce95c1.pt

Which two of a card's four corners hold its index is not labelled (the photos are stretched: the long side cannot be
told from the short one). The pair on which a given index reader (``--reader``: one trained without these crops,
else it would confirm its own labels) gives the true label the higher probability is taken as the index pair (label:
the card); the other pair is stored with label ``NOT_INDEX`` (-1), which training
pushes towards an even reading, so that ``index_probabilities`` keeps preferring the pair that shows an index. A
card back gives four ``BACK`` crops. A card cut by the photo's edge is cut from its outline completed beyond the
edge, as the photo reader reads it (``card_corners.cut_card_quads``), and a corner whose index lies outside the photo
is ``NOT_INDEX``. Photos whose faces the set's ``sources.csv`` judges mirrored too often are
skipped (``mirrored_photos``): a mirrored index is no card.

Each scene belongs to the monitor split (about one in eight, fixed by a hash) or to training, so that a held-out
measure never sees a photo the reader trained on, nor its near-twin: the photographers shot bursts of the same layout
(IMG_2902, 2903, 2904 all show one K♥), so consecutive shots of the same cards are one scene (``scenes``). Never the
validation set.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import re
import sys
import time
from pathlib import Path

import numpy as np

from training.data import TRAIN_DIR, read_manifest
from training.index_net import TorchIndexReader
from training.train_index import NOT_INDEX
from vision.common import CARDS
from vision.index_reader import INDEX_CLASSES

#: one scene in MONITOR_EVERY is held out (by the hash of its first image's name)
MONITOR_EVERY = 8
#: shots at most this far apart in the camera's numbering, of the same cards, are one scene
BURST_GAP = 3


def is_monitor(scene: str, shares: int = 1) -> bool:
    """Whether a scene is held out: ``shares`` scenes in ``MONITOR_EVERY`` are (one, the readers' usual monitor;
    more for a comparison that needs a larger held-out set: the usual one's scenes are always among them)."""
    return int(hashlib.sha256(scene.encode()).hexdigest(), 16) % MONITOR_EVERY < shares


def _shot(source_photo: str) -> tuple[str, int]:
    """'IMG_2903-Small' -> ('IMG_', 2903): the camera's series and its number (-1 when there is none)."""
    match = re.match(r"(\D*)(\d+)", source_photo)
    return (match.group(1), int(match.group(2))) if match else (source_photo, -1)


def scenes(sources_csv: Path, manifest: dict) -> dict[str, str]:
    """Each image -> its scene: the first image of its burst (shots of the same labelled cards, each at most
    ``BURST_GAP`` after the one before in one camera's numbering, other shots between them or not)."""
    with open(sources_csv, newline="") as f:
        shots = sorted((_shot(row["source_photo"]), row["image"]) for row in csv.DictReader(f))
    scene_of: dict[str, str] = {}
    last_shot: dict[tuple, tuple[int, str]] = {}  # (series, cards) -> (number, scene) of its latest shot
    for (series, number), image in shots:
        key = (series, tuple(sorted(r.label for r in manifest.get(image, []))))
        previous = last_shot.get(key)
        scene_of[image] = previous[1] if previous and number - previous[0] <= BURST_GAP else image
        last_shot[key] = (number, scene_of[image])
    return scene_of


def held_out_photos(root: Path, manifest: dict, shares: int = 1) -> set[str]:
    """The photos of the held-out scenes (``shares`` scenes in ``MONITOR_EVERY``; one: every reader's monitor,
    never trained on by the index reader's photographed corners nor the photo detector)."""
    if not 1 <= shares < MONITOR_EVERY:
        raise ValueError(f"--shares must be 1 to {MONITOR_EVERY - 1}, not {shares}")
    scene_of = scenes(root / "sources.csv", manifest)
    return {image for image in manifest if is_monitor(scene_of.get(image, image), shares)}


def resplit(data: Path, out: Path, shares: int, root: Path = TRAIN_DIR) -> dict[str, int]:
    """A copy of a built corners file whose monitor is ``shares`` scenes in ``MONITOR_EVERY`` (same crops)."""
    held_out = held_out_photos(root, read_manifest(root / "manifest.csv"), shares)
    with np.load(data) as loaded:
        arrays = {key: loaded[key] for key in loaded.files}
    photo_held_out = np.array([str(name) in held_out for name in arrays["photos"]])
    arrays["monitor"] = photo_held_out[arrays["photo"]]
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, **arrays)
    return {"photos": len(arrays["photos"]), "monitor_photos": int(photo_held_out.sum()),
            "crops": len(arrays["y"]), "monitor_crops": int(arrays["monitor"].sum())}


def mirrored_photos(sources_csv: Path) -> set[str]:
    """Photos with more than one face judged mirrored for every two judged unmirrored. (The set's mirror check is
    wrong about one time in eight, and most multi-card photos have a face or two judged mirrored: skipping them all
    would drop half of the cards.)"""
    with open(sources_csv, newline="") as f:
        return {row["image"] for row in csv.DictReader(f)
                if int(row["faces_judged_mirrored"] or 0) > int(row["faces_judged_unmirrored"] or 0) / 2}


def jittered(rng: np.random.Generator, box, spread: float) -> tuple[float, float, float, float]:
    """The box moved and resized by about ``spread`` of its size, as a detector's box differs from the label."""
    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    d = rng.normal(0, spread, 4) * [w, h, w, h]
    return (x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3])


def labelled_corners(image: np.ndarray, quads: list[np.ndarray], label: int,
                     reader: TorchIndexReader) -> tuple[np.ndarray, list[int], bool]:
    """One box's four corner crops and their labels, from ``card_quads``' outlines of it: (crops, labels, whether
    the card was completed beyond the photo's edge). A card back: four ``BACK`` crops of the rectangle. A face: the
    pair of opposite corners on which ``reader`` gives ``label`` the higher probability is labelled with it, the
    other pair ``NOT_INDEX``. A card cut by the edge is cut from its completed outlines only (the rectangle's corners
    are not the card's), the one and the pair where ``reader`` reads ``label`` best, counting only the corners whose
    index lies inside the photo; a corner whose index is outside it is ``NOT_INDEX`` (nothing there to read), and so
    are all four where none is inside."""
    from training.photo.card_corners import corner_crops, index_inside

    if label == INDEX_CLASSES.index("BACK"):
        return corner_crops(image, quads[0]), [label] * 4, False
    completed = len(quads) > 1
    best = None  # (mean probability of the label on the pair, crops, pair, inside)
    for quad in quads[1:] if completed else quads[:1]:
        crops = corner_crops(image, quad)
        inside = index_inside(quad, image.shape) if completed else np.ones(4, bool)
        p = reader.probabilities(crops)[:, label]
        for pair in ((0, 2), (1, 3)):
            seen = [k for k in pair if inside[k]]
            if seen and (best is None or float(p[seen].mean()) > best[0]):
                best = (float(p[seen].mean()), crops, pair, inside)
    if best is None:  # no index of the completed card inside the photo: nothing there to read
        return corner_crops(image, quads[0]), [NOT_INDEX] * 4, completed
    _, crops, pair, inside = best
    return crops, [label if k in pair and inside[k] else NOT_INDEX for k in range(4)], completed


def build(out: Path, jitters: int, seed: int, reader: TorchIndexReader, root: Path = TRAIN_DIR) -> dict[str, int]:
    """Cut and label every card's corners; writes ``x`` (N x 64 x 48 x 3), ``y`` (INDEX_CLASSES index or NOT_INDEX),
    ``monitor`` (bool), ``box`` (which box — a labelled one, or a jittered copy — each group of four crops comes
    from) and ``photo`` (index into ``photos``, the image names) to ``out``."""
    from PIL import Image

    from training.photo.card_corners import card_quads

    rng = np.random.default_rng(seed)
    skip = mirrored_photos(root / "sources.csv")
    manifest = read_manifest(root / "manifest.csv")
    monitor_photos = held_out_photos(root, manifest)
    xs, ys, monitor, box_ids, photo_ids, photos = [], [], [], [], [], []
    counts = {"photos": 0, "cards": 0, "boxes": 0, "no_outline": 0, "cut_completed": 0, "skipped_mirrored": 0,
              "monitor_photos": 0}
    started = time.time()
    for n, name in enumerate(sorted(manifest)):
        if name in skip:
            counts["skipped_mirrored"] += 1
            continue
        rows = [r for r in manifest[name] if r.box is not None and (r.label in CARDS or r.label == "BACK")]
        if not rows:
            continue
        image = np.asarray(Image.open(root / name).convert("RGB"))
        counts["photos"] += 1
        held_out = name in monitor_photos
        counts["monitor_photos"] += held_out
        photos.append(name)
        for row in rows:
            counts["cards"] += 1
            label = INDEX_CLASSES.index(row.label)
            boxes = [row.box] + [jittered(rng, row.box, 0.04) for _ in range(jitters)]
            for box in boxes:
                quads = card_quads(image, box)
                if not quads:
                    counts["no_outline"] += 1
                    continue
                crops, labels, completed = labelled_corners(image, quads, label, reader)
                counts["cut_completed"] += completed
                xs.extend(crops)
                ys.extend(labels)
                monitor.extend([held_out] * 4)
                box_ids.extend([counts["boxes"]] * 4)
                photo_ids.extend([len(photos) - 1] * 4)
                counts["boxes"] += 1
        if counts["photos"] % 50 == 0:
            print(f"  {n}/{len(manifest)} photos, {counts['boxes']} boxes ({time.time() - started:.0f}s)", flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, x=np.stack(xs), y=np.array(ys), monitor=np.array(monitor), box=np.array(box_ids),
                        photo=np.array(photo_ids), photos=np.array(photos))
    counts["crops"] = len(xs)
    counts["monitor_crops"] = int(np.sum(monitor))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.photo_corners", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("build/vision/photo_corners.npz"))
    parser.add_argument("--jitters", type=int, default=1, help="extra jittered boxes per labelled card")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reader", type=Path,
                        help="the index reader that picks each card's index pair: one not trained on these crops")
    parser.add_argument("--resplit", type=Path, metavar="BUILT",
                        help="do not cut anything: copy this built file to --out with a monitor of --shares scenes")
    parser.add_argument("--shares", type=int, default=1, help=f"held-out scenes in {MONITOR_EVERY} (with --resplit)")
    args = parser.parse_args(argv)
    if args.resplit:
        if not args.resplit.is_file():
            parser.error(f"--resplit {args.resplit}: no such file")
        try:
            counts = resplit(args.resplit, args.out, args.shares)
        except ValueError as error:
            parser.error(str(error))
    elif args.shares != 1:
        parser.error("--shares goes with --resplit: a corners file is built with the usual split")
    elif args.reader is None:
        parser.error("--reader is required to build the corners (or --resplit a built file)")
    else:
        counts = build(args.out, args.jitters, args.seed, TorchIndexReader(args.reader))
    print(f"{counts} -> {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
