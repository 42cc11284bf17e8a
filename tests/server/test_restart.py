"""A node that stops mid-race and starts again over the same Redis resumes its races: real
``redis-server``, real ``arena serve`` child processes on 127.0.0.1, real clients.

Each test has a Redis of its own (so that the node resumes only the test's races) and restarts
the node on the same port: its entrants reconnect with their tokens and go on from their last
acknowledged move; a resent last move gets its first answer again and is not played twice."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect

from client.connection import ArenaClient, ArenaError
from client.verify import verify_record
from server import protocol as p
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from server.race import Clock
from server.store.redis import RedisStore
from tests.conftest import MS, RedisServer
from tests.server.conftest import FastClock, Peer
from tooling.server_process import _ROOT, ServerProcess

#: A public Golf deal and its winning line (seeds/golf.txt): every move of it is legal.
WINNER = load_catalog(public_catalogs(), "golf")[0]
LINE = list(WINNER.moves)
#: Seconds the waits of these tests allow (scaled like every test time).
WAIT_S = 10_000 * MS


class Node(ServerProcess):
    """`arena serve --redis URL` in a child process (`ServerProcess` keeps its port and its log
    when started again), with this test's patience for a start."""

    async def start(self, timeout_s: float = WAIT_S) -> None:
        await super().start(timeout_s)

    async def halt(self, signum: int) -> int:
        """Send ``signum`` (SIGTERM: drain; SIGKILL: a crash) and wait for the exit code: the
        drain takes at most its grace (5 s) and the close, and a loaded machine may take as long
        again; past three times `WAIT_S` the test fails with the node's log."""
        assert self.process is not None
        self.process.send_signal(signum)
        try:
            return await asyncio.to_thread(self.process.wait, 3 * WAIT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the node did not exit on signal {signum}; its log ends:\n{self.log_text()[-3000:]}")


@contextlib.asynccontextmanager
async def node_over_redis(folder, **limits: object) -> AsyncIterator[Node]:
    """A started node (`arena serve` with ``limits`` added) over a Redis of its own, its data in
    ``folder``; both stopped at the end."""
    redis = RedisServer(folder)
    redis.start()
    server = Node(
        {
            "redis": redis.url,
            "rate_per_s": 10_000,
            "burst": 10_000,
            "shutdown_grace_s": 5,
            "ping_interval_s": "none",
            **limits,
        }
    )
    try:
        await server.start()
        yield server
    finally:
        server.stop()
        redis.stop()


@pytest.fixture
async def node(tmp_path) -> AsyncIterator[Node]:
    """A node over a Redis of this test's own."""
    async with node_over_redis(tmp_path) as server:
        yield server


async def reconnect(client: ArenaClient) -> dict[str, p.Snapshot]:
    """`ArenaClient.reconnect` until the restarted node answers (it may still be starting)."""
    deadline = time.monotonic() + WAIT_S
    while True:
        try:
            return await client.reconnect()
        except ArenaError as exc:
            if exc.code not in ("disconnected", "timeout") or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)


async def race_of_two(node: Node) -> tuple[ArenaClient, ArenaClient, str]:
    """Ann and Bob in a started race on the catalog deal."""
    ann = await ArenaClient.connect(node.url, "ann", timeout_s=WAIT_S)
    bob = await ArenaClient.connect(node.url, "bob", timeout_s=WAIT_S)
    info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
    await bob.join_race(info.code)
    await ann.start_race(info.code)
    for client in (ann, bob):
        await client.wait_for(lambda c=client: info.code in c.started, WAIT_S)
    return ann, bob, info.code


async def play(client: ArenaClient, code: str, moves: list[str]) -> list[p.MoveResult]:
    results = []
    for notation in moves:
        result = await client.move(code, notation)
        assert result.ok, result
        results.append(result)
    return results


