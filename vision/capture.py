"""Frame sources for the overhead camera, and a grabber that always hands the detector the newest frame.

Sources (``open_source(spec)``):

- ``0`` or ``/dev/video0``: a V4L2 camera through OpenCV;
- a video file, or an ``rtsp://``, ``http://`` or ``https://`` stream, through OpenCV;
- ``picamera2``: the Raspberry Pi camera, where the module is installed;
- ``zmq+ipc:///path`` or ``zmq+tcp://host:port``: the virtual camera. It binds a ZeroMQ PULL socket there and
  receives JPEG frames that the virtual table PUSHes with ``VirtualCameraSender``, as two-part messages
  ``[header JSON {"frame": n, "t_ms": t}, JPEG bytes]``. With the bus's keys, that socket is a CURVE server with
  the vision role's key pair, and takes frames from the simulator's key only; its ipc file is 0600.

``FrameGrabber`` reads a source on its own thread and keeps only the newest frame, so a detector slower than the
camera always works on the present, never on a queue. When the camera stops giving frames it says so through a
callback (the pipeline publishes ``CameraStatus`` on the bus), reopens it with a growing pause, and says so again
when frames come back.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

import cv2
import numpy as np
import zmq

from controller.bus.keys import Keys, OffBusServer, keyed_client
from controller.errors import StudTableError

log = logging.getLogger(__name__)

STREAM_SCHEMES = ("rtsp://", "rtsps://", "http://", "https://")
ZMQ_PREFIX = "zmq+"


class SourceError(StudTableError, RuntimeError):
    """A camera source that cannot be opened or read; the message names the source and why."""


class Frame(NamedTuple):
    number: int  # 1, 2, 3... as the source numbered them
    t_ms: int  # the source's time: video time for a file, the sender's for the virtual camera, else monotonic
    image: np.ndarray  # BGR


class FrameSource(Protocol):
    description: str
    live: bool  # a camera or a stream; a file is not: its end is the end
    ended: bool  # a file read to its end
    dropped: int  # frames the source itself skipped to reach the newest

    def read(self, timeout_s: float) -> Frame | None: ...

    def close(self) -> None: ...


def _monotonic_ms() -> int:
    return time.monotonic_ns() // 1_000_000


class OpenCVSource:
    """A V4L2 camera, a stream or a video file through ``cv2.VideoCapture``."""

    dropped = 0

    def __init__(self, target: int | str, description: str, live: bool, read_timeout_s: float = 5.0) -> None:
        self.description, self.live, self.ended = description, live, False
        self._count = 0
        if isinstance(target, int) or target.startswith("/dev/"):
            self._capture = cv2.VideoCapture(target, cv2.CAP_V4L2)
        elif live:
            # A stream must not block for ever: let the backend give up so the grabber can reconnect.
            timeout_ms = int(read_timeout_s * 1000)
            self._capture = cv2.VideoCapture(target, cv2.CAP_ANY, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, timeout_ms,
                                                                   cv2.CAP_PROP_READ_TIMEOUT_MSEC, timeout_ms])
        else:
            self._capture = cv2.VideoCapture(target)
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceError(f"OpenCV cannot open {description}")

    def read(self, timeout_s: float) -> Frame | None:
        """The next frame; OpenCV's read blocks on its own, so the timeout is the backend's, not ``timeout_s``."""
        ok, image = self._capture.read()
        if not ok or image is None:
            self.ended = not self.live
            return None
        self._count += 1
        t_ms = int(self._capture.get(cv2.CAP_PROP_POS_MSEC)) if not self.live else _monotonic_ms()
        return Frame(self._count, t_ms, image)

    def close(self) -> None:
        self._capture.release()


class Picamera2Source:
    """The Raspberry Pi camera through picamera2 (imported only when asked for)."""

    live, ended, dropped = True, False, 0

    def __init__(self, size: tuple[int, int] = (1920, 1080)) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise SourceError("picamera2 is not installed here: use a V4L2 device such as 0 or /dev/video0") from None
        self.description = f"picamera2 {size[0]}x{size[1]}"
        self._count = 0
        self._camera = Picamera2()
        # RGB888 is laid out B, G, R in memory: OpenCV's order.
        self._camera.configure(self._camera.create_video_configuration(main={"size": size, "format": "RGB888"}))
        self._camera.start()

    def read(self, timeout_s: float) -> Frame | None:
        try:
            image = self._camera.capture_array("main")
        except Exception as error:  # the driver's errors are not typed; a failed read is a missing frame
            log.warning("picamera2: %s", error)
            return None
        self._count += 1
        return Frame(self._count, _monotonic_ms(), image)

    def close(self) -> None:
        self._camera.close()


class VirtualCamera:
    """Receives the virtual table's JPEG frames on a bound PULL socket, keeping only the newest of those waiting."""

    live, ended = True, False

    def __init__(self, endpoint: str, context: zmq.Context | None = None, keys: Keys | None = None) -> None:
        """``keys``: the table's bus keys: the socket is then a CURVE server with the vision role's key pair that
        takes frames from the simulator's key only (in a context of its own)."""
        self.description = f"virtual camera {ZMQ_PREFIX}{endpoint}"
        self.dropped = 0
        self.bad_messages = 0
        try:
            self._server = OffBusServer(endpoint, zmq.PULL, keys, "vision", ("simulator",), context,
                                        options=((zmq.RCVHWM, 2),))
        except (zmq.ZMQError, OSError) as error:
            raise SourceError(f"{self.description}: cannot bind: {error}") from None
        self._socket = self._server.socket

    def read(self, timeout_s: float) -> Frame | None:
        if not self._socket.poll(int(timeout_s * 1000)):
            return None
        newest = self._socket.recv_multipart()
        while True:  # drain what waits: the JPEG decoding is only worth it for the newest
            try:
                message = self._socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            self.dropped += 1
            newest = message
        try:
            return self._decode(newest)
        except ValueError as error:
            self.bad_messages += 1
            log.warning("%s: message dropped: %s", self.description, error)
            return None

    @staticmethod
    def _decode(message: list[bytes]) -> Frame:
        if len(message) != 2:
            raise ValueError(f"expected 2 parts (header, JPEG), got {len(message)}")
        try:
            header = json.loads(message[0])
            number, t_ms = header["frame"], header["t_ms"]
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(f"bad header {message[0][:80]!r}: {error}") from None
        if not isinstance(number, int) or not isinstance(t_ms, int):
            raise ValueError(f"header frame and t_ms must be integers, got {message[0][:80]!r}")
        image = cv2.imdecode(np.frombuffer(message[1], np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"frame {number}: {len(message[1])} bytes that are not a JPEG image")
        return Frame(number, t_ms, image)

    def close(self) -> None:
        self._server.close()


class VirtualCameraSender:
    """The virtual table's side: PUSHes rendered frames as JPEG; a frame the camera cannot take now is dropped."""

    def __init__(self, spec: str, context: zmq.Context | None = None, quality: int = 90,
                 keys: Keys | None = None) -> None:
        """``keys``: the table's bus keys, for a camera that takes frames from the simulator's key only."""
        self.endpoint = _zmq_endpoint(spec)
        self.quality = quality
        self.sent = 0
        self.dropped = 0
        self._number = 0
        self._context = context or zmq.Context.instance()
        self._socket = self._context.socket(zmq.PUSH)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.SNDHWM, 2)
        keyed_client(self._socket, keys, "simulator", "vision")
        self._socket.connect(self.endpoint)

    def send(self, image: np.ndarray, t_ms: int, number: int | None = None) -> int | None:
        """Send one BGR frame; the frame's number, or None when it was dropped (the camera is behind or away)."""
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            raise ValueError(f"cannot encode a {image.shape} {image.dtype} array as JPEG")
        self._number = self._number + 1 if number is None else number
        header = json.dumps({"frame": self._number, "t_ms": int(t_ms)}).encode()
        try:
            self._socket.send_multipart([header, jpeg.tobytes()], zmq.NOBLOCK)
        except zmq.Again:
            self.dropped += 1
            return None
        self.sent += 1
        return self._number

    def close(self) -> None:
        self._socket.close()


