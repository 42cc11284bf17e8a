"""The ``arena`` command: run a server, list games, create, play, watch and verify races, or a demo.

    arena serve [--host 127.0.0.1] [--port 8765] [limits...]
    arena games [--json]
    arena races [--live] [--json] [--server URL]
    arena create --game G [--seed N] [--option NAME=true|false] [--max-entrants N]
                 [--countdown S] [--time-limit S] [--join] [--name N] [--server URL]
    arena start CODE --token T [--server URL]
    arena bot --race CODE [--server URL] [--name N] [--token T] [--start] [--delay-ms N]
    arena play CODE [--server URL] [--name N] [--token T] [--double]
    arena watch CODE [--json] [--server URL]
    arena verify CODE [--server URL]
    arena tournament create|list|show|register|cancel ...
    arena simulate|catalog|solve ... (offline: the bot and the solver)
    arena demo [--game klondike] [--seed 42] [--bots 3] [--delay-ms 20] [--url URL]

Output (`client.output`): a table on a terminal; one tab-separated line per row when stdout is
not a terminal (titles and hints on stderr); one JSON document with ``--json``. ``watch`` and
``tournament show --follow`` print one line (or JSON object) per event as it happens.

Exit codes (`EXIT_CODES`): 0 success; 1 a check failed (a verification, a fuzz or benchmark
check); 2 bad usage, bad input, an unreachable server or a request the server refused; 130
interrupted. Times on screen are race times in seconds, from the start instant.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import logging
import errno
import importlib.metadata
import os
import signal
import sys
from collections.abc import AsyncIterator, Sequence

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from client.bench import add_bench_arguments, run_bench
from client.connection import ArenaClient, ArenaError, RaceEvent
from client.fuzz import add_fuzz_arguments, run_fuzz
from client.output import Listing, add_json_flag, json_line, print_line, show
from client.play import add_play_arguments, run_play
from client.serving import add_server_arguments
from client.solve import add_solve_arguments, run_solve
from client.tournaments import add_tournament_commands, run_tournament_command, run_tournament_demo
from client.verify import VerifyReport
from engine.games import GAMES, UnknownGame, find_game
from server.protocol import (
    DelayedBoard,
    EntrantJoined,
    Progress as ProgressEvent,
    ProtocolError,
    RaceFinished,
    RaceStarted,
    RaceStarting,
    Snapshot,
    Standing,
    TournamentEvent,
)

__all__ = ["event_line", "follow_race", "main", "race_events", "report_table", "standings_listing", "standings_table"]

DEFAULT_SERVER = "ws://127.0.0.1:8765"

#: What each exit code of ``arena`` means (printed by ``arena --help``).
EXIT_CODES = {
    0: "success",
    1: "a check failed: arena verify found the record wrong, or a fuzz or benchmark check failed",
    2: "bad usage or input, the server unreachable, or a request the server refused (the error line says which)",
    130: "interrupted (Ctrl-C)",
}

_STATUS_STYLE = {
    "won": "bold green",
    "playing": "cyan",
    "stuck": "yellow",
    "resigned": "yellow",
    "out_of_time": "red",
    "waiting": "dim",
}


# ------------------------------------------------------------------------------- views


def standings_table(standings: Sequence[Standing], *, title: str = "", caption: str = "") -> Table:
    """A rich table of standings: place, name, status, cards cleared, race time (s), moves."""
    table = Table(title=escape(title) or None, caption=escape(caption) or None)
    table.add_column("#", justify="right")
    table.add_column("player")
    table.add_column("status")
    table.add_column("cleared", justify="right")
    table.add_column("time", justify="right")
    table.add_column("moves", justify="right")
    for s in standings:
        style = _STATUS_STYLE.get(s.status, "")
        table.add_row(
            str(s.place),
            escape(s.name),
            f"[{style}]{s.status}[/]" if style else escape(s.status),
            f"{s.cleared}/{s.total}",
            f"{s.time_ms / 1000:.3f} s",
            str(s.moves),
        )
    return table


def standings_listing(standings: Sequence[Standing], *, title: str = "", notes: Sequence[str] = ()) -> Listing:
    """Standings as a `client.output.Listing` (the columns of `standings_table`)."""
    rows = [[str(s.place), s.name, s.status, f"{s.cleared}/{s.total}", f"{s.time_ms / 1000:.3f} s", str(s.moves)]
            for s in standings]
    return Listing(title, ["#", "player", "status", "cleared", "time", "moves"], rows, list(standings),
                   notes=list(notes), right=frozenset({"#", "cleared", "time", "moves"}))


def report_table(report: VerifyReport) -> Table:
    """A rich table of a `client.verify.VerifyReport`: one row per check."""
    verdict = "[bold green]verified[/]" if report.ok else "[bold red]FAILED[/]"
    table = Table(title=f"Verification of race {report.code}: {verdict}")
    table.add_column("check")
    table.add_column("result")
    table.add_column("details")
    for check in report.checks:
        table.add_row(check.name, "[green]pass[/]" if check.ok else "[red]FAIL[/]", escape(check.reason))
    return table


async def race_events(client: ArenaClient, snapshot: Snapshot) -> AsyncIterator[RaceEvent]:
    """The events of the watched race ``snapshot.race.code`` (reconnect snapshots of it
    included), as they arrive, until its `RaceFinished` (yielded last). Yields nothing if the
    race had already finished."""
    code = snapshot.race.code
    if snapshot.race.status == "finished":
        return
    async with contextlib.aclosing(client.events()) as events:
        async for event in events:
            if isinstance(event, Snapshot):
                if event.race.code == code:
                    yield event
                continue
            if isinstance(event, TournamentEvent) or event.race != code:
                continue
            yield event
            if isinstance(event, RaceFinished):
                return


def event_line(event: RaceEvent, standings: Sequence[Standing], snapshot: Snapshot) -> str:
    """One line of text for a race event (race time in seconds first where it has one), given
    the standings it leaves."""
    if isinstance(event, Snapshot):
        return f"{event.race.game} race {event.race.code}: {event.race.status}"
    if isinstance(event, EntrantJoined):
        return f"{event.name} joined"
    if isinstance(event, RaceStarting):
        return f"starting in {event.countdown_ms / 1000:.0f} s; commitment {event.commitment}"
    if isinstance(event, RaceStarted):
        return f"running; time limit {event.time_limit_ms // 1000} s"
    if isinstance(event, ProgressEvent):
        s = next((s for s in standings if s.player == event.player), None)
        text = f"{event.elapsed_ms / 1000:7.3f} s  {_name_of(standings, event.player)}"
        if event.move:  # spectators of a race without a delay get the move here
            text += f": {event.move}"
        if s is not None:
            text += f"  ({s.cleared}/{s.total} cleared, {s.moves} moves, {s.status})"
        return text
    if isinstance(event, DelayedBoard):
        return (f"{event.elapsed_ms / 1000:7.3f} s  {_name_of(standings, event.player)}: {event.move} "
                f"(shown {snapshot.race.spectator_delay_s} s late)")
    if isinstance(event, RaceFinished):
        return f"finished: {event.reason}; seed {event.seed} revealed"
    return event.__struct_config__.tag  # type: ignore[attr-defined]  # an event this client does not describe


async def follow_race(client: ArenaClient, snapshot: Snapshot, console: Console) -> RaceFinished | None:
    """Show the live standings of a watched race until it finishes; return its `RaceFinished`.

    ``snapshot``: what `ArenaClient.watch` returned. On a terminal it redraws on every event
    (rich `Live`, transient: the caller prints the final table); elsewhere it prints one line per
    event as it comes (`event_line`). Returns None at once if the race had already finished
    (the snapshot's standings are final then).
    """
    code = snapshot.race.code
    standings = snapshot.standings
    line = event_line(snapshot, standings, snapshot)
    finished: RaceFinished | None = None

    def view() -> Table:
        return standings_table(standings, title=f"Race {code} ({snapshot.race.game})", caption=line)

    live = Live(view(), console=console, refresh_per_second=8, transient=True) if console.is_terminal else None
    if live is None and snapshot.race.status != "finished":
        print_line(line, console)
    with live or contextlib.nullcontext():
        async for event in race_events(client, snapshot):
            if isinstance(event, (Snapshot, ProgressEvent, RaceFinished)):
                standings = event.standings
            line = event_line(event, standings, snapshot)
            if isinstance(event, RaceFinished):
                finished = event
            if live is not None:
                live.update(view())
            else:
                print_line(line, console)
    return finished


def _name_of(standings: Sequence[Standing], player: str) -> str:
    return next((s.name for s in standings if s.player == player), player)


# ------------------------------------------------------------------------------ commands


def _cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from client.serving import event_loop_factory, log_settings, server_config
    from server.logs import configure_logging
    from server.schedule import ScheduleError
    from server.service import serve
    from server.store import StoreUnavailable

    try:
        config = server_config(args, os.environ)
        configure_logging(*log_settings(args, os.environ))
        loop_name, loop_factory = event_loop_factory(args, os.environ)
    except ValueError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    log = logging.getLogger("arena.cli")

    async def run() -> None:
        """Serve until SIGTERM or SIGINT, then drain within the grace (`ArenaServer.shutdown`);
        a second signal during the drain stops at once."""
        task = asyncio.current_task()
        assert task is not None
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()

        def on_signal(signum: signal.Signals) -> None:
            if stop.is_set():
                log.warning("%s again: stopping at once", signum.name)
                task.cancel()
                return
            log.info("%s: shutting down", signum.name)
            stop.set()

        for signum in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
                loop.add_signal_handler(signum, on_signal, signum)
        with contextlib.suppress(asyncio.CancelledError):
            await serve(args.host, args.port, config, tournaments=args.tournaments, stop=stop)

    log.info("starting on ws://%s:%d (event loop: %s)", args.host, args.port, loop_name)
    try:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(run())
    except (ScheduleError, ProtocolError) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    except StoreUnavailable as exc:  # --redis: nothing answers there
        console.print(f"[red]error:[/] {escape(str(exc))} (check --redis / ARENA_REDIS_URL)", highlight=False,
                      soft_wrap=True)
        return 2
    except OSError as exc:  # the address is taken, or not this machine's: one line, no traceback
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        if exc.errno == errno.EADDRINUSE:
            why += " (is another server running there? pick another --port)"
        console.print(f"[red]error:[/] cannot listen on {escape(args.host)}:{args.port}: {escape(why)}", highlight=False,
                      soft_wrap=True)
        return 2
    log.info("stopped")
    return 0


def _cmd_games(args: argparse.Namespace, console: Console) -> int:
    rows = [[game.key, game.name, game.summary] for game in GAMES]
    data = [{"key": g.key, "name": g.name, "aliases": list(g.aliases), "summary": g.summary, "packs": g.packs,
             "cards": g.total, "rules_version": g.rules_version, "rules_text": g.rules_text,
             "options": {name: option.default for name, option in g.options.items()},
             "quoted_odds": g.quoted_odds or None} for g in GAMES]
    show(Listing("Games", ["key", "name", "summary"], rows, data), console, as_json=args.json)
    return 0


async def _cmd_races(args: argparse.Namespace, console: Console) -> int:
    status = "live" if args.live else "open"
    async with await ArenaClient.connect(args.server, args.name) as client:
        page = await client.list_races(status, before=args.before, limit=args.limit)
    rows = [[info.code, info.game, f"{len(info.entrants)}/{info.max_entrants}",
             "secret" if info.seed is None else str(info.seed), f"{info.countdown_s} s", f"{info.time_limit_s} s",
             info.status] for info in page.races]
    notes = []
    if not page.races:
        notes.append("No race is open to join." if status == "open" else "No race is running.")
    if page.cursor is not None:
        notes.append(f"More: arena races{' --live' if args.live else ''} --before {page.cursor}")
    listing = Listing("Open races" if status == "open" else "Live races",
                      ["code", "game", "entrants", "seed", "countdown", "time limit", "status"], rows,
                      data={"races": page.races, "cursor": page.cursor}, notes=notes)
    if not page.races and console.is_terminal and not args.json:
        console.print(notes[0], highlight=False)  # a sentence, not an empty table
        return 0
    show(listing, console, as_json=args.json)
    return 0


async def _cmd_create(args: argparse.Namespace, console: Console) -> int:
    options = dict(_option(text) for text in args.option)
    async with await ArenaClient.connect(args.server, args.name) as client:
        info = await client.create_race(
            args.game,
            seed=args.seed,
            options=options,
            max_entrants=args.max_entrants,
            countdown_s=args.countdown,
            time_limit_s=args.time_limit,
            join=args.join,
            winnable=args.winnable,
            seed_public=args.public_seed,
            spectator_delay_s=args.spectator_delay,
        )
        token = client.token
    console.print(f"Race [bold]{info.code}[/] created: {info.game}, "
                  f"seed {'secret' if info.seed is None else info.seed}"
                  f"{', you are entrant 1' if args.join else ''}.")
    console.print(f"Join it:   arena bot --race {info.code} --server {args.server}")
    if args.join:
        console.print(f"Play it and start it when the others are in:\n"
                      f"           arena bot --race {info.code} --token={token} --start --server {args.server}")
    else:
        console.print(f"Start it:  arena start {info.code} --token={token} --server {args.server}")
    console.print(f"Watch it:  arena watch {info.code} --server {args.server}")
    console.print(f"Join or watch it in a browser: {web_url(args.server)}/r/{info.code}", highlight=False)
    print(info.code)
    return 0


def web_url(server: str) -> str:
    """The web client's address on the server at websocket URL ``server`` (same host and port).

    >>> web_url("ws://127.0.0.1:8765"), web_url("wss://arena.example.org/")
    ('http://127.0.0.1:8765', 'https://arena.example.org')
    """
    scheme, _, rest = server.partition("://")
    return ("https" if scheme == "wss" else "http") + "://" + rest.rstrip("/")


async def _cmd_start(args: argparse.Namespace, console: Console) -> int:
    async with await ArenaClient.connect(args.server, "starter", token=args.token) as client:
        info = await client.start_race(args.code.upper())
    console.print(f"Race {info.code} starts in {info.countdown_s} s with {len(info.entrants)} entrants.")
    return 0


async def _cmd_bot(args: argparse.Namespace, console: Console) -> int:
    from client.bot import run_bot

    code = args.race.upper()
    async with await ArenaClient.connect(args.server, args.name, token=args.token) as client:
        try:
            info = await client.join_race(code)
            console.print(f"{client.name} joined race {code} ({info.game}); waiting for the start...")
        except ArenaError as exc:
            if exc.code != "already_joined":
                raise
            console.print(f"{client.name} is already in race {code}; waiting for the start...")
        if args.start:
            started = await client.start_race(code)
            console.print(f"Race {code} starts in {started.countdown_s} s with {len(started.entrants)} entrants.")
        result = await run_bot(client, code, delay_ms=args.delay_ms)
        console.print(f"{client.name}: {result.end}, {result.cleared}/{result.total} cleared in {result.moves} moves")
        if code in client.commitments:
            console.print(f"Commitment published at the start: {client.commitments[code]}\n"
                          f"Check the deal against it: arena verify {code} --commitment {client.commitments[code]}",
                          highlight=False, soft_wrap=True)
        if args.double and result.won:
            await client.wait_for(lambda: code in client.finished, timeout_s=None)
            if client.player in client.finished[code].double_or_naught:
                bonus = await client.double_or_naught(code)
                while not bonus.decided:
                    bonus = await client.bonus_move(code, "deal" if bonus.outcome == "tie" else "guess r2")
                console.print(f"Double or Naught: {bonus.outcome or 'no result'}; points now {bonus.points}")
    return 0


async def _cmd_watch(args: argparse.Namespace, console: Console) -> int:
    code = args.code.upper()
    async with await ArenaClient.connect(args.server, args.name) as client:
        snapshot = await client.watch(code)
        if args.json:
            json_line(snapshot)
            async for event in race_events(client, snapshot):
                json_line(event)
            return 0
        finished = await follow_race(client, snapshot, console)
    standings = finished.standings if finished else snapshot.standings
    caption = (f"seed {finished.seed} revealed; {finished.reason}" if finished
               else f"race {code} is {snapshot.race.status}")
    notes = []
    if code in client.commitments:
        notes.append(f"Commitment published at the start: {client.commitments[code]}\n"
                     f"Check the deal against it: arena verify {code} --commitment {client.commitments[code]}")
    if console.is_terminal:
        console.print(standings_table(standings, title=f"Race {code}: final standings", caption=caption))
        for note in notes:
            console.print(note, highlight=False, soft_wrap=True)
    else:
        show(standings_listing(standings, title=f"Race {code}: final standings; {caption}", notes=notes),
             console, as_json=False)
    return 0


async def _cmd_verify(args: argparse.Namespace, console: Console) -> int:
    from client.verify import verify_record

    code = args.code.upper()
    async with await ArenaClient.connect(args.server, args.name) as client:
        record = await client.get_record(code)
    report = verify_record(record, args.commitment)
    console.print(report_table(report))
    if args.commitment is None:
        console.print("The commitment came from the server's own record. To check the deal against the one "
                      "published at the start, pass it: arena verify CODE --commitment HEX "
                      "(`arena bot` and `arena watch` print it).", highlight=False, soft_wrap=True)
    return 0 if report.ok else 1


async def _cmd_demo(args: argparse.Namespace, console: Console) -> int:
    from client.demo import run_demo

    if args.tournament:
        return await run_tournament_demo(args.game, console=console)
    return await run_demo(
        args.game, seed=args.seed, bots=args.bots, delay_ms=args.delay_ms, console=console, url=args.url
    )


def _cmd_simulate(args: argparse.Namespace, console: Console) -> int:
    from client.simulate import odds_share, simulate

    keys = [g.key for g in GAMES] if args.games == ["all"] else [find_game(g).key for g in args.games]
    rows, data = [], []
    with Progress(console=console, transient=True, disable=args.json or not console.is_terminal) as progress:
        for key in keys:
            game_cls = find_game(key)
            task = progress.add_task(key, total=args.deals)
            result = simulate(key, args.deals, first_seed=args.first_seed, workers=args.workers or None,
                              progress=lambda n, task=task: progress.advance(task, n))
            share = odds_share(game_cls.quoted_odds)
            rows.append([key, game_cls.rules_text, f"{result.wins}/{args.deals}", f"{result.win_share:.1%}",
                         f"{result.mean_cleared:.1f}/{result.total}", game_cls.quoted_odds or "-",
                         f"{share:.1%}" if share is not None else "-"])
            data.append({"game": key, "deals": args.deals, "first_seed": args.first_seed, "wins": result.wins,
                         "win_share": result.win_share, "mean_cleared": result.mean_cleared, "cards": result.total,
                         "quoted_odds": game_cls.quoted_odds or None, "quoted_share": share})
    show(Listing(f"The bot over {args.deals} seeded deals (seeds {args.first_seed}..)",
                 ["game", "rules text", "won", "share", "cleared", "text's odds", "as share"], rows, data,
                 right=frozenset({"won", "share", "cleared", "text's odds", "as share"})),
         console, as_json=args.json)
    return 0


def _cmd_catalog(args: argparse.Namespace, console: Console) -> int:
    from pathlib import Path

    from client.simulate import winning_deals
    from engine.deal import random_seed
    from server.catalog import CatalogEntry, format_catalog, load_catalog, private_folder

    key = find_game(args.game).key
    if args.private:
        folder = private_folder(args.private)
        entries = {e.seed: e for e in load_catalog(folder, key)}
        seeds = iter(random_seed, None)  # fresh secret seeds, never a public one
        where = "fresh secret seeds"
        note = (f"Found by `arena catalog {key} --private`: the bot played fresh secret seeds and kept those "
                "it won.\nPRIVATE: keep this folder secret and out of any repository; serve it with "
                "`arena serve --private-catalog DIR`.\nThe server records each seed it draws in "
                f"{key}.used and never draws it again.")
    else:
        folder = Path(args.dir)
        entries = {e.seed: e for e in load_catalog(folder, key)}
        first = max(args.first_seed, max(entries, default=-1) + 1)
        seeds = itertools.count(first)
        where = f"seeds from {first}"
        note = (f"Found by `arena catalog {key}`: the bot played seeds in order and kept those it won.\n"
                "Public: every deal here is known to anyone, so it serves only races whose seed is public "
                "(practice deals).\nSecret winnable deals come from a private catalog "
                "(`arena catalog GAME --private DIR`).")
    if args.solver:
        from client.solve import solver_deals
        from solver import Budget

        note = note.replace(f"`arena catalog {key}", f"`arena catalog {key} --solver").replace(
            "the bot played", "the solver (full knowledge of each deal) searched").replace(
            "kept those it won", "kept those it won, with its solution")
        budget = Budget(nodes=args.nodes, seconds=args.seconds)
        with console.status(f"the solver looks for {args.count} winnable {key} deals among {where}..."):
            solved = solver_deals(key, args.count, seeds, budget, jobs=args.jobs)
        entries.update({v.seed: CatalogEntry(v.seed, tuple(v.solution)) for v in solved if v.seed is not None})
        found: list = solved
    else:
        with console.status(f"the bot looks for {args.count} winnable {key} deals among {where}..."):
            found = winning_deals(key, args.count, seeds=seeds)
        entries.update({o.seed: CatalogEntry(o.seed, o.history) for o in found})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.txt"
    path.write_text(format_catalog(key, sorted(entries.values(), key=lambda e: e.seed), note))
    if args.private:
        path.chmod(0o600)
    added = [entries[seed] for seed in sorted({getattr(f, "seed", None) for f in found} - {None})]
    if args.private:  # secret seeds stay in the file: the listing gives only how many
        rows = [["(secret)", str(len(e.moves))] for e in added]
        data = {"game": key, "path": str(path), "private": True, "added": len(added), "deals": len(entries)}
    else:
        rows = [[str(e.seed), str(len(e.moves))] for e in added]
        data = {"game": key, "path": str(path), "private": False, "added": len(added), "deals": len(entries),
                "seeds": [e.seed for e in added]}
    show(Listing(f"{key}: deals added to {path}", ["seed", "moves"], rows, data, right=frozenset({"moves"}),
                 notes=[f"{key}: {len(added)} deals added, {len(entries)} in {path}"
                        + (" (private: keep it secret)" if args.private else "")]),
         console, as_json=args.json)
    return 0


def _hex_commitment(text: str) -> str:
    value = text.strip().lower()
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise argparse.ArgumentTypeError(f"a commitment is 64 hexadecimal characters (SHA-256), not {text!r}")
    return value


def _option(text: str) -> tuple[str, bool]:
    name, sep, value = text.partition("=")
    value = value.strip().lower()
    if not sep or value not in ("true", "false", "1", "0", "yes", "no"):
        raise argparse.ArgumentTypeError(f"an option is NAME=true or NAME=false, not {text!r}")
    return name.strip(), value in ("true", "1", "yes")


# ---------------------------------------------------------------------------------- main


def _version() -> str:
    """The installed distribution's version (the source tree's own when not installed)."""
    try:
        return importlib.metadata.version("patience-arena")
    except importlib.metadata.PackageNotFoundError:
        return "0+source"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Patience Arena: race friends on the same deal.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="output: a table on a terminal, one tab-separated line per row when piped, JSON with --json\n"
               "exit codes:\n" + "\n".join(f"  {code:<4} {text}" for code, text in EXIT_CODES.items()))
    parser.add_argument("--version", action="version", version=f"arena {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    default_server = os.environ.get("ARENA_URL") or DEFAULT_SERVER

    def command(name: str, help_text: str, *, server: bool = True, name_default: str = "") -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        if server:
            sub.add_argument("--server", default=default_server,
                             help=f"server URL (default {default_server}: $ARENA_URL, else {DEFAULT_SERVER})")
        if name_default:
            sub.add_argument("--name", default=name_default, help=f"display name (default {name_default})")
        return sub

    sub = command("serve", "run a server (memory store) until interrupted", server=False)
    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sub.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    sub.add_argument("--tournaments", metavar="FILE", help="TOML file of (recurring) tournaments to schedule")
    add_server_arguments(sub)

    sub = command("games", "list every game the engine knows", server=False)
    add_json_flag(sub)
    sub = command("races", "list the races open to join (or, with --live, running)", name_default="lister")
    sub.add_argument("--live", action="store_true", help="races starting or running, to watch")
    sub.add_argument("--before", type=int, metavar="CURSOR", help="the next page: the cursor the last page printed")
    sub.add_argument("--limit", type=int, default=50, help="races per page, 1 to 100 (default 50)")
    add_json_flag(sub)

    sub = command("create", "create a race and print its code", name_default="host")
    sub.add_argument("--game", required=True, help="game key or alias (see `arena games`)")
    sub.add_argument("--seed", type=int, help="a public seed (default: a secret one)")
    sub.add_argument("--option", action="append", default=[], metavar="NAME=BOOL", help="a rule option")
    sub.add_argument("--max-entrants", type=int, default=8, help="entrants at most (default 8)")
    sub.add_argument("--countdown", type=int, default=3, help="countdown before the deal, seconds (default 3)")
    sub.add_argument("--time-limit", type=int, default=900, help="race time limit, seconds (default 900)")
    sub.add_argument("--join", action="store_true", help="enter the race too (keep the token to play it)")
    sub.add_argument("--winnable", action="store_true",
                     help="a deal known to be winnable: a fresh secret one the server's solver proves winnable "
                          "(or one from its private catalog), or with --public-seed a practice deal from the public "
                          "catalog")
    sub.add_argument("--public-seed", action="store_true",
                     help="the drawn seed is public from the start (a practice deal)")
    sub.add_argument("--spectator-delay", type=int, default=0, metavar="S",
                     help="spectators see the boards this many seconds late (default 0)")

    sub = command("start", "start the countdown of a race you created")
    sub.add_argument("code", help="race code")
    sub.add_argument("--token", required=True, help="the token `arena create` printed")

    sub = command("bot", "join a race and let a bot play it", name_default="bot")
    sub.add_argument("--race", required=True, help="race code")
    sub.add_argument("--token", help="play as the player of this token (e.g. a creator who joined)")
    sub.add_argument("--delay-ms", type=int, default=0, help="pause between moves, milliseconds (default 0)")
    sub.add_argument("--start", action="store_true", help="start the race once joined (its creator only)")
    sub.add_argument("--double", action="store_true",
                     help="after a win, stake the points on one round of Double or Naught")
    add_play_arguments(command("play", "join a race and play it yourself at a prompt", name_default="player"))

    sub = command("watch", "show a race's live standings until it ends (piped: one line per event)",
                  name_default="spectator")
    sub.add_argument("code", help="race code")
    add_json_flag(sub, "one JSON object per line: every event as the server sent it, then the final standings")

    sub = command("verify", "check a finished race from its record (exit 1 if a check fails)",
                  name_default="verifier")
    sub.add_argument("code", help="race code")
    sub.add_argument("--commitment", metavar="HEX", type=_hex_commitment,
                     help="the commitment published at the race's start (`arena bot` and `arena watch` print it); "
                          "without it the record's own is used")

    sub = command("simulate", "the bot plays many seeded deals offline and reports how often it wins",
                  server=False)
    sub.add_argument("games", nargs="+", help="game keys or aliases, or 'all'")
    sub.add_argument("--deals", type=int, default=1000, help="deals per game (default 1000)")
    sub.add_argument("--first-seed", type=int, default=0, help="seed of the first deal (default 0)")
    sub.add_argument("--workers", type=int, default=0, help="processes (default: one per core)")
    add_json_flag(sub)

    sub = command("catalog", "build or extend a game's catalog of winnable deals (the bot, or --solver, finds them)",
                  server=False)
    sub.add_argument("game", help="game key or alias")
    sub.add_argument("--count", type=int, default=20, help="winnable deals to add (default 20)")
    sub.add_argument("--first-seed", type=int, default=0, help="first seed to try (default 0)")
    sub.add_argument("--dir", default="seeds", help="public catalog folder (default seeds/)")
    sub.add_argument("--private", metavar="DIR",
                     help="build a private catalog in DIR instead, from fresh secret seeds (for tournaments and "
                          "secret winnable races: `arena serve --private-catalog DIR`)")
    sub.add_argument("--solver", action="store_true",
                     help="find the deals with the solver (full knowledge of the deal) instead of the bot")
    sub.add_argument("--nodes", type=int, default=4000, help="with --solver: moves tried per deal (default 4000)")
    sub.add_argument("--seconds", type=float, default=10.0, help="with --solver: seconds per deal (default 10)")
    sub.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                     help="with --solver: worker processes (default: one per core)")
    add_json_flag(sub)

    sub = command("solve", "the solver: one deal's verdict and solution, or a win rate over many deals",
                  server=False)
    add_solve_arguments(sub)

    sub = command("demo", "a server, bots and a spectator in this process: one whole race (or, with --url, "
                          "on a running server)", server=False)
    # No default from $ARENA_URL, unlike the other commands: without --url the demo is the whole race
    # in this process, as the README's tour (which exports ARENA_URL) runs it.
    sub.add_argument("--url", "--server", dest="url", metavar="URL", default=None,
                     help="play the race on this running server (ws://HOST:PORT; e.g. a load balancer over several "
                          "nodes) instead of one started in this process; each bot and the spectator connect on "
                          "their own")
    sub.add_argument("--game", default="klondike", help="game key or alias (default klondike)")
    sub.add_argument("--seed", type=int, default=42, help="the deal's public seed (default 42)")
    sub.add_argument("--bots", type=int, default=3, help="number of bots, 1 to 8 (default 3)")
    sub.add_argument("--delay-ms", type=int, default=20, help="pause between a bot's moves, ms (default 20)")
    sub.add_argument("--tournament", action="store_true",
                     help="a three-deal tournament of eight bots instead (uses --game)")
    sub = command("fuzz", "send random, mutated and hostile frames to a server and check every answer",
                  server=False)
    add_fuzz_arguments(sub)
    sub = command("bench", "benchmarks, each against a server process of its own", server=False)
    add_bench_arguments(sub.add_subparsers(dest="bench", required=True, metavar="BENCHMARK"))
    add_tournament_commands(commands, default_server)
    return parser


_COMMANDS = {
    "serve": _cmd_serve,
    "games": _cmd_games,
    "races": _cmd_races,
    "create": _cmd_create,
    "start": _cmd_start,
    "bot": _cmd_bot,
    "play": run_play,
    "watch": _cmd_watch,
    "verify": _cmd_verify,
    "demo": _cmd_demo,
    "simulate": _cmd_simulate,
    "catalog": _cmd_catalog,
    "solve": run_solve,
    "tournament": run_tournament_command,
    "bench": run_bench,
    "fuzz": run_fuzz,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``arena`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    Raises SystemExit (code 2) for bad usage, as argparse does.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    console = Console() if sys.stdout.isatty() else Console(width=120)  # wide tables in logs too
    handler = _COMMANDS[args.command]
    try:
        if args.command in ("serve", "games", "simulate", "catalog", "solve"):
            return handler(args, console)  # type: ignore[return-value]
        if args.command == "create":
            find_game(args.game)  # an unknown game is an error before any connection
            for text in args.option:
                try:
                    _option(text)
                except argparse.ArgumentTypeError as exc:
                    parser.error(str(exc))
        if args.command == "demo" and args.tournament and args.url:
            parser.error("--url plays the race demo on a running server; the --tournament demo runs in this "
                         "process only")
        return asyncio.run(handler(args, console))  # type: ignore[arg-type]
    except (ArenaError, UnknownGame) as exc:
        console.print(f"[red]error:[/] {escape(exc.reason)} {escape(f'[{exc.code}]')}", highlight=False,
                      soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
