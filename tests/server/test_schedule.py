"""Cron expressions that never fire are refused at once, with a reason: when a tournament is
created (the connection stays open) and when a schedule file is loaded."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest

from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.config import ServerConfig
from server.schedule import ScheduleError, check_cron, load_schedule_file, next_occurrences

ADMIN = "organiser-secret"
NOW_MS = int(dt.datetime(2026, 11, 27, tzinfo=dt.UTC).timestamp() * 1000)


@pytest.mark.parametrize("cron", ["0 0 30 2 *", "0 0 31 4 *", "*/5 */2 31 2,4,6,9,11 *"])
def test_a_cron_that_never_fires_is_refused_in_bounded_time(cron):
    began = time.perf_counter()
    with pytest.raises(ScheduleError, match=re.escape(f"cron {cron!r} never fires")):
        check_cron(cron, "Europe/London", now_ms=NOW_MS)
    assert time.perf_counter() - began < 0.25  # about a millisecond; generous for a loaded machine


def test_a_leap_day_fires_even_across_a_century_without_one():
    """February 29th: the longest gap a valid expression has (2096, then 2104) is within reach."""
    after = int(dt.datetime(2096, 3, 1, tzinfo=dt.UTC).timestamp() * 1000)
    (when,) = next_occurrences("0 0 29 2 *", "UTC", after_ms=after, count=1)
    assert dt.datetime.fromtimestamp(when / 1000, dt.UTC).date() == dt.date(2104, 2, 29)


def test_a_schedule_file_with_a_cron_that_never_fires_is_refused(tmp_path):
    path = tmp_path / "tournaments.toml"
    path.write_text(
        '[[tournament]]\nname = "Daily"\ngame = "golf"\ndeals = 1\ncron = "0 0 * * *"\n\n'
        '[[tournament]]\nname = "Never"\ngame = "golf"\ndeals = 1\ncron = "0 0 30 2 *"\n'
    )
    with pytest.raises(ScheduleError, match=r"tournament 2 in .*: cron '0 0 30 2 \*' never fires"):
        load_schedule_file(path)


async def test_creating_a_tournament_with_a_cron_that_never_fires_gets_an_error_and_the_connection_stays():
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN, idle_timeout_s=None)
    async with ArenaServer(config) as server:
        async with await ArenaClient.connect(server.url, "org") as org:
            with pytest.raises(ArenaError) as caught:
                await org.create_tournament(ADMIN, "Never", "golf", 1, starts_at=None, cron="0 0 30 2 *")
            assert caught.value.code == "bad_schedule"
            assert "never fires" in caught.value.reason
            assert server.tournaments == {} and server.schedules == {}
            # Still open: the next request is answered.
            made = await org.create_tournament(ADMIN, "Daily", "golf", 1, starts_at=None, cron="0 0 * * *")
            assert made.id in server.tournaments
