"""Training of the card identifier: a small CNN on square crops around each card box (52 faces + BACK + JOKER).

Data: crops of the real train photos (ScottJJosh-PokerSensei-train, boxes from its manifest) and crops of synthetic
cards (aisleriot SVG decks, geaxgx faces) warped onto random backgrounds, both with heavy photometric / geometric
augmentation (any rotation, perspective, blur, noise, colour casts), never mirrored.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from training.data import ID_CLASSES, TRAIN_DIR, read_manifest
from training.photo.identify import CROP, KINDS, SUITS, IdentifierNet, card_probs, square_crop, targets
from vision.common import MODELS

STORE = 160  # stored crop side; training samples a random crop/rotation and resizes to CROP


def _real_crops(margin: float = 1.25) -> tuple[np.ndarray, np.ndarray, list[str]]:
    from PIL import Image

    man = read_manifest(TRAIN_DIR / "manifest.csv")
    xs, ys, srcs = [], [], []
    for img in sorted(man):
        arr = None
        for r in man[img]:
            if r.box is None or r.label not in ID_CLASSES:
                continue
            if arr is None:
                arr = np.asarray(Image.open(TRAIN_DIR / img).convert("RGB"))
            xs.append(square_crop(arr, r.box, STORE, margin))
            ys.append(ID_CLASSES.index(r.label))
            srcs.append(img)
    return np.stack(xs), np.array(ys), srcs


#: share of training crops whose card is cut by the photo's edge (``cut_by_the_edge``)
EDGE_CUT_SHARE = 0.15
#: how much of the card such a cut keeps, as a share of the card's side (photos cut cards down to 20-30 % slivers)
EDGE_CUT_KEPT = (0.2, 0.75)


def cut_by_the_edge(rng: np.random.Generator, crop: np.ndarray) -> np.ndarray:
    """The crop ``square_crop`` makes of a card cut by the photo's edge: the card ends at a line across it, the
    crop is centred on the part seen, and beyond the line the photo's last column is repeated (``square_crop``'s
    border). The line is placed as if the card filled the middle 1/1.25 of ``crop``, ``EDGE_CUT_KEPT`` of it kept; after
    ``_augment``'s turn, scale and shift that is only roughly so. The columns the centring brings in on the other
    side repeat the crop's first column (a real crop shows more of the photo there)."""
    side = crop.shape[1]
    turns = int(rng.integers(4))  # which edge of the photo cuts the card
    out = np.rot90(crop, turns).copy()
    card = side / 1.25
    start = (side - card) / 2
    cut = int(start + rng.uniform(*EDGE_CUT_KEPT) * card)
    shift = int(round(side / 2 - (start + cut) / 2))
    out = np.roll(out, shift, axis=1)
    out[:, :shift] = out[:, shift:shift + 1]  # (the roll brought the far side's pixels round to the left)
    out[:, cut + shift:] = out[:, cut + shift - 1:cut + shift]
    return np.rot90(out, -turns).copy()


