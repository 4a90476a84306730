"""The detector's training data: synthetic foil cards and cards cut by the image's edge, and a monitor made of
held-out scenes of the train photos (not photos the detector also trains on); the identifier's crops of cards cut by
the photo's edge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from training.data import TRAIN_DIR, read_manifest
from training.synth import foil_stock


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


@pytest.fixture(scope="module")
def textures() -> dict:
    from training import synth

    tex = synth.build_textures(verbose=False)  # read once for the module: a second or two each time
    missing = [label for label, images in tex.items() if not images]  # every kind make_scene draws: faces, BACK, JOKER
    if missing and not synth.AISLERIOT.is_dir():
        pytest.skip(f"{synth.AISLERIOT} is absent (Debian's gnome-cards-data, which setup.sh installs): "
                    f"no art for {', '.join(missing)}")
    assert not missing, f"{synth.AISLERIOT} is installed but gives no art for {', '.join(missing)}"
    return tex


def _boxes_at_the_edge(monkeypatch, tex: dict, share: str, value: float, n_cards: int, seeds: int) -> list[tuple]:
    """The boxes touching the edge of 320 px scenes drawn with the synth module's ``share`` set to ``value``."""
    from training import synth

    monkeypatch.setattr(synth, share, value)
    at_edge = []
    for seed in range(seeds):
        _img, boxes = synth.make_scene(np.random.default_rng([n_cards, seed]), tex, 320, n_cards=n_cards, n_chips=0)
        for _label, (x1, y1, x2, y2) in boxes:
            assert 0 <= x1 < x2 <= 320 and 0 <= y1 < y2 <= 320  # boxes end at the edge
            if min(x1, y1) <= 0 or max(x2, y2) >= 320:
                at_edge.append((x1, y1, x2, y2))
    return at_edge


def test_scenes_include_cards_cut_by_the_image_edge(monkeypatch, textures) -> None:
    def cut_cards(edge_share: float) -> int:
        return len(_boxes_at_the_edge(monkeypatch, textures, "EDGE_CUT_SHARE", edge_share, n_cards=2, seeds=30))

    assert cut_cards(1.0) > cut_cards(0.0) + 5


def test_rows_and_grids_framed_too_tight_leave_slivers_at_the_edge(monkeypatch, textures) -> None:
    def cut_and_slivers(overflow_share: float) -> tuple[int, int]:
        boxes = _boxes_at_the_edge(monkeypatch, textures, "LAYOUT_OVERFLOW_SHARE", overflow_share, n_cards=12,
                                   seeds=60)
        # a sliver: a box far thinner than a card's (whole cards are 0.7 as wide as tall, or more when turned)
        return len(boxes), sum(min(x2 - x1, y2 - y1) < 0.35 * max(x2 - x1, y2 - y1) for x1, y1, x2, y2 in boxes)

    (cut, slivers), (cut_before, slivers_before) = cut_and_slivers(1.0), cut_and_slivers(0.0)
    assert cut > cut_before + 60 and slivers >= slivers_before + 8, (cut, cut_before, slivers, slivers_before)


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_the_detector_monitor_is_held_out_scenes(tmp_path: Path) -> None:
    from training.photo_corners import is_monitor, scenes
    from training.train_detector import prep_detector

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
    from training.train_detector import prep_detector

    prep_detector([], tmp_path / "det", hold_out_scenes=False)
    train = {p.name for p in (tmp_path / "det/images/train").iterdir()}
    val = {p.name for p in (tmp_path / "det/images/val").iterdir()}
    assert val and val <= train


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_train_photos_with_a_sliver_of_a_back_are_listed_again_and_the_monitor_is_not(tmp_path: Path) -> None:
    from training.train_detector import has_sliver_back, prep_detector

    prep_detector([], tmp_path / "once")
    prep_detector([], tmp_path / "det", sliver_repeats=3)
    manifest = read_manifest(TRAIN_DIR / "manifest.csv")
    slivers = {Path(image).stem for image, rows in manifest.items() if has_sliver_back(rows)}
    once = {p.stem for p in (tmp_path / "once/images/train").iterdir()}
    train = sorted(p.stem for p in (tmp_path / "det/images/train").iterdir())
    assert 0 < len(slivers & once) < len(slivers)  # some are held out
    assert len(train) == len(once) + 2 * len(slivers & once)
    for stem in slivers & once:
        copies = [name for name in train if name.startswith(stem)]
        assert len(copies) == 3
        assert {(tmp_path / "det/images/train" / f"{name}.jpg").resolve() for name in copies} == {
            (TRAIN_DIR / "images" / f"{stem}.jpg").resolve()}
        labels = {(tmp_path / "det/labels/train" / f"{name}.txt").read_text() for name in copies}
        assert len(labels) == 1 and " " in labels.pop()
    monitor = {p.stem for p in (tmp_path / "det/images/val").iterdir()}
    assert monitor == {p.stem for p in (tmp_path / "once/images/val").iterdir()}


