"""Rated races, leaderboards and profiles over a real server with a SQLite archive: a rated race
between two claimed players moves both ratings (the winner's up) and the board lists them in
order; a race with a bot or a guest is not rated; rated with a public seed is refused; profile
statistics after a few races; the statistics query is one primary-key lookup (SQLite and
PostgreSQL); a rated race applied twice (a takeover's retry) counts once; a void race moves no
rating."""

from __future__ import annotations

import uuid

import msgspec
import pytest

from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.archive import open_archive
from server.archive.sql import SqlArchive
from server.config import ServerConfig
from server.protocol import Standing
from server.rated_races import apply_race_ratings, places


@pytest.fixture
async def server(tmp_path):
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, password_per_s=20.0)
    async with ArenaServer(config) as served:
        yield served


async def _player(url: str, name: str, *, claim: bool = True, bot: bool = False) -> ArenaClient:
    client = await ArenaClient.connect(url, name, bot=bot)
    if claim:
        await client.claim("correct horse battery")
    return client


async def _race(server: ArenaServer, winner: ArenaClient, loser: ArenaClient, *, rated: bool = True) -> str:
    """A race of golf (secret seed) that ``winner`` wins on cards cleared: ``loser`` resigns at
    once, ``winner`` plays its legal moves until a card is cleared, then resigns. Returns its
    code once the archive has it."""
    info = await winner.create_race("golf", countdown_s=0, rated=rated)
    await loser.join_race(info.code)
    await winner.start_race(info.code)
    await winner.wait_for(lambda: info.code in winner.started, 10)
    await loser.resign(info.code)
    board = winner.started[info.code].board
    for _ in range(200):
        if board.cleared > 0 or not board.legal:
            break
        tableau = [move for move in board.legal if move.startswith("t")]  # (these clear a card)
        result = await winner.move(info.code, (tableau or board.legal)[0])
        assert result.ok and result.board is not None
        board = result.board
    assert board.cleared > 0
    if info.code not in winner.finished:
        await winner.resign(info.code)
    await winner.wait_for(lambda: info.code in winner.finished, 10)
    assert server.archiver is not None
    race = server.races[info.code]
    assert await server.archiver.settle(race)
    return info.code


async def test_a_rated_race_moves_both_ratings_and_the_board_lists_them(server):
    alice = await _player(server.url, "alice")
    bob = await _player(server.url, "bob")
    async with alice, bob:
        code = await _race(server, alice, bob)
        assert server.races[code].info().rated
        page = await bob.leaderboard("golf")
        assert [(row.name, row.claimed, row.races) for row in page.rows] == [("alice", True, 1), ("bob", True, 1)]
        assert page.rows[0].rating > 1000 > page.rows[1].rating - 0  # winner up from a new player's 1000
        assert page.rows[1].rating < page.rows[0].rating and all(row.provisional for row in page.rows)
        around = await bob.leaderboard("golf", view="around_me", limit=1)
        assert [row.name for row in around.rows] == ["bob"]
        mine = await alice.profile()
        assert mine.games[0].rating == page.rows[0].rating
        assert [point.rating for point in mine.rating_history] == [page.rows[0].rating]


async def test_races_with_a_bot_or_a_guest_are_not_rated_and_a_public_seed_is_refused(server):
    alice = await _player(server.url, "alice")
    bot = await _player(server.url, "robot", bot=True)
    guest = await _player(server.url, "guest", claim=False)
    async with alice, bot, guest:
        await _race(server, alice, bot)
        await _race(server, alice, guest)
        assert (await alice.leaderboard("golf")).rows == []
        for seed, public in ((7, False), (None, True)):
            with pytest.raises(ArenaError) as refused:
                await alice.create_race("golf", seed=seed, seed_public=public, rated=True)
            assert refused.value.code == "bad_field" and "secret seed" in refused.value.reason


async def test_profile_statistics_after_a_few_races(server):
    alice = await _player(server.url, "alice")
    bob = await _player(server.url, "bob")
    async with alice, bob:
        for winner, loser in ((alice, bob), (alice, bob), (bob, alice)):
            await _race(server, winner, loser, rated=False)
        kept = server.archiver.archive
        lines = {row.code: row for row in (await kept.races_of(alice.player, before=None, limit=10))[0]}
        found = await bob.profile(name="ALICE")
        assert found.player == alice.player and found.claimed and found.name == "alice"
        (golf,) = found.games
        assert (golf.game, golf.played, golf.won) == ("golf", 3, 0)  # (resigned: never every card)
        assert golf.cleared == sum(row.cleared for row in lines.values())
        assert golf.best_win_ms is None and golf.mean_win_ms is None and golf.streak == 0
        assert golf.rating is None and len(found.recent) == 3
        with pytest.raises(ArenaError) as unknown:
            await bob.profile(name="nobody at all")
        assert unknown.value.code == "unknown_player"


