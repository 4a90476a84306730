"""The felt's layout in table coordinates (millimetres): the zones of each seat, the dealer's card area, the paying
strip and the ArUco markers printed on the felt.

Table coordinates: origin at the felt's top-left corner as the camera sees it, x to the right, y away from the dealer
(the dealer stands at y = 0 and faces +y). Seats 1-7 run clockwise from the dealer's left, that is from the right of
the image (large x) to its left.

The file (``controller/felt/layouts/*.toml``)::

    [felt]
    name = "stud-7"
    size = [1800, 1000]          # width, height in mm

    [seat.1.cards]               # one table per zone: seat.N.AREA, dealer.cards, paying
    rect = { centre = [1500, 420], size = [230, 110], angle = -35 }   # angle in degrees, counter-clockwise
    [seat.1.ante]
    circle = { centre = [1560, 560], radius = 45 }

    [marker.0]                   # an ArUco marker (dictionary DICT_4X4_50): its centre, side and rotation
    centre = [60, 60]
    size = 80

A mistake names the key and its line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from controller.rules.tomlread import TomlError, TomlReader, load_toml

LAYOUTS = Path(__file__).resolve().parent / "layouts"
DEFAULT_LAYOUT = LAYOUTS / "stud-7.toml"

#: The areas of a seat; the dealer has ``cards`` only; the paying strip is ``paying`` (seat 0).
SEAT_AREAS = ("cards", "ante", "raise", "bonus", "jackpot")
#: The areas of a seat where chips are bet.
BET_AREAS = SEAT_AREAS[1:]
DEALER = 0
#: OpenCV's name of the marker dictionary printed on the felt.
ARUCO_DICTIONARY = "DICT_4X4_50"


class LayoutError(TomlError):
    """A layout file that cannot be used."""


def axes(angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors on the felt of a rectangle turned ``angle_deg`` counter-clockwise as the camera sees it (y down):
    along its width, along its height. Zones, crops and the rendered cards all follow this one convention."""
    a = math.radians(angle_deg)
    return np.array([math.cos(a), -math.sin(a)]), np.array([math.sin(a), math.cos(a)])


def crop_to_table(origin_mm: tuple[float, float] | np.ndarray, angle_deg: float, mm_per_px_x: float,
                  mm_per_px_y: float | None = None) -> np.ndarray:
    """3x3 matrix: pixel (u, v, 1) of an upright crop -> table mm (x, y, 1); the crop's pixel (0, 0) lies at
    ``origin_mm`` and its x axis runs along ``angle_deg``."""
    ex, ey = axes(angle_deg)
    ex, ey = ex * mm_per_px_x, ey * (mm_per_px_x if mm_per_px_y is None else mm_per_px_y)
    return np.array([[ex[0], ey[0], origin_mm[0]], [ex[1], ey[1], origin_mm[1]], [0, 0, 1]], float)


