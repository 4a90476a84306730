"""Score the card reader on a labelled manifest (image,label,x1,y1,x2,y2).

    python -m training.photo.evaluate --manifest ../shared/realcards/ScottJJosh-PokerSensei/manifest.csv --json
    python -m training.photo.evaluate --manifest ... \
        --exclude ../shared/realcards/ScottJJosh-PokerSensei-train/val_overlap.csv

Boxed rows: predictions are matched one-to-one to labelled boxes, greedily by IoU (>= 0.5). Image-level rows (empty
box) compare multisets of labels. ``JOKER`` rows are not scored but absorb a matching prediction (not a false card).
A suit ``?`` (e.g. ``K?``) is scored on rank only.

``--errata FILE`` scores against corrected labels: each row of FILE (image,label,x1,y1,x2,y2,corrected,seen) names
one manifest row, by its image, label and box, and the label it should have (``models/val_label_errata.csv`` lists
the validation set's, each with what the photo shows). A row that names nothing in the manifest is an error.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from controller.errors import StudTableError
from training.data import Row, read_manifest
from vision.common import CARDS, MODELS, split_card

#: the photo reader's weights, all read from one folder (``--models``)
READER_FILES = ("card_detector.pt", "card_identifier.pt", "card_index.pt")


def box_iou(a, b) -> float:
    """Intersection over union of two (x1, y1, x2, y2) boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0


def is_face(label: str) -> bool:
    return label in CARDS or (label.endswith("?") and split_card(label)[0] in {split_card(c)[0] for c in CARDS})


def _exclusions(exclude) -> set[str]:
    """Image names to skip: a CSV path (columns ``val_image`` or ``image``) or an iterable of names."""
    if exclude is None:
        return set()
    if isinstance(exclude, str | Path):
        with open(exclude, newline="") as f:
            rows = list(csv.DictReader(f))
        col = "val_image" if rows and "val_image" in rows[0] else "image"
        return {r[col].strip() for r in rows}
    return {str(e) for e in exclude}


class ErrataError(StudTableError, ValueError):
    """An errata file that does not fit its manifest."""


def apply_errata(manifest: dict[str, list[Row]], errata_path) -> int:
    """Relabel, in place, the manifest rows that ``errata_path`` corrects (excluded images' rows too); returns how
    many. Raises ErrataError (which line, why) for a row that names no manifest row, a box that is not four numbers
    or none, or a correction to an unknown label."""
    with open(errata_path, newline="") as f:
        records = list(csv.DictReader(f))
    for line, rec in enumerate(records, start=2):
        where = f"{errata_path}, line {line}"
        image, label, corrected = ((rec.get(k) or "").strip() for k in ("image", "label", "corrected"))
        if corrected not in CARDS and corrected not in ("BACK", "JOKER"):
            raise ErrataError(f"{where}: corrected label {corrected!r} is not a card, BACK or JOKER")
        coords = [(rec.get(k) or "").strip() for k in ("x1", "y1", "x2", "y2")]
        if any(coords) and not all(coords):
            raise ErrataError(f"{where}: give all four of x1,y1,x2,y2 (a boxed row) or none (an image-level row)")
        try:
            box = tuple(float(c) for c in coords) if all(coords) else None
        except ValueError:
            raise ErrataError(f"{where}: the box {','.join(coords)} is not four numbers") from None
        rows = manifest.get(image, [])
        for i, row in enumerate(rows):
            if box is None or row.box is None:
                same_box = box is row.box
            else:
                same_box = max(abs(a - b) for a, b in zip(box, row.box, strict=True)) < 0.5
            if row.label == label and same_box:
                rows[i] = Row(row.image, corrected, row.box)
                break
        else:
            raise ErrataError(f"{where}: no row {label} at {box} for image {image!r} in the manifest")
    return len(records)


