"""The virtual table's camera: the scene drawn as overhead frames (``render.py``) and streamed, as a camera would,
to the real vision process (``stud-table vision``, source ``zmq+ipc://...``), which reads them with the committed
models and publishes what it sees. Frames go out at a steady rate on a thread of their own, whatever the table is
doing; while the scene says the camera is unplugged, none go out at all.

Card art and seed are kept apart from the training data: the KDE ``svg-standard`` deck, which no model trained on.
"""

from __future__ import annotations

import threading
import time

import zmq

from controller.bus.schema import AnyBody
from controller.felt.layout import DEFAULT_LAYOUT, load_layout
from vision.capture import VirtualCameraSender

from .render import DEFAULT_DECK, Renderer, TableCamera
from .scene import SceneState
from .world import DirectVision


class RenderedCamera:
    """A ``SceneDriver`` that publishes nothing itself: what it shows, the vision process must see.

    ``expected`` holds, after each ``see``, the observations a perfect camera would publish for the change (the
    direct driver's); the virtual table waits for the vision process to publish as many before it goes on."""

    def __init__(self, context: zmq.Context, endpoint: str, seed: int = 0, size: tuple[int, int] = (1920, 1080),
                 fps: float = 6.0) -> None:
        layout = load_layout(DEFAULT_LAYOUT)
        camera = TableCamera(width=size[0], height=size[1], felt_mm=(layout.width, layout.height))
        self.renderer = Renderer(layout, camera, deck=DEFAULT_DECK, seed=seed)
        self.sender = VirtualCameraSender(endpoint, context)
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
            if scene.camera_online:
                t_ms = int((began - self._started) * 1000)
                self.sender.send(self.renderer.render(scene, t_ms), t_ms)
            self._stop.wait(max(0.0, period - (time.monotonic() - began)))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sender.close()