@dataclass(frozen=True)
class Zone:
    seat: int  # 1..7, 0 for the dealer and the paying strip
    area: str  # cards, ante, raise, bonus, jackpot, paying
    centre: tuple[float, float]
    #: rectangle: (width, height) and angle in degrees; circle: radius
    size: tuple[float, float] | None = None
    angle: float = 0.0
    radius: float | None = None

    @property
    def name(self) -> str:
        if self.area == "paying":
            return "paying"
        return f"dealer.{self.area}" if self.seat == DEALER else f"seat.{self.seat}.{self.area}"

    def contains(self, x: float, y: float) -> bool:
        dx, dy = x - self.centre[0], y - self.centre[1]
        if self.radius is not None:
            return dx * dx + dy * dy <= self.radius * self.radius
        assert self.size is not None
        ex, ey = axes(self.angle)  # the point in the rectangle's own axes
        inside = abs(dx * ex[0] + dy * ex[1]) <= self.size[0] / 2 and abs(dx * ey[0] + dy * ey[1]) <= self.size[1] / 2
        return bool(inside)

    def distance(self, x: float, y: float) -> float:
        """How far a point lies outside the zone, in mm (0 inside)."""
        dx, dy = x - self.centre[0], y - self.centre[1]
        if self.radius is not None:
            return max(0.0, math.hypot(dx, dy) - self.radius)
        assert self.size is not None
        ex, ey = axes(self.angle)
        u = abs(dx * ex[0] + dy * ex[1]) - self.size[0] / 2
        v = abs(dx * ey[0] + dy * ey[1]) - self.size[1] / 2
        return math.hypot(max(u, 0.0), max(v, 0.0))

    def outline(self, points: int = 48) -> np.ndarray:
        """The zone's outline as an (N, 2) float array in mm (a rectangle's four corners, or a circle's points)."""
        cx, cy = self.centre
        if self.radius is not None:
            t = np.linspace(0, 2 * np.pi, points, endpoint=False)
            return np.stack([cx + self.radius * np.cos(t), cy + self.radius * np.sin(t)], 1)
        assert self.size is not None
        w, h = self.size
        ex, ey = axes(self.angle)
        corners = ((-1, -1), (1, -1), (1, 1), (-1, 1))
        return np.array([[cx, cy] + sx * ex * w / 2 + sy * ey * h / 2 for sx, sy in corners])


@dataclass(frozen=True)
class Marker:
    id: int
    centre: tuple[float, float]
    size: float
    angle: float = 0.0

    def corners(self) -> np.ndarray:
        """The four corners in mm, in ArUco's order: top-left, top-right, bottom-right, bottom-left."""
        zone = Zone(DEALER, "marker", self.centre, (self.size, self.size), self.angle)
        return zone.outline()


@dataclass(frozen=True)
class Layout:
    name: str
    width: float
    height: float
    zones: tuple[Zone, ...]
    markers: tuple[Marker, ...]
    source: str = ""

    def zone(self, seat: int, area: str) -> Zone:
        for zone in self.zones:
            if zone.seat == seat and zone.area == area:
                return zone
        raise KeyError(f"{self.name}: no zone {area!r} for seat {seat}")

    def bet_axis(self, zone: Zone) -> float:
        """The direction (as ``Zone.angle``) a bet's chips are laid along in ``zone``: its own for a rectangle, the
        seat's (its card zone's) for a round zone."""
        return zone.angle if zone.radius is None else self.zone(zone.seat, "cards").angle

    def zone_at(self, x: float, y: float) -> Zone | None:
        """The zone holding a point (the first in file order when zones overlap), or None."""
        for zone in self.zones:
            if zone.contains(x, y):
                return zone
        return None

    def seats(self) -> list[int]:
        return sorted({z.seat for z in self.zones if z.seat != DEALER})

    def marker(self, marker_id: int) -> Marker | None:
        return next((m for m in self.markers if m.id == marker_id), None)


def _pair(reader: TomlReader, key: str, value: object) -> tuple[float, float]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise reader.fail(key, f"expected two numbers [x, y] in mm, got {value!r}")
    return float(value[0]), float(value[1])


def _zone(reader: TomlReader, key: str, seat: int, area: str, spec: object, width: float, height: float) -> Zone:
    if not isinstance(spec, dict):
        raise reader.fail(key, "expected a table with rect = {...} or circle = {...}")
    unknown = set(spec) - {"rect", "circle"}
    if unknown:
        raise reader.fail(f"{key}.{sorted(unknown)[0]}", "unknown key (expected rect or circle)")
    if len(spec) != 1:
        raise reader.fail(key, "give exactly one of rect or circle")
    kind, shape = next(iter(spec.items()))
    if not isinstance(shape, dict):
        raise reader.fail(f"{key}.{kind}", "expected an inline table")
    allowed = {"centre", "size", "angle"} if kind == "rect" else {"centre", "radius"}
    for name in shape:
        if name not in allowed:
            raise reader.fail(f"{key}.{kind}", f"unknown field {name!r} (expected {', '.join(sorted(allowed))})")
    centre = _pair(reader, f"{key}.{kind}", shape.get("centre"))
    if not (0 <= centre[0] <= width and 0 <= centre[1] <= height):
        raise reader.fail(f"{key}.{kind}", f"centre {centre} lies outside the felt ({width} x {height} mm)")
    if kind == "rect":
        size = _pair(reader, f"{key}.{kind}", shape.get("size"))
        angle = shape.get("angle", 0.0)
        if min(size) <= 0 or isinstance(angle, bool) or not isinstance(angle, int | float):
            raise reader.fail(f"{key}.{kind}", "size must be positive and angle a number of degrees")
        return Zone(seat, area, centre, size, float(angle))
    radius = shape.get("radius")
    if isinstance(radius, bool) or not isinstance(radius, int | float) or radius <= 0:
        raise reader.fail(f"{key}.{kind}", f"radius must be a positive number of mm, got {radius!r}")
    return Zone(seat, area, centre, radius=float(radius))


