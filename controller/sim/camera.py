"""The virtual table's camera: the scene drawn as overhead frames (``render.py``) and streamed, as a camera would,
to the real vision process (``stud-table vision``, source ``zmq+ipc://...``), which reads them with the committed
models and publishes what it sees. Frames go out at a steady rate on a thread of their own, whatever the table is
doing; while the scene says the camera is unplugged, none go out at all.

Card art and seed are kept apart from the training data: the KDE ``svg-standard`` deck, which no model trained on.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import zmq

from controller.bus.keys import Keys
from controller.bus.schema import AnyBody
from controller.felt.layout import DEFAULT_LAYOUT, load_layout
from vision.capture import VirtualCameraSender

from .conditions import DEFAULT_FRAME_SIZE
from .render import DEFAULT_DECK, Renderer, TableCamera
from .scene import SceneState
from .world import DirectVision

#: with the ``knock`` condition, how long into the stream the camera is knocked (seconds)
KNOCK_AFTER_S = 60.0


def knocked(camera: TableCamera) -> TableCamera:
    """The camera after a knock: turned 0.4 degrees and shifted about 6 mm at the felt."""
    return replace(camera, roll_deg=camera.roll_deg + 0.4, offset=(camera.offset[0] + 0.003, camera.offset[1]))


class RenderedCamera:
    """A ``SceneDriver`` that publishes nothing itself: what it shows, the vision process must see.

    ``expected`` holds, after each ``see``, the observations a perfect camera would publish for the change (the
    direct driver's); the virtual table waits for the vision process to publish as many before it goes on."""

    def __init__(self, context: zmq.Context, endpoint: str, seed: int = 0, size: tuple[int, int] = DEFAULT_FRAME_SIZE,
                 fps: float = 6.0, conditions: frozenset[str] = frozenset(), keys: Keys | None = None) -> None:
        """``conditions``: the renderer's (``render.CONDITIONS``); with ``knock``, the camera is knocked
        ``KNOCK_AFTER_S`` into the stream. ``keys``: the table's bus keys, for a vision process that takes frames
        from the simulator's key only."""
        layout = load_layout(DEFAULT_LAYOUT)
        camera = TableCamera(width=size[0], height=size[1], felt_mm=(layout.width, layout.height))
        self.renderer = Renderer(layout, camera, deck=DEFAULT_DECK, seed=seed, conditions=conditions)
        self._knock_at = KNOCK_AFTER_S if "knock" in conditions else None
        self.sender = VirtualCameraSender(endpoint, context, keys=keys)
        self.fps = fps
        self.perfect = DirectVision()
        self.expected: list[tuple[str, AnyBody]] = []
        self._scene = SceneState()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._stream, name="virtual-camera", daemon=True)
        self._thread.start()

    def see(self, scene: SceneState) -> list[tuple[str, AnyBody]]:
        self.expected = self.perfect.see(scene)
        with self._lock:
            self._scene = scene
        return []

    def _stream(self) -> None:
        period = 1.0 / self.fps
        while not self._stop.is_set():
            began = time.monotonic()
            with self._lock:
                scene = self._scene
            if self._knock_at is not None and began - self._started >= self._knock_at:
                self._knock_at = None
                self.renderer.knock(knocked(self.renderer.camera))
            if scene.camera_online:
                t_ms = int((began - self._started) * 1000)
                self.sender.send(self.renderer.render(scene, t_ms), t_ms)
            self._stop.wait(max(0.0, period - (time.monotonic() - began)))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sender.close()
