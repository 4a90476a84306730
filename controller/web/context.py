"""What every part of the web app shares: the table's configuration, the live table, the review's database
and store, the templates, and the access check (``need``) that the routes call first (the cross-site check is
``guard.RequestGuard``'s, before any route)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import jinja2
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from controller.config import TableConfig
from controller.errors import StudTableError
from controller.rules.french import euros_fr

from .live import LiveTable
from .reviewdb import ReviewDB, User
from .store_view import StoreView
from .throttle import LoginThrottle

SESSION_COOKIE = "review_session"
TEMPLATES_DIR = Path(__file__).parent / "templates"


class NeedLogin(StudTableError, PermissionError):
    """A page asked for by someone not logged in: the app answers with a redirect to the login page."""




def when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def load_templates(table_id: str) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES_DIR), autoescape=True)
    env.globals.update(euros=euros_fr, table_id=table_id)
    return env


async def form(request: Request) -> dict[str, str]:
    body = (await request.body()).decode("utf-8", "replace")
    return {key: values[0] for key, values in parse_qs(body).items()}


@dataclass
class WebContext:
    config: TableConfig
    live: LiveTable
    reviews: ReviewDB
    store: StoreView
    throttle: LoginThrottle
    key_file: Path
    templates: jinja2.Environment
    #: enters the dealer's taps on the bus (``taps.Keypad``)
    keypad: Any = None
    secure_cookies: bool = False

    def user_of(self, request: Request) -> User | None:
        return self.reviews.session_user(request.cookies.get(SESSION_COOKIE))

    def need(self, request: Request, role: str, action: str, detail: str = "", api: bool = False) -> User:
        """The session's user, if its role allows; every access and every refusal goes to the audit log."""
        user = self.user_of(request)
        if user is None:
            if api:
                raise HTTPException(401, "login required")
            raise NeedLogin()
        if not user.can(role):
            self.reviews.audit(user.username, "denied", f"{action} {detail}".strip() + f" (needs {role})")
            raise HTTPException(403, f"the role {user.role} may not do this (needs {role})")
        self.reviews.audit(user.username, action, detail)
        return user

    def page(self, name: str, request: Request, status: int = 200, headers: dict[str, str] | None = None,
             **context: Any) -> HTMLResponse:
        return HTMLResponse(self.templates.get_template(name).render(user=self.user_of(request), **context),
                            status_code=status, headers=headers)

    def route(self, path: str, endpoint: Callable[[WebContext, Request], Awaitable[Response]],
              methods: list[str] | None = None) -> Route:
        """A route to ``endpoint(context, request)``: the handlers are plain functions, given this context."""
        return Route(path, functools.partial(endpoint, self), methods=methods, name=endpoint.__name__)
