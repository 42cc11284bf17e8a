"""The websocket service: connections, sessions, limits, and the dispatch of requests to races.

One `Session` per connection: it decodes each frame (`server.protocol.decode`), applies the
per-connection limits, and answers every bad frame with an `Error` that has a code, never with a
traceback. Outgoing frames are written straight into the connection's transport, without a queue
or a task per frame (as websockets' ``broadcast`` does): the frames one connection receives in
one turn of the event loop leave in one write. A slow client never holds up a race or the other
clients: one whose unsent bytes pass ``max_send_buffer_bytes`` is closed (1008, "too slow"). A
`Player` outlives its connections: its token resumes it on a new one.

Every request costs bounded work, whatever the number of races, players and connections
(DESIGN.md, invariant 8): listings come from the `server.lobby.Lobby` index in pages, a sync is
answered a page at a time, and everything kept in memory has a limit or a retention time, applied
by one housekeeping task (`ArenaServer.sweep`). docs/security.md lists every limit.

Operations: ``GET /healthz`` (anyone) and ``GET /metrics`` (Prometheus, `server.metrics`; only
from ``metrics_from`` addresses) are answered on the websocket port; the log has one structured
line per race, player and tournament event (`server.logs`); `ArenaServer.shutdown` drains the
server within ``shutdown_grace_s`` (`serve` calls it when asked to stop: SIGTERM, SIGINT).

>>> ServerConfig().max_frame_bytes
4096
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import gc
import hashlib
import heapq
import hmac
import ipaddress
import itertools
import json
import logging
import resource
import secrets
import socket
import struct
import time
import types
from collections import Counter, deque
from collections.abc import Callable, Coroutine, Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

import websockets
from websockets.asyncio.server import Server, ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.frames import CloseCode, Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State

try:
    from websockets.speedups import apply_mask
except ImportError:  # websockets without its C extension
    from websockets.utils import apply_mask

from engine.core import BadNotation
from engine.deal import random_seed
from engine.games import UnknownGame, find_game
from server.catalog import CatalogError, DealSource
from server.lobby import Lobby
from server.limits import TokenBucket, WindowCounter
from server.logs import fields, iso_time, limit_repeats
from server.metrics import CONTENT_TYPE, Metrics, Tally
from server.names import BadName, normal_name
from server.web import WebClient
from server.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    BonusMove,
    CancelTournament,
    ClientMessage,
    CreateRace,
    CreateTournament,
    DoubleOrNaught,
    Error,
    ErrorCode,
    FollowTournament,
    GetRecord,
    Hello,
    JoinRace,
    ListRaces,
    ListTournaments,
    MoveRequest,
    MoveResult,
    OpenDeal,
    ProtocolError,
    RaceRecord,
    RaceReply,
    Races,
    RegisterTournament,
    Rematch,
    Rename,
    Renamed,
    Replay,
    Resign,
    StartRace,
    Sync,
    SyncPage,
    TournamentReply,
    Tournaments,
    TournamentSnapshot,
    Watch,
    Welcome,
    WithdrawTournament,
    decode,
    encode,
    request_number,
)
from server.par import ParService, WinnableSearch
from server.race import Clock, Race, RebuildError
from server.replay import Replays
from server.schedule import ScheduleError, load_schedule_file, next_occurrences, parse_start, time_zone
from server.store import Store, StoreUnavailable
from server.store.memory import MemoryStore
from server.store.redis import RedisStore, StaleRace
from server.nodes import NodeLink
from server.tournament import Tournament, TournamentPlan

__all__ = ["ArenaServer", "Player", "ServerConfig", "Session", "serve"]

log = logging.getLogger("arena.server")  # the server's own life and its warnings (rate-limited)
_players_log = logging.getLogger("arena.players")  # hello, resumed, left
_requests_log = logging.getLogger("arena.requests")  # refused requests (rate-limited per error code)
_connections_log = logging.getLogger("arena.connections")  # sockets opened and closed (debug)
_races_log = logging.getLogger("arena.races")
_tournaments_log = logging.getLogger("arena.tournaments")

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: File descriptors the server needs besides its connections (listening sockets, logs, catalogs).
_SPARE_FILES = 64
_HOUR_S = 3600.0
#: Freed memory is given back (a pause of tens of milliseconds) after ``_TRIM_EVERY`` races and
#: players left memory, or at the first sweep that evicts nothing after ``_TRIM_MIN`` of them.
_TRIM_EVERY = 10_000
_TRIM_MIN = 1_000
#: Seconds between two measurements of the event loop's lag (`server.metrics`).
_LAG_INTERVAL_S = 0.5
#: During a shutdown, a connection stays open until it has been quiet (no frame received, nothing
#: left to send) this many seconds after its races ended: time to ask for their records; but no
#: connection is kept open longer than ``_LINGER_S`` after that.
_QUIET_S = 0.5
_LINGER_S = 2.0
#: Seconds the closing handshakes of a shutdown may take, at most (kept out of the grace's
#: earlier steps); a peer that has not answered by then is cut off.
_CLOSE_S = 2.0
#: The close reason every client gets (code 1001) when the server shuts down.
SHUTDOWN_REASON = "server shutting down"
#: What a client may still ask while the server drains: to be itself again and read records.
_WHILE_DRAINING = (Hello, Sync, GetRecord, Replay)
#: The longest a race may keep a player's token in use without a hello (an open race's time to
#: live is added): its time limit at most (the protocol's bound on ``time_limit_s``).
_LONGEST_RACE_S = 86_400.0


def _schedule_id(tournament: Tournament) -> str | None:
    """The id of the recurring schedule ``tournament`` is an occurrence of (its ``schedule`` is
    ``"ID: CRON"``), or None for a one-off."""
    schedule = tournament.plan.schedule
    return schedule.split(":", 1)[0] if schedule else None


def token_digest(token: str) -> str:
    """What a store keeps of a player's token: its SHA-256 hex digest, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _give_back_memory() -> None:
    """Return freed heap memory to the operating system (glibc's ``malloc_trim``; nothing
    elsewhere). Without it, memory freed by races that left stays in the process: measured with
    `arena bench memory`, 30,000 expired races kept the server 120 MiB above its idle size, and
    about 26 MiB with it. Costs tens of milliseconds (a full garbage collection, then the trim), so
    it runs only after large bursts of evictions."""
    trim = _malloc_trim()
    if trim is not None:
        began = time.perf_counter()
        gc.collect()  # races in reference cycles are free only once the collector has run
        trim(0)
        log.info("gave freed memory back to the system in %.1f ms", (time.perf_counter() - began) * 1000)


async def _until(condition: Callable[[], bool], deadline: float, step_s: float = 0.02) -> bool:
    """Wait until ``condition()`` holds (True) or the loop time ``deadline`` passes (False),
    looking every ``step_s`` seconds."""
    loop = asyncio.get_running_loop()
    while not condition():
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(step_s)
    return True


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    return getattr(libc, "malloc_trim", None)


def _limit(default: object, help_text: str, *, serve: object = None) -> object:
    """A `ServerConfig` limit: its default, the line `arena serve --help` shows for it, and
    (``serve``) another default for `arena serve` where the library's differs."""
    metadata = {"help": help_text} | ({"serve": serve} if serve is not None else {})
    return field(default=default, metadata=metadata)


@dataclass
class ServerConfig:
    """Limits and timings of a server. `arena serve` offers each field as a flag (``--max-moves``)
    and an environment variable (``ARENA_MAX_MOVES``); docs/security.md says what each one stops.

    Connections (each limit applies per connection unless it says otherwise):
      ``max_frame_bytes``: largest incoming frame, bytes (default 4096); a larger one closes the
      connection with 1009.
      ``max_send_buffer_bytes``: outgoing bytes waiting for a slow client, beyond what the
      operating system's socket buffers hold (default 1 MiB); past it the client is closed with
      1008.
      ``fanout_tick_ms`` / ``fanout_busy_share``: while the event loop is busy at least
      ``fanout_busy_share`` of the time (default 0.85), broadcast frames (the standings after a
      move, a spectator's events) may wait up to ``fanout_tick_ms`` milliseconds (default 35)
      so that each connection's leave in one write (`Fanout`); answers to a request leave at
      once, with whatever waits. A server less busy sends every frame at the end of the loop
      turn; ``fanout_tick_ms`` 0 always does (docs/performance.md, "The third round").
      ``standings_tick_ms``: while that tick is on, an entrant's standings after another
      entrant's move may wait up to this long (default 250), unless the entrant moves meanwhile
      (the answer takes them along) or the race sends it something else; later standings take
      the place of those still waiting (`FanoutChannel`); at or under ``fanout_tick_ms``, as long
      as other broadcast frames.
      ``rate_per_s`` / ``burst``: incoming frames per second sustained, and the burst above it
      (defaults 100 and 200); a frame over the limit gets ``rate_limited``, and after
      ``max_strikes`` (default 50) such frames the connection is closed with 1008.
      ``max_connections``: open connections for the whole server (default 10,000), counted from
      the moment the socket is accepted; more are reset at once. At start the server lowers it
      to fit its open-files limit, and says so.
      ``max_connections_per_ip``: open connections from one address (default 128); more are
      reset at once.
      ``trusted_proxies``: addresses of reverse proxies (default none) whose connections are
      counted against the client address they forward (``X-Forwarded-For``), refused with HTTP
      429 over the limit; the proxy's own address has no limit.
      ``open_timeout_s``: seconds a socket may take to finish the websocket handshake (default 10).
      ``hello_timeout_s``: seconds a connection may take to say hello (default 10); a silent one
      is closed with 1008.
      ``ping_interval_s`` / ``ping_timeout_s``: keepalive pings, seconds (defaults 20 and 20;
      None turns them off): a connection the server has heard nothing from for the interval is
      pinged, and closed with 1011 when the pong does not come within the timeout (`Keepalive`).
    Races:
      ``max_open_races_per_player``: races a player created that have not started yet (default 5).
      ``races_per_hour_per_player`` / ``races_per_hour_per_ip``: races created in the last hour by
      one player (default 30) and from one address (default 300).
      ``open_race_ttl_s``: an open race nobody starts ends ("expired") after this many seconds
      (default 1800).
      ``idle_timeout_s``: an entrant that makes no move for this many seconds is out of time
      (default 300; None: never), so that nobody holds a race open by doing nothing.
      ``max_moves``: accepted moves per entrant per race (default 5000).
      ``sync_page_events``: events sent per page of a sync (default 256; fewer when the client's
      outgoing queue has less room).
    Memory:
      ``race_retention_s``: finished races and tournaments leave memory this many seconds after
      they end (default 3600); the store keeps each race's record ``record_retention_s`` longer
      (default 86400), for `get_record` and `arena verify`.
      ``player_retention_s``: a player with no connection, no race in play and no tournament to
      come is forgotten (its token no longer resumes) after this many seconds (default 3600).
      ``max_events_per_race``: events the memory store keeps per race for catching up (default
      10,000); a client further behind gets a snapshot.
      ``sweep_interval_s``: how often the housekeeping task applies the retention times, seconds
      (default 1).
    Storage:
      ``redis_url``: keep races (descriptions, move logs, events) and records in this Redis
      (``redis://HOST:PORT/DB``; `server.store.redis.RedisStore`) rather than in memory
      (default None: memory). The server connects at start and refuses to start without it; a
      move while Redis is away is refused with ``unavailable``, never acknowledged. A server
      restarted over the same Redis resumes its casual races and players (`ArenaServer.start`).
      ``node_id``: this node's name among the nodes sharing one Redis (default
      ``HOSTNAME:PORT``, so that a node restarted on the same port resumes its own races).
      ``lease_s``: a node counts as alive for this many seconds after each heartbeat (default 3):
      the others take a dead node's races over within about that long (`server.nodes`).
      ``forward_timeout_s``: how long a request forwarded to the node that serves its race may
      take before it is answered ``unavailable`` (default 3).
    Tournaments and catalogs:
      ``admin_token``: the organisers' secret; create and cancel requests must carry it (None, the
      default, refuses them all).
      ``catalog_dir``: the public catalogs of winnable deals (default: the repository's seeds/);
      they serve races whose seed is public anyway.
      ``private_catalog_dir``: a private catalog of winnable deals (default None: none); the only
      source of secret winnable deals (tournaments, races asking for one with a secret seed).
    Logs and operations:
      ``gc_full_threshold``: `serve` sets Python's garbage collector to consider a full collection
      only after this many collections of the middle generation (default 100; Python's own is
      10), and freezes what the start made. A full collection scans every tracked object, about
      70 per connection: at 5,000 clients it holds the server for about 200 ms, every 20 s or so
      at Python's own setting (docs/performance.md). Young garbage is collected as before.
      ``log_repeat_s``: the same log message is written at most once per this many seconds, with
      a count of the ones left out (default 10).
      ``shutdown_grace_s``: seconds a shutdown may take (default 10): the requests in hand are
      answered, unfinished races end, clients may fetch the records, then every connection is
      closed with 1001 (`ArenaServer.shutdown`).
      ``metrics_from``: addresses or networks (``10.0.0.0/8``) that may ``GET /metrics`` (default
      the loopback addresses; empty: nobody). Behind a trusted proxy, the address that counts is
      the one it forwards.
    Par (`server.par`):
      ``par_workers``: worker processes in which the solver works out each finished race's par
      (default 0 here, 1 under `arena serve`; 0: no par).
      ``par_nodes`` / ``par_seconds``: the solver's budget for one race (defaults 20,000 moves and
      10 s).
      ``winnable_nodes`` / ``winnable_seconds``: the solver's budget for each fresh secret deal it
      tries when a race or tournament asks for winnable deals (defaults 4,000 moves and 2 s);
      ``winnable_wait_s``: how long such a request may wait for the solver in all (default 10 s)
      before the private catalog makes up the rest (`server.par.WinnableSearch`).
    """

    max_frame_bytes: int = _limit(MAX_FRAME_BYTES, "largest incoming frame, bytes")
    max_send_buffer_bytes: int = _limit(1 << 20, "outgoing bytes waiting for a slow client before it is closed")
    fanout_tick_ms: float = _limit(35.0, "milliseconds broadcast frames may wait to leave together while the server is busy (0: never)")
    standings_tick_ms: float = _limit(250.0, "milliseconds an entrant's standings may wait to leave with other frames while the server is busy")
    fanout_busy_share: float = _limit(0.85, "share of the time the event loop is busy from which broadcast frames wait for the fan-out tick (over 1: never)")
    gc_full_threshold: int = _limit(100, "middle-generation garbage collections between full ones (Python's own: 10)")
    rate_per_s: float = _limit(100.0, "incoming frames per second per connection, sustained")
    burst: int = _limit(200, "incoming frames above the rate a connection may send in a burst")
    max_strikes: int = _limit(50, "frames over the rate before the connection is closed")
    max_connections: int = _limit(10_000, "open connections for the whole server")
    max_connections_per_ip: int = _limit(128, "open connections from one address")
    open_timeout_s: float = _limit(10.0, "seconds to finish the websocket handshake")
    hello_timeout_s: float = _limit(10.0, "seconds a new connection has to say hello")
    ping_interval_s: float | None = _limit(20.0, "seconds a connection may be quiet before it is pinged ('none': no pings)")
    ping_timeout_s: float | None = _limit(20.0, "seconds to wait for a ping's answer ('none': forever)")
    max_open_races_per_player: int = _limit(5, "races a player created that have not started")
    races_per_hour_per_player: int = _limit(30, "races one player may create in an hour")
    races_per_hour_per_ip: int = _limit(300, "races that may be created from one address in an hour")
    open_race_ttl_s: float = _limit(1800.0, "seconds before an open race nobody started expires")
    idle_timeout_s: float | None = _limit(300.0, "seconds without a move before an entrant is out of time ('none')")
    max_moves: int = _limit(5000, "moves per entrant per race")
    sync_page_events: int = _limit(256, "events sent per page of a sync")
    race_retention_s: float = _limit(3600.0, "seconds finished races and tournaments stay in memory")
    record_retention_s: float = _limit(86_400.0, "seconds the store keeps a race's record after that")
    player_retention_s: float = _limit(3600.0, "seconds before an idle, disconnected player is forgotten")
    max_events_per_race: int = _limit(10_000, "events kept per race for catching up")
    sweep_interval_s: float = _limit(1.0, "seconds between housekeeping sweeps")
    log_repeat_s: float = _limit(10.0, "the same log message is written at most once per this many seconds")
    shutdown_grace_s: float = _limit(10.0, "seconds a shutdown (SIGTERM, SIGINT) may take before the process exits")
    par_workers: int = _limit(0, "worker processes that work out each finished race's par (0: none)", serve=1)
    par_nodes: int = _limit(20_000, "moves the solver may try for one race's par")
    par_seconds: float = _limit(10.0, "seconds the solver may spend on one race's par")
    winnable_nodes: int = _limit(4_000, "moves the solver may try on each fresh deal it tries to prove winnable")
    winnable_seconds: float = _limit(2.0, "seconds the solver may spend on each fresh deal it tries to prove winnable")
    winnable_wait_s: float = _limit(10.0, "seconds a request for winnable secret deals waits for the solver in all")
    lease_s: float = _limit(3.0, "with Redis: seconds a node counts as alive after each heartbeat (its races' lease)")
    forward_timeout_s: float = _limit(3.0, "with Redis: seconds a request forwarded to another node may take")
    node_id: str | None = None
    admin_token: str | None = None
    redis_url: str | None = None
    catalog_dir: Path = Path(__file__).resolve().parent.parent / "seeds"
    private_catalog_dir: Path | None = None
    trusted_proxies: tuple[str, ...] = ()
    metrics_from: tuple[str, ...] = ("127.0.0.1", "::1")

    @classmethod
    def limits(cls) -> list[dataclasses.Field]:
        """The fields that are limits and timings, in declaration order, each with its one-line
        ``metadata["help"]``: what `arena serve` turns into flags and environment variables."""
        return [f for f in dataclasses.fields(cls) if "help" in f.metadata]


