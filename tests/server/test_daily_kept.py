"""The daily challenge kept for good: over a data directory (SQLite archive) a restarted server
keeps the day's results, refuses a second ranked attempt and deals the same deal (its secret is
kept in the archive); over Redis a daily race rebuilt after a restart still records its result,
and a void one records none."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from client.connection import ArenaClient, ArenaError
from engine.games import find_game
from server.app import ArenaServer
from server.archive.memory import MemoryArchive
from server.config import ServerConfig
from server.store.redis import RedisStore
from tests.server.test_daily import NOON, DayClock, _played

DAY = "2026-03-10"


async def _deals(client: ArenaClient) -> dict[str, str]:
    return {deal.game: deal.commitment for deal in (await client.daily()).deals}


async def test_a_restarted_server_keeps_the_days_results_and_deals(tmp_path):
    """ann plays golf's daily, and starts klondike's (cut off by the stop); after a restart over
    the same data directory (no daily_secret) the day's deals have the same commitments, ann is
    still in golf's results and in her calendar, and her second attempt is refused."""
    config = {"data_dir": tmp_path, "ping_interval_s": None, "idle_timeout_s": None}
    async with ArenaServer(ServerConfig(**config), clock=DayClock(NOON)) as first:
        ann = await ArenaClient.connect(first.url, "ann")
        try:
            code = await _played(ann, "golf")
            await ann.play_daily("klondike")
            before = await _deals(ann)
            token, player = ann.token, ann.player
        finally:
            await ann.close()
    async with ArenaServer(ServerConfig(**config), clock=DayClock(NOON)) as second:
        assert code not in second.races
        ann = await ArenaClient.connect(second.url, "ann", token=token)
        try:
            assert ann.player == player
            assert await _deals(ann) == before, "a restart deals the same daily deals"
            for game in ("golf", "klondike"):
                with pytest.raises(ArenaError) as caught:
                    await ann.play_daily(game)
                assert caught.value.code == "already_played"
            info = await ann.daily("golf")
            assert [(r.player, r.race, r.status) for r in info.results] == [(player, code, "resigned")]
            mine = {deal.game: deal.mine for deal in info.deals}
            assert mine["golf"] is not None and mine["golf"].race == code
            assert mine["klondike"] is not None
            assert info.streak.current == 1
            page = await ann.daily_calendar("2026-03", "golf")
            assert [d.result.race for d in page.days if d.result is not None] == [code]
        finally:
            await ann.close()


async def test_the_env_secret_overrides_the_kept_one(tmp_path):
    """With daily_secret set, the deals derive from it, not from the archive's kept secret."""
    config = {"data_dir": tmp_path, "ping_interval_s": None}
    async with ArenaServer(ServerConfig(**config), clock=DayClock(NOON)) as first:
        kept = await _deals(await ArenaClient.connect(first.url, "ann"))
    async with ArenaServer(ServerConfig(**config, daily_secret="given"), clock=DayClock(NOON)) as second:
        given = await _deals(await ArenaClient.connect(second.url, "ann"))
    assert set(kept) == set(given) and all(kept[game] != given[game] for game in kept)


async def test_a_daily_race_rebuilt_after_a_restart_records_its_result(redis_server, redis_prefix):
    """Over Redis, ann's daily race is unfinished when the server stops; the restarted server
    rebuilds it, ann resigns it there, and the day's results (and the archive) have it final."""
    archive = MemoryArchive()
    await archive.open()
    config = ServerConfig(redis_url=redis_server.url, ping_interval_s=None, idle_timeout_s=None)
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    server = ArenaServer(config, store=store, archive=archive, clock=DayClock(NOON))
    await server.start()
    try:
        ann = await ArenaClient.connect(server.url, "ann")
        info = await ann.play_daily("golf")
        await ann.wait_for(lambda: info.code in ann.started, timeout_s=5)
        token = ann.token
        await ann.close()
    finally:
        await server.close()
        await store.close()
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    server = ArenaServer(config, store=store, archive=archive, clock=DayClock(NOON))
    await server.start()
    try:
        assert info.code in server.races
        ann = await ArenaClient.connect(server.url, "ann", token=token)
        try:
            await ann.resign(info.code)
            await ann.wait_for(lambda: server.races[info.code].status == "finished", timeout_s=5)
            results = (await ann.daily("golf")).results
            assert [(r.race, r.status) for r in results] == [(info.code, "resigned")]
            assert server.archiver is not None and await server.archiver.flush(5)
            kept = await archive.daily_board("golf", DAY, 5)
            assert [(r.race, r.status) for r in kept] == [(info.code, "resigned")]
        finally:
            await ann.close()
    finally:
        await server.close()
        await store.close()


async def test_a_void_daily_attempt_has_no_result_and_is_not_played_again(redis_server, redis_prefix):
    """Over Redis, ann plays 3 moves of today's golf daily and bob resigns his. Then Redis loses
    ann's last 2 moves (a lost append-only file tail), and her next move finds it: her race is void.
    Her attempt is kept with status ``void``: not in the day's results or the archive's board or
    totals, yet a day played for her streak; a second ranked attempt is refused, saying why."""
    archive = MemoryArchive()
    await archive.open()
    config = ServerConfig(redis_url=redis_server.url, ping_interval_s=None, idle_timeout_s=None, daily_secret="s3")
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    server = ArenaServer(config, store=store, archive=archive, clock=DayClock(NOON))
    await server.start()
    raw = aioredis.Redis.from_url(redis_server.url)
    try:
        ann = await ArenaClient.connect(server.url, "ann")
        bob = await ArenaClient.connect(server.url, "bob")
        await _played(bob, "golf")
        info = await ann.play_daily("golf")
        await ann.wait_for(lambda: info.code in ann.started, timeout_s=5)
        game = find_game("golf")(server.races[info.code].seed)
        for _ in range(3):
            notation = str(next(iter(game.legal_moves())))
            assert (await ann.move(info.code, notation)).ok
            game.apply(notation)
        key = f"{redis_prefix}:race:{{{info.code}}}:moves:{ann.player}"
        tail = await raw.xrevrange(key, count=2)
        assert await raw.xdel(key, *[entry_id for entry_id, _ in tail]) == 2

        refused = await ann.move(info.code, str(next(iter(game.legal_moves()))))
        assert not refused.ok and refused.code == "race_over" and "void" in refused.reason, refused
        await ann.wait_for(lambda: info.code in ann.finished, timeout_s=5)

        today = await ann.daily("golf")
        mine = next(deal.mine for deal in today.deals if deal.game == "golf")
        assert mine is not None and (mine.race, mine.status) == (info.code, "void"), mine
        assert [(r.name, r.status) for r in today.results] == [("bob", "resigned")]
        assert today.streak.current == 1
        with pytest.raises(ArenaError) as again:
            await ann.play_daily("golf")
        assert again.value.code == "already_played" and "is void" in again.value.reason, again.value.reason

        assert server.archiver is not None and await server.archiver.flush(5)
        assert [(r.name, r.status) for r in await archive.daily_board("golf", DAY, 5)] == [("bob", "resigned")]
        assert [(r.race, r.status) for r in await archive.daily_of(ann.player, DAY, DAY)] == [(info.code, "void")]
        totals = await archive.daily_totals_among("golf", "all", [ann.player, bob.player])
        assert [t.player_id for t in totals] == [bob.player]
        for client in (ann, bob):
            await client.close()
    finally:
        await raw.aclose()
        await server.close()
        await store.close()
