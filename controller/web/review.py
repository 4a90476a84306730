"""The surveillance review's coups: the filtered list, a coup's detail (timeline, hands, flags, evidence,
acknowledgements), acknowledging a flag with a note, and the signed report. The pages are here; the JSON
API (``api.py``) answers with the same data."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from controller.rules.flags import FlagKind
from controller.signing import load_or_create_key

from .context import WebContext, form, when
from .report import sign_report
from .reviewdb import User
from .store_view import iso

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _label(kind: str) -> str:
    try:
        return FlagKind(kind).label_fr
    except ValueError:
        return kind


def query_coups(ctx: WebContext, request: Request) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The filter as asked (for the page's form) and the coups that match it."""
    store = ctx.store
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
    acked = {(a["flag_event"], a["flag_ordinal"]) for a in ctx.reviews.acknowledgements()}
    return q, store.find_coups(acked, day_from, day_to, q["kind"], seat, acknowledged)


def coup_detail(ctx: WebContext, number: int) -> dict[str, Any]:
    """The coup from the store, each flag with its label, time, acknowledgements and evidence."""
    coup = ctx.store.coup(number)
    if coup is None:
        raise HTTPException(404, f"no coup {number}")
    acks = ctx.reviews.acknowledgements(number)
    for flag in coup["flags"]:
        flag["label"] = _label(flag["kind"])
        flag["at"] = iso(flag.pop("wall_ns"))
        flag["acks"] = [dict(a, when=when(a["at"])) for a in acks
                        if (a["flag_event"], a["flag_ordinal"]) == (flag["event_id"], flag["ordinal"])]
        flag["evidence"] = [e for e in coup["evidence"] if e["event_id"] == flag["event_id"]]
    return coup


def acknowledge(ctx: WebContext, request: Request, user: User, fields: dict[str, Any]) -> dict[str, Any]:
    """Acknowledge the flag the path names, with the note in ``fields`` (kept for good, and audited)."""
    number, event_id, ordinal = (request.path_params[key] for key in ("number", "event_id", "ordinal"))
    note = (fields.get("note") or "").strip()
    if not note:
        raise HTTPException(400, "an acknowledgement needs a note")
    if not any(f["event_id"] == event_id and f["ordinal"] == ordinal for f in ctx.store.flags(number)):
        raise HTTPException(404, f"no flag {event_id}/{ordinal} in coup {number}")
    ack_id = ctx.reviews.acknowledge(user, event_id, ordinal, number, note[:2000])
    ctx.reviews.audit(user.username, "acknowledge_flag",
                      f"coup {number} flag {event_id}/{ordinal} ack #{ack_id}: {note[:200]}")
    return {"id": ack_id, "coup": number, "flag_event": event_id, "flag_ordinal": ordinal,
            "username": user.username, "note": note}


def report_response(ctx: WebContext, request: Request, user: User) -> Response:
    """The coup's report as a download, signed with the table's key; the export is audited."""
    number = request.path_params["number"]
    coup = coup_detail(ctx, number)
    report = {
        "table_id": ctx.config.table_id, "coup": number, "generated_at": datetime.now(UTC).isoformat(),
        "generated_by": user.username, "void": coup["void"], "settlement": coup["settlement"],
        "events": [{k: e[k] for k in ("id", "topic", "publisher", "seq", "mono_ns", "wall_ns", "body",
                                       "prev_hash", "hash")} for e in coup["events"]],
        "evidence": [{k: e[k] for k in ("sha256", "event_id", "file", "media_type")} for e in coup["evidence"]],
        "flags": [{k: f[k] for k in ("event_id", "ordinal", "kind", "label", "severity", "seat", "detail", "at")}
                  for f in coup["flags"]],
        "notes": [{k: a[k] for k in ("flag_event", "flag_ordinal", "username", "when", "note")}
                  for f in coup["flags"] for a in f["acks"]],
        "shoe_count": coup["shoe_count"], "camera_count": coup["camera_count"],
        "dealer_entries": coup["dealer_entries"],
    }
    signed = sign_report(report, load_or_create_key(ctx.key_file))
    ctx.reviews.audit(user.username, "export_report", f"coup {number}, {len(report['events'])} events")
    return Response(json.dumps(signed, ensure_ascii=False, indent=1), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="coup-{number}-report.json"'})


async def coups_page(ctx: WebContext, request: Request) -> Response:
    ctx.need(request, "surveillance", "list_coups", str(request.query_params))
    q, coups = query_coups(ctx, request)
    return ctx.page("coups.html", request, q=q, coups=coups, kinds=[kind.value for kind in FlagKind],
                    tables=[ctx.store.table_id])


async def coup_page(ctx: WebContext, request: Request) -> Response:
    number = request.path_params["number"]
    ctx.need(request, "surveillance", "view_coup", f"coup {number}")
    coup = coup_detail(ctx, number)
    table = coup["table"]
    settlement = coup["settlement"] or (table or {}).get("settlement")
    payouts: dict[str, list[dict[str, Any]]] = {}
    for payout in (settlement or {}).get("payouts", []):
        payouts.setdefault(str(payout["seat"]), []).append(payout)
    return ctx.page("coup.html", request, coup=coup, flags=coup["flags"], table=table, settlement=settlement,
                    payouts=payouts)


async def acknowledge_form(ctx: WebContext, request: Request) -> Response:
    user = ctx.need(request, "surveillance", "open_acknowledge", f"coup {request.path_params['number']}")
    acknowledge(ctx, request, user, await form(request))
    return RedirectResponse(f"/review/coups/{request.path_params['number']}", status_code=303)


async def report_download(ctx: WebContext, request: Request) -> Response:
    user = ctx.need(request, "supervisor", "open_export", f"coup {request.path_params['number']}")
    return report_response(ctx, request, user)


async def evidence(ctx: WebContext, request: Request) -> Response:
    sha = request.path_params["sha256"]
    ctx.need(request, "surveillance", "view_evidence", sha)
    found = ctx.store.evidence_file(sha) if _SHA256.match(sha) else None  # a hash, never a path
    if found is None:
        raise HTTPException(404, "no such evidence")
    return FileResponse(found[0], media_type=found[1])


def routes(ctx: WebContext) -> list[Route]:
    coup = "/review/coups/{number:int}"
    return [ctx.route("/review", coups_page),
            ctx.route(coup, coup_page),
            ctx.route(coup + "/flags/{event_id:int}/{ordinal:int}/ack", acknowledge_form, methods=["POST"]),
            ctx.route(coup + "/report", report_download),
            ctx.route("/review/evidence/{sha256:str}", evidence)]
