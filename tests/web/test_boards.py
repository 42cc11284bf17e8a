"""Ratings in the browser: over a server with an archive, two players claim their names on the
account page (a guest finds the lobby's Rated box disabled first), one creates a rated Golf race
from the lobby's form, the other joins; the creator clears a card, both resign, and the race is
rated. Then each profile page (/p/ID from the race's standings, /p/NAME by name) shows the game's
rating, the winner's higher, with its chart, the recent race and Follow / Challenge; the
leaderboard (/leaderboard, then the game) lists both by rating, in order, in its Top, Around me
and Friends views, and its Daily tab offers today at most. axe-core finds nothing on the profile
and leaderboard pages at 1366 px and 360 px, and neither is wider than 360 px there."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, expect

from engine.core import Game, Move
from server.config import ServerConfig
from server.race import Race
from tests.web.conftest import Web, axe, web_over
from tests.web.helpers import click_move, entrant, resign, until

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
PHONE = {"width": 360, "height": 740}
DESKTOP = {"width": 1366, "height": 850}


@pytest_asyncio.fixture(loop_scope="session")
async def archived_web(browser: Browser, tmp_path) -> AsyncIterator[Web]:
    """As the `web` fixture, over a server whose archive is in ``tmp_path``."""
    async with web_over(browser, ServerConfig(idle_timeout_s=None, data_dir=tmp_path, password_per_s=10.0)) as web:
        yield web


async def claimed(web: Web, name: str) -> Page:
    """``name``'s page, a guest whose lobby offers no rated race, after claiming its name on the
    account page."""
    page = await web.page(name, "/")
    await expect(page.locator("#rated")).to_be_disabled()
    await expect(page.locator("#rated-hint")).to_contain_text("claim yours")
    await page.click("#account")
    await page.fill("#claim-password", PASSWORD)
    await page.fill("#claim-password2", PASSWORD)
    await page.click("#claim-save")
    await expect(page.locator("#claim-message")).to_have_text(f"{name} is yours now.")
    return page


def clearing_moves(race: Race) -> tuple[Game, list[Move]]:
    """A fresh game of ``race``'s deal and a shortest line of moves that clears a card in it
    (breadth first, at most 20 moves: a Golf deal may need several deals from the stock before
    a tableau card fits the waste)."""
    fresh = race.game_cls(race.seed, **race.options)
    layer: list[tuple[Game, list[Move]]] = [(fresh, [])]
    for _ in range(20):
        following = []
        for game, line in layer:
            for move in list(game.legal_moves()):
                child = game.copy()
                child.apply(move)
                if child.cleared:
                    return race.game_cls(race.seed, **race.options), [*line, move]
                following.append((child, [*line, move]))
        layer = following[:1000]
    raise AssertionError("no card can be cleared within 20 moves of this deal")


async def rating_of(page: Page, game: str) -> int:
    """The rating a profile page shows for ``game`` (display points; "?" while provisional)."""
    shown = page.locator(f".game-stats[data-game='{game}'] .rating")
    await expect(shown).to_have_text(re.compile(r"^\d+\??$"))
    return int((await shown.text_content() or "").rstrip("?"))


async def checked_at_both_widths(web: Web, page: Page, name: str) -> None:
    """axe-core finds nothing in ``page`` at 1366 px and 360 px, where it is no wider than the
    screen; a screenshot of each (build/screenshots/NAME-desktop.png, NAME-phone.png)."""
    await page.set_viewport_size(DESKTOP)
    assert await axe(page, within="body") == []
    await web.screenshot(page, f"{name}-desktop")
    await page.set_viewport_size(PHONE)
    assert await axe(page, within="body") == []
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    await web.screenshot(page, f"{name}-phone")
    await page.set_viewport_size(DESKTOP)


async def test_a_rated_race_moves_both_ratings_and_the_leaderboard(archived_web: Web):
    web = archived_web
    ann = await claimed(web, "ann")
    bea = await claimed(web, "bea")

    await ann.click("a.brand")
    await ann.select_option("#game", "golf")
    await ann.click("#friend summary")
    await expect(ann.locator("#rated")).to_be_enabled()
    await ann.check("#rated")
    await ann.fill("input[name=entrants]", "2")
    await ann.fill("input[name=countdown]", "0")
    await web.screenshot(ann, "lobby-rated")
    await ann.click("#create-form button[type=submit]")
    await ann.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
    code = ann.url.rsplit("/", 1)[1]
    race = web.server.races[code]
    assert race.rated and not race.seed_public
    await expect(ann.locator("#rated-badge")).to_have_text("Rated")

    await bea.goto(f"{web.base}/r/{code}")
    await expect(bea.locator("#rated-badge")).to_have_text("Rated")
    await web.screenshot(bea, "race-rated")
    await bea.click("#join")
    await until(lambda: len(race.entrants) == 2)
    await ann.click("#start")
    await until(lambda: race.status == "running")
    game, line = clearing_moves(race)
    for move in line:
        await expect(ann.locator(".table.busy")).to_have_count(0)
        await click_move(ann, game, move)
        game.apply(move)
    ann_id, bea_id = entrant(race, "ann").player, entrant(race, "bea").player
    await until(lambda: entrant(race, "ann").cleared > 0)
    await resign(bea)
    await resign(ann)
    await until(lambda: race.status == "finished")
    archive = web.server.archiver.archive
    for player in (ann_id, bea_id):
        for _ in range(500):
            if await archive.ratings_of(player):
                break
            await ann.wait_for_timeout(20)
        assert await archive.ratings_of(player), "the race was not rated"

    # the standings link each name to its profile
    await ann.locator(f"table.standings tr[data-player='{bea_id}'] a").click()
    await ann.wait_for_url(re.compile(rf"/p/{bea_id}$"))
    await expect(ann.locator("#profile-name")).to_have_text("bea")
    await expect(ann.locator("#profile-tag")).to_have_text("claimed")
    loser = await rating_of(ann, "golf")
    chart = ann.locator(".game-stats[data-game='golf'] svg.rating-chart[role=img]")
    await expect(chart).to_have_attribute(
        "aria-label", re.compile(r"Rating in Golf over 1 rated race: first \d+, last \d+, best \d+")
    )
    await expect(ann.locator(f"#profile-recent li[data-race='{code}'] a")).to_have_attribute("href", f"/w/{code}")
    await expect(ann.locator("#profile-challenge")).to_be_visible()
    await ann.click("#profile-follow")
    await expect(ann.locator("#profile-follow")).to_have_text("Unfollow")
    await checked_at_both_widths(web, ann, "profile")

    await bea.goto(f"{web.base}/p/ANN")  # a claimed name, compared as claims are
    await expect(bea.locator("#profile-name")).to_have_text("ann")
    winner = await rating_of(bea, "golf")
    assert winner > loser
    await expect(bea.locator(".game-stats[data-game='golf'] dl")).to_contain_text("Cards cleared")

    # the leaderboard: from the header's link, the game picker, then Golf's board
    await ann.click("#leaderboards")
    await ann.wait_for_url(re.compile(r"/leaderboard$"))
    await ann.locator("#board-games a", has_text="Golf").click()
    await ann.wait_for_url(re.compile(r"/leaderboard/golf$"))
    rows = ann.locator("#board-rows tr")
    await expect(rows).to_have_count(2)
    assert [await rows.nth(i).get_attribute("data-player") for i in range(2)] == [ann_id, bea_id]
    await expect(rows.nth(0).locator("td.rating")).to_have_text(f"{winner}?")  # provisional after one race
    await expect(rows.nth(1).locator("td.rating")).to_have_text(f"{loser}?")
    await expect(ann.locator("#board-caption")).to_contain_text("not a global rank")
    await expect(ann.locator("#board-more")).to_be_hidden()
    await checked_at_both_widths(web, ann, "leaderboard")
    for view in ("Around me", "Friends"):  # ann follows bea: both are its friends' board
        await ann.locator("#board-view button", has_text=view).click()
        await expect(ann.locator("#board-view button", has_text=view)).to_have_attribute("aria-pressed", "true")
        await expect(rows).to_have_count(2)
        assert [await rows.nth(i).get_attribute("data-player") for i in range(2)] == [ann_id, bea_id]
    await ann.locator("#board-kind button", has_text="Daily").click()
    await ann.wait_for_url(re.compile(r"/leaderboard/golf\?board=daily$"))
    await ann.reload()  # the server serves the page at that address, which opens the same board
    await expect(ann.locator("#board-kind button", has_text="Daily")).to_have_attribute("aria-pressed", "true")
    today = await ann.locator("#board-day").get_attribute("max")
    await expect(ann.locator("#board-day")).to_have_value(today or "")
    await expect(ann.locator("#board-status")).to_have_text("Nobody has played this day's challenge yet.")
    assert await axe(ann, within="main") == []