async def resend_last(client: ArenaClient, code: str, last: p.MoveResult) -> p.MoveResult:
    """Send move ``last.seq`` again, with the same notation (a client that never got its answer)."""
    client._next_seq[code] = last.seq
    again = await client.move(code, last.move)
    assert client._next_seq[code] == last.seq + 1
    return again


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
async def test_a_race_goes_on_after_the_node_restarts(node, signum):
    """Mid-race the node stops (SIGTERM: drained, the race not ended; SIGKILL: nothing at all)
    and starts again on the same port over the same Redis: each entrant reconnects with its
    token, its last move resent gets the same answer and is not doubled, both win, and the
    record verifies with every acknowledged move exactly once, in order."""
    ann, bob, code = await race_of_two(node)
    before = {"ann": await play(ann, code, LINE[:12]), "bob": await play(bob, code, LINE[:7])}
    tokens = (ann.token, bob.token)

    exit_code = await node.halt(signum)
    assert exit_code == (0 if signum == signal.SIGTERM else -signal.SIGKILL), node.log_text()[-2000:]
    assert code not in ann.finished and code not in bob.finished, "the shutdown ended the race"
    if signum == signal.SIGTERM:
        await ann.wait_for(lambda: not ann.connected, WAIT_S)
        assert (ann._ws.close_code, ann._ws.close_reason) == (1001, "server shutting down")
    await node.start()

    for client, name in ((ann, "ann"), (bob, "bob")):
        snapshot = (await reconnect(client))[code]
        assert client.token == tokens[0 if name == "ann" else 1] and client.name == name
        assert snapshot.race.status == "running" and snapshot.next_seq == len(before[name]) + 1
        mine = next(s for s in snapshot.standings if s.name == name)
        assert (mine.status, mine.moves) == ("playing", len(before[name]))
        assert snapshot.elapsed_ms >= before[name][-1].elapsed_ms
        again = await resend_last(client, code, before[name][-1])
        assert again == before[name][-1], "a resent move got another answer"
    after = {"ann": await play(ann, code, LINE[12:]), "bob": await play(bob, code, LINE[7:])}
    for client in (ann, bob):
        await client.wait_for(lambda c=client: code in c.finished, WAIT_S)
    finished = ann.finished[code]
    assert finished.reason == "all_done"
    assert [s.status for s in finished.standings] == ["won", "won"]

    record = await ann.get_record(code)
    report = verify_record(record, ann.commitments[code])
    assert report.ok, report.failed
    for entrant in record.entrants:
        acked = before[entrant.name] + after[entrant.name]
        assert [r.seq for r in acked] == list(range(1, len(LINE) + 1))
        assert entrant.moves == [r.move for r in acked] == LINE
    log = node.log_text()
    assert "resumed 1 races" in log and "Traceback" not in log
    for client in (ann, bob):
        await client.close()


async def test_a_finished_race_still_answers_its_record_after_a_restart(node):
    """A race that finished before the restart is rebuilt as finished: `get_record` and
    `arena verify` check it."""
    ann = await ArenaClient.connect(node.url, "ann", timeout_s=WAIT_S)
    info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
    await ann.start_race(info.code)
    await ann.wait_for(lambda: info.code in ann.started, WAIT_S)
    await play(ann, info.code, LINE)
    await ann.wait_for(lambda: info.code in ann.finished, WAIT_S)
    commitment = ann.commitments[info.code]
    await ann.close()

    assert await node.halt(signal.SIGTERM) == 0
    await node.start()

    async with await ArenaClient.connect(node.url, "checker", timeout_s=WAIT_S) as checker:
        record = await checker.get_record(info.code)
    assert record.race.status == "finished" and record.entrants[0].moves == LINE
    assert record.standings[0].status == "won"
    report = verify_record(record, commitment)
    assert report.ok, report.failed
    arena = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        "verify",
        info.code,
        "--server",
        node.url,
        "--commitment",
        commitment,
        cwd=_ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "200"},
    )
    out, _ = await asyncio.wait_for(arena.communicate(), WAIT_S)
    assert arena.returncode == 0, out.decode()


