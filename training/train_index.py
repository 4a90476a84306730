"""Trains the index reader (``vision.index_reader``) in torch and exports it to ONNX for the table.

    python -m training.train_index train --data build/vision/render/index_crops.npz --minutes 25
    python -m training.train_index export      # models/card_index.pt -> models/card_index.onnx

The network, its checkpoint and its export are ``training.index_net``'s.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from controller.shutdown import exit_cleanly_when_interrupted, written_since
from training.index_net import MODEL_PATH, build_net, export, net_probabilities
from training.synth import FOIL_SHARE, foil_stock
from vision.index_reader import INDEX_CLASSES, INDEX_SIZE, ONNX_PATH, RANK_MM, REGION_MM

#: share of training corners cut across by the photo's edge beyond their rank
CUT_SHARE = 0.25


def cut_corner(rng: np.random.Generator, crop: np.ndarray) -> np.ndarray:
    """``crop`` as the photo reader's ``corner_crops`` makes it of a card that the photo's edge cuts across beyond
    its rank (``cut_across``): a straight edge, its normal anywhere from up-right to down-left (beyond those the
    only part of the crop it could cut is the margin above or left of the card), anywhere between the furthest
    point of the rank and the card's corner along that normal and the crop's furthest corner. Under perspective or
    a squeezed photo the real repeat runs along the photo's axes, not quite across the edge: close enough here."""
    slant = rng.uniform(-np.pi / 4, 3 * np.pi / 4)
    normal = np.array([np.cos(slant), np.sin(slant)])
    px_per_mm = crop.shape[1] / (REGION_MM[2] - REGION_MM[0])

    def furthest(x0: float, y0: float, x1: float, y1: float) -> float:
        """The rectangle's (mm on the card) furthest corner along the normal, in crop pixels from its top-left."""
        corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) - REGION_MM[:2]
        return float((corners * px_per_mm @ normal).max())

    kept = max(furthest(*RANK_MM), furthest(0.0, 0.0, 0.0, 0.0))  # the rank and the card's corner
    return cut_across(crop, slant, rng.uniform(kept, furthest(*REGION_MM)))


