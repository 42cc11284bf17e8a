"""The archive's contract (`server.archive.Archive`), over every backend: memory, SQLite (a file)
and a real PostgreSQL (`postgres_server`, tests/conftest.py): round trips, idempotent writes
(concurrent ones too), history pages (races and tournaments) newest first by cursor, retention,
a schema ahead of the code refused, an archive that kept tournaments before their history lines
upgraded, and the history queries read through their indexes (the database's own plan)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import msgspec
import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.ext.asyncio import create_async_engine

from server.archive import Archive, ArchiveError, open_archive
from server.archive.schema import HISTORY_INDEX, TOURNAMENT_HISTORY_INDEX, VERSION_TABLE
from server.archive.schema import tournaments as tournaments_table
from server.archive.sql import SqlArchive, _alembic_config, async_url
from server.protocol import (
    DealScore,
    EntrantRecord,
    Par,
    RaceInfo,
    RaceRecord,
    Standing,
    TournamentInfo,
    TournamentStanding,
)

BACKENDS = ["memory", "sqlite", "postgresql"]


@pytest.fixture
def archive_url(request, tmp_path):
    """A URL of an empty archive of the backend ``request.param``."""
    kind = request.param
    if kind == "memory":
        return "memory://"
    if kind == "sqlite":
        return f"sqlite:///{tmp_path}/archive/races.db"
    server = request.getfixturevalue("postgres_server")
    return server.create_database(f"archive_{uuid.uuid4().hex[:12]}")


@pytest.fixture
async def archive(archive_url):
    kept = open_archive(archive_url)
    await kept.open()
    yield kept
    await kept.close()


def every_backend(test):
    return pytest.mark.parametrize("archive_url", BACKENDS, indirect=True)(test)


def sql_backends(test):
    return pytest.mark.parametrize("archive_url", ["sqlite", "postgresql"], indirect=True)(test)


def record(code: str, players: list[str], *, par: bool = True, tournament: str | None = None) -> RaceRecord:
    """A finished race's record: ``players`` placed in that order, each with a few moves."""
    info = RaceInfo(
        code=code,
        game="klondike",
        options={"draw3": True},
        rules_version=2,
        deal_version=1,
        creator=players[0],
        entrants=players,
        max_entrants=8,
        countdown_s=5,
        time_limit_s=600,
        status="finished",
        seed=123456789012,
        commitment="ab" * 32,
        starts_at_ms=1_700_000_000_000,
        version=41,
        par=Par(result="won", best_cleared=52, total=52, nodes=9000, seconds=0.25) if par else None,
        tournament=tournament,
        deal=0 if tournament else None,
    )
    entrants = [
        EntrantRecord(player=p, name=f"name {p}", moves=["t1-f1", "s-w"], times_ms=[800, 1500 + i], status="stuck")
        for i, p in enumerate(players)
    ]
    standings = [
        Standing(
            place=i + 1,
            player=p,
            name=f"name {p}",
            cleared=30 - i,
            total=52,
            time_ms=90_000 + i,
            moves=2,
            status="won" if i == 0 else "stuck",
            order=i,
            points=30 - i,
        )
        for i, p in enumerate(players)
    ]
    return RaceRecord(
        req=9,
        race=info,
        seed=123456789012,
        salt="cd" * 16,
        commitment="ab" * 32,
        entrants=entrants,
        standings=standings,
    )


def tournament(tid: str, players: tuple[str, ...] = ("p1", "p2")) -> tuple[TournamentInfo, list[TournamentStanding]]:
    """An ended two-deal tournament: ``players[0]`` won both deals; any further players were absent."""
    info = TournamentInfo(
        id=tid,
        name="Friday cup",
        game="freecell",
        options={},
        rules_version=1,
        deal_version=1,
        format="rounds",
        deals=2,
        deal_time_limit_s=300,
        max_entrants=16,
        registered=list(players),
        status="finished",
        registration_opens_ms=1_000,
        starts_at_ms=2_000,
        ends_at_ms=9_000,
        schedule=None,
        timezone="Europe/Paris",
        current_deal=None,
        races=["R1", "R2"],
        commitments=["aa" * 32, "bb" * 32],
        seeds=[1, 2],
        salts=["s1", "s2"],
        version=12,
    )
    standings = [
        TournamentStanding(
            place=1,
            player=players[0],
            name="ada",
            cleared=104,
            time_ms=400_000,
            deals=[DealScore(race="R1", cleared=52, time_ms=200_000, status="won")] * 2,
            status="finished",
            order=0,
        ),
    ] + [
        TournamentStanding(
            place=i + 2, player=p, name=f"n{p}", cleared=3, time_ms=0, deals=[], status="absent", order=i + 1
        )
        for i, p in enumerate(players[1:])
    ]
    return info, standings


