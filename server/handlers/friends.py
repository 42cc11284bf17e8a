"""Friends' requests: `follow` and `unfollow` a claimed player, `friends` (the players you follow,
online or racing, and the challenges waiting for you), `challenge` a player to a race, and
`decline` a challenge.

Follows are kept in the archive (`server.archive.Archive.follow`), so only a claimed player may
follow, and only claimed players may be followed: a guest is a throwaway session. Presence and
invitations are this node's memory (`server.friends`): over several nodes a followed player
connected to another node shows offline here, and an invitation reaches the challenged player
only while it is connected to the challenger's node (otherwise it waits there, listed by
`friends` on that node). A `friends` request costs one archive read and O(followed players).
"""

from __future__ import annotations

import logging

from engine.games import UnknownGame, find_game
from server.archive import Archive, ArchiveError, Claim
from server.friends import presence
from server.handlers.races import _open_race  # the race a challenge creates is a casual race
from server.names import BadName, name_key, normal_name
from server.players import Player
from server.protocol import (
    Challenge,
    Decline,
    Declined,
    ErrorCode,
    Follow,
    Following,
    Friend,
    Friends,
    Invitation,
    ProtocolError,
    RaceReply,
    Unfollow,
    encode,
)
from server.state import ServerState
from server.transport.session import Session

__all__ = ["challenge", "decline", "follow", "friends", "unfollow"]

log = logging.getLogger("arena.server")


def _archive(state: ServerState, player: Player) -> Archive:
    """The archive, for a claimed ``player``; raises ProtocolError (unavailable, not_allowed)."""
    if state.archiver is None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "this server keeps no archive: nobody can be followed here")
    if not player.claimed:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "claim your name first: a guest cannot follow players")
    return state.archiver.archive


def _unavailable(exc: ArchiveError) -> ProtocolError:
    log.warning("a friends request could not use the archive: %s", exc.reason)
    return ProtocolError(ErrorCode.UNAVAILABLE, "the archive cannot be reached now: try again in a moment")


async def follow(state: ServerState, session: Session, player: Player, msg: Follow) -> None:
    """Follow the claimed player ``msg.player`` (an id) or ``msg.name`` (a claimed name); answer
    `Following`. Raises ProtocolError (bad_name; unknown_player: no such claimed player, or
    neither or both fields given; not_allowed: a guest following or followed, yourself, or past
    ``max_following``; unavailable)."""
    if (msg.player is None) == (msg.name is None):
        raise ProtocolError(
            ErrorCode.UNKNOWN_PLAYER,
            "name the player to follow by its id (player) or its claimed name (name), not both",
        )
    archive = _archive(state, player)
    try:
        if msg.name is not None:
            try:
                key = name_key(normal_name(msg.name))
            except BadName as exc:
                raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
            claim = await archive.claim_by_key(key)
            if claim is None:
                raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"no player claimed the name {msg.name!r}")
        else:
            assert msg.player is not None
            claim = await _claimed(state, archive, msg.player)
        if claim.player_id == player.id:
            raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot follow yourself")
        limit = state.config.max_following
        kept = await archive.following(player.id, limit)
        if len(kept) >= limit and all(f.player_id != claim.player_id for f in kept):
            raise ProtocolError(
                ErrorCode.NOT_ALLOWED, f"you follow {limit} players, the most the server keeps: unfollow one first"
            )
        await archive.follow(player.id, claim.player_id, state.clock.wall_ms())
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    await _answer(state, session, player, msg.req)


async def _claimed(state: ServerState, archive: Archive, player_id: str) -> Claim:
    """The claim of ``player_id``; raises ProtocolError (not_allowed: a guest this node knows;
    unknown_player), ArchiveError."""
    claim = await archive.claim_of(player_id)
    if claim is not None:
        return claim
    if player_id in state.players_by_id:
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED, "that player is a guest: only players who claimed their name can be followed"
        )
    raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"no claimed player {player_id!r}")


async def unfollow(state: ServerState, session: Session, player: Player, msg: Unfollow) -> None:
    """Stop following ``msg.player`` (nothing changes if it was not followed); answer
    `Following`. Raises ProtocolError (not_allowed: a guest; unavailable)."""
    archive = _archive(state, player)
    try:
        await archive.unfollow(player.id, msg.player)
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    await _answer(state, session, player, msg.req)