def test_a_sliver_is_a_back_under_35_pixels_across() -> None:
    from training.data import Row
    from training.train_detector import has_sliver_back

    assert has_sliver_back([Row("a.jpg", "KH", (0, 0, 20, 20)), Row("a.jpg", "BACK", (10, 10, 150, 44))])
    assert not has_sliver_back([Row("a.jpg", "KH", (0, 0, 20, 20)), Row("a.jpg", "BACK", (10, 10, 150, 45))])
    assert not has_sliver_back([Row("a.jpg", "BACK", None)])


def test_prep_detector_refuses_fewer_than_one_listing_and_writes_nothing(tmp_path: Path) -> None:
    from training.train_detector import prep_detector

    with pytest.raises(ValueError, match="sliver_repeats must be at least 1, not 0"):
        prep_detector([], tmp_path / "det", sliver_repeats=0)
    assert not (tmp_path / "det").exists()


@pytest.mark.skipif(not TRAIN_DIR.exists(), reason="needs ../shared/realcards")
def test_the_held_out_scenes_manifest_lists_the_detector_monitor(tmp_path: Path) -> None:
    from training.train_detector import prep_detector, write_monitor_manifest

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
    from training.train_identifier import EDGE_CUT_KEPT, cut_by_the_edge

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

    edges, kept_shares = set(), []
    for seed in range(24):
        cut = cut_by_the_edge(np.random.default_rng(seed), crop)
        # turned so that the photo's edge is on the right: the side repeated the most
        turns = min(range(4), key=lambda k: repeated_from(np.rot90(cut, k)))
        turned = np.rot90(cut, turns)
        edge = repeated_from(turned)
        card = np.nonzero((turned[..., 0] == 250).any(0))[0]
        kept = (edge - card[0]) / (side - 2 * start)
        assert EDGE_CUT_KEPT[0] - 0.05 < kept < EDGE_CUT_KEPT[1] + 0.05, kept  # part of the card seen, the rest cut
        assert abs((card[0] + edge) / 2 - side / 2) < 3  # and centred, as square_crop centres on the box
        edges.add(turns)
        kept_shares.append(kept)
    assert len(edges) >= 3  # the photo's edge falls on any side
    assert min(kept_shares) < EDGE_CUT_KEPT[0] + 0.12  # thin slivers too (35 % at least kept would give 0.40)


