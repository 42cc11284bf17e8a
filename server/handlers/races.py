"""Races' requests: create, list, join, start, move, resign, watch, sync, get a record, rematch and
replay. A move goes straight to its race (`server.race.Race.play`: checked, stored, applied,
answered and published there)."""

from __future__ import annotations

import logging

import msgspec

from engine.core import BadNotation
from engine.deal import random_seed
from engine.games import UnknownGame, find_game
from server.addresses import address_key
from server.archive import ArchiveError
from server.catalog import CatalogError
from server.handlers.daily import check_spoiler_lock
from server.lobby import own_part, page_of
from server.par import SolverBusy, WinnableSearch
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
    ReplyFrame,
    Resign,
    StartRace,
    Sync,
    SyncPage,
    Watch,
)
from server.race import Race
from server.state import ServerState
from server.tournament import person_key
from server.transport.session import Session

__all__ = [
    "create",
    "draw_winnable",
    "get_record",
    "join",
    "kept_record",
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
    no_private_catalog; bad_field: rated with a given or public seed)."""
    try:
        game_cls = find_game(msg.game)
    except UnknownGame as exc:
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
    _check_creation(state, session, player)
    public = msg.seed is not None or msg.seed_public  # (rated goes with neither: `CreateRace`)
    seed = msg.seed
    try:
        if seed is None and msg.winnable:
            game_cls(0, **msg.options)  # refuse bad options before a deal is drawn (and used up)
            if public:
                seed = draw_winnable(state, game_cls.key, 1, private=False)[0]
            else:
                seed = (
                    await winnable_secret_seeds(state, game_cls.key, 1, msg.options, key=address_key(session.address))
                )[0]
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
        rated=msg.rated,
    )
    if msg.join:
        await race.join(player.id, player.name, player, bot=player.bot, claimed=player.claimed)
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
    state.created.add(f"a:{address_key(session.address)}", now)
    player.open_races.add(race.code)
    state.add_race(race)
    state.lobby.opened_from(race.code, address_key(session.address))
    await race._save()
    return race


def _check_creation(state: ServerState, session: Session, player: Player) -> None:
    """Refuse (too_many_races) a player or an address over its open races, or a player or an
    address over its races created in the last hour."""
    cfg = state.config
    now = state.clock.monotonic()
    if len(player.open_races) >= cfg.max_open_races_per_player:
        raise ProtocolError(
            ErrorCode.TOO_MANY_RACES,
            f"you have {len(player.open_races)} races that have not started: start them, "
            f"or wait for them to expire, before creating another",
        )
    open_here = state.lobby.open_from(address_key(session.address))
    if open_here >= cfg.max_open_races_per_ip:
        raise ProtocolError(
            ErrorCode.TOO_MANY_RACES,
            f"{open_here} races created from your address have not started (at most "
            f"{cfg.max_open_races_per_ip}): start them, or wait for them to expire, before creating another",
        )
    if state.created.count(f"p:{player.id}", now) >= cfg.races_per_hour_per_player:
        raise ProtocolError(
            ErrorCode.TOO_MANY_RACES, f"a player may create {cfg.races_per_hour_per_player} races an hour"
        )
    if state.created.count(f"a:{address_key(session.address)}", now) >= cfg.races_per_hour_per_ip:
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


async def winnable_secret_seeds(
    state: ServerState, game: str, count: int, options: dict[str, bool], *, key: str | None = None
) -> list[int]:
    """``count`` secret seeds of ``game`` known to be winnable: fresh ones the solver proves
    winnable within the ``winnable_*`` budgets (in the par workers, after any par, never on the
    event loop), and the rest from the private catalog. ``key``: the asker's address, whose
    searches at once are limited (None: only the server's limit applies). Raises ProtocolError
    (no_private_catalog) when the solver found too few and the catalog cannot make up the rest;
    then the solver's finds are dropped (they were never shown to anyone); rate_limited when the
    solver is busy with other winnable requests (`server.par.SolverBusy`) and there is no
    private catalog to serve this one at once."""
    cfg = state.config
    search = WinnableSearch(
        nodes=cfg.winnable_nodes,
        seconds=cfg.winnable_seconds,
        memory_mb=cfg.par_memory_mb,
        wait_s=cfg.winnable_wait_s,
        at_once=cfg.winnable_searches,
        at_once_per_key=cfg.winnable_searches_per_ip,
    )
    try:
        proved = await state.par.winnable_seeds(game, count, options, search, key)
    except SolverBusy as exc:  # served from the private catalog at once, if there is one
        try:
            return draw_winnable(state, game, count, private=True)
        except ProtocolError:
            raise ProtocolError(ErrorCode.RATE_LIMITED, f"{exc.reason}: try again in a moment") from None
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
    """One page of the races open to join or live, in the lobby's order for ``player`` (its own
    and its friends' first, then by entrants joined, then newest: `server.lobby`): this node's,
    or every node's from the shared lobby in Redis (there the own part holds this node's races)."""
    if state.link is None:
        codes, cursor = state.lobby.page(msg.status, before=msg.before, limit=msg.limit, player=player)
        session.reply(Races(req=msg.req, races=[state.races[c].info() for c in codes], cursor=cursor))
        return
    own = state.lobby.own(msg.status, player)
    mine, others_before = own_part(own, msg.before)
    entries = [(after, state.races[code].info()) for after, code in mine[: msg.limit + 1]]
    if len(entries) <= msg.limit:
        skip = {code for _, code in own}
        entries += await state.link.lobby_page(msg.status, others_before, msg.limit + 1 - len(entries), skip)
    infos, cursor = page_of(entries, msg.limit)
    session.reply(Races(req=msg.req, races=infos, cursor=cursor))


async def join(state: ServerState, session: Session, player: Player, msg: JoinRace) -> None:
    """Enter a casual race (a tournament enters its own entrants in its deals); ends the
    connection's watch of it; tells a rematch's old race who has accepted. Raises ProtocolError
    (not_allowed: a tournament's deal, or a rematch and the player no entrant of its old race;
    and `server.race.Race.join`'s codes)."""
    race = state.race(msg.race)
    if not race.casual:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "a tournament enters its own entrants in its deals")
    if race.rematch_of is not None and player.id not in await _entrants_of(state, race.rematch_of):
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED,
            f"race {race.code} is the rematch of race {race.rematch_of}: only that race's entrants may join it",
        )
    await race.join(player.id, player.name, player, bot=player.bot, claimed=player.claimed)
    session.watching.discard(race.code)  # joining ended the watch
    player.races.add(race.code)
    if state.link is not None and race.status == "open" and race.rematch_of is None:
        state.link.listed(race, "open")  # the lobby shows the new entrant (a rematch is not listed)
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
    """Watch a race: its snapshot for spectators (`server.race.Race.spectator_frame`), then its
    spectators' events."""
    race = state.race(msg.race)
    check_spoiler_lock(state, race.info())
    await _seen(state, session, player, race.info().tournament, race.deal)
    _watch(session, player, race)
    if player.id in race.entrants:  # (a finished entrant: its own board too)
        session.reply(race.snapshot(msg.req, player.id, spectator=True))
    else:
        session.send(race.spectator_frame(msg.req))  # built once per version of the race


