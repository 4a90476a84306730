"""The photo reader's corner index: a card's outline found by GrabCut in its box, its index corners rectified and
read by the committed index reader — on synthetic photos of a deck no model trained on, turned and stretched."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from controller.sim.render import DEFAULT_DECK, card_art
from training.data import ID_CLASSES
from training.index_net import TorchIndexReader
from training.photo.card_corners import (
    card_outline,
    card_quad,
    card_quads,
    corner_crops,
    cut_card_quads,
    index_inside,
    index_probabilities,
    index_reading,
)
from training.train_index import NOT_INDEX
from vision.common import vision_label
from vision.index_reader import INDEX_CLASSES


def _photo(card: str, angle_deg: float, squeeze: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(RGB photo 480x480 of the card on a dark wood-like table, the card's corners in it)."""
    faces, _back, source = card_art(DEFAULT_DECK, (189, 264))
    assert source != "programmatic", "the KDE deck did not render (rsvg-convert and kdegames-card-data-kf5)"
    sprite = faces[card]
    rng = np.random.default_rng(seed)
    background = np.zeros((480, 480, 3), np.float32) + (40, 60, 90)
    background += cv2.GaussianBlur(rng.normal(0, 25, (480, 480, 1)).astype(np.float32), (0, 0), 3)[..., None]
    h, w = sprite.shape[:2]
    turn = cv2.getRotationMatrix2D((w / 2, h / 2), angle_deg, 1.0)
    turn[:, 2] += (240 - w / 2, 240 - h / 2)
    art = cv2.warpAffine(sprite, turn, (480, 480), flags=cv2.INTER_LINEAR)
    alpha = art[..., 3:4].astype(np.float32) / 255
    photo = background * (1 - alpha) + art[..., 2::-1].astype(np.float32) * alpha  # BGRA sprite -> RGB photo
    corners = cv2.transform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), turn)[0]
    # squeezed as the validation photos were, from 4:3 to square
    photo = cv2.resize(photo, (int(480 * squeeze), 480), interpolation=cv2.INTER_AREA)
    corners = corners * [squeeze, 1]
    photo = np.clip(photo + rng.normal(0, 3, photo.shape), 0, 255).astype(np.uint8)
    return photo, corners


def test_the_card_outline_is_found_within_a_few_pixels() -> None:
    photo, corners = _photo("7c", 23.0, 1.0, seed=1)
    box = (*corners.min(0) - 4, *corners.max(0) + 4)
    quad = card_quad(photo, box)
    assert quad is not None
    distances = np.linalg.norm(quad[:, None] - corners[None], axis=2).min(1)
    assert distances.max() < 6, distances


def test_nothing_is_found_in_a_box_of_plain_felt() -> None:
    felt = np.zeros((200, 200, 3), np.uint8) + (30, 110, 40)
    assert card_quad(felt, (40, 40, 160, 160)) is None


@pytest.mark.parametrize(("card", "angle", "squeeze"), [("7c", 23.0, 1.0), ("Kd", -70.0, 0.75), ("Th", 160.0, 0.75),
                                                         ("As", 95.0, 1.0)])
def test_a_turned_squeezed_card_is_read_from_its_corners(card: str, angle: float, squeeze: float) -> None:
    photo, corners = _photo(card, angle, squeeze, seed=2)
    quad = card_quad(photo, (*corners.min(0) - 4, *corners.max(0) + 4))
    assert quad is not None
    reading = index_probabilities(TorchIndexReader().probabilities(corner_crops(photo, quad)))
    assert INDEX_CLASSES[int(reading.argmax())] == vision_label(card)


def test_the_index_classes_are_the_identifiers_without_the_joker() -> None:
    assert ID_CLASSES[:len(INDEX_CLASSES)] == INDEX_CLASSES and ID_CLASSES[len(INDEX_CLASSES):] == ["JOKER"]


@pytest.mark.parametrize(("card", "angle", "keep"), [("7c", 8.0, 0.7), ("Qh", -6.0, 0.55), ("4s", 0.0, 0.45),
                                                      ("9h", -10.0, 0.55), ("Kd", 30.0, 0.55)])
