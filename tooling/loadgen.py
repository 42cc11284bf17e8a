"""``arena bench load``: races played at a steady rate against one server (or several nodes), and what it costs.

The generator plays ``races`` races at once, each of ``entrants`` entrants and ``spectators``
spectators, every connection a player of its own, from ``load_processes`` processes (each one
asyncio loop in a `multiprocessing` spawn process, so that the generator can use more than one
core). Races are created with a public seed from the game's catalog of winnable deals (seeds/,
`server.catalog.load_catalog`), every entrant joins, the creator starts the race (countdown 0 s by
default), and every entrant plays the catalog's winning line at ``rate`` moves per second, from a
random phase within the first interval. When the line is played out (the race is won by everyone
and finishes), the same connections open a fresh race on the next catalog seed at once, so the
move rate stays steady over the whole run; a race's setup costs about one interval of silence for
its group.

To keep the generator cheap, its connections are raw websockets (no `client.connection.ArenaClient`,
and not websockets' asyncio connection either, whose queue, tasks and futures cost about as much per
frame as the server spends sending it): websockets' Sans-I/O `ClientProtocol` under a plain asyncio
`Protocol` (`_Wire`), so that each incoming frame is handled in the callback that received it. Once
a connection is open, its data frames are read by `_Wire` itself, and only a close, a fragment or
anything unexpected goes to websockets' parser (which cost a third of the generator's time).
Requests are encoded with `server.protocol.encode`, and each incoming frame is decoded into one
small struct holding the few fields the generator reads (msgspec skips the rest, boards included).

An entrant waits for a move's answer before it sends the next one, as a real client does (it needs
the board): move k is due at ``start + phase + k / rate``, or when the answer to move k-1 comes if
that is later. Figures, all over the measured window only (``warmup_s`` seconds after the races
started, for ``duration_s`` seconds):

* **ack latency**: from sending a ``move`` frame to receiving its ``move_result`` (ms). It
  includes the generator's own event-loop delays.
* **spectator delivery latency**: from the server's ``server_ms`` in a ``progress`` event (its
  wall clock when it built the event) to the spectator's wall clock at receipt (ms). Valid only
  when the generator and the server read the same clock (the same machine); ``server_ms`` is
  truncated to the millisecond, so the figures read up to 1 ms high.
* **spectator staleness**: how old the newest board a spectator holds is, sampled every
  `_STALENESS_EVERY_S` seconds for up to `_STALENESS_SAMPLES` spectators picked at random: 0
  when every move of its race acknowledged by then was sent before the ``server_ms`` of the
  newest ``progress`` the spectator received, else the time since the first acknowledged move
  sent after it was sent (ms: since then, at the latest, the spectator's board is not the newest).
  Delivery latency counts each frame that arrives; staleness also counts the frames that never
  do, where a newer state took their place.
* **server CPU** (when the server is a child process, or ``--server-pid`` names it): its CPU time
  over the window from ``/proc``, per accepted move (µs) and as a share of cores, and the part of
  it spent in the kernel (system time: mostly the socket writes); **resident
  memory per connection**: (RSS at the end of the window - RSS before the generator connected) /
  connections, KiB (races and their events are in it too).
* **frames and bytes received per second** by the whole generator: a proxy for the frames the
  server sends; and, where the server's ``/metrics`` answers this machine, the **frames and socket
  writes per accepted move** the server counted over the window (several frames for one
  connection share a write when the fan-out tick holds them: `server.transport.fanout.Fanout`), and how
  late the fan-out tick's batches were written (p50, p99: from its
  ``arena_fanout_delay_seconds`` histogram, estimated within a bucket as Prometheus'
  ``histogram_quantile`` does; none while the tick is off). A spectator's delivery latency is
  the tick plus that delay plus the generator's own: the two together tell the server's share
  of a spectator's tail from the generator's.
* **errors**: moves refused, answers that never came (timeouts), sockets closed by the server,
  refused requests.
* **the generator as the limit**: each load process's CPU over the window (a share of one core),
  and how many moves left more than 10% of an interval after they were due. Above 90% of a core,
  or above 10% of the moves late, the figures measure the generator as much as the server, and
  the output says so.

**Several nodes** (server/nodes.py). With ``redis`` the generator starts ``nodes`` servers over
that Redis (``arena serve --redis URL --node-id nodeK``, each on a port of its own; ``local``: a
private ``redis-server`` on a free port, ``appendonly yes``, ``appendfsync always``, in a temporary
folder, stopped at the end), or it drives the nodes ``server_urls`` names. Each race's connections
are spread over the nodes in turn: connection ``n`` of the entrants of race group ``g`` goes to
node ``(g + n) mod nodes``, and so does spectator ``n``. The creator (entrant 0) creates the race,
so its node owns it, and the owners are spread over the nodes too; every other connection on
another node has its requests forwarded to the owner over Redis, and receives the race's frames
back the same way. With two nodes, half of the entrants and half of the spectators of every race
cross nodes. Each connection learns its node from ``Welcome.node``, so the generator tells which
moves were forwarded (ack latency "same node" and "forwarded") and which spectators receive
events from another node. Server CPU is read per node; the totals (µs per accepted move, cores)
are sums over the nodes, and each node's µs per move divides its own CPU by all the accepted
moves, so that the nodes' figures add up to the total. The private ``redis-server``'s CPU is
reported too (it is part of what a move costs).
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import itertools
import math
import multiprocessing
import os
import queue
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import msgspec
import redis.asyncio as aioredis
from redis.exceptions import RedisError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri

from client.serving import event_loop_factory
from server.catalog import CatalogEntry, load_catalog, public_catalogs
from server.protocol import CreateRace, Hello, JoinRace, MoveRequest, Resign, StartRace, Watch, encode
from tooling.server_process import (
    ServerProcess,
    ServerProcessError,
    cpu_seconds,
    cpu_times,
    fetch_health,
    fetch_metrics,
    rss_mib,
)

__all__ = [
    "LoadFigures",
    "LoadSettings",
    "NodeFigures",
    "bench_load",
    "load_table",
    "load_warnings",
    "run_load_process",
]

#: The public catalogs of winnable deals (the repository's seeds/).
_SEEDS = public_catalogs()
#: Seconds between two samples of the spectators' staleness, and spectators sampled each time.
_STALENESS_EVERY_S = 0.1
_STALENESS_SAMPLES = 200
#: Largest frame the generator accepts, bytes (a spectator's snapshot of a big race is long).
_MAX_FRAME_BYTES = 4 * 1024 * 1024
#: Seconds to wait for a request's answer (setup) or a move's answer before counting a timeout.
_ANSWER_TIMEOUT_S = 10.0
#: Seconds a closing connection waits for the other side before dropping the socket.
_CLOSE_WAIT_S = 2.0
#: Connections a load process opens at once while it sets up.
_CONNECTING_AT_ONCE = 32
#: Seconds between two progress reports of a load process.
_TICK_S = 0.25
#: A load process above this share of one core is the limit of what it measures.
_BUSY_CORE_SHARE = 0.9
#: A move is late when it leaves more than this share of an interval after it was due...
_LATE_SHARE_OF_INTERVAL = 0.1
#: ...and the generator is the limit when more than this share of the moves is late.
_LATE_MOVES_SHARE = 0.1
#: The server limits raised for a server the benchmark starts: a load that creates races fast, from one
#: address, with many connections; no par workers (their CPU would not be the server's).
_UNLIMITED = 1_000_000_000
_SERVER_LIMITS: dict[str, object] = {
    "max_open_races_per_player": _UNLIMITED,
    "max_open_races_per_ip": _UNLIMITED,
    "races_per_hour_per_player": _UNLIMITED,
    "races_per_hour_per_ip": _UNLIMITED,
    "rate_per_s": _UNLIMITED,
    "burst": _UNLIMITED,
    "max_connections_per_ip": _UNLIMITED,
    "connections_per_s_per_ip": _UNLIMITED,
    "connections_burst_per_ip": _UNLIMITED,
    "costly_per_address": _UNLIMITED,
    "par_workers": 0,
}


# ------------------------------------------------------------------------------ what it runs


@dataclass(frozen=True)
class LoadSettings:
    """One load run: ``races`` races at once of ``entrants`` entrants (the first creates and starts
    each race) and ``spectators`` spectators; each entrant plays ``rate`` moves per second.
    ``game``: a game with a catalog in seeds/; ``countdown_s``: each race's countdown (0 or more
    seconds); ``warmup_s`` / ``duration_s``: seconds before the measured window and its length;
    ``load_processes``: processes of the generator; ``load_cpus``: CPUs they are pinned to, in
    turn (empty: not pinned); ``server_url``: drive this running server (None: start one in a
    child process, pinned to ``server_cpu`` if not None); ``server_pid``: the running server's
    process id, to read its CPU time and memory from ``/proc`` (same machine only).

    Several nodes (see the module's docstring): ``redis``: start the servers over this Redis
    (``redis://...``, or ``local``: a private ``redis-server``, pinned to ``redis_cpu`` if not
    None) rather than with the memory store; ``nodes``: how many to start (more than 1 needs
    ``redis``); ``server_cpus``: the CPUs they are pinned to, in turn. ``server_urls``: drive
    these running nodes instead, ``server_pids`` their process ids (none, or one each).
    ``server_url``, ``server_pid`` and ``server_cpu`` are the first of ``server_urls``,
    ``server_pids`` and ``server_cpus`` (either may be given). ``archive``: the started servers'
    ``--archive`` (None: each keeps finished races in a SQLite file of its own, in a temporary
    data directory, as ``arena serve`` does in its data directory; ``none``: no archive). Raises
    ValueError for a combination that makes no sense."""

    races: int = 10
    entrants: int = 10
    spectators: int = 10
    rate: float = 2.0
    game: str = "klondike"
    countdown_s: int = 0
    warmup_s: float = 5.0
    duration_s: float = 20.0
    load_processes: int = 1
    load_cpus: tuple[int, ...] = ()
    server_url: str | None = None
    server_pid: int | None = None
    server_cpu: int | None = None
    redis: str | None = None
    nodes: int = 1
    server_urls: tuple[str, ...] = ()
    server_pids: tuple[int, ...] = ()
    server_cpus: tuple[int, ...] = ()
    redis_cpu: int | None = None
    archive: str | None = None

    def __post_init__(self) -> None:
        for one, many in (("server_url", "server_urls"), ("server_pid", "server_pids"), ("server_cpu", "server_cpus")):
            first, every = getattr(self, one), tuple(getattr(self, many))
            if every and first is not None and first != every[0]:
                raise ValueError(f"{one} {first!r} is not the first of {many} {every!r}")
            object.__setattr__(self, many, every or (() if first is None else (first,)))
            object.__setattr__(self, one, every[0] if every else first)
        if self.nodes < 1:
            raise ValueError(f"--nodes must be at least 1, not {self.nodes}")
        if self.server_urls:
            if self.redis is not None:
                raise ValueError("--redis starts servers of its own: it cannot go with --server")
            if self.nodes not in (1, len(self.server_urls)):
                raise ValueError(
                    f"--nodes {self.nodes} starts servers of its own: with --server, give one --server per node"
                )
        elif self.nodes > 1 and self.redis is None:
            raise ValueError(
                "--nodes more than 1 needs --redis (several nodes share one Redis): --redis local "
                "starts a private redis-server"
            )
        if self.server_urls and self.server_pids and len(self.server_pids) != len(self.server_urls):
            raise ValueError(f"give one --server-pid per --server ({len(self.server_urls)}), or none")
        if self.redis not in (None, "local") and self.redis.split("://", 1)[0] not in ("redis", "rediss", "unix"):
            raise ValueError(f"--redis: 'local', or a redis://, rediss:// or unix:// URL, not {self.redis!r}")
        if self.redis_cpu is not None and self.redis != "local":
            raise ValueError("--redis-cpu pins the redis-server that --redis local starts")

    @property
    def node_count(self) -> int:
        """Servers the load is spread over: the ``server_urls`` given, or the ``nodes`` to start."""
        return len(self.server_urls) or self.nodes

    @property
    def connections(self) -> int:
        """Connections the generator holds: every entrant and spectator of every race."""
        return self.races * (self.entrants + self.spectators)

    @property
    def offered_moves_per_s(self) -> float:
        """Moves per second the entrants try to play, all races together."""
        return self.races * self.entrants * self.rate


@dataclass(frozen=True)
class _WorkerSpec:
    """What one load process plays: the race groups ``groups`` (indices from 0) of ``settings``."""

    worker: int
    urls: tuple[str, ...]  # the nodes; a race group's connections are spread over them in turn
    settings: LoadSettings
    groups: tuple[int, ...]
    lines: tuple[tuple[int, tuple[str, ...]], ...]  # (seed, winning moves) of the catalog
    cpu: int | None
    seed: int


# ---------------------------------------------------------------------------- the wire, cheaply


class _Frame(msgspec.Struct):
    """The fields of a server frame the generator reads; msgspec skips every other one."""

    type: str
    req: int | None = None
    race: Any = None  # a code in events and move results; a RaceInfo map in replies
    seq: int = 0
    ok: bool = False
    code: str = ""
    reason: str = ""
    server_ms: int = 0
    server_time_ms: int = 0
    node: str = ""  # in a welcome: the node that holds the connection (empty: a server on its own)


_decoder = msgspec.msgpack.Decoder(_Frame)


class _LoadError(Exception):
    """A request of the generator was refused or never answered."""


@dataclass
class _Stats:
    """What one load process counted. Samples and counters grow only while ``measuring``, except
    the running totals the progress display shows."""

    measuring: bool = False
    acks_ms: list[float] = field(default_factory=list)
    delivery_ms: list[float] = field(default_factory=list)
    staleness_ms: list[float] = field(default_factory=list)
    # the same samples split by where the connection is: on the race's node, or on another one
    acks_local_ms: list[float] = field(default_factory=list)
    acks_forwarded_ms: list[float] = field(default_factory=list)
    delivery_local_ms: list[float] = field(default_factory=list)
    delivery_forwarded_ms: list[float] = field(default_factory=list)
    clients_by_url: Counter[int] = field(default_factory=Counter)  # connections opened, by node (its index)
    clients_by_node: Counter[str] = field(default_factory=Counter)  # the same by the node's name (Welcome.node)
    names_by_url: dict[int, str] = field(default_factory=dict)  # each node's name, as its first welcome said
    lag_ms: list[float] = field(default_factory=list)
    moves_acked: int = 0
    moves_sent: int = 0
    moves_late: int = 0
    frames: int = 0
    bytes: int = 0
    frame_types: Counter[str] = field(default_factory=Counter)
    refused: int = 0
    refused_codes: Counter[str] = field(default_factory=Counter)
    timeouts: int = 0
    closed: int = 0
    request_errors: int = 0
    races_finished: int = 0
    total_acked: int = 0
    total_errors: int = 0
    connected: int = 0
    clock_offsets_ms: list[float] = field(default_factory=list)
    error_examples: list[str] = field(default_factory=list)

    def error(self, kind: str, text: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        self.total_errors += 1
        if len(self.error_examples) < 5:
            self.error_examples.append(text)


class _ReceivedFrame(Protocol):
    """A frame as websockets' parser hands it to a client: its payload is always ``bytes``
    (`websockets.frames.Frame` types ``data`` as any bytes-like value, for the frames it sends)."""

    opcode: Opcode
    fin: bool
    data: bytes


class _Wire(asyncio.Protocol):
    """One websocket client connection: websockets' Sans-I/O `ClientProtocol` (handshake, framing,
    masking, pings and the closing handshake) driven by this asyncio `Protocol`. Each message that
    arrives is handed to ``on_message`` (bytes) in the callback that read it; ``on_lost`` is
    called once when the connection is gone. `send` writes at once, without waiting."""

    def __init__(self, url: str) -> None:
        self.protocol = ClientProtocol(parse_uri(url), max_size=_MAX_FRAME_BYTES)
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.lost: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self.on_message: Callable[[bytes], None] = lambda data: None
        self.on_lost: Callable[[], None] = lambda: None
        self._parts: list[bytes] = []  # a fragmented message so far (the server sends none)
        self._raw: bytearray | None = None  # once open: bytes read, not yet a whole frame (`_read_raw`)

    @classmethod
    async def connect(cls, url: str) -> _Wire:
        """Open a connection to ``url`` (``ws://HOST:PORT``) and finish the websocket handshake;
        raises OSError or `_LoadError` if either fails."""
        uri = parse_uri(url)
        _, wire = await asyncio.get_running_loop().create_connection(lambda: cls(url), uri.host, uri.port)
        await wire.opened
        return wire

    @property
    def open(self) -> bool:
        """True while messages can be sent."""
        return self.protocol.state is State.OPEN

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.protocol.send_request(self.protocol.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        raw = self._raw
        if raw is not None:
            raw += data
            self._read_raw()
            return
        protocol = self.protocol
        protocol.receive_data(data)
        self._take_events()
        # Once open with nothing held back, frames are read here (`_read_raw`); websockets'
        # parser costs the generator about a third of its time at tens of thousands of frames/s.
        if protocol.state is State.OPEN and not protocol.reader.buffer and not self._parts:
            self._raw = bytearray()

    def _take_events(self) -> None:
        protocol = self.protocol
        # A client protocol receives a Response and Frames only (events_received is typed for both sides).
        for event in cast("list[Response | _ReceivedFrame]", protocol.events_received()):
            if isinstance(event, Response):
                if protocol.state is State.OPEN:
                    self.opened.set_result(None)
                else:
                    self.opened.set_exception(_LoadError(f"websocket handshake refused: {protocol.handshake_exc}"))
            elif event.opcode is Opcode.BINARY or event.opcode is Opcode.TEXT or event.opcode is Opcode.CONT:
                if event.fin and not self._parts:
                    self.on_message(event.data)
                elif event.fin:
                    self.on_message(b"".join([*self._parts, event.data]))
                    self._parts = []
                else:
                    self._parts.append(event.data)
        self._flush()  # pongs, the answer to a close

    def _read_raw(self) -> None:
        """Hand on every whole frame in ``_raw``: unmasked, unfragmented data frames (all a server
        sends but for control frames) here; a ping is answered here; anything else (a close, a
        fragment, something unexpected) goes, from that frame on, to websockets' parser, which
        then reads the rest of this connection (it always starts there at a frame's start)."""
        raw = self._raw
        assert raw is not None
        start, end = 0, len(raw)
        while end - start >= 2:
            first, second = raw[start], raw[start + 1]
            size, head = second & 0x7F, 2
            if size == 126:
                if end - start < 4:
                    break
                size, head = int.from_bytes(raw[start + 2 : start + 4], "big"), 4
            elif size == 127:
                if end - start < 10:
                    break
                size, head = int.from_bytes(raw[start + 2 : start + 10], "big"), 10
            if end - start < head + size:
                break
            opcode = first & 0x0F
            if first & 0xF0 == 0x80 and not second & 0x80 and opcode in (0x1, 0x2):  # FIN, no RSV, not masked
                self.on_message(bytes(raw[start + head : start + head + size]))
            elif first == 0x89 and not second & 0x80 and size <= 125:  # a ping: pong it
                self.protocol.send_pong(bytes(raw[start + head : start + head + size]))
                self._flush()
            else:
                rest = bytes(raw[start:])
                self._raw = None
                self.protocol.receive_data(rest)
                self._take_events()
                return
            start += head + size
        del raw[:start]

    def send(self, payload: bytes) -> None:
        """Send one binary message now; raises `_LoadError` if the connection is not open."""
        if self.protocol.state is not State.OPEN:
            raise _LoadError("connection closed")
        self.protocol.send_binary(payload)
        self._flush()

    def _flush(self) -> None:
        transport = self.transport
        if transport is None:
            return
        for chunk in self.protocol.data_to_send():
            if chunk:
                transport.write(chunk)
            elif transport.can_write_eof():
                transport.write_eof()
        if self.protocol.close_expected() and not transport.is_closing():
            asyncio.get_running_loop().call_later(_CLOSE_WAIT_S, transport.close)

    def eof_received(self) -> bool | None:
        self._raw = None  # (a part of a frame left there is lost with the connection)
        self.protocol.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(_LoadError(f"connection lost during the handshake: {exc}"))
        if not self.lost.done():
            self.lost.set_result(None)
            self.on_lost()

    async def close(self) -> None:
        """Close (code 1000) and wait, at most `_CLOSE_WAIT_S` seconds, until the socket is gone."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(1000)
            self._flush()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(_CLOSE_WAIT_S):
                await asyncio.shield(self.lost)
        if self.transport is not None:
            self.transport.abort()


class _Conn:
    """One raw websocket of the generator (`_Wire`): a player and what waits on its frames."""

    def __init__(self, wire: _Wire, stats: _Stats, *, spectator: bool, node: str = "") -> None:
        self.wire = wire
        self.stats = stats
        self.spectator = spectator
        self.node = node  # the node that holds this connection (Welcome.node)
        self.forwarded = False  # its race is owned by another node: its requests and frames cross nodes
        self.race = ""  # (a spectator) the race it watches now
        self.newest_ms = 0.0  # (a spectator) the server_ms of the newest progress it received
        self.closing = False
        self._req = 0
        self._replies: dict[int, asyncio.Future[_Frame]] = {}
        self._moves: dict[tuple[str, int], asyncio.Future[tuple[_Frame, float]]] = {}
        self.started: dict[str, asyncio.Future[None]] = {}
        self.finished: dict[str, asyncio.Future[None]] = {}
        wire.on_message = self._received
        wire.on_lost = self._lost
        if wire.lost.done():
            self._lost()

    @classmethod
    async def open(cls, url: str, name: str, stats: _Stats, *, spectator: bool) -> _Conn:
        """Connect, say hello as ``name``, and note the clock offset the welcome shows."""
        async with asyncio.timeout(_ANSWER_TIMEOUT_S):
            wire = await _Wire.connect(url)
            first: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

            def on_first(data: bytes) -> None:
                if not first.done():
                    first.set_result(data)

            def on_lost_first() -> None:
                if not first.done():
                    first.set_exception(_LoadError("closed before the welcome"))

            wire.on_message = on_first
            wire.on_lost = on_lost_first
            sent_ms = time.time() * 1000
            wire.send(encode(Hello(name=name)))
            welcome = _decoder.decode(await first)
            received_ms = time.time() * 1000
        if welcome.type != "welcome":
            await wire.close()
            raise _LoadError(f"hello refused: {welcome.code}: {welcome.reason}")
        stats.clock_offsets_ms.append((sent_ms + received_ms) / 2 - welcome.server_time_ms)
        return cls(wire, stats, spectator=spectator, node=welcome.node)

    def _received(self, data: bytes) -> None:
        stats = self.stats
        received = time.perf_counter()
        frame = _decoder.decode(data)
        kind = frame.type
        if stats.measuring:
            stats.frames += 1
            stats.bytes += len(data)
            stats.frame_types[kind] += 1
        if kind == "move_result":
            waiter = self._moves.pop((frame.race, frame.seq), None)
            if waiter is not None and not waiter.done():
                waiter.set_result((frame, received))
        elif kind == "progress":  # a spectator receives only the spectators' frames, board and all
            if self.spectator and frame.server_ms > self.newest_ms:
                self.newest_ms = frame.server_ms
            if self.spectator and stats.measuring and frame.server_ms:
                delay = time.time() * 1000 - frame.server_ms
                stats.delivery_ms.append(delay)
                (stats.delivery_forwarded_ms if self.forwarded else stats.delivery_local_ms).append(delay)
        elif kind == "race_started":
            self._settle(self.started, frame.race)
        elif kind == "race_finished":
            self._settle(self.finished, frame.race)
        elif frame.req is not None:
            reply = self._replies.pop(frame.req, None)
            if reply is not None and not reply.done():
                reply.set_result(frame)

    def _lost(self) -> None:
        if not self.closing:
            protocol = self.wire.protocol
            self.stats.error("closed", f"the server closed a connection: {protocol.close_code} {protocol.close_reason}")
        waiters: list[asyncio.Future[_Frame] | asyncio.Future[tuple[_Frame, float]]]
        waiters = [*self._replies.values(), *self._moves.values()]
        for waiter in waiters:
            if not waiter.done():
                waiter.set_exception(_LoadError("connection closed"))

    @staticmethod
    def _settle(waiters: dict[str, asyncio.Future[None]], race: object) -> None:
        waiter = waiters.get(race) if isinstance(race, str) else None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def request(self, build: Callable[[int], msgspec.Struct]) -> _Frame:
        """Send ``build(req)`` and return its answer; raises `_LoadError` if it is an error or
        does not come in time."""
        self._req += 1
        req = self._req
        waiter = self._replies[req] = asyncio.get_running_loop().create_future()
        try:
            self.wire.send(encode(build(req)))
            async with asyncio.timeout(_ANSWER_TIMEOUT_S):
                reply = await waiter
        except TimeoutError as exc:
            raise _LoadError(f"no answer to a request: {type(exc).__name__}") from None
        finally:
            self._replies.pop(req, None)
        if reply.type == "error":
            raise _LoadError(f"request refused: {reply.code}: {reply.reason}")
        return reply

    async def move(self, race: str, seq: int, move: str) -> tuple[_Frame, float, float]:
        """Send one move; return its answer and the `time.perf_counter` instants it was sent and
        its answer received. Raises TimeoutError, or `_LoadError` if the connection closed."""
        waiter = self._moves[(race, seq)] = asyncio.get_running_loop().create_future()
        sent = time.perf_counter()
        try:
            self.wire.send(encode(MoveRequest(race=race, seq=seq, move=move)))
            async with asyncio.timeout(_ANSWER_TIMEOUT_S):
                result, received = await waiter
        finally:
            self._moves.pop((race, seq), None)
        return result, sent, received

    def expect(self, race: str) -> None:
        """Get ready for the start and the end of ``race`` (before asking for them)."""
        loop = asyncio.get_running_loop()
        self.started = {race: loop.create_future()}
        self.finished = {race: loop.create_future()}

    async def close(self) -> None:
        self.closing = True
        with contextlib.suppress(Exception):
            await self.wire.close()


# ------------------------------------------------------------------------- one load process


class _Worker:
    """One load process: connects its groups, plays them until told to stop, reports."""

    def __init__(self, spec: _WorkerSpec) -> None:
        self.spec = spec
        self.settings = spec.settings
        self.stats = _Stats()
        self.random = random.Random(spec.seed)
        self.entries = [CatalogEntry(seed, moves) for seed, moves in spec.lines]
        self.interval = 1.0 / self.settings.rate
        self.conns: list[_Conn] = []
        self.groups: dict[int, tuple[list[_Conn], list[_Conn]]] = {}
        #: race code -> wall-clock ms at which each of its acknowledged moves was sent, in order
        self.acked: dict[str, list[float]] = {}

    def sample_staleness(self) -> None:
        """Sample the staleness of up to `_STALENESS_SAMPLES` spectators (the module docstring)."""
        spectators = [conn for _, watching in self.groups.values() for conn in watching if conn.race]
        now = time.time() * 1000
        for conn in self.random.sample(spectators, min(len(spectators), _STALENESS_SAMPLES)):
            acks = self.acked.get(conn.race)
            if acks is None:
                continue
            first = bisect.bisect_right(acks, conn.newest_ms + 1)  # (server_ms is truncated to the ms)
            self.stats.staleness_ms.append(now - acks[first] if first < len(acks) else 0.0)

    async def connect(self) -> None:
        """Open every connection of this process's groups: entrant ``n`` and spectator ``n`` of
        group ``g`` on node ``(g + n) mod nodes`` (one node: all on it)."""
        s, w, urls = self.settings, self.spec.worker, self.spec.urls
        slots = asyncio.Semaphore(_CONNECTING_AT_ONCE)

        async def one(name: str, spectator: bool, at: int) -> _Conn:
            async with slots:
                conn = await _Conn.open(urls[at], name, self.stats, spectator=spectator)
                self.stats.connected += 1
                self.stats.clients_by_url[at] += 1
                self.stats.clients_by_node[conn.node] += 1
                self.stats.names_by_url.setdefault(at, conn.node)
                return conn

        for group in self.spec.groups:
            entrants = await asyncio.gather(
                *(one(f"w{w}g{group}e{n}", False, (group + n) % len(urls)) for n in range(s.entrants))
            )
            spectators = await asyncio.gather(
                *(one(f"w{w}g{group}s{n}", True, (group + n) % len(urls)) for n in range(s.spectators))
            )
            self.groups[group] = (list(entrants), list(spectators))
            self.conns.extend(entrants)
            self.conns.extend(spectators)

    async def run_group(self, group: int, first_started: asyncio.Future[None]) -> None:
        """Play race after race on the group's connections until cancelled."""
        entrants, spectators = self.groups[group]
        cycle = 0
        while True:
            entry = self.entries[(group + cycle * self.settings.races) % len(self.entries)]
            try:
                code = await self._open_race(entrants, spectators, entry)
            except _LoadError as exc:
                if not first_started.done():
                    raise  # the load cannot even start: the whole run fails
                self.stats.error("request_errors", f"group {group} stops: {exc}")
                return
            if not first_started.done():
                first_started.set_result(None)
            results = await asyncio.gather(*(self._play(conn, code, entry.moves) for conn in entrants))
            for conn, ok in zip(entrants, results, strict=True):
                if not ok:  # a refused or unanswered move: this entrant is out, so that the race ends

                    def resign(req: int, code: str = code) -> Resign:
                        return Resign(req=req, race=code)

                    with contextlib.suppress(_LoadError):
                        await conn.request(resign)
            try:
                async with asyncio.timeout(_ANSWER_TIMEOUT_S):
                    await entrants[0].finished[code]
            except TimeoutError:
                self.stats.error("timeouts", f"race {code} did not finish after its last move; group {group} stops")
                return
            if self.stats.measuring:
                self.stats.races_finished += 1
            self.acked.pop(code, None)
            cycle += 1

    async def _open_race(self, entrants: list[_Conn], spectators: list[_Conn], entry: CatalogEntry) -> str:
        """Create a race on ``entry``'s public seed, join it, watch it, start it; return its code."""
        s = self.settings
        limit_s = min(86_400, max(60, math.ceil(3 * len(entry.moves) / s.rate) + 60))
        creator = entrants[0]
        reply = await creator.request(
            lambda req: CreateRace(
                req=req,
                game=s.game,
                seed=entry.seed,
                max_entrants=s.entrants,
                countdown_s=s.countdown_s,
                time_limit_s=limit_s,
                join=True,
            )
        )
        code = reply.race["code"]
        for conn in (*entrants, *spectators):  # the creator's node owns the race
            conn.forwarded = conn.node != creator.node
        self.acked[code] = []
        for conn in spectators:
            conn.race, conn.newest_ms = code, 0.0
        for conn in entrants:
            conn.expect(code)
        await asyncio.gather(*(conn.request(lambda req: JoinRace(req=req, race=code)) for conn in entrants[1:]))
        await asyncio.gather(*(conn.request(lambda req: Watch(req=req, race=code)) for conn in spectators))
        await creator.request(lambda req: StartRace(req=req, race=code))
        return code

    async def _play(self, conn: _Conn, race: str, line: Sequence[str]) -> bool:
        """Play ``line`` in ``race`` at the settings' rate from a random phase; False if a move was
        refused or never answered."""
        stats, interval = self.stats, self.interval
        try:
            async with asyncio.timeout(self.settings.countdown_s + _ANSWER_TIMEOUT_S):
                await conn.started[race]
        except TimeoutError:
            stats.error("timeouts", f"race {race} did not start")
            return False
        slot = time.perf_counter() + self.random.random() * interval
        answered = 0.0
        for seq, move in enumerate(line, 1):
            due = max(slot, answered)
            wait = due - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                result, sent, received = await conn.move(race, seq, move)
            except TimeoutError:
                stats.error("timeouts", f"no answer to move {seq} of race {race} within {_ANSWER_TIMEOUT_S:g} s")
                return False
            except _LoadError as exc:
                stats.error("closed", f"move {seq} of race {race}: {exc}")
                return False
            answered = received
            if stats.measuring:
                lag = sent - due
                stats.moves_sent += 1
                stats.lag_ms.append(lag * 1000)
                if lag > _LATE_SHARE_OF_INTERVAL * interval:
                    stats.moves_late += 1
            if not result.ok:
                stats.refused_codes[result.code] += 1
                stats.error("refused", f"move {seq} {move!r} of race {race} refused: {result.code}: {result.reason}")
                return False
            stats.total_acked += 1
            acked = self.acked.get(race)
            if acked is not None:
                bisect.insort(acked, time.time() * 1000 - (time.perf_counter() - sent) * 1000)
            if stats.measuring:
                stats.moves_acked += 1
                ack_ms = (received - sent) * 1000
                stats.acks_ms.append(ack_ms)
                (stats.acks_forwarded_ms if conn.forwarded else stats.acks_local_ms).append(ack_ms)
            slot += interval
        return True

    async def close(self) -> None:
        await asyncio.gather(*(conn.close() for conn in self.conns))


async def _worker_async(spec: _WorkerSpec, control: Any, report: Any) -> None:
    """Connect, start the groups, tell the parent, wait for the window, measure it, report."""
    worker = _Worker(spec)
    loop = asyncio.get_running_loop()
    ticking = True

    async def tick() -> None:
        while ticking:
            report.put(
                ("tick", spec.worker, worker.stats.connected, worker.stats.total_acked, worker.stats.total_errors)
            )
            await asyncio.sleep(_TICK_S)

    async def sample() -> None:
        while True:
            await asyncio.sleep(_STALENESS_EVERY_S)
            if worker.stats.measuring:
                worker.sample_staleness()

    ticker = asyncio.create_task(tick())
    sampler = asyncio.create_task(sample())
    groups: list[asyncio.Task[None]] = []
    try:
        await worker.connect()
        firsts: list[asyncio.Future[None]] = [loop.create_future() for _ in spec.groups]
        groups = [asyncio.create_task(worker.run_group(g, first)) for g, first in zip(spec.groups, firsts, strict=True)]
        started: list[asyncio.Future[list[None]] | asyncio.Task[None]] = [asyncio.gather(*firsts), *groups]
        done, _ = await asyncio.wait(started, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # a group that failed before its first race started: raise its error
        report.put(("ready", spec.worker))
        start_wall, end_wall = await loop.run_in_executor(None, control.get)
        await asyncio.sleep(max(0.0, start_wall - time.time()))
        worker.stats.measuring = True
        cpu_before = time.process_time()
        await asyncio.sleep(max(0.0, end_wall - time.time()))
        worker.stats.measuring = False
        cpu_s = time.process_time() - cpu_before
        held = sum(1 for conn in worker.conns if not conn.wire.lost.done())
        for task in groups:
            task.cancel()
        await asyncio.gather(*groups, return_exceptions=True)
        await worker.close()
        stats = worker.stats
        report.put(
            (
                "done",
                spec.worker,
                {
                    "cpu_s": cpu_s,
                    "held": held,
                    "acks_ms": stats.acks_ms,
                    "delivery_ms": stats.delivery_ms,
                    "staleness_ms": stats.staleness_ms,
                    "lag_ms": stats.lag_ms,
                    "moves_acked": stats.moves_acked,
                    "moves_sent": stats.moves_sent,
                    "moves_late": stats.moves_late,
                    "frames": stats.frames,
                    "bytes": stats.bytes,
                    "frame_types": dict(stats.frame_types),
                    "refused": stats.refused,
                    "refused_codes": dict(stats.refused_codes),
                    "timeouts": stats.timeouts,
                    "closed": stats.closed,
                    "request_errors": stats.request_errors,
                    "races_finished": stats.races_finished,
                    "clock_offsets_ms": stats.clock_offsets_ms,
                    "error_examples": stats.error_examples,
                    "acks_local_ms": stats.acks_local_ms,
                    "acks_forwarded_ms": stats.acks_forwarded_ms,
                    "delivery_local_ms": stats.delivery_local_ms,
                    "delivery_forwarded_ms": stats.delivery_forwarded_ms,
                    "clients_by_url": dict(stats.clients_by_url),
                    "clients_by_node": dict(stats.clients_by_node),
                    "names_by_url": stats.names_by_url,
                },
            )
        )
    finally:
        ticking = False
        ticker.cancel()
        sampler.cancel()
        for task in groups:
            task.cancel()
        await worker.close()


def run_load_process(work: Coroutine[Any, Any, None], worker: int, report: Any) -> None:
    """Run ``work``, the coroutine of load process ``worker``, with the process's open-files limit
    raised to its hard limit (thousands of sockets); a failure is put on ``report`` (a
    `multiprocessing` queue) as ``("failed", worker, traceback)``, so that a load process never
    dies silently. Used by `arena bench load` and `arena bench idle`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    try:
        _, loop_factory = event_loop_factory(None, os.environ)  # (auto: uvloop where installed, a cheaper generator)
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            runner.run(work)
    except BaseException as exc:  # the parent reports it
        report.put(("failed", worker, "".join(traceback.format_exception(exc)).strip()))


def _worker_main(spec: _WorkerSpec, control: Any, report: Any) -> None:
    """The entry point of a load process (spawned): pin it, then run it (`run_load_process`)."""
    if spec.cpu is not None:
        os.sched_setaffinity(0, {spec.cpu})
    run_load_process(_worker_async(spec, control, report), spec.worker, report)


# --------------------------------------------------------------------------------- the figures


def _percentile(samples: Sequence[float], share: float) -> float | None:
    """The nearest-rank ``share``-th percentile of ``samples``; None when there are none."""
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(share / 100 * len(ordered))) - 1]


@dataclass(frozen=True)
class NodeFigures:
    """One server node of a load run, over the same window as `LoadFigures`. ``node``: its name
    (``Welcome.node``; empty for a server on its own, with the memory store); ``cpu``: the CPU it
    was pinned to (None: not pinned, or not started by the benchmark); ``clients``: the
    generator's connections to it; ``server_connections``: its own count, mid-window (None: it did
    not answer); ``cpu_us_per_move``: its CPU time over the window / every move acknowledged in
    the window, on whichever node (so that the nodes' figures add up to the total); ``cpu_cores``:
    its CPU time / the window; its resident memory before the generator connected and at the end."""

    url: str
    node: str
    pid: int | None
    cpu: int | None
    clients: int
    server_connections: int | None
    cpu_us_per_move: float | None
    cpu_cores: float | None
    rss_idle_mib: float | None
    rss_mib: float | None


@dataclass(frozen=True)
class LoadFigures:
    """What `bench_load` measured over its window of ``duration_s`` seconds (see the module's
    docstring for how). Latencies in ms; None where nothing was measured (no server pid, no
    sample). ``generator_limited``: the figures measure the load generator as much as the server
    (``warnings`` says why).

    The server's figures (connections, CPU, RSS) are sums over ``nodes`` (one for a server on its
    own). ``store``: ``memory`` or ``redis`` (a node names itself in its welcome only over Redis);
    ``redis``: which Redis, when the benchmark started the nodes over one. The ``_local_`` and
    ``_forwarded_`` latencies split the samples by whether the connection was on the race's node
    or on another one; ``moves_forwarded_share``: the share of the acknowledged moves that were
    forwarded. ``redis_cpu_*``: the private ``redis-server``'s CPU (``--redis local`` only).
    ``server_system_share``: the part of the server's CPU spent in the kernel (0 to 1; mostly its
    socket writes). ``server_fanout_delay_*_ms``: how late the server wrote its fan-out ticks'
    batches (all nodes together; None while no tick was written, or without ``/metrics``)."""

    settings: LoadSettings
    server: str
    clients_held: int
    server_connections: int | None
    offered_moves_per_s: float
    moves_acked_per_s: float
    ack_p50_ms: float | None
    ack_p95_ms: float | None
    ack_p99_ms: float | None
    ack_max_ms: float | None
    spectator_p50_ms: float | None
    spectator_p99_ms: float | None
    spectator_samples: int
    staleness_p50_ms: float | None
    staleness_p99_ms: float | None
    staleness_samples: int
    server_cpu_us_per_move: float | None
    server_cpu_cores: float | None
    server_rss_idle_mib: float | None
    server_rss_mib: float | None
    rss_kib_per_connection: float | None
    frames_per_s: float
    bytes_per_s: float
    frame_types_per_s: dict[str, float]
    races_finished: int
    refused: int
    refused_codes: dict[str, int]
    timeouts: int
    closed: int
    request_errors: int
    error_examples: list[str]
    load_cpu_cores: list[float]
    late_moves_share: float
    send_lag_p99_ms: float | None
    clock_offset_ms: float | None
    generator_limited: bool
    warnings: list[str]
    store: str = "memory"
    redis: str | None = None
    nodes: list[NodeFigures] = field(default_factory=list)
    moves_forwarded_share: float = 0.0
    ack_local_p50_ms: float | None = None
    ack_local_p99_ms: float | None = None
    ack_forwarded_p50_ms: float | None = None
    ack_forwarded_p99_ms: float | None = None
    spectator_local_p50_ms: float | None = None
    spectator_local_p99_ms: float | None = None
    spectator_forwarded_p50_ms: float | None = None
    spectator_forwarded_p99_ms: float | None = None
    redis_cpu_us_per_move: float | None = None
    redis_cpu_cores: float | None = None
    server_frames_per_move: float | None = None
    server_writes_per_move: float | None = None
    server_system_share: float | None = None
    server_fanout_delay_p50_ms: float | None = None
    server_fanout_delay_p99_ms: float | None = None
    clock_note: str = (
        "spectator latency compares the server's clock (server_ms) with the generator's: valid "
        "only when both run on the same machine"
    )

    @property
    def errors(self) -> int:
        """Refused moves, timeouts, closed sockets and refused requests, together."""
        return self.refused + self.timeouts + self.closed + self.request_errors

    @property
    def several(self) -> bool:
        """More than one node, or nodes over Redis: the output shows the nodes' own figures."""
        return len(self.nodes) > 1 or self.store == "redis"


def load_warnings(
    load_cpu_cores: Sequence[float], late_moves_share: float, moves_sent: int, offered: float, acked: float
) -> list[str]:
    """Why the generator may be the limit (empty: it is not), from each load process's share of a
    core, the share of moves sent late, and the offered and acknowledged rates."""
    found = []
    for n, cores in enumerate(load_cpu_cores):
        if cores >= _BUSY_CORE_SHARE:
            found.append(
                f"load process {n} used {cores:.0%} of a core: the generator is the limit; "
                f"add --load-processes (on other cores than the server's)"
            )
    if moves_sent and late_moves_share > _LATE_MOVES_SHARE:
        found.append(
            f"{late_moves_share:.0%} of the moves left more than {_LATE_SHARE_OF_INTERVAL:.0%} of an "
            f"interval after they were due: the generator sends behind schedule"
        )
    if offered and acked < 0.9 * offered and not found:
        found.append(
            f"only {acked / offered:.0%} of the offered moves were acknowledged: the server (or the "
            f"machine) is the limit"
        )
    return found


@dataclass
class _NodeReading:
    """What the parent read of one node: its CPU time over the window (seconds), its RSS before
    the load and at the end (MiB), its connection count mid-window (None where unknown)."""

    url: str
    pid: int | None
    cpu: int | None
    cpu_s: float | None = None
    system_s: float | None = None  # the part of cpu_s in the kernel
    rss_idle: float | None = None
    rss_end: float | None = None
    connections: int | None = None
    metrics_before: dict[str, float] | None = None  # its /metrics at the window's start and end
    metrics_after: dict[str, float] | None = None

    def counted(self, name: str) -> float | None:
        """How much the counter ``name`` (``arena_socket_writes_total``...) grew over the window."""
        if self.metrics_before is None or self.metrics_after is None:
            return None
        if name not in self.metrics_before or name not in self.metrics_after:
            return None
        return self.metrics_after[name] - self.metrics_before[name]

    def buckets(self, histogram: str) -> dict[float, float] | None:
        """How much each cumulative bucket of ``histogram`` (``arena_fanout_delay_seconds``...)
        grew over the window: upper bound -> count, ``inf`` included; None if unknown."""
        if self.metrics_before is None or self.metrics_after is None:
            return None
        prefix = f'{histogram}_bucket{{le="'
        grown = {
            float(key[len(prefix) : -2]): value - self.metrics_before.get(key, 0.0)
            for key, value in self.metrics_after.items()
            if key.startswith(prefix)
        }
        return grown or None


def histogram_quantile(buckets: Mapping[float, float], share: float) -> float | None:
    """The ``share`` (0 to 1) quantile of a histogram given as cumulative buckets (upper bound ->
    count, ``inf`` included), found as Prometheus' ``histogram_quantile`` does: linearly within
    the bucket it falls in (from 0 for the first); the highest finite bound when it falls in
    the last. None when the histogram is empty.

    >>> histogram_quantile({0.01: 50, 0.02: 90, 0.05: 100, float("inf"): 100}, 0.5)
    0.01
    >>> round(histogram_quantile({0.01: 50, 0.02: 90, 0.05: 100, float("inf"): 100}, 0.95), 4)
    0.035
    """
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return None
    rank = share * total
    below, lower = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if bound == float("inf"):
                return lower
            return lower + (bound - lower) * ((rank - below) / (count - below) if count > below else 1.0)
        below, lower = count, bound
    return lower


def _sum(values: Sequence[float | None]) -> float | None:
    """The sum of ``values``, or None if any is unknown (a partial sum would mislead)."""
    return None if not values or any(v is None for v in values) else sum(v for v in values if v is not None)


def _figures(
    settings: LoadSettings,
    server: str,
    parts: list[dict[str, Any]],
    *,
    readings: list[_NodeReading],
    redis: str | None = None,
    redis_cpu_s: float | None = None,
    notes: Sequence[str] = (),
) -> LoadFigures:
    window = settings.duration_s

    def joined(key: str) -> list[float]:
        return [x for part in parts for x in part[key]]

    def total(key: str) -> int:
        return sum(part[key] for part in parts)

    acks, delivery, lags = joined("acks_ms"), joined("delivery_ms"), joined("lag_ms")
    staleness = joined("staleness_ms")
    acks_local, acks_forwarded = joined("acks_local_ms"), joined("acks_forwarded_ms")
    delivery_local, delivery_forwarded = joined("delivery_local_ms"), joined("delivery_forwarded_ms")
    acked, sent = total("moves_acked"), total("moves_sent")
    held = total("held")
    load_cores = [part["cpu_s"] / window for part in parts]
    late = total("moves_late") / sent if sent else 0.0
    types: Counter[str] = Counter()
    refused_codes: Counter[str] = Counter()
    clients: Counter[int] = Counter()
    names: dict[int, str] = {}
    for part in parts:
        types.update(part["frame_types"])
        refused_codes.update(part["refused_codes"])
        clients.update(part["clients_by_url"])
        for at, name in part["names_by_url"].items():
            names.setdefault(at, name)
    cpu_s = _sum([r.cpu_s for r in readings])
    system_s = _sum([r.system_s for r in readings])
    rss_idle, rss_end = _sum([r.rss_idle for r in readings]), _sum([r.rss_end for r in readings])
    moves_counted = _sum([r.counted("arena_moves_accepted_total") for r in readings])
    frames_counted = _sum([r.counted("arena_frames_sent_total") for r in readings])
    writes_counted = _sum([r.counted("arena_socket_writes_total") for r in readings])
    grown = [r.buckets("arena_fanout_delay_seconds") for r in readings]
    delay_buckets: Counter[float] = Counter()
    if all(g is not None for g in grown):  # (else unknown: a partial sum would mislead, as in `_sum`)
        for node_buckets in grown:
            delay_buckets.update(node_buckets or {})

    def delay_ms(share: float) -> float | None:
        found = histogram_quantile(delay_buckets, share) if delay_buckets else None
        return found * 1000 if found is not None else None

    store = "redis" if settings.redis is not None or any(names.values()) else "memory"
    nodes = [
        NodeFigures(
            url=r.url,
            node=names.get(n, ""),
            pid=r.pid,
            cpu=r.cpu,
            clients=clients.get(n, 0),
            server_connections=r.connections,
            cpu_us_per_move=r.cpu_s / acked * 1e6 if r.cpu_s is not None and acked else None,
            cpu_cores=r.cpu_s / window if r.cpu_s is not None else None,
            rss_idle_mib=r.rss_idle,
            rss_mib=r.rss_end,
        )
        for n, r in enumerate(readings)
    ]
    warnings = [*notes, *load_warnings(load_cores, late, sent, settings.offered_moves_per_s, acked / window)]
    if len(nodes) == 1:
        if cpu_s is not None and cpu_s / window >= _BUSY_CORE_SHARE:
            warnings.append(
                f"the server used {cpu_s / window:.0%} of a core (one asyncio loop): the server is the limit"
            )
    else:
        for n, node in enumerate(nodes):
            if node.cpu_cores is not None and node.cpu_cores >= _BUSY_CORE_SHARE:
                warnings.append(
                    f"node {node.node or n + 1} used {node.cpu_cores:.0%} of a core (one asyncio loop): "
                    f"that node is the limit"
                )
        seen = [node.node for node in nodes if node.node]
        if len(set(seen)) < len(seen):
            warnings.append(f"several server URLs lead to the same node ({', '.join(seen)}): give each node's own URL")
    limited = any("generator" in text for text in warnings)
    offsets = joined("clock_offsets_ms")
    return LoadFigures(
        settings=settings,
        server=server,
        clients_held=held,
        server_connections=_sum([r.connections for r in readings]),  # type: ignore[arg-type]
        offered_moves_per_s=settings.offered_moves_per_s,
        moves_acked_per_s=acked / window,
        ack_p50_ms=_percentile(acks, 50),
        ack_p95_ms=_percentile(acks, 95),
        ack_p99_ms=_percentile(acks, 99),
        ack_max_ms=max(acks) if acks else None,
        spectator_p50_ms=_percentile(delivery, 50),
        spectator_p99_ms=_percentile(delivery, 99),
        spectator_samples=len(delivery),
        staleness_p50_ms=_percentile(staleness, 50),
        staleness_p99_ms=_percentile(staleness, 99),
        staleness_samples=len(staleness),
        server_cpu_us_per_move=cpu_s / acked * 1e6 if cpu_s is not None and acked else None,
        server_cpu_cores=cpu_s / window if cpu_s is not None else None,
        server_system_share=system_s / cpu_s if system_s is not None and cpu_s else None,
        server_fanout_delay_p50_ms=delay_ms(0.5),
        server_fanout_delay_p99_ms=delay_ms(0.99),
        server_rss_idle_mib=rss_idle,
        server_rss_mib=rss_end,
        server_frames_per_move=frames_counted / moves_counted if frames_counted is not None and moves_counted else None,
        server_writes_per_move=writes_counted / moves_counted if writes_counted is not None and moves_counted else None,
        rss_kib_per_connection=(
            (rss_end - rss_idle) * 1024 / held if rss_end is not None and rss_idle is not None and held else None
        ),
        frames_per_s=total("frames") / window,
        bytes_per_s=total("bytes") / window,
        frame_types_per_s={kind: count / window for kind, count in sorted(types.items())},
        races_finished=total("races_finished"),
        refused=total("refused"),
        refused_codes=dict(refused_codes),
        timeouts=total("timeouts"),
        closed=total("closed"),
        request_errors=total("request_errors"),
        error_examples=[text for part in parts for text in part["error_examples"]][:5],
        load_cpu_cores=load_cores,
        late_moves_share=late,
        send_lag_p99_ms=_percentile(lags, 99),
        clock_offset_ms=_percentile(offsets, 50),
        generator_limited=limited,
        warnings=warnings,
        store=store,
        redis=redis,
        nodes=nodes,
        moves_forwarded_share=len(acks_forwarded) / len(acks) if acks else 0.0,
        ack_local_p50_ms=_percentile(acks_local, 50),
        ack_local_p99_ms=_percentile(acks_local, 99),
        ack_forwarded_p50_ms=_percentile(acks_forwarded, 50),
        ack_forwarded_p99_ms=_percentile(acks_forwarded, 99),
        spectator_local_p50_ms=_percentile(delivery_local, 50),
        spectator_local_p99_ms=_percentile(delivery_local, 99),
        spectator_forwarded_p50_ms=_percentile(delivery_forwarded, 50),
        spectator_forwarded_p99_ms=_percentile(delivery_forwarded, 99),
        redis_cpu_us_per_move=redis_cpu_s / acked * 1e6 if redis_cpu_s is not None and acked else None,
        redis_cpu_cores=redis_cpu_s / window if redis_cpu_s is not None else None,
    )


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.2f}"


