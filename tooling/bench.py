"""``arena bench``: figures for the bounded-work promises, measured on a server in its own process.

docs/design.md's invariant 8 says that no request's cost grows with the number of races on the server
and that everything kept in memory has a retention time. Each benchmark here starts its own
``arena serve`` as a child process (`tooling.server_process.ServerProcess`), so that the server's
CPU time and resident memory are measured apart from the benchmark's own work.

``listing``
    For each size (default 100 and 30,000 open races) a fresh server, with the creation limits
    raised and an open-race time to live long enough that nothing expires. The races are created
    from several connections at once, each a different player. Then one connection sends
    ``--requests`` list_races (the first page, ``--limit`` races) one after the other: the
    server's CPU time over them, divided by their number, is the cost of one request in
    milliseconds; the wall-clock time of each gives the latency. Last, it walks the whole listing
    with the cursor and checks that every open race comes exactly once.
``memory``
    A server with short times: open races nobody starts expire after ``--open-race-ttl-s``
    (default 30 s, longer than creating 30,000 races takes, so that all of them are in memory at
    the peak), then leave memory ``--race-retention-s`` later (default 5 s). Its resident memory
    (RSS) idle, right after ``--races`` races were created, and once it has emptied itself
    (``GET /healthz`` reports no race and no player), with the counts of races and players at
    each point. Python's allocator keeps freed memory for reuse, so the last figure need not fall
    back to the first.
``load``
    Races played at a steady move rate by entrants and watched by spectators, from separate load
    processes, against a server of its own (or ``--server URL``): moves acknowledged per second,
    ack and spectator delivery latency, server CPU per move, memory per connection
    (`tooling.loadgen`). With ``--redis URL`` (or ``local``: a private redis-server) and
    ``--nodes N`` it starts N nodes over one Redis and spreads each race's connections over them,
    so that about half of the requests are forwarded between nodes; ``--server`` given once per
    node drives running nodes.
``idle``
    Many clients that say hello and stay silent (some watching a race), from several load
    processes: the server's resident memory per idle connection (`tooling.idle_bench`).
``takeover``
    Two nodes over a private redis-server; a race's owner is killed while a player on the other
    node plays it: the longest gap in that player's acknowledgements over several kills, and the
    moves lost or answered twice (`tooling.takeover_bench`).
``engine``
    The rules engine alone, in this process: moves per second of legal_moves() plus apply() over
    seeded random playouts, and the cost of one audience view, for every game
    (`tooling.engine_bench`).

`run_bench` returns 0, or 1 when a check failed: a race missing from the listing or listed twice,
a server that did not empty itself in time, a server that did not start.

>>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50)
3.0
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from client.arguments import bounded
from client.connection import ArenaClient
from engine.games import GAMES, UnknownGame, find_game
from tooling.engine_bench import bench_engine, engine_table
from tooling.idle_bench import add_idle_arguments
from tooling.loadgen import LoadSettings, bench_load, load_table
from tooling.server_process import ServerProcess, ServerProcessError
from tooling.takeover_bench import add_takeover_arguments

__all__ = [
    "ListingFigures",
    "MemoryFigures",
    "ServerReading",
    "add_bench_arguments",
    "bench_listing",
    "bench_memory",
    "percentile",
    "run_bench",
]

#: A creation limit high enough that a benchmark never meets it.
_UNLIMITED = 1_000_000_000
#: The server limits every benchmark raises: creating many races and connections quickly from one address.
_RAISED_LIMITS: dict[str, object] = {
    "max_open_races_per_player": _UNLIMITED,
    "max_open_races_per_ip": _UNLIMITED,
    "races_per_hour_per_player": _UNLIMITED,
    "races_per_hour_per_ip": _UNLIMITED,
    "rate_per_s": _UNLIMITED,
    "costly_per_address": _UNLIMITED,
    "burst": _UNLIMITED,
    "connections_per_s_per_ip": _UNLIMITED,
    "connections_burst_per_ip": _UNLIMITED,
}
#: The game of every race a benchmark creates (a small deal: one pack, no options).
_GAME = "golf"
#: Seconds a benchmark client waits for any answer (a server busy creating races answers late).
_CLIENT_TIMEOUT_S = 60.0
#: Seconds the memory benchmark waits, beyond the server's own times, for the server to empty itself.
_EMPTY_SLACK_S = 15.0
#: Seconds between two looks at ``/healthz`` while waiting for the server to empty itself.
_POLL_S = 0.25


# ---------------------------------------------------------------------------- creating races


async def _connect_creators(url: str, count: int) -> list[ArenaClient]:
    """``count`` connections, each a new player (``bench-1``, ``bench-2``...)."""
    return list(
        await asyncio.gather(
            *(
                ArenaClient.connect(url, f"bench-{n}", timeout_s=_CLIENT_TIMEOUT_S, bot=True)
                for n in range(1, count + 1)
            )
        )
    )


async def _close_all(clients: Sequence[ArenaClient]) -> None:
    await asyncio.gather(*(client.close() for client in clients))


async def _create_open_races(
    clients: Sequence[ArenaClient], count: int, *, in_flight: int, advance: Callable[[], None]
) -> list[str]:
    """Create ``count`` open races of golf (each creator joins its own), spread over
    ``clients`` with ``in_flight`` requests waiting on each at a time; ``advance()`` is called
    after each. Returns the race codes, in the order the answers came."""
    codes: list[str] = []
    left = count

    async def creator(client: ArenaClient) -> None:
        nonlocal left
        while left > 0:
            left -= 1  # taken before the await: no other worker can take the same one
            info = await client.create_race(_GAME, join=True)
            codes.append(info.code)
            advance()

    async with asyncio.TaskGroup() as group:
        for client in clients:
            for _ in range(in_flight):
                group.create_task(creator(client))
    return codes


async def _create_with_progress(
    clients: Sequence[ArenaClient], count: int, *, in_flight: int, console: Console
) -> tuple[list[str], float]:
    """`_create_open_races` under a rich progress bar; returns the codes and the seconds it took."""
    columns = (TextColumn("creating races"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("create", total=count)
        started = time.perf_counter()
        codes = await _create_open_races(clients, count, in_flight=in_flight, advance=lambda: progress.advance(task))
        return codes, time.perf_counter() - started


# ----------------------------------------------------------------------------------- listing


def percentile(samples: Sequence[float], share: float) -> float:
    """The nearest-rank ``share``-th percentile (0-100) of ``samples`` (not empty), in their unit."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(share / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class ListingFigures:
    """What `bench_listing` measured at one size.

    ``open_races``: races open on the server; ``create_s``: seconds it took to create them;
    ``requests``: list_races sent in lockstep, each for the first page of ``limit`` races;
    ``cpu_ms_per_request``: the server's CPU time over them divided by their number, ms (it
    includes the fixed cost of a request: decode, encode ``limit`` race descriptions, socket
    write);
    ``latency_p50_ms`` / ``latency_p99_ms``: wall-clock time from request to answer, ms;
    ``pages``: pages walked with the cursor through the whole listing; ``races_listed``: race
    descriptions those pages held; ``every_race_once``: each open race came exactly once.
    """

    open_races: int
    create_s: float
    requests: int
    limit: int
    cpu_ms_per_request: float
    latency_p50_ms: float
    latency_p99_ms: float
    pages: int
    races_listed: int
    every_race_once: bool


