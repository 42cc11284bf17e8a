"""The `Store` contract, held by both stores: the memory store and the Redis store (a real
redis-server, tests/conftest.py)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator

import pytest

from server.store import MoveEntry, Store, StoredEvent, StoredPlayer, StoreUnavailable
from server.store.memory import MemoryStore
from server.store.redis import RedisStore
from tests.conftest import MS


class FakeClock:
    """The memory store's clock, moved by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Kit:
    """A store under test and a way to let time pass for its records."""

    def __init__(self, store: Store, clock: FakeClock | None) -> None:
        self.store = store
        self.clock = clock

    async def wait(self, seconds: float) -> None:
        """Let ``seconds`` pass for record keep times: on the fake clock, or for real (Redis)."""
        if self.clock is not None:
            self.clock.now += seconds
        else:
            await asyncio.sleep(seconds)


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
async def make(request) -> AsyncIterator[callable]:
    """``make(**options)``: a fresh store of the parametrized kind (options: ``max_events``,
    ``max_records``): in memory, over one Redis, or over a Redis Cluster of three masters."""
    made: list[Store] = []

    def make_(**options: int) -> Kit:
        if request.param == "memory":
            clock = FakeClock()
            store = MemoryStore(now=clock, **options)
            made.append(store)
            return Kit(store, clock)
        server = request.getfixturevalue("redis_cluster" if request.param == "redis-cluster" else "redis_server")
        store = RedisStore(server.url, prefix=request.getfixturevalue("redis_prefix"), **options)
        made.append(store)
        return Kit(store, None)

    yield make_
    for store in made:
        await store.close()


def event(version: int, *, same: bool = True) -> StoredEvent:
    frame = f"entrants {version}".encode()
    return StoredEvent(version, frame, frame if same else f"spectators {version}".encode())


async def test_a_race_description_round_trips_with_its_types(make):
    """A description comes back as it was saved (str, int, bool, None), and saving replaces it."""
    store = make().store
    await store.open()
    assert await store.load_race("ABCD") is None
    meta = {"game": "klondike", "seed": 42, "digits": "42", "seed_public": True, "salt": None, "options": ""}
    await store.save_race("ABCD", meta)
    assert await store.load_race("ABCD") == meta
    await store.save_race("ABCD", {"game": "golf", "seed": 7})
    assert await store.load_race("ABCD") == {"game": "golf", "seed": 7}
    assert await store.load_race("WXYZ") is None


async def test_moves_come_back_in_order_per_entrant(make):
    """Each entrant's log keeps its moves in the order they were appended; logs never mix."""
    store = make().store
    for seq in range(1, 6):
        await store.append_move("ABCD", "p1", MoveEntry(seq, f"t{seq}>f0", seq * 100))
    await store.append_move("ABCD", "p2", MoveEntry(1, "deal", 5))
    assert await store.moves("ABCD", "p1") == [MoveEntry(s, f"t{s}>f0", s * 100) for s in range(1, 6)]
    assert await store.moves("ABCD", "p2") == [MoveEntry(1, "deal", 5)]
    assert [(e.seq, e.move, e.time_ms) for e in await store.moves("ABCD", "p2")] == [(1, "deal", 5)]
    assert await store.moves("ABCD", "p3") == []
    assert await store.moves("WXYZ", "p1") == []


async def test_a_move_stored_again_under_the_last_seq_replaces_it(make):
    """A write the caller gave up on may have landed: the move stored again under the same seq
    is the one kept, once."""
    store = make().store
    await store.append_move("ABCD", "p1", MoveEntry(1, "deal", 10))
    await store.append_move("ABCD", "p1", MoveEntry(2, "t1>f0", 20))
    await store.append_move("ABCD", "p1", MoveEntry(2, "t2>f0", 30))
    assert await store.moves("ABCD", "p1") == [MoveEntry(1, "deal", 10), MoveEntry(2, "t2>f0", 30)]


async def test_events_since_a_version(make):
    """Events after a version, oldest first, at most ``limit``; none after the last; the frames
    of both audiences kept apart when they differ."""
    store = make().store
    assert await store.events_since("ABCD", 0) == []
    assert await store.events_since("ABCD", -1) is None
    for version in range(1, 6):
        await store.append_event("ABCD", event(version, same=version % 2 == 0))
    assert await store.events_since("ABCD", 0) == [event(v, same=v % 2 == 0) for v in range(1, 6)]
    assert [e.version for e in await store.events_since("ABCD", 2)] == [3, 4, 5]
    assert [e.version for e in await store.events_since("ABCD", 1, limit=2)] == [2, 3]
    assert await store.events_since("ABCD", 5) == []
    assert await store.events_since("ABCD", 9) == []
    first = (await store.events_since("ABCD", 0, limit=1))[0]
    assert first.spectator_frame == b"spectators 1" and first.entrant_frame == b"entrants 1"
    assert await store.events_since("WXYZ", 3) == []


