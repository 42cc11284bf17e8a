"""``arena tournament ...`` and ``arena demo --tournament``: tournaments from the terminal.

Subcommands: ``create``, ``cancel``, ``approve``, ``refuse`` and ``report`` (the fair-play
report), for organisers: the admin token, from ``--admin-token`` or the ``ARENA_ADMIN_TOKEN``
environment variable, or without one the player this CLI keeps, logged in (``arena login``) as a
claimed player the admin made an organiser; ``list``,
``show [--follow]`` (live standings until the tournament ends) and ``register [--bot]`` (a bot plays every deal).
``register`` enters the player this CLI keeps (`client.identity.connect_person`); ``register --bot``
a fresh player that a bot plays, unless ``--as-me``.

``arena organiser grant NAME [--revoke]``: the admin (its token, as above) grants the organiser
role to the claimed player NAME, or takes it back.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import secrets
import time
from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape

from client.bot import run_tournament_bot
from client.connection import ArenaClient, ArenaError, ArenaTimeout
from client.identity import NAME_HELP, connect_person
from client.output import Listing, add_json_flag, json_line, print_line, show
from server.protocol import FairPlayReport, TournamentEvent, TournamentInfo, TournamentStanding

__all__ = [
    "add_organiser_arguments",
    "add_tournament_arguments",
    "run_organiser_command",
    "run_tournament_command",
    "run_tournament_demo",
    "tournament_listing",
]


def tournament_listing(info: TournamentInfo, standings: Sequence[TournamentStanding], *, title: str = "") -> Listing:
    """A tournament's standings as a `client.output.Listing`: place, player, status, cards over
    all deals, total time (s), and each deal's cards; its JSON is ``{"tournament", "standings"}``."""
    rows = []
    for s in standings:
        per_deal = {i: f"{d.cleared}" for i, d in enumerate(s.deals)}
        rows.append(
            [
                str(s.place),
                s.name,
                s.status,
                str(s.cleared),
                f"{s.time_ms / 1000:.3f} s",
                *(per_deal.get(i, "-") for i in range(info.deals)),
            ]
        )
    columns = ["#", "player", "status", "cleared", "time", *(f"deal {d + 1}" for d in range(info.deals))]
    return Listing(
        title or f"{info.name} ({info.id}): {info.status}",
        columns,
        rows,
        data={"tournament": info, "standings": list(standings)},
        right=frozenset(c for c in columns if c not in ("player", "status")),
        notes=[f"waiting for the organiser's approval: {', '.join(info.pending)}"] if info.pending else [],
    )


