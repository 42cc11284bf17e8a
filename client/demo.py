"""``arena demo``: one whole race in one process, to see every part work together.

`run_demo` starts an `server.app.ArenaServer` on 127.0.0.1 (a free port), connects some bots
and a spectator, and then: the first bot creates a race of the game with a public seed, the
others join, the spectator watches, the creator starts it (one-second countdown), the bots play
at once while the spectator shows the live standings, and at the end the demo prints the final
ranking, the deal (so that two runs can be compared: the same seed gives the same deal), and
the verification of the race's record.

With ``url`` (``arena demo --url ws://HOST:PORT``) no server starts here: the same race is played
on that server instead, each bot and the spectator on a connection of its own. Behind a load
balancer over several nodes (deploy/local-cluster, deploy/compose.yaml) those connections land on
different nodes; when the server's welcome names its node, the demo says which node each one
landed on.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from rich.console import Console
from rich.markup import escape

from client.bot import BotResult, run_bot
from client.connection import ArenaClient
from client.race_views import follow_race, report_table, standings_table
from client.verify import verify_record
from engine.deal import shuffled
from engine.games import find_game
from server.protocol import Board, RaceFinished

__all__ = ["deal_summary", "landed_on", "run_demo"]

#: Race time limit of a demo race, in seconds: bots finish far sooner.
DEMO_TIME_LIMIT_S = 60


def deal_summary(game: str, seed: int, board: Board | None, *, cards: int = 10) -> str:
    """One line that identifies a deal: the game, the seed, the first ``cards`` cards of the
    shuffle, and the face-up cards of the starting board (if given)."""
    game_cls = find_game(game)
    first = " ".join(str(c) for c in shuffled(game_cls.key, seed, game_cls.packs)[:cards])
    text = f"{game_cls.key} seed {seed}: first cards dealt {first}"
    if board is not None:
        up = [f"{pid}={codes[-1]}" for pid, codes in board.piles.items() if codes and codes[-1] != "??"]
        if up:
            text += f"; face up at the start: {' '.join(up)}"
    return text


def landed_on(clients: list[ArenaClient]) -> str | None:
    """One line naming the node each client's connection landed on ("bot-1 on node1, ..."), or
    None when no welcome named a node (a single server)."""
    nodes = [c.welcome.node if c.welcome is not None else None for c in clients]
    if not any(nodes):
        return None
    return "Nodes: " + ", ".join(f"{c.name} on {node or 'an unnamed node'}" for c, node in zip(clients, nodes))


async def run_demo(
    game: str = "klondike",
    *,
    seed: int = 42,
    bots: int = 3,
    delay_ms: int = 20,
    console: Console | None = None,
    url: str | None = None,
) -> int:
    """Run one demo race and print it to ``console``; return the exit code (0: the race ran and
    its record verified, 1 otherwise).

    ``bots``: 1 to 8 players; ``delay_ms``: each bot's pause between moves, milliseconds;
    ``url``: a running server to play the race on (``ws://host:port``) instead of one started in
    this process. Raises `client.connection.ArenaError` if the server refuses a request (an
    unknown game), `client.connection.ArenaConnectionError` if ``url`` cannot be reached.
    """
    console = console or Console()
    bots = max(1, min(8, bots))
    began = time.monotonic()
    if url is not None:
        console.print(f"Server: {url}", highlight=False)
        return await _demo_race(url, game, seed=seed, bots=bots, delay_ms=delay_ms, console=console, began=began)
    from server.app import ArenaServer  # the server is only needed here, not by the client

    async with ArenaServer() as server:
        console.print(f"Server listening on {server.url}")
        return await _demo_race(server.url, game, seed=seed, bots=bots, delay_ms=delay_ms, console=console, began=began)


async def _demo_race(
    url: str, game: str, *, seed: int, bots: int, delay_ms: int, console: Console, began: float
) -> int:
    """The demo's race on the server at ``url``: ``bots`` bots and a spectator, each on a
    connection of its own; print it and return the exit code as `run_demo` does."""
    clients: list[ArenaClient] = []
    try:
        for i in range(bots):
            clients.append(await ArenaClient.connect(url, f"bot-{i + 1}", bot=True))
        creator = clients[0]
        info = await creator.create_race(
            game, seed=seed, max_entrants=bots, countdown_s=1, time_limit_s=DEMO_TIME_LIMIT_S
        )
        code = info.code
        for client in clients[1:]:
            await client.join_race(code)
        spectator = await ArenaClient.connect(url, "spectator")
        clients.append(spectator)
        if (nodes := landed_on(clients)) is not None:
            console.print(nodes, highlight=False)
        snapshot = await spectator.watch(code)
        console.print(
            f"Race [bold]{code}[/]: {info.game}, public seed {seed}, "
            f"{bots} bot{'s' if bots > 1 else ''}; starting in 1 s"
        )
        await creator.start_race(code)
        players = [
            asyncio.create_task(run_bot(c, code, delay_ms=delay_ms, variety=i), name=c.name)
            for i, c in enumerate(clients[:-1])
        ]
        try:
            async with asyncio.timeout(DEMO_TIME_LIMIT_S + 30):
                finished = await follow_race(spectator, snapshot, console)
            results = await asyncio.gather(*players, return_exceptions=True)
        finally:
            for task in players:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*players, return_exceptions=True)
        record = await spectator.get_record(code)
    finally:
        for client in clients:
            await client.close()

    standings = finished.standings if isinstance(finished, RaceFinished) else record.standings
    console.print(
        standings_table(
            standings,
            title=f"Race {code}: final ranking",
            caption=f"ended: {finished.reason if finished else 'finished'}",
        )
    )
    for client, result in zip(clients, results):
        if isinstance(result, BotResult):
            console.print(
                f"  {client.name}: {result.end}, {result.cleared}/{result.total} cleared, {result.moves} moves",
                highlight=False,
            )
        else:
            console.print(f"  {client.name}: [red]failed[/]: {escape(repr(result))}")
    start_board = creator.started[code].board if code in creator.started else None
    console.print(f"Deal: {escape(deal_summary(info.game, record.seed, start_board))}", highlight=False)
    console.print(f"Running it twice prints the same deal: same game, same seed ({record.seed}).")
    report = verify_record(record, spectator.commitments.get(code))
    console.print(report_table(report))
    console.print(f"Demo took {time.monotonic() - began:.1f} s.")
    failed_bots = [r for r in results if not isinstance(r, BotResult)]
    return 0 if report.ok and not failed_bots else 1