def test_identifier_training_crops_average_fine_print_as_the_reader_s_crops_do() -> None:
    """Stripes one stored pixel wide come out grey (a bilinear warp alone keeps them at full contrast), and the crop
    is turned about its centre, moved as asked."""
    from training.photo.identify import CROP
    from training.train_identifier import STORE, turned_crop

    stripes = np.zeros((STORE, STORE, 3), np.uint8)
    stripes[:, ::2] = 255
    for angle in (0.0, 33.0, 90.0):
        middle = turned_crop(stripes, angle, 0.9, (0.0, 0.0))[CROP // 4:-CROP // 4, CROP // 4:-CROP // 4]
        assert middle.std() < 30 and abs(middle.mean() - 127.5) < 8, (angle, middle.std())
    dot = np.zeros((STORE, STORE, 3), np.uint8)
    dot[STORE // 2 - 4:STORE // 2 + 4, STORE // 2 - 4:STORE // 2 + 4] = 255
    centre = (CROP - 1) / 2
    # turned half a turn about its centre moved 10 stored px right: the dot lands 2 x 10 x CROP / STORE px right
    for angle, shift, expected_x in ((45.0, 0.0, centre), (180.0, 0.0, centre),
                                     (180.0, 10.0, centre + 20 * CROP / STORE)):
        out = turned_crop(dot, angle, 1.0, (shift, 0.0))[..., 0].astype(float)
        ys, xs = np.nonzero(out > 60)
        weights = out[ys, xs]
        assert abs(np.average(xs, weights=weights) - expected_x) < 0.3, (angle, shift)
        assert abs(np.average(ys, weights=weights) - centre) < 0.3, (angle, shift)


def test_pile_scenes_leave_cards_mostly_hidden_under_others(textures) -> None:
    """Piles of cards slightly shifted (a stud hand; val's piles of backs) show the cards under the top one as
    slivers: boxes mostly inside another card's box."""
    from training import synth

    def hidden_backs_cards(pile_share: float) -> tuple[int, int, int]:
        hidden = backs = cards = 0
        for seed in range(30):
            _img, boxes = synth.make_scene(np.random.default_rng([7, seed]), textures, 320, n_cards=6, n_chips=0,
                                           pile_share=pile_share)
            for k, (label, (x1, y1, x2, y2)) in enumerate(boxes):
                area = (x2 - x1) * (y2 - y1)
                inside = max((max(0.0, min(x2, b[2]) - max(x1, b[0])) * max(0.0, min(y2, b[3]) - max(y1, b[1]))
                              for j, (_, b) in enumerate(boxes) if j != k), default=0.0)
                hidden += inside > 0.6 * area
                backs += label == "BACK"
                cards += 1
        return hidden, backs, cards

    hidden, backs, cards = hidden_backs_cards(1.0)
    hidden_before, backs_before, cards_before = hidden_backs_cards(0.0)
    assert hidden > 2 * hidden_before + 20, (hidden, hidden_before)
    assert backs > 0.5 * cards, (backs, cards)  # most piles are hands dealt face down (a face is a back 22 % of times)
    assert backs_before < 0.35 * cards_before, (backs_before, cards_before)


def test_stack_scenes_box_the_backs_sticking_out_and_not_the_stacks_edges(textures, monkeypatch) -> None:
    """A thick stack of a deck (the hardest slivers to find) shows its top card whole and a tab of each card
    sticking out, which are boxed; the others show a few pixels of their edge, which are not (nor are they in the
    photos' labels)."""
    from training import synth

    def squared_stack_one_card_out(_rng, size: int, card_height: float) -> list:
        cards = [(size / 2, size / 2, 0.0, "BACK", 0)] * 10
        cards.insert(5, (size / 2, size / 2 + 0.2 * card_height, 0.0, "BACK", 0))  # along its long side
        return cards

    monkeypatch.setattr(synth, "_stacks", squared_stack_one_card_out)
    for seed in range(6):
        _img, boxes = synth.make_scene(np.random.default_rng([12, seed]), textures, 320, n_chips=0, stack_share=1.0)
        assert [label for label, _ in boxes] == ["BACK", "BACK"], (seed, boxes)
        (_, tab), (_, top) = boxes  # bottom first: the card sticking out, then the top card
        assert tab[3] > top[3] and tab[1] > top[1] + 0.5 * (top[3] - top[1]), (seed, boxes)  # the tab below the top
    # without the rule, the edges of the nine cards under the top one are boxed too (those of 60 px or more)
    monkeypatch.setattr(synth, "STACK_MIN_WIDTH", 0.0)
    edges = [len(synth.make_scene(np.random.default_rng([12, seed]), textures, 320, n_chips=0, stack_share=1.0)[1]) - 2
             for seed in range(6)]
    assert sum(edges) >= 6, edges


@pytest.mark.parametrize("flag", ["--pile-share", "--stack-share"])
@pytest.mark.parametrize("share", ["1.5", "-0.1"])
def test_synth_refuses_a_share_outside_0_to_1(capsys, tmp_path, flag, share) -> None:
    from training import synth

    with pytest.raises(SystemExit):
        synth.main([flag, share, "--n", "0", "--out", str(tmp_path / "synth")])
    assert f"{flag} {share}" in capsys.readouterr().err
    assert not (tmp_path / "synth").exists()