@dataclass(eq=False)
class Player:
    """Someone who said hello: an id, a display name, a secret token, the races it entered, the
    open races it created, and its current session (None while disconnected, since ``left_at``,
    monotonic seconds)."""

    id: str
    name: str
    token: str
    races: set[str] = field(default_factory=set)
    open_races: set[str] = field(default_factory=set)
    tournaments: set[str] = field(default_factory=set)
    session: Session | None = None
    left_at: float = 0.0

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Deliver to the current connection, if any (a reconnecting client syncs what it missed);
        ``later``: a broadcast frame, which may wait for the next fan-out tick; ``standings``:
        the standings after another entrant's move, which may wait longer (`Session.send`)."""
        if self.session is not None:
            self.session.send(frame, later=later, standings=standings)


def websocket_frame(payload: bytes) -> bytes:
    """``payload`` as one unmasked, unfragmented binary websocket frame (RFC 6455, section 5.2):
    FIN and the binary opcode, the payload length in 7, 7+16 or 7+64 bits, then the payload.
    A server's frames are not masked, so the same payload makes the same bytes for every
    receiver: an event fanned out to many connections is framed once (`framed`).

    >>> websocket_frame(b"hi"), websocket_frame(bytes(200))[:4]
    (b'\\x82\\x02hi', b'\\x82~\\x00\\xc8')
    """
    size = len(payload)
    if size < 126:
        head = bytes((0x82, size))
    elif size < 65_536:
        head = struct.pack("!BBH", 0x82, 126, size)
    else:
        head = struct.pack("!BBQ", 0x82, 127, size)
    return head + payload


#: The last few payloads framed, with their frames: a fan-out sends one payload to every
#: receiver in a row, so it is framed once. Held by identity (the payload object itself is kept,
#: so an identity match is the same bytes).
_FRAMED: list[tuple[bytes, bytes]] = []


def framed(payload: bytes) -> bytes:
    """`websocket_frame` of ``payload``, reused while the same payload object is sent on."""
    for known, frame in _FRAMED:
        if known is payload:
            return frame
    frame = websocket_frame(payload)
    _FRAMED.insert(0, (payload, frame))
    del _FRAMED[4:]
    return frame


_OPEN = State.OPEN
_HANDSHAKE, _OWN, _WEBSOCKETS = range(3)  # who reads a connection's frames (`_Connection`)


@types.coroutine
def _carry_on(coro: Coroutine[Any, Any, None], waiting: object) -> Generator[Any, Any, None]:
    """Go on with ``coro``, whose first step (run outside any task) yielded ``waiting`` to the
    event loop: hand that on, and each later step's, as ``await coro`` would have, sending back
    results and throwing in exceptions (a cancellation included)."""
    while True:
        try:
            sent = yield waiting
        except BaseException as exc:
            try:
                waiting = coro.throw(exc)
            except StopIteration:
                return
        else:
            try:
                waiting = coro.send(sent)
            except StopIteration:
                return


def _waits_for_a_frame(messages: object) -> bool:
    """True when the connection's handler waits in websockets' queue of frames with none in it
    (`Assembler.frames`, a `SimpleQueue`; websockets 14 to 17), so that a frame carried out at
    once comes after every frame before it. False when that cannot be told."""
    queue = getattr(messages, "frames", None)
    waiter = getattr(queue, "get_waiter", None)
    return waiter is not None and not waiter.done() and not queue.queue  # type: ignore[union-attr]


async def _close_quietly(ws: ServerConnection, code: int, reason: str) -> None:
    """Close ``ws`` with ``code`` and ``reason``; one already closed is left as it is."""
    with contextlib.suppress(ConnectionClosed):
        await ws.close(code, reason)


class Fanout:
    """When the frames sessions were sent leave: a client's answers as soon as the bytes read
    from it are carried out (`_Connection._read_frames` writes its session), else one callback
    per event-loop turn writes every session that was sent a frame to answer (`now`), and,
    while the server is busy, one timer per tick of ``tick_ms`` milliseconds writes every
    session and race channel (`FanoutChannel`) that was only sent broadcast frames
    (`on_tick`: a move's standings, a spectator's event), a slice a loop turn (`_slice`).
    Within a tick a session's broadcast frames leave together, in one write (one system call
    instead of one per frame), and with any answer it is sent meanwhile.

    An entrant's standings (another entrant moved) may wait longer while busy: up to
    ``standings_tick_ms`` (`on_standings_tick`), or less when the entrant moves meanwhile (the
    answer takes them along, `FanoutChannel.catch_up`) or its race sends it anything else
    (the race's end, say). The standings
    say how far the others are, which a few updates a second show as well as twenty; they are
    most of an entrant's frames in a busy race, and nothing else an entrant is sent waits for
    them.

    Busy: the event loop's thread spent at least ``busy_share`` of the last measurement on the
    CPU (`adapt`, fed every `LOAD_INTERVAL_S` seconds); the ticks stop once that share falls
    below ``busy_share`` minus `LOAD_HYSTERESIS`. A quiet server so adds no wait; a loaded one
    trades up to a tick of its spectators' latency for fewer writes. ``tick_ms`` 0, or
    ``busy_share`` over 1: broadcast frames always leave at the end of the turn; ``busy_share``
    0: the ticks are always on. ``standings_tick_ms`` at or under ``tick_ms``: standings wait
    as other broadcast frames do."""

    #: Seconds between two measurements of the loop's busy share (`ArenaServer._measure_load`).
    LOAD_INTERVAL_S = 0.25
    #: How far below ``busy_share`` the busy share must fall for the tick to stop.
    LOAD_HYSTERESIS = 0.15
    #: Seconds of writing the ticks' batches in one loop turn at most before the rest waits for the next.
    SLICE_S = 0.001

    def __init__(self, tick_ms: float, busy_share: float = 0.0, standings_tick_ms: float = 0.0,
                 tally: Tally | None = None) -> None:
        self.tally = tally if tally is not None else Tally()
        self.max_tick_s = tick_ms / 1000
        self.max_standings_tick_s = standings_tick_ms / 1000
        self.busy_share = busy_share
        self.tick_s = 0.0  # the tick now (0: none)
        self.standings_tick_s = 0.0  # the standings' tick now (0: as other broadcast frames)
        if busy_share <= 0:
            self._set(True)
        self.busy = 0.0  # the loop's busy share at the last measurement
        self._now: list[Session | FanoutChannel] = []
        self._tick: list[Session | FanoutChannel] = []
        self._standings: list[Session | FanoutChannel] = []
        # the ticks' batches due, oldest first: (sessions, standings, the first not written yet,
        # when it was due: `time.perf_counter` seconds)
        self._due: deque[tuple[list[Session | FanoutChannel], bool, int, float]] = deque()
        #: Called with how late (seconds) each fan-out tick's batch was written, once its last
        #: session was (`ArenaServer` hands it `Metrics.observe_fanout_delay`); None: not measured.
        self.observe_delay: Callable[[float], None] | None = None

    def _set(self, on: bool) -> None:
        self.tick_s = self.max_tick_s if on else 0.0
        slower = on and self.tick_s and self.max_standings_tick_s > self.tick_s
        self.standings_tick_s = self.max_standings_tick_s if slower else 0.0

    def adapt(self, busy: float) -> bool:
        """Take ``busy``, the share (0 to 1) of the last interval the event loop's thread spent
        on the CPU, and turn the ticks on or off; True if that changed them."""
        self.busy = busy
        before = self.tick_s
        if busy >= self.busy_share:
            self._set(True)
        elif busy < self.busy_share - self.LOAD_HYSTERESIS:
            self._set(False)
        return self.tick_s != before

    def now(self, session: Session | FanoutChannel) -> None:
        """Write ``session`` at the end of this loop turn (once, however many frames it is sent
        meanwhile: `Session._flush_pending`), unless it is written sooner: the session whose
        frames are being read is written once they are carried out."""
        if not self._now:
            asyncio.get_running_loop().call_soon(self._write, self._now)
        self._now.append(session)
        session._flush_pending = True

    def later(self, session: Session | FanoutChannel, standings: bool = False) -> None:
        """Put ``session`` (a session or a race channel), which was sent a broadcast frame, in
        the batch it waits for: the next tick's (`on_tick`), or, when all it holds is an
        entrant's standings (``standings``) and there is a standings tick, that one's
        (`on_standings_tick`); nothing when it is in an earlier batch already."""
        if session._flush_pending or session._tick_pending:
            return
        if not (standings and self.standings_tick_s):
            session._tick_pending = True
            self.on_tick(session)
        elif not session._standings_pending:
            session._standings_pending = True
            self.on_standings_tick(session)

    def on_tick(self, session: Session | FanoutChannel) -> None:
        """Write ``session`` one tick from now (at the end of this loop turn when there is no
        tick). The sessions put off in one loop turn (a move's audience) share one timer, so the
        writes of a tick are spread as the events that caused them were, not made in one burst."""
        if not self.tick_s:
            self.now(session)
            return
        if not self._tick:
            self._start_batch(self.tick_s, self._tick)
        self._tick.append(session)

    def on_standings_tick(self, session: Session | FanoutChannel) -> None:
        """Write ``session``, which was sent an entrant's standings, one standings tick from now
        (`standings_tick_s`, which is not 0)."""
        if not self._standings:
            self._start_batch(self.standings_tick_s, self._standings, standings=True)
        self._standings.append(session)

    def _start_batch(self, delay_s: float, batch: list[Session | FanoutChannel], *, standings: bool = False) -> None:
        """Write ``batch`` in ``delay_s`` seconds; it takes the sessions put off in this loop turn."""
        loop = asyncio.get_running_loop()
        loop.call_later(delay_s, self._write, batch, standings, time.perf_counter() + delay_s)
        loop.call_soon(self._next_batch)

    def _next_batch(self) -> None:
        self._tick = []
        self._standings = []

    def _write(self, sessions: list[Session | FanoutChannel], standings: bool = False, due: float = 0.0) -> None:
        """Write a batch: the sessions of this loop turn (`now`), at once; or those of a tick
        still waiting for it (``standings``: for the standings tick; the others left
        meanwhile), which join the batches due (`_due`; ``due``: when the tick was due, in
        `time.perf_counter` seconds) and are written in the next slice (`_slice`)."""
        if sessions is self._now:
            self._now = []
            for session in sessions:
                if session._flush_pending:  # (not written since: `_Connection._read_frames`, a tick)
                    session._flush()
            return
        if sessions is self._tick:
            self._tick = []
        elif sessions is self._standings:
            self._standings = []
        if not self._due:  # (else a slice is on its way: while batches are due, one always is)
            asyncio.get_running_loop().call_soon(self._slice)
        self._due.append((sessions, standings, 0, due))

    def _slice(self) -> None:
        """Write the batches due, oldest first, for `SLICE_S` at most; what is left waits for the
        next loop turn (`call_soon`: after the next poll for input), so that the moves that came
        in meanwhile are read and answered between slices. The batches due in one loop turn
        share one slice: after the loop was held up, the ticks of every turn it missed come due
        at once, and each writing its own slice would keep the loop from its reads for many."""
        until = time.perf_counter() + self.SLICE_S
        due = self._due
        while due:
            sessions, standings, start, when = due.popleft()
            for i in range(start, len(sessions)):
                session = sessions[i]
                if session._standings_pending if standings else session._tick_pending:
                    try:
                        session._flush()
                    except BaseException:  # (the loop reports it; the others still get theirs)
                        self._go_on(sessions, standings, i + 1, when)
                        raise
                    if time.perf_counter() > until:
                        self._go_on(sessions, standings, i + 1, when)
                        return
            self._written(standings, when)

    def _go_on(self, sessions: list[Session | FanoutChannel], standings: bool, start: int, when: float) -> None:
        """Leave the rest of the batches due, from ``sessions[start]`` on (a batch due at
        ``when``), to the next slice."""
        if start < len(sessions):
            self._due.appendleft((sessions, standings, start, when))
        else:
            self._written(standings, when)
        if self._due:
            asyncio.get_running_loop().call_soon(self._slice)

    def _written(self, standings: bool, when: float) -> None:
        """A batch due at ``when`` is written: tell `observe_delay` how late, if it is a fan-out
        tick's (a standings tick's may wait longer by design)."""
        if self.observe_delay is not None and not standings:
            self.observe_delay(time.perf_counter() - when)


