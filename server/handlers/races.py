"""Races' requests: create, list, join, start, move, resign, watch, sync, get a record, rematch and
replay. A move goes straight to its race (`server.race.Race.play`: checked, stored, applied,
answered and published there)."""

from __future__ import annotations

import logging

import msgspec

from engine.core import BadNotation
from engine.deal import random_seed
from engine.games import UnknownGame, find_game
from server.catalog import CatalogError
from server.par import WinnableSearch
from server.players import Player
from server.protocol import (
    CreateRace,
    ErrorCode,
    GetRecord,
    JoinRace,
    ListRaces,
    MoveRequest,
    ProtocolError,
    RaceRecord,
    RaceReply,
    Races,
    Rematch,
    Replay,
    Resign,
    StartRace,
    Sync,
    SyncPage,
    Watch,
)
from server.race import Race
from server.state import ServerState
from server.transport.session import Session

__all__ = [
    "create",
    "draw_winnable",
    "get_record",
    "join",
    "list_races",
    "move",
    "record",
    "rematch",
    "replay",
    "resign",
    "start",
    "sync",
    "watch",
    "winnable_secret_seeds",
]

log = logging.getLogger("arena.server")


async def create(state: ServerState, session: Session, player: Player, msg: CreateRace) -> None:
    """Create a casual race, with a winnable deal if asked (public or secret), and join it if
    asked. Raises ProtocolError (unknown_game, bad_option, too_many_races, no_catalog,
    no_private_catalog)."""
    try:
        game_cls = find_game(msg.game)
    except UnknownGame as exc:
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
    _check_creation(state, session, player)
    public = msg.seed is not None or msg.seed_public
    seed = msg.seed
    try:
        if seed is None and msg.winnable:
            game_cls(0, **msg.options)  # refuse bad options before a deal is drawn (and used up)
            if public:
                seed = draw_winnable(state, game_cls.key, 1, private=False)[0]
            else:
                seed = (await winnable_secret_seeds(state, game_cls.key, 1, msg.options))[0]
    except BadNotation as exc:
        raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
    race = await _open_race(
        state,
        session,
        player,
        game_cls,
        seed=seed,
        seed_public=public,
        options=msg.options,
        max_entrants=msg.max_entrants,
        countdown_s=msg.countdown_s,
        time_limit_s=msg.time_limit_s,
        spectator_delay_s=msg.spectator_delay_s,
        undo=msg.undo,
    )
    if msg.join:
        await race.join(player.id, player.name, player)
        player.races.add(race.code)
    session.reply(RaceReply(req=msg.req, race=race.info()))


async def _open_race(
    state: ServerState,
    session: Session,
    player: Player,
    game_cls: type,
    *,
    seed: int | None,
    seed_public: bool,
    **settings: object,
) -> Race:
    """Create a casual race by ``player`` (``seed`` None: a random secret one) and keep it;
    raises ProtocolError (too_many_races, bad_option)."""
    _check_creation(state, session, player)
    try:
        race = Race(
            state.new_race_code(),
            game_cls,
            seed=seed if seed is not None else random_seed(),
            seed_public=seed_public,
            creator=player.id,
            store=state.store,
            clock=state.clock,
            **settings,  # type: ignore[arg-type]
        )
    except BadNotation as exc:
        raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
    now = state.clock.monotonic()
    state.created.add(f"p:{player.id}", now)
    state.created.add(f"a:{session.address}", now)
    player.open_races.add(race.code)
    state.add_race(race)
    await race._save()
    return race


