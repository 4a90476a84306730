"""What every request to the web app goes through before any route: the browser's protections on every response,
a cap on the body's size, and the cross-site check on every request that changes something.

- Headers: a Content-Security-Policy that lets the pages load only their own scripts, styles and images (no inline
  script, no frame around them), ``X-Frame-Options: DENY``, ``nosniff``, and no referrer sent to other sites.
- Bodies over ``MAX_BODY_BYTES`` are refused with 413, whether announced by Content-Length or streamed.
- A POST, PUT, PATCH or DELETE must carry an ``Origin`` of this very host (a browser always sends one; its absence
  is a forged or scripted request), and an API call with a body (announced or chunked) must say it is JSON: a form
  or ``text/plain`` post from another site, which a browser sends without asking, never reaches a route.
- A repeated Origin, Host, Content-Length or Content-Type is refused; with ``[web] allowed_hosts``, so is a Host
  header not among them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlparse

from controller.errors import StudTableError

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: the largest body a request may carry: a note on a flag or a new user is a few hundred bytes
MAX_BODY_BYTES = 64 * 1024
CHANGING_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                 b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]


class _TooLarge(StudTableError):
    """A streamed body passed the limit: raised out of the route to the guard, which answers 413."""


class RequestGuard:
    def __init__(self, app: ASGIApp, max_body_bytes: int = MAX_BODY_BYTES, allowed_hosts: tuple[str, ...] = ()
                 ) -> None:
        """``allowed_hosts``: the Host headers (name:port as the browser sends it) this server answers; any when
        empty. Naming them defeats DNS rebinding: another site's name pointed at this server's address."""
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.allowed_hosts = frozenset(allowed_hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        headers: dict[str, str] = {}
        repeated: set[str] = set()
        for raw_key, raw_value in scope["headers"]:
            key = raw_key.decode("latin-1").lower()
            if key in headers:
                repeated.add(key)
            headers[key] = raw_value.decode("latin-1")
        refusal = self._refusal(scope, headers, repeated)
        if refusal is not None:
            await _answer(scope, send_with_headers, *refusal)
            return
        seen = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body_bytes:
                    raise _TooLarge
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send_with_headers(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _TooLarge:
            if not started:
                await _answer(scope, send_with_headers, 413, self._too_large)

    @property
    def _too_large(self) -> str:
        return f"request body over {self.max_body_bytes} bytes"

    def _refusal(self, scope: Scope, headers: dict[str, str], repeated: set[str]) -> tuple[int, str] | None:
        # the route reads the first of a repeated header and this check the last: neither may be chosen by a client
        if repeated & {"origin", "content-length", "content-type", "host"}:
            return 400, f"repeated header: {', '.join(sorted(repeated))}"
        length = headers.get("content-length", "0")
        if not (length.isascii() and length.isdigit()):
            return 400, "Content-Length is not a number"
        if int(length) > self.max_body_bytes:
            return 413, self._too_large
        host = headers.get("host", "")
        if self.allowed_hosts and host not in self.allowed_hosts:
            return 400, f"this server answers for {', '.join(sorted(self.allowed_hosts))}, not {host!r}"
        if scope["method"] not in CHANGING_METHODS:
            return None
        origin = headers.get("origin")
        if not origin:
            return 403, "cross-site request refused: no Origin header"
        if urlparse(origin).netloc != host:
            return 403, "cross-site request refused: Origin is another site"
        has_body = int(length) > 0 or "transfer-encoding" in headers  # a chunked body announces no length
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if scope["path"].startswith("/api/") and has_body and content_type != "application/json":
            return 415, "the API takes JSON bodies only (Content-Type: application/json)"
        return None


async def _answer(scope: Scope, send: Send, status: int, detail: str) -> None:
    """A refusal as the routes give theirs: JSON for the API, a line of text for the pages."""
    if scope["path"].startswith("/api/"):
        body, content_type = json.dumps({"detail": detail}).encode(), b"application/json"
    else:
        body, content_type = detail.encode(), b"text/plain; charset=utf-8"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})
