"""Several server nodes over one Redis (server/nodes.py): real ``redis-server``, real servers on
127.0.0.1 (in this process, or ``arena serve`` child processes where a node must die), real
clients.

One node owns each race (the one that created it); entrants and spectators connected to any other
node reach it through Redis. The tests check what people see: entrants and a spectator on
different nodes race together live; when the owner dies, the other node takes its races over
and its clients, reconnected there, go on with nothing acknowledged lost or played twice; and
that Redis itself refuses a move from a node that no longer owns the race."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import AsyncIterator

import pytest

from client.bot import run_tournament_bot
from client.connection import ArenaClient, ArenaError
from client.verify import verify_record
from server import protocol as p
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from server.store import MoveEntry, StoredEvent, StoreUnavailable
from server.store.redis import NotOwner, RedisStore, StaleRace
from tests.conftest import MS, RedisClusterServer, RedisServer
from tests.server.test_restart import Node, play

#: A public Golf deal and its winning line (seeds/golf.txt): every move of it is legal.
WINNER = load_catalog(public_catalogs(), "golf")[0]
LINE = list(WINNER.moves)
WAIT_S = 10_000 * MS


def node_config(redis_url: str, node_id: str) -> ServerConfig:
    # (fanout_busy_share over 1: the fan-out never holds frames for its tick, however busy this
    # process's loop is with both nodes and every client, so each move's standings reach everyone)
    return ServerConfig(
        redis_url=redis_url,
        node_id=node_id,
        lease_s=1.0,
        forward_timeout_s=2.0,
        rate_per_s=10_000,
        burst=10_000,
        ping_interval_s=None,
        fanout_busy_share=2.0,
    )


@pytest.fixture
async def two_nodes(redis_at, redis_prefix) -> AsyncIterator[tuple[ArenaServer, ArenaServer]]:
    """Two servers in this process sharing this test's keys in one Redis, or in a Redis Cluster
    of three masters (each test that uses them runs over both)."""
    servers = []
    for name in ("one", "two"):
        store = RedisStore(redis_at.url, prefix=redis_prefix)
        server = ArenaServer(node_config(redis_at.url, name), store=store)
        await server.start()
        servers.append((server, store))
    try:
        yield servers[0][0], servers[1][0]
    finally:
        for server, store in servers:
            await server.close()
            await store.close()


async def test_entrants_and_a_spectator_on_two_nodes_race_together(two_nodes):
    """Ann on node one creates the race; Bob joins and Eve watches from node two. Both play to a
    win, each seeing the other's progress live; Eve sees every move and the same final
    standings; node two answers the record, which verifies with every move once."""
    one, two = two_nodes
    ann = await ArenaClient.connect(one.url, "ann", timeout_s=WAIT_S)
    bob = await ArenaClient.connect(two.url, "bob", timeout_s=WAIT_S)
    eve = await ArenaClient.connect(two.url, "eve", timeout_s=WAIT_S)
    assert (ann.welcome.node, bob.welcome.node) == ("one", "two")
    info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
    assert info.code in one.races and info.code not in two.races
    joined = await bob.join_race(info.code)
    assert joined.entrants == ["ann", "bob"]
    watched = await eve.watch(info.code)
    assert watched.race.code == info.code and not watched.boards
    await ann.start_race(info.code)
    for client in (ann, bob):
        await client.wait_for(lambda c=client: info.code in c.started, WAIT_S)

    half = len(LINE) // 2
    await play(bob, info.code, LINE[:half])
    await play(ann, info.code, LINE)
    await play(bob, info.code, LINE[half:])
    for client in (ann, bob, eve):
        await client.wait_for(lambda c=client: info.code in c.finished, WAIT_S)
    assert [(s.name, s.status) for s in eve.finished[info.code].standings] == [("ann", "won"), ("bob", "won")]
    assert eve.finished[info.code].standings == ann.finished[info.code].standings == bob.finished[info.code].standings
    for client, other in ((ann, bob), (bob, ann), (eve, bob)):
        progress = [e for e in client.pending_events() if isinstance(e, p.Progress) and e.player == other.player]
        assert len({e.standings[[s.player for s in e.standings].index(other.player)].moves for e in progress}) == len(
            LINE
        ), f"{client.name} did not see each of {other.name}'s moves live"
        assert all(e.move == "" for e in progress) is (client is not eve), (
            "an entrant saw a move, or a spectator did not"
        )
    assert not two.races, "node two kept a race it does not own"

    record = await bob.get_record(info.code)
    report = verify_record(record, ann.commitments[info.code])
    assert report.ok, report.failed
    assert [e.moves for e in record.entrants] == [LINE, LINE]
    assert two.link is not None and two.link.forwarded >= len(LINE) and one.link.served >= len(LINE)
    for client in (ann, bob, eve):
        await client.close()


async def test_the_lobby_lists_the_races_of_every_node(two_nodes):
    """`arena races` on either node lists the open races created on both in pages, in the
    lobby's order (a player's own races on its node first, then those somebody joined, then the
    newest first); a race that starts moves to the live listing, with its entrants as they stand."""
    one, two = two_nodes
    ann = await ArenaClient.connect(one.url, "ann", timeout_s=WAIT_S)
    bob = await ArenaClient.connect(two.url, "bob", timeout_s=WAIT_S)
    made = []
    for client in (ann, bob, ann):
        made.append((await client.create_race("golf", seed=WINNER.seed, countdown_s=0)).code)
        await asyncio.sleep(0.005)  # distinct creation instants
    await bob.join_race(made[0])

    async def listed(client: ArenaClient, status: str) -> list[p.RaceInfo]:
        infos, before = [], None
        while True:
            page = await client.list_races(status, before=before, limit=2)
            infos += page.races
            if page.cursor is None:
                return infos
            before = page.cursor

    eve = await ArenaClient.connect(two.url, "eve", timeout_s=WAIT_S)
    joined_first = [made[0], made[2], made[1]]  # the race bob joined, then the newest first
    deadline = time.monotonic() + WAIT_S
    while [i.code for i in await listed(eve, "open")] != joined_first and time.monotonic() < deadline:
        await asyncio.sleep(0.02)  # each owner writes its changes at the end of its loop turn
    for client, order in ((eve, joined_first), (ann, joined_first), (bob, [made[1], made[0], made[2]])):
        infos = await listed(client, "open")
        assert [i.code for i in infos] == order, client.name
        assert infos[order.index(made[0])].entrants == ["ann", "bob"]
    await ann.start_race(made[0])
    while [i.code for i in await listed(ann, "live")] != [made[0]] and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert [i.code for i in await listed(bob, "live")] == [made[0]]
    assert [i.code for i in await listed(eve, "open")] == made[:0:-1]
    for client in (ann, bob, eve):
        await client.close()


async def test_only_the_leader_schedules_a_schedule_file_and_a_new_leader_does_then(two_nodes, tmp_path):
    """`arena serve --tournaments FILE` on a node that does not lead schedules nothing (the
    leader runs the tournaments); when it takes the lead it schedules the file's entries, once,
    and the store keeps them."""
    one, two = two_nodes
    assert one.leading and not two.leading
    path = tmp_path / "tournaments.toml"
    path.write_text('[[tournament]]\nname = "Friday Golf"\ngame = "golf"\ndeals = 2\ncron = "0 20 * * FRI"\n')
    two.schedule_file = path  # as `serve` sets it; it loads the file only on a leader
    assert not two.tournaments and not one.tournaments
    await one.close()  # a graceful stop gives the lock up
    deadline = time.monotonic() + WAIT_S
    while not (two.leading and two.tournaments) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    (made,) = two.tournaments.values()
    assert made.plan.name == "Friday Golf" and made.status in ("scheduled", "registration")
    assert list(two.schedules) == [made.plan.schedule.split(":")[0]]
    while await two.store.live_tournaments() != [made.id] and time.monotonic() < deadline:
        await asyncio.sleep(0.02)  # (a new tournament is stored by a task of its own)
    assert await two.store.live_tournaments() == [made.id]
    assert [t.id for t in two.load_schedule(path)] == [made.id]  # found by its digest, not made again


async def test_redis_refuses_a_move_from_a_node_that_lost_the_race(redis_at, redis_prefix):
    """Fencing: once another node has taken a race over, the old owner's writes are refused
    (`NotOwner`), and a move number that does not follow the log is refused (`StaleRace`)."""
    old = RedisStore(redis_at.url, prefix=redis_prefix, node_id="old")
    new = RedisStore(redis_at.url, prefix=redis_prefix, node_id="new")
    try:
        await old.save_race("FENCE", {"game": "golf"})
        await old.append_move("FENCE", "p1", MoveEntry(1, "1", 10))
        assert await old.owner("FENCE") == "old"
        assert not await new.claim("FENCE", "someone else")
        assert await new.claim("FENCE", "old")
        assert await new.claim("FENCE", "old"), "a claim tried again (its answer lost) is not the new owner's"
        with pytest.raises(NotOwner):
            await old.append_move("FENCE", "p1", MoveEntry(2, "2", 20))
        with pytest.raises(NotOwner):
            await old.archive_race("FENCE", b"a record", 60)
        assert await new.load_race("FENCE") == {"game": "golf"} and await new.load_record("FENCE") is None
        with pytest.raises(NotOwner):
            await old.save_race("FENCE", {"game": "golf"})
        with pytest.raises(StaleRace):
            await new.append_move("FENCE", "p1", MoveEntry(3, "3", 30))  # 2 is missing
        await new.append_move("FENCE", "p1", MoveEntry(2, "2", 20))
        assert [m.seq for m in await new.moves("FENCE", "p1")] == [1, 2]
        assert await new.live_races() == ["FENCE"]
    finally:
        await old.close()
        await new.close()


async def test_in_a_cluster_a_race_keeps_to_one_slot_and_races_spread_over_every_master(redis_cluster, redis_prefix):
    """Over a Redis Cluster every key of a race (description, owner, players, move logs, events;
    once archived, its record) hashes to one slot, that of ``{CODE}``, and lies on the one master
    that serves it (as CLUSTER KEYSLOT and each master's own keys say); thirty races spread over
    all three masters."""
    import re

    import redis.asyncio as aioredis

    store = RedisStore(redis_cluster.url, prefix=redis_prefix, node_id="one")
    masters = {m.port: aioredis.Redis(port=m.port) for m in redis_cluster.masters}
    codes = [f"S{n:02d}LOT" for n in range(30)]
    try:
        for code in codes:
            await store.save_race(code, {"game": "golf"})
            for player in ("p1", "p2"):
                await store.append_move(code, player, MoveEntry(1, "deal", 1))
            await store.append_event(code, StoredEvent(1, b"frame", b"frame"))
        await store.archive_race(codes[0], b"the record", 60)
        held: dict[str, dict[int, list[str]]] = {}  # code -> master port -> its keys there
        for port, raw in masters.items():
            for key in (k.decode() for k in await raw.keys(f"{redis_prefix}:*")):
                tag = re.search(r"{(.+?)}", key)
                if tag and tag[1] in codes:
                    held.setdefault(tag[1], {}).setdefault(port, []).append(key)
        assert sorted(held) == codes
        any_master = next(iter(masters.values()))
        for code, where in held.items():
            assert len(where) == 1, f"race {code} is spread over masters {sorted(where)}"
            ((port, keys),) = where.items()
            parts = sorted(key.split("}", 1)[1] for key in keys)
            assert parts == (
                [""] if code == codes[0] else [":events", ":meta", ":moves:p1", ":moves:p2", ":owner", ":players"]
            ), (code, keys)
            slots = {await any_master.cluster("keyslot", key) for key in keys}
            assert slots == {await any_master.cluster("keyslot", f"{{{code}}}")}, (code, keys, slots)
            assert redis_cluster.master_of(f"{{{code}}}").port == port
        used = {port for where in held.values() for port in where}
        assert used == set(masters), f"thirty races on {len(used)} of {len(masters)} masters"
    finally:
        await store.close()
        for raw in masters.values():
            await raw.aclose()


async def test_a_node_hears_its_inbox_again_after_the_cluster_master_serving_it_restarts(redis_cluster, redis_prefix):
    """A node's inbox is a sharded channel, served by the master of its slot. That master is
    killed (SIGKILL) while node one listens: node two's sends fail meanwhile; once the master is
    back (same port, same data) node one has subscribed again by itself and hears node two."""
    one = RedisStore(redis_cluster.url, prefix=redis_prefix, node_id="one", timeout_s=0.5)
    two = RedisStore(redis_cluster.url, prefix=redis_prefix, node_id="two", timeout_s=0.5)
    heard: asyncio.Queue[bytes] = asyncio.Queue()

    async def listen() -> None:
        async for payload in one.listen():
            heard.put_nowait(payload)

    async def send_until_heard(payload: bytes) -> None:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            with contextlib.suppress(StoreUnavailable):  # the cluster is still finding its master again
                await two.publish("one", payload)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.2):
                    while await heard.get() != payload:  # copies of an earlier payload, sent twice
                        pass
                    return
        raise AssertionError(f"node one never heard {payload!r}")

    listening = asyncio.get_running_loop().create_task(listen())
    master = redis_cluster.master_of(one.inbox_channel("one"))
    try:
        await send_until_heard(b"before")
        await asyncio.to_thread(redis_cluster.kill, master)
        with pytest.raises(StoreUnavailable):
            await two.publish("one", b"lost")
        await asyncio.to_thread(redis_cluster.revive, master)
        await send_until_heard(b"after")
        assert not listening.done()
    finally:
        if master.process is None:
            await asyncio.to_thread(redis_cluster.revive, master)
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
        await one.close()
        await two.close()


@pytest.fixture(params=["redis", "redis-cluster"])
async def two_node_processes(request, tmp_path) -> AsyncIterator[tuple[Node, Node]]:
    """``arena serve`` twice over one Redis of this test's own, or a Redis Cluster of three
    masters of its own (``--redis redis+cluster://...``), with a one-second lease."""
    redis = RedisClusterServer(tmp_path) if request.param == "redis-cluster" else RedisServer(tmp_path)
    async with node_pair(redis, {"shutdown_grace_s": 5}) as pair:
        yield pair


@contextlib.asynccontextmanager
async def node_pair(redis: RedisServer, limits: dict[str, object]) -> AsyncIterator[tuple[Node, Node]]:
    """Start ``redis``, then nodes "one" (first: the leader) and "two" over it with a one-second
    lease and ``limits``; stop them all at the end."""
    redis.start()
    nodes = [
        Node(
            {
                "redis": redis.url,
                "node_id": name,
                "lease_s": 1,
                "forward_timeout_s": 2,
                "rate_per_s": 10_000,
                "burst": 10_000,
                "ping_interval_s": "none",
                **limits,
            }
        )
        for name in ("one", "two")
    ]
    try:
        for node in nodes:
            await node.start()
        yield nodes[0], nodes[1]
    finally:
        for node in nodes:
            node.stop()
        redis.stop()


async def reconnect_to(client: ArenaClient, url: str) -> dict[str, p.Snapshot]:
    """Reconnect ``client`` to ``url`` (the load balancer sends it to a live node), retrying
    while the node is still taking the race over."""
    client.url = url
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            return await client.reconnect()
        except ArenaError as exc:
            if exc.code not in ("disconnected", "timeout", "unavailable") or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def move_until_taken(client: ArenaClient, code: str, notation: str) -> p.MoveResult:
    """Play a move, sending it again while its race is between owners (``unavailable``)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        result = await client.move(code, notation)
        if result.ok or result.code != "unavailable" or time.monotonic() > deadline:
            return result
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
async def test_when_the_owner_dies_the_other_node_takes_the_race_over(two_node_processes, signum):
    """Node one owns the race and serves Ann; Bob plays through node two. Node one dies mid-race
    (SIGKILL: a crash; SIGTERM: it gives its lease up as it stops). Node two takes the race over;
    Ann reconnects to node two with her token; her last move resent gets its first answer;
    both win; the record has every acknowledged move exactly once, as in an undisturbed run."""
    one, two = two_node_processes
    ann = await ArenaClient.connect(one.url, "ann", timeout_s=WAIT_S)
    bob = await ArenaClient.connect(two.url, "bob", timeout_s=WAIT_S)
    info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
    code = info.code
    await bob.join_race(code)
    await ann.start_race(code)
    for client in (ann, bob):
        await client.wait_for(lambda c=client: code in c.started, WAIT_S)
    before = {"ann": await play(ann, code, LINE[:12]), "bob": await play(bob, code, LINE[:7])}

    await one.halt(signum)
    taken_from = time.monotonic()
    snapshot = (await reconnect_to(ann, two.url))[code]
    assert snapshot.race.status == "running" and snapshot.next_seq == 13
    ann._next_seq[code] = 12  # ann never saw move 12's answer: she sends it again
    again = await move_until_taken(ann, code, LINE[11])
    assert again == before["ann"][-1], "a resent move got another answer after the takeover"
    first_bob = await move_until_taken(bob, code, LINE[7])
    assert first_bob.ok and first_bob.seq == 8, first_bob
    took_s = time.monotonic() - taken_from
    after = {"ann": await play(ann, code, LINE[12:]), "bob": [first_bob, *await play(bob, code, LINE[8:])]}
    for client in (ann, bob):
        await client.wait_for(lambda c=client: code in c.finished, WAIT_S)
    assert [s.status for s in ann.finished[code].standings] == ["won", "won"]
    assert ann.finished[code].standings == bob.finished[code].standings

    record = await bob.get_record(code)
    assert verify_record(record, ann.commitments[code]).ok
    for entrant in record.entrants:
        acked = before[entrant.name] + after[entrant.name]
        assert [r.seq for r in acked] == list(range(1, len(LINE) + 1))
        assert entrant.moves == LINE
    assert took_s < 8, f"the takeover took {took_s:.1f} s"
    log = two.log_text()
    assert "Traceback" not in log, log[-3000:]
    for client in (ann, bob):
        await client.close()


ADMIN = "organiser-secret"


@pytest.fixture
async def leader_and_follower(tmp_path) -> AsyncIterator[tuple[Node, Node]]:
    """Two ``arena serve`` nodes over one Redis, the first started first (the leader), with an
    organisers' token."""
    async with node_pair(RedisServer(tmp_path), {"admin_token": ADMIN}) as pair:
        yield pair


async def test_when_the_leader_dies_another_node_runs_its_tournament_on(leader_and_follower):
    """Node one leads, so it runs the tournament that the organiser created through node two;
    three bots play it through node two. Node one is killed during deal 1: node two takes the
    lead and the deal's race over, deal 1 ends once, deal 2 is dealt once, and every move a bot
    had acknowledged is in the records exactly once."""
    one, two = leader_and_follower
    org = await ArenaClient.connect(two.url, "org", timeout_s=WAIT_S)
    bots = [await ArenaClient.connect(two.url, f"bot{i}", timeout_s=WAIT_S) for i in range(3)]
    starts = time.time() + 2
    info = await org.create_tournament(
        ADMIN,
        "Night owls",
        "golf",
        2,
        format="rounds",
        seeds=[WINNER.seed] * 2,
        starts_at=time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(starts)) + "Z",
        deal_time_limit_s=60,
        countdown_s=1,
        break_s=1,
        max_entries_per_address=0,  # (the bots share one address)
    )
    tid = info.id
    playing = [asyncio.ensure_future(run_tournament_bot(bot, tid, delay_ms=30)) for bot in bots]
    await bots[0].wait_for(lambda: tid in bots[0].tournaments and len(bots[0].tournaments[tid].races) >= 1, WAIT_S)
    first = bots[0].tournaments[tid].races[0]
    await bots[0].wait_for(lambda: first in bots[0].started, WAIT_S)
    await asyncio.sleep(0.3)  # a few moves into deal 1
    await one.halt(signal.SIGKILL)

    results = await asyncio.wait_for(asyncio.gather(*playing), 60)
    for bot in bots:
        await bot.wait_for(lambda b=bot: b.tournaments[tid].status == "finished", WAIT_S)
    final = bots[0].tournaments[tid]
    assert len(final.races) == 2 and len(set(final.races)) == 2, final.races
    assert [len(r) for r in results] == [2, 2, 2], "a bot missed a deal"
    for deal, code in enumerate(final.races):
        record = await org.get_record(code)
        assert verify_record(record).ok
        moves = {e.name: len(e.moves) for e in record.entrants}
        assert moves == {bot.name: results[i][deal].moves for i, bot in enumerate(bots)}, (
            "the record and the bots' acknowledged moves differ"
        )
    log = two.log_text()
    assert "leads now" in log and "Traceback" not in log, log[-3000:]
    for client in (org, *bots):
        await client.close()
