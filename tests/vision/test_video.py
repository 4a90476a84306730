"""The overhead-video check: a whole scripted coup at a 7-seat table, filmed by the virtual camera (a deck no
model trained on), read back frame by frame by the committed detector, index reader and the tracker.

What must hold: every card found in its zone in the order dealt; every face-up card
identified (19 of 19); no face-down card reported exposed; every zone's chip value (16 of 16). The film and the
figures are kept in tests/artifacts/ (coup.avi, coup.json)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import cv2
import pytest

from controller.felt.layout import load_layout
from controller.sim.render import Renderer, TableCamera
from controller.sim.script import parse_script
from controller.sim.world import build_timeline
from training.table_replay import replay
from vision.calibrate import calibrate
from vision.table_reader import TableReader
from vision.tracker import Tracker, hand_stagger

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
REPORT = ARTIFACTS / "coup.json"

SCRIPT = """
profile = "fr-2007"
seats = [1, 3, 4, 6]
seed = 7

[[coup]]
deck = "Ah Kd 7c 2s Qh 9d Js Td 3c 8h 5s 4d 6h Ac Kh 9s 2d Qc 8d 7h 5c 3s 6d 4c Jd"
bets = { 1 = { ante = 1000, bonus = 50 }, 3 = { ante = 2500 }, 4 = { ante = 3500 }, 6 = { ante = 1500 } }
decisions = { 1 = "raise", 3 = "fold", 4 = "raise", 6 = "raise" }
"""


@pytest.fixture(scope="module")
def film():
    layout = load_layout()
    timeline = build_timeline(parse_script(SCRIPT))
    steps = timeline.opening + timeline.coups[0].steps
    renderer = Renderer(layout, TableCamera(), seed=5)  # svg-standard: the demo's deck, never trained on
    first = renderer.render(steps_scene(steps), 0)
    cal = calibrate(first, layout)
    reader = TableReader(layout, cal.table_to_image)
    ARTIFACTS.mkdir(exist_ok=True)
    REPORT.unlink(missing_ok=True)
    video = cv2.VideoWriter(str(ARTIFACTS / "coup.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 10, (960, 540))
    try:
        report = replay(steps, renderer, reader, Tracker(stagger=hand_stagger(layout)),
                        on_frame=lambda frame, _scene, _reading: video.write(cv2.resize(frame, (960, 540))))
    finally:
        video.release()
    return report


def steps_scene(steps):
    from controller.sim.scene import SceneState
    from controller.sim.world import SceneChange

    return next((s.scene for s in steps if isinstance(s, SceneChange)), SceneState())


def test_every_card_is_found_in_its_zone_in_the_order_dealt(film) -> None:
    placed = [key for key in film.expected if key[0] == "placed"]
    assert len(placed) >= 25
    missed = [d for d in film.differences if d[2][0] == "placed"]
    assert missed == [], f"{film.matched} of {len(film.expected)} observations right; cards: {missed}"
    assert film.orders == sorted(film.orders) and len(set(film.orders)) == len(film.orders)


def _share_right(film, kind: str) -> float:
    wanted = Counter(k for k in film.expected if k[0] == kind)
    assert wanted, f"the script gives no {kind} observation"
    right = (wanted & Counter(k for k in film.seen if k[0] == kind)).total()
    figures = json.loads(REPORT.read_text()) if REPORT.exists() else {}
    figures[kind] = {"right": right, "expected": wanted.total()}
    REPORT.write_text(json.dumps(figures, indent=1))
    return right / wanted.total()


def test_face_up_cards_identified(film) -> None:
    assert _share_right(film, "identified") == 1.0


def test_no_face_down_card_is_reported_exposed(film) -> None:
    assert [k for k in film.seen if k[0] == "exposed"] == []


def test_zones_chip_values(film) -> None:
    assert _share_right(film, "chips") == 1.0


def test_cards_taken_away_are_seen_removed(film) -> None:
    """The folded hand, the discard before the bought card, and the cards collected at the end of the coup."""
    assert _share_right(film, "removed") == 1.0
