"""Every page for people who use a screen reader or a keyboard: axe-core finds nothing wrong on
the lobby, a race (waiting, in play, finished), the watch page, a replay, a tournament and a rules
page, at both sizes; cards and piles have roles and names; moves and other entrants' finishes are
announced; the keyboard controls are written on the page."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from client.connection import ArenaClient
from engine.games import find_game
from tests.web.conftest import Web, axe
from tests.web.helpers import click_move, entrant, first_transfer_seed, join, resign, tournament, until

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_axe_finds_nothing_on_any_page(web: Web, phone: bool) -> None:
    found: dict[str, list[str]] = {}
    page = await web.page("olga", phone=phone)
    await expect(page.locator("#play-now")).to_be_visible()
    found["lobby"] = await axe(page)
    async with await ArenaClient.connect(web.server.url, "pavel") as pavel:
        seed = first_transfer_seed("klondike")
        code = (await pavel.create_race("klondike", seed, countdown_s=0)).code
        await page.goto(f"{web.base}/r/{code}")
        await expect(page.locator("#join")).to_be_visible()
        found["race, open"] = await axe(page)
        await page.click("#join")
        await expect(page.locator(".side .standings tbody tr")).to_have_count(2)
        found["race, waiting"] = await axe(page)
        await pavel.start_race(code)
        await expect(page.locator(".board-box.mine .card.up").first).to_be_visible()
        found["race, playing"] = await axe(page)
        watcher = await web.page("quinn", f"/w/{code}", phone=phone)
        await expect(watcher.locator(".board-box .card").first).to_be_visible()
        found["watch"] = await axe(watcher)
        await pavel.resign(code)
        await resign(page)
        await expect(page.locator("#clock")).to_have_text("Finished")
        await expect(page.locator("#fair-badge")).to_contain_text("checked")
        await page.click("#fair-badge")
        found["race, finished"] = await axe(page)
        await page.click("#replay")
        await expect(page.locator("#replay-caption")).to_contain_text("The deal")
        found["replay"] = await axe(page)
    club = tournament(web, starts_in_s=3600, deals=2, registration_opens_s=7200)
    await page.goto(f"{web.base}/t/{club.id}")
    await page.click("#register")
    await expect(page.locator("#tournament-standings tbody tr")).to_have_count(1)
    found["tournament"] = await axe(page)
    await page.goto(f"{web.base}/organise")
    await expect(page.locator("#organise-form")).to_be_visible()
    found["organise"] = await axe(page)
    for game in ("klondike", "pyramid"):
        await page.goto(f"{web.base}/rules/{game}")
        await expect(page.locator(".rules-board .card").first).to_be_visible()
        found[f"rules of {game}"] = await axe(page)
    assert not {where: problems for where, problems in found.items() if problems}


async def test_every_page_has_one_main_heading(web: Web) -> None:
    """axe-core leaves a page without an h1 alone; a screen reader's reader jumps to it."""
    page = await web.page("hana")
    await expect(page.locator("#play-now")).to_be_visible()
    await expect(page.locator("h1")).to_have_count(1)
    await page.click("#play-now")
    await expect(page.locator(".board-box.mine .card").first).to_be_visible()
    await expect(page.locator("h1")).to_have_count(1)
    for path in ("/t/NOSUCH", "/r/NOSUCH", "/rules/golf", "/organise"):
        await page.goto(web.base + path)
        await expect(page.locator("h1")).to_have_count(1)


async def test_cards_and_piles_have_names_and_moves_and_finishes_are_announced(web: Web) -> None:
    seed = first_transfer_seed("klondike")
    game = find_game("klondike")(seed)
    async with await ArenaClient.connect(web.server.url, "sam") as sam:
        code = (await sam.create_race("klondike", seed, countdown_s=0)).code
        page = await web.page("tara", f"/r/{code}")
        await join(page, web.server, code, "tara")
        await sam.start_race(code)
        board = page.locator(".board-box.mine")
        await expect(board.locator(".table")).to_have_attribute("role", "application")
        top = game.piles["t0"].top.code
        names = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}
        card_name = names.get(top[0], top[0]) + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[top[1]]
        pile = board.locator('.pile[data-pile="t0"]')
        await expect(pile).to_have_attribute("role", "button")
        await expect(pile).to_have_attribute("aria-label", f"tableau pile 1: {card_name} on top")
        await expect(pile.locator(".card").last).to_have_attribute("aria-label", card_name)
        await expect(page.locator("#keys")).to_contain_text("Enter plays the pile's card, Space picks up a card")
        move = next(m for m in game.legal_moves() if m.is_transfer)
        await click_move(page, game, move)
        race = web.server.races[code]
        await until(lambda: entrant(race, "tara").moves == 1)
        moved = game.piles[move.src].cards[-move.count]
        await expect(page.locator("#announce")).to_contain_text(f"to {find_game('klondike').pile_name(move.dst)}")
        assert names.get(moved.code[0], moved.code[0]) in await page.locator("#announce").text_content()
        await sam.resign(code)
        await expect(page.locator("#announce")).to_have_text("sam resigned with 0 of 52 cards")
