"""Read cards and chips in an image: YOLO detector (card_face / card_back / chip) + crop identifier (rank and suit).

    from training.photo.identify import CardReader
    reader = CardReader()     # loads models/card_detector.pt, card_identifier.pt and card_index.pt (corners)
    for det in reader.read("photo.jpg"):      # or an RGB numpy array
        print(det.label, det.box, det.confidence)

Labels: the 52 cards (``AS``, ``10H``, ...), ``BACK``, ``JOKER``, ``CHIP``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from training.data import ID_CLASSES
from training.photo.card_corners import area_warp
from vision.common import DET_CLASSES, MODELS, RANKS, SUITS, split_card
from vision.index_reader import INDEX_CLASSES

CROP = 96  # identifier input side
# The identifier has two heads: the kind (13 ranks, BACK, JOKER) and the suit (4); P(card) = P(rank) * P(suit).
KINDS = RANKS + ["BACK", "JOKER"]


def targets(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ID_CLASSES indices -> (kind index, suit index or -100 for BACK/JOKER)."""
    kind, suit = np.zeros(len(y), np.int64), np.full(len(y), -100, np.int64)
    for i, c in enumerate(y):
        lab = ID_CLASSES[int(c)]
        if lab in ("BACK", "JOKER"):
            kind[i] = KINDS.index(lab)
        else:
            r, s = split_card(lab)
            kind[i], suit[i] = KINDS.index(r), SUITS.index(s)
    return kind, suit


def card_probs(logits):
    """Network output (N x 19) -> probabilities over ID_CLASSES (N x 54), a torch tensor."""
    import torch

    nk = len(KINDS)
    pk = torch.softmax(logits[:, :nk], 1)
    ps = torch.softmax(logits[:, nk:], 1)
    cols = []
    for lab in ID_CLASSES:
        if lab in ("BACK", "JOKER"):
            cols.append(pk[:, KINDS.index(lab)])
        else:
            r, s = split_card(lab)
            cols.append(pk[:, KINDS.index(r)] * ps[:, SUITS.index(s)])
    return torch.stack(cols, 1)