@pytest.mark.parametrize("lost", [False, True], ids=["stored", "last-event-lost"])
async def test_a_spectator_syncs_after_the_restart_from_its_last_version(node, lost):
    """A spectator watched before the restart; after it, on a new connection with its token, it
    syncs from the last version it saw and gets exactly the events it missed, numbered on from
    before the restart, then the snapshot.

    ``lost``: the node died after the spectator saw the last move's event and before that event
    reached Redis (the move did: a move is stored first, its event after). The rebuilt race
    numbers on after the lost event, from the move's stored version, so the spectator still gets
    exactly the moves it missed; one that saw less gets the snapshot alone (an event is gone)."""
    ann = await ArenaClient.connect(node.url, "ann", timeout_s=WAIT_S)
    sam = await ArenaClient.connect(node.url, "sam", timeout_s=WAIT_S)
    info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
    code = info.code
    await ann.start_race(code)
    await ann.wait_for(lambda: code in ann.started, WAIT_S)
    await sam.watch(code)
    await play(ann, code, LINE[:5])
    await sam.wait_for(lambda: sam.last_version.get(code, 0) >= ann.last_version[code], WAIT_S)
    seen = sam.last_version[code]
    token = sam.token
    await sam.close()

    assert await node.halt(signal.SIGKILL) == -signal.SIGKILL
    if lost:
        redis = aioredis.Redis.from_url(str(node.limits["redis"]))
        try:
            (events_key,) = [key async for key in redis.scan_iter(match=f"*:race:{{{code}}}:events")]
            ((last_id, _),) = await redis.xrevrange(events_key, count=1)
            assert int(last_id.split(b"-")[0]) == seen
            await redis.xdel(events_key, last_id)
        finally:
            await redis.aclose()
    await node.start()
    await reconnect(ann)
    missed = await play(ann, code, LINE[5:8])

    async with await ArenaClient.connect(node.url, "sam", token=token, timeout_s=WAIT_S) as again:
        assert again.player == sam.player
        snapshot = await again.sync(code, seen)
        events = [e for e in again.pending_events() if isinstance(e, p.Progress)]
        assert [e.version for e in events] == list(range(seen + 1, snapshot.race.version + 1))
        assert [e.move for e in events] == [r.move for r in missed]  # a spectator sees every move
        assert snapshot.race.status == "running" and len(snapshot.boards) == 1
    async with await ArenaClient.connect(node.url, "sam", token=token, timeout_s=WAIT_S) as fresh:
        since = seen - 1 if lost else 0  # (not lost: the events from before the restart are kept too)
        behind = await fresh.sync(code, since)
        assert behind.race.version == snapshot.race.version
        moves = [e.move for e in fresh.pending_events() if isinstance(e, p.Progress)]
        assert moves == ([] if lost else LINE[:8])
    with contextlib.suppress(ArenaError):
        await ann.close()


# ------------------------------------------------------------------ in-process nodes, one Redis


async def peer(url: str, name: str, token: str | None = None) -> Peer:
    client = Peer(await connect(url, compression=None))
    await client.hello(name, token)
    return client


