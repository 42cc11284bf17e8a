"""Profiles in SQL: `SqlStats`, the statistics and names part of `server.archive.Archive` that
`server.archive.sql.SqlArchive` takes (a mixin), and `count_stats`, which `put_race` calls in its
transaction.

A player's statistics per game are one row of ``player_game_stats`` (`server.archive.schema`),
added to by an upsert for each history line of a race the archive keeps for the first time: its
``SET`` expressions read the row as it was, so the streak and the best time need no read first.
A profile reads them as one range of the primary key (`stats_query`), never the player's races.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.archive import (
    Archive,
    ArchiveError,
    PlayerCard,
    PlayerGameStats,
    ProfileReads,
    RatedPlayer,
    game_stats_deltas,
)
from server.archive.schema import claims, player_game_stats, players, ratings
from server.archive.sql_profile import histories_from_rows, histories_query, profile_from_rows, profile_query
from server.protocol import RaceRecord
from server.ratings import Rating

__all__ = ["SqlStats", "count_stats", "stats_query"]


def stats_query(player_id: str) -> sa.Select[Any]:
    """The one query of a profile's statistics: ``player_id``'s rows of ``player_game_stats``,
    by game (a range of its primary key)."""
    s = player_game_stats.c
    return (
        sa.select(s.game, s.played, s.won, s.win_ms_sum, s.best_win_ms, s.cleared, s.streak, s.best_streak)
        .where(s.player_id == player_id)
        .order_by(s.game)
    )


async def count_stats(connection: AsyncConnection, insert: Any, record: RaceRecord, finished_ms: int) -> None:
    """In `put_race`'s transaction, after the race ``record`` was kept for the first time: add it
    to each of its players' ``player_game_stats`` row (made at its first race). ``insert``: the
    dialect's ``insert`` (for ``ON CONFLICT DO UPDATE``)."""
    lines = [
        {
            "player_id": player,
            "game": game,
            "played": 1,
            "won": int(won),
            "win_ms_sum": time_ms if won else 0,
            "best_win_ms": time_ms if won else None,
            "cleared": cleared,
            "streak": int(won),
            "best_streak": int(won),
        }
        for player, game, won, time_ms, cleared in game_stats_deltas(record, finished_ms)
    ]
    if not lines:
        return
    s = player_game_stats.c
    statement = insert(player_game_stats)
    new = statement.excluded
    grown = s.streak + 1
    statement = statement.on_conflict_do_update(
        index_elements=[s.player_id, s.game],
        set_={
            "played": s.played + 1,
            "won": s.won + new.won,
            "win_ms_sum": s.win_ms_sum + new.win_ms_sum,
            "best_win_ms": sa.case(
                (new.best_win_ms.is_(None), s.best_win_ms),
                (s.best_win_ms.is_(None), new.best_win_ms),
                (new.best_win_ms < s.best_win_ms, new.best_win_ms),
                else_=s.best_win_ms,
            ),
            "cleared": s.cleared + new.cleared,
            "streak": sa.case((new.won == 1, grown), else_=0),
            "best_streak": sa.case((sa.and_(new.won == 1, grown > s.best_streak), grown), else_=s.best_streak),
        },
    )
    for line in lines:  # (one statement per player: its excluded row is that player's)
        await connection.execute(statement.values(**line))


class SqlStats(Archive):
    """The profile methods over the engine `server.archive.sql.SqlArchive` holds."""

    dialect: str
    _ready: Callable[[], Awaitable[AsyncEngine]]

    async def game_stats(self, player_id: str) -> list[PlayerGameStats]:
        """See `Archive.game_stats` (`stats_query`)."""
        rows = await self._stats_rows(stats_query(player_id), f"the statistics of {player_id}")
        return [PlayerGameStats(*row) for row in rows]

    async def profile_reads(self, player_id: str, history_points: int, recent: int) -> ProfileReads | None:
        """See `Archive.profile_reads`: on one connection, `server.archive.sql_profile.profile_query`,
        then (for a rated player) `~.histories_query`: two statements whatever the games."""
        if history_points < 1 or recent < 1:
            raise ArchiveError(f"a profile reads at least one change and race ({history_points}, {recent})")
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                found = profile_from_rows(
                    player_id, list((await connection.execute(profile_query(player_id, recent))).all())
                )
                if found is None:
                    return None
                card, stats, rated, races = found
                games = [row.game for row in rated]
                history: dict[str, Any] = {}
                if games:
                    query = histories_query(player_id, games, history_points)
                    history = histories_from_rows(games, list((await connection.execute(query)).all()))
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the profile of {player_id}: {exc}") from exc
        return ProfileReads(card, stats, rated, history, races)

    async def player_card(self, player_id: str) -> PlayerCard | None:
        """See `Archive.player_card`: the player's row and its claim, by primary keys."""
        query = (
            sa.select(players.c.name, players.c.created_ms, claims.c.name)
            .select_from(players.outerjoin(claims, claims.c.player_id == players.c.id))
            .where(players.c.id == player_id)
        )
        rows = await self._stats_rows(query, f"player {player_id}")
        if not rows:
            return None
        name, created_ms, claimed = rows[0]
        return PlayerCard(player_id, claimed or name, claimed is not None, created_ms)

    async def player_names(self, player_ids: list[str]) -> dict[str, tuple[str, bool]]:
        """See `Archive.player_names`: one ``IN`` query over the primary keys."""
        if not player_ids:
            return {}
        query = (
            sa.select(players.c.id, players.c.name, claims.c.name)
            .select_from(players.outerjoin(claims, claims.c.player_id == players.c.id))
            .where(players.c.id.in_(player_ids))
        )
        rows = await self._stats_rows(query, "players' names")
        return {player_id: (claimed or name, claimed is not None) for player_id, name, claimed in rows}

    async def ratings_among(self, game: str, player_ids: list[str]) -> list[RatedPlayer]:
        """See `Archive.ratings_among`: one ``IN`` query over the ratings' primary key."""
        if not player_ids:
            return []
        r = ratings.c
        query = (
            sa.select(r.player_id, r.game, r.mu, r.sigma, r.races, r.ordinal, r.updated_ms)
            .where(r.game == game, r.player_id.in_(player_ids))
            .order_by(r.ordinal.desc(), r.player_id.desc())
        )
        rows = await self._stats_rows(query, f"the {game} ratings of friends")
        return [
            RatedPlayer(player_id, game_, Rating(mu, sigma, races), ordinal, updated_ms)
            for player_id, game_, mu, sigma, races, ordinal, updated_ms in rows
        ]

    async def explain_stats(self, player_id: str) -> str:
        """The database's plan for a profile's statistics query (SQLite: ``EXPLAIN QUERY PLAN``;
        PostgreSQL: ``EXPLAIN``), one line per step: to check it is one primary-key lookup."""
        engine = await self._ready()
        query = stats_query(player_id).compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True})
        prefix = "EXPLAIN QUERY PLAN " if self.dialect == "sqlite" else "EXPLAIN "
        async with engine.connect() as connection:
            plan = (await connection.exec_driver_sql(prefix + str(query))).all()
        return "\n".join(" ".join(str(part) for part in row) for row in plan)

    async def _stats_rows(self, query: sa.Select[Any], what: str) -> list[Any]:
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                return list((await connection.execute(query)).all())
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read {what}: {exc}") from exc