async def _time_first_pages(
    lister: ArenaClient, server: ServerProcess, requests: int, limit: int
) -> tuple[float, list[float]]:
    """Send ``requests`` list_races for the first page, one after the other; return the server's
    CPU time per request (ms) and each request's wall-clock latency (ms)."""
    for _ in range(5):  # warm up: the first requests pay for imports and caches
        await lister.list_races("open", limit=limit)
    latencies: list[float] = []
    cpu_before = server.cpu_s()
    for _ in range(requests):
        sent = time.perf_counter()
        await lister.list_races("open", limit=limit)
        latencies.append((time.perf_counter() - sent) * 1000)
    cpu_ms = (server.cpu_s() - cpu_before) * 1000
    return cpu_ms / requests, latencies


async def _walk_listing(lister: ArenaClient, limit: int) -> tuple[int, list[str]]:
    """Every page of the open races, following the cursor; returns the number of pages and every
    race code they held, in order."""
    pages, before = 0, None
    codes: list[str] = []
    while True:
        page = await lister.list_races("open", before=before, limit=limit)
        pages += 1
        codes.extend(info.code for info in page.races)
        if page.cursor is None:
            return pages, codes
        before = page.cursor


async def bench_listing(
    size: int, *, requests: int = 200, limit: int = 50, connections: int = 8, in_flight: int = 8, console: Console
) -> ListingFigures:
    """Start a server, create ``size`` open races from ``connections`` connections (``in_flight``
    requests waiting on each), time ``requests`` list_races of ``limit`` races, walk the whole
    listing, and stop the server. Raises ServerProcessError if the server fails."""
    limits = {**_RAISED_LIMITS, "open_race_ttl_s": 7 * 86_400}  # nothing expires during the run
    async with ServerProcess(limits) as server:
        creators = await _connect_creators(server.url, connections)
        try:
            created, create_s = await _create_with_progress(creators, size, in_flight=in_flight, console=console)
        finally:
            await _close_all(creators)  # the races stay open; only the lister talks to the server now
        async with await ArenaClient.connect(server.url, "bench-lister", timeout_s=_CLIENT_TIMEOUT_S) as lister:
            cpu_ms, latencies = await _time_first_pages(lister, server, requests, limit)
            pages, listed = await _walk_listing(lister, limit)
    return ListingFigures(
        open_races=size,
        create_s=create_s,
        requests=requests,
        limit=limit,
        cpu_ms_per_request=cpu_ms,
        latency_p50_ms=percentile(latencies, 50),
        latency_p99_ms=percentile(latencies, 99),
        pages=pages,
        races_listed=len(listed),
        every_race_once=len(listed) == len(set(listed)) and set(listed) == set(created),
    )


