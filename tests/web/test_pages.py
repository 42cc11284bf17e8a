"""Every page leads somewhere: playing at once, racing a friend who picks a name, the standings and
result readable, tournaments that say what comes next, replays that close, refusals in a player's
words, controls only while they apply, and Double or Naught as a person sees it."""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from playwright.async_api import Page, expect

from client.connection import ArenaClient
from engine.core import IllegalMove, Move
from engine.games import find_game
from tests.web.conftest import Web
from tests.web.helpers import (
    catalog_win,
    click_move,
    create_race,
    drag_move,
    entrant,
    first_transfer_seed,
    join,
    played_race,
    resign,
    tournament,
    until,
)

pytestmark = pytest.mark.browser

LONG = ["Alexandra the Great of Macedon", "Bartholomew Fitzwilliam-Smythe", "Cassiopeia Montgomery-Jones"]


async def clipped(page: Page, selector: str) -> list[str]:
    """The cells of the table at ``selector`` whose text does not fit them, and any cell that
    sticks out of its box or the screen. A player's name may end in an ellipsis, and then its
    cell's title holds the whole name (the guest tag or a rating beside it is not the name)."""
    return await page.evaluate(
        """(selector) => {
      const table = document.querySelector(selector);
      const box = table.parentElement.getBoundingClientRect();
      const width = document.documentElement.clientWidth;
      const out = [];
      for (const cell of table.querySelectorAll("th, td")) {
        if (getComputedStyle(cell).display === "none") continue;
        const r = cell.getBoundingClientRect();
        if (r.right > box.right + 0.5 || r.right > width + 0.5) out.push(`${cell.textContent}: past the edge`);
        if (cell.classList.contains("player")) {
          const name = cell.querySelector(".marked > span") || cell; // (beside it: the guest tag, a rating)
          if (cell.title !== name.textContent) out.push(`${name.textContent}: title ${cell.title}`);
        } else if (cell.scrollWidth > cell.clientWidth + 1) {
          out.push(`${cell.textContent}: cut (${cell.scrollWidth} > ${cell.clientWidth})`);
        }
      }
      return out;
    }""",
        selector,
    )


# ---------------------------------------------------------------------------- 7. play now


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_play_now_is_one_tap_from_the_lobby_to_a_board(web: Web, phone: bool) -> None:
    page = await web.page("nina", phone=phone)
    await page.select_option("#game", "klondike")
    began = time.monotonic()
    await page.click("#play-now")
    await expect(page.locator(".board-box.mine .card.up").first).to_be_visible()
    code = page.url.rsplit("/", 1)[1]
    race = web.server.races[code]
    await page.keyboard.press("Tab")  # (focus somewhere, as a person's first key would)
    game = entrant(race, "nina").game.copy()
    move = (
        next(m for m in game.legal_moves() if m.is_transfer)
        if any(m.is_transfer for m in game.legal_moves())
        else Move.parse("deal")
    )
    await click_move(page, game, move)
    await until(lambda: entrant(race, "nina").moves == 1)
    assert time.monotonic() - began < 2.0, "from the tap to the first accepted move took 2 s or more"
    assert race.max_entrants == 1 and race.countdown_s == 0 and not race.seed_public  # a fresh secret deal
    assert race.commitment  # committed like any race, so the end can be checked
    top = await page.evaluate("document.querySelector('.board-box.mine').getBoundingClientRect().top")
    height = await page.evaluate("window.innerHeight")
    assert top < 0.4 * height, f"the board starts {top} px down a {height} px screen"
    await expect(page.locator("#fair-badge")).to_be_visible()
    await expect(page.locator("#commitment")).to_be_hidden()  # folded into the badge
    await page.click("#fair-badge")
    await expect(page.locator("#commitment")).to_have_text(race.commitment)


# --------------------------------------------------------------------- 3. standings, result


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_the_standings_and_the_result_fit_beside_or_below_the_board(web: Web, phone: bool) -> None:
    clients = [await ArenaClient.connect(web.server.url, name) for name in LONG[1:]]
    code = (await clients[0].create_race("klondike", 5, countdown_s=0)).code
    await clients[1].join_race(code)
    page = await web.page(LONG[0], f"/r/{code}", phone=phone)
    await page.click("#join")
    await expect(page.locator(".side .standings tbody tr")).to_have_count(3)
    await clients[0].start_race(code)
    await expect(page.locator("#clock")).to_contain_text("/ 15:00")
    assert await clipped(page, ".side .standings") == []
    if not phone:  # beside the board on a desktop
        board = await page.locator(".board-box.mine").bounding_box()
        side = await page.locator(".side").bounding_box()
        assert side["x"] >= board["x"] + board["width"] and side["y"] < board["y"] + 50
    for client in clients:
        await client.resign(code)
    await resign(page)
    await expect(page.locator(".side h2")).to_have_text("Result")
    await expect(page.locator(".side .standings thead th")).to_contain_text(["#", "Player", "Cards"])
    await expect(page.locator(".side .standings td.points")).to_have_count(3)
    assert await clipped(page, ".side .standings") == []
    await expect(page.locator(".side .standings td.status").first).to_have_text("resigned")
    await web.screenshot(page, f"result-{'phone' if phone else 'desktop'}")
    for client in clients:
        await client.close()


