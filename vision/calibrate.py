"""Calibration: from the ArUco markers printed on the felt, the homography from camera pixels to table millimetres.

``stud-table calibrate`` grabs one frame (a file or a camera), finds the markers, fits the homography on all their
corners (RANSAC drops a marker that moved or was misread), saves it as JSON and writes the frame with the layout's
zones drawn on it, so that a person can see at a glance that the zones sit where the felt has them.

The saved file::

    {"version": 1, "layout": "stud-7", "image_size": [1920, 1080], "markers": [0, 1, 2, 3, 4, 5, 6],
     "rms_mm": 0.41, "created": "2025-01-01T12:00:00+00:00", "image_to_table": [[...], [...], [...]]}
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from controller.errors import StudTableError
from controller.felt.layout import ARUCO_DICTIONARY, DEFAULT_LAYOUT, Layout, Zone, load_layout
from controller.files import write_atomically
from controller.rules.tomlread import TomlError

FORMAT_VERSION = 1
#: Above this RMS error over the marker corners (mm) the calibration is refused: the felt moved under the markers,
#: the camera sees it through strong lens distortion, or a marker was misread.
MAX_RMS_MM = 5.0
#: RANSAC's threshold: a corner farther than this from where the fitted homography puts it is an outlier (mm).
RANSAC_THRESHOLD_MM = 8.0
#: The fewest markers calibrate accepts: four spread markers pin down the whole felt; fewer leave it guessed.
MIN_MARKERS = 4

ZONE_COLOUR = (0, 220, 255)  # BGR: yellow
MARKER_COLOUR = (255, 0, 255)  # magenta
HIGHLIGHT_COLOUR = (0, 0, 255)  # red


class CalibrationError(StudTableError, ValueError):
    """A frame that cannot be calibrated, or a calibration file that cannot be used."""


@dataclass(frozen=True, eq=False)
class Calibration:
    image_to_table: np.ndarray  # 3x3 homography: camera pixels -> table mm
    image_size: tuple[int, int]  # width, height of the frames it applies to (px)
    layout: str  # the layout's name
    markers: tuple[int, ...]  # the marker ids the homography was fitted on
    rms_mm: float  # RMS distance, over those markers' corners, between the layout and the fitted mapping (mm)
    created: str  # ISO 8601 time, given by the caller
    table_to_image: np.ndarray = field(init=False, repr=False)  # the inverse: table mm -> camera pixels

    def __post_init__(self) -> None:
        matrix = np.array(self.image_to_table, dtype=np.float64)
        if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
            raise CalibrationError(f"image_to_table must be an invertible 3x3 matrix of finite numbers, got {matrix}")
        matrix.setflags(write=False)
        table_to_image = np.linalg.inv(matrix)
        table_to_image.setflags(write=False)
        object.__setattr__(self, "image_to_table", matrix)
        object.__setattr__(self, "table_to_image", table_to_image)

    def check_frame(self, image: np.ndarray) -> None:
        """Refuse a frame of another size than the one calibrated: its pixels would land on the wrong zones."""
        height, width = image.shape[:2]
        if (width, height) != self.image_size:
            raise CalibrationError(f"the frame is {width}x{height} px but the calibration was made on "
                                   f"{self.image_size[0]}x{self.image_size[1]} px frames: recalibrate at this size")

    def to_table(self, points_px: np.ndarray | list) -> np.ndarray:
        """Camera pixels -> table mm; points as (N, 2) or a single (2,) point."""
        return _apply(self.image_to_table, points_px)

    def to_image(self, points_mm: np.ndarray | list) -> np.ndarray:
        """Table mm -> camera pixels; points as (N, 2) or a single (2,) point."""
        return _apply(self.table_to_image, points_mm)


def _apply(matrix: np.ndarray, points: np.ndarray | list) -> np.ndarray:
    array = np.asarray(points, dtype=np.float64)
    if array.shape[-1:] != (2,) or array.ndim > 2:
        raise ValueError(f"expected points as (N, 2) or (2,), got shape {array.shape}")
    flat = array.reshape(-1, 2)
    mapped = flat @ matrix[:, :2].T + matrix[:, 2]
    return (mapped[:, :2] / mapped[:, 2:]).reshape(array.shape)


def _detector() -> cv2.aruco.ArucoDetector:
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
    parameters = cv2.aruco.DetectorParameters()
    # sub-pixel corners: the homography is only as good as the corners it is fitted on
    parameters.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(dictionary, parameters)


def find_markers(image_bgr: np.ndarray) -> dict[int, np.ndarray]:
    """The ArUco markers (DICT_4X4_50) seen in a frame: id -> its 4 corners (4x2 float pixels, ArUco's order).

    An id seen twice keeps its larger sighting: the felt's printed marker, not a small stray copy."""
    if not isinstance(image_bgr, np.ndarray) or image_bgr.ndim not in (2, 3) or image_bgr.size == 0:
        raise ValueError("expected an image (a non-empty numpy array, BGR or grey)")
    grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY) if image_bgr.ndim == 3 else image_bgr
    corners, ids, _rejected = _detector().detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
        quad = marker_corners.reshape(4, 2).astype(np.float64)
        key = int(marker_id)
        if key not in found or cv2.contourArea(quad.astype(np.float32)) > cv2.contourArea(
                found[key].astype(np.float32)):
            found[key] = quad
    return found


