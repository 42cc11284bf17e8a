"""Ratings in SQL: `SqlRatings`, the rating part of `server.archive.Archive` that
`server.archive.sql.SqlArchive` takes (a mixin), and the board's page query (`board_query`).

Tables and indexes: `server.archive.schema.ratings` and ``rating_changes``. Applying a race is one
transaction: its ``rating_changes`` rows first (``INSERT ... ON CONFLICT DO NOTHING RETURNING``:
a race applied already inserts nothing, so nothing else is written; on PostgreSQL a second node
applying it at the same time waits on the primary key until the first commits), then each
player's rating, written only if its race count is still the update's ``before`` (an insert for a
first race, a conditional update otherwise), else `RatingConflict` rolls everything back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.archive import (
    Archive,
    ArchiveError,
    RatedPlayer,
    RatingChange,
    RatingConflict,
    RatingUpdate,
    decode_board_cursor,
    encode_board_cursor,
)
from server.archive.memory_ratings import check_updates
from server.archive.schema import rating_changes, ratings
from server.ratings import Rating, display

__all__ = ["SqlRatings", "board_query"]

_BOARD_COLUMNS = (
    ratings.c.player_id,
    ratings.c.game,
    ratings.c.mu,
    ratings.c.sigma,
    ratings.c.races,
    ratings.c.ordinal,
    ratings.c.updated_ms,
)


def board_query(
    game: str, active_since_ms: int, key: tuple[float, str] | None, limit: int, *, upward: bool = False
) -> sa.Select[Any]:
    """The one query of a board page: ``game``'s ratings last updated at ``active_since_ms`` or
    later, below the key ``key`` (``(ordinal, player id)``; None: from the top), best first,
    ``limit`` rows, read as one range of ``ix_ratings_board`` (`server.archive.schema.BOARD_INDEX`).
    ``upward``: the rows above ``key`` instead, nearest first (the same index read backwards)."""
    query = sa.select(*_BOARD_COLUMNS).where(ratings.c.game == game, ratings.c.updated_ms >= active_since_ms)
    position = sa.tuple_(ratings.c.ordinal, ratings.c.player_id)
    if upward:
        assert key is not None
        query = query.where(position > sa.tuple_(*key))
        return query.order_by(ratings.c.ordinal.asc(), ratings.c.player_id.asc()).limit(limit)
    if key is not None:
        query = query.where(position < sa.tuple_(*key))
    return query.order_by(ratings.c.ordinal.desc(), ratings.c.player_id.desc()).limit(limit)


def _rated(row: Any) -> RatedPlayer:
    player_id, game, mu, sigma, races, ordinal, updated_ms = row
    return RatedPlayer(player_id, game, Rating(mu, sigma, races), ordinal, updated_ms)


class _AlreadyApplied(Exception):
    """Another transaction applied part of this race first: roll back, nothing to do."""


class SqlRatings(Archive):
    """The rating methods over the engine `server.archive.sql.SqlArchive` holds."""

    dialect: str
    _ready: Callable[[], Awaitable[AsyncEngine]]
    _insert: Callable[[sa.Table], Any]

    async def apply_ratings(self, race_code: str, game: str, finished_ms: int, updates: list[RatingUpdate]) -> bool:
        """See `Archive.apply_ratings`: one transaction (see the module's docstring)."""
        check_updates(updates)
        engine = await self._ready()
        lines = [
            {
                "race_code": race_code,
                "player_id": update.player_id,
                "game": game,
                "finished_ms": finished_ms,
                "mu_before": update.before.mu,
                "sigma_before": update.before.sigma,
                "mu_after": update.after.mu,
                "sigma_after": update.after.sigma,
                "races": update.after.races,
            }
            for update in updates
        ]
        claim = (
            self._insert(rating_changes)
            .values(lines)
            .on_conflict_do_nothing(index_elements=[rating_changes.c.race_code, rating_changes.c.player_id])
            .returning(rating_changes.c.player_id)
        )
        try:
            async with engine.begin() as connection:
                claimed = len((await connection.execute(claim)).all())
                if claimed == 0:
                    return False
                if claimed < len(updates):
                    raise _AlreadyApplied
                for update in updates:
                    values = {
                        "mu": update.after.mu,
                        "sigma": update.after.sigma,
                        "races": update.after.races,
                        "ordinal": display(update.after),
                        "updated_ms": finished_ms,
                    }
                    if update.before.races == 0:
                        write = (
                            self._insert(ratings)
                            .values(player_id=update.player_id, game=game, **values)
                            .on_conflict_do_nothing(index_elements=[ratings.c.player_id, ratings.c.game])
                        )
                    else:
                        write = (
                            sa.update(ratings)
                            .where(
                                ratings.c.player_id == update.player_id,
                                ratings.c.game == game,
                                ratings.c.races == update.before.races,
                            )
                            .values(**values)
                        )
                    if (await connection.execute(write.returning(ratings.c.player_id))).first() is None:
                        raise RatingConflict(
                            f"{update.player_id}'s {game} rating changed since it was read (race {race_code})"
                        )
        except _AlreadyApplied:
            return False
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot apply the ratings of race {race_code}: {exc}") from exc
        return True

    async def ratings_of(self, player_id: str) -> list[RatedPlayer]:
        """See `Archive.ratings_of` (through the primary key)."""
        query = sa.select(*_BOARD_COLUMNS).where(ratings.c.player_id == player_id).order_by(ratings.c.game)
        return [_rated(row) for row in await self._rating_rows(query, f"the ratings of {player_id}")]

    async def rating_history(self, player_id: str, game: str, limit: int) -> list[RatingChange]:
        """See `Archive.rating_history` (through ``ix_rating_changes_player``)."""
        if limit < 1:
            raise ArchiveError(f"a rating history holds at least one change (limit {limit})")
        c = rating_changes.c
        query = (
            sa.select(c.race_code, c.finished_ms, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after, c.races)
            .where(c.player_id == player_id, c.game == game)
            .order_by(c.finished_ms.desc(), c.race_code.desc())
            .limit(limit)
        )
        return [
            RatingChange(code, game, ms, Rating(mu0, sigma0, races - 1), Rating(mu1, sigma1, races))
            for code, ms, mu0, sigma0, mu1, sigma1, races in await self._rating_rows(
                query, f"the history of {player_id}"
            )
        ]

    async def rating_board(
        self,
        game: str,
        *,
        active_since_ms: int,
        after: str | None = None,
        around: str | None = None,
        limit: int,
    ) -> tuple[list[RatedPlayer], str | None]:
        """See `Archive.rating_board`: one range of the board index from the top or a cursor;
        around a player, its row by primary key, then the range above it (read backwards) and
        the range from it down."""
        if limit < 1:
            raise ArchiveError(f"a board page holds at least one player (limit {limit})")
        if after is not None and around is not None:
            raise ArchiveError("a board page starts after a cursor or around a player, not both")
        engine = await self._ready()
        key = None if after is None else decode_board_cursor(after)
        above: list[RatedPlayer] = []
        try:
            async with engine.connect() as connection:
                if around is not None:
                    query = sa.select(*_BOARD_COLUMNS).where(ratings.c.player_id == around, ratings.c.game == game)
                    mine = (await connection.execute(query)).first()
                    if mine is None:
                        return [], None
                    key = (mine.ordinal, around)
                    if limit // 2:
                        query = board_query(game, active_since_ms, key, limit // 2, upward=True)
                        above = [_rated(row) for row in (await connection.execute(query)).all()][::-1]
                    if mine.updated_ms >= active_since_ms:
                        above.append(_rated(mine))
                found = (
                    await connection.execute(board_query(game, active_since_ms, key, limit - len(above) + 1))
                ).all()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the {game} rating board: {exc}") from exc
        rows = [_rated(row) for row in found]
        room = limit - len(above)
        page = above + rows[:room]
        more = len(rows) > room
        return page, (encode_board_cursor(page[-1].ordinal, page[-1].player_id) if more and page else None)

    async def explain_board(self, game: str, active_since_ms: int, after: str | None, limit: int) -> str:
        """The database's plan for a board page's query (SQLite: ``EXPLAIN QUERY PLAN``;
        PostgreSQL: ``EXPLAIN``), one line per step: to check it reads the board index."""
        engine = await self._ready()
        key = None if after is None else decode_board_cursor(after)
        query = board_query(game, active_since_ms, key, limit + 1).compile(
            dialect=engine.dialect, compile_kwargs={"literal_binds": True}
        )
        prefix = "EXPLAIN QUERY PLAN " if self.dialect == "sqlite" else "EXPLAIN "
        async with engine.connect() as connection:
            plan = (await connection.exec_driver_sql(prefix + str(query))).all()
        return "\n".join(" ".join(str(part) for part in row) for row in plan)

    async def _rating_rows(self, query: sa.Select[Any], what: str) -> list[Any]:
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                return list((await connection.execute(query)).all())
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read {what}: {exc}") from exc
