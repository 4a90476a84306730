"""The index reader's training on photographed corners (``vision.photo_corners``): corners without an index, a held-out
photo split, and a monitor that scores each photographed card as the photo reader reads it (the surer corner pair)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
import torch

from vision.common import TRAIN_DIR
from vision.index_reader import INDEX_CLASSES, INDEX_SIZE, NOT_INDEX, IndexReader, _monitor, train
from vision.photo_corners import build, is_monitor, mirrored_photos


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
    card = np.array([0] * 4 + [1] * 4)
    crop_accuracy, card_accuracy = _monitor(_ReadsTheRedChannel(), np.stack(crops), y, card)
    assert card_accuracy == 0.5
    assert crop_accuracy == 1.0  # each labelled crop alone reads AS, however faintly


def test_training_takes_corners_without_an_index_and_a_held_out_split(tmp_path) -> None:
    rng = np.random.default_rng(0)
    n_cards = 24
    x = rng.integers(0, 255, (n_cards * 4, INDEX_SIZE[1], INDEX_SIZE[0], 3), dtype=np.uint8)
    labels = rng.integers(0, len(INDEX_CLASSES), n_cards)
    y = np.array([[c, NOT_INDEX, c, NOT_INDEX][k] for c in labels for k in range(4)])
    monitor = np.repeat(np.arange(n_cards) % 4 == 0, 4)
    data = tmp_path / "photo.npz"
    np.savez(data, x=x, y=y, monitor=monitor, card=np.repeat(np.arange(n_cards), 4))
    out = tmp_path / "reader.pt"
    train([data], minutes=0.01, seed=0, out=out)
    reader = IndexReader(out)  # the checkpoint loads as the pipeline loads it
    assert reader.meta["epoch"] >= 1
    assert "cards" in reader.meta["monitor"][0]
    assert reader.probabilities(x[:4]).shape == (4, len(INDEX_CLASSES))


def test_mirrored_photos_are_those_judged_mirrored_too_often(tmp_path) -> None:
    sources = tmp_path / "sources.csv"
    with open(sources, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "faces_judged_unmirrored", "faces_judged_mirrored"])
        writer.writerows([["a.jpg", "10", "2"], ["b.jpg", "4", "3"], ["c.jpg", "", ""], ["d.jpg", "0", "1"]])
    assert mirrored_photos(sources) == {"b.jpg", "d.jpg"}


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_photo_corners_label_the_pair_that_shows_the_index(tmp_path) -> None:
    """Four train photos of a single card: each card's labelled pair is the one the committed reader reads as that
    card more often than the other pair, and every crop of a photo is in the same split."""
    from vision.common import read_manifest

    manifest = read_manifest(TRAIN_DIR / "manifest.csv")
    singles = [name for name, rows in sorted(manifest.items()) if len(rows) == 1 and rows[0].label[0] in "A23456789"]
    root = tmp_path / "train"
    (root / "images").mkdir(parents=True)
    with open(root / "manifest.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "label", "x1", "y1", "x2", "y2"])
        for name in singles[:4]:
            (root / name).symlink_to(TRAIN_DIR / name)
            row = manifest[name][0]
            writer.writerow([name, row.label, *row.box])
    (root / "sources.csv").write_text("image,faces_judged_unmirrored,faces_judged_mirrored\n")
    reader = IndexReader()
    counts = build(tmp_path / "corners.npz", jitters=0, seed=0, reader=reader, root=root)
    data = np.load(tmp_path / "corners.npz")
    assert counts["cards"] == len(np.unique(data["card"])) >= 3
    for card in np.unique(data["card"]):
        members = np.flatnonzero(data["card"] == card)
        labels = data["y"][members]
        truth = int(labels.max())
        index_pair = labels >= 0
        assert index_pair.sum() == 2 and (index_pair[[0, 2]].all() or index_pair[[1, 3]].all())
        p = reader.probabilities(data["x"][members])[:, truth]
        assert p[index_pair].sum() >= p[~index_pair].sum()
        assert len(set(data["monitor"][members].tolist())) == 1  # a photo's crops stay in one split
    assert sorted(set(data["monitor"].tolist())) == sorted({is_monitor(name) for name in singles[:4]})