def markers_moved(then: dict[int, np.ndarray], now: dict[int, np.ndarray], least: int = 3) -> float | None:
    """How far the markers moved between two sightings (``find_markers``'s): the median over the markers seen in
    both of their corners' mean shift, in pixels; None when fewer than ``least`` are seen in both."""
    common = sorted(set(then) & set(now))
    if len(common) < least:
        return None
    return float(np.median([np.linalg.norm(now[k] - then[k], axis=1).mean() for k in common]))


def _rms(matrix: np.ndarray, image_points: np.ndarray, table_points: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.sum((_apply(matrix, image_points) - table_points) ** 2, axis=1))))


def calibrate(image_bgr: np.ndarray, layout: Layout, *, created: str = "", max_rms_mm: float = MAX_RMS_MM
              ) -> Calibration:
    """Fit the image -> table homography on every corner of the layout's markers found in the frame."""
    found = find_markers(image_bgr)
    expected = sorted(m.id for m in layout.markers)
    present = [marker_id for marker_id in expected if marker_id in found]
    missing = [marker_id for marker_id in expected if marker_id not in found]
    if len(present) < MIN_MARKERS:
        raise CalibrationError(
            f"{len(present)} of the {len(expected)} markers of layout {layout.name!r} found "
            f"(found: {_ids(present)}; missing: {_ids(missing)}); at least {MIN_MARKERS} must be visible")
    by_id = {marker.id: marker for marker in layout.markers}
    image_points = np.concatenate([found[i] for i in present])
    table_points = np.concatenate([by_id[i].corners() for i in present])
    _, inliers = cv2.findHomography(image_points, table_points, cv2.RANSAC, RANSAC_THRESHOLD_MM)
    if inliers is None:
        raise CalibrationError(f"no homography fits the markers found ({_ids(present)})")
    # a marker with any corner off the fit moved or was misread: leave it out whole
    agreeing = inliers.reshape(-1, 4).all(axis=1)
    used = [marker_id for marker_id, ok in zip(present, agreeing, strict=True) if ok]
    rejected = [marker_id for marker_id, ok in zip(present, agreeing, strict=True) if not ok]
    if len(used) < MIN_MARKERS:
        raise CalibrationError(
            f"only {len(used)} markers agree on one homography (agree: {_ids(used)}; off by more than "
            f"{RANSAC_THRESHOLD_MM} mm: {_ids(rejected)}; missing: {_ids(missing)}); at least {MIN_MARKERS} needed")
    keep = np.repeat(agreeing, 4)
    # least squares on the agreeing corners only: RANSAC's estimate rests on its last minimal sample
    matrix, _ = cv2.findHomography(image_points[keep], table_points[keep], 0)
    if matrix is None:
        raise CalibrationError(f"the markers {_ids(used)} give a degenerate homography (all in a line?)")
    rms = _rms(matrix, image_points[keep], table_points[keep])
    if rms > max_rms_mm:
        raise CalibrationError(
            f"RMS error over the marker corners {rms:.2f} mm exceeds the limit of {max_rms_mm} mm "
            f"(markers {_ids(used)}): check that the felt lies flat and the markers are where the layout puts them")
    height, width = image_bgr.shape[:2]
    return Calibration(matrix, (width, height), layout.name, tuple(used), rms, created)


def _ids(ids: list[int]) -> str:
    return ", ".join(str(i) for i in ids) if ids else "none"


# --- saving and loading -----------------------------------------------------------------------------------------


def calibration_to_dict(cal: Calibration) -> dict:
    return {
        "version": FORMAT_VERSION,
        "layout": cal.layout,
        "image_size": list(cal.image_size),
        "markers": list(cal.markers),
        "rms_mm": cal.rms_mm,
        "created": cal.created,
        "image_to_table": cal.image_to_table.tolist(),
    }


