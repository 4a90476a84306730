"""Overhead camera frames of the virtual felt: what the Pi's camera would see of a ``SceneState``.

Everything is drawn in table space (millimetres, at ``px_per_mm``) over a cached static layer (felt, printed zone
outlines, ArUco markers), then mapped to the camera image in one ``cv2.remap`` whose precomputed maps hold both the
camera's homography and its lens distortion, so each card lands exactly where the layout puts it.

The demo's card art is kept apart from every model's training data: it comes from Debian's
``kdegames-card-data-kf5``, deck ``svg-standard`` (LGPL-2, see ``/usr/share/doc/kdegames-card-data-kf5/copyright``),
which no model trained on (``training.render_data`` trains on the other KDE decks). Each card is rendered once with
``rsvg-convert --export-id`` into ``build/card-art/`` of a checkout (``~/.cache/stud-table/card-art/`` from an installed
package, ``ART_CACHE``) and kept in memory afterwards; without the deck or ``rsvg-convert``, or where the cache cannot
be written, the cards are drawn programmatically (with a warning).
"""

from __future__ import annotations

import itertools
import math
import os
import shutil
import subprocess
import tempfile
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import cv2
import numpy as np

from controller.felt.chips import CHIP_DIAMETER_MM, CHIP_SET, CHIP_THICKNESS_MM, chip_kind
from controller.felt.layout import ARUCO_DICTIONARY, DEALER, SEAT_AREAS, Layout, Zone, axes
from controller.rules.cards import Card, parse_card
from controller.sim.conditions import CONDITIONS, OTHER_DECK
from controller.sim.scene import Arm, CardOnFelt, ChipStack, SceneState
from vision.common import split_card, vision_label

ROOT = Path(__file__).resolve().parents[2]
CARDDECKS = Path("/usr/share/carddecks")


def _art_cache() -> Path:
    """``build/card-art/`` in a checkout, with its other build outputs; from an installed package (``ROOT`` is then
    site-packages: no place to write), the user's cache: ``$XDG_CACHE_HOME/stud-table/card-art/``, by default under
    ``~/.cache``."""
    if (ROOT / "pyproject.toml").is_file():
        return ROOT / "build" / "card-art"
    cache = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache):
        try:
            cache = str(Path.home() / ".cache")
        except RuntimeError:  # no home: a user without one
            cache = tempfile.gettempdir()
    return Path(cache) / "stud-table" / "card-art"


ART_CACHE = _art_cache()
DEFAULT_DECK = "svg-standard"
#: width of the PNGs rendered from the SVG (court cards come out wider: their box has empty margins)
ART_WIDTH_PX = 400

CARD_MM = (63.0, 88.0)  # poker size: the short side lies along the zone's long axis
STAGGER_MM = 28.0  # each next card « légèrement décalée » along the zone's long axis
#: a pile spread for the camera: each chip this much past the one under it
CHIP_SPREAD_MM = 17.0
#: a casino stack: how far (sd, mm, each way) each chip sits off the zone's centre, and how many layers draw a chip's
#: edge
STACK_WOBBLE_MM = 0.5
STACK_LAYERS = 3
RAIL_MM = 40.0  # the padded rail drawn around the felt; beyond it the remap's border colour
RAIL_BGR = (28, 34, 46)
FELT_BGR = (48, 128, 38)
#: the cloth of the ``blue-felt`` condition
BLUE_FELT_BGR = (120, 62, 22)
PRINT_BGR = (178, 214, 222)
SKIN_BGR = ((120, 160, 215), (95, 135, 190), (70, 100, 150), (140, 175, 225))
_NOISE_PAD = 64  # the noise field is this much larger than a frame; each frame takes a random window of it


