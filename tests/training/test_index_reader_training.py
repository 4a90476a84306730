"""The index reader's training on photographed corners (``training.photo_corners``): corners without an index, a
held-out photo split, and a monitor that scores each photographed card as the photo reader reads it (the surer
corner pair)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

from training.data import TRAIN_DIR, Row
from training.index_net import TorchIndexReader
from training.photo.card_corners import corner_crops, index_inside
from training.photo_corners import MONITOR_EVERY, build, is_monitor, mirrored_photos, resplit, scenes
from training.train_index import NOT_INDEX, cut_across, cut_corner, index_loss, load_crops, score_monitor, train
from vision.index_reader import INDEX_CLASSES, INDEX_SIZE, RANK_MM, REGION_MM


class _ReadsTheRedChannel:
    """A stand-in network whose reading is written in each crop: its red value is the class, and its green value
    how sure it is (high: one class, 0: an even reading)."""

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        classes = (x[:, 0, 0, 0] * 255).round().long()
        sure = x[:, 1, 0, 0] * 255
        logits = torch.zeros(len(x), len(INDEX_CLASSES))
        logits[torch.arange(len(x)), classes] = sure
        return logits


def _crop(cls: int, sure: float) -> np.ndarray:
    crop = np.zeros((INDEX_SIZE[1], INDEX_SIZE[0], 3), np.uint8)
    crop[..., 0], crop[..., 1] = cls, sure
    return crop


def test_the_monitor_scores_a_card_by_the_surer_corner_pair() -> None:
    ace, king = INDEX_CLASSES.index("AS"), INDEX_CLASSES.index("KH")
    # card 0: its index pair (1, 3) reads AS surely, its blank pair (0, 2) reads KH faintly -> right
    # card 1: its blank pair reads KH more surely than its index pair reads AS -> wrong
    crops = [_crop(king, 2), _crop(ace, 9), _crop(king, 2), _crop(ace, 9),
             _crop(king, 9), _crop(ace, 2), _crop(king, 9), _crop(ace, 2)]
    y = np.array([NOT_INDEX, ace, NOT_INDEX, ace] * 2)
    box = np.array([0] * 4 + [1] * 4)
    monitor = score_monitor(_ReadsTheRedChannel(), np.stack(crops), y, box)
    assert monitor.boxes == 0.5
    assert monitor.crops == 1.0  # each labelled crop alone reads AS, however faintly
    # a crop of one colour cut by the photo's edge is the same crop: this checks the wiring, not the cut (below)
    assert monitor.cut == 1.0


def _texture(shape: tuple[int, int], seed: int = 0) -> np.ndarray:
    import cv2

    noise = np.random.default_rng(seed).integers(0, 255, (*shape, 3)).astype(np.float32)
    smooth = cv2.GaussianBlur(noise, (0, 0), 4)
    return np.clip((smooth - smooth.mean()) * 6 + 128, 0, 255).astype(np.uint8)


@pytest.mark.parametrize(("turn_deg", "edge_row"), [(30, 170), (30, 200), (-30, 135), (-30, 150)])
def test_a_cut_corner_is_the_corner_the_photo_reader_crops_from_a_photo_cut_by_its_edge(turn_deg, edge_row) -> None:
    photo = _texture((700, 700))
    px_per_mm, turn = 4.0, np.radians(turn_deg)  # a card 4 px/mm, turned either way
    ex, ey = np.array([np.cos(turn), np.sin(turn)]), np.array([-np.sin(turn), np.cos(turn)])
    corner = np.array([250.0, 80.0])
    quad = np.float32([corner, corner + 252 * ex, corner + 252 * ex + 352 * ey, corner + 352 * ey])
    assert index_inside(quad, photo[:edge_row].shape)[0]  # a corner the photo reader reads
    whole = corner_crops(photo, quad)[0].astype(int)
    cut_photo = corner_crops(photo[:edge_row], quad)[0].astype(int)  # the photo ends at edge_row
    # the photo's edge in the crop: its normal is the photo's y axis seen in the card's axes
    normal = np.array([ex[1], ey[1]])
    crop_px_per_mm = INDEX_SIZE[0] / (REGION_MM[2] - REGION_MM[0])
    line = crop_px_per_mm * ((edge_row - corner[1]) / px_per_mm - normal @ REGION_MM[:2])
    cut = cut_across(whole.astype(np.uint8), float(np.arctan2(normal[1], normal[0])), line).astype(int)
    assert np.abs(whole - cut_photo).mean() > 10  # the edge changes the crop
    assert np.abs(cut - cut_photo).mean() < 0.3 * np.abs(whole - cut_photo).mean()


def test_a_cut_corner_keeps_its_rank_and_the_cards_corner_and_loses_some_of_the_rest() -> None:
    crop = _texture((INDEX_SIZE[1], INDEX_SIZE[0]), seed=3)
    px_per_mm = INDEX_SIZE[0] / (REGION_MM[2] - REGION_MM[0])
    # the pixels wholly inside the rank, and the one at the card's corner
    rx0, ry0 = np.ceil((np.array(RANK_MM[:2]) - REGION_MM[:2]) * px_per_mm).astype(int)
    rx1, ry1 = np.floor((np.array(RANK_MM[2:]) - REGION_MM[:2]) * px_per_mm).astype(int)
    cx, cy = np.floor(-np.array(REGION_MM[:2]) * px_per_mm).astype(int)
    rng = np.random.default_rng(0)
    changed, slants = 0, set()
    for _ in range(200):
        cut = cut_corner(rng, crop)
        np.testing.assert_array_equal(cut[ry0:ry1, rx0:rx1], crop[ry0:ry1, rx0:rx1])
        np.testing.assert_array_equal(cut[cy, cx], crop[cy, cx])
        different = cut != crop
        changed += int(different.any())
        # which way the edge ran: cut only on the right, only below, or on both
        right, below = different[:, rx1:].any(), different[ry1:, :].any()
        slants.add((bool(right), bool(below)))
    assert changed >= 190
    # both ways a card may be turned against the photo's edge: cut below the rank only, and beside it only
    assert {(True, False), (False, True), (True, True)} <= slants


def _write_set(path, labels_per_box: list[int], monitor_every: int = 4, rendered: bool = False) -> None:
    rng = np.random.default_rng(len(labels_per_box))
    n = len(labels_per_box)
    x = rng.integers(0, 255, (n * 4, INDEX_SIZE[1], INDEX_SIZE[0], 3), dtype=np.uint8)
    y = np.array([[c, NOT_INDEX, c, NOT_INDEX][k] for c in labels_per_box for k in range(4)])
    monitor = np.repeat(np.arange(n) % monitor_every == 0, 4)
    if rendered:
        np.savez(path, x=x, y=np.repeat(labels_per_box, 4))
    else:
        np.savez(path, x=x, y=y, monitor=monitor, box=np.repeat(np.arange(n), 4))


def test_box_ids_stay_apart_across_data_sets(tmp_path) -> None:
    _write_set(tmp_path / "a.npz", [1, 2])
    _write_set(tmp_path / "rendered.npz", [3, 4], rendered=True)
    _write_set(tmp_path / "b.npz", [5, 6, 7])
    x, y, held_out, box, source = load_crops([tmp_path / "a.npz", tmp_path / "rendered.npz", tmp_path / "b.npz"],
                                        np.random.default_rng(0))
    assert box.tolist() == [0] * 4 + [1] * 4 + [-1] * 8 + [2] * 4 + [3] * 4 + [4] * 4
    assert source.tolist() == [0] * 8 + [1] * 8 + [2] * 12
    assert len(x) == len(y) == len(held_out) == 28


def test_training_leaves_the_monitor_out_and_takes_corners_without_an_index(tmp_path, capsys) -> None:
    labels = np.random.default_rng(0).integers(0, len(INDEX_CLASSES), 24).tolist()
    _write_set(tmp_path / "photo.npz", labels)  # boxes 0, 4, 8, ... held out: 6 boxes, 24 crops
    out = tmp_path / "reader.pt"
    train([tmp_path / "photo.npz"], minutes=0.01, seed=0, out=out)
    assert "index crops: 72 train (36 without an index), 24 monitor" in capsys.readouterr().out
    reader = TorchIndexReader(out)  # the checkpoint loads as the photo reader loads it
    assert reader.meta["epoch"] >= 1
    assert " boxes " in reader.meta["monitor"][0]


def test_a_corner_without_an_index_is_trained_towards_an_even_reading() -> None:
    even = torch.zeros(1, len(INDEX_CLASSES))
    sure = torch.zeros(1, len(INDEX_CLASSES))
    sure[0, 3] = 10.0
    no_index = torch.tensor([NOT_INDEX])
    assert float(index_loss(even, no_index)) < float(index_loss(sure, no_index))
    assert float(index_loss(sure, torch.tensor([3]))) < float(index_loss(even, torch.tensor([3])))


def test_mirrored_photos_are_those_judged_mirrored_too_often(tmp_path) -> None:
    sources = tmp_path / "sources.csv"
    with open(sources, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "faces_judged_unmirrored", "faces_judged_mirrored"])
        writer.writerows([["a.jpg", "10", "2"], ["b.jpg", "4", "3"], ["c.jpg", "", ""], ["d.jpg", "0", "1"]])
    assert mirrored_photos(sources) == {"b.jpg", "d.jpg"}


def test_a_burst_of_the_same_cards_is_one_scene(tmp_path) -> None:
    sources = tmp_path / "sources.csv"
    shots = {"a.jpg": ("IMG_2902", "KH"), "b.jpg": ("IMG_2903", "KH"), "c.jpg": ("IMG_2904", "QS"),
             "d.jpg": ("IMG_2905-Small", "KH"), "e.jpg": ("IMG_2950", "KH"), "f.jpg": ("PXL_2903", "KH")}
    with open(sources, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "source_photo"])
        writer.writerows([[image, shot] for image, (shot, _card) in shots.items()])
    manifest = {image: [Row(image, card, (0.0, 0.0, 1.0, 1.0))] for image, (_shot, card) in shots.items()}
    scene = scenes(sources, manifest)
    assert scene["a.jpg"] == scene["b.jpg"] == scene["d.jpg"] == "a.jpg"  # a QS shot between them changes nothing
    assert scene["c.jpg"] == "c.jpg"
    assert scene["e.jpg"] == "e.jpg"  # too far on in the numbering
    assert scene["f.jpg"] == "f.jpg"  # another camera


class _PrefersOddCorners:
    """A stand-in reader that reads every card surely from rotations 1 and 3, and not at all from 0 and 2."""

    def probabilities(self, crops: np.ndarray) -> np.ndarray:
        p = np.full((len(crops), len(INDEX_CLASSES)), 1.0 / len(INDEX_CLASSES))
        p[1::2] = 0.0
        p[1::2, :52] = 1.0 / 52
        return p


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_photo_corners_label_the_pair_the_given_reader_reads_the_card_from(tmp_path) -> None:
    """Single-card train photos and one of backs: a face's labelled pair is the pair the given reader reads the card
    from, the other pair NOT_INDEX; a back's four corners are all BACK; one photo, one split."""
    from training.data import read_manifest

    manifest = read_manifest(TRAIN_DIR / "manifest.csv")
    singles = [name for name, rows in sorted(manifest.items()) if len(rows) == 1 and rows[0].label != "JOKER"][:5]
    backs = [name for name, rows in sorted(manifest.items()) if [r.label for r in rows] == ["BACK"]][:1]
    root = tmp_path / "train"
    (root / "images").mkdir(parents=True)
    with open(root / "manifest.csv", "w", newline="") as f, open(root / "sources.csv", "w", newline="") as g:
        writer, sources = csv.writer(f), csv.writer(g)
        writer.writerow(["image", "label", "x1", "y1", "x2", "y2"])
        sources.writerow(["image", "source_photo", "faces_judged_unmirrored", "faces_judged_mirrored"])
        for k, name in enumerate(singles + backs):
            (root / name).symlink_to(TRAIN_DIR / name)
            row = manifest[name][0]
            writer.writerow([name, row.label, *row.box])
            sources.writerow([name, f"IMG_{1000 + 10 * k}", "1", "0"])
    counts = build(tmp_path / "corners.npz", jitters=1, seed=0, reader=_PrefersOddCorners(), root=root)
    data = np.load(tmp_path / "corners.npz")
    assert counts["cards"] == 6 and counts["boxes"] == len(np.unique(data["box"])) >= 8
    for box in np.unique(data["box"]):
        members = np.flatnonzero(data["box"] == box)
        photo = str(data["photos"][data["photo"][members[0]]])
        truth = INDEX_CLASSES.index(manifest[photo][0].label)
        expected = [truth] * 4 if manifest[photo][0].label == "BACK" else [NOT_INDEX, truth, NOT_INDEX, truth]
        assert data["y"][members].tolist() == expected
    for k, photo in enumerate(data["photos"]):
        flags = set(data["monitor"][data["photo"] == k].tolist())
        assert flags == {is_monitor(str(photo))}  # each photo is its own scene here
    # A wider held-out split of the same crops: each photo's crops follow its scene, nothing else changes.
    for shares in (1, 3, 7):
        counts = resplit(tmp_path / "corners.npz", tmp_path / f"corners_{shares}.npz", shares, root=root)
        wider = np.load(tmp_path / f"corners_{shares}.npz")
        for key in ("x", "y", "box", "photo", "photos"):
            assert np.array_equal(wider[key], data[key]), key
        for k, photo in enumerate(data["photos"]):
            assert set(wider["monitor"][data["photo"] == k].tolist()) == {is_monitor(str(photo), shares)}
        assert counts["monitor_crops"] == int(wider["monitor"].sum())
    assert np.array_equal(np.load(tmp_path / "corners_1.npz")["monitor"], data["monitor"])


def test_a_wider_held_out_split_keeps_the_usual_one_and_holds_out_its_share() -> None:
    names = [f"IMG_{n}" for n in range(4000)]
    for shares in range(1, MONITOR_EVERY):
        held_out = {name for name in names if is_monitor(name, shares)}
        assert {name for name in names if is_monitor(name)} <= held_out
        assert abs(len(held_out) / len(names) - shares / MONITOR_EVERY) < 0.03, shares
