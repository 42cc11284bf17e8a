"""Tournaments over real websockets on 127.0.0.1, with the server's clock sped up."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib

import pytest

from client.bot import run_bot, run_tournament_bot
from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.config import ServerConfig
from server.schedule import next_occurrences
from tests.server.conftest import FastClock

ADMIN = "organiser-secret"
SPEED = 1000  # one real millisecond is one second of tournament time


@pytest.fixture
async def arena():
    # No idle timeout: at this speed five real minutes of thought would be a fifth of a second.
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN, idle_timeout_s=None)
    async with ArenaServer(config, clock=FastClock(SPEED)) as server:
        yield server


def iso_after(server: ArenaServer, seconds: float) -> str:
    """An ISO 8601 instant ``seconds`` of server time from now."""
    instant = server.clock.wall_ms() / 1000 + seconds
    return dt.datetime.fromtimestamp(instant, dt.UTC).isoformat()


async def connect_all(server: ArenaServer, names: list[str]) -> list[ArenaClient]:
    return [await ArenaClient.connect(server.url, name) for name in names]


def ranked_by_hand(standings) -> list[str]:
    """The tournament rule computed from each entrant's per-deal results: most cards over all
    deals, then least total time, then earliest registration."""
    lines = [(sum(d.cleared for d in s.deals), sum(d.time_ms for d in s.deals), s.order, s.name) for s in standings]
    return [name for *_, name in sorted(lines, key=lambda line: (-line[0], line[1], line[2]))]


async def finished_event(client: ArenaClient, tournament: str):
    await client.wait_for(lambda: client.tournaments[tournament].status == "finished", timeout_s=30)
    return client.tournaments[tournament]


@pytest.mark.slow
async def test_a_rounds_tournament_with_eight_entrants_and_a_spectator(arena):
    """Eight entrants play three deals at the same instants: five bots, one who resigns every deal,
    one who never shows up, one who drops mid-deal and comes back; a spectator follows it all.
    The standings follow the rule, computed by hand from the per-deal results."""
    names = [f"bot{i}" for i in range(8)]
    org, sue, *bots = await connect_all(arena, ["org", "sue", *names])
    try:
        info = await org.create_tournament(
            ADMIN,
            "Friday Clock",
            "clock",
            3,
            format="rounds",
            starts_at=iso_after(arena, 120),
            deal_time_limit_s=1200,
            countdown_s=5,
            break_s=10,
            max_entries_per_address=0,  # (every client here shares one address)
            spectating="live",  # (a finished entrant watches the others' boards while they play)
        )
        tid = info.id
        snapshot = await sue.follow_tournament(tid)
        assert snapshot.tournament.commitments == [] and snapshot.tournament.seeds is None
        await sue.wait_for(lambda: sue.tournaments[tid].status == "registration", timeout_s=5)
        for bot in bots[5:]:
            await bot.register_tournament(tid)
        await bots[6].close()  # registered, then never seen again

        async def dropper(client: ArenaClient) -> None:
            """Plays deal 1, drops its connection during deal 2, comes back and goes on."""
            for deal in range(3):
                await client.wait_for(lambda d=deal: len(client.tournaments[tid].races) > d, timeout_s=30)
                code = client.tournaments[tid].races[deal]
                if deal == 1:
                    await client.wait_for(lambda: code in client.started, timeout_s=10)
                    for _ in range(5):
                        assert (await client.move(code, "turn")).ok
                    snapshots = await client.reconnect()
                    assert snapshots[code].board.moves == 5 and snapshots[code].next_seq == 6
                await run_bot(client, code)

        async def resigner(client: ArenaClient) -> None:
            for deal in range(3):
                await client.wait_for(lambda d=deal: len(client.tournaments[tid].races) > d, timeout_s=30)
                code = client.tournaments[tid].races[deal]
                await client.wait_for(lambda: code in client.started, timeout_s=10)
                await client.resign(code)
                snapshot = await client.watch(code)  # a deal it has finished may be watched
                assert len(snapshot.boards) == 8 and client.player in snapshot.boards

        players = [run_tournament_bot(bot, tid) for bot in bots[:5]]
        await asyncio.gather(*players, resigner(bots[5]), dropper(bots[7]))
        final = await finished_event(sue, tid)
        standings = next(
            e for e in reversed(sue.pending_events()) if type(e).__name__ == "TournamentEvent" and e.kind == "finished"
        ).standings
    finally:
        for client in (org, sue, *bots):
            await client.close()

    assert final.status == "finished" and len(final.races) == 3
    assert [s.name for s in standings] == ranked_by_hand(standings)
    by_name = {s.name: s for s in standings}
    assert by_name["bot6"].status == "absent" and by_name["bot6"].cleared == 0
    assert by_name["bot5"].cleared == 0 and by_name["bot5"].status == "finished"
    assert [s.name for s in standings][-2:] == ["bot5", "bot6"], "a tie on nothing goes to the earlier entrant"
    assert all(s.cleared == sum(d.cleared for d in s.deals) and len(s.deals) == 3 for s in standings)
    assert by_name["bot7"].deals[1].cleared >= 5, "the dropped entrant kept its moves and went on"
    for seed, salt, commitment in zip(final.seeds, final.salts, final.commitments):
        assert hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest() == commitment


@pytest.mark.slow
async def test_an_arena_tournament_with_eight_entrants_and_a_spectator(arena):
    """Each entrant opens its deals at its own pace inside the window; a deal's seed stays secret
    until the window closes; an entrant may not watch a deal it has not finished itself; one
    drops its connection mid-deal and goes on where it was; the standings follow the rule."""
    names = [f"bot{i}" for i in range(8)]
    org, sue, *bots = await connect_all(arena, ["org", "sue", *names])
    arena.clock.speed = 100  # slower while they play, so that a busy machine keeps bot6's deal alive
    try:
        info = await org.create_tournament(
            ADMIN,
            "Daily Golf",
            "golf",
            2,
            format="arena",
            starts_at=iso_after(arena, 60),
            arena_window_s=600,
            deal_time_limit_s=600,
            countdown_s=5,
            spectator_delay_s=0,
            max_entries_per_address=0,  # (every client here shares one address)
            spectating="live",  # (even so: the spoiler lock holds every deal until the window closes)
        )
        tid = info.id
        await sue.follow_tournament(tid)
        await sue.wait_for(lambda: sue.tournaments[tid].status == "registration", timeout_s=5)
        await bots[7].register_tournament(tid)  # registers, never plays: absent
        await bots[6].register_tournament(tid)
        await bots[6].wait_for(lambda: bots[6].tournaments[tid].status == "running", timeout_s=10)
        first = await bots[6].open_deal(tid)
        assert (await bots[6].open_deal(tid)).code == first.code, "opening again returns the deal in play"
        with pytest.raises(ArenaError) as caught:  # (an entrant plays its deal; it does not watch it)
            await bots[6].watch(first.code)
        assert caught.value.code == "spoiler_locked"
        await bots[0].register_tournament(tid)  # its bot below plays on from there
        bot0_race = (await bots[0].open_deal(tid)).code
        with pytest.raises(ArenaError) as caught:  # bot6 has not finished that deal: no watching it
            await bots[6].watch(bot0_race)
        assert caught.value.code == "spoiler_locked"
        results = await asyncio.gather(*(run_tournament_bot(bot, tid) for bot in bots[:6]))
        assert all(len(r) == 2 for r in results)
        # bot0 has finished both deals, but the window is open: nobody may watch a deal of it
        with pytest.raises(ArenaError) as caught:
            await bots[0].watch(first.code)
        assert caught.value.code == "spoiler_locked"
        finished_races = list(bots[0].finished.values())
        assert len(finished_races) == 2 and all(e.seed is None and e.salt is None for e in finished_races)
        await bots[6].wait_for(lambda: first.code in bots[6].started, timeout_s=5)
        for _ in range(2):
            assert (await bots[6].move(first.code, "deal")).ok
        snapshots = await bots[6].reconnect()  # a dropped connection mid-deal
        assert snapshots[first.code].board.moves == 2 and snapshots[first.code].next_seq == 3
        with pytest.raises(ArenaError) as caught:  # a spectator of a "live" arena tournament too
            await sue.watch(first.code)
        assert caught.value.code == "spoiler_locked" and caught.value.opens_at_ms is not None
        await run_bot(bots[6], first.code)
        second = await bots[6].open_deal(tid)
        await bots[6].resign(second.code)
        with pytest.raises(ArenaError) as caught:
            await bots[6].open_deal(tid)
        assert caught.value.code == "no_deal"
        arena.clock.speed = SPEED  # on to the end of the window
        final = await finished_event(sue, tid)
        standings = (await sue.follow_tournament(tid)).standings
        record = await sue.get_record(first.code)
    finally:
        for client in (org, sue, *bots):
            await client.close()

    assert [s.name for s in standings] == ranked_by_hand(standings)
    assert {s.name: s.status for s in standings}["bot7"] == "absent"
    assert len(final.races) == 6 * 2 + 2
    assert record.seed == final.seeds[0], "the window closed: every seed is revealed"


async def test_late_registration_withdrawal_and_organiser_rights(arena):
    org, ann, bob, cat = await connect_all(arena, ["org", "ann", "bob", "cat"])
    try:
        with pytest.raises(ArenaError) as caught:
            await ann.create_tournament("guess", "Mine", "golf", 1, starts_at=iso_after(arena, 60))
        assert caught.value.code == "not_organiser"
        info = await org.create_tournament(
            ADMIN,
            "Quick",
            "clock",
            2,
            starts_at=iso_after(arena, 600),  # (0.6 s real: a loaded machine may take more than 60 ms to get here)
            deal_time_limit_s=3600,
            break_s=5,
            max_entries_per_address=0,  # (every client here shares one address)
        )
        tid = info.id
        await org.follow_tournament(tid)
        await org.wait_for(lambda: org.tournaments[tid].status == "registration", timeout_s=5)
        for client in (ann, bob):
            await client.register_tournament(tid)
        await org.wait_for(lambda: len(org.tournaments[tid].races) == 1, timeout_s=10)
        with pytest.raises(ArenaError) as caught:
            await cat.register_tournament(tid)
        assert caught.value.code == "registration_closed"
        code = org.tournaments[tid].races[0]
        await bob.withdraw_tournament(tid)
        cancelled = await org.cancel_tournament(ADMIN, tid)
        assert cancelled.status == "cancelled"
        snapshot = await org.follow_tournament(tid)
        statuses = {s.name: s.status for s in snapshot.standings}
        assert statuses["bob"] == "withdrawn"
        assert snapshot.tournament.races == [code], "no deal starts after the cancellation"
    finally:
        for client in (org, ann, bob, cat):
            await client.close()


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"starts_at": "2001-01-01T00:00:00+00:00"}, "bad_schedule"),
        ({"starts_at": "2099-01-01T00:00:00"}, "bad_schedule"),
        ({"starts_at": None, "cron": "61 * * * *"}, "bad_schedule"),
        ({"starts_at": None, "cron": "0 20 * * FRI", "timezone": "Mars/Olympus"}, "bad_schedule"),
        ({"deals": 0}, "bad_tournament"),
        ({"seeds": [1, 2]}, "bad_tournament"),
        ({"game": "tetris"}, "unknown_game"),
        ({"options": {"jokers": True}}, "bad_option"),
    ],
)
async def test_a_bad_tournament_request_is_refused_and_creates_nothing(arena, fields, code):
    async with await ArenaClient.connect(arena.url, "org") as org:
        request = {"name": "Bad", "game": "golf", "deals": 1, "starts_at": "2099-01-01T00:00:00+00:00"} | fields
        with pytest.raises(ArenaError) as caught:
            await org.create_tournament(ADMIN, **request)
        assert caught.value.code == code and caught.value.reason
        assert arena.tournaments == {}


def test_a_weekly_schedule_keeps_its_local_time_across_a_daylight_saving_change():
    """Every Friday at 20:00 in London: 19:00 UTC in summer time, 20:00 UTC after the clocks go back."""
    after = int(dt.datetime(2026, 10, 20, tzinfo=dt.UTC).timestamp() * 1000)
    starts = next_occurrences("0 20 * * FRI", "Europe/London", after_ms=after, count=3)
    assert [dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat() for ms in starts] == [
        "2026-10-23T19:00:00+00:00",
        "2026-10-30T20:00:00+00:00",
        "2026-11-06T20:00:00+00:00",
    ]


def test_a_time_repeated_when_the_clocks_go_back_happens_once():
    after = int(dt.datetime(2026, 10, 24, 12, tzinfo=dt.UTC).timestamp() * 1000)
    starts = next_occurrences("30 1 * * *", "Europe/London", after_ms=after, count=3)
    assert [dt.datetime.fromtimestamp(ms / 1000, dt.UTC).isoformat() for ms in starts] == [
        "2026-10-25T00:30:00+00:00",
        "2026-10-26T01:30:00+00:00",
        "2026-10-27T01:30:00+00:00",
    ]


async def test_a_recurring_tournament_schedules_its_next_occurrence_when_one_starts():
    friday_evening = int(dt.datetime(2026, 10, 23, 18, 50, tzinfo=dt.UTC).timestamp() * 1000)
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN)
    async with ArenaServer(config, clock=FastClock(20_000, start_ms=friday_evening)) as server:
        async with await ArenaClient.connect(server.url, "org") as org:
            first = await org.create_tournament(
                ADMIN,
                "Weekly",
                "golf",
                1,
                starts_at=None,
                cron="0 20 * * FRI",
                timezone="Europe/London",
                countdown_s=60,
            )
            assert first.starts_at_ms == int(dt.datetime(2026, 10, 23, 19, tzinfo=dt.UTC).timestamp() * 1000)
            async with asyncio.timeout(5):
                while len(server.tournaments) < 2:
                    await asyncio.sleep(0.01)
            second = [t for t in server.tournaments.values() if t.id != first.id][0]
            assert second.plan.starts_at_ms == int(dt.datetime(2026, 10, 30, 20, tzinfo=dt.UTC).timestamp() * 1000)
            assert second.plan.seeds != server.tournaments[first.id].plan.seeds
            assert second.plan.schedule == server.tournaments[first.id].plan.schedule


async def test_a_schedule_file_declares_recurring_tournaments(tmp_path):
    path = tmp_path / "tournaments.toml"
    path.write_text(
        '[[tournament]]\nname = "Friday Klondike"\ngame = "klondike"\ndeals = 3\n'
        'cron = "0 20 * * FRI"\ntimezone = "Europe/London"\n\n'
        '[[tournament]]\nname = "Daily Golf"\ngame = "golf"\ndeals = 1\nformat = "arena"\ncron = "0 0 * * *"\n'
    )
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        made = server.load_schedule(path)
        assert [(t.plan.name, t.plan.format, len(t.plan.seeds)) for t in made] == [
            ("Friday Klondike", "rounds", 3),
            ("Daily Golf", "arena", 1),
        ]
        assert all(t.plan.schedule for t in made)
    bad = tmp_path / "bad.toml"
    bad.write_text('[[tournament]]\nname = "X"\ngame = "golf"\ndeals = "three"\ncron = "0 0 * * *"\n')
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        with pytest.raises(ValueError, match="tournament 1"):
            server.load_schedule(bad)
        assert server.tournaments == {}


async def test_a_schedule_is_cancelled_by_its_id_in_any_case():
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN)
    async with ArenaServer(config) as server:
        async with await ArenaClient.connect(server.url, "org") as org:
            first = await org.create_tournament(ADMIN, "Weekly", "golf", 1, starts_at=None, cron="0 20 * * FRI")
            schedule_id = first.schedule.split(":")[0]
            assert schedule_id.startswith("S") and schedule_id in server.schedules
            cancelled = await org.cancel_tournament(ADMIN, schedule_id.lower())
    assert cancelled.id == first.id and cancelled.status == "cancelled" and not server.schedules


async def test_a_schedule_goes_on_when_one_occurrence_is_cancelled():
    """Cancelling a schedule's pending occurrence (its tournament id) skips that one: the next
    occurrence is scheduled; cancelling the schedule (its id) ends the series."""
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN)
    async with ArenaServer(config) as server:
        async with await ArenaClient.connect(server.url, "org") as org:
            first = await org.create_tournament(ADMIN, "Weekly", "golf", 1, starts_at=None, cron="0 20 * * FRI")
            assert (await org.cancel_tournament(ADMIN, first.id)).status == "cancelled"
            (second,) = [t for t in server.tournaments.values() if t.id != first.id]
            assert second.status in ("scheduled", "registration") and second.plan.schedule == first.schedule
            assert (
                second.plan.starts_at_ms
                == next_occurrences("0 20 * * FRI", "UTC", after_ms=first.starts_at_ms, count=1)[0]
            )
            cancelled = await org.cancel_tournament(ADMIN, first.schedule.split(":")[0])
            assert cancelled.id == second.id and cancelled.status == "cancelled"
            assert len(server.tournaments) == 2 and not server.schedules


async def test_a_deals_race_names_its_tournament_and_the_break_says_when_the_next_deal_comes(arena):
    """Each deal's `RaceInfo` carries the tournament and the deal's index; between two rounds
    deals the tournament says when the next one is dealt (`next_deal_ms`), and no longer once it is."""
    org, ann = await connect_all(arena, ["org", "ann"])
    try:
        info = await org.create_tournament(
            ADMIN,
            "Two deals",
            "golf",
            2,
            format="rounds",
            starts_at=iso_after(arena, 60),
            deal_time_limit_s=600,
            countdown_s=5,
            break_s=30,
        )
        tid = info.id
        await ann.register_tournament(tid)
        for deal in range(2):
            await ann.wait_for(lambda d=deal: len(ann.tournaments[tid].races) > d, timeout_s=30)
            code = ann.tournaments[tid].races[deal]
            race = arena.races[code].info()
            assert (race.tournament, race.deal) == (tid, deal)
            await ann.wait_for(lambda c=code: c in ann.started, timeout_s=10)
            await ann.resign(code)
        final = await finished_event(ann, tid)
        second = arena.races[final.races[1]].info()
        events = [e for e in ann.pending_events() if type(e).__name__ == "TournamentEvent"]
    finally:
        for client in (org, ann):
            await client.close()
    ended = next(e for e in events if e.kind == "deal_ended" and e.deal == 0)
    started = next(e for e in events if e.kind == "deal_started" and e.deal == 1)
    assert ended.tournament.next_deal_ms is not None
    assert started.tournament.next_deal_ms is None
    assert second.starts_at_ms >= ended.tournament.next_deal_ms  # dealt when it said
    assert next(e for e in events if e.kind == "finished").tournament.next_deal_ms is None
