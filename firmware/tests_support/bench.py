"""A test bench for the shoe's firmware under CPython: the real ShoeFirmware on stand-in pins, with a clock that
moves only when the test says so. The test plays the cards, the dealer and the sensors; the firmware's frames go
to ``write`` (a pty in the host driver's tests) or are kept in ``sent``.

Wired like main.py: the IR receiver pulled up on GP14 (high while the beam is intact, low while broken), the
cut-card sensor pulled down on GP15 (high while it sees the cut card), the LED, a watchdog.
"""

from firmware import protocol
from firmware.shoe import TICKS_PERIOD, ShoeFirmware
from firmware.tests_support import machine

BEAM_PIN = 14
CUT_PIN = 15


class ShoeBench:
    def __init__(self, write=None, start_ms=5000, start=True, **options):
        machine.reset()
        self.now = start_ms  # ms; the firmware sees it modulo TICKS_PERIOD, as ticks_ms() wraps on the Pico
        self.beam = machine.Pin(BEAM_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
        self.cut = machine.Pin(CUT_PIN, machine.Pin.IN, machine.Pin.PULL_DOWN)
        self.led = machine.Pin("LED", machine.Pin.OUT, value=0)
        self.watchdog = machine.WDT(timeout=4000)
        self.sent = []  # frames written, when no write function is given
        self._write = write
        self._decoder = protocol.Decoder()
        options.setdefault("led", self.led)
        options.setdefault("watchdog", self.watchdog)
        self.shoe = ShoeFirmware(self.beam, self.cut, self.clock, self._out, **options)
        if start:
            self.shoe.start()

    def clock(self):
        return self.now % TICKS_PERIOD

    def _out(self, frame):
        if self._write is None:
            self.sent.append(frame)
        else:
            self._write(frame)

    # -- time
    def run(self, ms, step=1):
        """Let ``ms`` milliseconds pass, the main loop polling every ``step`` ms."""
        end = self.now + ms
        while self.now < end:
            self.now = min(self.now + step, end)
            self.shoe.poll()

    def jump(self, ms):
        """Let ``ms`` pass with no poll (a stalled loop), then poll once."""
        self.now += ms
        self.shoe.poll()

    # -- the outside world
    def break_beam(self):
        self.beam.drive(0)

    def clear_beam(self):
        self.beam.drive(1)

    def card(self, duration_ms=60, gap_ms=150):
        """One card drawn: the beam broken for ``duration_ms``, then clear for ``gap_ms``."""
        self.break_beam()
        self.run(duration_ms)
        self.clear_beam()
        self.run(gap_ms)

    def cut_on(self):
        self.cut.drive(1)

    def cut_off(self):
        self.cut.drive(0)

    # -- what the firmware said (when frames are kept in ``sent``)
    def take(self):
        """The messages sent since the last take(), as (name, fields, seq)."""
        frames = [item for chunk in self.sent for item in self._decoder.feed(chunk)]
        self.sent.clear()
        return [(frame.name(), frame.fields(), frame.seq) for frame in frames]

    def take_names(self, skip=("heartbeat",)):
        return [name for name, _, _ in self.take() if name not in skip]