def _zmq_endpoint(spec: str) -> str:
    endpoint = spec.removeprefix(ZMQ_PREFIX)
    if endpoint.startswith("ipc://"):
        if len(endpoint) == len("ipc://"):
            raise SourceError(f"camera source {spec!r}: no socket path after ipc://")
        return endpoint
    if endpoint.startswith("tcp://"):
        host, _, port = endpoint[len("tcp://"):].rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise SourceError(f"camera source {spec!r}: expected zmq+tcp://host:port")
        return endpoint
    raise SourceError(f"camera source {spec!r}: the virtual camera speaks zmq+ipc:///path or zmq+tcp://host:port")


def open_source(spec: str, context: zmq.Context | None = None, keys: Keys | None = None) -> FrameSource:
    """Open the camera that ``spec`` names (see the module's doc); ``SourceError`` says what was wrong. ``keys``:
    the bus's, which the virtual camera's socket then uses too."""
    spec = spec.strip()
    if not spec:
        raise SourceError("empty camera source: give a device (0, /dev/video0), a file, a URL, picamera2 or zmq+...")
    if spec.startswith(ZMQ_PREFIX):
        return VirtualCamera(_zmq_endpoint(spec), context, keys)
    if spec == "picamera2":
        return Picamera2Source()
    if spec.isdigit():
        return OpenCVSource(int(spec), f"camera {spec}", live=True)
    if spec.startswith("/dev/"):
        return OpenCVSource(spec, f"camera {spec}", live=True)
    if spec.startswith(STREAM_SCHEMES):
        return OpenCVSource(spec, f"stream {spec}", live=True)
    if "://" in spec:
        raise SourceError(f"camera source {spec!r}: unknown scheme (expected {', '.join(STREAM_SCHEMES)} or zmq+)")
    if not Path(spec).is_file():
        raise SourceError(f"camera source {spec!r}: no such video file")
    return OpenCVSource(spec, f"video file {spec}", live=False)


