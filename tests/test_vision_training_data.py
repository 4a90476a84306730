"""The detector's training data: synthetic foil cards and cards cut by the image's edge, and a monitor made of
held-out scenes of the train photos (not photos the detector also trains on); the identifier's crops of cards cut by
the photo's edge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.common import TRAIN_DIR, read_manifest
from vision.synth import foil_stock


def _white_card_with_red_pip() -> np.ndarray:
    card = np.full((90, 60, 4), 255, np.uint8)
    card[40:50, 25:35, :3] = (200, 20, 30)
    return card


def test_foil_stock_turns_the_paper_to_metal_and_keeps_the_ink() -> None:
    card = _white_card_with_red_pip()
    foil = foil_stock(card, np.random.default_rng(0))
    paper = foil[5:35, 5:55, :3].reshape(-1, 3).astype(int)
    assert np.abs(paper - 255).mean() > 20  # no longer white paper
    assert np.array_equal(foil[42:48, 27:33], card[42:48, 27:33])  # the pip's ink is untouched
    assert np.array_equal(foil[..., 3], card[..., 3])  # the card's outline is untouched


def test_foil_is_gold_or_silver_and_varies() -> None:
    card = _white_card_with_red_pip()
    means = [foil_stock(card, np.random.default_rng(seed))[5:35, 5:55, :3].reshape(-1, 3).mean(axis=0)
             for seed in range(20)]
    gold = [m for m in means if m[0] - m[2] > 50]  # red well above blue
    assert 0 < len(gold) < len(means)  # some gold, some silver
    assert len({tuple(np.round(m)) for m in means}) == len(means)


def test_scenes_include_cards_cut_by_the_image_edge(monkeypatch) -> None:
    from vision import synth

    tex = synth.build_textures(verbose=False)
    if not tex["AS"]:
        pytest.skip("no card art installed")

    def cut_cards(edge_share: float) -> int:
        monkeypatch.setattr(synth, "EDGE_CUT_SHARE", edge_share)
        cut = 0
        for seed in range(30):
            _img, boxes = synth.make_scene(np.random.default_rng([9, seed]), tex, 320, n_cards=2, n_chips=0)
            for _label, (x1, y1, x2, y2) in boxes:
                assert 0 <= x1 < x2 <= 320 and 0 <= y1 < y2 <= 320  # boxes end at the edge
                cut += min(x1, y1) <= 0 or max(x2, y2) >= 320
        return cut

    assert cut_cards(1.0) > cut_cards(0.0) + 5


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_the_detector_monitor_is_held_out_scenes(tmp_path: Path) -> None:
    from vision.photo_corners import is_monitor, scenes
    from vision.train import prep_detector

    yaml = prep_detector([], tmp_path / "det")
    assert "val: images/val" in yaml.read_text()
    train = {p.name for p in (tmp_path / "det/images/train").iterdir()}
    val = {p.name for p in (tmp_path / "det/images/val").iterdir()}
    assert val and not train & val
    manifest = read_manifest(TRAIN_DIR / "manifest.csv")
    scene_of = scenes(TRAIN_DIR / "sources.csv", manifest)
    assert len(train) + len(val) == len(manifest)
    for image in manifest:  # every shot of a held-out scene is held out, its burst twins too
        assert (Path(image).name in val) == is_monitor(scene_of[image])
    label = (tmp_path / "det/labels/val" / Path(sorted(val)[0]).with_suffix(".txt")).read_text().split()
    assert len(label) % 5 == 0 and label and all(0 <= float(v) <= 1 for v in label[1:5])


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_the_old_monitor_is_trained_on_too(tmp_path: Path) -> None:
    from vision.train import prep_detector

    prep_detector([], tmp_path / "det", hold_out_scenes=False)
    train = {p.name for p in (tmp_path / "det/images/train").iterdir()}
    val = {p.name for p in (tmp_path / "det/images/val").iterdir()}
    assert val and val <= train


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_the_held_out_scenes_manifest_lists_the_detector_monitor(tmp_path: Path) -> None:
    from vision.train import prep_detector, write_monitor_manifest

    prep_detector([], tmp_path / "det")
    n = write_monitor_manifest(tmp_path / "held_out.csv")
    listed = read_manifest(tmp_path / "held_out.csv")
    assert n == len(listed) == len(list((tmp_path / "det/images/val").iterdir()))
    assert {Path(image).name for image in listed} == {p.name for p in (tmp_path / "det/images/val").iterdir()}
    some_image = next(iter(listed))
    assert Path(some_image).is_absolute() and Path(some_image).exists()
    train = read_manifest(TRAIN_DIR / "manifest.csv")
    original = train["images/" + Path(some_image).name]
    assert [(r.label, r.box) for r in listed[some_image]] == [(r.label, r.box) for r in original]


def test_identifier_crops_of_a_card_cut_by_the_photos_edge_look_like_square_crop_at_the_edge() -> None:
    from vision.identifier_train import cut_by_the_edge

    side = 96
    crop = np.full((side, side, 3), 90, np.uint8)  # background
    start = int((side - side / 1.25) / 2)
    crop[start:side - start, start:side - start] = 250  # the card fills the middle 1/1.25
    crop[start:side - start, start:side - start, 1] = np.arange(side - 2 * start, dtype=np.uint8)[None, :]  # no two
    crop[start:side - start, start:side - start, 2] = np.arange(side - 2 * start, dtype=np.uint8)[:, None]  # alike

    def repeated_from(image: np.ndarray) -> int:
        """The first column from which every column repeats the one there (the photo's edge, as BORDER_REPLICATE)."""
        column = side - 1
        while column > 0 and np.array_equal(image[:, column - 1], image[:, -1]):
            column -= 1
        return column

    edges = set()
    for seed in range(12):
        cut = cut_by_the_edge(np.random.default_rng(seed), crop)
        # turned so that the photo's edge is on the right: the side repeated the most
        turns = min(range(4), key=lambda k: repeated_from(np.rot90(cut, k)))
        turned = np.rot90(cut, turns)
        edge = repeated_from(turned)
        card = np.nonzero((turned[..., 0] == 250).any(0))[0]
        kept = (edge - card[0]) / (side - 2 * start)
        assert 0.3 < kept < 0.8, kept  # part of the card is seen, one side of it cut away
        assert abs((card[0] + edge) / 2 - side / 2) < 3  # and centred, as square_crop centres on the box
        edges.add(turns)
    assert len(edges) >= 3  # the photo's edge falls on any side
