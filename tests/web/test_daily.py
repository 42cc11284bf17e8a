"""The lobby's daily challenge: today's deal of the picked game, Play starts it (a race of one,
started at once), and once it is over the lobby shows it played, on this month's calendar."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.web.conftest import Web
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
