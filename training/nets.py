"""Building blocks the small CNNs share (the index reader, the chip counter)."""

from __future__ import annotations


def conv_block(cin: int, cout: int):
    """Two 3x3 convolutions (batch norm, SiLU), then a 2x2 max pool: the size halves."""
    import torch.nn as nn

    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(inplace=True),
                         nn.MaxPool2d(2))
