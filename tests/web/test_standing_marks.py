"""Guests marked and ratings beside names in real Chromium, over a server with an archive: a
claimed player's page joins a rated race that a claimed client created and a guest client joined;
the lobby's list and the standings mark the guest (and only the guest) "guest"; once the race
runs, the claimed entrants' ratings ("1000?": new, provisional) show beside their names; "Hide
ratings while playing", turned on in the settings dialog (kept in localStorage), hides them on
the page of an entrant of the running race, and they show again at its end. The page is a 360 px
phone's, and no wider with the marks."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect

from client.connection import ArenaClient
from server.config import ServerConfig
from tests.web.conftest import Web, web_over
from tests.web.helpers import resign, until

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


@pytest_asyncio.fixture(loop_scope="session")
async def archived_web(browser: Browser, tmp_path) -> AsyncIterator[Web]:
    """As the `web` fixture, over a server whose archive is in ``tmp_path``."""
    async with web_over(browser, ServerConfig(idle_timeout_s=None, data_dir=tmp_path, password_per_s=20.0)) as web:
        yield web


async def test_guests_are_marked_and_ratings_shown_unless_hidden_while_playing(archived_web):
    web = archived_web
    url = web.server.url
    alice = await ArenaClient.connect(url, "alice")  # (the page's player, claimed first)
    async with alice:
        await alice.claim(PASSWORD)
        token = alice.token
    bob = await ArenaClient.connect(url, "bob")
    carol = await ArenaClient.connect(url, "carol")
    async with bob, carol:
        await bob.claim(PASSWORD)
        info = await bob.create_race("golf", countdown_s=1, rated=True)
        await carol.join_race(info.code)
        page = await web.page("alice", "/", token=token, phone=True)
        await expect(page.locator("#guest-tag")).to_be_hidden()
        listed = page.locator("#open-races li", has_text=info.code)  # (the lobby refreshes its lists)
        await expect(listed.locator(".tag.guest")).to_have_count(1)
        await expect(listed.locator(".entrant")).to_have_text(["bob", "carol"])

        await page.goto(f"{web.base}/r/{info.code}")
        await page.click("#join")
        rows = page.locator(".side table.standings tbody tr")
        await expect(rows).to_have_count(3)
        row = {name: rows.filter(has_text=name) for name in ("alice", "bob", "carol")}
        await expect(row["carol"].locator(".tag.guest")).to_have_text("guest")
        for name in ("alice", "bob"):
            await expect(row[name].locator(".tag.guest")).to_have_count(0)

        await bob.start_race(info.code)
        race = web.server.races[info.code]
        await until(lambda: race.entrants[bob.player].rating is not None)
        await carol.wait_for(lambda: info.code in carol.started, 10)
        await carol.resign(info.code)  # (new standings for every entrant)
        for name in ("alice", "bob"):
            await expect(row[name].locator(".rating")).to_have_text("1000?")
        await expect(row["carol"].locator(".rating")).to_have_count(0)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360  # (a phone's width)
        await web.screenshot(page, "standing-marks-phone")

        await page.click("#settings")
        await page.check("#set-hide-ratings")
        await page.click("#settings-done")
        assert await page.evaluate("localStorage.getItem('arena.hideRatings')") == "1"
        await expect(page.locator(".side table.standings .rating")).to_have_count(0)
        await expect(row["carol"].locator(".tag.guest")).to_have_text("guest")  # (guests stay marked)

        await bob.resign(info.code)
        await resign(page)
        await expect(page.locator("#clock")).to_have_text("Finished")
        for name in ("alice", "bob"):
            await expect(row[name].locator(".rating")).to_have_text("1000?")
