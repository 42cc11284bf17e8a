"""The websocket service: connections, sessions, limits, and the dispatch of requests to races.

One `Session` per connection: it decodes each frame (`server.protocol.decode`), applies the
per-connection limits, and answers every bad frame with an `Error` that has a code, never with a
traceback. Outgoing frames go through a bounded queue per connection drained by its own writer
task, so a slow client never holds up a race or the other clients: one whose queue is full is
closed (1008, "too slow"). A `Player` outlives its connections: its token resumes it on a new one.

>>> ServerConfig().max_frame_bytes
4096
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

import websockets
from websockets.asyncio.server import Server, ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from engine.core import BadNotation
from engine.deal import random_seed
from engine.games import UnknownGame, find_game
from server.protocol import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    ClientMessage,
    BonusMove,
    CancelTournament,
    CreateRace,
    CreateTournament,
    DoubleOrNaught,
    Error,
    FollowTournament,
    ErrorCode,
    GetRecord,
    Hello,
    JoinRace,
    ListRaces,
    ListTournaments,
    MoveRequest,
    OpenDeal,
    ProtocolError,
    RaceReply,
    Races,
    RegisterTournament,
    Resign,
    StartRace,
    Sync,
    TournamentReply,
    Tournaments,
    TournamentSnapshot,
    Watch,
    Welcome,
    WithdrawTournament,
    decode,
    encode,
)
from server.catalog import CatalogError, draw_seeds, load_catalog
from server.race import Clock, Race
from server.schedule import ScheduleError, load_schedule_file, next_occurrences, parse_start, time_zone
from server.store import Store
from server.store.memory import MemoryStore
from server.tournament import Tournament, TournamentPlan

__all__ = ["ArenaServer", "Player", "ServerConfig", "Session", "serve"]

log = logging.getLogger("arena.server")

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


@dataclass
class ServerConfig:
    """Limits and timings of a server; each applies per connection unless it says otherwise.

    Limits:
      ``max_frame_bytes``: largest incoming frame, bytes (default 4096); a larger one closes the
      connection with 1009.
      ``max_queue_frames``: outgoing frames waiting for a slow client (default 1024); past it the
      client is closed with 1008.
      ``rate_per_s`` / ``burst``: incoming frames per second sustained, and the burst above it
      (defaults 100 and 200); a frame over the limit gets ``rate_limited``, and after
      ``max_strikes`` (default 50) such frames the connection is closed with 1008.
      ``max_connections``: open connections for the whole server (default 10,000); more are
      refused at the handshake with HTTP 503.
    Tournaments and catalogs:
      ``admin_token``: the organisers' secret; create and cancel requests must carry it (None, the
      default, refuses them all).
      ``catalog_dir``: the folder of winnable-deal catalogs (default: the repository's seeds/).
    Timings:
      ``ping_interval_s`` / ``ping_timeout_s``: keepalive pings, seconds (defaults 20 and 20;
      None turns them off).
    """

    max_frame_bytes: int = MAX_FRAME_BYTES
    max_queue_frames: int = 1024
    rate_per_s: float = 100.0
    burst: int = 200
    max_strikes: int = 50
    max_connections: int = 10_000
    ping_interval_s: float | None = 20.0
    ping_timeout_s: float | None = 20.0
    admin_token: str | None = None
    catalog_dir: Path = Path(__file__).resolve().parent.parent / "seeds"


@dataclass(eq=False)
class Player:
    """Someone who said hello: an id, a display name, a secret token, the races it entered and
    its current session (None while disconnected)."""

    id: str
    name: str
    token: str
    races: set[str] = field(default_factory=set)
    session: Session | None = None

    def send(self, frame: bytes) -> None:
        """Deliver to the current connection, if any (a reconnecting client syncs what it missed)."""
        if self.session is not None:
            self.session.send(frame)


class Session:
    """One websocket connection: its outgoing queue and writer task, rate limit and player."""

    def __init__(self, server: ArenaServer, ws: ServerConnection) -> None:
        self.server = server
        self.ws = ws
        self.player: Player | None = None
        self.watching: set[str] = set()
        self.queue: asyncio.Queue[bytes] = asyncio.Queue(server.config.max_queue_frames)
        self.writer = asyncio.create_task(self._write())
        self.tokens = float(server.config.burst)
        self.last_refill = asyncio.get_running_loop().time()
        self.strikes = 0
        self.closing = False

    def send(self, frame: bytes) -> None:
        """Queue a frame without waiting; a client too slow to drain its queue is closed."""
        try:
            self.queue.put_nowait(frame)
        except asyncio.QueueFull:
            if self.closing:
                return
            log.warning("closing a slow client (%s frames queued)", self.queue.qsize())
            self.closing = True
            self.server._spawn(self.ws.close(1008, "too slow: outgoing queue full"))

    async def _write(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                frame = await self.queue.get()
                await self.ws.send(frame)

    def reply(self, message: object) -> None:
        """Encode and queue one reply."""
        self.send(encode(message))  # type: ignore[arg-type]

    def allow(self) -> bool:
        """Take one frame from the token bucket; False when over the rate."""
        now = asyncio.get_running_loop().time()
        cfg = self.server.config
        self.tokens = min(cfg.burst, self.tokens + (now - self.last_refill) * cfg.rate_per_s)
        self.last_refill = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.strikes += 1
        return False

    async def flush(self) -> None:
        """Wait until the queued frames are handed to the socket (at most one second)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1):
                while not self.queue.empty() and self.ws.state is State.OPEN:
                    await asyncio.sleep(0.005)

    async def close(self) -> None:
        """Stop the writer after it has sent what is queued (bounded by one second)."""
        await self.flush()
        self.writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.writer


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
        self.store = store or MemoryStore()
        self.clock = clock or Clock()
        self.races: dict[str, Race] = {}
        self.players: dict[str, Player] = {}  # by token
        self.sessions: set[Session] = set()
        self.tournaments: dict[str, Tournament] = {}
        self.schedules: dict[str, CreateTournament] = {}  # recurring: by schedule id
        self._server: Server | None = None
        self._tasks: set[asyncio.Task[object]] = set()

    # ------------------------------------------------------------------------- lifecycle

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Listen on ``host``:``port`` (0 picks a free port; see `url`)."""
        cfg = self.config
        self._server = await websockets.serve(
            self._handle,
            host,
            port,
            compression=None,
            max_size=cfg.max_frame_bytes,
            max_queue=16,
            ping_interval=cfg.ping_interval_s,
            ping_timeout=cfg.ping_timeout_s,
            process_request=self._admit,
        )
        log.info("serving on %s", self.url)

    @property
    def url(self) -> str:
        """``ws://host:port`` of the listening socket."""
        assert self._server is not None, "start() first"
        host, port = list(self._server.sockets)[0].getsockname()[:2]
        return f"ws://{host}:{port}"

    async def close(self) -> None:
        """Stop listening, close every connection and cancel every race timer."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for tournament in self.tournaments.values():
            if tournament.task is not None:
                tournament.task.cancel()
        for race in list(self.races.values()):
            await race.close()
        for task in list(self._tasks):
            task.cancel()

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

    def _admit(self, connection: ServerConnection, request: object) -> object:
        if len(self.sessions) >= self.config.max_connections:
            return connection.respond(503, "too many connections\n")
        return None

    # ------------------------------------------------------------------------ connections

    async def _handle(self, ws: ServerConnection) -> None:
        session = Session(self, ws)
        self.sessions.add(session)
        try:
            async for frame in ws:
                if session.closing:
                    continue  # keep reading, so that the client's close frame is seen
                if not session.allow():
                    session.reply(Error(code=ErrorCode.RATE_LIMITED, reason="too many frames: slow down"))
                    if session.strikes > self.config.max_strikes:
                        session.closing = True
                        await session.flush()
                        self._spawn(ws.close(1008, "rate limit exceeded"))
                    continue
                req = None
                try:
                    message = decode(frame)
                    req = getattr(message, "req", None)
                    await self._dispatch(session, message)
                except ProtocolError as exc:
                    session.reply(Error(code=exc.code, reason=exc.reason, req=req))
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection handler failed; closing that connection")
            with contextlib.suppress(ConnectionClosed):
                await ws.close(1011, "internal error")
        finally:
            self.sessions.discard(session)
            self._forget(session)
            await session.close()

    def _forget(self, session: Session) -> None:
        for tournament in self.tournaments.values():
            tournament.followers.discard(session)
        for code in session.watching:
            race = self.races.get(code)
            if race is not None:
                race.spectators.discard(session)
        player = session.player
        if player is not None and player.session is session:
            player.session = None
            for code in player.races:
                entrant = self.races[code].entrants.get(player.id) if code in self.races else None
                if entrant is not None:
                    entrant.listener = None

    # --------------------------------------------------------------------------- dispatch

    async def _dispatch(self, session: Session, message: ClientMessage) -> None:
        if isinstance(message, Hello):
            self._hello(session, message)
            return
        player = session.player
        if player is None:
            raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first")
        match message:
            case CreateRace():
                await self._create(session, player, message)
            case ListRaces():
                open_races = [r.info() for r in reversed(self.races.values()) if r.status == "open"]
                session.reply(Races(req=message.req, races=open_races[:100]))
            case JoinRace():
                race = self._race(message.race)
                await race.join(player.id, player.name, player)
                player.races.add(race.code)
                session.reply(RaceReply(req=message.req, race=race.info()))
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
                if not race.may_watch(player.id):
                    raise ProtocolError(ErrorCode.NOT_ALLOWED, "an entrant may not watch a race it is still playing")
                race.spectators.add(session)
                session.watching.add(race.code)
                session.reply(race.snapshot(message.req, player.id, spectator=True))
            case Sync():
                await self._sync(session, player, message)
            case GetRecord():
                session.reply(await self._race(message.race).record(message.req))
            case CreateTournament():
                self._check_admin(message.admin_token)
                tournament = self.create_tournament(message)
                session.reply(TournamentReply(req=message.req, tournament=tournament.info()))
            case CancelTournament():
                self._check_admin(message.admin_token)
                session.reply(TournamentReply(req=message.req, tournament=await self._cancel(message.tournament)))
            case ListTournaments():
                shown = [t.info() for t in self.tournaments.values()]
                session.reply(Tournaments(req=message.req, tournaments=shown[-200:]))
            case FollowTournament():
                tournament = self._tournament(message.tournament)
                tournament.followers.add(session)
                session.reply(TournamentSnapshot(req=message.req, tournament=tournament.info(),
                                                 standings=tournament.standings()))
            case RegisterTournament():
                tournament = self._tournament(message.tournament)
                await tournament.register(player)
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

    def _hello(self, session: Session, hello: Hello) -> None:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_HELLO, "this connection already said hello")
        if hello.protocol != PROTOCOL_VERSION:
            raise ProtocolError(
                ErrorCode.PROTOCOL_VERSION,
                f"this server speaks protocol {PROTOCOL_VERSION}, not {hello.protocol}",
            )
        if hello.token is not None:
            player = self.players.get(hello.token)
            if player is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown session token: say hello without one")
            old = player.session
            if old is not None and old is not session:
                self._spawn(old.ws.close(1008, "session resumed on another connection"))
        else:
            token = secrets.token_urlsafe(24)
            player = Player(id="p" + secrets.token_hex(4), name=hello.name, token=token)
            self.players[token] = player
        player.session = session
        session.player = player
        for code in player.races:
            entrant = self.races[code].entrants.get(player.id)
            if entrant is not None:
                entrant.listener = player
        session.reply(
            Welcome(player=player.id, name=player.name, token=player.token, protocol=PROTOCOL_VERSION,
                    server_time_ms=self.clock.wall_ms())
        )

    async def _create(self, session: Session, player: Player, msg: CreateRace) -> None:
        try:
            game_cls = find_game(msg.game)
        except UnknownGame as exc:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
        code = self.new_race_code()
        seed = msg.seed
        if seed is None and msg.winnable:
            seed = self._draw_winnable(game_cls.key, 1)[0]
        try:
            race = Race(
                code,
                game_cls,
                options=msg.options,
                seed=seed if seed is not None else random_seed(),
                seed_public=msg.seed is not None or msg.winnable,
                creator=player.id,
                max_entrants=msg.max_entrants,
                countdown_s=msg.countdown_s,
                time_limit_s=msg.time_limit_s,
                store=self.store,
                clock=self.clock,
            )
        except BadNotation as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
        self.races[code] = race
        await race._save()
        if msg.join:
            await race.join(player.id, player.name, player)
            player.races.add(code)
        session.reply(RaceReply(req=msg.req, race=race.info()))

    async def _sync(self, session: Session, player: Player, msg: Sync) -> None:
        race = self._race(msg.race)
        spectator = race.code in session.watching or player.id not in race.entrants
        if spectator:  # a spectator back on a new connection watches again
            if not race.may_watch(player.id):
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "an entrant may not watch a race it is still playing")
            race.spectators.add(session)
            session.watching.add(race.code)
        async with race.lock:  # no event may slip in between the missed ones and the snapshot
            frames = await race.missed(msg.since, spectator=spectator)
            for frame in frames or ():
                session.send(frame)
            session.reply(race.snapshot(msg.req, player.id, spectator=spectator))

    # ------------------------------------------------------------------------- tournaments

    def add_race(self, race: Race) -> None:
        """Make ``race`` reachable by its code."""
        self.races[race.code] = race

    def _check_admin(self, token: str) -> None:
        expected = self.config.admin_token
        if expected is None or not hmac.compare_digest(token.encode(), expected.encode()):
            raise ProtocolError(ErrorCode.NOT_ORGANISER, "only an organiser holding the admin token may do that")

    def _draw_winnable(self, game: str, count: int) -> list[int]:
        try:
            return draw_seeds(load_catalog(self.config.catalog_dir, game), count)
        except CatalogError as exc:
            raise ProtocolError(ErrorCode.NO_CATALOG, f"no winnable {game} deals to draw: {exc}") from None

    def create_tournament(self, msg: CreateTournament) -> Tournament:
        """Check an organiser's request and schedule the tournament (or the first occurrence of a
        recurring one); raises ProtocolError and creates nothing if any part is wrong."""
        try:
            game_cls = find_game(msg.game)
        except UnknownGame as exc:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
        try:
            game_cls(0, **msg.options)
        except BadNotation as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
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
        if msg.winnable and msg.seeds is None:
            self._draw_winnable(game_cls.key, msg.deals)  # refuse now if the catalog is too small
        schedule_id = None
        if msg.cron is not None:
            schedule_id = "S" + secrets.token_hex(3).upper()
            self.schedules[schedule_id] = msg
        return self._schedule(msg, game_cls, starts_at, schedule_id)

    def _schedule(self, msg: CreateTournament, game_cls: type, starts_at: int, schedule_id: str | None) -> Tournament:
        if msg.seeds is not None:
            seeds = tuple(msg.seeds)
        elif msg.winnable:
            seeds = tuple(self._draw_winnable(game_cls.key, msg.deals))
        else:
            seeds = tuple(random_seed() for _ in range(msg.deals))
        plan = TournamentPlan(
            name=msg.name, game_cls=game_cls, options=dict(msg.options), format=msg.format, seeds=seeds,
            starts_at_ms=starts_at, deal_time_limit_s=msg.deal_time_limit_s, max_entrants=msg.max_entrants,
            registration_opens_s=msg.registration_opens_s, arena_window_s=msg.arena_window_s,
            break_s=msg.break_s, countdown_s=msg.countdown_s,
            schedule=f"{schedule_id}: {msg.cron}" if schedule_id else None, timezone=msg.timezone,
        )
        tournament = Tournament(self, "T" + secrets.token_hex(3).upper(), plan)
        if schedule_id is not None:
            tournament.on_starting = lambda t: self._next_occurrence(schedule_id, t.plan.starts_at_ms)
        self.tournaments[tournament.id] = tournament
        tournament.start()
        return tournament

    def _next_occurrence(self, schedule_id: str, after_ms: int) -> None:
        msg = self.schedules.get(schedule_id)
        if msg is not None and msg.cron is not None:
            starts_at = next_occurrences(msg.cron, msg.timezone, after_ms=after_ms, count=1)[0]
            self._schedule(msg, find_game(msg.game), starts_at, schedule_id)

    async def _cancel(self, target: str) -> object:
        if target in self.schedules:  # a schedule: no more occurrences, and the pending one goes
            del self.schedules[target]
            pending = [t for t in self.tournaments.values()
                       if (t.plan.schedule or "").startswith(target) and t.status in ("scheduled", "registration")]
            for tournament in pending:
                await tournament.cancel()
            if not pending:
                raise ProtocolError(ErrorCode.UNKNOWN_TOURNAMENT, f"schedule {target} has no pending tournament")
            return pending[0].info()
        tournament = self._tournament(target)
        await tournament.cancel()
        return tournament.info()

    def load_schedule(self, path: str | Path) -> list[Tournament]:
        """Schedule every tournament of a TOML schedule file (`server.schedule`); raises
        ScheduleError or ProtocolError naming the first bad entry, before scheduling any."""
        messages = []
        for number, table in enumerate(load_schedule_file(path), 1):
            try:
                messages.append(msgspec.convert({"req": 0, "admin_token": "file", **table}, CreateTournament))
            except msgspec.ValidationError as exc:
                raise ScheduleError(f"tournament {number} in {str(path)!r}: {exc}") from None
        return [self.create_tournament(msg) for msg in messages]

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
                *, tournaments: str | Path | None = None) -> None:
    """Run a server until cancelled (Ctrl-C in `arena serve`); ``tournaments``: a TOML schedule
    file whose tournaments are scheduled at start."""
    server = ArenaServer(config)
    if tournaments is not None:
        for tournament in server.load_schedule(tournaments):
            log.info("scheduled %s %r at %s", tournament.id, tournament.plan.name, tournament.plan.starts_at_ms)
    await server.start(host, port)
    try:
        await asyncio.Future()
    finally:
        await server.close()
