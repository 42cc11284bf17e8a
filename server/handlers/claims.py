"""Claimed names and devices: `claim` (a name and a password), `login` (become that player on
this connection, with a new token for this device), `transfer_code` and `redeem` (move a player
to another device with a one-time code), and `forget_me` (delete the identity; its archived races
stay under `server.claims.ANONYMOUS_NAME`). Everything here needs the server's archive, which
keeps players, their tokens (one per device) and claims for good."""

from __future__ import annotations

import logging
import secrets

from server.addresses import address_key
from server.archive import Archive, ArchiveError, Claim
from server.claims import (
    ANONYMOUS_NAME,
    GateFull,
    check_password,
    code_digest,
    hash_password,
    new_transfer_code,
    password_problem,
)
from server.handlers.players import keep_player
from server.logs import fields
from server.names import BadName, name_key, normal_name
from server.players import Player, token_digest
from server.protocol import (
    PROTOCOL_VERSION,
    Claimed,
    ErrorCode,
    ForgetMe,
    Forgotten,
    Login,
    ProtocolError,
    Redeem,
    TransferCode,
    TransferCodeRequest,
    Welcome,
)
from server.protocol import Claim as ClaimRequest
from server.state import ServerState
from server.transport.session import Session

__all__ = ["claim", "forget_me", "login", "redeem", "transfer_code"]

log = logging.getLogger("arena.server")
_players_log = logging.getLogger("arena.players")

#: A hash checked when a login names no claimed player, so that its answer takes as long as a
#: wrong password's (nothing tells which of the two was wrong).
_DUMMY_HASH = "$argon2id$v=19$m=65536,t=3,p=4$2YD7PR9vvoJ7GIbasm7zvg$i86u4PeL6eTKGVcvcQWL7zssv292DSHnh+uxFMUm73c"


def _archive(state: ServerState) -> Archive:
    if state.archiver is None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "this server keeps no archive: names cannot be claimed here")
    return state.archiver.archive


def _busy(req: int) -> ProtocolError:
    """The refusal of a claim or login that finds the server's `server.claims.PasswordGate` full."""
    return ProtocolError(
        ErrorCode.RATE_LIMITED, "the server is busy checking passwords: try again in a second", req, retry_after_s=1
    )


def _unavailable(exc: ArchiveError) -> ProtocolError:
    log.warning("a claim request could not use the archive: %s", exc.reason)
    return ProtocolError(ErrorCode.UNAVAILABLE, "the archive cannot be reached now: try again in a moment")


async def claim(state: ServerState, session: Session, player: Player, msg: ClaimRequest) -> None:
    """Claim ``player``'s name (or ``msg.name``, which it then takes) with ``msg.password``.
    Races it played as a guest stay its own (same id). Raises ProtocolError (bad_field: a
    password too short; bad_name; name_taken: another player claimed that name or a look-alike;
    unavailable)."""
    archive = _archive(state)
    problem = password_problem(msg.password)
    if problem is not None:
        raise ProtocolError(ErrorCode.BAD_FIELD, problem)
    try:
        name = normal_name(msg.name) if msg.name is not None else player.name
    except BadName as exc:
        raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
    key = name_key(name)
    taken = ProtocolError(ErrorCode.NAME_TAKEN, f"{name!r} (or a name that looks like it) is claimed already")
    now = state.clock.wall_ms()
    try:
        holder = await archive.claim_by_key(key)
        if holder is not None and holder.player_id != player.id:
            raise taken
        password_hash = await hash_password(state.password_gate, msg.password)
        await archive.add_token(player.id, name, token_digest(player.token), now)
        if not await archive.put_claim(Claim(player.id, name, key, password_hash, now)):
            raise taken
        await archive.put_player(player.id, name, token_digest(player.token), now)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    except GateFull:
        raise _busy(msg.req) from None
    player.name = name
    player.claimed = True
    if state.store.durable:
        await keep_player(state, player, renew=True)
    _players_log.info("%s claimed its name", name, extra=fields("player_claimed", player=player.id, player_name=name))
    session.reply(Claimed(req=msg.req, name=name))


async def login(state: ServerState, session: Session, msg: Login) -> None:
    """Make this connection the player that claimed ``msg.name`` if ``msg.password`` is its
    password, with a new token for this device (`Welcome`). Failed logins count per name key
    and per address key (`server.claims.LoginLimiter`). Raises ProtocolError (protocol_version;
    bad_login: no such claimed name, or a wrong password, in the same words; rate_limited with
    ``retry_after_s``; unavailable)."""
    if msg.protocol != PROTOCOL_VERSION:
        raise ProtocolError(ErrorCode.PROTOCOL_VERSION, f"this server speaks protocol {PROTOCOL_VERSION}")
    archive = _archive(state)
    try:
        key = name_key(normal_name(msg.name))
    except BadName:
        key = ""
    by_name, by_address = state.failed_logins_by_name, state.failed_logins_by_address
    now = state.clock.monotonic()
    name_slot, address_slot = "n:" + key, address_key(session.address)
    wait = max(by_name.wait_s(name_slot, now), by_address.wait_s(address_slot, now))
    if wait:
        raise ProtocolError(
            ErrorCode.RATE_LIMITED,
            f"too many failed logins: try again in {wait} s",
            msg.req,
            retry_after_s=wait,
        )
    try:
        kept = await archive.claim_by_key(key) if key else None
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    try:
        good = await check_password(
            state.password_gate, kept.password_hash if kept is not None else _DUMMY_HASH, msg.password
        )
    except GateFull:
        raise _busy(msg.req) from None
    if kept is None or not good:
        by_name.failed(name_slot, now)
        by_address.failed(address_slot, now)
        _players_log.info(
            "failed login", extra=fields("login_failed", remote=session.address, player_name=msg.name[:32])
        )
        raise ProtocolError(ErrorCode.BAD_LOGIN, "no claimed name with that password: check both", msg.req)
    await _become(state, session, kept.player_id)