@dataclass
class GrabberStats:
    frames: int = 0  # frames that came from the source, skipped ones included
    dropped: int = 0  # frames never handed out: replaced by a newer one, or skipped by the source
    reconnects: int = 0


StatusCallback = Callable[[bool, str], None]


class FrameGrabber:
    """Reads a source on a thread, keeps only the newest frame, and reopens the source when it fails.

    ``on_status(online, detail)`` is called on the grabber's thread each time the camera comes online or goes
    offline: when it cannot be opened, when it gives no frame for ``stall_s`` seconds, when a file ends.
    """

    def __init__(self, opener: str | Callable[[], FrameSource], on_status: StatusCallback | None = None,
                 stall_s: float = 3.0, backoff_s: float = 0.5, max_backoff_s: float = 10.0,
                 poll_s: float = 0.1) -> None:
        self._open = (lambda: open_source(opener)) if isinstance(opener, str) else opener
        self.on_status = on_status
        self.stall_s, self.backoff_s, self.max_backoff_s, self.poll_s = stall_s, backoff_s, max_backoff_s, poll_s
        self.stats = GrabberStats()
        self.online: bool | None = None  # None until the first frame or failure
        self.finished = False  # a file read to its end
        self._newest: Frame | None = None
        self._source_dropped = 0
        self._condition = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="frame-grabber", daemon=True)
        self._thread.start()

    def latest(self, timeout: float | None = None) -> Frame | None:
        """The newest frame not yet handed out, waiting up to ``timeout`` seconds; None if none came."""
        with self._condition:
            if not self._condition.wait_for(lambda: self._newest is not None or self.finished, timeout):
                return None
            frame, self._newest = self._newest, None
            return frame

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def _report(self, online: bool, detail: str) -> None:
        if self.online is online:
            return
        self.online = online
        (log.info if online else log.warning)("camera %s: %s", "online" if online else "offline", detail)
        if self.on_status:
            self.on_status(online, detail)

    def _run(self) -> None:
        backoff = self.backoff_s
        source: FrameSource | None = None
        try:
            while not self._stop.is_set():
                if source is None:
                    try:
                        source = self._open()
                    except Exception as error:  # noqa: BLE001 - any driver's failure: report, back off, retry
                        self._report(False, str(error) if isinstance(error, SourceError)
                                     else f"cannot open the camera: {type(error).__name__}: {error}")
                        self._stop.wait(backoff)
                        backoff = min(backoff * 2, self.max_backoff_s)
                        continue
                    self._source_dropped, last_frame_at = 0, time.monotonic()
                try:
                    frame = source.read(self.poll_s)
                except Exception as error:  # noqa: BLE001 - a driver error mid-stream: as a camera gone, reopen
                    self._report(False, f"{source.description}: {type(error).__name__}: {error}")
                    source.close()
                    source = None
                    self.stats.reconnects += 1
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.max_backoff_s)
                    continue
                if frame is not None:
                    self._keep(frame, source.dropped)
                    last_frame_at, backoff = time.monotonic(), self.backoff_s
                    self._report(True, source.description)
                    continue
                if source.ended:
                    self._report(False, f"{source.description} ended")
                    with self._condition:
                        self.finished = True
                        self._condition.notify_all()
                    return
                if time.monotonic() - last_frame_at >= self.stall_s:
                    self._report(False, f"{source.description}: no frame for {self.stall_s:g} s")
                    source.close()
                    source = None
                    self.stats.reconnects += 1
                    self._stop.wait(backoff)
                    backoff = min(backoff * 2, self.max_backoff_s)
        finally:
            if source is not None:
                source.close()

    def _keep(self, frame: Frame, source_dropped: int) -> None:
        with self._condition:
            skipped = source_dropped - self._source_dropped
            self.stats.frames += 1 + skipped
            self.stats.dropped += skipped + (self._newest is not None)
            self._source_dropped = source_dropped
            self._newest = frame
            self._condition.notify_all()
