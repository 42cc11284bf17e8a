"""A tournament goes on after its node restarts over the same Redis: real ``redis-server``, real
``arena serve`` child processes on 127.0.0.1 (test_restart.py's `Node`), real clients; and, in
this process with a clock set ahead, the instants that pass while no server runs.

What must hold across a restart (SIGTERM or SIGKILL): the tournament is the same one (id,
seeds, commitments, entrants, scores so far, event numbering), every deal is dealt exactly once
(one race per deal in ``races``, never two), a deal whose race ended while no server ran is
scored once, an instant that passed meanwhile (the break's end, the start, the arena window's
end) is acted on at once, the final standings are the deal races' results, and every
acknowledged move is in the records exactly once. A recurring schedule comes back with its
pending occurrence, and its next occurrence is scheduled once; a schedule file read at every start
schedules each entry once; a description that cannot be rebuilt is left in the store."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import signal
import time
from collections import defaultdict
from collections.abc import AsyncIterator

import pytest

from client.connection import ArenaClient, ArenaError
from client.verify import verify_record
from server import protocol as p
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from server.race import Clock, RebuildError
from server.store.redis import RedisStore
from server.tournament import Tournament
from tests.server.conftest import FastClock
from tests.server.test_restart import WAIT_S, Node, node_over_redis, reconnect

ADMIN = "organiser-secret"
#: Three public Golf deals and their winning lines (seeds/golf.txt): every move of each is legal.
DEALS = load_catalog(public_catalogs(), "golf")[:3]
SEEDS = [d.seed for d in DEALS]
LINES = [list(d.moves) for d in DEALS]
#: How far into each deal's line each entrant goes before the node stops (ann) or resigns (bob).
ANN_FIRST, BOB_MOVES = 10, 6


@pytest.fixture
async def node(tmp_path) -> AsyncIterator[Node]:
    """A node with an organiser's token, over a Redis of this test's own."""
    async with node_over_redis(tmp_path, admin_token=ADMIN) as server:
        yield server


def iso_in(seconds: float) -> str:
    """An ISO 8601 instant ``seconds`` from now (the real clock: the nodes' own)."""
    return dt.datetime.fromtimestamp(time.time() + seconds, dt.UTC).isoformat()


async def tournament_event(client: ArenaClient, tournament: str, kind: str, deal: int) -> p.TournamentEvent:
    """The event ``kind`` (``deal_started``, ``deal_ended``) of ``deal``, read from the client's
    queue of events."""
    async with asyncio.timeout(WAIT_S):
        while True:
            event = await client.next_event(WAIT_S)
            if (
                isinstance(event, p.TournamentEvent)
                and event.tournament.id == tournament
                and (event.kind, event.deal) == (kind, deal)
            ):
                return event


class Entrant:
    """A client and every answer to its moves that said ok, by race."""

    def __init__(self, client: ArenaClient) -> None:
        self.client = client
        self.acked: dict[str, list[p.MoveResult]] = defaultdict(list)

    async def play(self, code: str, moves: list[str]) -> None:
        for notation in moves:
            result = await self.client.move(code, notation)
            assert result.ok, result
            self.acked[code].append(result)

    async def deal_race(self, tournament: str, deal: int) -> str:
        """The race of ``deal``, once it runs (dealt while this client was away: found by sync)."""
        client = self.client
        await client.wait_for(lambda: len(client.tournaments[tournament].races) > deal, WAIT_S)
        code = client.tournaments[tournament].races[deal]
        if code not in client.started:
            snapshot = await client.sync(code, client.last_version.get(code, 0))
            if snapshot.race.status != "running":
                await client.wait_for(lambda: code in client.started, WAIT_S)
        return code


async def restart(node: Node, signum: int, clients: list[ArenaClient], *, down_s: float = 0) -> None:
    """Stop the node (SIGTERM: drained; SIGKILL: a crash), leave it down ``down_s`` seconds,
    start it again on the same port over the same Redis, and bring every client back with its
    token; each reads the tournaments again (the events sent while it was away reached nobody)."""
    exit_code = await node.halt(signum)
    assert exit_code == (0 if signum == signal.SIGTERM else -signal.SIGKILL), node.log_text()[-2000:]
    await asyncio.sleep(down_s)
    await node.start()
    for client in clients:
        token = client.token
        await reconnect(client)
        assert client.token == token
        await client.list_tournaments()


@pytest.mark.parametrize(
    ("signum", "stop_at"),
    [
        (signal.SIGKILL, "deal 1"),
        (signal.SIGTERM, "deal 2"),
        (signal.SIGKILL, "break 1"),
    ],
    ids=["SIGKILL-in-deal-1", "SIGTERM-in-deal-2", "SIGKILL-in-the-break"],
)
async def test_a_rounds_tournament_goes_on_after_its_node_restarts(node, signum, stop_at):
    """Three deals, two entrants: ann wins each deal with the catalog's line, bob plays a few
    moves then resigns. The node stops in the middle of a deal (or in the break after deal 1,
    which ends while no node runs, so that deal 2 is dealt the moment the node is back, before
    anyone reconnects) and starts again: the deal in play goes on from the last acknowledged
    move, and each deal is dealt exactly once. The final standings are the deal races'
    results, each record verifies against its commitment, and holds every acknowledged move
    exactly once."""
    org = await ArenaClient.connect(node.url, "org", timeout_s=WAIT_S)
    ann = Entrant(await ArenaClient.connect(node.url, "ann", timeout_s=WAIT_S))
    bob = Entrant(await ArenaClient.connect(node.url, "bob", timeout_s=WAIT_S))
    clients = (org, ann.client, bob.client)
    try:
        info = await org.create_tournament(
            ADMIN,
            "Restart cup",
            "golf",
            len(SEEDS),
            seeds=SEEDS,
            starts_at=iso_in(2),
            countdown_s=1,
            break_s=1,
            deal_time_limit_s=60,
            spectator_delay_s=0,
            max_entries_per_address=0,  # (both entrants share one address)
        )
        tid = info.id
        for entrant in (ann, bob):
            await entrant.client.register_tournament(tid)
        for deal, line in enumerate(LINES):
            codes = [await entrant.deal_race(tid, deal) for entrant in (ann, bob)]
            assert codes[0] == codes[1]
            code = codes[0]
            await ann.play(code, line[:ANN_FIRST])
            await bob.play(code, line[:BOB_MOVES])
            if stop_at == f"deal {deal + 1}":
                await restart(node, signum, list(clients))
                snapshot = await ann.client.sync(code, ann.client.last_version[code])
                assert snapshot.race.status == "running" and snapshot.next_seq == ANN_FIRST + 1
            await ann.play(code, line[ANN_FIRST:])
            await bob.client.resign(code)
            if stop_at == f"break {deal + 1}":  # the break (1 s) ends while no node runs
                await tournament_event(ann.client, tid, "deal_ended", deal)
                await restart(node, signum, list(clients), down_s=1.5)
        final = await org.follow_tournament(tid)
        while final.tournament.status != "finished":
            await org.wait_for(lambda: org.tournaments[tid].status == "finished", WAIT_S)
            final = await org.follow_tournament(tid)
        records = [await org.get_record(code) for code in final.tournament.races]
    finally:
        for client in clients:
            await client.close()

    tournament = final.tournament
    assert tournament.id == tid and tournament.seeds == SEEDS
    assert len(tournament.races) == len(SEEDS) == len(set(tournament.races)), "a deal was dealt twice or skipped"
    for deal, record in enumerate(records):
        assert record.seed == SEEDS[deal] and record.race.status == "finished"
        report = verify_record(record, tournament.commitments[deal])
        assert report.ok, report.failed
        for entrant, name in ((ann, "ann"), (bob, "bob")):
            logged = next(e for e in record.entrants if e.name == name)
            acked = entrant.acked[record.race.code]
            assert [r.seq for r in acked] == list(range(1, len(acked) + 1))
            assert logged.moves == [r.move for r in acked], f"{name}'s moves in deal {deal + 1}"
        assert [e.status for e in record.entrants] == ["won", "resigned"]
    by_name = {s.name: s for s in final.standings}
    for name in ("ann", "bob"):
        line = by_name[name]
        expected = [next(s for s in r.standings if s.name == name) for r in records]
        assert [(d.race, d.cleared, d.time_ms, d.status) for d in line.deals] == [
            (r.race.code, s.cleared, s.time_ms, s.status) for r, s in zip(records, expected)
        ]
        assert line.cleared == sum(s.cleared for s in expected)
        assert line.time_ms == sum(s.time_ms for s in expected)
    assert [s.name for s in final.standings] == ["ann", "bob"]
    log = node.log_text()
    assert f"tournament {tid} resumed" in log and "Traceback" not in log


async def test_a_recurring_schedule_and_its_pending_occurrence_survive_restarts(node):
    """A daily schedule whose pending occurrence is twelve hours away, with an entrant: after a
    crash and after a drain the same occurrence is pending (not a second one), with its
    entrant, who is still the same player; cancelling the schedule by its id works after the
    restarts, and the schedule stays cancelled after the next one."""
    org = await ArenaClient.connect(node.url, "org", timeout_s=WAIT_S)
    ann = await ArenaClient.connect(node.url, "ann", timeout_s=WAIT_S)
    clients = [org, ann]
    try:
        hour = (dt.datetime.now(dt.UTC).hour + 12) % 24
        first = await org.create_tournament(
            ADMIN, "Daily", "golf", 2, starts_at=None, cron=f"0 {hour} * * *", registration_opens_s=86_400
        )
        schedule_id = first.schedule.split(":")[0]
        assert first.status == "registration"
        await ann.register_tournament(first.id)
        for signum in (signal.SIGKILL, signal.SIGTERM):
            await node.halt(signum)
            await node.start()
            async with await ArenaClient.connect(node.url, "checker", timeout_s=WAIT_S) as checker:
                listed = await checker.list_tournaments()
            assert [(t.id, t.status, t.registered, t.schedule, t.starts_at_ms) for t in listed] == [
                (first.id, "registration", ["ann"], first.schedule, first.starts_at_ms)
            ]
            await reconnect(ann)
            with pytest.raises(ArenaError) as caught:
                await ann.register_tournament(first.id)
            assert caught.value.code == "already_joined", "the restarted node knows ann as its entrant"
        await reconnect(org)
        cancelled = await org.cancel_tournament(ADMIN, schedule_id.lower())
        assert (cancelled.id, cancelled.status) == (first.id, "cancelled")
        await node.halt(signal.SIGKILL)
        await node.start()
        async with await ArenaClient.connect(node.url, "checker", timeout_s=WAIT_S) as checker:
            listed = await checker.list_tournaments()
            assert [(t.id, t.status) for t in listed] == [(first.id, "cancelled")]
            with pytest.raises(ArenaError) as caught:
                await checker.cancel_tournament(ADMIN, schedule_id)
            assert caught.value.code == "unknown_tournament", "the schedule came back"
    finally:
        for client in clients:
            await client.close()
    assert "Traceback" not in node.log_text()


# --------------------------------------------------------- in this process, a clock set ahead


def _config(**settings: object) -> ServerConfig:
    """A server's settings for these tests: one node id across its restarts (a node resumes
    the races it served), where the server has node ids."""
    if "node_id" in {f.name for f in dataclasses.fields(ServerConfig)}:
        settings.setdefault("node_id", "tournament-restart")
    return ServerConfig(ping_interval_s=None, admin_token=ADMIN, idle_timeout_s=None, **settings)


async def _until(condition, what: str, timeout_s: float = WAIT_S) -> None:
    try:
        async with asyncio.timeout(timeout_s):
            while not condition():
                await asyncio.sleep(0.01)
    except TimeoutError:
        pytest.fail(f"waited in vain for {what}")


@pytest.fixture
async def store(redis_server, redis_prefix) -> AsyncIterator[RedisStore]:
    kept = RedisStore(redis_server.url, prefix=redis_prefix)
    yield kept
    await kept.close()


async def test_a_deal_that_ended_while_no_server_ran_is_scored_once_then_the_next_is_dealt(store):
    """The server stops in deal 1; it starts again after that deal's time limit (its clock a
    minute on): deal 1 ends at once (``time_limit``, ann out of time with the moves she made),
    is scored once, and deal 2 is dealt once, after the break. A third start finds them as
    they were: nothing is scored or dealt again."""
    async with ArenaServer(_config(), store=store) as first:
        ann = Entrant(await ArenaClient.connect(first.url, "ann"))
        info = await ann.client.create_tournament(
            ADMIN,
            "Cup",
            "golf",
            2,
            seeds=SEEDS[:2],
            starts_at=iso_in(1),
            countdown_s=0,
            break_s=1,
            deal_time_limit_s=10,
        )
        await ann.client.register_tournament(info.id)
        code = await ann.deal_race(info.id, 0)
        await ann.play(code, LINES[0][:3])
        token = ann.client.token
        await ann.client.close()
    later = FastClock(1, start_ms=Clock().wall_ms() + 60_000)
    async with ArenaServer(_config(), store=store, clock=later) as second:
        tournament = second.tournaments[info.id]
        async with await ArenaClient.connect(second.url, "ann", token=token) as again:  # (within the break)
            started = await tournament_event(again, info.id, "deal_started", 1)
        deal_1, deal_2 = tournament.races
        assert started.race == deal_2.code and started.version == tournament.version
        assert deal_1.code == code and deal_1.finish_reason == "time_limit"
        (score,) = (e.scores for e in tournament.entrants.values())
        assert score[0] == p.DealScore(
            race=code,
            cleared=deal_1.standings()[0].cleared,
            time_ms=deal_1.standings()[0].time_ms,
            status="out_of_time",
        )
        assert deal_1.standings()[0].moves == 3
        assert deal_2.status == "running"
        version = tournament.version
    async with ArenaServer(_config(), store=store, clock=later) as third:
        tournament = third.tournaments[info.id]
        assert [r.code for r in tournament.races] == [deal_1.code, deal_2.code]
        assert tournament.version == version and tournament.status == "running"
        await asyncio.sleep(0.2)
        assert len(tournament.races) == 2 and tournament.version == version, "scored or dealt again"


async def test_an_arena_tournament_goes_on_to_the_end_of_its_window(store):
    """Arena: ann opens deal 1 and plays; the server stops and starts again (its clock half a
    minute on, inside her deal's time and the window): her deal goes on where it was, opening a
    deal returns it, and once she resigns the next deal opened is deal 2, not deal 1 again.
    The server stops again and starts after the window closed: the tournament finishes at once,
    her deal 2 ends with the window, and every seed is revealed."""
    async with ArenaServer(_config(), store=store) as first:
        ann = Entrant(await ArenaClient.connect(first.url, "ann"))
        info = await ann.client.create_tournament(
            ADMIN,
            "Daily",
            "golf",
            2,
            seeds=SEEDS[:2],
            format="arena",
            starts_at=iso_in(1),
            countdown_s=0,
            arena_window_s=600,
            deal_time_limit_s=600,
        )
        await ann.client.register_tournament(info.id)
        await ann.client.wait_for(lambda: ann.client.tournaments[info.id].status == "running", WAIT_S)
        code = (await ann.client.open_deal(info.id)).code
        await ann.client.wait_for(lambda: code in ann.client.started, WAIT_S)
        await ann.play(code, LINES[0][:4])
        token = ann.client.token
        await ann.client.close()
    later = FastClock(1, start_ms=Clock().wall_ms() + 30_000)
    async with ArenaServer(_config(), store=store, clock=later) as second:
        ann = Entrant(await ArenaClient.connect(second.url, "ann", token=token))
        assert (await ann.client.open_deal(info.id)).code == code, "the deal in play, not a new one"
        snapshot = await ann.client.sync(code, 0)
        assert snapshot.race.status == "running" and snapshot.next_seq == 5
        await ann.client.resign(code)
        second_deal = await ann.client.open_deal(info.id)
        assert second_deal.code != code and second_deal.seed is None
        tournament = second.tournaments[info.id]
        assert [r.code for r in tournament.races] == [code, second_deal.code]
        await ann.client.close()
    after_window = FastClock(1, start_ms=Clock().wall_ms() + 700_000)
    async with ArenaServer(_config(race_retention_s=0), store=store, clock=after_window) as third:
        tournament = third.tournaments[info.id]
        await _until(lambda: tournament.status == "finished", "the window to close")
        deal_1, deal_2 = tournament.races
        # (its time limit was cut to the window's end: whichever the rebuilt race saw first)
        assert deal_2.finish_reason in ("window_closed", "time_limit") and deal_1.revealed and deal_2.revealed
        (entrant,) = tournament.entrants.values()
        assert [s.race for s in entrant.scores.values()] == [code, second_deal.code]
        assert [s.status for s in entrant.scores.values()] == ["resigned", "out_of_time"]
        assert tournament.info().seeds == SEEDS[:2]
        # race_retention_s=0: at the next housekeeping sweep it leaves memory, and the store
        await _until(lambda: info.id not in third.tournaments, "the tournament to leave memory")
        assert info.id not in await store.live_tournaments()
        assert await store.load_tournament(info.id) is None
        assert await store.load_record(code) is not None and await store.load_record(second_deal.code) is not None
        assert token not in third.players and ann.client.player not in third.players_by_id, "an awaited player stayed"


async def test_a_schedule_schedules_its_next_occurrence_once_across_restarts(store, redis_server, redis_prefix):
    """A weekly schedule; the server stops before the occurrence's start and starts again after
    it: the occurrence starts at once and the next one is scheduled, once. If the server had
    stopped between the two (the next one never stored), a restart schedules it, once; a
    restart with everything in place schedules nothing."""
    friday = int(dt.datetime(2026, 10, 23, 18, 50, tzinfo=dt.UTC).timestamp() * 1000)
    next_friday = int(dt.datetime(2026, 10, 30, 20, tzinfo=dt.UTC).timestamp() * 1000)

    def occurrences(server: ArenaServer) -> list[tuple[int, str]]:
        return sorted((t.plan.starts_at_ms, t.status) for t in server.tournaments.values())

    async with ArenaServer(_config(), store=store, clock=FastClock(1, start_ms=friday)) as first:
        async with await ArenaClient.connect(first.url, "org") as org:
            created = await org.create_tournament(
                ADMIN,
                "Weekly",
                "golf",
                1,
                starts_at=None,
                cron="0 20 * * FRI",
                timezone="Europe/London",
                countdown_s=60,
            )
        await _until(lambda: created.schedule.split(":")[0] in first.schedules, "the schedule")
        await asyncio.sleep(0.1)  # (its request is stored in a task of its own)
    after_start = FastClock(1, start_ms=friday + 20 * 60_000)
    async with ArenaServer(_config(), store=store, clock=after_start) as second:
        await _until(lambda: len(second.tournaments) == 2, "the next occurrence")
        await _until(lambda: second.tournaments[created.id].status == "finished", "the first occurrence to end")
        assert occurrences(second) == [(created.starts_at_ms, "finished"), (next_friday, "scheduled")]
        await asyncio.sleep(0.1)
    async with ArenaServer(_config(), store=store, clock=after_start) as third:
        await asyncio.sleep(0.2)
        assert occurrences(third) == [(created.starts_at_ms, "finished"), (next_friday, "scheduled")]
        pending = next(t for t in third.tournaments.values() if t.id != created.id)
    await store.archive_tournament(pending.id)  # as if the server had stopped before storing it
    async with ArenaServer(_config(), store=store, clock=after_start) as fourth:
        await asyncio.sleep(0.2)
        assert occurrences(fourth) == [(created.starts_at_ms, "finished"), (next_friday, "scheduled")]
        assert pending.id not in fourth.tournaments


async def test_a_schedule_file_read_at_every_start_schedules_each_entry_once(store, tmp_path):
    """`arena serve --tournaments FILE` reads the file at every start, after the store's
    tournaments are back: each entry is named by its digest, so that the schedule and the
    one-off tournament it declares are found again, not scheduled a second time."""
    path = tmp_path / "tournaments.toml"
    path.write_text(
        '[[tournament]]\nname = "Friday Golf"\ngame = "golf"\ndeals = 2\ncron = "0 20 * * FRI"\n'
        'timezone = "Europe/London"\n\n'
        f'[[tournament]]\nname = "Club night"\ngame = "golf"\ndeals = 1\nstarts_at = "{iso_in(86_400)}"\n'
    )
    async with ArenaServer(_config(), store=store) as first:
        made = first.load_schedule(path)
        await asyncio.sleep(0.1)  # (the schedule's request is stored in a task of its own)
    ids = [t.id for t in made]
    schedule_id = made[0].plan.schedule.split(":")[0]
    for _ in range(2):
        async with ArenaServer(_config(), store=store) as again:
            assert sorted(again.tournaments) == sorted(ids) and list(again.schedules) == [schedule_id]
            assert [t.id for t in again.load_schedule(path)] == ids
            assert sorted(again.tournaments) == sorted(ids) and list(again.schedules) == [schedule_id]
    assert sorted(await store.live_tournaments()) == sorted(ids)
    assert list(await store.schedules()) == [schedule_id]


async def test_a_tournament_that_cannot_be_rebuilt_is_left_in_the_store(store, caplog):
    """A stored description that does not read (a field missing, seeds and salts that do not give
    the commitments) is logged as ``tournament_not_resumed`` and left in the store as it is; the
    server starts and resumes the rest."""
    async with ArenaServer(_config(), store=store) as first:
        async with await ArenaClient.connect(first.url, "org") as org:
            good = await org.create_tournament(ADMIN, "Good", "golf", 1, starts_at=iso_in(3600))
        await asyncio.sleep(0.1)
    meta = await store.load_tournament(good.id)
    await store.save_tournament("TBROKEN", {k: v for k, v in meta.items() if k != "seeds"})
    await store.save_tournament("TFORGED", {**meta, "salts": '["forged"]'})
    async with ArenaServer(_config(), store=store) as second:
        assert list(second.tournaments) == [good.id]
        assert second.tournaments[good.id].info().commitments == [] and second.tournaments[good.id].plan.name == "Good"
        for tournament_id, why in (("TBROKEN", "cannot be read"), ("TFORGED", "commitments")):
            with pytest.raises(RebuildError, match=why):
                await Tournament.rebuild(second, tournament_id, await store.load_tournament(tournament_id))
    # (the server's log writes a repeated line once per log_repeat_s: the first one is there)
    assert {r.fields["tournament"] for r in caplog.records if getattr(r, "event", "") == "tournament_not_resumed"}
    assert sorted(await store.live_tournaments()) == sorted([good.id, "TBROKEN", "TFORGED"])
