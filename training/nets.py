"""The small CNN the crop readers share (the index reader, the chip counter, the stack reader): the crop
standardized, convolution blocks that halve its size, then a dense layer. Each net adds its own outputs.

The nets keep their layers under the names their checkpoints (``models/*.pt``) were saved with: ``features`` for
the convolutions, and the dense layer as the first layers of ``head`` (the index reader, the chip counter: their
output layer follows in it) or as ``trunk`` (the stack reader: its two outputs are layers of their own).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # torch loads when a net is built, not when this module is imported
    import torch
    from torch import nn

#: the dense layer's width, the outputs' input
DENSE = 256


def conv_block(cin: int, cout: int) -> nn.Sequential:
    """Two 3x3 convolutions (batch norm, SiLU), then a 2x2 max pool: the size halves."""
    import torch.nn as nn

    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(inplace=True),
                         nn.MaxPool2d(2))


def trunk(widths: Sequence[int], size: tuple[int, int], dropout: float,
          *outputs: nn.Module) -> tuple[nn.Sequential, nn.Sequential]:
    """``(features, dense)``: ``features`` a ``conv_block`` per width from the RGB crop of ``size`` (width, height),
    each halving it; ``dense`` flattens what is left, drops out ``dropout`` of it while training, then a linear
    layer to ``DENSE`` and SiLU, followed by ``outputs`` (modules), if any."""
    import torch.nn as nn

    width, height = size
    channels = 3
    for cout in widths:
        channels, width, height = cout, width // 2, height // 2
    features = nn.Sequential(*(conv_block(cin, cout) for cin, cout in zip((3, *widths[:-1]), widths, strict=True)))
    dense = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(channels * width * height, DENSE),
                          nn.SiLU(inplace=True), *outputs)
    return features, dense


def standardize(x: torch.Tensor) -> torch.Tensor:
    """An RGB crop in 0..1 (N x 3 x H x W) as the trunk takes it."""
    return (x - 0.5) / 0.25
