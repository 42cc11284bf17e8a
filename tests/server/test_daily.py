"""The daily challenge: one deal per game per UTC day, played once per player, its results, a
past day as practice, streaks and the calendar, and the spoiler lock on its races until the day
ends. Over real websockets; the server's wall clock is moved across days (`DayClock`)."""

from __future__ import annotations

import datetime as dt

import pytest

from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.config import ServerConfig
from server.daily import day_end_ms, derive_deal
from server.race import Clock

NOON = int(dt.datetime(2026, 3, 10, 12, 0, tzinfo=dt.UTC).timestamp() * 1000)  # a Tuesday, 12:00 UTC
HOUR_MS = 3_600_000


class DayClock(Clock):
    """The real clock, shifted to start at ``start_ms``; `jump` moves both clocks forward."""

    def __init__(self, start_ms: int) -> None:
        self.shift_s = (start_ms - super().wall_ms()) / 1000

    def jump(self, ms: int) -> None:
        self.shift_s += ms / 1000

    def monotonic(self) -> float:
        return super().monotonic() + self.shift_s

    def wall_ms(self) -> int:
        return super().wall_ms() + int(self.shift_s * 1000)


@pytest.fixture
async def daily_server():
    config = ServerConfig(ping_interval_s=None, idle_timeout_s=None, daily_secret="s3cret")
    async with ArenaServer(config, clock=DayClock(NOON)) as server:
        yield server


async def _played(client: ArenaClient, game: str, day: str | None = None) -> str:
    """Play ``game``'s daily (resign at once) and wait for its end; returns the race code."""
    info = await client.play_daily(game, day)
    assert info.max_entrants == 1 and info.entrants == [client.name]
    await client.wait_for(lambda: info.code in client.started, timeout_s=5)
    await client.resign(info.code)
    return info.code


async def test_a_daily_played_by_two_players_once_each(daily_server):
    """Both players get the same deal (one commitment, the seed secret), both are in the day's
    results, an unfinished attempt is given back, and a second attempt is refused."""
    ann, bob = await ArenaClient.connect(daily_server.url, "ann"), await ArenaClient.connect(daily_server.url, "bob")
    try:
        first = await ann.play_daily("golf")
        assert first.daily == "2026-03-10" and first.seed is None and first.tournament is None
        again = await ann.play_daily("golf")  # unfinished: resumed
        assert again.code == first.code
        await ann.wait_for(lambda: first.code in ann.started, timeout_s=5)
        lobby = await bob.list_races("live")
        assert first.code not in {r.code for r in lobby.races}, "a daily's race is not listed"
        await ann.resign(first.code)
        other = await _played(bob, "golf")
        seed, salt = derive_deal(b"s3cret", "golf", "2026-03-10")
        assert daily_server.races[other].commitment == daily_server.races[first.code].commitment
        assert daily_server.races[other].seed == seed and daily_server.races[other].salt == salt
        with pytest.raises(ArenaError) as caught:
            await ann.play_daily("golf")
        assert caught.value.code == "already_played"
        info = await bob.daily("golf")
        assert info.day == "2026-03-10" and {r.name for r in info.results} == {"ann", "bob"}
        assert all(r.status == "resigned" for r in info.results)
        golf = next(d for d in info.deals if d.game == "golf")
        assert golf.mine is not None and golf.mine.race == other
        assert golf.commitment == daily_server.races[other].commitment
        assert golf.closes_at_ms == day_end_ms("2026-03-10")
        with pytest.raises(ArenaError) as caught:
            await bob.join_race(first.code)
        assert caught.value.code == "not_allowed"
    finally:
        await ann.close()
        await bob.close()


async def test_the_spoiler_lock_holds_until_the_day_ends(daily_server):
    """Watch, sync as a spectator, get_record and replay of a daily's race are refused with
    spoiler_locked and the instant the day ends, to everyone (its entrant too); after the day
    the seed is revealed and all of them are answered."""
    ann, eve = await ArenaClient.connect(daily_server.url, "ann"), await ArenaClient.connect(daily_server.url, "eve")
    try:
        code = await _played(ann, "klondike")
        closes = day_end_ms("2026-03-10")
        for ask in (
            lambda: eve.watch(code),
            lambda: eve.get_record(code),
            lambda: eve.replay(code, ann.player, 0),
            lambda: ann.get_record(code),
            lambda: ann.replay(code, ann.player, 0),
            lambda: eve.sync(code, 0),
        ):
            with pytest.raises(ArenaError) as caught:
                await ask()
            assert caught.value.code == "spoiler_locked" and caught.value.opens_at_ms == closes
        assert daily_server.races[code].par is None
        daily_server.clock.jump(closes - daily_server.clock.wall_ms() + 1000)
        record = await eve.get_record(code)
        seed, _ = derive_deal(b"s3cret", "klondike", "2026-03-10")
        assert record.seed == seed and record.race.daily == "2026-03-10"
        assert (await eve.replay(code, ann.player, 0)).step == 0
        watched = await eve.watch(code)
        assert watched.race.status == "finished" and watched.race.seed == seed
    finally:
        await ann.close()
        await eve.close()


async def test_a_past_day_is_practice_and_streaks_count_days_played(daily_server):
    """A day not over cannot be played ahead; a past day's deal is played as practice (public
    seed, not in that day's results, no streak); days played in a row make the streak, a day
    missed ends it, and the calendar shows each day's result."""
    ann = await ArenaClient.connect(daily_server.url, "ann")
    clock = daily_server.clock
    try:
        with pytest.raises(ArenaError) as caught:
            await ann.play_daily("golf", "2026-03-11")
        assert caught.value.code == "no_deal"
        await _played(ann, "golf")  # the 10th
        clock.jump(24 * HOUR_MS)
        assert (await ann.daily()).streak.current == 1, "today not played yet: the streak stands"
        await _played(ann, "pyramid")  # the 11th
        assert (await ann.daily()).streak.current == 2
        practice = await ann.play_daily("golf", "2026-03-10")
        seed, _ = derive_deal(b"s3cret", "golf", "2026-03-10")
        assert practice.seed == seed and practice.daily is None
        await ann.wait_for(lambda: practice.code in ann.started, timeout_s=5)
        await ann.resign(practice.code)
        tenth = await ann.daily("golf", "2026-03-10")
        assert [r.race for r in tenth.results] != [practice.code] and len(tenth.results) == 1
        clock.jump(48 * HOUR_MS)  # the 13th: the 12th was missed
        streak = (await ann.daily()).streak
        assert (streak.current, streak.best) == (0, 2)
        await _played(ann, "golf")
        page = await ann.daily_calendar("2026-03")
        assert [d.day for d in page.days][-1] == "2026-03-13" and len(page.days) == 13
        played = [d.day for d in page.days if d.result is not None]
        assert played == ["2026-03-10", "2026-03-11", "2026-03-13"]
        assert (page.streak.current, page.streak.best) == (1, 2)
        golf_only = await ann.daily_calendar("2026-03", "golf")
        assert [d.day for d in golf_only.days if d.result is not None] == ["2026-03-10", "2026-03-13"]
        with pytest.raises(ArenaError) as caught:
            await ann.daily_calendar("2026-13")
        assert caught.value.code == "bad_field"
    finally:
        await ann.close()
