"""The shoe's logic, free of hardware: counts the cards drawn, sees the cut card, talks the protocol.

Runs under MicroPython on the Pico (main.py wires it to the real pins, clock, USB serial and watchdog) and under
CPython in the tests (with the stand-in pins of tests_support/machine.py and a clock the test moves).

What it is given:
    beam, cut   pins with ``value()`` and ``irq(handler=, trigger=)``: the IR beam's receiver at the shoe's mouth,
                the cut-card (colour or hall) sensor's digital output;
    clock       ``clock()`` -> ms on a wrapping tick counter (time.ticks_ms), compared with ``ticks_diff``;
    write       ``write(bytes)``: one whole frame at a time, to the USB serial.

Interrupt handlers only stamp each edge (time, source, level) into a fixed ring buffer; ``poll()``, called by the
main loop every millisecond or so, does the rest:

* a card is one break of the beam of plausible length: breaks shorter than ``min_break_ms`` are glitches (counted,
  not reported); the beam must stay clear for ``settle_ms`` before a break ends, so the chatter of a card's edge
  makes one break, not several; a break longer than ``max_break_ms`` is a blockage: ERROR beam_blocked while it
  lasts (once), ERROR beam_cleared when it ends, and no card;
* the cut card: the sensor must stay active for ``cut_debounce_ms``; CUT_CARD_SEEN is sent once until
  RESET_COUNT. The cut card leaves the shoe through the beam too, so a break that overlaps the sensor's active
  time (give or take ``cut_margin_ms``) is the cut card and is not counted (``cut_card_breaks_beam``);
* a HEARTBEAT every ``heartbeat_ms`` of the clock, with no drift and no burst after a stall;
* the host's STATUS_REQUEST and RESET_COUNT are answered with a SHOE_STATUS; a bad frame with ERROR bad_frame;
* the watchdog, if given, is fed at the end of every poll(), so a hung loop restarts the shoe.
"""

try:
    from . import protocol as p
except (ImportError, ValueError):  # flat on the Pico, protocol.py beside this file
    import protocol as p

FIRMWARE_VERSION = (1, 0, 0)

TICKS_PERIOD = 1 << 30  # where MicroPython's ticks_ms() wraps on 32-bit ports (rp2)
_TICKS_HALF = TICKS_PERIOD // 2


def ticks_diff(a, b):
    """``a - b`` on the wrapping tick counter, as MicroPython's time.ticks_diff."""
    return ((a - b + _TICKS_HALF) % TICKS_PERIOD) - _TICKS_HALF


BEAM = 0
CUT = 1

# beam states
CLEAR = 0
BROKEN = 1
SETTLING = 2  # clear again, but not yet for settle_ms


class EdgeQueue:
    """Edges stamped by the interrupt handlers, for the main loop: a fixed ring, so a handler never allocates.
    One producer (the handlers) and one consumer (poll), so no lock is needed. A full ring drops the edge and
    counts it."""

    def __init__(self, size=64):
        self._times = [0] * size
        self._sources = bytearray(size)
        self._levels = bytearray(size)
        self._size = size
        self._head = 0
        self._tail = 0
        self.dropped = 0

    def push(self, t, source, level):
        head = self._head
        after = head + 1
        if after == self._size:
            after = 0
        if after == self._tail:
            self.dropped += 1
            return
        self._times[head] = t
        self._sources[head] = source
        self._levels[head] = level
        self._head = after

    def pop(self):
        """The oldest edge as (t, source, level), or None."""
        tail = self._tail
        if tail == self._head:
            return None
        edge = (self._times[tail], self._sources[tail], self._levels[tail])
        tail += 1
        self._tail = 0 if tail == self._size else tail
        return edge


def _u16(value):
    return value if value < 0xFFFF else 0xFFFF


