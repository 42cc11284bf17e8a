"""What the server knows of one client connection: `Session`.

A session carries out its client's frames in order (`Session.take`): within the callback that
read them when nothing needs waiting for (with the memory store, every move), else in one task
that lives while frames wait. It sends frames without a queue or a task per frame: each is framed
once per payload and written with the others that connection is sent in the same loop turn, or
at the fan-out's next tick (`server.transport.fanout.Fanout`). A client that reads too slowly
(more than ``max_send_buffer_bytes`` waiting) is closed with 1008, "too slow"; one that sends
frames (requests, pings, pongs, fragments: `count_frame`) faster than its rate gets
``rate_limited`` (a ping: no pong) and, after ``max_strikes``, is closed with 1008.
"""

from __future__ import annotations

import asyncio
import logging
import types
from collections import deque
from collections.abc import Coroutine, Generator
from typing import TYPE_CHECKING, Any, Protocol

from server.config import ServerConfig
from server.limits import TokenBucket
from server.logs import fields
from server.metrics import Tally
from server.protocol import ErrorCode, encode
from server.transport.frames import framed

if TYPE_CHECKING:
    from server.players import Player

__all__ = ["Host", "Outlet", "Scheduler", "Session"]

log = logging.getLogger("arena.server")

#: Frames a session holds while its requests wait for something; past it, its connection stops
#: reading until they are carried out (the client's socket buffers take the rest).
MAX_BACKLOG = 16


class Outlet(Protocol):
    """A session's connection (`server.transport.connection.Connection`)."""

    client: str

    @property
    def open(self) -> bool:
        """True while the websocket is open (not closing)."""

    def write(self, data: bytes) -> None:
        """Write ``data`` to the socket now."""

    def buffered(self) -> int:
        """Bytes written that the socket has not taken yet (0 once it is gone)."""

    @property
    def behind(self) -> bool:
        """True while the bytes waiting for the socket are over ``behind_bytes`` (until they fall
        to a quarter of it): the client reads slower than it is sent."""

    def close(self, code: int, reason: str) -> None:
        """Start the closing handshake with ``code`` and ``reason``."""

    def pause(self, paused: bool) -> None:
        """Stop (True) or go on (False) reading the client's bytes."""


class Scheduler(Protocol):
    """When a session's frames are written (`server.transport.fanout.Fanout`)."""

    def now(self, session: Session) -> None:
        """Write ``session`` at the end of this loop turn."""

    def later(self, session: Session, standings: bool = False) -> None:
        """Write ``session``, sent a broadcast frame, at the next tick."""


class Host(Protocol):
    """The server as a session needs it (`server.app.ArenaServer`)."""

    config: ServerConfig
    tally: Tally
    #: Requests carried out in a task of their own (`Session.running`) while they last: at its
    #: close the server lets them end, then cancels the rest, before its store and archive go.
    requests: set[asyncio.Task[None]]

    @property
    def fanout(self) -> Scheduler:
        """When the session's frames are written (read only: a host may hold any `Scheduler`)."""

    @property
    def takes_at_once(self) -> bool:
        """True when a frame may be carried out within the callback that read it."""

    def carry_out(self, session: Session, frame: bytes | str) -> Coroutine[Any, Any, None]:
        """Carry out one frame from ``session``'s client."""

    def spawn(self, coro: Coroutine[Any, Any, object]) -> None:
        """Run ``coro`` in a task the server keeps until it is done."""


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


