"""The web server: the croupier's display and the surveillance review, one Starlette app.

``create_app(config)`` follows the bus in a background thread (``TableFollower``: snapshot, then updates)
and pushes each state to the display over Server-Sent Events. The review reads the event store
(read-only) and keeps its users, sessions, acknowledgements and audit log in its own SQLite file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import re
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from controller.config import TableConfig
from controller.rules.flags import FlagKind

from .display_page import DISPLAY_HTML
from .live import Follower, LiveTable
from .report import load_or_create_key, sign_report
from .review_pages import TEMPLATES
from .reviewdb import ROLES, ReviewDB, User, UserExists
from .store_view import StoreView, iso
from .throttle import LoginThrottle

SESSION_COOKIE = "review_session"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def default_follower_factory(config: TableConfig) -> Callable[[], Follower]:
    def factory() -> Follower:
        import zmq

        from controller.bus.clone import TableFollower

        return TableFollower(zmq.Context.instance(), config.bus_subscribe, config.bus_snapshot)

    return factory


def default_review_db_path(config: TableConfig) -> Path:
    return config.store_path.parent / "review.sqlite"


def default_key_path(config: TableConfig) -> Path:
    return config.store_path.parent / "table-signing.key"


class NeedLogin(Exception):
    pass


class TooManyLogins(Exception):
    def __init__(self, wait_s: float) -> None:
        super().__init__(f"too many failed logins for this user name or address: try again in {math.ceil(wait_s)} s")
        self.wait_s = wait_s


def euros(cents: int) -> str:
    sign = "−" if cents < 0 else ""
    units = f"{abs(cents) // 100:,}".replace(",", "\u202f")
    return f"{sign}{units},{abs(cents) % 100:02d} €"


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def _label(kind: str) -> str:
    try:
        return FlagKind(kind).label_fr
    except ValueError:
        return kind


def create_app(config: TableConfig, follower_factory: Callable[[], Follower] | None | str = "bus",
               review_db_path: str | Path | None = None, key_path: str | Path | None = None,
               session_ttl_s: float = 30 * 60, secure_cookies: bool = False,
               password_hasher: Any = None, login_throttle: LoginThrottle | None = None) -> Starlette:
    """The app. ``follower_factory``: "bus" (default) follows the configured bus; None follows nothing
    (tests feed ``app.state.live.set_state``); or any callable returning a follower.
    ``login_throttle``: the login rate limit (default: 5 failures per user name, 20 per address, in 5 min)."""
    factory = default_follower_factory(config) if follower_factory == "bus" else follower_factory
    live = LiveTable(factory)  # type: ignore[arg-type]
    reviews = ReviewDB(review_db_path or default_review_db_path(config), session_ttl_s=session_ttl_s,
                       hasher=password_hasher)
    store = StoreView(config.store_path, config.evidence_dir, config.rules, config.table_id)
    throttle = login_throttle or LoginThrottle()
    key_file = Path(key_path) if key_path else default_key_path(config)
    env = jinja2.Environment(loader=jinja2.DictLoader(TEMPLATES), autoescape=True)
    env.globals.update(euros=euros, table_id=config.table_id)

    # --- access ------------------------------------------------------------------

    def user_of(request: Request) -> User | None:
        return reviews.session_user(request.cookies.get(SESSION_COOKIE))

    def need(request: Request, role: str, action: str, detail: str = "", api: bool = False) -> User:
        """The session's user, if its role allows; every access and every refusal goes to the audit log."""
        user = user_of(request)
        if user is None:
            if api:
                raise HTTPException(401, "login required")
            raise NeedLogin()
        if not user.can(role):
            reviews.audit(user.username, "denied", f"{action} {detail}".strip() + f" (needs {role})")
            raise HTTPException(403, f"the role {user.role} may not do this (needs {role})")
        reviews.audit(user.username, action, detail)
        return user

    def same_origin(request: Request) -> None:
        origin = request.headers.get("origin")
        if origin and urlparse(origin).netloc != request.headers.get("host"):
            raise HTTPException(403, "cross-site request refused")

    async def form(request: Request) -> dict[str, str]:
        body = (await request.body()).decode("utf-8", "replace")
        return {key: values[0] for key, values in parse_qs(body).items()}

    def page(name: str, request: Request, status: int = 200, headers: dict[str, str] | None = None,
             **context: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(user=user_of(request), **context), status_code=status,
                            headers=headers)

    # --- display and live channel --------------------------------------------------

    async def display(request: Request) -> HTMLResponse:
        initial = json.dumps(live.view(), ensure_ascii=False).replace("</", "<\\/")
        html = DISPLAY_HTML.replace("__TABLE__", str(jinja2.utils.markupsafe.escape(config.table_id)))
        return HTMLResponse(html.replace("__INITIAL__", initial), headers={"Cache-Control": "no-store"})

    async def api_state(request: Request) -> JSONResponse:
        return JSONResponse(live.view())

    async def api_stream(request: Request) -> StreamingResponse:
        limit = int(request.query_params.get("limit", "0") or 0)

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

    async def api_health(request: Request) -> JSONResponse:
        view = live.view()
        return JSONResponse({"connected": view["connected"], "version": view["version"], "error": view["error"]})

    # --- login ---------------------------------------------------------------------------

    def open_session(user: User, response: Response) -> Response:
        token = reviews.open_session(user)
        response.set_cookie(SESSION_COOKIE, token, max_age=int(reviews.session_max_s), httponly=True,
                            samesite="strict", secure=secure_cookies, path="/")
        return response

    def check_login(request: Request, username: str, password: str, via: str) -> User | None:
        """The user, or None for a wrong name or password; TooManyLogins (and no password check) while the
        name or the client's address is locked out. Failures, refusals and logins go to the audit log."""
        address = request.client.host if request.client else "unknown"
        keys = throttle.keys(username, address)
        wait_s = throttle.refused_for(keys)
        if wait_s > 0:
            reviews.audit(username[:64] or None, "login_refused",
                          f"{via} from {address}: locked out for {math.ceil(wait_s)} s more")
            raise TooManyLogins(wait_s)
        user = reviews.authenticate(username, password)
        if user is None:
            throttle.failed(keys)
            reviews.audit(username[:64] or None, "login_failed", f"{via} from {address}")
            return None
        throttle.succeeded(username)
        reviews.audit(user.username, "login", f"{user.role} ({via} from {address})")
        return user

    async def login_page(request: Request) -> Response:
        if request.method == "GET":
            return page("login.html", request, error=None)
        same_origin(request)
        fields = await form(request)
        try:
            user = check_login(request, fields.get("username", ""), fields.get("password", ""), "page")
        except TooManyLogins as refusal:
            return page("login.html", request, status=429, headers={"Retry-After": str(math.ceil(refusal.wait_s))},
                        error="Trop de connexions échouées pour cet utilisateur ou ce poste : réessayez dans "
                              f"{math.ceil(refusal.wait_s / 60)} min.")
        if user is None:
            return page("login.html", request, status=401, error="Utilisateur ou mot de passe incorrect.")
        return open_session(user, RedirectResponse("/review", status_code=303))

    async def api_login(request: Request) -> Response:
        try:
            fields = await request.json()
            username, password = str(fields["username"]), str(fields["password"])
        except (ValueError, KeyError, TypeError):
            raise HTTPException(400, "expected {\"username\": ..., \"password\": ...}") from None
        try:
            user = check_login(request, username, password, "api")
        except TooManyLogins as refusal:
            raise HTTPException(429, str(refusal), headers={"Retry-After": str(math.ceil(refusal.wait_s))}) from None
        if user is None:
            raise HTTPException(401, "wrong user name or password")
        return open_session(user, JSONResponse({"username": user.username, "role": user.role}))

    async def logout(request: Request) -> Response:
        same_origin(request)
        user = user_of(request)
        if user:
            reviews.audit(user.username, "logout", "")
        reviews.close_session(request.cookies.get(SESSION_COOKIE))
        response: Response = RedirectResponse("/review/login", status_code=303)
        if request.url.path.startswith("/api/"):
            response = JSONResponse({"ok": True})
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    # --- review data --------------------------------------------------------------------------

    def acked_keys() -> set[tuple[int, int]]:
        return {(a["flag_event"], a["flag_ordinal"]) for a in reviews.acknowledgements()}

    def query_coups(request: Request) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        q = {key: request.query_params.get(key) or None for key in
             ("table", "date_from", "date_to", "kind", "seat", "acknowledged")}
        if q["table"] and q["table"] != store.table_id:
            raise HTTPException(400, f"no table {q['table']!r} in this review (its tables: {store.table_id})")
        try:
            day_from = date.fromisoformat(q["date_from"]) if q["date_from"] else None
            day_to = date.fromisoformat(q["date_to"]) if q["date_to"] else None
            seat = int(q["seat"]) if q["seat"] else None
        except ValueError:
            raise HTTPException(400, "date_from/date_to are YYYY-MM-DD, seat a number") from None
        acknowledged = {"yes": True, "true": True, "no": False, "false": False}.get(q["acknowledged"] or "")
        return q, store.find_coups(acked_keys(), day_from, day_to, q["kind"], seat, acknowledged)

    def coup_detail(number: int) -> dict[str, Any]:
        coup = store.coup(number)
        if coup is None:
            raise HTTPException(404, f"no coup {number}")
        acks = reviews.acknowledgements(number)
        for flag in coup["flags"]:
            flag["label"] = _label(flag["kind"])
            flag["at"] = iso(flag.pop("wall_ns"))
            flag["acks"] = [dict(a, when=_when(a["at"])) for a in acks
                            if (a["flag_event"], a["flag_ordinal"]) == (flag["event_id"], flag["ordinal"])]
            flag["evidence"] = [e for e in coup["evidence"] if e["event_id"] == flag["event_id"]]
        return coup

    async def review_list(request: Request) -> Response:
        need(request, "surveillance", "list_coups", str(request.query_params))
        q, coups = query_coups(request)
        return page("coups.html", request, q=q, coups=coups, kinds=[kind.value for kind in FlagKind],
                    tables=[store.table_id])

    async def api_coups(request: Request) -> JSONResponse:
        need(request, "surveillance", "list_coups", str(request.query_params), api=True)
        return JSONResponse(query_coups(request)[1])

    async def review_coup(request: Request) -> Response:
        number = request.path_params["number"]
        need(request, "surveillance", "view_coup", f"coup {number}")
        coup = coup_detail(number)
        table = coup["table"]
        settlement = coup["settlement"] or (table or {}).get("settlement")
        payouts: dict[str, list[dict[str, Any]]] = {}
        for payout in (settlement or {}).get("payouts", []):
            payouts.setdefault(str(payout["seat"]), []).append(payout)
        return page("coup.html", request, coup=coup, flags=coup["flags"], table=table, settlement=settlement,
                    payouts=payouts)

    async def api_coup(request: Request) -> JSONResponse:
        number = request.path_params["number"]
        need(request, "surveillance", "view_coup", f"coup {number}", api=True)
        return JSONResponse(coup_detail(number))

    def acknowledge(request: Request, user: User, fields: dict[str, str]) -> dict[str, Any]:
        number, event_id, ordinal = (request.path_params[key] for key in ("number", "event_id", "ordinal"))
        note = (fields.get("note") or "").strip()
        if not note:
            raise HTTPException(400, "an acknowledgement needs a note")
        if not any(f["event_id"] == event_id and f["ordinal"] == ordinal for f in store.flags(number)):
            raise HTTPException(404, f"no flag {event_id}/{ordinal} in coup {number}")
        ack_id = reviews.acknowledge(user, event_id, ordinal, number, note[:2000])
        reviews.audit(user.username, "acknowledge_flag",
                      f"coup {number} flag {event_id}/{ordinal} ack #{ack_id}: {note[:200]}")
        return {"id": ack_id, "coup": number, "flag_event": event_id, "flag_ordinal": ordinal,
                "username": user.username, "note": note}

    async def review_ack(request: Request) -> Response:
        same_origin(request)
        user = need(request, "surveillance", "open_acknowledge", f"coup {request.path_params['number']}")
        acknowledge(request, user, await form(request))
        return RedirectResponse(f"/review/coups/{request.path_params['number']}", status_code=303)

    async def api_ack(request: Request) -> JSONResponse:
        same_origin(request)
        user = need(request, "surveillance", "open_acknowledge", f"coup {request.path_params['number']}", api=True)
        try:
            fields = await request.json()
        except ValueError:
            raise HTTPException(400, "expected {\"note\": ...}") from None
        return JSONResponse(acknowledge(request, user, fields if isinstance(fields, dict) else {}), status_code=201)

    def report_response(request: Request, user: User) -> Response:
        number = request.path_params["number"]
        coup = coup_detail(number)
        report = {
            "table_id": config.table_id, "coup": number, "generated_at": datetime.now(UTC).isoformat(),
            "generated_by": user.username, "void": coup["void"], "settlement": coup["settlement"],
            "events": [{k: e[k] for k in ("id", "topic", "publisher", "seq", "mono_ns", "wall_ns", "body",
                                           "prev_hash", "hash")} for e in coup["events"]],
            "evidence": [{k: e[k] for k in ("sha256", "event_id", "file", "media_type")} for e in coup["evidence"]],
            "flags": [{k: f[k] for k in ("event_id", "ordinal", "kind", "label", "severity", "seat", "detail", "at")}
                      for f in coup["flags"]],
            "notes": [{k: a[k] for k in ("flag_event", "flag_ordinal", "username", "when", "note")}
                      for f in coup["flags"] for a in f["acks"]],
            "shoe_count": coup["shoe_count"], "camera_count": coup["camera_count"],
        }
        signed = sign_report(report, load_or_create_key(key_file))
        reviews.audit(user.username, "export_report", f"coup {number}, {len(report['events'])} events")
        return Response(json.dumps(signed, ensure_ascii=False, indent=1), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="coup-{number}-report.json"'})

    async def review_report(request: Request) -> Response:
        user = need(request, "supervisor", "open_export", f"coup {request.path_params['number']}")
        return report_response(request, user)

    async def api_report(request: Request) -> Response:
        user = need(request, "supervisor", "open_export", f"coup {request.path_params['number']}", api=True)
        return report_response(request, user)

    async def review_evidence(request: Request) -> Response:
        sha = request.path_params["sha256"]
        need(request, "surveillance", "view_evidence", sha)
        found = store.evidence_file(sha) if _SHA256.match(sha) else None
        if found is None:
            raise HTTPException(404, "no such evidence")
        return FileResponse(found[0], media_type=found[1])

    def audit_entries() -> list[dict[str, Any]]:
        return [dict(entry, when=_when(entry["at"])) for entry in reviews.audit_log()]

    async def review_audit(request: Request) -> Response:
        need(request, "supervisor", "view_audit")
        return page("audit.html", request, entries=audit_entries())

    async def api_audit(request: Request) -> JSONResponse:
        need(request, "supervisor", "view_audit", api=True)
        return JSONResponse(audit_entries())

    # --- user management (admin) -----------------------------------------------------------------

    def create_user_from(user: User, fields: dict[str, Any]) -> dict[str, str]:
        username, role, password = (str(fields.get(key) or "") for key in ("username", "role", "password"))
        try:
            reviews.create_user(username, role, password, by=user.username)
        except ValueError as error:
            raise HTTPException(400, str(error)) from None
        except UserExists as error:
            raise HTTPException(409, str(error)) from None
        return {"username": username, "role": role}

    def disable_user_by(user: User, username: str) -> None:
        if username == user.username:
            raise HTTPException(400, "an admin may not disable their own account")
        try:
            reviews.disable_user(username, by=user.username)
        except KeyError as error:
            raise HTTPException(404, error.args[0]) from None
        except ValueError as error:
            raise HTTPException(409, str(error)) from None

    def user_rows() -> list[dict[str, Any]]:
        return [dict(row, created=_when(row["created_at"]),
                     disabled=_when(row["disabled_at"]) if row["disabled_at"] is not None else None)
                for row in reviews.users()]

    async def admin_page(request: Request) -> Response:
        need(request, "admin", "view_users")
        return page("admin.html", request, users=user_rows(), roles=ROLES, error=None)

    async def admin_create(request: Request) -> Response:
        same_origin(request)
        user = need(request, "admin", "open_create_user")
        try:
            create_user_from(user, await form(request))
        except HTTPException as refusal:
            return page("admin.html", request, status=refusal.status_code, users=user_rows(), roles=ROLES,
                        error=refusal.detail)
        return RedirectResponse("/review/admin", status_code=303)

    async def admin_disable(request: Request) -> Response:
        same_origin(request)
        username = request.path_params["username"]
        disable_user_by(need(request, "admin", "open_disable_user", username), username)
        return RedirectResponse("/review/admin", status_code=303)

    async def api_users(request: Request) -> JSONResponse:
        if request.method == "GET":
            need(request, "admin", "view_users", api=True)
            return JSONResponse([{k: row[k] for k in ("username", "role", "created", "disabled")}
                                 for row in user_rows()])
        same_origin(request)
        user = need(request, "admin", "open_create_user", api=True)
        try:
            fields = await request.json()
        except ValueError:
            raise HTTPException(400, "expected {\"username\": ..., \"role\": ..., \"password\": ...}") from None
        return JSONResponse(create_user_from(user, fields if isinstance(fields, dict) else {}), status_code=201)

    async def api_disable_user(request: Request) -> JSONResponse:
        same_origin(request)
        username = request.path_params["username"]
        disable_user_by(need(request, "admin", "open_disable_user", username, api=True), username)
        return JSONResponse({"username": username, "disabled": True})

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(OPENAPI)

    async def root(request: Request) -> Response:
        return RedirectResponse("/display", status_code=307)

    # --- errors ---------------------------------------------------------------------------------

    async def need_login(request: Request, exc: Exception) -> Response:
        return RedirectResponse("/review/login", status_code=303)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path.startswith("/api/") or request.url.path == "/openapi.json":
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        return HTMLResponse(f"<!doctype html><meta charset=utf-8><title>{exc.status_code}</title>"
                            f"<h1>{exc.status_code}</h1><p>{jinja2.utils.markupsafe.escape(exc.detail)}</p>"
                            "<p><a href='/review'>Revue</a></p>", status_code=exc.status_code, headers=exc.headers)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        live.start()
        try:
            yield
        finally:
            live.stop()

    routes = [
        Route("/", root),
        Route("/display", display),
        Route("/openapi.json", openapi),
        Route("/api/state", api_state),
        Route("/api/stream", api_stream),
        Route("/api/health", api_health),
        Route("/api/login", api_login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/coups", api_coups),
        Route("/api/coups/{number:int}", api_coup),
        Route("/api/coups/{number:int}/flags/{event_id:int}/{ordinal:int}/ack", api_ack, methods=["POST"]),
        Route("/api/coups/{number:int}/report", api_report),
        Route("/api/audit", api_audit),
        Route("/api/users", api_users, methods=["GET", "POST"]),
        Route("/api/users/{username:str}/disable", api_disable_user, methods=["POST"]),
        Route("/review", review_list),
        Route("/review/login", login_page, methods=["GET", "POST"]),
        Route("/review/logout", logout, methods=["POST"]),
        Route("/review/coups/{number:int}", review_coup),
        Route("/review/coups/{number:int}/flags/{event_id:int}/{ordinal:int}/ack", review_ack, methods=["POST"]),
        Route("/review/coups/{number:int}/report", review_report),
        Route("/review/evidence/{sha256:str}", review_evidence),
        Route("/review/audit", review_audit),
        Route("/review/admin", admin_page),
        Route("/review/admin/users", admin_create, methods=["POST"]),
        Route("/review/admin/users/{username:str}/disable", admin_disable, methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={NeedLogin: need_login, HTTPException: http_error})
    app.state.live = live
    app.state.reviews = reviews
    app.state.store = store
    app.state.key_path = key_file
    return app


def _op(summary: str, tag: str, role: str | None = None, params: list[dict[str, Any]] | None = None,
        body: dict[str, Any] | None = None, responses: dict[str, str] | None = None) -> dict[str, Any]:
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
        "/api/login": {"post": _op("Open a review session (sets the session cookie)", "review",
                                   body={"type": "object", "required": ["username", "password"],
                                         "properties": {"username": {"type": "string"},
                                                        "password": {"type": "string"}}},
                                   responses={"401": "wrong user name or password",
                                              "429": "too many failed logins for the name or the address: "
                                                     "refused for a while (see Retry-After)"})},
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