async def _seen(state: ServerState, session: Session, player: Player, tournament: str | None, deal: int | None) -> None:
    """``player`` is about to see the boards or record of deal ``deal`` of ``tournament`` (None:
    a casual race): tell the tournament, which may refuse it (`server.tournament.Tournament.saw_deal`)."""
    found = state.tournaments.get(tournament) if tournament else None
    if found is not None:
        await found.saw_deal(player.id, person_key(player.id, session.address), deal)


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
        check_spoiler_lock(state, race.info())
        await _seen(state, session, player, race.info().tournament, race.deal)
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
        if spectator and player.id not in race.entrants:
            session.send(race.spectator_frame(msg.req))
        else:
            session.reply(race.snapshot(msg.req, player.id, spectator=spectator))


async def get_record(state: ServerState, session: Session, player: Player, msg: GetRecord) -> None:
    """A finished race's record (seed, salt, every entrant's moves): its frame, encoded once
    (`kept_record`), with the request's ``req``."""
    _check_lock_of(state, msg.race)
    found, frame = await kept_record(state, msg.race)
    check_spoiler_lock(state, found.race)
    await _seen(state, session, player, found.race.tournament, found.race.deal)
    session.send(frame.frame(msg.req))


def _check_lock_of(state: ServerState, code: str) -> None:
    """The spoiler lock of race ``code`` in memory, if it is there (before its record is asked:
    a race that holds its seed would answer not_finished)."""
    race = state.races.get(code.upper())
    if race is not None:
        check_spoiler_lock(state, race.info())