def _when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def add_tournament_arguments(parser: argparse.ArgumentParser, default_server: str) -> None:
    """Add the subcommands of ``arena tournament`` (``create``, ``list``, ``show``, ``register``,
    ``cancel``) to ``parser``, the command's own parser; each takes ``--server`` (default
    ``default_server``)."""
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--server", default=default_server, help=f"server URL (default {default_server})")
        return p

    admin_help = "the admin token (default: $ARENA_ADMIN_TOKEN; none: as your kept player, an organiser)"
    p = action("create", "schedule a tournament (organisers)")
    p.add_argument("--name", required=True)
    p.add_argument("--game", required=True, help="game key or alias")
    p.add_argument("--deals", type=int, default=3, help="number of deals (default 3)")
    p.add_argument("--format", choices=("rounds", "arena"), default="rounds")
    when = p.add_mutually_exclusive_group(required=True)
    when.add_argument("--starts-at", help="ISO 8601 with a zone, e.g. 2026-12-04T20:00:00+01:00")
    when.add_argument("--in", dest="in_s", type=int, metavar="SECONDS", help="start this many seconds from now")
    when.add_argument("--cron", help="recurring: five-field cron expression, e.g. '0 20 * * FRI'")
    p.add_argument("--timezone", default="UTC", help="the cron expression's IANA time zone (default UTC)")
    p.add_argument("--seed", type=int, action="append", dest="seeds", help="one per deal (default: drawn)")
    p.add_argument(
        "--winnable",
        action="store_true",
        help="deals known to be winnable: fresh secret ones the server's solver proves winnable, the "
        "rest from its private catalog",
    )
    p.add_argument("--deal-time-limit", type=int, default=600, help="seconds per deal (default 600)")
    p.add_argument("--max-entrants", type=int, default=256)
    p.add_argument("--registration-opens", type=int, default=3600, help="seconds before the start (default 3600)")
    p.add_argument("--window", type=int, default=86_400, help="arena window, seconds (default 86400)")
    p.add_argument("--break", dest="break_s", type=int, default=10, help="rounds: seconds between deals")
    p.add_argument("--countdown", type=int, default=5, help="seconds of countdown before the start")
    p.add_argument(
        "--spectator-delay",
        type=int,
        default=None,
        metavar="S",
        help="spectators see the boards this many seconds late (default: 1 live, the deal time limit delayed)",
    )
    p.add_argument(
        "--undo",
        action="store_true",
        help="entrants may take back moves that turned no card up (off by default in tournaments)",
    )
    p.add_argument(
        "--spectating",
        choices=("standings", "delayed", "live"),
        default="standings",
        help="what spectators see while a deal runs: the standings only (default), the boards "
        "--spectator-delay late (at least the deal time limit), or live boards (casual events)",
    )
    p.add_argument(
        "--max-entries-per-address",
        type=int,
        default=1,
        metavar="N",
        help="entries one address may hold before the organiser must approve further ones (default 1; 0: no limit)",
    )
    p.add_argument(
        "--entry",
        choices=("open", "claimed", "invite", "list"),
        default="open",
        help="who may register: anyone (default), claimed players, those with its invite code, or --allow's names",
    )
    p.add_argument("--allow", action="append", default=[], metavar="NAME", help="with --entry list: a claimed name")
    p.add_argument("--invite-code", default=None, help="with --entry invite: the code (default: the server makes one)")
    p.add_argument("--admin-token", default=None, help=admin_help)
    add_json_flag(action("list", "list the tournaments"))
    p = action("show", "a tournament's standings")
    p.add_argument("id")
    p.add_argument(
        "--follow",
        action="store_true",
        help="follow it live until it ends: the standings after each deal (piped: one line per event)",
    )
    add_json_flag(
        p,
        "one JSON document; with --follow one JSON object per line, each event as the server sent "
        "it, then the final standings",
    )
    p = action("register", "register for a tournament, as your kept player (`arena whoami`)")
    p.add_argument("id")
    p.add_argument("--name", default=None, help=NAME_HELP + "; with --bot, the bot's name (default bot)")
    p.add_argument(
        "--bot", action="store_true", help="a bot, a fresh player (not you, unless --as-me), plays every deal"
    )
    p.add_argument("--as-me", action="store_true", help="with --bot: the bot plays as your kept player")
    p.add_argument("--code", default=None, help="the invite code of a tournament that takes entries by invitation")
    p = action("cancel", "cancel a tournament or a recurring schedule (organisers)")
    p.add_argument("id")
    p.add_argument("--admin-token", default=None, help=admin_help)
    for verb, what in (("approve", "register"), ("refuse", "turn away for good")):
        p = action(verb, f"{what} an entry waiting for the organiser's approval (organisers)")
        p.add_argument("id")
        p.add_argument("player", help="the entry's name (or player id), as `show` lists it under pending")
        p.add_argument("--admin-token", default=None, help=admin_help)
    p = action("report", "a tournament's fair-play report, deal by deal (organisers)")
    p.add_argument("id")
    p.add_argument("--admin-token", default=None, help=admin_help)
    add_json_flag(p, "the report as one JSON document (the server's fair_play reply)")


