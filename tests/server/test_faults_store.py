"""Redis losing data under a running server, and what one move costs in Redis: a Redis restarted
empty, or from an append-only file without its last writes, is noticed at once (not at the
next restart) and no move is accepted over the gap; a move and the race's queued event go in
one script call, and the writes of one loop turn in one pipeline."""

from __future__ import annotations

import asyncio
import logging
import shutil
import time

import pytest
import redis.asyncio as aioredis

from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
from server.store import DataLoss, LostMoves, MoveEntry, StaleRace, StoredEvent
from server.store.memory import MemoryStore
from server.store.redis import RedisStore
from tests.conftest import RedisServer
from tests.server.test_redis import golf_line, start_race


@pytest.fixture
def own_redis(tmp_path):
    """A redis-server of this test's own (appendonly yes, appendfsync always), to kill and
    start again."""
    server = RedisServer(tmp_path / "redis")
    (tmp_path / "redis").mkdir()
    server.start()
    yield server
    server.stop()


async def metric(srv: ArenaServer, name: str) -> float:
    text = srv.metrics.render().decode()
    return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name + " "))


async def until(check, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        await asyncio.sleep(0.02)


async def play(peer, code: str, moves: list[str], first: int = 1) -> None:
    for seq, move in enumerate(moves, start=first):
        result = await peer.move(code, seq, move)
        assert result.ok, result


def aof_files(redis: RedisServer) -> list:
    return sorted((redis.folder / "appendonlydir").glob("*.incr.aof"))


async def test_redis_restarted_empty_mid_race_refuses_the_next_move_and_is_reported_at_once(
    own_redis, peers_of, caplog
):
    """Redis killed and started again with nothing (as with ``appendonly no``): within a
    second the node logs an ERROR and counts it in /metrics, naming the race, without any
    restart of its own; the entrant's next move is never accepted, and nothing is logged for it."""
    srv, peers = peers_of
    losses: list[DataLoss] = []
    srv.store.on_data_loss = losses.append
    ann, bob = await peers("ann"), await peers("bob")
    code = await start_race(ann, bob)
    line = golf_line()
    await play(ann, code, line[:3])
    assert await metric(srv, "arena_store_data_lost_total") == 0
    with caplog.at_level(logging.ERROR, "arena.server"):
        own_redis.stop()
        shutil.rmtree(own_redis.folder)
        own_redis.folder.mkdir()
        own_redis.start()
        began = time.monotonic()
        await until(lambda: losses)
        assert time.monotonic() - began < 2
    assert code in losses[0].races and "marker" in losses[0].why
    assert await metric(srv, "arena_store_data_lost_total") >= 1
    assert any(r.levelno == logging.ERROR and code in r.getMessage() for r in caplog.records)
    result = await ann.move(code, 4, line[3])
    assert not result.ok
    raw = aioredis.Redis.from_url(own_redis.url)
    try:
        assert await raw.xrange(f"arena:race:{{{code}}}:moves:{ann.player}") == []
    finally:
        await raw.aclose()


async def test_a_cut_append_only_file_is_reported_at_once(own_redis, peers_of):
    """Redis killed and started from an append-only file cut back to an earlier point (the
    last second an ``everysec`` Redis loses in a power cut): the node sees Redis's new run id,
    finds the entrant's log shorter than what it acknowledged, and reports the race at once."""
    srv, peers = peers_of
    losses: list[DataLoss] = []
    srv.store.on_data_loss = losses.append
    ann, bob = await peers("ann"), await peers("bob")
    code = await start_race(ann, bob)
    line = golf_line()
    await play(ann, code, line[:3])
    await asyncio.sleep(0.3)  # (the events of those moves written too)
    [aof] = aof_files(own_redis)
    cut = aof.stat().st_size
    await play(ann, code, line[3:6], first=4)
    own_redis.stop()
    with aof.open("r+b") as file:
        file.truncate(cut)
    own_redis.start()
    await until(lambda: losses)
    assert losses[0].races == (code,) and "3/6" in losses[0].why, losses
    assert await metric(srv, "arena_store_data_lost_total") >= 1
    result = await ann.move(code, 7, line[6])
    assert not result.ok


async def test_a_store_refuses_a_move_over_a_gap_even_in_an_empty_log(redis_server, redis_prefix):
    """The move log takes an entrant's first move as 1, and each next one after the last:
    anything else in an empty or shorter log is `LostMoves`, reported (`on_data_loss`)."""
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    losses: list[DataLoss] = []
    store.on_data_loss = losses.append
    try:
        with pytest.raises(LostMoves, match="moves 1 to 13"):
            await store.append_move("GAP", "p1", MoveEntry(14, "t1>f0", 1))
        await store.append_move("GAP", "p1", MoveEntry(1, "t1>f0", 1))
        with pytest.raises(LostMoves):
            await store.append_move("GAP", "p1", MoveEntry(3, "t1>f0", 1))
        assert [m.seq for m in await store.moves("GAP", "p1")] == [1]
        assert [loss.races for loss in losses] == [("GAP",), ("GAP",)]
        assert store.data_losses == 2
    finally:
        await store.close()


async def test_writes_of_one_loop_turn_go_in_one_pipeline_one_script_call_per_race(redis_server, redis_prefix):
    """Four races each with a move, and a queued event before it, in one loop turn: Redis runs
    four EVALSHA (each race's event and move in one call) from one connection (one pipeline),
    and nothing else; the moves and events are all stored."""
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    raw = aioredis.Redis.from_url(redis_server.url)
    codes = [f"B{i}" for i in range(4)]
    try:
        await store.open()
        for code in codes:
            await store.append_move(code, "p1", MoveEntry(1, "deal", 1))
        seen: list[dict] = []
        async with raw.monitor() as monitor:

            async def watch() -> None:
                async for command in monitor.listen():
                    if redis_prefix in command["command"] and command["client_address"] != "lua":
                        seen.append(command)

            watching = asyncio.create_task(watch())
            await asyncio.sleep(0.1)
            frame = b"standings"
            for code in codes:
                store.queue_event(code, StoredEvent(1, frame, frame))
            await asyncio.gather(*(store.append_move(code, "p1", MoveEntry(2, "t1>f0", 2)) for code in codes))
            await asyncio.sleep(0.2)
            watching.cancel()
        assert [c["command"].split()[0].upper() for c in seen] == ["EVALSHA"] * 4, seen
        assert len({(c["client_address"], c["client_port"]) for c in seen}) == 1
        for code in codes:
            assert [m.seq for m in await store.moves(code, "p1")] == [1, 2]
            assert await store.events_since(code, 0) == [StoredEvent(1, frame, frame)]
    finally:
        await store.close()
        await raw.aclose()


@pytest.fixture
async def server(own_redis):
    """A server over `own_redis` (tests/server/conftest.py's `peers` connects to it)."""
    config = ServerConfig(ping_interval_s=None, redis_url=own_redis.url, race_retention_s=0)
    async with ArenaServer(config) as srv:
        yield srv


@pytest.fixture
def peers_of(server, peers):
    return server, peers


async def test_the_memory_store_refuses_a_move_over_a_gap_too():
    """The contract of `Store.append_move` holds in memory as well: move 1 first, then each
    next one; a gap is `LostMoves`, a move behind the log `StaleRace`."""
    store = MemoryStore()
    with pytest.raises(LostMoves):
        await store.append_move("GAP", "p1", MoveEntry(2, "t1>f0", 1))
    for seq in (1, 2):
        await store.append_move("GAP", "p1", MoveEntry(seq, "t1>f0", seq))
    with pytest.raises(StaleRace):
        await store.append_move("GAP", "p1", MoveEntry(1, "t1>f0", 1))
    assert [m.seq for m in await store.moves("GAP", "p1")] == [1, 2]


async def test_a_race_whose_moves_redis_lost_is_void_at_once_and_its_entrants_told(own_redis, peers_of):
    """The whole path, with the server's own handling of a loss: Redis restarted empty mid-race;
    without any move being sent, both entrants get the race's end ("void") with the words of
    what was lost, /metrics counts the void race, and a later move is refused as over."""
    srv, peers = peers_of
    ann, bob = await peers("ann"), await peers("bob")
    code = await start_race(ann, bob)
    line = golf_line()
    await play(ann, code, line[:4])
    own_redis.stop()
    shutil.rmtree(own_redis.folder)
    own_redis.folder.mkdir()
    own_redis.start()
    for peer in (ann, bob):
        finished = await peer.expect(p.RaceFinished, timeout_ms=5000)
        assert finished.reason == "void", finished
        assert "lost" in finished.detail and "4" in finished.detail, finished.detail
    assert await metric(srv, "arena_races_void_total") == 1
    result = await ann.move(code, 5, line[4])
    assert (result.ok, result.code) == (False, p.ErrorCode.RACE_OVER)
