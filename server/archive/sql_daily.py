"""The daily challenge's results and the kept secrets in SQL: `SqlDaily`, the daily part of
`server.archive.Archive` that `server.archive.sql.SqlArchive` takes (a mixin), and the queries it
reads through its indexes (`daily_board_query`, `daily_player_query`).

Tables: `server.archive.schema.daily_results` and ``kept_secrets``. A day's leaderboard is one
range of ``ix_daily_results_board`` ``(day, game, cleared DESC, time_ms, race_code)``, read in
its order up to the page's limit; a player's days (its calendar month, the days its streak counts)
one range of ``ix_daily_results_player`` ``(player_id, day DESC, game)``. A result is written with
one upsert that replaces only an attempt still ``playing`` (`server.archive.daily_replaces`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.archive import Archive, ArchiveError
from server.archive.schema import daily_results, kept_secrets
from server.protocol import DailyResult

__all__ = ["SqlDaily", "daily_board_query", "daily_player_query"]

_COLUMNS = (
    daily_results.c.player_id,
    daily_results.c.name,
    daily_results.c.game,
    daily_results.c.day,
    daily_results.c.cleared,
    daily_results.c.total,
    daily_results.c.time_ms,
    daily_results.c.status,
    daily_results.c.race_code,
)


def daily_board_query(game: str, day: str, limit: int) -> sa.Select[Any]:
    """The one query of a day's leaderboard: ``game``'s results of ``day``, best first, ``limit``
    rows, read through ``ix_daily_results_board`` (`server.archive.schema.DAILY_BOARD_INDEX`)."""
    table = daily_results
    return (
        sa.select(*_COLUMNS)
        .where(table.c.day == day, table.c.game == game)
        .order_by(table.c.cleared.desc(), table.c.time_ms, table.c.race_code)
        .limit(limit)
    )


def daily_player_query(player_id: str, first_day: str, last_day: str) -> sa.Select[Any]:
    """The one query of a player's days from ``first_day`` to ``last_day`` (both included),
    newest first, read through ``ix_daily_results_player`` (`server.archive.schema.DAILY_PLAYER_INDEX`)."""
    table = daily_results
    return (
        sa.select(*_COLUMNS)
        .where(table.c.player_id == player_id, table.c.day >= first_day, table.c.day <= last_day)
        .order_by(table.c.day.desc(), table.c.game)
    )


def _result(row: Any) -> DailyResult:
    player, name, game, day, cleared, total, time_ms, status, race = row
    return DailyResult(player, name, game, day, cleared, total, time_ms, status, race)


class SqlDaily(Archive):
    """The daily methods over the engine `server.archive.sql.SqlArchive` holds."""

    dialect: str
    _ready: Callable[[], Awaitable[AsyncEngine]]
    _insert: Callable[[sa.Table], Any]

    async def put_daily_result(self, result: DailyResult, finished_ms: int) -> bool:
        """See `Archive.put_daily_result`: one upsert, its update guarded by the kept row's
        status and race."""
        engine = await self._ready()
        values = {
            "day": result.day,
            "game": result.game,
            "player_id": result.player,
            "name": result.name,
            "race_code": result.race,
            "cleared": result.cleared,
            "total": result.total,
            "time_ms": result.time_ms,
            "status": result.status,
            "finished_ms": finished_ms,
        }
        insert = self._insert(daily_results).values(**values)
        kept = ("name", "cleared", "total", "time_ms", "status", "finished_ms")
        upsert = insert.on_conflict_do_update(
            index_elements=[daily_results.c.day, daily_results.c.game, daily_results.c.player_id],
            set_={key: insert.excluded[key] for key in kept},
            where=sa.and_(daily_results.c.status == "playing", daily_results.c.race_code == insert.excluded.race_code),
        ).returning(daily_results.c.day)
        try:
            async with engine.begin() as connection:
                return (await connection.execute(upsert)).first() is not None
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot keep the daily result of {result.player}: {exc}") from exc

    async def daily_board(self, game: str, day: str, limit: int) -> list[DailyResult]:
        """See `Archive.daily_board` (`daily_board_query`)."""
        if limit < 1:
            raise ArchiveError(f"a daily leaderboard page holds at least one result (limit {limit})")
        return await self._daily_rows(daily_board_query(game, day, limit), f"the daily results of {game} on {day}")

    async def daily_of(self, player_id: str, first_day: str, last_day: str) -> list[DailyResult]:
        """See `Archive.daily_of` (`daily_player_query`)."""
        query = daily_player_query(player_id, first_day, last_day)
        return await self._daily_rows(query, f"the daily results of {player_id}")

    async def _daily_rows(self, query: sa.Select[Any], what: str) -> list[DailyResult]:
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                return [_result(row) for row in (await connection.execute(query)).all()]
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read {what}: {exc}") from exc

    async def kept_secret(self, name: str, fresh: str) -> str:
        """See `Archive.kept_secret`: an insert that does nothing when one is kept, then a read,
        in one transaction."""
        engine = await self._ready()
        insert = (
            self._insert(kept_secrets)
            .values(name=name, value=fresh, created_ms=int(time.time() * 1000))
            .on_conflict_do_nothing(index_elements=[kept_secrets.c.name])
        )
        try:
            async with engine.begin() as connection:
                await connection.execute(insert)
                kept = await connection.execute(sa.select(kept_secrets.c.value).where(kept_secrets.c.name == name))
                return str(kept.scalar_one())
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the kept secret {name!r}: {exc}") from exc

    async def explain_daily(self, query: sa.Select[Any]) -> str:
        """The database's plan for ``query`` (`daily_board_query` or `daily_player_query`;
        SQLite: ``EXPLAIN QUERY PLAN``, PostgreSQL: ``EXPLAIN``), one line per step: to check
        which index it reads."""
        engine = await self._ready()
        compiled = query.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True})
        prefix = "EXPLAIN QUERY PLAN " if self.dialect == "sqlite" else "EXPLAIN "
        async with engine.connect() as connection:
            plan = (await connection.exec_driver_sql(prefix + str(compiled))).all()
        return "\n".join(" ".join(str(part) for part in row) for row in plan)
