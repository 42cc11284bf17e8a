"""Players' requests: `hello` (a new player, or one resuming its session with its token: from
memory, the durable store, or the archive, which keeps players for good), `rename`, and
`history` (the player's finished races, from the archive)."""

from __future__ import annotations

import logging
import secrets

from server.addresses import address_key
from server.archive import Archive, ArchiveError, decode_cursor
from server.logs import fields
from server.names import BadName, name_key, normal_name
from server.players import Player, token_digest
from server.protocol import (
    PROTOCOL_VERSION,
    ErrorCode,
    Hello,
    History,
    HistoryPage,
    HistoryRace,
    HistoryTournament,
    ProtocolError,
    Rename,
    Renamed,
    Welcome,
)
from server.state import ServerState
from server.store import StoreUnavailable
from server.transport.session import Session

__all__ = ["archive_player", "hello", "history", "keep_player", "new_player_id", "rename"]

log = logging.getLogger("arena.server")
_players_log = logging.getLogger("arena.players")  # hello, resumed, renamed, left

#: The longest a race may keep a player's token in use without a hello (an open race's time to
#: live is added): its time limit at most (the protocol's bound on ``time_limit_s``).
_LONGEST_RACE_S = 86_400.0


async def hello(state: ServerState, session: Session, msg: Hello) -> None:
    """Welcome a new player, or resume the player whose token ``msg`` carries: from memory, or
    (a durable store) from the store after a restart, with the races it had. Over a durable
    store a new player is saved before it is welcomed, and a resumed one's keep time renewed.
    A new player is counted under its connection's address key: past ``max_players_per_ip``
    there, the idle one that left the longest ago is forgotten to make room
    (`ServerState.room_for_player`). Raises ProtocolError (already_hello, protocol_version,
    bad_token, bad_name, too_many_players)."""
    if session.player is not None:
        raise ProtocolError(ErrorCode.ALREADY_HELLO, "this connection already said hello")
    if msg.protocol != PROTOCOL_VERSION:
        raise ProtocolError(
            ErrorCode.PROTOCOL_VERSION, f"this server speaks protocol {PROTOCOL_VERSION}, not {msg.protocol}"
        )
    durable = state.store.durable
    if msg.token is not None:
        player = state.players.get(msg.token)
        if player is None and durable:
            player = await _stored_player(state, msg.token)
        if player is None and state.archiver is not None:
            player = await _archived_player(state, msg.token)
        if player is None:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown session token: say hello without one")
        if durable:
            await keep_player(state, player, renew=True)
        old = player.session
        if old is not None and old is not session:
            assert isinstance(old, Session), "a player's listener is its connection's session"
            state.forget(old)  # from now on nothing reaches the old connection
            old.close(1008, "session resumed on another connection")
        _players_log.info(
            "%s resumed",
            player.name,
            extra=fields(
                "player_resumed",
                player=player.id,
                player_name=player.name,
                remote=session.address,
                replaced=old is not None and old is not session,
            ),
        )
    else:
        try:
            name = normal_name(msg.name)
        except BadName as exc:
            raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
        await unclaimed(state, name, None)
        key = address_key(session.address)
        if not state.room_for_player(key):
            raise ProtocolError(
                ErrorCode.TOO_MANY_PLAYERS,
                f"the server keeps {len(state.players_from.get(key, ()))} players from your address, the most it "
                "may, and each is connected, playing, or waiting for a race or tournament: say hello with one's "
                "token, or try again later",
            )
        player = Player(id=new_player_id(), name=name, token=secrets.token_urlsafe(24))
        while player.id in state.players_by_id or player.id in state.resumed:
            player.id = new_player_id()
        if durable:
            await keep_player(state, player, renew=False)  # nothing is acknowledged before it is stored
        state.add_player(player, key)
        _players_log.info(
            "%s said hello",
            player.name,
            extra=fields("player_hello", player=player.id, player_name=player.name, remote=session.address),
        )
    player.session = session
    player.bot = msg.bot
    session.player = player
    state.listen(player, player)
    archive_player(state, player)
    session.reply(
        Welcome(
            player=player.id,
            name=player.name,
            token=msg.token if msg.token is not None else player.token,  # (each device keeps its own)
            protocol=PROTOCOL_VERSION,
            server_time_ms=state.clock.wall_ms(),
            node=state.node_id,
            claimed=player.claimed,
        )
    )


