"""The daily challenge's results and the kept secrets in SQL: `SqlDaily`, the daily part of
`server.archive.Archive` that `server.archive.sql.SqlArchive` takes (a mixin), and the queries it
reads through its indexes (`daily_board_query`, `daily_player_query`).

Tables: `server.archive.schema.daily_results` and ``kept_secrets``. A day's leaderboard is one
range of ``ix_daily_results_board`` ``(day, game, cleared DESC, time_ms, race_code)``, read in
its order up to the page's limit; a player's days (its calendar month, the days its streak counts)
one range of ``ix_daily_results_player`` ``(player_id, day DESC, game)``. A result is written with
one upsert that replaces only an attempt still ``playing`` (`server.archive.daily_replaces`); a
final one adds itself to its week's and all time's ``daily_totals`` in the same transaction, read
as ranges of ``ix_daily_totals_board`` (`totals_page_query`).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from server.archive import DAILY_VOID, Archive, ArchiveError, daily_counted
from server.archive.daily_totals import DailyTotal, decode_totals_cursor, encode_totals_cursor, periods_of_day
from server.archive.schema import daily_results, daily_totals, kept_secrets
from server.protocol import DailyResult

__all__ = [
    "SqlDaily",
    "count_daily_totals",
    "daily_board_query",
    "daily_player_query",
    "forget_daily_totals",
    "totals_page_query",
]

_TOTALS = (
    daily_totals.c.player_id,
    daily_totals.c.game,
    daily_totals.c.period,
    daily_totals.c.cards,
    daily_totals.c.time_ms,
    daily_totals.c.days,
)

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
    """The one query of a day's leaderboard: ``game``'s results of ``day`` that are not void, best
    first, ``limit`` rows, read through ``ix_daily_results_board`` (`server.archive.schema.DAILY_BOARD_INDEX`)."""
    table = daily_results
    return (
        sa.select(*_COLUMNS)
        .where(table.c.day == day, table.c.game == game, table.c.status != DAILY_VOID)
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


def totals_page_query(
    game: str, period: str, key: tuple[int, int, str] | None, limit: int, *, upward: bool = False
) -> sa.Select[Any]:
    """The one query of a week's or all time's board page: ``game``'s totals of ``period`` below
    the key ``key`` (``(cards, time_ms, player_id)`` of the row before; None: from the top), best
    first, ``limit`` rows; ``upward``: the rows above ``key`` instead, nearest first. Read through
    ``ix_daily_totals_board`` (`server.archive.schema.DAILY_TOTALS_INDEX`): from the top, one
    range in its order; from a key, the key's ties (an equal ``cards``, then ``(time_ms,
    player_id)`` past the key's) and the rows beyond its ``cards``, each a range of at most
    ``limit`` entries, merged (at most ``2 * limit`` rows sorted)."""
    table = daily_totals
    mine = sa.and_(table.c.game == game, table.c.period == period)
    if key is None:
        assert not upward
        order = (table.c.cards.desc(), table.c.time_ms, table.c.player_id)
        return sa.select(*_TOTALS).where(mine).order_by(*order).limit(limit)
    cards, time_ms, player_id = key
    rest = sa.tuple_(table.c.time_ms, table.c.player_id)
    if upward:
        ties = sa.select(*_TOTALS).where(mine, table.c.cards == cards, rest < sa.tuple_(time_ms, player_id))
        ties = ties.order_by(table.c.time_ms.desc(), table.c.player_id.desc()).limit(limit)
        beyond = sa.select(*_TOTALS).where(mine, table.c.cards > cards)
        beyond = beyond.order_by(table.c.cards, table.c.time_ms.desc(), table.c.player_id.desc()).limit(limit)
    else:
        ties = sa.select(*_TOTALS).where(mine, table.c.cards == cards, rest > sa.tuple_(time_ms, player_id))
        ties = ties.order_by(table.c.time_ms, table.c.player_id).limit(limit)
        beyond = sa.select(*_TOTALS).where(mine, table.c.cards < cards)
        beyond = beyond.order_by(table.c.cards.desc(), table.c.time_ms, table.c.player_id).limit(limit)
    both = sa.union_all(sa.select(ties.subquery()), sa.select(beyond.subquery())).subquery()
    c = both.c
    merged: tuple[Any, ...] = (
        (c.cards, c.time_ms.desc(), c.player_id.desc()) if upward else (c.cards.desc(), c.time_ms, c.player_id)
    )
    return sa.select(c.player_id, c.game, c.period, c.cards, c.time_ms, c.days).order_by(*merged).limit(limit)


def _total(row: Any) -> DailyTotal:
    player_id, game, period, cards, time_ms, days = row
    return DailyTotal(player_id, game, period, cards, time_ms, days)


async def count_daily_totals(
    connection: AsyncConnection, insert: Callable[[sa.Table], Any], result: DailyResult
) -> None:
    """Add a final ``result`` to its week's and all time's totals, in ``connection``'s
    transaction (one upsert per period)."""
    for period in periods_of_day(result.day):
        row = insert(daily_totals).values(
            game=result.game,
            period=period,
            player_id=result.player,
            cards=result.cleared,
            time_ms=result.time_ms,
            days=1,
        )
        await connection.execute(
            row.on_conflict_do_update(
                index_elements=[daily_totals.c.game, daily_totals.c.period, daily_totals.c.player_id],
                set_={
                    "cards": daily_totals.c.cards + row.excluded.cards,
                    "time_ms": daily_totals.c.time_ms + row.excluded.time_ms,
                    "days": daily_totals.c.days + row.excluded.days,
                },
            )
        )


async def forget_daily_totals(connection: AsyncConnection, player_id: str) -> None:
    """Delete ``player_id``'s totals in ``connection``'s transaction (`Archive.forget_player`):
    its days are read through ``ix_daily_results_player``, then each total is deleted by primary
    key (no scan of the totals)."""
    days = sa.select(daily_results.c.day, daily_results.c.game).where(daily_results.c.player_id == player_id)
    keys = {(game, period) for day, game in (await connection.execute(days)).all() for period in periods_of_day(day)}
    for game, period in keys:
        await connection.execute(
            sa.delete(daily_totals).where(
                daily_totals.c.game == game, daily_totals.c.period == period, daily_totals.c.player_id == player_id
            )
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
                if (await connection.execute(upsert)).first() is None:
                    return False
                if daily_counted(result):
                    await count_daily_totals(connection, self._insert, result)
                return True
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

    async def daily_totals_board(
        self, game: str, period: str, *, after: str | None = None, around: str | None = None, limit: int
    ) -> tuple[list[DailyTotal], str | None]:
        """See `Archive.daily_totals_board` (`totals_page_query`): from the top or a cursor, one
        query; around a player, its row by primary key, then the page above it and the page from
        it down."""
        if limit < 1:
            raise ArchiveError(f"a daily board page holds at least one player (limit {limit})")
        if after is not None and around is not None:
            raise ArchiveError("a daily board page starts after a cursor or around a player, not both")
        try:
            key = None if after is None else decode_totals_cursor(after)
        except ValueError as exc:
            raise ArchiveError(str(exc)) from None
        engine = await self._ready()
        above: list[DailyTotal] = []
        try:
            async with engine.connect() as connection:
                if around is not None:
                    table = daily_totals
                    query = sa.select(*_TOTALS).where(
                        table.c.game == game, table.c.period == period, table.c.player_id == around
                    )
                    mine = (await connection.execute(query)).first()
                    if mine is None:
                        return [], None
                    key = (mine.cards, mine.time_ms, mine.player_id)
                    if limit // 2:
                        query = totals_page_query(game, period, key, limit // 2, upward=True)
                        above = [_total(row) for row in (await connection.execute(query)).all()][::-1]
                    above.append(_total(mine))
                found = (await connection.execute(totals_page_query(game, period, key, limit - len(above) + 1))).all()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the {game} daily board of {period}: {exc}") from exc
        rows = [_total(row) for row in found]
        room = limit - len(above)
        page = above + rows[:room]
        return page, (encode_totals_cursor(page[-1]) if len(rows) > room and page else None)

    async def daily_totals_among(self, game: str, period: str, player_ids: list[str]) -> list[DailyTotal]:
        """See `Archive.daily_totals_among`."""
        if not player_ids:
            return []
        table = daily_totals
        query = (
            sa.select(*_TOTALS)
            .where(table.c.game == game, table.c.period == period, table.c.player_id.in_(player_ids))
            .order_by(table.c.cards.desc(), table.c.time_ms, table.c.player_id)
        )
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                return [_total(row) for row in (await connection.execute(query)).all()]
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the {game} daily totals of {period}: {exc}") from exc

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
        """The database's plan for ``query`` (`daily_board_query`, `daily_player_query` or
        `totals_page_query`;
        SQLite: ``EXPLAIN QUERY PLAN``, PostgreSQL: ``EXPLAIN``), one line per step: to check
        which index it reads."""
        engine = await self._ready()
        compiled = query.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True})
        prefix = "EXPLAIN QUERY PLAN " if self.dialect == "sqlite" else "EXPLAIN "
        async with engine.connect() as connection:
            plan = (await connection.exec_driver_sql(prefix + str(compiled))).all()
        return "\n".join(" ".join(str(part) for part in row) for row in plan)
