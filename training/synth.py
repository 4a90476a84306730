"""Synthetic training scenes: card art composited onto felt-like backgrounds.

Card art: the Debian ``gnome-cards-data`` (aisleriot) SVG decks, rendered with ``rsvg-convert`` (or cairosvg),
and the 52 geaxgx card faces. Each scene: 0-14 cards (up to 45 in a stack scene; faces of several decks, backs of
several designs) with perspective, rotation, slight overlaps, 0-6 chips, lighting gradients, colour casts, glare,
shadows, blur, noise, JPEG, occluders.
No mirrored card art is ever produced.

    python -m training.synth --out build/vision/synth --n 400 --seed 1

writes ``images/*.jpg``, ``labels/*.txt`` (YOLO boxes, classes of ``DET_CLASSES``) and ``manifest.csv`` (the real
sets' format: image,label,x1,y1,x2,y2) so that crops can also be taken for the identifier.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from training.data import BUILD, GEAXGX_DIR, det_class
from vision.common import CARDS, RANKS

AISLERIOT = Path("/usr/share/aisleriot/cards")
# Decks laid out as the aisleriot 13x5 grid: rows clubs, diamonds, hearts, spades;
# row 5: black joker, red joker, back(s).
DECKS = [
    "anglo",
    "anglo_poker",
    "bellot",
    "neoclassical",
    "ornamental",
    "paris",
    "plastic",
    "simplistic",
    "tango",
    "gnomangelo",
    "dondorf",
    "guyenne-classic",
]
SUIT_ROWS = ["C", "D", "H", "S"]
CARD_H = 300  # rendered card height in px (textures)

#: Decks the models may learn from. svg-standard is the demo's; konqi-modern does not render; oxygen has coloured
#: faces; xskat-french does not render either; xskat-german has German suits; penguins and ancient-egyptians are
#: novelty decks.
TRAIN_DECKS = ("svg-dondorf", "svg-future", "svg-gm-paris", "svg-jolly-royal", "svg-nicu-ornamental", "svg-nicu-white",
               "svg-oxygen-air", "svg-oxygen-white", "svg-tigullio-international", None)
#: Decks the index reader learns from: those whose top-left corner shows the rank and suit as on a casino's cards.
#: Left out: svg-oxygen-air and -white (no rank in the corner), svg-dondorf, svg-gm-paris and aisleriot's
#: guyenne-classic (court cards without an index), svg-future (no standard index). ``aisleriot-NAME`` is a deck of
#: Debian's gnome-cards-data (``aisleriot_deck``).
INDEX_DECKS = ("svg-jolly-royal", "svg-nicu-ornamental", "svg-nicu-white", "svg-tigullio-international", None,
               *(f"aisleriot-{name}" for name in ("anglo", "anglo_poker", "bellot", "dondorf", "gnomangelo",
                                                  "neoclassical", "ornamental", "paris", "plastic", "simplistic",
                                                  "tango")))

FOIL_SHARE = 0.12  # faces printed on gold or silver foil
EDGE_CUT_SHARE = 0.15  # scattered cards placed anywhere, the image's edge cutting them
# rows and grids framed too tight: the photo's edge cuts the outer cards, down to a sliver
LAYOUT_OVERFLOW_SHARE = 0.35
# scenes whose cards lie in piles of 2-5 « légèrement décalées » (a stud hand: the slivers of a pile's backs are the
# hardest to find). 0 by default: a share drawn from the generator would change every seed's scenes.
PILE_SHARE = 0.0
# scenes with a thick stack of a deck, face down and squared roughly, some cards sticking out (a stack's slivers are
# harder still). 0 by default, for the same reason.
STACK_SHARE = 0.0
# a stack's card whose visible part is nowhere wider than this share of a card's height is left unlabelled: its edge
# in the stack, which the photos' annotators do not box either
STACK_MIN_WIDTH = 0.08

CHIP_COLOURS = {
    "CHIP-RED": (200, 30, 35),
    "CHIP-BLUE": (30, 60, 190),
    "CHIP-GREEN": (30, 140, 60),
    "CHIP-BLACK": (25, 25, 28),
    "CHIP-WHITE": (235, 235, 230),
}


def _render_svg(svgz: Path, width: int) -> np.ndarray:
    """Render an svg(z) to an RGBA array of the given width."""
    from PIL import Image

    if shutil.which("rsvg-convert"):
        png = subprocess.run(["rsvg-convert", "-w", str(width), str(svgz)], check=True, capture_output=True).stdout
    else:  # pragma: no cover - fallback
        import cairosvg

        data = gzip.open(svgz).read() if svgz.suffix == ".svgz" else svgz.read_bytes()  # noqa: SIM115
        png = cairosvg.svg2png(bytestring=data, output_width=width)
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def _trim(card: np.ndarray) -> np.ndarray:
    a = card[..., 3] > 8
    ys, xs = np.where(a)
    if len(ys) == 0:
        return card
    return card[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def aisleriot_deck(deck: str, cache: Path = BUILD / "cards", verbose: bool = True) -> dict[str, np.ndarray]:
    """One aisleriot deck as {label: RGBA array} (52 faces as ``QH``, ``JOKER_0``.., ``BACK_2``..), rendered once
    from its 13x5 sheet and cached as PNG under ``cache``; empty when the deck is not installed."""
    from PIL import Image

    src = AISLERIOT / f"{deck}.svgz"
    d = cache / deck
    if not d.exists() and src.exists():
        t0 = time.time()
        sheet = _render_svg(src, 13 * CARD_H * 2 // 3)
        h, w = sheet.shape[:2]
        cw, ch = w / 13, h / 5
        tmp = cache / f".{deck}.tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        for r in range(5):
            for c in range(13):
                cell = sheet[int(r * ch) : int((r + 1) * ch), int(c * cw) : int((c + 1) * cw)]
                if cell[..., 3].mean() < 60:
                    continue
                if r < 4:
                    name = RANKS[c] + SUIT_ROWS[r]
                elif c < 2:
                    name = f"JOKER_{c}"
                else:
                    name = f"BACK_{c}"
                Image.fromarray(_trim(cell)).save(tmp / f"{name}.png")
        tmp.rename(d)
        if verbose:
            print(f"  rendered deck {deck} in {time.time() - t0:.1f}s", flush=True)
    if not d.exists():
        return {}
    return {p.stem: np.asarray(Image.open(p).convert("RGBA")) for p in sorted(d.glob("*.png"))}


def build_textures(cache: Path = BUILD / "cards", verbose: bool = True,
                   kde_decks: bool = False) -> dict[str, list[np.ndarray]]:
    """Return {label: [RGBA arrays]} for the 52 faces, 'BACK' and 'JOKER'. Cached as PNG under ``cache``.
    ``kde_decks`` adds the KDE decks that ``training.render_data`` trains on."""
    from PIL import Image

    out: dict[str, list[np.ndarray]] = {k: [] for k in CARDS + ["BACK", "JOKER"]}
    cache.mkdir(parents=True, exist_ok=True)
    for deck in DECKS:
        for name, image in aisleriot_deck(deck, cache, verbose).items():
            label = name.split("_")[0]
            if label in out:
                out[label].append(image)
    # geaxgx faces: mask the rounded corners (black outside) to alpha.
    gdir = GEAXGX_DIR / "cardfaces"
    if gdir.exists():
        for p in sorted(gdir.iterdir()):
            lab = p.stem[:-1] + p.stem[-1].upper()
            if lab not in out:
                continue
            rgb = np.asarray(Image.open(p).convert("RGB"))
            h, w = rgb.shape[:2]
            alpha = np.full((h, w), 255, np.uint8)
            rad = 14
            yy, xx = np.mgrid[0:h, 0:w]
            for cy, cx in ((rad, rad), (rad, w - rad - 1), (h - rad - 1, rad), (h - rad - 1, w - rad - 1)):
                corner = ((yy < rad) if cy == rad else (yy > h - rad - 1)) & (
                    (xx < rad) if cx == rad else (xx > w - rad - 1)
                )
                alpha[corner & ((yy - cy) ** 2 + (xx - cx) ** 2 > rad**2)] = 0
            alpha[:2, :] = alpha[-2:, :] = 0
            alpha[:, :2] = alpha[:, -2:] = 0
            out[lab].append(np.dstack([rgb, alpha]))
    # The KDE decks the virtual table's training crops use (never the demo's svg-standard), as BGRA sprites.
    if kde_decks:
        import cv2

        from controller.rules.cards import full_deck
        from controller.sim.render import card_art
        from vision.common import vision_label

        for deck in TRAIN_DECKS:
            if deck is None:
                continue
            faces, back, source = card_art(deck, (CARD_H * 2 // 3, CARD_H))
            if source == "programmatic":
                continue  # the deck did not render: its stand-in cards are not art
            for card in full_deck():
                out[vision_label(str(card))].append(cv2.cvtColor(faces[str(card)], cv2.COLOR_BGRA2RGBA))
            out["BACK"].append(cv2.cvtColor(back, cv2.COLOR_BGRA2RGBA))
    # Extra procedural backs (Bicycle-like red/blue, plain patterns), a few per colour.
    rng = np.random.default_rng(123)
    for _ in range(8):
        out["BACK"].append(_procedural_back(rng))
    return out


def _procedural_back(rng: np.random.Generator) -> np.ndarray:
    import cv2

    h, w = CARD_H, CARD_H * 2 // 3
    col = np.array(rng.choice([(170, 30, 35), (30, 50, 150), (20, 90, 40), (20, 20, 20), (120, 30, 110)]), np.float32)
    img = np.full((h, w, 3), 245, np.float32)
    m = int(rng.integers(6, 16))
    inner = np.full((h - 2 * m, w - 2 * m, 3), col, np.float32)
    yy, xx = np.mgrid[0 : h - 2 * m, 0 : w - 2 * m]
    period = rng.uniform(6, 14)
    pat = (np.sin((xx + yy) / period * np.pi) * np.sin((xx - yy) / period * np.pi)) > rng.uniform(-0.3, 0.3)
    inner[pat] = inner[pat] * 0.55 + 255 * 0.45
    img[m : h - m, m : w - m] = inner
    if rng.random() < 0.5:
        cv2.ellipse(img, (w // 2, h // 2), (w // 5, h // 7), 0, 0, 360, (245, 245, 245), 2)
    alpha = np.full((h, w), 255, np.uint8)
    rad = 12
    for cy, cx in ((rad, rad), (rad, w - rad), (h - rad, rad), (h - rad, w - rad)):
        sub = np.zeros_like(alpha)
        cv2.circle(sub, (cx, cy), rad, 255, -1)
        ys = slice(0, rad) if cy == rad else slice(h - rad, h)
        xs = slice(0, rad) if cx == rad else slice(w - rad, w)
        alpha[ys, xs] = sub[ys, xs]
    return np.dstack([img.astype(np.uint8), alpha])


def random_background(rng: np.random.Generator, size: int) -> np.ndarray:
    """Felt, cloth, wood or plain surfaces with low-frequency shading and noise (float32 RGB 0-255)."""
    import cv2

    kind = rng.choice(["felt", "felt", "wood", "plain", "speckle"])
    if kind == "felt":
        base = np.array(
            rng.choice([(30, 110, 60), (20, 90, 45), (25, 70, 120), (120, 25, 30), (40, 40, 45)]), np.float32
        )
        base = base * rng.uniform(0.6, 1.4)
    elif kind == "wood":
        base = np.array((rng.uniform(90, 170), rng.uniform(55, 110), rng.uniform(25, 60)), np.float32)
    else:
        base = np.array(rng.uniform(20, 235, 3), np.float32)
    img = np.ones((size, size, 3), np.float32) * base
    # fine noise (felt fibre) and low-frequency blotches
    img += rng.normal(0, rng.uniform(2, 10), (size, size, 1)).astype(np.float32)
    low = cv2.resize(rng.normal(0, 1, (8, 8)).astype(np.float32), (size, size), interpolation=cv2.INTER_CUBIC)
    img *= (1 + 0.12 * low)[..., None]
    if kind == "wood":
        yy = np.arange(size, dtype=np.float32)[:, None]
        grain = np.sin(
            yy / rng.uniform(3, 12) + 3 * cv2.resize(rng.normal(0, 1, (4, 16)).astype(np.float32), (size, size))
        )
        img *= (1 + 0.12 * grain)[..., None]
        if rng.random() < 0.5:
            img = np.ascontiguousarray(np.rot90(img))
    if kind == "speckle":
        sp = rng.random((size, size)) < 0.08
        img[sp] = rng.uniform(0, 255, 3).astype(np.float32)
        img = cv2.GaussianBlur(img, (3, 3), 0)
    if rng.random() < 0.3:  # painted betting line / ring on felt
        c = tuple(float(v) for v in rng.uniform(150, 255, 3))
        cv2.circle(
            img, tuple(int(v) for v in rng.integers(0, size, 2)), int(rng.integers(40, 200)), c, int(rng.integers(2, 6))
        )
    return np.clip(img, 0, 255)


def _chip(rng: np.random.Generator, d: int, colour: tuple[int, int, int]) -> np.ndarray:
    """A casino chip seen from above (or slightly oblique): RGBA."""
    import cv2

    img = np.zeros((d, d, 4), np.uint8)
    c = (d // 2, d // 2)
    col = tuple(int(v) for v in colour)
    cv2.circle(img, c, d // 2 - 1, (*col, 255), -1)
    stripe = (245, 245, 245, 255) if sum(col) < 600 else (30, 60, 190, 255)
    n = int(rng.choice([4, 6, 8]))
    for k in range(n):
        a0 = 360 / n * k + rng.uniform(0, 10)
        cv2.ellipse(img, c, (d // 2 - 1, d // 2 - 1), 0, a0, a0 + 360 / n / 2.5, stripe, max(2, d // 9))
    cv2.circle(img, c, int(d * 0.32), (*[min(255, int(v * 1.1) + 20) for v in col], 255), -1)
    cv2.circle(img, c, int(d * 0.32), stripe, max(1, d // 40))
    sx = rng.uniform(0.75, 1.0)
    img = cv2.resize(img, (d, max(4, int(d * sx))))
    return img


def foil_stock(card_rgba: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The card printed on metallic stock (gold or silver foil): its light, unsaturated paper replaced by a grainy
    metal colour with a sheen, its ink kept. Some decks are foil; the photo sets show one."""
    import cv2

    rgb = card_rgba[..., :3].astype(np.float32)
    h, w = rgb.shape[:2]
    # how much of each pixel is paper: bright and grey (soft, so the ink's anti-aliased edges stay)
    bright = np.clip((rgb.min(axis=2) - 150) / 60, 0, 1)
    grey = np.clip(1 - (rgb.max(axis=2) - rgb.min(axis=2) - 25) / 40, 0, 1)
    paper = (bright * grey)[..., None]
    gold = rng.random() < 0.8
    metal = np.array((225, 185, 95) if gold else (200, 200, 205), np.float32) * rng.uniform(0.8, 1.1, 3)
    grain = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), rng.uniform(0.6, 1.5))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = rng.uniform(0, np.pi)
    sheen = 1 + rng.uniform(0.1, 0.35) * np.sin((xx * np.cos(angle) + yy * np.sin(angle)) / max(h, w) * np.pi * 2
                                                 + rng.uniform(0, 2 * np.pi))
    foil = metal * (sheen * (1 + rng.uniform(0.05, 0.15) * grain))[..., None]
    out = card_rgba.copy()
    out[..., :3] = np.clip(rgb * (1 - paper) + foil * paper, 0, 255).astype(np.uint8)
    return out