def turned_crop(crop: np.ndarray, angle: float, scale: float, pivot_shift: tuple[float, float]) -> np.ndarray:
    """A stored STORE^2 crop (the box with 1.25x context) as a CROP^2 crop, turned by ``angle`` degrees and scaled
    by ``scale`` about its centre moved by ``pivot_shift`` stored pixels. Shrunk by area averaging first, as
    ``square_crop`` cuts its crops (``training.photo.card_corners.area_warp``): a warp alone samples bilinearly,
    and fine print aliases."""
    import cv2

    small = cv2.resize(crop, (CROP, CROP), interpolation=cv2.INTER_AREA)
    f = CROP / STORE
    # the crop's centre is between its two middle pixels, (CROP - 1) / 2 (as INTER_AREA and area_warp count)
    pivot = ((CROP - 1) / 2 + pivot_shift[0] * f, (CROP - 1) / 2 + pivot_shift[1] * f)
    m = cv2.getRotationMatrix2D(pivot, angle, scale)
    return cv2.warpAffine(small, m, (CROP, CROP), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _augment(rng: np.random.Generator, crop: np.ndarray, strong: bool, edge_cut: float = 0.0) -> np.ndarray:
    """Random rotation (any angle), scale jitter, shift, perspective, colour, blur, noise, and for ``edge_cut`` of
    the crops a cut by the photo's edge. Input STORE^2 -> CROP^2."""
    import cv2

    ang = rng.uniform(0, 360)
    sc = rng.uniform(0.85, 1.12)
    out = turned_crop(crop, ang, sc, (rng.normal(0, 4), rng.normal(0, 4)))
    if strong and rng.random() < 0.5:
        d = CROP * 0.08
        src = np.float32([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]])
        dst = (src + rng.uniform(-d, d, src.shape)).astype(np.float32)
        out = cv2.warpPerspective(
            out, cv2.getPerspectiveTransform(src, dst), (CROP, CROP), borderMode=cv2.BORDER_REFLECT
        )
    if rng.random() < edge_cut:
        out = cut_by_the_edge(rng, out)
    f = out.astype(np.float32)
    f = f * rng.uniform(0.6, 1.35) * rng.uniform(0.85, 1.15, 3) + rng.uniform(-25, 25)
    if rng.random() < 0.3:  # desaturate
        g = f.mean(axis=2, keepdims=True)
        f = f * 0.5 + g * 0.5
    if rng.random() < 0.4:
        k = int(rng.choice([3, 5]))
        f = cv2.GaussianBlur(f, (k, k), 0)
    if rng.random() < 0.3:  # downscale-upscale (small, far cards)
        r = rng.uniform(0.35, 0.7)
        small = cv2.resize(f, (max(8, int(CROP * r)),) * 2, interpolation=cv2.INTER_AREA)
        f = cv2.resize(small, (CROP, CROP), interpolation=cv2.INTER_LINEAR)
    f += rng.normal(0, rng.uniform(0, 8), f.shape)
    return np.clip(f, 0, 255).astype(np.uint8)


def _synth_crops(
    rng: np.random.Generator, tex: dict[str, list[np.ndarray]], per_class: int
) -> tuple[np.ndarray, np.ndarray]:
    """Cards warped onto a random background patch, as STORE^2 crops with the same framing as the real crops."""
    import cv2

    from training.synth import FOIL_SHARE, foil_stock, random_background

    xs, ys = [], []
    bg_pool = [random_background(rng, 320) for _ in range(24)]
    for ci, lab in enumerate(ID_CLASSES):
        pool = tex.get(lab, [])
        if not pool:
            continue
        n = per_class if lab != "JOKER" else per_class // 3
        for _ in range(n):
            t = pool[int(rng.integers(len(pool)))]
            if lab != "BACK" and rng.random() < FOIL_SHARE:
                t = foil_stock(t, rng)
            bg = bg_pool[int(rng.integers(len(bg_pool)))]
            x0, y0 = rng.integers(0, 320 - 200, 2)
            canvas = bg[y0 : y0 + 200, x0 : x0 + 200].copy()
            h, w = t.shape[:2]
            hgt = rng.uniform(110, 150)
            wid = hgt * w / h * rng.uniform(0.85, 1.1)
            ang = rng.uniform(0, 2 * np.pi)
            pts = np.array([[-wid / 2, -hgt / 2], [wid / 2, -hgt / 2], [wid / 2, hgt / 2], [-wid / 2, hgt / 2]])
            rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
            pts = pts @ rot.T + 100 + rng.normal(0, hgt * 0.03, (4, 2))
            mtx = cv2.getPerspectiveTransform(np.float32([[0, 0], [w, 0], [w, h], [0, h]]), pts.astype(np.float32))
            war = cv2.warpPerspective(t, mtx, (200, 200)).astype(np.float32)
            a = war[..., 3:4] / 255
            if rng.random() < 0.5:
                war[..., :3] *= rng.uniform(0.85, 1.0, 3)
            canvas = canvas * (1 - a) + war[..., :3] * a
            if rng.random() < 0.25:  # partial occlusion by another card edge / object
                col = rng.uniform(0, 255, 3)
                cx, cy = rng.integers(0, 200, 2)
                cv2.circle(canvas, (int(cx), int(cy)), int(rng.integers(15, 40)), tuple(float(c) for c in col), -1)
            ys_, xs_ = np.where(a[..., 0] > 0.5)
            box = (xs_.min(), ys_.min(), xs_.max() + 1, ys_.max() + 1)
            xs.append(square_crop(np.clip(canvas, 0, 255).astype(np.uint8), box, STORE, 1.25))
            ys.append(ci)
    return np.stack(xs), np.array(ys)


