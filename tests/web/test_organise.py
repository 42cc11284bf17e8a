"""An organiser creates a tournament from the browser: a claimed player (the claim request) is
refused until the admin grants it the role, then creates an invite-only tournament on /organise,
sees its link and invite code and lists it; the tournament page offers the calendar file and
the invite code's form."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from client.connection import ArenaClient
from server.config import ServerConfig
from tests.web.conftest import axe, web_over
from tests.web.helpers import ADMIN

pytestmark = pytest.mark.browser


async def test_an_organiser_creates_an_invite_only_tournament_from_the_page(browser: Browser, tmp_path) -> None:
    config = ServerConfig(idle_timeout_s=None, data_dir=tmp_path, password_per_s=10.0, admin_token=ADMIN)
    async with web_over(browser, config) as web:
        async with await ArenaClient.connect(web.server.url, "olga") as olga:
            await olga.claim("olga's long password")
            token = olga.token
        page = await web.page("olga", "/organise", token=token)
        await expect(page.locator("#organise-form")).to_be_visible()
        assert await axe(page) == []
        await page.fill("#organise-name", "Club night")
        await page.select_option("#organise-game", "golf")
        await page.fill("#organise-deals", "2")
        await page.select_option("#organise-entry", "invite")
        await expect(page.locator("#organise-code-input")).to_be_visible()
        await expect(page.locator("#organise-allow")).to_be_hidden()
        await page.click("#organise-create")  # not an organiser yet: refused, saying so
        await expect(page.locator("#organise-error")).to_contain_text("not_organiser")
        async with await ArenaClient.connect(web.server.url, "admin") as admin:
            await admin.grant_organiser(ADMIN, "olga")
        await page.click("#organise-create")
        await expect(page.locator("#organise-created")).to_contain_text("Club night")
        code = (await page.locator("#organise-code").text_content() or "").strip()
        [made] = [t for t in web.server.tournaments.values() if t.plan.name == "Club night"]
        assert made.plan.organiser == olga.player and made.plan.entry == "invite" and made.plan.invite_code == code
        assert len(made.plan.seeds) == 2 and made.plan.game_cls.key == "golf"
        await expect(page.locator("#organise-invite")).to_contain_text(f"/t/{made.id}?code={code}")
        await expect(page.locator("#organise-mine li a")).to_have_text(["Club night"])  # listed as hers
        assert await axe(page) == []
        await web.screenshot(page, "organise")

        guest = await web.page("guest", f"/t/{made.id}?code={code}")  # the shared invite link
        await expect(guest.locator("#calendar")).to_have_attribute("href", f"/t/{made.id}.ics")
        await expect(guest.locator("#invite-code")).to_have_value(code)
        assert await axe(guest) == []
        await guest.click("#register")
        await expect(guest.locator("#tournament-standings")).to_contain_text("guest")
