"""When the frames a server sends leave: `Fanout`, and one `FanoutChannel` per race and audience.

docs/design.md ("Fan-out") says why: a write costs a system call whatever its size, so a busy
server groups each connection's broadcast frames into one write per tick, and a race's frames for
one audience are framed once and the same bytes written to every receiver.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterable

from server.metrics import Tally
from server.players import Player
from server.race import STANDINGS
from server.transport.frames import websocket_frame
from server.transport.session import Session

__all__ = ["Fanout", "FanoutChannel"]


class Fanout:
    """When the frames sessions were sent leave: a client's answers as soon as the bytes read
    from it are carried out (`server.transport.connection.Connection` writes its session), else one callback
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

    Busy: the event loop's thread spent at least ``busy_share`` of the last `LOAD_SUSTAINED`
    measurements on the CPU (`adapt`, fed every `LOAD_INTERVAL_S` seconds); the ticks stop once
    that share falls below ``busy_share`` minus `LOAD_HYSTERESIS`. A quiet server so adds no wait; a loaded one
    trades up to a tick of its spectators' latency for fewer writes. ``tick_ms`` 0, or
    ``busy_share`` over 1: broadcast frames always leave at the end of the turn; ``busy_share``
    0: the ticks are always on. ``standings_tick_ms`` at or under ``tick_ms``: standings wait
    as other broadcast frames do."""

    #: Seconds between two measurements of the loop's busy share (`server.ops.measure_load`).
    LOAD_INTERVAL_S = 0.25
    #: How far below ``busy_share`` the busy share must fall for the tick to stop.
    LOAD_HYSTERESIS = 0.15
    #: Measurements in a row at or over ``busy_share`` before the tick starts: a second of it (a
    #: burst of work, such as races starting together, does not turn it on).
    LOAD_SUSTAINED = 4
    #: Seconds of writing the ticks' batches in one loop turn at most before the rest waits for the next.
    SLICE_S = 0.001

    def __init__(
        self, tick_ms: float, busy_share: float = 0.0, standings_tick_ms: float = 0.0, tally: Tally | None = None
    ) -> None:
        self.tally = tally if tally is not None else Tally()
        self.max_tick_s = tick_ms / 1000
        self.max_standings_tick_s = standings_tick_ms / 1000
        self.busy_share = busy_share
        self.tick_s = 0.0  # the tick now (0: none)
        self.standings_tick_s = 0.0  # the standings' tick now (0: as other broadcast frames)
        if busy_share <= 0:
            self._set(True)
        self.busy = 0.0  # the loop's busy share at the last measurement
        self._over = 0  # measurements in a row at or over ``busy_share``
        self._now: list[Session | FanoutChannel] = []
        self._tick: list[Session | FanoutChannel] = []
        self._standings: list[Session | FanoutChannel] = []
        # the ticks' batches due, oldest first: (sessions, standings, the first not written yet,
        # when it was due: `time.perf_counter` seconds)
        self._due: deque[tuple[list[Session | FanoutChannel], bool, int, float]] = deque()
        #: Called with how late (seconds) each fan-out tick's batch was written, once its last
        #: session was (the server hands it `Metrics.observe_fanout_delay`); None: not measured.
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
            self._over += 1
            if self._over >= self.LOAD_SUSTAINED or self.busy_share <= 0:
                self._set(True)
        else:
            self._over = 0
            if busy < self.busy_share - self.LOAD_HYSTERESIS:
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
                if session._flush_pending:  # (not written since: the connection's reader, a tick)
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

    Boards and standings are states, not a log: a frame sent with a ``state`` key (an
    entrant's standings: `STANDINGS`; a spectator's progress: the entrant whose board it
    carries) takes the place of the frame of the same key still held, wherever it is: the older
    one is dropped and the newer one goes last, so that the versions held still rise and no
    state jumps ahead of an event older than itself (docs/protocol.md, Events). A receiver
    handed the frame dropped gets the new one. A receiver whose socket is behind holds what it
    is sent the same way until it drains (`server.transport.session.Session.send_shared`): so
    what waits for any receiver is at most one frame a state, the newest, and the events."""

    __slots__ = (
        "fanout",
        "receivers",
        "frames",
        "states",
        "urgent",
        "given",
        "_flush_pending",
        "_tick_pending",
        "_standings_pending",
    )

    def __init__(self, fanout: Fanout, receivers: Callable[[], Iterable[object]]) -> None:
        self.fanout = fanout
        self.receivers = receivers
        self.frames: list[bytes] = []  # encoded, not yet framed
        self.states: list[str | None] = []  # each frame's state key (None: an event of the log)
        self.urgent = False  # a frame held is not only standings: it leaves at the fan-out tick
        self.given: dict[int, int] | None = None  # id(receiver) -> frames it was handed (`catch_up`)
        self._flush_pending = False  # (as a `Session`'s: in the fan-out's lists)
        self._tick_pending = False
        self._standings_pending = False

    def send(self, frame: bytes, standings: bool = False, state: str | None = None) -> None:
        """Hold ``frame`` (one encoded message) for every receiver, until the fan-out writes it.
        ``standings``: an entrant's standings after a move, which may wait longer (its state key
        is `STANDINGS` unless ``state`` names another); ``state``: the key of the state the frame
        carries, whose frame held before it replaces (the class docstring)."""
        if standings and state is None:
            state = STANDINGS
        frames = self.frames
        if state is not None and state in self.states:
            gone = self.states.index(state)
            del frames[gone], self.states[gone]
            given = self.given
            if given:
                for key, done in given.items():
                    if done > gone:  # (it was handed the frame dropped: it gets this one)
                        given[key] = done - 1
            self.fanout.tally.standings_superseded += 1
        frames.append(frame)
        self.states.append(state)
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
        states = self.states
        self.frames = []
        self.states = []
        self.urgent = False
        self.given = None
        wire = websocket_frame(frames[0]) if len(frames) == 1 else b"".join(map(websocket_frame, frames))
        sent = drops = 0
        for receiver in list(self.receivers()):
            if given and (done := given.get(id(receiver), 0)):
                for frame in frames[done:]:  # (what came after its `catch_up`)
                    receiver.send(frame)  # type: ignore[attr-defined]
                continue
            session = receiver.session if type(receiver) is Player else receiver
            if type(session) is Session:
                if session.send_shared(wire, frames, states, self):
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
