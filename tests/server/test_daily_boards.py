"""The daily challenge's week and all-time boards: the archive's running totals
(`Archive.daily_totals_board`, `Archive.daily_totals_among`) over memory, SQLite and a real
PostgreSQL (order, ties, paging, around a player, friends, a result counted once), their queries'
plans (each names ``ix_daily_totals_board``), the revision that fills them from the results
already kept, and the `leaderboard` request over a real server whose clock crosses days."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.ext.asyncio import create_async_engine

from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.archive import Archive, open_archive
from server.archive.daily_totals import decode_totals_cursor, week_key
from server.archive.schema import DAILY_TOTALS_INDEX, daily_results
from server.archive.sql import SqlArchive, _alembic_config, async_url
from server.archive.sql_daily import totals_page_query
from server.config import ServerConfig
from server.protocol import DailyResult
from tests.server.test_archive import archive, archive_url, every_backend, sql_backends
from tests.server.test_daily import HOUR_MS, NOON, DayClock, _played

__all__ = ["archive", "archive_url"]  # (fixtures, used by name)


def result(player: str, day: str, cleared: int, time_ms: int, *, status: str = "stuck") -> DailyResult:
    return DailyResult(player, f"name {player}", "golf", day, cleared, 52, time_ms, status, f"R{player}{day}")


def line(total) -> tuple[str, int, int, int]:
    return (total.player_id, total.cleared, total.time_ms, total.days)


def test_week_keys_are_iso_weeks_of_utc_days():
    assert week_key("2026-03-09") == week_key("2026-03-15") == "2026-W11"  # Monday to Sunday
    assert week_key("2026-03-16") == "2026-W12"
    assert week_key("2027-01-01") == "2026-W53"  # (ISO: the week's Thursday decides its year)


@every_backend
async def test_totals_are_summed_once_ordered_and_paged(archive: Archive):
    """Final results add to their week's and all time's totals (a playing row counts nothing, its
    final result once, a refused rewrite nothing); the board is cards desc, time asc, then player
    id; cursors page it without gaps or repeats; around a player and among friends."""
    playing = result("p1", "2026-03-10", 0, 0, status="playing")
    assert await archive.put_daily_result(playing, 1)
    assert await archive.daily_totals_board("golf", "all", limit=10) == ([], None)
    final = msgspec.structs.replace(playing, cleared=30, time_ms=9_000, status="won")
    assert await archive.put_daily_result(final, 2)
    assert not await archive.put_daily_result(final, 3)  # the same final word again: counted once
    assert not await archive.put_daily_result(msgspec.structs.replace(final, cleared=52), 3)
    for row in (
        result("p1", "2026-03-16", 10, 1_000),  # the next week
        result("p2", "2026-03-10", 40, 5_000),
        result("p3", "2026-03-11", 20, 2_000),
        result("p3", "2026-03-12", 20, 2_000),  # 40 cards in 4,000 ms: ahead of p2 on time
        result("p4", "2026-03-10", 40, 4_000),  # a tie with p3 (cards and time): by player id
        result("p5", "2026-03-10", 5, 100),
    ):
        assert await archive.put_daily_result(row, 5)
    week, _ = await archive.daily_totals_board("golf", "2026-W11", limit=10)
    assert [line(t) for t in week] == [
        ("p3", 40, 4_000, 2),
        ("p4", 40, 4_000, 1),
        ("p2", 40, 5_000, 1),
        ("p1", 30, 9_000, 1),
        ("p5", 5, 100, 1),
    ]
    everyone, cursor = await archive.daily_totals_board("golf", "all", limit=10)
    assert cursor is None
    assert [line(t) for t in everyone] == [
        ("p3", 40, 4_000, 2),
        ("p4", 40, 4_000, 1),
        ("p2", 40, 5_000, 1),
        ("p1", 40, 10_000, 2),
        ("p5", 5, 100, 1),
    ]
    assert [t.player_id for t in (await archive.daily_totals_board("golf", "2026-W12", limit=5))[0]] == ["p1"]
    assert (await archive.daily_totals_board("klondike", "all", limit=5))[0] == []
    paged: list[str] = []
    after = None
    for _ in range(5):
        page, after = await archive.daily_totals_board("golf", "all", after=after, limit=2)
        paged += [t.player_id for t in page]
        if after is None:
            break
    assert paged == ["p3", "p4", "p2", "p1", "p5"], "pages meet without gaps or repeats"
    assert decode_totals_cursor((await archive.daily_totals_board("golf", "all", limit=1))[1] or "") == (
        40,
        4_000,
        "p3",
    )
    around, cursor = await archive.daily_totals_board("golf", "all", around="p2", limit=3)
    assert [t.player_id for t in around] == ["p4", "p2", "p1"] and cursor is not None
    assert [t.player_id for t in (await archive.daily_totals_board("golf", "all", after=cursor, limit=3))[0]] == ["p5"]
    top, _ = await archive.daily_totals_board("golf", "all", around="p3", limit=3)
    assert [t.player_id for t in top] == ["p3", "p4", "p2"]  # nobody above: it leads the page
    assert await archive.daily_totals_board("golf", "all", around="p9", limit=3) == ([], None)
    among = await archive.daily_totals_among("golf", "2026-W11", ["p5", "p1", "p4", "p9"])
    assert [t.player_id for t in among] == ["p4", "p1", "p5"]
    assert await archive.daily_totals_among("golf", "2026-W11", []) == []


@every_backend
async def test_a_void_result_is_kept_but_on_no_board_and_in_no_totals(archive: Archive):
    """A void attempt (its race lost acknowledged moves) replaces its ``playing`` row and stays in
    its player's days, but the day's board and the totals leave it out."""
    assert await archive.put_daily_result(result("p1", "2026-03-10", 0, 0, status="playing"), 1)
    assert await archive.put_daily_result(result("p1", "2026-03-10", 12, 3_000, status="void"), 2)
    assert await archive.put_daily_result(result("p2", "2026-03-10", 5, 900), 2)
    assert [(r.player, r.status) for r in await archive.daily_board("golf", "2026-03-10", 5)] == [("p2", "stuck")]
    assert [r.status for r in await archive.daily_of("p1", "2026-03-10", "2026-03-10")] == ["void"]
    board, _ = await archive.daily_totals_board("golf", "all", limit=5)
    assert [line(t) for t in board] == [("p2", 5, 900, 1)]


@every_backend
async def test_forgetting_a_player_removes_its_totals(archive: Archive):
    for player in ("p1", "p2"):
        assert await archive.put_player(player, player, f"digest-{player}", 1)
        assert await archive.put_daily_result(result(player, "2026-03-10", 30, 1_000), 5)
    await archive.forget_player("p1", "deleted player")
    for period in ("2026-W11", "all"):
        assert [t.player_id for t in (await archive.daily_totals_board("golf", period, limit=5))[0]] == ["p2"]
    assert await archive.daily_totals_among("golf", "all", ["p1"]) == []


@sql_backends
async def test_the_totals_queries_read_their_index(archive: SqlArchive):
    """EXPLAIN of a board's first page, of a page after a cursor and of the rows above a player
    names ix_daily_totals_board, never a scan of the table; the first page sorts nothing. On
    PostgreSQL over 50,000 analysed rows, so that the planner weighs a real table."""
    for n in range(40):
        await archive.put_daily_result(result(f"p{n}", f"2026-03-{n % 28 + 1:02d}", n % 7, n * 10), 1)
    if archive.dialect == "postgresql":
        engine = await archive._ready()
        async with engine.begin() as connection:
            await connection.exec_driver_sql(
                "INSERT INTO daily_totals (game, period, player_id, cards, time_ms, days)"
                " SELECT 'golf', 'all', 'bulk' || n, n % 500, n, 1 FROM generate_series(1, 50000) AS n"
            )
            await connection.exec_driver_sql("ANALYZE daily_totals")
    for query in (
        totals_page_query("golf", "all", None, 21),
        totals_page_query("golf", "all", (3, 500, "p9"), 21),
        totals_page_query("golf", "all", (3, 500, "p9"), 10, upward=True),
    ):
        plan = await archive.explain_daily(query)
        assert DAILY_TOTALS_INDEX in plan, plan
        assert "Seq Scan" not in plan and "SCAN daily_totals" not in plan.replace("USING INDEX", ""), plan
    first = await archive.explain_daily(totals_page_query("golf", "all", None, 21))
    assert "TEMP B-TREE" not in first.upper() and "Sort" not in first, first


@sql_backends
async def test_an_archive_at_0010_gets_totals_of_its_daily_results(archive_url: str):
    """An archive written before the totals (its daily results kept) is brought up to date on
    open: the revision sums its final results per week and all time, the playing ones not."""
    url = async_url(archive_url)
    if url.get_backend_name() == "sqlite":
        Path(url.database or "").parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(lambda sync: command.upgrade(_alembic_config(sync), "0010"))
        for row in (
            result("p1", "2026-03-10", 30, 1_000),
            result("p1", "2026-03-16", 20, 2_000),
            result("p2", "2026-03-11", 45, 9_000),
            result("p3", "2026-03-11", 0, 0, status="playing"),
        ):
            values = {f: getattr(row, f) for f in ("game", "day", "name", "cleared", "total", "time_ms", "status")}
            await connection.execute(
                sa.insert(daily_results).values(player_id=row.player, race_code=row.race, finished_ms=1, **values)
            )
    await engine.dispose()
    kept = open_archive(archive_url)
    await kept.open()
    try:
        assert isinstance(kept, SqlArchive) and kept.upgraded_from == "0010"
        assert [line(t) for t in (await kept.daily_totals_board("golf", "all", limit=5))[0]] == [
            ("p1", 50, 3_000, 2),
            ("p2", 45, 9_000, 1),
        ]
        week, _ = await kept.daily_totals_board("golf", "2026-W11", limit=5)
        assert [line(t) for t in week] == [("p2", 45, 9_000, 1), ("p1", 30, 1_000, 1)]
        assert await kept.put_daily_result(result("p2", "2026-03-12", 5, 1_000), 2)  # and kept up after
        assert line((await kept.daily_totals_among("golf", "all", ["p2"]))[0]) == ("p2", 50, 10_000, 2)
    finally:
        await kept.close()


@pytest.fixture
async def boards_server(tmp_path):
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, idle_timeout_s=None, password_per_s=20.0)
    async with ArenaServer(config, clock=DayClock(NOON)) as server:
        yield server


async def test_the_leaderboard_request_serves_week_and_all_time_boards(boards_server):
    """Three players play golf's daily (resigning: cards 0, time 0, so the order is by player
    id) on two days of one week: the week's and all time's boards list them with 2 days each,
    page by cursor, centre on the asker, and list the asker's friends; a day's board still
    refuses other views, and a forged cursor is refused."""
    server, clock = boards_server, boards_server.clock
    assert isinstance(clock, DayClock)
    clients = [await ArenaClient.connect(server.url, name) for name in ("ann", "bob", "cid")]
    try:
        for client in clients:
            await client.claim("correct horse battery")
        for _ in range(2):
            for client in clients:
                code = await _played(client, "golf")
                await client.wait_for(lambda code=code, client=client: code in client.finished, timeout_s=5)
            clock.jump(24 * HOUR_MS)
        assert server.archiver is not None
        archive = server.archiver.archive
        for _ in range(100):  # (the archiver writes the results soon after each race)
            totals = await archive.daily_totals_among("golf", "all", [c.player for c in clients])
            if [t.days for t in totals] == [2, 2, 2]:
                break
            await asyncio.sleep(0.05)
        ann, bob, cid = clients
        ids = sorted((c.player, c.name) for c in clients)
        for period in ("week", "all"):
            page = await bob.leaderboard("golf", board="daily", period=period, day="2026-03-11")
            assert [(r.player, r.name, r.claimed, r.races, r.status) for r in page.rows] == [
                (pid, name, True, 2, None) for pid, name in ids
            ]
            assert page.board == "daily" and page.cursor is None
        first = await bob.leaderboard("golf", board="daily", period="all", limit=2)
        assert [r.player for r in first.rows] == [pid for pid, _ in ids[:2]] and first.cursor
        rest = await bob.leaderboard("golf", board="daily", period="all", limit=2, after=first.cursor)
        assert [r.player for r in rest.rows] == [ids[2][0]] and rest.cursor is None
        middle = ids[1][0]
        asker = next(c for c in clients if c.player == middle)
        around = await asker.leaderboard("golf", board="daily", period="all", view="around_me", limit=1)
        assert [r.player for r in around.rows] == [middle]
        this_week = await ann.leaderboard("golf", board="daily", period="week")  # (today: Thursday 2026-03-12)
        assert [r.player for r in this_week.rows] == [pid for pid, _ in ids]
        assert await archive.follow(ann.player, cid.player, 1)
        friends = await ann.leaderboard("golf", board="daily", period="all", view="friends")
        assert sorted(r.player for r in friends.rows) == sorted([ann.player, cid.player])
        for kwargs, code in (
            ({"period": "day", "view": "around_me"}, "not_allowed"),
            ({"period": "all", "after": "zz/forged"}, "bad_field"),
        ):
            with pytest.raises(ArenaError) as refused:
                await ann.leaderboard("golf", board="daily", **kwargs)
            assert refused.value.code == code
    finally:
        for client in clients:
            await client.close()
