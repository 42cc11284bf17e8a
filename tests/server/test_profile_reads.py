"""A profile's reads in SQL (`server.archive.sql_stats.SqlStats.profile_reads`): on an archive the
seed tool fills (`tooling.seed_archive.seed`), on SQLite and PostgreSQL, the same as asking
`player_card`, `game_stats`, `ratings_of`, `rating_history` and `races_of` one by one (the
`Archive` default), in two SQL statements whatever the player's games."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from server.archive import Archive, open_archive
from server.archive.sql import SqlArchive
from tooling.seed_archive import seed


@pytest.fixture(params=["sqlite", "postgresql"])
def seeded_url(request, tmp_path):
    """An empty archive of the backend ``request.param``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/profiles.db"
    return request.getfixturevalue("postgres_server").create_database(f"profiles_{uuid.uuid4().hex[:12]}")


async def test_profile_reads_match_the_single_reads_in_two_statements(seeded_url):
    written = await seed(seeded_url, 40, 300, days=2, daily_players=10, follows_each=2)
    assert written["races"] == 300 and written["claims"] == 14 and written["daily_results"] == 60
    assert written["daily_totals"] > 20  # per game and player: all time, and each week it played
    archive = open_archive(seeded_url)
    await archive.open()
    assert isinstance(archive, SqlArchive)
    engine = await archive._ready()
    statements: list[str] = []
    sa.event.listen(engine.sync_engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    try:
        for number in range(0, 40, 3):
            player = f"P{number:07d}"
            statements.clear()
            reads = await archive.profile_reads(player, 4, 3)
            assert len(statements) == 2, statements
            expected = await Archive.profile_reads(archive, player, 4, 3)
            assert reads == expected
            assert reads is not None and reads.ratings and len(reads.recent) == 3
            assert all(0 < len(changes) <= 4 for changes in reads.history.values())
            assert reads.card.claimed == (number % 3 == 0)
        statements.clear()
        assert await archive.profile_reads("nobody", 4, 3) is None
        assert len(statements) == 1
    finally:
        await archive.close()
