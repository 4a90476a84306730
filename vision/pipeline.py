"""The vision process (``stud-table vision``): camera -> calibrated felt -> table reader (detector, index reader,
chip counter, stack reader) -> tracker -> bus.

- Frames come from ``vision.capture`` (a V4L2 device, a file, a stream, picamera2, or the virtual table's camera);
  the grabber keeps only the newest, so a slow frame drops the ones behind it instead of queueing them. When the
  camera drops out or comes back, ``CameraStatus`` goes on the bus.
- The calibration (``stud-table calibrate``) maps the frame to the felt; when the table has none yet, the first frame
  where the markers are seen makes one, saved where the configuration says.
- The tracker follows the engine's state (``core.state``) for the phase and the coup, and its events go on the bus
  as ``vision.card`` / ``vision.chips``.
- For each flag the engine raises (``core.flag``), the newest frame is written as evidence (boxes and zones drawn,
  the flagged seat's zones in red) and announced with ``EvidenceSaved``; the engine files it under the flag.
"""

from __future__ import annotations

import gc
import logging
import queue
import time
from dataclasses import dataclass

import numpy as np
import zmq

from controller.bus.clone import SnapshotTimeout, request_snapshot
from controller.bus.keys import bus_context, engine_key, keys_at
from controller.bus.schema import CameraCaughtUp, CameraStatus, EvidenceSaved, FlagRaised, TableState
from controller.bus.transport import Publisher, Subscriber
from controller.config import TableConfig
from controller.felt.layout import DEFAULT_LAYOUT, Layout, load_layout
from vision.calibrate import (
    Calibration,
    CalibrationError,
    calibrate,
    find_markers,
    load_calibration,
    markers_moved,
    save_calibration,
)
from vision.capture import Frame, FrameGrabber, open_source
from vision.catch_up import CatchUp, Press
from vision.evidence import draw_evidence, save_evidence
from vision.table_reader import FrameReading, TableReader
from vision.tracker import TOPICS, Event, Observation, Tracker, hand_stagger

log = logging.getLogger(__name__)


def observations(reading: FrameReading) -> tuple[list[Observation], list[tuple[int, str]]]:
    """The reader's zone observations in the tracker's terms (chips labelled by their value in cents)."""
    found = [Observation(seen.seat, seen.area, seen.kind, int(seen.label) if seen.kind == "chip" else seen.label,
                         seen.x_mm, seen.y_mm, seen.confidence, seen.held, seen.identity_certainty, seen.alternative,
                         seen.stacked)
             for seen in reading.observations]
    return found, sorted(reading.occluded)


#: while the felt cannot be calibrated, try again this often (seconds)
CALIBRATION_RETRY_S = 2.0
#: how often the felt's markers are looked for again, to notice a knocked camera (seconds)
MARKER_CHECK_S = 2.0
#: markers moved this far (median over those seen, pixels) in two checks in a row: the camera was knocked
KNOCKED_PX = 3.0


@dataclass
class VisionStats:
    frames: int = 0
    events: int = 0
    evidence: int = 0
    read_seconds: float = 0.0