def _admin_token(args: argparse.Namespace, *, needed: bool = False) -> str | None:
    """The admin token of ``--admin-token`` or ``ARENA_ADMIN_TOKEN``; None when neither gives
    one (an organiser's request then goes as the kept player), unless ``needed`` (raises
    `ArenaError`)."""
    token = getattr(args, "admin_token", None) or os.environ.get("ARENA_ADMIN_TOKEN")
    if not token and needed:
        raise ArenaError("not_allowed", "an admin token is needed (--admin-token or ARENA_ADMIN_TOKEN)")
    return token or None


def add_organiser_arguments(parser: argparse.ArgumentParser, default_server: str) -> None:
    """Add ``arena organiser``'s subcommand ``grant NAME [--revoke]`` to ``parser``."""
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = sub.add_parser("grant", help="make a claimed player an organiser (the admin token)")
    p.add_argument("player_name", metavar="NAME", help="the claimed name")
    p.add_argument("--revoke", action="store_true", help="take the organiser role back instead")
    p.add_argument("--server", default=default_server, help=f"server URL (default {default_server})")
    p.add_argument("--admin-token", default=None, help="the admin token (default: $ARENA_ADMIN_TOKEN)")


async def run_organiser_command(args: argparse.Namespace, console: Console) -> int:
    """Carry out ``arena organiser grant NAME``; returns the exit code. Raises `ArenaError`
    (``not_allowed``: no admin token; the server's refusals)."""
    token = _admin_token(args, needed=True)
    assert token is not None
    async with await ArenaClient.connect(args.server, "admin") as client:
        role = await client.grant_organiser(token, args.player_name, revoke=args.revoke)
    console.print(f"{escape(role.name)} ({role.player}) {'is' if role.organiser else 'is no longer'} an organiser")
    return 0


