"""The exported detector the vision process runs (ONNX Runtime, our own decoding) finds what ultralytics finds
with the same weights, on a rendered seat crop."""

from __future__ import annotations

import numpy as np
import pytest

from controller.felt.chips import make_stack
from controller.felt.layout import load_layout
from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import CardOnFelt, SceneState
from training.export_detector import WEIGHTS_PATH
from vision.calibrate import calibrate
from vision.common import DET_CLASSES
from vision.onnx_detector import ONNX_PATH, OnnxDetector
from vision.table_reader import rectified, seat_regions


@pytest.fixture(scope="module")
def crop():
    layout = load_layout()
    scene = SceneState()
    for index, card in enumerate(["As", "Kd", "7c"]):
        scene = scene.with_card(CardOnFelt(3, index, card, face_up=index == 2))
    scene = scene.with_chips(3, "ante", make_stack(3500))
    renderer = Renderer(layout, TableCamera(), seed=1)
    frame = renderer.render(scene, 0)
    cal = calibrate(frame, layout)
    region = next(r for r in seat_regions(layout) if r.seat == 3)
    return rectified(frame, cal.table_to_image @ region.crop_to_table(256), 256)


def test_the_onnx_export_agrees_with_ultralytics_on_the_same_weights(crop) -> None:
    from ultralytics import YOLO

    ours = OnnxDetector(ONNX_PATH, conf=0.3, iou=0.7).detect([crop])[0]  # ultralytics' default NMS IoU
    theirs = YOLO(str(WEIGHTS_PATH), task="detect").predict(crop, imgsz=256, conf=0.3, agnostic_nms=True,
                                                             device="cpu", verbose=False)[0]
    assert len(ours) == len(theirs.boxes) >= 5  # three cards, three chips (25 + 5 + 5 €), nothing else
    for box in ours:
        distances = np.abs(theirs.boxes.xyxy.numpy() - [box.x1, box.y1, box.x2, box.y2]).max(1)
        k = int(distances.argmin())
        assert distances[k] < 2.0  # pixels
        assert DET_CLASSES[int(theirs.boxes.cls[k])] == box.kind
        assert abs(float(theirs.boxes.conf[k]) - box.confidence) < 0.02


def test_a_crop_of_the_wrong_size_is_refused_with_its_shape() -> None:
    with pytest.raises(ValueError, match=r"crop of shape \(100, 100, 3\): the detector takes 256x256x3"):
        OnnxDetector().detect([np.zeros((100, 100, 3), np.uint8)])
