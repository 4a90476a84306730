"""A minimal stand-in for MicroPython's ``machine`` module (rp2 port), to run the shoe's firmware under CPython.

Only what the firmware uses: ``Pin`` (modes, pulls, ``value()``, ``irq()``), ``WDT`` (``feed()``),
``reset_cause()`` and its constants. It models pins, not the firmware: a test plays the outside world with
``Pin.drive(level)`` (the level a sensor puts on the line) and ``Pin.release()``, and a change of level calls the
pin's interrupt handler when it matches the trigger, as the hardware does. Like on the chip, ``Pin(14)`` anywhere
is the same line; ``reset()`` forgets every line (between tests).
"""

PWRON_RESET = 1
WDT_RESET = 3

_reset_cause = PWRON_RESET
_lines = {}


def reset_cause():
    return _reset_cause


def set_reset_cause(cause):
    """Test side: what reset_cause() answers."""
    global _reset_cause
    _reset_cause = cause


def reset():
    """Test side: every line back to undriven and unconfigured; the reset cause back to power-on."""
    _lines.clear()
    set_reset_cause(PWRON_RESET)


class _Line:
    def __init__(self):
        self.mode = Pin.IN
        self.pull = None
        self.driven = None  # level driven from outside, None when nothing drives the line
        self.out = 0  # the output latch
        self.handler = None
        self.trigger = 0

    def level(self):
        if self.mode == Pin.OUT:
            return self.out
        if self.driven is not None:
            return self.driven
        return 1 if self.pull == Pin.PULL_UP else 0


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, id, mode=-1, pull=-1, *, value=None):
        self.id = id
        if id not in _lines:
            _lines[id] = _Line()
        self._line = _lines[id]
        if mode != -1:
            self._line.mode = mode
        if pull != -1:
            self._line.pull = pull
        if value is not None:
            self._line.out = 1 if value else 0

    def __repr__(self):
        return f"Pin({self.id!r})"

    def value(self, *level):
        if not level:
            return self._line.level()
        self._line.out = 1 if level[0] else 0  # on an input this sets the latch only, as on the chip
        return None

    def irq(self, handler=None, trigger=IRQ_FALLING | IRQ_RISING):
        self._line.handler = handler
        self._line.trigger = trigger if handler is not None else 0

    # -- test side: the outside world
    def drive(self, level):
        """Put ``level`` (0 or 1) on the line from outside; calls the handler on a matching edge."""
        self._change(1 if level else 0)

    def release(self):
        """Stop driving the line: it goes to its pull's level."""
        self._change(None)

    def _change(self, driven):
        line = self._line
        before = line.level()
        line.driven = driven
        after = line.level()
        if before == after or line.handler is None:
            return
        if line.trigger & (Pin.IRQ_RISING if after else Pin.IRQ_FALLING):
            line.handler(self)


class WDT:
    def __init__(self, id=0, timeout=5000):
        self.timeout = timeout
        self.feeds = 0

    def feed(self):
        self.feeds += 1