def test_a_card_cut_by_the_photos_edge_is_completed_and_read_from_its_visible_corner(
        card: str, angle: float, keep: float) -> None:
    photo, corners = _photo(card, angle, 1.0, seed=3)
    # the photo ends across the card: only its left part (``keep`` of its width), with one index corner, is seen
    right_edge = int(corners[:, 0].min() + keep * np.ptp(corners[:, 0]))
    cut = np.ascontiguousarray(photo[:, :right_edge])
    seen = np.zeros(photo.shape[:2], np.uint8)
    cv2.fillConvexPoly(seen, corners.astype(np.int32), 1)
    ys, xs = np.nonzero(seen[:, :right_edge])
    quads = card_quads(cut, (xs.min() - 3, ys.min() - 3, right_edge, ys.max() + 3))  # the detector's box
    assert len(quads) > 1, "the cut card was not completed beyond the edge"
    closest = min(np.linalg.norm(q[:, None] - corners[None], axis=2).min(1).max() for q in quads[1:])
    assert closest < 8, f"no completed outline within 8 px of the card's corners ({closest:.1f})"
    reader = TorchIndexReader()
    readings = [index_reading(reader.probabilities(corner_crops(cut, q)), index_inside(q, cut.shape)) for q in quads]
    best, _sureness = max(readings, key=lambda reading: reading[1])
    assert INDEX_CLASSES[int(best.argmax())] == vision_label(card)


def _card_cut_at(angle: float, right_edge: int) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """(the outline seen, the card's true corners, the photo's shape) of a 189 x 264 px card turned by ``angle``
    degrees at (200, 200), in a photo that ends at x = ``right_edge``: exact geometry, no GrabCut."""
    half = np.array([[-94.5, -132], [94.5, -132], [94.5, 132], [-94.5, 132]])
    turn = np.radians(angle)
    corners = half @ np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]]).T + 200
    seen = np.zeros((400, 400), np.uint8)
    cv2.fillConvexPoly(seen, np.round(corners).astype(np.int32), 1)
    contours, _ = cv2.findContours(np.ascontiguousarray(seen[:, :right_edge]), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)
    return cv2.convexHull(max(contours, key=cv2.contourArea))[:, 0].astype(np.float32), corners, (400, right_edge)


@pytest.mark.parametrize("angle", [0.0, 8.0, 20.0, 30.0, 45.0, 60.0, 90.0])
@pytest.mark.parametrize("right_edge", [230, 260, 290])
def test_a_completed_card_is_the_true_card_or_none_is_proposed(angle: float, right_edge: int) -> None:
    # an edge that cuts off a corner (two neighbouring sides) leaves no whole side: nothing is completed then
    outline, corners, shape = _card_cut_at(angle, right_edge)
    completed = cut_card_quads(outline, shape)
    if completed:
        assert min(np.linalg.norm(q[:, None] - corners[None], axis=2).min(1).max() for q in completed) < 3


def test_a_card_cut_across_is_completed() -> None:
    outline, corners, shape = _card_cut_at(8.0, 230)
    completed = cut_card_quads(outline, shape)
    assert len(completed) == 2  # a card's proportions either way round: the reader chooses
    assert min(np.linalg.norm(q[:, None] - corners[None], axis=2).min(1).max() for q in completed) < 3


def test_a_card_inside_the_photo_is_only_read_by_its_rectangle() -> None:
    photo, corners = _photo("9d", 30.0, 1.0, seed=4)
    quads = card_quads(photo, (*corners.min(0) - 4, *corners.max(0) + 4))
    assert len(quads) == 1 and index_inside(quads[0], photo.shape).all()


def test_the_same_box_gives_the_same_outline_every_time() -> None:
    # GrabCut starts its colour models from OpenCV's global random generator
    photo, corners = _photo("7c", 8.0, 1.0, seed=3)
    box = (*corners.min(0) - 4, *corners.max(0) + 4)
    outlines = [card_outline(photo, box) for _ in range(4)]
    assert all(o is not None and np.array_equal(o, outlines[0]) for o in outlines)


def test_a_corner_outside_the_photo_does_not_count() -> None:
    classes = len(INDEX_CLASSES)
    readings = np.full((4, classes), 0.1 / (classes - 1))
    readings[0, INDEX_CLASSES.index("7C")] = readings[2, INDEX_CLASSES.index("BACK")] = 0.9
    readings[1, INDEX_CLASSES.index("QH")] = readings[3, INDEX_CLASSES.index("QH")] = 0.95
    readings /= readings.sum(1, keepdims=True)
    both, _ = index_reading(readings)
    assert INDEX_CLASSES[int(both.argmax())] == "QH"
    # corners 1 and 3 lie beyond the photo's edge: only corner 0 is read
    inside_only, sureness = index_reading(readings, np.array([True, False, False, False]))
    assert INDEX_CLASSES[int(inside_only.argmax())] == "7C" and sureness == pytest.approx(0.9, abs=0.01)
    _, none = index_reading(readings, np.zeros(4, bool))
    assert none == 0.0