async def test_the_memory_store_leaves_the_collector_nothing_to_follow_per_move() -> None:
    """A live server keeps a move entry and an event per accepted move for as long as the race
    lasts; once collected, the memory store's copies are not objects the garbage collector
    follows at every full collection."""
    store = MemoryStore()
    frame = b"x" * 40
    gc.collect()
    before = len(gc.get_objects())
    for seq in range(1, 2001):
        await store.append_move("ABCD", "p1", MoveEntry(seq, "t1>f0", seq))
        await store.append_event("ABCD", StoredEvent(seq, frame, frame))
    gc.collect()
    grown = len(gc.get_objects()) - before
    assert grown < 100  # (4,000 when kept as named tuples)
    assert (await store.moves("ABCD", "p1"))[-1].time_ms == 2000
    assert (await store.events_since("ABCD", 1999))[0].spectator_frame is frame


async def test_only_the_last_max_events_are_kept(make):
    """Past ``max_events`` the oldest events go; asking for one of them answers None (the
    caller sends a snapshot)."""
    store = make(max_events=3).store
    for version in range(1, 8):
        await store.append_event("ABCD", event(version))
    assert [e.version for e in await store.events_since("ABCD", 4)] == [5, 6, 7]
    assert await store.events_since("ABCD", 3) is None
    assert await store.events_since("ABCD", 0) is None
    assert await store.events_since("ABCD", 7) == []


async def test_archiving_drops_the_live_data_and_keeps_the_record(make):
    """After `archive_race` the description, move logs and events are gone; the record stays."""
    store = make().store
    await store.save_race("ABCD", {"game": "golf"})
    await store.append_move("ABCD", "p1", MoveEntry(1, "deal", 1))
    await store.append_move("ABCD", "p2", MoveEntry(1, "deal", 2))
    await store.append_event("ABCD", event(1))
    await store.save_race("WXYZ", {"game": "golf"})
    await store.archive_race("ABCD", b"the record", 60)
    assert await store.load_race("ABCD") is None
    assert await store.moves("ABCD", "p1") == [] and await store.moves("ABCD", "p2") == []
    assert await store.events_since("ABCD", 0) == []
    assert await store.load_record("ABCD") == b"the record"
    assert await store.load_race("WXYZ") == {"game": "golf"}
    await store.archive_race("WXYZ", None, 60)  # never dealt: nothing kept
    assert await store.load_race("WXYZ") is None and await store.load_record("WXYZ") is None
    assert await store.load_record("NONE") is None


async def test_a_record_expires_after_its_keep_time(make):
    """A record is kept ``keep_s`` seconds, then it is gone."""
    kit = make()
    await kit.store.archive_race("ABCD", b"kept a while", 1.0)  # (Redis: a margin for a loaded machine)
    await kit.store.archive_race("EFGH", b"kept longer", 60)
    assert await kit.store.load_record("ABCD") == b"kept a while"
    await kit.wait(0.2)
    assert await kit.store.load_record("ABCD") == b"kept a while"
    await kit.wait(0.8)
    for _ in range(100):  # Redis expires keys on its own time: poll
        await kit.wait(0.05)
        if await kit.store.load_record("ABCD") is None:
            break
    assert await kit.store.load_record("ABCD") is None
    assert await kit.store.load_record("EFGH") == b"kept longer"


async def test_only_max_records_are_kept_oldest_first(make):
    """Past ``max_records`` the oldest records go first."""
    kit = make(max_records=2)
    for code in ("AAAA", "BBBB", "CCCC"):
        await kit.store.archive_race(code, code.encode(), 60)
        await kit.wait(0.01)
    assert await kit.store.load_record("AAAA") is None
    assert await kit.store.load_record("BBBB") == b"BBBB"
    assert await kit.store.load_record("CCCC") == b"CCCC"


async def test_live_races_lists_saved_races_until_they_are_archived(make):
    """What a restarted server resumes: every race with a description, none once archived."""
    store = make().store
    assert await store.live_races() == []
    await store.save_race("ABCD", {"game": "golf"})
    await store.save_race("WXYZ", {"game": "klondike"})
    await store.save_race("ABCD", {"game": "golf", "status": "running"})  # saved again: listed once
    assert sorted(await store.live_races()) == ["ABCD", "WXYZ"]
    await store.archive_race("ABCD", b"record", 60)
    assert await store.live_races() == ["WXYZ"]
    await store.archive_race("WXYZ", None, 60)
    assert await store.live_races() == []


