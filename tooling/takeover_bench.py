"""``arena bench takeover``: how long a player on the surviving node waits when a race's owner dies.

Two ``arena serve`` nodes (`tooling.server_process.ServerProcess`) share a private
``redis-server`` (`tooling.loadgen`'s, ``appendonly yes``, ``appendfsync always``). In each run
the node that leads creates a race (so that the killed node is both the race's owner and the
leader: the slowest case), a player connected to the other node joins it and plays a public Golf
deal's winning line, one move after the other (``interval_ms`` between an answer and the next
move), sending a move refused with ``unavailable`` or ``moved`` again after ``retry_ms``. After
``kill_after`` acknowledged moves the owner gets ``signal`` (SIGKILL: a crash; SIGTERM: a
graceful stop). The player goes on until the line is played; the race's creator then comes back
through the survivor with its token and resigns, and the record is fetched there. The killed node
is started again before the next run (it then follows: the survivor leads, so the next run kills
the survivor of this one).

Figures per run, and over the runs:

* **gap**: the longest time between two acknowledged moves of the player, seconds: how long the
  fault stranded it (the p50, p99 and max over the runs);
* **took**: seconds from the signal to the first move acknowledged after it;
* **acknowledged**: moves answered ``ok``; **lost**: acknowledged moves missing from the record;
  **doubled**: answers beyond one per move sent (a late second answer), and moves the record holds
  more often than once;
* **retries**: moves sent again after ``unavailable`` or ``moved``.

And once, before the runs: **idle CPU**, each node's CPU time per second while nothing is played
(its heartbeats: four per lease), in ms/s.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import signal
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial

import msgspec
from rich.console import Console
from rich.table import Table
from websockets.asyncio.client import ClientConnection, connect

from client.arguments import bounded
from server import protocol as p
from server.catalog import load_catalog, public_catalogs
from tooling.loadgen import _LocalRedis
from tooling.server_process import ServerProcess, ServerProcessError, cpu_seconds

__all__ = [
    "KillRun",
    "TakeoverFigures",
    "add_takeover_arguments",
    "bench_takeover",
    "play_through_a_kill",
    "run_takeover",
]

#: Seconds any one answer may take before the run is given up as failed.
_ANSWER_S = 30.0
#: Seconds the nodes are watched idle for their CPU cost.
_IDLE_S = 3.0


@dataclass
class KillRun:
    """One run: ``gap_s`` the longest wait between two acknowledged moves, ``took_s`` from the
    signal to the first acknowledgement after it (seconds); ``acked`` moves acknowledged,
    ``lost`` of them missing from the record, ``doubled`` extra answers or moves recorded twice,
    ``retries`` moves sent again."""

    gap_s: float
    took_s: float
    acked: int
    lost: int
    doubled: int
    retries: int


@dataclass
class TakeoverFigures:
    """Every run of `bench_takeover`, the settings they ran with, and each node's idle CPU
    (ms per second) at those settings."""

    signal: str
    lease_s: float | None
    forward_timeout_s: float | None
    idle_cpu_ms_per_s: list[float]
    runs: list[KillRun] = field(default_factory=list)

    def gaps(self) -> list[float]:
        """The runs' longest gaps, seconds."""
        return [run.gap_s for run in self.runs]


def percentile(samples: Sequence[float], share: float) -> float:
    """The nearest-rank ``share``-th percentile (0-100) of ``samples`` (not empty)."""
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(share / 100 * len(ordered))) - 1]