class Session:
    """One client connection: its player, its rate limit, the frames it waits to have carried
    out, and the frames it is sent.

    `send` puts each frame, framed once per payload (`framed`), in the session's list of bytes to
    write, and asks the fan-out to hand them to the socket in one write: once the bytes the
    client's request came in are carried out (an answer), at the end of the loop turn, or, for a
    broadcast frame on a busy server, at the next tick. What websockets writes itself (a pong, a
    close) leaves at once, whole frames between whole frames.
    """

    #: False: a connection to this node; True for another node's (`server.nodes.RemoteSession`).
    remote = False

    # Slots keep an idle connection small (at most about 12 KiB of server memory each, docs/
    # performance.md §3.13); an attribute not named here still works: it goes into a ``__dict__``.
    __slots__ = (
        "server",
        "conn",
        "player",
        "_watching",
        "_following",
        "_remote_nodes",
        "conn_id",
        "max_buffer",
        "_out",
        "_held",
        "_loop",
        "_flush_pending",
        "_tick_pending",
        "_standings_pending",
        "bucket",
        "_budgets",
        "strikes",
        "closing",
        "address",
        "running",
        "backlog",
        "hello_timer",
        "__dict__",
    )

    #: Codes of the races this connection watches.
    watching = _SetOnFirstUse()
    #: Ids of the tournaments this connection follows.
    following = _SetOnFirstUse()
    #: The nodes this connection's requests were forwarded to.
    remote_nodes = _SetOnFirstUse()

    def __init__(self, server: Host, conn: Outlet, conn_id: int) -> None:
        self.server = server
        self.conn = conn
        self.player: Player | None = None
        self._watching: set[str] | None = None
        self._following: set[str] | None = None
        self._remote_nodes: set[str] | None = None
        self.conn_id = conn_id  # how other nodes address this connection (`server.nodes`)
        cfg = server.config
        self.max_buffer = cfg.max_send_buffer_bytes
        self._out: list[bytes] | None = None  # the frames framed since the last write
        #: Broadcast frames waiting for a client that is behind, with their (channel, state) keys
        self._held: list[tuple[tuple[int, str] | None, bytes]] | None = None
        self._loop = asyncio.get_running_loop()
        self._flush_pending = False  # in the fan-out's list for the end of this loop turn
        self._tick_pending = False  # in the fan-out's list for its next tick
        self._standings_pending = False  # in the fan-out's list for its next standings tick
        self.bucket = TokenBucket(cfg.rate_per_s, cfg.burst, self._loop.time())
        self._budgets: dict[str, TokenBucket] | None = None  # costly requests' buckets (`server.dispatch.BUDGETS`)
        self.strikes = 0
        self.closing = False
        #: The task carrying out frames that had to wait for something, while there is one.
        self.running: asyncio.Task[None] | None = None
        self.backlog: deque[bytes | str] | None = None  # frames waiting for `running`
        self.hello_timer: asyncio.TimerHandle | None = None  # (the server's: no hello yet)
        self.address = conn.client

    # ---------------------------------------------------------------------- frames in

    def take(self, frame: bytes | str) -> None:
        """Carry out ``frame`` after every frame before it: at once, within this callback, when
        nothing is waiting and the request needs no task of its own (`Host.takes_at_once`); a
        request that must wait (the store, a lock, another node) goes on in a task, and the
        frames that come meanwhile wait for it in order. Past `MAX_BACKLOG` frames waiting, the
        connection stops reading."""
        if self.running is not None:
            backlog = self.backlog
            if backlog is None:
                backlog = self.backlog = deque()
            backlog.append(frame)
            if len(backlog) >= MAX_BACKLOG:
                self.conn.pause(True)
            return
        if not self.server.takes_at_once:
            self.backlog = deque((frame,))
            self.running = self._kept(self._loop.create_task(self._work(None, None)))
            return
        take = self.server.carry_out(self, frame)
        try:
            waiting = take.send(None)
        except StopIteration:
            return
        except BaseException as exc:
            self.failed(exc)
            return
        self.running = self._kept(self._loop.create_task(self._work(take, waiting)))

    def _kept(self, task: asyncio.Task[None]) -> asyncio.Task[None]:
        """``task`` among the server's tasks while it runs (a request still waiting on the archive
        when the server closes is cancelled and awaited before the archive goes)."""
        requests = self.server.requests
        requests.add(task)
        task.add_done_callback(requests.discard)
        return task

    async def _work(self, take: Coroutine[Any, Any, None] | None, waiting: object) -> None:
        """Go on with the request begun in `take` (if any), then carry out the frames that came
        meanwhile, in order."""
        try:
            if take is not None:
                try:
                    await _carry_on(take, waiting)
                except Exception as exc:
                    self.failed(exc)
            backlog = self.backlog
            while backlog:
                frame = backlog.popleft()
                if len(backlog) == MAX_BACKLOG // 2:
                    self.conn.pause(False)
                try:
                    await self.server.carry_out(self, frame)
                except Exception as exc:
                    self.failed(exc)
        finally:
            self.running = None
            self.conn.pause(False)

    def failed(self, exc: BaseException) -> None:
        """A frame's request raised: a bug, not the client's fault. It is logged and the
        connection closed with 1011; a cancellation (the process going down) goes on up."""
        if not isinstance(exc, Exception):
            raise exc
        self.closing = True  # (its later frames are read, not carried out)
        log.error("connection handler failed; closing that connection", exc_info=exc)
        self.conn.close(1011, "internal error")

    @property
    def budgets(self) -> dict[str, TokenBucket]:
        """This connection's token buckets for costly requests, by kind (`server.dispatch.BUDGETS`);
        made on first use, so that a connection that sends none holds none."""
        if self._budgets is None:
            self._budgets = {}
        return self._budgets

    def allow(self) -> bool:
        """Take one frame from the token bucket; False (a strike) when over the rate."""
        if self.bucket.take(self._loop.time()):
            return True
        self.strikes += 1
        return False

    def count_frame(self) -> bool:
        """Count one frame that never reaches the dispatcher (a ping, a pong, a fragment before
        its message's last: `server.transport.connection.Connection` reads them) against the
        connection's rate (`allow`). False when over it: a strike, counted as ``rate_limited``,
        and past ``max_strikes`` strikes the connection is closed with 1008 (`strike_out`), as
        for a request over the rate."""
        if self.allow():
            return True
        self.server.tally.refused[ErrorCode.RATE_LIMITED] += 1
        if self.strikes > self.server.config.max_strikes:
            self.strike_out()
        return False

    def strike_out(self) -> None:
        """Close the connection with 1008, "rate limit exceeded": it went on past ``max_strikes``
        frames over its rate (logged, at most a line per ``log_repeat_s``)."""
        if self.closing:
            return
        log.warning(
            "closing %s: rate limit exceeded",
            self.address,
            extra=fields("rate_limit_closed", remote=self.address, player=self.player.id if self.player else None),
        )
        self.close(1008, "rate limit exceeded")

    @property
    def onlooking(self) -> bool:
        """True while the connection watches a race or follows a tournament."""
        return bool(self._watching) or bool(self._following)

    def quiet_since(self, instant: float) -> float:
        """Seconds (loop time) since the later of ``instant`` and the last frame received."""
        return self._loop.time() - max(instant, self.bucket.last)

    # --------------------------------------------------------------------- frames out

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Send one frame without waiting: it leaves at the end of this turn of the event loop
        (an answer sooner: once the bytes its request came in are carried out), or, ``later``
        (a broadcast: standings, a spectator's event), at the server's next fan-out tick, or,
        ``standings`` (an entrant's standings after another's move), at its next standings
        tick, unless something sent sooner takes it along. A client whose backlog is over the
        limit after a write is closed. Every frame the server sends a client goes through here
        or `send_shared`."""
        if self.closing:
            self.server.tally.queue_drops += 1
            return
        out = self._out
        if out is None:
            self._out = [framed(frame)]
        else:
            out.append(framed(frame))
        tally = self.server.tally
        tally.frames_sent += 1
        tally.bytes_sent += len(frame)
        if later:
            self.server.fanout.later(self, standings)
        elif not self._flush_pending:
            self.server.fanout.now(self)

    def send_shared(
        self, wire: bytes, frames: list[bytes], states: list[str | None] | None = None, source: object = None
    ) -> bool:
        """Write ``frames``, encoded messages that other sessions are sent too, now, after what
        this session holds already (in one write with it): ``wire`` is the frames framed
        together, the same bytes for every receiver (`server.transport.fanout.FanoutChannel`).
        While the client is behind (its socket's buffer over ``behind_bytes``: `Outlet.behind`),
        they wait instead, each frame with a state key (``states``, from ``source``, the channel)
        taking the place of the one of the same key waiting (`_hold`), until the socket drains
        (`drained`) or something else is written to it. False if the connection is closing and
        they were dropped."""
        conn = self.conn
        if self.closing or not conn.open:
            return False
        if self._held is not None or conn.behind:
            self._hold(frames, states, source)
            return True
        out = self._out
        if out is None:  # nothing else to send: the shared bytes as they are
            self.server.tally.socket_writes += 1
            conn.write(wire)
            if conn.buffered() > self.max_buffer:
                self._too_slow()
            return True
        out.append(wire)
        self._flush()
        return True

    def _hold(self, frames: list[bytes], states: list[str | None] | None, source: object) -> None:
        """Keep ``frames`` for a client that is behind: a frame with a state key drops the frame
        of the same key and source waiting, and goes last (boards and standings are states: the
        client gets the newest); the others (events) all wait, in order."""
        held = self._held
        if held is None:
            held = self._held = []
        for i, frame in enumerate(frames):
            state = states[i] if states is not None else None
            key = None if state is None else (id(source), state)
            if key is not None:
                for j, (other, _) in enumerate(held):
                    if other == key:
                        del held[j]
                        self.server.tally.standings_superseded += 1
                        break
            held.append((key, frame))

    def drained(self) -> None:
        """The client caught up (its socket's buffer drained: `server.transport.connection.Connection`
        calls this): write what waited for it, the newest state of each key and the events."""
        if self._held:
            if self._out is None:
                self._out = []
            self._flush()

    def _flush(self) -> None:
        """Hand every frame held so far to the socket in one write, after the broadcast frames
        that waited for a client behind (`_hold`); close the client if its backlog is then over
        the limit."""
        self._flush_pending = self._tick_pending = self._standings_pending = False
        out = self._out
        if out is None:
            return
        self._out = None
        held = self._held
        if held is not None:
            self._held = None
            out[:0] = [framed(frame) for _, frame in held]
        conn = self.conn
        if not conn.open:
            return
        self.server.tally.socket_writes += 1
        conn.write(out[0] if len(out) == 1 else b"".join(out))
        if conn.buffered() > self.max_buffer and not self.closing:
            self._too_slow()

    def _too_slow(self) -> None:
        tally = self.server.tally
        tally.queue_drops += 1
        log.warning(
            "closing a slow client (%s bytes waiting)",
            self.buffered,
            extra=fields("slow_client_closed", remote=self.address, player=self.player.id if self.player else None),
        )
        tally.slow_closes += 1
        self.closing = True  # (what waits is not sent: the buffer is full)
        self.conn.close(1008, "too slow: outgoing buffer full")

    @property
    def buffered(self) -> int:
        """Bytes sent to this client that the socket has not taken yet."""
        return self.conn.buffered()

    @property
    def room(self) -> int:
        """Bytes that can still be sent before this client counts as too slow."""
        return max(0, self.max_buffer - self.buffered)

    def send_control(self, frame: bytes) -> None:
        """Send ``frame``, a whole control frame (a pong), with the session's next write: at the
        end of this loop turn, or sooner with an answer (nothing once the session is closing)."""
        if self.closing:
            return
        out = self._out
        if out is None:
            self._out = [frame]
        else:
            out.append(frame)
        if not self._flush_pending:
            self.server.fanout.now(self)

    def reply(self, message: object) -> None:
        """Encode and send one reply."""
        self.send(encode(message))  # type: ignore[arg-type]

    def close(self, code: int, reason: str) -> None:
        """Send what is held, then close the connection with ``code`` and ``reason``; nothing is
        sent after."""
        if self.closing:
            return
        self._flush()
        self.closing = True
        self.conn.close(code, reason)

    async def flush(self) -> None:
        """Wait until what was sent is handed to the socket (at most one second)."""
        loop = asyncio.get_running_loop()
        until = loop.time() + 1  # (no asyncio.timeout: this may run outside a task)
        while (
            (self._flush_pending or self._tick_pending or self._standings_pending or self.buffered)
            and self.conn.open
            and loop.time() < until
        ):
            await asyncio.sleep(0.005)
