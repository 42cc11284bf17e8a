"""The tournament page's Organiser panel: with the admin token, the fair-play report's flagged
pairs; with a wrong one, the refusal and its code."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from client.connection import ArenaClient
from server import fair_play_reports
from tests.server.test_fair_play_report import SEED, play_staged
from tests.web.conftest import Web
from tests.web.helpers import ADMIN, tournament, until

pytestmark = pytest.mark.browser


async def test_the_organiser_panel_shows_the_flagged_scouting_pair_for_the_admin_token_only(web: Web) -> None:
    club = tournament(web, starts_in_s=2, game="klondike", seeds=[SEED], max_entries_per_address=0)
    async with (
        await ArenaClient.connect(web.server.url, "scout") as scout,
        await ArenaClient.connect(web.server.url, "player") as player,
    ):
        await play_staged(scout, player, club.id)
    await until(lambda: club.status == "finished")
    await until(lambda: bool(fair_play_reports.report(club, 0).deals) and not fair_play_reports.report(club, 0).pending)
    page = await web.page("org", f"/t/{club.id}")
    await page.click("#organiser summary")
    await page.fill("#admin-token", "guess")
    await page.click("#fair-play-show")
    await expect(page.locator("#fair-play-error")).to_contain_text("not_organiser")
    await page.fill("#admin-token", ADMIN)
    await page.click("#fair-play-show")
    pair = page.locator("#fair-play .flag-pair")
    await expect(pair).to_have_count(1)
    await expect(pair).to_contain_text("player used 2 cards scout had seen first")
    await expect(page.locator("#fair-play-error")).to_have_count(0)
    assert await page.evaluate("sessionStorage.getItem('arena.admin')") == ADMIN
    await web.screenshot(page, "tournament-organiser")
    await page.reload()  # the token stays with the tab: the report comes back by itself
    await expect(page.locator("#fair-play .flag-pair")).to_have_count(1)
    phone = await web.page("org", f"/t/{club.id}", phone=True)
    await phone.click("#organiser summary")
    await phone.fill("#admin-token", ADMIN)
    await phone.click("#fair-play-show")
    await expect(phone.locator("#fair-play .flag-pair")).to_have_count(1)
    await web.screenshot(phone, "tournament-organiser-phone")
