"""The chip counter: the table runs its ONNX export, which must count what the trained torch checkpoint counts; and
through the table reader, spread piles of one to four chips of every denomination are valued right.

The frames come from the virtual table's renderer with its own deck and a renderer seed the counter never trained on
(it trained on seeds 1-5 with other decks)."""

from __future__ import annotations

import numpy as np
import pytest

from controller.felt.chips import CHIP_SET
from controller.felt.layout import BET_AREAS, load_layout
from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import SceneState
from vision.calibrate import calibrate
from vision.chip_counter import DENOMINATIONS, MAX_COUNT, ChipCounter, zone_crop, zone_to_table
from vision.table_reader import TableReader, zone_values


def piles() -> dict[tuple[int, str], tuple[int, ...]]:
    """Every denomination in piles of 1 to 5, alone and beside another, over the 28 bet zones; four zones empty."""
    bets: dict[tuple[int, str], tuple[int, ...]] = {}
    zones = [(seat, area) for seat in range(1, 8) for area in BET_AREAS]
    cents = [kind.cents for kind in CHIP_SET]
    for k, zone in enumerate(zones):
        if k % 7 == 6:
            bets[zone] = ()
            continue
        height = 1 + k % 5
        first = cents[k % len(cents)]
        chips = (first,) * height
        if k % 3 == 1:  # a second denomination beside it, as a player makes an amount
            second = cents[(k + 2) % len(cents)]
            chips = tuple(sorted(chips + (second,) * (1 + (k // 4) % 3), reverse=True))
        bets[zone] = chips
    return bets


@pytest.fixture(scope="module")
def felt():
    layout = load_layout()
    renderer = Renderer(layout, TableCamera(), seed=9)
    scene = SceneState()
    bets = piles()
    for (seat, area), chips in bets.items():
        scene = scene.with_chips(seat, area, chips)  # no chips: no stack
    frame = renderer.render(scene, 0)
    return layout, calibrate(frame, layout), renderer, scene, bets


def test_the_onnx_export_counts_what_the_torch_checkpoint_counts(felt) -> None:
    import torch

    from training.train_chips import MODEL_PATH, build_net

    layout, calibration, renderer, scene, bets = felt
    frame = renderer.render(scene, 0)
    crops = np.stack([zone_crop(frame, calibration.table_to_image @ zone_to_table(layout, layout.zone(seat, area)))
                      for seat, area in bets])
    exported = ChipCounter().probabilities(crops)
    net = build_net()
    net.load_state_dict({k: v.float() for k, v in torch.load(MODEL_PATH, weights_only=False)["state_dict"].items()})
    net.eval()
    with torch.no_grad():
        trained = torch.softmax(net(torch.from_numpy(crops).permute(0, 3, 1, 2).float().div(255)), 2).numpy()
    assert exported.shape == trained.shape == (len(crops), len(DENOMINATIONS), MAX_COUNT)
    assert (exported.argmax(2) == trained.argmax(2)).all()
    assert np.abs(exported - trained).max() < 1e-3  # the checkpoint's half weights, run in float32 by both


def test_the_table_reader_values_every_spread_pile(felt) -> None:
    layout, calibration, renderer, scene, bets = felt
    reader = TableReader(layout, calibration.table_to_image, change_threshold=-1)
    for t_ms in (0, 170, 340):  # three frames, each with its own sensor noise
        read = zone_values(reader.read(renderer.render(scene, t_ms)).observations)
        wrong = {zone: (sum(chips), read.get(zone, 0)) for zone, chips in bets.items()
                 if read.get(zone, 0) != sum(chips)}
        assert wrong == {}, f"frame at {t_ms} ms: zone: (cents bet, cents read) {wrong}"


def test_a_model_of_other_denominations_is_refused(tmp_path) -> None:
    import onnx

    from vision.chip_counter import ONNX_PATH

    model = onnx.load(str(ONNX_PATH))
    for prop in model.metadata_props:
        if prop.key == "denominations":
            prop.value = "[100, 500]"
    other = tmp_path / "other.onnx"
    onnx.save(model, str(other))
    with pytest.raises(ValueError, match="denominations"):
        ChipCounter(other)
    with pytest.raises(FileNotFoundError, match="train_chips export"):
        ChipCounter(tmp_path / "none.onnx")
