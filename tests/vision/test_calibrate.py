"""Calibration from the felt's ArUco markers, on camera frames synthesised here with a known perspective."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.felt.layout import ARUCO_DICTIONARY, DEFAULT_LAYOUT, Layout, Marker, Zone, load_layout
from vision.calibrate import (
    Calibration,
    CalibrationError,
    calibrate,
    draw_zones,
    find_markers,
    grab_frame,
    load_calibration,
    rectify,
    save_calibration,
)
from vision.evidence import draw_evidence, save_evidence

ROOT = Path(__file__).resolve().parents[2]
FRAME_SIZE = (1920, 1080)
FELT_BGR = (40, 110, 30)
# Where the felt's corners land in the camera frame: a camera above the dealer, tilted, a little off-centre.
FELT_CORNERS_PX = np.float32([[260, 130], [1700, 90], [1830, 1010], [110, 1040]])


@dataclass(frozen=True)
class Scene:
    frame: np.ndarray
    table_to_image: np.ndarray  # the true homography (table mm -> frame px)


@pytest.fixture(scope="module")
def layout() -> Layout:
    return load_layout(DEFAULT_LAYOUT)


def _paint_quad(canvas: np.ndarray, source: np.ndarray, corners_mm: np.ndarray) -> None:
    """Paint ``source`` (grey) onto the felt (1 px per mm, pixel centres at whole mm) with its outer edges on
    ``corners_mm`` (top-left, top-right, bottom-right, bottom-left)."""
    side = source.shape[0]
    edges = np.float32([[-0.5, -0.5], [side - 0.5, -0.5], [side - 0.5, side - 0.5], [-0.5, side - 0.5]])
    matrix = cv2.getPerspectiveTransform(edges, corners_mm.astype(np.float32))
    size = (canvas.shape[1], canvas.shape[0])
    painted = cv2.warpPerspective(source, matrix, size, flags=cv2.INTER_AREA)
    coverage = cv2.warpPerspective(np.full_like(source, 255), matrix, size, flags=cv2.INTER_AREA)
    alpha = coverage.astype(np.float32)[..., None] / 255
    canvas[:] = (canvas * (1 - alpha) + painted[..., None] * alpha).astype(np.uint8)


def _felt(layout: Layout, covered: tuple[int, ...] = (), moved: dict[int, tuple[float, float]] | None = None
          ) -> np.ndarray:
    felt = np.empty((int(layout.height), int(layout.width), 3), np.uint8)
    felt[:] = FELT_BGR
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    for marker in layout.markers:
        if marker.id in covered:
            continue
        if moved and marker.id in moved:
            marker = Marker(marker.id, moved[marker.id], marker.size, marker.angle)
        # printed on white paper with a margin (the quiet zone the detector needs around a marker)
        paper = Zone(0, "paper", marker.centre, (marker.size * 1.5, marker.size * 1.5), marker.angle)
        cv2.fillPoly(felt, [np.round(paper.outline()).astype(np.int32)], (255, 255, 255))
        image = cv2.aruco.generateImageMarker(dictionary, marker.id, 6 * 20)
        _paint_quad(felt, image, marker.corners())
    return felt


def _scene(layout: Layout, felt: np.ndarray, noisy: bool = False) -> Scene:
    table_corners = np.float32([[0, 0], [layout.width, 0], [layout.width, layout.height], [0, layout.height]])
    table_to_image = cv2.getPerspectiveTransform(table_corners, FELT_CORNERS_PX)
    frame = cv2.warpPerspective(felt, table_to_image, FRAME_SIZE, flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(70, 70, 70))
    if noisy:
        frame = cv2.GaussianBlur(frame, (5, 5), 1.2)
        noise = np.random.default_rng(7).normal(0, 6, frame.shape)
        frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
    return Scene(frame, table_to_image)


@pytest.fixture(scope="module")
def scene(layout: Layout) -> Scene:
    return _scene(layout, _felt(layout))


@pytest.fixture(scope="module")
def cal(scene: Scene, layout: Layout) -> Calibration:
    return calibrate(scene.frame, layout, created="2025-01-01T12:00:00+00:00")


def _true_image_points(scene: Scene, points_mm: np.ndarray) -> np.ndarray:
    mapped = cv2.perspectiveTransform(np.asarray(points_mm, np.float64).reshape(-1, 1, 2), scene.table_to_image)
    return mapped.reshape(-1, 2)


def _assert_zone_centres_recovered(cal: Calibration, scene: Scene, layout: Layout, tolerance_mm: float) -> None:
    centres = np.array([zone.centre for zone in layout.zones])
    recovered = cal.to_table(_true_image_points(scene, centres))
    errors = np.linalg.norm(recovered - centres, axis=1)
    worst = int(np.argmax(errors))
    assert errors[worst] < tolerance_mm, f"{layout.zones[worst].name} off by {errors[worst]:.2f} mm"


def test_find_markers_sees_every_marker_where_the_layout_puts_it(scene: Scene, layout: Layout) -> None:
    found = find_markers(scene.frame)
    assert sorted(found) == sorted(m.id for m in layout.markers)
    for marker in layout.markers:
        expected = _true_image_points(scene, marker.corners())
        assert found[marker.id].shape == (4, 2)
        assert np.abs(found[marker.id] - expected).max() < 2.0, marker.id


def test_calibrate_recovers_the_homography(cal: Calibration, scene: Scene, layout: Layout) -> None:
    assert cal.markers == tuple(sorted(m.id for m in layout.markers))
    assert cal.image_size == FRAME_SIZE and cal.layout == "stud-7"
    assert cal.rms_mm < 1.0
    _assert_zone_centres_recovered(cal, scene, layout, 3.0)
    # and back: table -> image agrees with the true camera within a couple of pixels over the whole felt
    grid = np.array([[x, y] for x in range(0, 1801, 300) for y in range(0, 1001, 250)], np.float64)
    assert np.abs(cal.to_image(grid) - _true_image_points(scene, grid)).max() < 3.0
    assert cal.to_table(cal.to_image([900.0, 500.0])) == pytest.approx([900.0, 500.0], abs=1e-6)


def test_calibrate_through_blur_and_noise(layout: Layout) -> None:
    scene = _scene(layout, _felt(layout), noisy=True)
    cal = calibrate(scene.frame, layout)
    assert set(cal.markers) == {m.id for m in layout.markers}
    _assert_zone_centres_recovered(cal, scene, layout, 3.0)


def test_too_few_markers_names_the_missing(layout: Layout) -> None:
    scene = _scene(layout, _felt(layout, covered=(0, 2, 5, 6)))
    with pytest.raises(CalibrationError) as error:
        calibrate(scene.frame, layout)
    message = str(error.value)
    assert "3 of the 7 markers" in message
    assert "found: 1, 3, 4" in message and "missing: 0, 2, 5, 6" in message


def test_a_moved_marker_is_left_out(layout: Layout) -> None:
    # marker 4 taped back 60 mm off its place: the others outvote it and the fit stays true
    scene = _scene(layout, _felt(layout, moved={4: (960.0, 940.0)}))
    cal = calibrate(scene.frame, layout)
    assert cal.markers == (0, 1, 2, 3, 5, 6)
    _assert_zone_centres_recovered(cal, scene, layout, 3.0)


def test_rms_above_the_limit_is_refused(scene: Scene, layout: Layout) -> None:
    with pytest.raises(CalibrationError, match=r"RMS error over the marker corners \d+\.\d\d mm exceeds the limit "
                                               r"of 0\.001 mm"):
        calibrate(scene.frame, layout, max_rms_mm=0.001)


def test_save_and_load_round_trip(cal: Calibration, tmp_path: Path) -> None:
    path = tmp_path / "sub" / "calibration.json"
    save_calibration(cal, path)
    loaded = load_calibration(path)
    assert np.array_equal(loaded.image_to_table, cal.image_to_table)
    assert (loaded.image_size, loaded.layout, loaded.markers, loaded.rms_mm, loaded.created) == (
        cal.image_size, cal.layout, cal.markers, cal.rms_mm, cal.created)
    assert [p.name for p in path.parent.iterdir()] == ["calibration.json"]  # no temporary file left behind


@pytest.mark.parametrize(("content", "expected"), [
    ('{"version": 1, "layout": "stud-7",', r"not valid JSON \(line 1, column"),
    ("[1, 2]", "expected a JSON object"),
    ("REPLACE:image_to_table=[[1, 0], [0, 1]]", "image_to_table: expected a 3x3 matrix"),
    ("REPLACE:image_to_table=[[0, 0, 0], [0, 0, 0], [0, 0, 1]]", "image_to_table: .*invertible"),
    ("REPLACE:image_size=[1920]", r"image_size: expected \[width, height\]"),
    ("DELETE:markers", "markers: missing"),
    ("REPLACE:version=7", "version: 7 is not a version"),
])
def test_broken_calibration_file_is_named(cal: Calibration, tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "calibration.json"
    save_calibration(cal, path)
    if content.startswith("REPLACE:"):
        key, value = content[len("REPLACE:"):].split("=", 1)
        data = json.loads(path.read_text())
        data[key] = json.loads(value)
        path.write_text(json.dumps(data))
    elif content.startswith("DELETE:"):
        data = json.loads(path.read_text())
        del data[content[len("DELETE:"):]]
        path.write_text(json.dumps(data))
    else:
        path.write_text(content)
    with pytest.raises(CalibrationError, match=expected) as error:
        load_calibration(path)
    assert str(path) in str(error.value)


def test_rectify_gives_a_top_down_crop(cal: Calibration, scene: Scene, layout: Layout) -> None:
    # a top-down view of marker 5 (centre 450, 60; side 80) at 2 px/mm: the marker fills the middle 160 px
    crop = rectify(scene.frame, cal, (390, 0, 510, 120), 2.0)
    assert crop.shape == (240, 240, 3)
    found = find_markers(crop)
    assert list(found) == [5]
    expected = (layout.marker(5).corners() - [390, 0]) * 2.0
    assert np.abs(found[5] - expected).max() < 3.0
    with pytest.raises(ValueError, match="x2 > x1"):
        rectify(scene.frame, cal, (500, 0, 400, 100), 2.0)
    with pytest.raises(CalibrationError, match="the frame is 960x540 px but the calibration was made on 1920x1080"):
        rectify(cv2.resize(scene.frame, (960, 540)), cal, (390, 0, 510, 120), 2.0)


def _painted(before: np.ndarray, after: np.ndarray, cal: Calibration, point_mm: tuple[float, float],
             reach_px: int = 4) -> bool:
    x, y = np.round(cal.to_image(point_mm)).astype(int)
    window = (slice(y - reach_px, y + reach_px + 1), slice(x - reach_px, x + reach_px + 1))
    return bool(np.any(before[window] != after[window]))


def _edge_midpoint(zone: Zone) -> tuple[float, float]:
    outline = zone.outline()
    return tuple((outline[0] + outline[1]) / 2) if zone.radius is None else tuple(outline[0])


def test_draw_zones_outlines_every_zone(cal: Calibration, scene: Scene, layout: Layout) -> None:
    drawn = draw_zones(scene.frame, layout, cal)
    assert drawn.shape == scene.frame.shape and drawn is not scene.frame
    for zone in layout.zones:
        assert _painted(scene.frame, drawn, cal, _edge_midpoint(zone)), zone.name
    for marker in layout.markers:
        assert _painted(scene.frame, drawn, cal, tuple(marker.corners()[1])), marker.id
    # the felt far from any zone is left alone
    assert not _painted(scene.frame, drawn, cal, (900.0, 480.0), reach_px=10)


@dataclass(frozen=True)
class FakeDetection:
    label: str
    box: tuple[float, float, float, float]
    confidence: float


def test_draw_evidence_boxes_and_highlight(cal: Calibration, scene: Scene, layout: Layout) -> None:
    x, y = cal.to_image(layout.zone(4, "cards").centre)
    box = (x - 30, y - 40, x + 30, y + 40)
    drawn = draw_evidence(scene.frame, layout, cal, [FakeDetection("AS", box, 0.93)], highlight=["seat.3.cards"])
    assert drawn.shape == scene.frame.shape
    left_edge = drawn[int(y), int(box[0]) - 1:int(box[0]) + 2]
    assert np.any(np.all(left_edge == (255, 200, 0), axis=-1))
    highlighted = tuple(np.round(cal.to_image(_edge_midpoint(layout.zone(3, "cards")))).astype(int))
    ordinary = tuple(np.round(cal.to_image(_edge_midpoint(layout.zone(5, "cards")))).astype(int))

    def has(colour: tuple[int, int, int], at: tuple[int, int]) -> bool:
        window = drawn[at[1] - 3:at[1] + 4, at[0] - 3:at[0] + 4]
        return bool(np.any(np.all(window == colour, axis=-1)))

    assert has((0, 0, 255), highlighted) and not has((0, 220, 255), highlighted)
    assert has((0, 220, 255), ordinary) and not has((0, 0, 255), ordinary)
    with pytest.raises(ValueError, match="no zone seat.9.cards"):
        draw_evidence(scene.frame, layout, cal, [], highlight=["seat.9.cards"])


def test_save_evidence_names_the_file_by_its_hash(cal: Calibration, scene: Scene, layout: Layout,
                                                  tmp_path: Path) -> None:
    import hashlib

    image = draw_evidence(scene.frame, layout, cal, [])
    digest, path = save_evidence(image, tmp_path / "evidence")
    content = path.read_bytes()
    assert path.name == f"{digest}.jpg" and hashlib.sha256(content).hexdigest() == digest
    assert cv2.imdecode(np.frombuffer(content, np.uint8), cv2.IMREAD_COLOR).shape == image.shape
    assert save_evidence(image, tmp_path / "evidence") == (digest, path)
    assert [p.name for p in (tmp_path / "evidence").iterdir()] == [path.name]


def test_grab_frame_from_a_video_file(scene: Scene, layout: Layout, tmp_path: Path) -> None:
    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, FRAME_SIZE)
    for _ in range(2):
        writer.write(scene.frame)
    writer.release()
    frame = grab_frame(str(video))
    assert frame.shape == scene.frame.shape
    assert len(calibrate(frame, layout).markers) == len(layout.markers)
    with pytest.raises(CalibrationError, match="cannot open it"):
        grab_frame(str(tmp_path / "no-such-video.avi"))


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", "calibrate", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_cli_calibrate_writes_both_files(scene: Scene, tmp_path: Path) -> None:
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), scene.frame)
    config = tmp_path / "table.toml"
    shutil.copy(ROOT / "deploy" / "table.example.toml", config)
    result = _cli("--config", str(config), "--image", str(image))
    assert result.returncode == 0, result.stderr
    assert "RMS error over the marker corners: 0." in result.stdout
    assert "markers used 0, 1, 2, 3, 4, 5, 6" in result.stdout
    cal = load_calibration(tmp_path / "calibration.json")
    assert cal.markers == (0, 1, 2, 3, 4, 5, 6)
    drawn = cv2.imread(str(tmp_path / "calibration-zones.png"))
    assert drawn.shape == scene.frame.shape and np.any(drawn != scene.frame)
    assert str(tmp_path / "calibration.json") in result.stdout


def test_cli_calibrate_fails_with_the_reason(layout: Layout, tmp_path: Path) -> None:
    image = tmp_path / "covered.png"
    cv2.imwrite(str(image), _scene(layout, _felt(layout, covered=(1, 2, 3, 4))).frame)
    result = _cli("--image", str(image), "--out", str(tmp_path / "cal.json"))
    assert result.returncode == 1
    assert "missing: 1, 2, 3, 4" in result.stderr
    assert not (tmp_path / "cal.json").exists()


def test_counted_chips_sharing_a_box_are_labelled_once_each_stacked(cal: Calibration, scene: Scene,
                                                                      layout: Layout) -> None:
    """A bet zone's chips come as one detection per chip, all with the zone's box: one label per denomination,
    with its count, each on its own line above the box."""
    x, y = cal.to_image(layout.zone(4, "ante").centre)
    box = (x - 40, y - 40, x + 40, y + 40)
    chips = [FakeDetection("500", box, 0.97)] * 3 + [FakeDetection("100", box, 0.97)] * 2
    drawn = draw_evidence(scene.frame, layout, cal, chips)
    plain = draw_evidence(scene.frame, layout, cal, [])
    top, line = int(round(box[1])), max(12, scene.frame.shape[0] // 60)
    left, right = int(box[0]), int(box[0]) + 200

    def written(y0: int, y1: int) -> bool:
        return bool(np.any(drawn[y0:y1, left:right] != plain[y0:y1, left:right]))

    assert written(top - 4 - 10, top - 4) and written(top - 4 - line - 10, top - 4 - line)
    assert not written(top - 4 - 2 * line - 10, top - 4 - 2 * line)  # two denominations: two lines, no third
