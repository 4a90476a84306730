"""Camera sources and the newest-frame grabber: a real video file, the virtual camera over a real ipc:// socket."""

from __future__ import annotations

import contextlib
import stat
import threading
import time

import cv2
import numpy as np
import pytest
import zmq

from controller.bus.keys import Keys, create_keys, keyed_client
from vision.capture import FrameGrabber, SourceError, VirtualCamera, VirtualCameraSender, open_source

WAIT_S = 10.0  # a generous bound on waits for another thread; never a speed requirement


def grey(level: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    return np.full((size[1], size[0], 3), level, np.uint8)


def wait_until(predicate, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class Statuses:
    """Collects a grabber's status reports."""

    def __init__(self) -> None:
        self.reports: list[tuple[bool, str]] = []
        self._lock = threading.Lock()

    def __call__(self, online: bool, detail: str) -> None:
        with self._lock:
            self.reports.append((online, detail))

    def count(self, online: bool) -> int:
        with self._lock:
            return sum(1 for o, _ in self.reports if o is online)


@pytest.fixture
def video(tmp_path):
    path = tmp_path / "coup.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for i in range(10):
        writer.write(grey(20 + 20 * i))
    writer.release()
    return path


@pytest.fixture
def endpoint(tmp_path):
    return f"zmq+ipc://{tmp_path}/camera.sock"


def test_a_video_file_is_read_in_order_with_its_own_time_then_ends(video):
    source = open_source(str(video))
    frames = []
    while (frame := source.read(0.1)) is not None:
        frames.append(frame)
    source.close()
    assert source.ended and not source.live
    assert [f.number for f in frames] == list(range(1, 11))
    assert [round(float(f.image.mean())) for f in frames] == pytest.approx([20 + 20 * i for i in range(10)], abs=3)
    times = [f.t_ms for f in frames]
    assert times == sorted(times) and times[-1] - times[0] == pytest.approx(900, abs=1)  # 10 frames a second


def test_the_grabber_hands_out_the_newest_frame_of_a_file_and_reports_its_end(video):
    statuses = Statuses()
    grabber = FrameGrabber(str(video), statuses, stall_s=5.0)
    wait_until(lambda: grabber.finished, "the end of the file")
    frame = grabber.latest(timeout=1.0)
    grabber.close()
    assert frame is not None and frame.number == 10  # the detector never saw 1..9: they were not queued
    assert grabber.stats.frames == 10 and grabber.stats.dropped == 9
    assert grabber.latest(timeout=0.05) is None
    assert statuses.reports[0][0] is True
    assert statuses.reports[-1] == (False, f"video file {video} ended")


def test_the_virtual_camera_drops_frames_it_cannot_take_and_keeps_the_newest(endpoint):
    context = zmq.Context()
    grabber = FrameGrabber(lambda: open_source(endpoint, context), stall_s=5.0)
    sender = VirtualCameraSender(endpoint, context)
    try:
        sent = [n for i in range(60) if (n := sender.send(grey(i * 4), t_ms=1000 + 40 * i)) is not None]
        assert sent and sender.sent == len(sent) and sender.sent + sender.dropped == 60
        # a slow detector: it asks only once everything sent has reached the grabber
        wait_until(lambda: grabber.stats.frames == len(sent), "the frames to arrive")
        frame = grabber.latest(timeout=1.0)
        assert frame is not None and frame.number == sent[-1] and frame.t_ms == 1000 + 40 * (sent[-1] - 1)
        assert round(float(frame.image.mean())) == pytest.approx((sent[-1] - 1) * 4, abs=3)
        assert grabber.stats.dropped == len(sent) - 1
        assert grabber.latest(timeout=0.1) is None  # nothing queued behind it
    finally:
        sender.close()
        grabber.close()
        context.term()


def test_with_keys_the_virtual_camera_takes_frames_from_the_simulators_key_only(endpoint, tmp_path):
    """The frames decide what the table sees: with the bus's keys, a sender without keys, or with another role's
    key, is never heard; the simulator's key is."""
    create_keys(tmp_path / "keys", simulator=True)
    keys = Keys(tmp_path / "keys")
    context = zmq.Context()
    camera = VirtualCamera(endpoint.removeprefix("zmq+"), keys=keys)
    strangers = [VirtualCameraSender(endpoint, context)]  # no keys
    simulator = VirtualCameraSender(endpoint, context, keys=keys)
    other_role = context.socket(zmq.PUSH)  # a table process's key, not the simulator's
    other_role.setsockopt(zmq.LINGER, 0)
    keyed_client(other_role, keys, "sensors", "vision")
    other_role.connect(endpoint.removeprefix("zmq+"))
    try:
        assert stat.S_IMODE((tmp_path / "camera.sock").stat().st_mode) == 0o600
        # the strangers alone for a second: nothing reaches the camera, not even to be dropped for a newer frame
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            strangers[0].send(grey(200), t_ms=0)
            with contextlib.suppress(zmq.Again):  # nobody takes it
                other_role.send_multipart([b'{"frame": 1, "t_ms": 0}', cv2.imencode(".jpg", grey(200))[1].tobytes()],
                                          zmq.NOBLOCK)
            assert camera.read(0.05) is None
        assert camera.dropped == camera.bad_messages == 0
        received = []
        deadline = time.monotonic() + WAIT_S
        while len(received) < 5 and time.monotonic() < deadline:
            strangers[0].send(grey(200), t_ms=0)
            with contextlib.suppress(zmq.Again):  # nobody takes it
                other_role.send_multipart([b'{"frame": 1, "t_ms": 0}', cv2.imencode(".jpg", grey(200))[1].tobytes()],
                                          zmq.NOBLOCK)
            simulator.send(grey(50), t_ms=0)
            frame = camera.read(0.05)
            if frame is not None:
                received.append(round(float(frame.image.mean())))
        assert received and all(abs(mean - 50) <= 3 for mean in received), received
        assert len(received) == 5
    finally:
        for sender in (*strangers, simulator):
            sender.close()
        other_role.close()
        camera.close()
        context.term()


def test_the_virtual_camera_goes_offline_when_the_table_stops_and_online_when_it_restarts(endpoint):
    context = zmq.Context()
    statuses = Statuses()
    grabber = FrameGrabber(lambda: open_source(endpoint, context), statuses, stall_s=0.3, backoff_s=0.05,
                           max_backoff_s=0.2, poll_s=0.05)

    def table(stop: threading.Event) -> None:
        sender = VirtualCameraSender(endpoint, context)
        t = 0
        while not stop.wait(0.02):
            sender.send(grey(128), t_ms=t)
            t += 20
        sender.close()

    try:
        for round_ in (1, 2):
            stop = threading.Event()
            thread = threading.Thread(target=table, args=(stop,))
            thread.start()
            wait_until(lambda r=round_: statuses.count(True) == r, f"online #{round_}")
            assert grabber.latest(timeout=WAIT_S) is not None
            stop.set()
            thread.join()
            wait_until(lambda r=round_: statuses.count(False) == r, f"offline #{round_}")
        assert [online for online, _ in statuses.reports] == [True, False, True, False]
        assert statuses.reports[1][1].endswith("no frame for 0.3 s")
        assert grabber.stats.reconnects >= 1
    finally:
        grabber.close()
        context.term()


def test_the_virtual_camera_skips_a_message_that_is_not_a_frame(endpoint):
    context = zmq.Context()
    camera = open_source(endpoint, context)
    assert isinstance(camera, VirtualCamera)
    push = context.socket(zmq.PUSH)
    push.setsockopt(zmq.LINGER, 0)
    push.connect(endpoint.removeprefix("zmq+"))
    try:
        push.send_multipart([b'{"frame": 1, "t_ms": 0}', b"not a jpeg"])
        assert camera.read(WAIT_S) is None and camera.bad_messages == 1
        push.send_multipart([b"{}", cv2.imencode(".jpg", grey(50))[1].tobytes()])
        assert camera.read(WAIT_S) is None and camera.bad_messages == 2
    finally:
        push.close()
        camera.close()
        context.term()


def test_a_source_that_cannot_open_is_reported_offline_and_retried(tmp_path):
    statuses = Statuses()
    missing = tmp_path / "later.avi"
    grabber = FrameGrabber(str(missing), statuses, backoff_s=0.02, max_backoff_s=0.05)
    try:
        wait_until(lambda: statuses.count(False) == 1, "the offline report")
        assert statuses.reports == [(False, f"camera source {str(missing)!r}: no such video file")]
        assert grabber.latest(timeout=0.05) is None
    finally:
        grabber.close()


@pytest.mark.parametrize(("spec", "message"), [
    ("", "empty camera source"),
    ("   ", "empty camera source"),
    ("/no/such/coup.mp4", "no such video file"),
    ("ftp://camera/feed", "unknown scheme"),
    ("zmq+udp://camera:5555", "zmq\\+ipc:///path or zmq\\+tcp://host:port"),
    ("zmq+tcp://camera", "expected zmq\\+tcp://host:port"),
    ("zmq+ipc://", "no socket path"),
    ("picamera2", "picamera2 is not installed"),
    ("/dev/video99", "OpenCV cannot open camera /dev/video99"),
])
def test_a_bad_source_spec_gets_a_clear_error(spec, message):
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_a_file_opencv_cannot_read_is_refused(tmp_path):
    text = tmp_path / "notes.avi"
    text.write_text("not a video")
    with pytest.raises(SourceError, match=f"OpenCV cannot open video file {text}"):
        open_source(str(text))
