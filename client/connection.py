"""`ArenaClient`: one connection to an arena server, speaking the whole wire protocol.

The client owns one websocket (binary MessagePack frames, no compression) and one reader task.
The reader decodes every frame and routes it:

* a reply carrying ``req`` (`RaceReply`, `Races`, `Snapshot`, `SyncPage`, `RaceRecord`,
  `Error`) resolves the request that chose that number;
* a `MoveResult` resolves the move with the same ``(race, seq)``;
* a race event (`EntrantJoined`, `RaceStarting`, `RaceStarted`, `Progress`, `RaceFinished`)
  goes into the queue that `ArenaClient.events` reads, unless its ``version`` is not newer than
  the last one seen for that race (a repeat sent again by a sync, or an older event of a sync's
  page that a live one overtook: each event carries the whole standings, so the newest wins);
* a `DelayedBoard` (spectators of a race with a spectator delay) goes into the same queue.

Errors::

    ArenaError               a request the server refused: ``code`` (an ErrorCode string), ``reason``
     ├── ArenaConnectionError  the connection failed or was lost (code "disconnected")
     └── ArenaTimeout          no answer in time (code "timeout")

A refused move is not an error: `ArenaClient.move` returns its `MoveResult` with ``ok`` false.

Moves are idempotent on the wire: each carries a sequence number per race, and the server
answers a repeated number with its first answer. If the connection drops while a move waits,
`ArenaClient.move` raises `ArenaConnectionError` whose ``seq`` names the move; after
`ArenaClient.reconnect` (which sends it again, same number) `ArenaClient.move_result` returns
its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Callable
from typing import Any, Literal, TypeVar

import msgspec
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from server.protocol import (
    Bonus,
    BonusMove,
    CalendarPage,
    CancelTournament,
    Claim,
    Claimed,
    CreateRace,
    CreateTournament,
    DailyCalendar,
    DailyInfo,
    DelayedBoard,
    DoubleOrNaught,
    EntrantJoined,
    Error,
    FairPlayReport,
    FairPlayRequest,
    FollowTournament,
    ForgetMe,
    Forgotten,
    GetDaily,
    GetProfile,
    GetRecord,
    GrantOrganiser,
    Hello,
    History,
    HistoryPage,
    JoinRace,
    Leaderboard,
    LeaderboardPage,
    ListRaces,
    ListTournaments,
    Login,
    MoveRequest,
    MoveResult,
    OpenDeal,
    Organiser,
    PlayDaily,
    Profile,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceRecord,
    RaceReply,
    Races,
    RaceStarted,
    RaceStarting,
    Redeem,
    RegisterTournament,
    Rematch,
    Rename,
    Renamed,
    Replay,
    ReplayStep,
    Resign,
    ReviewEntry,
    Snapshot,
    StartRace,
    Sync,
    SyncPage,
    TournamentEvent,
    TournamentInfo,
    TournamentReply,
    Tournaments,
    TournamentSnapshot,
    TransferCode,
    TransferCodeRequest,
    Watch,
    Welcome,
    WithdrawTournament,
    decode_server,
    encode,
)

__all__ = [
    "ArenaClient",
    "ArenaConnectionError",
    "ArenaError",
    "ArenaTimeout",
    "RaceEvent",
]

log = logging.getLogger(__name__)

#: What `ArenaClient.events` yields: the race events, plus the `Snapshot` that
#: `ArenaClient.reconnect` gets for each race (it stands for whatever was missed).
#: `TournamentEvent`s of the tournaments we entered or follow come through the same queue.
RaceEvent = (
    EntrantJoined | RaceStarting | RaceStarted | Progress | DelayedBoard | RaceFinished | Snapshot | TournamentEvent
)

_EVENT_TYPES = (EntrantJoined, RaceStarting, RaceStarted, Progress, RaceFinished)
_REPLY_TYPES = (
    RaceReply,
    Races,
    HistoryPage,
    Snapshot,
    SyncPage,
    RaceRecord,
    TournamentReply,
    Tournaments,
    TournamentSnapshot,
    Bonus,
    ReplayStep,
    Renamed,
    Claimed,
    TransferCode,
    Forgotten,
    FairPlayReport,
    DailyInfo,
    CalendarPage,
    Organiser,
    LeaderboardPage,
    Profile,
)
_T = TypeVar("_T")

#: Largest frame the client accepts from the server, in bytes (a race record can be long).
MAX_SERVER_FRAME_BYTES = 4 * 1024 * 1024


_M = TypeVar("_M", bound=msgspec.Struct)


def _message(kind: type[_M], **fields: Any) -> _M:
    """``kind(**fields)``, a request; a rule of the protocol it breaks (checked as it is built, as
    the server checks it when decoding) raises `ArenaError` ``bad_field`` as the server would."""
    try:
        return kind(**fields)
    except ValueError as exc:
        tag = getattr(kind.__struct_config__, "tag", kind.__name__)
        raise ArenaError("bad_field", f"bad {tag} message: {exc}", fields.get("req")) from None


class ArenaError(Exception):
    """The server refused a request: ``code`` (an `server.protocol.ErrorCode` string) and
    ``reason`` (a sentence for people); ``req`` is the refused request's number, if any."""

    def __init__(self, code: str, reason: str, req: int | None = None) -> None:
        super().__init__(f"{reason} [{code}]")
        self.code = code
        self.reason = reason
        self.req = req
        self.opens_at_ms: int | None = None  # spoiler_locked: when the lock opens (Unix epoch ms)
        self.retry_after_s: int | None = None  # a rate_limited login: seconds to wait before the next