def save_calibration(cal: Calibration, path: str | Path) -> None:
    text = json.dumps(calibration_to_dict(cal), indent=2) + "\n"
    write_atomically(Path(path), text.encode("utf-8"))


def load_calibration(path: str | Path) -> Calibration:
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise CalibrationError(f"{source}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
                               ) from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{source}: not a text file") from None

    def fail(key: str, why: str) -> CalibrationError:
        return CalibrationError(f"{source}: {key}: {why}")

    if not isinstance(data, dict):
        raise CalibrationError(f"{source}: expected a JSON object, got {type(data).__name__}")
    expected = {"version", "layout", "image_size", "markers", "rms_mm", "created", "image_to_table"}
    missing, unknown = sorted(expected - set(data)), sorted(set(data) - expected)
    if missing:
        raise fail(", ".join(missing), "missing")
    if unknown:
        raise fail(", ".join(unknown), "unknown key")
    if data["version"] != FORMAT_VERSION:
        raise fail("version", f"{data['version']!r} is not a version this program reads ({FORMAT_VERSION})")
    if not isinstance(data["layout"], str) or not data["layout"]:
        raise fail("layout", "expected the layout's name")
    size = data["image_size"]
    if (not isinstance(size, list) or len(size) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
        raise fail("image_size", f"expected [width, height] in pixels, got {size!r}")
    markers = data["markers"]
    if not isinstance(markers, list) or not all(isinstance(m, int) and not isinstance(m, bool) for m in markers):
        raise fail("markers", f"expected a list of marker ids, got {markers!r}")
    rms = data["rms_mm"]
    if isinstance(rms, bool) or not isinstance(rms, int | float) or not math.isfinite(rms) or rms < 0:
        raise fail("rms_mm", f"expected a non-negative number of mm, got {rms!r}")
    if not isinstance(data["created"], str):
        raise fail("created", "expected an ISO 8601 time")
    rows = data["image_to_table"]
    if (not isinstance(rows, list) or len(rows) != 3 or not all(isinstance(r, list) and len(r) == 3 for r in rows)
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for r in rows for v in r)):
        raise fail("image_to_table", "expected a 3x3 matrix of numbers")
    try:
        return Calibration(np.array(rows, dtype=np.float64), (size[0], size[1]), data["layout"], tuple(markers),
                           float(rms), data["created"])
    except CalibrationError as error:
        raise fail("image_to_table", str(error)) from None


# --- using it -----------------------------------------------------------------------------------------------------


def rectify(image_bgr: np.ndarray, cal: Calibration, region_mm: tuple[float, float, float, float],
            px_per_mm: float, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """A top-down crop of a table region (x1, y1, x2, y2 in mm) at ``px_per_mm``.

    One warpPerspective over the crop's pixels only: each output pixel is mapped through (crop -> table -> image)."""
    cal.check_frame(image_bgr)
    x1, y1, x2, y2 = (float(v) for v in region_mm)
    if not (x2 > x1 and y2 > y1):
        raise ValueError(f"region_mm must be (x1, y1, x2, y2) with x2 > x1 and y2 > y1, got {region_mm}")
    if not (px_per_mm > 0 and math.isfinite(px_per_mm)):
        raise ValueError(f"px_per_mm must be a positive number, got {px_per_mm}")
    width, height = round((x2 - x1) * px_per_mm), round((y2 - y1) * px_per_mm)
    if not (1 <= width <= 16384 and 1 <= height <= 16384):
        raise ValueError(f"the crop would be {width}x{height} px: choose a region and px_per_mm giving 1..16384 px")
    step = 1.0 / px_per_mm
    # output pixel (u, v) has its centre at table (x1 + (u + 0.5) / ppm, y1 + (v + 0.5) / ppm)
    crop_to_table = np.array([[step, 0.0, x1 + step / 2], [0.0, step, y1 + step / 2], [0.0, 0.0, 1.0]])
    crop_to_image = cal.table_to_image @ crop_to_table
    return cv2.warpPerspective(image_bgr, crop_to_image, (width, height),
                               flags=interpolation | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT)


def line_width(image: np.ndarray) -> int:
    return max(1, round(max(image.shape[:2]) / 800))


def draw_label(canvas: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int],
               centred: bool = False) -> None:
    """Text with a dark outline, readable on felt, cards and chips alike; ``at`` is its baseline's left end, or its
    middle when ``centred``."""
    scale = max(0.4, max(canvas.shape[:2]) / 2400)
    width = line_width(canvas)
    if centred:
        (text_width, text_height), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, width)
        at = (at[0] - text_width // 2, at[1] + text_height // 2)
    cv2.putText(canvas, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), width + 2, cv2.LINE_AA)
    cv2.putText(canvas, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, width, cv2.LINE_AA)