def test_the_index_readers_photographed_corners_of_a_cut_card_come_from_its_completed_outline() -> None:
    from training.photo_corners import labelled_corners

    photo, corners = _photo("Qh", -6.0, 1.0, seed=3)
    right_edge = int(corners[:, 0].min() + 0.55 * np.ptp(corners[:, 0]))
    cut = np.ascontiguousarray(photo[:, :right_edge])
    ys = np.nonzero(cut.max(2) > 150)[0]
    box = (corners[:, 0].min() - 3, ys.min() - 3, right_edge, ys.max() + 3)
    quads = card_quads(cut, box)
    label = INDEX_CLASSES.index(vision_label("Qh"))
    reader = TorchIndexReader()
    crops, labels, completed = labelled_corners(cut, quads, label, reader)
    assert completed
    # one index corner is in the photo (the top left one): it alone is labelled; the bottom right one is beyond
    # the edge, and the other pair holds no index
    assert sorted(labels) == sorted([label, NOT_INDEX, NOT_INDEX, NOT_INDEX]), labels
    assert INDEX_CLASSES[int(reader.probabilities(crops[[labels.index(label)]])[0].argmax())] == vision_label("Qh")
    # the same card, whole: both index corners labelled, from its rectangle
    whole = card_quads(photo, (*corners.min(0) - 4, *corners.max(0) + 4))
    _crops, labels, completed = labelled_corners(photo, whole, label, reader)
    assert not completed and labels.count(label) == 2 and labels.count(NOT_INDEX) == 2


def _stripes() -> np.ndarray:
    """One-pixel black and white stripes: shrunk they are an even grey; sampled, they alias to bands."""
    stripes = np.zeros((800, 800, 3), np.uint8)
    stripes[:, ::2] = 255
    return stripes


def test_a_card_photographed_large_is_cut_from_the_average_of_its_pixels_not_a_sample_of_them() -> None:
    from training.photo.identify import square_crop

    stripes = _stripes()
    for crop in (square_crop(stripes, (100, 100, 700, 700), 96),
                 corner_crops(stripes, np.float32([[100, 100], [600, 100], [600, 760], [100, 760]]))[0]):
        assert abs(float(crop.mean()) - 127.5) < 4 and float(crop.std()) < 8, (crop.mean(), crop.std())


@pytest.mark.parametrize("output_to_image", [np.float64([[8, 0, 40], [0, 8, 40], [0, 0, 1]]),  # 8 times smaller
                                             np.float64([[8, 0, 40], [0, 6, 40], [0, 0, 1]]),  # squeezed photo
                                             np.float64([[2, 0, 40], [0, 0.8, 40], [0, 0, 1]]),  # one axis enlarged
                                             np.float64([[5.2, -3, 300], [3, 5.2, 40], [0, 0, 1]])])  # turned 30 deg
def test_a_shrunk_crop_is_grey_on_fine_stripes_and_in_place_on_a_ramp(output_to_image: np.ndarray) -> None:
    from training.photo.card_corners import area_warp

    crop = area_warp(_stripes(), output_to_image, (48, 64))
    assert abs(float(crop.mean()) - 127.5) < 4 and float(crop.std()) < 8, (crop.mean(), crop.std())
    # on a ramp an average is the value at the centre: each output pixel shows the image at its mapped centre
    ramp = np.repeat(np.linspace(0, 255, 800)[None, :, None], 800, axis=0).repeat(3, axis=2).astype(np.float32)
    crop = area_warp(ramp, output_to_image, (48, 64))
    u, v = np.meshgrid(np.arange(48), np.arange(64))
    x = output_to_image[0, 0] * u + output_to_image[0, 1] * v + output_to_image[0, 2]
    inside = (x > 10) & (x < 790)
    assert np.abs(crop[..., 0] - x * 255 / 799)[inside].max() < 0.5


def test_a_crop_no_smaller_than_its_source_is_the_bilinear_warp_it_was() -> None:
    from training.photo.card_corners import area_warp

    photo = np.random.default_rng(0).integers(0, 256, (120, 160, 3), dtype=np.uint8)
    enlarge = np.float64([[0.5, 0.1, 20], [-0.1, 0.5, 30], [0, 0, 1]])  # output px -> photo px
    expected = cv2.warpPerspective(photo, enlarge, (64, 48), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    assert np.array_equal(area_warp(photo, enlarge, (64, 48)), expected)
