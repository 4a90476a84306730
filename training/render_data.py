"""Training data drawn by the virtual table's renderer, as the pipeline sees it: each frame is calibrated from its
markers, cut into the per-seat crops of ``vision.table_reader``, and labelled from the scene (cards, spread chip
piles), so the detector learns the overhead view of the felt and the index reader (``vision.index_reader``) the corner
of each card, the part of a card that the next one, laid « légèrement décalée », leaves visible.

    python -m training.render_data --out build/vision/render --frames 200 --seed 11

Card art: the KDE decks of Debian's ``kdegames-card-data-kf5`` EXCEPT the demo's (``svg-standard``, kept apart so
the demo shows the models cards they never saw), plus plainly drawn cards. Never the validation photos.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from controller.felt.chips import CHIP_DIAMETER_MM, CHIP_SET, make_stack
from controller.felt.layout import DEALER, Layout, axes, load_layout
from controller.rules.cards import full_deck
from controller.sim.render import DEFAULT_DECK, CardArt, Renderer, TableCamera
from controller.sim.scene import Arm, CardOnFelt, SceneState
from training.synth import INDEX_DECKS, TRAIN_DECKS, aisleriot_deck
from vision.calibrate import CalibrationError, calibrate
from vision.common import vision_label
from vision.index_reader import INDEX_CLASSES, index_crop
from vision.table_reader import rectified, seat_regions

assert DEFAULT_DECK not in TRAIN_DECKS + INDEX_DECKS
DETECTOR_CROP = 256


#: frame sizes drawn from (a size listed twice is drawn twice as often)
DEFAULT_SIZES = ((1920, 1080), (1920, 1080), (1920, 1080), (2560, 1440))


def random_camera(rng: np.random.Generator, layout: Layout,
                  sizes: tuple[tuple[int, int], ...] = DEFAULT_SIZES) -> TableCamera:
    size = sizes[int(rng.integers(len(sizes)))]
    return TableCamera(width=size[0], height=size[1], felt_mm=(layout.width, layout.height),
                       distance_mm=float(rng.uniform(1400, 1900)), tilt_deg=float(rng.uniform(4, 20)),
                       roll_deg=float(rng.uniform(-3, 3)), fill=float(rng.uniform(0.86, 0.97)),
                       offset=(float(rng.uniform(-0.02, 0.02)), float(rng.uniform(-0.02, 0.03))),
                       k1=float(rng.uniform(-0.08, 0.0)))


def random_scene(rng: np.random.Generator, layout: Layout) -> SceneState:
    deck = [str(c) for c in full_deck()]
    rng.shuffle(deck)
    scene = SceneState()
    showdown = rng.random() < 0.3
    for position in [*layout.seats(), DEALER]:
        if position != DEALER and rng.random() < 0.35:
            continue  # an empty seat
        count = int(rng.choice([0, 1, 2, 3, 4, 5, 5, 5, 6]))
        for index in range(count):
            face_up = showdown or rng.random() < 0.12 or (position == DEALER and index == 4)
            lifted = position != DEALER and not face_up and rng.random() < 0.04
            scene = scene.with_card(CardOnFelt(position, index, deck.pop(), bool(face_up), bool(lifted)))
        if position == DEALER:
            continue
        for box, chance in (("ante", 0.9), ("raise", 0.4), ("bonus", 0.3), ("jackpot", 0.2)):
            if rng.random() < chance:
                if box in ("bonus", "jackpot"):
                    chips = (int(rng.choice([c.cents for c in CHIP_SET[:2]])),)
                else:
                    chips = make_stack(int(rng.choice([1000, 1500, 2000, 2500, 3000, 3500, 5000, 6000, 10000, 12500])))
                scene = scene.with_chips(position, box, chips)
    arms = []
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        end = (float(rng.uniform(200, 1600)), float(rng.uniform(150, 850)))
        start = (end[0] + float(rng.uniform(-300, 300)), 1000.0 if rng.random() < 0.7 else 0.0)
        if abs(end[1] - start[1]) > 60:
            arms.append(Arm(start, end, float(rng.uniform(70, 100))))
    return SceneState(scene.cards, scene.chips, tuple(arms))


def under_an_arm(point: np.ndarray, arms: tuple[Arm, ...]) -> bool:
    """Is this felt point under an arm (or its hand, a little past its end)?"""
    for arm in arms:
        a, b = np.array(arm.start), np.array(arm.end)
        along = (b - a) / np.linalg.norm(b - a)
        b = b + along * arm.width * 1.1
        t = np.clip(np.dot(point - a, b - a) / np.dot(b - a, b - a), 0, 1)
        if np.linalg.norm(point - (a + t * (b - a))) < arm.width * 0.6:
            return True
    return False


def _box_in_crop(points_px: np.ndarray, image_to_crop: np.ndarray, size: int) -> tuple[float, ...] | None:
    """The axis-aligned box in crop pixels of frame points; None when less than 40 % of it lies in the crop."""
    pts = cv2.perspectiveTransform(points_px[None].astype(np.float64), image_to_crop)[0]
    x1, y1 = pts.min(0)
    x2, y2 = pts.max(0)
    area = (x2 - x1) * (y2 - y1)
    cx1, cy1, cx2, cy2 = max(x1, 0), max(y1, 0), min(x2, size), min(y2, size)
    if area <= 0 or cx2 <= cx1 or cy2 <= cy1 or (cx2 - cx1) * (cy2 - cy1) < 0.4 * area:
        return None
    return cx1, cy1, cx2, cy2


def frame_samples(renderer: Renderer, scene: SceneState, frame: np.ndarray, layout: Layout,
                  rng: np.random.Generator):
    """(detector crops with YOLO label lines, identifier crops with ID_CLASSES indices) for one rendered frame."""
    cal = calibrate(frame, layout)
    camera = renderer.camera
    objects = []  # (class, frame points)
    for card in scene.cards:
        if card.lifted:
            continue
        quad = renderer.card_quad(card)
        if under_an_arm(quad.mean(0), scene.arms):
            continue
        objects.append((0 if card.face_up else 1, camera.table_to_image(quad)))
    circle = np.stack([np.cos(np.linspace(0, 2 * np.pi, 12)), np.sin(np.linspace(0, 2 * np.pi, 12))], 1)
    for stack in scene.chips:
        for _cents, centre in renderer.chip_centres(stack):
            if not under_an_arm(np.array(centre), scene.arms):
                objects.append((2, camera.table_to_image(np.array(centre) + circle * CHIP_DIAMETER_MM / 2)))
    detector = []
    regions = {region.seat: region for region in seat_regions(layout)}
    for region in regions.values():
        to_image = cal.table_to_image @ region.crop_to_table(DETECTOR_CROP)
        crop = rectified(frame, to_image, DETECTOR_CROP)
        to_crop = np.linalg.inv(to_image)
        lines = []
        for cls, points in objects:
            box = _box_in_crop(points, to_crop, DETECTOR_CROP)
            if box is not None:
                x1, y1, x2, y2 = (v / DETECTOR_CROP for v in box)
                lines.append(f"{cls} {(x1 + x2) / 2:.6f} {(y1 + y2) / 2:.6f} {x2 - x1:.6f} {y2 - y1:.6f}")
        detector.append((crop, lines))
    identifier = []
    for card in scene.cards:
        if card.lifted or under_an_arm(renderer.card_quad(card).mean(0), scene.arms):
            continue
        label = vision_label(card.card) if card.face_up else "BACK"
        if not card.face_up and rng.random() < 0.75:
            continue  # backs are easy: a few of them suffice
        quad = renderer.card_quad(card)
        # framed as the table reader frames it: the top-left corner of the card's box along its seat region's axes
        # (a card laid a little turned is not square to its box), the detector's box a little off
        angle = regions[card.position].angle
        corner = box_corner(quad, angle) + rng.normal(0, 3.0, 2)
        identifier.append((index_crop(frame, cal.table_to_image, corner, angle + rng.normal(0, 1),
                                      rng.uniform(0.95, 1.05)), INDEX_CLASSES.index(label)))
        # and framed on the card's own corner and axes
        u = (quad[1] - quad[0]) / np.linalg.norm(quad[1] - quad[0])
        angle = float(np.degrees(np.arctan2(-u[1], u[0]))) + rng.normal(0, 2)
        identifier.append((index_crop(frame, cal.table_to_image, quad[0] + rng.normal(0, 2.5, 2), angle,
                                      rng.uniform(0.93, 1.07)), INDEX_CLASSES.index(label)))
    return detector, identifier


def box_corner(quad_mm: np.ndarray, angle_deg: float) -> np.ndarray:
    """The top-left corner (mm) of the box around a card's outline whose sides run along the axes of ``angle_deg``:
    where the table reader takes a card's corner from the detector's box in the seat's upright crop."""
    ex, ey = axes(angle_deg)
    return ex * (quad_mm @ ex).min() + ey * (quad_mm @ ey).min()


