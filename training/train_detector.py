"""Reproducible training commands for the card/chip vision models.

Steps (each prints progress; run long ones under ``nice -n 19``)::

    python -m training.synth --out build/vision/synth --n 400 --seed 1           # synthetic scenes (detector)
    python -m training.train_detector prep-detector --synth build/vision/synth   # YOLO dataset (train photos + synth)
    python -m training.train_detector detector --epochs 40 --imgsz 320           # -> models/card_detector.pt
    python -m training.train_detector identifier --epochs 30                     # -> models/card_identifier.pt

Never uses the validation folder (ScottJJosh-PokerSensei/) for training.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from controller.shutdown import exit_cleanly_when_interrupted, written_since
from training.data import BUILD, TRAIN_DIR, det_class, read_manifest
from vision.common import DET_CLASSES, MODELS

# A back whose box is this thin (photo pixels) is a sliver: a card under others in a pile, or cut by the edge.
SLIVER_PX = 35


def has_sliver_back(rows: list, sliver_px: float = SLIVER_PX) -> bool:
    return any(r.label.upper() == "BACK" and r.box is not None
               and min(r.box[2] - r.box[0], r.box[3] - r.box[1]) < sliver_px for r in rows)


def prep_detector(synth: list[Path], out: Path, hold_out_scenes: bool = True, sliver_repeats: int = 1) -> Path:
    """Write a YOLO detection dataset: the train photos (+ synthetic scenes) as train, and a monitor ("val") that
    ultralytics keeps its best epoch by. With ``hold_out_scenes`` the monitor is the train photos' held-out scenes
    (``training.photo_corners.held_out_photos``), which are then not trained on; without it, one photo in
    thirteen, trained on too. A train photo with a sliver of a back (``has_sliver_back``: few in
    the set, and the detector misses them) is listed ``sliver_repeats`` times, so training sees it that much
    more often."""
    from PIL import Image

    from training.photo_corners import held_out_photos

    if sliver_repeats < 1:
        raise ValueError(f"sliver_repeats must be at least 1, not {sliver_repeats}")
    if out.exists():
        shutil.rmtree(out)
    for sub in ("images/train", "labels/train", "images/val", "labels/val"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    man = read_manifest(TRAIN_DIR / "manifest.csv")
    names = sorted(man)
    held_out = held_out_photos(TRAIN_DIR, man)
    for i, img in enumerate(names):
        src = TRAIN_DIR / img
        w, h = Image.open(src).size
        lines = []
        for r in man[img]:
            c = det_class(r.label)
            if c is None or r.box is None:
                continue
            x1, y1, x2, y2 = r.box
            lines.append(f"{c} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
        stem = Path(img).stem
        if hold_out_scenes:
            splits = ["val"] if img in held_out else ["train"]
        else:
            splits = ["train"] + (["val"] if i % max(1, len(names) // 40) == 0 else [])
        label_text = "\n".join(lines) + ("\n" if lines else "")
        for sp in splits:
            copies = sliver_repeats if sp == "train" and has_sliver_back(man[img]) else 1
            for k in range(copies):
                name = stem if k == 0 else f"{stem}_again{k}"
                dst = out / "images" / sp / f"{name}.jpg"
                if not dst.exists():
                    dst.symlink_to(src.resolve())
                (out / "labels" / sp / f"{name}.txt").write_text(label_text)
    n_syn = 0
    for sd in synth:
        for p in sorted((sd / "images").glob("*.jpg")):
            lab = sd / "labels" / f"{p.stem}.txt"
            (out / "images/train" / f"syn_{sd.name}_{p.name}").symlink_to(p.resolve())
            shutil.copy(lab, out / "labels/train" / f"syn_{sd.name}_{p.stem}.txt")
            n_syn += 1
    yaml = out / "data.yaml"
    yaml.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\nnames:\n"
        + "".join(f"  {i}: {n}\n" for i, n in enumerate(DET_CLASSES))
    )
    n_val = len(list((out / "images/val").iterdir()))
    print(f"detector dataset: {len(names)} photos ({n_val} monitor) + {n_syn} synthetic -> {yaml}", flush=True)
    return yaml


def write_monitor_manifest(out: Path, shares: int = 1) -> int:
    """A manifest (the real sets' format, absolute image paths) of the train photos' held-out scenes: with
    ``shares`` 1, those that ``prep-detector`` and every reader leave out of training; with more, also scenes the
    committed detector and identifier trained on (for comparing two index readers trained alike without them).
    ``stud-table eval-vision --manifest`` then scores the whole photo reader on real photos that are not the
    validation set. Returns the number of images."""
    import csv

    from training.photo_corners import held_out_photos

    man = read_manifest(TRAIN_DIR / "manifest.csv")
    held_out = sorted(held_out_photos(TRAIN_DIR, man, shares))
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["image", "label", "x1", "y1", "x2", "y2"])
        for image in held_out:
            for row in man[image]:
                writer.writerow([str((TRAIN_DIR / image).resolve()), row.label, *(row.box or ("", "", "", ""))])
    return len(held_out)


def train_detector(args: argparse.Namespace) -> None:
    from ultralytics import YOLO, settings

    settings.update({"sync": False})
    data = BUILD / "det" / "data.yaml"
    model = YOLO(args.model) if args.resume_from is None else YOLO(args.resume_from)
    project = BUILD / "runs"
    t0 = time.time()
    model.train(
        data=str(data),
        epochs=args.epochs,
        time=args.hours,  # when set, ultralytics fits the epochs (and the learning-rate schedule) into this time
        imgsz=args.imgsz,
        batch=args.batch,
        device="cpu",
        workers=2,
        project=str(project),
        name=args.name,
        exist_ok=True,
        plots=False,
        # ultralytics 8.4 trains a model it loaded from a checkpoint from fresh weights unless pretrained is set
        pretrained=args.resume_from is not None,
        amp=False,
        seed=args.seed,
        deterministic=False,
        fliplr=0.0,
        flipud=0.0,
        degrees=10.0,
        mosaic=1.0,
        close_mosaic=args.close_mosaic if args.close_mosaic is not None else max(1, args.epochs // 8),
        optimizer=args.optimizer,  # "auto" picks its own learning rate and ignores lr0
        scale=0.5,
        translate=0.1,
        hsv_h=0.02,
        hsv_s=0.6,
        hsv_v=0.4,
        cos_lr=True,
        lr0=args.lr0,
        # a fine-tuning run starts without warm-up (its bias learning rate of 0.1 would undo the trained weights)
        warmup_epochs=min(3, args.epochs // 5) if args.resume_from is None else 0,
        patience=1000,
        cache=True,
        save_period=1,
        verbose=True,
    )
    w = project / args.name / "weights"
    best = w / "best.pt" if args.keep == "best" and (w / "best.pt").exists() else w / "last.pt"
    MODELS.mkdir(exist_ok=True)
    out = Path(args.out)
    export_slim(best, out)
    print(f"detector trained in {time.time() - t0:.0f}s -> {out}", flush=True)


def export_slim(src: Path, dst: Path) -> None:
    """Copy an ultralytics checkpoint without optimizer state (fp16 EMA weights only)."""
    from ultralytics.utils.torch_utils import strip_optimizer

    tmp = dst.with_suffix(".tmp.pt")
    shutil.copy(src, tmp)
    strip_optimizer(str(tmp))
    tmp.replace(dst)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.train_detector")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep-detector")
    p.add_argument("--synth", type=Path, nargs="*", default=[])
    p.add_argument("--sliver-repeats", type=int, default=1,
                   help="list each train photo with a sliver of a back this many times (1: once, as the others)")
    p.add_argument("--monitor-trained-on", action="store_true",
                   help="monitor on photos also trained on (one in thirteen) instead of held-out scenes")
    p = sub.add_parser("monitor-manifest", help="write the held-out train scenes as a manifest for eval-vision")
    p.add_argument("--out", type=Path, default=BUILD / "held_out_scenes.csv")
    p.add_argument("--shares", type=int, default=1,
                   help="held-out scenes in 8 (1: the scenes no reader trains on; more: a larger set for comparing "
                        "two readers trained alike without them)")
    p = sub.add_parser("detector")
    p.add_argument("--model", default="yolo11n.yaml")
    p.add_argument("--resume-from", default=None)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--imgsz", type=int, default=320)
    p.add_argument("--hours", type=float, default=None, help="wall-time budget (overrides --epochs)")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--out", default=str(MODELS / "card_detector.pt"),
                   help="where to write the weights (the table's detector: models/table_detector.pt)")
    p.add_argument("--lr0", type=float, default=0.01)
    p.add_argument("--optimizer", default="auto", help="ultralytics' optimizer (auto ignores --lr0)")
    p.add_argument("--close-mosaic", type=int, default=None, help="last epochs without mosaic (default epochs/8)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default="det")
    p.add_argument("--keep", choices=("best", "last"), default="best",
                   help="the epoch to keep: the best on the monitor, or the last (when the monitor cannot judge)")
    p = sub.add_parser("identifier")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--synth-per-class", type=int, default=60)
    p.add_argument("--size", type=int, default=96)
    p.add_argument("--minutes", type=float, default=1e9, help="stop after this wall time (keeps the best so far)")
    p.add_argument("--init", default=None, help="start from this identifier checkpoint (fine-tune)")
    p.add_argument("--max-lr", type=float, default=3e-3)
    p.add_argument("--out", default=None, help="where to write the weights (default models/card_identifier.pt)")
    p.add_argument("--kde-decks", action="store_true", help="add the KDE decks of training.render_data to the art")
    p.add_argument("--edge-cut", type=float, default=None,
                   help="share of crops cut by the photo's edge (default identifier_train.EDGE_CUT_SHARE)")
    a = ap.parse_args(argv)
    out = (a.out or MODELS / "card_identifier.pt") if a.cmd == "identifier" else getattr(a, "out", None)
    kept = written_since(time.time(), out)  # the identifier's training writes its best epoch there as it goes
    return exit_cleanly_when_interrupted(ap.prog, lambda: _run(ap, a), kept)  # Ctrl-C: one line, no traceback


def _run(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    if a.cmd == "prep-detector":
        try:
            prep_detector(a.synth, BUILD / "det", hold_out_scenes=not a.monitor_trained_on,
                          sliver_repeats=a.sliver_repeats)
        except ValueError as error:
            ap.error(str(error))
    elif a.cmd == "monitor-manifest":
        try:
            print(f"{write_monitor_manifest(a.out, a.shares)} held-out train photos -> {a.out}")
        except ValueError as error:
            ap.error(str(error))
    elif a.cmd == "detector":
        train_detector(a)
    elif a.cmd == "identifier":
        from training.train_identifier import train_identifier

        train_identifier(a)
    else:  # pragma: no cover
        sys.exit(2)


if __name__ == "__main__":
    sys.exit(main())
