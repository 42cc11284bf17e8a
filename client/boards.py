"""``arena leaderboard`` and ``arena profile``: a game's rating board (or a daily challenge's
results) and a player's profile, as the CLI's kept player (`client.identity`) asks for them."""

from __future__ import annotations

import argparse
import datetime

from rich.console import Console

__all__ = ["add_leaderboard_arguments", "add_profile_arguments", "cmd_leaderboard", "cmd_profile"]


def add_leaderboard_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena leaderboard``'s own arguments: ``GAME``, ``--daily DATE``, ``--around-me``,
    ``--limit``, ``--json``."""
    from client.output import add_json_flag

    sub.add_argument("game", help="the game whose board to show")
    sub.add_argument(
        "--daily", metavar="YYYY-MM-DD", help="the daily challenge's results of that UTC day instead of ratings"
    )
    sub.add_argument("--around-me", action="store_true", help="the rating board around your own place")
    sub.add_argument("--limit", type=int, default=20, help="rows listed, 1 to 100 (default 20)")
    add_json_flag(sub)


def add_profile_arguments(sub: argparse.ArgumentParser) -> None:
    """``arena profile``'s own arguments: ``NAME`` (a claimed name), ``--json``."""
    from client.output import add_json_flag

    sub.add_argument("player_name", metavar="NAME", help="the player's claimed name")
    add_json_flag(sub)


def _clock(ms: int | None) -> str:
    if ms is None:
        return "-"
    seconds = ms // 1000
    return f"{seconds // 60}:{seconds % 60:02d}"


async def cmd_leaderboard(args: argparse.Namespace, console: Console) -> int:
    """``arena leaderboard GAME``: one page of the game's rating board (best first; ``"?"``
    marks a provisional rating), or with ``--daily DATE`` that day's daily challenge results. A
    table, or with ``--json`` the server's ``leaderboard_page`` as a map (``game``, ``board``,
    ``rows``, ``cursor``)."""
    from client.identity import connect_as_kept
    from client.output import Listing, show

    client = await connect_as_kept(args.server, args.name)
    async with client:
        page = await client.leaderboard(
            args.game,
            board="daily" if args.daily else "rating",
            view="around_me" if args.around_me else "top",
            day=args.daily,
            limit=args.limit,
        )
    data = {"game": page.game, "board": page.board, "rows": page.rows, "cursor": page.cursor}
    if page.board == "daily":
        rows = [[str(i), r.name, str(r.cleared), _clock(r.time_ms), r.status or ""] for i, r in enumerate(page.rows, 1)]
        columns = ["place", "name", "cleared", "time", "status"]
        title = f"Daily {page.game} of {args.daily}"
    else:
        rows = [
            [r.name + ("" if r.claimed else " (guest)"), f"{r.rating}{'?' if r.provisional else ''}", str(r.races)]
            for r in page.rows
        ]
        columns = ["name", "rating", "races"]
        title = f"{page.game} ratings"
    listing = Listing(
        title,
        columns,
        rows,
        data=data,
        notes=[] if page.rows else ["Nobody on this board yet."],
        right=frozenset({"place", "cleared", "time", "rating", "races"}),
    )
    show(listing, console, as_json=args.json)
    return 0


async def cmd_profile(args: argparse.Namespace, console: Console) -> int:
    """``arena profile NAME``: the statistics per game of the player who claimed ``NAME``
    (played, won, win rate, best and mean time to win, cards cleared, streaks, rating), its
    rating history and recent races. A table, or with ``--json`` the server's ``profile_page``
    as a map (``player``, ``name``, ``claimed``, ``created_ms``, ``games``,
    ``rating_history``, ``recent``)."""
    from client.identity import connect_as_kept
    from client.output import Listing, show

    client = await connect_as_kept(args.server, args.name)
    async with client:
        found = await client.profile(name=args.player_name)
    data = {
        "player": found.player,
        "name": found.name,
        "claimed": found.claimed,
        "created_ms": found.created_ms,
        "games": found.games,
        "rating_history": found.rating_history,
        "recent": found.recent,
    }
    rows = [
        [
            g.game,
            str(g.played),
            str(g.won),
            f"{g.win_rate:.0%}",
            _clock(g.best_win_ms),
            _clock(g.mean_win_ms),
            str(g.cleared),
            f"{g.streak} ({g.best_streak})",
            "-" if g.rating is None else f"{g.rating}{'?' if g.provisional else ''}",
        ]
        for g in found.games
    ]
    since = datetime.datetime.fromtimestamp(found.created_ms / 1000, datetime.UTC)
    listing = Listing(
        f"{found.name}, playing since {since:%Y-%m-%d}",
        ["game", "played", "won", "win rate", "best", "mean", "cleared", "streak (best)", "rating"],
        rows,
        data=data,
        notes=[f"{len(found.recent)} recent race(s); `arena history` lists your own."],
        right=frozenset({"played", "won", "win rate", "best", "mean", "cleared", "rating"}),
    )
    show(listing, console, as_json=args.json)
    return 0