class VisionProcess:
    def __init__(self, config: TableConfig, context: zmq.Context) -> None:
        self.config = config
        self.layout: Layout = load_layout(config.camera_layout or DEFAULT_LAYOUT)
        self.calibration_path = config.camera_calibration
        self.calibration: Calibration | None = None
        if self.calibration_path.exists():
            try:
                self.calibration = load_calibration(self.calibration_path)
                if self.calibration.layout != self.layout.name:
                    raise CalibrationError(f"made for the layout {self.calibration.layout!r}, "
                                           f"not {self.layout.name!r}")
            except CalibrationError as error:
                log.error("vision: calibration %s unusable (%s): calibrating on the first frames",
                          self.calibration_path, error)
                self.calibration = None
        self._calibration_failed: str | None = None
        self._next_calibration = 0.0
        #: the markers as found when the camera was last calibrated (or first checked), and the next check's time
        self._markers_then: dict[int, np.ndarray] | None = None
        self._next_marker_check = 0.0
        self._moved_checks = 0
        self.reader: TableReader | None = None
        self.tracker = Tracker(stagger=hand_stagger(self.layout))
        self.publisher = Publisher(context, config.bus_publish, "vision", heartbeat_topic="vision.heartbeat",
                                   acknowledged_at=config.bus_subscribe)
        # all of core.*: the engine's heartbeats and sequence numbers run over all its topics
        self.subscriber = Subscriber(context, config.bus_subscribe, ("core.",))
        self.stats = VisionStats()
        self._status: queue.Queue[tuple[bool, str]] = queue.Queue()  # from the grabber's thread
        self._last: tuple[Frame, FrameReading] | None = None
        #: the presses the engine holds until this camera has caught up with them
        self.catch_up = CatchUp()
        self._stopping = False
        keys = keys_at(config.bus_keys)
        self.grabber = FrameGrabber(lambda: open_source(config.camera_source, keys=keys),
                                    on_status=lambda online, detail: self._status.put((online, detail)))
        self._join_mid_coup(context)

    def _join_mid_coup(self, context: zmq.Context) -> None:
        """Started (or restarted) in the middle of a coup: take the phase from the engine's snapshot."""
        try:
            self.tracker.follow(request_snapshot(context, self.config.bus_snapshot, timeout_ms=1000,
                                                 engine_key=engine_key(self.config.bus_keys))["state"])
        except (SnapshotTimeout, KeyError, ValueError) as error:
            log.info("vision: no table state from the engine yet (%s): it comes with its next update", error)

    def stop(self) -> None:
        self._stopping = True

    def run(self) -> None:
        while not self._stopping and not self.grabber.finished:
            self.step(0.2)
        if self.grabber.finished:
            log.warning("vision: the camera's file has ended")
        self._tell(self.catch_up.release())  # decided, held for a press: told before the process goes

    def step(self, timeout_s: float) -> None:
        self._publish_status()
        self._follow_engine()
        frame = self.grabber.latest(timeout_s)
        if frame is not None:
            self.process(frame)

    def _publish_status(self) -> None:
        while True:
            try:
                online, detail = self._status.get_nowait()
            except queue.Empty:
                return
            log.warning("vision: camera %s (%s)", "online" if online else "OFFLINE", detail)
            self.publisher.publish("vision.camera", CameraStatus(online, detail, answers_waits=online))
            if not online:  # the engine lets every held press through: what was held behind them follows
                self._tell(self.catch_up.release())

    def _follow_engine(self) -> None:
        while (message := self.subscriber.receive(0)) is not None:
            body = message[1].body
            if isinstance(body, TableState):
                try:
                    self.tracker.follow(body.state)
                except ValueError as error:
                    log.error("vision: %s", error)
                self._tell(self.catch_up.follow(body.state.get("awaiting_camera")))
                if self.reader is None:  # nothing is read: nothing to catch up with
                    self._tell(self.catch_up.all())
            elif isinstance(body, FlagRaised):
                self.write_evidence(body)

    def _tell(self, told: list[Press | Event]) -> None:
        """Publish, in order, the tracker's events and the presses caught up with."""
        for what in told:
            if isinstance(what, tuple):
                self.publisher.publish("vision.camera", CameraCaughtUp(*what))
            else:
                self.publisher.publish(TOPICS[type(what)], what)
                self.stats.events += 1

    def _ensure_reader(self, image: np.ndarray) -> bool:
        size = (image.shape[1], image.shape[0])
        if self.reader is not None and self.calibration is not None and self.calibration.image_size == size:
            return True
        if self.calibration is None or self.calibration.image_size != size:
            if time.monotonic() < self._next_calibration:
                return False
            self._next_calibration = time.monotonic() + CALIBRATION_RETRY_S
            try:
                self.calibration = calibrate(image, self.layout, created=time.strftime("%Y-%m-%dT%H:%M:%S"))
            except CalibrationError as error:
                self.calibration = None
                if self._calibration_failed != str(error):  # said once, not at every frame: the store keeps all
                    self._calibration_failed = str(error)
                    log.error("vision: cannot calibrate: %s", error)
                    self.publisher.publish("vision.camera", CameraStatus(False, f"not calibrated: {error}"))
                return False
            if self._calibration_failed is not None:
                self._calibration_failed = None
                self.publisher.publish("vision.camera", CameraStatus(True, "calibrated", answers_waits=True))
            save_calibration(self.calibration, self.calibration_path)
            self._markers_then = None  # the next check takes this felt's markers as where they belong
            log.info("vision: calibrated (RMS %.2f mm, markers %s, %dx%d) -> %s", self.calibration.rms_mm,
                     list(self.calibration.markers), *size, self.calibration_path)
        loading = time.perf_counter()
        self.reader = TableReader(self.layout, self.calibration.table_to_image)
        log.info("vision: reader ready in %.1f s (its ONNX models loaded)",
                 time.perf_counter() - loading)
        return True

    def process(self, frame: Frame) -> list[object]:
        image = frame.image
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            log.error("vision: frame %s is %s %s, not a colour image: skipped", frame.number, image.shape, image.dtype)
            return []
        if not self._ensure_reader(image):
            return []
        if time.monotonic() >= self._next_marker_check:
            self._next_marker_check = time.monotonic() + MARKER_CHECK_S
            self._check_markers(image)
        assert self.reader is not None
        started = time.perf_counter()
        try:
            reading = self.reader.read(image)
        except Exception:  # a model that cannot run on this frame must not stop the camera: the next one may do
            log.exception("vision: frame %s could not be read", frame.number)
            return []
        self.stats.read_seconds += time.perf_counter() - started
        self.stats.frames += 1
        self._last = (frame, reading)
        found, occluded = observations(reading)
        if self.tracker.last_ms is not None and frame.t_ms < self.tracker.last_ms:
            log.warning("vision: the camera's clock went back (%d ms after %d ms): tracking starts again",
                        frame.t_ms, self.tracker.last_ms)
            self._tell(self.catch_up.release())  # held by times of the old clock
            self.tracker.restart_clock()
        timed = self.tracker.track_timed(frame.t_ms, found, occluded)
        if self.catch_up:  # the tracker's undecided changes are looked through only while a press waits
            self._tell(self.catch_up.frame_read(frame.t_ms, self.tracker.undecided_since(), timed))
        else:
            self._tell([event for _began, event in timed])
        return [event for _began, event in timed]

    def _check_markers(self, image: np.ndarray) -> None:
        """A knocked camera: the felt's markers are no longer where they were. Seen in two checks in a row (an arm
        over a marker hides it, it does not move it), the felt is calibrated again on this frame and the knock goes
        on the bus."""
        found = find_markers(image)
        if self._markers_then is None:
            self._markers_then = found
            return
        moved = markers_moved(self._markers_then, found)
        if moved is None:
            return
        self._moved_checks = self._moved_checks + 1 if moved > KNOCKED_PX else 0
        if self._moved_checks < 2:
            return
        try:
            calibration = calibrate(image, self.layout, created=time.strftime("%Y-%m-%dT%H:%M:%S"))
        except CalibrationError as error:
            log.error("vision: the camera moved %.1f px and cannot be calibrated again: %s", moved, error)
            return
        assert self.reader is not None
        self.calibration, self._markers_then, self._moved_checks = calibration, found, 0
        save_calibration(calibration, self.calibration_path)
        self.reader = TableReader(self.layout, calibration.table_to_image, detector=self.reader.detector)
        log.warning("vision: the camera moved (markers %.1f px from where they were): calibrated again (RMS %.2f mm)",
                    moved, calibration.rms_mm)
        self.publisher.publish("vision.camera", CameraStatus(True, f"camera moved {moved:.0f} px: calibrated again",
                                                             moved_px=round(moved, 1), answers_waits=True))

    def write_evidence(self, flag: FlagRaised) -> None:
        if self._last is None or self.calibration is None:
            log.warning("vision: no frame to file as evidence for flag %s", flag.kind)
            return
        frame, reading = self._last
        highlight = [z.name for z in self.layout.zones if flag.seat is not None and z.seat == flag.seat]
        try:
            image = draw_evidence(frame.image, self.layout, self.calibration, reading.observations, highlight)
            digest, path = save_evidence(image, self.config.evidence_dir)
        except (CalibrationError, OSError) as error:
            log.error("vision: no evidence for flag %s (event %d): %s", flag.kind, flag.event_id, error)
            return
        self.publisher.publish("vision.evidence", EvidenceSaved(digest, path.name, "image/jpeg", flag.event_id,
                                                                f"{flag.kind}: frame {frame.number}"))
        self.stats.evidence += 1

    def close(self) -> None:
        """The grabber's thread joined, the sockets closed, and the models released here, in order: an ONNX Runtime
        session (or torch's pool) left for the interpreter's exit to destroy, its threads still running, can abort
        it ("terminate called without an active exception")."""
        self.grabber.close()
        self.publisher.close()
        self.subscriber.close()
        self.reader = None
        self._last = None
        gc.collect()


def cmd_vision(config: TableConfig) -> int:
    from controller.shutdown import STOP, term_context

    context = bus_context(config.bus_keys, "vision")  # with keys, the virtual camera has a context of its own
    process = VisionProcess(config, context)  # a SIGINT or SIGTERM while it starts is recorded: it stops at once
    callback = STOP.on_stop(process.stop)  # STOP's handler: installed by ``controller.cli.main``
    try:
        process.run()
    finally:
        STOP.forget(callback)
        log.info("vision: %d frames, %.3f s per frame read, %d events, %d evidence images%s", process.stats.frames,
                 process.stats.read_seconds / max(1, process.stats.frames), process.stats.events,
                 process.stats.evidence, f"; stopped on {STOP.describe()}" if STOP.requested else "")
        process.close()
    term_context(context)
    return 0

