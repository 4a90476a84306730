"""The rendered camera's harder conditions, by name, and its frame size: what the command line offers and the
renderer draws (``render.Renderer``), kept apart so that the command line names them without loading the renderer."""

from __future__ import annotations

import argparse

#: the deck of the ``other-deck`` condition: KDE's svg-ancient-egyptians (a standard index in its corners), which no
#: model trained on either
OTHER_DECK = "svg-ancient-egyptians"

#: What can make the rendered camera harder than its default, each switchable (``stud-table demo
#: --camera-condition NAME``) and counted apart in ``benchmarks/camera_conformance.py --condition NAME``.
CONDITIONS = {
    "noise": "a cheaper sensor in dimmer light: noise of 8 grey levels (the default 2.5)",
    "motion-blur": "the dealer's moving hand smeared along his arm (about 15 mm)",
    "compression": "each frame through JPEG at quality 35, as a video stream compresses it",
    "glare": "a lamp's reflection on the felt over seat 4's cards and raise box",
    "blue-felt": "a blue cloth instead of the green one",
    "other-deck": f"another card deck ({OTHER_DECK})",
    "knock": "the camera knocked a few millimetres a minute into the run",
}


#: the rendered camera's frame unless told otherwise (``--camera-size``)
DEFAULT_FRAME_SIZE = (1920, 1080)


def frame_size(text: str) -> tuple[int, int]:
    """A camera's frame size given as WIDTHxHEIGHT (``--camera-size 3840x2160``)."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give the frame as WIDTHxHEIGHT, e.g. 3840x2160") from None
    if width < 64 or height < 64:
        raise argparse.ArgumentTypeError(f"{text!r}: a frame of at least 64x64 pixels")
    return width, height
