"""The felt's colour learned from the frame, and crops keyed to the felt the models were trained on
(vision/felt_colour.py): another cloth is read as the trained one, and nothing but the cloth changes colour."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np
import pytest

from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import CardOnFelt, SceneState
from vision.calibrate import calibrate
from vision.chip_counter import DENOMINATIONS, MAX_COUNT
from vision.felt_colour import SAME_FELT, TRAINED_FELT_LAB, FeltKey, felt_points, measure_felt
from vision.stack_reader import STACK_MAX_COUNT
from vision.table_reader import TableReader
from vision.tracker import TrackerConfig

#: a bet of each denomination, the 1 € chip (the nearest to the blue cloth's colour) among them, and empty zones
BETS = {(1, "ante"): (100, 100, 100), (2, "ante"): (2500, 500, 500), (3, "ante"): (10000, 50, 50),
        (3, "bonus"): (100,), (5, "ante"): (500, 100, 100), (6, "raise"): (2500, 2500, 100), (7, "ante"): (50,)}


@pytest.fixture(scope="module")
def scene():
    felt = SceneState()
    for (seat, box), chips in BETS.items():
        felt = felt.with_chips(seat, box, chips)
    for index, card in enumerate(["As", "Kd", "7h"]):
        felt = felt.with_card(CardOnFelt(4, index, card, index < 2))
    return felt


def render(layout, scene, *conditions):
    return Renderer(layout, TableCamera(), seed=3, conditions=frozenset(conditions)).render(scene, 0)


@pytest.fixture(scope="module")
def frames(layout, scene):
    return {"green": render(layout, scene), "blue": render(layout, scene, "blue-felt")}


def lab_distance(a, b) -> float:
    return float(np.linalg.norm(np.asarray(a, float) - np.asarray(b, float)))


def test_the_trained_felt_is_what_is_measured_on_the_green_cloth_and_the_blue_one_is_far(layout, frames):
    assert len(felt_points(layout)) > 200
    measured = {name: measure_felt(frame, layout, calibrate(frame, layout).table_to_image)
                for name, frame in frames.items()}
    assert lab_distance(measured["green"], TRAINED_FELT_LAB) < SAME_FELT / 2  # the lamp differs by seed
    assert lab_distance(measured["blue"], TRAINED_FELT_LAB) > 3 * SAME_FELT
    assert not FeltKey(measured["green"]).active and FeltKey(measured["blue"]).active


def test_a_key_on_the_trained_felt_returns_the_crop_itself():
    crop = np.full((8, 8, 3), 77, np.uint8)
    key = FeltKey(TRAINED_FELT_LAB)
    assert key.bgr(crop) is crop and key.rgb(crop) is crop


def test_a_cloth_of_a_chips_colour_is_not_keyed():
    red = cv2.cvtColor(np.array([[[35, 35, 200]]], np.uint8), cv2.COLOR_BGR2LAB)[0, 0]  # the 5 € chip's face
    key = FeltKey(red.astype(float))
    assert not key.active and key.clashes == ["0,50 € stripes", "5 € face"]


def test_the_blue_cloth_keyed_looks_like_the_green_one_and_chips_and_cards_keep_their_colours(layout, scene, frames):
    blue, green = frames["blue"], frames["green"]
    key = FeltKey(measure_felt(blue, layout, calibrate(blue, layout).table_to_image))
    keyed = key.bgr(blue)
    renderer = Renderer(layout, TableCamera(), seed=3)

    def lab_at(image, points_mm):
        px = np.round(renderer.camera.table_to_image(np.asarray(points_mm, float))).astype(int)
        return cv2.cvtColor(image[px[:, 1], px[:, 0]][None], cv2.COLOR_BGR2LAB)[0].astype(float)

    bare = felt_points(layout)[::7]
    assert np.median(np.linalg.norm(lab_at(keyed, bare) - lab_at(green, bare), axis=1)) < 6
    assert np.median(np.linalg.norm(lab_at(blue, bare) - lab_at(green, bare), axis=1)) > 40
    cards = [renderer.card_quad(card).mean(0) for card in scene.cards]
    # a card's middle (the blue back's included) keeps its colour through the key
    assert np.abs(lab_at(keyed, cards) - lab_at(blue, cards)).max() <= 2
    # a chip's middle stays its own colour, far from the felt's: a 1 € chip in shade, nearest the blue cloth, moves a
    # little towards the trained felt but stays blue
    chips = [centre for stack in scene.chips for _cents, centre in renderer.chip_centres(stack)]
    moved = np.linalg.norm(lab_at(keyed, chips) - lab_at(blue, chips), axis=1)
    to_felt = np.linalg.norm(lab_at(keyed, chips) - np.asarray(TRAINED_FELT_LAB), axis=1)
    assert np.median(moved) == 0 and (moved < to_felt / 3).all()


def test_the_reader_reads_the_bets_on_the_blue_cloth_as_on_the_green_one_and_not_without_the_key(layout, frames):
    truth = {zone: Counter(chips) for zone, chips in BETS.items()}

    def bets(frame, felt_lab=None) -> dict:
        reader = TableReader(layout, calibrate(frame, layout).table_to_image, change_threshold=-1, felt_lab=felt_lab)
        read: dict = {}
        for seen in reader.read(frame).observations:
            if seen.kind == "chip":
                read.setdefault((seen.seat, seen.area), Counter())[int(seen.label)] += 1
        return read

    assert bets(frames["green"]) == truth
    assert bets(frames["blue"]) == truth
    unkeyed = bets(frames["blue"], felt_lab=TRAINED_FELT_LAB)
    assert unkeyed != truth  # the counter alone takes the bare blue cloth for chips
    assert set(unkeyed) - set(truth), "empty zones of the blue cloth read as holding chips"


class _Sure:
    """A model stand-in that reads two 5 € chips in every zone, certain of it (two: a lone chip is doubted on a
    stack probability of its own, ``vision.stack_reader.LONE_CHIP_DOUBT``); the stack reader's stack probability
    as given."""

    vouch_from = 0.0  # as a stack reader's: the tracker alone judges

    def __init__(self, classes: int, stack_probability: float | None = None) -> None:
        self.classes, self.stack_probability = classes, stack_probability

    def probabilities(self, crops):
        counts = np.zeros((len(crops), len(DENOMINATIONS), self.classes), np.float32)
        counts[:, :, 0] = 1
        counts[:, DENOMINATIONS.index(500)] = np.eye(self.classes)[2]
        if self.stack_probability is None:
            return counts
        return np.full(len(crops), self.stack_probability, np.float32), counts


@pytest.mark.parametrize(("cloth", "stack_probability", "vouched"),
                         [("blue", 0.0, True), ("blue", 0.05, False), ("blue", 0.9, False), ("green", 0.05, True)])
def test_on_a_keyed_cloth_a_zone_that_may_be_a_stack_is_never_vouched_for(layout, frames, cloth, stack_probability,
                                                                          vouched):
    frame = frames[cloth]
    reader = TableReader(layout, calibrate(frame, layout).table_to_image, change_threshold=-1)
    reader.chip_counter = _Sure(MAX_COUNT)
    reader.stack_reader = _Sure(STACK_MAX_COUNT, stack_probability)
    reading = reader.read(frame)
    certainty = min(seen.confidence for seen in reading.observations if (seen.seat, seen.area) == (4, "ante"))
    assert reader.felt.active == (cloth == "blue")
    assert (certainty >= TrackerConfig().sure_certainty) == vouched
