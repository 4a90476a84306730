"""The table runs the index reader from its ONNX export: it must read what the trained torch checkpoint reads."""

from __future__ import annotations

import json

import numpy as np
import pytest

from controller.felt.layout import load_layout
from controller.rules.cards import full_deck
from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import CardOnFelt, SceneState
from training.index_net import TorchIndexReader
from vision.calibrate import calibrate
from vision.common import vision_label
from vision.index_reader import INDEX_CLASSES, ONNX_PATH, IndexReader, index_crop


@pytest.fixture(scope="module")
def corner_crops() -> tuple[np.ndarray, list[str]]:
    """The corners of all 52 cards, dealt face up five to a seat on the rendered felt (the camera's default deck),
    and of a face-down card, as the table reader crops them."""
    layout = load_layout()
    renderer = Renderer(layout, TableCamera(), seed=5)
    cards = [str(card) for card in full_deck()]
    deals = [[CardOnFelt(1 + k // 5, k % 5, card, True) for k, card in enumerate(cards[:35])],
             [CardOnFelt(1 + k // 5, k % 5, card, True) for k, card in enumerate(cards[35:])]
             + [CardOnFelt(7, 0, "As", False)]]
    crops, labels = [], []
    for dealt in deals:
        scene = SceneState()
        for card in dealt:
            scene = scene.with_card(card)
        frame = renderer.render(scene, 0)
        cal = calibrate(frame, layout)
        for card in dealt:
            angle = layout.zone(card.position, "cards").angle
            crops.append(index_crop(frame, cal.table_to_image, renderer.card_quad(card)[0], angle))
            labels.append(vision_label(card.card) if card.face_up else "BACK")
    return np.stack(crops), labels


def test_the_onnx_export_reads_what_the_torch_checkpoint_reads(corner_crops) -> None:
    crops, labels = corner_crops
    exported = IndexReader().probabilities(crops)
    trained = TorchIndexReader().probabilities(crops)
    assert exported.shape == trained.shape == (len(crops), len(INDEX_CLASSES))
    assert (exported.argmax(1) == trained.argmax(1)).all()
    assert np.abs(exported - trained).max() < 1e-3  # the checkpoint's half weights, run in float32 by both
    # and both read the cards: the comparison is on crops the reader knows, not on noise
    read = [INDEX_CLASSES[k] for k in exported.argmax(1)]
    assert sum(r == t for r, t in zip(read, labels, strict=True)) >= 0.95 * len(labels)


def test_an_export_with_other_classes_is_refused(tmp_path) -> None:
    import onnx

    model = onnx.load(str(ONNX_PATH))
    (classes,) = [entry for entry in model.metadata_props if entry.key == "classes"]
    classes.value = json.dumps(INDEX_CLASSES[::-1])
    onnx.save(model, str(tmp_path / "other.onnx"))
    with pytest.raises(ValueError, match="other.onnx: its classes are not this code's INDEX_CLASSES"):
        IndexReader(tmp_path / "other.onnx")
    with pytest.raises(FileNotFoundError, match="python -m training.train_index export"):
        IndexReader(tmp_path / "missing.onnx")