async def transfer_code(state: ServerState, session: Session, player: Player, msg: TransferCodeRequest) -> None:
    """Answer a one-time code that moves ``player`` to another device, good for
    ``transfer_code_minutes``; only its digest is kept. Raises ProtocolError (unavailable)."""
    archive = _archive(state)
    code = new_transfer_code()
    now = state.clock.wall_ms()
    expires_ms = now + round(state.config.transfer_code_minutes * 60_000)
    try:
        await archive.add_token(player.id, player.name, token_digest(player.token), now)
        await archive.put_transfer_code(code_digest(code), player.id, expires_ms)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    session.reply(TransferCode(req=msg.req, code=code, expires_ms=expires_ms))


async def redeem(state: ServerState, session: Session, msg: Redeem) -> None:
    """Make this connection the player ``msg.code`` was made for, with a new token for this
    device (`Welcome`); the code is spent. Raises ProtocolError (protocol_version; bad_code:
    unknown, used already or expired; unavailable)."""
    if msg.protocol != PROTOCOL_VERSION:
        raise ProtocolError(ErrorCode.PROTOCOL_VERSION, f"this server speaks protocol {PROTOCOL_VERSION}")
    archive = _archive(state)
    try:
        player_id = await archive.use_transfer_code(code_digest(msg.code), state.clock.wall_ms())
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    if player_id is None:
        raise ProtocolError(ErrorCode.BAD_CODE, "that transfer code is unknown, used already, or expired", msg.req)
    await _become(state, session, player_id)


async def _become(state: ServerState, session: Session, player_id: str) -> None:
    """Make ``session`` player ``player_id`` under a new token (kept in the archive, and in the
    durable store if any): the connection stops being the player it was, if any; the player's
    own earlier connection, if any, is closed as a hello with its token would. Answers `Welcome`."""
    archive = _archive(state)
    token = secrets.token_urlsafe(24)
    digest = token_digest(token)
    now = state.clock.wall_ms()
    try:
        await archive.add_token(player_id, "player", digest, now)
        found = await archive.player_by_token(digest)
        claimed = await archive.claim_of(player_id)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    name = found[1] if found is not None else "player"
    if session.player is not None:
        state.forget(session)
        session.player = None
    player = state.players_by_id.get(player_id)
    if player is not None and player.token:
        player.devices.add(token)
        state.players[token] = player
    else:
        player = state.player_back(token, player_id, name)
    player.claimed = claimed is not None
    if state.store.durable:
        cfg = state.config
        keep_s = cfg.player_retention_s + cfg.open_race_ttl_s + 86_400.0  # (as `keep_player`)
        await state.store.save_player(player.id, digest, player.name, keep_s)
    old = player.session
    if old is not None and old is not session:
        assert isinstance(old, Session), "a player's listener is its connection's session"
        state.forget(old)
        old.close(1008, "session resumed on another connection")
    player.session = session
    session.player = player
    state.listen(player, player)
    _players_log.info(
        "%s logged in",
        player.name,
        extra=fields("player_login", player=player.id, player_name=player.name, remote=session.address),
    )
    session.reply(
        Welcome(
            player=player.id,
            name=player.name,
            token=token,
            protocol=PROTOCOL_VERSION,
            server_time_ms=state.clock.wall_ms(),
            node=state.node_id,
            claimed=player.claimed,
        )
    )


async def forget_me(state: ServerState, session: Session, player: Player, msg: ForgetMe) -> None:
    """Delete ``player``'s identity: in the durable store (its tokens), then in the archive
    (tokens, claim, codes; its races renamed `ANONYMOUS_NAME`), then in memory; answer
    `Forgotten`, then close the connection. Raises ProtocolError (unavailable: the store or the
    archive cannot be reached; a store that fails raises `server.store.StoreUnavailable` before
    anything changed, answered ``unavailable`` by `server.dispatch`, and an archive that fails
    after it leaves the player whole in memory and in the archive, its token still good)."""
    archive = _archive(state)
    if state.store.durable:
        for token in (player.token, *player.devices):
            await state.store.forget_player(token_digest(token))
    await state.player_written(player.id)  # (a write under way must not bring the player back)
    try:
        races = await archive.forget_player(player.id, ANONYMOUS_NAME)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    state.forget(session)
    state.drop_player(player)
    player.token, player.devices = "", set()
    _players_log.info("a player deleted its identity", extra=fields("player_forgotten", player=player.id))
    session.reply(Forgotten(req=msg.req, races=races))
    session.close(1000, "identity deleted")