class ShoeFirmware:
    def __init__(self, beam, cut, clock, write, *, ticks_diff=ticks_diff, led=None, watchdog=None,
                 beam_broken_level=0, cut_active_level=1, min_break_ms=4, settle_ms=5, max_break_ms=1000,
                 cut_debounce_ms=10, cut_margin_ms=20, cut_card_breaks_beam=True, heartbeat_ms=1000,
                 reset_cause=p.RESET_UNKNOWN, queue_size=64):
        self._beam = beam
        self._cut = cut
        self._clock = clock
        self._write = write
        self._diff = ticks_diff
        self._led = led
        self._watchdog = watchdog
        self._broken_level = beam_broken_level
        self._cut_level = cut_active_level
        self._min_break = min_break_ms
        self._settle = settle_ms
        self._max_break = max_break_ms
        self._cut_debounce = cut_debounce_ms
        self._cut_margin = cut_margin_ms
        self._cut_breaks_beam = cut_card_breaks_beam
        self._heartbeat_ms = heartbeat_ms
        self._reset_cause = reset_cause
        self._queue = EdgeQueue(queue_size)
        self._decoder = p.Decoder()
        self._seq = 0
        self._count = 0
        self._cut_seen = False
        # counters (since boot) reported in SHOE_STATUS
        self._glitches = 0
        self._blockages = 0
        self._bad_frames = 0
        self._lost_edges = 0
        self._tx_errors = 0
        # time
        self._last_now = 0
        self._uptime = 0
        self._heartbeat_left = heartbeat_ms
        # beam
        self._beam_state = CLEAR
        self._break_start = 0
        self._break_end = 0
        self._blocked = False
        # cut-card sensor: the raw level, and the window of its last confirmed activity
        self._cut_active = False
        self._cut_since = 0
        self._cut_confirmed = False
        self._cut_from = None
        self._cut_to = None
        self._cut_used = False

    # -- what the host can read through SHOE_STATUS, also for the main loop and tests
    @property
    def count(self):
        return self._count

    @property
    def cut_card_seen(self):
        return self._cut_seen

    @property
    def uptime_ms(self):
        return self._uptime

    # -- the main loop's calls
    def start(self):
        """Read the inputs' levels, arm the interrupts, send the boot status (and the watchdog's ERROR)."""
        now = self._clock()
        self._last_now = now
        if self._beam.value() == self._broken_level:
            self._beam_edge(True, now)  # a card (or a finger) already in the beam at power-up
        if self._cut.value() == self._cut_level:
            self._cut_edge(True, now)
        trigger = self._beam.IRQ_RISING | self._beam.IRQ_FALLING
        self._beam.irq(handler=self._beam_irq, trigger=trigger)
        self._cut.irq(handler=self._cut_irq, trigger=trigger)
        self._send_status(p.STATUS_BOOT, 0)
        if self._reset_cause == p.RESET_WATCHDOG:
            self._send(p.ERROR, p.ERR_WATCHDOG_RESET, 0)

    def poll(self):
        """Process the queued edges and the timers; feed the watchdog. Call it often (every ms or so)."""
        queue = self._queue
        edge = queue.pop()
        while edge is not None:
            t, source, level = edge
            if source == BEAM:
                self._beam_edge(level == self._broken_level, t)
            else:
                self._cut_edge(level == self._cut_level, t)
            edge = queue.pop()
        now = self._clock()
        elapsed = self._diff(now, self._last_now)
        if elapsed > 0:
            self._uptime += elapsed
            self._last_now = now
        else:
            elapsed = 0
        # an interrupt missed (or two edges too close to tell apart): trust the level the pin has now
        self._beam_edge(self._beam.value() == self._broken_level, now)
        self._cut_edge(self._cut.value() == self._cut_level, now)
        if queue.dropped != self._lost_edges:
            lost = queue.dropped - self._lost_edges
            self._lost_edges = queue.dropped
            self._send(p.ERROR, p.ERR_LOST_EDGES, lost)
        self._cut_timers(now)
        self._beam_timers(now)
        self._heartbeat_left -= elapsed
        if self._heartbeat_left <= 0:
            self._send(p.HEARTBEAT, self._uptime & 0xFFFFFFFF, _u16(self._count), self._flags())
            self._heartbeat_left += self._heartbeat_ms
            if self._heartbeat_left <= 0:  # the loop stalled for more than a period: no burst to catch up
                self._heartbeat_left = self._heartbeat_ms
        if self._watchdog is not None:
            self._watchdog.feed()

    def receive(self, data):
        """Bytes from the host (any amount, any split)."""
        for item in self._decoder.feed(data):
            if isinstance(item, p.ProtocolError):
                self._bad_frames += 1
                self._send(p.ERROR, p.ERR_BAD_FRAME, item.code)
            elif item.type == p.STATUS_REQUEST:
                self._send_status(p.STATUS_REQUESTED, item.seq)
            elif item.type == p.RESET_COUNT:
                self._count = 0
                self._cut_seen = False
                self._cut_from = None
                self._cut_to = None
                self._cut_used = False
                self._send_status(p.STATUS_RESET, item.seq)
            else:
                self._bad_frames += 1
                self._send(p.ERROR, p.ERR_UNKNOWN_TYPE, item.type)

    # -- interrupt handlers: stamp and queue, nothing else
    def _beam_irq(self, pin):
        self._queue.push(self._clock(), BEAM, pin.value())

    def _cut_irq(self, pin):
        self._queue.push(self._clock(), CUT, pin.value())

    # -- the beam
    def _beam_edge(self, broken, t):
        state = self._beam_state
        if broken:
            if state == BROKEN:
                return
            if state == SETTLING:
                if self._diff(t, self._break_end) < self._settle:
                    self._beam_state = BROKEN  # chatter at the card's edge: the same break goes on
                    self._set_led(1)
                    return
                self._finish_break()
            self._beam_state = BROKEN
            self._break_start = t
            self._blocked = False
            self._set_led(1)
        elif state == BROKEN:
            self._beam_state = SETTLING
            self._break_end = t
            self._set_led(0)

    def _beam_timers(self, now):
        if self._beam_state == BROKEN:
            held = self._diff(now, self._break_start)
            if not self._blocked and held > self._max_break:
                self._blocked = True
                self._blockages += 1
                self._send(p.ERROR, p.ERR_BEAM_BLOCKED, held)
        elif self._beam_state == SETTLING:
            cut_pending = self._cut_active and not self._cut_confirmed
            if self._diff(now, self._break_end) >= self._settle and not cut_pending:
                self._finish_break()

    def _finish_break(self):
        self._beam_state = CLEAR
        start = self._break_start
        end = self._break_end
        duration = self._diff(end, start)
        if self._blocked or duration > self._max_break:
            if not self._blocked:
                self._blockages += 1
                self._send(p.ERROR, p.ERR_BEAM_BLOCKED, duration)
            self._blocked = False
            self._send(p.ERROR, p.ERR_BEAM_CLEARED, duration)
            return
        if duration < self._min_break:
            self._glitches += 1
            return
        if self._cut_breaks_beam and self._cut_overlaps(start, end):
            self._cut_used = True  # that break was the cut card leaving the shoe, not a card
            return
        self._count += 1
        self._send(p.CARD_DRAWN, _u16(self._count), _u16(duration), self._uptime_at(end))

    # -- the cut-card sensor
    def _cut_edge(self, active, t):
        if active == self._cut_active:
            return
        self._cut_active = active
        if active:
            self._cut_since = t
            self._cut_confirmed = False
            return
        if not self._cut_confirmed and self._diff(t, self._cut_since) >= self._cut_debounce:
            self._confirm_cut()
        if self._cut_confirmed:
            self._cut_to = t

    def _cut_timers(self, now):
        if self._cut_active and not self._cut_confirmed and self._diff(now, self._cut_since) >= self._cut_debounce:
            self._confirm_cut()

    def _confirm_cut(self):
        self._cut_confirmed = True
        self._cut_from = self._cut_since
        self._cut_to = None
        self._cut_used = False
        if not self._cut_seen:
            self._cut_seen = True
            self._send(p.CUT_CARD_SEEN, _u16(self._count), self._uptime_at(self._cut_since))

    def _cut_overlaps(self, start, end):
        if self._cut_from is None or self._cut_used:
            return False
        if self._diff(self._cut_from, end) > self._cut_margin:
            return False  # the sensor became active after the break
        return self._cut_to is None or self._diff(start, self._cut_to) <= self._cut_margin

    # -- output
    def _set_led(self, on):
        if self._led is not None:
            self._led.value(on)

    def _uptime_at(self, t):
        at = self._uptime - self._diff(self._last_now, t)
        return (at if at > 0 else 0) & 0xFFFFFFFF

    def _flags(self):
        flags = p.FLAG_CUT_CARD_SEEN if self._cut_seen else 0
        if self._blocked:
            flags |= p.FLAG_BEAM_BLOCKED
        return flags

    def _send_status(self, reason, request_seq):
        major, minor, patch = FIRMWARE_VERSION
        self._send(p.SHOE_STATUS, reason, request_seq, _u16(self._count), self._flags(), self._uptime & 0xFFFFFFFF,
                   p.PROTOCOL_VERSION, major, minor, patch, self._reset_cause, _u16(self._glitches),
                   _u16(self._blockages), _u16(self._bad_frames), _u16(self._lost_edges), _u16(self._tx_errors))

    def _send(self, msg_type, *values):
        frame = p.encode_message(self._seq, msg_type, *values)
        self._seq = (self._seq + 1) & 0xFF
        try:
            self._write(frame)
        except OSError:
            self._tx_errors += 1  # the frame is lost; the host sees the gap in SEQ
