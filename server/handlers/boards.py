"""Leaderboards and profiles, read from the archive: `leaderboard` (a game's rating board, or a
daily challenge's results) and `profile` (a player's statistics per game, ratings and their
history, recent races). Each is a few indexed queries whose cost does not grow with the number of
players: a board page is one range of the board index (`server.archive.Archive.rating_board`) and
one lookup of the page's names (`server.archive.Archive.player_names`); a profile one call
(`server.archive.Archive.profile_reads`: two SQL statements, its statistics one range of
``player_game_stats``). docs/design.md §7 names each request's indexes."""

from __future__ import annotations

import logging

from engine.games import UnknownGame, find_game
from server.archive import Archive, ArchiveError, RatedPlayer, decode_board_cursor
from server.archive.daily_totals import decode_totals_cursor, period_key
from server.daily import DAY_MS, day_of
from server.names import BadName, name_key, normal_name
from server.players import Player
from server.protocol import (
    ErrorCode,
    GameStats,
    GetProfile,
    HistoryRace,
    Leaderboard,
    LeaderboardPage,
    LeaderboardRow,
    Profile,
    ProtocolError,
    RatingPoint,
)
from server.ratings import display, provisional
from server.state import ServerState
from server.transport.session import Session

__all__ = ["FRIENDS_KEPT", "HISTORY_POINTS", "RECENT_RACES", "leaderboard", "profile"]

log = logging.getLogger("arena.server")

#: Rating changes per rated game a profile's chart shows (the latest).
HISTORY_POINTS = 50
#: Races a profile lists (the latest).
RECENT_RACES = 10
#: Followed players a friends' board reads at most.
FRIENDS_KEPT = 100

_UNREADABLE = "the archive cannot be read now: try again later"


def _archive(state: ServerState) -> Archive:
    """The server's archive; raises ProtocolError (unavailable) where it keeps none."""
    if state.archiver is None:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "this server keeps no archive: no leaderboards or profiles")
    return state.archiver.archive


async def leaderboard(state: ServerState, session: Session, player: Player, msg: Leaderboard) -> None:
    """Answer one page of ``msg.game``'s leaderboard (`server.protocol.Leaderboard`). Raises
    ProtocolError (unknown_game; bad_field: a cursor the server did not give, or one on a day's
    daily board; not_allowed: a day's daily board not of the top view; unavailable: no archive,
    or it cannot be read now)."""
    archive = _archive(state)
    try:
        game = find_game(msg.game).key
    except UnknownGame as exc:
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
    if msg.board == "daily":
        await _daily_board(state, archive, session, player, msg, game)
        return
    if msg.after is not None:
        try:
            decode_board_cursor(msg.after)
        except ArchiveError as exc:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"bad leaderboard message: {exc.reason}") from None
        if msg.view != "top":
            raise ProtocolError(ErrorCode.BAD_FIELD, "bad leaderboard message: after goes with the top view only")
    since = state.clock.wall_ms() - msg.active_days * DAY_MS
    cursor: str | None = None
    try:
        if msg.view == "friends":
            followed = [row.player_id for row in await archive.following(player.id, FRIENDS_KEPT)]
            rated = await archive.ratings_among(game, [player.id, *followed])
            rows = [row for row in rated if row.updated_ms >= since][: msg.limit]
        else:
            around = player.id if msg.view == "around_me" else None
            rows, cursor = await archive.rating_board(
                game, active_since_ms=since, after=msg.after, around=around, limit=msg.limit
            )
        names = await archive.player_names([row.player_id for row in rows])
    except ArchiveError as exc:
        log.warning("%s leaderboard not read: %s", game, exc.reason)
        raise ProtocolError(ErrorCode.UNAVAILABLE, _UNREADABLE) from None
    lines = [_rating_row(row, names) for row in rows]
    session.reply(LeaderboardPage(req=msg.req, game=game, board="rating", rows=lines, cursor=cursor))


def _rating_row(row: RatedPlayer, names: dict[str, tuple[str, bool]]) -> LeaderboardRow:
    name, claimed = names.get(row.player_id, (row.player_id, False))
    return LeaderboardRow(
        player=row.player_id,
        name=name,
        claimed=claimed,
        rating=round(row.ordinal),
        provisional=provisional(row.rating),
        races=row.rating.races,
    )


async def _daily_board(
    state: ServerState, archive: Archive, session: Session, player: Player, msg: Leaderboard, game: str
) -> None:
    """`leaderboard` of board daily: the day's results (`server.archive.Archive.daily_board`,
    one page, top view only), or a week's or all time's totals (`_daily_totals_board`). Raises
    ProtocolError (not_allowed, bad_field, unavailable)."""
    if msg.period != "day":
        await _daily_totals_board(state, archive, session, player, msg, game)
        return
    if msg.view != "top":
        raise ProtocolError(
            ErrorCode.NOT_ALLOWED,
            "a day's daily board has the top view only: ask for period 'week' or 'all' to see yourself or friends",
        )
    if msg.after is not None:
        raise ProtocolError(ErrorCode.BAD_FIELD, "bad leaderboard message: a day's daily board is one page (no after)")
    day = msg.day or day_of(state.clock.wall_ms())
    try:
        results = await archive.daily_board(game, day, msg.limit)
        names = await archive.player_names([result.player for result in results])
    except ArchiveError as exc:
        log.warning("daily board %s %s not read: %s", game, day, exc.reason)
        raise ProtocolError(ErrorCode.UNAVAILABLE, _UNREADABLE) from None
    rows = [
        LeaderboardRow(
            player=result.player,
            name=result.name,
            claimed=names.get(result.player, ("", False))[1],
            rating=0,
            provisional=False,
            races=1,
            cleared=result.cleared,
            time_ms=result.time_ms,
            status=result.status,
        )
        for result in results
    ]
    session.reply(LeaderboardPage(req=msg.req, game=game, board="daily", rows=rows, cursor=None))


