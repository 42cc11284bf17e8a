"""Draw the web client's PNG icons (client/web/icon-192.png and icon-512.png) from its SVG icon
(client/web/icon.svg), with the headless Chromium the browser tests use. Run it again after
changing the SVG, and commit the PNGs: the server serves the files as they are.

    .venv/bin/python -m tooling.make_icons
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

from playwright.async_api import async_playwright

WEB = Path(__file__).resolve().parents[1] / "client" / "web"
SIZES = (192, 512)


async def draw(svg: str, size: int, out: Path) -> None:
    """Render ``svg`` at ``size`` x ``size`` px to the PNG ``out`` (transparent outside it)."""
    chromium = os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = await browser.new_page(viewport={"width": size, "height": size})
        style = "<style>html,body{margin:0;background:transparent}svg{display:block;width:100vw;height:100vh}</style>"
        await page.set_content(f"<!doctype html>{style}{svg}")
        await page.screenshot(path=str(out), omit_background=True)
        await browser.close()


async def main() -> None:
    svg = (WEB / "icon.svg").read_text()
    for size in SIZES:
        out = WEB / f"icon-{size}.png"
        await draw(svg, size, out)
        print(f"{out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    asyncio.run(main())