def train_identifier(args: argparse.Namespace) -> None:
    from controller.progress import Progress

    with Progress() as progress:  # phases and each epoch's batches on stderr, where it is a terminal
        _train_identifier(args, progress)


def _train_identifier(args: argparse.Namespace, progress) -> None:
    import torch
    import torch.nn.functional as F

    from controller.progress import clock
    from training.synth import build_textures

    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(args.seed)
    t0 = time.time()
    progress.phase("cutting the real crops from the train photos")
    rx, ry, srcs = _real_crops()  # cut afresh each time (not cached), so that they are cut as the reader cuts them
    print(f"real crops: {len(rx)} from {len(set(srcs))} train photos ({time.time() - t0:.0f}s)", flush=True)
    progress.phase("drawing the synthetic crops")
    tex = build_textures(kde_decks=getattr(args, "kde_decks", False))
    sx, sy = _synth_crops(rng, tex, args.synth_per_class)
    print(f"synthetic crops: {len(sx)} ({time.time() - t0:.0f}s)", flush=True)
    # hold out ~8% of the real train photos (by image) to monitor generalisation / pick the best epoch
    uniq = sorted(set(srcs))
    hold = set(uniq[i] for i in rng.permutation(len(uniq))[: max(1, len(uniq) // 12)])
    hmask = np.array([s in hold for s in srcs])
    tx = np.concatenate([rx[~hmask], sx])
    ty = np.concatenate([ry[~hmask], sy])
    is_real = np.concatenate([np.ones((~hmask).sum(), bool), np.zeros(len(sx), bool)])
    vx, vy = rx[hmask], ry[hmask]
    print(
        f"train {len(tx)} (real {is_real.sum()}), monitor {len(vx)} real crops from {len(hold)} held-out photos",
        flush=True,
    )
    progress.phase("augmenting the monitor's crops")
    vrng = np.random.default_rng(7)
    vxa = np.stack([_augment(vrng, c, False) for c in vx]) if len(vx) else np.zeros((0, CROP, CROP, 3), np.uint8)
    # the same monitor crops as cards cut by the photo's edge: what the edge-cut training crops are for
    vxc = np.stack([_augment(vrng, c, False, edge_cut=1.0) for c in vx]) if len(vx) else vxa

    model = IdentifierNet()
    if getattr(args, "init", None):  # fine-tune from a saved identifier (a second, shorter cosine cycle)
        ck = torch.load(args.init, map_location="cpu", weights_only=False)
        model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in ck["state_dict"].items()})
        print(f"initialised from {args.init} ({ck.get('meta')})", flush=True)
    tk_all, ts_all = targets(ty)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=5e-4)
    # real crops are sampled twice as often as synthetic ones
    wts = np.where(is_real, 2.0, 1.0)
    wts /= wts.sum()
    steps_per_epoch = max(1, int(len(tx) / 64))
    MODELS.mkdir(exist_ok=True)
    best = -1.0
    dst = Path(getattr(args, "out", None) or MODELS / "card_identifier.pt")
    # The learning rate follows a cosine over the wall-time budget (or over the epochs, whichever ends first),
    # so a run cut short by the clock still ends with a low learning rate.
    t_start = time.time()
    budget = args.minutes * 60
    max_lr, warm = getattr(args, "max_lr", 3e-3), 0.05
    edge_cut = EDGE_CUT_SHARE if getattr(args, "edge_cut", None) is None else args.edge_cut
    progress.end()
    for ep in range(args.epochs):
        text = f"epoch {ep + 1}/{args.epochs}"
        if ep:  # the time left in all: the epochs to come at the pace so far, or the time budget if it ends first
            elapsed = time.time() - t_start
            text += f", about {clock(min(elapsed / ep * (args.epochs - ep), max(0.0, budget - elapsed)))} left in all"
        progress.bar(text, steps_per_epoch, unit="batches", keep=False)  # the epoch's printed line replaces it
        model.train()
        tl, tc, tn = 0.0, 0, 0
        for k in range(steps_per_epoch):
            frac = max((time.time() - t_start) / budget, (ep + k / steps_per_epoch) / args.epochs)
            lr = max_lr * (frac / warm if frac < warm else 0.5 * (1 + np.cos(np.pi * min(1.0, frac))) + 0.01)
            for g in opt.param_groups:
                g["lr"] = lr
            idx = rng.choice(len(tx), 64, p=wts)
            xb = np.stack([_augment(rng, tx[i], True, edge_cut) for i in idx])
            xb_t = torch.from_numpy(xb).permute(0, 3, 1, 2).float().div(255)
            yb = torch.from_numpy(ty[idx]).long()
            tk = torch.from_numpy(tk_all[idx]).long()
            ts = torch.from_numpy(ts_all[idx]).long()
            out = model(xb_t)
            nk = len(KINDS)
            loss = F.cross_entropy(out[:, :nk], tk, label_smoothing=0.05)
            if (ts >= 0).any():
                loss = loss + F.cross_entropy(out[:, nk:], ts, ignore_index=-100, label_smoothing=0.05)
            out = card_probs(out)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += float(loss.detach()) * len(idx)
            tc += int((out.argmax(1) == yb).sum())
            tn += len(idx)
            progress.advance()
        progress.describe(f"epoch {ep + 1}/{args.epochs}: scoring the monitor")
        acc, acc_cut = _accuracy(model, vxa, vy), _accuracy(model, vxc, vy)
        progress.end()
        print(
            f"epoch {ep + 1}/{args.epochs} lr {lr:.5f} loss {tl / tn:.3f} train-acc {tc / tn:.3f} "
            f"monitor-acc {acc:.3f} cut-by-the-edge {acc_cut:.3f} ({time.time() - t0:.0f}s)",
            flush=True,
        )
        if acc >= best:
            best = acc
            save_identifier(model, dst, {"epoch": ep + 1, "monitor_acc": acc, "monitor_cut_acc": acc_cut})
        if time.time() - t_start > budget:
            print("time budget reached; stopping", flush=True)
            break
    print(f"identifier: best monitor acc {best:.3f}; trained in {time.time() - t0:.0f}s -> {dst}", flush=True)


def _accuracy(model, x: np.ndarray, y: np.ndarray) -> float:
    import torch

    if len(x) == 0:
        return 0.0
    model.eval()
    with torch.no_grad():
        p = torch.cat(
            [
                card_probs(model(torch.from_numpy(x[i : i + 128]).permute(0, 3, 1, 2).float().div(255))).argmax(1)
                for i in range(0, len(x), 128)
            ]
        )
    return float((p.numpy() == y).mean())


def save_identifier(model, path: Path, meta: dict) -> None:
    import torch

    sd = {k: v.half() if v.is_floating_point() else v for k, v in model.state_dict().items()}
    ck = {"state_dict": sd, "classes": ID_CLASSES, "kinds": KINDS, "suits": SUITS, "crop": CROP, "meta": meta}
    torch.save(ck, path)