def listing_table(rows: Sequence[ListingFigures]) -> Table:
    """A rich table of `ListingFigures`, one row per size."""
    limit = rows[0].limit if rows else 50
    table = Table(
        title="list_races: cost per request by open races on the server",
        caption=f"CPU: the server's CPU time over the requests / their number; it includes the fixed "
        f"cost of a request (decode, encode {limit} race descriptions, socket write).",
    )
    for header in (
        "open races",
        "created in s",
        "requests",
        "CPU ms / list_races",
        "latency p50 ms",
        "latency p99 ms",
        "pages walked",
        "races listed",
        "each once",
    ):
        table.add_column(header, justify="right")
    for row in rows:
        table.add_row(
            f"{row.open_races:,}",
            f"{row.create_s:.2f}",
            f"{row.requests}",
            f"{row.cpu_ms_per_request:.3f}",
            f"{row.latency_p50_ms:.3f}",
            f"{row.latency_p99_ms:.3f}",
            f"{row.pages:,}",
            f"{row.races_listed:,}",
            "[green]yes[/]" if row.every_race_once else "[red]NO[/]",
        )
    return table


# ------------------------------------------------------------------------------------ memory


@dataclass(frozen=True)
class ServerReading:
    """The server at one moment: ``rss_mib`` (resident memory, MiB), ``races`` (races in memory,
    every status), ``players`` (players in memory), ``sessions`` (open websocket sessions)."""

    rss_mib: float
    races: int
    players: int
    sessions: int


async def _read_server(server: ServerProcess) -> ServerReading:
    health = await server.health()
    return ServerReading(
        rss_mib=server.rss_mib(),
        races=sum(health["races"].values()),
        players=health["players"],
        sessions=health["sessions"],
    )