# ------------------------------------------------------------------ 4. a tournament's deals


async def test_a_finished_deal_says_when_the_next_starts_and_leads_back_to_the_tournament(web: Web) -> None:
    club = tournament(web, starts_in_s=4, deals=2, break_s=6)
    page = await web.page("tess", f"/t/{club.id}")
    await page.click("#register")
    await page.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"), timeout=20_000)  # deal 1 starts: the page goes to it
    first = page.url.rsplit("/", 1)[1]
    await expect(page.locator("#tournament-link")).to_contain_text("Deal 1 of 2 · Club night")
    await resign(page)
    next_deal = page.locator("#next-deal")
    await expect(next_deal).to_contain_text("Deal 2 of 2 starts in")
    shown = await page.locator("#next-deal-time").text_content() or ""
    # it counts down: a new figure within 3 s (a second's tick may come late on a loaded machine)
    await expect(page.locator("#next-deal-time")).not_to_have_text(shown, timeout=3_000)
    await expect(page.locator("#tournament-back")).to_have_attribute("href", f"/t/{club.id}")
    await expect(page.locator("#rematch")).to_have_count(0)  # a tournament's deal has no rematch
    await expect(page.locator("#double")).to_have_count(0)
    await web.screenshot(page, "tournament-between-deals")
    await page.wait_for_url(lambda url: "/r/" in url and not url.endswith(first), timeout=20_000)  # deal 2, by itself
    await expect(page.locator("#tournament-link")).to_contain_text("Deal 2 of 2")
    await resign(page)
    await until(lambda: club.status == "finished")
    await expect(next_deal).to_contain_text("the tournament is over")
    await page.click("#tournament-back")
    await expect(page.locator("#tournament-status")).to_have_text("finished")


# ----------------------------------------------------------------------------- 5. replay


async def test_replay_has_its_own_close_and_keeps_the_rematch(web: Web) -> None:
    client, race, game = await played_race(web, "rhea", "klondike", first_transfer_seed("klondike"), 3)
    await client.resign(race.code)
    page = await web.page("rhea", f"/r/{race.code}", token=client.token)
    await expect(page.locator("#rematch")).to_be_visible()
    await page.click("#replay")
    await expect(page.locator("#replay-caption")).to_contain_text("The deal (3 moves in all)")
    await expect(page.locator("#rematch")).to_be_visible()  # still the entrant's page
    for button in ("#replay-first", "#replay-back", "#replay-next", "#replay-last"):  # drawn icons, no emoji
        await expect(page.locator(f"{button} svg")).to_have_count(1)
        assert (await page.locator(button).text_content()).strip() == ""
        assert await page.locator(button).get_attribute("aria-label")
    await page.click("#replay-next")
    first = game.history[0]
    words = find_game("klondike")(game.seed).describe(first)
    await expect(page.locator("#replay-caption")).to_contain_text(f"Move 1 of 3, at 0:00: {words}")
    assert str(first) not in await page.locator("#replay-caption").text_content()  # words, not notation
    await page.click("#replay-close")
    await expect(page.locator(".replay")).to_have_count(0)
    await expect(page.locator(".board-box.mine")).to_be_visible()
    await expect(page.locator("#replay")).to_be_visible()  # it may be opened again
    await client.close()


# ------------------------------------------------------------------------- 6. refusals


async def test_a_refusal_names_the_cards_and_piles_and_clears_on_the_next_move(web: Web) -> None:
    seed = first_transfer_seed("klondike")
    deal = find_game("klondike")(seed)
    page = await web.page("ruth")
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    src, dst = next(
        (f"t{a}", f"t{b}")
        for a in range(7)
        for b in range(7)
        if a != b and Move.parse(f"t{a}>t{b}") not in deal.legal_moves()
    )
    with pytest.raises(IllegalMove) as refusal:
        deal.apply(f"{src}>{dst}")
    await drag_move(page, deal, src, dst)
    notice = page.locator("#notice")
    await expect(notice).to_be_visible()
    said = await notice.text_content()
    assert said.lower() == refusal.value.reason.lower()
    assert "tableau pile" in said or any(s in said for s in "♠♥♦♣")
    assert f" {src}" not in said and f" {dst}" not in said  # the page's names, not the engine's ids
    move = next(m for m in deal.legal_moves() if m.is_transfer)
    await click_move(page, deal, move)
    await until(lambda: entrant(web.server.races[code], "ruth").moves == 1)
    await expect(notice).to_be_hidden()
    await resign(page)
    await expect(page.locator("#clock")).to_have_text("Finished")
    await expect(notice).to_be_hidden()


