"""The virtual table's camera: frames rendered from a scene, checked with real OpenCV (ArUco detection, colours)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.felt.chips import CHIP_DIAMETER_MM, CHIP_SET, CHIP_THICKNESS_MM, make_stack
from controller.felt.layout import ARUCO_DICTIONARY, load_layout
from controller.rules.errors import CardError
from controller.sim import render
from controller.sim.render import Renderer, TableCamera, card_art
from controller.sim.scene import Arm, CardOnFelt, SceneState

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
LAYOUT = load_layout()


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(LAYOUT, seed=7)


def patch_at(frame: np.ndarray, camera: TableCamera, point_mm, half: int = 3) -> np.ndarray:
    """Mean BGR of a small square around where a felt point is seen."""
    x, y = np.round(camera.table_to_image(np.array(point_mm))[0]).astype(int)
    return frame[y - half:y + half + 1, x - half:x + half + 1].reshape(-1, 3).mean(0)


def coup_scene() -> SceneState:
    scene = SceneState()
    deck = iter(["As", "Kh", "Qd", "Jc", "Ts", "9h", "8d", "2c", "3s", "4h", "5d", "6c", "7s", "8h", "9d", "Tc",
                 "Js", "Qh", "Kd", "Ac", "2s", "3h", "4d", "5c", "6s", "7h", "8c", "9s", "Ah", "Kc", "Qs", "Jd"])
    for seat in range(1, 8):
        for index in range(4):
            scene = scene.with_card(CardOnFelt(seat, index, next(deck), face_up=False, lifted=(seat, index) == (6, 1)))
        scene = scene.with_chips(seat, "ante", make_stack(500 * seat + 100))
        scene = scene.with_chips(seat, "bonus", make_stack(100))
    for index in range(4):
        scene = scene.with_card(CardOnFelt(0, index, next(deck), face_up=index == 3))
    return replace(scene, arms=(Arm((1250, 1000), (1130, 640)),))


def test_markers_are_detected_where_the_camera_model_puts_them(renderer: Renderer) -> None:
    frame = renderer.render(coup_scene(), 40)
    assert frame.shape == (1080, 1920, 3) and frame.dtype == np.uint8
    ARTIFACTS.mkdir(exist_ok=True)
    cv2.imwrite(str(ARTIFACTS / "render_example.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters()).detectMarkers(frame)
    assert ids is not None
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}
    assert sorted(found) == sorted(m.id for m in LAYOUT.markers)
    for marker in LAYOUT.markers:
        predicted = renderer.camera.table_to_image(marker.corners())
        assert np.abs(found[marker.id] - predicted).max() < 3, marker.id


def test_camera_maps_back_and_forth_and_frames_the_felt() -> None:
    camera = TableCamera()
    grid = np.stack(np.meshgrid(np.linspace(0, 1800, 7), np.linspace(0, 1000, 5)), -1).reshape(-1, 2)
    pixels = camera.table_to_image(grid)
    assert np.abs(camera.image_to_table(pixels) - grid).max() < 0.05
    corners = camera.table_to_image(np.array([[0, 0], [1800, 0], [1800, 1000], [0, 1000]]))
    assert corners.min() > 0 and (corners[:, 0] < 1920).all() and (corners[:, 1] < 1080).all()
    assert np.ptp(corners[:, 0]) > 0.85 * 1920
    # oblique from the dealer's side: the far edge (y = 1000) looks shorter than the dealer's edge
    assert np.linalg.norm(corners[2] - corners[3]) < 0.95 * np.linalg.norm(corners[1] - corners[0])
    # the same view at 4K: every point at twice the pixel coordinates (pixel centres at integers)
    big = TableCamera(3840, 2160).table_to_image(grid)
    assert np.abs(big - (2 * pixels + 0.5)).max() < 0.01


@pytest.mark.parametrize(("field", "value"), [("width", 0), ("tilt_deg", 75.0), ("fill", 1.5), ("k1", 0.9)])
def test_camera_rejects_bad_parameters(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        TableCamera(**{field: value})


def test_a_face_up_card_lands_on_its_place_and_a_face_down_one_shows_its_back(renderer: Renderer) -> None:
    camera = renderer.camera
    up = CardOnFelt(3, 2, "2h", face_up=True)
    centre = renderer.card_quad(up).mean(0)
    assert LAYOUT.zone(3, "cards").contains(*centre)
    empty = renderer.render(SceneState(), 0)
    face = renderer.render(SceneState().with_card(up), 0)
    back = renderer.render(SceneState().with_card(replace(up, face_up=False)), 0)
    blue, green, red = patch_at(empty, camera, centre)
    assert green > blue + 40 and green > red + 40  # felt
    assert patch_at(face, camera, centre).min() > 200  # the two of hearts is white in its middle
    blue, green, red = patch_at(back, camera, centre)
    assert blue > red + 50 and blue > green + 50  # the blue back
    # the white face's centroid is where the camera model sees the card's centre, to a pixel, wherever it lies
    for card in (up, CardOnFelt(1, 0, "3d", face_up=True), CardOnFelt(0, 4, "2c", face_up=True)):
        seen = camera.table_to_image(renderer.card_quad(card).mean(0))[0]
        x, y = np.round(seen).astype(int)
        window = renderer.render(SceneState().with_card(card), 0)[y - 60:y + 61, x - 60:x + 61].astype(int)
        rows, cols = np.nonzero((window.min(2) > 170) & (np.ptp(window, axis=2) < 30))
        assert rows.size > 2500
        assert np.hypot(x - 60 + cols.mean() - seen[0], y - 60 + rows.mean() - seen[1]) < 1, card


def _nearest_chip(bgr: np.ndarray) -> int:
    def lab(colour) -> np.ndarray:
        return cv2.cvtColor(np.uint8([[colour]]), cv2.COLOR_BGR2Lab)[0, 0].astype(float)

    seen = lab(np.clip(bgr, 0, 255))
    return min(CHIP_SET, key=lambda kind: np.linalg.norm(lab(kind.colour[::-1]) - seen)).cents


def test_chip_stacks_show_their_denominations_in_the_box(renderer: Renderer) -> None:
    scene = SceneState()
    for seat, kind in enumerate(CHIP_SET, start=1):
        scene = scene.with_chips(seat, "ante", (kind.cents,) * 3)
    scene = scene.with_chips(6, "ante", make_stack(600))  # a 5 € and a 1 € chip, side by side
    frame = renderer.render(scene, 0)
    for stack in scene.chips:
        places = renderer.chip_places(stack)
        assert len(places) == len(set(stack.chips))
        for place in places:
            assert _nearest_chip(patch_at(frame, renderer.camera, place.top_mm, 2)) == place.cents, stack
            assert LAYOUT.zone(stack.seat, stack.box).contains(*place.base_mm)


def test_a_casino_stack_shows_its_top_chip_shifted_away_from_the_lens(renderer: Renderer) -> None:
    camera = renderer.camera
    foot = np.array(camera.lens_mm[:2])
    point = np.array(LAYOUT.zone(7, "ante").centre)
    assert camera.seen_on_felt(point, 0.0)[0] == pytest.approx(point)
    chips = (2500,) * 3 + (500,) * 5  # a mixed stack as a casino builds it: the largest at the bottom
    stack_scene = SceneState().with_chips(7, "ante", chips, stacked=True)
    spread_scene = SceneState().with_chips(7, "ante", chips)
    stack = stack_scene.chips[0]
    centres = renderer.chip_centres(stack)
    assert [cents for cents, _ in centres] == list(chips)
    top = np.array(centres[-1][1])
    height = len(chips) * CHIP_THICKNESS_MM
    # seen along the ray from the lens: further out by the lens's height over what is left above the stack (give
    # or take the hand-built stack's wobble, 0.5 mm a chip)
    expected = foot + (point - foot) * camera.lens_mm[2] / (camera.lens_mm[2] - height)
    assert np.linalg.norm(expected - point) > 8 and np.linalg.norm(top - expected) < 2
    places = renderer.chip_places(stack)
    assert [(place.cents, place.count) for place in places] == [(2500, 3), (500, 5)]
    empty, stacked, spread = (renderer.render(scene, 0) for scene in (SceneState(), stack_scene, spread_scene))
    assert _nearest_chip(patch_at(stacked, camera, top, 2)) == 500
    # the side shows between the top chip's face and the lens's foot; nothing is drawn on the other side of it
    outwards = (top - foot) / np.linalg.norm(top - foot)
    radius = CHIP_DIAMETER_MM / 2 * camera.seen_on_felt(point, height)[1]
    side, beyond = top - outwards * (radius + 3), top + outwards * (radius + 3)
    assert np.abs(patch_at(stacked, camera, side, 0) - patch_at(empty, camera, side, 0)).sum() > 40
    assert np.abs(patch_at(stacked, camera, beyond, 0) - patch_at(empty, camera, beyond, 0)).sum() < 20
    covered = [int((np.abs(frame.astype(int) - empty).sum(2) > 40).sum()) for frame in (stacked, spread)]
    assert covered[0] < covered[1] * 0.5, covered  # one stack covers far less felt than two spread piles


def test_an_arm_covers_its_path_and_nothing_else(renderer: Renderer) -> None:
    arm = Arm((400, 1000), (700, 620))
    without = renderer.render(SceneState(), 5)
    with_arm = renderer.render(SceneState(arms=(arm,)), 5)
    for t in (0.1, 0.4, 0.7, 0.95):
        point = np.array(arm.start) + t * (np.array(arm.end) - np.array(arm.start))
        assert np.abs(patch_at(with_arm, renderer.camera, point) - patch_at(without, renderer.camera, point)).max() > 40
    far = patch_at(with_arm, renderer.camera, (1500, 700)), patch_at(without, renderer.camera, (1500, 700))
    assert np.array_equal(*far)


def test_a_lifted_card_leaves_the_felt_for_the_players_hand(renderer: Renderer) -> None:
    lying = CardOnFelt(4, 2, "7c", face_up=False)
    empty = renderer.render(SceneState(), 9)
    lifted = renderer.render(SceneState().with_card(replace(lying, lifted=True)), 9)

    def change_at(point_mm) -> float:
        return np.abs(patch_at(lifted, renderer.camera, point_mm) - patch_at(empty, renderer.camera, point_mm)).max()

    assert change_at(renderer.card_quad(lying).mean(0) + (0, -20)) < 12  # the card's place, towards the dealer
    assert change_at(np.array(LAYOUT.zone(4, "cards").centre) + (0, 110)) > 40  # the hand, past the zone's edge


def test_frames_repeat_with_the_seed_and_differ_by_noise_only(renderer: Renderer) -> None:
    scene = coup_scene()
    first = renderer.render(scene, 1000)
    assert np.array_equal(first, Renderer(LAYOUT, seed=7).render(scene, 1000))
    other_seed = Renderer(LAYOUT, seed=8).render(scene, 1000)
    later = renderer.render(scene, 1033)
    for different in (other_seed, later):
        diff = first.astype(np.float32) - different
        assert np.abs(diff).mean() < 10  # what lies on the table is the same...
        grain = diff - cv2.GaussianBlur(diff, (0, 0), 4)  # ...but the sensor's noise is new (not the light's flicker)
        assert grain[200:800, 300:1600].std() > 2


def test_bad_input_is_named(renderer: Renderer) -> None:
    with pytest.raises(ValueError, match="differs from layout"):
        Renderer(LAYOUT, TableCamera(felt_mm=(1000.0, 1000.0)))
    with pytest.raises(CardError, match="Zz"):
        renderer.render(SceneState().with_card(CardOnFelt(1, 0, "Zz", face_up=True)), 0)
    with pytest.raises(ValueError, match="3 cents"):
        renderer.render(SceneState().with_chips(1, "ante", (3,)), 0)
    with pytest.raises(ValueError, match="t_ms"):
        renderer.render(SceneState(), -1)
    with pytest.raises(ValueError, match="no card deck 'svg-nowhere'.*svg-standard"):
        card_art("svg-nowhere", (126, 176))


def test_cards_are_drawn_plainly_when_the_deck_cannot_be_rendered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render.shutil, "which", lambda name: None)
    with pytest.warns(UserWarning, match="rsvg-convert is not installed"):
        faces, back, source = card_art("svg-standard", (61, 85))  # a size no other test asks for: not cached
    card_art.cache_clear()
    assert source == "programmatic" and len(faces) == 52 and back.shape == (85, 61, 4)
    heart, spade = faces["Ah"][..., :3].astype(int), faces["As"][..., :3].astype(int)
    assert (heart[..., 2] - heart[..., 1] > 100).sum() > 50  # red pips
    assert ((spade.max(2) < 60).sum() > 50) and not (spade[..., 2] - spade[..., 1] > 100).any()