def cut_across(crop: np.ndarray, slant: float, line: float) -> np.ndarray:
    """``crop`` cut by a straight photo edge: the line whose normal is at ``slant`` radians from the crop's x axis
    (towards the part cut off), ``line`` crop pixels along it from the crop's top-left. Beyond it each pixel
    repeats the one at its foot on the line, as ``training.photo.card_corners.area_warp`` repeats the photo's edge
    pixels."""
    h, w = crop.shape[:2]
    normal = np.array([np.cos(slant), np.sin(slant)])
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    beyond = np.maximum((xs + 0.5) * normal[0] + (ys + 0.5) * normal[1] - line, 0)  # at pixel centres
    map_x, map_y = (xs - beyond * normal[0]).astype(np.float32), (ys - beyond * normal[1]).astype(np.float32)
    return cv2.remap(crop, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _augment(rng: np.random.Generator, crop: np.ndarray, cut_share: float = 0.0) -> np.ndarray:
    """Cut by the photo's edge (``cut_share`` of the crops), foil stock, light, shift, blur, resolution and noise;
    never mirrored, hardly rotated (the crop is rectified)."""
    if rng.random() < cut_share:
        crop = cut_corner(rng, crop)
    h, w = crop.shape[:2]
    if rng.random() < FOIL_SHARE:
        crop = foil_stock(np.dstack([crop, np.full((h, w), 255, np.uint8)]), rng)[..., :3]
    m = cv2.getRotationMatrix2D((w / 2, h / 2), rng.normal(0, 2), rng.uniform(0.94, 1.06))
    m[:, 2] += rng.normal(0, 1.5, 2)
    out = cv2.warpAffine(crop, m, (w, h), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    out = out * rng.uniform(0.6, 1.3) * rng.uniform(0.88, 1.12, 3) + rng.uniform(-25, 25)
    if rng.random() < 0.4:
        out = cv2.GaussianBlur(out, (3, 3), rng.uniform(0.3, 1.0))
    if rng.random() < 0.4:  # a camera further away, or a smaller frame
        k = rng.uniform(0.45, 0.8)
        small = cv2.resize(out, (max(8, int(w * k)), max(8, int(h * k))), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    out += rng.normal(0, rng.uniform(0, 7), out.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


#: label of a corner crop that shows no index (``training.photo_corners``): trained towards an even reading
NOT_INDEX = -1
#: how much a corner without an index weighs in the loss, against a labelled corner's 1
NOT_INDEX_WEIGHT = 0.5
LABEL_SMOOTHING = 0.05


def load_crops(data: list[Path], rng: np.random.Generator):
    """Every data set's crops, labels, monitor mask, box ids and source index. The four corners of one photographed
    box share one id (unique across the sets); rendered crops have none (-1). A set without a ``monitor`` array
    holds out a random tenth."""
    xs, ys, monitors, boxes, sources = [], [], [], [], []
    next_id = 0
    for k, path in enumerate(data):
        loaded = np.load(path)
        n = len(loaded["y"])
        xs.append(loaded["x"])
        ys.append(loaded["y"])
        monitors.append(loaded["monitor"].astype(bool) if "monitor" in loaded else rng.permutation(n) < n // 10)
        ids = loaded["box"] if "box" in loaded else np.full(n, -1)
        boxes.append(np.where(ids >= 0, ids + next_id, -1))
        if (ids >= 0).any():
            next_id += int(ids.max()) + 1
        sources.append(np.full(n, k))
    return (np.concatenate(xs), np.concatenate(ys), np.concatenate(monitors), np.concatenate(boxes),
            np.concatenate(sources))


def cut_monitor_crops(x: np.ndarray, seed: int = 0) -> np.ndarray:
    """The monitor's crops, each cut by ``cut_corner`` (the same cuts at every call)."""
    rng = np.random.default_rng(seed)
    return np.stack([cut_corner(rng, crop) for crop in x]) if len(x) else x


class Monitor(NamedTuple):
    """A reader's accuracies on held-out crops, each None where there is nothing to score."""

    crops: float | None  # over the labelled crops
    boxes: float | None  # over the photographed boxes read as the photo reader reads them (the surer corner pair)
    cut: float | None  # over the labelled crops cut by the photo's edge beyond their rank (``cut_monitor_crops``)


def score_monitor(net, x: np.ndarray, y: np.ndarray, box: np.ndarray) -> Monitor:
    from training.photo.card_corners import index_probabilities

    p = net_probabilities(net, x)
    labelled = y >= 0
    crop_accuracy = float((p[labelled].argmax(1) == y[labelled]).mean()) if labelled.any() else None
    cut_accuracy = None
    if labelled.any():
        cut = net_probabilities(net, cut_monitor_crops(x[labelled]))
        cut_accuracy = float((cut.argmax(1) == y[labelled]).mean())
    right = total = 0
    for b in np.unique(box[box >= 0]):
        members = np.flatnonzero(box == b)  # the four corners, in rotation order
        truth = y[members][y[members] >= 0]
        if len(members) != 4 or not len(truth):
            continue
        right += int(index_probabilities(p[members]).argmax() == truth[0])
        total += 1
    return Monitor(crop_accuracy, right / total if total else None, cut_accuracy)


def _figure(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def index_loss(logits, y):
    """Cross-entropy against a smoothed one-hot for a labelled corner, against the even reading (weight
    ``NOT_INDEX_WEIGHT``) for a corner without an index; averaged over the batch."""
    import torch
    import torch.nn.functional as F

    classes = logits.shape[1]
    labelled = y >= 0
    targets = torch.full_like(logits, 1.0 / classes)
    targets[labelled] = F.one_hot(y[labelled], classes).float() * (1 - LABEL_SMOOTHING) + LABEL_SMOOTHING / classes
    weights = torch.where(labelled, 1.0, NOT_INDEX_WEIGHT)
    return (weights * F.cross_entropy(logits, targets, reduction="none")).mean()


def train(data: list[Path], minutes: float, seed: int, out: Path, init: Path | None = None,
          max_lr: float = 2e-3, cut_share: float = CUT_SHARE, threads: int = 2) -> float:
    """Trains until ``minutes`` have passed (a cosine learning rate over that time) and keeps the epoch whose
    monitors score best (the mean over the data sets; a photographed set scores its boxes; the cut crops are shown,
    not scored). Returns that score."""
    from controller.progress import Progress

    with Progress() as progress:  # each epoch's batches on stderr, where it is a terminal
        return _train(data, minutes, seed, out, init, max_lr, cut_share, threads, progress)


def _train(data: list[Path], minutes: float, seed: int, out: Path, init: Path | None, max_lr: float,
           cut_share: float, threads: int, progress) -> float:
    import torch

    from controller.progress import clock

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    progress.phase("loading the crops")
    x, y, held_out, box, source = load_crops(data, rng)
    train_idx = np.flatnonzero(~held_out)
    print(f"index crops: {len(train_idx)} train ({int((y[train_idx] == NOT_INDEX).sum())} without an index), "
          f"{int(held_out.sum())} monitor, {len(set(y[y >= 0].tolist()))} classes", flush=True)
    net = build_net()
    if init is not None:  # a second cycle from a trained reader
        net.load_state_dict({k: v.float() for k, v in torch.load(init, weights_only=False)["state_dict"].items()})
        print(f"initialised from {init}", flush=True)
    opt = torch.optim.AdamW(net.parameters(), lr=max_lr, weight_decay=5e-4)
    started = time.time()
    budget = minutes * 60
    best, epoch = -1.0, 0
    while epoch == 0 or time.time() - started < budget:
        epoch += 1
        net.train()
        perm = rng.permutation(train_idx)
        seen = correct = 0
        starts = range(0, max(1, len(perm) - 63), 64)
        progress.bar(f"epoch {epoch}, {clock(max(0.0, budget - (time.time() - started)))} of the time budget left",
                     len(starts), unit="batches", keep=False)  # the epoch's printed line replaces it
        for k in starts:
            frac = min(1.0, (time.time() - started) / budget)
            for group in opt.param_groups:
                group["lr"] = max_lr * (frac / 0.05 if frac < 0.05 else 0.5 * (1 + math.cos(math.pi * frac)))
            batch = perm[k:k + 64]
            augmented = np.stack([_augment(rng, x[i], cut_share) for i in batch])
            xb = torch.from_numpy(augmented).permute(0, 3, 1, 2).float().div(255)
            yb = torch.from_numpy(y[batch]).long()
            logits = net(xb)
            loss = index_loss(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            labelled = yb >= 0
            seen += int(labelled.sum())
            correct += int((logits[labelled].argmax(1) == yb[labelled]).sum())
            progress.advance()
        progress.describe(f"epoch {epoch}: scoring the monitor")
        net.eval()
        scores, report = [], []
        for k, path in enumerate(data):
            members = held_out & (source == k)
            monitor = score_monitor(net, x[members], y[members], box[members])
            score = monitor.boxes if monitor.boxes is not None else monitor.crops
            if score is not None:
                scores.append(score)
            name = f"{path.parent.name}/{path.name}"
            report.append(f"{name} crops {_figure(monitor.crops)} boxes {_figure(monitor.boxes)} "
                          f"cut crops {_figure(monitor.cut)}")
        accuracy = float(np.mean(scores)) if scores else 0.0  # nothing held out: the last epoch is kept
        progress.end()
        print(f"epoch {epoch}: train {correct / max(seen, 1):.3f} monitor {accuracy:.3f} ({'; '.join(report)}) "
              f"({time.time() - started:.0f}s)", flush=True)
        if accuracy >= best:
            best = accuracy
            state = {k: v.half() if v.is_floating_point() else v for k, v in net.state_dict().items()}
            torch.save({"state_dict": state, "classes": INDEX_CLASSES, "size": INDEX_SIZE,
                        "meta": {"epoch": epoch, "monitor_accuracy": accuracy, "monitor": report,
                                 "data": [str(p) for p in data], "cut_share": cut_share}}, out)
    print(f"best monitor accuracy {best:.3f} -> {out}", flush=True)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train_index")
    sub = parser.add_subparsers(dest="command", required=True)
    command = sub.add_parser("train", help="train the reader in torch (then run: export)")
    command.add_argument("--data", type=Path, nargs="+", default=[Path("build/vision/render/index_crops.npz")])
    command.add_argument("--minutes", type=float, default=25)
    command.add_argument("--seed", type=int, default=0)
    command.add_argument("--out", type=Path, default=MODEL_PATH)
    command.add_argument("--init", type=Path, help="start from this reader (a second training cycle)")
    command.add_argument("--max-lr", type=float, default=2e-3)
    command.add_argument("--cut-share", type=float, default=CUT_SHARE,
                         help=f"share of corners cut by the photo's edge beyond the rank (default {CUT_SHARE})")
    command.add_argument("--threads", type=int, default=2,
                         help="torch's CPU threads (1 each for two trainings side by side on 2 cores)")
    exporting = sub.add_parser("export", help="export a trained checkpoint to ONNX, as the table runs it")
    exporting.add_argument("--weights", type=Path, default=MODEL_PATH)
    exporting.add_argument("--out", type=Path, default=ONNX_PATH)
    args = parser.parse_args(argv)
    if args.command == "export":
        try:
            print(f"exported to {export(args.weights, args.out)}")
        except (FileNotFoundError, ValueError) as error:  # no checkpoint there, or one of other classes
            parser.error(str(error))
        return 0

    def work() -> None:
        train(args.data, args.minutes, args.seed, args.out, args.init, args.max_lr, args.cut_share, args.threads)

    kept = written_since(time.time(), args.out)  # each better epoch is written there as it comes
    return exit_cleanly_when_interrupted(parser.prog, work, kept)  # Ctrl-C or SIGTERM: one line, no traceback


if __name__ == "__main__":
    sys.exit(main())