async def unclaimed(state: ServerState, name: str, player_id: str | None) -> None:
    """Check that no player other than ``player_id`` claimed ``name`` or a look-alike
    (`server.names.name_key`): a guest may not take a claimed name. Costs one indexed archive
    read (none without an archive; an archive that cannot be read lets the name through).
    Raises ProtocolError (name_taken)."""
    if state.archiver is None:
        return
    try:
        holder = await state.archiver.archive.claim_by_key(name_key(name))
    except ArchiveError as exc:
        log.warning("a name was not checked against claimed names: %s", exc.reason)
        return
    if holder is not None and holder.player_id != player_id:
        raise ProtocolError(
            ErrorCode.NAME_TAKEN, f"{name!r} is claimed by another player: pick another name, or log in as it"
        )


async def _stored_player(state: ServerState, token: str) -> Player | None:
    """The player a durable store keeps under ``token`` (a server restarted since its hello),
    now in memory again with the rebuilt races it entered or created; None if unknown. The
    entrant of a rebuilt tournament is the `Player` that tournament holds (`player_by_id`), so
    that the tournament's frames reach it from now on."""
    stored = await state.store.player_by_token(token_digest(token))
    if stored is None:
        return None
    player = state.players.get(token)  # another hello with the same token got here first
    if player is not None:
        return player
    return state.player_back(token, stored.player, stored.name)


def new_player_id() -> str:
    """A fresh player id: ``p`` and twelve hex digits (48 random bits: ids last for good in the
    archive, so that two players drawing the same one stays unlikely among millions)."""
    return "p" + secrets.token_hex(6)


async def _archived_player(state: ServerState, token: str) -> Player | None:
    """The player the archive keeps under ``token`` (the server forgot it: it restarted, or the
    player was idle past ``player_retention_s``), in memory again with the same id and name;
    None if the archive does not know it. Raises ProtocolError (unavailable) when the archive
    cannot be read: the token may be good, so the client keeps it and tries again."""
    assert state.archiver is not None
    try:
        kept = await state.archiver.archive.player_by_token(token_digest(token))
    except ArchiveError as exc:
        log.warning("a hello with a token could not be checked in the archive: %s", exc.reason)
        raise ProtocolError(
            ErrorCode.UNAVAILABLE, "your player cannot be looked up now: say hello again in a moment"
        ) from None
    if kept is None:
        return None
    player = state.players.get(token)  # another hello with the same token got here first
    if player is not None:
        return player
    player_id, name = kept
    return state.player_back(token, player_id, name)


def archive_player(state: ServerState, player: Player) -> None:
    """Keep ``player`` (id, name, token digest, seen now) in the archive, if the server has one,
    in a task of its own: a hello or rename never waits for the archive. A write that fails is
    logged; the next hello or rename writes the player again."""
    if state.archiver is None or not player.token:
        return
    state.spawn(
        _put_player(state.archiver.archive, player, player.name, player.token, state.clock.wall_ms()), player=player.id
    )


async def _put_player(archive: Archive, player: Player, name: str, token: str, seen_ms: int) -> None:
    player_id = player.id
    if not player.token:  # deleted (`forget_me`) since: writing it would bring it back
        return
    try:
        await archive.put_player(player_id, name, token_digest(token), seen_ms)
    except ArchiveError as exc:
        log.warning("player %s not archived this time: %s", player_id, exc.reason)