async def _daily_totals_board(
    state: ServerState, archive: Archive, session: Session, player: Player, msg: Leaderboard, game: str
) -> None:
    """`leaderboard` of board daily, period week (the ISO week of ``msg.day``, or today's) or
    all: the running totals (`server.archive.Archive.daily_totals_board`), cards then time, in
    the top (paged by ``after``), around_me or friends view. Raises ProtocolError (bad_field: a
    cursor the server did not give; unavailable)."""
    day = msg.day or day_of(state.clock.wall_ms())
    try:
        period = period_key(msg.period, day)
        if msg.after is not None:
            decode_totals_cursor(msg.after)
    except ValueError as exc:
        raise ProtocolError(ErrorCode.BAD_FIELD, f"bad leaderboard message: {exc}") from None
    cursor: str | None = None
    try:
        if msg.view == "friends":
            followed = [row.player_id for row in await archive.following(player.id, FRIENDS_KEPT)]
            totals = await archive.daily_totals_among(game, period, [player.id, *followed])
            totals = totals[: msg.limit]
        else:
            around = player.id if msg.view == "around_me" else None
            totals, cursor = await archive.daily_totals_board(
                game, period, after=msg.after, around=around, limit=msg.limit
            )
        names = await archive.player_names([total.player_id for total in totals])
    except ArchiveError as exc:
        log.warning("daily board %s %s not read: %s", game, period, exc.reason)
        raise ProtocolError(ErrorCode.UNAVAILABLE, _UNREADABLE) from None
    rows = []
    for total in totals:
        name, claimed = names.get(total.player_id, (total.player_id, False))
        rows.append(
            LeaderboardRow(
                player=total.player_id,
                name=name,
                claimed=claimed,
                rating=0,
                provisional=False,
                races=total.days,
                cleared=total.cleared,
                time_ms=total.time_ms,
            )
        )
    session.reply(LeaderboardPage(req=msg.req, game=game, board="daily", rows=rows, cursor=cursor))


async def profile(state: ServerState, session: Session, player: Player, msg: GetProfile) -> None:
    """Answer the profile of the player ``msg`` names (by id or claimed name; neither: the
    asker's own). Raises ProtocolError (unknown_player; bad_name: a name that no name can be;
    bad_field: both an id and a name; unavailable)."""
    archive = _archive(state)
    if msg.player is not None and msg.name is not None:
        raise ProtocolError(ErrorCode.BAD_FIELD, "bad profile message: give player or name, not both")
    try:
        target = msg.player or player.id
        if msg.name is not None:
            try:
                key = name_key(normal_name(msg.name))
            except BadName as exc:
                raise ProtocolError(ErrorCode.BAD_NAME, exc.reason) from None
            claim = await archive.claim_by_key(key)
            if claim is None:
                raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"nobody has claimed the name {msg.name!r}")
            target = claim.player_id
        reads = await archive.profile_reads(target, HISTORY_POINTS, RECENT_RACES)
        if reads is None:
            raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"the archive keeps no player {target!r}")
        card, recent = reads.card, reads.recent
        stats = {row.game: row for row in reads.stats}
        ratings = {row.game: row for row in reads.ratings}
        points: list[RatingPoint] = []
        for game in sorted(ratings):
            changes = reads.history.get(game, [])
            points += [RatingPoint(game, c.finished_ms, round(display(c.after))) for c in reversed(changes)]
    except ArchiveError as exc:
        log.warning("profile of %s not read: %s", msg.player or msg.name or player.id, exc.reason)
        raise ProtocolError(ErrorCode.UNAVAILABLE, _UNREADABLE) from None
    games = []
    for game in sorted(set(stats) | set(ratings)):
        row = stats.get(game)
        rated = ratings.get(game)
        played, won = (row.played, row.won) if row else (0, 0)
        games.append(
            GameStats(
                game=game,
                played=played,
                won=won,
                win_rate=won / played if played else 0.0,
                best_win_ms=row.best_win_ms if row else None,
                mean_win_ms=round(row.win_ms_sum / row.won) if row and row.won else None,
                cleared=row.cleared if row else 0,
                streak=row.streak if row else 0,
                best_streak=row.best_streak if row else 0,
                rating=round(rated.ordinal) if rated else None,
                provisional=provisional(rated.rating) if rated else True,
            )
        )
    session.reply(
        Profile(
            req=msg.req,
            player=card.player_id,
            name=card.name,
            claimed=card.claimed,
            created_ms=card.created_ms,
            games=games,
            rating_history=points,
            recent=[
                HistoryRace(
                    race=r.code,
                    game=r.game,
                    finished_ms=r.finished_ms,
                    place=r.standing,
                    entrants=r.entrants,
                    cleared=r.cleared,
                    total=r.total,
                    time_ms=r.time_ms,
                    status=r.status,
                    par=r.par,
                )
                for r in recent
            ],
        )
    )