class _Peer:
    """A raw websocket client that keeps every frame it receives, by kind."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[msgspec.Struct] = []
        self.arrived = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())
        self.reqs = itertools.count(1)
        self.welcome: p.Welcome | None = None

    @classmethod
    async def open(cls, url: str, name: str, token: str | None = None) -> _Peer:
        peer = cls(await connect(url, compression=None, open_timeout=_ANSWER_S, ping_interval=None))
        welcome = await peer.request(p.Hello(name=name, token=token), p.Welcome)
        assert isinstance(welcome, p.Welcome), welcome
        peer.welcome = welcome
        return peer

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                self.frames.append(p.decode_server(data if isinstance(data, bytes) else data.encode()))
                self.arrived.set()
        except Exception:  # (closed: the run sees it as a missing answer)
            self.arrived.set()

    async def wait(self, match: Callable[[msgspec.Struct], bool], start: int = 0) -> msgspec.Struct:
        """The first frame from index ``start`` on that ``match`` accepts (raises TimeoutError)."""
        async with asyncio.timeout(_ANSWER_S):
            while True:
                for frame in self.frames[start:]:
                    if match(frame):
                        return frame
                start = len(self.frames)
                self.arrived.clear()
                if self.reader.done():
                    raise ConnectionError("the server closed the connection")
                await self.arrived.wait()

    async def request(self, message: msgspec.Struct, kind: type) -> msgspec.Struct:
        """Send ``message`` (its ``req`` filled in) and wait for its reply or its Error."""
        if hasattr(message, "req") and not isinstance(message, p.Hello):
            message = msgspec.structs.replace(message, req=next(self.reqs))
        req = getattr(message, "req", None)
        start = len(self.frames)
        await self.ws.send(p.encode(message))
        return await self.wait(
            lambda m: isinstance(m, p.Error) and m.req == req or isinstance(m, kind) and getattr(m, "req", req) == req,
            start,
        )

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()


def _answers(seq: int, frame: msgspec.Struct) -> bool:
    """True if ``frame`` answers move ``seq``."""
    return isinstance(frame, p.MoveResult) and frame.seq == seq


def _node(redis_url: str, name: str, settings: dict[str, object]) -> ServerProcess:
    limits = {"rate_per_s": 10_000, "burst": 10_000, "ping_interval_s": "none", "shutdown_grace_s": 5, **settings}
    return ServerProcess(limits, extra_flags=["--redis", redis_url, "--node-id", name])


async def _leader(nodes: list[ServerProcess], redis_url: str) -> int:
    """The index of the node that holds the leader lock (waits for one, up to ``_ANSWER_S``)."""
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + _ANSWER_S
        while time.monotonic() < deadline:
            holder = await client.get("arena:leader")
            names = [node.extra_flags[-1] for node in nodes]
            if isinstance(holder, bytes) and holder.decode() in names:
                return names.index(holder.decode())
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()
    raise ServerProcessError("no node took the lead")


async def play_through_a_kill(
    owner: ServerProcess,
    survivor: ServerProcess,
    signum: int,
    *,
    kill_after: int = 10,
    interval_ms: float = 20.0,
    retry_ms: float = 20.0,
) -> KillRun:
    """One run: a race created on ``owner``, played by a player on ``survivor``, ``owner`` sent
    ``signum`` after ``kill_after`` acknowledged moves (not waited for); the run's figures.
    Raises ServerProcessError if a move is refused for another reason than the takeover, or
    the record cannot be fetched; TimeoutError if an answer takes over 30 s."""
    winner = load_catalog(public_catalogs(), "golf")[0]
    line = list(winner.moves)
    creator = await _Peer.open(owner.url, "owner-side")
    player = await _Peer.open(survivor.url, "survivor-side")
    reply = await creator.request(p.CreateRace(req=0, game="golf", seed=winner.seed, countdown_s=0), p.RaceReply)
    assert isinstance(reply, p.RaceReply), reply
    code = reply.race.code
    joined = await player.request(p.JoinRace(req=0, race=code), p.RaceReply)
    assert isinstance(joined, p.RaceReply), joined
    await creator.request(p.StartRace(req=0, race=code), p.RaceReply)
    await player.wait(lambda m: isinstance(m, p.RaceStarted) and m.race == code)

    acks: list[float] = []
    sent: Counter[int] = Counter()
    retries = 0
    killed_at = 0.0
    for seq, notation in enumerate(line, 1):
        while True:
            start = len(player.frames)
            sent[seq] += 1
            await player.ws.send(p.encode(p.MoveRequest(race=code, seq=seq, move=notation)))
            result = await player.wait(partial(_answers, seq), start)
            assert isinstance(result, p.MoveResult)
            if result.ok:
                acks.append(time.monotonic())
                break
            if result.code not in ("unavailable", "moved"):
                raise ServerProcessError(f"move {seq} was refused: {result.code}: {result.reason}")
            retries += 1
            await asyncio.sleep(retry_ms / 1000)
        if seq == kill_after:
            assert owner.process is not None
            owner.process.send_signal(signum)
            killed_at = time.monotonic()
        await asyncio.sleep(interval_ms / 1000)

    await asyncio.sleep(0.5)  # time for a late second answer to arrive
    answers = Counter(m.seq for m in player.frames if isinstance(m, p.MoveResult) and m.race == code)
    doubled = sum(max(0, answers[seq] - sent[seq]) for seq in answers)
    assert creator.welcome is not None
    back = await _Peer.open(survivor.url, "owner-side", creator.welcome.token)
    deadline = time.monotonic() + _ANSWER_S
    while not isinstance(await back.request(p.Resign(req=0, race=code), p.RaceReply), p.RaceReply):
        if time.monotonic() > deadline:
            raise ServerProcessError(f"the creator could not resign race {code} on the survivor")
        await asyncio.sleep(0.1)
    record = await player.request(p.GetRecord(req=0, race=code), p.RaceRecord)
    if not isinstance(record, p.RaceRecord):
        raise ServerProcessError(f"no record of race {code}: {record}")
    (entrant,) = [e for e in record.entrants if e.name == "survivor-side"]
    lost = sum(1 for i, move in enumerate(line) if i >= len(entrant.moves) or entrant.moves[i] != move)
    doubled += max(0, len(entrant.moves) - len(line))
    for peer in (creator, player, back):
        await peer.close()
    after = [t for t in acks if t >= killed_at]
    gaps = [b - a for a, b in itertools.pairwise(acks)]
    return KillRun(
        gap_s=max(gaps),
        took_s=(after[0] - killed_at) if after else float("inf"),
        acked=len(acks),
        lost=lost,
        doubled=doubled,
        retries=retries,
    )


async def bench_takeover(
    runs: int = 10,
    *,
    signum: int = signal.SIGKILL,
    lease_s: float | None = None,
    forward_timeout_s: float | None = None,
    kill_after: int = 10,
    interval_ms: float = 20.0,
    retry_ms: float = 20.0,
    console: Console | None = None,
) -> TakeoverFigures:
    """Kill the owner (and leader) of a race ``runs`` times, with ``signum``, while a player on
    the other node plays it (the module's docstring says how); ``lease_s`` and
    ``forward_timeout_s`` (None: the server's defaults) go to both nodes. Raises
    ServerProcessError if a node or Redis fails, or a run cannot finish."""
    settings: dict[str, object] = {}
    if lease_s is not None:
        settings["lease_s"] = lease_s
    if forward_timeout_s is not None:
        settings["forward_timeout_s"] = forward_timeout_s
    async with _LocalRedis(None) as redis:
        nodes = [_node(redis.url, name, settings) for name in ("node-a", "node-b")]
        try:
            for node in nodes:  # one after the other: the first leads
                await node.start()
            before = [cpu_seconds(node.pid) for node in nodes]
            await asyncio.sleep(_IDLE_S)
            idle = [(cpu_seconds(node.pid) - was) * 1000 / _IDLE_S for node, was in zip(nodes, before, strict=True)]
            figures = TakeoverFigures(
                signum.name if isinstance(signum, signal.Signals) else str(signum), lease_s, forward_timeout_s, idle
            )
            for number in range(runs):
                leads = await _leader(nodes, redis.url)
                owner, survivor = nodes[leads], nodes[1 - leads]
                run = await play_through_a_kill(
                    owner, survivor, signum, kill_after=kill_after, interval_ms=interval_ms, retry_ms=retry_ms
                )
                figures.runs.append(run)
                if console is not None:
                    console.print(
                        f"run {number + 1}: gap {run.gap_s:.2f} s, took {run.took_s:.2f} s, "
                        f"{run.acked} acknowledged, {run.lost} lost, {run.doubled} doubled, {run.retries} retries"
                    )
                assert owner.process is not None
                await asyncio.to_thread(owner.process.wait, _ANSWER_S)
                await owner.start()
        finally:
            for node in nodes:
                node.stop()
    return figures


def takeover_table(figures: TakeoverFigures) -> Table:
    """The figures as a table: p50, p99 and max of the gaps and takeover times, and the totals."""
    table = Table(title=f"takeover after {figures.signal} of the owner, {len(figures.runs)} runs")
    table.add_column("figure")
    table.add_column("value", justify="right")
    gaps, took = figures.gaps(), [run.took_s for run in figures.runs]
    for name, samples in (("longest gap in acks, s", gaps), ("signal to next ack, s", took)):
        table.add_row(
            name,
            f"p50 {percentile(samples, 50):.2f} / p99 {percentile(samples, 99):.2f} / max {max(samples):.2f}",
        )
    table.add_row("moves acknowledged", str(sum(run.acked for run in figures.runs)))
    table.add_row("lost", str(sum(run.lost for run in figures.runs)))
    table.add_row("doubled", str(sum(run.doubled for run in figures.runs)))
    table.add_row("moves sent again", str(sum(run.retries for run in figures.runs)))
    table.add_row("idle CPU per node, ms/s", " / ".join(f"{cpu:.1f}" for cpu in figures.idle_cpu_ms_per_s))
    table.add_row(
        "lease / forward timeout, s",
        f"{figures.lease_s if figures.lease_s is not None else 'default'} / "
        f"{figures.forward_timeout_s if figures.forward_timeout_s is not None else 'default'}",
    )
    return table


def add_takeover_arguments(subparsers: argparse._SubParsersAction) -> None:
    """Add ``takeover`` to ``subparsers`` (those of ``arena bench``)."""
    sub = subparsers.add_parser(
        "takeover",
        help="how long a player on the surviving node waits when its race's owner dies",
        description="Two nodes over a private redis-server; the owner (and leader) of a race is killed "
        "while a player on the other node plays it: the longest gap in that player's acknowledgements, "
        "over several kills, and the moves lost or answered twice.",
    )
    add_options(sub)
    sub.set_defaults(bench_run=run_takeover)


def add_options(sub: argparse.ArgumentParser) -> None:
    """The takeover benchmark's options, on ``sub``."""
    sub.add_argument("--runs", type=bounded(int, low=1, high=1000), default=10, help="kills (default 10)")
    sub.add_argument(
        "--signal", choices=("SIGKILL", "SIGTERM"), default="SIGKILL", help="what the owner gets (default SIGKILL)"
    )
    sub.add_argument("--lease-s", type=bounded(float, low=0.1), default=None, help="both nodes' lease (default theirs)")
    sub.add_argument(
        "--forward-timeout-s", type=bounded(float, low=0.1), default=None, help="both nodes' forward timeout"
    )
    sub.add_argument(
        "--kill-after", type=bounded(int, low=1, high=40), default=10, help="acknowledged moves before the kill"
    )
    sub.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")


async def run_takeover(args: argparse.Namespace, console: Console) -> int:
    """Run the benchmark as ``args`` say and print its table; 0, or 1 if a move was lost or doubled."""
    figures = await bench_takeover(
        args.runs,
        signum=signal.Signals[args.signal],
        lease_s=args.lease_s,
        forward_timeout_s=args.forward_timeout_s,
        kill_after=args.kill_after,
        console=console,
    )
    console.print(takeover_table(figures))
    if args.json:
        with open(args.json, "w") as out:
            out.write(msgspec.json.encode(asdict(figures)).decode())
    return 1 if any(run.lost or run.doubled for run in figures.runs) else 0


if __name__ == "__main__":  # python -m tooling.takeover_bench (where `arena bench` lacks it)
    parser = argparse.ArgumentParser(prog="python -m tooling.takeover_bench")
    add_options(parser)
    raise SystemExit(asyncio.run(run_takeover(parser.parse_args(), Console())))