async def rename(state: ServerState, session: Session, player: Player, msg: Rename) -> None:
    """Give ``player`` the name ``msg`` asks for, for the races and tournaments it enters from
    now on (saved first over a durable store, so that a resumed session keeps it). Raises
    ProtocolError (bad_name; name_taken: another entrant of a tournament it is in has that name)."""
    try:
        name = normal_name(msg.name)
    except BadName as exc:
        raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
    await unclaimed(state, name, player.id)
    tournaments = list(state.tournaments.values())  # they show an entrant's name as it is now
    for tournament in tournaments:
        tournament.check_rename(player, name)
    old, player.name = player.name, name
    for tournament in tournaments:
        tournament.renamed(player, old)
    if state.store.durable:
        try:
            await keep_player(state, player, renew=False)
        except StoreUnavailable:
            player.name = old
            for tournament in tournaments:
                tournament.renamed(player, name)
            raise
    archive_player(state, player)
    _players_log.info(
        "%s is now %s", old, name, extra=fields("player_renamed", player=player.id, player_name=name, old_name=old)
    )
    session.reply(Renamed(req=msg.req, name=name))


async def history(state: ServerState, session: Session, player: Player, msg: History) -> None:
    """Answer one page of ``player``'s finished races (or, ``msg.kind`` tournaments, of the
    ended tournaments it was entered in) from the archive, newest first (one indexed query:
    `server.archive.Archive.races_of`, `server.archive.Archive.tournaments_of`). Raises
    ProtocolError (unavailable: the server keeps no archive, or it cannot be read now;
    bad_field: a cursor the server did not give)."""
    if state.archiver is None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "this server keeps no archive of finished races")
    if msg.before is not None:
        try:
            decode_cursor(msg.before)
        except ArchiveError as exc:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"bad history message: {exc.reason}") from None
    if msg.kind == "tournaments":
        await _tournament_history(state, session, player, msg)
        return
    try:
        rows, cursor = await state.archiver.archive.races_of(player.id, before=msg.before, limit=msg.limit)
    except ArchiveError as exc:
        log.warning("history of %s not read: %s", player.id, exc.reason)
        raise ProtocolError(ErrorCode.UNAVAILABLE, "the archive cannot be read now: try again later") from None
    races = [
        HistoryRace(
            race=row.code,
            game=row.game,
            finished_ms=row.finished_ms,
            place=row.standing,
            entrants=row.entrants,
            cleared=row.cleared,
            total=row.total,
            time_ms=row.time_ms,
            status=row.status,
            par=row.par,
        )
        for row in rows
    ]
    session.reply(HistoryPage(req=msg.req, races=races, cursor=cursor))


async def _tournament_history(state: ServerState, session: Session, player: Player, msg: History) -> None:
    """`history` of kind tournaments: one page of `server.archive.Archive.tournaments_of`.
    Raises ProtocolError (unavailable)."""
    assert state.archiver is not None
    try:
        rows, cursor = await state.archiver.archive.tournaments_of(player.id, before=msg.before, limit=msg.limit)
    except ArchiveError as exc:
        log.warning("tournament history of %s not read: %s", player.id, exc.reason)
        raise ProtocolError(ErrorCode.UNAVAILABLE, "the archive cannot be read now: try again later") from None
    lines = [
        HistoryTournament(
            tournament=row.tournament,
            name=row.title,
            game=row.game,
            format=row.format,
            deals=row.deals,
            finished_ms=row.finished_ms,
            outcome=row.outcome,
            place=row.place,
            entrants=row.entrants,
            cleared=row.cleared,
            time_ms=row.time_ms,
            status=row.status,
        )
        for row in rows
    ]
    session.reply(HistoryPage(req=msg.req, races=[], cursor=cursor, tournaments=lines))


async def keep_player(state: ServerState, player: Player, *, renew: bool) -> None:
    """Save ``player`` (its id, name and token digest) in the durable store, for as long as a
    race may still need its token. A renewal that fails is logged, not refused: the saved one
    still holds."""
    cfg = state.config
    keep_s = cfg.player_retention_s + cfg.open_race_ttl_s + _LONGEST_RACE_S
    try:
        await state.store.save_player(player.id, token_digest(player.token), player.name, keep_s)
    except StoreUnavailable as exc:
        if not renew:
            raise
        log.warning("player %s: keep time not renewed: %s", player.id, exc)
