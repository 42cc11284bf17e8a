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
import signal
import time
from collections.abc import AsyncIterator

import pytest

from client.connection import ArenaClient, ArenaError
from client.verify import verify_record
from server import protocol as p
from server.catalog import load_catalog
from server.service import ArenaServer, ServerConfig
from server.store import MoveEntry
from server.store.redis import NotOwner, RedisStore, StaleRace
from tests.conftest import MS, RedisServer
from tests.server.test_restart import Node

#: A public Golf deal and its winning line (seeds/golf.txt): every move of it is legal.
WINNER = load_catalog(ServerConfig().catalog_dir, "golf")[0]
LINE = list(WINNER.moves)
WAIT_S = 10_000 * MS


def node_config(redis_url: str, node_id: str) -> ServerConfig:
    return ServerConfig(redis_url=redis_url, node_id=node_id, lease_s=1.0, forward_timeout_s=2.0,
                        rate_per_s=10_000, burst=10_000, ping_interval_s=None)


@pytest.fixture
async def two_nodes(redis_server, redis_prefix) -> AsyncIterator[tuple[ArenaServer, ArenaServer]]:
    """Two servers in this process sharing this test's keys in one Redis."""
    servers = []
    for name in ("one", "two"):
        store = RedisStore(redis_server.url, prefix=redis_prefix)
        server = ArenaServer(node_config(redis_server.url, name), store=store)
        await server.start()
        servers.append((server, store))
    try:
        yield servers[0][0], servers[1][0]
    finally:
        for server, store in servers:
            await server.close()
            await store.close()


async def play(client: ArenaClient, code: str, moves: list[str]) -> list[p.MoveResult]:
    results = []
    for notation in moves:
        result = await client.move(code, notation)
        assert result.ok, result
        results.append(result)
    return results


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
        assert len({e.standings[[s.player for s in e.standings].index(other.player)].moves for e in progress}) \
            == len(LINE), f"{client.name} did not see each of {other.name}'s moves live"
        assert all(e.move == "" for e in progress) is (client is not eve), "an entrant saw a move, or a " \
                                                                          "spectator did not"
    assert not two.races, "node two kept a race it does not own"

    record = await bob.get_record(info.code)
    report = verify_record(record, ann.commitments[info.code])
    assert report.ok, report.failed
    assert [e.moves for e in record.entrants] == [LINE, LINE]
    assert two.link is not None and two.link.forwarded >= len(LINE) and one.link.served >= len(LINE)
    for client in (ann, bob, eve):
        await client.close()


async def test_redis_refuses_a_move_from_a_node_that_lost_the_race(redis_server, redis_prefix):
    """Fencing: once another node has taken a race over, the old owner's writes are refused
    (`NotOwner`), and a move number that does not follow the log is refused (`StaleRace`)."""
    old = RedisStore(redis_server.url, prefix=redis_prefix, node_id="old")
    new = RedisStore(redis_server.url, prefix=redis_prefix, node_id="new")
    try:
        await old.save_race("FENCE", {"game": "golf"})
        await old.append_move("FENCE", "p1", MoveEntry(1, "1", 10))
        assert await old.owner("FENCE") == "old"
        assert not await new.claim("FENCE", "someone else")
        assert await new.claim("FENCE", "old")
        with pytest.raises(NotOwner):
            await old.append_move("FENCE", "p1", MoveEntry(2, "2", 20))
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


@pytest.fixture
async def two_node_processes(tmp_path) -> AsyncIterator[tuple[Node, Node]]:
    """``arena serve`` twice over one Redis of this test's own, with a one-second lease."""
    redis = RedisServer(tmp_path)
    redis.start()
    nodes = [Node({"redis": redis.url, "node_id": name, "lease_s": 1, "forward_timeout_s": 2,
                   "rate_per_s": 10_000, "burst": 10_000, "shutdown_grace_s": 5, "ping_interval_s": "none"})
             for name in ("one", "two")]
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
