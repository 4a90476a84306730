"""The croupier's display: one page (templates/display.html), drawn in the browser from the live state,
which it gets first inline and then from ``/api/stream``: the seats, the latest refused action and why, the
devices that are down, each alert with its amounts and what to do, and the amounts to pay and collect per box
(read from 2 m). Fits 1280×800 and 1920×1080 without scrolling; French by default, English by a switch. Not
behind a login: the live view hides the players' cards."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from .context import WebContext


async def root(ctx: WebContext, request: Request) -> Response:
    return RedirectResponse("/display", status_code=307)


async def display(ctx: WebContext, request: Request) -> HTMLResponse:
    # inline so the page shows the true state at once, without waiting for the stream; "</" could end the script
    initial = json.dumps(ctx.live.view(), ensure_ascii=False).replace("</", "<\\/")
    # the house rule for a stacked bet: the display asks the dealer to have it spread, or to confirm its amount
    html = ctx.templates.get_template("display.html").render(initial=initial, stacked_bets=ctx.config.stacked_bets)
    return HTMLResponse(html, headers={"Cache-Control": "no-store"})


def routes(ctx: WebContext) -> list[Route]:
    return [ctx.route("/", root), ctx.route("/display", display)]