async def run_tournament_command(args: argparse.Namespace, console: Console) -> int:
    """Carry out ``arena tournament ACTION``; returns the exit code. Raises `ArenaError`."""
    if args.action == "register" and (args.as_me or not args.bot):  # the person's own entry
        connecting = connect_person(args.server, args.name)
    elif args.action == "register":  # a bot of its own
        connecting = ArenaClient.connect(args.server, args.name or "bot")
    elif args.action in ("create", "cancel", "approve", "refuse", "report") and _admin_token(args) is None:
        connecting = connect_person(args.server, None)  # an organiser: the kept, logged-in player
    else:  # the admin token, not a player, proves the admin; the others only read
        connecting = ArenaClient.connect(args.server, "organiser")
    async with await connecting as client:
        if args.action == "create":
            when: dict[str, object] = (
                {"cron": args.cron, "timezone": args.timezone}
                if args.cron
                else {
                    "starts_at": args.starts_at
                    or dt.datetime.fromtimestamp(time.time() + args.in_s, dt.UTC).isoformat()
                }
            )
            info = await client.create_tournament(
                _admin_token(args),
                args.name,
                args.game,
                args.deals,
                format=args.format,
                seeds=args.seeds,
                winnable=args.winnable,
                deal_time_limit_s=args.deal_time_limit,
                max_entrants=args.max_entrants,
                registration_opens_s=args.registration_opens,
                arena_window_s=args.window,
                break_s=args.break_s,
                countdown_s=args.countdown,
                spectator_delay_s=args.spectator_delay
                if args.spectator_delay is not None
                else (args.deal_time_limit if args.spectating == "delayed" else 1),
                undo=args.undo,
                spectating=args.spectating,
                max_entries_per_address=args.max_entries_per_address,
                entry=args.entry,
                allow=args.allow,
                invite_code=args.invite_code,
                **when,
            )
            console.print(
                f"Tournament [bold]{info.id}[/] {escape(info.name)}: {info.deals} {info.game} deals, "
                f"{info.format}, starts {_when(info.starts_at_ms)}"
                + (f", recurring ({escape(info.schedule)})" if info.schedule else "")
                + (f"; invite code [bold]{client.invite_codes[info.id]}[/]" if info.id in client.invite_codes else "")
            )
            print(info.id)
        elif args.action == "cancel":
            info = await client.cancel_tournament(_admin_token(args), args.id.upper())
            console.print(f"Tournament {info.id} {escape(info.name)}: {info.status}")
        elif args.action in ("approve", "refuse"):
            approve = args.action == "approve"
            info = await client.review_entry(_admin_token(args), args.id.upper(), args.player, approve=approve)
            console.print(
                f"Tournament {info.id}: {escape(args.player)} {'registered' if approve else 'refused'}; "
                f"{len(info.registered)} registered, {len(info.pending)} waiting for approval"
            )
        elif args.action == "report":
            report = await client.fair_play_report(_admin_token(args), args.id.upper())
            show(_report_listing(report), console, as_json=args.json)
        elif args.action == "list":
            tournaments = await client.list_tournaments()
            rows = [
                [
                    t.id,
                    t.name,
                    t.game,
                    t.format,
                    str(t.deals),
                    _when(t.starts_at_ms),
                    f"{len(t.registered)}/{t.max_entrants}",
                    t.status,
                ]
                for t in tournaments
            ]
            show(
                Listing(
                    "Tournaments",
                    ["id", "name", "game", "format", "deals", "starts", "entrants", "status"],
                    rows,
                    tournaments,
                ),
                console,
                as_json=args.json,
            )
        elif args.action == "show":
            await _show(client, args.id.upper(), follow=args.follow, console=console, as_json=args.json)
        elif args.action == "register":
            info = await client.register_tournament(args.id.upper(), code=args.code)
            if info.id in client.pending_entries:
                console.print(
                    f"{escape(client.name)}'s entry to {info.id} waits for the organiser's approval: "
                    f"{escape(client.pending_entries[info.id])}. Token {client.token}"
                    + ("; once approved, register again with --bot" if args.bot else "")
                )
                return 0
            if not args.bot:
                console.print(f"{escape(client.name)} registered for {info.id}; play with token {client.token}")
                return 0
            console.print(f"{escape(client.name)} registered for {info.id}; the bot plays when it starts.")
            results = await run_tournament_bot(client, info.id)
            for deal, result in enumerate(results, 1):
                console.print(f"deal {deal}: {result.end}, {result.cleared}/{result.total} cleared")
    return 0


def _report_listing(report: FairPlayReport) -> Listing:
    """The fair-play report as a short table: one row per entrant and deal (move times, solver
    agreement, the scouting pairs it is the player of), flags marked with "!"."""
    rows = []
    for deal in report.deals:
        agreement = {a.player: a for a in deal.agreement}
        for times in deal.times:
            a = agreement.get(times.player)
            pairs = [p for p in deal.scouting if p.player == times.player]
            rows.append(
                [
                    str(deal.deal + 1),
                    times.name,
                    str(times.moves),
                    "-" if times.median_ms is None else str(times.median_ms),
                    "-" if times.p10_ms is None else str(times.p10_ms),
                    str(times.quick_after_reveal),
                    "-" if a is None or not a.positions else f"{a.agreed}/{a.positions}" + (" !" if a.flagged else ""),
                    ", ".join(f"{p.scout_name}: {p.cards}" + (" !" if p.flagged else "") for p in pairs) or "-",
                ]
            )
    notes = [f"deals still being worked out: {', '.join(str(d + 1) for d in report.pending)}"] if report.pending else []
    return Listing(
        f"Fair play: {report.tournament}",
        ["deal", "entrant", "moves", "median ms", "p10 ms", "quick", "solver", "scouted from"],
        rows,
        report,
        notes=notes,
        right=frozenset({"deal", "moves", "median ms", "p10 ms", "quick"}),
    )


