"""The browser client, served over plain HTTP on the websocket's own port.

A request that asks for a websocket upgrade goes on to the handshake; any other ``GET`` is
answered here, from files read once at start-up (no request touches the disk):

* ``/``, ``/r/CODE`` (a race to join or play), ``/w/CODE`` (a race to watch or replay),
  ``/t/ID`` (a tournament), ``/me`` (your finished races), ``/account`` (claim, log in, move to
  another device, passkeys), ``/p/NAME`` or ``/p/ID`` (a player's profile), ``/leaderboard`` and
  ``/leaderboard/GAME`` (a game's boards): the page itself, ``client/web/index.html``;
* ``/static/NAME``: the page's scripts, style sheet, icons and vendored libraries (``client/web/``);
* ``/manifest.webmanifest``: the web app manifest (``client/web/manifest.webmanifest``: name,
  colours, icons), which makes the page installable;
* ``/sw.js``: the service worker (``client/web/sw.js``) at the root, so that its scope is the whole
  site, with its build filled in: the paths it keeps (the page, every static file, /api/games, the
  manifest) and a version, a hash of all of them, so that any change of a file installs a new
  worker and a fresh cache (`service_worker`);
* ``/api/games``: every game as JSON (key, name, one-line summary, rule options, pile layout from
  `engine.layout`, link to its rules page);
* ``/t/ID.ics``: a tournament's calendar file (`WebClient.calendar`; `server.ops` finds the
  tournament), one event from its start to its expected end, with its page's address;
* ``/rules/KEY``: a game's rules page for players, docs/games/KEY.md (installed with the package:
  `server.rules_page.rules_text`) rendered to HTML with its table and worked example
  (`server.rules_page`), once, at its first request.

Every answer carries a Content-Length, an ETag and a content security policy that allows only
this origin's scripts, styles and websocket. A conditional request whose ``If-None-Match`` matches
the ETag (RFC 9110 §13.1.2: ``*``, or a comma-separated list of entity tags compared weakly, a
``W/`` prefix ignored on either side) gets 304 Not Modified with the ETag and no body
(`none_match`). ``HEAD`` and the other methods are `server.ops.http`'s to answer.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

import icalendar
from websockets.datastructures import Headers
from websockets.http11 import Response

from engine.core import Game
from engine.games import GAMES
from engine.layout import layout_of
from server.protocol import TournamentInfo
from server.rules_page import render_rules, rules_text

__all__ = ["CALENDAR_ROUTE", "WEB_ROOT", "WebClient", "none_match", "tournament_calendar"]

#: Where the page's files are: client/web/ in this source tree.
WEB_ROOT = Path(__file__).resolve().parents[1] / "client" / "web"
_PAGE_ROUTE = re.compile(
    r"/(?:(?:r|w|t)/[A-Za-z0-9]{1,16}|me|organise|account|leaderboard(?:/[A-Za-z0-9_-]{1,32})?|p/[^/?#]{1,200})?/?"
)
#: A tournament's calendar file: ``/t/ID.ics`` (group 1: the id, any case).
CALENDAR_ROUTE = re.compile(r"/t/([A-Za-z0-9]{1,16})\.ics")
_SECURITY = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "style-src 'self'; script-src 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
}
#: Files of client/web/ served at the root rather than under /static/ (a service worker's scope is
#: the folder it is served from).
_AT_ROOT = ("sw.js", "manifest.webmanifest")
#: One entity tag of an If-None-Match list (RFC 9110 §8.8.3): an optional weak prefix, then the
#: quoted opaque tag (any characters but a double quote, commas included).
_ENTITY_TAG = re.compile(r'[\s,]*(?:W/)?("[^"]*")[\s,]*')
#: The line of client/web/sw.js that `service_worker` fills in.
_BUILD_LINE = "const BUILD = null;"


@dataclass(frozen=True, slots=True)
class _File:
    body: bytes
    content_type: str
    etag: str


def _file(body: bytes, content_type: str) -> _File:
    return _File(body, content_type, '"' + hashlib.sha256(body).hexdigest()[:20] + '"')


class WebClient:
    """The web client's files and pages, held in memory (a few hundred kilobytes).

    `respond` answers one HTTP request, or returns None for a websocket upgrade (and for
    anything that is not a path it knows, it answers 404).

    >>> web = WebClient()
    >>> web.lookup("/r/AB12CD").content_type, web.lookup("/nowhere")
    ('text/html; charset=utf-8', None)
    """

    def __init__(self, root: Path = WEB_ROOT) -> None:
        self._files: dict[str, _File] = {}
        worker = b""
        for path in sorted(root.rglob("*")):
            if path.is_file():
                name = path.relative_to(root).as_posix()
                kind = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                if name == "sw.js":
                    worker = path.read_bytes()
                    continue
                self._files[("/" if name in _AT_ROOT else "/static/") + name] = _file(path.read_bytes(), kind)
        self._page = self._files.get("/static/index.html") or _file(
            b"<!doctype html><title>Patience Arena</title><p>The web client is missing (client/web/).", _TYPES[".html"]
        )
        self._files["/api/games"] = _file(json.dumps(games_json()).encode(), _TYPES[".json"])
        if worker:
            self._files["/sw.js"] = _file(service_worker(worker, {"/": self._page, **self._files}), _TYPES[".js"])
        self._rules: dict[str, _File] = {}

    def lookup(self, path: str) -> _File | None:
        """The file answering ``path`` (query string ignored), or None (404)."""
        path = path.split("?", 1)[0]
        if _PAGE_ROUTE.fullmatch(path):
            return self._page
        if path.startswith("/rules/"):
            return self._rules_page(path.removeprefix("/rules/"))
        return self._files.get(path)

    def respond(self, request_path: str, headers: Headers) -> Response:
        """The HTTP answer to ``GET request_path``: 200 with the body, 304, or 404."""
        found = self.lookup(request_path)
        out = Headers(_SECURITY)
        if found is None:
            out["Content-Type"] = _TYPES[".txt"]
            out["Content-Length"] = "10"
            return Response(404, "Not Found", out, b"not found\n")
        out["ETag"] = found.etag
        out["Cache-Control"] = "no-cache"
        if none_match(headers.get_all("If-None-Match"), found.etag):
            return Response(304, "Not Modified", out, b"")
        out["Content-Type"] = found.content_type
        out["Content-Length"] = str(len(found.body))
        return Response(200, "OK", out, found.body)

    @staticmethod
    def calendar(info: TournamentInfo | None, ends_ms: int, origin: str, now_ms: int) -> Response:
        """The answer to ``GET /t/ID.ics``: 200 with the tournament ``info`` as an iCalendar
        file (`tournament_calendar`; ``ends_ms``: its expected end, ``now_ms``: the file's
        time stamp, Unix epoch ms; ``origin``: the site's ``scheme://host``), not to be cached;
        404 for None (no such tournament)."""
        out = Headers(_SECURITY)
        if info is None:
            out["Content-Type"] = _TYPES[".txt"]
            out["Content-Length"] = "10"
            return Response(404, "Not Found", out, b"not found\n")
        body = tournament_calendar(info, ends_ms, origin, now_ms)
        out["Cache-Control"] = "no-store"
        out["Content-Disposition"] = f'attachment; filename="{info.id}.ics"'
        out["Content-Type"] = "text/calendar; charset=utf-8"
        out["Content-Length"] = str(len(body))
        return Response(200, "OK", out, body)

    def _rules_page(self, key: str) -> _File | None:
        if key not in {g.key for g in GAMES}:
            return None
        page = self._rules.get(key)
        if page is None:
            text = rules_text(key) or f"# {key}\n\nThis game has no rules page yet."
            page = self._rules[key] = _file(render_rules(key, text).encode(), _TYPES[".html"])
        return page


def none_match(values: list[str], etag: str) -> bool:
    """True when the ``If-None-Match`` header lines ``values`` match ``etag`` (a quoted strong
    tag), so that the answer is 304 (RFC 9110 §13.1.2): a line ``*`` matches any tag; otherwise
    each line is a comma-separated list of entity tags, compared weakly (a ``W/`` prefix ignored on
    both sides). A malformed line matches nothing from its first bad entry on.

    >>> tag = '"abc"'
    >>> [none_match(v, tag) for v in (['*'], ['"x", W/"abc"'], ['"x"', '"abc"'], ['"x", , "y"'], [], ['abc'])]
    [True, True, True, False, False, False]
    """
    wanted = etag.removeprefix("W/")
    for value in values:
        if value.strip() == "*":
            return True
        pos = 0
        while pos < len(value):
            found = _ENTITY_TAG.match(value, pos)
            if found is None:
                break
            if found.group(1) == wanted:
                return True
            pos = found.end()
    return False


def service_worker(template: bytes, kept: dict[str, _File]) -> bytes:
    """client/web/sw.js with its build filled in: ``{"version": ..., "files": [...]}``, the paths
    it keeps (``kept``'s, sorted) and a version that changes whenever any of their bodies does
    (a hash of their ETags).

    >>> line = b"const BUILD = null;"
    >>> one = service_worker(line, {"/": _file(b"<!doctype html>", "text/html")})
    >>> one.decode().endswith('"files": ["/"]};'), one == service_worker(line, {"/": _file(b"<p>", "text/html")})
    (True, False)
    """
    files = sorted(kept)
    digest = hashlib.sha256("\n".join(f"{path} {kept[path].etag}" for path in files).encode()).hexdigest()[:16]
    build = json.dumps({"version": digest, "files": files})
    return template.replace(_BUILD_LINE.encode(), f"const BUILD = {build};".encode(), 1)


def tournament_calendar(info: TournamentInfo, ends_ms: int, origin: str, now_ms: int) -> bytes:
    """An iCalendar file (RFC 5545, written by the ``icalendar`` package: its line folding and
    escaping) holding one event: the tournament ``info`` from its start to ``ends_ms`` (Unix
    epoch ms), its name, game and format, and its page at ``origin`` + ``/t/ID``; stamped
    ``now_ms``. Its UID is the tournament's id, so a calendar that imports it again updates the
    same event."""

    def instant(ms: int) -> dt.datetime:
        return dt.datetime.fromtimestamp(ms // 1000, dt.UTC)

    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//Patience Arena//tournaments//EN")
    calendar.add("version", "2.0")
    event = icalendar.Event()
    event.add("uid", f"tournament-{info.id}@patience-arena")
    event.add("dtstamp", instant(now_ms))
    event.add("dtstart", instant(info.starts_at_ms))
    event.add("dtend", instant(max(ends_ms, info.starts_at_ms)))
    event.add("summary", info.name)
    page = f"{origin.rstrip('/')}/t/{info.id}"
    event.add(
        "description",
        f"{info.deals} {info.game} deals, {info.format} format. Registration opens "
        f"{instant(info.registration_opens_ms).strftime('%Y-%m-%d %H:%M UTC')}. {page}",
    )
    event.add("url", page)
    calendar.add_component(event)
    return calendar.to_ical()


def games_json() -> list[dict[str, object]]:
    """Every game for the web client: ``key``, ``name``, ``summary``, ``total`` (cards),
    ``options`` ({name: {default, help}}), ``layout`` (`engine.layout.Layout.as_dict`, each slot
    with its pile's ``name`` as `engine.core.Game.pile_name` gives it) and ``rules`` (the rules
    page's path)."""
    return [
        {
            "key": g.key,
            "name": g.name,
            "summary": g.summary,
            "total": g.total,
            "options": {name: {"default": o.default, "help": o.help} for name, o in g.options.items()},
            "layout": _named(g, layout_of(g).as_dict()),
            "rules": f"/rules/{g.key}",
        }
        for g in GAMES
    ]


def _named(game: type[Game], layout: dict) -> dict:
    """``layout`` with each slot's pile name, as the engine's refusals and moves name it."""
    for slot in layout["slots"]:
        slot["name"] = game.pile_name(slot["pile"])
    return layout