class FanoutChannel:
    """The frames for one audience of one race (its entrants, or its spectators), held until
    the fan-out writes them: at the end of the loop turn, or at the next tick while the server
    is busy, as a session's broadcast frames (`Fanout`); when every frame held is an entrant's
    standings (``standings``), at the standings tick. Then they are framed together once and
    the same bytes go to every receiver there is at that moment (``receivers()``: sessions,
    players, or another node's connections, which take each frame with ``send``), each in one
    write with whatever else that session was waiting to send. A move so costs its audience one
    append, whatever its size; only the writes, one per receiver per tick, grow with it.

    `catch_up` hands a receiver what is held at once, ahead of its own answer (a mover gets the
    standings of its move ahead of the move's answer); the write then leaves it what came after.
    A receiver that joins before the write gets the frames held then too, which are older than
    its snapshot (clients ignore an event older than what they have: docs/protocol.md); one that
    left does not.

    Standings that come when the last frame held is standings too take its place: each
    carries the whole table, so a receiver gets the latest standings, not every one of a busy
    race (docs/protocol.md, Events). A receiver handed the frame replaced gets the new one."""

    __slots__ = ("fanout", "receivers", "frames", "urgent", "given", "last_standings", "_flush_pending",
                 "_tick_pending", "_standings_pending")

    def __init__(self, fanout: Fanout, receivers: Callable[[], Iterable[object]]) -> None:
        self.fanout = fanout
        self.receivers = receivers
        self.frames: list[bytes] = []  # encoded, not yet framed
        self.urgent = False  # a frame held is not only standings: it leaves at the fan-out tick
        self.given: dict[int, int] | None = None  # id(receiver) -> frames it was handed (`catch_up`)
        self.last_standings = False  # the last frame held is standings (which the next may replace)
        self._flush_pending = False  # (as a `Session`'s: in the fan-out's lists)
        self._tick_pending = False
        self._standings_pending = False

    def send(self, frame: bytes, standings: bool = False) -> None:
        """Hold ``frame`` (one encoded message) for every receiver, until the fan-out writes it;
        ``standings``: an entrant's standings after a move, which may wait longer, and which
        take the place of standings held last."""
        frames = self.frames
        if standings and self.last_standings and frames:
            last = len(frames) - 1
            frames[last] = frame
            given = self.given
            if given:
                for key, done in given.items():
                    if done > last:  # (it was handed the frame replaced: it gets this one)
                        given[key] = last
            self.fanout.tally.standings_superseded += 1
        else:
            frames.append(frame)
            self.last_standings = standings
            if not standings:
                self.urgent = True
        self.fanout.later(self, not self.urgent)

    def catch_up(self, receiver: object) -> None:
        """Send ``receiver`` (one of ``receivers()``) every frame held that it was not handed
        yet, now: they leave with what it is sent next, ahead of it."""
        frames = self.frames
        given = self.given
        if given is None:
            given = self.given = {}
        done = given.get(id(receiver), 0)
        if done < len(frames):
            given[id(receiver)] = len(frames)
            for frame in frames[done:]:
                receiver.send(frame)  # type: ignore[attr-defined]

    def _flush(self) -> None:
        """Write the frames held to every receiver now (called by the fan-out)."""
        self._flush_pending = self._tick_pending = self._standings_pending = False
        frames = self.frames
        if not frames:
            return
        given = self.given
        self.frames = []
        self.urgent = False
        self.given = None
        wire = websocket_frame(frames[0]) if len(frames) == 1 else b"".join(map(websocket_frame, frames))
        sent = drops = 0
        for receiver in list(self.receivers()):
            if given and (done := given.get(id(receiver), 0)):
                for frame in frames[done:]:  # (what came after its `catch_up`)
                    receiver.send(frame)  # type: ignore[attr-defined]
                continue
            session = receiver.session if type(receiver) is Player else receiver  # type: ignore[attr-defined]
            if type(session) is Session:
                if session.send_shared(wire, frames):
                    sent += 1
                elif session.closing:
                    drops += 1
            elif session is not None:  # another node's connection: it has its own way
                for frame in frames:
                    session.send(frame, later=True)  # type: ignore[attr-defined]
        tally = self.fanout.tally
        if sent:
            tally.frames_sent += sent * len(frames)
            tally.bytes_sent += sent * sum(map(len, frames))
        if drops:
            tally.queue_drops += drops


class _SetOnFirstUse:
    """A set attribute made on first use, kept in the slot of the same name with a leading
    underscore (None until then): an idle connection carries no empty sets (216 bytes each)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = f"_{name}"

    def __get__(self, obj: object, owner: type | None = None) -> set[str]:
        if obj is None:
            return self  # type: ignore[return-value]
        value = getattr(obj, self.slot)
        if value is None:
            value = set()
            setattr(obj, self.slot, value)
        return value

    def __set__(self, obj: object, value: set[str]) -> None:
        setattr(obj, self.slot, value)


class Session:
    """One websocket connection: its rate limit, its player, and the frames it is sent.

    `send` puts each frame, framed once per payload (`framed`), into the connection's own list
    of frames to write, and asks the fan-out (`Fanout`) to hand them to the transport in one
    write, at the end of the current loop turn or, for broadcast frames on a busy server, at the
    next tick: no queue, no writer task, no await per frame. What websockets writes itself (a
    pong, a close) goes its own way, whole frames between whole frames. The bytes the transport
    could not yet pass to the socket are the client's backlog; past ``max_send_buffer_bytes`` it
    is closed.
    """

    #: False: a connection to this node; True for a `RemoteSession`, another node's connection.
    remote = False

    # Slots keep an idle connection small (issue 13: at most 16 KiB of server memory each); an
    # attribute not named here still works: it goes into a ``__dict__`` made on first use.
    __slots__ = ("server", "ws", "player", "_watching", "_following", "_remote_nodes", "conn_id", "max_buffer",
                 "_direct", "_out", "_loop", "_flush_pending", "_tick_pending", "_standings_pending", "bucket", "strikes", "closing", "address",
                 "running",
                 "__dict__")

    #: Codes of the races this connection watches.
    watching = _SetOnFirstUse()
    #: Ids of the tournaments this connection follows.
    following = _SetOnFirstUse()
    #: The nodes this connection's requests were forwarded to.
    remote_nodes = _SetOnFirstUse()

    def __init__(self, server: ArenaServer, ws: ServerConnection) -> None:
        self.server = server
        self.ws = ws
        self.player: Player | None = None
        # the races watched, the tournaments followed and the nodes this connection's requests
        # were forwarded to: empty sets (216 bytes each) made on first use (`watching` etc.)
        self._watching: set[str] | None = None
        self._following: set[str] | None = None
        self._remote_nodes: set[str] | None = None
        self.conn_id = next(server._conn_ids)  # how other nodes address this connection (`server.nodes`)
        cfg = server.config
        self.max_buffer = cfg.max_send_buffer_bytes
        protocol = ws.protocol
        # frames go straight into websockets' outgoing buffer (a list it swaps for a new one at
        # each flush) when it is one, on a connection without extensions (no compression), as
        # here; else through send_binary
        self._direct = isinstance(getattr(protocol, "writes", None), list) and not protocol.extensions
        self._out: list[bytes] | None = None  # (direct) the frames framed since the last write
        self._loop = asyncio.get_running_loop()
        self._flush_pending = False  # in the fan-out's list for the end of this loop turn
        self._tick_pending = False  # in the fan-out's list for its next tick
        self._standings_pending = False  # in the fan-out's list for its next standings tick
        self.bucket = TokenBucket(cfg.rate_per_s, cfg.burst, self._loop.time())
        self.strikes = 0
        self.closing = False
        #: A frame carried out at once (`ArenaServer.take_now`) that had to wait: the task that
        #: goes on with it, which the next frame waits for; None when there is none.
        self.running: asyncio.Future[None] | None = None
        ws.session = self  # type: ignore[attr-defined]  # (read by `_Connection._read_frames`)
        remote = ws.remote_address
        self.address = ws.client if isinstance(ws, _Connection) else str(remote[0]) if remote else ""

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Send one frame without waiting: it leaves at the end of this turn of the event loop
        (an answer sooner: once the bytes its request came in are carried out), or, ``later``
        (a broadcast: standings, a spectator's event), at the server's next fan-out tick
        (`Fanout`), or, ``standings`` (an entrant's standings after another's move), at its
        next standings tick, unless something sent sooner takes it along. A client whose
        backlog is over the limit after a write is closed. Every frame the server sends to a
        client goes through here."""
        if self.closing:
            self.server.tally.queue_drops += 1
            return
        if self._direct:
            out = self._out
            if out is None:
                self._out = [framed(frame)]
            else:
                out.append(framed(frame))
        else:
            protocol = self.ws.protocol
            if protocol.state is not State.OPEN:
                return
            protocol.send_binary(frame)
        tally = self.server.tally
        tally.frames_sent += 1
        tally.bytes_sent += len(frame)
        if later:
            self.server.fanout.later(self, standings)
        elif not self._flush_pending:
            self.server.fanout.now(self)

    def send_shared(self, wire: bytes, frames: list[bytes]) -> bool:
        """Write ``frames``, encoded messages that other sessions are sent too, now, after what
        this session holds already (in one write with it): ``wire`` is the frames framed
        together, the same bytes for every receiver (`FanoutChannel`). False if the connection is
        closing and they were dropped."""
        if self.closing:
            return False
        protocol = self.ws.protocol
        if protocol._state is not _OPEN:  # (`state`, without its property call: once a write)
            return False
        if self._direct:
            out = self._out
            if out is None and not protocol.writes:  # nothing else to send: the shared bytes as they are
                transport = self.ws.transport
                self.server.tally.socket_writes += 1
                try:
                    transport.write(wire)
                except (RuntimeError, OSError):  # the transport is closing: the connection is going anyway
                    return True
                if transport.get_write_buffer_size() > self.max_buffer and not transport.is_closing():
                    self._too_slow()
                return True
            if out is None:
                self._out = [wire]
            else:
                out.append(wire)
        else:
            for frame in frames:
                protocol.send_binary(frame)
        self._flush()
        return True

    def _flush(self) -> None:
        """Hand every frame buffered so far to the transport in one write (frames sent after the
        websocket began to close are dropped); close the client if its backlog is then over the
        limit."""
        self._flush_pending = self._tick_pending = self._standings_pending = False
        ws = self.ws
        transport = ws.transport
        protocol = ws.protocol
        out = self._out
        if out is not None:
            self._out = None
            if protocol._state is _OPEN:
                self.server.tally.socket_writes += 1
                try:
                    transport.write(out[0] if len(out) == 1 else b"".join(out))
                except (RuntimeError, OSError):  # the transport is closing: the connection is going anyway
                    pass
        if protocol.writes:  # websockets' own (it writes them itself), or frames of a connection not direct
            chunks = protocol.data_to_send()
            if all(chunks):
                self.server.tally.socket_writes += 1
                try:
                    transport.write(b"".join(chunks))
                except (RuntimeError, OSError):
                    pass
            else:  # an end of stream after a close frame: let websockets write it as it does
                for chunk in chunks:
                    if chunk:
                        transport.write(chunk)
                    elif transport.can_write_eof():
                        with contextlib.suppress(Exception):
                            transport.write_eof()
        if transport.get_write_buffer_size() > self.max_buffer and not self.closing and not transport.is_closing():
            self._too_slow()

    def _too_slow(self) -> None:
        tally = self.server.tally
        tally.queue_drops += 1
        log.warning("closing a slow client (%s bytes waiting)", self.buffered,
                    extra=fields("slow_client_closed", remote=self.address,
                                 player=self.player.id if self.player else None))
        tally.slow_closes += 1
        self.closing = True
        self.server._spawn(self.ws.close(1008, "too slow: outgoing buffer full"))

    @property
    def buffered(self) -> int:
        """Bytes sent to this client that the socket has not taken yet (0 once the transport is
        gone)."""
        transport = self.ws.transport
        return transport.get_write_buffer_size() if transport is not None and not transport.is_closing() else 0

    @property
    def room(self) -> int:
        """Bytes that can still be sent before this client counts as too slow."""
        return max(0, self.max_buffer - self.buffered)

    def reply(self, message: object) -> None:
        """Encode and queue one reply."""
        self.send(encode(message))  # type: ignore[arg-type]

    def quiet_since(self, instant: float) -> float:
        """Seconds (loop time) since the later of ``instant`` and the last frame received."""
        return self._loop.time() - max(instant, self.bucket.last)

    def allow(self) -> bool:
        """Take one frame from the token bucket; False (a strike) when over the rate."""
        if self.bucket.take(self._loop.time()):
            return True
        self.strikes += 1
        return False

    async def flush(self) -> None:
        """Wait until what was sent is handed to the socket (at most one second)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + 1  # (no asyncio.timeout: this may run outside a task, `take_now`)
        while ((self._flush_pending or self._tick_pending or self._standings_pending or self.buffered)
               and self.ws.state is State.OPEN and loop.time() < until):
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        """Let what was sent leave (bounded by one second)."""
        await self.flush()


class RemoteSession(Session):
    """Another node's connection, as the node that owns a race sees it (`server.nodes`): requests
    forwarded from it are carried out as if it were connected here, and every frame sent to it
    goes back to its node, which hands it to the client. That node watches the client's backlog
    and rate; here it has room for half of the outgoing buffer."""

    remote = True

    def __init__(self, server: ArenaServer, link: NodeLink, node: str, conn: int, address: str) -> None:
        self.server = server
        self.link = link
        self.node = node
        self.conn_id = conn
        self.address = address
        self.player = None
        self.watching = set()
        self.following = set()
        self.remote_nodes = set()
        self.closing = False
        self.strikes = 0

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Queue ``frame`` for the client on its node: every frame for that node leaves in one
        batch at the end of this loop turn (``later`` and ``standings`` change nothing here)."""
        self.link.deliver(self.node, self.conn_id, frame)
        tally = self.server.tally
        tally.frames_sent += 1
        tally.bytes_sent += len(frame)

    @property
    def buffered(self) -> int:
        return 0

    @property
    def room(self) -> int:
        return self.server.config.max_send_buffer_bytes // 2

    async def flush(self) -> None:
        return None

    async def close(self) -> None:
        return None


