"""Virtual wiring, for the virtual table only (``stud-table sensors --virtual-pins ipc://...``).

The sensors process then runs on gpiozero's ``MockFactory`` instead of the Pi's pins, and a ZeroMQ REP socket lets
another process (the virtual table) drive those mock pins as the dealer's fingers and the cut card would: the
same debounce, the same events, the same bridge onto the bus. Never used on a real table. With the bus's keys,
that socket is a CURVE server with the sensors role's key pair that answers the simulator's key only.

Requests (JSON): ``{"device": "no_more_bets", "action": "press"}``, ``{"device": "cut_card", "action": "on" | "off"}``.
Replies: ``{"ok": true}`` or ``{"ok": false, "error": "..."}``.

A finger holds a button until it clicks: a press is held until the debounce has taken it, then released until the
debounce has taken that too (a fixed hold would be lost whenever this process is not scheduled within the hold, on
a loaded machine). "on" and "off" likewise reply once the sensor's new level counts.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import zmq
from gpiozero.pins.mock import MockFactory, MockPWMPin

from controller.bus.keys import Keys, OffBusServer
from controller.gpio_config import INPUT_KEYS, InputConfig

from .gpio import TableSensors

#: how long a debounced level may take to count before the request fails
SETTLE_TIMEOUT_S = 10.0


def mock_factory() -> MockFactory:
    return MockFactory(pin_class=MockPWMPin)


class VirtualPinsServer:
    """Drives the mock input pins of ``sensors`` (opened on ``factory``) on requests received at ``endpoint``, in
    a thread of its own."""

    def __init__(self, context: zmq.Context, endpoint: str, sensors: TableSensors, factory: MockFactory,
                 keys: Keys | None = None) -> None:
        """``keys``: the table's bus keys: the socket is then a CURVE server with the sensors role's key pair that
        answers the simulator's key only (in a context of its own)."""
        self.sensors = sensors
        self.factory = factory
        self._server = OffBusServer(endpoint, zmq.REP, keys, "sensors", ("simulator",), context)
        self.socket = self._server.socket
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="virtual-pins", daemon=True)
        self._thread.start()

    def _set(self, name: str, device: InputConfig, active: bool) -> None:
        """Drive the line, then wait until the debounced state agrees."""
        pin = self.factory.pin(device.pin)
        if active == device.active_high:
            pin.drive_high()
        else:
            pin.drive_low()
        deadline = time.monotonic() + SETTLE_TIMEOUT_S
        while self.sensors.snapshot().get(name) != active:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{name} did not read {'active' if active else 'inactive'} "
                                   f"within {SETTLE_TIMEOUT_S:.0f} s")
            time.sleep(0.002)

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        name, action = request.get("device"), request.get("action")
        device = getattr(self.sensors.config, str(name), None) if name in INPUT_KEYS else None
        if not isinstance(device, InputConfig):
            return {"ok": False, "error": f"no fitted input {name!r}"}
        try:
            if action == "press":
                self._set(str(name), device, True)
                self._set(str(name), device, False)
            elif action in ("on", "off"):
                self._set(str(name), device, action == "on")
            else:
                return {"ok": False, "error": f"unknown action {action!r} (press, on, off)"}
        except TimeoutError as error:
            return {"ok": False, "error": str(error)}
        return {"ok": True}

    def _serve(self) -> None:
        poller = zmq.Poller()
        poller.register(self.socket, zmq.POLLIN)
        while not self._stop.is_set():
            if not poller.poll(100):
                continue
            try:
                request = json.loads(self.socket.recv())
                reply = self.handle(request) if isinstance(request, dict) else {"ok": False, "error": "not an object"}
            except ValueError as error:
                reply = {"ok": False, "error": f"bad request: {error}"}
            self.socket.send(json.dumps(reply).encode())

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self._server.close()