def aisleriot_art(name: str) -> CardArt:
    """An aisleriot deck's sprites as the renderer takes them (``Renderer(art=...)``)."""
    sprites = {key: cv2.cvtColor(image, cv2.COLOR_RGBA2BGRA) for key, image in aisleriot_deck(name).items()}
    if not sprites:
        raise ValueError(f"aisleriot deck {name!r} is not installed (Debian package gnome-cards-data)")
    faces = {str(card): sprites[vision_label(str(card))] for card in full_deck()}
    back = next(image for key, image in sprites.items() if key.startswith("BACK"))
    return faces, back, f"aisleriot {name}"


def _renderer(layout: Layout, camera: TableCamera, deck: str | None, seed: int) -> Renderer:
    if deck is not None and deck.startswith("aisleriot-"):
        return Renderer(layout, camera, seed=seed, art=aisleriot_art(deck.removeprefix("aisleriot-")))
    return Renderer(layout, camera, deck=deck, seed=seed)


def generate(out: Path, frames: int, seed: int, frames_per_renderer: int = 5,
             sizes: tuple[tuple[int, int], ...] = DEFAULT_SIZES, decks: tuple[str | None, ...] = TRAIN_DECKS
             ) -> None:
    """Frames drawn with ``decks`` (one picked per ``frames_per_renderer`` frames): detector crops of every deck,
    index crops of the ``INDEX_DECKS`` among them."""
    layout = load_layout()
    rng = np.random.default_rng(seed)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    id_x, id_y = [], []
    started = time.time()
    renderer = None
    made = skipped = 0
    for i in range(frames):
        if i % frames_per_renderer == 0:
            deck = decks[int(rng.integers(len(decks)))]
            renderer = _renderer(layout, random_camera(rng, layout, sizes), deck, int(rng.integers(1 << 30)))
        assert renderer is not None
        scene = random_scene(rng, layout)
        frame = renderer.render(scene, int(i * 40))
        try:
            detector, identifier = frame_samples(renderer, scene, frame, layout, rng)
        except CalibrationError as error:
            skipped += 1
            print(f"frame {i}: skipped ({error})", flush=True)
            continue
        for k, (crop, lines) in enumerate(detector):
            if not lines and rng.random() < 0.7:
                continue  # keep some empty crops as negatives, not all
            name = f"r{seed}_{i:05d}_{k}"
            quality = [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))]
            cv2.imwrite(str(out / "images" / f"{name}.jpg"), crop, quality)
            (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
            made += 1
        for crop, label in identifier if deck in INDEX_DECKS else ():
            id_x.append(crop)
            id_y.append(label)
        if (i + 1) % 20 == 0:
            print(f"{i + 1}/{frames} frames, {made} detector crops, {len(id_x)} identifier crops "
                  f"({time.time() - started:.0f}s)", flush=True)
    np.savez_compressed(out / "index_crops.npz", x=np.stack(id_x), y=np.array(id_y))
    print(f"done: {made} detector crops, {len(id_x)} identifier crops, {skipped} frames skipped "
          f"({time.time() - started:.0f}s) -> {out}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.render_data", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("build/vision/render"))
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in DEFAULT_SIZES),
                        help="frame sizes drawn from, WxH separated by commas (repeat one to draw it more often)")
    parser.add_argument("--decks", choices=("train", "index"), default="train",
                        help="train: the detector's decks (index crops of the readable ones); index: readable decks")
    args = parser.parse_args(argv)
    try:
        sizes = tuple(tuple(int(v) for v in size.split("x")) for size in args.sizes.split(","))
    except ValueError:
        parser.error(f"--sizes {args.sizes!r}: expected WxH,WxH... such as 1920x1080,3840x2160")
    decks = TRAIN_DECKS if args.decks == "train" else INDEX_DECKS
    generate(args.out, args.frames, args.seed, sizes=sizes, decks=decks)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
