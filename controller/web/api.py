"""The JSON API under /api: the live state (and its Server-Sent Events stream), login and logout, and the
review's coups, acknowledgements, reports, audit log and users, with the same checks and data as the pages.
``OPENAPI`` describes it (served at /openapi.json); a test holds it to the routes, both ways."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from controller.rules.flags import FlagKind

from . import admin, auth, review
from .context import SESSION_COOKIE, WebContext
from .reviewdb import ROLES

# --- the live table --------------------------------------------------------------------------------


async def state(ctx: WebContext, request: Request) -> JSONResponse:
    return JSONResponse(ctx.live.view())


async def stream(ctx: WebContext, request: Request) -> StreamingResponse:
    limit = int(request.query_params.get("limit", "0") or 0)
    live = ctx.live

    async def events() -> AsyncIterator[str]:
        queue = live.listen()
        sent = 0
        try:
            message = json.dumps(live.view(), ensure_ascii=False)
            while True:
                yield f"event: state\ndata: {message}\n\n"
                sent += 1
                if limit and sent >= limit:
                    return
                while True:
                    try:
                        message = await asyncio.wait_for(queue.get(), timeout=15)
                        while not queue.empty():  # only the latest state counts
                            message = queue.get_nowait()
                        break
                    except TimeoutError:
                        if await request.is_disconnected():
                            return
                        yield ": keep-alive\n\n"
        finally:
            live.unlisten(queue)

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def health(ctx: WebContext, request: Request) -> JSONResponse:
    view = ctx.live.view()
    return JSONResponse({"connected": view["connected"], "version": view["version"], "error": view["error"]})


# --- sessions ------------------------------------------------------------------------------------------


async def login(ctx: WebContext, request: Request) -> Response:
    try:
        fields = await request.json()
        username, password = str(fields["username"]), str(fields["password"])
    except (ValueError, KeyError, TypeError):
        raise HTTPException(400, "expected {\"username\": ..., \"password\": ...}") from None
    try:
        user = auth.check_login(ctx, request, username, password, "api")
    except auth.TooManyLogins as refusal:
        raise HTTPException(429, str(refusal), headers={"Retry-After": str(math.ceil(refusal.wait_s))}) from None
    if user is None:
        raise HTTPException(401, "wrong user name or password")
    return auth.open_session(ctx, user, JSONResponse({"username": user.username, "role": user.role}))


async def logout(ctx: WebContext, request: Request) -> Response:
    return auth.end_session(ctx, request, JSONResponse({"ok": True}))


# --- the review ------------------------------------------------------------------------------------------


async def json_object(request: Request, expected: str) -> dict[str, Any]:
    """The request's JSON body: HTTP 400 naming ``expected`` when it is not JSON; an empty dict when it is JSON
    but not an object (the caller's checks then name what is missing)."""
    try:
        fields = await request.json()
    except ValueError:
        raise HTTPException(400, f"expected {expected}") from None
    return fields if isinstance(fields, dict) else {}


async def coups(ctx: WebContext, request: Request) -> JSONResponse:
    ctx.need(request, "surveillance", "list_coups", str(request.query_params), api=True)
    return JSONResponse(review.query_coups(ctx, request)[1])


async def coup(ctx: WebContext, request: Request) -> JSONResponse:
    number = request.path_params["number"]
    ctx.need(request, "surveillance", "view_coup", f"coup {number}", api=True)
    return JSONResponse(review.coup_detail(ctx, number))


async def acknowledge(ctx: WebContext, request: Request) -> JSONResponse:
    user = ctx.need(request, "surveillance", "open_acknowledge", f"coup {request.path_params['number']}", api=True)
    fields = await json_object(request, "{\"note\": ...}")
    return JSONResponse(review.acknowledge(ctx, request, user, fields), status_code=201)


async def report(ctx: WebContext, request: Request) -> Response:
    user = ctx.need(request, "supervisor", "open_export", f"coup {request.path_params['number']}", api=True)
    return review.report_response(ctx, request, user)


async def audit(ctx: WebContext, request: Request) -> JSONResponse:
    ctx.need(request, "supervisor", "view_audit", api=True)
    return JSONResponse(admin.audit_entries(ctx))


async def users(ctx: WebContext, request: Request) -> JSONResponse:
    if request.method == "GET":
        ctx.need(request, "admin", "view_users", api=True)
        return JSONResponse([{k: row[k] for k in ("username", "role", "created", "disabled")}
                             for row in admin.user_rows(ctx)])
    user = ctx.need(request, "admin", "open_create_user", api=True)
    fields = await json_object(request, "{\"username\": ..., \"role\": ..., \"password\": ...}")
    return JSONResponse(admin.create_user_from(ctx, user, fields), status_code=201)


async def disable_user(ctx: WebContext, request: Request) -> JSONResponse:
    username = request.path_params["username"]
    admin.disable_user_by(ctx, ctx.need(request, "admin", "open_disable_user", username, api=True), username)
    return JSONResponse({"username": username, "disabled": True})


async def openapi(ctx: WebContext, request: Request) -> JSONResponse:
    return JSONResponse(OPENAPI)


def routes(ctx: WebContext) -> list[Route]:
    coup_path = "/api/coups/{number:int}"
    return [
        ctx.route("/openapi.json", openapi),
        ctx.route("/api/state", state),
        ctx.route("/api/stream", stream),
        ctx.route("/api/health", health),
        ctx.route("/api/login", login, methods=["POST"]),
        ctx.route("/api/logout", logout, methods=["POST"]),
        ctx.route("/api/coups", coups),
        ctx.route(coup_path, coup),
        ctx.route(coup_path + "/flags/{event_id:int}/{ordinal:int}/ack", acknowledge, methods=["POST"]),
        ctx.route(coup_path + "/report", report),
        ctx.route("/api/audit", audit),
        ctx.route("/api/users", users, methods=["GET", "POST"]),
        ctx.route("/api/users/{username:str}/disable", disable_user, methods=["POST"]),
    ]


# --- the description ------------------------------------------------------------------------------


def _op(summary: str, tag: str, role: str | None = None, params: list[dict[str, Any]] | None = None,
        body: dict[str, Any] | None = None, responses: dict[str, str] | None = None) -> dict[str, Any]:
    """One operation; a ``role`` adds the session cookie's security and the 401 and 403 answers."""
    operation: dict[str, Any] = {"summary": summary + (f" (role: {role} or above)" if role else ""), "tags": [tag],
                                 "responses": {"200": {"description": "OK"}, **{
                                     code: {"description": text} for code, text in (responses or {}).items()}}}
    if role:
        operation["security"] = [{"session": []}]
        operation["responses"].update({"401": {"description": "not logged in"},
                                       "403": {"description": "the role may not do this"}})
    if params:
        operation["parameters"] = params
    if body:
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return operation


def _path_param(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "integer"}}


