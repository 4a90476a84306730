"""The stack reader: how its reading and the chip counter's are merged (the likelier kind's reading, its certainty
times that kind's probability); its ONNX export reads what the torch checkpoint reads; and through the table reader,
casino stacks on the virtual table are read right, or sent to the dealer, never read wrong with certainty.

The frames come from the virtual table's renderer with its own deck and a renderer seed the models never trained on
(they trained on seeds 1-5 with other decks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from controller.felt.layout import BET_AREAS, load_layout
from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import SceneState
from vision.calibrate import calibrate
from vision.chip_counter import DENOMINATIONS, MAX_COUNT, next_likeliest
from vision.stack_reader import (
    LONE_CHIP_DOUBT,
    ONNX_PATH,
    READERS,
    STACK_MAX_COUNT,
    StackReader,
    alternatives,
    merge_readings,
    reader_for,
    stack_crop,
    stack_zone_to_table,
    zone_resolution,
)
from vision.table_reader import TableReader, zone_values
from vision.tracker import TrackerConfig


def one_hot(counts: list[int], classes: int, sure: float = 1.0) -> np.ndarray:
    """Probabilities for one zone: each denomination's count with probability ``sure``, the rest on zero chips (or
    on one chip, for a count of zero)."""
    p = np.zeros((len(DENOMINATIONS), classes), np.float32)
    for k, n in enumerate(counts):
        p[k, n] = sure
        p[k, 1 if n == 0 else 0] += 1 - sure
    return p


def test_the_reading_of_the_likelier_kind_is_given_with_that_kinds_probability() -> None:
    spread = [0, 0, 1, 0, 0]  # the counter: one chip of the third denomination (a stack's top, seen from above)
    stack = [0, 0, 4, 0, 0]  # the stack reader: four such chips on one another
    counter = np.stack([one_hot(spread, MAX_COUNT)] * 3)
    stacks = np.stack([one_hot(stack, STACK_MAX_COUNT)] * 3)
    (reading_a, certainty_a), (reading_b, certainty_b), (reading_c, certainty_c) = merge_readings(
        counter, np.array([0.0001, 0.97, 0.6], np.float32), stacks)
    assert reading_a == {DENOMINATIONS[2]: 1} and certainty_a == pytest.approx(0.9999)
    assert reading_b == {DENOMINATIONS[2]: 4} and certainty_b == pytest.approx(0.97)
    # a zone the stack reader is unsure of is unsure, whichever reading it gives: the dealer is asked
    assert reading_c == {DENOMINATIONS[2]: 4} and certainty_c < TrackerConfig().sure_certainty


def test_a_stack_reading_that_contradicts_itself_or_the_counter_is_unsure() -> None:
    counter = np.stack([one_hot([1, 0, 0, 0, 0], MAX_COUNT), one_hot([0, 2, 0, 0, 0], MAX_COUNT)])
    stacks = np.stack([one_hot([1, 0, 0, 0, 0], STACK_MAX_COUNT),  # a "stack" of one chip
                       one_hot([0, 0, 3, 0, 0], STACK_MAX_COUNT)])  # a stack, and the counter's chips beside it
    vouched = TrackerConfig().sure_certainty
    for reading, certainty in merge_readings(counter, np.array([0.99, 0.99]), stacks):
        assert 0 < certainty < vouched, reading


def test_a_stack_reading_under_its_readers_own_certainty_is_unsure() -> None:
    counter = np.stack([one_hot([0, 0, 1, 0, 0], MAX_COUNT)])
    stacks = np.stack([one_hot([0, 0, 4, 0, 0], STACK_MAX_COUNT)])
    stacks[0, 2, [4, 3]] = 0.94, 0.06  # four chips, or three: 0.94 sure of it
    (_, plain), = merge_readings(counter, np.array([0.999]), stacks)
    (reading, held), = merge_readings(counter, np.array([0.999]), stacks, vouch_from=0.95)
    assert plain >= TrackerConfig().sure_certainty  # the tracker alone would vouch for it
    assert reading == {DENOMINATIONS[2]: 4} and held < TrackerConfig().sure_certainty
    # the counter's reading (no stack likely) is the tracker's to judge, whatever the stack reader's own rule
    (spread, certainty), = merge_readings(counter, np.array([0.0001]), stacks, vouch_from=0.95)
    assert spread == {DENOMINATIONS[2]: 1} and certainty >= TrackerConfig().sure_certainty
    assert [StackReader(trained.path).vouch_from for trained in READERS] == [0.98, 0.95]


def test_a_lone_chip_is_not_vouched_for_where_the_stack_reader_gives_a_stack_some_chance() -> None:
    # from above, two chips of one colour stacked show one: the counter reads one, the stack reader hesitates
    counter = np.stack([one_hot([0, 1, 0, 0, 0], MAX_COUNT)] * 3)
    stacks = np.stack([one_hot([0, 2, 0, 0, 0], STACK_MAX_COUNT)] * 3)
    vouched = TrackerConfig().sure_certainty
    below, at, likelier = merge_readings(counter, np.array([LONE_CHIP_DOUBT / 2, LONE_CHIP_DOUBT, 0.2]), stacks)
    assert below == ({DENOMINATIONS[1]: 1}, pytest.approx(1 - LONE_CHIP_DOUBT / 2))
    assert at[0] == {DENOMINATIONS[1]: 1} and at[1] < vouched
    assert likelier[1] < vouched
    # two chips read spread are no lone chip: the rule is the counter's own certainty times no stack
    pair = np.stack([one_hot([0, 2, 0, 0, 0], MAX_COUNT)])
    (_, certainty), = merge_readings(pair, np.array([0.02]), stacks[:1])
    assert certainty == pytest.approx(0.98)


def test_the_dealer_is_offered_the_likeliest_amount_but_the_one_read() -> None:
    # one chip of the third denomination, or two of them: 0.7 against 0.3
    counter = np.stack([one_hot([0, 0, 1, 0, 0], MAX_COUNT)])
    counter[0, 2, [1, 2]] = 0.7, 0.3
    (value, odds), = next_likeliest(counter)
    assert value == 2 * DENOMINATIONS[2] and odds == pytest.approx(0.3 / 0.7)
    # the counter's reading chosen (no stack likely): the stack reader's four chips are the likelier other reading
    stacks = np.stack([one_hot([0, 0, 4, 0, 0], STACK_MAX_COUNT)])
    chosen = merge_readings(counter, np.array([0.45]), stacks)
    assert chosen[0][0] == {DENOMINATIONS[2]: 1}
    assert alternatives(counter, np.array([0.45]), stacks, chosen) == [4 * DENOMINATIONS[2]]
    # no stack at all: the counter's next likeliest
    assert alternatives(counter, np.array([0.01]), stacks, merge_readings(counter, np.array([0.01]), stacks)) == [
        2 * DENOMINATIONS[2]]
    # the stack's reading chosen: the counter's own (its top chip alone) is the other
    chosen = merge_readings(counter, np.array([0.9]), stacks)
    assert alternatives(counter, np.array([0.9]), stacks, chosen) == [DENOMINATIONS[2]]


def test_a_reader_named_by_a_relative_path_keeps_its_own_certainty(monkeypatch) -> None:
    import os

    monkeypatch.chdir(ONNX_PATH.parent)
    for trained in READERS:
        relative = Path(os.path.relpath(trained.path))
        assert not relative.is_absolute()
        assert StackReader(relative).vouch_from == trained.vouch_from
        assert StackReader(Path("..") / trained.path.parent.name / trained.path.name).vouch_from == trained.vouch_from


def test_a_stack_too_tall_to_count_is_a_lower_bound_as_the_counters_top_count_is() -> None:
    tall = [0, 0, 0, STACK_MAX_COUNT - 1, 0]
    (reading, certainty), = merge_readings(np.stack([one_hot([1, 0, 0, 0, 0], MAX_COUNT)]), np.array([0.99]),
                                           np.stack([one_hot(tall, STACK_MAX_COUNT)]))
    assert reading == {DENOMINATIONS[3]: STACK_MAX_COUNT - 1} and certainty == 0.0  # the tracker's "at least"


def test_a_model_of_other_denominations_or_none_is_refused(tmp_path) -> None:
    import onnx

    model = onnx.load(str(ONNX_PATH))
    for prop in model.metadata_props:
        if prop.key == "denominations":
            prop.value = "[100, 500]"
    other = tmp_path / "other.onnx"
    onnx.save(model, str(other))
    with pytest.raises(ValueError, match="denominations"):
        StackReader(other)
    with pytest.raises(FileNotFoundError, match="train_stacks export"):
        StackReader(tmp_path / "none.onnx")
    from vision.chip_counter import ONNX_PATH as COUNTER

    with pytest.raises(ValueError, match=r"takes \[3, 96, 96\].*this code crops 3 x 112 x 112"):
        StackReader(COUNTER)  # the other bet-zone model: same denominations, other shapes


#: casino stacks, largest chips at the bottom, over every seat: heights 2 to 10, one denomination or two
STACKS = {
    (1, "ante"): (10000,) * 3,
    (2, "raise"): (2500,) * 2 + (500,) * 4,
    (3, "ante"): (500,) * 2,
    (4, "bonus"): (100,) * 10,
    (5, "ante"): (10000,) * 2 + (2500,) * 3,
    (6, "raise"): (2500,) * 8,
    (7, "ante"): (500,) * 4 + (50,) * 3,
}


#: the cameras the stack readers were trained for, and each one's reader
CAMERAS = {(1920, 1080): ONNX_PATH, (3840, 2160): READERS[1].path}


@pytest.fixture(scope="module", params=list(CAMERAS), ids=lambda size: f"{size[0]}x{size[1]}")
def stacked_felt(request):
    layout = load_layout()
    renderer = Renderer(layout, TableCamera(*request.param), seed=9)
    scene = SceneState()
    for (seat, area), chips in STACKS.items():
        scene = scene.with_chips(seat, area, chips, stacked=True)
    scene = scene.with_chips(1, "raise", (500, 500, 100))  # and a spread pile beside them
    frame = renderer.render(scene, 0)
    return layout, calibrate(frame, layout), renderer, scene


def test_the_table_reader_runs_the_stack_reader_trained_nearest_its_cameras_resolution(stacked_felt) -> None:
    layout, calibration, renderer, _scene = stacked_felt
    reader = TableReader(layout, calibration.table_to_image)
    assert reader.stack_reader is not None
    assert reader.stack_reader.path == CAMERAS[renderer.camera.width, renderer.camera.height]


def test_a_camera_between_two_trained_resolutions_gets_the_nearer_reader_by_ratio() -> None:
    assert [reader_for(px_per_mm).path.name for px_per_mm in (0.5, 1.2, 1.3, 4.0)] == [
        "stack_reader.onnx", "stack_reader.onnx", "stack_reader_4k.onnx", "stack_reader_4k.onnx"]
    with pytest.raises(ValueError, match="no bet zone"):
        zone_resolution(np.eye(3), [])


class _StackOfFour:
    """A stack reader stand-in: a stack of four 5 € chips in every zone, 0.94 sure of the count."""

    def __init__(self, vouch_from: float) -> None:
        self.vouch_from = vouch_from

    def probabilities(self, crops):
        counts = np.stack([one_hot([0, 0, 4, 0, 0], STACK_MAX_COUNT)] * len(crops))
        counts[:, 2, [4, 3]] = 0.94, 0.06
        return np.full(len(crops), 0.999, np.float32), counts


@pytest.mark.parametrize(("vouch_from", "vouched"), [(0.0, True), (0.95, False)])
def test_the_table_reader_holds_a_stack_reading_to_its_readers_own_certainty(stacked_felt, vouch_from,
                                                                              vouched) -> None:
    layout, calibration, renderer, scene = stacked_felt
    reader = TableReader(layout, calibration.table_to_image, change_threshold=-1)
    reader.stack_reader = _StackOfFour(vouch_from)
    seen = [o for o in reader.read(renderer.render(scene, 0)).observations
            if o.kind == "chip" and (o.seat, o.area) == (3, "ante")]
    assert sorted(int(o.label) for o in seen) == [500] * 4
    assert (min(o.confidence for o in seen) >= TrackerConfig().sure_certainty) == vouched


def test_the_onnx_export_reads_what_the_torch_checkpoint_reads(stacked_felt) -> None:
    from training.train_stacks import load_net, predict

    layout, calibration, renderer, scene = stacked_felt
    frame = renderer.render(scene, 0)
    crops = np.stack([stack_crop(frame, calibration.table_to_image @ stack_zone_to_table(layout.zone(seat, area)))
                      for seat in layout.seats() for area in BET_AREAS])
    exported_path = CAMERAS[renderer.camera.width, renderer.camera.height]
    exported = StackReader(exported_path).probabilities(crops)
    trained = predict(load_net(exported_path.with_suffix(".pt"))[0], crops)
    for mine, theirs in zip(exported, trained, strict=True):
        assert mine.shape == theirs.shape and np.abs(mine - theirs).max() < 1e-3  # half weights, float32 both


def silent_errors(reader: TableReader, renderer: Renderer, scene: SceneState, bets: dict) -> list[str]:
    """The zones read wrong with a certainty the tracker vouches for, over three frames (each its own noise)."""
    sure_from = TrackerConfig().sure_certainty
    wrong = []
    for t_ms in (0, 170, 340):
        reading = reader.read(renderer.render(scene, t_ms)).observations
        values = zone_values(reading)
        certainty = {(o.seat, o.area): o.confidence for o in reading if o.kind == "chip"}
        wrong += [f"{t_ms} ms, {zone}: {sum(chips)} cents, read {values.get(zone, 0)} and sure"
                  for zone, chips in bets.items()
                  if certainty.get(zone, 1.0) >= sure_from and values.get(zone, 0) != sum(chips)]
    return wrong


def test_casino_stacks_are_read_right_or_sent_to_the_dealer_never_wrong_and_sure(stacked_felt) -> None:
    layout, calibration, renderer, scene = stacked_felt
    bets = {**STACKS, (1, "raise"): (500, 500, 100)}
    reader = TableReader(layout, calibration.table_to_image, change_threshold=-1)
    assert silent_errors(reader, renderer, scene, bets) == []
    spread = [o for o in reader.read(renderer.render(scene, 0)).observations
              if o.kind == "chip" and (o.seat, o.area) == (1, "raise")]
    assert sorted(int(o.label) for o in spread) == [100, 500, 500]
    assert min(o.confidence for o in spread) >= TrackerConfig().sure_certainty  # the spread pile beside: sure
    # the chip counter alone reads a stack as its top chip, sure of it
    counter_alone = TableReader(layout, calibration.table_to_image, change_threshold=-1, stack_model=None)
    assert len(silent_errors(counter_alone, renderer, scene, bets)) >= 3 * 5
