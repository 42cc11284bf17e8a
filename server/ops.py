"""What an operator reads on the server's port: ``GET /healthz`` and ``GET /metrics``, the web
client's pages for any other plain request (``HEAD`` too; 405 for any other method), and the
measurements behind the metrics (the event loop's lag, and its busy share, which also sets the
fan-out's tick)."""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import json
import logging
import time

from websockets.http11 import Request, Response

from server.logs import fields
from server.metrics import CONTENT_TYPE
from server.state import ServerState
from server.transport.connection import Connection, reply, response
from server.web import CALENDAR_ROUTE

__all__ = ["ALLOWED_METHODS", "LAG_INTERVAL_S", "health", "http", "measure_lag", "measure_load"]

log = logging.getLogger("arena.server")

#: Seconds between two measurements of the event loop's lag (`server.metrics`).
LAG_INTERVAL_S = 0.5


#: The methods the server answers; any other gets 405 with an ``Allow`` header naming these.
ALLOWED_METHODS = ("GET", "HEAD")


def http(state: ServerState, conn: Connection, request: Request) -> Response | None:
    """The answer to a handshake's request (None: a websocket upgrade, which is a ``GET``). A
    method other than `ALLOWED_METHODS` gets 405 Method Not Allowed with ``Allow: GET, HEAD``;
    ``HEAD`` gets the answer ``GET`` would (status and headers, Content-Length included: never
    an upgrade) without its body. Every answer but a 304 carries a Content-Length, and each says
    ``Connection: close`` (the server closes the socket after one plain HTTP answer)."""
    if request.method not in ALLOWED_METHODS:
        answer: Response | None = reply(
            conn,
            405,
            f"{request.method} is not allowed here: use GET or HEAD\n",
            [("Allow", ", ".join(ALLOWED_METHODS))],
        )
    else:
        answer = _answer_get(state, conn, request)
    if answer is None:
        return None
    headers = answer.headers
    if "Content-Length" not in headers and answer.status_code != 304:
        headers["Content-Length"] = str(len(answer.body))
    if "Connection" not in headers:
        headers["Connection"] = "close"
    if request.method == "HEAD":
        answer = dataclasses.replace(answer, body=b"")
    return answer


def _answer_get(state: ServerState, conn: Connection, request: Request) -> Response | None:
    """The answer to a ``GET`` (or ``HEAD``): ``GET /healthz`` answers the server's counts (200,
    or 503 while it shuts down); a connection through a trusted proxy is counted against the
    client address the proxy forwarded (the last one in ``X-Forwarded-For``, or ``X-Real-IP``),
    and refused with 429 if that address is over its limit; ``GET /metrics`` answers the metrics
    (`server.metrics`) to the ``metrics_from`` addresses and 403 to the others; ``GET
    /t/ID.ics`` a tournament's calendar file; any other request that is not a websocket upgrade
    gets the web client (`server.web`). None: a websocket."""
    headers = request.headers
    path = request.path
    route = path.split("?", 1)[0]
    if route == "/healthz":
        return reply(
            conn,
            503 if state.draining else 200,
            json.dumps(health(state)) + "\n",
            [("Content-Type", "application/json")],
        )
    if conn.client in state.config.trusted_proxies:
        chain = headers.get("X-Forwarded-For") or headers.get("X-Real-IP") or ""
        client = chain.split(",")[-1].strip()
        if client and not conn.forwarded(client):
            return reply(conn, 429, "too many connections from your address\n")
    if route == "/metrics":
        if not _may_read_metrics(state, conn.client):
            return reply(conn, 403, "metrics are served to the addresses of --metrics-from only\n")
        return response(200, "OK", {"Content-Type": CONTENT_TYPE, "Cache-Control": "no-store"}, state.metrics.render())
    if request.method == "HEAD" or headers.get("Upgrade", "").lower() != "websocket":
        calendar = CALENDAR_ROUTE.fullmatch(route)
        if calendar is not None:
            return _calendar(state, calendar.group(1).upper(), headers.get("Host"))
        return state.web.respond(path, headers)
    return None


def _calendar(state: ServerState, tournament_id: str, host: str | None) -> Response:
    """``GET /t/ID.ics``: the calendar file of a tournament in this node's memory (the leader's,
    among several nodes), its page's address at ``public_origin``, else at the request's
    ``Host``; 404 for one it does not hold."""
    tournament = state.tournaments.get(tournament_id)
    origin = state.config.public_origin or f"http://{host or 'localhost'}"
    if tournament is None:
        return state.web.calendar(None, 0, origin, 0)
    return state.web.calendar(tournament.info(), tournament.expected_end_ms, origin, state.clock.wall_ms())


def _may_read_metrics(state: ServerState, client: str) -> bool:
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    networks = [ipaddress.ip_network(a, strict=False) for a in state.config.metrics_from]
    return any(address in network for network in networks)


def health(state: ServerState) -> dict[str, object]:
    """What ``GET /healthz`` reports: ``status`` (``ok``, or ``shutting_down`` with HTTP 503),
    connections (accepted sockets), sessions (said hello or not), players, races by status,
    tournaments."""
    return {
        "status": "shutting_down" if state.draining else "ok",
        "connections": state.connections,
        "sessions": len(state.sessions),
        "players": len(state.players),
        "races": dict(sorted(state.race_counts.items())),
        "tournaments": len(state.tournaments),
    }


async def measure_lag(state: ServerState) -> None:
    """Feed the event-loop lag histogram: how late a sleep of `LAG_INTERVAL_S` wakes up."""
    loop = asyncio.get_running_loop()
    while True:
        began = loop.time()
        await asyncio.sleep(LAG_INTERVAL_S)
        state.metrics.observe_lag(loop.time() - began - LAG_INTERVAL_S)


async def measure_load(state: ServerState) -> None:
    """Feed the fan-out (`server.transport.fanout.Fanout.adapt`) the share of each
    ``Fanout.LOAD_INTERVAL_S`` that the event loop's thread spent on the CPU."""
    loop = asyncio.get_running_loop()
    fanout = state.fanout
    while True:
        began, cpu = loop.time(), time.thread_time()
        await asyncio.sleep(fanout.LOAD_INTERVAL_S)
        if fanout.adapt((time.thread_time() - cpu) / max(loop.time() - began, 1e-3)):
            extra = fields("fanout_tick", busy=round(fanout.busy, 3), tick_ms=fanout.tick_s * 1000)
            if fanout.tick_s:  # (two messages: the log's repeat limit would take the second for the first)
                log.info(
                    "event loop busy %.0f%% of the time: broadcast frames wait up to %g ms to leave together",
                    fanout.busy * 100,
                    fanout.tick_s * 1000,
                    extra=extra,
                )
            else:
                log.info(
                    "event loop busy %.0f%% of the time: broadcast frames leave at once again",
                    fanout.busy * 100,
                    extra=extra,
                )