@dataclass(frozen=True)
class MemoryFigures:
    """What `bench_memory` measured.

    ``races``: open races created; ``create_s``: seconds that took; ``open_race_ttl_s``,
    ``race_retention_s``, ``player_retention_s``: the server's times, seconds; ``baseline``: the
    idle server; ``peak``: right after creation (the creators still connected); ``after``: once
    it emptied itself, or when the wait ran out; ``emptied_after_s``: seconds from the creators'
    disconnection until ``/healthz`` reported no race and no player (None: not within the wait).
    """

    races: int
    create_s: float
    open_race_ttl_s: float
    race_retention_s: float
    player_retention_s: float
    baseline: ServerReading
    peak: ServerReading
    after: ServerReading
    emptied_after_s: float | None

    @property
    def creation_rate_per_s(self) -> float:
        """Races created per second."""
        return self.races / self.create_s if self.create_s > 0 else math.inf

    @property
    def kib_per_race(self) -> float:
        """Resident memory per race at the peak: (peak - baseline) / races, KiB."""
        return (self.peak.rss_mib - self.baseline.rss_mib) * 1024 / self.races if self.races else 0.0


async def _wait_until_empty(server: ServerProcess, timeout_s: float) -> float | None:
    """Seconds until ``/healthz`` reports no race and no player (None: not within ``timeout_s``)."""
    started = time.monotonic()
    while True:
        health = await server.health()
        elapsed = time.monotonic() - started
        if not sum(health["races"].values()) and not health["players"]:
            return elapsed
        if elapsed > timeout_s:
            return None
        await asyncio.sleep(_POLL_S)


async def bench_memory(
    races: int,
    *,
    open_race_ttl_s: float = 30.0,
    race_retention_s: float = 5.0,
    player_retention_s: float = 5.0,
    sweep_interval_s: float = 1.0,
    connections: int = 8,
    in_flight: int = 8,
    console: Console,
) -> MemoryFigures:
    """Start a server with the given times (seconds), read its memory idle, create ``races`` open
    races from ``connections`` connections, read it again, disconnect, wait for the server to
    empty itself (at most the sum of its times plus some slack), read it a last time, and stop it.
    Raises ServerProcessError if the server fails."""
    limits = {
        **_RAISED_LIMITS,
        "open_race_ttl_s": open_race_ttl_s,
        "race_retention_s": race_retention_s,
        "player_retention_s": player_retention_s,
        "sweep_interval_s": sweep_interval_s,
    }
    async with ServerProcess(limits) as server:
        baseline = await _read_server(server)
        creators = await _connect_creators(server.url, connections)
        try:
            _, create_s = await _create_with_progress(creators, races, in_flight=in_flight, console=console)
            peak = await _read_server(server)
        finally:
            await _close_all(creators)
        wait_s = open_race_ttl_s + race_retention_s + player_retention_s + 3 * sweep_interval_s + _EMPTY_SLACK_S
        with console.status(f"waiting for the server to empty itself (at most {wait_s:g} s)"):
            emptied_after_s = await _wait_until_empty(server, wait_s)
        await asyncio.sleep(2 * sweep_interval_s)  # the sweep after the last eviction gives memory back
        after = await _read_server(server)
    return MemoryFigures(
        races=races,
        create_s=create_s,
        open_race_ttl_s=open_race_ttl_s,
        race_retention_s=race_retention_s,
        player_retention_s=player_retention_s,
        baseline=baseline,
        peak=peak,
        after=after,
        emptied_after_s=emptied_after_s,
    )