def _query(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


_COUP = [_path_param("number")]
OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "stud-table web", "version": "0.1.0",
             "description": "The croupier's display (live table state) and the surveillance review."},
    "components": {"securitySchemes": {"session": {"type": "apiKey", "in": "cookie", "name": SESSION_COOKIE}}},
    "paths": {
        "/api/state": {"get": _op("The live table state (players' cards reduced to counts)", "display")},
        "/api/stream": {"get": _op("Server-Sent Events: an event `state` now and at every change", "display",
                                   params=[_query("limit", {"type": "integer"}, "close after this many events")])},
        "/api/health": {"get": _op("Whether the bus follower has the engine's state", "display")},
        "/api/display/confirm": {"post": _op(
            "The dealer's tap on an amount offered for a zone to confirm, entered as his keypad line; only from a "
            "browser on the table's own machine", "display",
            body={"type": "object", "required": ["seat", "box", "amount"],
                  "properties": {"seat": {"type": "integer"}, "box": {"type": "string"},
                                 "amount": {"type": "integer", "description": "cents"}}},
            responses={"400": "not such an object", "403": "not from a browser on the table's machine",
                       "409": "nothing to confirm in that zone now",
                       "422": "an amount not offered (key it)", "503": "the tap could not be sent"})},
        "/api/login": {"post": _op("Open a review session (sets the session cookie)", "review",
                                   body={"type": "object", "required": ["username", "password"],
                                         "properties": {"username": {"type": "string"},
                                                        "password": {"type": "string"}}},
                                   responses={"401": "wrong user name or password",
                                              "429": "too many failed logins for the name from this address, or "
                                                     "for any name from it: wait (see Retry-After)"})},
        "/api/logout": {"post": _op("Close the session", "review")},
        "/api/coups": {"get": _op("Coups, filtered", "review", "surveillance", params=[
            _query("table", {"type": "string"}, "a table id (each coup carries its table_id)"),
            _query("date_from", {"type": "string", "format": "date"}, "first day (UTC)"),
            _query("date_to", {"type": "string", "format": "date"}, "last day (UTC)"),
            _query("kind", {"type": "string", "enum": [kind.value for kind in FlagKind]}, "a flag kind"),
            _query("seat", {"type": "integer"}, "a seat"),
            _query("acknowledged", {"type": "string", "enum": ["yes", "no"]}, "all flags acknowledged, or not")])},
        "/api/coups/{number}": {"get": _op("A coup: timeline, hands, flags, evidence, acknowledgements", "review",
                                           "surveillance", params=_COUP, responses={"404": "no such coup"})},
        "/api/coups/{number}/flags/{event_id}/{ordinal}/ack": {"post": _op(
            "Acknowledge a flag with a note (kept for good, with who and when)", "review", "surveillance",
            params=_COUP + [_path_param("event_id"), _path_param("ordinal")],
            body={"type": "object", "required": ["note"], "properties": {"note": {"type": "string"}}},
            responses={"201": "acknowledged", "404": "no such flag"})},
        "/api/coups/{number}/report": {"get": _op("The coup's report, signed with the table's Ed25519 key", "review",
                                                  "supervisor", params=_COUP)},
        "/api/audit": {"get": _op("The audit log, newest first", "review", "supervisor")},
        "/api/users": {
            "get": _op("The review's users, their roles and whether disabled", "admin", "admin"),
            "post": _op("Create a user (password hashed with Argon2id)", "admin", "admin",
                        body={"type": "object", "required": ["username", "role", "password"],
                              "properties": {"username": {"type": "string"},
                                             "role": {"type": "string", "enum": list(ROLES)},
                                             "password": {"type": "string", "minLength": 8}}},
                        responses={"201": "created", "400": "bad name, role or password", "409": "the user exists"})},
        "/api/users/{username}/disable": {"post": _op(
            "Disable a user: no more logins, open sessions end; nothing is deleted", "admin", "admin",
            params=[{"name": "username", "in": "path", "required": True, "schema": {"type": "string"}}],
            responses={"400": "one's own account", "404": "no such user", "409": "already disabled"})},
    },
}

def _add_guard_answers(paths: dict[str, Any]) -> None:
    """What ``guard.RequestGuard`` answers before any route, on every state-changing call."""
    for operations in paths.values():
        if "post" in operations:
            answers = operations["post"]["responses"]
            reasons = [answers.get("403", {}).get("description"), "no Origin header, or another site's"]
            answers["403"] = {"description": "; ".join(filter(None, reasons))}
            if "requestBody" in operations["post"]:
                answers["415"] = {"description": "a body that is not said to be JSON"}


_add_guard_answers(OPENAPI["paths"])