async def friends(state: ServerState, session: Session, player: Player, msg: Friends) -> None:
    """Answer `Following`: the players ``player`` follows with their presence on this node, and
    the challenges waiting for it (a guest, or a server without an archive: the challenges
    only). Raises ProtocolError (unavailable: the archive cannot be read)."""
    await _answer(state, session, player, msg.req)


async def _answer(state: ServerState, session: Session, player: Player, req: int) -> None:
    """Reply `Following` to ``req``: one archive read (none for a guest), then O(followed
    players and their races in memory) and O(invitations waiting)."""
    players: list[Friend] = []
    if state.archiver is not None and player.claimed:
        try:
            kept = await state.archiver.archive.following(player.id, state.config.max_following)
        except ArchiveError as exc:
            raise _unavailable(exc) from None
        for followed in kept:
            online, racing = presence(state.players_by_id.get(followed.player_id), state.races)
            players.append(Friend(player=followed.player_id, name=followed.name, online=online, racing=racing))
    invitations = state.invitations.pending(player.id, lambda code: _takes(state, code, player.id), now=_now(state))
    session.reply(Following(req=req, players=players, invitations=invitations))


def _takes(state: ServerState, code: str, player_id: str) -> bool:
    """Whether race ``code`` still takes ``player_id``: in memory, open, and it not in it yet."""
    race = state.races.get(code)
    return race is not None and race.status == "open" and player_id not in race.entrants


def _now(state: ServerState) -> float:
    return state.clock.monotonic()


async def challenge(state: ServerState, session: Session, player: Player, msg: Challenge) -> None:
    """Create a race of two for ``player`` and ``msg.player`` (not listed in the lobby), enter
    ``player``, invite the other (an `Invitation` sent now if it is connected here, and listed by
    its `friends` while the race is open) and answer `RaceReply`. Raises ProtocolError
    (unknown_game; unknown_player: not in this node's memory nor a claimed player; not_allowed:
    yourself; rate_limited: past ``challenges_per_hour``; and those of `create_race`)."""
    try:
        game_cls = find_game(msg.game)
    except UnknownGame as exc:
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
    if msg.player == player.id:
        raise ProtocolError(ErrorCode.NOT_ALLOWED, "you cannot challenge yourself")
    invited = state.players_by_id.get(msg.player)
    if invited is None:
        claim = None
        if state.archiver is not None:
            try:
                claim = await state.archiver.archive.claim_of(msg.player)
            except ArchiveError as exc:
                raise _unavailable(exc) from None
        if claim is None:
            raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"no player {msg.player!r} to challenge")
    now = _now(state)
    per_hour = state.config.challenges_per_hour
    if state.invitations.sent.count(player.id, now) >= per_hour:
        raise ProtocolError(ErrorCode.RATE_LIMITED, f"a player may send {per_hour} challenges an hour: slow down")
    race = await _open_race(
        state,
        session,
        player,
        game_cls,
        seed=None,
        seed_public=False,
        options=msg.options,
        max_entrants=2,
        countdown_s=3,
        time_limit_s=900,
        undo=True,
    )
    state.lobby.move(race.code, None)  # for the two of them: not listed
    if state.link is not None:
        state.link.listed(race, None)
    state.invitations.sent.add(player.id, now)
    await race.join(player.id, player.name, player, claimed=player.claimed)
    player.races.add(race.code)
    invitation = Invitation(race=race.code, game=game_cls.key, from_player=player.id, from_name=player.name)
    state.invitations.add(msg.player, invitation, now=now)
    if invited is not None:
        invited.send(encode(invitation))
    session.reply(RaceReply(req=msg.req, race=race.info()))


async def decline(state: ServerState, session: Session, player: Player, msg: Decline) -> None:
    """Decline the challenge to ``msg.race``: answer `Declined`, and send it to the challenger if
    it is connected here. Raises ProtocolError (unknown_race: no such challenge waits)."""
    code = msg.race.upper()
    invitation = state.invitations.remove(player.id, code)
    if invitation is None:
        raise ProtocolError(ErrorCode.UNKNOWN_RACE, f"no challenge to race {msg.race!r} waits for you")
    challenger = state.players_by_id.get(invitation.from_player)
    if challenger is not None:
        challenger.send(encode(Declined(race=code, player=player.id)))
    session.reply(Declined(race=code, player=player.id, req=msg.req))