# --------------------------------------------------------------- 8. a friend who opens a link


async def test_a_card_picked_while_a_refused_drag_flies_back_stays_picked(web: Web) -> None:
    """The dragged card of a refused move flies back for a moment; a card tapped meanwhile is the
    player's next choice and stays picked when the flight ends."""
    seed = first_transfer_seed("klondike")
    deal = find_game("klondike")(seed)
    page = await web.page("rosa")
    await create_race(page, "klondike", seed)
    await page.click("#start")
    src, dst = next(
        (f"t{a}", f"t{b}")
        for a in range(7)
        for b in range(7)
        if a != b and Move.parse(f"t{a}>t{b}") not in deal.legal_moves()
    )
    await drag_move(page, deal, src, dst)
    await expect(page.locator("#notice")).to_be_visible()
    move = next(m for m in deal.legal_moves() if m.is_transfer)
    index = len(deal.piles[move.src]) - move.count
    card = page.locator(f'.board-box.mine .pile[data-pile="{move.src}"] .card[data-index="{index}"]')
    await card.click(position={"x": 12, "y": 3})
    await page.wait_for_timeout(400)  # longer than the flight back (220 ms)
    await expect(card).to_have_class(re.compile(r"\bpicked\b"))


async def test_a_friend_from_a_link_chooses_a_name_that_the_page_remembers(web: Web) -> None:
    async with await ArenaClient.connect(web.server.url, "host") as host:
        code = (await host.create_race("golf", 3, countdown_s=0)).code
        page = await web.page("ace-360", f"/r/{code}", chosen=False)
        name = page.locator("#join-name")
        await expect(name).to_have_value("ace-360")
        await name.fill(LONG[0])
        await page.click("#join")
        race = web.server.races[code]
        await until(lambda: LONG[0] in {e.name for e in race.entrants.values()})
        await expect(page.locator("#who")).to_have_text(LONG[0])
        assert await page.evaluate("localStorage.getItem('arena.nameChosen')") == "1"
        cell = page.locator(".side .standings td.player", has_text="Alexandra")
        assert await cell.get_attribute("title") == LONG[0]
        assert await clipped(page, ".side .standings") == []
        # A second link: the name is remembered, nothing is asked.
        other = (await host.create_race("golf", 4, countdown_s=0)).code
        await page.goto(f"{web.base}/r/{other}")
        await expect(page.locator("#join")).to_be_visible()
        await expect(page.locator("#join-name")).to_have_count(0)
        # The header renames: the next race joined uses the new name.
        await page.click("#rename")
        await page.fill("#name-input", "Ada")
        await page.click("#name-save")
        await expect(page.locator("#who")).to_have_text("Ada")
        await page.click("#join")
        await until(lambda: "Ada" in {e.name for e in web.server.races[other].entrants.values()})


# ------------------------------------------------------------- 9. controls only while they apply


async def test_after_resigning_no_move_control_or_grab_cursor_remains(web: Web) -> None:
    async with await ArenaClient.connect(web.server.url, "other") as other:
        seed = first_transfer_seed("klondike")
        code = (await other.create_race("klondike", seed, countdown_s=0)).code
        page = await web.page("vera", f"/r/{code}")
        await join(page, web.server, code, "vera")
        await other.start_race(code)
        await expect(page.locator('button.move[data-move="deal"]')).to_be_visible()
        movable = page.locator(".board-box.mine .card.movable").first
        assert await movable.evaluate("c => getComputedStyle(c).cursor") == "grab"
        await resign(page)  # the race goes on for the other entrant
        await until(lambda: entrant(web.server.races[code], "vera").status == "resigned")
        await expect(page.locator("button.move")).to_have_count(0)
        await expect(page.locator("#resign")).to_have_count(0)
        await expect(page.locator(".board-box.mine .table.playable")).to_have_count(0)
        cursors = await page.eval_on_selector_all(
            ".board-box.mine .card", "cs => cs.map(c => getComputedStyle(c).cursor)"
        )
        assert "grab" not in cursors
        await expect(page.locator("#keys")).to_be_hidden()
        await page.locator('.board-box.mine .pile[data-pile="s"]').click()  # a click does nothing now
        await asyncio.sleep(0.2)
        assert entrant(web.server.races[code], "vera").moves == 0


# ------------------------------------------------------------------- 10. Double or Naught


