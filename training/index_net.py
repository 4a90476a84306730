"""The index reader's network in torch: its definition, its checkpoint ``models/card_index.pt`` run as the
training and the photo reader run it, and its export to ONNX, which the table runs (``vision.index_reader``).

The checkpoint keeps the trained weights (half precision) and, in ``meta``, how they were made; the export carries
the classes and that ``meta`` in the ONNX model's metadata.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from training.nets import DENSE, standardize, trunk
from vision.common import MODELS
from vision.index_reader import INDEX_CLASSES, INDEX_SIZE, ONNX_PATH

MODEL_PATH = MODELS / "card_index.pt"


def build_net():
    import torch.nn as nn

    class IndexNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features, self.head = trunk((24, 48, 96, 128), INDEX_SIZE, 0.25,  # 3 x 4 left
                                             nn.Linear(DENSE, len(INDEX_CLASSES)))

        def forward(self, x):
            return self.head(self.features(standardize(x)))

    return IndexNet()


class TorchIndexReader:
    """The trained checkpoint run in torch: what the ONNX export must read alike (``tests``), and the training's
    monitor."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        import torch

        if not Path(path).exists():
            raise FileNotFoundError(f"{path}: no index reader (train it: python -m training.train_index train)")
        checkpoint = torch.load(path, map_location="cpu", weights_only=False)
        if list(checkpoint["classes"]) != INDEX_CLASSES:
            raise ValueError(f"{path}: its classes are not this code's INDEX_CLASSES")
        self.net = build_net()
        self.net.load_state_dict({k: v.float() for k, v in checkpoint["state_dict"].items()})
        self.net.eval()
        self.meta = checkpoint.get("meta", {})

    def probabilities(self, crops_rgb: np.ndarray) -> np.ndarray:
        """(N, len(INDEX_CLASSES)) for N RGB crops of ``INDEX_SIZE``."""
        return net_probabilities(self.net, crops_rgb)


def export(weights: Path = MODEL_PATH, target: Path = ONNX_PATH) -> Path:
    """The checkpoint exported to ONNX (dynamic batch, softmax included) with its classes and ``meta``."""
    import onnx
    import torch

    reader = TorchIndexReader(weights)
    model = torch.nn.Sequential(reader.net, torch.nn.Softmax(1)).eval()
    width, height = INDEX_SIZE
    target.parent.mkdir(parents=True, exist_ok=True)
    # the TorchScript exporter: the torch.export one needs onnxscript, and this small CNN has no control flow
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, (torch.zeros(1, 3, height, width),), str(target), input_names=["crops"],
                          output_names=["probabilities"], dynamic_axes={"crops": {0: "n"}, "probabilities": {0: "n"}},
                          opset_version=17, dynamo=False)
    exported = onnx.load(str(target))
    for key, value in (("classes", json.dumps(INDEX_CLASSES)), ("meta", json.dumps(reader.meta, default=str))):
        exported.metadata_props.add(key=key, value=value)
    onnx.save(exported, str(target))
    return target


def net_probabilities(net, crops_rgb: np.ndarray, batch: int = 512) -> np.ndarray:
    """Softmax of the network over N RGB crops of ``INDEX_SIZE`` (N x len(INDEX_CLASSES)), in batches."""
    import torch

    if len(crops_rgb) == 0:
        return np.zeros((0, len(INDEX_CLASSES)), np.float32)
    out = []
    with torch.no_grad():
        for k in range(0, len(crops_rgb), batch):
            x = torch.from_numpy(np.ascontiguousarray(crops_rgb[k:k + batch])).permute(0, 3, 1, 2).float().div(255)
            out.append(torch.softmax(net(x), 1).numpy())
    return np.concatenate(out)