def _warp_rgba(tex: np.ndarray, quad: np.ndarray, size: int) -> np.ndarray:
    import cv2

    h, w = tex.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    return cv2.warpPerspective(
        tex, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0
    )


def _card_quad(rng: np.random.Generator, cx: float, cy: float, hgt: float, aspect: float, tilt: float,
               angle: float | None = None) -> np.ndarray:
    ang = rng.uniform(0, 2 * np.pi) if angle is None else angle
    w = hgt * aspect
    pts = np.array([[-w / 2, -hgt / 2], [w / 2, -hgt / 2], [w / 2, hgt / 2], [-w / 2, hgt / 2]])
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
    pts = pts @ rot.T
    # perspective: shrink far side (camera tilt) along a random axis, plus corner jitter
    pts[:, 1] *= 1 - tilt * 0.5
    pts[:, 0] *= 1 + tilt * (pts[:, 1] / max(hgt, 1)) * 0.6
    pts += rng.normal(0, hgt * 0.015, pts.shape)
    return pts + [cx, cy]


def _piles(rng: np.random.Generator, n_cards: int, size: int, card_height: float,
           ) -> list[tuple[float, float, float, str | None, int]]:
    """Where each card of a pile scene lies, bottom card first: (cx, cy, angle, label or None for a random one, the
    pile's number). Piles of 2-5 cards are added until ``n_cards`` (at least 2) are placed or 14 are (the last pile
    may go beyond ``n_cards``: the scene draws as many cards as this returns); each card is shifted from the one
    under it by about 3-30 % of a card's height in the pile's direction and turned a few degrees; 60 % of the piles
    are all backs (a stud hand face down)."""
    cards: list[tuple[float, float, float, str | None, int]] = []
    pile = 0
    while len(cards) < max(n_cards, 2):
        count = int(rng.integers(2, 6))
        cx, cy = rng.uniform(0.12, 0.88, 2) * size
        angle = rng.uniform(0, 2 * np.pi)
        heading = rng.uniform(0, 2 * np.pi)
        step = rng.uniform(0.03, 0.30) * card_height
        backs = rng.random() < 0.6
        for k in range(count):
            shift = (k - (count - 1) / 2) * step
            cards.append((cx + shift * np.cos(heading) + rng.normal(0, 1.5), cy + shift * np.sin(heading)
                          + rng.normal(0, 1.5), angle + rng.normal(0, np.radians(3)), "BACK" if backs else None, pile))
        pile += 1
        if len(cards) >= 14:
            break
    return cards


