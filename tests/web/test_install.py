"""The page as an installable app: its manifest and icons, and the service worker that keeps its
shell, so that it opens with the server out of reach, and that fetches everything again when any
file changes."""

from __future__ import annotations

import json
import re
import shutil
import struct
from pathlib import Path

import pytest
from playwright.async_api import expect

from server.web import WEB_ROOT, WebClient
from tests.web.conftest import Web


def build_of(web: WebClient) -> dict:
    """The build server/web.py filled into the service worker: {version, files}."""
    found = web.lookup("/sw.js")
    assert found is not None
    match = re.search(r"^const BUILD = (\{.*\});", found.body.decode(), re.MULTILINE)
    assert match, "the service worker's build line is not filled in"
    return json.loads(match.group(1))


def test_the_service_worker_keeps_the_shell_and_changes_version_with_any_file(tmp_path: Path) -> None:
    web = WebClient()
    build = build_of(web)
    statics = {"/static/" + p.relative_to(WEB_ROOT).as_posix() for p in WEB_ROOT.rglob("*") if p.is_file()}
    statics -= {"/static/sw.js", "/static/manifest.webmanifest"}
    assert set(build["files"]) == statics | {"/", "/api/games", "/manifest.webmanifest"}
    assert not any(f.startswith(("/r/", "/w/", "/t/", "/rules/")) for f in build["files"])  # nothing per race
    assert web.lookup("/static/sw.js") is None  # served at the root only (its scope: the whole site)

    root = tmp_path / "web"
    shutil.copytree(WEB_ROOT, root)
    assert build_of(WebClient(root))["version"] == build["version"]  # the same files, the same version
    (root / "style.css").write_text((root / "style.css").read_text() + "\n/* changed */\n")
    assert build_of(WebClient(root))["version"] != build["version"]


@pytest.mark.browser
async def test_the_manifest_and_its_icons(web: Web) -> None:
    page = await web.page("manny")
    href = await page.locator('link[rel="manifest"]').get_attribute("href")
    assert href == "/manifest.webmanifest"
    answer = await page.request.get(web.base + href)
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/manifest+json"
    manifest = json.loads(await answer.text())
    assert manifest["name"] == "Patience Arena" and manifest["short_name"]
    assert manifest["start_url"] == "/" and manifest["scope"] == "/" and manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["background_color"])
    sizes = {icon["sizes"]: icon for icon in manifest["icons"]}
    assert sizes["any"]["type"] == "image/svg+xml"
    for size in (192, 512):
        icon = sizes[f"{size}x{size}"]
        assert icon["type"] == "image/png"
        png = await page.request.get(web.base + icon["src"])
        assert png.status == 200 and png.headers["content-type"] == "image/png"
        body = await png.body()
        assert body[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", body[16:24]) == (size, size)  # the IHDR's width and height
    svg = await page.request.get(web.base + sizes["any"]["src"])
    assert svg.status == 200 and "<svg" in await svg.text()
    worker = await page.request.get(web.base + "/sw.js")
    assert worker.status == 200 and worker.headers["content-type"].startswith("text/javascript")
    assert "script-src 'self'" in worker.headers["content-security-policy"]


@pytest.mark.browser
async def test_the_shell_opens_offline_from_the_service_worker(web: Web) -> None:
    web.allowed = ("WebSocket connection", "ERR_INTERNET_DISCONNECTED")
    page = await web.page("olive")
    await expect(page.locator("#play-now")).to_be_visible()
    for _ in range(100):  # the worker installs, keeps the files and takes the page over
        if await page.evaluate("navigator.serviceWorker.controller !== null"):
            break
        await page.wait_for_timeout(100)
    assert await page.evaluate("navigator.serviceWorker.controller !== null"), "no service worker took the page"
    kept = await page.evaluate(
        """async () => { const names = await caches.keys(); const cache = await caches.open(names[0]);
        return [names.length, (await cache.keys()).map(r => new URL(r.url).pathname)]; }"""
    )
    assert kept[0] == 1 and "/" in kept[1] and "/api/games" in kept[1] and "/static/app.js" in kept[1]
    assert not any(p.startswith(("/r/", "/w/", "/t/")) for p in kept[1])

    await page.context.set_offline(True)
    await page.reload()
    await expect(page.locator("#play-now")).to_be_visible()  # the lobby's shell, from the cache
    await expect(page.locator("#offline")).to_be_visible()
    await expect(page.locator("#offline")).to_have_text("Offline: reconnecting…")
    await web.screenshot(page, "offline-desktop")
    await page.goto(web.base + "/r/ABCDEF")  # any page route: the same shell
    await expect(page.locator(".bar .brand")).to_be_visible()
    await expect(page.locator("#offline")).to_be_visible()

    await page.context.set_offline(False)  # back: the page connects by itself
    await expect(page.locator("#offline")).to_be_hidden(timeout=15_000)