async def until(condition, what: str) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after `WAIT_S`."""
    try:
        async with asyncio.timeout(WAIT_S):
            while not condition():
                await asyncio.sleep(0.01)
    except TimeoutError:
        pytest.fail(f"waited in vain for {what}")


async def test_resent_moves_get_their_first_answers_after_a_restart(redis_server, redis_prefix):
    """A client that resends its last few moves after a restart (it never got their answers)
    gets each first answer again, replayed from the log; nothing is played twice."""
    config = ServerConfig(ping_interval_s=None)
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        async with ArenaServer(config, store=store) as first:
            ann = await peer(first.url, "ann")
            code = (
                await ann.request(p.CreateRace(req=1, game="golf", seed=WINNER.seed, countdown_s=0), p.RaceReply)
            ).race.code
            await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
            await ann.expect(p.RaceStarted)
            answers = [await ann.move(code, seq, move) for seq, move in enumerate(LINE[:6], start=1)]
            assert all(a.ok for a in answers)
            await ann.close()
        async with ArenaServer(config, store=store) as second:
            ann = await peer(second.url, "ann", token=ann.token)
            for seq in (4, 5, 6, 1):
                assert await ann.move(code, seq, LINE[seq - 1]) == answers[seq - 1]
            entrant = second.races[code].entrants[ann.player]
            assert (entrant.moves, entrant.last_seq) == (6, 6)
            assert (await ann.move(code, 7, LINE[6])).ok
            assert [m.seq for m in await store.moves(code, ann.player)] == list(range(1, 8))
            await ann.close()
    finally:
        await store.close()


async def test_a_race_whose_time_limit_passed_while_no_node_ran_ends_at_once(redis_server, redis_prefix):
    """The node stops; it starts again after the race's time limit (its wall clock a minute
    later): the rebuilt race ends at once (``time_limit``), entrants out of time with the moves
    they made, and its record verifies."""
    config = ServerConfig(ping_interval_s=None)
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        async with ArenaServer(config, store=store) as first:
            ann = await peer(first.url, "ann")
            code = (
                await ann.request(
                    p.CreateRace(req=1, game="golf", seed=WINNER.seed, countdown_s=0, time_limit_s=10), p.RaceReply
                )
            ).race.code
            await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
            await ann.expect(p.RaceStarted)
            for seq, move in enumerate(LINE[:3], start=1):
                assert (await ann.move(code, seq, move)).ok
            await ann.close()
        later = FastClock(1, start_ms=Clock().wall_ms() + 60_000)
        async with ArenaServer(config, store=store, clock=later) as second:
            race = second.races[code]
            await until(lambda: race.status == "finished", "the race to end")
            assert race.finish_reason == "time_limit"
            (standing,) = race.standings()
            assert (standing.status, standing.moves) == ("out_of_time", 3)
            ann = await peer(second.url, "ann", token=ann.token)
            record = await ann.request(p.GetRecord(req=3, race=code), p.RaceRecord)
            assert verify_record(record).ok and record.entrants[0].moves == LINE[:3]
            await ann.close()
    finally:
        await store.close()


async def won_race(server: ArenaServer) -> tuple[Peer, str]:
    """Ann, connected to ``server``, and the code of a casual Golf race she played alone and won
    (the catalog's winning line), finished."""
    ann = await peer(server.url, "ann")
    code = (await ann.request(p.CreateRace(req=1, game="golf", seed=WINNER.seed, countdown_s=0), p.RaceReply)).race.code
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    await ann.expect(p.RaceStarted)
    for seq, move in enumerate(LINE, start=1):
        assert (await ann.move(code, seq, move)).ok
    await until(lambda: server.races[code].status == "finished", "the race to finish")
    return ann, code


async def test_a_finished_races_par_is_kept_across_a_restart(redis_server, redis_prefix):
    """The par worked out after a race finished is stored with the race: the server that starts
    again over the same Redis has it, and the record it gives carries it. Its event, published
    after the race's description is saved, is lost here before it reached Redis (a crash): the
    description counted it, so the restarted server numbers on after it."""
    config = ServerConfig(ping_interval_s=None)
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    par = p.Par(result="won", best_cleared=52, total=52, nodes=1234, seconds=0.25)
    try:
        async with ArenaServer(config, store=store) as first:
            ann, code = await won_race(first)
            await first.races[code].set_par(par)  # as the par workers do (`ArenaServer._work_out_par`)
            event = await ann.expect(p.RacePar)
            assert event.par == par
            await ann.close()
        redis = aioredis.Redis.from_url(redis_server.url)
        try:
            assert await redis.xdel(f"{redis_prefix}:race:{{{code}}}:events", f"{event.version}-1") == 1
        finally:
            await redis.aclose()
        async with ArenaServer(config, store=store) as second:
            assert second.races[code].par == par
            assert second.races[code].version == event.version
            ann = await peer(second.url, "ann", token=ann.token)
            record = await ann.request(p.GetRecord(req=3, race=code), p.RaceRecord)
            assert record.race.par == par and verify_record(record).ok
            await ann.close()
    finally:
        await store.close()


async def test_a_rematch_offer_is_kept_across_a_restart(redis_server, redis_prefix):
    """A finished race's rematch is stored with it when it is offered: the server that starts
    again over the same Redis still names it, and numbers its events on after the offer's."""
    config = ServerConfig(ping_interval_s=None)
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        async with ArenaServer(config, store=store) as first:
            ann, code = await won_race(first)
            rematch = (await ann.request(p.Rematch(req=3, race=code), p.RaceReply)).race.code
            offer = await ann.expect(p.RematchOffer)
            await ann.close()
        async with ArenaServer(config, store=store) as second:
            race = second.races[code]
            assert race.info().rematch == rematch and race.version == offer.version
    finally:
        await store.close()


async def test_double_or_naught_rounds_are_kept_across_a_restart(redis_server, redis_prefix):
    """A winner's Double or Naught rounds are stored as they are dealt and played: after a
    restart over the same Redis the points and the rounds are the same, a round dealt before the
    restart is played on after it, and the record verifies with every decided round."""
    config = ServerConfig(ping_interval_s=None)
    store = RedisStore(redis_server.url, prefix=redis_prefix)

    async def play_out(client: Peer, bonus: p.Bonus, req: int) -> p.Bonus:
        while not bonus.decided:
            move = "deal" if bonus.outcome == "tie" else "guess r2"
            bonus = await client.request(p.BonusMove(req=req, race=code, move=move), p.Bonus)
            assert isinstance(bonus, p.Bonus), bonus
            req += 1
        return bonus

    try:
        async with ArenaServer(config, store=store) as first:
            ann, code = await won_race(first)
            bonus = await play_out(ann, await ann.request(p.DoubleOrNaught(req=3, race=code), p.Bonus), 4)
            if bonus.outcome == "win":  # a second round, dealt and left in play
                bonus = await ann.request(p.DoubleOrNaught(req=5, race=code), p.Bonus)
                assert bonus.round == 2 and not bonus.decided
            before = first.races[code].entrants[ann.player]
            points, rounds = before.points, [(r.seed, list(r.moves)) for r in before.bonus]
            await ann.close()
        async with ArenaServer(config, store=store) as second:
            after = second.races[code].entrants[ann.player]
            assert after.points == points and [(r.seed, r.moves) for r in after.bonus] == rounds
            ann = await peer(second.url, "ann", token=ann.token)
            if len(rounds) == 2:
                bonus = await play_out(ann, bonus, 6)
                assert bonus.round == 2 and bonus.points == after.points
            record = await ann.request(p.GetRecord(req=9, race=code), p.RaceRecord)
            assert verify_record(record).ok
            assert [b.seed for b in record.entrants[0].bonus] == [seed for seed, _ in rounds]
            await ann.close()
    finally:
        await store.close()


async def test_a_stored_double_or_naught_round_that_does_not_replay_is_refused_at_rebuild():
    """A race description whose Double or Naught rounds do not replay (a move no round allows)
    is not rebuilt into a wrong score: `Race.rebuild` raises `RebuildError` naming the race."""
    from server.race import Race, RebuildError

    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        ann, code = await won_race(server)
        meta = await server.store.load_race(code)
        points = server.races[code].entrants[ann.player].points
        meta["bonus"] = f'{{"{ann.player}": [[{points}, 7, "00", ["guess r9"]]]}}'
        with pytest.raises(RebuildError, match=f"race {code}: its Double or Naught rounds do not replay"):
            await Race.rebuild(code, meta, store=server.store, clock=server.clock)
        meta["bonus"] = "not json"
        with pytest.raises(RebuildError, match="do not replay"):
            await Race.rebuild(code, meta, store=server.store, clock=server.clock)
        await ann.close()
