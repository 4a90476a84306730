"""The shoe's host driver (controller/sensors/shoe.py) over a real pseudo-terminal.

The driver opens the pty's slave with pyserial through a symlink named as udev names the Pico under
/dev/serial/by-id/. The shoe's end of the cable is the pty's master: the firmware logic itself (ShoeFirmware on the
stand-in machine pins, firmware/tests_support/bench.py) writes its frames there, and what the driver sends is read
back from there and handed to the firmware. Unplugging closes the pty and removes the link; plugging in again
makes a new pty and points the link at it, as udev does.

Every wait is on an event, with a timeout; no test sleeps for a fixed time.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import threading
import time
import tty
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from controller.sensors.shoe import EVENT_KINDS, ShoeLink, ShoeNotConnected
from firmware import protocol
from firmware.protocol import Frame
from firmware.tests_support.bench import ShoeBench

TIMEOUT = 5.0
FAST = {"backoff_initial": 0.02, "backoff_max": 0.2, "silence_timeout": 60.0, "read_timeout": 0.5}


class Recorder:
    """on_event that records, and lets a test wait for events."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self._cond = threading.Condition()

    def __call__(self, kind: str, body: dict[str, Any]) -> None:
        assert kind in EVENT_KINDS
        with self._cond:
            self.events.append((kind, body))
            self._cond.notify_all()

    def of(self, kind: str, where: Callable[[dict[str, Any]], bool] = lambda body: True) -> list[dict[str, Any]]:
        with self._cond:
            return [body for k, body in self.events if k == kind and where(body)]

    def wait(self, kind: str, n: int = 1, where: Callable[[dict[str, Any]], bool] = lambda body: True,
             timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """The first ``n`` events of ``kind`` that match ``where``, once there are that many."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.of(kind, where)) >= n, timeout):
                raise AssertionError(f"waited {timeout} s for {n} {kind!r}; got {self.events}")
            return self.of(kind, where)[:n]


def wait_until(condition: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.005)


def point(link: Path, target: str) -> None:
    """Point ``link`` at ``target`` in one step, as udev re-points /dev/serial/by-id/ links."""
    fresh = link.with_name(link.name + ".new")
    fresh.unlink(missing_ok=True)
    fresh.symlink_to(target)
    os.replace(fresh, link)


class PtyShoe:
    """The shoe's end of the USB cable: a pty (the driver opens its slave through ``link``) and the firmware logic
    writing into its master. The firmware's frames are held until the driver's first request (the driver flushes
    its input when it opens the port, as on a real Pico), then go straight through."""

    def __init__(self, link: Path, **firmware_options: Any) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line editing, before anyone writes
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self._slave)
        self._held: list[bytes] | None = []
        self._decoder = protocol.Decoder()
        self.open = True
        self.bench = ShoeBench(write=self._firmware_write, **firmware_options)
        point(link, self.path)

    def _firmware_write(self, frame: bytes) -> None:
        if self._held is not None:
            self._held.append(frame)
        else:
            self.send(frame)

    def send(self, data: bytes, timeout: float = TIMEOUT) -> None:
        """Write to the driver, all of it (waiting while the pty's buffer is full)."""
        deadline = time.monotonic() + timeout
        view = memoryview(data)
        while view:
            if not select.select([], [self.master], [], max(0.0, deadline - time.monotonic()))[1]:
                raise AssertionError("the driver does not read")
            with contextlib.suppress(BlockingIOError):
                view = view[os.write(self.master, view):]

    def hold(self) -> None:
        """Keep the firmware's frames (for take_held) instead of sending them."""
        self._held = []

    def take_held(self) -> list[bytes]:
        held, self._held = self._held or [], []
        return held

    def release(self) -> None:
        """Send the frames held, and from now on send each frame as it comes."""
        held, self._held = self._held or [], None
        for frame in held:
            self.send(frame)

    def serve(self, timeout: float = TIMEOUT) -> list[Frame]:
        """Read what the driver sends until a whole frame came; hand the bytes to the firmware."""
        deadline = time.monotonic() + timeout
        while True:
            if not select.select([self.master], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise AssertionError("no frame from the driver")
            data = os.read(self.master, 4096)
            self.bench.shoe.receive(data)
            frames = [f for f in self._decoder.feed(data) if isinstance(f, Frame)]
            if frames:
                return frames

    def handshake(self) -> Frame:
        """Answer the STATUS_REQUEST the driver sends on connection, then let the frames through."""
        [request] = self.serve()
        assert request.type == protocol.STATUS_REQUEST
        self.release()
        return request

    def unplug(self) -> None:
        if self.open:
            self.open = False
            os.close(self.master)
            os.close(self._slave)


@pytest.fixture
def link(tmp_path: Path) -> Path:
    return tmp_path / "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"


@pytest.fixture
def rig(link: Path) -> Iterator[SimpleNamespace]:
    """Makes shoes (ptys) and drivers on ``link``; unplugs and closes them all at the end."""
    shoes: list[PtyShoe] = []
    drivers: list[ShoeLink] = []

    def shoe(**options: Any) -> PtyShoe:
        shoes.append(PtyShoe(link, **options))
        return shoes[-1]

    def driver(events: Callable[[str, dict[str, Any]], None], **options: Any) -> ShoeLink:
        drivers.append(ShoeLink(str(link), events, **(FAST | options)).start())
        return drivers[-1]

    yield SimpleNamespace(link=link, shoe=shoe, driver=driver)
    for d in drivers:
        d.close()
    assert not any(d.running for d in drivers)
    for s in shoes:
        s.unplug()


def connect(rig: SimpleNamespace, **options: Any) -> tuple[ShoeLink, PtyShoe, Recorder]:
    shoe = rig.shoe()
    events = Recorder()
    driver = rig.driver(events, **options)
    request = shoe.handshake()
    events.wait("status", where=lambda b: b["reason"] == "request" and b["request_seq"] == request.seq)
    return driver, shoe, events


def card_frames(frames: list[bytes]) -> list[int]:
    return [i for i, f in enumerate(frames) if protocol.decode_frame(f[1:-1]).type == protocol.CARD_DRAWN]


# -- frames in


def test_cards_drawn_arrive_with_their_running_count(rig):
    driver, shoe, events = connect(rig)
    assert [s["reason"] for s in events.of("status")] == ["boot", "request"]
    boot = events.of("status")[0]
    assert boot["firmware_version"] == "1.0.0" and boot["protocol"] == 1 and boot["count"] == 0
    for duration in (40, 55, 70, 85, 100):
        shoe.bench.card(duration_ms=duration)
    cards = events.wait("card_drawn", 5)
    assert [(c["count"], c["duration_ms"]) for c in cards] == [(1, 40), (2, 55), (3, 70), (4, 85), (5, 100)]
    assert events.of("corrupt_frame") == [] and events.of("sequence_gap") == []
    assert driver.connected and driver.stats["frames"] >= 7


def test_cut_card_heartbeat_and_errors_arrive(rig):
    driver, shoe, events = connect(rig)
    shoe.bench.card()
    shoe.bench.break_beam()  # the cut card, through the beam, seen blue
    shoe.bench.cut_on()
    shoe.bench.run(60)
    shoe.bench.clear_beam()
    shoe.bench.cut_off()
    shoe.bench.run(800)  # a heartbeat at 1 s
    shoe.bench.break_beam()  # something left in the beam
    shoe.bench.run(1100)
    assert events.wait("cut_card_seen")[0]["count"] == 1
    beat = events.wait("heartbeat")[0]
    assert beat["count"] == 1 and beat["cut_card_seen"] and not beat["beam_blocked"]
    error = events.wait("error")[0]
    assert (error["origin"], error["code"], error["detail"]) == ("shoe", "beam_blocked", 1001)
    assert error["message"] == "beam blocked for 1001 ms"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noise_on_the_line_never_stops_the_driver_and_every_frame_gets_through(rig, seed):
    driver, shoe, events = connect(rig)
    shoe.hold()
    for i in range(40):
        shoe.bench.card(duration_ms=30 + i)
    frames = shoe.take_held()
    rng = random.Random(seed)
    stream = bytearray()
    for frame in frames:
        if rng.random() < 0.25:
            stream += frame[:rng.randrange(1, len(frame) - 1)]  # a frame cut short by the noise
        stream += rng.randbytes(rng.randrange(0, 250))
        stream += frame
    stream += rng.randbytes(300)
    assert len(stream) > 5000
    i = 0
    while i < len(stream):
        step = rng.randrange(1, 600)
        shoe.send(bytes(stream[i:i + step]))
        i += step
    cards = events.wait("card_drawn", 40)
    assert [c["count"] for c in cards] == list(range(1, 41))
    assert [c["duration_ms"] for c in cards] == [30 + i for i in range(40)]
    heartbeats = sum(protocol.decode_frame(f[1:-1]).type == protocol.HEARTBEAT for f in frames)
    assert len(events.wait("heartbeat", heartbeats)) == heartbeats
    # the link is alive and in step: a request is answered
    seq = driver.request_status()
    shoe.serve()
    shoe.release()
    [status] = events.wait("status", where=lambda b: b["reason"] == "request" and b["request_seq"] == seq)
    assert status["count"] == 40
    assert driver.running and driver.connected
    assert events.of("sequence_gap") == []
    corrupt = events.of("corrupt_frame")
    assert len(corrupt) > 20 and driver.stats["corrupt_frames"] == len(corrupt) == corrupt[-1]["total"]
    assert {c["reason"] for c in corrupt} <= set(protocol.FRAME_ERRORS.values())


def test_a_traceback_on_the_line_is_dropped_and_the_next_frames_read(rig):
    driver, shoe, events = connect(rig)
    shoe.send(b'Traceback (most recent call last):\r\n  File "main.py", line 71, in <module>\r\nMemoryError: '
              b"memory allocation failed, allocating 4096 bytes\r\nMicroPython v1.24.1 on 2024-11-29; "
              b"Raspberry Pi Pico with RP2040\r\nType \"help()\" for more information.\r\n>>> ")
    shoe.bench.card()
    assert events.wait("card_drawn")[0]["count"] == 1
    assert [c["reason"] for c in events.of("corrupt_frame")] == ["too_long"]


def test_a_corrupted_crc_is_counted_and_dropped(rig):
    driver, shoe, events = connect(rig)
    shoe.hold()
    shoe.bench.card()
    shoe.bench.card()
    frames = shoe.take_held()
    first = card_frames(frames)[0]
    body = bytearray(protocol.cobs_decode(frames[first][1:-1]))
    body[-1] ^= 0xFF  # the CRC's low byte
    frames[first] = b"\x00" + protocol.cobs_encode(bytes(body)) + b"\x00"
    for frame in frames:
        shoe.send(frame)
    [card] = events.wait("card_drawn")
    assert card["count"] == 2  # the first card's frame never came through
    [corrupt] = events.wait("corrupt_frame")
    assert corrupt == {"reason": "crc", "bytes": len(frames[first]) - 2, "total": 1}
    [gap] = events.wait("sequence_gap")  # and its SEQ is missing
    assert gap["missing"] == 1 and gap["received"] == (gap["expected"] + 1) & 0xFF
    assert driver.stats["corrupt_frames"] == 1 and len(events.of("card_drawn")) == 1


def test_a_sequence_gap_is_reported_with_its_size(rig):
    driver, shoe, events = connect(rig)
    shoe.hold()
    for _ in range(6):
        shoe.bench.card()
    frames = shoe.take_held()
    lost = card_frames(frames)[2:5]  # cards 3, 4 and 5 never reach the Pi
    for i, frame in enumerate(frames):
        if i not in lost:
            shoe.send(frame)
    cards = events.wait("card_drawn", 3)
    assert [c["count"] for c in cards] == [1, 2, 6]
    [gap] = events.wait("sequence_gap")
    assert gap["missing"] == 3 and gap["total_missing"] == 3
    assert gap["received"] == (gap["expected"] + 3) & 0xFF
    assert driver.stats["sequence_gaps"] == 1 and driver.stats["missing_frames"] == 3


def test_the_sequence_number_wraps_without_a_gap(rig):
    driver, shoe, events = connect(rig)
    shoe.bench.run(260_000, step=10)  # 260 heartbeats: SEQ passes 255 -> 0
    beats = events.wait("heartbeat", 260)
    assert [b["seq"] for b in beats] == [(2 + i) & 0xFF for i in range(260)]
    assert events.of("sequence_gap") == []


def test_frames_that_are_not_from_the_shoe_are_dropped(rig):
    driver, shoe, events = connect(rig)
    shoe.send(protocol.encode_frame(200, protocol.STATUS_REQUEST))  # the host's own frame, echoed
    shoe.send(protocol.encode_frame(201, protocol.CARD_DRAWN, b"\x00"))  # too short for a CARD_DRAWN
    shoe.bench.card()
    events.wait("card_drawn")
    assert [c["reason"] for c in events.of("corrupt_frame")] == ["unknown_type", "bad_payload"]


# -- requests out


def test_a_status_request_is_answered(rig):
    driver, shoe, events = connect(rig)
    for _ in range(3):
        shoe.bench.card()
    seq = driver.request_status()
    [request] = shoe.serve()
    assert (request.type, request.seq) == (protocol.STATUS_REQUEST, seq)
    [status] = events.wait("status", where=lambda b: b["reason"] == "request" and b["request_seq"] == seq)
    assert status["count"] == 3 and not status["cut_card_seen"] and status["reset_cause"] == "unknown"
    assert status["counters"] == {"glitches": 0, "blockages": 0, "bad_frames": 0, "lost_edges": 0, "tx_errors": 0}


def test_reset_count_starts_a_new_count(rig):
    driver, shoe, events = connect(rig)
    shoe.bench.card()
    shoe.bench.card()
    seq = driver.reset_count()
    [request] = shoe.serve()
    assert (request.type, request.seq) == (protocol.RESET_COUNT, seq)
    [status] = events.wait("status", where=lambda b: b["reason"] == "reset")
    assert (status["request_seq"], status["count"]) == (seq, 0)
    shoe.bench.card()
    assert [c["count"] for c in events.wait("card_drawn", 3)] == [1, 2, 1]


# -- the cable


def test_unplugged_and_plugged_in_again(rig):
    driver, shoe, events = connect(rig)
    shoe.bench.card()
    events.wait("card_drawn")
    rig.link.unlink()  # udev removes the by-id link, and the tty goes
    shoe.unplug()
    [down] = events.wait("disconnected")
    assert down["initial"] is False and down["reason"] and down["port"] == str(rig.link)
    assert not driver.connected
    with pytest.raises(ShoeNotConnected):
        driver.request_status()
    wait_until(lambda: driver.stats["open_failures"] >= 3)  # it keeps trying, backing off
    again = rig.shoe()  # plugged in: the Pico boots, a new tty, the link points at it
    [_, up] = events.wait("reconnected", 2)
    assert up["initial"] is False and up["attempts"] >= 4 and up["down_s"] > 0
    again.handshake()
    boot = events.wait("status", 2, where=lambda b: b["reason"] == "boot")[-1]
    assert boot["count"] == 0
    again.bench.card()
    assert [c["count"] for c in events.wait("card_drawn", 2)] == [1, 1]
    assert events.of("sequence_gap") == [] and len(events.of("disconnected")) == 1
    assert driver.stats["connects"] == 2 and driver.stats["disconnects"] == 1


def test_a_port_absent_at_start_is_waited_for_with_backoff(rig):
    events = Recorder()
    started = time.monotonic()
    driver = rig.driver(events)
    [down] = events.wait("disconnected")
    assert down["initial"] is True and "No such file" in down["reason"]
    wait_until(lambda: driver.stats["open_failures"] >= 4)
    assert time.monotonic() - started >= 0.02 + 0.04 + 0.08  # three waits, each twice the last
    shoe = rig.shoe()
    [up] = events.wait("reconnected")
    assert up["initial"] is True and up["attempts"] >= 5
    shoe.handshake()
    events.wait("status", 2)
    assert len(events.of("disconnected")) == 1


def test_a_second_driver_cannot_take_the_port(rig):
    driver, shoe, events = connect(rig)
    other = Recorder()
    rig.driver(other)
    [down] = other.wait("disconnected")
    assert "lock" in down["reason"]
    shoe.bench.card()
    events.wait("card_drawn")
    assert other.of("card_drawn") == []


def test_a_silent_shoe_is_reported_once_per_silence(rig):
    driver, shoe, events = connect(rig, silence_timeout=0.3, read_timeout=0.05)
    [silent] = events.wait("error")
    assert (silent["origin"], silent["code"]) == ("host", "silent") and silent["silent_s"] > 0.3
    shoe.bench.run(1000)  # a heartbeat
    events.wait("heartbeat")
    events.wait("error", 2)
    kinds = [k for k, _ in events.events if k in ("error", "heartbeat")]
    assert kinds == ["error", "heartbeat", "error"]


# -- the driver's own life


def test_close_is_prompt_while_reading_and_quiet(rig):
    driver, shoe, events = connect(rig, read_timeout=30.0)
    before = len(events.events)
    started = time.monotonic()
    driver.close()
    assert time.monotonic() - started < 2.0
    assert not driver.running and not driver.connected
    assert len(events.events) == before
    with pytest.raises(ShoeNotConnected):
        driver.reset_count()
    driver.close()  # twice is fine


def test_close_is_prompt_while_backing_off(rig):
    events = Recorder()
    driver = rig.driver(events, backoff_initial=30.0, backoff_max=30.0)
    events.wait("disconnected")
    started = time.monotonic()
    driver.close()
    assert time.monotonic() - started < 2.0 and not driver.running


def test_an_on_event_that_raises_does_not_stop_the_link(rig, caplog):
    events = Recorder()
    raised = []

    def fragile(kind: str, body: dict[str, Any]) -> None:
        if kind == "card_drawn" and not raised:
            raised.append(body)
            raise RuntimeError("consumer bug")
        events(kind, body)

    shoe = rig.shoe()
    rig.driver(fragile)
    shoe.handshake()
    shoe.bench.card()
    shoe.bench.card()
    assert events.wait("card_drawn")[0]["count"] == 2
    assert raised[0]["count"] == 1
    assert "consumer bug" in caplog.text


def test_made_from_the_table_configuration(link):
    events = Recorder()
    config = SimpleNamespace(shoe_port=str(link), shoe_baudrate=57600)
    driver = ShoeLink.from_config(config, events, **FAST)
    assert driver.port == str(link) and driver._baudrate == 57600
    with pytest.raises(ValueError, match="no shoe port"):
        ShoeLink.from_config(SimpleNamespace(shoe_port=None), events)
    with pytest.raises(ValueError, match="backoff"):
        ShoeLink(str(link), events, backoff_initial=0)