class Keepalive:
    """Keepalive pings for every connection from one task, instead of websockets' task (and
    timer) per connection: a connection the server has heard nothing from for ``interval_s``
    seconds is pinged, and one that does not answer within ``timeout_s`` seconds is closed
    (1011, "keepalive ping timeout"), as websockets would. Anything a client sends, not only
    a pong, shows it is there, so a client that plays is not pinged. ``timeout_s`` None: pings
    are sent but never waited for.

    Each connection has one entry in a heap ordered by when to look at it next (`sweep`, every
    `STEP_S` seconds at most); a closed connection's entry is emptied (`forget`) and dropped
    when it comes up. A ping is one write of a prepared frame; its pong is read with the
    client's other frames (`_Connection._read_frames`)."""

    #: Seconds between two sweeps, at most.
    STEP_S = 0.25

    def __init__(self, server: ArenaServer, interval_s: float, timeout_s: float | None) -> None:
        self.server = server
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self.step_s = min(self.STEP_S, interval_s / 4)
        self._heap: list[list[Any]] = []  # [when, order, connection or None]
        self._order = itertools.count()
        self._payloads = itertools.count(1)
        self.tally = server.tally

    def watch(self, conn: _Connection, now: float) -> None:
        """Start pinging ``conn``, whose handshake is over (``now``: the loop's time)."""
        conn.heard_at = now
        self._push(now + self.interval_s, conn)

    def _push(self, when: float, conn: _Connection) -> None:
        entry = [when, next(self._order), conn]
        conn.keepalive_entry = entry
        heapq.heappush(self._heap, entry)

    @staticmethod
    def forget(conn: _Connection) -> None:
        """``conn`` is closed: its entry no longer holds it."""
        entry = conn.keepalive_entry
        if entry is not None:
            entry[2] = None
            conn.keepalive_entry = None

    @staticmethod
    def pong(conn: _Connection, payload: bytes) -> None:
        """``conn`` answered a ping with ``payload`` (any other pong is ignored)."""
        if payload == conn.ping_payload:
            conn.ping_payload = None

    async def run(self) -> None:
        """Sweep until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.step_s)
            self.sweep(loop.time())

    def sweep(self, now: float) -> None:
        """Look at every connection whose time has come (``now``: the loop's time): close
        those whose ping went unanswered for ``timeout_s``, ping those quiet for
        ``interval_s``, and put the others back for when they will be."""
        heap = self._heap
        interval = self.interval_s
        timeout = self.timeout_s
        while heap and heap[0][0] <= now:
            conn = heapq.heappop(heap)[2]
            if conn is None:
                continue
            conn.keepalive_entry = None
            if conn.protocol.state is not _OPEN:
                continue
            if conn.ping_payload is not None and timeout is not None:
                if now - conn.pinged_at >= timeout:
                    self.tally.keepalive_timeouts += 1
                    self.server._spawn(self._timed_out(conn))
                    continue
                self._push(conn.pinged_at + timeout, conn)
                continue
            if now - conn.heard_at < interval:
                self._push(conn.heard_at + interval, conn)
                continue
            payload = struct.pack("!I", next(self._payloads) & 0xFFFFFFFF)
            conn.ping_payload = payload
            conn.pinged_at = now
            self.tally.keepalive_pings += 1
            try:
                conn.transport.write(b"\x89\x04" + payload)  # a whole ping frame (server frames are not masked)
            except (RuntimeError, OSError):  # the transport is closing: the connection is going anyway
                continue
            self._push(now + (timeout if timeout is not None else interval), conn)

    @staticmethod
    async def _timed_out(conn: _Connection) -> None:
        log.debug("closing a connection whose keepalive ping went unanswered", extra=fields(
            "keepalive_timeout", remote=conn.client))
        with contextlib.suppress(Exception):
            async with conn.send_context():
                conn.protocol.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")


class _Connection(ServerConnection):
    """A websocket connection counted from the moment its socket is accepted, so that sockets that
    never finish the handshake count against the limits too; one over a limit is reset at once
    (no handshake, no log line per socket). ``client``: the address the limits apply to, the
    socket's peer or, behind a trusted proxy, the address the proxy forwarded.

    Once the handshake is over, the server reads the client's plain binary frames itself (every
    request of the protocol is one) and hands websockets the others, whole; websockets' parser
    costs a move about twice what this does (docs/performance.md, the seventh round). With the
    memory store and one node, a frame that finds the connection's handler waiting for one is
    carried out right here (`ArenaServer.take_now`; the eighth round)."""

    # Who reads the client's frames (`data_received`), and what that reading keeps; class
    # values until a connection needs its own, so that an idle connection carries none of them.
    _reading = _HANDSHAKE
    _head = b""  # (handshake) the request's last bytes so far, to find its end
    _request_done = False  # (handshake) the request ended where a chunk of bytes did
    _rx: bytes | None = None  # (the server reading) the start of a frame not yet whole
    _fragmented = False  # (the server reading) websockets has a fragmented message open
    session: Session | None = None  # the connection's session, once its handler made it
    # (`Keepalive`) when anything last came from the client, by the loop's clock; the payload
    # of the ping not answered yet, and when it left; the connection's entry in the keepalive's heap
    heard_at = 0.0
    ping_payload: bytes | None = None
    pinged_at = 0.0
    keepalive_entry: list[Any] | None = None

    def __init__(self, *args: object, arena: ArenaServer, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.arena = arena
        self.client = ""
        self.counted = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self.client = str(peer[0]) if peer else ""
        self.counted = self.arena._accept(self.client)
        if not self.counted:
            transport.abort()  # type: ignore[attr-defined]

    def forwarded(self, client: str) -> bool:
        """Behind a trusted proxy: count this connection against the forwarded ``client``
        address instead of the proxy's; False (and nothing changed) if that address is over its
        limit."""
        if not self.arena._accept(client, check_total=False):
            return False
        self.arena._release(self.client, total=False)
        self.client = client
        return True

    def start_keepalive(self) -> None:
        """(websockets, once the handshake is over) Ping from the server's one keepalive task."""
        keepalive = self.arena.keepalive
        if keepalive is not None:
            keepalive.watch(self, self.loop.time())

    def acknowledge_pings(self, data: bytes) -> None:
        """(websockets, for a pong it read) Tell the keepalive too."""
        Keepalive.pong(self, data)
        super().acknowledge_pings(data)

    def data_received(self, data: bytes) -> None:
        """Read the client's frames (`_read_frames`) once its handshake is over with nothing
        after it; until then, and for good once anything unusual comes, websockets reads them."""
        self.heard_at = self.loop.time()
        rx = self._rx
        if rx is not None:
            self._read_frames(rx + data if rx else data)
        elif self._reading == _HANDSHAKE:
            self._handshake_received(data)
        else:
            super().data_received(data)

    def _handshake_received(self, data: bytes) -> None:
        """Before the first frame: hand the request to websockets, and note whether it ended
        exactly where a chunk of bytes did. If it did, the client's frames start with the first
        bytes received once the connection is open, and the server reads them itself; if
        anything came after the request in the same chunk, or before the answer, websockets
        reads every frame of this connection, as it would without this class."""
        state = self.protocol.state
        if state is _OPEN and self._request_done:
            self._reading = _OWN
            self._rx = b""
            self._read_frames(data)
            return
        if state is State.CONNECTING and not self._request_done:
            head = self._head + data
            end = head.find(b"\r\n\r\n")
            if end < 0:
                self._head = head[-3:]  # the end may be split across two chunks
            elif end + 4 == len(head):
                self._request_done = True
            else:
                self._reading = _WEBSOCKETS
        else:
            self._reading = _WEBSOCKETS
        super().data_received(data)

    def _read_frames(self, buf: bytes) -> None:
        """Take each whole binary frame of ``buf`` (masked, unfragmented, at most the largest
        frame allowed: every request of the protocol) to the connection's messages, as websockets
        would, without its parser; hand websockets every other whole frame (pings, pongs, closes,
        text or fragmented frames) to handle; keep a partial frame for the next bytes. Anything
        websockets must refuse (an unmasked, oversized or 64-bit-length frame) and everything
        after it go to websockets for good, as does everything once the connection is closing.

        Then the session's answers are written at once, not at the end of the loop turn: a
        busy loop turn reads and carries out the moves of many connections, and the first
        mover's answer would wait for all of them."""
        if self.protocol._state is not _OPEN:
            self._give_up(buf)
            return
        size = len(buf)
        pos = 0
        limit = self.protocol.max_message_size or 0
        messages = self.recv_messages
        while size - pos >= 2:
            first = buf[pos]
            second = buf[pos + 1]
            length = second & 0x7F
            start = pos + 6  # the payload's, after the mask
            if length == 126:
                start = pos + 8
                if size < start:
                    break
                length = (buf[pos + 2] << 8) | buf[pos + 3]
            if not second & 0x80 or length > limit or length == 127:
                self._give_up(buf[pos:])
                return
            end = start + length
            if end > size:
                break
            if first == 0x82 and not self._fragmented:
                payload = apply_mask(buf[start:end], buf[start - 4:start])
                session = self.session
                if (session is not None and session.running is None and self.arena.takes_at_once
                        and _waits_for_a_frame(messages)):
                    self.arena.take_now(session, payload)
                else:
                    messages.put(Frame(Opcode.BINARY, payload))
            elif first == 0x8A and length <= 125:  # a pong (a longer one is for websockets to refuse)
                Keepalive.pong(self, apply_mask(buf[start:end], buf[start - 4:start]))
            else:
                opcode = first & 0x0F
                if opcode and opcode < 3:  # a text or binary frame: its message may go on
                    self._fragmented = not first & 0x80
                elif not opcode and first & 0x80:  # the message's last frame
                    self._fragmented = False
                super().data_received(buf[pos:end])
                if self.protocol.state is not _OPEN:
                    self._give_up(buf[end:])
                    return
            pos = end
        self._rx = buf[pos:] if pos < size else b""
        session = self.session
        if session is not None and session._flush_pending:  # its answers leave now, not at the turn's end
            session._flush()

    def _give_up(self, rest: bytes) -> None:
        self._rx = None
        self._reading = _WEBSOCKETS
        if rest:
            super().data_received(rest)

    def eof_received(self) -> None:
        if self._rx is not None:
            self._give_up(self._rx)  # a frame cut short: websockets says so as it would
        super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        Keepalive.forget(self)
        if self.counted:
            self.counted = False
            self.arena._release(self.client)


