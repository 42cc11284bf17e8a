"""Organisers and who may enter a tournament.

The server's admin (the holder of ``admin_token``, `server.config.ServerConfig`) grants the
organiser role to claimed players (`grant_organiser`; the archive keeps it). An organiser creates
tournaments without the admin token and runs its own (`organiser_of`, `may_run`): cancels them,
reviews their entries, reads their fair-play reports; the admin token keeps working for all.
A tournament's ``entry`` says who may register (`check_entry`): anyone ("open"), claimed players
("claimed"), those who give its invite code ("invite"), or the claimed names of its allow-list
("list").
"""

from __future__ import annotations

import hmac
import logging
import secrets

from server.archive import Archive, ArchiveError, Claim
from server.logs import fields
from server.names import BadName, name_key, normal_name
from server.players import Player
from server.protocol import ErrorCode, GrantOrganiser, Organiser, ProtocolError
from server.state import ServerState
from server.tournament import TournamentPlan
from server.transport.session import Session

__all__ = ["check_entry", "grant_organiser", "is_admin", "may_run", "new_invite_code", "organiser_of"]

log = logging.getLogger("arena.server")
_players_log = logging.getLogger("arena.players")


def is_admin(state: ServerState, token: str | None) -> bool:
    """Whether ``token`` is the server's admin token (compared in constant time; False when the
    server has none or no token was given)."""
    expected = state.config.admin_token
    return token is not None and expected is not None and hmac.compare_digest(token.encode(), expected.encode())


def _archive(state: ServerState) -> Archive:
    if state.archiver is None:
        raise ProtocolError(
            ErrorCode.NOT_ORGANISER, "this server keeps no archive, so it has no organisers: use the admin token"
        )
    return state.archiver.archive


def _unavailable(exc: ArchiveError) -> ProtocolError:
    log.warning("an organiser request could not use the archive: %s", exc.reason)
    return ProtocolError(ErrorCode.UNAVAILABLE, "the archive cannot be reached now: try again in a moment")


async def organiser_of(state: ServerState, player: Player, admin_token: str | None) -> str | None:
    """Who is asking for an organiser's request: None for the holder of the admin token, else
    ``player``'s id when it is a claimed player with the organiser role. Raises ProtocolError
    (not_organiser, saying why; unavailable: the archive cannot be read)."""
    if is_admin(state, admin_token):
        return None
    if admin_token is not None:
        raise ProtocolError(ErrorCode.NOT_ORGANISER, "that is not the admin token")
    archive = _archive(state)
    try:
        claimed = await archive.claim_of(player.id)
        organiser = claimed is not None and await archive.is_organiser(player.id)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    if claimed is None:
        raise ProtocolError(
            ErrorCode.NOT_ORGANISER, "only organisers may do that: claim your name, then ask the server's admin"
        )
    if not organiser:
        raise ProtocolError(
            ErrorCode.NOT_ORGANISER, f"{claimed.name} is not an organiser: the server's admin grants that role"
        )
    return player.id


async def may_run(state: ServerState, player: Player, admin_token: str | None, organiser: str | None) -> None:
    """Raise ProtocolError (not_organiser) unless the request is the admin's (``admin_token``)
    or ``player`` is an organiser (`organiser_of`) and the tournament's ``organiser`` (its player
    id; None: a tournament the admin runs)."""
    who = await organiser_of(state, player, admin_token)
    if who is not None and organiser != who:
        raise ProtocolError(ErrorCode.NOT_ORGANISER, "only its own organiser (or the server's admin) may do that")


def new_invite_code() -> str:
    """A fresh invite code: 8 characters of an unambiguous alphabet (about 40 bits)."""
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(secrets.choice(alphabet) for _ in range(8))


async def check_entry(state: ServerState, player: Player, plan: TournamentPlan, code: str | None) -> None:
    """Raise ProtocolError unless ``player`` may register for a tournament of ``plan`` as its
    ``entry`` says: "claimed" and "list" need a claimed player (not_allowed), "list" one whose
    claimed name is on the allow-list by `server.names.name_key` (not_allowed), "invite" the
    invite ``code`` (bad_code; compared in constant time, case-insensitively). unavailable: the
    archive cannot be read."""
    if plan.entry == "invite":
        given = (code or "").upper().encode()
        if plan.invite_code is None or not hmac.compare_digest(given, plan.invite_code.upper().encode()):
            raise ProtocolError(
                ErrorCode.BAD_CODE,
                "this tournament takes entries by invitation: give the invite code its organiser shared"
                if not code
                else "that is not this tournament's invite code",
            )
        return
    if plan.entry not in ("claimed", "list"):
        return
    claim: Claim | None = None
    if state.archiver is not None:
        try:
            claim = await state.archiver.archive.claim_of(player.id)
        except ArchiveError as exc:
            raise _unavailable(exc) from None
    if claim is None:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "only claimed players may enter this tournament: claim your name first"
        )
    if plan.entry == "list" and claim.name_key not in {name_key(name) for name in plan.allow}:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, f"{claim.name} is not on this tournament's list of entrants")


async def grant_organiser(state: ServerState, session: Session, player: Player, msg: GrantOrganiser) -> None:
    """The admin grants (or, ``revoke``, takes back) the organiser role of a claimed player,
    named by id or claimed name; answers `Organiser`. Raises ProtocolError (not_organiser: not
    the admin token; bad_field: neither or both of player and name; unknown_player: no such
    claimed player; unavailable)."""
    if not is_admin(state, msg.admin_token):
        raise ProtocolError(
            ErrorCode.NOT_ORGANISER, "only the server's admin (the admin token) grants the organiser role"
        )
    if (msg.player is None) == (msg.name is None):
        raise ProtocolError(ErrorCode.BAD_FIELD, "name the player by its id (player) or its claimed name (name)")
    archive = _archive(state)
    try:
        if msg.name is not None:
            try:
                claim = await archive.claim_by_key(name_key(normal_name(msg.name)))
            except BadName as exc:
                raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
        else:
            claim = await archive.claim_of(msg.player or "")
        if claim is None:
            raise ProtocolError(
                ErrorCode.UNKNOWN_PLAYER,
                f"no claimed player {msg.name or msg.player!r}: only a claimed name may be an organiser",
            )
        await archive.set_organiser(claim.player_id, not msg.revoke, state.clock.wall_ms())
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    _players_log.info(
        "%s %s the organiser role",
        claim.name,
        "lost" if msg.revoke else "was granted",
        extra=fields(
            "organiser_revoked" if msg.revoke else "organiser_granted", player=claim.player_id, player_name=claim.name
        ),
    )
    session.reply(Organiser(req=msg.req, player=claim.player_id, name=claim.name, organiser=not msg.revoke))