async def _show(
    client: ArenaClient,
    tournament: str,
    *,
    follow: bool,
    console: Console,
    as_json: bool = False,
    quiet_s: float = 60.0,
    tables: bool | None = None,
) -> None:
    """Print ``tournament``'s standings; with ``follow``, keep printing as it goes on (each
    start, each deal's start and end) until it finishes or is cancelled, however long that is:
    a wait of ``quiet_s`` seconds without an event (before the start, during a long deal) is
    only a pause. ``tables``: draw the standings as tables after each deal and at the end
    (default: on a terminal only; elsewhere one line per event and tab-separated rows)."""
    tables = console.is_terminal if tables is None else tables
    snapshot = await client.follow_tournament(tournament)
    info, standings = snapshot.tournament, snapshot.standings
    if as_json and follow:
        json_line(snapshot)
    while follow and info.status not in ("finished", "cancelled"):
        try:
            event = await client.next_event(timeout_s=quiet_s)
        except ArenaTimeout:  # a quiet spell: keep following
            continue
        if not (isinstance(event, TournamentEvent) and event.tournament.id == tournament):
            continue
        info, standings = event.tournament, event.standings
        if as_json:
            json_line(event)
        elif event.kind == "deal_ended" and tables:
            show(
                tournament_listing(
                    info, standings, title=f"{info.name} ({info.id}): after deal {(event.deal or 0) + 1}"
                ),
                console,
                as_json=False,
                terminal=True,
            )
        else:
            _event_line(event, console)
    final = tournament_listing(
        info, standings, title=f"{info.name} ({info.id}): final standings" if info.status == "finished" else ""
    )
    if info.seeds is not None:
        final.notes.append(f"seeds revealed: {info.seeds}")
    if as_json and follow:
        json_line(final.data)
    else:
        show(final, console, as_json=as_json, terminal=tables or None)


def _event_line(event: TournamentEvent, console: Console) -> None:
    """One line for a tournament event: its time, kind, deal and race, and the leader."""
    info = event.tournament
    text = f"{_when(int(time.time() * 1000))}  {info.id}  {event.kind.replace('_', ' ')}"
    if event.deal is not None:
        text += f" {event.deal + 1}/{info.deals}"
    if event.race:
        text += f" (race {event.race})"
    if event.standings and event.kind in ("deal_ended", "finished"):
        leader = event.standings[0]
        text += f"; leader {leader.name} with {leader.cleared} cards in {leader.time_ms / 1000:.3f} s"
    print_line(text, console)


async def run_tournament_demo(game: str = "klondike", *, bots: int = 8, console: Console | None = None) -> int:
    """``arena demo --tournament``: an in-process server, a three-deal rounds tournament starting
    in two seconds, ``bots`` bot entrants and a follower that prints the standings after each deal
    and the final table. Returns 0 once the tournament has finished."""
    from server.app import ArenaServer
    from server.config import ServerConfig

    console = console or Console()
    admin = secrets.token_urlsafe(16)
    began = time.monotonic()
    async with ArenaServer(ServerConfig(admin_token=admin)) as server:
        console.print(f"Server listening on {server.url}")
        clients = [await ArenaClient.connect(server.url, f"bot-{i + 1}") for i in range(bots)]
        follower = await ArenaClient.connect(server.url, "spectator")
        try:
            starts = dt.datetime.fromtimestamp(time.time() + 2, dt.UTC).isoformat()
            info = await follower.create_tournament(
                admin,
                "Demo cup",
                game,
                3,
                starts_at=starts,
                countdown_s=1,
                break_s=1,
                deal_time_limit_s=120,
                max_entries_per_address=0,  # (every bot plays from this machine)
            )
            console.print(f"Tournament {info.id}: 3 {info.game} deals, rounds, {bots} bots; starts in 2 s")
            players = [asyncio.create_task(run_tournament_bot(c, info.id)) for c in clients]
            await _show(follower, info.id, follow=True, console=console, tables=True)
            await asyncio.gather(*players)
        finally:
            for client in (*clients, follower):
                await client.close()
    console.print(f"Demo took {time.monotonic() - began:.1f} s.")
    return 0
