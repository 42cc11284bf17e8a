"""``arena bench idle``: how much server memory one idle connection costs, with many of them held.

Issue 13 asks that one process hold 19,500 idle clients at no more than 16 KiB of server memory
each (a process here may open at most 20,000 files, so 19,500 is about as many as fit). This
benchmark opens ``clients`` connections that each connect, say hello as a player of its own (a
real `server.protocol.Hello`, answered by a `Welcome`) and then stay silent; a share of them
(``watching``) first ``watch`` one of a few races (half of them open, half running, each with one
entrant that never moves), so that spectators waiting for events are in the figure too.

The connections come from ``load_processes`` processes (each one asyncio loop in a
`multiprocessing` spawn process), by default as many as keep each below ``_SOCKETS_PER_PROCESS``
sockets, so that the server is the only process near its open-files limit. Each client is a raw
websocket (`websockets.asyncio.client.connect`, no compression, no keepalive pings of its own:
the server's pings are answered by the websockets protocol) with one small reader task that
notices when the server closes it.

The server is a child process of its own (`tooling.server_process.ServerProcess`) with the limits
idle clients meet raised (printed at the start): ``max_connections`` to the number of clients
plus a margin, ``max_connections_per_ip`` (every client comes from 127.0.0.1), the creation
limits, and no idle timeout for the watched races' entrants. Its keepalive pings and hello timeout
stay as they are: they are part of what an idle connection costs. With ``server_url`` (and
``server_pid``, on this machine) it measures a running server instead; start that one with those
limits raised.

Figures:

* **clients held**: connections that said hello and were still open after the settle time, as
  the load processes count them, and the server's own count (``GET /healthz``: ``connections``,
  sockets accepted, less the health request's own; ``sessions``).
* **connect rate**: clients per second, from the first connection attempt to the last welcome.
* **server memory**: its resident memory (``VmRSS``, and ``Pss``/private from
  ``/proc/PID/smaps_rollup`` where readable) after the watched races were created and before any
  client connected, and again ``settle_s`` seconds after the last client said hello; the
  difference divided by the clients held is the memory per connection, in KiB, against the
  16 KiB target.
* **errors**: connections refused or not answered in time (``refused``), hellos or watches
  refused (``refused``), and connections the server closed while they waited (``closed``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import multiprocessing
import os
import queue
import resource
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from client.arguments import bounded
from client.connection import ArenaClient
from server.protocol import Hello, Watch, encode
from tooling.loadgen import run_load_process
from tooling.server_process import ServerProcess, ServerProcessError, fetch_health, rss_mib

__all__ = [
    "IdleFigures",
    "IdleSettings",
    "MemoryReading",
    "add_idle_arguments",
    "bench_idle",
    "idle_table",
    "read_memory",
]

#: The target of issue 13: server memory per idle connection, KiB.
TARGET_KIB = 16.0
#: Sockets one load process holds at most by default (a process here may open 20,000 files).
_SOCKETS_PER_PROCESS = 9_000
#: Connections a load process has in its handshake at once.
_CONNECTING_AT_ONCE = 64
#: Seconds a client waits for its handshake, its welcome, or a watch's snapshot.
_ANSWER_TIMEOUT_S = 30.0
#: Largest frame a client accepts, bytes (a snapshot of a small race is far smaller).
_MAX_FRAME_BYTES = 1 << 20
#: Seconds between two progress reports of a load process.
_TICK_S = 0.25
#: The game of the watched races (one pack, a small board).
_GAME = "golf"
#: Sockets the server keeps free beyond the clients (the health checks, the race host, a margin).
_SPARE_CONNECTIONS = 64
_UNLIMITED = 1_000_000_000


@dataclass(frozen=True)
class IdleSettings:
    """One idle run: ``clients`` connections that say hello and wait, a ``watching`` share of them
    (0 to 1) watching one of ``races`` races first; ``settle_s`` seconds between the last welcome
    and the memory reading; from ``load_processes`` processes (0: enough that each holds at most
    9,000 sockets). ``server_url``/``server_pid``: a running server to measure instead of one of
    its own."""

    clients: int = 19_500
    watching: float = 0.0
    races: int = 4
    settle_s: float = 5.0
    load_processes: int = 0
    server_url: str | None = None
    server_pid: int | None = None

    def __post_init__(self) -> None:
        if self.clients < 1:
            raise ValueError("--clients must be at least 1")
        if not 0.0 <= self.watching <= 1.0:
            raise ValueError("--watching is a share of the clients, from 0 to 1")
        if self.watching > 0 and self.races < 1:
            raise ValueError("--watching needs at least one race (--races)")
        if self.server_pid is not None and self.server_url is None:
            raise ValueError("--server-pid goes with --server")

    @property
    def processes(self) -> int:
        """The load processes actually used: the setting, or enough for 9,000 sockets each."""
        wanted = self.load_processes or math.ceil(self.clients / _SOCKETS_PER_PROCESS)
        return max(1, min(wanted, self.clients))

    @property
    def watchers(self) -> int:
        """How many of the clients watch a race before they fall silent."""
        return round(self.clients * self.watching)

    def server_limits(self) -> dict[str, object]:
        """The limits raised on a server this benchmark starts (`ServerProcess` flags)."""
        return {
            "max_connections": self.clients + _SPARE_CONNECTIONS,
            "max_connections_per_ip": _UNLIMITED,
            "connections_per_s_per_ip": _UNLIMITED,
            "connections_burst_per_ip": _UNLIMITED,
            "max_open_races_per_player": _UNLIMITED,
            "max_open_races_per_ip": _UNLIMITED,
            "races_per_hour_per_player": _UNLIMITED,
            "races_per_hour_per_ip": _UNLIMITED,
            "idle_timeout_s": "none",
            "par_workers": 0,
        }


@dataclass
class MemoryReading:
    """The server's memory at one instant, MiB: ``rss`` (VmRSS), ``pss`` and ``private``
    (Private_Clean + Private_Dirty) from ``/proc/PID/smaps_rollup`` (None where unreadable)."""

    rss: float
    pss: float | None = None
    private: float | None = None


def read_memory(pid: int) -> MemoryReading:
    """The resident memory of process ``pid`` now (`MemoryReading`, MiB)."""
    reading = MemoryReading(rss=rss_mib(pid))
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return reading
    kib: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
            kib[parts[0][:-1]] = int(parts[1])
    if "Pss" in kib:
        reading.pss = kib["Pss"] / 1024
    if "Private_Clean" in kib and "Private_Dirty" in kib:
        reading.private = (kib["Private_Clean"] + kib["Private_Dirty"]) / 1024
    return reading


@dataclass
class IdleFigures:
    """What one idle run measured. Memory in MiB, per connection in KiB, rates per second."""

    clients: int
    watching: int
    races: int
    load_processes: int
    server: str
    raised_limits: dict[str, object]
    clients_held: int
    server_connections: int | None
    server_sessions: int | None
    connect_s: float
    connect_rate_per_s: float
    settle_s: float
    before: MemoryReading | None
    after: MemoryReading | None
    refused: int
    closed: int
    error_examples: list[str] = field(default_factory=list)

    @property
    def errors(self) -> int:
        """Connections refused, unanswered or closed by the server, all together."""
        return self.refused + self.closed

    def _per_connection(self, before: float | None, after: float | None) -> float | None:
        if before is None or after is None or not self.clients_held:
            return None
        return (after - before) * 1024 / self.clients_held

    @property
    def rss_kib_per_connection(self) -> float | None:
        """(RSS after - RSS before) / clients held, KiB."""
        return self._per_connection(
            None if self.before is None else self.before.rss, None if self.after is None else self.after.rss
        )

    @property
    def pss_kib_per_connection(self) -> float | None:
        """The same over Pss, KiB."""
        return self._per_connection(
            None if self.before is None else self.before.pss, None if self.after is None else self.after.pss
        )

    @property
    def private_kib_per_connection(self) -> float | None:
        """The same over private memory (USS), KiB."""
        return self._per_connection(
            None if self.before is None else self.before.private, None if self.after is None else self.after.private
        )

    @property
    def within_target(self) -> bool | None:
        """RSS per connection at or below `TARGET_KIB` (None: not measured)."""
        per = self.rss_kib_per_connection
        return None if per is None else per <= TARGET_KIB

    def to_json(self) -> dict[str, Any]:
        """Every figure, the derived ones too, for ``--json``."""
        return {
            **asdict(self),
            "errors": self.errors,
            "rss_kib_per_connection": self.rss_kib_per_connection,
            "pss_kib_per_connection": self.pss_kib_per_connection,
            "private_kib_per_connection": self.private_kib_per_connection,
            "target_kib": TARGET_KIB,
            "within_target": self.within_target,
        }


# ------------------------------------------------------------------------- one load process


class _Frame(msgspec.Struct):
    """The fields of a server frame an idle client reads (msgspec skips the rest)."""

    type: str
    req: int | None = None
    code: str = ""
    reason: str = ""


_decoder = msgspec.msgpack.Decoder(_Frame)


@dataclass(frozen=True)
class _WorkerSpec:
    """Clients ``first`` to ``first + count - 1`` of the run; those below ``watchers`` watch
    ``races[n % len(races)]``."""

    worker: int
    url: str
    first: int
    count: int
    watchers: int
    races: tuple[str, ...]


class _Worker:
    """One load process: opens its clients, holds them, counts what went wrong."""

    def __init__(self, spec: _WorkerSpec) -> None:
        self.spec = spec
        self.connected = 0
        self.refused = 0
        self.closed = 0
        self.examples: list[str] = []
        self.clients: list[ClientConnection] = []
        self.readers: list[asyncio.Task[None]] = []
        self.stopping = False

    def _error(self, kind: str, text: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.examples) < 5:
            self.examples.append(text)

    async def _answer(self, ws: ClientConnection) -> _Frame:
        async with asyncio.timeout(_ANSWER_TIMEOUT_S):
            return _decoder.decode(await ws.recv(decode=False))

    async def _open(self, n: int) -> None:
        spec = self.spec
        try:
            ws = await connect(
                spec.url,
                compression=None,
                max_size=_MAX_FRAME_BYTES,
                ping_interval=None,
                open_timeout=_ANSWER_TIMEOUT_S,
                close_timeout=1,
            )
        except (OSError, TimeoutError, ConnectionClosed, Exception) as exc:  # noqa: BLE001 (counted)
            self._error("refused", f"client {n}: no connection: {type(exc).__name__}: {exc}")
            return
        try:
            await ws.send(encode(Hello(name=f"idle-{n}")))
            welcome = await self._answer(ws)
            if welcome.type != "welcome":
                raise RuntimeError(f"hello refused: {welcome.code}: {welcome.reason}")
            if n < spec.watchers:
                await ws.send(encode(Watch(req=1, race=spec.races[n % len(spec.races)])))
                answer = await self._answer(ws)
                while answer.req != 1:  # an event of the race may come first
                    answer = await self._answer(ws)
                if answer.type != "snapshot":
                    raise RuntimeError(f"watch refused: {answer.code}: {answer.reason}")
        except (TimeoutError, ConnectionClosed, RuntimeError, msgspec.DecodeError) as exc:
            self._error("refused", f"client {n}: {type(exc).__name__}: {exc}")
            with contextlib.suppress(Exception):
                await ws.close()
            return
        self.clients.append(ws)
        self.readers.append(asyncio.create_task(self._hold(ws)))
        self.connected += 1

    async def _hold(self, ws: ClientConnection) -> None:
        """Read (and drop) whatever the server sends; count the connection if the server closes it."""
        try:
            async for _ in ws:
                pass
        except ConnectionClosed:
            pass
        if not self.stopping:
            self._error("closed", f"the server closed a connection: {ws.close_code} {ws.close_reason}")

    async def connect_all(self) -> None:
        slots = asyncio.Semaphore(_CONNECTING_AT_ONCE)

        async def one(n: int) -> None:
            async with slots:
                await self._open(n)

        await asyncio.gather(*(one(n) for n in range(self.spec.first, self.spec.first + self.spec.count)))

    def held(self) -> int:
        return sum(1 for reader in self.readers if not reader.done())


async def _worker_async(spec: _WorkerSpec, control: Any, report: Any) -> None:
    worker = _Worker(spec)
    loop = asyncio.get_running_loop()
    ticking = True

    async def tick() -> None:
        while ticking:
            report.put(("tick", spec.worker, worker.connected, worker.refused + worker.closed))
            await asyncio.sleep(_TICK_S)

    ticker = asyncio.create_task(tick())
    try:
        began = time.time()
        await worker.connect_all()
        report.put(("ready", spec.worker, began, time.time()))
        while (await loop.run_in_executor(None, control.get)) == "count":
            report.put(
                (
                    "count",
                    spec.worker,
                    {
                        "held": worker.held(),
                        "refused": worker.refused,
                        "closed": worker.closed,
                        "examples": worker.examples,
                    },
                )
            )
        worker.stopping = True  # "stop": the process ends; its sockets close with it
    finally:
        ticking = False
        ticker.cancel()


def _worker_main(spec: _WorkerSpec, control: Any, report: Any) -> None:
    """A load process (spawned): run it (`tooling.loadgen.run_load_process`), then make sure what
    it reported reaches the parent."""
    try:
        run_load_process(_worker_async(spec, control, report), spec.worker, report)
    finally:
        report.close()
        report.join_thread()  # what was reported reaches the parent before the process ends
        # the sockets go with the process: no closing handshake for thousands of them
        os._exit(0)


# --------------------------------------------------------------------------------- the run


def _drain(report: Any) -> list[tuple[Any, ...]]:
    messages = []
    while True:
        try:
            messages.append(report.get_nowait())
        except queue.Empty:
            return messages


async def _create_races(url: str, count: int) -> tuple[ArenaClient, list[str]]:
    """``count`` golf races, each with its creator (one host player) as its only entrant; every
    second one started, so that watchers wait on open and on running races."""
    host = await ArenaClient.connect(url, "idle-host", timeout_s=_ANSWER_TIMEOUT_S)
    codes = []
    for n in range(count):
        info = await host.create_race(_GAME, join=True, countdown_s=0)
        if n % 2:
            await host.start_race(info.code)
        codes.append(info.code)
    return host, codes


async def bench_idle(settings: IdleSettings, *, console: Console) -> IdleFigures:
    """Run one idle benchmark (see the module's docstring) and return its figures. Raises
    ServerProcessError if the server or a load process fails."""
    if settings.server_url is not None:
        where = settings.server_url + (f" (pid {settings.server_pid})" if settings.server_pid else "")
        return await _drive(
            settings, settings.server_url, settings.server_pid, console=console, server=where, raised={}
        )
    limits = settings.server_limits()
    console.print(
        "raised on the server: "
        + ", ".join(
            f"{name}={value:,}" if isinstance(value, int) else f"{name}={value}" for name, value in limits.items()
        ),
        highlight=False,
    )
    async with ServerProcess(limits) as server:
        return await _drive(
            settings, server.url, server.pid, console=console, server="a child process", raised=limits, child=server
        )


async def _drive(
    settings: IdleSettings,
    url: str,
    pid: int | None,
    *,
    console: Console,
    server: str,
    raised: dict[str, object],
    child: ServerProcess | None = None,
) -> IdleFigures:
    host: ArenaClient | None = None
    races: list[str] = []
    if settings.watchers:
        host, races = await _create_races(url, settings.races)
    try:
        await asyncio.sleep(1.0)  # let the server finish what creating the races started
        before = read_memory(pid) if pid is not None else None
        return await _run_load(
            settings, url, pid, races, before, console=console, server=server, raised=raised, child=child
        )
    finally:
        if host is not None:
            with contextlib.suppress(Exception):
                await host.close()


async def _run_load(
    settings: IdleSettings,
    url: str,
    pid: int | None,
    races: Sequence[str],
    before: MemoryReading | None,
    *,
    console: Console,
    server: str,
    raised: dict[str, object],
    child: ServerProcess | None,
) -> IdleFigures:
    context = multiprocessing.get_context("spawn")
    report = context.Queue()
    count = settings.processes
    share, extra = divmod(settings.clients, count)
    specs, first = [], 0
    for n in range(count):
        size = share + (1 if n < extra else 0)
        specs.append(
            _WorkerSpec(worker=n, url=url, first=first, count=size, watchers=settings.watchers, races=tuple(races))
        )
        first += size
    controls = [context.Queue() for _ in specs]
    processes = [
        context.Process(
            target=_worker_main,
            args=(spec, controls[spec.worker], report),
            daemon=True,
            name=f"arena-idle-{spec.worker}",
        )
        for spec in specs
    ]
    ticks: dict[int, tuple[int, int]] = {}
    ready: dict[int, tuple[float, float]] = {}  # load process -> wall clock of its first attempt, last welcome
    counts: dict[int, dict[str, Any]] = {}
    expected = {spec.worker for spec in specs}

    def pump() -> None:
        for message in _drain(report):
            kind, worker = message[0], message[1]
            if kind == "tick":
                ticks[worker] = message[2:]
            elif kind == "ready":
                ready[worker] = message[2:]
            elif kind == "count":
                counts[worker] = message[2]
            elif kind == "failed":
                raise ServerProcessError(f"load process {worker} failed:\n{message[2]}")
        if child is not None:
            child.cpu_s()  # raises ServerProcessError if the server died
        for process in processes:
            if process.exitcode not in (0, None):
                raise ServerProcessError(f"{process.name} exited with code {process.exitcode}")

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeElapsedColumn(),
    )
    for process in processes:
        process.start()
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("connecting", total=settings.clients, status="")
            while set(ready) != expected:
                pump()
                progress.update(
                    task,
                    completed=sum(t[0] for t in ticks.values()),
                    status=f"{sum(t[1] for t in ticks.values())} errors",
                )
                await asyncio.sleep(0.05)
            connect_s = max(end for _, end in ready.values()) - min(start for start, _ in ready.values())
            progress.update(task, description="settling", completed=sum(t[0] for t in ticks.values()))
            await asyncio.sleep(settings.settle_s)
            after = read_memory(pid) if pid is not None else None
            health = await fetch_health(url)
            for control in controls:
                control.put("count")
            deadline = time.monotonic() + 30
            while set(counts) != expected:
                pump()
                if time.monotonic() > deadline:
                    raise ServerProcessError("the load processes did not report their counts in time")
                await asyncio.sleep(0.05)
    finally:
        for control in controls:
            control.put("stop")
        for process in processes:
            await asyncio.get_running_loop().run_in_executor(None, process.join, 10)
            if process.is_alive():
                process.kill()
                process.join()
    held = sum(c["held"] for c in counts.values())
    examples = [text for c in counts.values() for text in c["examples"]][:5]
    return IdleFigures(
        clients=settings.clients,
        watching=settings.watchers,
        races=len(races),
        load_processes=count,
        server=server,
        raised_limits=raised,
        clients_held=held,
        server_connections=health["connections"] - 1 - (1 if races else 0) if health else None,
        server_sessions=health["sessions"] - (1 if races else 0) if health else None,
        connect_s=connect_s,
        connect_rate_per_s=settings.clients / connect_s if connect_s > 0 else 0.0,
        settle_s=settings.settle_s,
        before=before,
        after=after,
        refused=sum(c["refused"] for c in counts.values()),
        closed=sum(c["closed"] for c in counts.values()),
        error_examples=examples,
    )


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def _kib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def idle_table(figures: IdleFigures) -> Table:
    """The figures of one idle run as a rich table."""
    table = Table(
        title=f"idle clients: {figures.clients:,} ({figures.watching:,} watching one of "
        f"{figures.races} races), {figures.load_processes} load process(es); server: "
        f"{escape(figures.server)}"
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    server_count = "-" if figures.server_connections is None else f"{figures.server_connections:,}"
    sessions = "-" if figures.server_sessions is None else f"{figures.server_sessions:,}"
    table.add_row("clients held (load processes)", f"{figures.clients_held:,}")
    table.add_row("clients held (server: connections / sessions)", f"{server_count} / {sessions}")
    table.add_row("connect time, s", f"{figures.connect_s:,.1f}")
    table.add_row("connect rate, clients/s", f"{figures.connect_rate_per_s:,.0f}")
    b, a = figures.before, figures.after
    b_rss, a_rss = (None if b is None else b.rss), (None if a is None else a.rss)
    b_private, a_private = (None if b is None else b.private), (None if a is None else a.private)
    table.add_row("server RSS before / after, MiB", f"{_mib(b_rss)} / {_mib(a_rss)}")
    table.add_row("server private (USS) before / after, MiB", f"{_mib(b_private)} / {_mib(a_private)}")
    per = figures.rss_kib_per_connection
    verdict = "" if per is None else (" [green](within)[/]" if per <= TARGET_KIB else " [red](above)[/]")
    table.add_row(f"RSS per connection, KiB (target {TARGET_KIB:g})", _kib(per) + verdict)
    table.add_row("private (USS) per connection, KiB", _kib(figures.private_kib_per_connection))
    table.add_row("errors: refused / closed by the server", f"{figures.refused:,} / {figures.closed:,}")
    return table


# ------------------------------------------------------------------------------ the command


def add_idle_arguments(subparsers: argparse._SubParsersAction) -> None:
    """Add ``idle`` to ``subparsers`` (those of ``arena bench``)."""
    sub = subparsers.add_parser(
        "idle",
        help="server memory per idle connection, with thousands of clients held",
        description="Many clients that connect, say hello (some watch a race first) and stay silent, from "
        "several load processes, against a server in its own process (or --server URL): clients "
        "held, connect rate, and the server's resident memory per connection against the 16 KiB "
        "target of issue 13.",
    )
    sub.add_argument(
        "--clients",
        type=bounded(int, low=1),
        default=19_500,
        help="idle clients to open (default 19500; the server needs one file per client)",
    )
    sub.add_argument(
        "--watching",
        type=bounded(float, low=0, high=1),
        default=0.0,
        metavar="SHARE",
        help="share of the clients that watch a race before falling silent, 0 to 1 (default 0)",
    )
    sub.add_argument(
        "--races",
        type=bounded(int, low=1, high=100),
        default=4,
        help="races the watchers watch, half open and half running (default 4)",
    )
    sub.add_argument(
        "--settle-s",
        type=bounded(float, low=0),
        default=5.0,
        help="seconds between the last welcome and the memory reading (default 5)",
    )
    sub.add_argument(
        "--load-processes",
        type=bounded(int, low=0),
        default=0,
        help=f"processes holding the clients (default 0: enough for at most {_SOCKETS_PER_PROCESS:,} sockets each)",
    )
    sub.add_argument(
        "--server",
        metavar="URL",
        help="measure this running server (ws://host:port) instead of starting one; start it with "
        "--max-connections and --max-connections-per-ip above --clients",
    )
    sub.add_argument(
        "--server-pid",
        type=bounded(int, low=1),
        metavar="PID",
        help="with --server on this machine: its process id, to read its memory",
    )
    sub.add_argument("--json", metavar="FILE", help="also write the figures to FILE as JSON")
    sub.set_defaults(bench_run=run_idle)


async def run_idle(args: argparse.Namespace, console: Console) -> int:
    """``arena bench idle``: run it, print the figures; 1 when a client was refused or closed, or
    fewer clients were held than asked for."""
    try:
        settings = IdleSettings(
            clients=args.clients,
            watching=args.watching,
            races=args.races,
            settle_s=args.settle_s,
            load_processes=args.load_processes,
            server_url=args.server,
            server_pid=args.server_pid,
        )
    except ValueError as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}", highlight=False)
        return 2
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    console.print(
        f"idle: {settings.clients:,} clients ({settings.watchers:,} watching), {settings.processes} load "
        f"process(es), open-files limit {soft:,} per process",
        highlight=False,
    )
    figures = await bench_idle(settings, console=console)
    console.print(idle_table(figures))
    for example in figures.error_examples:
        console.print(f"[red]error:[/] {escape(example)}", highlight=False)
    if args.json:
        Path(args.json).write_text(json.dumps(figures.to_json(), indent=2) + "\n")
        console.print(f"figures written to {args.json}")
    if figures.errors or figures.clients_held != figures.clients:
        console.print(
            f"[red]check failed:[/] {figures.clients_held:,} of {figures.clients:,} clients held, "
            f"{figures.errors:,} errors"
        )
        return 1
    return 0
