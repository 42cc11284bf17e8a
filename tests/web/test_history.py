"""A player's identity lasts in the browser, and its "My races" page: over a server that keeps an
archive (a SQLite file in a temporary data directory), the page lists the player's finished
races newest first, each linking to its race page and its replay; every tab of the browser is
the same player, and a tab displaced by another may go on as a second player of its own."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect

from client.connection import ArenaClient
from server.config import ServerConfig
from tests.web.conftest import Web, axe, web_over
from tests.web.helpers import catalog_win, tournament, until

pytestmark = pytest.mark.browser


@pytest_asyncio.fixture(loop_scope="session")
async def archived_web(browser: Browser, tmp_path) -> AsyncIterator[Web]:
    """As the `web` fixture, over a server whose archive is in ``tmp_path``."""
    async with web_over(browser, ServerConfig(idle_timeout_s=None, data_dir=tmp_path)) as web:
        yield web


async def won_race(client: ArenaClient) -> str:
    """``client`` wins a race of one on the Golf catalog deal; its code."""
    seed, moves = catalog_win("golf")
    info = await client.create_race("golf", seed, max_entrants=1, countdown_s=0)
    await client.start_race(info.code)
    await client.wait_for(lambda: info.code in client.started, 10)
    for notation in moves:
        assert (await client.move(info.code, notation)).ok
    await client.wait_for(lambda: info.code in client.finished, 10)
    return info.code


async def test_my_races_lists_finished_races_and_tabs_are_one_player(archived_web: Web):
    web = archived_web
    client = await ArenaClient.connect(web.server.url, "mara")
    first = await won_race(client)
    second = await won_race(client)
    archiver = web.server.archiver
    await until(lambda: archiver.races_written >= 2)
    await client.close()

    page = await web.page("mara", "/", token=client.token)
    await page.click("#my-races")
    await page.wait_for_url(re.compile(r"/me$"))
    rows = page.locator("#history li")
    await expect(rows).to_have_count(2)
    assert [await rows.nth(i).get_attribute("data-race") for i in range(2)] == [second, first]  # newest first
    await expect(rows.first).to_contain_text("1st of 1")
    await expect(rows.first).to_contain_text("won")
    assert await axe(page, within="main") == []
    await web.screenshot(page, "my-races")

    # a second tab of the same browser is the same player; the first is told, and may go on as a
    # second player of its own
    other = await page.context.new_page()
    await other.goto(web.base + "/me")
    await expect(other.locator("#history li")).to_have_count(2)
    await expect(page.locator("#displaced-dialog")).to_be_visible()
    await page.click("#displaced-second")
    await expect(page.locator("#history-status")).to_contain_text("No finished race yet")
    players = lambda: {p.id for s in web.server.sessions if (p := s.player) is not None}  # noqa: E731
    await until(lambda: len(players()) == 2)
    assert client.player in players()
    await asyncio.sleep(0.3)
    await expect(other.locator("#displaced-dialog")).to_have_count(0)  # the second tab stays as it is

    await other.click(f"#history li[data-race='{first}'] a")
    await other.wait_for_url(re.compile(rf"/w/{first}$"))
    await other.click("#replay")
    await expect(other.locator("#replay-step")).to_be_visible()


async def test_my_races_lists_the_tournaments_you_played_and_links_their_results(archived_web: Web):
    """A player plays a one-deal tournament to its end (as a bot); on a phone its "My races" page
    lists the tournament with its place, within 360 px, axe-clean, and the line leads to the
    tournament's results page."""
    from client.bot import run_tournament_bot

    web = archived_web
    club = tournament(web, starts_in_s=2)
    client = await ArenaClient.connect(web.server.url, "tess")
    await run_tournament_bot(client, club.id)
    await until(lambda: web.server.archiver.tournaments_written >= 1, 30)
    await client.close()

    page = await web.page("tess", "/me", phone=True, token=client.token)
    line = page.locator(f"#history-tournaments li[data-tournament='{club.id}']")
    await expect(line).to_contain_text("Club night")
    await expect(line).to_contain_text("1st of 1")
    await expect(page.locator("#history-tournaments-status")).to_contain_text("1 tournament")
    assert await page.evaluate("document.documentElement.scrollWidth") <= 360
    assert await axe(page, within="main") == []
    await web.screenshot(page, "my-races-tournaments")
    await line.locator("a").click()
    await page.wait_for_url(re.compile(rf"/t/{club.id}$"))
    await expect(page.locator("#tournament-status")).to_have_text("finished")
