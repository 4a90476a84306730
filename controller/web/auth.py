"""The review's logins and sessions: the login page, the session cookie, logout, and the login rate limit
(a locked-out name or address is refused before any password check). Failures, refusals, logins and
logouts go to the audit log; the JSON login and logout (``api.py``) use the same functions."""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from controller.errors import StudTableError

from .context import SESSION_COOKIE, WebContext, form
from .reviewdb import User


class TooManyLogins(StudTableError, PermissionError):
    def __init__(self, wait_s: float) -> None:
        super().__init__(f"too many failed logins from this address: try again in {math.ceil(wait_s)} s")
        self.wait_s = wait_s


def open_session(ctx: WebContext, user: User, response: Response) -> Response:
    token = ctx.reviews.open_session(user)
    response.set_cookie(SESSION_COOKIE, token, max_age=int(ctx.reviews.session_max_s), httponly=True,
                        samesite="strict", secure=ctx.secure_cookies, path="/")
    return response


def check_login(ctx: WebContext, request: Request, username: str, password: str, via: str) -> User | None:
    """The user, or None for a wrong name or password; TooManyLogins (and no password check) while this name, or
    any name, must wait from the client's address. Logins go to the audit log one by one; failures and refusals
    grouped, a row per source and minute with its count (no name: a source guessing names tries many)."""
    address = request.client.host if request.client else "unknown"
    wait_s = ctx.throttle.wait_s(ctx.reviews, username, address)
    if wait_s > 0:
        ctx.reviews.audit(None, "login_refused", f"{via} from {address}: too many failed logins, waiting",
                          grouping=f"login_refused {via} {address}")
        raise TooManyLogins(wait_s)
    user = ctx.reviews.authenticate(username, password)
    if user is None:
        ctx.throttle.failed(ctx.reviews, username, address)
        ctx.reviews.audit(None, "login_failed", f"{via} from {address}",
                          grouping=f"login_failed {via} {address}")
        return None
    ctx.throttle.succeeded(ctx.reviews, username, address)
    ctx.reviews.audit(user.username, "login", f"{user.role} ({via} from {address})")
    return user


def end_session(ctx: WebContext, request: Request, response: Response) -> Response:
    """Close the request's session (audited when it had a user) and clear its cookie on ``response``."""
    user = ctx.user_of(request)
    if user:
        ctx.reviews.audit(user.username, "logout", "")
    ctx.reviews.close_session(request.cookies.get(SESSION_COOKIE))
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


async def login_page(ctx: WebContext, request: Request) -> Response:
    if request.method == "GET":
        return ctx.page("login.html", request, error=None)
    fields = await form(request)
    try:
        user = check_login(ctx, request, fields.get("username", ""), fields.get("password", ""), "page")
    except TooManyLogins as refusal:
        return ctx.page("login.html", request, status=429, headers={"Retry-After": str(math.ceil(refusal.wait_s))},
                        error="Trop de connexions échouées depuis ce poste : réessayez dans "
                              f"{ctx.throttle.minutes(refusal.wait_s)} min.")
    if user is None:
        return ctx.page("login.html", request, status=401, error="Utilisateur ou mot de passe incorrect.")
    return open_session(ctx, user, RedirectResponse("/review", status_code=303))


async def logout_page(ctx: WebContext, request: Request) -> Response:
    return end_session(ctx, request, RedirectResponse("/review/login", status_code=303))


def routes(ctx: WebContext) -> list[Route]:
    return [ctx.route("/review/login", login_page, methods=["GET", "POST"]),
            ctx.route("/review/logout", logout_page, methods=["POST"])]
