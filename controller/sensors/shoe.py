"""The card shoe's serial link, host side: frames from the shoe's Pico in, events out, two requests back.

The wire protocol is firmware/protocol.py (the same file runs on the Pico), described in firmware/PROTOCOL.md.

:class:`ShoeLink` runs one thread that owns the serial port (pyserial, by path: best a stable one such as
``/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_...-if00``, which udev re-points when the cable is plugged
back). It blocks in ``read()`` (no busy loop), splits the bytes into frames, and calls
``on_event(kind, body)`` from that thread, never concurrently and never with a lock held:

    card_drawn      {"seq", "count", "duration_ms", "uptime_ms"}          one card through the beam
    cut_card_seen   {"seq", "count", "uptime_ms"}                          count = cards drawn before it
    status          {"seq", "reason": "request"|"boot"|"reset", "request_seq", "count", "cut_card_seen",
                     "beam_blocked", "uptime_ms", "protocol", "firmware_version", "reset_cause", "counters": {
                     "glitches", "blockages", "bad_frames", "lost_edges", "tx_errors"}}
    heartbeat       {"seq", "uptime_ms", "count", "cut_card_seen", "beam_blocked"}     once a second
    error           {"origin": "shoe", "seq", "code", "detail", "message"}  code: protocol.ERRORS' names
                    {"origin": "host", "code": "silent", "silent_s", "message"}  no valid frame for silence_timeout
    corrupt_frame   {"reason", "bytes", "total"}   dropped: bad CRC, bad length, not COBS, garbage... (reason:
                    protocol.FRAME_ERRORS' names; bytes: the chunk's length, for too_long those held before giving up)
    sequence_gap    {"expected", "received", "missing", "total_missing"}   frames lost between two good ones
    disconnected    {"port", "reason", "initial"}  the port failed or vanished (initial: it never opened)
    reconnected     {"port", "initial", "attempts", "down_s"}  the port is open (again; initial: the first time)

After each (re)connection it sends a STATUS_REQUEST, so the next "status" gives the count as the shoe has it,
and the sequence check starts afresh (frames lost while the port was closed are not counted as a gap: the shoe
may have restarted). A SHOE_STATUS with reason "boot" also restarts the sequence check. While the port cannot be
opened it retries after ``backoff_initial`` seconds, doubling up to ``backoff_max``; "disconnected" is sent once
per outage. ``close()`` stops the thread at once (it cancels the blocking read) and sends no event.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import serial

from firmware import protocol

from ..errors import StudTableError

log = logging.getLogger(__name__)

EventCallback = Callable[[str, dict[str, Any]], None]

EVENT_KINDS = ("card_drawn", "cut_card_seen", "status", "heartbeat", "error", "corrupt_frame", "sequence_gap",
               "disconnected", "reconnected")

#: message types the shoe sends; anything else arriving here is dropped as "unknown_type"
SHOE_TYPES = frozenset({protocol.CARD_DRAWN, protocol.CUT_CARD_SEEN, protocol.SHOE_STATUS, protocol.HEARTBEAT,
                        protocol.ERROR})


class ShoeLinkError(StudTableError):
    """Root of the shoe link's errors."""


class ShoeNotConnected(ShoeLinkError, ConnectionError):
    """A request to the shoe while its port is not open (or failed while writing)."""


def _error_message(code: int, detail: int) -> str:
    if code == protocol.ERR_BEAM_BLOCKED:
        return f"beam blocked for {detail} ms"
    if code == protocol.ERR_BEAM_CLEARED:
        return f"beam clear again after {detail} ms blocked; no card counted"
    if code == protocol.ERR_BAD_FRAME:
        return f"the shoe dropped a frame from the host ({protocol.FRAME_ERRORS.get(detail, detail)})"
    if code == protocol.ERR_UNKNOWN_TYPE:
        return f"the shoe does not know message type 0x{detail:02x}"
    if code == protocol.ERR_WATCHDOG_RESET:
        return "the shoe's watchdog restarted it"
    if code == protocol.ERR_LOST_EDGES:
        return f"{detail} sensor edge(s) lost by the shoe"
    return f"shoe error {code} ({detail})"