async def test_last_version_is_the_newest_stored_event(make):
    """A rebuilt race numbers its next event after the newest one stored (0: none yet)."""
    store = make(max_events=3).store
    assert await store.last_version("ABCD") == 0
    for version in range(1, 6):
        await store.append_event("ABCD", event(version))
    assert await store.last_version("ABCD") == 5  # trimming keeps the newest
    assert await store.last_version("WXYZ") == 0
    await store.archive_race("ABCD", None, 60)
    assert await store.last_version("ABCD") == 0


async def test_a_player_is_found_by_its_token_digest_until_forgotten_or_expired(make):
    """`save_player` keeps an id and name under a token digest for ``keep_s``; saving again
    renews it; `forget_player` drops it."""
    kit = make()
    store = kit.store
    assert await store.player_by_token("d1") is None
    await store.save_player("p1", "d1", "Ann", 60)
    await store.save_player("p2", "d2", "Bob", 0.3)
    assert await store.player_by_token("d1") == StoredPlayer("p1", "Ann")
    assert await store.player_by_token("d2") == StoredPlayer("p2", "Bob")
    await store.save_player("p1", "d1", "Ann", 60)  # renewed: still one player
    assert await store.player_by_token("d1") == StoredPlayer("p1", "Ann")
    await store.forget_player("d1")
    await store.forget_player("nobody")  # harmless
    assert await store.player_by_token("d1") is None
    for _ in range(100):  # Redis expires keys on its own time: poll
        await kit.wait(0.05)
        if await store.player_by_token("d2") is None:
            break
    assert await store.player_by_token("d2") is None


async def test_a_tournament_description_round_trips_and_is_listed_until_archived(make):
    """`save_tournament` keeps a flat description (str, int, bool, None) and lists the tournament
    as live; saving again replaces it and lists it once; `archive_tournament` drops both."""
    store = make().store
    assert await store.live_tournaments() == [] and await store.load_tournament("T1") is None
    meta = {
        "name": "Friday",
        "seeds": "[1,2]",
        "starts_at_ms": 1_700_000_000_000,
        "schedule": None,
        "current_deal": 0,
        "digits": "42",
        "withdrawn": False,
    }
    await store.save_tournament("T1", meta)
    await store.save_tournament("T2", {"name": "Daily"})
    await store.save_tournament("T1", {**meta, "current_deal": 1, "status": "running"})
    assert await store.load_tournament("T1") == {**meta, "current_deal": 1, "status": "running"}
    assert sorted(await store.live_tournaments()) == ["T1", "T2"]
    await store.archive_tournament("T1")
    await store.archive_tournament("T9")  # never saved: harmless
    assert await store.load_tournament("T1") is None
    assert await store.live_tournaments() == ["T2"]
    assert await store.load_tournament("T2") == {"name": "Daily"}
    assert await store.live_races() == [], "tournaments are not races"


async def test_schedules_are_kept_by_id_until_dropped(make):
    """`save_schedule` keeps one encoded request per schedule id (saving again replaces it);
    `schedules` answers them all; `drop_schedule` forgets one (an unknown id: nothing)."""
    store = make().store
    assert await store.schedules() == {}
    await store.save_schedule("S1", b"\x81\xa1a\x01")
    await store.save_schedule("S2", b"second")
    await store.save_schedule("S1", b"first, again")
    assert await store.schedules() == {"S1": b"first, again", "S2": b"second"}
    await store.drop_schedule("S1")
    await store.drop_schedule("S9")
    assert await store.schedules() == {"S2": b"second"}


# ----------------------------------------------------------------------------- Redis only


async def test_redis_keeps_token_digests_not_tokens(redis_at, redis_prefix):
    """A player's key is named by its token's digest, and holds only its id and name."""
    from server.players import token_digest

    store = RedisStore(redis_at.url, prefix=redis_prefix)
    raw = redis_at.raw()
    try:
        token = "secret-token-of-ann"
        await store.save_player("p1", token_digest(token), "Ann", 60)
        keys = [k.decode() for k in await raw.keys(f"{redis_prefix}:player:*")]
        assert keys == [f"{redis_prefix}:player:{token_digest(token)}"]
        value = await raw.get(keys[0])
        assert token.encode() not in value and b"secret" not in keys[0].encode()
        assert 0 < await raw.ttl(keys[0]) <= 60
    finally:
        await store.close()
        await raw.aclose()


