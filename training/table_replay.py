"""A whole coup filmed by the virtual table's camera and read back by the vision pipeline, frame by frame, offline.

Each scene change of a script's timeline is held for a few frames (the camera's pace), and longer while the tracker
has not yet published what a perfect camera would (as the virtual table waits for the vision process: a card taken
away counts as gone only after ``TrackerConfig.gone_ms``). Every frame goes through the table reader and the tracker,
and what the tracker publishes is compared, change by change, with what a perfect camera would publish
(``DirectVision``). Used by the overhead-video test and by ``benchmarks/vision.py``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from controller.bus.schema import CardPlaced
from controller.sim.render import Renderer
from controller.sim.scene import SceneState
from controller.sim.world import OBSERVED, ButtonPress, DirectVision, SceneChange, Step, observation_key
from vision.pipeline import observations
from vision.table_reader import FrameReading, TableReader
from vision.tracker import Tracker


@dataclass
class ReplayReport:
    frames: int = 0
    read_seconds: list[float] = field(default_factory=list)
    expected: list[tuple[object, ...]] = field(default_factory=list)
    seen: list[tuple[object, ...]] = field(default_factory=list)
    #: differences, change by change: (step number, "missed" or "extra", observation)
    differences: list[tuple[int, str, tuple[object, ...]]] = field(default_factory=list)
    #: the tracker's order of arrival of the cards it placed, in the order it published them
    orders: list[int] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return sum((Counter(self.expected) & Counter(self.seen)).values())


OnFrame = Callable[[np.ndarray, SceneState, FrameReading], None]


def replay(steps: list[Step], renderer: Renderer, reader: TableReader, tracker: Tracker, hold_frames: int = 6,
           frame_ms: int = 100, on_frame: OnFrame | None = None, wait_frames: int = 30) -> ReplayReport:
    """Film ``steps`` (scene changes held ``hold_frames`` frames each, up to ``wait_frames`` while the tracker has
    not published all a perfect camera would; button presses set the tracker's phase as the
    engine's state would) and compare the tracker's events with the perfect camera's. ``on_frame(frame, scene,
    reading)`` sees each frame, the scene it shows and what the reader made of it."""
    perfect = DirectVision()
    report = ReplayReport()
    t_ms = 0
    for number, step in enumerate(steps):
        if isinstance(step, ButtonPress):
            if step.button == "no_more_bets":
                tracker.new_coup()
                tracker.set_phase(True)
            elif step.button == "end_of_deal":
                tracker.set_phase(False)
            continue
        if not isinstance(step, SceneChange):
            continue
        wanted = [observation_key(b) for _topic, b in perfect.see(step.scene) if isinstance(b, OBSERVED)]
        got: list[tuple[object, ...]] = []
        if step.scene.camera_online:
            held = 0
            while held < hold_frames or (held < wait_frames and Counter(wanted) - Counter(got)):
                held += 1
                frame = renderer.render(step.scene, t_ms)
                started = time.perf_counter()
                reading = reader.read(frame)
                report.read_seconds.append(time.perf_counter() - started)
                found, occluded = observations(reading)
                for event in tracker.track(t_ms, found, occluded):
                    if isinstance(event, CardPlaced):
                        report.orders.append(event.order)
                    if isinstance(event, OBSERVED):
                        got.append(observation_key(event))
                report.frames += 1
                if on_frame is not None:
                    on_frame(frame, step.scene, reading)
                t_ms += frame_ms
        else:
            t_ms += frame_ms * hold_frames
        report.expected += wanted
        report.seen += got
        missing, extra = Counter(wanted) - Counter(got), Counter(got) - Counter(wanted)
        report.differences += [(number, "missed", key) for key in missing.elements()]
        report.differences += [(number, "extra", key) for key in extra.elements()]
    return report