def memory_table(figures: MemoryFigures) -> Table:
    """A rich table of `MemoryFigures`: memory, races and players at the three moments."""
    table = Table(
        title=f"server memory: {figures.races:,} open races created, then left alone",
        caption="RSS after retention: read two sweeps after the server emptied itself (the sweep "
        "after the last eviction gives freed memory back to the system). It need not fall "
        "back to the baseline: Python keeps part of what it freed in its arenas for reuse.",
    )
    for header in ("moment", "RSS MiB", "races in memory", "players in memory", "sessions"):
        table.add_column(header, justify="left" if header == "moment" else "right")
    after = "after retention" if figures.emptied_after_s is not None else "[red]wait ran out[/]"
    for moment, reading in (
        ("baseline (idle)", figures.baseline),
        ("after creation (peak)", figures.peak),
        (after, figures.after),
    ):
        table.add_row(
            moment, f"{reading.rss_mib:.1f}", f"{reading.races:,}", f"{reading.players:,}", f"{reading.sessions:,}"
        )
    return table


def _memory_summary(figures: MemoryFigures) -> list[str]:
    emptied = (
        f"{figures.emptied_after_s:.1f} s after the creators disconnected"
        if figures.emptied_after_s is not None
        else "[red]not within the wait[/]"
    )
    return [
        f"races created: {figures.races:,} in {figures.create_s:.1f} s ({figures.creation_rate_per_s:,.0f} races/s)",
        f"server times: open races expire after {figures.open_race_ttl_s:g} s, finished races leave memory "
        f"{figures.race_retention_s:g} s later, idle players {figures.player_retention_s:g} s after they leave",
        f"memory per race at the peak: {figures.kib_per_race:.2f} KiB ((peak - baseline) / races)",
        f"memory kept after retention: {figures.after.rss_mib - figures.baseline.rss_mib:.1f} MiB above the baseline",
        f"server emptied itself: {emptied} (expected: about {figures.open_race_ttl_s + figures.race_retention_s:g} s "
        f"after the last race was created, the time to live plus the retention)",
    ]


# ------------------------------------------------------------------------------- the command


_COUNT = bounded(int, low=1)
_PAGE = bounded(int, low=1, high=100)
_SECONDS = bounded(float, above=0)


def _sizes(text: str) -> list[int]:
    """``"100,30000"`` -> ``[100, 30000]``: race counts, each at least 1."""
    try:
        sizes = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected race counts separated by commas, not {text!r}") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"every race count must be at least 1: {text!r}")
    return sizes


def _add_common(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--connections",
        type=_COUNT,
        default=8,
        help="connections creating races at once, each a different player (default 8)",
    )
    sub.add_argument(
        "--in-flight",
        type=_COUNT,
        default=8,
        help="create_race requests waiting on each connection at a time (default 8)",
    )
    sub.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")