async def test_redis_keys_of_one_race_share_a_hash_tag(redis_at, redis_prefix):
    """Every key of a race, its record included, holds ``{CODE}``: one Redis Cluster slot."""
    store = RedisStore(redis_at.url, prefix=redis_prefix)
    raw = redis_at.raw()
    try:
        await store.save_race("ABCD", {"game": "golf"})
        await store.append_move("ABCD", "p1", MoveEntry(1, "deal", 1))
        await store.append_event("ABCD", event(1))
        keys = sorted(k.decode() for k in await raw.keys(f"{redis_prefix}:race:*"))
        assert keys == [
            f"{redis_prefix}:race:{{ABCD}}:{part}" for part in ("events", "meta", "moves:p1", "owner", "players")
        ]
        # the node's live races: in the node's slot, not the race's
        assert await raw.smembers(f"{redis_prefix}:node:{{node}}:races") == {b"ABCD"}
        await store.archive_race("ABCD", b"record", 60)
        keys = sorted(k.decode() for k in await raw.keys(f"{redis_prefix}:*"))
        assert keys == [f"{redis_prefix}:record:{{ABCD}}", f"{redis_prefix}:records"]
    finally:
        await store.close()
        await raw.aclose()


async def test_redis_keeps_tournaments_and_schedules_under_their_documented_keys(redis_at, redis_prefix):
    """``P:tournament:{TID}:meta`` (a hash of JSON values), ``P:tournaments`` (the live ids) and
    ``P:schedules`` (id -> the request as MessagePack); archiving leaves nothing of a tournament."""
    store = RedisStore(redis_at.url, prefix=redis_prefix)
    raw = redis_at.raw()
    try:
        await store.save_tournament("T1", {"name": "Friday", "version": 3})
        await store.save_schedule("S1", b"request")
        assert await raw.hgetall(f"{redis_prefix}:tournament:{{T1}}:meta") == {b"name": b'"Friday"', b"version": b"3"}
        assert await raw.smembers(f"{redis_prefix}:tournaments") == {b"T1"}
        assert await raw.hgetall(f"{redis_prefix}:schedules") == {b"S1": b"request"}
        await store.archive_tournament("T1")
        await store.drop_schedule("S1")
        assert await raw.keys(f"{redis_prefix}:*") == []
    finally:
        await store.close()
        await raw.aclose()


async def test_redis_answers_none_for_events_over_a_missing_one(redis_at, redis_prefix):
    """An event that could not be stored leaves a gap: a catch-up over it gets None (a snapshot),
    one after it gets the events."""
    store = RedisStore(redis_at.url, prefix=redis_prefix)
    try:
        for version in (1, 2, 4, 5):
            await store.append_event("ABCD", event(version))
        await store.append_event("ABCD", event(5))  # stored already: nothing changes
        assert await store.events_since("ABCD", 1) is None
        assert await store.events_since("ABCD", 2) is None
        assert [e.version for e in await store.events_since("ABCD", 3)] == [4, 5]
        assert [e.version for e in await store.events_since("ABCD", 0, limit=2)] == [1, 2]
    finally:
        await store.close()


async def test_a_plain_redis_url_naming_a_node_of_a_cluster_is_refused_at_open(redis_cluster):
    """``redis://`` names one Redis: given a node of a Redis Cluster, `open` refuses it (saying to
    name the cluster with ``redis+cluster://``) rather than let every command be MOVED later."""
    store = RedisStore(redis_cluster.masters[0].url)
    try:
        with pytest.raises(StoreUnavailable, match=r"a node of a Redis Cluster: .*redis\+cluster://"):
            await store.open()
    finally:
        await store.close()


@pytest.mark.parametrize("scheme", ["redis", "redis+cluster"])
async def test_an_unreachable_redis_raises_store_unavailable(scheme):
    """Nothing listening there (one Redis, or a cluster's only seed): every call raises
    StoreUnavailable (an OSError) naming the address, within the timeout."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and nobody listens on it
    store = RedisStore(f"{scheme}://127.0.0.1:{port}/0", timeout_s=0.5)
    try:
        with pytest.raises(StoreUnavailable, match=f"127.0.0.1:{port}"):
            await store.open()
        with pytest.raises(OSError):
            await store.append_move("ABCD", "p1", MoveEntry(1, "deal", 1))
        loop = asyncio.get_running_loop()
        began = loop.time()
        with pytest.raises(StoreUnavailable):
            await store.events_since("ABCD", 0)
        assert loop.time() - began < 2000 * MS
    finally:
        await store.close()