def _stacks(rng: np.random.Generator, size: int, card_height: float,
            ) -> list[tuple[float, float, float, str | None, int]]:
    """Where each card of a stack scene lies, bottom card first, as ``_piles`` gives it: 1-2 stacks of 6-20 backs of
    one design, each card off the stack's square by a normal draw (1.5 % of a card's height, 2 degrees), one in four
    sticking out by 6-35 % of a card's height and up to 10 degrees more; then 0-5 loose cards anywhere (drawn on top
    of the stacks)."""
    cards: list[tuple[float, float, float, str | None, int]] = []
    n_stacks = int(rng.integers(1, 3))
    for stack in range(n_stacks):
        cx, cy = rng.uniform(0.2, 0.8, 2) * size
        angle = rng.uniform(0, 2 * np.pi)
        for _ in range(int(rng.integers(6, 21))):
            dx, dy = rng.normal(0, 0.015 * card_height, 2)
            turn = rng.normal(0, np.radians(2))
            if rng.random() < 0.25:  # a card sticking out of the stack
                heading = rng.uniform(0, 2 * np.pi)
                out = rng.uniform(0.06, 0.35) * card_height
                dx, dy = dx + out * np.cos(heading), dy + out * np.sin(heading)
                turn += rng.uniform(-1, 1) * np.radians(10)
            cards.append((cx + dx, cy + dy, angle + turn, "BACK", stack))
    for loose in range(int(rng.integers(0, 6))):
        cx, cy = rng.uniform(0.05, 0.95, 2) * size
        cards.append((cx, cy, rng.uniform(0, 2 * np.pi), None, n_stacks + loose))
    return cards