def add_bench_arguments(subparsers: argparse._SubParsersAction) -> None:
    """Add the benchmarks ``listing``, ``memory``, ``load``, ``engine`` and ``idle`` (`tooling.idle_bench`)
    to ``subparsers`` (e.g. those of ``arena bench``); `run_bench` runs the one the parsed arguments name."""
    sub = subparsers.add_parser(
        "listing",
        help="server CPU per list_races at several numbers of open races",
        description="Server CPU time and latency of list_races with few and with many open races, each size "
        "on a fresh server in its own process; checks that paging lists every race once.",
    )
    sub.add_argument(
        "--races",
        type=_sizes,
        default=[100, 30_000],
        metavar="N,N",
        help="numbers of open races, separated by commas (default 100,30000)",
    )
    sub.add_argument(
        "--requests", type=_COUNT, default=200, help="list_races requests timed at each size (default 200)"
    )
    sub.add_argument("--limit", type=_PAGE, default=50, metavar="N", help="races per page, 1 to 100 (default 50)")
    _add_common(sub)
    sub.set_defaults(bench_run=_run_listing)

    sub = subparsers.add_parser(
        "memory",
        help="server memory before, during and after many open races",
        description="Resident memory of a server in its own process: idle, after creating many open races, and "
        "after they expired and left memory; checks that the server empties itself.",
    )
    sub.add_argument("--races", type=_COUNT, default=30_000, help="open races to create (default 30000)")
    sub.add_argument(
        "--open-race-ttl-s",
        type=_SECONDS,
        default=30.0,
        help="the server's time to live of an open race, seconds (default 30: longer than it takes "
        "to create 30,000 races, so that every race is in memory at the peak)",
    )
    sub.add_argument(
        "--race-retention-s",
        type=_SECONDS,
        default=5.0,
        help="seconds a finished race stays in the server's memory (default 5)",
    )
    sub.add_argument(
        "--player-retention-s",
        type=_SECONDS,
        default=5.0,
        help="seconds before the server forgets a disconnected player (default 5)",
    )
    sub.add_argument(
        "--sweep-interval-s",
        type=_SECONDS,
        default=1.0,
        help="seconds between the server's housekeeping sweeps (default 1)",
    )
    _add_common(sub)
    sub.set_defaults(bench_run=_run_memory)

    sub = subparsers.add_parser(
        "load",
        help="races played at a steady move rate, with spectators: throughput, latency, server CPU",
        description="Races of entrants playing a known winning line at a steady rate, each watched by "
        "spectators, from separate load processes, against a server in its own process (or "
        "--server URL): moves acknowledged per second, ack and spectator delivery latency, "
        "server CPU per move and memory per connection. Spectator latency compares the "
        "server's clock with the generator's: valid only on the same machine. With --redis and "
        "--nodes, several nodes over one Redis, each race's connections spread over them.",
    )
    sub.add_argument("--races", type=_COUNT, default=10, help="races played at once (default 10)")
    sub.add_argument(
        "--entrants", type=bounded(int, low=1, high=64), default=10, help="entrants per race, 1 to 64 (default 10)"
    )
    sub.add_argument("--spectators", type=bounded(int, low=0), default=10, help="spectators per race (default 10)")
    sub.add_argument("--rate", type=_SECONDS, default=2.0, help="moves per second per entrant (default 2)")
    sub.add_argument(
        "--game", default="klondike", help="a game with a catalog of winnable deals in seeds/ (default klondike)"
    )
    sub.add_argument(
        "--countdown-s", type=bounded(int, low=0, high=60), default=0, help="each race's countdown, seconds (default 0)"
    )
    sub.add_argument(
        "--warmup",
        type=bounded(float, low=0),
        default=5.0,
        help="seconds of play before the measured window, left out of the figures (default 5)",
    )
    sub.add_argument("--duration", type=_SECONDS, default=20.0, help="the measured window, seconds (default 20)")
    sub.add_argument(
        "--load-processes",
        type=_COUNT,
        default=1,
        help="processes generating the load, each one asyncio loop (default 1)",
    )
    sub.add_argument(
        "--load-cpus",
        type=_cpus,
        default=(),
        metavar="N,N",
        help="CPUs the load processes are pinned to, in turn (default: not pinned)",
    )
    sub.add_argument(
        "--server",
        metavar="URL",
        action="append",
        help="drive this running server (ws://host:port) instead of starting one; it needs "
        "raised limits (connections per address, races per hour, message rate). Give it once "
        "per node to drive several nodes over one Redis",
    )
    sub.add_argument(
        "--server-pid",
        type=_COUNT,
        metavar="PID",
        action="append",
        help="with --server on this machine: its process id, to read its CPU time and memory "
        "(once per --server, in the same order)",
    )
    sub.add_argument(
        "--server-cpu",
        type=_cpus,
        metavar="N[,N]",
        help="pin the server this benchmark starts to CPU N; with --nodes, one CPU per node, in "
        "turn (default: not pinned)",
    )
    sub.add_argument(
        "--redis",
        metavar="URL",
        help="start the servers over this Redis (redis://host:port/db; it should be empty) instead "
        "of the memory store; 'local': a private redis-server on a free port (appendonly, "
        "appendfsync always), stopped at the end",
    )
    sub.add_argument(
        "--nodes",
        type=bounded(int, low=1, high=64),
        default=1,
        metavar="N",
        help="with --redis: server nodes to start over it, node1..nodeN, each on a port of its own; "
        "each race's connections are spread over them in turn (default 1)",
    )
    sub.add_argument(
        "--redis-cpu",
        type=_cpu,
        metavar="N",
        help="with --redis local: pin the private redis-server to CPU N (default: not pinned)",
    )
    sub.add_argument(
        "--archive",
        metavar="URL",
        help="the started servers' archive of finished races (arena serve --archive): 'none' for "
        "none (default: each its own SQLite file in a temporary data directory)",
    )
    sub.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    sub.set_defaults(bench_run=_run_load)

    sub = subparsers.add_parser(
        "engine",
        help="the rules engine's moves per second and view cost, game by game",
        description="For every game, seeded random playouts in this process: moves per second of "
        "legal_moves() plus apply(), and the cost of one view per audience.",
    )
    sub.add_argument(
        "--games",
        type=_names,
        metavar="GAME,GAME",
        help="only these games, keys or aliases separated by commas (default: every game)",
    )
    sub.add_argument(
        "--seconds", type=_SECONDS, default=1.0, help="seconds of legal_moves() + apply() per game (default 1)"
    )
    sub.add_argument("--seed", type=bounded(int, low=0), default=0, help="seed of the random move choices (default 0)")
    sub.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    sub.set_defaults(bench_run=_run_engine)

    add_idle_arguments(subparsers)
    add_takeover_arguments(subparsers)


