"""Friends in the browser: over a server with an archive, two claimed players in two browser
contexts; one follows the other from the lobby's Friends box, sees it online and challenges it;
the other (on a 360 px phone) sees the invitation in its lobby and accepts it, and both are in the
race. Both lobbies pass axe-core."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, expect

from client.connection import ArenaClient
from server.config import ServerConfig
from tests.web.conftest import Web, axe, web_over
from tests.web.helpers import until

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"


@pytest_asyncio.fixture(loop_scope="session")
async def archived_web(browser: Browser, tmp_path) -> AsyncIterator[Web]:
    """As the `web` fixture, over a server whose archive is in ``tmp_path``."""
    async with web_over(browser, ServerConfig(idle_timeout_s=None, data_dir=tmp_path, password_per_s=10.0)) as web:
        yield web


async def test_a_friend_challenge_is_accepted_from_the_lobby(archived_web: Web):
    web = archived_web
    tokens = {}
    for name in ("ann", "bea"):  # claimed players (only they may follow and be followed)
        client = await ArenaClient.connect(web.server.url, name)
        await client.claim(PASSWORD)
        tokens[name] = client.token
        await client.close()
    bea = await web.page("bea", "/", token=tokens["bea"], phone=True)
    ann = await web.page("ann", "/", token=tokens["ann"])

    await ann.fill("#follow-name", "bea")
    await ann.click("#follow-form button[type=submit]")
    await expect(ann.locator("#friends-list li.friend")).to_contain_text("bea · online")
    assert await axe(ann, within="#friends") == []  # (the Friends box: the rest of the lobby is not ours)
    await ann.get_by_role("button", name="Challenge bea").click()
    await ann.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
    code = ann.url.rsplit("/", 1)[1]

    invitation = bea.locator(f"#invitations li[data-race='{code}']")
    await expect(invitation).to_contain_text("ann challenges you")
    assert await axe(bea, within="#friends") == []
    assert await bea.evaluate("document.documentElement.scrollWidth") <= 360  # readable at 360 px
    await web.screenshot(bea, "friends-invitation-phone")
    await bea.get_by_role("button", name="Accept ann's challenge").click()
    await bea.wait_for_url(re.compile(rf"/r/{code}$"))
    race = web.server.races[code]
    await until(lambda: len(race.entrants) == 2)
    assert sorted(e.name for e in race.entrants.values()) == ["ann", "bea"]
