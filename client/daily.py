"""``arena daily``: today's daily challenge deals on a server, or one game's results of a day,
as the CLI's kept player (`client.identity`) sees them, with its streak."""

from __future__ import annotations

import argparse
import datetime

from rich.console import Console

__all__ = ["add_daily_arguments", "cmd_daily"]


def add_daily_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena daily``'s own arguments: ``GAME`` (optional), ``--day``, ``--limit``, ``--json``."""
    from client.output import add_json_flag

    sub.add_argument("game", nargs="?", help="a game: its results of the day instead of today's deals")
    sub.add_argument("--day", metavar="YYYY-MM-DD", help="the UTC day of the results (default: today)")
    sub.add_argument("--limit", type=int, default=20, help="results listed, 1 to 100 (default 20)")
    add_json_flag(sub)


def _clock(ms: int) -> str:
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


async def cmd_daily(args: argparse.Namespace, console: Console) -> int:
    """``arena daily [GAME]``: without a game, today's deal of every game (its commitment, when
    the day closes, and the kept player's attempt); with one, that game's results of ``--day``
    (default today), best first. A table, or with ``--json`` the server's ``daily_info`` as a
    map (``day``, ``deals``, ``streak``, ``results_day``, ``results``)."""
    from client.identity import connect_as_kept
    from client.output import Listing, show

    client = await connect_as_kept(args.server, args.name)
    async with client:
        info = await client.daily(args.game, args.day, args.limit)
    data = {
        "day": info.day,
        "deals": info.deals,
        "streak": info.streak,
        "results_day": info.results_day,
        "results": info.results,
    }
    streak = f"Streak: {info.streak.current} day(s), best {info.streak.best}."
    if args.game is None:
        closes = (
            datetime.datetime.fromtimestamp(info.deals[0].closes_at_ms / 1000, datetime.UTC) if info.deals else None
        )
        rows = [
            [
                d.game,
                d.commitment[:16],
                f"{d.mine.cleared}/{d.mine.total} {d.mine.status}" if d.mine else "not played",
            ]
            for d in info.deals
        ]
        notes = [streak] + (
            [f"Closes at {closes:%Y-%m-%d %H:%M} UTC; play it on the web page's lobby."] if closes else []
        )
        listing = Listing(
            f"Daily challenge of {info.day}", ["game", "commitment", "yours"], rows, data=data, notes=notes
        )
    else:
        rows = [
            [str(i), r.name, f"{r.cleared}/{r.total}", _clock(r.time_ms), r.status]
            for i, r in enumerate(info.results, 1)
        ]
        listing = Listing(
            f"Daily {args.game} of {info.results_day}",
            ["place", "name", "cleared", "time", "status"],
            rows,
            data=data,
            notes=[streak] if info.results else ["Nobody has played it yet.", streak],
            right=frozenset({"place", "cleared", "time"}),
        )
    show(listing, console, as_json=args.json)
    return 0
