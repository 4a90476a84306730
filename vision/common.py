"""The vision models' vocabulary, shared by the table reader and the training code: card labels, detector classes,
where the models are, and the one conversion between the models' card spelling and the rules'."""

from __future__ import annotations

from pathlib import Path

#: the ONNX models the vision process runs (and the training code writes): the checkout's ``models/``, which
#: ``vision/models`` links to; an installed package carries the ``.onnx`` files in a real ``vision/models/``
MODELS = (Path(__file__).resolve().parent / "models").resolve()

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["C", "D", "H", "S"]
CARDS = [r + s for s in SUITS for r in RANKS]  # 52 labels, e.g. "AS", "10H"
# Detector classes.
DET_CLASSES = ["card_face", "card_back", "chip"]


def split_card(label: str) -> tuple[str, str]:
    """'10H' -> ('10', 'H'); 'K?' -> ('K', '?')."""
    return label[:-1], label[-1]


def rules_card(label: str) -> str:
    """The vision models' spelling ``AS``, ``10H`` in the rules' form ``As``, ``Th``."""
    if label not in CARDS:
        raise ValueError(f"unknown card label {label!r}: expected one of AS..KS as the vision models spell them")
    rank, suit = split_card(label)
    return ("T" if rank == "10" else rank) + suit.lower()


def vision_label(card_text: str) -> str:
    """The rules' ``Td`` as the vision models spell it: ``10D``."""
    rank, suit = card_text[0], card_text[1].upper()
    return ("10" if rank == "T" else rank) + suit
