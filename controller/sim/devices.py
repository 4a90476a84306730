"""The virtual table's devices, as the sensors process sees them.

* the shoe is the firmware's own logic (firmware/tests_support) on the master end of a pseudo-terminal whose
  slave is the sensors process's serial port, by a link in the demo's folder (``run/shoe``, see ``PtyShoe``);
  serial noise is garbage written on that line;
* the dealer's buttons and the cut card are gpiozero mock pins inside the sensors process, driven over its
  ``--virtual-pins`` socket (``VirtualPins``): the same debounce and bridge as on the Pi.

Whatever waits here polls a stop request (``Stop``) and raises ``Stopped`` once it says so.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path

import zmq

from controller.bus.keys import Keys, keyed_client
from controller.shutdown import block_stop_signals
from firmware import protocol
from firmware.tests_support.bench import ShoeBench

#: how long a device waits for the sensors process to answer
WAIT_S = 30.0


class Stopped(BaseException):
    """The stop was asked for (SIGINT, SIGTERM): raised where the demo waits, never in the middle of a step.

    A request, not an error: like ``KeyboardInterrupt``, which it stands for, it derives from ``BaseException``
    so that no ``except Exception`` on its way up takes it for a failure."""


Stop = Callable[[], bool]


def never() -> bool:
    return False


class PtyShoe:
    """The shoe's end of its USB cable: the firmware's logic writing into a pty's master, reading the host's
    requests from it; its clock follows real time.

    The sensors process opens ``link`` (as on the Pi it opens /dev/serial/by-id/..., a link udev keeps pointing at
    the shoe), never the pty's own name: /dev/pts numbers are reused as soon as a pty is closed, so a sensors
    process outliving an earlier demo, still retrying its port, would take this pty (its exclusive lock then
    keeps ours out, and the requests go to the wrong host)."""

    def __init__(self, link: Path) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self.link = link
        link.unlink(missing_ok=True)
        link.symlink_to(os.ttyname(self._slave))
        self.resets = 0  # RESET_COUNT requests served
        self.status_requests = 0  # STATUS_REQUEST served (the host sends one each time it opens the port)
        self._decoder = protocol.Decoder()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.bench = ShoeBench(write=self._write)
        self._thread = threading.Thread(target=self._pump, name="pty-shoe", daemon=True)
        self._thread.start()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        deadline = time.monotonic() + 2
        while view and time.monotonic() < deadline:
            if select.select([], [self.master], [], 0.1)[1]:
                with contextlib.suppress(BlockingIOError):
                    view = view[os.write(self.master, view):]

    def _pump(self) -> None:
        block_stop_signals()
        last = time.monotonic()
        while not self._stop.is_set():
            readable = select.select([self.master], [], [], 0.02)[0]
            with self._lock:
                if readable:
                    with contextlib.suppress(BlockingIOError, OSError):
                        data = os.read(self.master, 4096)
                        self.bench.shoe.receive(data)
                        for frame in self._decoder.feed(data):
                            if isinstance(frame, protocol.Frame):
                                self.resets += frame.type == protocol.RESET_COUNT
                                self.status_requests += frame.type == protocol.STATUS_REQUEST
                now = time.monotonic()
                self.bench.run(min(int((now - last) * 1000), 1000), step=5)
                last = now

    def draw(self) -> None:
        """One card out of the shoe, through its beam."""
        with self._lock:
            self.bench.card()

    def noise(self, data: bytes) -> None:
        with self._lock:
            self._write(data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.link.unlink(missing_ok=True)
        os.close(self.master)
        os.close(self._slave)


class VirtualPins:
    """The client of the sensors process's ``--virtual-pins`` socket."""

    def __init__(self, context: zmq.Context, endpoint: str, stop: Stop = never, keys: Keys | None = None) -> None:
        """``keys``: the table's bus keys, for a sensors process that answers the simulator's key only."""
        self.socket = context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.LINGER, 0)
        keyed_client(self.socket, keys, "simulator", "sensors")
        self.socket.connect(endpoint)
        self.stop = stop

    def act(self, device: str, action: str) -> None:
        self.socket.send(json.dumps({"device": device, "action": action}).encode())
        deadline = time.monotonic() + WAIT_S
        while not self.socket.poll(100):  # in steps: a stop (the sensors process may be gone) is not kept waiting
            if self.stop():
                raise Stopped
            if time.monotonic() > deadline:
                raise RuntimeError(f"virtual pins: {device} {action}: no answer within {WAIT_S:.0f} s")
        reply = json.loads(self.socket.recv())
        if not reply.get("ok"):
            raise RuntimeError(f"virtual pins: {device} {action}: {reply.get('error')}")

    def close(self) -> None:
        self.socket.close()