def _us(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def _cores(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def load_table(figures: LoadFigures) -> Table:
    """A rich table of `LoadFigures`: one figure a row (with several nodes, or over Redis, the
    nodes' own figures and the latencies split by same node / forwarded too)."""
    s = figures.settings
    several = figures.several
    nodes = (
        f", {len(figures.nodes)} node{'s' if len(figures.nodes) != 1 else ''}, {figures.store} store" if several else ""
    )
    table = Table(
        title=f"load: {s.races} races x ({s.entrants} entrants + {s.spectators} spectators), "
        f"{s.rate:g} moves/s per entrant, {s.game}{nodes}",
        caption=f"Over a {s.duration_s:g} s window after {s.warmup_s:g} s of warm-up; server: "
        f"{figures.server}. {figures.clock_note[0].upper()}{figures.clock_note[1:]}.",
    )
    table.add_column("figure")
    table.add_column("value", justify="right")
    every = " (all nodes)" if several else ""
    rows = [
        ("clients held", f"{figures.clients_held:,}"),
        ("moves/s offered", f"{figures.offered_moves_per_s:,.1f}"),
        ("moves/s acknowledged", f"{figures.moves_acked_per_s:,.1f}"),
        (
            "ack latency p50 / p95 / p99 / max, ms",
            " / ".join(
                _ms(v) for v in (figures.ack_p50_ms, figures.ack_p95_ms, figures.ack_p99_ms, figures.ack_max_ms)
            ),
        ),
        (
            "spectator delivery p50 / p99, ms",
            f"{_ms(figures.spectator_p50_ms)} / {_ms(figures.spectator_p99_ms)} ({figures.spectator_samples:,} frames)",
        ),
        (
            "spectator staleness p50 / p99, ms",
            f"{_ms(figures.staleness_p50_ms)} / {_ms(figures.staleness_p99_ms)}"
            f" ({figures.staleness_samples:,} samples)",
        ),
        (
            f"server CPU per accepted move, µs{every}",
            "-"
            if figures.server_cpu_us_per_move is None
            else f"{figures.server_cpu_us_per_move:,.0f}"
            + ("" if figures.server_system_share is None else f" ({figures.server_system_share:.0%} system)"),
        ),
        (f"server CPU, cores{every}", "-" if figures.server_cpu_cores is None else f"{figures.server_cpu_cores:.2f}"),
        (
            f"server RSS idle -> loaded, MiB{every}",
            "-"
            if figures.server_rss_mib is None
            else f"{figures.server_rss_idle_mib:,.1f} -> {figures.server_rss_mib:,.1f}",
        ),
        (
            "server frames / socket writes per accepted move",
            "-"
            if figures.server_frames_per_move is None or figures.server_writes_per_move is None
            else f"{figures.server_frames_per_move:.1f} / {figures.server_writes_per_move:.1f}",
        ),
        (
            f"fan-out tick's writes late p50 / p99, ms{every}",
            f"{_ms(figures.server_fanout_delay_p50_ms)} / {_ms(figures.server_fanout_delay_p99_ms)}"
            if figures.server_fanout_delay_p99_ms is not None
            else "- (no tick written, or no /metrics)",
        ),
        (
            "RSS per connection, KiB",
            "-" if figures.rss_kib_per_connection is None else f"{figures.rss_kib_per_connection:,.1f}",
        ),
        ("frames/s received by the generator", f"{figures.frames_per_s:,.0f}"),
        ("bytes/s received by the generator", f"{figures.bytes_per_s:,.0f}"),
        ("races finished in the window", f"{figures.races_finished:,}"),
        (
            "errors: refused / timeouts / closed / requests",
            f"{figures.refused} / {figures.timeouts} / {figures.closed} / {figures.request_errors}",
        ),
        ("load CPU per process, cores", ", ".join(f"{c:.2f}" for c in figures.load_cpu_cores)),
        ("moves sent late (>10% of an interval)", f"{figures.late_moves_share:.1%}"),
        ("send lag p99, ms", _ms(figures.send_lag_p99_ms)),
    ]
    if several:
        names = ", ".join(node.node or "-" for node in figures.nodes)
        split = len(figures.nodes) > 1  # one node forwards nothing
        extra = [
            ("nodes, store", f"{len(figures.nodes)} ({names}), {figures.store}"),
            ("moves forwarded to the race's node", f"{figures.moves_forwarded_share:.1%}"),
            (
                "ack p50 / p99, ms: same node | forwarded",
                f"{_ms(figures.ack_local_p50_ms)} / {_ms(figures.ack_local_p99_ms)} | "
                f"{_ms(figures.ack_forwarded_p50_ms)} / {_ms(figures.ack_forwarded_p99_ms)}",
            ),
            (
                "spectator p50 / p99, ms: same node | forwarded",
                f"{_ms(figures.spectator_local_p50_ms)} / {_ms(figures.spectator_local_p99_ms)} | "
                f"{_ms(figures.spectator_forwarded_p50_ms)} / {_ms(figures.spectator_forwarded_p99_ms)}",
            ),
        ]
        for n, node in enumerate(figures.nodes):
            name = node.node or f"node {n + 1}"
            pinned = f", CPU {node.cpu}" if node.cpu is not None else ""
            counted = "-" if node.server_connections is None else f"{node.server_connections:,}"
            extra.append((f"{name}{pinned}: clients (generator / server)", f"{node.clients:,} / {counted}"))
            extra.append(
                (
                    f"{name}{pinned}: CPU µs per accepted move / cores",
                    f"{_us(node.cpu_us_per_move)} / {_cores(node.cpu_cores)}",
                )
            )
        if figures.redis_cpu_cores is not None:
            extra.append(
                (
                    "redis-server CPU µs per accepted move / cores",
                    f"{_us(figures.redis_cpu_us_per_move)} / {_cores(figures.redis_cpu_cores)}",
                )
            )
        rows = (
            rows[:1]
            + extra[: 2 if split else 1]
            + rows[1:5]
            + (extra[2:4] if split else [])
            + rows[5:8]
            + extra[4:]
            + rows[8:]
        )
    for name, value in rows:
        style = "red" if name.startswith("errors") and figures.errors else None
        table.add_row(name, value, style=style)
    return table


# --------------------------------------------------------------------------------- the run


def _pinned(command: list[str], cpu: int | None) -> list[str]:
    """``command`` run with its CPU affinity set to ``cpu`` (before it starts any thread), or as it is."""
    if cpu is None:
        return command
    pin = "import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])}); os.execv(sys.argv[2], sys.argv[2:])"
    return [sys.executable, "-c", pin, str(cpu), *command]


def _archive_flags(settings: LoadSettings) -> list[str]:
    """The ``--archive`` flag of the servers a load run starts (none: each its own default)."""
    return ["--archive", settings.archive] if settings.archive is not None else []


class _PinnedServer(ServerProcess):
    """`ServerProcess` started with its CPU affinity set to one CPU (before it starts any thread)."""

    def __init__(self, limits: dict[str, object], cpu: int | None, *, extra_flags: Sequence[str] = ()) -> None:
        super().__init__(limits, extra_flags=extra_flags)
        self.cpu = cpu

    def command(self) -> list[str]:
        return _pinned(super().command(), self.cpu)


class _LocalRedis:
    """A private ``redis-server`` for one load run (``--redis local``): on a free port of
    127.0.0.1, its append-only file in a temporary folder with ``appendfsync always`` (a move is on
    disk before Redis answers it, as README.md asks of a real deployment), no snapshots, pinned to
    ``cpu`` if not None. ``async with`` starts it and waits until it answers ``PING``, and stops it
    (and removes its folder) at the end."""

    def __init__(self, cpu: int | None) -> None:
        self.cpu = cpu
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._folder: tempfile.TemporaryDirectory[str] | None = None
        self._log: Any = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def __str__(self) -> str:
        pinned = f", pinned to CPU {self.cpu}" if self.cpu is not None else ""
        return f"a private redis-server on port {self.port} (appendonly yes, appendfsync always{pinned})"

    async def __aenter__(self) -> _LocalRedis:
        exe = shutil.which("redis-server")
        if exe is None:
            raise ServerProcessError(
                "--redis local starts a redis-server, and none is installed (Debian: "
                "apt-get install redis-server, or `make redis`)"
            )
        self._folder = tempfile.TemporaryDirectory(prefix="arena-bench-redis-")
        self._log = tempfile.TemporaryFile()
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        command = [
            exe,
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--dir",
            self._folder.name,
            "--daemonize",
            "no",
            "--loglevel",
            "warning",
        ]
        self.process = subprocess.Popen(
            _pinned(command, self.cpu), stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 10
            while await _redis_keys(self.url, timeout_s=0.5) is None:
                self.check()
                if time.monotonic() > deadline:
                    raise ServerProcessError(f"the private redis-server did not answer within 10 s{self._tail()}")
                await asyncio.sleep(0.05)
        except BaseException:
            self.stop()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    def check(self) -> None:
        """Raise ServerProcessError if the redis-server has exited."""
        if self.process is not None and (code := self.process.poll()) is not None:
            raise ServerProcessError(f"the private redis-server exited with code {code}{self._tail()}")

    def _tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        tail = self._log.read().decode(errors="replace").splitlines()[-10:]
        return (":\n" + "\n".join(tail)) if tail else ""

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after 5 s) and remove its folder; harmless twice."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


async def _redis_keys(url: str, timeout_s: float = 2.0) -> int | None:
    """How many keys the Redis at ``url`` holds (its database's), or None if it does not answer."""
    client = aioredis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    try:
        return int(await client.dbsize())
    except (RedisError, OSError):
        return None
    finally:
        with contextlib.suppress(Exception):
            await client.aclose()


def _stop_all(servers: Sequence[ServerProcess]) -> None:
    """Stop the ``servers`` together: every one is told to stop before the first is waited for."""
    for server in servers:
        if server.alive:
            assert server.process is not None
            server.process.terminate()
    for server in servers:
        server.stop()


def _catalog_lines(game: str) -> tuple[tuple[int, tuple[str, ...]], ...]:
    entries = load_catalog(_SEEDS, game)
    if not entries:
        raise ServerProcessError(f"there is no catalog of winnable {game} deals in {_SEEDS}: choose another --game")
    return tuple((entry.seed, entry.moves) for entry in entries)


async def _drain(report: Any) -> list[tuple[Any, ...]]:
    """Every message the load processes have reported so far (never blocks)."""
    messages = []
    while True:
        try:
            messages.append(report.get_nowait())
        except queue.Empty:
            return messages


async def bench_load(settings: LoadSettings, *, console: Console) -> LoadFigures:
    """Run one load (see the module's docstring) and return its figures. Raises
    ServerProcessError if the server (a node, the private Redis) or a load process fails."""
    lines = _catalog_lines(settings.game)
    if settings.server_urls:
        pids: tuple[int | None, ...] = settings.server_pids or (None,) * len(settings.server_urls)
        described = [
            url + (f" (pid {pid})" if pid else "") for url, pid in zip(settings.server_urls, pids, strict=True)
        ]
        server = described[0] if len(described) == 1 else f"{len(described)} nodes: {', '.join(described)}"
        return await _drive(settings, settings.server_urls, pids, lines, console=console, server=server)
    if settings.redis is None and settings.nodes == 1:
        async with _PinnedServer(_SERVER_LIMITS, settings.server_cpu, extra_flags=_archive_flags(settings)) as child:
            pinned = f", pinned to CPU {settings.server_cpu}" if settings.server_cpu is not None else ""
            return await _drive(
                settings,
                (child.url,),
                (child.pid,),
                lines,
                console=console,
                server=f"a child process{pinned}",
                children=(child,),
            )
    return await _bench_nodes(settings, lines, console=console)


async def _bench_nodes(
    settings: LoadSettings, lines: tuple[tuple[int, tuple[str, ...]], ...], *, console: Console
) -> LoadFigures:
    """Start ``settings.nodes`` servers over ``settings.redis`` (a private one for ``local``),
    run the load over them, stop them all."""
    assert settings.redis is not None
    notes: list[str] = []
    async with contextlib.AsyncExitStack() as stack:
        local: _LocalRedis | None = None
        if settings.redis == "local":
            local = await stack.enter_async_context(_LocalRedis(settings.redis_cpu))
            url, where = local.url, str(local)
        else:
            url, where = settings.redis, f"the Redis at {settings.redis}"
            keys = await _redis_keys(url)
            if keys is None:
                raise ServerProcessError(f"nothing answers at --redis {url}")
            if keys:
                notes.append(
                    f"the Redis at {url} already holds {keys:,} keys: a load run needs an empty one (the "
                    f"nodes resume and serve whatever races are left there); --redis local starts a "
                    f"private one"
                )
                console.print(f"[yellow]warning:[/] {escape(notes[-1])}", highlight=False)
        cpus = settings.server_cpus
        servers = [
            _PinnedServer(
                _SERVER_LIMITS,
                cpus[k % len(cpus)] if cpus else None,
                extra_flags=["--redis", url, "--node-id", f"node{k + 1}", *_archive_flags(settings)],
            )
            for k in range(settings.nodes)
        ]
        stack.callback(_stop_all, servers)
        for server in servers:  # one after the other: each picks its own free port
            await server.start()
        count = len(servers)
        pinned = f", pinned to CPU{'s' if count > 1 else ''} {', '.join(str(s.cpu) for s in servers)}" if cpus else ""
        described = (
            f"{count} nodes (node1..node{count}), child processes{pinned}, over {where}"
            if count > 1
            else f"1 node (node1), a child process{pinned}, over {where}"
        )
        return await _drive(
            settings,
            tuple(s.url for s in servers),
            tuple(s.pid for s in servers),
            lines,
            console=console,
            server=described,
            children=servers,
            redis=local,
            redis_where=where,
            notes=notes,
        )
    raise AssertionError("unreachable")  # pragma: no cover (the stack does not swallow exceptions)


async def _drive(
    settings: LoadSettings,
    urls: Sequence[str],
    pids: Sequence[int | None],
    lines: tuple[tuple[int, tuple[str, ...]], ...],
    *,
    console: Console,
    server: str,
    children: Sequence[ServerProcess] = (),
    redis: _LocalRedis | None = None,
    redis_where: str | None = None,
    notes: Sequence[str] = (),
) -> LoadFigures:
    context = multiprocessing.get_context("spawn")
    report = context.Queue()
    controls = [context.Queue() for _ in range(settings.load_processes)]
    readings = [
        _NodeReading(
            url=url,
            pid=pid,
            cpu=getattr(child, "cpu", None) if child else None,
            rss_idle=rss_mib(pid) if pid is not None else None,
        )
        for url, pid, child in itertools.zip_longest(urls, pids, children[: len(urls)])
    ]
    cpus = settings.load_cpus
    specs = [
        _WorkerSpec(
            worker=n,
            urls=tuple(urls),
            settings=settings,
            groups=tuple(range(n, settings.races, settings.load_processes)),
            lines=lines,
            cpu=cpus[n % len(cpus)] if cpus else None,
            seed=n,
        )
        for n in range(settings.load_processes)
    ]
    processes = [
        context.Process(
            target=_worker_main,
            args=(spec, controls[spec.worker], report),
            daemon=True,
            name=f"arena-load-{spec.worker}",
        )
        for spec in specs
        if spec.groups
    ]
    for process in processes:
        process.start()
    ticks: dict[int, tuple[int, int, int]] = {}
    ready: set[int] = set()
    parts: dict[int, dict[str, Any]] = {}
    failures: list[str] = []
    expected = {spec.worker for spec in specs if spec.groups}

    async def pump() -> None:
        for message in await _drain(report):
            kind, worker = message[0], message[1]
            if kind == "tick":
                ticks[worker] = message[2:]
            elif kind == "ready":
                ready.add(worker)
            elif kind == "done":
                parts[worker] = message[2]
            elif kind == "failed":
                failures.append(f"load process {worker} failed:\n{message[2]}")
        for child in children:
            child.cpu_s()  # raises ServerProcessError if the server died
        if redis is not None:
            redis.check()
        if failures:
            raise ServerProcessError(failures[0])
        for process in processes:
            if process.exitcode not in (0, None):
                raise ServerProcessError(f"{process.name} exited with code {process.exitcode}")

    def cpu_now() -> list[tuple[float, float] | None]:
        return [cpu_times(pid) if pid is not None else None for pid in pids]

    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[status]}"), TimeElapsedColumn())
    redis_before = redis_after = None
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            task = progress.add_task("connecting", total=settings.warmup_s + settings.duration_s, status="")
            while ready != expected:
                await pump()
                connected = sum(t[0] for t in ticks.values())
                progress.update(task, status=f"{connected:,} of {settings.connections:,} clients")
                await asyncio.sleep(0.05)
            start_wall = time.time() + settings.warmup_s
            end_wall = start_wall + settings.duration_s
            for control in controls:
                control.put((start_wall, end_wall))
            cpu_before: list[tuple[float, float] | None] | None = None
            counted = False
            while time.time() < end_wall:
                await pump()
                now = time.time()
                measuring = now >= start_wall
                if measuring and cpu_before is None:
                    cpu_before = cpu_now()
                    redis_before = cpu_seconds(redis.pid) if redis is not None else None
                    for reading, metrics in zip(
                        readings, await asyncio.gather(*(fetch_metrics(u) for u in urls)), strict=True
                    ):
                        reading.metrics_before = metrics
                if not counted and now >= start_wall + settings.duration_s / 2:
                    # counted mid-window, while every client is surely connected (at the end the
                    # load processes may already be closing theirs)
                    counted = True
                    for reading, health in zip(
                        readings, await asyncio.gather(*(fetch_health(u) for u in urls)), strict=True
                    ):
                        if health is not None:
                            reading.connections = health["connections"] - 1  # less the health request's own
                acked = sum(t[1] for t in ticks.values())
                errors = sum(t[2] for t in ticks.values())
                progress.update(
                    task,
                    description="measuring" if measuring else "warm-up",
                    completed=settings.warmup_s - (start_wall - now),
                    status=f"{acked:,} moves acknowledged, {errors} errors",
                )
                await asyncio.sleep(min(0.1, max(0.0, (start_wall if not measuring else end_wall) - now)))
            cpu_after = cpu_now()
            redis_after = cpu_seconds(redis.pid) if redis is not None else None
            for reading, metrics in zip(readings, await asyncio.gather(*(fetch_metrics(u) for u in urls)), strict=True):
                reading.metrics_after = metrics
            for reading, before, after in zip(readings, cpu_before or [None] * len(readings), cpu_after, strict=True):
                if reading.pid is not None:
                    reading.rss_end = rss_mib(reading.pid)
                if before is not None and after is not None:
                    reading.system_s = after[1] - before[1]
                    reading.cpu_s = after[0] - before[0] + reading.system_s
            progress.update(task, description="collecting", completed=settings.warmup_s + settings.duration_s)
            deadline = time.monotonic() + _ANSWER_TIMEOUT_S + 20
            while set(parts) != expected:
                await pump()
                if time.monotonic() > deadline:
                    raise ServerProcessError("the load processes did not report their figures in time")
                await asyncio.sleep(0.05)
    finally:
        for process in processes:
            if set(parts) == expected:
                await asyncio.get_running_loop().run_in_executor(None, process.join, 10)
            if process.is_alive():
                process.kill()
                process.join()
    redis_cpu_s = redis_after - redis_before if redis_after is not None and redis_before is not None else None
    return _figures(
        settings,
        server,
        [parts[n] for n in sorted(parts)],
        readings=readings,
        redis=redis_where,
        redis_cpu_s=redis_cpu_s,
        notes=notes,
    )