def _refusal(message: Error) -> ArenaError:
    """The `ArenaError` a refusal ``message`` stands for, with its optional fields."""
    error = ArenaError(message.code, message.reason, message.req)
    error.opens_at_ms = message.opens_at_ms
    error.retry_after_s = message.retry_after_s
    return error


class ArenaConnectionError(ArenaError):
    """The connection could not be opened or was lost (code ``disconnected``).

    ``race`` and ``seq`` name the move that was waiting for its answer when it happened, if any:
    it stays pending, `ArenaClient.reconnect` sends it again and `ArenaClient.move_result`
    returns its answer.
    """

    def __init__(self, reason: str, race: str | None = None, seq: int | None = None) -> None:
        super().__init__("disconnected", reason)
        self.race = race
        self.seq = seq


class ArenaTimeout(ArenaError):
    """No answer came within the client's ``timeout_s`` (code ``timeout``)."""

    def __init__(self, reason: str) -> None:
        super().__init__("timeout", reason)


class _Closed:
    """Queue marker: the connection ended (``clean``: by `ArenaClient.close`)."""

    def __init__(self, clean: bool, reason: str) -> None:
        self.clean = clean
        self.reason = reason


class ArenaClient:
    """A player's or spectator's connection to an arena server.

    Open one with `ArenaClient.connect` (or ``async with await ArenaClient.connect(...)``).
    Requests are coroutines that return the server's reply and raise `ArenaError` when the
    server refuses; each waits at most ``timeout_s`` seconds and raises `ArenaTimeout` after.
    Race events arrive through `events`. One task at a time should play the moves of one race.

    Attributes: ``url``, ``name``, ``player`` (the server's id for us), ``token`` (resumes the
    session after a reconnect), ``races`` (the latest `RaceInfo` per race code we created,
    joined or watched), ``started`` (the `RaceStarted` event per race), ``finished`` (the
    `RaceFinished` event per race), ``last_version`` (the newest event version seen per race),
    ``commitments`` (per race, the seed's commitment as the server published it before the race
    ended: from ``race_starting`` or a race description seen while it ran; `arena verify` checks
    the final record against it, not against what the record itself says).
    """

    def __init__(self, url: str, name: str, *, timeout_s: float = 10.0) -> None:
        """Prepare a client; nothing happens until `open` (use `ArenaClient.connect`)."""
        self.url = url
        self.name = name
        self.timeout_s = timeout_s
        self.player = ""
        self.token: str | None = None
        self.welcome: Welcome | None = None  # the server's last welcome (its ``node`` says which node serves us)
        self.claimed = False  # our name is claimed (`claim`); False: a guest
        self.bot = False  # our hello says we are a program (`connect`'s ``bot``)
        self._welcome_waiter: asyncio.Future[Welcome] | None = None  # a login or redeem after hello
        self.races: dict[str, RaceInfo] = {}
        self.started: dict[str, RaceStarted] = {}
        self.finished: dict[str, RaceFinished] = {}
        self.commitments: dict[str, str] = {}
        self.tournaments: dict[str, TournamentInfo] = {}  # the latest we heard of each
        self.pending_entries: dict[str, str] = {}  # tournament id -> why our entry waits for approval
        self.invite_codes: dict[str, str] = {}  # tournament id -> the invite code its creation answered
        self._arrived = asyncio.Condition()
        self.last_version: dict[str, int] = {}
        self._entered: set[str] = set()
        self._watching: set[str] = set()
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._lost = asyncio.Event()
        self._closing = False
        self._req = 0
        self._replies: dict[int, asyncio.Future[Any]] = {}
        self._next_seq: dict[str, int] = {}
        self._moves: dict[tuple[str, int], asyncio.Future[MoveResult]] = {}
        self._unanswered: dict[tuple[str, int], bytes] = {}
        self._move_locks: dict[str, asyncio.Lock] = {}
        self._reconnect_lock = asyncio.Lock()
        self._events: asyncio.Queue[RaceEvent | _Closed] = asyncio.Queue()

    # ----------------------------------------------------------------------- connecting

    @classmethod
    async def connect(
        cls, url: str, name: str, token: str | None = None, *, timeout_s: float = 10.0, bot: bool = False
    ) -> ArenaClient:
        """Connect to ``url`` (``ws://host:port``) and say hello as ``name`` (1-32 characters).

        ``token``: a token from an earlier session, to be the same player again (with the same
        races). ``timeout_s``: seconds to wait for any reply. ``bot``: say this player is a
        program (its races are never rated). Raises `ArenaConnectionError`
        if the server cannot be reached, `ArenaError` if it refuses the hello (``bad_token``,
        ``protocol_version``...), `ArenaTimeout`.
        """
        client = cls(url, name, timeout_s=timeout_s)
        client.token = token
        client.bot = bot
        await client.open()
        return client

    @classmethod
    async def connect_login(cls, url: str, name: str, password: str, *, timeout_s: float = 10.0) -> ArenaClient:
        """Connect to ``url`` as the player that claimed ``name``, logging in with ``password``
        instead of saying hello; the client's ``token`` is a new one for this device. Raises
        `ArenaError` (``bad_login``; ``rate_limited`` with ``retry_after_s``; ``unavailable``),
        and as `connect`."""
        client = cls(url, name, timeout_s=timeout_s)
        await client.open(Login(req=0, name=name, password=password))
        return client

    @classmethod
    async def connect_redeem(cls, url: str, code: str, *, timeout_s: float = 10.0) -> ArenaClient:
        """Connect to ``url`` as the player a transfer ``code`` was made for (the code is then
        spent), instead of saying hello; the client's ``token`` is a new one for this device.
        Raises `ArenaError` (``bad_code``; ``unavailable``), and as `connect`."""
        client = cls(url, "player", timeout_s=timeout_s)
        await client.open(Redeem(req=0, code=code))
        return client

    async def open(self, first: Login | Redeem | None = None) -> None:
        """Open the websocket, send hello (with ``self.token`` if set; or ``first``, a login or
        redeem, instead) and start the reader.

        Raises like `connect`.
        """
        try:
            async with asyncio.timeout(self.timeout_s):
                ws = await connect(
                    self.url,
                    compression=None,
                    max_size=MAX_SERVER_FRAME_BYTES,
                    open_timeout=self.timeout_s,
                )
        except TimeoutError:
            raise ArenaTimeout(f"no connection to {self.url} within {self.timeout_s} s") from None
        except (OSError, InvalidHandshake, InvalidURI) as exc:
            raise ArenaConnectionError(f"cannot connect to {self.url}: {exc}") from None
        try:
            welcome = await self._hello(ws, first)
        except BaseException:
            await ws.close()
            raise
        self._ws = ws
        self._welcomed(welcome)
        self._closing = False
        self._lost = asyncio.Event()
        self._reader = asyncio.create_task(self._read(ws, self._lost), name=f"arena-reader-{self.name}")

    def _welcomed(self, welcome: Welcome) -> None:
        self.welcome = welcome
        self.player = welcome.player
        self.name = welcome.name
        self.token = welcome.token
        self.claimed = welcome.claimed

    async def _hello(self, ws: ClientConnection, first: Login | Redeem | None = None) -> Welcome:
        try:
            async with asyncio.timeout(self.timeout_s):
                await ws.send(encode(first or Hello(name=self.name, token=self.token, bot=self.bot)))
                data = await ws.recv()
        except TimeoutError:
            raise ArenaTimeout(f"{self.url} did not answer hello within {self.timeout_s} s") from None
        except ConnectionClosed as exc:
            raise ArenaConnectionError(f"{self.url} closed the connection during hello: {exc}") from None
        message = _decode(data)
        if isinstance(message, Error):
            raise _refusal(message)
        if not isinstance(message, Welcome):
            raise ArenaError("bad_frame", f"expected welcome, got {type(message).__name__}")
        return message

    async def reconnect(self) -> dict[str, Snapshot]:
        """Open a new connection as the same player and catch up.

        Says hello with our token (the server restores our player id and races), syncs every
        race we entered from its last seen version (missed events arrive through `events`),
        watches our watched races again, and sends every move still waiting for its answer
        again with the same sequence number. Each race's `Snapshot` is also put into the event
        queue. Returns the snapshots by race code. Raises like `connect`.
        """
        async with self._reconnect_lock:
            await self._drop_connection()
            await self.open()
            self._forget_losses()
            snapshots: dict[str, Snapshot] = {}
            for code in sorted(self._entered):
                snapshots[code] = await self.sync(code, self.last_version.get(code, 0))
            for code in sorted(self._watching - self._entered):
                snapshots[code] = await self.watch(code)
            for code, snapshot in snapshots.items():
                self._events.put_nowait(snapshot)
            for key in sorted(self._unanswered):
                await self._send(self._unanswered[key])
            return snapshots

    def _forget_losses(self) -> None:
        """Drop the queue's markers of earlier lost connections: we are connected again."""
        items = []
        while not self._events.empty():
            items.append(self._events.get_nowait())
        for item in items:
            if isinstance(item, _Closed) and not item.clean:
                continue
            self._events.put_nowait(item)

    async def close(self) -> None:
        """Close the connection and cancel the reader. Requests still waiting raise
        `ArenaConnectionError`; `events` ends. Closing twice is harmless."""
        self._closing = True
        await self._drop_connection()
        self._fail_moves("the client was closed")
        self._events.put_nowait(_Closed(True, "closed"))

    async def _drop_connection(self) -> None:
        ws, reader = self._ws, self._reader
        self._ws, self._reader = None, None
        self._lost.set()  # before the reader ends, so that it reports no loss of its own
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        if ws is not None:
            with contextlib.suppress(OSError, ConnectionClosed):
                await ws.close()
        self._fail_replies("the connection was closed")

    async def __aenter__(self) -> ArenaClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def connected(self) -> bool:
        """True while the websocket is open and the reader runs."""
        return self._ws is not None and not self._lost.is_set()

    # ------------------------------------------------------------------------ requests

    async def create_race(
        self,
        game: str,
        seed: int | None = None,
        options: dict[str, bool] | None = None,
        max_entrants: int = 8,
        countdown_s: int = 3,
        time_limit_s: int = 900,
        join: bool = True,
        winnable: bool = False,
        seed_public: bool = False,
        spectator_delay_s: int = 0,
        undo: bool = True,
        rated: bool = False,
    ) -> RaceInfo:
        """Create a race of ``game`` (a key or alias) and return it; ``rated``: its end updates
        the ratings of its claimed entrants (a secret seed only).

        ``seed`` None lets the server draw one, secret until the end unless ``seed_public``; a
        given seed is public. ``options``: the game's rule options. ``countdown_s`` (0-60),
        ``time_limit_s`` (10-86400) and ``spectator_delay_s`` (0-600: how late spectators see
        the boards) are in seconds. ``join``: enter the race too. ``undo``: entrants may take
        back moves (never one that turned a card up or dealt from the stock). ``winnable``: a deal known to be
        winnable (from the server's private catalog when the seed is secret, from the public one
        when ``seed_public``). Raises `ArenaError` (``unknown_game``, ``bad_seed``,
        ``bad_option``, ``bad_field``, ``no_private_catalog``, ``no_catalog``,
        ``too_many_races``).
        """
        req = self._new_req()
        reply = await self._request(
            req,
            _message(
                CreateRace,
                req=req,
                game=game,
                seed=seed,
                options=dict(options or {}),
                max_entrants=max_entrants,
                countdown_s=countdown_s,
                time_limit_s=time_limit_s,
                join=join,
                winnable=winnable,
                seed_public=seed_public,
                spectator_delay_s=spectator_delay_s,
                undo=undo,
                rated=rated,
            ),
            RaceReply,
        )
        if join:
            self._entered.add(reply.race.code)
        return reply.race

    async def list_races(
        self, status: Literal["open", "live"] = "open", *, before: int | None = None, limit: int = 50
    ) -> Races:
        """One page of races, in the lobby's order for this player (its own and its friends'
        first, then by players joined, then newest): ``status`` "open" (open to join) or "live"
        (starting or running, to watch). The reply's ``cursor``, passed as ``before``, gives the
        next page (None: this was the last). ``limit``: 1-100 races a page."""
        req = self._new_req()
        return await self._request(req, ListRaces(req=req, status=status, before=before, limit=limit), Races)

    async def history(self, *, before: str | None = None, limit: int = 20, tournaments: bool = False) -> HistoryPage:
        """One page of this player's finished races (its ``races``), or with ``tournaments`` of
        the ended tournaments it was entered in (its ``tournaments``), newest first, from the
        server's archive; the reply's ``cursor``, passed as ``before`` with the same
        ``tournaments``, gives the next page (None: this was the last). ``limit``: 1-100 lines
        a page. Raises `ArenaError` (``unavailable``: the server keeps no archive;
        ``bad_field``: a cursor it did not give)."""
        req = self._new_req()
        message = History(req=req, before=before, limit=limit, kind="tournaments" if tournaments else "races")
        return await self._request(req, message, HistoryPage)

    async def leaderboard(
        self,
        game: str,
        *,
        board: Literal["rating", "daily"] = "rating",
        view: Literal["top", "around_me", "friends"] = "top",
        day: str | None = None,
        after: str | None = None,
        limit: int = 20,
        active_days: int = 30,
        period: Literal["day", "week", "all"] = "day",
    ) -> LeaderboardPage:
        """One page of ``game``'s leaderboard from the server's archive: by rating (``board``
        rating; ``view`` top, around_me or friends; players active in the last ``active_days``)
        or the daily challenge's results of ``day`` (``board`` daily; None: today; ``period`` week
        or all: the sums of that day's ISO week or of all time, in any ``view``). The reply's
        ``cursor``, passed as ``after``, gives the next page. Raises `ArenaError`
        (``unknown_game``, ``not_allowed``, ``bad_field``, ``unavailable``)."""
        req = self._new_req()
        message = Leaderboard(
            req=req,
            game=game,
            board=board,
            view=view,
            day=day,
            period=period,
            after=after,
            limit=limit,
            active_days=active_days,
        )
        return await self._request(req, message, LeaderboardPage)

    async def profile(self, player: str | None = None, *, name: str | None = None) -> Profile:
        """The profile of a player, by id (``player``) or claimed ``name`` (neither: ours).
        Raises `ArenaError` (``unknown_player``, ``unavailable``)."""
        req = self._new_req()
        return await self._request(req, GetProfile(req=req, player=player, name=name), Profile)

    async def play_daily(self, game: str, day: str | None = None) -> RaceInfo:
        """Play the daily challenge of ``game``: today's (``day`` None), ranked and once (an
        unfinished attempt is returned again), or a past UTC ``day``'s (YYYY-MM-DD) as practice;
        returns its race, started, with us its one entrant. Raises `ArenaError`
        (``already_played``, ``unknown_game``, ``no_deal``: a day not over yet)."""
        req = self._new_req()
        info = (await self._request(req, PlayDaily(req=req, game=game, day=day), RaceReply)).race
        self._entered.add(info.code)
        return info

    async def daily(self, game: str | None = None, day: str | None = None, limit: int = 20) -> DailyInfo:
        """Today's daily deals, our streak, and with ``game`` its results of ``day`` (None:
        today), best first, at most ``limit`` (1-100). Raises `ArenaError` (``unknown_game``)."""
        req = self._new_req()
        return await self._request(req, GetDaily(req=req, game=game, day=day, limit=limit), DailyInfo)

    async def daily_calendar(self, month: str, game: str | None = None) -> CalendarPage:
        """Our daily challenges of ``month`` (YYYY-MM), day by day, and our streak. Raises
        `ArenaError` (``bad_field``: no such month, ``unknown_game``)."""
        req = self._new_req()
        return await self._request(req, DailyCalendar(req=req, month=month, game=game), CalendarPage)

    async def rename(self, name: str) -> str:
        """Take ``name`` for the races and tournaments entered from now on; returns the name as
        the server keeps it. Raises `ArenaError` (``bad_name``)."""
        req = self._new_req()
        self.name = (await self._request(req, Rename(req=req, name=name), Renamed)).name
        return self.name

    async def claim(self, password: str, name: str | None = None) -> str:
        """Claim our name (``name`` given: take it and claim it) with ``password`` (at least 10
        characters); returns the claimed name. Raises `ArenaError` (``bad_field``: too short;
        ``bad_name``; ``name_taken``: claimed by another player, or a look-alike; ``unavailable``)."""
        req = self._new_req()
        message = _message(Claim, req=req, password=password, name=name)
        self.name = (await self._request(req, message, Claimed)).name
        self.claimed = True
        return self.name

    async def login(self, name: str, password: str) -> Welcome:
        """Become, on this connection, the player that claimed ``name`` (we stop being the one
        we were); ``player``, ``name`` and ``token`` (a new one for this device) follow the reply.
        Raises `ArenaError` (``bad_login``; ``rate_limited`` with ``retry_after_s``), `ArenaTimeout`."""
        req = self._new_req()
        return await self._become(req, Login(req=req, name=name, password=password))

    async def redeem(self, code: str) -> Welcome:
        """Become, on this connection, the player the transfer ``code`` was made for (as
        `login`). Raises `ArenaError` (``bad_code``), `ArenaTimeout`."""
        req = self._new_req()
        return await self._become(req, Redeem(req=req, code=code))

    async def _become(self, req: int, message: Login | Redeem) -> Welcome:
        """Send a login or redeem after hello: its `Welcome` carries no ``req``, so it is awaited
        apart (one at a time), while a refusal comes back by ``req`` as any other."""
        if self._welcome_waiter is not None:
            raise ArenaError("not_allowed", "a login or redeem is already waiting for its answer")
        waiter: asyncio.Future[Welcome] = asyncio.get_running_loop().create_future()
        self._welcome_waiter = waiter
        self._replies[req] = waiter
        try:
            async with asyncio.timeout(self.timeout_s):
                await self._send(encode(message))
                welcome = await waiter
        except TimeoutError:
            raise ArenaTimeout(f"no answer to {type(message).__name__} within {self.timeout_s} s") from None
        finally:
            self._welcome_waiter = None
            self._replies.pop(req, None)
        self._welcomed(welcome)
        return welcome

    async def transfer_code(self) -> TransferCode:
        """A one-time code that moves our player to another device (`connect_redeem`), and when
        it expires (``expires_ms``). Raises `ArenaError` (``unavailable``)."""
        req = self._new_req()
        return await self._request(req, TransferCodeRequest(req=req), TransferCode)

    async def forget_me(self) -> int:
        """Delete our identity on the server for good (every device's token, the claim); our
        archived races stay under ``deleted player``. Returns how many races that renamed; the
        server then closes the connection. Raises `ArenaError` (``unavailable``)."""
        req = self._new_req()
        gone = await self._request(req, ForgetMe(req=req), Forgotten)
        self.token = None
        return gone.races

    async def join_race(self, code: str) -> RaceInfo:
        """Enter race ``code``; raises `ArenaError` (``unknown_race``, ``race_full``,
        ``already_joined``, ``already_started``)."""
        req = self._new_req()
        reply = await self._request(req, JoinRace(req=req, race=code), RaceReply)
        self._entered.add(code)
        return reply.race

    async def start_race(self, code: str) -> RaceInfo:
        """Start the countdown of a race we created; `RaceStarted` comes ``countdown_s`` later.
        Raises `ArenaError` (``not_creator``, ``already_started``, ``unknown_race``)."""
        req = self._new_req()
        return (await self._request(req, StartRace(req=req, race=code), RaceReply)).race

    async def resign(self, code: str) -> RaceInfo:
        """Give up race ``code`` (cards cleared so far stand); raises `ArenaError`
        (``not_entrant``, ``not_started``, ``done``, ``race_over``)."""
        req = self._new_req()
        return (await self._request(req, Resign(req=req, race=code), RaceReply)).race

    async def rematch(self, code: str) -> RaceInfo:
        """Accept (or offer, if we ask first) a rematch of the finished race ``code``: returns the
        rematch race, which we have joined. Raises `ArenaError` (``not_entrant``,
        ``not_finished``, ``not_allowed``, ``too_many_races``)."""
        req = self._new_req()
        info = (await self._request(req, Rematch(req=req, race=code), RaceReply)).race
        self._entered.add(info.code)
        return info

    async def replay(self, code: str, player: str, step: int) -> ReplayStep:
        """Entrant ``player``'s board after ``step`` of its moves in the finished race ``code``.
        Raises `ArenaError` (``not_finished``, ``not_entrant``, ``bad_field``)."""
        req = self._new_req()
        return await self._request(req, Replay(req=req, race=code, player=player, step=step), ReplayStep)

    async def watch(self, code: str) -> Snapshot:
        """Follow race ``code`` as a spectator: returns its `Snapshot` (every board); later
        events arrive through `events`. Raises `ArenaError` (``unknown_race``, ``not_allowed``)."""
        req = self._new_req()
        snapshot = await self._request(req, Watch(req=req, race=code), Snapshot)
        self._watching.add(code)
        return snapshot

    async def sync(self, code: str, since: int) -> Snapshot:
        """Catch up on race ``code``: the server sends again every event after version
        ``since`` (they arrive through `events`, repeats dropped), a page at a time (each page
        ends with a `SyncPage`, and we ask for the next), then a `Snapshot`, returned. Also sets
        our next move number from the snapshot's ``next_seq``."""
        while True:
            req = self._new_req()
            reply: Snapshot | SyncPage = await self._request(
                req, Sync(req=req, race=code, since=since), (Snapshot, SyncPage)
            )
            if isinstance(reply, Snapshot):
                break
            since = reply.until
        snapshot = reply
        if snapshot.board is not None or code in self._entered:
            unanswered = [seq for race, seq in self._unanswered if race == code]
            self._next_seq[code] = max(snapshot.next_seq, *(s + 1 for s in unanswered), 1)
        return snapshot

    async def get_record(self, code: str) -> RaceRecord:
        """The record of a finished race (seed, salt, every entrant's moves and times), for
        `client.verify.verify_record`. Raises `ArenaError` (``not_finished``, ``unknown_race``)."""
        req = self._new_req()
        return await self._request(req, GetRecord(req=req, race=code), RaceRecord)

    async def double_or_naught(self, code: str) -> Bonus:
        """After winning casual race ``code``: stake our points on a new Double or Naught round."""
        req = self._new_req()
        return await self._request(req, DoubleOrNaught(req=req, race=code), Bonus)

    async def bonus_move(self, code: str, notation: str) -> Bonus:
        """Play ``guess r0`` .. ``guess r4`` (or ``deal`` after a tie) in our Double or Naught round."""
        req = self._new_req()
        return await self._request(req, BonusMove(req=req, race=code, move=notation), Bonus)

    # ---------------------------------------------------------------------- tournaments

    async def create_tournament(
        self, admin_token: str | None, name: str, game: str, deals: int, **fields: Any
    ) -> TournamentInfo:
        """Create a tournament (the admin: ``admin_token``; an organiser, logged in: None).
        ``fields`` are the other fields of `server.protocol.CreateTournament` (``starts_at`` or
        ``cron``, ``format``, ``seeds``, ``entry``...); the invite code of an "invite" one is
        kept in `invite_codes`. Raises `ArenaError` (``not_organiser``, ``bad_schedule``,
        ``bad_tournament``, ``unknown_game``, ``no_catalog``, ``bad_field``)."""
        req = self._new_req()
        message = _message(
            CreateTournament, req=req, admin_token=admin_token, name=name, game=game, deals=deals, **fields
        )
        reply = await self._request(req, message, TournamentReply)
        if reply.invite_code is not None:
            self.invite_codes[reply.tournament.id] = reply.invite_code
        return reply.tournament

    async def grant_organiser(self, admin_token: str, name: str, *, revoke: bool = False) -> Organiser:
        """The server's admin (``admin_token``) grants the organiser role to the claimed player
        ``name`` (or takes it back: ``revoke``). Raises `ArenaError` (``not_organiser``: a wrong
        token; ``unknown_player``: no such claimed name)."""
        req = self._new_req()
        message = GrantOrganiser(req=req, admin_token=admin_token, name=name, revoke=revoke)
        return await self._request(req, message, Organiser)

    async def cancel_tournament(self, admin_token: str | None, tournament: str) -> TournamentInfo:
        """Cancel a tournament, or a recurring schedule (its id) and its pending occurrence (the
        admin: ``admin_token``; its organiser: None)."""
        req = self._new_req()
        message = CancelTournament(req=req, admin_token=admin_token, tournament=tournament)
        return (await self._request(req, message, TournamentReply)).tournament

    async def list_tournaments(self) -> list[TournamentInfo]:
        """Every tournament the server knows (the newest 200)."""
        req = self._new_req()
        return (await self._request(req, ListTournaments(req=req), Tournaments)).tournaments

    async def follow_tournament(self, tournament: str) -> TournamentSnapshot:
        """The tournament and its standings now; its events then arrive through `events`."""
        req = self._new_req()
        return await self._request(req, FollowTournament(req=req, tournament=tournament), TournamentSnapshot)

    async def register_tournament(self, tournament: str, *, code: str | None = None) -> TournamentInfo:
        """Enter a tournament (``code``: its invite code, if it takes entries by invitation); its
        events arrive through `events`. An entry the organiser must approve first is noted in
        `pending_entries` (tournament id -> the server's reason) until we ask again. Raises
        `ArenaError` (``registration_closed``, ``tournament_full``, ``already_joined``,
        ``name_taken``, ``bad_code``, ``not_allowed``: restricted to claimed or listed players)."""
        req = self._new_req()
        message = RegisterTournament(req=req, tournament=tournament, code=code)
        reply = await self._request(req, message, TournamentReply)
        if reply.pending is not None:
            self.pending_entries[reply.tournament.id] = reply.pending
        else:
            self.pending_entries.pop(reply.tournament.id, None)
        return reply.tournament

    async def review_entry(
        self, admin_token: str | None, tournament: str, player: str, *, approve: bool
    ) -> TournamentInfo:
        """Organisers: approve (``approve``) or refuse the entry of ``player`` (its name or player
        id) to ``tournament``, which waits for approval (`TournamentInfo.pending`). Raises
        `ArenaError` (``not_organiser``, ``not_registered``: no such entry waits,
        ``registration_closed``, ``tournament_full``)."""
        req = self._new_req()
        message = ReviewEntry(req=req, admin_token=admin_token, tournament=tournament, player=player, approve=approve)
        return (await self._request(req, message, TournamentReply)).tournament

    async def withdraw_tournament(self, tournament: str) -> TournamentInfo:
        """Leave a tournament (see docs/tournaments.md for what happens to a deal in play)."""
        req = self._new_req()
        return (
            await self._request(req, WithdrawTournament(req=req, tournament=tournament), TournamentReply)
        ).tournament

    async def fair_play_report(self, admin_token: str | None, tournament: str) -> FairPlayReport:
        """The tournament's fair-play report (organisers: ``admin_token``), one `FairPlayDeal`
        per deal worked out so far (docs/tournaments.md, "Fair play"). Raises `ArenaError`
        (``not_organiser``, ``unknown_tournament``)."""
        req = self._new_req()
        message = FairPlayRequest(req=req, admin_token=admin_token, tournament=tournament)
        return await self._request(req, message, FairPlayReport)

    async def open_deal(self, tournament: str) -> RaceInfo:
        """Arena format: open our next deal now; returns its race (we are its only entrant)."""
        req = self._new_req()
        race = (await self._request(req, OpenDeal(req=req, tournament=tournament), RaceReply)).race
        self._entered.add(race.code)
        return race

    # --------------------------------------------------------------------------- moves

    async def move(self, code: str, notation: str, *, collect: bool = False) -> MoveResult:
        """Play ``notation`` (e.g. ``"t3>f0"``, ``"deal"``, or ``"undo"``, ``"collect"``,
        ``"finish"``) in race ``code`` and return the answer; ``collect``: the server follows the
        move with the safe moves it makes possible (the answer's ``then``).

        The client numbers the moves of each race itself (1, 2, 3...; a refused move uses no
        number; a request the server played as several moves uses the answer's ``next_seq``).
        A refused move is returned with ``ok`` false and a ``code`` such as ``does_not_fit`` or
        ``not_started``; it is not raised. A move answered ``moved`` (its race changed nodes) is
        sent once more at once. Raises `ArenaTimeout` after ``timeout_s`` seconds,
        and `ArenaConnectionError` (with ``race`` and ``seq``) if the connection is lost first:
        see `move_result`.
        """
        lock = self._move_locks.setdefault(code, asyncio.Lock())
        async with lock:
            result = await self._move_once(code, notation, collect)
            if not result.ok and result.code == "moved":
                # The race changed nodes while we sent it: once more, at once, finds its new owner.
                result = await self._move_once(code, notation, collect)
            if not result.ok and result.code == "seq_gap":
                # Our count is off (another session of ours moved?): take the server's and retry.
                await self.sync(code, self.last_version.get(code, 0))
                result = await self._move_once(code, notation, collect)
            return result

    async def _move_once(self, code: str, notation: str, collect: bool) -> MoveResult:
        seq = self._next_seq.get(code, 1)
        key = (code, seq)
        frame = encode(MoveRequest(race=code, seq=seq, move=notation, collect=collect))
        future: asyncio.Future[MoveResult] = asyncio.get_running_loop().create_future()
        self._moves[key] = future
        self._unanswered[key] = frame
        self._next_seq[code] = seq + 1
        with contextlib.suppress(ArenaConnectionError):
            await self._send(frame)
        result = await self.move_result(code, seq)
        if self._next_seq.get(code) == seq + 1:
            if not result.ok:
                self._next_seq[code] = seq  # a refusal uses up no number
            elif result.next_seq > seq + 1:
                self._next_seq[code] = result.next_seq  # (the server played more moves for it)
        return result

    async def move_result(self, code: str, seq: int) -> MoveResult:
        """Wait for the answer to our move ``seq`` of race ``code`` (one `move` already sent).

        Raises `ArenaTimeout`, `ArenaConnectionError` (with ``race`` and ``seq``) if the
        connection is lost before the answer, and KeyError for a move never sent.
        """
        future = self._moves[(code, seq)]
        lost = self._lost
        waiter = asyncio.ensure_future(lost.wait())
        try:
            async with asyncio.timeout(self.timeout_s):
                await asyncio.wait((future, waiter), return_when=asyncio.FIRST_COMPLETED)
        except TimeoutError:
            raise ArenaTimeout(f"no answer to move {seq} of race {code} within {self.timeout_s} s") from None
        finally:
            waiter.cancel()
        if not future.done():
            raise ArenaConnectionError(f"connection lost waiting for move {seq} of race {code}", code, seq)
        self._moves.pop((code, seq), None)
        return future.result()

    # -------------------------------------------------------------------------- events

    async def events(self) -> AsyncGenerator[RaceEvent, None]:
        """Iterate over race events as they arrive (and reconnect snapshots, see `RaceEvent`).

        Ends when `close` is called; raises `ArenaConnectionError` when the connection is lost
        (iterate again after `reconnect`).
        """
        while True:
            item = await self._events.get()
            if isinstance(item, _Closed):
                if item.clean:
                    self._events.put_nowait(item)  # let every other reader end too
                    return
                raise ArenaConnectionError(item.reason)
            yield item

    async def next_event(self, timeout_s: float | None = None) -> RaceEvent:
        """The next event (waits at most ``timeout_s`` seconds; None: ``self.timeout_s``).

        Raises `ArenaTimeout`, or `ArenaConnectionError` if the connection ends.
        """
        try:
            async with asyncio.timeout(self.timeout_s if timeout_s is None else timeout_s):
                item = await self._events.get()
        except TimeoutError:
            raise ArenaTimeout("no race event in time") from None
        if isinstance(item, _Closed):
            if item.clean:
                self._events.put_nowait(item)
            raise ArenaConnectionError(item.reason)
        return item

    def pending_events(self) -> list[RaceEvent]:
        """Every event already received and not yet read, without waiting."""
        items: list[RaceEvent] = []
        while not self._events.empty():
            item = self._events.get_nowait()
            if isinstance(item, _Closed):
                self._events.put_nowait(item)
                break
            items.append(item)
        return items

    # ------------------------------------------------------------------------ plumbing

    def _new_req(self) -> int:
        self._req += 1
        return self._req

    async def _send(self, frame: bytes) -> None:
        ws = self._ws
        if ws is None or self._lost.is_set():
            raise ArenaConnectionError(f"not connected to {self.url}")
        try:
            await ws.send(frame)
        except ConnectionClosed as exc:
            raise ArenaConnectionError(f"connection to {self.url} lost: {exc}") from None

    async def _request(self, req: int, message: msgspec.Struct, kind: type[_T] | tuple[type[_T], ...]) -> _T:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._replies[req] = future
        try:
            async with asyncio.timeout(self.timeout_s):
                await self._send(encode(message))
                reply = await future
        except TimeoutError:
            raise ArenaTimeout(f"no answer to {type(message).__name__} (req {req}) within {self.timeout_s} s") from None
        finally:
            self._replies.pop(req, None)
        if not isinstance(reply, kind):
            expected = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
            raise ArenaError("bad_frame", f"expected {expected} for req {req}, got {type(reply).__name__}", req)
        return reply

    async def _read(self, ws: ClientConnection, lost: asyncio.Event) -> None:
        reason = "the server closed the connection"
        try:
            async for data in ws:
                try:
                    message = _decode(data)
                except ArenaError as exc:
                    log.warning("%s: dropped a frame: %s", self.name, exc)
                    continue
                self._route(message)
                await self._notify()
        except ConnectionClosed as exc:
            reason = f"connection lost: {exc}"
        finally:
            if not lost.is_set():
                lost.set()
                self._fail_replies(reason)
                if not self._closing:
                    self._events.put_nowait(_Closed(False, reason))

    def _note_tournament(self, info: TournamentInfo) -> None:
        known = self.tournaments.get(info.id)
        if known is None or known.version <= info.version:
            self.tournaments[info.id] = info

    async def wait_for(self, predicate: Callable[[], bool], timeout_s: float | None = None) -> None:
        """Return once ``predicate()`` holds, checking it after every frame that arrives (it
        reads the client's state, e.g. `tournaments`); consumes no event. Raises `ArenaTimeout`
        after ``timeout_s`` seconds, `ArenaConnectionError` if the connection is lost."""
        try:
            async with asyncio.timeout(timeout_s), self._arrived:
                while not predicate():
                    if self._lost.is_set():
                        raise ArenaConnectionError(f"connection to {self.url} lost")
                    # wake now and then to notice a loss (not wait_for: on 3.11 it can lose the
                    # outer timeout's cancellation, and this would wait past timeout_s)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.5):
                            await self._arrived.wait()
        except TimeoutError:
            raise ArenaTimeout(f"the awaited state did not come within {timeout_s} s") from None

    async def _notify(self) -> None:
        async with self._arrived:
            self._arrived.notify_all()

    def _route(self, message: Any) -> None:
        if isinstance(message, Welcome):
            welcome_waiter = self._welcome_waiter
            if welcome_waiter is not None and not welcome_waiter.done():
                welcome_waiter.set_result(message)
        elif isinstance(message, _EVENT_TYPES):
            self._on_event(message)
        elif isinstance(message, TournamentEvent):
            self._note_tournament(message.tournament)
            if (
                message.kind == "deal_started"
                and message.race
                and self.player in {s.player for s in message.standings if s.status == "playing"}
            ):
                self._entered.add(message.race)  # the tournament entered us in that deal's race
            self._events.put_nowait(message)
        elif isinstance(message, DelayedBoard):
            self._events.put_nowait(message)
        elif isinstance(message, MoveResult):
            self._unanswered.pop((message.race, message.seq), None)
            future = self._moves.get((message.race, message.seq))
            if future is not None and not future.done():
                future.set_result(message)
        elif isinstance(message, _REPLY_TYPES) or isinstance(message, Error):
            if isinstance(message, (RaceReply, Snapshot)):
                self._note_race(message.race)
            if isinstance(message, Snapshot):
                self._seen(message.race.code, message.race.version)
            if isinstance(message, (TournamentReply, TournamentSnapshot)):
                self._note_tournament(message.tournament)
            elif isinstance(message, Tournaments):
                for info in message.tournaments:
                    self._note_tournament(info)
            waiter = self._replies.get(message.req) if message.req is not None else None
            if waiter is None or waiter.done():
                if isinstance(message, Error):
                    log.warning("%s: server error: %s [%s]", self.name, message.reason, message.code)
                return
            if isinstance(message, Error):
                waiter.set_exception(_refusal(message))
            else:
                waiter.set_result(message)
        else:
            log.debug("%s: ignored %s", self.name, type(message).__name__)

    def _on_event(self, event: EntrantJoined | RaceStarting | RaceStarted | Progress | RaceFinished) -> None:
        if not self._seen(event.race, event.version):
            return
        if isinstance(event, RaceStarting):
            self._keep_commitment(event.race, event.commitment)
        elif isinstance(event, RaceStarted):
            self.started[event.race] = event
        elif isinstance(event, RaceFinished):
            self.finished[event.race] = event
        self._events.put_nowait(event)

    #: Called with (race code, commitment) for each commitment a client keeps, first sighting
    #: only; None: nothing. The ``arena`` command keeps them in its cache with it
    #: (`client.commitments.keep_commitments`).
    commitment_seen: Callable[[str, str], None] | None = None

    def _keep_commitment(self, race: str, commitment: str) -> None:
        if race not in self.commitments:
            self.commitments[race] = commitment
            seen = type(self).commitment_seen  # (through the class: a function there is not a method)
            if seen is not None:
                seen(race, commitment)

    def _seen(self, race: str, version: int) -> bool:
        """Record ``version`` of ``race``; False if it is not newer than the last one seen."""
        if version <= self.last_version.get(race, 0):
            return False
        self.last_version[race] = version
        return True

    def _note_race(self, info: RaceInfo) -> None:
        self.races[info.code] = info
        if info.commitment and info.status in ("starting", "running"):
            self._keep_commitment(info.code, info.commitment)
        if self.name in info.entrants:  # names are unique within a race
            self._entered.add(info.code)

    def _fail_replies(self, reason: str) -> None:
        for future in self._replies.values():
            if not future.done():
                future.set_exception(ArenaConnectionError(reason))
        self._replies.clear()

    def _fail_moves(self, reason: str) -> None:
        for (race, seq), future in self._moves.items():
            if not future.done():
                future.set_exception(ArenaConnectionError(reason, race, seq))
                future.exception()  # mark retrieved: nobody may be waiting any more
        self._moves.clear()
        self._unanswered.clear()


def _decode(data: bytes | str) -> Any:
    if isinstance(data, str):
        raise ArenaError("text_frame", "the server sent a text frame")
    try:
        return decode_server(data)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError) as exc:
        raise ArenaError("bad_frame", f"undecodable frame from the server: {exc}") from None
