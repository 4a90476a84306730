"""The dealer's taps on his screen: an amount the display offers for a zone « à confirmer » (the camera's reading,
or the likeliest amount but it) entered as the keypad line he would key (``controller.keypad``).

The taps reach the bus as the ``keypad`` role, through an outbox: a tap is kept until the engine has recorded it.
The screen is the table's own: a tap is taken only from a browser on this machine (the kiosk beside the felt),
never from the network, where the display may be watched but no one may key for the dealer. So a tap must come
from a loopback address, not through a proxy (which would make every client look local), and name this machine as
its host (a page of another name that resolves here, DNS rebinding, is refused); the request guard has already
refused any other site's page. Only an amount offered is taken (none while the coup is paid), and one tap a zone
while the table takes it: any other amount is keyed on the keypad."""

from __future__ import annotations

import asyncio
import ipaddress
import threading
import time
from typing import Any

import zmq
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from controller.bus.keys import BusKeyError, bus_context
from controller.bus.schema import DealerOperation
from controller.bus.transport import Publisher
from controller.config import TableConfig
from controller.keypad import confirming_line, offered

from .context import WebContext

#: how long a zone tapped takes no second tap (the table takes a line in a fraction of a second)
ENTERED_HOLD_S = 2.0
EXPECTED = 'expected a JSON object such as {"seat": 3, "box": "ante", "amount": 2000} (cents)'


class Keypad:
    """Enters keypad lines on the bus, its publisher made at the first tap (a display nobody taps opens none)."""

    def __init__(self, config: TableConfig) -> None:
        self._config = config
        self._lock = threading.Lock()
        self._publisher: Publisher | None = None
        self._context: zmq.Context[zmq.Socket[bytes]] | None = None
        #: the zones (coup, seat, box) a tap was entered for lately, and when
        self._entered: dict[tuple[object, int, str], float] = {}

    def enter(self, zone: tuple[object, int, str], line: str) -> bool:
        """Enter ``line`` for ``zone`` (coup, seat, box), unless a tap for it was entered less than
        ``ENTERED_HOLD_S`` ago: the table takes one in a fraction of a second, and a second tap meanwhile (a finger
        twice, a button drawn again) would key it twice. Whether it was entered."""
        now = time.monotonic()
        with self._lock:
            self._entered = {each: at for each, at in self._entered.items() if now - at < ENTERED_HOLD_S}
            if zone in self._entered:
                return False
            if self._publisher is None:
                config = self._config
                self._context = bus_context(config.bus_keys, "keypad")
                self._publisher = Publisher(self._context, config.bus_publish, "keypad-display",
                                            acknowledged_at=config.bus_subscribe)
            self._publisher.publish("dealer.keypad", DealerOperation(line))
            self._entered[zone] = now
            return True

    def close(self) -> None:
        with self._lock:
            if self._publisher is not None:
                self._publisher.close()
                if self._config.bus_keys is not None and self._context is not None:  # a context of its own
                    self._context.term()
            self._publisher = self._context = None


#: headers a proxy adds: a request through one is not the kiosk's, whatever address it comes from
FORWARDED = ("forwarded", "x-forwarded-for", "x-real-ip")


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a name, not an address
        return host == "localhost"


def _from_this_machine(ctx: WebContext, request: Request) -> bool:
    if request.client is None or not _loopback(request.client.host):
        return False
    if any(name in request.headers for name in FORWARDED):
        return False
    host = request.headers.get("host", "")
    return _loopback(host.rsplit(":", 1)[0] if not host.endswith("]") else host) \
        or host in ctx.config.web_allowed_hosts


def _tap(body: Any) -> tuple[int, str, int]:
    if not isinstance(body, dict):
        raise HTTPException(400, EXPECTED)
    seat, box, amount = body.get("seat"), body.get("box"), body.get("amount")
    if not (isinstance(seat, int) and isinstance(box, str) and isinstance(amount, int)) or isinstance(seat, bool) \
            or isinstance(amount, bool):
        raise HTTPException(400, EXPECTED)
    return seat, box, amount


async def confirm(ctx: WebContext, request: Request) -> JSONResponse:
    if not _from_this_machine(ctx, request):
        raise HTTPException(403, "a tap is taken only from the table's own screen")
    try:
        seat, box, amount = _tap(await request.json())
    except ValueError:  # not JSON
        raise HTTPException(400, EXPECTED) from None
    state = ctx.live.state or {}
    asked = next((entry for entry in state.get("to_confirm") or []
                  if entry.get("seat") == seat and entry.get("box") == box), None)
    if asked is None:
        raise HTTPException(409, f"seat {seat} {box}: nothing to confirm there now")
    if amount not in offered(asked, str(state.get("phase"))):
        raise HTTPException(422, f"seat {seat} {box}: {amount} cents is not an amount offered; key it on the keypad")
    line = confirming_line(str(state.get("phase")), seat, box, amount)
    try:
        # the first tap reads the keys and connects: not on the event loop, which serves the display's stream
        sent = await asyncio.to_thread(ctx.keypad.enter, (state.get("coup"), seat, box), line)
    except (BusKeyError, zmq.ZMQError) as error:
        raise HTTPException(503, f"the tap could not be sent to the table: {error}") from None
    if not sent:
        raise HTTPException(409, f"seat {seat} {box}: a tap was sent already; the table is taking it")
    return JSONResponse({"keyed": line})


def routes(ctx: WebContext) -> list[Route]:
    return [ctx.route("/api/display/confirm", confirm, methods=["POST"])]