def _check_creation(state: ServerState, session: Session, player: Player) -> None:
    """Refuse (too_many_races) a player over its open races, or a player or an address over its
    races created in the last hour."""
    cfg = state.config
    now = state.clock.monotonic()
    if len(player.open_races) >= cfg.max_open_races_per_player:
        raise ProtocolError(
            ErrorCode.TOO_MANY_RACES,
            f"you have {len(player.open_races)} races that have not started: start them, "
            f"or wait for them to expire, before creating another",
        )
    if state.created.count(f"p:{player.id}", now) >= cfg.races_per_hour_per_player:
        raise ProtocolError(
            ErrorCode.TOO_MANY_RACES, f"a player may create {cfg.races_per_hour_per_player} races an hour"
        )
    if state.created.count(f"a:{session.address}", now) >= cfg.races_per_hour_per_ip:
        raise ProtocolError(
            ErrorCode.TOO_MANY_RACES, f"{cfg.races_per_hour_per_ip} races an hour may be created from one address"
        )


def draw_winnable(state: ServerState, game: str, count: int, *, private: bool) -> list[int]:
    """``count`` winnable seeds of ``game``: from the private catalog for secret deals, from the
    public one for deals whose seed is public anyway. Raises ProtocolError (no_private_catalog,
    no_catalog)."""
    source = state.private_deals if private else state.public_deals
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


async def winnable_secret_seeds(state: ServerState, game: str, count: int, options: dict[str, bool]) -> list[int]:
    """``count`` secret seeds of ``game`` known to be winnable: fresh ones the solver proves
    winnable within the ``winnable_*`` budgets (in the par workers, never on the event loop),
    and the rest from the private catalog. Raises ProtocolError (no_private_catalog) when the
    solver found too few and the catalog cannot make up the rest; then the solver's finds are
    dropped (they were never shown to anyone)."""
    cfg = state.config
    search = WinnableSearch(nodes=cfg.winnable_nodes, seconds=cfg.winnable_seconds, wait_s=cfg.winnable_wait_s)
    proved = await state.par.winnable_seeds(game, count, options, search)
    try:
        drawn = draw_winnable(state, game, count - len(proved), private=True) if len(proved) < count else []
    except ProtocolError as exc:
        raise ProtocolError(
            exc.code,
            f"the solver proved {len(proved)} of {count} fresh {game} deals winnable "
            f"within {search.wait_s:g} s, and {exc.reason}",
        ) from None
    log.info(
        "%d winnable secret %s deals: %d proved by the solver, %d from the private catalog",
        count,
        game,
        len(proved),
        len(drawn),
    )
    return proved + drawn


async def list_races(state: ServerState, session: Session, player: Player, msg: ListRaces) -> None:
    """One page of the races open to join or live (this node's, or every node's from the shared
    lobby in Redis)."""
    if state.link is not None:
        infos, cursor = await state.link.lobby_page(msg.status, msg.before, msg.limit)
        session.reply(Races(req=msg.req, races=infos, cursor=cursor))
        return
    codes, cursor = state.lobby.page(msg.status, before=msg.before, limit=msg.limit)
    session.reply(Races(req=msg.req, races=[state.races[c].info() for c in codes], cursor=cursor))


async def join(state: ServerState, session: Session, player: Player, msg: JoinRace) -> None:
    """Enter a casual race (a tournament enters its own entrants in its deals); ends the
    connection's watch of it; tells a rematch's old race who has accepted."""
    race = state.race(msg.race)
    if not race.casual:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "a tournament enters its own entrants in its deals")
    await race.join(player.id, player.name, player)
    session.watching.discard(race.code)  # joining ended the watch
    player.races.add(race.code)
    if state.link is not None and race.status == "open":
        state.link.listed(race, "open")  # the lobby shows the new entrant
    session.reply(RaceReply(req=msg.req, race=race.info()))
    if race.rematch_of is not None and (old := state.races.get(race.rematch_of)) is not None:
        await old.offer_rematch(race)


async def start(state: ServerState, session: Session, player: Player, msg: StartRace) -> None:
    """Start the countdown of a race the player created."""
    race = state.race(msg.race)
    await race.start(player.id)
    session.reply(RaceReply(req=msg.req, race=race.info()))