async def record(state: ServerState, code: str, req: int) -> RaceRecord:
    """A finished race's record answering ``req`` (`kept_record`). Raises ProtocolError
    (unknown_race, not_finished)."""
    found, _ = await kept_record(state, code)
    return msgspec.structs.replace(found, req=req)


async def kept_record(state: ServerState, code: str) -> tuple[RaceRecord, ReplyFrame]:
    """A finished race's record (``req`` 0) and its encoded frame, never rebuilt per request:
    the one the race in memory keeps (`server.race.Race.kept_record`), or, once it left, the one
    the store kept, else the archive's (`server.archiving.Archiver.record`), decoded once and
    kept among the last few for a minute (`server.replay.Replays.archived`).
    Raises ProtocolError (unknown_race, not_finished, unavailable: the archive cannot be read),
    StoreUnavailable."""
    code = code.upper()
    race = state.races.get(code)
    if race is not None:
        return await race.kept_record()
    kept = state.replays.archived(code, state.clock.monotonic())
    if kept is None:
        kept = state.replays.archived(code, state.clock.monotonic(), await state.store.load_record(code))
    if kept is None and state.archiver is not None:  # the live store let it go: the archive keeps it
        try:
            data = await state.archiver.record(code)
        except ArchiveError as exc:
            raise ProtocolError(ErrorCode.UNAVAILABLE, f"the archive cannot be read now: {exc.reason}") from None
        kept = state.replays.archived(code, state.clock.monotonic(), data)
    if kept is None:
        raise ProtocolError(ErrorCode.UNKNOWN_RACE, f"no race with code {code!r} (or its record has expired)")
    return kept


async def _entrants_of(state: ServerState, code: str) -> set[str]:
    """The player ids of race ``code``'s entrants: from the race in memory, or its record once
    it left (none if neither is found)."""
    race = state.races.get(code)
    if race is not None:
        return set(race.entrants)
    try:
        found, _ = await kept_record(state, code)
    except ProtocolError:
        return set()
    return {e.player for e in found.entrants}


async def rematch(state: ServerState, session: Session, player: Player, msg: Rematch) -> None:
    """Join the rematch of a finished race, creating it (same game, options and limits; a new
    secret deal; not listed in the lobby, and only the old race's entrants may join it) if none
    is open; then, if who has accepted changed, tell the old race's audience. Its creator is the
    old race's creator if that one was an entrant of it (and the server still knows the
    player), else ``player``. Raises ProtocolError (not_entrant, not_allowed for a tournament's
    deal, not_finished, too_many_races)."""
    old = state.race(msg.race)
    if player.id not in old.entrants:
        raise ProtocolError(ErrorCode.NOT_ENTRANT, f"only the entrants of race {old.code} can ask for its rematch")
    if not old.casual:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "a tournament's deal has no rematch")
    if old.status != "finished":
        raise ProtocolError(ErrorCode.NOT_FINISHED, f"race {old.code} is not finished")
    race = state.races.get(old.rematch) if old.rematch else None
    if race is None or race.status != "open":
        founder = state.players_by_id.get(old.creator) if old.creator in old.entrants else None
        race = await _open_race(
            state,
            session,
            founder or player,
            old.game_cls,
            seed=None,
            seed_public=False,
            options=old.options,
            max_entrants=old.max_entrants,
            countdown_s=old.countdown_s,
            time_limit_s=old.time_limit_s,
            spectator_delay_s=old.spectator_delay_s,
            undo=old.undo,
            rated=old.rated,
        )
        race.rematch_of = old.code
        state.lobby.move(race.code, None)  # for the old race's entrants only: not listed
        if state.link is not None:
            state.link.listed(race, None)
    if player.id not in race.entrants:
        await race.join(player.id, player.name, player, bot=player.bot, claimed=player.claimed)
        player.races.add(race.code)
    await old.offer_rematch(race)  # (publishes only if who has accepted changed)
    session.reply(RaceReply(req=msg.req, race=race.info()))


async def replay(state: ServerState, session: Session, player: Player, msg: Replay) -> None:
    """One entrant's board after a number of its moves in a finished race, with that move in
    words (`server.replay.Replays`: from the nearest checkpoint, at most CHECKPOINT_EVERY moves)."""
    _check_lock_of(state, msg.race)
    found, _ = await kept_record(state, msg.race)  # never rebuilt per request
    check_spoiler_lock(state, found.race)
    await _seen(state, session, player, found.race.tournament, found.race.deal)
    session.reply(state.replays.step(found, msg.player, msg.step, msg.req))
