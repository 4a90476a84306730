"""The review's administration: the audit log (supervisor and above), and the users (admin only): list,
create, disable. The pages are here; the JSON API (``api.py``) uses the same functions."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from .context import WebContext, form, when
from .reviewdb import ROLES, User, UserExists


def audit_entries(ctx: WebContext) -> list[dict[str, Any]]:
    return [dict(entry, when=when(entry["at"])) for entry in ctx.reviews.audit_log()]


def user_rows(ctx: WebContext) -> list[dict[str, Any]]:
    return [dict(row, created=when(row["created_at"]),
                 disabled=when(row["disabled_at"]) if row["disabled_at"] is not None else None)
            for row in ctx.reviews.users()]


def create_user_from(ctx: WebContext, user: User, fields: dict[str, Any]) -> dict[str, str]:
    """Create the user that ``fields`` describe, by ``user``; HTTP 400 for a bad field, 409 for a taken name."""
    username, role, password = (str(fields.get(key) or "") for key in ("username", "role", "password"))
    try:
        ctx.reviews.create_user(username, role, password, by=user.username)
    except ValueError as error:
        raise HTTPException(400, str(error)) from None
    except UserExists as error:
        raise HTTPException(409, str(error)) from None
    return {"username": username, "role": role}


def disable_user_by(ctx: WebContext, user: User, username: str) -> None:
    if username == user.username:
        raise HTTPException(400, "an admin may not disable their own account")
    try:
        ctx.reviews.disable_user(username, by=user.username)
    except KeyError as error:
        raise HTTPException(404, error.args[0]) from None
    except ValueError as error:
        raise HTTPException(409, str(error)) from None


async def audit_page(ctx: WebContext, request: Request) -> Response:
    ctx.need(request, "supervisor", "view_audit")
    return ctx.page("audit.html", request, entries=audit_entries(ctx))


async def users_page(ctx: WebContext, request: Request) -> Response:
    ctx.need(request, "admin", "view_users")
    return ctx.page("admin.html", request, users=user_rows(ctx), roles=ROLES, error=None)


async def create_user_form(ctx: WebContext, request: Request) -> Response:
    user = ctx.need(request, "admin", "open_create_user")
    try:
        create_user_from(ctx, user, await form(request))
    except HTTPException as refusal:  # the page again, with the reason
        return ctx.page("admin.html", request, status=refusal.status_code, users=user_rows(ctx), roles=ROLES,
                        error=refusal.detail)
    return RedirectResponse("/review/admin", status_code=303)


async def disable_user_form(ctx: WebContext, request: Request) -> Response:
    username = request.path_params["username"]
    disable_user_by(ctx, ctx.need(request, "admin", "open_disable_user", username), username)
    return RedirectResponse("/review/admin", status_code=303)


def routes(ctx: WebContext) -> list[Route]:
    return [ctx.route("/review/audit", audit_page),
            ctx.route("/review/admin", users_page),
            ctx.route("/review/admin/users", create_user_form, methods=["POST"]),
            ctx.route("/review/admin/users/{username:str}/disable", disable_user_form, methods=["POST"])]