def event_for(frame: protocol.Frame, fields: dict[str, int]) -> tuple[str, dict[str, Any]]:
    """The event (kind, body) for a good frame from the shoe and its unpacked fields."""
    kind = frame.type
    body: dict[str, Any] = {"seq": frame.seq}
    if kind == protocol.CARD_DRAWN:
        body.update(count=fields["count"], duration_ms=fields["duration_ms"], uptime_ms=fields["uptime_ms"])
        return "card_drawn", body
    if kind == protocol.CUT_CARD_SEEN:
        body.update(count=fields["count"], uptime_ms=fields["uptime_ms"])
        return "cut_card_seen", body
    if kind == protocol.HEARTBEAT:
        body.update(uptime_ms=fields["uptime_ms"], count=fields["count"], **_flags(fields["flags"]))
        return "heartbeat", body
    if kind == protocol.SHOE_STATUS:
        body.update(
            reason=protocol.STATUS_REASONS.get(fields["reason"], str(fields["reason"])),
            request_seq=fields["request_seq"], count=fields["count"], **_flags(fields["flags"]),
            uptime_ms=fields["uptime_ms"], protocol=fields["protocol"],
            firmware_version=f"{fields['fw_major']}.{fields['fw_minor']}.{fields['fw_patch']}",
            reset_cause=protocol.RESET_CAUSES.get(fields["reset_cause"], str(fields["reset_cause"])),
            counters={name: fields[name] for name in ("glitches", "blockages", "bad_frames", "lost_edges",
                                                      "tx_errors")},
        )
        return "status", body
    if kind == protocol.ERROR:
        code, detail = fields["code"], fields["detail"]
        return "error", {"origin": "shoe", **body, "code": protocol.ERRORS.get(code, f"code_{code}"),
                         "detail": detail, "message": _error_message(code, detail)}
    raise ValueError(f"not a message from the shoe: {frame!r}")


def _flags(flags: int) -> dict[str, bool]:
    return {"cut_card_seen": bool(flags & protocol.FLAG_CUT_CARD_SEEN),
            "beam_blocked": bool(flags & protocol.FLAG_BEAM_BLOCKED)}