def evaluate_manifest(
    manifest_path,
    exclude=None,
    reader=None,
    images_root=None,
    iou: float = 0.5,
    limit: int | None = None,
    details: bool = False,
    errata=None,
    progress: Callable[[int, int], None] | None = None,
    counts: Counter | None = None,
) -> dict:
    """Run the reader on every image of the manifest and score it.

    ``exclude``: a CSV (``val_overlap.csv``: its ``val_image`` column; else an ``image`` column) or image names.
    ``errata``: a CSV of label corrections (``apply_errata``).
    ``progress``: called with (images read, images to read), before the first and after each.
    ``counts``: a Counter that receives every count behind the figures (``faces_correct``, ``faces_suit_known``...).
    Returns card_accuracy, rank_accuracy, suit_accuracy, back_recall, chip_recall, face_detection_recall,
    false_cards_per_image, images, and the counts behind them.
    """
    if reader is None:
        from training.photo.identify import CardReader

        reader = CardReader()
    manifest_path = Path(manifest_path)
    root = Path(images_root) if images_root else manifest_path.parent
    man = read_manifest(manifest_path)
    corrected = apply_errata(man, errata) if errata else 0
    skip = _exclusions(exclude)
    names = [n for n in sorted(man) if n not in skip and Path(n).name not in skip]
    if limit:
        names = names[:limit]
    c = counts if counts is not None else Counter()
    errors: list[dict] = []
    t0 = time.time()
    if progress is not None:
        progress(0, len(names))
    for done, name in enumerate(names, start=1):
        rows = man[name]
        preds = reader.read(root / name)
        pcards = [p for p in preds if p.label != "CHIP"]
        boxed = [r for r in rows if r.box is not None]
        used: set[int] = set()
        pairs = sorted(
            ((box_iou(r.box, p.box), gi, pi) for gi, r in enumerate(boxed) for pi, p in enumerate(preds)), reverse=True
        )
        match: dict[int, int] = {}
        for v, gi, pi in pairs:
            if v < iou:
                break
            if gi in match or pi in used:
                continue
            match[gi] = pi
            used.add(pi)
        for gi, r in enumerate(boxed):
            p = preds[match[gi]] if gi in match else None
            got = p.label if p else None
            if is_face(r.label):
                rank, suit = split_card(r.label)
                c["faces"] += 1
                c["faces_detected"] += p is not None
                ok_rank = got is not None and is_face(got) and split_card(got)[0] == rank
                ok = ok_rank if suit == "?" else got == r.label
                c["faces_correct"] += ok
                c["faces_rank_correct"] += ok_rank
                if suit != "?":
                    c["faces_suit_known"] += 1
                    c["faces_suit_correct"] += got is not None and is_face(got) and split_card(got)[1] == suit
                if not ok:
                    errors.append({"image": name, "label": r.label, "got": got})
            elif r.label == "BACK":
                c["backs"] += 1
                c["backs_found"] += got == "BACK"
                if got != "BACK":
                    errors.append({"image": name, "label": r.label, "got": got})
            elif r.label.startswith("CHIP"):
                c["chips"] += 1
                c["chips_found"] += got == "CHIP"
        # predicted cards (faces or backs) not matched to any labelled box
        # image-level rows: multisets (unmatched predictions may stand for them)
        img_level = [r.label for r in rows if r.box is None]
        unmatched = sum(1 for pi, p in enumerate(preds) if p.label != "CHIP" and pi not in used)
        n_img_cards = sum(1 for lab in img_level if not lab.startswith("CHIP"))
        c["false_cards"] += max(0, unmatched - n_img_cards)
        if img_level:
            want = Counter(img_level)
            have = Counter(p.label for p in pcards)
            have_rank = Counter(split_card(p.label)[0] for p in pcards if is_face(p.label))
            for lab, n in want.items():
                if is_face(lab):
                    rank, suit = split_card(lab)
                    c["faces"] += n
                    if suit == "?":
                        hit = min(n, have_rank[rank])
                    else:
                        hit = min(n, have[lab])
                        c["faces_suit_known"] += n
                        c["faces_suit_correct"] += hit
                    c["faces_correct"] += hit
                    c["faces_detected"] += hit
                    c["faces_rank_correct"] += min(n, have_rank[rank])
                elif lab == "BACK":
                    c["backs"] += n
                    c["backs_found"] += min(n, have["BACK"])
                elif lab.startswith("CHIP"):
                    c["chips"] += n
                    c["chips_found"] += min(n, sum(1 for p in preds if p.label == "CHIP"))
        c["images"] += 1
        if progress is not None:
            progress(done, len(names))

    def ratio(a: str, b: str) -> float | None:
        return round(c[a] / c[b], 4) if c[b] else None

    out = {
        "card_accuracy": ratio("faces_correct", "faces"),
        "rank_accuracy": ratio("faces_rank_correct", "faces"),
        "suit_accuracy": ratio("faces_suit_correct", "faces_suit_known"),
        "face_detection_recall": ratio("faces_detected", "faces"),
        "back_recall": ratio("backs_found", "backs"),
        "chip_recall": ratio("chips_found", "chips"),
        "false_cards_per_image": round(c["false_cards"] / c["images"], 4) if c["images"] else None,
        "images": c["images"],
        "faces": c["faces"],
        "backs": c["backs"],
        "chips": c["chips"],
        "false_cards": c["false_cards"],
        "excluded_images": len(man) - len(names) if not limit else None,
        "corrected_labels": corrected,
        "seconds_per_image": round((time.time() - t0) / max(1, c["images"]), 3),
    }
    if details:
        out["errors"] = errors
    return out


