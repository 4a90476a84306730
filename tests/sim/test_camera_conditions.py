"""The rendered camera's harder conditions (controller/sim/conditions.py): each one drawn as it says, and a knocked
camera seen as such from the felt's markers."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.sim.camera import knocked
from controller.sim.conditions import CONDITIONS
from controller.sim.render import Renderer, TableCamera
from controller.sim.scene import Arm, CardOnFelt, SceneState
from vision.calibrate import find_markers, markers_moved

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def scene():
    felt = SceneState()
    for index, card in enumerate(["As", "Kd", "7h"]):
        felt = felt.with_card(CardOnFelt(4, index, card, True))
    return replace(felt, arms=(Arm((900.0, 0.0), (900.0, 600.0)),))


def frame(layout, scene, *conditions, t_ms=0):
    return Renderer(layout, TableCamera(), seed=0, conditions=frozenset(conditions)).render(scene, t_ms)


def at(layout, point_mm):
    x, y = TableCamera().table_to_image(np.array([point_mm]))[0]
    return int(round(y)), int(round(x))


def test_each_condition_changes_the_frame_as_it_says(layout, scene):
    plain = frame(layout, scene).astype(np.int16)
    felt_patch = (slice(*(v + d for v in [at(layout, (700.0, 450.0))[0]] for d in (-20, 20))),
                  slice(*(v + d for v in [at(layout, (700.0, 450.0))[1]] for d in (-20, 20))))
    noisy = frame(layout, scene, "noise").astype(np.int16)
    assert noisy[felt_patch][..., 1].std() > 1.5 * plain[felt_patch][..., 1].std()  # the felt's green, grainier
    blue = frame(layout, scene, "blue-felt")[felt_patch].reshape(-1, 3).mean(0)
    green = plain[felt_patch].reshape(-1, 3).mean(0)
    assert blue[0] > blue[1] and green[1] > green[0]  # BGR: blue over green, and the plain felt the other way
    glare = frame(layout, scene, "glare").astype(np.int16)
    y, x = at(layout, (900.0, 690.0))
    assert glare[y, x].mean() > plain[y, x].mean() + 100  # the lamp's reflection saturates there
    assert np.abs(glare[felt_patch] - plain[felt_patch]).max() < 60  # and fades away from it
    compressed = frame(layout, scene, "compression").astype(np.int16)
    assert 0 < np.abs(compressed - plain).mean() < 6  # JPEG's loss: small, everywhere
    cards_only = replace(scene, arms=())
    other = frame(layout, cards_only, "other-deck").astype(np.int16)
    standard = frame(layout, cards_only).astype(np.int16)
    y, x = at(layout, (900.0, 650.0))  # seat 4's middle card
    assert np.abs(other[y - 30:y + 30, x - 20:x + 20] - standard[y - 30:y + 30, x - 20:x + 20]).mean() > 20
    blurred = frame(layout, scene, "motion-blur").astype(np.int16)
    y, x = at(layout, (945.0, 300.0))  # just beside the arm: the smear reaches it, the still frame is felt there
    arm_edge = np.abs(blurred[y, x - 12:x + 12] - plain[y, x - 12:x + 12]).max()
    assert arm_edge > 0 and np.abs(blurred[felt_patch] - plain[felt_patch]).max() == 0


def test_an_unknown_condition_is_named(layout):
    with pytest.raises(ValueError, match="unknown camera condition 'fog'.*noise, motion-blur"):
        Renderer(layout, TableCamera(), conditions=frozenset({"fog"}))
    assert set(CONDITIONS) == {"noise", "motion-blur", "compression", "glare", "blue-felt", "other-deck", "knock"}


def test_a_knocked_camera_moves_the_markers_and_an_arm_over_one_does_not(layout, scene):
    renderer = Renderer(layout, TableCamera(), seed=0)
    before = find_markers(renderer.render(scene, 0))
    covered = replace(scene, arms=(Arm((60.0, 300.0), (60.0, 60.0), 120.0),))  # over marker 0
    assert markers_moved(before, find_markers(renderer.render(covered, 170))) < 1.0
    renderer.knock(knocked(renderer.camera))
    moved = markers_moved(before, find_markers(renderer.render(scene, 340)))
    assert 3.0 < moved < 15.0  # a few millimetres at about 1 px/mm
    assert markers_moved(before, {k: v for k, v in before.items() if k < 2}) is None  # too few to say
    assert cv2.__version__  # the markers were found by OpenCV's ArUco, as the vision process finds them


def test_the_demo_lists_the_conditions_and_names_an_unknown_one():
    # in a subprocess: the demo's command installs its own signal handlers, which the test process must not keep
    def demo(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "controller.cli", "demo", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)

    listed = demo("--camera-condition", "list")
    assert listed.returncode == 0 and listed.stdout.splitlines()[0].startswith("noise: ")
    unknown = demo("--camera-condition", "fog")
    assert unknown.returncode == 2 and "no camera condition 'fog' (known: noise, motion-blur" in unknown.stderr
    direct = demo("--camera", "direct", "--camera-condition", "glare")
    assert direct.returncode == 2 and "needs the rendered camera" in direct.stderr
    sized = demo("--camera", "direct", "--camera-size", "3840x2160")
    assert sized.returncode == 2 and "--camera-size needs the rendered camera" in sized.stderr
    for typo in ("3840*2160", "38x21"):
        bad = demo("--camera-size", typo)
        assert bad.returncode == 2 and f"argument --camera-size: '{typo}'" in bad.stderr, bad.stderr
        assert "Traceback" not in bad.stderr