def _cpu(text: str) -> int:
    """A CPU this process may run on (``os.sched_getaffinity``)."""
    try:
        cpu = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a CPU number, not {text!r}") from None
    allowed = sorted(os.sched_getaffinity(0))
    if cpu not in allowed:
        raise argparse.ArgumentTypeError(f"CPU {cpu} is not one of this machine's: {allowed}")
    return cpu


def _cpus(text: str) -> tuple[int, ...]:
    """``"0,1"`` -> ``(0, 1)``: CPUs this process may run on."""
    cpus = tuple(_cpu(part) for part in text.split(",") if part.strip())
    if not cpus:
        raise argparse.ArgumentTypeError(f"expected CPU numbers separated by commas, not {text!r}")
    return cpus


def _names(text: str) -> list[str]:
    """``"klondike,golf"`` -> ``["klondike", "golf"]``: games that exist."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    try:
        for name in names:
            find_game(name)
    except UnknownGame as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if not names:
        raise argparse.ArgumentTypeError(f"expected game names separated by commas, not {text!r}")
    return names


def _write_json(path: str | None, figures: object, console: Console) -> None:
    if path is None:
        return
    Path(path).write_text(json.dumps(figures, indent=2, default=_json_default) + "\n")
    console.print(f"figures written to {path}")


def _json_default(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = dataclasses.asdict(value)
        if isinstance(value, MemoryFigures):
            data.update(creation_rate_per_s=value.creation_rate_per_s, kib_per_race=value.kib_per_race)
        return data
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


async def _run_listing(args: argparse.Namespace, console: Console) -> int:
    rows: list[ListingFigures] = []
    for size in args.races:
        console.print(f"listing: a server with {size:,} open races")
        rows.append(
            await bench_listing(
                size,
                requests=args.requests,
                limit=args.limit,
                connections=args.connections,
                in_flight=args.in_flight,
                console=console,
            )
        )
    console.print(listing_table(rows))
    _write_json(args.json, rows, console)
    failed = [row.open_races for row in rows if not row.every_race_once]
    if failed:
        console.print(
            f"[red]check failed:[/] paging did not list every open race exactly once at "
            f"{', '.join(f'{n:,}' for n in failed)} races"
        )
        return 1
    return 0


async def _run_memory(args: argparse.Namespace, console: Console) -> int:
    figures = await bench_memory(
        args.races,
        open_race_ttl_s=args.open_race_ttl_s,
        race_retention_s=args.race_retention_s,
        player_retention_s=args.player_retention_s,
        sweep_interval_s=args.sweep_interval_s,
        connections=args.connections,
        in_flight=args.in_flight,
        console=console,
    )
    console.print(memory_table(figures))
    for line in _memory_summary(figures):
        console.print(line, highlight=False)
    if figures.peak.races < figures.races:
        console.print(
            f"[yellow]note:[/] only {figures.peak.races:,} of the {figures.races:,} races were in memory at "
            f"the peak: the first ones expired and left while the others were being created. For a true "
            f"peak, give --open-race-ttl-s more than the creation time ({figures.create_s:.0f} s)."
        )
    _write_json(args.json, figures, console)
    if figures.emptied_after_s is None:
        console.print("[red]check failed:[/] the server still held races or players when the wait ran out")
        return 1
    return 0


async def _run_load(args: argparse.Namespace, console: Console) -> int:
    try:
        settings = LoadSettings(
            races=args.races,
            entrants=args.entrants,
            spectators=args.spectators,
            rate=args.rate,
            game=args.game,
            countdown_s=args.countdown_s,
            warmup_s=args.warmup,
            duration_s=args.duration,
            load_processes=args.load_processes,
            load_cpus=args.load_cpus,
            server_urls=tuple(args.server or ()),
            server_pids=tuple(args.server_pid or ()),
            server_cpus=tuple(args.server_cpu or ()),
            redis=args.redis,
            nodes=args.nodes,
            redis_cpu=args.redis_cpu,
            archive=args.archive,
        )
    except ValueError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)
        return 2
    several = ""
    if settings.redis is not None or settings.node_count > 1:
        store = "redis" if settings.redis is not None else "the servers' own store"
        several = f"; {settings.node_count} node{'s' if settings.node_count > 1 else ''}, {store}" + (
            f" ({settings.redis})" if settings.redis is not None else ""
        )
    console.print(
        f"load: {settings.races} races x ({settings.entrants} entrants + {settings.spectators} spectators) "
        f"= {settings.connections:,} clients, {settings.offered_moves_per_s:,.0f} moves/s offered, "
        f"{settings.load_processes} load process(es); {settings.warmup_s:g} s warm-up, "
        f"{settings.duration_s:g} s measured{several}",
        highlight=False,
    )
    figures = await bench_load(settings, console=console)
    console.print(load_table(figures))
    for warning in figures.warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", highlight=False)
    if figures.clock_offset_ms is not None and abs(figures.clock_offset_ms) > 50:
        console.print(
            f"[yellow]warning:[/] the server's clock differs from ours by about "
            f"{figures.clock_offset_ms:,.0f} ms: spectator latencies are not valid",
            highlight=False,
        )
    for example in figures.error_examples:
        console.print(f"[red]error:[/] {escape(example)}", highlight=False)
    _write_json(args.json, {**dataclasses.asdict(figures), "errors": figures.errors}, console)
    if figures.errors or not figures.moves_acked_per_s:
        console.print(
            "[red]check failed:[/] "
            + ("errors during the load" if figures.errors else "no move was acknowledged in the window")
        )
        return 1
    return 0


async def _run_engine(args: argparse.Namespace, console: Console) -> int:
    columns = (TextColumn("engine: {task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    names = args.games or [cls.key for cls in GAMES]
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("", total=len(names))

        def advance(key: str) -> None:
            progress.update(task, description=key, completed=names.index(key) if key in names else None)

        # the playouts run in a worker thread, so that the progress display keeps moving
        rows = await asyncio.to_thread(bench_engine, names, seconds=args.seconds, seed=args.seed, advance=advance)
    console.print(engine_table(rows))
    _write_json(args.json, rows, console)
    return 0


async def run_bench(args: argparse.Namespace, console: Console) -> int:
    """Run the benchmark that ``args`` (parsed with `add_bench_arguments`) names, print its
    figures on ``console``; return 0, 1 when a check failed, or 2 when the server failed."""
    run: Callable[[argparse.Namespace, Console], Awaitable[int]] = args.bench_run
    try:
        return await run(args, console)
    except ServerProcessError as exc:
        console.print(f"[red]error:[/] {escape(exc.reason)}", highlight=False)
        return 2