@dataclass(frozen=True)
class TableCamera:
    """The overhead camera: a pinhole above the dealer's side, pitched to look at the felt's centre.

    ``distance_mm`` from the camera to the felt's centre, ``tilt_deg`` its pitch away from straight down (the far
    side of the felt looks narrower), ``roll_deg`` its rotation about its axis, ``fill`` the share of the frame the
    felt spans, ``offset`` a shift of the felt in the frame as fractions of its size, ``k1``/``k2`` radial
    distortion (negative: barrel) on coordinates normalised by the focal length.
    """

    width: int = 1920
    height: int = 1080
    felt_mm: tuple[float, float] = (1800.0, 1000.0)
    distance_mm: float = 1600.0
    tilt_deg: float = 12.0
    roll_deg: float = 0.8
    fill: float = 0.94
    offset: tuple[float, float] = (0.0, 0.01)
    k1: float = -0.05
    k2: float = 0.0

    def __post_init__(self) -> None:
        checks = {
            "width": isinstance(self.width, int) and self.width >= 64,
            "height": isinstance(self.height, int) and self.height >= 64,
            "felt_mm": len(self.felt_mm) == 2 and min(self.felt_mm) > 0,
            "distance_mm": self.distance_mm > 0,
            "tilt_deg": 0 <= self.tilt_deg < 60,
            "fill": 0 < self.fill <= 1,
            "offset": len(self.offset) == 2 and all(abs(v) < 0.5 for v in self.offset),
            "k1": abs(self.k1) < 0.5,
            "k2": abs(self.k2) < 0.5,
        }
        for name, ok in checks.items():
            if not ok:
                raise ValueError(f"TableCamera: bad {name} {getattr(self, name)!r}")

    @cached_property
    def _model(self) -> tuple[np.ndarray, float, tuple[float, float]]:
        """The homography (felt mm -> undistorted pixels), the focal length and the principal point, in pixels."""
        felt_w, felt_h = self.felt_mm
        t, r = math.radians(self.tilt_deg), math.radians(self.roll_deg)
        centred = np.array([[1, 0, -felt_w / 2], [0, 1, -felt_h / 2], [0, 0, 1]])
        # a plane point (x, y) seen by the pitched camera: depth grows away from the dealer
        pitched = np.array([[1, 0, 0], [0, math.cos(t), 0], [0, math.sin(t), self.distance_mm]])
        rolled = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
        unit = rolled @ pitched @ centred  # focal length 1, optical axis through the felt's centre
        corners = _apply(unit, np.array([[0, 0], [felt_w, 0], [felt_w, felt_h], [0, felt_h]], float))
        low, high = corners.min(0), corners.max(0)
        focal = self.fill * min(self.width / (high - low)[0], self.height / (high - low)[1])
        mid = (low + high) / 2
        principal = (self.width / 2 * (1 + 2 * self.offset[0]) - focal * mid[0] - 0.5,
                     self.height / 2 * (1 + 2 * self.offset[1]) - focal * mid[1] - 0.5)
        to_pixels = np.array([[focal, 0, principal[0]], [0, focal, principal[1]], [0, 0, 1]])
        return to_pixels @ unit, focal, principal

    @property
    def lens_mm(self) -> tuple[float, float, float]:
        """Where the lens is: the felt point straight under it (mm) and its height above the felt (mm). The roll
        turns the camera about its own axis and the offset shifts the image: neither moves the lens."""
        t = math.radians(self.tilt_deg)
        return (self.felt_mm[0] / 2, self.felt_mm[1] / 2 - self.distance_mm * math.sin(t),
                self.distance_mm * math.cos(t))

    def seen_on_felt(self, point_mm: np.ndarray, height_mm: float) -> tuple[np.ndarray, float]:
        """A point ``height_mm`` above the felt point ``point_mm``, as the camera sees it: the felt point on the
        same ray from the lens, and how much larger things at that height look. A stack's top is seen shifted away
        from the point under the lens, and its side shows on that side."""
        x, y, h = self.lens_mm
        scale = h / (h - height_mm)
        return np.array([x, y]) + (np.asarray(point_mm, float) - (x, y)) * scale, scale

    @property
    def homography(self) -> np.ndarray:
        """3x3, felt millimetres to (undistorted) image pixels."""
        return self._model[0]

    def table_to_image(self, points_mm: np.ndarray) -> np.ndarray:
        """(N, 2) felt millimetres -> (N, 2) pixels in the frame, lens distortion included."""
        return self._distort(_apply(self.homography, np.asarray(points_mm, float).reshape(-1, 2)))

    def image_to_table(self, points_px: np.ndarray) -> np.ndarray:
        """(N, 2) pixels in the frame -> (N, 2) felt millimetres."""
        return _apply(np.linalg.inv(self.homography), self._undistort(np.asarray(points_px, float).reshape(-1, 2)))

    def _distort(self, points: np.ndarray) -> np.ndarray:
        _, focal, principal = self._model
        normal = (points - principal) / focal
        r2 = (normal**2).sum(1, keepdims=True)
        return principal + focal * normal * (1 + self.k1 * r2 + self.k2 * r2 * r2)

    def _undistort(self, points: np.ndarray) -> np.ndarray:
        _, focal, principal = self._model
        seen_x, seen_y = (points[:, 0] - principal[0]) / focal, (points[:, 1] - principal[1]) / focal
        x, y = seen_x, seen_y
        for _ in range(10):  # fixed point: converges fast for mild distortion
            r2 = x * x + y * y
            gain = 1 + self.k1 * r2 + self.k2 * r2 * r2
            x, y = seen_x / gain, seen_y / gain
        return np.stack([principal[0] + focal * x, principal[1] + focal * y], 1)