class ArenaServer:
    """The Patience Arena server: races in a `Store` (memory by default), served over websockets.

    >>> async def main():
    ...     async with ArenaServer() as server:
    ...         return server.url.startswith("ws://127.0.0.1:")
    >>> asyncio.run(main())
    True
    """

    def __init__(self, config: ServerConfig | None = None, *, store: Store | None = None,
                 clock: Clock | None = None) -> None:
        self.config = config or ServerConfig()
        self.clock = clock or Clock()
        self._own_store = store is None  # a store it was given is its giver's to close
        if store is not None:
            self.store = store
        elif self.config.redis_url is not None:
            self.store = RedisStore(self.config.redis_url, max_events=self.config.max_events_per_race,
                                    node_id=self.config.node_id or "node")
        else:
            self.store = MemoryStore(max_events=self.config.max_events_per_race, now=self.clock.monotonic)
        self.races: dict[str, Race] = {}
        self.players: dict[str, Player] = {}  # by token
        self.players_by_id: dict[str, Player] = {}
        self.sessions: set[Session] = set()
        self.tournaments: dict[str, Tournament] = {}
        self.schedules: dict[str, CreateTournament] = {}  # recurring: by schedule id
        self._pending: dict[str, str] = {}  # schedule id -> its pending tournament's id
        self.lobby = Lobby()
        self.replays = Replays()
        self.par = ParService(self.config.par_workers, self.config.par_nodes, self.config.par_seconds)
        self.web = WebClient()
        self.public_deals = DealSource(self.config.catalog_dir, private=False)
        self.private_deals = DealSource(self.config.private_catalog_dir, private=True)
        self.connections = 0  # accepted sockets, handshake or not
        self.by_address: Counter[str] = Counter()
        self.race_counts: Counter[str] = Counter()  # races in memory by status
        self._created = WindowCounter(_HOUR_S)  # race creations: keys "p:<player id>", "a:<address>"
        self._expiring: deque[tuple[float, str]] = deque()  # (when, race code): open-race time to live
        self._retiring: deque[tuple[float, str, str]] = deque()  # (when, "race"/"tournament", id) to leave memory
        self._leaving: deque[tuple[float, str]] = deque()  # (when, token) of a player who disconnected
        self._freed = 0  # races and players that left memory since it was last given back
        self._server: Server | None = None
        self._tasks: set[asyncio.Task[object]] = set()
        self.tally = Tally()
        self.fanout = Fanout(self.config.fanout_tick_ms, self.config.fanout_busy_share,
                             self.config.standings_tick_ms, self.tally)
        self.metrics = Metrics(self.tally, self._counts)
        self.fanout.observe_delay = self.metrics.observe_fanout_delay
        interval = self.config.ping_interval_s
        self.keepalive = Keepalive(self, interval, self.config.ping_timeout_s) if interval else None
        self._metrics_from = [ipaddress.ip_network(a, strict=False) for a in self.config.metrics_from]
        self.draining = False  # shutting down: new requests are refused (`shutdown`)
        self._busy = 0  # requests being carried out now
        self._resumed: dict[str, set[str]] = {}  # player id -> rebuilt races it entered or created, until its hello
        self._conn_ids = itertools.count(1)
        self.sessions_by_conn: dict[int, Session] = {}
        self.link: NodeLink | None = None  # with Redis: this node among the others (`server.nodes`)
        self.node_id = ""
        self.schedule_file: str | Path | None = None  # `serve`'s TOML schedule file, loaded by the leader

    # ------------------------------------------------------------------------- lifecycle

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Connect to the store, then listen on ``host``:``port`` (0 picks a free port; see
        `url`). Raises `StoreUnavailable` (an OSError) if the store does not answer, OSError if
        the address cannot be used (e.g. the port is taken)."""
        cfg = self.config
        if isinstance(self.store, RedisStore):
            # a node restarted on the same port is the same node: it resumes its own races
            # (a server on a port picked at random, as in tests, keeps the id its store was given)
            self.node_id = cfg.node_id or (f"{socket.gethostname()}:{port}" if port else self.store.node_id)
            self.store.node_id = self.node_id
        try:
            await self.store.open()
        except StoreUnavailable:
            if self._own_store:
                await self.store.close()
            raise
        log.info("keeping races in %s", self.store, extra=fields("store_opened", store=str(self.store)))
        limit_repeats("arena.server", "arena.requests", "asyncio", "websockets.server", window_s=cfg.log_repeat_s)
        if self.store.durable:
            try:
                if isinstance(self.store, RedisStore):  # the lease first: nobody takes over what it resumes
                    self.link = NodeLink(self, self.store, lease_s=cfg.lease_s, forward_timeout_s=cfg.forward_timeout_s)
                    await self.link.join()
                await self._resume_races()
                if self.link is not None:
                    await self.link.start()
            except StoreUnavailable:
                if self._own_store:
                    await self.store.close()
                raise
        self._fit_open_files()
        self._server = await websockets.serve(
            self._handle,
            host,
            port,
            compression=None,
            max_size=cfg.max_frame_bytes,
            max_queue=16,
            open_timeout=cfg.open_timeout_s,
            ping_interval=None,  # (the server's own: `Keepalive`)
            process_request=self._http,
            create_connection=functools.partial(_Connection, arena=self),  # type: ignore[arg-type]
        )
        self._spawn(self._housekeeping())
        if self.keepalive is not None:
            self._spawn(self.keepalive.run())
        self._spawn(self._measure_lag())
        if self.fanout.max_tick_s and 0 < self.fanout.busy_share <= 1:
            self._spawn(self._measure_load())
        log.info("serving on %s", self.url,
                 extra=fields("server_started", url=self.url, store=type(self.store).__name__,
                              durable=self.store.durable, max_connections=cfg.max_connections,
                              shutdown_grace_s=cfg.shutdown_grace_s))
        log.info("open %s/ in a browser to play, watch and follow tournaments", self.url.replace("ws://", "http://", 1))

    async def _resume_races(self) -> None:
        """Rebuild every race the durable store lists as still in play (`Race.rebuild`), oldest
        first, and restart its timers; a race that cannot be rebuilt is logged and left in the
        store. Its players get their races back at their hello (`_hello`: their tokens are in the
        store). A tournament's deal races are rebuilt so too, then the tournaments themselves,
        which take their races back (`_resume_tournaments`). A race in memory already is left as
        it is, so that calling this again is harmless."""
        began = time.perf_counter()
        codes = await self.store.live_races()
        races, skipped = [], 0
        for code in codes:
            if code in self.races:
                continue
            meta = await self.store.load_race(code)
            if meta is None:
                continue  # archived since it was listed
            try:
                races.append(await Race.rebuild(code, meta, store=self.store, clock=self.clock))
            except RebuildError as exc:
                skipped += 1
                log.error("race %s not resumed: %s", code, exc,
                          extra=fields("race_not_resumed", race=code, reason=str(exc)))
        for race in sorted(races, key=lambda r: (r.created_ms, r.code)):
            self.add_race(race, resumed=True)
            players = {race.creator, *race.entrants} if race.casual else set(race.entrants)  # (not a tournament)
            for player in players:
                self._resumed.setdefault(player, set()).add(race.code)
        for race in races:
            await race.resume()
        took_ms = (time.perf_counter() - began) * 1000
        if codes:
            log.info("resumed %d races from the store in %.0f ms (%d left as they are)", len(races), took_ms, skipped,
                     extra=fields("races_resumed", races=len(races), skipped=skipped, took_ms=round(took_ms, 1)))
        if self.leading:  # among several nodes only the leader runs tournaments
            await self._resume_tournaments()

    @property
    def leading(self) -> bool:
        """True if this server runs the tournaments: on its own, always; among several nodes, while
        it holds the leader lock (`server.nodes`)."""
        return self.link is None or self.link.leading

    async def became_leader(self) -> None:
        """This node has just taken the leader lock over (the leader died or stopped), and the
        races of the dead nodes: resume the tournaments and schedules from the store, then
        schedule those of its own schedule file that the store lacks (`load_schedule`; an entry
        the old leader scheduled already is known by its digest). A file that has gone bad since
        the start is logged, not raised: the lead is kept."""
        await self._resume_tournaments()
        if self.schedule_file is not None:
            try:
                self.load_schedule(self.schedule_file)
            except (ScheduleError, ProtocolError, OSError) as exc:
                log.error("node %s leads now, but its schedule file cannot be loaded: %s", self.node_id, exc)

    async def _resume_tournaments(self) -> None:
        """Rebuild every tournament the durable store lists as live and memory lacks
        (`Tournament.rebuild`: after `_resume_races`, whose deal races it takes back), and go on
        with it (`Tournament.resume`); one that cannot be rebuilt is logged and left in the
        store. Its entrants are the players in memory, or players awaited until their hello
        (`player_by_id`). Then every kept recurring schedule comes back (`schedules`): its
        pending occurrence is the rebuilt one not started yet, or, if the server stopped between
        an occurrence's start and the next one's creation, the next one is scheduled now, once.
        A tournament or schedule in memory already is left as it is, so that calling this again
        is harmless."""
        began = time.perf_counter()
        ids = await self.store.live_tournaments()
        rebuilt, skipped = [], 0
        for tournament_id in ids:
            if tournament_id in self.tournaments:
                continue
            meta = await self.store.load_tournament(tournament_id)
            if meta is None:
                continue  # archived since it was listed
            try:
                rebuilt.append(await Tournament.rebuild(self, tournament_id, meta))
            except RebuildError as exc:
                skipped += 1
                log.error("tournament %s not resumed: %s", tournament_id, exc,
                          extra=fields("tournament_not_resumed", tournament=tournament_id, reason=str(exc)))
        kept = await self.store.schedules()
        for schedule_id, data in kept.items():
            if schedule_id in self.schedules:
                continue
            try:
                self.schedules[schedule_id] = msgspec.msgpack.decode(data, type=CreateTournament)
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                log.error("schedule %s not resumed: %s", schedule_id, exc,
                          extra=fields("schedule_not_resumed", schedule=schedule_id, reason=str(exc)))
        for tournament in sorted(rebuilt, key=lambda t: (t.plan.starts_at_ms, t.id)):
            self.tournaments[tournament.id] = tournament
            for entrant in tournament.entrants.values():
                entrant.player.tournaments.add(tournament.id)
            schedule_id = _schedule_id(tournament)
            if schedule_id in self.schedules and tournament.status in ("scheduled", "registration"):
                self._pend(schedule_id, tournament)
            if tournament.status in ("finished", "cancelled"):
                self.tournament_ended(tournament)  # it leaves memory after the retention, as it would have
            tournament.resume()
            _tournaments_log.info("tournament %s resumed (%s, %d entrants, %d races, event %d)", tournament.id,
                                  tournament.status, len(tournament.entrants), len(tournament.races),
                                  tournament.version,
                                  extra=fields("tournament_resumed", tournament=tournament.id, status=tournament.status,
                                               entrants=len(tournament.entrants), races=len(tournament.races),
                                               version=tournament.version, schedule=tournament.plan.schedule))
        for schedule_id in list(self.schedules):
            pending = self.tournaments.get(self._pending.get(schedule_id, ""))
            if pending is not None and pending.status in ("scheduled", "registration"):
                continue
            # Every occurrence there is has started (or there is none): the next one, after the latest.
            latest = max((t.plan.starts_at_ms for t in self.tournaments.values() if _schedule_id(t) == schedule_id),
                         default=0)
            self._next_occurrence(schedule_id, max(latest, self.clock.wall_ms()))
        took_ms = (time.perf_counter() - began) * 1000
        if ids or kept:
            log.info("resumed %d tournaments and %d schedules from the store in %.0f ms (%d left as they are)",
                     len(rebuilt), len(self.schedules), took_ms, skipped,
                     extra=fields("tournaments_resumed", tournaments=len(rebuilt), schedules=len(self.schedules),
                                  skipped=skipped, took_ms=round(took_ms, 1)))

    def player_by_id(self, player_id: str, name: str) -> Player:
        """The player ``player_id`` for a rebuilt tournament's entrant (`TournamentHost`): the
        one in memory, else a new disconnected one without a token, which a later hello with
        that player's token becomes (`_stored_player`), so that the tournament's frames reach it
        from then on. Until then nothing is sent to it; it leaves memory with its tournaments
        (`_retire_tournament`) if it never comes back."""
        player = self.players_by_id.get(player_id)
        if player is None:
            player = Player(id=player_id, name=name, token="")
            player.left_at = self.clock.monotonic()
            self.players_by_id[player_id] = player
        return player

    def _fit_open_files(self) -> None:
        """Make sure ``max_connections`` sockets fit under the process's open-files limit: raise
        the soft limit as far as the hard one allows, else lower ``max_connections`` and say so."""
        cfg = self.config
        needed = cfg.max_connections + _SPARE_FILES
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < needed:
            target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
        if soft != resource.RLIM_INFINITY and soft < needed:
            fitted = max(1, soft - _SPARE_FILES)
            log.warning("the open-files limit is %d, too low for max_connections %d: serving at most %d "
                        "connections (raise it with `ulimit -n` or systemd's LimitNOFILE)",
                        soft, cfg.max_connections, fitted)
            cfg.max_connections = fitted

    @property
    def url(self) -> str:
        """``ws://host:port`` of the listening socket."""
        assert self._server is not None, "start() first"
        host, port = list(self._server.sockets)[0].getsockname()[:2]
        return f"ws://{host}:{port}"

    async def shutdown(self) -> None:
        """Stop gracefully, within ``config.shutdown_grace_s`` seconds, in this order:

        1. stop listening (a handshake in progress gets 503), answer ``GET /healthz`` with 503,
           and refuse every new request with ``unavailable`` but hello, sync, get_record and
           replay;
        2. let the requests already being carried out finish: every move in flight gets its
           answer, and one that was accepted is in its race's log;
        3. over a store that is not durable (the memory store: nothing survives the process), end
           every unfinished tournament and race with reason ``server_shutdown``, seeds and salts
           revealed as at any end, so that every entrant and spectator holds the final standings;
           over a durable store (Redis) nothing ends: races and tournaments stay as they are, and
           the server that starts next over the same store resumes them (`start`: the races, then
           the tournaments and their schedules, which go on where they stood), their entrants
           reconnecting to it;
        4. keep the connections open until each has been quiet for half a second (no frame from
           it, nothing left to send it), two seconds at most: time to ask for the records;
        5. close every connection with 1001 "server shutting down", and cut off a peer that has
           not answered within two seconds;
        6. `close`: timers, tasks and the par workers.

        Steps 2 to 4 end when the grace, less the time kept for step 5, is over. Usually it all
        takes about half a second; with peers that keep talking or never answer, about four plus
        what the requests in hand take. Calling it again does nothing.
        """
        if self.draining:
            return
        self.draining = True
        loop = asyncio.get_running_loop()
        began = loop.time()
        grace = self.config.shutdown_grace_s
        deadline = began + grace
        closing_at = deadline - min(_CLOSE_S, grace / 4)
        log.info("shutting down within %g s", grace,
                 extra=fields("server_stopping", grace_s=grace, sessions=len(self.sessions),
                              races=sum(self.race_counts.values()), durable=self.store.durable))
        if self._server is not None:
            self._server.server.close()  # no new sockets; websockets answers a handshake in progress 503
        await _until(lambda: self._busy == 0, closing_at)
        races = tournaments = 0
        if not self.store.durable:
            try:
                async with asyncio.timeout_at(closing_at):
                    races, tournaments = await self._end_all("server_shutdown")
            except TimeoutError:
                log.warning("shutdown: the grace ran out while ending races")
        ended_at = loop.time()
        await _until(lambda: all(s.closing or s.ws.state is not State.OPEN
                                 or (not s.buffered and s.quiet_since(ended_at) >= _QUIET_S)
                                 for s in self.sessions), min(closing_at, ended_at + _LINGER_S))
        closed = await self._close_connections(min(deadline, loop.time() + _CLOSE_S))
        await self.close()
        log.info("stopped after %.2f s: %d races and %d tournaments ended, %d connections closed",
                 loop.time() - began, races, tournaments, closed,
                 extra=fields("server_stopped", took_s=round(loop.time() - began, 3), races_ended=races,
                              tournaments_ended=tournaments, connections_closed=closed))

    async def _end_all(self, reason: str, *, all_races: bool = True) -> tuple[int, int]:
        """End every unfinished tournament (its races with it) and, with ``all_races``, every
        other unfinished race too, with ``reason``, seeds revealed (an arena tournament's deals
        included); the numbers of races (counted here only with ``all_races``) and tournaments
        ended."""
        tournaments = [t for t in self.tournaments.values() if t.status not in ("finished", "cancelled")]
        races = [r for r in self.races.values() if r.status != "finished"] if all_races else []
        for tournament in tournaments:
            for race in tournament.races:
                race.reveal()  # the tournament ends here: nothing is left to hold its seeds for
            await tournament.cancel(reason)
        for race in races:
            race.reveal()
            await race.stop(reason)
        return len(races), len(tournaments)

    async def _close_connections(self, deadline: float) -> int:
        """Close every connection with 1001 and wait for them (and their handlers) until
        ``deadline`` (loop time); cut off those still open then. The number closed."""
        if self._server is None:
            return 0
        connections = list(self._server.connections)
        for connection in connections:
            self._spawn(connection.close(1001, SHUTDOWN_REASON))
        self._server.close()  # and wait for the handlers to return
        try:
            async with asyncio.timeout_at(max(deadline, asyncio.get_running_loop().time() + 0.1)):
                await self._server.wait_closed()
        except TimeoutError:
            stuck = list(self._server.all_connections)
            log.warning("shutdown: cutting off %d connections that did not close in time", len(stuck))
            for connection in stuck:
                connection.transport.abort()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(1):
                    await self._server.wait_closed()
        return len(connections)

    async def close(self) -> None:
        """Stop listening, close every connection, cancel every race timer, stop the par workers
        and let go of the store (one the server built itself)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        self.par.close()
        for tournament in self.tournaments.values():
            if tournament.task is not None:
                tournament.task.cancel()
        for race in list(self.races.values()):
            await race.close()
        for task in list(self._tasks):
            task.cancel()
        if self.link is not None:
            await self.link.stop(release=self.draining)  # after a graceful shutdown the others take over at once
            self.link = None
        if self._own_store:
            await self.store.close()

    async def __aenter__(self) -> ArenaServer:
        if self._server is None:
            await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _spawn(self, coro: object) -> None:
        task = asyncio.ensure_future(coro)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _accept(self, address: str, *, check_total: bool = True) -> bool:
        """A socket from ``address`` was accepted: count it, or refuse it (False) when over a
        limit. A trusted proxy's address has no limit of its own (its clients' addresses do)."""
        cfg = self.config
        if check_total and self.connections >= cfg.max_connections:
            log.warning("refusing connections: %d open (max_connections)", self.connections)
            return False
        if address not in cfg.trusted_proxies and self.by_address[address] >= cfg.max_connections_per_ip:
            log.warning("refusing connections from %s: %d open (max_connections_per_ip)", address,
                        self.by_address[address])
            return False
        if check_total:
            self.connections += 1
        self.by_address[address] += 1
        return True

    def _release(self, address: str, *, total: bool = True) -> None:
        if total:
            self.connections -= 1
        self.by_address[address] -= 1
        if not self.by_address[address]:
            del self.by_address[address]

    def _http(self, connection: ServerConnection, request: object) -> object:
        """At the handshake: ``GET /healthz`` answers the server's counts (200, or 503 while it
        shuts down); a connection through a trusted proxy is counted against the client address
        the proxy forwarded (the last one in ``X-Forwarded-For``, or ``X-Real-IP``), and refused
        with 429 if that address is over its limit; ``GET /metrics`` answers the metrics
        (`server.metrics`) to the ``metrics_from`` addresses and 403 to the others; any other
        request that is not a websocket upgrade gets the web client (`server.web`)."""
        headers = getattr(request, "headers", {})
        path = getattr(request, "path", "")
        route = path.split("?", 1)[0]
        if route == "/healthz":
            response = connection.respond(503 if self.draining else 200, json.dumps(self.health()) + "\n")
            response.headers["Content-Type"] = "application/json"
            return response
        if isinstance(connection, _Connection) and connection.client in self.config.trusted_proxies:
            chain = headers.get("X-Forwarded-For") or headers.get("X-Real-IP") or ""
            client = chain.split(",")[-1].strip()
            if client and not connection.forwarded(client):
                return connection.respond(429, "too many connections from your address\n")
        if route == "/metrics":
            client = connection.client if isinstance(connection, _Connection) else ""
            if not self._may_read_metrics(client):
                return connection.respond(403, "metrics are served to the addresses of --metrics-from only\n")
            return Response(200, "OK", Headers({"Content-Type": CONTENT_TYPE, "Cache-Control": "no-store"}),
                            self.metrics.render())
        if headers.get("Upgrade", "").lower() != "websocket":
            return self.web.respond(path, headers)
        return None

    def _may_read_metrics(self, client: str) -> bool:
        try:
            address = ipaddress.ip_address(client)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self._metrics_from)

    def _counts(self) -> dict[str, object]:
        """The counts `server.metrics.Metrics` reads at each scrape (tournaments: a count by
        status over the tournaments in memory, which their retention keeps few)."""
        return {
            "connections": self.connections,
            "sessions": len(self.sessions),
            "players": len(self.players),
            "races": self.race_counts,
            "tournaments": Counter(t.status for t in self.tournaments.values()),
            "shutting_down": self.draining,
            "fanout_tick_ms": self.fanout.tick_s * 1000,
            "loop_busy_share": self.fanout.busy,
        }

    async def _measure_lag(self) -> None:
        """Feed the event-loop lag histogram: how late a sleep of ``_LAG_INTERVAL_S`` wakes up."""
        loop = asyncio.get_running_loop()
        while True:
            began = loop.time()
            await asyncio.sleep(_LAG_INTERVAL_S)
            self.metrics.observe_lag(loop.time() - began - _LAG_INTERVAL_S)

    async def _measure_load(self) -> None:
        """Feed the fan-out (`Fanout.adapt`) the share of each `Fanout.LOAD_INTERVAL_S` that the
        event loop's thread spent on the CPU."""
        loop = asyncio.get_running_loop()
        fanout = self.fanout
        while True:
            began, cpu = loop.time(), time.thread_time()
            await asyncio.sleep(fanout.LOAD_INTERVAL_S)
            if fanout.adapt((time.thread_time() - cpu) / max(loop.time() - began, 1e-3)):
                extra = fields("fanout_tick", busy=round(fanout.busy, 3), tick_ms=fanout.tick_s * 1000)
                if fanout.tick_s:  # (two messages: the log's repeat limit would take the second for the first)
                    log.info("event loop busy %.0f%% of the time: broadcast frames wait up to %g ms to leave together",
                             fanout.busy * 100, fanout.tick_s * 1000, extra=extra)
                else:
                    log.info("event loop busy %.0f%% of the time: broadcast frames leave at once again",
                             fanout.busy * 100, extra=extra)

    def health(self) -> dict[str, object]:
        """What ``GET /healthz`` reports: ``status`` (``ok``, or ``shutting_down`` with HTTP 503),
        connections (accepted sockets), sessions (said hello or not), players, races by status,
        tournaments."""
        return {
            "status": "shutting_down" if self.draining else "ok",
            "connections": self.connections,
            "sessions": len(self.sessions),
            "players": len(self.players),
            "races": dict(sorted(self.race_counts.items())),
            "tournaments": len(self.tournaments),
        }

    # ------------------------------------------------------------------------ connections

    async def _handle(self, ws: ServerConnection) -> None:
        # the handshake's request and response headers (about 3 KiB) are never read again: an
        # idle connection should not carry them for its whole life. The request itself stays
        # (websockets reads a request of None as "no handshake yet", and its parser holds it).
        if ws.request is not None:
            ws.request.headers.clear()
        ws.response = None
        # websockets keeps the futures of writers waiting for a drain in a deque (about 700 bytes
        # even when empty); it only appends, removes and iterates, which a list does as well
        if isinstance(getattr(ws, "drain_waiters", None), deque) and not ws.drain_waiters:
            ws.drain_waiters = []
        session = Session(self, ws)
        self.sessions.add(session)
        self.sessions_by_conn[session.conn_id] = session
        if _connections_log.isEnabledFor(logging.DEBUG):
            _connections_log.debug("connection from %s opened", session.address,
                                   extra=fields("connection_opened", remote=session.address))
        loop = asyncio.get_running_loop()
        hello_timer = loop.call_later(self.config.hello_timeout_s, self._hello_overdue, session)
        try:
            async for frame in ws:
                if session.running is not None:  # the frame before, carried out at once, still waits
                    await asyncio.shield(session.running)
                await self._take(session, frame)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection handler failed; closing that connection")
            await _close_quietly(ws, 1011, "internal error")
        finally:
            if session.running is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(session.running)
            hello_timer.cancel()
            self.sessions.discard(session)
            del self.sessions_by_conn[session.conn_id]
            if self.link is not None and session.remote_nodes:
                self.link.closed(session)
            player = session.player
            if player is not None and player.session is session:
                _players_log.info("%s left", player.name,
                                  extra=fields("player_left", player=player.id, player_name=player.name,
                                               remote=session.address, races=len(player.races) or None))
            if _connections_log.isEnabledFor(logging.DEBUG):
                _connections_log.debug("connection from %s closed", session.address,
                                       extra=fields("connection_closed", remote=session.address,
                                                    player=player.id if player else None, code=ws.close_code,
                                                    reason=ws.close_reason or None))
            self._forget(session)
            await session.close()

    async def _take(self, session: Session, frame: bytes | str) -> None:
        """Carry out one frame from ``session``'s client, unless the connection is closing (its
        frames are read only so that its close is seen) or over its rate (a strike, and the
        connection closed after ``max_strikes``)."""
        if session.closing:
            return
        if not session.allow():
            self.tally.refused[ErrorCode.RATE_LIMITED] += 1  # counted, not logged (the close is)
            session.reply(Error(code=ErrorCode.RATE_LIMITED, reason="too many frames: slow down",
                                req=request_number(frame)))
            if session.strikes > self.config.max_strikes:
                session.closing = True
                log.warning("closing %s: rate limit exceeded", session.address,
                            extra=fields("rate_limit_closed", remote=session.address,
                                         player=session.player.id if session.player else None))
                await session.flush()
                self._spawn(session.ws.close(1008, "rate limit exceeded"))
            return
        await self._receive(session, frame)

    @property
    def takes_at_once(self) -> bool:
        """True when a client's frame may be carried out within the callback that read it
        (`take_now`): with the memory store and no other node, a request waits for nothing that
        needs a task of its own (a timeout, the store's client)."""
        return self.link is None and isinstance(self.store, MemoryStore)

    def take_now(self, session: Session, frame: bytes) -> None:
        """Carry out ``frame`` within the callback that read it, instead of handing it to the
        connection's handler task; only for a connection whose handler waits for a frame with
        none queued (`_Connection._read_frames` checks), so frames are still carried out in
        order. Most requests finish without waiting for anything (with the memory store, every
        move): that saves a queue, a wake-up and a turn of the handler per frame. One that must
        wait (the store, a lock, another node) goes on in a task of its own, `Session.running`,
        which the handler waits for before it takes the next frame."""
        take = self._take(session, frame)
        try:
            waiting = take.send(None)
        except StopIteration:
            return
        except BaseException as exc:
            self._taken_badly(session, exc)
            return
        session.running = asyncio.ensure_future(self._go_on(session, take, waiting))

    async def _go_on(self, session: Session, take: Coroutine[Any, Any, None], waiting: object) -> None:
        try:
            await _carry_on(take, waiting)
        except BaseException as exc:
            self._taken_badly(session, exc)
        finally:
            session.running = None

    def _taken_badly(self, session: Session, exc: BaseException) -> None:
        """What the handler does with a frame that raised (`_handle`): a closed connection ends
        quietly; anything else is logged, and the connection closed with 1011."""
        if isinstance(exc, ConnectionClosed):
            return
        if not isinstance(exc, Exception):
            raise exc  # (a cancellation, or the process going down)
        session.closing = True  # (its later frames are read, not carried out, as after `_handle` fails)
        log.error("connection handler failed; closing that connection", exc_info=exc)
        self._spawn(_close_quietly(session.ws, 1011, "internal error"))

    async def _receive(self, session: Session, frame: bytes | str) -> None:
        """Decode one frame and carry it out; a refusal is answered with its code (a move's
        refusal as a `MoveResult`, anything else as an `Error` with the request's ``req``). A
        store that cannot be reached refuses the request with ``unavailable``."""
        message: ClientMessage | None = None
        self._busy += 1
        try:
            try:
                message = decode(frame)
                requests = self.tally.requests
                requests[type(message)] = requests.get(type(message), 0) + 1
                if self.link is not None and not self.draining:
                    owner = await self.link.route(session, message)
                    if owner is not None:  # another node serves that race: it answers the client through us
                        await self.link.forward(owner, session, frame if isinstance(frame, bytes) else frame.encode(),
                                                message)
                        return
                await self._dispatch(session, message)
            except StaleRace as exc:  # another node took the race over, or its log moved on: let it go
                log.warning("%s: it leaves this node's memory", exc,
                            extra=fields("race_lost", race=exc.code, reason=str(exc)))
                await self.let_go(exc.code)
                raise ProtocolError(ErrorCode.UNAVAILABLE, f"race {exc.code} moved to another node: send it "
                                                           "again") from exc
            except StoreUnavailable as exc:
                log.warning("store unavailable: %s", exc)
                raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot reach its store: try again "
                                                           "in a moment") from exc
        except ProtocolError as exc:
            self._refused(session, message, exc)
            if isinstance(message, MoveRequest):
                session.reply(MoveResult(race=message.race, seq=message.seq, move=message.move, ok=False,
                                         code=exc.code, reason=exc.reason))
            else:
                req = getattr(message, "req", None) if message is not None else exc.req
                session.reply(Error(code=exc.code, reason=exc.reason, req=req))
        finally:
            self._busy -= 1

    def _refused(self, session: Session, message: ClientMessage | None, exc: ProtocolError) -> None:
        """Count a refusal by its code and log it (a line per code at most every
        ``log_repeat_s``). A refused move counts among the moves refused; the others among the
        requests refused. The reason never quotes a token."""
        if isinstance(message, MoveRequest):
            self.tally.moves_refused[exc.code] += 1
        else:
            self.tally.refused[exc.code] += 1
        kind = type(message).__struct_config__.tag if message is not None else None
        player = session.player
        _requests_log.info("refused %s: %s", kind or "a frame", exc.reason,
                           extra=fields("request_refused", code=exc.code, type=kind, remote=session.address,
                                        player=player.id if player else None,
                                        race=getattr(message, "race", None)))

    def _hello_overdue(self, session: Session) -> None:
        if session.player is None and not session.closing:
            session.closing = True
            self._spawn(session.ws.close(1008, f"no hello within {self.config.hello_timeout_s:g} s"))

    def _forget(self, session: Session) -> None:
        """A connection ended (or was replaced by the same player's new one): stop sending it
        anything. Costs what the session itself watched and followed, nothing more."""
        for tournament_id in session.following:
            tournament = self.tournaments.get(tournament_id)
            if tournament is not None:
                tournament.followers.discard(session)
        session.following.clear()
        for code in session.watching:
            race = self.races.get(code)
            if race is not None:
                race.unwatch(session)
        session.watching.clear()
        player = session.player
        if player is not None and player.session is session:
            player.session = None
            player.left_at = self.clock.monotonic()
            self._leaving.append((player.left_at + self.config.player_retention_s, player.token))
            self._listen(player, None)

    def _listen(self, player: Player, listener: Player | None) -> None:
        """Point the player's entries in its races at ``listener`` (None: disconnected)."""
        for code in player.races:
            race = self.races.get(code)
            entrant = race.entrants.get(player.id) if race is not None else None
            if entrant is not None:
                entrant.listener = listener

    # --------------------------------------------------------------------------- dispatch

    async def _dispatch(self, session: Session, message: ClientMessage) -> None:
        if self.draining and not isinstance(message, _WHILE_DRAINING):
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the server is shutting down: it answers only hello, sync, "
                                                       "get_record and replay until it closes the connection")
        if isinstance(message, Hello):
            await self._hello(session, message)
            return
        player = session.player
        if player is None:
            raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first")
        match message:
            case Rename():
                await self._rename(session, player, message)
            case CreateRace():
                await self._create(session, player, message)
            case ListRaces():
                if self.link is not None:  # every node's races, from the shared lobby in Redis
                    infos, cursor = await self.link.lobby_page(message.status, message.before, message.limit)
                    session.reply(Races(req=message.req, races=infos, cursor=cursor))
                    return
                codes, cursor = self.lobby.page(message.status, before=message.before, limit=message.limit)
                session.reply(Races(req=message.req, races=[self.races[c].info() for c in codes], cursor=cursor))
            case JoinRace():
                race = self._race(message.race)
                if not race.casual:
                    raise ProtocolError(ErrorCode.NOT_ALLOWED, "a tournament enters its own entrants in its deals")
                await race.join(player.id, player.name, player)
                session.watching.discard(race.code)  # joining ended the watch
                player.races.add(race.code)
                if self.link is not None and race.status == "open":
                    self.link.listed(race, "open")  # the lobby shows the new entrant
                session.reply(RaceReply(req=message.req, race=race.info()))
                if race.rematch_of is not None and (old := self.races.get(race.rematch_of)) is not None:
                    await old.offer_rematch(race)
            case StartRace():
                race = self._race(message.race)
                await race.start(player.id)
                session.reply(RaceReply(req=message.req, race=race.info()))
            case MoveRequest():
                session.send(await self._race(message.race).play(player.id, message))
            case Resign():
                race = self._race(message.race)
                await race.resign(player.id)
                session.reply(RaceReply(req=message.req, race=race.info()))
            case Watch():
                race = self._race(message.race)
                self._watch(session, player, race)
                session.reply(race.snapshot(message.req, player.id, spectator=True))
            case Sync():
                await self._sync(session, player, message)
            case GetRecord():
                session.reply(await self._record(message.race, message.req))
            case CreateTournament():
                self._check_admin(message.admin_token)
                tournament = await self._create_tournament(message)
                session.reply(TournamentReply(req=message.req, tournament=tournament.info()))
            case CancelTournament():
                self._check_admin(message.admin_token)
                session.reply(TournamentReply(req=message.req, tournament=await self._cancel(message.tournament)))
            case ListTournaments():
                newest = list(itertools.islice(reversed(self.tournaments.values()), 200))
                session.reply(Tournaments(req=message.req, tournaments=[t.info() for t in reversed(newest)]))
            case FollowTournament():
                tournament = self._tournament(message.tournament)
                tournament.followers.add(session)
                session.following.add(tournament.id)
                session.reply(TournamentSnapshot(req=message.req, tournament=tournament.info(),
                                                 standings=tournament.standings()))
            case RegisterTournament():
                tournament = self._tournament(message.tournament)
                await tournament.register(player)
                player.tournaments.add(tournament.id)
                session.reply(TournamentReply(req=message.req, tournament=tournament.info()))
            case WithdrawTournament():
                tournament = self._tournament(message.tournament)
                await tournament.withdraw(player)
                session.reply(TournamentReply(req=message.req, tournament=tournament.info()))
            case DoubleOrNaught():
                session.reply(await self._race(message.race).double_or_naught(player.id, message.req))
            case BonusMove():
                race = self._race(message.race)
                session.reply(await race.double_or_naught(player.id, message.req, message.move))
            case OpenDeal():
                race = await self._tournament(message.tournament).open_deal(player)
                session.reply(RaceReply(req=message.req, race=race.info()))
            case Rematch():
                race = await self._rematch(session, player, self._race(message.race))
                session.reply(RaceReply(req=message.req, race=race.info()))
            case Replay():
                record = await self._record(message.race, message.req)
                session.reply(self.replays.step(record, message.player, message.step, message.req))

    async def _hello(self, session: Session, hello: Hello) -> None:
        """Welcome a new player, or resume the player whose token ``hello`` carries: from memory,
        or (a durable store) from the store after a restart, with the races it had. Over a
        durable store a new player is saved before it is welcomed, and a resumed one's keep time
        renewed."""
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_HELLO, "this connection already said hello")
        if hello.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                ErrorCode.PROTOCOL_VERSION,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.protocol}",
            )
        durable = self.store.durable
        if hello.token is not None:
            player = self.players.get(hello.token)
            if player is None and durable:
                player = await self._stored_player(hello.token)
            if player is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown session token: say hello without one")
            if durable:
                await self._keep_player(player, renew=True)
            old = player.session
            if old is not None and old is not session:
                self._forget(old)  # from now on nothing reaches the old connection
                old.closing = True
                self._spawn(old.ws.close(1008, "session resumed on another connection"))
            _players_log.info("%s resumed", player.name,
                              extra=fields("player_resumed", player=player.id, player_name=player.name,
                                           remote=session.address, replaced=old is not None and old is not session))
        else:
            try:
                name = normal_name(hello.name)
            except BadName as exc:
                raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
            player = Player(id="p" + secrets.token_hex(4), name=name, token=secrets.token_urlsafe(24))
            while player.id in self.players_by_id or player.id in self._resumed:
                player.id = "p" + secrets.token_hex(4)
            if durable:
                await self._keep_player(player, renew=False)  # nothing is acknowledged before it is stored
            self.players[player.token] = player
            self.players_by_id[player.id] = player
            _players_log.info("%s said hello", player.name,
                              extra=fields("player_hello", player=player.id, player_name=player.name,
                                           remote=session.address))
        player.session = session
        session.player = player
        self._listen(player, player)
        session.reply(
            Welcome(player=player.id, name=player.name, token=player.token, protocol=PROTOCOL_VERSION,
                    server_time_ms=self.clock.wall_ms(), node=self.node_id)
        )

    async def _stored_player(self, token: str) -> Player | None:
        """The player a durable store keeps under ``token`` (a server restarted since its hello),
        now in memory again with the rebuilt races it entered or created; None if unknown. The
        entrant of a rebuilt tournament is the `Player` that tournament holds (`player_by_id`),
        so that the tournament's frames reach it from now on."""
        stored = await self.store.player_by_token(token_digest(token))
        if stored is None:
            return None
        player = self.players.get(token)  # another hello with the same token got here first
        if player is not None:
            return player
        return self._player_back(token, stored.player, stored.name)

    def _player_back(self, token: str, player_id: str, name: str) -> Player:
        """Player ``player_id``, whose ``token`` was checked, in memory again: the `Player` a
        rebuilt tournament holds for it if there is one (`player_by_id`: it gets its token), else
        a new one; either way with the rebuilt races it entered or created."""
        player = self.players_by_id.get(player_id)
        if player is not None and not player.token:  # awaited by a rebuilt tournament
            player.token = token
        else:
            player = Player(id=player_id, name=name, token=token)
        for code in self._resumed.pop(player.id, ()):
            race = self.races.get(code)
            if race is None:
                continue
            if player.id in race.entrants:
                player.races.add(code)
            if race.creator == player.id and race.status == "open":
                player.open_races.add(code)
        self.players[token] = player
        self.players_by_id[player.id] = player
        return player

    async def _rename(self, session: Session, player: Player, msg: Rename) -> None:
        """Give ``player`` the name ``msg`` asks for, for the races and tournaments it enters from
        now on (saved first over a durable store, so that a resumed session keeps it)."""
        try:
            name = normal_name(msg.name)
        except BadName as exc:
            raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
        old, player.name = player.name, name
        if self.store.durable:
            try:
                await self._keep_player(player, renew=False)
            except StoreUnavailable:
                player.name = old
                raise
        _players_log.info("%s is now %s", old, name,
                          extra=fields("player_renamed", player=player.id, player_name=name, old_name=old))
        session.reply(Renamed(req=msg.req, name=name))

    async def _keep_player(self, player: Player, *, renew: bool) -> None:
        """Save ``player`` (its id, name and token digest) in the durable store, for as long as a
        race may still need its token. A renewal that fails is logged, not refused: the saved
        one still holds."""
        cfg = self.config
        keep_s = cfg.player_retention_s + cfg.open_race_ttl_s + _LONGEST_RACE_S
        try:
            await self.store.save_player(player.id, token_digest(player.token), player.name, keep_s)
        except StoreUnavailable as exc:
            if not renew:
                raise
            log.warning("player %s: keep time not renewed: %s", player.id, exc)

    async def _create(self, session: Session, player: Player, msg: CreateRace) -> None:
        try:
            game_cls = find_game(msg.game)
        except UnknownGame as exc:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
        self._check_creation(session, player)
        public = msg.seed is not None or msg.seed_public
        seed = msg.seed
        try:
            if seed is None and msg.winnable:
                game_cls(0, **msg.options)  # refuse bad options before a deal is drawn (and used up)
                if public:
                    seed = self._draw_winnable(game_cls.key, 1, private=False)[0]
                else:
                    seed = (await self._winnable_secret_seeds(game_cls.key, 1, msg.options))[0]
        except BadNotation as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
        race = await self._open_race(session, player, game_cls, seed=seed, seed_public=public, options=msg.options,
                                     max_entrants=msg.max_entrants, countdown_s=msg.countdown_s,
                                     time_limit_s=msg.time_limit_s, spectator_delay_s=msg.spectator_delay_s)
        if msg.join:
            await race.join(player.id, player.name, player)
            player.races.add(race.code)
        session.reply(RaceReply(req=msg.req, race=race.info()))

    async def _open_race(self, session: Session, player: Player, game_cls: type, *, seed: int | None,
                         seed_public: bool, **settings: object) -> Race:
        """Create a casual race by ``player`` (``seed`` None: a random secret one) and keep it;
        raises ProtocolError (too_many_races, bad_option)."""
        self._check_creation(session, player)
        try:
            race = Race(
                self.new_race_code(),
                game_cls,
                seed=seed if seed is not None else random_seed(),
                seed_public=seed_public,
                creator=player.id,
                store=self.store,
                clock=self.clock,
                **settings,  # type: ignore[arg-type]
            )
        except BadNotation as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
        now = self.clock.monotonic()
        self._created.add(f"p:{player.id}", now)
        self._created.add(f"a:{session.address}", now)
        player.open_races.add(race.code)
        self.add_race(race)
        await race._save()
        return race

    async def _rematch(self, session: Session, player: Player, old: Race) -> Race:
        """Join the rematch of the finished race ``old``, creating it (same game, options and
        limits; a new secret deal; ``player`` its creator) if none is open; then tell ``old``'s
        audience who has accepted. Raises ProtocolError (not_entrant, not_allowed for a
        tournament's deal, not_finished, too_many_races)."""
        if player.id not in old.entrants:
            raise ProtocolError(ErrorCode.NOT_ENTRANT, f"only the entrants of race {old.code} can ask for its rematch")
        if not old.casual:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "a tournament's deal has no rematch")
        if old.status != "finished":
            raise ProtocolError(ErrorCode.NOT_FINISHED, f"race {old.code} is not finished")
        race = self.races.get(old.rematch) if old.rematch else None
        if race is None or race.status != "open":
            race = await self._open_race(session, player, old.game_cls, seed=None, seed_public=False,
                                         options=old.options, max_entrants=old.max_entrants,
                                         countdown_s=old.countdown_s, time_limit_s=old.time_limit_s,
                                         spectator_delay_s=old.spectator_delay_s)
            race.rematch_of = old.code
        if player.id not in race.entrants:
            await race.join(player.id, player.name, player)
            player.races.add(race.code)
        await old.offer_rematch(race)
        return race

    def _check_creation(self, session: Session, player: Player) -> None:
        """Refuse (too_many_races) a player over its open races, or a player or an address over
        its races created in the last hour."""
        cfg = self.config
        now = self.clock.monotonic()
        if len(player.open_races) >= cfg.max_open_races_per_player:
            raise ProtocolError(ErrorCode.TOO_MANY_RACES,
                                f"you have {len(player.open_races)} races that have not started: start them, "
                                f"or wait for them to expire, before creating another")
        if self._created.count(f"p:{player.id}", now) >= cfg.races_per_hour_per_player:
            raise ProtocolError(ErrorCode.TOO_MANY_RACES,
                                f"a player may create {cfg.races_per_hour_per_player} races an hour")
        if self._created.count(f"a:{session.address}", now) >= cfg.races_per_hour_per_ip:
            raise ProtocolError(ErrorCode.TOO_MANY_RACES,
                                f"{cfg.races_per_hour_per_ip} races an hour may be created from one address")

    def _watch(self, session: Session, player: Player, race: Race) -> None:
        if not race.may_watch(player.id):
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "an entrant may not watch a race it is still playing")
        race.watch(session, player.id)
        session.watching.add(race.code)

    async def _sync(self, session: Session, player: Player, msg: Sync) -> None:
        """Send the events after ``msg.since`` for the receiver's audience, then a snapshot; at
        most one page of events per request (`SyncPage` then says where to go on from), and no
        more than half of the client's outgoing buffer has room for."""
        race = self._race(msg.race)
        spectator = session in race.spectators or player.id not in race.entrants
        if spectator and session not in race.spectators:  # a spectator back on a new connection
            self._watch(session, player, race)
        page = self.config.sync_page_events
        budget = session.room // 2  # the rest stays for the snapshot and live events meanwhile
        async with race.lock:  # no event may slip in between the missed ones and the snapshot
            frames = await race.missed(msg.since, spectator=spectator, limit=page + 1)
            sent = size = 0
            for frame in (frames or ())[:page]:
                if sent and size + len(frame) > budget:
                    break
                session.send(frame)
                sent, size = sent + 1, size + len(frame)
            if frames is not None and len(frames) > sent:
                session.reply(SyncPage(req=msg.req, race=race.code, until=msg.since + sent, version=race.version))
                return
            session.reply(race.snapshot(msg.req, player.id, spectator=spectator))

    async def _record(self, code: str, req: int) -> RaceRecord:
        """A finished race's record: from the race in memory, or from the store once it left."""
        race = self.races.get(code.upper())
        if race is not None:
            return await race.record(req)
        kept = await self.store.load_record(code.upper())
        if kept is None:
            raise ProtocolError(ErrorCode.UNKNOWN_RACE, f"no race with code {code!r} (or its record has expired)")
        record = msgspec.msgpack.decode(kept, type=RaceRecord)
        record.req = req
        return record

    # ---------------------------------------------------------------------- races in memory

    def add_race(self, race: Race, *, resumed: bool = False) -> None:
        """Make ``race`` reachable by its code, under the server's limits: idle timeout, move cap,
        time to live while open, and retention once finished. ``resumed``: a race rebuilt from
        the store after a restart (`_resume_races`), in whatever status it had: an open one
        keeps what was left of its time to live, a finished one its retention from now."""
        race.idle_timeout_s = self.config.idle_timeout_s
        race.max_moves = self.config.max_moves
        race.on_status = self._race_status
        race.tally = self.tally
        race.entrant_channel = FanoutChannel(self.fanout, race.listeners)
        race.spectator_channel = FanoutChannel(self.fanout, race.spectators.keys)
        self.races[race.code] = race
        if resumed:
            _races_log.info("race %s resumed (%s, %d entrants, event %d)", race.code, race.status, len(race.entrants),
                            race.version,
                            extra=fields("race_resumed", race=race.code, game=race.game_cls.key, status=race.status,
                                         entrants=len(race.entrants), version=race.version,
                                         moves=sum(e.moves for e in race.entrants.values())))
        else:
            _races_log.info("race %s created", race.code,
                            extra=fields("race_created", race=race.code, game=race.game_cls.key,
                                         creator=race.creator if race.casual else None,
                                         tournament=None if race.casual else race.creator,
                                         seed=race.seed if race.seed_public else None, seed_public=race.seed_public,
                                         max_entrants=race.max_entrants, time_limit_s=race.time_limit_s))
        self.race_counts[race.status] += 1
        listing = {"open": "open", "starting": "live", "running": "live"}.get(race.status) if race.casual else None
        self.lobby.add(race.code, listing)
        if self.link is not None and listing is not None:
            self.link.listed(race, listing)
        now = self.clock.monotonic()
        if race.casual and race.status == "open":
            ttl_s = self.config.open_race_ttl_s
            if resumed:
                ttl_s = max(0.0, ttl_s - (self.clock.wall_ms() - race.created_ms) / 1000)
            self._expiring.append((now + ttl_s, race.code))
        elif resumed and race.status == "finished":
            self._retiring.append((now + self.config.race_retention_s, "race", race.code))

    async def adopt_race(self, code: str) -> bool:
        """Bring race ``code``, which this node owns now (taken over from a dead node, or its own
        before a restart), into memory from the store, as a restarted server does
        (`_resume_races`), and restart its timers; its players already here get it back at once,
        the others at their hello. False if the store has no such race or it cannot be rebuilt
        (logged). Raises `StoreUnavailable`."""
        if code in self.races:
            return True
        meta = await self.store.load_race(code)
        if meta is None:
            return False
        try:
            race = await Race.rebuild(code, meta, store=self.store, clock=self.clock)
        except RebuildError as exc:
            log.error("race %s not taken over: %s", code, exc, extra=fields("race_not_resumed", race=code,
                                                                             reason=str(exc)))
            return False
        if code in self.races:  # rebuilt meanwhile by another request
            return True
        self.add_race(race, resumed=True)
        for player_id in {race.creator, *race.entrants}:
            player = self.players_by_id.get(player_id)
            if player is None:
                self._resumed.setdefault(player_id, set()).add(code)
                continue
            if player_id in race.entrants:
                player.races.add(code)
                race.entrants[player_id].listener = player
            if race.creator == player_id and race.status == "open":
                player.open_races.add(code)
        await race.resume()
        return True

    async def let_go(self, code: str) -> None:
        """Race ``code`` is no longer this node's (`server.store.redis.StaleRace`): drop it from
        memory, and close its spectators' connections here with 1012 so that they reconnect and
        watch it where it is served now (its entrants reach it with their next request)."""
        if self.link is not None:
            self.link.lost(code)
        race = self.races.get(code)
        if race is None:
            return
        for spectator in list(race.spectators):
            if isinstance(spectator, Session) and not spectator.remote and not spectator.closing:
                spectator.closing = True
                self._spawn(spectator.ws.close(1012, f"race {code} moved to another node: reconnect"))
        await self._drop_race(race)

    def remote_player(self, token: str, player_id: str, name: str) -> Player:
        """The player of a request forwarded by another node, which checked its token: the one in
        memory, else the one a rebuilt tournament awaits, else a new one (`_player_back`), with
        the races it entered that this node rebuilt. Its name is the one the request carries (the
        player may have renamed itself on its own node)."""
        player = self.players.get(token)
        if player is not None:
            player.name = name
            return player
        return self._player_back(token, player_id, name)

    def _race_status(self, race: Race, old: str) -> None:
        """Keep the lobby, the counts and the creator's open races in step with a race's status."""
        self.race_counts[old] -= 1
        if not self.race_counts[old]:
            del self.race_counts[old]
        self.race_counts[race.status] += 1
        listing = "live" if race.status in ("starting", "running") else None
        self.lobby.move(race.code, listing)
        if self.link is not None:
            self.link.listed(race, listing)
        if old == "open":
            creator = self.players_by_id.get(race.creator)
            if creator is not None:
                creator.open_races.discard(race.code)
        if race.status == "finished":
            self._retiring.append((self.clock.monotonic() + self.config.race_retention_s, "race", race.code))
            if self.par.workers and race.revealed and race.entrants and not self.draining:
                self._spawn(self._work_out_par(race))

    async def _work_out_par(self, race: Race) -> None:
        """Ask the solver, in a worker process, what the finished race's deal allowed."""
        par = await self.par.compute(race.game_cls.key, race.seed, race.options)
        if par is not None:
            await race.set_par(par)

    def tournament_ended(self, tournament: Tournament) -> None:
        """A tournament finished or was cancelled: it leaves memory after ``race_retention_s``."""
        self._retiring.append((self.clock.monotonic() + self.config.race_retention_s, "tournament", tournament.id))

    async def _housekeeping(self) -> None:
        while True:
            await self.clock.sleep_until(self.clock.monotonic() + self.config.sweep_interval_s)
            try:
                await self.sweep()
            except Exception:
                log.exception("housekeeping failed; trying again at the next sweep")

    async def sweep(self) -> None:
        """Apply the time limits that are due: end open races nobody started, let finished races
        and tournaments leave memory (their records go to the store), forget idle players. Each
        kind waits in a queue ordered by when it is due, so a sweep costs what it removes."""
        now = self.clock.monotonic()
        retired = len(self.races) + len(self.players)
        while self._expiring and self._expiring[0][0] <= now:
            _, code = self._expiring.popleft()
            race = self.races.get(code)
            if race is not None:
                await race.expire()  # logged as race_finished, reason expired
        while self._retiring and self._retiring[0][0] <= now:
            _, kind, ident = self._retiring.popleft()
            if kind == "race":
                await self._retire_race(ident, now)
            else:
                await self._retire_tournament(ident, now)
        while self._leaving and self._leaving[0][0] <= now:
            _, token = self._leaving.popleft()
            self._retire_player(token, now)
        self._freed += retired - len(self.races) - len(self.players)
        quiet = retired == len(self.races) + len(self.players)
        if self._freed >= _TRIM_EVERY or (quiet and self._freed >= _TRIM_MIN):
            _give_back_memory()  # once a large burst of evictions is over, and now and then during one
            self._freed = 0

    async def _retire_race(self, code: str, now: float) -> None:
        race = self.races.get(code)
        if race is None:
            return
        if not race.revealed:  # an arena deal holds its seed until its tournament ends
            self._retiring.append((now + self.config.race_retention_s, "race", code))
            return
        try:
            record = encode(await race.record(0)) if race.started_at is not None else None
            await self.store.archive_race(code, record, self.config.record_retention_s)
        except StaleRace:  # another node serves it now, and archives it in its time
            await self._drop_race(race)
            return
        except StoreUnavailable as exc:  # it stays in memory; tried again at the next sweep
            log.warning("race %s cannot leave memory yet: %s", code, exc)
            self._retiring.appendleft((now + self.config.sweep_interval_s, "race", code))
            return
        await self._drop_race(race)

    async def _drop_race(self, race: Race) -> None:
        """Take ``race`` out of this node's memory (its timers stop), and out of its players' and
        spectators' lists; the store keeps whatever it has of it."""
        code = race.code
        del self.races[code]
        self.race_counts[race.status] -= 1
        if not self.race_counts[race.status]:
            del self.race_counts[race.status]
        self.lobby.forget(code)
        for entrant in race.entrants.values():
            player = self.players_by_id.get(entrant.player)
            if player is not None:
                player.races.discard(code)
        for player_id in {race.creator, *race.entrants}:
            waiting = self._resumed.get(player_id)
            if waiting is not None:
                waiting.discard(code)
                if not waiting:
                    del self._resumed[player_id]
        for spectator in list(race.spectators):
            if isinstance(spectator, Session):
                spectator.watching.discard(code)
        race.spectators.clear()
        await race.close()

    async def _retire_tournament(self, tournament_id: str, now: float) -> None:
        """A finished or cancelled tournament leaves memory: its races (their records go to the
        store), then its description in a durable store (if the store cannot be reached, it
        stays in memory and is tried again at the next sweep), then its followers' and
        entrants' lists; an entrant awaited since a restart that never came back goes too."""
        tournament = self.tournaments.get(tournament_id)
        if tournament is None:
            return
        for race in tournament.races:
            await self._retire_race(race.code, now)
        if self.store.durable:
            try:
                await self.store.archive_tournament(tournament_id)
            except StoreUnavailable as exc:
                log.warning("tournament %s cannot leave memory yet: %s", tournament_id, exc)
                self._retiring.appendleft((now + self.config.sweep_interval_s, "tournament", tournament_id))
                return
        del self.tournaments[tournament_id]
        for follower in tournament.followers:
            if isinstance(follower, Session):
                follower.following.discard(tournament_id)
        for entrant in tournament.entrants.values():
            player = self.players_by_id.get(entrant.player.id)
            if player is not None:
                player.tournaments.discard(tournament_id)
                if not player.token and not player.tournaments and not player.races:
                    del self.players_by_id[player.id]  # awaited since a restart, never back: nothing needs it

    def _retire_player(self, token: str, now: float) -> None:
        player = self.players.get(token)
        if player is None or player.session is not None or now < player.left_at + self.config.player_retention_s:
            return  # gone already, back online, or it left again later (a later entry stands for that)
        racing = any(
            race.status != "finished" and not race.entrants[player.id].done
            for code in player.races
            if (race := self.races.get(code)) is not None and player.id in race.entrants
        )
        waiting = any(
            t.status not in ("finished", "cancelled")
            for tid in player.tournaments
            if (t := self.tournaments.get(tid)) is not None
        )
        if racing or waiting or player.open_races:  # its races and tournaments still need its token
            self._leaving.append((now + self.config.player_retention_s, token))
            return
        del self.players[token]
        del self.players_by_id[player.id]
        if self.store.durable:  # forgotten here, forgotten by the store: its token no longer resumes
            self._spawn(self._forget_stored_player(token))

    async def _forget_stored_player(self, token: str) -> None:
        try:
            await self.store.forget_player(token_digest(token))
        except StoreUnavailable as exc:  # it expires by itself
            log.warning("a forgotten player stays in the store until it expires: %s", exc)

    # ------------------------------------------------------------------------- tournaments

    def _check_admin(self, token: str) -> None:
        expected = self.config.admin_token
        if expected is None or not hmac.compare_digest(token.encode(), expected.encode()):
            raise ProtocolError(ErrorCode.NOT_ORGANISER, "only an organiser holding the admin token may do that")

    def _draw_winnable(self, game: str, count: int, *, private: bool) -> list[int]:
        """``count`` winnable seeds of ``game``: from the private catalog for secret deals, from
        the public one for deals whose seed is public anyway. Raises ProtocolError
        (no_private_catalog, no_catalog)."""
        source = self.private_deals if private else self.public_deals
        try:
            return source.draw(game, count)
        except CatalogError as exc:
            if private:
                raise ProtocolError(
                    ErrorCode.NO_PRIVATE_CATALOG,
                    f"no secret winnable {game} deals to draw ({exc}): an operator builds a private catalog with "
                    f"`arena catalog {game} --private DIR` and serves it with `arena serve --private-catalog DIR`; "
                    f"the public catalog serves only practice races, whose seed is public",
                ) from None
            raise ProtocolError(ErrorCode.NO_CATALOG, f"no winnable {game} deals to draw: {exc}") from None

    async def _winnable_secret_seeds(self, game: str, count: int, options: dict[str, bool]) -> list[int]:
        """``count`` secret seeds of ``game`` known to be winnable: fresh ones the solver proves
        winnable within the ``winnable_*`` budgets (in the par workers, never on the event loop),
        and the rest from the private catalog. Raises ProtocolError (no_private_catalog) when
        the solver found too few and the catalog cannot make up the rest; then the solver's
        finds are dropped (they were never shown to anyone)."""
        search = WinnableSearch(nodes=self.config.winnable_nodes, seconds=self.config.winnable_seconds,
                                wait_s=self.config.winnable_wait_s)
        proved = await self.par.winnable_seeds(game, count, options, search)
        try:
            drawn = self._draw_winnable(game, count - len(proved), private=True) if len(proved) < count else []
        except ProtocolError as exc:
            raise ProtocolError(exc.code, f"the solver proved {len(proved)} of {count} fresh {game} deals winnable "
                                          f"within {search.wait_s:g} s, and {exc.reason}") from None
        log.info("%d winnable secret %s deals: %d proved by the solver, %d from the private catalog", count, game,
                 len(proved), len(drawn))
        return proved + drawn

    async def _create_tournament(self, msg: CreateTournament) -> Tournament:
        """An organiser's request: check it, then, for winnable deals with no seeds given, let the
        solver find fresh secret ones (`_winnable_secret_seeds`: the private catalog makes up the
        rest), and schedule the tournament. Raises ProtocolError and creates nothing if any part
        is wrong."""
        game_cls, starts_at = self._check_tournament(msg)
        seeds = None
        if msg.winnable and msg.seeds is None:
            seeds = await self._winnable_secret_seeds(game_cls.key, msg.deals, dict(msg.options))
        return self._create_checked(msg, game_cls, starts_at, seeds)

    def create_tournament(self, msg: CreateTournament) -> Tournament:
        """Check an organiser's request and schedule the tournament (or the first occurrence of a
        recurring one), winnable deals from the private catalog; raises ProtocolError and creates
        nothing if any part is wrong."""
        game_cls, starts_at = self._check_tournament(msg)
        return self._create_checked(msg, game_cls, starts_at, None)

    def _check_tournament(self, msg: CreateTournament) -> tuple[type, int]:
        """The game and the start instant (epoch ms) of a tournament request; raises
        ProtocolError naming what is wrong with it."""
        try:
            game_cls = find_game(msg.game)
        except UnknownGame as exc:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
        try:
            game_cls(0, **msg.options)
        except BadNotation as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
        try:
            normal_name(msg.name, max_chars=64)
        except BadName as exc:
            raise ProtocolError(ErrorCode.BAD_NAME, f"tournament name: {exc.reason}") from None
        if msg.deals < 1:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "a tournament needs at least one deal")
        if msg.seeds is not None and len(msg.seeds) != msg.deals:
            raise ProtocolError(ErrorCode.BAD_TOURNAMENT, f"{len(msg.seeds)} seeds given for {msg.deals} deals")
        if (msg.starts_at is None) == (msg.cron is None):
            raise ProtocolError(ErrorCode.BAD_SCHEDULE, "give either starts_at (one-off) or cron (recurring)")
        now = self.clock.wall_ms()
        try:
            time_zone(msg.timezone)
            if msg.cron is not None:
                starts_at = next_occurrences(msg.cron, msg.timezone, after_ms=now, count=1)[0]
            else:
                starts_at = parse_start(msg.starts_at or "", now_ms=now)
        except ScheduleError as exc:
            raise ProtocolError(ErrorCode.BAD_SCHEDULE, str(exc)) from None
        return game_cls, starts_at

    def _create_checked(self, msg: CreateTournament, game_cls: type, starts_at: int,
                        seeds: list[int] | None, *, ident: str | None = None) -> Tournament:
        """Schedule a checked tournament request (``seeds``: winnable ones already found).
        ``ident``: the digest of a schedule file's entry (`load_schedule`), which names its
        schedule (``S`` + it) or its one-off tournament (``T`` + it) at every start."""
        if (seeds is None and msg.winnable and msg.seeds is None
                and self.private_deals.available(game_cls.key) < msg.deals):
            self._draw_winnable(game_cls.key, msg.deals, private=True)  # raises: too few secret deals
        schedule_id = None
        if msg.cron is not None:
            schedule_id = "S" + (ident or secrets.token_hex(3).upper())
            self.schedules[schedule_id] = msg
            if self.store.durable:  # a restarted server goes on with the series (`_resume_tournaments`)
                self._spawn(self._keep_schedule(schedule_id, msg))
        return self._schedule(msg, game_cls, starts_at, schedule_id, seeds,
                              tournament_id=f"T{ident}" if ident is not None and schedule_id is None else None)

    async def _keep_schedule(self, schedule_id: str, msg: CreateTournament) -> None:
        """Save a recurring schedule's request in the store (not its admin token); if the store
        cannot be reached, say so: the series goes on in memory, and its first occurrence is
        kept (a restart then finds it, without its schedule)."""
        try:
            await self.store.save_schedule(schedule_id, msgspec.msgpack.encode(
                msgspec.structs.replace(msg, req=0, admin_token="-")))
        except StoreUnavailable as exc:
            log.warning("schedule %s not stored: %s", schedule_id, exc)

    def _pend(self, schedule_id: str, tournament: Tournament) -> None:
        """``tournament`` is schedule ``schedule_id``'s pending occurrence: the next one is
        scheduled when it starts (`_next_occurrence`)."""
        tournament.on_starting = lambda t: self._next_occurrence(schedule_id, t.plan.starts_at_ms)
        self._pending[schedule_id] = tournament.id

    def _schedule(self, msg: CreateTournament, game_cls: type, starts_at: int, schedule_id: str | None,
                  found: list[int] | None = None, *, tournament_id: str | None = None) -> Tournament:
        if found is not None:
            seeds = tuple(found)
        elif msg.seeds is not None:
            seeds = tuple(msg.seeds)
        elif msg.winnable:
            seeds = tuple(self._draw_winnable(game_cls.key, msg.deals, private=True))
        else:
            seeds = tuple(random_seed() for _ in range(msg.deals))
        plan = TournamentPlan(
            name=normal_name(msg.name, max_chars=64), game_cls=game_cls, options=dict(msg.options),
            format=msg.format, seeds=seeds, starts_at_ms=starts_at, deal_time_limit_s=msg.deal_time_limit_s,
            max_entrants=msg.max_entrants, registration_opens_s=msg.registration_opens_s,
            arena_window_s=msg.arena_window_s, break_s=msg.break_s, countdown_s=msg.countdown_s,
            schedule=f"{schedule_id}: {msg.cron}" if schedule_id else None, timezone=msg.timezone,
            spectator_delay_s=msg.spectator_delay_s,
        )
        tournament = Tournament(self, tournament_id or "T" + secrets.token_hex(3).upper(), plan)
        if schedule_id is not None:
            self._pend(schedule_id, tournament)
        self.tournaments[tournament.id] = tournament
        tournament.start()
        _tournaments_log.info("tournament %s %r created, starting at %s", tournament.id, plan.name,
                              iso_time(plan.starts_at_ms),
                              extra=fields("tournament_created", tournament=tournament.id, tournament_name=plan.name,
                                           game=game_cls.key, format=plan.format, deals=len(plan.seeds),
                                           starts_at=iso_time(plan.starts_at_ms),
                                           registration_opens_at=iso_time(tournament.registration_opens_ms),
                                           status=tournament.status, schedule=plan.schedule,
                                           timezone=plan.timezone))
        return tournament

    def _next_occurrence(self, schedule_id: str, after_ms: int) -> None:
        msg = self.schedules.get(schedule_id)
        if msg is not None and msg.cron is not None:
            starts_at = next_occurrences(msg.cron, msg.timezone, after_ms=after_ms, count=1)[0]
            try:
                self._schedule(msg, find_game(msg.game), starts_at, schedule_id)
            except ProtocolError as exc:  # e.g. the private catalog ran out of deals
                log.error("schedule %s: cannot schedule the next occurrence: %s", schedule_id, exc)

    async def _cancel(self, target: str) -> object:
        """Cancel a tournament, or a schedule (its pending occurrence, and the series). A
        schedule's pending occurrence cancelled on its own is skipped: the series goes on with
        the next one (as a restarted server would go on with it, `_resume_tournaments`)."""
        target = target.upper()  # ids are shown in capitals; like race codes, any case finds them
        if target in self.schedules:  # a schedule: no more occurrences, and the pending one goes
            if self.store.durable:
                await self.store.drop_schedule(target)  # (raises StoreUnavailable: refused, nothing changed)
            del self.schedules[target]
            pending = self.tournaments.get(self._pending.pop(target, ""))
            if pending is None or pending.status not in ("scheduled", "registration"):
                raise ProtocolError(ErrorCode.UNKNOWN_TOURNAMENT, f"schedule {target} has no pending tournament")
            await pending.cancel()
            return pending.info()
        tournament = self._tournament(target)
        pending = tournament.status in ("scheduled", "registration")
        await tournament.cancel()
        schedule_id = _schedule_id(tournament)
        if pending and schedule_id in self.schedules and self._pending.get(schedule_id) == tournament.id:
            self._next_occurrence(schedule_id, tournament.plan.starts_at_ms)
        return tournament.info()

    def load_schedule(self, path: str | Path) -> list[Tournament]:
        """Schedule every tournament of a TOML schedule file (`server.schedule`); raises
        ScheduleError or ProtocolError naming the first bad entry, before scheduling any.

        Each entry's schedule (or one-off tournament) is named by a digest of the entry, so
        that one a durable store kept (`_resume_tournaments`: call this after `start`) is not
        scheduled again: its pending tournament is returned instead. An entry removed from the
        file does not end its schedule: cancel it by its id."""
        messages = []
        for number, table in enumerate(load_schedule_file(path), 1):
            try:
                messages.append(msgspec.convert({"req": 0, "admin_token": "file", **table}, CreateTournament))
            except msgspec.ValidationError as exc:
                raise ScheduleError(f"tournament {number} in {str(path)!r}: {exc}") from None
        made = []
        for msg in messages:
            ident = hashlib.sha256(msgspec.msgpack.encode(msg)).hexdigest()[:6].upper()
            if msg.cron is not None and f"S{ident}" in self.schedules:  # kept by the store: going on already
                pending = self.tournaments.get(self._pending.get(f"S{ident}", ""))
                made.extend([pending] if pending is not None else [])
            elif msg.cron is None and f"T{ident}" in self.tournaments:
                made.append(self.tournaments[f"T{ident}"])
            else:
                made.append(self._create_checked(msg, *self._check_tournament(msg), None, ident=ident))
        return made

    def _tournament(self, tournament_id: str) -> Tournament:
        tournament = self.tournaments.get(tournament_id.upper())
        if tournament is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r}")
        return tournament

    def _race(self, code: str) -> Race:
        race = self.races.get(code.upper())
        if race is None:
            raise ProtocolError(ErrorCode.UNKNOWN_RACE, f"no race with code {code!r}")
        return race

    def new_race_code(self) -> str:
        """A six-character race code that no race has."""
        while True:
            code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))
            if code not in self.races:
                return code


