"""The archive's daily challenge methods (`put_daily_result`, `daily_board`, `daily_of`,
`kept_secret`) over memory, SQLite and a real PostgreSQL, and the plans of their two reading
queries (each names its index)."""

from __future__ import annotations

import asyncio

import msgspec

from server.archive import Archive
from server.archive.schema import DAILY_BOARD_INDEX, DAILY_PLAYER_INDEX
from server.archive.sql import SqlArchive
from server.archive.sql_daily import daily_board_query, daily_player_query
from server.protocol import DailyResult
from tests.server.test_archive import archive, archive_url, every_backend, sql_backends

__all__ = ["archive", "archive_url"]  # (fixtures, used by name)


def result(
    player: str, day: str, cleared: int, time_ms: int, *, game: str = "golf", status: str = "won"
) -> DailyResult:
    return DailyResult(
        player=player,
        name=f"name {player}",
        game=game,
        day=day,
        cleared=cleared,
        total=52,
        time_ms=time_ms,
        status=status,
        race=f"R{player}{day[-2:]}{game[:2]}",
    )


@every_backend
async def test_daily_results_are_kept_once_and_read_by_day_and_by_player(archive: Archive):
    """A playing row is replaced by its final result, a final result never; a day's board is best
    first (cleared desc, time asc) and limited; a player's days are a range, newest first."""
    playing = result("p1", "2026-03-10", 0, 0, status="playing")
    assert await archive.put_daily_result(playing, 1_000)
    final = msgspec.structs.replace(playing, cleared=30, time_ms=9_000, status="stuck")
    assert await archive.put_daily_result(final, 2_000)
    assert not await archive.put_daily_result(playing, 3_000), "a final result is not replaced"
    assert not await archive.put_daily_result(msgspec.structs.replace(final, cleared=52), 3_000)
    for row in (
        result("p2", "2026-03-10", 30, 5_000),
        result("p3", "2026-03-10", 52, 60_000),
        result("p4", "2026-03-10", 10, 1_000),
        result("p5", "2026-03-10", 52, 1_000, game="klondike"),
        result("p1", "2026-03-09", 52, 1_000),
        result("p1", "2026-03-09", 20, 1_000, game="klondike"),
        result("p1", "2026-02-28", 20, 1_000),
    ):
        assert await archive.put_daily_result(row, 5_000)
    board = await archive.daily_board("golf", "2026-03-10", 3)
    assert [(r.player, r.cleared, r.time_ms) for r in board] == [
        ("p3", 52, 60_000),
        ("p2", 30, 5_000),
        ("p1", 30, 9_000),
    ]
    assert board[2] == final
    assert [r.player for r in await archive.daily_board("klondike", "2026-03-10", 10)] == ["p5"]
    days = await archive.daily_of("p1", "2026-03-01", "2026-03-31")
    assert [(r.day, r.game) for r in days] == [
        ("2026-03-10", "golf"),
        ("2026-03-09", "golf"),
        ("2026-03-09", "klondike"),
    ]
    assert await archive.daily_of("p9", "2026-03-01", "2026-03-31") == []


@every_backend
async def test_the_first_kept_secret_stays(archive: Archive):
    """kept_secret keeps the first value offered: later (and concurrent) offers get it back."""
    first = await archive.kept_secret("daily", "a" * 64)
    assert first == "a" * 64
    assert await archive.kept_secret("daily", "b" * 64) == first
    together = await asyncio.gather(*(archive.kept_secret("other", f"{n}" * 64) for n in range(4)))
    assert len(set(together)) == 1


@sql_backends
async def test_the_daily_queries_read_their_indexes(archive: SqlArchive):
    """EXPLAIN of a day's leaderboard names ix_daily_results_board, of a player's days (its
    calendar month, its streak's days) ix_daily_results_player, and neither sorts (the index
    gives the order); on PostgreSQL over 20,000 analysed rows, so that the planner weighs a
    real table."""
    for n in range(40):
        await archive.put_daily_result(result(f"p{n % 5}", f"2026-03-{n % 28 + 1:02d}", n, n * 10), 1_000)
    if archive.dialect == "postgresql":
        engine = await archive._ready()
        async with engine.begin() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO daily_results (day, game, player_id, name, race_code, cleared, total, time_ms,"
                " status, finished_ms) SELECT to_char(DATE '2020-01-01' + (n / 20), 'YYYY-MM-DD'), 'golf',"
                " 'player' || (n % 20), 'n', 'B' || n, n % 52, 52, n, 'won', n FROM generate_series(1, 20000) AS n"
            )
            await connection.exec_driver_sql("ANALYZE daily_results")
    board = await archive.explain_daily(daily_board_query("golf", "2026-03-10", 20))
    assert DAILY_BOARD_INDEX in board, board
    assert "TEMP B-TREE" not in board.upper() and "Sort" not in board, board
    days = await archive.explain_daily(daily_player_query("p1", "2026-03-01", "2026-03-31"))
    assert DAILY_PLAYER_INDEX in days, days
    assert "TEMP B-TREE" not in days.upper() and "Sort" not in days, days
