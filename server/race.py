"""One race: its entrants, the shared deal, one `Game` per entrant, the clock and the standings.

Life of a race: ``open`` (entrants join) -> ``starting`` (the creator started it; a countdown of
``countdown_s`` runs, the seed's commitment is published) -> ``running`` (every entrant got the
same deal at the same server instant; moves are played) -> ``finished`` (everyone has won,
resigned, is stuck or out of time, or the time limit passed, or nobody started it in time; the
seed and salt are revealed).

Every move and every timer of a race runs under the race's one lock, and checks the race's state
again once it holds it. A move is checked, then stored, then applied and acknowledged, then
published (docs/design.md, "The path of one move"). Every published event gets the next version
number and is stored in the form each audience received it.

When the store cannot be reached, a move is refused with ``unavailable`` and changes nothing (the
client resends the same ``seq`` later). An event or a description that cannot be stored is
logged and the race goes on: the live audience still receives the event, and a client catching
up over the gap gets a snapshot instead (the store answers None for missing events). A store
that says the race is no longer this node's (`server.store.StaleRace`: another node took it
over, or its log moved on) is not an outage: the error goes up to the caller (a request's:
`server.dispatch.receive` lets the race go and sends the request to its owner; a timer's:
``on_lost``). A store whose move log holds fewer moves than this node acknowledged (it lost
them: restarted empty, or lost the tail of its append-only file) voids the race (`Race.void`).

A race is its log (docs/design.md, invariant 3): over a durable store, a restarted server rebuilds it
with `Race.rebuild` from its description (saved at every change of its settings, entrants,
statuses and instants: join, start, deal, resign, idle time-out, finish; never per move) and each
entrant's move log, then restarts its timers with `Race.resume`. Instants are saved on the wall
clock (Unix milliseconds), since the monotonic clock does not survive the process: the race
clock goes on from the saved start instant, so time passes for the entrants while the server is
down, and a race whose time limit passed meanwhile ends at once.

What each audience receives (docs/design.md, invariant 1; docs/protocol.md): an entrant receives its
own board and, about the others, only the standings (cards cleared, moves, status, time), never
a move, a pile address, a card or a board, because every entrant plays the same deal. Spectators
receive every move and board, ``spectator_delay_s`` seconds late when the race sets a delay (the
standings stay live); the delayed frames wait here, on the server. A tournament's deal may show
them no board until it is over (``spectating``: the standings only, the deal face down). Joining a race ends the
joiner's watch of it, so an entrant is never also its spectator while it plays.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from engine.core import Audience, BadNotation, Game, IllegalMove, Move, Reveal
from engine.deal import DEAL_VERSION, commitment_of
from engine.games import UnknownGame, find_game
from server.assists import UNDO, Plan, Refused
from server.bonus import BonusRound, open_round, play_round
from server.logs import fields
from server.metrics import Tally
from server.names import name_key
from server.protocol import (
    Board,
    Bonus,
    DelayedBoard,
    EntrantJoined,
    EntrantRecord,
    ErrorCode,
    MoveRequest,
    MoveResult,
    Par,
    Progress,
    ProtocolError,
    RaceFinished,
    RaceInfo,
    RacePar,
    RaceRecord,
    RaceStarted,
    RaceStarting,
    RematchOffer,
    ReplyFrame,
    Revealed,
    Snapshot,
    Standing,
    board_of,
    encode,
)
from server.stopping import cancel_and_wait
from server.store import MoveEntry, StaleRace, Store, StoredEvent, StoreUnavailable

__all__ = ["RESULTS_KEPT", "STANDINGS", "Clock", "Entrant", "Listener", "Race", "RebuildError"]

#: Answers kept per entrant for repeated move numbers: the last this many moves (a client resends
#: only the moves still waiting for their answer); an older repeat gets ``old_seq``.
RESULTS_KEPT = 64
#: Standings in a ``race_finished`` log line: the first this many entrants.
_LOGGED_PLACES = 10

log = logging.getLogger("arena.races")
#: Where a race reports a store it cannot reach: the server's log, which writes the same line at
#: most once per ``log_repeat_s`` (an outage would otherwise write one per move).
_store_log = logging.getLogger("arena.server")
#: Where a race counts its moves until a server gives it its own tally.
_UNCOUNTED = Tally()


class RebuildError(ValueError):
    """A stored race cannot be rebuilt faithfully (`Race.rebuild`): its description lacks a
    field, names a game or rules version this server does not have, or a logged move does not
    replay."""


#: The state key of an entrant's standings-only frames (`Channel.send`); the other keys are
#: player ids, which are never empty.
STANDINGS = ""


class Listener(Protocol):
    """Anything that takes outgoing frames without waiting (a connection's send queue)."""

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Queue one encoded frame; must not block. ``later``: a broadcast frame, which may
        wait a few milliseconds to leave with others (`server.transport.fanout.Fanout`); ``standings``:
        an entrant's standings after another entrant's move, which may wait longer."""


class Channel(Protocol):
    """Where a race's frames for one audience go (its entrants', or its spectators'): held a
    moment, perhaps, and written to every receiver of that audience
    (`server.transport.fanout.FanoutChannel`)."""

    def send(self, frame: bytes, standings: bool = False, state: str | None = None) -> None:
        """Hand on one encoded frame for every receiver; must not block. ``standings``: an
        entrant's standings after another entrant's move, which may wait longer; ``state``: the
        key of the state the frame carries (the entrant whose board it is), which takes the
        place of an older frame of that key still waiting (`server.transport.fanout.FanoutChannel`)."""

    def catch_up(self, receiver: Listener) -> None:
        """Send ``receiver`` at once whatever it was not sent yet (ahead of its own answer)."""


class EachAtOnce:
    """A `Channel` that hands each frame to each of ``receivers()`` at once (`send_each`): a
    race's way until a server gives it its fan-out's (`server.transport.fanout.FanoutChannel`)."""

    def __init__(self, receivers: Callable[[], Iterable[Listener]]) -> None:
        self.receivers = receivers

    def send(self, frame: bytes, standings: bool = False, state: str | None = None) -> None:
        """Send ``frame`` to every receiver there is now (nothing waits: ``state`` changes nothing)."""
        send_each(list(self.receivers()), frame, standings)

    def catch_up(self, receiver: Listener) -> None:
        """Nothing to do: every frame was sent at once."""


def send_each(receivers: Iterable[Listener], frame: bytes, standings: bool = False) -> None:
    """Hand ``frame``, a broadcast, to each of ``receivers`` in turn (`Listener.send` with
    ``later``): how `EachAtOnce` sends."""
    for receiver in receivers:
        receiver.send(frame, later=True, standings=standings)


class Clock:
    """The server's time: a monotonic clock in seconds for race times, and the wall clock in
    Unix milliseconds for instants announced to clients. Tests may pass a subclass that runs
    faster."""

    def monotonic(self) -> float:
        """Seconds on the system's monotonic clock (`time.monotonic`: the clock asyncio's own
        event loop keeps, read afresh; uvloop's keeps whole milliseconds from the start of the
        loop's turn, and on Python 3.11 asking for the running loop costs a system call)."""
        return time.monotonic()

    def wall_ms(self) -> int:
        """Milliseconds since the Unix epoch."""
        return time.time_ns() // 1_000_000

    async def sleep_until(self, deadline: float) -> None:
        """Return at ``deadline`` (a `monotonic` value), not before (an event loop's timer may
        end up to a millisecond early by this clock: it sleeps again for what is left)."""
        await asyncio.sleep(max(0.0, deadline - self.monotonic()))  # (at least one turn of the loop)
        while (left := deadline - self.monotonic()) > 0:
            await asyncio.sleep(left)

    async def sleep_until_wall(self, instant_ms: int) -> None:
        """Return at the wall-clock instant ``instant_ms`` (Unix epoch milliseconds)."""
        await self.sleep_until(self.monotonic() + (instant_ms - self.wall_ms()) / 1000)


@dataclass(eq=False, slots=True)
class Entrant:
    """One entrant: who (``player`` id and ``name``), where its frames go (``listener``, None
    while disconnected), its own `Game`, and its standing so far (``cleared`` cards,
    ``time_ms`` of the move that set ``cleared``, accepted ``moves``)."""

    player: str
    name: str
    order: int
    listener: Listener | None = None
    game: Game | None = None
    status: str = "waiting"
    last_seq: int = 0
    results: dict[int, bytes] = field(default_factory=dict)  # the last RESULTS_KEPT answers, by seq
    cleared: int = 0
    time_ms: int = 0
    moves: int = 0
    undos: int = 0  # of its moves, the undos
    active_at: float = 0.0  # monotonic seconds of the deal or of the last accepted move
    resumed_seq: int = 0  # the last seq when the race was rebuilt (`Race.rebuild`): earlier answers come from the log
    points: int | None = None  # set at the finish (cards cleared), then Double or Naught's
    bonus: list[BonusRound] = field(default_factory=list)
    claimed: bool = False  # its name was claimed when it joined (guests' names are marked)
    rating: int | None = None  # a rated race: its rating as the race started (display points)
    provisional: bool = False  # that rating is provisional (shown with "?")

    @property
    def done(self) -> bool:
        """True once the entrant can play no more (won, stuck, resigned, out of time)."""
        return self.status not in ("waiting", "playing")


def _rank(entrant: Entrant) -> tuple[int, int, int]:
    """Sort key of the standings: more cards cleared, then less time, then earlier join."""
    return -entrant.cleared, entrant.time_ms, entrant.order


class Race:
    """One race. Create it, `join` entrants, `start` it; then `play` and `resign`.

    Times: ``countdown_s``, ``time_limit_s``, ``spectator_delay_s`` and ``idle_timeout_s`` in
    seconds; race times (``elapsed_ms``, ``time_ms``) in milliseconds from the start instant.
    ``idle_timeout_s``: an entrant that makes no move for this long is out of time (None: never),
    so nobody can hold a race open by doing nothing. ``max_moves``: accepted moves per entrant
    (None: no cap); past it moves are refused with ``move_limit``. ``on_status(race, old)`` is
    called after every change of ``status``, ``on_join(race, player)`` after each entrant
    joins. ``tally``: where accepted and refused moves are counted (the server's
    `server.metrics.Tally`); ``entrant_channel`` and ``spectator_channel``: how an event
    reaches each audience (`EachAtOnce`, or the server's `server.transport.fanout.FanoutChannel`).
    Errors are raised as `server.protocol.ProtocolError` with an `ErrorCode`; refused moves are
    answered, not raised.
    """

    def __init__(
        self,
        code: str,
        game_cls: type[Game],
        *,
        options: dict[str, bool],
        seed: int,
        seed_public: bool,
        creator: str,
        max_entrants: int,
        countdown_s: int,
        time_limit_s: int,
        store: Store,
        clock: Clock,
        salt: str | None = None,
        on_finish: Callable[[Race], None] | None = None,
        watch_policy: Callable[[str], bool] | None = None,
        hold_seed: bool = False,
        casual: bool = True,
        spectator_delay_s: int = 0,
        idle_timeout_s: float | None = None,
        max_moves: int | None = None,
        on_status: Callable[[Race, str], None] | None = None,
        undo: bool = False,
        rated: bool = False,
    ) -> None:
        game_cls(seed, **options)  # raises BadNotation("bad_option") before anything is kept
        self.code = code
        self.game_cls = game_cls
        self.options = dict(options)
        self.seed = seed
        self.seed_public = seed_public
        self.salt = salt or secrets.token_hex(16)
        self.commitment = commitment_of(seed, self.salt)
        self.creator = creator
        self.max_entrants = max_entrants
        self.countdown_s = countdown_s
        self.time_limit_s = time_limit_s
        self.store = store
        self.clock = clock
        self.on_finish = on_finish
        self.watch_policy = watch_policy
        self.hold_seed = hold_seed  # keep the seed secret after the end, until `reveal`
        self.casual = casual  # not a tournament's deal: winners may play Double or Naught
        self.deal: int | None = None  # a tournament's deal: its index (`Tournament._attach`)
        self.daily: str | None = None  # a daily challenge's race: its UTC day (`server.daily`)
        self.spectator_delay_s = spectator_delay_s
        # What spectators see while it runs (`server.protocol.Spectating`): "live" boards (late by
        # the delay), or, for a tournament's deal (`Tournament._attach`), only boards at least as
        # old as the delay ("delayed") or none ("standings") until it is over.
        self.spectating = "live"
        self.idle_timeout_s = idle_timeout_s
        self.max_moves = max_moves
        self.on_status = on_status
        self.on_join: Callable[[Race, str], None] | None = None  # on_join(race, player) after each join
        # on_lost(race, error): a timer found the race no longer this node's (`StaleRace`)
        self.on_lost: Callable[[Race, StaleRace], None] | None = None
        self.void_reason = ""  # why the race was voided, in words (`void`); "" if it was not
        self.undo = undo  # entrants may take back moves (`server.assists`)
        self.rated = rated  # the creator's or organiser's choice to rate it (`server.ratings.is_rated`)
        self.bots: set[str] = set()  # entrants whose hello said they are bots (never rated)
        self.tally = _UNCOUNTED
        self.status = "open"
        self.version = 0
        self.entrants: dict[str, Entrant] = {}
        self._names: set[str] = set()  # `name_key` of every entrant's name
        self.spectators: dict[Listener, str] = {}  # each spectator's connection -> its player id
        self.entrant_channel: Channel = EachAtOnce(self.listeners)
        self.spectator_channel: Channel = EachAtOnce(self.spectators.keys)
        self._delayed: deque[tuple[float, str, Board, bytes]] = deque()  # (due, player, board, frame)
        self._shown: dict[str, Board] = {}  # delayed race: each board as spectators last saw it
        self._released: dict[str, Board] = {}  # ``spectating`` "delayed": each board released so far
        self._releasing: asyncio.Task[None] | None = None
        self.created_ms = clock.wall_ms()
        self.starts_at_ms: int | None = None
        self.started_at: float | None = None  # monotonic seconds
        self.started_at_ms: int | None = None  # the same instant on the wall clock (what a rebuild reads)
        self.finish_reason = ""
        self.finished_ms: int | None = None  # the race time at the end: the clock stops there
        self.rematch: str | None = None  # the code of this race's rematch, once one is offered
        self.rematch_of: str | None = None  # the race this one is a rematch of
        self.par: Par | None = None  # what the deal allowed, once worked out after the finish
        # Kept for the costly reads (`record`, `spectator_frame`, `offer_rematch`), dropped with the race:
        self._logs: dict[str, tuple[list[str], list[int]]] | None = None  # finished: moves, times by player
        self._record: tuple[int, RaceRecord, ReplyFrame] | None = None  # (version, record, its frame)
        self._snapshot: tuple[tuple[int, int, bool], ReplyFrame] | None = None  # (key, spectators' frame)
        self._offered: tuple[str, list[str]] | None = None  # the last rematch offer: (code, accepted)
        self.lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    # ---------------------------------------------------------------------------- reading

    def info(self) -> RaceInfo:
        """The race's public description (the seed only once public or revealed)."""
        reveal = self.seed_public or self.revealed
        return RaceInfo(
            code=self.code,
            game=self.game_cls.key,
            options=self.options,
            rules_version=self.game_cls.rules_version,
            deal_version=DEAL_VERSION,
            creator=self.creator,
            entrants=[e.name for e in self._by_order()],
            max_entrants=self.max_entrants,
            countdown_s=self.countdown_s,
            time_limit_s=self.time_limit_s,
            status=self.status,  # type: ignore[arg-type]
            seed=self.seed if reveal else None,
            commitment=self.commitment if self.status != "open" else None,
            starts_at_ms=self.starts_at_ms,
            version=self.version,
            spectator_delay_s=self.spectator_delay_s,
            rematch=self.rematch,
            par=self.par,
            tournament=None if self.casual or self.daily else self.creator,
            deal=self.deal,
            undo=self.undo,
            spectating=self.spectating,  # type: ignore[arg-type]
            daily=self.daily,
            rated=self.rated,
            claimed=[e.claimed for e in self._by_order()],
        )

    @property
    def revealed(self) -> bool:
        """True once the seed and salt may be published: the race finished (and, for a deal of an
        arena tournament, the tournament too: `reveal`)."""
        return self.status == "finished" and not self.hold_seed

    def reveal(self) -> None:
        """Allow the seed of a finished race that held it back to be published."""
        self.hold_seed = False

    def listeners(self) -> list[Listener]:
        """Where each entrant's frames go now (the entrants connected)."""
        return [e.listener for e in self.entrants.values() if e.listener is not None]

    def _by_order(self) -> list[Entrant]:
        return sorted(self.entrants.values(), key=lambda e: e.order)

    def standings(self) -> list[Standing]:
        """Entrants ranked: more cards cleared, then less time, then earlier join (docs/design.md, invariant 6)."""
        ranked = sorted(self.entrants.values(), key=_rank)
        total = self.game_cls.total
        # (positional, in `Standing`'s field order: place, player, name, cleared, total, time_ms,
        # moves, status, order, points, undos, claimed, rating, provisional; once a move, so the
        # quicker form)
        return [
            Standing(
                i,
                e.player,
                e.name,
                e.cleared,
                total,
                e.time_ms,
                e.moves,
                e.status,  # type: ignore[arg-type]
                e.order,
                e.cleared if e.points is None else e.points,
                e.undos,
                e.claimed,
                e.rating,
                e.provisional,
            )
            for i, e in enumerate(ranked, 1)
        ]

    def elapsed_ms(self) -> int:
        """Race time now, in milliseconds since the start instant (0 before it; once the race
        has finished, the race time at its end)."""
        if self.finished_ms is not None:
            return self.finished_ms
        if self.started_at is None:
            return 0
        return max(0, int((self.clock.monotonic() - self.started_at) * 1000))

    def _board(self, entrant: Entrant, audience: Audience) -> Board | None:
        return board_of(entrant.game.view(audience), undo=self.undo) if entrant.game is not None else None

    def _boards(self, game: Game) -> tuple[Board, Board]:
        """The player's own board and the spectators' form of it, from one view: they differ
        only in the legal moves and undo, which only the player's has (`engine.core.View`)."""
        own = board_of(game.view(Audience.PLAYER), undo=self.undo)
        return own, msgspec.structs.replace(own, legal=[], undo=False)

    def may_watch(self, player: str) -> bool:
        """Spectating is for anyone but an entrant still playing (it would see its own stock),
        and whoever the race's ``watch_policy`` (a tournament's) refuses."""
        if self.watch_policy is not None and not self.watch_policy(player):
            return False
        entrant = self.entrants.get(player)
        return entrant is None or entrant.done or self.status == "finished"

    def snapshot(self, req: int, player: str | None, *, spectator: bool) -> Snapshot:
        """The race as ``player`` may see it now: its own board if an entrant; every board if a
        spectator allowed to watch."""
        entrant = self.entrants.get(player) if player else None
        boards = {}
        if spectator:
            boards = {e.player: board for e in self._by_order() if (board := self._spectator_board(e)) is not None}
        return Snapshot(
            req=req,
            race=self.info(),
            standings=self.standings(),
            board=self._board(entrant, Audience.PLAYER) if entrant else None,
            boards=boards,
            next_seq=entrant.last_seq + 1 if entrant else 1,
            elapsed_ms=self.elapsed_ms(),
        )

    def spectator_frame(self, req: int) -> bytes:
        """The encoded snapshot for a spectator that is not an entrant (`snapshot` with no
        player), answering request ``req``: built and encoded once per state of the race (its
        version, the delayed boards released, the seed revealed), then only ``req`` and
        ``elapsed_ms`` are filled in per request (`server.protocol.ReplyFrame`)."""
        key = (self.version, len(self._delayed), self.revealed)
        kept = self._snapshot
        if kept is None or kept[0] != key:
            snapshot = msgspec.structs.replace(self.snapshot(0, None, spectator=True), elapsed_ms=0)
            kept = self._snapshot = (key, ReplyFrame(encode(snapshot), last="elapsed_ms"))
        return kept[1].frame(req, self.elapsed_ms())

    def _spectator_board(self, entrant: Entrant) -> Board | None:
        """The entrant's board as spectators may see it now: ``spectator_delay_s`` old while the
        race runs with a delay, else the current one; none while it runs, unless ``spectating``
        is "live" or "delayed" released one (`_progress`)."""
        if self.spectating != "live" and self.status != "finished":
            return self._released.get(entrant.player)
        if self.spectator_delay_s and self.status != "finished" and entrant.player in self._shown:
            return self._shown[entrant.player]
        return self._board(entrant, Audience.SPECTATOR)

    def watch(self, listener: Listener, player: str) -> None:
        """Add a spectator (``listener``, the connection of ``player``): it receives the
        spectators' form of every event from now on. Callers check `may_watch` first."""
        self.spectators[listener] = player

    def unwatch(self, listener: Listener) -> None:
        """Stop sending to a spectator (nothing happens if it was not one)."""
        self.spectators.pop(listener, None)

    # --------------------------------------------------------------------------- changing

    async def join(
        self, player: str, name: str, listener: Listener | None, *, bot: bool = False, claimed: bool = False
    ) -> Entrant:
        """Enter the race (``bot``: the player said it is a bot, `bots`; ``claimed``: its name is
        claimed now, shown in the standings for the whole race), ending ``player``'s
        watch of it if it was watching; raises ProtocolError (already_joined, race_full,
        already_started, name_taken: another entrant's name is the same by
        `server.names.name_key`)."""
        async with self.lock:
            if player in self.entrants:
                raise ProtocolError(ErrorCode.ALREADY_JOINED, f"you are already in race {self.code}")
            if self.status != "open":
                raise ProtocolError(ErrorCode.ALREADY_STARTED, f"race {self.code} has already started")
            if len(self.entrants) >= self.max_entrants:
                raise ProtocolError(ErrorCode.RACE_FULL, f"race {self.code} is full ({self.max_entrants})")
            key = name_key(name)
            if key in self._names:
                raise ProtocolError(ErrorCode.NAME_TAKEN, f"an entrant of race {self.code} is already called {name!r}")
            for watcher in [w for w, p in self.spectators.items() if p == player]:
                del self.spectators[watcher]  # an entrant is never also a spectator of its race
            entrant = Entrant(player, name, len(self.entrants), listener, claimed=claimed)
            self.entrants[player] = entrant
            self._names.add(key)
            if bot:
                self.bots.add(player)
            if self.on_join is not None:
                self.on_join(self, player)
            log.info(
                "%s joined race %s",
                name,
                self.code,
                extra=fields("player_joined", race=self.code, player=player, player_name=name, order=entrant.order),
            )
            await self._save(events=1)
            await self._publish(
                EntrantJoined(
                    race=self.code,
                    version=self._next_version(),
                    player=player,
                    name=name,
                    order=entrant.order,
                    claimed=claimed,
                )
            )
            return entrant

    async def start(self, player: str) -> None:
        """Start the countdown (creator only); raises ProtocolError (not_creator, already_started,
        not_allowed when nobody has joined)."""
        async with self.lock:
            if player != self.creator:
                raise ProtocolError(ErrorCode.NOT_CREATOR, "only the race's creator may start it")
            if self.status != "open":
                raise ProtocolError(ErrorCode.ALREADY_STARTED, f"race {self.code} has already started")
            if not self.entrants:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "a race needs at least one entrant")
            self._become("starting")
            deadline = self.clock.monotonic() + self.countdown_s
            self.starts_at_ms = self.clock.wall_ms() + self.countdown_s * 1000
            await self._save(events=1)
            await self._publish(
                RaceStarting(
                    race=self.code,
                    version=self._next_version(),
                    starts_at_ms=self.starts_at_ms,
                    countdown_ms=self.countdown_s * 1000,
                    commitment=self.commitment,
                )
            )
            self._spawn(self._run(deadline))

    async def _run(self, start_at: float) -> None:
        await self.clock.sleep_until(start_at)
        async with self.lock:
            if self.status != "starting":
                return
            self.started_at = self.clock.monotonic()
            self.started_at_ms = self.clock.wall_ms()
            for entrant in self.entrants.values():
                entrant.game = self.game_cls(self.seed, **self.options)
                entrant.status = "playing"
                entrant.active_at = self.started_at
            self._become("running")
            log.info(
                "race %s started",
                self.code,
                extra=fields(
                    "race_started",
                    race=self.code,
                    game=self.game_cls.key,
                    entrants=len(self.entrants),
                    time_limit_s=self.time_limit_s,
                ),
            )
            first = next(iter(self.entrants.values()))
            board = self._board(first, Audience.PLAYER)
            assert board is not None
            self._shown = {e.player: board for e in self.entrants.values()}  # the deal: no secret
            await self._save(events=1)
            started = RaceStarted(
                race=self.code,
                version=self._next_version(),
                started_at_ms=self.started_at_ms,
                time_limit_ms=self.time_limit_s * 1000,
                board=board,
            )
            await self._publish(started, self._face_down(started))
            # A game can be over at the deal (no legal move at all).
            for entrant in self.entrants.values():
                self._settle(entrant)
            await self._maybe_finish()
        await self._keep_time()

    async def _keep_time(self) -> None:
        """Sleep until the next deadline (the time limit, or an entrant's idle timeout), then
        apply it under the lock; until the race finishes."""
        assert self.started_at is not None
        limit_at = self.started_at + self.time_limit_s
        while True:
            deadline = limit_at
            if self.idle_timeout_s is not None:
                active = [e.active_at for e in self.entrants.values() if not e.done]
                if active:
                    deadline = min(deadline, min(active) + self.idle_timeout_s)
            await self.clock.sleep_until(deadline)
            async with self.lock:
                if self.status != "running":
                    return
                now = self.clock.monotonic()
                if now >= limit_at:
                    for entrant in self.entrants.values():
                        if not entrant.done:
                            entrant.status = "out_of_time"
                    await self._finish("time_limit")
                    return
                if self.idle_timeout_s is not None:
                    idle = [
                        e for e in self.entrants.values() if not e.done and now >= e.active_at + self.idle_timeout_s
                    ]
                    for entrant in idle:
                        entrant.status = "out_of_time"
                    if idle:
                        await self._save(events=len(idle))
                    for entrant in idle:
                        await self._progress(entrant, "idle", self.elapsed_ms())
                    await self._maybe_finish()

    async def play(self, player: str, request: MoveRequest) -> bytes:
        """Check, store and apply the moves of one request; return the encoded `MoveResult` for
        the mover.

        A request plays its move and then, for an assist (`server.assists`: ``"collect"``,
        ``"finish"``, or ``collect`` set), the moves the server plays for it, each checked,
        stored, applied and published as a move of its own with the next seq, at the same race
        time. A repeated ``seq`` returns the first answer again (for the last `RESULTS_KEPT`
        requests; an older one is refused with ``old_seq``). Refusals (``ok`` false) change
        nothing and use up no sequence number; ``unavailable`` when the store cannot take the
        first move (it is not played, and the same ``seq`` may be sent again; when it cannot take
        a later one, the request stops there). Raises ProtocolError(not_entrant) for a
        non-entrant, and `StaleRace` (nothing played) when the store says the race is no longer
        this node's. A store that lost acknowledged moves voids the race (`_void`): the move is
        refused with ``race_over``, in words.
        """
        entrant = self.entrants.get(player)
        if entrant is None:
            raise ProtocolError(ErrorCode.NOT_ENTRANT, f"you are not an entrant of race {self.code}")
        async with self.lock:
            if request.seq in entrant.results:
                return entrant.results[request.seq]
            if entrant.last_seq - RESULTS_KEPT < request.seq < entrant.resumed_seq:
                again = await self._answer_again(entrant, request.seq)  # (only after a restart: rare)
                if again is not None:
                    return again
            game = entrant.game
            plan = Plan(game, request, undo=self.undo) if game is not None else None
            try:
                self._check_turn(entrant, request)
                assert plan is not None
                move: Move | None = plan.first()
            except Refused as refusal:
                return self._refused(player, request, refusal.code, refusal.reason)
            assert game is not None and move is not None
            elapsed = self.elapsed_ms()
            played: list[str] = []
            revealed: list[Revealed] = []
            seq = request.seq
            while move is not None:
                notation = str(move)
                try:
                    # (its event's version goes with it: `_progress` numbers the next event, under this lock)
                    await self.store.append_move(self.code, player, MoveEntry(seq, notation, elapsed, self.version + 1))
                except StaleRace:  # not ours any more, or its log lost moves we acknowledged
                    lost = await self._lost_moves()
                    if not lost:
                        raise  # another node serves it: the caller lets it go
                    await self._void(lost)
                    if played:
                        break
                    return self._refused(player, request, ErrorCode.RACE_OVER, self._void_words(lost, player))
                except StoreUnavailable as exc:  # not stored: not played, and the seq is still free
                    if not played:
                        return self._refused(
                            player,
                            request,
                            ErrorCode.UNAVAILABLE,
                            "the server cannot store moves right now: send this move again in a moment",
                            exc,
                        )
                    _store_log.warning(
                        "the moves after move %d of %s in race %s stopped: %s", seq - 1, player, self.code, exc
                    )
                    break
                revealed += [Revealed(r.pile, r.index, r.card.code) for r in game.apply_checked(move)]
                # (checked under this lock, and nothing played since)
                self._count(entrant, seq, move, elapsed)
                own, public = self._boards(game)
                played.append(notation)
                await self._progress(entrant, notation, elapsed, public)
                seq += 1
                move = plan.next() if not entrant.done and not self._at_move_limit(entrant) else None
            result = encode(
                MoveResult(
                    race=self.code,
                    seq=request.seq,
                    move=played[0],
                    ok=True,
                    revealed=revealed,
                    board=own,
                    elapsed_ms=elapsed,
                    then=played[1:],
                    next_seq=seq,
                )
            )
            entrant.results[request.seq] = result
            entrant.results.pop(request.seq - RESULTS_KEPT, None)
            await self._maybe_finish()
            if entrant.listener is not None:  # the standings of this move (and before) ahead of its answer
                self.entrant_channel.catch_up(entrant.listener)
            return result

    def _count(self, entrant: Entrant, seq: int, move: Move, elapsed: int) -> None:
        """An entrant's counters after its move ``seq`` (played at race time ``elapsed``)."""
        game = entrant.game
        assert game is not None
        entrant.last_seq = seq
        entrant.moves += 1
        if move.action == UNDO:
            entrant.undos += 1
        self.tally.moves_accepted += 1
        entrant.active_at = self.clock.monotonic()
        cleared = game.cleared
        if cleared != entrant.cleared:
            entrant.cleared = cleared
            entrant.time_ms = elapsed
        self._settle(entrant)

    def _refused(
        self, player: str, request: MoveRequest, code: str, reason: str, exc: Exception | None = None
    ) -> bytes:
        """Count and log a refused request; its encoded answer."""
        self.tally.moves_refused[code] += 1
        if exc is not None:
            _store_log.warning(
                "move %d of %s in race %s refused: %s",
                request.seq,
                player,
                self.code,
                exc,
                extra=fields("move_refused", race=self.code, player=player, seq=request.seq, code=code),
            )
        elif log.isEnabledFor(logging.DEBUG):
            log.debug(
                "move %d of %s in race %s refused: %s",
                request.seq,
                player,
                self.code,
                reason,
                extra=fields("move_refused", race=self.code, player=player, seq=request.seq, code=code),
            )
        return encode(
            MoveResult(
                race=self.code,
                seq=request.seq,
                move=request.move,
                ok=False,
                code=code,
                reason=reason,
                elapsed_ms=self.elapsed_ms(),
                next_seq=request.seq,
            )
        )

    def _check_turn(self, entrant: Entrant, request: MoveRequest) -> None:
        """Raise `Refused` unless ``entrant`` may play a move numbered ``request.seq`` now (the
        race running, the entrant playing, the seq the next one, the move cap not reached)."""
        if self.status in ("open", "starting"):
            raise Refused(ErrorCode.NOT_STARTED, f"race {self.code} has not started")
        if self.status == "finished":
            raise Refused(ErrorCode.RACE_OVER, f"race {self.code} is over")
        if entrant.done:
            raise Refused(ErrorCode.DONE, f"you can play no more in this race ({entrant.status})")
        if request.seq <= entrant.last_seq:
            raise Refused(
                ErrorCode.OLD_SEQ,
                f"move {request.seq} was accepted long ago and its answer is no longer kept; "
                "sync for the race as it stands",
            )
        if request.seq != entrant.last_seq + 1:
            raise Refused(ErrorCode.SEQ_GAP, f"expected move number {entrant.last_seq + 1}, got {request.seq}")
        if self._at_move_limit(entrant):
            raise Refused(ErrorCode.MOVE_LIMIT, f"an entrant may make at most {self.max_moves} moves in a race")

    def _at_move_limit(self, entrant: Entrant) -> bool:
        return self.max_moves is not None and entrant.moves >= self.max_moves

    async def expire(self) -> bool:
        """End a race that is still open (nobody started it in time) with reason ``expired``;
        True if it did."""
        async with self.lock:
            if self.status != "open":
                return False
            await self._finish("expired")
            return True

    async def stop(self, reason: str) -> None:
        """End the race now (a tournament's window closed, or it was cancelled): entrants still
        playing are out of time. Does nothing to a race that has finished."""
        async with self.lock:
            if self.status == "finished":
                return
            for entrant in self.entrants.values():
                if not entrant.done:
                    entrant.status = "out_of_time"
            await self._finish(reason)

    async def resign(self, player: str) -> None:
        """Give up; cards cleared so far stand. Raises ProtocolError (not_entrant, not_started,
        race_over, done)."""
        entrant = self.entrants.get(player)
        if entrant is None:
            raise ProtocolError(ErrorCode.NOT_ENTRANT, f"you are not an entrant of race {self.code}")
        async with self.lock:
            if self.status == "finished":
                raise ProtocolError(ErrorCode.RACE_OVER, f"race {self.code} is over")
            if self.status != "running":
                raise ProtocolError(ErrorCode.NOT_STARTED, f"race {self.code} has not started")
            if entrant.done:
                raise ProtocolError(ErrorCode.DONE, f"you can play no more in this race ({entrant.status})")
            entrant.status = "resigned"
            await self._save(events=1)
            await self._progress(entrant, "resign", self.elapsed_ms())
            await self._maybe_finish()
            if entrant.listener is not None:  # (ahead of the answer, as a move's)
                self.entrant_channel.catch_up(entrant.listener)

    def _settle(self, entrant: Entrant) -> None:
        game = entrant.game
        if game is not None and entrant.status == "playing":
            if game.won:
                entrant.status = "won"
            elif game.over and not (self.undo and game.can_undo):  # (with undo, a dead end is not the end)
                entrant.status = "stuck"

    async def _progress(self, entrant: Entrant, move: str, elapsed: int, board: Board | None = None) -> None:
        """Publish an entrant's move (or change of status: ``move`` "resign", "idle"...): the
        standings to everyone; the move and the board to spectators, at once or delayed.
        ``board``: the spectators' board of the entrant now, when the caller has it."""
        version = self._next_version()
        now_ms = self.clock.wall_ms()
        standings = Progress(
            race=self.code,
            version=version,
            player=entrant.player,
            elapsed_ms=elapsed,
            move="",
            standings=self.standings(),
            server_ms=now_ms,
        )
        if board is None:
            board = self._board(entrant, Audience.SPECTATOR)
        live = self.spectating == "live" and not self.spectator_delay_s
        if live or board is None or self.status == "finished":  # (finished: all public)
            full = Progress(
                race=self.code,
                version=version,
                player=entrant.player,
                elapsed_ms=elapsed,
                move=move,
                standings=standings.standings,
                board=board,
                server_ms=now_ms,
            )
            await self._publish(standings, full, standings=True, board_of=entrant.player)
            return
        await self._publish(standings, standings=True)
        due = self.clock.monotonic() + self.spectator_delay_s
        if self.spectating != "live" and not self._due_before_end(due):
            return  # held back until the end: the final boards follow `RaceFinished` (`_finish`)
        frame = encode(
            DelayedBoard(
                race=self.code,
                version=version,
                player=entrant.player,
                move=move,
                elapsed_ms=elapsed,
                board=board,
                server_ms=now_ms,
            )
        )
        self._delayed.append((due, entrant.player, board, frame))
        if self._releasing is None:
            self._releasing = asyncio.ensure_future(self._release_delayed())

    async def _release_delayed(self) -> None:
        """Send each delayed board to the spectators when its delay is over, not before."""
        try:
            while self._delayed:
                await self.clock.sleep_until(self._delayed[0][0])
                now = self.clock.monotonic()
                while self._delayed and self._delayed[0][0] <= now:
                    self._release(self._delayed.popleft())
        finally:
            self._releasing = None

    def _face_down(self, started: RaceStarted) -> RaceStarted | None:
        """The spectators' form of the deal (`RaceStarted`) when ``spectating`` shows them no board
        while the race runs: the table's shape, every card face down (None: the same as the
        entrants')."""
        if self.spectating == "live":
            return None
        board = started.board
        hidden = msgspec.structs.replace(
            board,
            piles={pile: ["??"] * len(cards) for pile, cards in board.piles.items()},
            info={k: v for k, v in board.info.items() if not isinstance(v, str)},
            legal=[],
            undo=False,
            decided=False,
        )
        return msgspec.structs.replace(started, board=hidden)

    def _due_before_end(self, due: float) -> bool:
        """Whether ``due`` (monotonic seconds) comes before this race's time limit runs out
        ("standings": never): a board released then reaches spectators while the race runs."""
        if self.spectating == "standings" or self.started_at is None:
            return False
        return due < self.started_at + self.time_limit_s

    def _release(self, item: tuple[float, str, Board, bytes]) -> None:
        _, player, board, frame = item
        self._shown[player] = board
        if self.spectating == "delayed":
            self._released[player] = board
        self.spectator_channel.send(frame, state=player)

    def _send_final_boards(self) -> None:
        """A race that showed its spectators no live board: each entrant's final board now, as a
        `DelayedBoard` with the finish's version (the race is over: every board is public)."""
        if self.spectating == "live" or not self.spectators:
            return
        for entrant in self._by_order():
            board = self._board(entrant, Audience.SPECTATOR)
            if board is not None:
                self.spectator_channel.send(
                    encode(
                        DelayedBoard(
                            race=self.code,
                            version=self.version,
                            player=entrant.player,
                            move="",
                            elapsed_ms=self.finished_ms or 0,
                            board=board,
                            server_ms=self.clock.wall_ms(),
                        )
                    ),
                    state=entrant.player,
                )

    async def _maybe_finish(self) -> None:
        if self.status == "running" and all(e.done for e in self.entrants.values()):
            await self._finish("all_done")

    async def _finish(self, reason: str) -> None:
        while self._delayed:  # the race is over and its record public: nothing left to hold back
            self._release(self._delayed.popleft())
        if self._releasing is not None:
            self._releasing.cancel()
        self.finished_ms = self.elapsed_ms()
        self._become("finished")
        self.finish_reason = reason
        for entrant in self.entrants.values():
            entrant.points = entrant.cleared
        self._log_finish()
        await self._save(events=1)
        await self._publish(
            RaceFinished(
                race=self.code,
                version=self._next_version(),
                reason=reason,
                standings=self.standings(),
                seed=self.seed if self.revealed else None,
                salt=self.salt if self.revealed else None,
                commitment=self.commitment,
                double_or_naught=[
                    e.player for e in self._by_order() if e.status == "won" and self.casual and reason != "void"
                ],
                server_ms=self.clock.wall_ms(),
                detail=self.void_reason,
            )
        )
        self._send_final_boards()
        current = asyncio.current_task()
        for task in list(self._tasks):
            if task is not current:
                task.cancel()
        if self.on_finish is not None:
            self.on_finish(self)

    def _log_finish(self) -> None:
        standings = self.standings()
        summary = "; ".join(
            f"{s.place}. {s.name} {s.cleared}/{s.total} {s.status} {s.time_ms / 1000:.1f} s"
            for s in standings[:_LOGGED_PLACES]
        )
        if len(standings) > _LOGGED_PLACES:
            summary += f"; {len(standings) - _LOGGED_PLACES} more"
        leader = standings[0] if standings else None
        log.info(
            "race %s finished (%s)",
            self.code,
            self.finish_reason,
            extra=fields(
                "race_finished",
                race=self.code,
                game=self.game_cls.key,
                reason=self.finish_reason,
                entrants=len(standings),
                winner=leader.player if leader else None,
                winner_name=leader.name if leader else None,
                standings=summary or None,
                seed=self.seed if self.revealed else None,
                tournament=None if self.casual else self.creator,
            ),
        )

    async def set_par(self, par: Par) -> None:
        """Keep the finished race's par and tell its audience (`server.par`)."""
        async with self.lock:
            self.par = par
            await self._save(events=1)  # a restarted server keeps it (`rebuild`), and its record with it
            await self._publish(RacePar(race=self.code, version=self._next_version(), par=par))

    async def set_ratings(self, ratings: dict[str, tuple[int, bool]]) -> None:
        """Keep each entrant's rating as the race starts, by player id: ``(display points,
        provisional)``; its standings carry them from the next one built on (no event of its
        own), and its saved description keeps them (`rebuild`). Players not entrants are left out."""
        async with self.lock:
            for player, (rating, provisional) in ratings.items():
                entrant = self.entrants.get(player)
                if entrant is not None:
                    entrant.rating, entrant.provisional = rating, provisional
            self._snapshot = None  # (the spectators' snapshot carries the standings)
            await self._save()

    async def offer_rematch(self, rematch: Race) -> None:
        """Tell this race's entrants and spectators that ``rematch`` is its rematch, and who has
        joined it so far (called whenever that may have changed): published only when the
        rematch or who has accepted it changed since the last offer."""
        async with self.lock:
            accepted = [e.player for e in rematch._by_order()]
            if self._offered == (rematch.code, accepted):
                return
            self._offered = (rematch.code, accepted)
            self.rematch = rematch.code
            await self._save(events=1)  # a restarted server still offers it (`rebuild`)
            await self._publish(
                RematchOffer(race=self.code, version=self._next_version(), rematch=rematch.code, accepted=accepted)
            )

    # ------------------------------------------------------------------ Double or Naught

    async def double_or_naught(self, player: str, req: int, notation: str | None = None) -> Bonus:
        """Deal a new Double or Naught round (``notation`` None) or play a move in the current one
        (`server.bonus`); the standings' points change when a round is decided. Raises
        ProtocolError (not_entrant, not_finished, not_allowed, bad_notation, rule codes)."""
        entrant = self.entrants.get(player)
        if entrant is None:
            raise ProtocolError(ErrorCode.NOT_ENTRANT, f"you are not an entrant of race {self.code}")
        async with self.lock:
            if self.status != "finished" or entrant.points is None:
                raise ProtocolError(ErrorCode.NOT_FINISHED, "Double or Naught comes after the race")
            if notation is None:
                entrant.bonus.append(
                    open_round(entrant.points, entrant.bonus, won=entrant.status == "won", casual=self.casual)
                )
                await self._save()  # its seed: a restarted server deals the same round (`rebuild`)
            elif not entrant.bonus:
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "ask for a Double or Naught round first")
            else:
                round_ = entrant.bonus[-1]
                entrant.points = play_round(round_, notation, entrant.points)
                await self._save(events=int(round_.decided))
                if round_.decided:
                    await self._progress(
                        entrant, f"double or naught: {round_.game.outcome or 'no result'}", self.elapsed_ms()
                    )
            return entrant.bonus[-1].reply(req, self.code, len(entrant.bonus), entrant.points)

    # ----------------------------------------------------------------------------- record

    async def record(self, req: int) -> RaceRecord:
        """Everything needed to verify a finished race (`kept_record`, answering ``req``); raises
        ProtocolError(not_finished) while it runs."""
        return msgspec.structs.replace((await self.kept_record())[0], req=req)

    async def kept_record(self) -> tuple[RaceRecord, ReplyFrame]:
        """The finished race's record (``req`` 0) and its encoded frame, shared by every request:
        each entrant's moves are read from the store once (they no longer change), and the
        record is built and encoded once per version (par, a rematch offer and Double or Naught
        change it). Raises ProtocolError(not_finished) while the race runs or holds its seed,
        StoreUnavailable."""
        if not self.revealed:
            raise ProtocolError(ErrorCode.NOT_FINISHED, f"race {self.code} is not finished (or its seed is held)")
        version = self.version
        kept = self._record
        if kept is not None and kept[0] == version:
            return kept[1], kept[2]
        if self._logs is None:
            logs = {}
            for e in self._by_order():
                log = await self.store.moves(self.code, e.player)
                logs[e.player] = ([m.move for m in log], [m.time_ms for m in log])
            self._logs = logs
        entrants = [
            EntrantRecord(
                player=e.player,
                name=e.name,
                moves=self._logs[e.player][0],
                times_ms=self._logs[e.player][1],
                status=e.status,
                bonus=[r.record() for r in e.bonus if r.decided],
            )
            for e in self._by_order()
        ]
        record = self._record_of(entrants)
        self._record = (version, record, ReplyFrame(encode(record)))
        return record, self._record[2]

    def _record_of(self, entrants: list[EntrantRecord]) -> RaceRecord:
        return RaceRecord(
            req=0,
            race=self.info(),
            seed=self.seed,
            salt=self.salt,
            commitment=self.commitment,
            entrants=entrants,
            standings=self.standings(),
            void=self.void_reason if self.finish_reason == "void" else "",
        )

    # ------------------------------------------------------------------------ publishing

    def _next_version(self) -> int:
        self.version += 1
        return self.version

    async def _publish(
        self,
        for_entrants: msgspec.Struct,
        for_spectators: msgspec.Struct | None = None,
        *,
        standings: bool = False,
        board_of: str | None = None,
    ) -> None:
        """Store an event, then deliver it: one encoding per audience, shared by every receiver.
        ``standings``: the event is a `Progress`, and the entrants' frame only the standings
        after a move, which may leave with their next frames (`Listener.send`); ``board_of``:
        the entrant whose board the spectators' frame carries. Both are states: a newer frame of
        the same state takes the place of one still waiting (`Channel.send`)."""
        entrant_frame = encode(for_entrants)
        spectator_frame = encode(for_spectators) if for_spectators is not None else entrant_frame
        try:
            # (not awaited: written with the race's next move, `Store.queue_event`; a move waits for one write)
            self.store.queue_event(self.code, StoredEvent(self.version, entrant_frame, spectator_frame))
        except StaleRace:  # another node serves the race now: it publishes
            raise
        except StoreUnavailable as exc:  # the live audience still gets it; a catch-up over it gets a snapshot
            _store_log.warning("event %d of race %s not stored: %s", self.version, self.code, exc)
        self.entrant_channel.send(entrant_frame, standings)
        if self.spectators:
            self.spectator_channel.send(spectator_frame, state=board_of or (STANDINGS if standings else None))

    async def missed(self, since: int, *, spectator: bool, limit: int | None = None) -> list[bytes] | None:
        """Frames of the events after version ``since`` for one audience, at most ``limit`` of
        them (None: all); None if some are no longer kept."""
        events = await self.store.events_since(self.code, since, limit)
        if events is None:
            return None
        return [e.spectator_frame if spectator else e.entrant_frame for e in events]

    def _become(self, status: str) -> None:
        old, self.status = self.status, status
        if self.on_status is not None:
            self.on_status(self, old)

    async def _save(self, events: int = 0) -> None:
        """Store the race's description; if the store cannot be reached, say so and go on (a
        rebuild then reads the one saved before, and the move logs). ``events``: how many events
        the caller publishes next; the description's version counts them, so that a rebuild
        numbers on after them even if they are lost before they are stored."""
        try:
            await self._save_description(events)
        except StaleRace:  # another node serves the race now
            raise
        except StoreUnavailable as exc:
            _store_log.warning("race %s: description not stored: %s", self.code, exc)

    async def _save_description(self, events: int = 0) -> None:
        await self.store.save_race(
            self.code,
            {
                "game": self.game_cls.key,
                "options": ",".join(f"{k}={int(v)}" for k, v in self.options.items()),
                "rules_version": self.game_cls.rules_version,
                "deal_version": DEAL_VERSION,
                "seed": self.seed,
                "seed_public": self.seed_public,
                "salt": self.salt,
                "commitment": self.commitment,
                "creator": self.creator,
                "status": self.status,
                "version": self.version + events,
                "casual": self.casual,
                "hold_seed": self.hold_seed,
                "max_entrants": self.max_entrants,
                "countdown_s": self.countdown_s,
                "time_limit_s": self.time_limit_s,
                "spectator_delay_s": self.spectator_delay_s,
                "idle_timeout_s": self.idle_timeout_s,
                "max_moves": self.max_moves,
                "undo": self.undo,
                "rated": self.rated,
                "bots": ",".join(sorted(self.bots)),
                "created_ms": self.created_ms,
                "starts_at_ms": self.starts_at_ms,
                "started_at_ms": self.started_at_ms,
                "finish_reason": self.finish_reason,
                "void_reason": self.void_reason,
                "rematch": self.rematch,
                "rematch_of": self.rematch_of,
                "daily": self.daily,
                "par": self.par,
                # Double or Naught rounds, by player: [[stake, seed, salt, [move, ...]], ...]
                "bonus": msgspec.json.encode(
                    {
                        e.player: [[r.stake, r.seed, r.salt, r.moves] for r in e.bonus]
                        for e in self.entrants.values()
                        if e.bonus
                    }
                ).decode(),
                # one JSON string, to keep the description flat: [{"p": id, "n": name, "o": order,
                # "s": status, "c": claimed, "r": rating or null, "v": provisional}]
                "entrants": msgspec.json.encode(
                    [
                        {
                            "p": e.player,
                            "n": e.name,
                            "o": e.order,
                            "s": e.status,
                            "c": e.claimed,
                            "r": e.rating,
                            "v": e.provisional,
                        }
                        for e in self._by_order()
                    ]
                ).decode(),
            },
        )

    # ------------------------------------------------------------------------ rebuilding

    @classmethod
    async def rebuild(cls, code: str, meta: dict[str, object], *, store: Store, clock: Clock) -> Race:
        """The race ``code`` as its description ``meta`` (`_save_description`) and its move logs
        in ``store`` say it stood: same deal, seed, salt, commitment, settings, entrants and
        statuses; each entrant's `Game` replayed from its log, with its counters (moves, cards
        cleared, time, last seq) and the answer to its last move, so that a resent last seq gets
        it again; event versions going on from the highest one published, or about to be, when the
        race was last stored (its last event, its description's version, its moves' versions: an
        event may be published and lost before it is stored); the race clock going on
        from the saved wall-clock start instant, every entrant's idle time from now. Its timers
        do not run until `resume`. Raises `RebuildError` if it cannot be rebuilt faithfully,
        `StoreUnavailable` if the store does not answer.
        """
        m: dict[str, Any] = meta  # its fields' types are checked below, or raise on use
        try:
            game_cls = find_game(m["game"])
            if m["rules_version"] != game_cls.rules_version or m["deal_version"] != DEAL_VERSION:
                raise RebuildError(
                    f"race {code} was played under {m['game']} rules {m['rules_version']}, "
                    f"deal {m['deal_version']}; this server has rules {game_cls.rules_version}, "
                    f"deal {DEAL_VERSION}"
                )
            options = {k: v == "1" for k, _, v in (o.partition("=") for o in m["options"].split(",") if o)}
            race = cls(
                code,
                game_cls,
                options=options,
                seed=int(m["seed"]),
                seed_public=bool(m["seed_public"]),
                creator=str(m["creator"]),
                max_entrants=int(m["max_entrants"]),
                countdown_s=int(m["countdown_s"]),
                time_limit_s=int(m["time_limit_s"]),
                store=store,
                clock=clock,
                salt=str(m["salt"]),
                hold_seed=bool(m["hold_seed"]),
                casual=bool(m["casual"]),
                spectator_delay_s=int(m["spectator_delay_s"]),
                idle_timeout_s=m["idle_timeout_s"],
                max_moves=m["max_moves"],
                undo=bool(m.get("undo", False)),  # (a race saved before undo existed had none)
            )
            if race.commitment != m["commitment"]:
                raise RebuildError(f"race {code}: its seed and salt do not give its published commitment")
            race.status = str(m["status"])
            race.created_ms = int(m["created_ms"])
            race.starts_at_ms = m["starts_at_ms"]
            race.started_at_ms = m["started_at_ms"]
            race.finish_reason = str(m["finish_reason"])
            race.void_reason = str(m.get("void_reason") or "")  # (older: none)
            if race.finish_reason == "void" and not race.void_reason:
                race.void_reason = f"the server lost acknowledged moves: race {code} is void, with no result"
            race.rematch = m["rematch"]
            race.rematch_of = m["rematch_of"]
            race.daily = m.get("daily")  # (older: none)
            race.rated = bool(m.get("rated", False))  # (older: none)
            race.bots = {bot for bot in str(m.get("bots") or "").split(",") if bot}
            race.par = msgspec.convert(m["par"], Par) if m.get("par") is not None else None  # (older: none)
            entrants = [
                (
                    str(e["p"]),
                    str(e["n"]),
                    int(e["o"]),
                    str(e["s"]),
                    bool(e.get("c", False)),  # (older: none)
                    None if e.get("r") is None else int(e["r"]),
                    bool(e.get("v", False)),
                )
                for e in msgspec.json.decode(m["entrants"])
            ]
            version = int(m["version"])
        except RebuildError:
            raise
        except (UnknownGame, BadNotation) as exc:
            raise RebuildError(f"race {code}: {exc.reason}") from None
        except (KeyError, TypeError, ValueError, AttributeError, msgspec.DecodeError) as exc:
            raise RebuildError(
                f"race {code}: its stored description cannot be read ({type(exc).__name__}: {exc})"
            ) from None
        now = clock.monotonic()
        if race.started_at_ms is not None:
            race.started_at = now - (clock.wall_ms() - race.started_at_ms) / 1000
        cutoff_ms = race.elapsed_ms() - race.spectator_delay_s * 1000  # what delayed spectators have seen
        for player, name, order, status, claimed, rating, provisional in entrants:
            entrant = Entrant(
                player,
                name,
                order,
                status=status,
                active_at=now,
                claimed=claimed,
                rating=rating,
                provisional=provisional,
            )
            race.entrants[entrant.player] = entrant
            race._names.add(name_key(entrant.name))
            if race.started_at is not None:
                entries = await store.moves(code, entrant.player)
                if entries:
                    version = max(version, entries[-1].version)
                shown = race._replay(entrant, entries, cutoff_ms)
                if race.spectator_delay_s and race.status == "running":
                    assert shown is not None, "a delayed race's replay gives the spectators' board"
                    race._shown[entrant.player] = shown
        if race.status == "finished":
            race._rebuild_points(m.get("bonus"))
        race.version = max(version, await store.last_version(code))
        return race

    def _rebuild_points(self, bonus: object) -> None:
        """A rebuilt finished race's points: each entrant's cards cleared, then its Double or
        Naught rounds (``bonus``, as `_save_description` wrote them; None from older servers)
        dealt again from their seeds and replayed. Raises `RebuildError` if one does not replay."""
        try:
            rounds = msgspec.json.decode(bonus) if isinstance(bonus, str) else {}
            for entrant in self.entrants.values():
                entrant.points = entrant.cleared
                for stake, seed, salt, moves in rounds.get(entrant.player, ()):
                    round_ = BonusRound(stake=int(stake), seed=int(seed), salt=str(salt))
                    for move in moves:
                        entrant.points = play_round(round_, str(move), entrant.points)
                    entrant.bonus.append(round_)
        except (ProtocolError, msgspec.DecodeError, TypeError, ValueError) as exc:
            raise RebuildError(f"race {self.code}: its Double or Naught rounds do not replay ({exc})") from None

    def _replay(self, entrant: Entrant, entries: list[MoveEntry], cutoff_ms: int) -> Board | None:
        """Rebuild ``entrant``'s game and counters from its move log, and the answer to its last
        move; the spectators' board as it stood at race time ``cutoff_ms`` (for a delayed race)."""
        game = self.game_cls(self.seed, **self.options)
        shown = None
        revealed: Sequence[Reveal] = []
        for entry in entries:
            if shown is None and self.spectator_delay_s and entry.time_ms > cutoff_ms:
                shown = board_of(game.view(Audience.SPECTATOR))
            try:
                revealed = game.apply(Move.parse(entry.move))
            except (BadNotation, IllegalMove) as exc:
                raise RebuildError(
                    f"race {self.code}: move {entry.seq} ({entry.move}) of {entrant.player} does "
                    f"not replay: {exc.reason}"
                ) from None
            entrant.moves += 1
            entrant.undos += entry.move == UNDO
            entrant.last_seq = entry.seq
            if game.cleared != entrant.cleared:
                entrant.cleared = game.cleared
                entrant.time_ms = entry.time_ms
        entrant.game = game
        entrant.resumed_seq = entrant.last_seq
        if self.status == "running" and entrant.status not in ("resigned", "out_of_time"):
            # won and stuck follow from the game (a winning move saves no description)
            entrant.status = "playing"
            self._settle(entrant)
        if entries:
            last = entries[-1]
            entrant.results[last.seq] = self._accepted(entrant, last, revealed)
        if shown is None and self.spectator_delay_s:
            shown = board_of(game.view(Audience.SPECTATOR))
        return shown

    def _accepted(self, entrant: Entrant, entry: MoveEntry, revealed: Sequence[Reveal]) -> bytes:
        """The answer the move ``entry`` got when it was accepted (``entrant.game`` as it stood
        right after it, ``revealed`` what it turned face up)."""
        return encode(
            MoveResult(
                race=self.code,
                seq=entry.seq,
                move=entry.move,
                ok=True,
                revealed=[Revealed(r.pile, r.index, r.card.code) for r in revealed],
                board=self._board(entrant, Audience.PLAYER),
                elapsed_ms=entry.time_ms,
                next_seq=entry.seq + 1,
            )
        )

    async def _answer_again(self, entrant: Entrant, seq: int) -> bytes | None:
        """The first answer to ``entrant``'s move ``seq``, accepted before the race was rebuilt
        and no longer in memory: replayed from its log (one store read; only a client resending
        several moves after a restart asks for it). None if the log does not have it."""
        try:
            entries = await self.store.moves(self.code, entrant.player)
        except StoreUnavailable:
            return None
        game = self.game_cls(self.seed, **self.options)
        for entry in entries:
            try:
                revealed = game.apply(Move.parse(entry.move))
            except (BadNotation, IllegalMove):
                return None
            if entry.seq == seq:
                again = Entrant(entrant.player, entrant.name, entrant.order, game=game)
                return self._accepted(again, entry, revealed)
        return None

    async def resume(self) -> None:
        """Restart a rebuilt race's timers: the countdown to its saved start instant, or the time
        limit (a race whose limit passed while no server ran ends at once, ``time_limit``) and
        the idle timeouts; a race whose entrants are all done finishes now."""
        if self.status == "starting" and self.starts_at_ms is not None:
            self._spawn(self._run(self.clock.monotonic() + (self.starts_at_ms - self.clock.wall_ms()) / 1000))
        elif self.status == "running" and self.started_at is not None:
            async with self.lock:
                await self._maybe_finish()
            if self.status == "running":
                self._spawn(self._keep_time())

    def _spawn(self, coro: Coroutine[object, object, None]) -> None:
        task = asyncio.ensure_future(self._guarded(coro))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _guarded(self, timer: Coroutine[object, object, None]) -> None:
        """Run a timer; if the store says the race is no longer this node's, tell ``on_lost``
        (which lets it go) rather than fail."""
        try:
            await timer
        except StaleRace as exc:
            _store_log.warning("race %s: a timer stopped: %s", self.code, exc)
            if self.on_lost is not None:
                self.on_lost(self, exc)

    # ----------------------------------------------------------------- lost moves: void

    async def _lost_moves(self) -> dict[str, int]:
        """How many acknowledged moves of each entrant the store no longer has: player id ->
        count, only entrants that lost some (one store read per entrant who has moved). Raises
        `StoreUnavailable`."""
        lost = {}
        for entrant in self._by_order():
            if entrant.last_seq:
                log = await self.store.moves(self.code, entrant.player)
                kept = log[-1].seq if log else 0
                if kept < entrant.last_seq:
                    lost[entrant.player] = entrant.last_seq - kept
        return lost

    def _void_words(self, lost: dict[str, int], player: str | None = None) -> str:
        """Why the race is void, in words: to ``player`` (its own loss), or to everyone."""
        if player is not None and player in lost:
            n = lost[player]
            whose = f"your last {n} move{'s' if n != 1 else ''}"
        else:
            whose = ", ".join(
                f"the last {n} move{'s' if n != 1 else ''} of {self.entrants[p].name}" for p, n in lost.items()
            )
        return f"the server lost {whose} after a storage failure: race {self.code} is void, with no result"

    async def void(self) -> bool:
        """Compare the store's move logs with the moves this node acknowledged, and void the race
        if the store lost any (`_void`): what a node does when its store says it may have lost
        data (restarted empty, its append-only file cut). True if it voided the race. Raises
        `StoreUnavailable`."""
        async with self.lock:
            if self.status != "running":
                return False
            lost = await self._lost_moves()
            if lost:
                await self._void(lost)
            return bool(lost)

    async def _void(self, lost: dict[str, int]) -> None:
        """End the race without a result (reason ``void``, its words in the event's ``detail``):
        the store lost acknowledged moves (``lost``: player id -> how many), and going on from a
        shorter log would let entrants replay cards they have already seen turned face up.
        Logged at ERROR (an operator alert) and counted (``arena_races_void_total``). Called
        under the race's lock."""
        self.void_reason = self._void_words(lost)
        self.tally.races_void += 1
        log.error(  # (arena.races: every one written, never merged with others like it)
            "race %s is void: %s",
            self.code,
            self.void_reason,
            extra=fields("race_void", race=self.code, lost=sum(lost.values()), players=sorted(lost)),
        )
        await self._finish("void")

    async def close(self) -> None:
        """Cancel the race's timers (server shutdown) and wait until they have ended (a timer
        that lost its cancellation in a Redis command is cancelled again: `server.stopping`)."""
        if self._releasing is not None:
            self._releasing.cancel()
        tasks = set(self._tasks)
        await cancel_and_wait(tasks, math.inf)
        for task in tasks:
            if not task.cancelled() and task.exception() is not None:
                log.error("race %s: a timer failed before it was closed", self.code, exc_info=task.exception())