def losing_guess_seed() -> tuple[int, str]:
    """A Double or Naught deal whose first card loses to the house's card."""
    game_cls = find_game("double_or_naught")
    for seed in range(1, 200):
        game = game_cls(seed)
        game.apply("guess r0")
        if game.outcome == "loss":
            return seed, "guess r0"
    raise AssertionError("no losing deal")


async def test_double_or_naught_says_its_rule_and_names_what_happened(web: Web) -> None:
    seed, guess = losing_guess_seed()
    page = await web.page("dora")
    code = await create_race(page, "double_or_naught", seed)
    await page.click("#start")
    await expect(page.locator(".board-box.mine .pile-label")).to_have_text(["1", "2", "3", "4", "5", "House"])
    buttons = page.locator("button.move")
    await expect(buttons).to_have_text([f"Guess card {i}" for i in range(1, 6)])
    await page.locator('.board-box.mine .pile[data-pile="r0"] .card').click()  # the card itself
    race = web.server.races[code]
    await until(lambda: entrant(race, "dora").moves == 1)
    await expect(page.locator(".side .standings td.status")).to_have_text("lost")


async def test_staking_double_or_naught_asks_first_and_the_cards_point_at_their_buttons(web: Web) -> None:
    seed, line = catalog_win("golf")
    client, race, game = await played_race(web, "ivo", "golf", seed, 0)
    for text in line:
        assert (await client.move(race.code, text)).ok
    await until(lambda: race.status == "finished")
    page = await web.page("ivo", f"/r/{race.code}", token=client.token)
    await page.click("#double")
    await expect(page.locator("#bonus .rule")).to_contain_text("Kings high, Aces low")
    await expect(page.locator("#bonus-stake")).to_have_text(f"Stake {game.total} points")
    await page.click("#bonus-stake")
    await page.click("#bonus-ask-no")  # changed its mind: nothing staked
    await asyncio.sleep(0.2)
    assert not entrant(race, "ivo").bonus
    await page.click("#bonus-stake")
    await page.click("#bonus-ask-yes")
    await until(lambda: entrant(race, "ivo").bonus)
    await expect(page.locator("#bonus button.move")).to_have_text([f"Guess card {i}" for i in range(1, 6)])
    await expect(page.locator("#bonus .pile-label")).to_have_text(["1", "2", "3", "4", "5", "House"])
    await page.locator('#bonus .pile[data-pile="r2"] .card').click()
    await until(lambda: entrant(race, "ivo").bonus[-1].moves)
    outcome = entrant(race, "ivo").bonus[-1].game.outcome
    await expect(page.locator("#bonus-state")).to_contain_text(
        {"win": "You won", "loss": "You lost the stake", "tie": "a tie"}[outcome]
    )
    await client.close()


# -------------------------------------------------------------------- 12. rules pages


async def test_a_rules_page_teaches_with_its_table_and_an_example_to_step_through(web: Web) -> None:
    page = await web.page("rita")
    await page.goto(f"{web.base}/rules/klondike")
    await expect(page.locator("h2")).to_have_text(
        ["How to win", "The table", "Moves", "An example", "Tips", "Notation", "Choices"]
    )
    table = page.locator(".rules-board.layout")
    await expect(table.locator(".pile")).to_have_count(len(find_game("klondike")(1).piles))
    await expect(table.locator(".card.up")).to_have_count(7)  # the deal: one face-up card a pile
    example = page.locator(".rules-board.example")
    await expect(example.locator(".caption")).to_contain_text("The position")
    await example.locator(".example-next").click()
    await expect(example.locator(".caption")).to_contain_text("Move 1 of")
    assert "docs/games" not in await page.content()
    await expect(page.locator("footer")).to_contain_text("003_08087bb95aa03446.txt")
    await expect(page.locator("footer")).to_contain_text("rules version 1")


async def test_a_press_on_a_control_survives_an_opponents_move_arriving(web: Web) -> None:
    """Vera's finger is down on Resign when the other entrant's move arrives and the page redraws;
    lifting it still presses Resign (the control is kept, not drawn anew)."""
    async with await ArenaClient.connect(web.server.url, "other") as other:
        seed = first_transfer_seed("klondike")
        code = (await other.create_race("klondike", seed, countdown_s=0)).code
        page = await web.page("vera", f"/r/{code}")
        await join(page, web.server, code, "vera")
        await other.start_race(code)
        await other.wait_for(lambda: code in other.started, 5)
        await page.locator("#resign").hover()
        await page.mouse.down()
        assert (await other.move(code, "deal")).ok
        other_moves = page.locator(".side .standings tr", has_text="other").locator("td.moves")
        await expect(other_moves).to_have_text("1")
        await page.mouse.up()
        await expect(page.locator("#resign-ask")).to_be_visible()
