"""Players' requests: `hello` (a new player, or one resuming its session with its token) and
`rename`."""

from __future__ import annotations

import logging
import secrets

from server.addresses import address_key
from server.logs import fields
from server.names import BadName, normal_name
from server.players import Player, token_digest
from server.protocol import PROTOCOL_VERSION, ErrorCode, Hello, ProtocolError, Rename, Renamed, Welcome
from server.state import ServerState
from server.store import StoreUnavailable
from server.transport.session import Session

__all__ = ["hello", "keep_player", "rename"]

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
        key = address_key(session.address)
        if not state.room_for_player(key):
            raise ProtocolError(
                ErrorCode.TOO_MANY_PLAYERS,
                f"the server keeps {len(state.players_from.get(key, ()))} players from your address, the most it "
                "may, and each is connected, playing, or waiting for a race or tournament: say hello with one's "
                "token, or try again later",
            )
        player = Player(id="p" + secrets.token_hex(4), name=name, token=secrets.token_urlsafe(24))
        while player.id in state.players_by_id or player.id in state.resumed:
            player.id = "p" + secrets.token_hex(4)
        if durable:
            await keep_player(state, player, renew=False)  # nothing is acknowledged before it is stored
        state.add_player(player, key)
        _players_log.info(
            "%s said hello",
            player.name,
            extra=fields("player_hello", player=player.id, player_name=player.name, remote=session.address),
        )
    player.session = session
    session.player = player
    state.listen(player, player)
    session.reply(
        Welcome(
            player=player.id,
            name=player.name,
            token=player.token,
            protocol=PROTOCOL_VERSION,
            server_time_ms=state.clock.wall_ms(),
            node=state.node_id,
        )
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


async def rename(state: ServerState, session: Session, player: Player, msg: Rename) -> None:
    """Give ``player`` the name ``msg`` asks for, for the races and tournaments it enters from
    now on (saved first over a durable store, so that a resumed session keeps it). Raises
    ProtocolError (bad_name; name_taken: another entrant of a tournament it is in has that name)."""
    try:
        name = normal_name(msg.name)
    except BadName as exc:
        raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
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
    _players_log.info(
        "%s is now %s", old, name, extra=fields("player_renamed", player=player.id, player_name=name, old_name=old)
    )
    session.reply(Renamed(req=msg.req, name=name))


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
