"""The account page (/account) in real Chromium over a server with an archive: a guest's name is
marked, claiming it with a password (the server's refusal of a short one and a mismatch said in
words), a wrong login said in words, moving the player to a second browser context with a
one-time code (both contexts are then the same player), and a passkey added through Chromium's
virtual authenticator (DevTools protocol) and used to log in from another context. axe-core finds
nothing on the page at 360 px and 1366 px.

Passkeys need the page on a secure origin: it is loaded from http://localhost:PORT (the server's
``public_origin``), which Chromium counts as one."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, CDPSession, Page, expect

from server.config import ServerConfig
from tests.web.conftest import Web, axe, web_over

pytestmark = pytest.mark.browser

PASSWORD = "correct horse battery"
#: A transfer code as the server makes them.
CODE = re.compile(r"^[2-9A-HJKMNP-Z]{10}$")


@pytest_asyncio.fixture(loop_scope="session")
async def account_web(browser: Browser, tmp_path) -> AsyncIterator[Web]:
    """As the `web` fixture, over a server with an archive whose page is at http://localhost:PORT,
    its public origin (so that passkeys work there)."""
    config = ServerConfig(idle_timeout_s=None, data_dir=tmp_path, password_per_s=10.0)
    async with web_over(browser, config) as web:
        web.base = web.base.replace("127.0.0.1", "localhost")
        web.server.config.public_origin = web.base
        yield web


def player_of(web: Web, token: str) -> str:
    """The id of the player ``token`` resumes on the server."""
    return web.server.players[token].id


async def token_of(page: Page) -> str:
    return await page.evaluate("localStorage.getItem('arena.token')")


async def claim(page: Page, first: str, second: str | None = None) -> None:
    await page.fill("#claim-password", first)
    await page.fill("#claim-password2", first if second is None else second)
    await page.click("#claim-save")


async def test_claim_with_a_password_then_move_to_another_context_with_a_code(account_web: Web):
    web = account_web
    page = await web.page("Cleo", "/")
    await expect(page.locator("#guest-tag")).to_be_visible()  # a guest's name is marked
    await page.click("#account")
    await expect(page.locator("#account-state")).to_have_text("guest")

    await claim(page, "one password", "another one")
    await expect(page.locator("#claim-message")).to_have_text("The two passwords differ: type the same one twice.")
    await claim(page, "short")
    await expect(page.locator("#claim-message")).to_contain_text("at least 10 characters")  # the server's rule
    await claim(page, PASSWORD)
    await expect(page.locator("#claim-message")).to_have_text("Cleo is yours now.")
    await expect(page.locator("#account-state")).to_have_text("claimed")
    await expect(page.locator("#guest-tag")).to_be_hidden()
    assert await axe(page, within="body") == []
    await web.screenshot(page, "account-desktop")

    await page.click("#transfer-make")
    await expect(page.locator("#transfer-code")).to_have_text(CODE)
    code = await page.locator("#transfer-code").text_content()
    await expect(page.locator("#transfer-expires")).to_contain_text("works once, until")

    other = await web.page("Dan", "/account")
    await other.fill("#login-name", "cleo")
    await other.fill("#login-password", "not the password")
    await other.click("#login-go")
    await expect(other.locator("#login-message")).to_have_text("No claimed name with that password: check both.")
    await other.fill("#redeem-code", (code or "").lower())
    await other.click("#redeem-go")
    await expect(other.locator("#who")).to_have_text("Cleo")
    await expect(other.locator("#redeem-message")).to_have_text("You are Cleo now.")
    await expect(other.locator("#account-state")).to_have_text("claimed")
    assert player_of(web, await token_of(other)) == player_of(web, await token_of(page))  # one player, two devices
    await other.fill("#redeem-code", code or "")
    await other.click("#redeem-go")
    await expect(other.locator("#redeem-message")).to_have_text("That code is unknown, used already, or expired.")

    phone = await web.page("Eve", "/", phone=True)
    box = await phone.locator("#who").bounding_box()
    assert box is not None and box["width"] > 20  # the name still shows beside the guest mark
    await phone.click("#rename")  # on a phone the account page is linked from the name dialog
    await phone.click("#name-account")
    await phone.wait_for_url(re.compile(r"/account$"))
    await expect(phone.locator("#account-state")).to_have_text("guest")
    assert await axe(phone, within="body") == []
    await web.screenshot(phone, "account-phone")


async def virtual_authenticator(page: Page) -> tuple[CDPSession, str]:
    """A CDP session on ``page`` with a virtual platform authenticator (CTAP2, internal, resident
    keys, user verification that always succeeds): ``(session, authenticator id)``."""
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("WebAuthn.enable")
    added = await cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, added["authenticatorId"]


async def test_a_passkey_added_to_a_claimed_name_logs_in_another_context(account_web: Web):
    web = account_web
    archive = web.server.archiver.archive
    page = await web.page("Ada", "/account")
    cdp, authenticator = await virtual_authenticator(page)
    await expect(page.locator("#passkey-add")).to_be_hidden()  # a guest claims first
    await claim(page, PASSWORD)
    await expect(page.locator("#account-state")).to_have_text("claimed")
    await page.click("#passkey-add")
    await expect(page.locator("#passkey-message")).to_have_text("Passkey added: use it to log in on this device.")
    ada = player_of(web, await token_of(page))
    (kept,) = await archive.passkeys_of(ada)
    made = (await cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator}))["credentials"]
    assert len(made) == 1 and made[0]["isResidentCredential"]

    # another device holding the same passkey (as a synced passkey would be): log in with it
    other = await web.page("Bo", "/account")
    cdp2, authenticator2 = await virtual_authenticator(other)
    await cdp2.send("WebAuthn.addCredential", {"authenticatorId": authenticator2, "credential": made[0]})
    await other.click("#passkey-login")
    await expect(other.locator("#who")).to_have_text("Ada")
    await expect(other.locator("#login-message")).to_have_text("Logged in as Ada.")
    assert player_of(web, await token_of(other)) == ada
    used = await archive.passkey(kept.credential_id)
    assert used is not None and used.sign_count > kept.sign_count and used.used_ms >= kept.used_ms
    await web.screenshot(other, "account-passkey")