async def count_rows(url: str, table: str, code: str) -> int:
    """Rows of ``table`` (races or race_entrants) for race ``code``, read by a connection of
    the test's own."""
    engine = create_async_engine(async_url(url))
    column = "code" if table == "races" else "race_code"
    try:
        async with engine.connect() as connection:
            query = sa.text(f"SELECT count(*) FROM {table} WHERE {column} = :code")
            return (await connection.execute(query, {"code": code})).scalar_one()
    finally:
        await engine.dispose()


@every_backend
async def test_a_race_comes_back_as_it_was_written(archive: Archive):
    kept = record("ABCD", ["p1", "p2", "p3"])
    assert await archive.put_race(kept, 1_700_000_100_000) is True
    assert await archive.get_race("ABCD") == msgspec.structs.replace(kept, req=0)
    assert await archive.get_race("NONE") is None
    no_par = record("EFGH", ["p1"], par=False, tournament="T1")
    assert await archive.put_race(no_par, 1_700_000_200_000)
    assert await archive.get_race("EFGH") == msgspec.structs.replace(no_par, req=0)
    rows, cursor = await archive.races_of("p2", before=None, limit=10)
    assert cursor is None
    assert [(r.code, r.game, r.standing, r.entrants, r.cleared, r.total, r.time_ms, r.status, r.par) for r in rows] == [
        ("ABCD", "klondike", 2, 3, 29, 52, 90_001, "stuck", "won")
    ]
    rows, _ = await archive.races_of("p1", before=None, limit=10)
    assert [(r.code, r.finished_ms, r.par) for r in rows] == [
        ("EFGH", 1_700_000_200_000, None),
        ("ABCD", 1_700_000_100_000, "won"),
    ]


@every_backend
async def test_a_race_is_kept_once_however_often_it_is_written(archive: Archive, archive_url: str):
    first = record("DUPE", ["p1", "p2"])
    assert await archive.put_race(first, 5_000) is True
    assert await archive.put_race(first, 5_000) is False
    assert await archive.put_race(record("DUPE", ["p9"]), 6_000) is False  # another node's copy changes nothing
    # two nodes taking the same race over at once: exactly one write lands
    racing = record("RACE", ["p1"])
    assert sorted(await asyncio.gather(*(archive.put_race(racing, 7_000) for _ in range(6)))) == [False] * 5 + [True]
    assert await archive.get_race("DUPE") == msgspec.structs.replace(first, req=0)
    rows, _ = await archive.races_of("p1", before=None, limit=10)
    assert [r.code for r in rows] == ["RACE", "DUPE"]
    assert (await archive.races_of("p9", before=None, limit=10)) == ([], None)
    if archive_url != "memory://":
        assert await count_rows(archive_url, "races", "DUPE") == 1
        assert await count_rows(archive_url, "race_entrants", "DUPE") == 2
        assert await count_rows(archive_url, "races", "RACE") == 1


