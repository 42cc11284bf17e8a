"""Fixtures for the browser tests: a real server on 127.0.0.1 (in this process, so the frame
audit checks every frame the pages receive) and a real headless Chromium driven by Playwright.

Chromium is Debian's ``chromium`` package (Playwright's own browser download is not used):
``make test`` installs it when it is missing; ARENA_CHROMIUM names another binary. Each page
records its console errors and uncaught exceptions, and a test fails if any page had one.
Screenshots go to build/screenshots/ (ARENA_SCREENSHOTS names another folder).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from server.service import ArenaServer, ServerConfig

SCREENSHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", Path(__file__).resolve().parents[2] / "build" / "screenshots"))
#: Chromium flags for a sandboxed machine with no network beyond loopback.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 860}}


def chromium_path() -> str:
    """The Chromium binary: ARENA_CHROMIUM, else Debian's /usr/bin/chromium."""
    path = os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(f"no Chromium at {path}: run `make browser` (apt-get install chromium) or set ARENA_CHROMIUM",
                    pytrace=False)
    return path


@dataclass
class Web:
    """A running server and a browser: open pages as named players, and check them at the end."""

    server: ArenaServer
    browser: Browser
    base: str
    contexts: list[BrowserContext] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    allowed: tuple[str, ...] = ()  # console messages a test expects (e.g. a refused socket while offline)

    async def page(self, name: str, path: str = "/", *, phone: bool = False,
                   setup: Callable[[Page], Awaitable[None]] | None = None) -> Page:
        """A new browser context (its own storage, so its own player) named ``name``, at ``path``;
        ``setup`` is awaited with the page before it loads (to route its websocket, say)."""
        context = await self.browser.new_context(**(PHONE if phone else DESKTOP))
        context.set_default_timeout(15_000)
        await context.add_init_script(f"localStorage.setItem('arena.name', {name!r});")
        self.contexts.append(context)
        page = await context.new_page()
        if setup is not None:
            await setup(page)
        page.on("console", lambda msg: self._console(name, msg))
        page.on("pageerror", lambda exc: self.problems.append(f"{name}: uncaught {exc}"))
        await page.goto(self.base + path)
        await expect(page.locator("#who")).to_have_text(name)  # welcomed (a locator: the CSP forbids eval)
        return page

    def _console(self, name: str, msg: object) -> None:
        if getattr(msg, "type", "") == "error":
            text = getattr(msg, "text", "")
            if not any(a in text for a in self.allowed):
                self.problems.append(f"{name}: console error: {text}")

    async def screenshot(self, page: Page, name: str) -> Path:
        """Save a full-page screenshot as build/screenshots/NAME.png."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        await page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
async def web() -> AsyncIterator[Web]:
    """A server on a free port, a headless Chromium, and the pages a test opens."""
    config = ServerConfig(idle_timeout_s=None)
    async with ArenaServer(config) as server, async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        web = Web(server, browser, server.url.replace("ws://", "http://"))
        try:
            yield web
        finally:
            for context in web.contexts:
                await context.close()
            await browser.close()
        assert not web.problems, "\n".join(web.problems)
