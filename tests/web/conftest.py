"""Fixtures for the browser tests: a real server on 127.0.0.1 (in this process, so the frame
audit checks every frame the pages receive) and a real headless Chromium driven by Playwright.

Chromium is Debian's ``chromium`` package (Playwright's own browser download is not used):
``make test-all`` installs it when it is missing; ARENA_CHROMIUM names another binary. One Chromium
serves every browser test of a pytest process (`browser`: starting Playwright's driver and the
browser costs about 3 s), so these tests and their async fixtures run in the session's event
loop; each test gets its own server and browser contexts (their own storage), closed at its end.
Each page records its console errors and uncaught exceptions, and a test fails if any page had one.
Screenshots go to build/screenshots/ (ARENA_SCREENSHOTS names another folder). `axe` runs
axe-core (vendored for the tests only: tests/web/vendor/, MPL-2.0) in a page and returns what it
finds.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, async_playwright, expect

from server.app import ArenaServer
from server.config import ServerConfig
from server.race import Clock

SCREENSHOTS = Path(os.environ.get("ARENA_SCREENSHOTS", Path(__file__).resolve().parents[2] / "build" / "screenshots"))
#: Chromium flags for a sandboxed machine with no network beyond loopback.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1366, "height": 850}}
#: axe-core 4.14.1 from the npm registry (its licence beside it), run in pages by `axe`.
AXE = Path(__file__).resolve().parent / "vendor" / "axe-4.14.1.min.js"


def chromium_path() -> str:
    """The Chromium binary: ARENA_CHROMIUM, else Debian's /usr/bin/chromium."""
    path = os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(
            f"no Chromium at {path}: run `make browser` (apt-get install chromium) or set ARENA_CHROMIUM", pytrace=False
        )
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

    async def page(
        self,
        name: str,
        path: str = "/",
        *,
        phone: bool = False,
        setup: Callable[[Page], Awaitable[None]] | None = None,
        token: str | None = None,
        chosen: bool = True,
    ) -> Page:
        """A new browser context (its own storage, so its own player) named ``name``, at ``path``;
        ``setup`` is awaited with the page before it loads (to route its websocket, say).
        ``token``: resume that player's session (one a test's client opened) instead of a new one.
        ``chosen``: the player chose its name (else the page may ask for one)."""
        context = await self.browser.new_context(**(PHONE if phone else DESKTOP))
        context.set_default_timeout(15_000)
        script = (
            f"if (localStorage.getItem('arena.name') === null) localStorage.setItem('arena.name', {name!r});"
            f"if (localStorage.getItem('arena.nameChosen') === null)"
            f" localStorage.setItem('arena.nameChosen', {'1' if chosen else '0'!r});"
        )
        if token:
            script += f"if (!localStorage.getItem('arena.token')) localStorage.setItem('arena.token', {token!r});"
        await context.add_init_script(script)
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


async def axe(page: Page, *, within: str = "body") -> list[str]:
    """What axe-core finds wrong in ``page`` (every rule it runs by default: WCAG 2 A and AA and
    its best practices), one line per element: ``rule id: selector: summary``; [] when nothing."""
    if not await page.evaluate("typeof window.axe !== 'undefined'"):
        await page.evaluate(AXE.read_text())
    found = await page.evaluate(
        r"""async (within) => (await axe.run(document.querySelector(within), {resultTypes: ['violations']}))
             .violations.flatMap(v => v.nodes.map(n =>
               `${v.id}: ${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`))""",
        within,
    )
    return list(found)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run every async test under tests/web in the session's event loop, the loop `browser` lives in."""
    here = Path(__file__).resolve().parent
    session_loop = pytest.mark.asyncio(loop_scope="session")
    for item in items:
        if here in item.path.parents and inspect.iscoroutinefunction(getattr(item, "function", None)):
            item.add_marker(session_loop, append=False)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser() -> AsyncIterator[Browser]:
    """The headless Chromium that this pytest process's browser tests share."""
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


@pytest_asyncio.fixture(loop_scope="session")
async def web(browser: Browser) -> AsyncIterator[Web]:
    """A server on a free port, the shared Chromium, and the pages a test opens."""
    async with web_over(browser, ServerConfig(idle_timeout_s=None)) as made:
        yield made


@contextlib.asynccontextmanager
async def web_over(browser: Browser, config: ServerConfig, *, clock: Clock | None = None) -> AsyncIterator[Web]:
    """As the `web` fixture, over a server with ``config`` (and ``clock``, one the test moves,
    instead of the real one); at the end its browser contexts are closed and no page had a problem."""
    async with ArenaServer(config, clock=clock) as server:
        web = Web(server, browser, server.url.replace("ws://", "http://"))
        try:
            yield web
        finally:
            for context in web.contexts:
                await context.close()
        assert not web.problems, "\n".join(web.problems)
