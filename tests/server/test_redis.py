"""A server over Redis (`server.store.redis.RedisStore`), end to end on 127.0.0.1: a race whose
every acknowledged move is in Redis, and a race that goes on through a Redis outage."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from client.verify import verify_record
from server import protocol as p
from server.app import ArenaServer
from server.catalog import public_catalogs
from server.config import ServerConfig
from server.store.redis import RedisStore
from tests.conftest import RedisServer

SEED = 12  # seeds/golf.txt: a winning line for this deal


def golf_line() -> list[str]:
    for line in (public_catalogs() / "golf.txt").read_text().splitlines():
        if line.startswith(f"{SEED}:"):
            return [m.strip() for m in line.split(":", 1)[1].split(",")]
    raise AssertionError(f"no line for seed {SEED} in seeds/golf.txt")


@pytest.fixture
async def server(redis_server) -> AsyncIterator[ArenaServer]:
    """A server over the session's Redis (the `peers` fixture connects to it)."""
    config = ServerConfig(ping_interval_s=None, redis_url=redis_server.url, race_retention_s=0)
    async with ArenaServer(config) as srv:
        yield srv


async def logged(raw: aioredis.Redis, code: str, player: str) -> list[tuple[int, str]]:
    """The (seq, move) pairs in the entrant's move stream, straight from Redis."""
    entries = await raw.xrange(f"arena:race:{{{code}}}:moves:{player}")
    return [(int(f[b"s"]), f[b"m"].decode()) for _, f in entries]


async def start_race(ann, bob) -> str:
    created = await ann.request(p.CreateRace(req=1, game="golf", seed=SEED, countdown_s=0), p.RaceReply)
    code = created.race.code
    await bob.request(p.JoinRace(req=1, race=code), p.RaceReply)
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    for peer in (ann, bob):
        await peer.expect(p.RaceStarted)
    return code


async def test_a_race_over_redis_is_logged_move_by_move_and_verifies(server, peers, redis_server):
    """Two entrants win the same golf deal; every move is in Redis by the time it is
    acknowledged; the record, read from Redis's logs and later kept there, verifies."""
    assert isinstance(server.store, RedisStore)
    raw = aioredis.Redis.from_url(redis_server.url)
    try:
        ann, bob = await peers("ann"), await peers("bob")
        code = await start_race(ann, bob)
        line = golf_line()
        for seq, move in enumerate(line, start=1):
            for peer in (ann, bob):
                result = await peer.move(code, seq, move)
                assert result.ok, result
                assert await raw.xlen(f"arena:race:{{{code}}}:moves:{peer.player}") >= seq
        finished = await ann.expect(p.RaceFinished)
        assert [s.status for s in finished.standings] == ["won", "won"]
        for peer in (ann, bob):
            assert await logged(raw, code, peer.player) == list(enumerate(line, start=1))

        record = await ann.request(p.GetRecord(req=3, race=code), p.RaceRecord)
        report = verify_record(record, finished.commitment)
        assert report.ok, report.failed

        await server.sweep()  # race_retention_s=0: the race leaves memory, its record stays in Redis
        assert code not in server.races
        assert await raw.exists(f"arena:record:{{{code}}}") == 1
        assert await raw.exists(f"arena:race:{{{code}}}:moves:{ann.player}") == 0
        kept = await bob.request(p.GetRecord(req=4, race=code), p.RaceRecord)
        assert verify_record(kept, finished.commitment).ok
        assert [e.moves for e in kept.entrants] == [line, line]
    finally:
        await raw.aclose()


async def test_moves_during_a_redis_outage_are_refused_then_accepted_again(peers, tmp_path):
    """Redis stops answering, then dies: a move is refused with ``unavailable`` and not played;
    once Redis is back (same port, same append-only file) the same seq is accepted, without a
    restart of the server, and the entrant's log in Redis has no gap and no double."""
    redis = RedisServer(tmp_path)
    redis.start()
    raw = aioredis.Redis.from_url(redis.url, socket_timeout=5, socket_connect_timeout=5)
    config = ServerConfig(ping_interval_s=None, redis_url=redis.url)
    try:
        async with ArenaServer(config) as server:
            ann, bob = await peers("ann", url=server.url), await peers("bob", url=server.url)
            code = await start_race(ann, bob)
            race = server.races[code]
            line = golf_line()
            for seq in range(1, 6):
                assert (await ann.move(code, seq, line[seq - 1])).ok

            redis.pause()  # no answer: the write times out (it may still land once Redis resumes)
            refused = await ann.move(code, 6, line[5])
            assert (refused.ok, refused.code) == (False, p.ErrorCode.UNAVAILABLE), refused
            entrant = race.entrants[ann.player]
            assert (entrant.last_seq, entrant.moves) == (5, 5)
            redis.resume()
            assert (await ann.move(code, 6, line[5])).ok

            redis.stop()  # a crash: connections refused
            refused = await ann.move(code, 7, line[6])
            assert (refused.ok, refused.code) == (False, p.ErrorCode.UNAVAILABLE), refused
            assert (await bob.move(code, 1, line[0])).code == p.ErrorCode.UNAVAILABLE
            assert (entrant.last_seq, entrant.moves) == (6, 6)
            redis.start()  # the same port and append-only file: every acknowledged move is there
            assert (await ann.move(code, 7, line[6])).ok
            assert (await bob.move(code, 1, line[0])).ok

            assert await logged(raw, code, ann.player) == list(enumerate(line[:7], start=1))
            for seq in range(8, len(line) + 1):
                assert (await ann.move(code, seq, line[seq - 1])).ok
            for seq in range(2, len(line) + 1):
                assert (await bob.move(code, seq, line[seq - 1])).ok
            finished = await ann.expect(p.RaceFinished)
            record = await ann.request(p.GetRecord(req=3, race=code), p.RaceRecord)
            assert verify_record(record, finished.commitment).ok
            assert await logged(raw, code, ann.player) == list(enumerate(line, start=1))
    finally:
        await raw.aclose()
        redis.stop()


async def test_a_server_whose_redis_is_not_there_does_not_start(tmp_path):
    """A wrong Redis URL fails at start with StoreUnavailable (an OSError) naming the address."""
    redis = RedisServer(tmp_path)  # a free port, nothing started on it
    server = ArenaServer(ServerConfig(redis_url=redis.url))
    with pytest.raises(OSError, match=f"127.0.0.1:{redis.port}"):
        await server.start()
