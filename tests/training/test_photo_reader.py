"""The committed vision models, loaded and run on a few real validation photos and generated images (fast, CPU)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.data import VAL_DIR, read_manifest
from vision.common import MODELS

pytest.importorskip("torch")
pytest.importorskip("ultralytics")

VAL_MANIFEST = VAL_DIR / "manifest.csv"
needs_val = pytest.mark.skipif(not VAL_MANIFEST.exists(), reason="shared/realcards validation photos not present")

# Clear single-card validation photos (one labelled face each) that the committed models read right.
# Chosen from the measured validation run (none of them shares a layout with a train photo): regression checks.
CLEAR_PHOTOS = {
    "images/IMG_3135_jpeg.rf.ae40e4cad2ab55750988712b5c8d4ae7.jpg": "3D",
    "images/IMG_2912_jpeg.rf.50fa85d0007a59bd938f90c28ba6b55f.jpg": "10H",
    "images/IMG_3193_jpeg.rf.5c67de735d41fca206ca5ebf3d1dac30.jpg": "5D",
    "images/IMG_3001_jpeg.rf.df8293189ce422a7bcca73d727bd50eb.jpg": "4S",
}


@pytest.fixture(scope="module")
def reader():
    from training.photo.identify import CardReader

    return CardReader()


def test_weights_are_committed_and_small():
    for name in ("card_detector.pt", "card_identifier.pt"):
        p = MODELS / name
        assert p.exists(), p
        assert p.stat().st_size < 20 * 1024 * 1024


def test_empty_felt_has_no_card(reader):
    from training.synth import make_scene

    for seed in (3, 4):
        img, boxes = make_scene(np.random.default_rng(seed), {}, 640, n_cards=0, n_chips=0)
        assert boxes == []
        got = [d for d in reader.read(img) if d.label != "CHIP"]
        assert got == [], got


def test_rendered_card_on_felt_is_found(reader):
    """A large upright generated card on felt: the detector finds a card there."""
    from PIL import Image

    from training.data import GEAXGX_DIR
    from training.synth import random_background

    face = GEAXGX_DIR / "cardfaces" / "Ah.png"
    if not face.exists():
        pytest.skip("geaxgx faces not present")
    bg = random_background(np.random.default_rng(5), 640).astype(np.uint8)
    card = np.asarray(Image.open(face).convert("RGB").resize((200, 300)))
    bg[170:470, 220:420] = card
    dets = [d for d in reader.read(bg) if d.kind == "card_face"]
    assert dets, "no card found"
    best = max(dets, key=lambda d: d.confidence)
    x1, y1, x2, y2 = best.box
    assert x1 < 320 < x2 and y1 < 320 < y2


@needs_val
@pytest.mark.parametrize("image,label", sorted(CLEAR_PHOTOS.items()))
def test_known_card_is_read_on_a_clear_photo(reader, image, label):
    dets = reader.read(VAL_DIR / image)
    faces = [d for d in dets if d.kind == "card_face"]
    assert faces
    assert max(faces, key=lambda d: d.confidence).label == label


@needs_val
def test_evaluate_manifest_on_a_few_validation_photos(reader, tmp_path: Path):
    from training.photo.evaluate import evaluate_manifest

    man = read_manifest(VAL_MANIFEST)
    keep = sorted(CLEAR_PHOTOS)
    lines = ["image,label,x1,y1,x2,y2"]
    for img in keep:
        for r in man[img]:
            lines.append(f"{img},{r.label}," + ",".join(f"{v:.1f}" for v in r.box))
    m = tmp_path / "manifest.csv"
    m.write_text("\n".join(lines) + "\n")
    res = evaluate_manifest(m, reader=reader, images_root=VAL_DIR)
    assert res["images"] == len(keep)
    assert res["card_accuracy"] is not None and res["card_accuracy"] >= 0.75


@needs_val
def test_box_sensitivity_reads_each_card_again_at_moved_boxes(reader, tmp_path):
    """Unmoved boxes read as the box itself; boxes moved by up to 40 px change some readings of a many-card photo."""
    import csv

    from training.photo.box_sensitivity import box_sensitivity

    val = read_manifest(VAL_MANIFEST)
    photos = ["images/IMG_3135_jpeg.rf.ae40e4cad2ab55750988712b5c8d4ae7.jpg",
              next(image for image in val if "IMG_3373" in image)]
    manifest = tmp_path / "manifest.csv"
    with open(manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "label", "x1", "y1", "x2", "y2"])
        for image in photos:
            for row in val[image]:
                writer.writerow([str(VAL_DIR / image), row.label, *(row.box or ("", "", "", ""))])
    still = box_sensitivity(manifest, reader, jitter_px=0, jitters=2)
    assert still["faces_matched"] >= 10
    assert (still["right_at_every_move"] == still["right_at_box"] == still["mean_right_at_moved_boxes"]
            == still["right_when_averaged"])
    assert still["faces_whose_reading_changes"] == 0 and still["changed"] == []
    assert still["mean_iou_at_box"] == still["mean_iou_at_moved_boxes"]
    moved = box_sensitivity(manifest, reader, jitter_px=40, jitters=2)
    assert moved["right_at_box"] == still["right_at_box"]
    assert moved["faces_whose_reading_changes"] >= 1
    assert moved["right_at_every_move"] < moved["right_at_box"]
    assert moved["mean_iou_at_moved_boxes"] < moved["mean_iou_at_box"]
    assert moved == box_sensitivity(manifest, reader, jitter_px=40, jitters=2)  # seeded


def test_moved_boxes_stay_boxes_inside_the_image():
    from training.photo.box_sensitivity import moved_boxes

    rng = np.random.default_rng(0)
    thin = moved_boxes([600, 100, 612, 300], 8, 200, (640, 480), rng)  # 12 px wide: sides move 3 px at most
    assert (thin[:, 2] > thin[:, 0]).all() and (thin[:, 3] > thin[:, 1]).all()
    assert np.abs(thin - [600, 100, 612, 300]).max(axis=0).tolist() == [3, 8, 3, 8]
    at_edge = moved_boxes([0, 0, 100, 100], 8, 200, (100, 100), rng)
    assert at_edge.min() >= 0 and at_edge.max() <= 100 and at_edge[:, 0].max() > 0
