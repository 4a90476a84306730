"""The shoe's Pico (MicroPython): wires shoe.py to the pins, the USB serial and the watchdog, and runs the loop.

Copy protocol.py, shoe.py and main.py to the Pico's root (see README.md in this folder); MicroPython runs main.py
at power-up. Frames go out on the USB serial (sys.stdout.buffer, no newline translation) and come in on
sys.stdin.buffer; Ctrl-C is switched off on it (a 0x03 byte in a host frame must not stop the firmware), so to
reach the REPL, tie MAINTENANCE_PIN to ground and reset the board.
"""

import select
import sys
import time

import machine
import micropython

try:
    from . import protocol
    from .shoe import ShoeFirmware
except (ImportError, ValueError):  # flat on the Pico
    import protocol
    from shoe import ShoeFirmware

BEAM_PIN = 14  # IR receiver's output: pulled up, high while the beam reaches it, low while a card breaks it
CUT_PIN = 15  # cut-card sensor's digital output: high while it sees the blue cut card (or the card's magnet)
MAINTENANCE_PIN = 22  # tied to ground at power-up: the firmware does not start, the REPL stays free
LED_PIN = "LED"  # on while the beam is broken (lines the beam up)
WDT_TIMEOUT_MS = 4000  # the rp2's longest is 8388 ms; a USB write to a host that does not read can stall ~0.5 s
LOOP_MS = 1  # the main loop waits for host bytes at most this long between two polls
READ_MAX = 256  # host bytes taken per loop at most, so a flood cannot starve the sensors


def reset_cause():
    """machine.reset_cause() as a protocol RESET_* code."""
    cause = machine.reset_cause()
    if cause == machine.WDT_RESET:
        return protocol.RESET_WATCHDOG
    if cause == machine.PWRON_RESET:
        return protocol.RESET_POWER_ON
    return protocol.RESET_OTHER


def make_shoe(write, clock, ticks_diff=None, watchdog=None):
    """The shoe's logic on this board's pins."""
    beam = machine.Pin(BEAM_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    cut = machine.Pin(CUT_PIN, machine.Pin.IN, machine.Pin.PULL_DOWN)
    led = machine.Pin(LED_PIN, machine.Pin.OUT, value=0)
    options = {"led": led, "watchdog": watchdog, "beam_broken_level": 0, "cut_active_level": 1,
               "reset_cause": reset_cause()}
    if ticks_diff is not None:
        options["ticks_diff"] = ticks_diff
    return ShoeFirmware(beam, cut, clock, write, **options)


def main():
    if machine.Pin(MAINTENANCE_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        print("shoe: maintenance jumper set, firmware not started")
        return
    micropython.kbd_intr(-1)
    host_in = sys.stdin.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    watchdog = machine.WDT(timeout=WDT_TIMEOUT_MS)
    shoe = make_shoe(sys.stdout.buffer.write, time.ticks_ms, time.ticks_diff, watchdog)
    shoe.start()
    while True:
        taken = 0
        while taken < READ_MAX and poller.poll(0):
            shoe.receive(host_in.read(1))
            taken += 1
        shoe.poll()
        poller.poll(LOOP_MS)


if __name__ == "__main__":
    main()