def square_crop(img: np.ndarray, box, out: int, margin: float = 1.25) -> np.ndarray:
    """Square crop centred on ``box`` (x1, y1, x2, y2), side ``margin * max(w, h)``, resized to ``out``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1, 4.0) * margin
    scale = side / out  # photo px per crop px
    crop_to_photo = np.array([[scale, 0, (x1 + x2 - side) / 2], [0, scale, (y1 + y2 - side) / 2], [0, 0, 1]])
    return area_warp(img, crop_to_photo, (out, out))


def _net(num_classes: int):
    import torch.nn as nn

    def block(cin: int, cout: int, stride: int) -> nn.Module:
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.SiLU(inplace=True),
            nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
            nn.BatchNorm2d(cout),
            nn.SiLU(inplace=True),
        )

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 16, 3, 2, 1, bias=False),  # 48
                nn.BatchNorm2d(16),
                nn.SiLU(inplace=True),
                block(16, 32, 2),  # 24
                block(32, 64, 2),  # 12
                block(64, 128, 2),  # 6
                nn.Conv2d(128, 192, 1, bias=False),
                nn.BatchNorm2d(192),
                nn.SiLU(inplace=True),
            )
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.drop = nn.Dropout(0.2)
            self.fc = nn.Linear(192, num_classes)

        def forward(self, x):
            x = (x - 0.5) / 0.25
            return self.fc(self.drop(self.pool(self.features(x)).flatten(1)))

    return Net()


def IdentifierNet(num_classes: int = len(RANKS) + 2 + len(SUITS)):  # noqa: N802 - factory named like a class
    return _net(num_classes)


def load_identifier(path: Path):
    """(network in eval mode, class labels, crop side) from a saved identifier."""
    import torch

    ck = torch.load(path, map_location="cpu", weights_only=False)
    net = IdentifierNet()
    net.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in ck["state_dict"].items()})
    net.eval()
    return net, list(ck["classes"]), int(ck["crop"])


def identify(net, crops_rgb: np.ndarray, tta: bool = True) -> np.ndarray:
    """Class probabilities (N x len(ID_CLASSES)) for N square RGB crops (averaged over the 4 rotations with tta)."""
    import torch

    x = torch.from_numpy(np.ascontiguousarray(crops_rgb)).permute(0, 3, 1, 2).float().div(255)
    with torch.no_grad():
        rots = range(4) if tta else range(1)
        p = sum(card_probs(net(torch.rot90(x, k, (2, 3)))) for k in rots) / len(rots)
    return p.numpy()


@dataclass(frozen=True)
class Detection:
    label: str  # "AS".."KD", "BACK", "JOKER", "CHIP"
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in input-image pixels
    confidence: float
    kind: str  # detector class: card_face / card_back / chip


class CardReader:
    """Detector + identifier, loaded once. CPU-only."""

    def __init__(
        self,
        models: Path = MODELS,
        conf: float = 0.25,
        imgsz: int | None = None,
        tta: bool = True,
        zoom_out: float | None = 0.5,
        corners: bool = True,
    ) -> None:
        """``corners``: also read each card's corner index (``training.photo.card_corners``) and multiply its
        probabilities with the identifier's (two readers that err differently)."""
        from ultralytics import YOLO

        from training.index_net import TorchIndexReader

        self.det = YOLO(str(models / "card_detector.pt"), task="detect")
        if list(self.det.names.values()) != DET_CLASSES:  # ``read`` names each box by DET_CLASSES
            raise ValueError(f"{models / 'card_detector.pt'}: its classes {list(self.det.names.values())} are not "
                             f"{DET_CLASSES}")
        train_args = (getattr(self.det, "ckpt", None) or {}).get("train_args", {})
        self.imgsz = imgsz or int(train_args.get("imgsz", 320))
        self.idn, self.classes, self.crop = load_identifier(models / "card_identifier.pt")
        self.conf = conf
        self.tta = tta
        self.zoom_out = zoom_out
        self.index_reader = TorchIndexReader(models / "card_index.pt") if corners else None
        if corners and list(self.classes) != ID_CLASSES:  # the corner reading multiplies in INDEX_CLASSES' order
            raise ValueError(f"{models / 'card_identifier.pt'}: its classes are not ID_CLASSES")

    def identify_crops(self, img: np.ndarray, boxes: list) -> np.ndarray:
        """Class probabilities (len(boxes) x len(classes)) for boxes in an RGB image (rotation TTA: 0/90/180/270)."""
        if not boxes:
            return np.zeros((0, len(self.classes)), np.float32)
        probabilities = identify(self.idn, np.stack([square_crop(img, b, self.crop) for b in boxes]), self.tta)
        if self.index_reader is not None:
            probabilities = self._with_corners(img, boxes, probabilities)
        return probabilities

    def _with_corners(self, img: np.ndarray, boxes: list, probabilities: np.ndarray) -> np.ndarray:
        """The identifier's probabilities times the corner index reader's, for the boxes whose card outline is
        found (completed beyond the photo's edge where it is cut: the surest reading of the outlines tried is kept);
        JOKER, which the index reader does not know, gets its even share."""
        from training.photo.card_corners import card_quads, corner_crops, index_inside, index_reading

        assert self.index_reader is not None
        quads = [(k, quad) for k, box in enumerate(boxes) for quad in card_quads(img, box)]
        if not quads:
            return probabilities
        readings = self.index_reader.probabilities(np.concatenate([corner_crops(img, quad) for _, quad in quads]))
        surest: dict[int, tuple[np.ndarray, float]] = {}
        for n, (k, quad) in enumerate(quads):
            corner, sureness = index_reading(readings[4 * n:4 * n + 4], index_inside(quad, img.shape))
            if k not in surest or sureness > surest[k][1]:
                surest[k] = (corner, sureness)
        combined = probabilities.copy()
        known = len(INDEX_CLASSES)  # INDEX_CLASSES is ID_CLASSES without JOKER, in the same order
        for k, (corner, _sureness) in surest.items():
            combined[k, :known] *= corner
            combined[k, known:] *= 1.0 / known
            combined[k] /= combined[k].sum()
        return combined

    def _predict(self, bgr: np.ndarray):
        r = self.det.predict(
            bgr, imgsz=self.imgsz, conf=self.conf, device="cpu", verbose=False, agnostic_nms=True, max_det=100
        )[0]
        return r.boxes.xyxy.numpy(), r.boxes.cls.numpy().astype(int), r.boxes.conf.numpy()

    def detect(self, img: np.ndarray) -> tuple[list, list, list]:
        """Detector boxes, classes, confidences. With ``zoom_out``, the image is also seen shrunk (cards that fill the
        frame then look like table-sized cards) and both results are merged by class-agnostic NMS."""
        import torch
        from torchvision.ops import nms

        b, c, f = self._predict(np.ascontiguousarray(img[..., ::-1]))
        if self.zoom_out:
            h, w = img.shape[:2]
            k = self.zoom_out
            canvas = np.empty_like(img)
            canvas[:] = np.median(img.reshape(-1, 3), axis=0).astype(img.dtype)
            import cv2

            small = cv2.resize(img, (int(w * k), int(h * k)), interpolation=cv2.INTER_AREA)
            y0, x0 = (h - small.shape[0]) // 2, (w - small.shape[1]) // 2
            canvas[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
            b2, c2, f2 = self._predict(np.ascontiguousarray(canvas[..., ::-1]))
            b2 = (b2 - [x0, y0, x0, y0]) / k
            b, c, f = np.concatenate([b, b2]), np.concatenate([c, c2]), np.concatenate([f, f2])
            if len(b):
                keep = nms(torch.from_numpy(b).float(), torch.from_numpy(f).float(), 0.5).numpy()
                b, c, f = b[keep], c[keep], f[keep]
        if len(b):
            h, w = img.shape[:2]
            b = np.clip(b, 0, [w, h, w, h])
        if len(b) > 1:  # drop small boxes inside a stronger one (a corner index seen as a card)
            order = np.argsort(-f)
            b, c, f = b[order], c[order], f[order]
            area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
            keep = []
            for i in range(len(b)):
                inside = False
                for j in keep:
                    ix = max(0.0, min(b[i, 2], b[j, 2]) - max(b[i, 0], b[j, 0]))
                    iy = max(0.0, min(b[i, 3], b[j, 3]) - max(b[i, 1], b[j, 1]))
                    if ix * iy > 0.85 * area[i] and area[i] < 0.4 * area[j]:
                        inside = True
                        break
                if not inside:
                    keep.append(i)
            b, c, f = b[keep], c[keep], f[keep]
        return b.tolist(), c.tolist(), f.tolist()

    def read(self, image) -> list[Detection]:
        from PIL import Image

        img = np.asarray(Image.open(image).convert("RGB")) if isinstance(image, str | Path) else np.asarray(image)
        boxes, cls, confs = self.detect(img)
        card_idx = [i for i, c in enumerate(cls) if c in (0, 1)]
        probs = self.identify_crops(img, [boxes[i] for i in card_idx])
        out: list[Detection] = []
        pmap = dict(zip(card_idx, probs, strict=True))
        for i, (b, c, cf) in enumerate(zip(boxes, cls, confs, strict=True)):
            kind = DET_CLASSES[c]
            if kind == "chip":
                out.append(Detection("CHIP", tuple(b), float(cf), kind))
                continue
            p = pmap[i]
            j = int(p.argmax())
            out.append(Detection(self.classes[j], tuple(b), float(cf * p[j]), kind))
        return out


def main(argv: list[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m training.photo.identify", description="Read the cards in images.")
    ap.add_argument("images", nargs="+")
    a = ap.parse_args(argv)
    reader = CardReader()
    for p in a.images:
        for d in reader.read(p):
            print(f"{p}\t{d.label}\t{d.confidence:.2f}\t" + ",".join(f"{v:.0f}" for v in d.box))


if __name__ == "__main__":
    sys.exit(main())