async def serve(host: str = "127.0.0.1", port: int = 8765, config: ServerConfig | None = None,
                *, tournaments: str | Path | None = None, stop: asyncio.Event | None = None) -> None:
    """Run a server until ``stop`` is set, then shut it down gracefully within its
    ``shutdown_grace_s`` (`ArenaServer.shutdown`; `arena serve` sets it on SIGTERM and SIGINT);
    if cancelled instead, it closes at once. ``tournaments``: a TOML schedule file whose
    tournaments are scheduled at start (each is logged as ``tournament_created``), once the
    server has resumed what a durable store kept, so that none is scheduled twice (a file that
    cannot be read stops the server before it listens). Among several nodes only the leader
    schedules them; a node that takes the lead later does then (`became_leader`)."""
    server = ArenaServer(config)
    if tournaments is not None:
        load_schedule_file(tournaments)
        server.schedule_file = tournaments
    await server.start(host, port)
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, server.config.gc_full_threshold)
    gc.freeze()  # modules, catalogs, the server itself: never garbage, never scanned again
    try:
        if tournaments is not None and server.leading:
            server.load_schedule(tournaments)
        if stop is None:
            await asyncio.Future()  # until cancelled
        else:
            await stop.wait()
            await server.shutdown()
    finally:
        await server.close()
