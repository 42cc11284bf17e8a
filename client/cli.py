"""The ``arena`` command: run a server, list games, create, play, watch and verify races, or a demo.

    arena serve [--host 127.0.0.1] [--port 8765] [--data-dir DIR] [--archive URL] [limits...]
    arena games [--json]
    arena races [--live] [--json] [--server URL]
    arena create --game G [--seed N] [--option NAME=true|false] [--max-entrants N]
                 [--countdown S] [--time-limit S] [--join] [--name N] [--server URL]
    arena start CODE [--token T] [--server URL]
    arena bot --race CODE [--server URL] [--name N] [--token T | --as-me] [--start] [--delay-ms N]
    arena play CODE [--server URL] [--name N] [--token T] [--double]
    arena watch CODE [--json] [--server URL]
    arena verify CODE [--commitment HEX] [--server URL]
    arena tournament create|list|show|register|cancel ...
    arena organiser grant NAME [--revoke] (the admin token: ARENA_ADMIN_TOKEN)
    arena simulate|catalog|solve ... (offline: the bot and the solver)
    arena demo [--game klondike] [--seed 42] [--bots 3] [--delay-ms 20] [--url URL]
    arena fuzz|bench ... (tooling, against a server of their own: the `tooling` package)
    arena db upgrade|backup FILE [--archive URL | --data-dir DIR] (the archive: `client.db`)

The person's player (`client.identity`): ``create``, ``start``, ``play``, ``tournament register``
and ``bot --as-me`` connect as the player this CLI keeps per server in its config directory
(``--token`` picks another; ``--name`` renames the kept player), so that ``start`` proves the
creator of a race ``create`` made and ``history`` lists the races ``play`` played. ``bot``,
``watch``, ``races``, ``verify``, ``demo``, ``fuzz`` and ``bench`` connect as fresh players.

Output (`client.output`): a table on a terminal; one tab-separated line per row when stdout is
not a terminal (titles and hints on stderr); one JSON document with ``--json``. ``watch`` and
``tournament show --follow`` print one line (or JSON object) per event as it happens
(`client.race_views`).

Exit codes (`EXIT_CODES`): 0 success; 1 a check failed (a verification, a fuzz or benchmark
check); 2 bad usage, bad input, an unreachable server or a request the server refused; 3 ``arena
verify`` had no commitment to trust (none given, none in its cache: `client.commitments`); 130
interrupted. Times on screen are race times in seconds, from the start instant.

Start-up. This module imports nothing beyond the standard library's argparse at load: the parser
names every command with its help line, and a command's own arguments are added only when that
command is parsed (`_Command`), so ``arena --help`` and ``arena --version`` load no server, engine,
solver, tooling, websockets, Redis or rich module. Each command's handler imports what it uses;
``arena bench`` and ``arena fuzz`` alone load `tooling`. tests/client/test_cli_start.py checks this.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rich.console import Console

    from client.connection import ArenaError
    from client.simulate import DealOutcome
    from engine.games import UnknownGame
    from solver import Verdict

__all__ = ["EXIT_CODES", "main", "web_url"]

DEFAULT_SERVER = "ws://127.0.0.1:8765"

#: What each exit code of ``arena`` means (printed by ``arena --help``).
EXIT_CODES = {
    0: "success",
    1: "a check failed: arena verify found the record wrong, or a fuzz or benchmark check failed",
    2: "bad usage or input, the server unreachable, or a request the server refused (the error line says which)",
    3: "not verified: arena verify had no commitment published at the start to trust (give --commitment, or "
    "play or watch the race with arena first: it keeps each commitment it sees)",
    130: "interrupted (Ctrl-C)",
}


# ------------------------------------------------------------------------------ commands


def _cmd_serve(args: argparse.Namespace, console: Console) -> int:
    import asyncio
    import contextlib
    import errno
    import logging
    import signal

    from rich.markup import escape

    from client.serving import event_loop_factory, log_settings, server_config
    from server.app import serve
    from server.archive import ArchiveError
    from server.logs import configure_logging
    from server.protocol import ProtocolError
    from server.schedule import ScheduleError
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
        # The server is closed (what finished is archived, the store and archive let go). A
        # database driver's task that never ends (aiosqlite closing a connection cut off
        # mid-query) would hold the loop's shutdown forever: give such tasks a moment, then go.
        left = [other for other in asyncio.all_tasks() if other is not task]
        for other in left:
            other.cancel()
        if left and (await asyncio.wait(left, timeout=2.0))[1]:
            log.warning("%d tasks did not end after the server closed: exiting without them", len(left))
            logging.shutdown()
            os._exit(0)

    log.info("starting on ws://%s:%d (event loop: %s)", args.host, args.port, loop_name)
    try:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(run())
    except (ScheduleError, ProtocolError) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        return 2
    except ArchiveError as exc:  # --archive / --data-dir: it cannot be opened
        console.print(
            f"[red]error:[/] the archive cannot be opened: {escape(exc.reason)} (check --data-dir / "
            "ARENA_DATA_DIR, --archive / ARENA_ARCHIVE)",
            highlight=False,
            soft_wrap=True,
        )
        return 2
    except StoreUnavailable as exc:  # --redis: nothing answers there
        console.print(
            f"[red]error:[/] {escape(str(exc))} (check --redis / ARENA_REDIS_URL)", highlight=False, soft_wrap=True
        )
        return 2
    except OSError as exc:  # the address is taken, or not this machine's: one line, no traceback
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        if exc.errno == errno.EADDRINUSE:
            why += " (is another server running there? pick another --port)"
        console.print(
            f"[red]error:[/] cannot listen on {escape(args.host)}:{args.port}: {escape(why)}",
            highlight=False,
            soft_wrap=True,
        )
        return 2
    log.info("stopped")
    return 0


def _cmd_games(args: argparse.Namespace, console: Console) -> int:
    from client.output import Listing, show
    from engine.games import GAMES

    rows = [[game.key, game.name, game.summary] for game in GAMES]
    data = [
        {
            "key": g.key,
            "name": g.name,
            "aliases": list(g.aliases),
            "summary": g.summary,
            "packs": g.packs,
            "cards": g.total,
            "rules_version": g.rules_version,
            "rules_text": g.rules_text,
            "options": {name: option.default for name, option in g.options.items()},
            "quoted_odds": g.quoted_odds or None,
        }
        for g in GAMES
    ]
    show(Listing("Games", ["key", "name", "summary"], rows, data), console, as_json=args.json)
    return 0


async def _cmd_races(args: argparse.Namespace, console: Console) -> int:
    from client.connection import ArenaClient
    from client.output import Listing, show

    status: Literal["open", "live"] = "live" if args.live else "open"
    async with await ArenaClient.connect(args.server, args.name) as client:
        page = await client.list_races(status, before=args.before, limit=args.limit)
    rows = [
        [
            info.code,
            info.game,
            f"{len(info.entrants)}/{info.max_entrants}",
            "secret" if info.seed is None else str(info.seed),
            f"{info.countdown_s} s",
            f"{info.time_limit_s} s",
            info.status,
        ]
        for info in page.races
    ]
    notes = []
    if not page.races:
        notes.append("No race is open to join." if status == "open" else "No race is running.")
    if page.cursor is not None:
        notes.append(f"More: arena races{' --live' if args.live else ''} --before {page.cursor}")
    listing = Listing(
        "Open races" if status == "open" else "Live races",
        ["code", "game", "entrants", "seed", "countdown", "time limit", "status"],
        rows,
        data={"races": page.races, "cursor": page.cursor},
        notes=notes,
    )
    if not page.races and console.is_terminal and not args.json:
        console.print(notes[0], highlight=False)  # a sentence, not an empty table
        return 0
    show(listing, console, as_json=args.json)
    return 0


async def _cmd_create(args: argparse.Namespace, console: Console) -> int:
    from client.identity import connect_person, is_kept

    options = dict(_option(text) for text in args.option)
    async with await connect_person(args.server, args.name) as client:
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
            undo=args.undo,
            rated=args.rated,
        )
        token = client.token
    # The kept player is the creator: `arena start` and `arena play` run as it; without a kept
    # player (a config folder that cannot be written) only the token proves the creator.
    me = "" if is_kept(args.server, client.player) else f" --token={token}"
    console.print(
        f"Race [bold]{info.code}[/] created: {info.game}, "
        f"seed {'secret' if info.seed is None else info.seed}"
        f"{', you are entrant 1' if args.join else ''}."
    )
    console.print(f"Join it:   arena bot --race {info.code} --server {args.server}")
    if args.join:
        console.print(
            f"Play it:   arena play {info.code}{me} --server {args.server}\n"
            f"Start it when the others are in: arena start {info.code}{me} --server {args.server}"
        )
    else:
        console.print(f"Start it:  arena start {info.code}{me} --server {args.server}")
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
    from client.identity import connect_person

    async with await connect_person(args.server, None, token=args.token) as client:
        info = await client.start_race(args.code.upper())
    console.print(f"Race {info.code} starts in {info.countdown_s} s with {len(info.entrants)} entrants.")
    return 0


async def _cmd_bot(args: argparse.Namespace, console: Console) -> int:
    from client.bot import run_bot
    from client.connection import ArenaClient, ArenaError
    from client.identity import connect_person

    code = args.race.upper()
    joining = (
        connect_person(args.server, args.name)  # the person's kept player
        if args.as_me
        else ArenaClient.connect(args.server, args.name or "bot", token=args.token, bot=True)  # a fresh player
    )
    async with await joining as client:
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
            console.print(
                f"Commitment published at the start: {client.commitments[code]}\n"
                f"Check the deal against it: arena verify {code} --commitment {client.commitments[code]}",
                highlight=False,
                soft_wrap=True,
            )
        if args.double and result.won:
            await client.wait_for(lambda: code in client.finished, timeout_s=None)
            if client.player in client.finished[code].double_or_naught:
                bonus = await client.double_or_naught(code)
                while not bonus.decided:
                    bonus = await client.bonus_move(code, "deal" if bonus.outcome == "tie" else "guess r2")
                console.print(f"Double or Naught: {bonus.outcome or 'no result'}; points now {bonus.points}")
    return 0


async def _cmd_watch(args: argparse.Namespace, console: Console) -> int:
    from client.connection import ArenaClient
    from client.output import json_line, show
    from client.race_views import follow_race, race_events, standings_listing, standings_table

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
    caption = (
        f"seed {finished.seed} revealed; {finished.reason}" if finished else f"race {code} is {snapshot.race.status}"
    )
    notes = []
    if code in client.commitments:
        notes.append(
            f"Commitment published at the start: {client.commitments[code]}\n"
            f"Check the deal against it: arena verify {code} --commitment {client.commitments[code]}"
        )
    if console.is_terminal:
        console.print(standings_table(standings, title=f"Race {code}: final standings", caption=caption))
        for note in notes:
            console.print(note, highlight=False, soft_wrap=True)
    else:
        show(
            standings_listing(standings, title=f"Race {code}: final standings; {caption}", notes=notes),
            console,
            as_json=False,
        )
    return 0


async def _cmd_verify(args: argparse.Namespace, console: Console) -> int:
    from client.connection import ArenaClient
    from client.race_views import report_table
    from client.verify import verify_record

    code = args.code.upper()
    async with await ArenaClient.connect(args.server, args.name) as client:
        record = await client.get_record(code)
    trusted, source = args.commitment, "given with --commitment"
    if trusted is None:  # one this command saw before the race ended (`client.commitments`)
        trusted, source = _cached_commitment(code, record.seed, record.salt), "kept by arena while the race ran"
    report = verify_record(record, trusted)
    console.print(report_table(report))
    if trusted is None:
        console.print(
            f"Not verified: {report.verdict.removeprefix('not verified: ')}. arena has no commitment for "
            f"race {code} from before its end: pass the one published at the start, arena verify {code} "
            "--commitment HEX (`arena bot` and `arena watch` print it).",
            highlight=False,
            soft_wrap=True,
        )
        return 3 if report.ok else 1
    console.print(f"Commitment checked against: {trusted} ({source}).", highlight=False, soft_wrap=True)
    return 0 if report.verified else 1


def _cached_commitment(code: str, seed: int, salt: str) -> str | None:
    """The commitment for race ``code`` that the CLI's cache kept (`client.commitments`): the one
    ``seed`` and ``salt`` hash to if it holds several, else its newest; None if none."""
    from client.commitments import CommitmentCache, cache_path
    from engine.deal import commitment_of

    kept = CommitmentCache(cache_path()).get(code)
    expected = commitment_of(seed, salt)
    return expected if expected in kept else (kept[-1] if kept else None)


async def _cmd_demo(args: argparse.Namespace, console: Console) -> int:
    if args.tournament:
        from client.tournaments import run_tournament_demo

        return await run_tournament_demo(args.game, console=console)
    from client.demo import run_demo

    return await run_demo(
        args.game, seed=args.seed, bots=args.bots, delay_ms=args.delay_ms, console=console, url=args.url
    )


def _cmd_simulate(args: argparse.Namespace, console: Console) -> int:
    from functools import partial

    from rich.progress import Progress

    from client.output import Listing, show
    from client.simulate import odds_share, simulate
    from engine.games import GAMES, find_game

    keys = [g.key for g in GAMES] if args.games == ["all"] else [find_game(g).key for g in args.games]
    rows, data = [], []
    with Progress(console=console, transient=True, disable=args.json or not console.is_terminal) as progress:
        for key in keys:
            game_cls = find_game(key)
            task = progress.add_task(key, total=args.deals)
            result = simulate(
                key,
                args.deals,
                first_seed=args.first_seed,
                workers=args.workers or None,
                progress=partial(progress.advance, task),
            )
            share = odds_share(game_cls.quoted_odds)
            rows.append(
                [
                    key,
                    game_cls.rules_text,
                    f"{result.wins}/{args.deals}",
                    f"{result.win_share:.1%}",
                    f"{result.mean_cleared:.1f}/{result.total}",
                    game_cls.quoted_odds or "-",
                    f"{share:.1%}" if share is not None else "-",
                ]
            )
            data.append(
                {
                    "game": key,
                    "deals": args.deals,
                    "first_seed": args.first_seed,
                    "wins": result.wins,
                    "win_share": result.win_share,
                    "mean_cleared": result.mean_cleared,
                    "cards": result.total,
                    "quoted_odds": game_cls.quoted_odds or None,
                    "quoted_share": share,
                }
            )
    show(
        Listing(
            f"The bot over {args.deals} seeded deals (seeds {args.first_seed}..)",
            ["game", "rules text", "won", "share", "cleared", "text's odds", "as share"],
            rows,
            data,
            right=frozenset({"won", "share", "cleared", "text's odds", "as share"}),
        ),
        console,
        as_json=args.json,
    )
    return 0


def _cmd_catalog(args: argparse.Namespace, console: Console) -> int:
    import itertools
    from pathlib import Path

    from client.output import Listing, show
    from client.simulate import winning_deals
    from engine.deal import random_seed
    from engine.games import find_game
    from server.catalog import (
        CatalogEntry,
        CatalogError,
        format_catalog,
        load_catalog,
        private_folder,
        public_catalogs_to_write,
    )

    key = find_game(args.game).key
    if args.private:
        folder = private_folder(args.private)
        entries = {e.seed: e for e in load_catalog(folder, key)}
        seeds = iter(random_seed, None)  # fresh secret seeds, never a public one
        where = "fresh secret seeds"
        note = (
            f"Found by `arena catalog {key} --private`: the bot played fresh secret seeds and kept those "
            "it won.\nPRIVATE: keep this folder secret and out of any repository; serve it with "
            "`arena serve --private-catalog DIR`.\nThe server records each seed it draws in "
            f"{key}.used and never draws it again."
        )
    else:
        try:
            folder = Path(args.dir) if args.dir else public_catalogs_to_write()
        except CatalogError as exc:
            from rich.markup import escape

            console.print(f"[red]error:[/] {escape(str(exc))}")
            return 2
        entries = {e.seed: e for e in load_catalog(folder, key)}
        first = max(args.first_seed, max(entries, default=-1) + 1)
        seeds = itertools.count(first)
        where = f"seeds from {first}"
        note = (
            f"Found by `arena catalog {key}`: the bot played seeds in order and kept those it won.\n"
            "Public: every deal here is known to anyone, so it serves only races whose seed is public "
            "(practice deals).\nSecret winnable deals come from a private catalog "
            "(`arena catalog GAME --private DIR`)."
        )
    if args.solver:
        from client.solve import solver_deals
        from solver import Budget

        note = (
            note.replace(f"`arena catalog {key}", f"`arena catalog {key} --solver")
            .replace("the bot played", "the solver (full knowledge of each deal) searched")
            .replace("kept those it won", "kept those it won, with its solution")
        )
        budget = Budget(nodes=args.nodes, seconds=args.seconds)
        with console.status(f"the solver looks for {args.count} winnable {key} deals among {where}..."):
            solved = solver_deals(key, args.count, seeds, budget, jobs=args.jobs)
        entries.update({v.seed: CatalogEntry(v.seed, tuple(v.solution)) for v in solved if v.seed is not None})
        found: Sequence[Verdict | DealOutcome] = solved
    else:
        with console.status(f"the bot looks for {args.count} winnable {key} deals among {where}..."):
            found = winning_deals(key, args.count, seeds=seeds)
        entries.update({o.seed: CatalogEntry(o.seed, o.history) for o in found})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.txt"
    path.write_text(format_catalog(key, sorted(entries.values(), key=lambda e: e.seed), note))
    if args.private:
        path.chmod(0o600)
    added = [entries[seed] for seed in sorted({f.seed for f in found if f.seed is not None})]
    if args.private:  # secret seeds stay in the file: the listing gives only how many
        rows = [["(secret)", str(len(e.moves))] for e in added]
        data = {"game": key, "path": str(path), "private": True, "added": len(added), "deals": len(entries)}
    else:
        rows = [[str(e.seed), str(len(e.moves))] for e in added]
        data = {
            "game": key,
            "path": str(path),
            "private": False,
            "added": len(added),
            "deals": len(entries),
            "seeds": [e.seed for e in added],
        }
    show(
        Listing(
            f"{key}: deals added to {path}",
            ["seed", "moves"],
            rows,
            data,
            right=frozenset({"moves"}),
            notes=[
                f"{key}: {len(added)} deals added, {len(entries)} in {path}"
                + (" (private: keep it secret)" if args.private else "")
            ],
        ),
        console,
        as_json=args.json,
    )
    return 0


async def _cmd_play(args: argparse.Namespace, console: Console) -> int:
    from client.play import run_play

    return await run_play(args, console)


def _cmd_solve(args: argparse.Namespace, console: Console) -> int:
    from client.solve import run_solve

    return run_solve(args, console)


async def _cmd_organiser(args: argparse.Namespace, console: Console) -> int:
    from client.tournaments import run_organiser_command

    return await run_organiser_command(args, console)


async def _cmd_tournament(args: argparse.Namespace, console: Console) -> int:
    from client.tournaments import run_tournament_command

    return await run_tournament_command(args, console)


async def _cmd_fuzz(args: argparse.Namespace, console: Console) -> int:
    from tooling.fuzz import run_fuzz  # `arena fuzz` alone loads tooling/ (with `_fuzz_arguments`)

    return await run_fuzz(args, console)


async def _cmd_db(args: argparse.Namespace, console: Console) -> int:
    from client.db import run_db  # `arena db` alone loads the archive (with `_db_arguments`)

    return await run_db(args, console)


async def _cmd_bench(args: argparse.Namespace, console: Console) -> int:
    from tooling.bench import run_bench  # `arena bench` alone loads tooling/ (with `_bench_arguments`)

    return await run_bench(args, console)


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
    import importlib.metadata

    try:
        return importlib.metadata.version("patience-arena")
    except importlib.metadata.PackageNotFoundError:
        return "0+source"


class _Version(argparse.Action):
    """``--version``: print ``arena VERSION`` and exit. The version is looked up only then
    (`importlib.metadata` costs about as much as the rest of ``arena --help``)."""

    def __init__(
        self,
        option_strings: Sequence[str],
        dest: str = argparse.SUPPRESS,
        default: str = argparse.SUPPRESS,
        help: str = "show program's version number and exit",
    ) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        print(f"arena {_version()}")
        parser.exit()


class _Command(argparse.ArgumentParser):
    """The parser of one ``arena`` command; ``arguments(parser)`` adds its arguments the first
    time it parses, or prints its usage or help.

    ``arena --help`` needs only each command's name and help line, and argparse hands the
    command line to the parser of the one command named, so the modules that define a command's
    arguments (`client.serving`, `client.play`, `client.solve`, `tooling.bench`...) are imported
    only when that command runs or shows its own help.
    """

    def __init__(
        self, *args: object, arguments: Callable[[argparse.ArgumentParser], None] | None = None, **kwargs: object
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._arguments = arguments

    def _add_arguments(self) -> None:
        arguments, self._arguments = self._arguments, None
        if arguments is not None:
            arguments(self)

    # typeshed overloads parse_known_args generically over the namespace's type; this override
    # only adds the command's arguments first and passes the call on.
    def parse_known_args(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        namespace: argparse.Namespace | None = None,
    ) -> tuple[argparse.Namespace, list[str]]:
        self._add_arguments()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._add_arguments()
        return super().format_usage()

    def format_help(self) -> str:
        self._add_arguments()
        return super().format_help()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Patience Arena: race friends on the same deal.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="output: a table on a terminal, one tab-separated line per row when piped, JSON with --json\n"
        "exit codes:\n" + "\n".join(f"  {code:<4} {text}" for code, text in EXIT_CODES.items()),
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Command)
    default_server = os.environ.get("ARENA_URL") or DEFAULT_SERVER

    def command(
        name: str,
        help_text: str,
        arguments: Callable[[argparse.ArgumentParser], None],
        *,
        server: bool = True,
        name_default: str = "",
        name_help: str = "",
        person: bool = False,
        description: str = "",
    ) -> None:
        def add_arguments(sub: argparse.ArgumentParser) -> None:
            if server:
                sub.add_argument(
                    "--server",
                    default=default_server,
                    help=f"server URL (default {default_server}: $ARENA_URL, else {DEFAULT_SERVER})",
                )
            if person:  # a command a person runs as themselves: their kept player
                from client.identity import NAME_HELP

                sub.add_argument("--name", default=None, help=NAME_HELP)
            elif name_help:  # the command's handler picks the default
                sub.add_argument("--name", default=None, help=name_help)
            elif name_default:
                sub.add_argument("--name", default=name_default, help=f"display name (default {name_default})")
            arguments(sub)

        commands.add_parser(name, help=help_text, description=description or help_text, arguments=add_arguments)

    command(
        "serve",
        "run a server (memory store; finished races kept in its data directory) until interrupted",
        _serve_arguments,
        server=False,
    )
    command("games", "list every game the engine knows", _json_flag, server=False)
    command(
        "whoami",
        "your player on the server: its id and name (kept in the config directory)",
        _json_flag,
        name_default="player",
    )
    command(
        "history",
        "your finished races on the server, newest first (the player `arena whoami` shows)",
        _history_arguments,
        name_default="player",
    )
    command(
        "daily",
        "today's daily challenge deals, or one game's results of a day, and your streak",
        _daily_arguments,
        name_default="player",
    )
    command(
        "leaderboard",
        "a game's rating board (or, with --daily DATE, that day's daily challenge results)",
        _leaderboard_arguments,
        name_default="player",
    )
    command(
        "profile", "a player's statistics per game, rating and recent races", _profile_arguments, name_default="player"
    )
    _account_commands(command)
    command("races", "list the races open to join (or, with --live, running)", _races_arguments, name_default="lister")
    command("create", "create a race and print its code", _create_arguments, person=True)
    command("start", "start the countdown of a race you created", _start_arguments)
    command(
        "bot",
        "join a race as a fresh player and let a bot play it",
        _bot_arguments,
        name_help="display name (default bot); with --as-me, a name given renames your kept player",
    )
    command("play", "join a race and play it yourself at a prompt", _play_arguments, person=True)
    command(
        "watch",
        "show a race's live standings until it ends (piped: one line per event)",
        _watch_arguments,
        name_default="spectator",
    )
    command(
        "verify",
        "check a finished race from its record (exit 1 if a check fails, 3 if no trusted commitment)",
        _verify_arguments,
        name_default="verifier",
    )
    command(
        "simulate",
        "the bot plays many seeded deals offline and reports how often it wins",
        _simulate_arguments,
        server=False,
    )
    command(
        "catalog",
        "build or extend a game's catalog of winnable deals (the bot, or --solver, finds them)",
        _catalog_arguments,
        server=False,
    )
    command(
        "solve",
        "the solver: one deal's verdict and solution, or a win rate over many deals",
        _solve_arguments,
        server=False,
    )
    command(
        "demo",
        "a server, bots and a spectator in this process: one whole race (or, with --url, on a running server)",
        _demo_arguments,
        server=False,
    )
    command(
        "fuzz",
        "send random, mutated and hostile frames to a server and check every answer",
        _fuzz_arguments,
        server=False,
    )
    command("bench", "benchmarks, each against a server process of its own", _bench_arguments, server=False)
    command("db", "the archive of finished races: upgrade its schema, back it up", _db_arguments, server=False)
    command(
        "tournament",
        "create, list, show, register for or cancel tournaments",
        lambda sub: _tournament_arguments(sub, default_server),
        server=False,
        description="Tournaments: many entrants, several deals, live standings.",
    )
    command(
        "organiser",
        "the server's admin grants (or takes back) the organiser role of a claimed player",
        lambda sub: _organiser_arguments(sub, default_server),
        server=False,
    )
    return parser


# Each command's own arguments (`_Command` adds them when the command is parsed); ``--server`` and
# ``--name`` come from `_parser`.


def _serve_arguments(sub: argparse.ArgumentParser) -> None:
    from client.serving import add_server_arguments

    sub.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sub.add_argument("--port", type=int, default=8765, help="port to listen on (default 8765)")
    sub.add_argument("--tournaments", metavar="FILE", help="TOML file of (recurring) tournaments to schedule")
    add_server_arguments(sub)


def _json_flag(sub: argparse.ArgumentParser, help_text: str = "") -> None:
    from client.output import add_json_flag

    add_json_flag(sub, help_text)


def _races_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--live", action="store_true", help="races starting or running, to watch")
    sub.add_argument("--before", type=int, metavar="CURSOR", help="the next page: the cursor the last page printed")
    sub.add_argument("--limit", type=int, default=50, help="races per page, 1 to 100 (default 50)")
    _json_flag(sub)


def _account_commands(command: Callable[..., None]) -> None:
    """Declare ``login``, ``claim``, ``transfer``, ``redeem`` and ``forget-me`` (`client.accounts`)."""

    def arguments(name: str) -> Callable[[argparse.ArgumentParser], None]:
        def add(sub: argparse.ArgumentParser) -> None:
            from client import accounts

            getattr(accounts, f"add_{name}_arguments")(sub)

        return add

    command("login", "log in as the player that claimed NAME, and be it from now on here", arguments("login"))
    command(
        "claim",
        "claim your player's name with a password, to log in as it on other devices",
        arguments("claim"),
        name_help="the name to claim, taken first (default: your player's name)",
    )
    command("transfer", "print a one-time code that makes another device your player", arguments("transfer"))
    command("redeem", "become the player a transfer code was made for, from now on here", arguments("redeem"))
    command("forget-me", "delete your player on the server for good (its races stay, anonymous)", arguments("forget"))


async def _cmd_account(args: argparse.Namespace, console: Console) -> int:
    from client import accounts

    handler = getattr(accounts, "cmd_" + args.command.replace("-", "_"))
    result: int = await handler(args, console)
    return result


def _history_arguments(sub: argparse.ArgumentParser) -> None:
    from client.identity import add_history_arguments

    add_history_arguments(sub)


async def _cmd_whoami(args: argparse.Namespace, console: Console) -> int:
    from client.identity import cmd_whoami

    return await cmd_whoami(args, console)


def _leaderboard_arguments(sub: argparse.ArgumentParser) -> None:
    from client.boards import add_leaderboard_arguments

    add_leaderboard_arguments(sub)


def _profile_arguments(sub: argparse.ArgumentParser) -> None:
    from client.boards import add_profile_arguments

    add_profile_arguments(sub)


async def _cmd_leaderboard(args: argparse.Namespace, console: Console) -> int:
    from client.boards import cmd_leaderboard

    return await cmd_leaderboard(args, console)


async def _cmd_profile(args: argparse.Namespace, console: Console) -> int:
    from client.boards import cmd_profile

    return await cmd_profile(args, console)


def _daily_arguments(sub: argparse.ArgumentParser) -> None:
    from client.daily import add_daily_arguments

    add_daily_arguments(sub)


async def _cmd_daily(args: argparse.Namespace, console: Console) -> int:
    from client.daily import cmd_daily

    return await cmd_daily(args, console)


async def _cmd_history(args: argparse.Namespace, console: Console) -> int:
    from client.identity import cmd_history

    return await cmd_history(args, console)


def _create_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--game", required=True, help="game key or alias (see `arena games`)")
    sub.add_argument("--seed", type=int, help="a public seed (default: a secret one)")
    sub.add_argument("--option", action="append", default=[], metavar="NAME=BOOL", help="a rule option")
    sub.add_argument("--max-entrants", type=int, default=8, help="entrants at most (default 8)")
    sub.add_argument("--countdown", type=int, default=3, help="countdown before the deal, seconds (default 3)")
    sub.add_argument("--time-limit", type=int, default=900, help="race time limit, seconds (default 900)")
    sub.add_argument(
        "--join", action="store_true", help="enter the race too, as your kept player (`arena play CODE` plays it)"
    )
    sub.add_argument(
        "--winnable",
        action="store_true",
        help="a deal known to be winnable: a fresh secret one the server's solver proves winnable "
        "(or one from its private catalog), or with --public-seed a practice deal from the public "
        "catalog",
    )
    sub.add_argument(
        "--public-seed", action="store_true", help="the drawn seed is public from the start (a practice deal)"
    )
    sub.add_argument(
        "--rated",
        action="store_true",
        help="its end moves the ratings of its claimed entrants (at least two, no bots; a secret seed only)",
    )
    sub.add_argument(
        "--spectator-delay",
        type=int,
        default=0,
        metavar="S",
        help="spectators see the boards this many seconds late (default 0)",
    )
    sub.add_argument(
        "--no-undo",
        dest="undo",
        action="store_false",
        help="entrants may not take back moves (by default they may take back any move that turned no card up)",
    )


def _start_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("code", help="race code")
    sub.add_argument(
        "--token",
        help="as the player of this token (the one `arena create` printed when it kept no player); "
        "default: your kept player (`arena whoami`), the creator of the races you create",
    )


def _bot_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--race", required=True, help="race code")
    who = sub.add_mutually_exclusive_group()
    who.add_argument("--token", help="play as the player of this token (e.g. a creator who joined)")
    who.add_argument(
        "--as-me",
        action="store_true",
        help="play as your kept player (`arena whoami`; the race shows in `arena history`) instead of a fresh one",
    )
    sub.add_argument("--delay-ms", type=int, default=0, help="pause between moves, milliseconds (default 0)")
    sub.add_argument("--start", action="store_true", help="start the race once joined (its creator only)")
    sub.add_argument(
        "--double", action="store_true", help="after a win, stake the points on one round of Double or Naught"
    )


def _play_arguments(sub: argparse.ArgumentParser) -> None:
    from client.play import add_play_arguments

    add_play_arguments(sub)


def _watch_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("code", help="race code")
    _json_flag(sub, "one JSON object per line: every event as the server sent it, then the final standings")


def _verify_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("code", help="race code")
    sub.add_argument(
        "--commitment",
        metavar="HEX",
        type=_hex_commitment,
        help="the commitment published at the race's start (`arena bot` and `arena watch` print it); "
        "without it, the one arena kept when it saw the race before its end (its cache: "
        "$ARENA_CACHE_DIR, else $XDG_CACHE_HOME/patience-arena); with neither, the verdict is "
        "'not verified' (exit 3)",
    )


def _simulate_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("games", nargs="+", help="game keys or aliases, or 'all'")
    sub.add_argument("--deals", type=int, default=1000, help="deals per game (default 1000)")
    sub.add_argument("--first-seed", type=int, default=0, help="seed of the first deal (default 0)")
    sub.add_argument("--workers", type=int, default=0, help="processes (default: one per core)")
    _json_flag(sub)


def _catalog_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("game", help="game key or alias")
    sub.add_argument("--count", type=int, default=20, help="winnable deals to add (default 20)")
    sub.add_argument("--first-seed", type=int, default=0, help="first seed to try (default 0)")
    sub.add_argument(
        "--dir",
        help="public catalog folder (default: the checkout's seeds/; an installed package "
        "needs a folder of its own, served with `arena serve --catalog DIR`)",
    )
    sub.add_argument(
        "--private",
        metavar="DIR",
        help="build a private catalog in DIR instead, from fresh secret seeds (for tournaments and "
        "secret winnable races: `arena serve --private-catalog DIR`)",
    )
    sub.add_argument(
        "--solver",
        action="store_true",
        help="find the deals with the solver (full knowledge of the deal) instead of the bot",
    )
    sub.add_argument(
        "--nodes", type=int, default=100_000_000, help="with --solver: moves tried per deal (default 100,000,000)"
    )
    sub.add_argument(
        "--seconds", type=float, default=10.0, help="with --solver: seconds per deal (default 10, the par budget)"
    )
    sub.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="with --solver: worker processes (default: one per core)"
    )
    _json_flag(sub)


def _solve_arguments(sub: argparse.ArgumentParser) -> None:
    from client.solve import add_solve_arguments

    add_solve_arguments(sub)


def _demo_arguments(sub: argparse.ArgumentParser) -> None:
    # No default from $ARENA_URL, unlike the other commands: without --url the demo is the whole race
    # in this process, as the README's tour (which exports ARENA_URL) runs it.
    sub.add_argument(
        "--url",
        "--server",
        dest="url",
        metavar="URL",
        default=None,
        help="play the race on this running server (ws://HOST:PORT; e.g. a load balancer over several "
        "nodes) instead of one started in this process; each bot and the spectator connect on "
        "their own",
    )
    sub.add_argument("--game", default="klondike", help="game key or alias (default klondike)")
    sub.add_argument("--seed", type=int, default=42, help="the deal's public seed (default 42)")
    sub.add_argument("--bots", type=int, default=3, help="number of bots, 1 to 8 (default 3)")
    sub.add_argument("--delay-ms", type=int, default=20, help="pause between a bot's moves, ms (default 20)")
    sub.add_argument(
        "--tournament", action="store_true", help="a three-deal tournament of eight bots instead (uses --game)"
    )


def _fuzz_arguments(sub: argparse.ArgumentParser) -> None:
    from tooling.fuzz import add_fuzz_arguments  # `arena fuzz` alone loads tooling/ (with `_cmd_fuzz`)

    add_fuzz_arguments(sub)


def _bench_arguments(sub: argparse.ArgumentParser) -> None:
    from tooling.bench import add_bench_arguments  # `arena bench` alone loads tooling/ (with `_cmd_bench`)

    add_bench_arguments(sub.add_subparsers(dest="bench", required=True, metavar="BENCHMARK"))


def _db_arguments(sub: argparse.ArgumentParser) -> None:
    from client.db import add_db_arguments

    add_db_arguments(sub)


def _organiser_arguments(sub: argparse.ArgumentParser, default_server: str) -> None:
    from client.tournaments import add_organiser_arguments

    add_organiser_arguments(sub, default_server)


def _tournament_arguments(sub: argparse.ArgumentParser, default_server: str) -> None:
    from client.tournaments import add_tournament_arguments

    add_tournament_arguments(sub, default_server)


_COMMANDS: dict[str, Callable[[argparse.Namespace, Console], object]] = {
    "serve": _cmd_serve,
    "games": _cmd_games,
    "races": _cmd_races,
    "whoami": _cmd_whoami,
    "history": _cmd_history,
    "daily": _cmd_daily,
    "leaderboard": _cmd_leaderboard,
    "profile": _cmd_profile,
    "create": _cmd_create,
    "start": _cmd_start,
    "bot": _cmd_bot,
    "play": _cmd_play,
    "watch": _cmd_watch,
    "verify": _cmd_verify,
    "demo": _cmd_demo,
    "simulate": _cmd_simulate,
    "catalog": _cmd_catalog,
    "solve": _cmd_solve,
    "tournament": _cmd_tournament,
    "organiser": _cmd_organiser,
    "bench": _cmd_bench,
    "fuzz": _cmd_fuzz,
    "db": _cmd_db,
    "login": _cmd_account,
    "claim": _cmd_account,
    "transfer": _cmd_account,
    "redeem": _cmd_account,
    "forget-me": _cmd_account,
}


def _refusals() -> tuple[type[ArenaError | UnknownGame], ...]:
    """The errors `main` prints in one line (exit 2): a request the server refused
    (`client.connection.ArenaError`) and an unknown game (`engine.games.UnknownGame`), among the
    modules the command loaded: a command that never loaded one cannot have raised its error."""
    found = (
        getattr(sys.modules.get(module), name, None)
        for module, name in (("client.connection", "ArenaError"), ("engine.games", "UnknownGame"))
    )
    return tuple(error for error in found if error is not None)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``arena`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    Raises SystemExit (code 2) for bad usage, as argparse does.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    from rich.console import Console
    from rich.markup import escape

    console = Console() if sys.stdout.isatty() else Console(width=120)  # wide tables in logs too
    handler = _COMMANDS[args.command]
    try:
        if args.command in ("serve", "games", "simulate", "catalog", "solve"):
            return handler(args, console)  # type: ignore[return-value]
        if args.command == "create":
            from engine.games import find_game

            find_game(args.game)  # an unknown game is an error before any connection
            for text in args.option:
                try:
                    _option(text)
                except argparse.ArgumentTypeError as exc:
                    parser.error(str(exc))
        if args.command == "demo" and args.tournament and args.url:
            parser.error(
                "--url plays the race demo on a running server; the --tournament demo runs in this process only"
            )
        import asyncio

        if args.command in ("bench", "fuzz"):
            return asyncio.run(handler(args, console))  # type: ignore[arg-type]
        from client.commitments import keep_commitments

        with keep_commitments():  # each commitment seen is kept for `arena verify`
            return asyncio.run(handler(args, console))  # type: ignore[arg-type]
    except _refusals() as exc:
        console.print(f"[red]error:[/] {escape(exc.reason)} {escape(f'[{exc.code}]')}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