def draw_zone_outlines(canvas: np.ndarray, layout: Layout, cal: Calibration,
                       colour_of: Callable[[Zone], tuple[int, int, int]]) -> None:
    """Draw, in place, every zone's outline and name where the calibration puts it on the frame."""
    width = line_width(canvas)
    for zone in layout.zones:
        outline = np.round(cal.to_image(zone.outline())).astype(np.int32)
        colour = colour_of(zone)
        cv2.polylines(canvas, [outline], True, colour, width, cv2.LINE_AA)
        cx, cy = cal.to_image(zone.centre)
        # a seat's small zones by their area alone: the seat is plain from where they lie, and full names overlap
        label = zone.area if zone.seat and zone.area != "cards" else zone.name
        draw_label(canvas, label, (round(cx), round(cy)), colour, centred=True)


def draw_zones(image_bgr: np.ndarray, layout: Layout, cal: Calibration) -> np.ndarray:
    """A copy of the frame with every zone (outline and name) and every marker (outline and id) drawn."""
    cal.check_frame(image_bgr)
    canvas = image_bgr.copy() if image_bgr.ndim == 3 else cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
    draw_zone_outlines(canvas, layout, cal, lambda zone: ZONE_COLOUR)
    width = line_width(canvas)
    for marker in layout.markers:
        corners = cal.to_image(marker.corners())
        cv2.polylines(canvas, [np.round(corners).astype(np.int32)], True, MARKER_COLOUR, width, cv2.LINE_AA)
        top_left = corners[0]
        draw_label(canvas, f"#{marker.id}", (int(top_left[0]), int(top_left[1]) - 6), MARKER_COLOUR)
    return canvas


# --- stud-table calibrate -------------------------------------------------------------------------------------------


def grab_frame(source: str, warmup: int = 5) -> np.ndarray:
    """One frame from an OpenCV source: a device index (``0``), a device path, a video file or a stream URL.

    A camera's first frames come before its exposure settles: ``warmup`` frames are dropped from devices."""
    is_device = source.isdigit() or source.startswith("/dev/")
    capture = cv2.VideoCapture(int(source) if source.isdigit() else source)
    try:
        if not capture.isOpened():
            raise CalibrationError(f"camera {source!r}: cannot open it")
        for _ in range(warmup if is_device else 0):
            capture.read()
        ok, frame = capture.read()
        if not ok or frame is None:
            raise CalibrationError(f"camera {source!r}: opened, but gave no frame")
        return frame
    finally:
        capture.release()


def cmd_calibrate(args: argparse.Namespace) -> int:
    try:
        layout = load_layout(args.layout or DEFAULT_LAYOUT)
        config = None
        if args.config:
            from controller.config import load_config

            config = load_config(args.config)
        if args.image:
            frame = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
            if frame is None:
                raise CalibrationError(f"{args.image}: cannot read it as an image")
        elif args.camera is not None:
            frame = grab_frame(args.camera)
        elif config is not None and config.camera_source != "sim":
            frame = grab_frame(config.camera_source)
        else:
            raise CalibrationError("no frame to calibrate on: give --image FILE or --camera SOURCE "
                                   "(or a --config whose [camera] source is a real camera)")
        created = datetime.now(UTC).isoformat(timespec="seconds")
        cal = calibrate(frame, layout, created=created)
    except (CalibrationError, TomlError) as error:
        print(f"stud-table calibrate: {error}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else (config.source.resolve().parent if config else Path.cwd()) / \
        "calibration.json"
    drawn = Path(args.drawn) if args.drawn else out.with_name(f"{out.stem}-zones.png")
    save_calibration(cal, out)
    ok, png = cv2.imencode(".png", draw_zones(frame, layout, cal))
    if not ok:
        print(f"stud-table calibrate: could not encode {drawn}", file=sys.stderr)
        return 1
    write_atomically(drawn, png.tobytes())
    missing = sorted({m.id for m in layout.markers} - set(cal.markers))
    print(f"layout {layout.name}: markers used {_ids(list(cal.markers))} (not used: {_ids(missing)})")
    print(f"RMS error over the marker corners: {cal.rms_mm:.2f} mm")
    print(f"calibration: {out}")
    print(f"zones drawn: {drawn}")
    return 0