class ShoeLink:
    """The shoe on a serial port; see the module's docstring. ``start()`` it, ``close()`` it (or use ``with``)."""

    def __init__(self, port: str, on_event: EventCallback, *, baudrate: int = 115200,
                 backoff_initial: float = 0.25, backoff_max: float = 5.0, silence_timeout: float = 3.5,
                 read_timeout: float = 0.5, write_timeout: float = 1.0, status_on_connect: bool = True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if backoff_initial <= 0 or backoff_max < backoff_initial:
            raise ValueError("need 0 < backoff_initial <= backoff_max")
        self.port = port
        self._on_event = on_event
        self._baudrate = baudrate
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._silence_timeout = silence_timeout
        self._read_timeout = read_timeout
        self._write_timeout = write_timeout
        self._status_on_connect = status_on_connect
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # guards _serial and _tx_seq
        self._serial: serial.Serial | None = None
        self._tx_seq = 0
        self._decoder = protocol.Decoder()
        self._expected_seq: int | None = None
        self._stats = {"frames": 0, "corrupt_frames": 0, "sequence_gaps": 0, "missing_frames": 0,
                       "open_failures": 0, "connects": 0, "disconnects": 0}

    @classmethod
    def from_config(cls, config: Any, on_event: EventCallback, **options: Any) -> ShoeLink:
        """From a table configuration with ``shoe_port`` and ``shoe_baudrate`` (controller.config.TableConfig)."""
        if not getattr(config, "shoe_port", None):
            raise ValueError("the configuration names no shoe port ([shoe] port)")
        options.setdefault("baudrate", getattr(config, "shoe_baudrate", 115200))
        return cls(config.shoe_port, on_event, **options)

    # -- life cycle
    def start(self) -> ShoeLink:
        if self._thread is not None:
            raise RuntimeError("ShoeLink already started")
        self._thread = threading.Thread(target=self._run, name=f"shoe-link {self.port}", daemon=True)
        self._thread.start()
        return self

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread and close the port; idempotent. No event is sent for this."""
        self._stop.set()
        with self._lock:
            if self._serial is not None:
                with contextlib.suppress(OSError, serial.SerialException):
                    self._serial.cancel_read()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                log.warning("shoe link thread did not stop within %.1f s", timeout)

    def __enter__(self) -> ShoeLink:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._serial is not None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def stats(self) -> dict[str, int]:
        """Counters since start: frames, corrupt_frames, sequence_gaps, missing_frames, open_failures, ..."""
        return dict(self._stats)

    # -- requests to the shoe
    def request_status(self) -> int:
        """Send STATUS_REQUEST; returns its SEQ (the answer's ``request_seq``). Raises ShoeNotConnected."""
        return self._send(protocol.STATUS_REQUEST)

    def reset_count(self) -> int:
        """Send RESET_COUNT (a new shoe): the shoe zeroes its count and cut card, then answers with a "status"
        of reason "reset" whose ``request_seq`` is the SEQ returned here. Raises ShoeNotConnected."""
        return self._send(protocol.RESET_COUNT)

    def _send(self, msg_type: int) -> int:
        with self._lock:
            port = self._serial
            if port is None:
                raise ShoeNotConnected(f"the shoe on {self.port} is not connected")
            seq = self._tx_seq
            self._tx_seq = (seq + 1) & 0xFF
            try:
                port.write(protocol.encode_frame(seq, msg_type))
            except (OSError, serial.SerialException) as error:
                raise ShoeNotConnected(f"writing to the shoe on {self.port} failed: {error}") from error
        return seq

    # -- the thread
    def _emit(self, kind: str, body: dict[str, Any]) -> None:
        try:
            self._on_event(kind, body)
        except Exception:
            log.exception("shoe link: on_event(%r) raised", kind)

    def _run(self) -> None:
        failures = 0
        initial = True
        down_since = self._clock()
        down_reported = False
        while not self._stop.is_set():
            try:
                port = serial.Serial(self.port, self._baudrate, timeout=self._read_timeout,
                                     write_timeout=self._write_timeout, exclusive=True)
            except (OSError, serial.SerialException, ValueError) as error:
                failures += 1
                self._stats["open_failures"] += 1
                if not down_reported:
                    down_reported = True
                    self._emit("disconnected", {"port": self.port, "reason": str(error), "initial": initial})
                self._stop.wait(min(self._backoff_max, self._backoff_initial * 2 ** min(failures - 1, 30)))
                continue
            self._decoder.reset()
            self._expected_seq = None
            with self._lock:
                self._serial = port
            self._stats["connects"] += 1
            self._emit("reconnected", {"port": self.port, "initial": initial, "attempts": failures + 1,
                                       "down_s": round(self._clock() - down_since, 3)})
            initial = False
            failures = 0
            if self._status_on_connect and not self._stop.is_set():
                try:
                    self.request_status()
                except ShoeNotConnected as error:
                    log.info("shoe link: status request on connection failed: %s", error)
            reason = self._serve(port)
            with self._lock:
                self._serial = None
            with contextlib.suppress(OSError, serial.SerialException):
                port.close()
            if self._stop.is_set():
                break
            self._stats["disconnects"] += 1
            down_since = self._clock()
            down_reported = True
            self._emit("disconnected", {"port": self.port, "reason": reason, "initial": False})
            self._stop.wait(self._backoff_initial)

    def _serve(self, port: serial.Serial) -> str:
        """Read until the port fails (returns why) or close() is called."""
        last_good = self._clock()
        silent = False
        while not self._stop.is_set():
            try:
                data = port.read(1)
                if data:
                    waiting = port.in_waiting
                    if waiting:
                        data += port.read(waiting)
            except (OSError, serial.SerialException) as error:
                return str(error) or type(error).__name__
            now = self._clock()
            if data and self._feed(data):
                last_good = now
                silent = False
            elif not silent and now - last_good > self._silence_timeout:
                silent = True
                quiet = round(now - last_good, 3)
                self._emit("error", {"origin": "host", "code": "silent", "silent_s": quiet,
                                     "message": f"no valid frame from the shoe for {quiet} s"})
        return "closed"

    def _feed(self, data: bytes) -> bool:
        """Hand bytes to the decoder and send the events; True if a good frame came."""
        good = False
        for item in self._decoder.feed(data):
            if isinstance(item, protocol.ProtocolError):
                self._corrupt(item.reason, item.size)
            else:
                good = self._frame(item) or good
        return good

    def _corrupt(self, reason: str, size: int) -> None:
        self._stats["corrupt_frames"] += 1
        self._emit("corrupt_frame", {"reason": reason, "bytes": size, "total": self._stats["corrupt_frames"]})

    def _frame(self, frame: protocol.Frame) -> bool:
        if frame.type not in SHOE_TYPES:
            self._corrupt("unknown_type", len(frame.payload) + protocol.HEADER_SIZE + protocol.CRC_SIZE)
            return False
        self._stats["frames"] += 1
        try:
            fields: dict[str, int] | None = frame.fields()
        except protocol.ProtocolError:
            fields = None
        boot = frame.type == protocol.SHOE_STATUS and fields is not None and fields["reason"] == protocol.STATUS_BOOT
        expected = self._expected_seq
        self._expected_seq = (frame.seq + 1) & 0xFF
        if expected is not None and frame.seq != expected and not boot:
            missing = (frame.seq - expected) & 0xFF
            self._stats["sequence_gaps"] += 1
            self._stats["missing_frames"] += missing
            self._emit("sequence_gap", {"expected": expected, "received": frame.seq, "missing": missing,
                                        "total_missing": self._stats["missing_frames"]})
        if fields is None:
            self._corrupt("bad_payload", len(frame.payload) + protocol.HEADER_SIZE + protocol.CRC_SIZE)
            return True
        kind, body = event_for(frame, fields)
        self._emit(kind, body)
        return True