class _MemoReader:
    """Reads each image once (for reporting several subsets of one manifest)."""

    def __init__(self, reader) -> None:
        self.reader, self.memo = reader, {}

    def read(self, path):
        key = str(path)
        if key not in self.memo:
            self.memo[key] = self.reader.read(path)
        return self.memo[key]


def main(argv: Iterable[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m training.photo.evaluate", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--exclude", default=None, help="CSV of images to skip (val_overlap.csv: its val_image column)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--details", action="store_true", help="include every misread card")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--both", action="store_true", help="report all images and without --exclude (one pass)")
    ap.add_argument("--errata", default=None, help="CSV of label corrections (image,label,x1,y1,x2,y2,corrected,seen)")
    ap.add_argument("--models", type=Path, default=MODELS,
                    help=f"folder of the reader's weights ({', '.join(READER_FILES)}; default: models/)")
    ap.add_argument("--quiet", action="store_true", help="no progress on stderr (shown only where it is a terminal)")
    a = ap.parse_args(list(argv) if argv is not None else None)
    missing = [name for name in READER_FILES if not (a.models / name).is_file()]
    if missing:  # said before any model is loaded or image read
        what = "not a folder" if not a.models.is_dir() else f"no {', '.join(missing)}"
        print(f"eval-vision: {a.models}: {what}", file=sys.stderr)
        return 2
    if a.errata:
        try:  # a wrong errata file is said before any image is read
            apply_errata(read_manifest(a.manifest), a.errata)
        except (ErrataError, OSError) as e:
            print(f"eval-vision: {e}", file=sys.stderr)
            return 2
    from controller.progress import Progress, print_report

    with Progress(enabled=not a.quiet) as progress:  # on stderr, where it is a terminal
        progress.phase(f"loading the card reader from {a.models}")
        from training.photo.identify import CardReader

        try:
            card_reader = CardReader(models=a.models)
        except Exception as e:  # weights that are not this code's reader's, or no weights at all
            progress.fail()
            print(f"eval-vision: the reader in {a.models} cannot be loaded: {type(e).__name__}: {e}", file=sys.stderr)
            return 2

        def read_photos(text: str):
            progress.phase(text)
            return lambda done, total: progress.update(done, total, unit="images")

        runs: dict[str, tuple[dict, Counter]] = {}
        if a.both:
            reader = _MemoReader(card_reader)
            for key, exclude, text in (("all", None, "reading the photos"),
                                       ("excluding", a.exclude, "scoring without the excluded (already read)")):
                counts: Counter = Counter()
                res = evaluate_manifest(a.manifest, exclude, reader=reader, limit=a.limit, details=a.details,
                                        errata=a.errata, progress=read_photos(text), counts=counts)
                runs[key] = res, counts
        else:
            counts = Counter()
            res = evaluate_manifest(a.manifest, a.exclude, reader=card_reader, limit=a.limit, details=a.details,
                                    errata=a.errata, progress=read_photos("reading the photos"), counts=counts)
            runs[""] = res, counts
    if a.json:
        print(json.dumps({key: res for key, (res, _) in runs.items()} if a.both else runs[""][0], indent=2))
    else:
        titles = {"": "the photos", "all": "all photos", "excluding": "without excluded"}
        print_report(*evaluation_report({titles[key]: run for key, run in runs.items()}, a.manifest, read_once=a.both))
    return 0


def evaluation_report(runs: dict[str, tuple[dict, Counter]], manifest=None, read_once: bool = False) -> list:
    """``eval-vision``'s plain report: a table of the figures, each with its value and how many it counts, per run
    (``runs``: a title for each, and what ``evaluate_manifest`` returned with its ``counts``), then the misread
    cards where listed. ``read_once``: the runs after the first scored photos the first read (no reading time)."""
    from rich.text import Text

    from controller.progress import clock, report_table

    several = len(runs) > 1
    columns = ["figure"]
    for title in runs:
        columns += [title, "of how many"] if several else ["value", "of how many"]
    table = report_table(None, *columns)
    table.columns[0].no_wrap = True
    for column in table.columns[1::2]:
        column.no_wrap = True
    for column in table.columns[2::2]:
        column.justify = "left"

    def row(figure: str, unit: str, cell: Callable[[dict, Counter, bool], tuple[str, str]]) -> None:
        cells: list[str] = []
        for index, (res, c) in enumerate(runs.values()):
            value, count = cell(res, c, read_once and index > 0)
            cells += [value, f"{count} {unit}".rstrip() if count else ""]
        table.add_row(figure, *cells)

    def ratio(hits: str, of: str) -> Callable[[dict, Counter, bool], tuple[str, str]]:
        return lambda res, c, reused: (f"{c[hits] / c[of]:.1%}" if c[of] else "-", f"{c[hits]:,} of {c[of]:,}")

    row("Cards read right", "face-up cards", ratio("faces_correct", "faces"))
    row("Ranks read right", "face-up cards", ratio("faces_rank_correct", "faces"))
    row("Suits read right", "cards of a known suit", ratio("faces_suit_correct", "faces_suit_known"))
    row("Face-up cards detected", "face-up cards", ratio("faces_detected", "faces"))
    row("Backs found", "backs", ratio("backs_found", "backs"))
    row("Chips found", "chips", ratio("chips_found", "chips"))
    row("False cards", "images", lambda res, c, reused: (
        "-" if res["false_cards_per_image"] is None else f"{res['false_cards_per_image']:.2f} per image",
        f"{c['false_cards']:,} in {c['images']:,}"))
    row("Photos scored", "", lambda res, c, reused: (
        f"{res['images']:,}", "" if res["excluded_images"] is None else f"{res['excluded_images']:,} left out"))
    row("Labels corrected", "", lambda res, c, reused: (f"{res['corrected_labels']:,}", "by the errata"))
    row("Reading time", "", lambda res, c, reused: ("read above", "") if reused else (
        f"{res['seconds_per_image']:.3f} s per image", clock(res["seconds_per_image"] * res["images"]) + " in all"))
    out: list = ([Text(f"The card reader on {manifest}", style="bold")] if manifest else []) + [table]
    for title, (res, _) in runs.items():
        if "errors" not in res:
            continue
        misread = report_table(f"Misread cards{f', {title}' if several else ''} ({len(res['errors']):,})",
                               "photo", "label", "read as")
        for e in res["errors"]:
            misread.add_row(e["image"], e["label"], e["got"] or "nothing")
        out.append(misread)
    return out


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["box_iou", "evaluate_manifest", "evaluation_report"]