def parse_layout(text: str, source: str) -> Layout:
    data = load_toml(text, source, LayoutError)
    reader = TomlReader(text, source, data, LayoutError)
    for name in data:
        if name not in ("felt", "seat", "dealer", "paying", "marker"):
            raise reader.fail(name, "unknown table (expected felt, seat, dealer, paying, marker)")
    name = reader.string("felt.name")
    size = _pair(reader, "felt.size", reader.raw("felt.size"))
    width, height = size
    zones: list[Zone] = []
    seats = reader.raw("seat", {})
    if not isinstance(seats, dict) or not seats:
        raise reader.fail("seat", "no seat zones")
    for seat_key, areas in seats.items():
        if not seat_key.isdigit() or not 1 <= int(seat_key) <= 7:
            raise reader.fail(f"seat.{seat_key}", "seats are numbered 1 to 7")
        if not isinstance(areas, dict):
            raise reader.fail(f"seat.{seat_key}", "expected a table of zones")
        for area, spec in areas.items():
            if area not in SEAT_AREAS:
                raise reader.fail(f"seat.{seat_key}.{area}", f"unknown area (expected {', '.join(SEAT_AREAS)})")
            zones.append(_zone(reader, f"seat.{seat_key}.{area}", int(seat_key), area, spec, width, height))
        missing = [a for a in ("cards", "ante") if a not in areas]
        if missing:
            raise reader.fail(f"seat.{seat_key}", f"missing zone {missing[0]!r}")
    dealer = reader.raw("dealer", {})
    if not isinstance(dealer, dict) or "cards" not in dealer:
        raise reader.fail("dealer", "missing the dealer's card area [dealer.cards]")
    for area in dealer:
        if area != "cards":
            raise reader.fail(f"dealer.{area}", "unknown area (the dealer has cards only)")
    zones.append(_zone(reader, "dealer.cards", DEALER, "cards", dealer["cards"], width, height))
    if "paying" in data:
        zones.append(_zone(reader, "paying", DEALER, "paying", data["paying"], width, height))
    markers: list[Marker] = []
    for marker_key, spec in reader.raw("marker", {}).items():
        key = f"marker.{marker_key}"
        if not marker_key.isdigit() or int(marker_key) >= 50:
            raise reader.fail(key, f"marker ids are 0 to 49 ({ARUCO_DICTIONARY})")
        if not isinstance(spec, dict):
            raise reader.fail(key, "expected a table")
        centre = _pair(reader, f"{key}.centre", spec.get("centre"))
        side = reader.number(f"{key}.size", 10, 1000)
        angle = reader.number(f"{key}.angle", -360, 360, 0.0)
        markers.append(Marker(int(marker_key), centre, side, angle))
    if len(markers) < 4:
        raise reader.fail("marker", f"{len(markers)} markers: a homography needs at least 4")
    return Layout(name, width, height, tuple(zones), tuple(markers), source)


def load_layout(path: str | Path = DEFAULT_LAYOUT) -> Layout:
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as error:
        raise LayoutError(str(source), "", None, error.strerror or str(error)) from None
    return parse_layout(text, str(source))