def make_scene(
    rng: np.random.Generator,
    tex: dict[str, list[np.ndarray]],
    size: int = 640,
    n_cards: int | None = None,
    n_chips: int | None = None,
    pile_share: float | None = None,
    stack_share: float | None = None,
):
    """Return (uint8 RGB image, [(label, (x1, y1, x2, y2))]). ``n_cards`` / ``n_chips`` override the random counts;
    ``pile_share`` and ``stack_share`` the module's ``PILE_SHARE`` and ``STACK_SHARE``."""
    import cv2

    img = random_background(rng, size)
    objs: list[tuple[str, np.ndarray]] = []  # (label, alpha mask of the object)
    owner = np.full((size, size), -1, np.int32)  # which object is visible at each pixel
    r = rng.random()
    if n_cards is None:
        n_cards = 0 if r < 0.06 else int(rng.integers(1, 4)) if r < 0.5 else int(rng.integers(4, 15))
    if n_chips is None:
        n_chips = int(rng.integers(0, 7)) if rng.random() < 0.5 else 0
    tilt = rng.uniform(0, 0.35)
    scale = rng.uniform(0.08, 0.22) if n_cards > 3 else rng.uniform(0.12, 0.65)
    # layout: grid / row (stud table) or scattered
    layout = rng.choice(["row", "grid", "scatter"])
    cols = max(1, int(np.ceil(np.sqrt(max(n_cards, 1)))))
    # where the layout's span starts and how long it is, in image widths (x) and heights (y)
    if rng.random() < LAYOUT_OVERFLOW_SHARE:
        x0, y0 = rng.uniform(-0.25, 0.05, 2)
        x_span, y_span = rng.uniform(0.95, 1.3, 2) - [x0, y0]
    else:  # inside the frame (a row's height in the image is drawn per card below, not from y0)
        x0, x_span = (0.1, 0.8) if layout == "row" else (0.12, 0.76)
        y0, y_span = 0.12, 0.76
    piled = None
    pile_backs: dict[int, np.ndarray] = {}  # one back design per pile or stack
    pile_share = PILE_SHARE if pile_share is None else pile_share
    if pile_share > 0 and rng.random() < pile_share:
        piled_height = size * rng.uniform(0.12, 0.35)  # a pile's cards are one deck: one size
        piled = _piles(rng, n_cards, size, piled_height)
    stack_share = STACK_SHARE if stack_share is None else stack_share
    # stack_share is tested before rng.random() is drawn, and only outside pile scenes: earlier seeds stay as drawn
    stacked = piled is None and stack_share > 0 and rng.random() < stack_share
    if stacked:
        piled_height = size * rng.uniform(0.12, 0.3)
        piled = _stacks(rng, size, piled_height)
    if piled is not None:
        n_cards = len(piled)
    placed = []
    for i in range(n_cards):
        hgt = size * scale * rng.uniform(0.85, 1.15)
        angle = None
        if piled is not None:  # its plan overrides the height and (below) the label drawn for every card, drawn all
            # the same so that a pile scene's other draws stay those of the table detector's data (--seed 11)
            cx, cy, angle, pile_label, pile = piled[i]
            size_jitter = rng.uniform(0.97, 1.03)  # drawn in stack scenes too, where a deck is one size
            hgt = piled_height * (1.0 if stacked else size_jitter)
        elif layout == "scatter" or n_cards <= 2:
            # some cards lie across the image's edge: photos cut them, and their boxes end at the edge
            spread = (-0.15, 1.15) if rng.random() < EDGE_CUT_SHARE else (0.1, 0.9)
            cx, cy = rng.uniform(*spread, 2) * size
        elif layout == "row":
            cx = size * (x0 + x_span * (i + 0.5) / n_cards) + rng.normal(0, 5)
            cy = size * rng.uniform(0.3, 0.7) if i == 0 else placed[-1][1] + rng.normal(0, hgt * 0.1)
        else:
            cx = size * (x0 + x_span * ((i % cols) + 0.5) / cols) + rng.normal(0, 4)
            cy = size * (y0 + y_span * ((i // cols) + 0.5) / cols) + rng.normal(0, 4)
        placed.append((cx, cy))
        label = "BACK" if rng.random() < 0.22 else ("JOKER" if rng.random() < 0.01 else CARDS[int(rng.integers(52))])
        if piled is not None and pile_label:
            label = pile_label
        choices = tex[label]
        t = choices[int(rng.integers(len(choices)))]
        if piled is not None and label == "BACK":
            t = pile_backs.setdefault(pile, t)  # one deck per pile: one back design
        if label != "BACK" and rng.random() < FOIL_SHARE:
            t = foil_stock(t, rng)
        aspect = t.shape[1] / t.shape[0]
        quad = _card_quad(rng, cx, cy, hgt, aspect, tilt, angle)
        warped = _warp_rgba(t, quad, size)
        if rng.random() < 0.5:  # paper tint / slightly off-white stock
            warped[..., :3] = np.clip(warped[..., :3].astype(np.float32) * rng.uniform(0.85, 1.0, 3), 0, 255).astype(
                np.uint8
            )
        a = warped[..., 3:4].astype(np.float32) / 255
        if rng.random() < 0.6:  # soft drop shadow
            sh = cv2.GaussianBlur(
                np.roll(a[..., 0], (int(rng.integers(1, 6)), int(rng.integers(1, 6))), (0, 1)), (9, 9), 0
            )
            img *= 1 - 0.35 * sh[..., None]
        img = img * (1 - a) + warped[..., :3].astype(np.float32) * a
        owner[a[..., 0] > 0.5] = len(objs)
        objs.append((label, a[..., 0] > 0.5))
    for _ in range(n_chips):
        cname = list(CHIP_COLOURS)[int(rng.integers(len(CHIP_COLOURS)))]
        d = int(size * rng.uniform(0.04, 0.12))
        ch = _chip(rng, d, CHIP_COLOURS[cname])
        x0, y0 = (int(v) for v in rng.integers(0, size - d, 2))
        full = np.zeros((size, size, 4), np.uint8)
        full[y0 : y0 + ch.shape[0], x0 : x0 + ch.shape[1]] = ch
        a = full[..., 3:4].astype(np.float32) / 255
        img = img * (1 - a) + full[..., :3].astype(np.float32) * a
        owner[a[..., 0] > 0.5] = len(objs)
        objs.append((cname, a[..., 0] > 0.5))
    # occluders (hand/sleeve-like blobs) over part of the scene
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.3 else 0):
        col = rng.choice([(200, 150, 120), (120, 80, 60), (40, 40, 50), (230, 200, 180)])
        m = np.zeros((size, size), np.uint8)
        cv2.ellipse(
            m,
            tuple(int(v) for v in rng.integers(0, size, 2)),
            (int(rng.integers(30, 120)), int(rng.integers(20, 70))),
            float(rng.uniform(0, 180)),
            0,
            360,
            255,
            -1,
        )
        a = cv2.GaussianBlur(m, (7, 7), 0).astype(np.float32)[..., None] / 255
        img = img * (1 - a) + np.array(col, np.float32) * a
        owner[m > 127] = -1
    # lighting: gradient, colour cast, glare
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    g = 1 + rng.uniform(-0.35, 0.35) * (xx - 0.5) + rng.uniform(-0.35, 0.35) * (yy - 0.5)
    img *= g[..., None] * rng.uniform(0.55, 1.25) * rng.uniform(0.88, 1.12, 3)
    if rng.random() < 0.3:
        gx, gy = rng.uniform(0, 1, 2)
        img += (
            120 * rng.uniform(0.3, 1) * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / rng.uniform(0.002, 0.02))[..., None]
        )
    if rng.random() < 0.5:
        k = int(rng.choice([3, 5]))
        img = cv2.GaussianBlur(img, (k, k), 0)
    img += rng.normal(0, rng.uniform(1, 7), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", img[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 95))])
    img = cv2.imdecode(enc, cv2.IMREAD_COLOR)[..., ::-1]
    boxes = []
    for i, (label, _) in enumerate(objs):
        vis = owner == i
        if vis.sum() < 60:
            continue
        ys, xs = np.where(vis)
        if stacked and i < n_cards and piled[i][3] == "BACK":  # a stack's card: is more than its edge showing?
            widest = 2 * cv2.distanceTransform(vis.astype(np.uint8), cv2.DIST_L2, 3).max()
            if widest < STACK_MIN_WIDTH * piled_height:
                continue
        boxes.append((label, (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))))
    return np.ascontiguousarray(img), boxes


def generate(out: Path, n: int, seed: int, size: int = 640, pile_share: float = PILE_SHARE,
             stack_share: float = STACK_SHARE) -> None:
    from PIL import Image

    t0 = time.time()
    print("loading card textures ...", flush=True)
    tex = build_textures()
    print(f"textures: {sum(len(v) for v in tex.values())} ({len(tex['BACK'])} backs)", flush=True)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        img, boxes = make_scene(rng, tex, size, pile_share=pile_share, stack_share=stack_share)
        name = f"s{seed}_{i:05d}"
        Image.fromarray(img).save(out / "images" / f"{name}.jpg", quality=92)
        lines = []
        for label, (x1, y1, x2, y2) in boxes:
            c = det_class(label)
            lines.append(
                f"{c} {(x1 + x2) / 2 / size:.6f} {(y1 + y2) / 2 / size:.6f} "
                f"{(x2 - x1) / size:.6f} {(y2 - y1) / size:.6f}"
            )
            rows.append([f"images/{name}.jpg", label, f"{x1:.1f}", f"{y1:.1f}", f"{x2:.1f}", f"{y2:.1f}"])
        (out / "labels" / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
        if (i + 1) % 25 == 0 or i + 1 == n:
            el = time.time() - t0
            print(f"  {i + 1}/{n} scenes, {el:.0f}s elapsed, ~{el / (i + 1) * (n - i - 1):.0f}s left", flush=True)
    with open(out / "manifest.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "label", "x1", "y1", "x2", "y2"])
        w.writerows(rows)
    print(f"wrote {n} scenes, {len(rows)} objects -> {out}", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m training.synth", description=__doc__)
    ap.add_argument("--out", type=Path, default=BUILD / "synth")
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", type=int, default=640)
    ap.add_argument("--pile-share", type=float, default=PILE_SHARE,
                    help="share of scenes whose cards lie in piles of 2-5, slightly shifted (default: none)")
    ap.add_argument("--stack-share", type=float, default=STACK_SHARE,
                    help="share of the scenes not in piles with a thick stack of backs, some cards sticking out "
                         "(default: none)")
    a = ap.parse_args(argv)
    for flag, share in (("--pile-share", a.pile_share), ("--stack-share", a.stack_share)):
        if not 0 <= share <= 1:
            ap.error(f"{flag} {share}: a share from 0 to 1")
    generate(a.out, a.n, a.seed, a.size, a.pile_share, a.stack_share)


if __name__ == "__main__":
    sys.exit(main())