async def move(state: ServerState, session: Session, player: Player, msg: MoveRequest) -> None:
    """Play one move: its race checks it, stores it, applies it and answers."""
    session.send(await state.race(msg.race).play(player.id, msg))


async def resign(state: ServerState, session: Session, player: Player, msg: Resign) -> None:
    """Give up a race: the cards cleared so far stand."""
    race = state.race(msg.race)
    await race.resign(player.id)
    session.reply(RaceReply(req=msg.req, race=race.info()))


async def watch(state: ServerState, session: Session, player: Player, msg: Watch) -> None:
    """Watch a race: its snapshot for spectators, then its spectators' events."""
    race = state.race(msg.race)
    _watch(session, player, race)
    session.reply(race.snapshot(msg.req, player.id, spectator=True))


def _watch(session: Session, player: Player, race: Race) -> None:
    if not race.may_watch(player.id):
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "an entrant may not watch a race it is still playing")
    race.watch(session, player.id)
    session.watching.add(race.code)


async def sync(state: ServerState, session: Session, player: Player, msg: Sync) -> None:
    """Send the events after ``msg.since`` for the receiver's audience, then a snapshot; at most
    one page of events per request (`SyncPage` then says where to go on from), and no more than
    half of the client's outgoing buffer has room for."""
    race = state.race(msg.race)
    spectator = session in race.spectators or player.id not in race.entrants
    if spectator and session not in race.spectators:  # a spectator back on a new connection
        _watch(session, player, race)
    page = state.config.sync_page_events
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


async def get_record(state: ServerState, session: Session, player: Player, msg: GetRecord) -> None:
    """A finished race's record (seed, salt, every entrant's moves)."""
    session.reply(await record(state, msg.race, msg.req))


async def record(state: ServerState, code: str, req: int) -> RaceRecord:
    """A finished race's record: from the race in memory, or from the store once it left."""
    race = state.races.get(code.upper())
    if race is not None:
        return await race.record(req)
    kept = await state.store.load_record(code.upper())
    if kept is None:
        raise ProtocolError(ErrorCode.UNKNOWN_RACE, f"no race with code {code!r} (or its record has expired)")
    found = msgspec.msgpack.decode(kept, type=RaceRecord)
    found.req = req
    return found


async def rematch(state: ServerState, session: Session, player: Player, msg: Rematch) -> None:
    """Join the rematch of a finished race, creating it (same game, options and limits; a new
    secret deal; ``player`` its creator) if none is open; then tell the old race's audience who
    has accepted. Raises ProtocolError (not_entrant, not_allowed for a tournament's deal,
    not_finished, too_many_races)."""
    old = state.race(msg.race)
    if player.id not in old.entrants:
        raise ProtocolError(ErrorCode.NOT_ENTRANT, f"only the entrants of race {old.code} can ask for its rematch")
    if not old.casual:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "a tournament's deal has no rematch")
    if old.status != "finished":
        raise ProtocolError(ErrorCode.NOT_FINISHED, f"race {old.code} is not finished")
    race = state.races.get(old.rematch) if old.rematch else None
    if race is None or race.status != "open":
        race = await _open_race(
            state,
            session,
            player,
            old.game_cls,
            seed=None,
            seed_public=False,
            options=old.options,
            max_entrants=old.max_entrants,
            countdown_s=old.countdown_s,
            time_limit_s=old.time_limit_s,
            spectator_delay_s=old.spectator_delay_s,
            undo=old.undo,
        )
        race.rematch_of = old.code
    if player.id not in race.entrants:
        await race.join(player.id, player.name, player)
        player.races.add(race.code)
    await old.offer_rematch(race)
    session.reply(RaceReply(req=msg.req, race=race.info()))


async def replay(state: ServerState, session: Session, player: Player, msg: Replay) -> None:
    """One entrant's board after a number of its moves in a finished race, with that move in
    words (`server.replay.Replays`)."""
    found = await record(state, msg.race, msg.req)
    session.reply(state.replays.step(found, msg.player, msg.step, msg.req))