@every_backend
async def test_history_pages_go_newest_first_and_never_repeat(archive: Archive):
    written = []
    for i in range(23):
        ms = 10_000 + (i // 3) * 1_000  # three races share each finish time: the code breaks ties
        code = f"R{i:03d}"
        players = ["p1", "other"] if i % 2 else ["other", "p1"]
        await archive.put_race(record(code, players), ms)
        written.append((ms, code))
    await archive.put_race(record("ELSE", ["other"]), 99_000)
    seen, cursor, pages = [], None, 0
    while True:
        rows, cursor = await archive.races_of("p1", before=cursor, limit=5)
        pages += 1
        assert 1 <= len(rows) <= 5
        seen += [(r.finished_ms, r.code) for r in rows]
        assert all(r.standing == (2 if int(r.code[1:]) % 2 == 0 else 1) for r in rows)
        if cursor is None:
            break
    assert pages == 5
    assert seen == sorted(written, reverse=True)
    rows, cursor = await archive.races_of("p1", before=None, limit=23)
    assert len(rows) == 23 and cursor is None
    assert await archive.races_of("nobody", before=None, limit=5) == ([], None)
    with pytest.raises(ArchiveError):
        await archive.races_of("p1", before="not a cursor", limit=5)
    with pytest.raises(ArchiveError):
        await archive.races_of("p1", before=None, limit=0)


@every_backend
async def test_a_tournament_comes_back_as_it_was_written(archive: Archive):
    info, standings = tournament("T42")
    assert await archive.put_tournament("T42", info, standings, 9_000) is True
    assert await archive.put_tournament("T42", info, [], 9_500) is False
    assert await archive.get_tournament("T42") == (info, standings)
    assert await archive.get_tournament("T43") is None


def tournament_line(row) -> tuple:
    return (
        row.tournament,
        row.title,
        row.game,
        row.format,
        row.deals,
        row.finished_ms,
        row.outcome,
        row.place,
        row.entrants,
        row.cleared,
        row.time_ms,
        row.status,
    )


@every_backend
async def test_a_players_tournaments_page_newest_first_once_each_and_go_with_retention(
    archive: Archive, archive_url: str
):
    info, standings = tournament("T1", ("p1", "p2", "p3"))
    assert await archive.put_tournament("T1", info, standings, 9_000) is True
    assert await archive.put_tournament("T1", info, standings[:1], 9_500) is False  # written once
    rows, cursor = await archive.tournaments_of("p2", before=None, limit=10)
    assert cursor is None
    assert [tournament_line(r) for r in rows] == [
        ("T1", "Friday cup", "freecell", "rounds", 2, 9_000, "finished", 2, 3, 3, 0, "absent")
    ]
    rows, _ = await archive.tournaments_of("p1", before=None, limit=10)
    assert [(r.tournament, r.place, r.cleared, r.time_ms, r.status) for r in rows] == [
        ("T1", 1, 104, 400_000, "finished")
    ]
    assert await archive.tournaments_of("p9", before=None, limit=10) == ([], None)
    assert await archive.races_of("p1", before=None, limit=10) == ([], None)  # races are another list

    written = [(9_000, "T1")]
    for i in range(11):
        ms = 10_000 + (i // 3) * 1_000  # three share each end time: the id breaks ties
        tid = f"U{i:02d}"
        info, standings = tournament(tid, ("p1", "p2") if i % 2 else ("p2", "p1"))
        await archive.put_tournament(tid, info, standings, ms)
        written.append((ms, tid))
    seen, cursor, pages = [], None, 0
    while True:
        rows, cursor = await archive.tournaments_of("p2", before=cursor, limit=5)
        pages += 1
        seen += [(r.finished_ms, r.tournament) for r in rows]
        assert all(
            r.place == (1 if r.tournament.startswith("U") and int(r.tournament[1:]) % 2 == 0 else 2) for r in rows
        )
        if cursor is None:
            break
    assert pages == 3 and seen == sorted(written, reverse=True)
    with pytest.raises(ArchiveError):
        await archive.tournaments_of("p2", before="not a cursor", limit=5)
    with pytest.raises(ArchiveError):
        await archive.tournaments_of("p2", before=None, limit=0)

    assert await archive.forget_before(11_000) == 0  # no races; the tournaments before go with their lines
    rows, _ = await archive.tournaments_of("p2", before=None, limit=20)
    assert [r.tournament for r in rows] == ["U10", "U09", "U08", "U07", "U06", "U05", "U04", "U03"]
    assert await archive.get_tournament("T1") is None and await archive.get_tournament("U03") is not None
    assert await archive.tournaments_of("p3", before=None, limit=5) == ([], None)
    if archive_url != "memory://":
        engine = create_async_engine(async_url(archive_url))
        async with engine.connect() as connection:
            left = (await connection.execute(sa.text("SELECT count(*) FROM tournament_entrants"))).scalar_one()
        await engine.dispose()
        assert left == 16  # 8 tournaments, 2 players each


@sql_backends
async def test_an_archive_at_0002_keeping_tournaments_gets_their_history_lines(archive_url: str):
    """An archive written before revision 0003 (its tournaments kept, no history lines) is
    brought up to date on open, and lists those tournaments in its players' histories."""
    url = async_url(archive_url)
    if url.get_backend_name() == "sqlite":
        Path(url.database or "").parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(lambda sync: command.upgrade(_alembic_config(sync), "0002"))
        for tid, ms in (("OLD1", 5_000), ("OLD2", 6_000)):
            info, standings = tournament(tid, ("p1", "p2"))
            await connection.execute(
                tournaments_table.insert().values(
                    id=tid,
                    finished_ms=ms,
                    info=msgspec.msgpack.encode(info),
                    standings=msgspec.msgpack.encode(standings),
                )
            )
    await engine.dispose()
    archive = open_archive(archive_url)
    await archive.open()
    try:
        assert isinstance(archive, SqlArchive) and archive.upgraded_from == "0002"
        rows, cursor = await archive.tournaments_of("p2", before=None, limit=10)
        assert cursor is None
        assert [tournament_line(r) for r in rows] == [
            ("OLD2", "Friday cup", "freecell", "rounds", 2, 6_000, "finished", 2, 2, 3, 0, "absent"),
            ("OLD1", "Friday cup", "freecell", "rounds", 2, 5_000, "finished", 2, 2, 3, 0, "absent"),
        ]
        info, standings = tournament("NEW", ("p2",))
        assert await archive.put_tournament("NEW", info, standings, 7_000) is True
        rows, _ = await archive.tournaments_of("p2", before=None, limit=10)
        assert [(r.tournament, r.place) for r in rows] == [("NEW", 1), ("OLD2", 2), ("OLD1", 2)]
    finally:
        await archive.close()


@every_backend
async def test_forget_before_removes_only_what_finished_earlier(archive: Archive):
    for i in range(6):
        await archive.put_race(record(f"F{i}", ["p1", "p2"]), 1_000 * (i + 1))
    info, standings = tournament("OLD")
    await archive.put_tournament("OLD", info, standings, 2_500)
    await archive.put_tournament("NEW", info, standings, 4_500)
    assert await archive.forget_before(3_500) == 3
    assert [await archive.get_race(f"F{i}") is None for i in range(6)] == [True] * 3 + [False] * 3
    rows, _ = await archive.races_of("p2", before=None, limit=10)
    assert [r.code for r in rows] == ["F5", "F4", "F3"]
    assert await archive.get_tournament("OLD") is None
    assert await archive.get_tournament("NEW") is not None
    assert await archive.forget_before(3_500) == 0
    assert await archive.put_race(record("F0", ["p1"]), 1_000) is True  # forgotten, so new again


@sql_backends
async def test_a_schema_ahead_of_the_code_is_refused(archive: SqlArchive, archive_url: str):
    assert archive.revision is not None and archive.upgraded_from is None
    await archive.put_race(record("KEEP", ["p1"]), 1_000)
    await archive.close()
    again = open_archive(archive_url)
    await again.open()  # at head: opens, nothing to do
    assert isinstance(again, SqlArchive) and again.upgraded_from == again.revision
    assert await again.get_race("KEEP") is not None
    await again.close()
    engine = create_async_engine(async_url(archive_url))
    async with engine.begin() as connection:
        await connection.execute(sa.text(f"UPDATE {VERSION_TABLE} SET version_num = 'f00dcafe'"))
    await engine.dispose()
    newer = open_archive(archive_url)
    with pytest.raises(ArchiveError, match="ahead") as refused:
        await newer.open()
    assert "f00dcafe" in refused.value.reason
    with pytest.raises(ArchiveError, match="not open"):
        await newer.get_race("KEEP")


async def test_an_unreachable_database_is_a_clear_error():
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    archive = open_archive(f"postgresql://arena:secret@127.0.0.1:{port}/arena")
    with pytest.raises(ArchiveError, match="cannot open the archive") as refused:
        await archive.open()
    assert "secret" not in refused.value.reason
    with pytest.raises(ArchiveError, match="unknown archive URL"):
        open_archive("mysql://host/db")
    with pytest.raises(ArchiveError, match="needs a file"):
        open_archive("sqlite://")


@sql_backends
async def test_a_history_page_is_read_through_its_index(archive: SqlArchive, archive_url: str):
    """The database's own plan for the history query names the history index, with and without
    a cursor, and sorts nothing (the index gives the order); on PostgreSQL over 20,000 rows, 2,000
    of them the player's, analysed, so that the planner weighs a real table."""
    for i in range(4):
        await archive.put_race(record(f"X{i}", ["p1", "p2"]), 1_000 + i)
    if archive.dialect == "postgresql":
        engine = create_async_engine(async_url(archive_url))
        async with engine.begin() as connection:
            await connection.execute(
                sa.text(
                    "INSERT INTO race_entrants (race_code, player_id, name, game, finished_ms, place, entrants,"
                    " cleared, total, time_ms, status, par) SELECT 'B' || n, CASE WHEN n % 10 = 0 THEN 'p1'"
                    " ELSE 'player' || (n % 500) END, 'n', 'klondike',"
                    " n, 1, 1, 0, 52, 0, 'stuck', NULL FROM generate_series(1, 20000) AS n"
                )
            )
            await connection.execute(sa.text("ANALYZE race_entrants"))
        await engine.dispose()
    _, cursor = await archive.races_of("p1", before=None, limit=2)
    for before in (None, cursor):
        plan = await archive.explain_history("p1", before, 2)
        assert HISTORY_INDEX in plan, plan
        assert "TEMP B-TREE" not in plan.upper() and "Sort" not in plan, plan  # the index gives the order


@sql_backends
async def test_a_page_of_tournaments_is_read_through_its_index(archive: SqlArchive, archive_url: str):
    """As for races: the plan of `tournaments_of`'s query names its index and sorts nothing, with
    and without a cursor; on PostgreSQL over 20,000 analysed rows, 2,000 of them the player's."""
    for i in range(4):
        info, standings = tournament(f"Y{i}", ("p1", "p2"))
        await archive.put_tournament(f"Y{i}", info, standings, 1_000 + i)
    if archive.dialect == "postgresql":
        engine = create_async_engine(async_url(archive_url))
        async with engine.begin() as connection:
            await connection.execute(
                sa.text(
                    "INSERT INTO tournament_entrants (tournament_id, player_id, name, title, game, format, deals,"
                    " outcome, finished_ms, place, entrants, cleared, time_ms, status) SELECT 'B' || n,"
                    " CASE WHEN n % 10 = 0 THEN 'p1' ELSE 'player' || (n % 500) END, 'n', 'cup', 'golf',"
                    " 'rounds', 2, 'finished', n, 1, 1, 0, 0, 'finished' FROM generate_series(1, 20000) AS n"
                )
            )
            await connection.execute(sa.text("ANALYZE tournament_entrants"))
        await engine.dispose()
    _, cursor = await archive.tournaments_of("p1", before=None, limit=2)
    assert cursor is not None
    for before in (None, cursor):
        plan = await archive.explain_history("p1", before, 2, tournaments=True)
        assert TOURNAMENT_HISTORY_INDEX in plan, plan
        assert "TEMP B-TREE" not in plan.upper() and "Sort" not in plan, plan


@every_backend
async def test_a_player_is_found_by_its_token_digest_and_keeps_its_newest_name(archive: Archive, archive_url: str):
    alice, bob = "a" * 64, "b" * 64
    assert await archive.player_by_token(alice) is None
    assert await archive.put_player("p1", "alice", alice, 1_000) is True
    assert await archive.put_player("p2", "bob", bob, 1_500) is True
    assert await archive.player_by_token(alice) == ("p1", "alice")
    assert await archive.put_player("p1", "alice b", alice, 2_000) is True  # a rename
    assert await archive.put_player("p1", "stale", alice, 1_200) is False  # a write that arrives late
    assert await archive.player_by_token(alice) == ("p1", "alice b")
    assert await archive.put_player("p1", "thief", "c" * 64, 3_000) is False  # another token's id
    assert await archive.player_by_token("c" * 64) is None
    assert await archive.player_by_token(alice) == ("p1", "alice b")
    assert await archive.player_by_token(bob) == ("p2", "bob")
    if archive_url != "memory://":
        engine = create_async_engine(async_url(archive_url))
        async with engine.connect() as connection:
            row = (
                await connection.execute(
                    sa.text(
                        "SELECT players.created_ms, players.seen_ms, token_digest FROM players"
                        " JOIN player_tokens ON player_tokens.player_id = players.id WHERE players.id = 'p1'"
                    )
                )
            ).one()
        await engine.dispose()
        assert tuple(row) == (1_000, 2_000, alice)  # the digest only: there is no token column


@sql_backends
async def test_concurrent_player_writes_leave_one_row(archive: Archive, archive_url: str):
    digest = "d" * 64
    results = await asyncio.gather(*(archive.put_player("p7", f"n{i}", digest, 1_000 + i) for i in range(6)))
    assert any(results)
    assert (await archive.player_by_token(digest))[0] == "p7"
    engine = create_async_engine(async_url(archive_url))
    async with engine.connect() as connection:
        rows = (await connection.execute(sa.text("SELECT seen_ms FROM players WHERE id = 'p7'"))).all()
    await engine.dispose()
    assert [tuple(row) for row in rows] == [(1_005,)]  # the newest of them, whatever order they landed in
