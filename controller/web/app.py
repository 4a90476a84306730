"""The web server: the croupier's display and the surveillance review, one Starlette app.

``create_app(config)`` follows the bus in a background thread (``TableFollower``: snapshot, then updates)
and pushes each state to the display over Server-Sent Events. The review reads the event store
(read-only) and keeps its users, sessions, acknowledgements and audit log in its own SQLite file.
The routes come from one module per concern (display, auth, review, admin, api); this one assembles them.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from controller.config import TableConfig
from controller.signing import key_path

from . import admin, api, auth, display, review, taps
from .context import NeedLogin, WebContext, load_templates
from .guard import RequestGuard
from .live import Follower, LiveTable
from .reviewdb import ReviewDB
from .store_view import StoreView
from .throttle import LoginThrottle

if TYPE_CHECKING:
    import zmq

STATIC_DIR = Path(__file__).parent / "static"


def default_follower_factory(config: TableConfig) -> Callable[[], Follower]:
    @functools.cache  # one context for the follower and each one made again after a failure
    def context() -> zmq.Context:
        from controller.bus.keys import bus_context

        return bus_context(config.bus_keys, "web")

    def factory() -> Follower:
        from controller.bus.clone import TableFollower
        from controller.bus.keys import engine_key

        return TableFollower(context(), config.bus_subscribe, config.bus_snapshot, engine_key(config.bus_keys))

    return factory


def default_review_db_path(config: TableConfig) -> Path:
    return config.store_path.parent / "review.sqlite"


def default_key_path(config: TableConfig) -> Path:
    return key_path(config.store_path)


async def need_login(request: Request, exc: Exception) -> Response:
    return RedirectResponse("/review/login", status_code=303)


async def http_error(ctx: WebContext, request: Request, exc: Exception) -> Response:
    """JSON for the API and its description, a small page for the rest."""
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/") or request.url.path == "/openapi.json":
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
    page = ctx.templates.get_template("error.html").render(status=exc.status_code, detail=exc.detail)
    return HTMLResponse(page, status_code=exc.status_code, headers=exc.headers)


def create_app(config: TableConfig, follower_factory: Callable[[], Follower] | None | str = "bus",
               review_db_path: str | Path | None = None, key_path: str | Path | None = None,
               session_ttl_s: float = 30 * 60,
               password_hasher: Any = None, login_throttle: LoginThrottle | None = None) -> Starlette:
    """The app. ``follower_factory``: "bus" (default) follows the configured bus; None follows nothing
    (tests feed ``app.state.live.set_state``); or any callable returning a follower.
    ``login_throttle``: the login rate limit (default: 5 free failures per name and address, 20 per address, then
    a wait from 15 s doubling up to an hour)."""
    factory = default_follower_factory(config) if follower_factory == "bus" else follower_factory
    key_file = Path(key_path) if key_path else default_key_path(config)
    ctx = WebContext(
        config=config,
        live=LiveTable(factory),  # type: ignore[arg-type]
        reviews=ReviewDB(review_db_path or default_review_db_path(config), session_ttl_s=session_ttl_s,
                         hasher=password_hasher),
        store=StoreView(config.store_path, config.evidence_dir, config.rules, config.table_id,
                        config.jackpot_meter_cents, key_file),
        throttle=login_throttle or LoginThrottle(),
        key_file=key_file,
        templates=load_templates(config.table_id),
        keypad=taps.Keypad(config),
        secure_cookies=config.web_secure_cookies,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        ctx.live.start()
        try:
            yield
        finally:
            ctx.live.stop()
            ctx.keypad.close()

    routes = [route for part in (display, taps, api, auth, review, admin) for route in part.routes(ctx)]
    routes.append(Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"))  # the pages' CSS and script
    guard = Middleware(RequestGuard, allowed_hosts=config.web_allowed_hosts)
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[guard],
                    exception_handlers={NeedLogin: need_login, HTTPException: functools.partial(http_error, ctx)})
    app.state.live = ctx.live
    app.state.reviews = ctx.reviews
    app.state.store = ctx.store
    app.state.key_path = ctx.key_file
    return app