async def test_wins_count_in_best_mean_and_streaks(tmp_path):
    """The statistics of won races (status won), through the archive's own write."""
    import msgspec

    from tests.server.test_archive import record  # (a finished race's record, made by hand)

    archive = open_archive(f"sqlite:///{tmp_path}/a.db")
    await archive.open()
    try:
        races = [("R1", "won", 50_000), ("R2", "won", 30_000), ("R3", "stuck", 9_000), ("R4", "won", 40_000)]
        for n, (code, status, time_ms) in enumerate(races):
            made = record(code, ["p1"])
            line = msgspec.structs.replace(
                made.standings[0], cleared=52 if status == "won" else 10, time_ms=time_ms, status=status
            )
            made = msgspec.structs.replace(made, standings=[line])
            assert await archive.put_race(made, 1_000 + n)
            assert not await archive.put_race(made, 1_000 + n)  # (again: counted once)
        (stats,) = await archive.game_stats("p1")
        assert (stats.played, stats.won, stats.best_win_ms) == (4, 3, 30_000)
        assert stats.win_ms_sum == 120_000 and (stats.streak, stats.best_streak) == (1, 2)
        assert stats.cleared == 52 * 3 + 10
    finally:
        await archive.close()


@pytest.fixture
def plan_url(request, tmp_path):
    """An empty archive of the backend ``request.param``."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/plan.db"
    return request.getfixturevalue("postgres_server").create_database(f"stats_{uuid.uuid4().hex[:12]}")


@pytest.mark.parametrize("plan_url", ["sqlite", "postgresql"], indirect=True)
async def test_the_statistics_query_is_one_primary_key_lookup(plan_url):
    kind = "sqlite" if plan_url.startswith("sqlite") else "postgresql"
    archive = open_archive(plan_url)
    await archive.open()
    try:
        assert isinstance(archive, SqlArchive)
        plan = await archive.explain_stats("p1")
        if kind == "sqlite":
            assert "USING PRIMARY KEY" in plan or "sqlite_autoindex_player_game_stats" in plan, plan
            assert "SCAN" not in plan.replace("SCAN CONSTANT", ""), plan
        else:
            assert "player_game_stats_pkey" in plan, plan
    finally:
        await archive.close()


async def test_a_rated_race_applied_twice_counts_once(server):
    """A takeover-like retry: the race's ratings applied again (after its archive write) change
    nothing, and its ties tie."""
    alice = await _player(server.url, "alice")
    bob = await _player(server.url, "bob")
    async with alice, bob:
        code = await _race(server, alice, bob)
        archive = server.archiver.archive
        before = await archive.ratings_of(alice.player)
        record = await archive.get_race(code)
        assert record is not None
        again = await apply_race_ratings(archive, record, 1, bots=(), secret_seed=True)
        assert again is False and await archive.ratings_of(alice.player) == before
        assert len(await archive.rating_history(alice.player, "golf", 10)) == 1


async def test_a_void_race_moves_no_rating(server):
    """A rated race whose store lost acknowledged moves ends void, with no result: its record
    (here a rated race's, under a code not applied yet) changes no rating, while the same record
    with a result does."""
    alice = await _player(server.url, "alice")
    bob = await _player(server.url, "bob")
    async with alice, bob:
        code = await _race(server, alice, bob)
        archive = server.archiver.archive
        record = await archive.get_race(code)
        assert record is not None
        other = msgspec.structs.replace(record, race=msgspec.structs.replace(record.race, code="VOID01"))
        before = await archive.ratings_of(alice.player)
        void = msgspec.structs.replace(other, void="the server lost the last 2 moves of alice")
        assert await apply_race_ratings(archive, void, 2, bots=(), secret_seed=True) is False
        assert await archive.ratings_of(alice.player) == before
        assert await apply_race_ratings(archive, other, 2, bots=(), secret_seed=True) is True
        assert await archive.ratings_of(alice.player) != before


def test_places_tie_equal_cards_and_time():
    def line(player, cleared, time_ms):
        return Standing(
            place=0,
            player=player,
            name=player,
            cleared=cleared,
            total=52,
            time_ms=time_ms,
            moves=1,
            status="won",
            order=0,
        )

    found = places([line("a", 10, 5), line("b", 12, 9), line("c", 10, 5), line("d", 10, 6)])
    assert found == {"b": 1, "a": 2, "c": 2, "d": 4}