def _apply(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    mapped = points @ matrix[:, :2].T + matrix[:, 2]
    return mapped[:, :2] / mapped[:, 2:]


@lru_cache(maxsize=2)
def _camera_maps(camera: TableCamera, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """For each frame pixel, the canvas pixel it sees: lens distortion, then the homography, in one map."""
    cols, rows = np.meshgrid(np.arange(camera.width, dtype=np.float64), np.arange(camera.height, dtype=np.float64))
    table = camera.image_to_table(np.stack([cols.ravel(), rows.ravel()], 1))
    canvas = ((table + RAIL_MM) * px_per_mm).astype(np.float32)
    shape = (camera.height, camera.width)
    return cv2.convertMaps(canvas[:, 0].reshape(shape), canvas[:, 1].reshape(shape), cv2.CV_16SC2)


def _shaded(sprite: np.ndarray, light: float) -> np.ndarray:
    """A BGRA sprite with its colour times ``light``, its alpha kept: a chip's edge, in the shade of its face."""
    shaded = sprite.copy()
    shaded[..., :3] = (sprite[..., :3] * light).astype(np.uint8)
    return shaded


def _darken(image: np.ndarray, amount: np.ndarray) -> np.ndarray:
    """``image * (1 - amount)`` per pixel (``amount`` float32, one channel), with OpenCV's fast blend."""
    return cv2.blendLinear(image, np.zeros_like(image), 1 - amount, amount)


# ---------------------------------------------------------------------------------------------------- card art


def _element_id(card: Card) -> str:
    rank = {14: "1", 11: "jack", 12: "queen", 13: "king"}.get(card.rank, str(card.rank))
    return f"{rank}_{dict(c='club', d='diamond', h='heart', s='spade')[card.suit]}"


def _deck_file(deck: str) -> Path:
    folder = CARDDECKS / deck
    files = sorted(folder.glob("*.svgz")) + sorted(folder.glob("*.svg"))
    if not files:
        installed = sorted(p.name for p in CARDDECKS.glob("svg-*"))
        raise ValueError(f"no card deck {deck!r} in {CARDDECKS} (installed: {', '.join(installed)})")
    return files[0]


def _rendered_element(svg: Path, deck: str, element: str) -> np.ndarray:
    """The element as BGRA, cropped to its opaque part (``--export-id`` boxes of court cards have empty margins)."""
    png = ART_CACHE / deck / f"{element}.png"
    if not png.exists():
        png.parent.mkdir(parents=True, exist_ok=True)
        partial = png.with_suffix(f".{os.getpid()}.part")
        command = ["rsvg-convert", f"--export-id={element}", "-w", str(ART_WIDTH_PX), "-o", str(partial), str(svg)]
        subprocess.run(command, check=True, capture_output=True, timeout=60)
        partial.replace(png)  # atomic: test processes may render the same card at once
    image = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise ValueError(f"{png}: not an RGBA PNG")
    rows, cols = np.nonzero(image[..., 3] > 128)
    if rows.size == 0:
        raise ValueError(f"{png}: element {element!r} rendered empty")
    return image[rows.min():rows.max() + 1, cols.min():cols.max() + 1]


def _programmatic_card(card: Card | None, size: tuple[int, int]) -> np.ndarray:
    """A clean card drawn with OpenCV: rank and suit symbols on white, or a blue patterned back (``card`` None)."""
    w, h = size
    art = np.zeros((h, w, 4), np.uint8)
    radius = max(2, w // 12)
    cv2.rectangle(art, (radius, 0), (w - 1 - radius, h - 1), (0, 0, 0, 255), -1)
    cv2.rectangle(art, (0, radius), (w - 1, h - 1 - radius), (0, 0, 0, 255), -1)
    for x in (radius, w - 1 - radius):
        for y in (radius, h - 1 - radius):
            cv2.circle(art, (x, y), radius, (0, 0, 0, 255), -1, cv2.LINE_AA)
    alpha = art[..., 3].copy()
    if card is None:
        art[..., :3] = (150, 40, 20)
        for k in range(-h, w, max(4, w // 10)):
            cv2.line(art, (k, 0), (k + h, h), (235, 235, 235, 255), 1, cv2.LINE_AA)
            cv2.line(art, (k + h, 0), (k, h), (235, 235, 235, 255), 1, cv2.LINE_AA)
        cv2.rectangle(art, (3, 3), (w - 4, h - 4), (240, 240, 240, 255), max(2, w // 20))
    else:
        art[..., :3] = 250
        colour = (30, 30, 200) if card.suit in "dh" else (20, 20, 20)
        label, _ = split_card(vision_label(str(card)))  # drawn as the models spell it: "10", not "T"
        scale = w / 110
        corner = np.zeros_like(art[..., :3]) + 250
        cv2.putText(corner, label, (int(4 * scale), int(22 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 0.75 * scale, colour,
                    max(1, round(2 * scale)), cv2.LINE_AA)
        _draw_suit(corner, card.suit, (int(14 * scale), int(36 * scale)), 14 * scale, colour)
        art[..., :3] = np.minimum(corner, corner[::-1, ::-1])  # the index again in the opposite corner
        _draw_suit(art, card.suit, (w // 2, h // 2), w * 0.42, colour)
    art[..., 3] = alpha
    return art


def _draw_suit(image: np.ndarray, suit: str, centre: tuple[int, int], size: float, colour: tuple) -> None:
    cx, cy, s = centre[0], centre[1], size / 2
    colour = tuple(colour) + (255,) * (image.shape[2] - 3)

    def disc(dx: float, dy: float, r: float) -> None:
        cv2.circle(image, (round(cx + dx * s), round(cy + dy * s)), max(1, round(r * s)), colour, -1, cv2.LINE_AA)

    def poly(points: list[tuple[float, float]]) -> None:
        cv2.fillPoly(image, [np.int32([(cx + x * s, cy + y * s) for x, y in points])], colour, cv2.LINE_AA)

    if suit == "d":
        poly([(0, -1), (0.7, 0), (0, 1), (-0.7, 0)])
    elif suit == "h":
        disc(-0.45, -0.35, 0.5)
        disc(0.45, -0.35, 0.5)
        poly([(-0.93, -0.2), (0.93, -0.2), (0, 0.95)])
    elif suit == "s":
        disc(-0.45, 0.2, 0.5)
        disc(0.45, 0.2, 0.5)
        poly([(-0.93, 0.05), (0.93, 0.05), (0, -1)])
        poly([(0, 0.3), (0.3, 1), (-0.3, 1)])
    else:
        for dx, dy in ((0, -0.5), (-0.5, 0.15), (0.5, 0.15)):
            disc(dx, dy, 0.42)
        poly([(0, 0.1), (0.3, 1), (-0.3, 1)])


#: a deck's sprites: faces by card (``"Qh"``), back, and where they come from
CardArt = tuple[dict[str, np.ndarray], np.ndarray, str]


@lru_cache(maxsize=4)
def card_art(deck: str | None, size: tuple[int, int]) -> CardArt:
    """The 52 faces (by ``str(card)``) and the back as BGRA sprites of ``size`` (w, h), and where they come from.

    ``deck`` None draws them programmatically; a deck that cannot be rendered falls back to that with a warning.
    """
    cards = [Card(rank, suit) for rank in range(2, 15) for suit in "cdhs"]
    if deck is not None:
        svg = _deck_file(deck)
        try:
            if shutil.which("rsvg-convert") is None:
                raise OSError("rsvg-convert is not installed (Debian package librsvg2-bin)")
            faces = {str(c): _fit(_rendered_element(svg, deck, _element_id(c)), size) for c in cards}
            return faces, _fit(_rendered_element(svg, deck, "back"), size), f"{deck} ({svg})"
        except (OSError, ValueError, subprocess.SubprocessError) as error:
            warnings.warn(f"card deck {deck} cannot be rendered ({error}); drawing plain cards instead", stacklevel=2)
    faces = {str(c): _programmatic_card(c, size) for c in cards}
    return faces, _programmatic_card(None, size), "programmatic"


def _fit(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


# ---------------------------------------------------------------------------------------------------- the renderer


@dataclass(frozen=True)
class ChipPlace:
    """One denomination's pile in a box: where it stands on the felt and where its top chip's centre is seen."""

    cents: int
    count: int
    base_mm: tuple[float, float]
    top_mm: tuple[float, float]


class Renderer:
    """Draws a ``SceneState`` as the overhead camera sees it; frames are reproducible from ``seed`` and ``t_ms``."""

    def __init__(self, layout: Layout, camera: TableCamera | None = None, deck: str | None = DEFAULT_DECK,
                 seed: int = 0, px_per_mm: float = 2.0, art: CardArt | None = None,
                 conditions: frozenset[str] = frozenset()) -> None:
        """``art``: card sprites to draw instead of ``deck``'s (faces by card as ``"Qh"``, back, where they come
        from), BGRA of any size; the training data draws other card packages' decks this way. ``conditions``: names
        of ``CONDITIONS`` (``other-deck`` replaces ``deck``; ``knock`` is the caller's: see ``knock``)."""
        unknown = sorted(set(conditions) - set(CONDITIONS))
        if unknown:
            raise ValueError(f"unknown camera condition {unknown[0]!r} (known: {', '.join(CONDITIONS)})")
        self.conditions = frozenset(conditions)
        if "other-deck" in self.conditions:
            deck = OTHER_DECK
        camera = camera or TableCamera(felt_mm=(layout.width, layout.height))
        if tuple(camera.felt_mm) != (layout.width, layout.height):
            raise ValueError(f"camera's felt {camera.felt_mm} mm differs from layout {layout.name!r}'s "
                             f"({layout.width}, {layout.height}) mm")
        if not 0.5 <= px_per_mm <= 8:
            raise ValueError(f"px_per_mm {px_per_mm} outside 0.5..8")
        self.layout, self.camera, self.seed, self.scale = layout, camera, int(seed), float(px_per_mm)
        card_px = (round(CARD_MM[0] * self.scale), round(CARD_MM[1] * self.scale))
        if art is None:
            self._faces, self._back, self.card_art = card_art(deck, card_px)
        else:
            self._faces = {card: _fit(sprite, card_px) for card, sprite in art[0].items()}
            self._back, self.card_art = _fit(art[1], card_px), art[2]
        self._chips = {}  # (cents, turn) -> BGRA sprite: stripes at a few angles so stacks look uneven
        self._chip_edges = {}  # (cents, turn) -> the chip as its edge is seen in a stack: the seam, the edge
        for cents in (kind.cents for kind in CHIP_SET):
            for turn in range(4):
                self._chips[cents, turn] = sprite = self._chip_sprite(cents, turn * 15.0)
                self._chip_edges[cents, turn] = (_shaded(sprite, 0.35), _shaded(sprite, 0.8))
        self._static = self._felt_layer()
        self._settled: tuple[tuple, np.ndarray] | None = None
        self._map1, self._map2 = _camera_maps(camera, self.scale)
        self._light = self._light_map()
        self._glare = self._glare_map() if "glare" in self.conditions else None
        noise = np.random.default_rng([self.seed, 1]).standard_normal(
            (camera.height + _NOISE_PAD, camera.width + _NOISE_PAD, 3), np.float32) * (
            8.0 if "noise" in self.conditions else 2.5)
        self._noise_up = np.clip(noise, 0, 255).astype(np.uint8)
        self._noise_down = np.clip(-noise, 0, 255).astype(np.uint8)

    # -- geometry the tests and the ground truth share with the drawing

    def card_quad(self, card: CardOnFelt) -> np.ndarray:
        """The card's corners on the felt in mm (top-left, top-right, bottom-right, bottom-left of its art)."""
        zone = self.layout.zone(card.position, "cards")
        jitter = np.random.default_rng([self.seed, 2, card.position, card.index]).uniform(-1, 1, 3)
        u, v = axes(zone.angle + 2.0 * jitter[2])
        centre = np.array(zone.centre) + u * ((card.index - 2) * STAGGER_MM + 1.5 * jitter[0]) + v * 1.5 * jitter[1]
        w, h = CARD_MM
        return np.array([centre + sx * u * w / 2 + sy * v * h / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])

    def chip_places(self, stack: ChipStack) -> list[ChipPlace]:
        """Each denomination's pile, side by side along the seat's axis, largest first. A pile is spread towards
        the player, ``CHIP_SPREAD_MM`` a chip, as dealers spread a bet for the camera: every chip shows. In a casino
        stack each denomination's run stands on the one below it, on the box's centre; its top is where the camera
        sees its top chip's face."""
        zone = self.layout.zone(stack.seat, stack.box)
        if stack.stacked:
            places, height = [], 0
            for cents, run in itertools.groupby(stack.chips):
                chip_kind(cents)
                height += len(list(run))
                seen_at = self._stack_centre(stack, height - 1)
                top, _scale = self.camera.seen_on_felt(seen_at, height * CHIP_THICKNESS_MM)
                places.append(ChipPlace(cents, height - sum(p.count for p in places), zone.centre,
                                        (float(top[0]), float(top[1]))))
            return places
        u, v = axes(self.layout.bet_axis(zone))
        counts = sorted(Counter(stack.chips).items(), key=lambda item: -item[0])
        spacing = CHIP_DIAMETER_MM + 2 if len(counts) <= 2 else CHIP_DIAMETER_MM * 0.8  # keep them near the box
        places = []
        for k, (cents, count) in enumerate(counts):
            chip_kind(cents)  # a denomination outside the chip set is named here
            middle = np.array(zone.centre) + u * spacing * (k - (len(counts) - 1) / 2)
            base = middle - v * CHIP_SPREAD_MM * (count - 1) / 2
            top = middle + v * CHIP_SPREAD_MM * (count - 1) / 2
            places.append(ChipPlace(cents, count, (base[0], base[1]), (top[0], top[1])))
        return places

    def chip_centres(self, stack: ChipStack) -> list[tuple[int, tuple[float, float]]]:
        """Every chip of a stack, bottom to top of each pile: (cents, centre in mm; in a casino stack, where the
        camera sees its face)."""
        if stack.stacked:
            seen = [self.camera.seen_on_felt(self._stack_centre(stack, k), (k + 1) * CHIP_THICKNESS_MM)[0]
                    for k in range(len(stack.chips))]
            return [(cents, (float(p[0]), float(p[1]))) for cents, p in zip(stack.chips, seen, strict=True)]
        chips = []
        for place in self.chip_places(stack):
            base, top = np.array(place.base_mm), np.array(place.top_mm)
            for k in range(place.count):
                centre = base + (top - base) * (k / max(place.count - 1, 1))
                chips.append((place.cents, (float(centre[0]), float(centre[1]))))
        return chips

    # -- one frame

    def render(self, scene: SceneState, t_ms: int) -> np.ndarray:
        """The BGR frame at ``t_ms``: the same scene, seed and time always give the same frame."""
        if isinstance(t_ms, bool) or not isinstance(t_ms, int | np.integer) or t_ms < 0:
            raise ValueError(f"t_ms must be a non-negative integer of milliseconds, got {t_ms!r}")
        key = (scene.cards, scene.chips)
        if self._settled is None or self._settled[0] != key:  # cards and chips change far less often than frames
            self._settled = (key, self._draw_settled(scene))
        canvas = self._settled[1]
        if scene.arms:
            still = canvas
            canvas = canvas.copy()
            for k, arm in enumerate(scene.arms):
                self._draw_arm(canvas, arm, SKIN_BGR[k % len(SKIN_BGR)])
            if "motion-blur" in self.conditions:
                canvas = self._smear(still, canvas, scene.arms[0])
        frame = cv2.remap(canvas, self._map1, self._map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=RAIL_BGR)
        rng = np.random.default_rng([self.seed, 3, int(t_ms)])
        frame = cv2.multiply(frame, self._light, scale=rng.uniform(0.97, 1.0) / 255)  # light flickers a little
        frame = cv2.GaussianBlur(frame, (3, 3), 0.7)
        h, w = frame.shape[:2]
        x, y = rng.integers(0, _NOISE_PAD, 2)
        cv2.add(frame, self._noise_up[y:y + h, x:x + w], dst=frame)
        cv2.subtract(frame, self._noise_down[y:y + h, x:x + w], dst=frame)
        if self._glare is not None:
            cv2.add(frame, self._glare, dst=frame)
        if "compression" in self.conditions:
            _ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 35])
            frame = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
        return frame

    def knock(self, camera: TableCamera) -> None:
        """The camera moved: frames from now on are seen from ``camera`` (the felt and its cards stay put)."""
        if (camera.width, camera.height) != (self.camera.width, self.camera.height):
            raise ValueError("a knocked camera keeps its frame size")
        self.camera = camera
        self._map1, self._map2 = _camera_maps(camera, self.scale)

    def _smear(self, still: np.ndarray, moving: np.ndarray, arm: Arm) -> np.ndarray:
        """The arm drawn on ``moving`` over ``still``, smeared along the arm as a moving hand is during the
        exposure: the still felt shows through where the arm passed for part of it."""
        changed = np.abs(moving.astype(np.int16) - still).max(2) > 0
        rows, cols = np.nonzero(changed.any(1))[0], np.nonzero(changed.any(0))[0]
        if not len(rows):
            return moving
        length = max(3, round(15 * self.scale)) | 1
        top, bottom = max(0, rows[0] - length), min(len(changed), rows[-1] + length + 1)
        left, right = max(0, cols[0] - length), min(changed.shape[1], cols[-1] + length + 1)
        window = (slice(top, bottom), slice(left, right))
        direction = np.subtract(arm.end, arm.start)  # the canvas is the felt at a uniform scale: the same direction
        unit = direction / (np.linalg.norm(direction) or 1.0)
        kernel = np.zeros((length, length), np.float32)
        half = (length - 1) / 2
        for step in np.linspace(-half, half, length * 2):
            kernel[round(half + unit[1] * step), round(half + unit[0] * step)] = 1.0
        kernel /= kernel.sum()
        mask = changed[window].astype(np.float32)
        smeared_mask = cv2.filter2D(mask, -1, kernel)[..., None]
        smeared_arm = cv2.filter2D(moving[window].astype(np.float32) * mask[..., None], -1, kernel)
        out = moving.copy()
        out[window] = np.clip(still[window].astype(np.float32) * (1 - smeared_mask) + smeared_arm, 0, 255)
        return out

    # -- drawing helpers (table space)

    def _draw_settled(self, scene: SceneState) -> np.ndarray:
        """The felt with the scene's chips and cards (and the hands of players peeking at theirs)."""
        canvas = self._static.copy()
        for stack in scene.chips:
            if stack.stacked:
                self._draw_stack(canvas, stack)
                continue
            for place in self.chip_places(stack):
                self._draw_pile(canvas, stack, place)
        lifted = []
        for card in sorted(scene.cards, key=lambda c: (c.position, c.index)):
            if card.lifted:
                lifted.append(card)
                continue
            art = self._faces[str(parse_card(card.card))] if card.face_up else self._back
            self._paste(canvas, art, self._px(self.card_quad(card)), shadow_mm=1.2)
        for card in lifted:
            self._draw_lifted(canvas, card)
        return canvas

    def _px(self, points_mm: np.ndarray) -> np.ndarray:
        return (np.asarray(points_mm, float) + RAIL_MM) * self.scale

    def _paste(self, canvas: np.ndarray, sprite: np.ndarray, quad_px: np.ndarray, shadow_mm: float = 0.0) -> None:
        """Alpha-blend a BGRA sprite onto the canvas so its corners land on ``quad_px`` (TL, TR, BR, BL)."""
        sh, sw = sprite.shape[:2]
        margin = int(4 * shadow_mm * self.scale) + 2
        x0, y0 = np.floor(quad_px.min(0)).astype(int) - margin
        x1, y1 = np.ceil(quad_px.max(0)).astype(int) + margin
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
        if x1 <= x0 or y1 <= y0:
            return
        source = np.array([[-0.5, -0.5], [sw - 0.5, -0.5], [sw - 0.5, sh - 0.5]], np.float32)
        matrix = cv2.getAffineTransform(source, (quad_px[:3] - (x0, y0)).astype(np.float32))
        warped = cv2.warpAffine(sprite, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
        roi = canvas[y0:y1, x0:x1]
        alpha = warped[..., 3].astype(np.float32) * (1 / 255)
        if shadow_mm:
            shift = np.array([[1, 0, shadow_mm * self.scale], [0, 1, 1.6 * shadow_mm * self.scale]], np.float32)
            shade = cv2.warpAffine(alpha, shift, alpha.shape[::-1])
            shade = cv2.GaussianBlur(shade, (0, 0), 1.5 * shadow_mm * self.scale)
            roi = _darken(roi, 0.45 * shade)
        canvas[y0:y1, x0:x1] = cv2.blendLinear(roi, cv2.cvtColor(warped, cv2.COLOR_BGRA2BGR), 1 - alpha, alpha)

    def _draw_pile(self, canvas: np.ndarray, stack: ChipStack, place: ChipPlace) -> None:
        base, top = np.array(place.base_mm), np.array(place.top_mm)
        box = SEAT_AREAS.index(stack.box)
        turns = np.random.default_rng([self.seed, 4, stack.seat, box, place.cents]).integers(0, 4, place.count)
        r = CHIP_DIAMETER_MM / 2
        for k in range(place.count):
            centre = base + (top - base) * (k / max(place.count - 1, 1))
            quad = np.array([centre + (-r, -r), centre + (r, -r), centre + (r, r), centre + (-r, r)])
            self._paste(canvas, self._chips[place.cents, turns[k]], self._px(quad), shadow_mm=0.8 if k == 0 else 0)

    def _stack_centre(self, stack: ChipStack, k: int) -> np.ndarray:
        """The felt point under chip ``k`` of a casino stack: the box's centre, each chip a little off it by an
        offset of its own (a stack built by hand is not quite straight)."""
        zone = self.layout.zone(stack.seat, stack.box)
        wobble = np.random.default_rng([self.seed, 6, stack.seat, SEAT_AREAS.index(stack.box)]).normal(
            0, STACK_WOBBLE_MM, (k + 1, 2))  # row k is the same whatever the stack's height
        return np.array(zone.centre, float) + wobble[k]

    def _draw_stack(self, canvas: np.ndarray, stack: ChipStack) -> None:
        """A casino stack as the camera sees it: every chip's edge, bottom to top, drawn as the chip seen at a few
        heights through its thickness (the side shows where the lens is not straight above), a dark seam between
        two chips, then the top chip's face."""
        r = CHIP_DIAMETER_MM / 2
        turns = np.random.default_rng([self.seed, 4, stack.seat, SEAT_AREAS.index(stack.box)]).integers(
            0, 4, len(stack.chips))

        def paste(sprite: np.ndarray, k: int, height_mm: float, shadow_mm: float = 0.0) -> None:
            centre, scale = self.camera.seen_on_felt(self._stack_centre(stack, k), height_mm)
            half = r * scale
            quad = np.array([centre + (-half, -half), centre + (half, -half), centre + (half, half),
                             centre + (-half, half)])
            self._paste(canvas, sprite, self._px(quad), shadow_mm)

        for k, cents in enumerate(stack.chips):
            seam, edge = self._chip_edges[cents, turns[k]]
            paste(seam, k, k * CHIP_THICKNESS_MM, shadow_mm=0.8 if k == 0 else 0.0)
            for step in range(1, STACK_LAYERS + 1):
                paste(edge, k, (k + step / STACK_LAYERS) * CHIP_THICKNESS_MM)
        top = len(stack.chips) - 1
        paste(self._chips[stack.chips[top], turns[top]], top, len(stack.chips) * CHIP_THICKNESS_MM)

    def _draw_lifted(self, canvas: np.ndarray, card: CardOnFelt) -> None:
        """A player peeking: the card raised at the zone's edge (foreshortened, back showing) under his hand."""
        zone = self.layout.zone(card.position, "cards")
        u, v = axes(zone.angle)
        outward = -v if card.position == DEALER else v
        assert zone.size is not None
        centre = (np.array(zone.centre) + u * (card.index - 2) * STAGGER_MM
                  + outward * (zone.size[1] / 2 + 10))
        w, h = CARD_MM[0] * 0.9, CARD_MM[1] * 0.55
        quad = np.array([centre + sx * u * w / 2 + sy * v * h / 2 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        self._paste(canvas, self._back, self._px(quad), shadow_mm=4)
        wrist = centre + outward * 80  # so the fingertips (about 88 mm past the wrist) rest on the card's middle
        self._draw_arm(canvas, Arm(tuple(wrist + outward * 300), tuple(wrist), 80.0), SKIN_BGR[card.position % 4])

    def _draw_arm(self, canvas: np.ndarray, arm: Arm, skin: tuple[int, int, int]) -> None:
        start, end = np.array(arm.start, float), np.array(arm.end, float)
        length = np.linalg.norm(end - start)
        if length < 1:
            raise ValueError(f"arm from {arm.start} to {arm.end}: too short to draw")
        along = (end - start) / length
        across = np.array([-along[1], along[0]])
        width = arm.width
        shadow_offset = np.array([18.0, 30.0])
        points = np.array([start, end, start + shadow_offset, end + shadow_offset + along * width])
        x0, y0 = np.floor(self._px(points.min(0) - width * 1.5)).astype(int)
        x1, y1 = np.ceil(self._px(points.max(0) + width * 1.5)).astype(int)
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, canvas.shape[1]), min(y1, canvas.shape[0])
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)

        def to_px(point_mm: np.ndarray) -> tuple[int, int]:
            p = (self._px(point_mm) - (x0, y0)) * 16  # 4 bits of sub-pixel precision
            return round(p[0]), round(p[1])

        def limb(a: np.ndarray, b: np.ndarray, thickness_mm: float) -> None:
            cv2.line(mask, to_px(a), to_px(b), 255, max(1, round(thickness_mm * self.scale)), cv2.LINE_AA, 4)

        limb(start, end, width)
        palm = end + along * width * 0.35
        cv2.ellipse(mask, to_px(palm), (round(width * 0.5 * self.scale * 16), round(width * 0.6 * self.scale * 16)),
                    math.degrees(math.atan2(along[1], along[0])), 0, 360, 255, -1, cv2.LINE_AA, 4)
        for k, spread in enumerate((-0.36, -0.12, 0.12, 0.36)):
            root = palm + along * width * 0.3 + across * width * spread
            limb(root, root + along * width * (0.45 if k in (1, 2) else 0.38), width * 0.17)
        thumb = palm - along * width * 0.05 + across * width * 0.55
        limb(thumb - across * width * 0.1, thumb + (along + across) * width * 0.3, width * 0.2)
        alpha = mask.astype(np.float32) / 255
        roi = canvas[y0:y1, x0:x1]
        # the soft shadow and the relief are smooth: blur them at 1/4 resolution (full-size blurs cost ~0.3 s)
        small = cv2.resize(alpha, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
        offset = np.array([[1, 0, shadow_offset[0] * self.scale / 4], [0, 1, shadow_offset[1] * self.scale / 4]],
                          np.float32)
        shade = cv2.GaussianBlur(cv2.warpAffine(small, offset, small.shape[::-1]), (0, 0), 2.5 * self.scale)
        shade = cv2.resize(shade, alpha.shape[::-1], interpolation=cv2.INTER_LINEAR)
        # rounded look: darker towards the limb's edges
        relief = cv2.GaussianBlur(small, (0, 0), width * 0.03 * self.scale)
        relief = cv2.resize(relief, alpha.shape[::-1], interpolation=cv2.INTER_LINEAR)
        colour = cv2.merge([cv2.convertScaleAbs(relief, alpha=0.34 * v, beta=0.72 * v) for v in skin])
        canvas[y0:y1, x0:x1] = cv2.blendLinear(_darken(roi, 0.5 * shade), colour, 1 - alpha, alpha)

    # -- the cached layers

    def _chip_sprite(self, cents: int, turn_deg: float) -> np.ndarray:
        kind = chip_kind(cents)
        face, stripes = kind.colour[::-1], kind.stripes[::-1]
        size = round(CHIP_DIAMETER_MM * self.scale)
        sprite = np.zeros((size, size, 4), np.uint8)
        c, r = (size * 8, size * 8), size * 8 - 8  # 4 bits of sub-pixel precision
        edge = tuple(int(v * 0.6) for v in face)
        cv2.circle(sprite, c, r, (*edge, 255), -1, cv2.LINE_AA, 4)
        cv2.circle(sprite, c, r - 20, (*face, 255), -1, cv2.LINE_AA, 4)
        for k in range(6):
            start = turn_deg + k * 60
            cv2.ellipse(sprite, c, (r - 20, r - 20), 0, start, start + 20, (*stripes, 255), -1, cv2.LINE_AA, 4)
        cv2.circle(sprite, c, round(r * 0.74), (*face, 255), -1, cv2.LINE_AA, 4)
        cv2.circle(sprite, c, round(r * 0.62), (*stripes, 255), max(1, round(self.scale * 0.6)), cv2.LINE_AA, 4)
        return sprite

    def _felt_layer(self) -> np.ndarray:
        layout, s = self.layout, self.scale
        width, height = round((layout.width + 2 * RAIL_MM) * s), round((layout.height + 2 * RAIL_MM) * s)
        canvas = np.empty((height, width, 3), np.uint8)
        canvas[:] = RAIL_BGR
        rng = np.random.default_rng([self.seed, 5])
        fx0, fy0 = round(RAIL_MM * s), round(RAIL_MM * s)
        fw, fh = round(layout.width * s), round(layout.height * s)
        # felt: a slow unevenness of the cloth and a fine grain
        slow = cv2.resize(rng.normal(0, 1, (fh // 64 + 2, fw // 64 + 2)).astype(np.float32), (fw, fh),
                          interpolation=cv2.INTER_CUBIC)
        grain = rng.normal(0, 1, (fh, fw)).astype(np.float32)
        shade = (1 + 0.035 * slow + 0.03 * grain)[..., None]
        felt = BLUE_FELT_BGR if "blue-felt" in self.conditions else FELT_BGR
        canvas[fy0:fy0 + fh, fx0:fx0 + fw] = np.clip(np.array(felt, np.float32) * shade, 0, 255).astype(np.uint8)
        cv2.rectangle(canvas, (fx0 - 2, fy0 - 2), (fx0 + fw + 1, fy0 + fh + 1), (70, 82, 96), max(1, round(s)))
        thickness = max(1, round(1.6 * s))
        for zone in layout.zones:
            outline = np.round(self._px(zone.outline()) * 16).astype(np.int32)
            cv2.polylines(canvas, [outline], True, PRINT_BGR, thickness, cv2.LINE_AA, 4)
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, ARUCO_DICTIONARY))
        for marker in layout.markers:
            quiet = Zone(DEALER, "marker", marker.centre, (marker.size * 1.4,) * 2, marker.angle)
            cv2.fillPoly(canvas, [np.round(self._px(quiet.outline()) * 16).astype(np.int32)], (236, 238, 238),
                         cv2.LINE_AA, 4)
            side = round(marker.size * s)
            image = cv2.aruco.generateImageMarker(dictionary, marker.id, side)
            ink = np.dstack([np.where(image > 127, 236, 22).astype(np.uint8)] * 3 + [np.full_like(image, 255)])
            self._paste(canvas, ink, self._px(marker.corners()))
        return canvas

    def _glare_map(self) -> np.ndarray:
        """A lamp's reflection: light added over seat 4's cards and raise box, saturating at its core."""
        cam = self.camera
        centre = cam.table_to_image(np.array([[900.0, 690.0]]))[0]
        radius = float(np.linalg.norm(cam.table_to_image(np.array([[1010.0, 690.0]]))[0] - centre))
        y, x = np.mgrid[0:cam.height, 0:cam.width].astype(np.float32)
        d2 = ((x - centre[0]) ** 2 + ((y - centre[1]) * 1.6) ** 2) / radius**2
        spot = 170 * np.exp(-d2)
        return np.clip(np.repeat(spot[..., None], 3, 2), 0, 255).astype(np.uint8)

    def _light_map(self) -> np.ndarray:
        """Uneven light as a gain (x 1/255): a lamp above the felt's centre, a little brighter on the right."""
        cam = self.camera
        x = np.linspace(-1, 1, cam.width, dtype=np.float32)[None, :]
        y = np.linspace(-1, 1, cam.height, dtype=np.float32)[:, None]
        gain = 1 - 0.2 * ((x + 0.1) ** 2 + (y * 0.8 + 0.05) ** 2) + 0.04 * x
        warm = np.array([0.95, 0.98, 1.0], np.float32)  # blue, green, red: a slightly warm lamp
        return np.clip(gain[..., None] * warm * 255, 0, 255).astype(np.uint8)
