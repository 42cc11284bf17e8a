"""The lobby's daily challenge: today's deal of the picked game, Play starts it (a race of one,
started at once), and once it is over the lobby shows it played, on this month's calendar; its
link to the daily boards; and the spoiler lock on the race until the day ends (a server clock the
test moves)."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, expect

from client.connection import ArenaClient, ArenaError
from server.config import ServerConfig
from server.daily import day_end_ms
from tests.server.test_daily import NOON, DayClock
from tests.web.conftest import Web, web_over
from tests.web.helpers import until

pytestmark = pytest.mark.browser


async def test_the_lobby_shows_the_daily_challenge_and_play_starts_it(web: Web) -> None:
    page = await web.page("dana")
    await page.select_option("#game", "golf")
    await expect(page.locator("#daily h2")).to_have_text("Daily challenge")
    await expect(page.locator("#play-daily")).to_have_text("Play today's Golf")
    await page.click("#play-daily")
    await page.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
    code = page.url.rsplit("/", 1)[1]
    race = web.server.races[code]
    assert race.daily is not None and race.game_cls.key == "golf" and race.status in ("starting", "running")
    assert [e.name for e in race.entrants.values()] == ["dana"]
    await race.resign(next(iter(race.entrants)))
    await until(lambda: race.status == "finished")
    await page.goto(web.base + "/")
    await page.select_option("#game", "golf")
    await expect(page.locator("#daily-info")).to_contain_text("you played it")
    await expect(page.locator("#play-daily")).to_be_disabled()
    await expect(page.locator("#daily-calendar li.played")).to_have_count(1)


async def test_the_spoiler_lock_hides_a_daily_race_until_its_day_ends(browser: Browser) -> None:
    """dana plays today's daily from the lobby (and resigns); eve, in another browser context,
    opens it to watch: the page says it is locked and when it opens, and a client of eve's is
    refused its replay and its record. Once the server's clock passes the day's end, the same
    page shows the race, its record (the deal checked fair) and its replay."""
    clock = DayClock(NOON)
    config = ServerConfig(idle_timeout_s=None, ping_interval_s=None, daily_secret="s3cret")
    async with web_over(browser, config, clock=clock) as web:
        dana = await web.page("dana")
        await dana.select_option("#game", "golf")
        await expect(dana.locator("#daily-boards")).to_have_attribute("href", "/leaderboard/golf?board=daily")
        await dana.click("#play-daily")
        await dana.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
        code = dana.url.rsplit("/", 1)[1]
        race = web.server.races[code]
        await race.resign(next(iter(race.entrants)))
        await until(lambda: race.status == "finished")

        eve = await web.page("eve", f"/w/{code}")
        locked = eve.locator("#race-error")
        await expect(locked).to_contain_text("Locked while its deal may still be played")
        await expect(locked).to_contain_text("opens at")
        peer = await ArenaClient.connect(web.server.url, "eve's phone")
        try:
            entrant = next(iter(race.entrants))
            for ask in (peer.replay(code, entrant, 0), peer.get_record(code)):
                with pytest.raises(ArenaError) as refused:
                    await ask
                assert refused.value.code == "spoiler_locked"
                assert refused.value.opens_at_ms == day_end_ms("2026-03-10")
        finally:
            await peer.close()

        clock.jump(day_end_ms("2026-03-10") - clock.wall_ms() + 60_000)  # a minute into the next day
        await eve.goto(f"{web.base}/w/{code}")
        await expect(eve.locator("#race-error")).to_have_count(0)
        await expect(eve.locator("#fair-badge")).to_contain_text("Fair deal: checked")  # its record, read
        await eve.click("#replay")
        await expect(eve.locator("#replay-caption")).to_contain_text("The deal")
