"""The table as a person sees it: every face-up card shows its rank and its suit, in every game, on a
desktop and on a phone, after a few dozen moves; the draw-three waste shows its last three cards;
the tables with unusual layouts (Pyramid, Clock, The Besieged City) read as they should.

Geometry is measured in the page: the box of each card's rank glyph and suit glyph must lie in
the card, on the screen, and be the topmost thing at each of its corners and its centre (so
no other card, label or pile covers it). Screenshots of every game at both sizes are saved in
build/screenshots/ (table-desktop-KEY.png, table-phone-KEY.png).
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from engine.core import Move
from engine.games import GAMES
from engine.layout import layout_of
from tests.web.conftest import Web, axe
from tests.web.helpers import expected_piles, first_transfer_seed, played_race, shows

pytestmark = pytest.mark.browser

#: In the page: every face-up card that shows (not the one kept under a squared pile's top card)
#: whose rank or suit glyph is not wholly visible, as "pile index code: why".
HIDDEN_GLYPHS = """(box) => {
  const problems = [];
  const see = [...document.querySelectorAll(".pile-label, .region, .region .legend")];
  for (const node of see) node.style.pointerEvents = "auto";  // labels take no clicks, but they do hide
  const width = document.documentElement.clientWidth;
  for (const card of document.querySelectorAll(`${box} .card.up:not(.under)`)) {
    const where = `${card.dataset.pile}[${card.dataset.index}] ${card.dataset.card}`;
    window.scrollTo(0, Math.max(0, window.scrollY + card.getBoundingClientRect().top - 100));
    const c = card.getBoundingClientRect();
    for (const part of ["rank", "suit"]) {
      const glyph = card.querySelector(`.corner .${part}`);
      const code = card.dataset.card;
      const want = part === "rank" ? ({T: "10"}[code[0]] || code[0]) : {S: "♠", H: "♥", D: "♦", C: "♣"}[code[1]];
      if (!glyph || glyph.textContent !== want) { problems.push(`${where}: no ${part} ${want}`); continue; }
      const g = glyph.getBoundingClientRect();
      if (g.left < c.left - 0.5 || g.right > c.right + 0.5 || g.top < c.top - 0.5 || g.bottom > c.bottom + 0.5) {
        const box = (r) => [r.left, r.top, r.right, r.bottom].map(Math.round).join(",");
        problems.push(`${where}: its ${part} (${box(g)}) sticks out of the card (${box(c)})`);
      }
      if (g.left < -0.5 || g.right > width + 0.5) problems.push(`${where}: its ${part} is off the screen`);
      const points = [[g.left + 1, g.top + 1], [g.right - 1, g.top + 1], [g.left + 1, g.bottom - 1],
                      [g.right - 1, g.bottom - 1], [(g.left + g.right) / 2, (g.top + g.bottom) / 2]];
      for (const [x, y] of points) {
        const top = document.elementFromPoint(x, y);
        if (!top || top.closest(".card") !== card) {
          const over = top ? (top.closest(".card")?.dataset.card || top.className || top.tagName) : "nothing";
          problems.push(`${where}: its ${part} is covered at (${Math.round(x)}, ${Math.round(y)}) by ${over}`);
          break;
        }
      }
    }
  }
  window.scrollTo(0, 0);
  for (const node of see) node.style.pointerEvents = "";
  return problems;
}"""

#: In the page: the topmost element at a label's centre is the label itself (pointer events aside).
ON_TOP = """(selector) => [...document.querySelectorAll(selector)].map(l => {
  l.style.pointerEvents = "auto";
  const r = l.getBoundingClientRect();
  const top = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  l.style.pointerEvents = "";
  return [l.textContent, top === l];
})"""


def build_up(game, legal, rng):
    """A playout's next move: mostly a transfer (fans grow), now and then anything legal."""
    transfers = [m for m in legal if m.is_transfer]
    return rng.choice(transfers if transfers and rng.random() < 0.75 else legal)


def a_seed(key: str) -> int:
    """A deal with a transfer to make when the game has transfers, else deal 3."""
    try:
        return first_transfer_seed(key, 3)
    except StopIteration:
        return 3


async def resumed(web: Web, client, code: str, *, phone: bool) -> Page:
    """The page of the client's player (its session resumed, as after a reload) at its race."""
    return await web.page(client.name, f"/r/{code}", token=client.token, phone=phone)


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_every_face_up_card_shows_its_rank_and_suit_in_every_game(web: Web, phone: bool) -> None:
    size = "phone" if phone else "desktop"
    problems: list[str] = []
    for game_cls in GAMES:
        seed = a_seed(game_cls.key)
        client, race, game = await played_race(
            web, f"{game_cls.key[:20]}-{size}", game_cls.key, seed, 40, choose=build_up
        )
        page = await resumed(web, client, race.code, phone=phone)
        await shows(page, expected_piles(game))
        problems += [f"{game_cls.key}: {p}" for p in await page.evaluate(HIDDEN_GLYPHS, ".board-box.mine")]
        if phone:
            width = await page.evaluate("document.documentElement.scrollWidth")
            if width > 360:
                problems.append(f"{game_cls.key}: the page is {width} px wide on a 360 px phone")
        await web.screenshot(page, f"table-{size}-{game_cls.key}")
        await page.context.close()
        await client.close()
    assert not problems, "\n".join(problems)


async def test_the_draw_three_waste_shows_its_last_three_cards_fanned_and_legible(web: Web) -> None:
    def deals_first(game, legal, rng):
        return next((m for m in legal if str(m) == "deal"), legal[0])

    client, race, game = await played_race(web, "wendy", "klondike", 11, 8, choose=deals_first)  # eight deals
    assert len(game.piles["w"]) == 24
    page = await resumed(web, client, race.code, phone=False)
    waste = page.locator('.board-box.mine .pile[data-pile="w"] .card')
    await expect(waste).to_have_count(3)
    assert [await c.get_attribute("data-card") for c in await waste.all()] == list(game.view().piles["w"][-3:])
    lefts = [(await c.bounding_box())["x"] for c in await waste.all()]
    assert lefts[0] < lefts[1] < lefts[2]  # fanned to the right, the top card rightmost
    assert not await page.evaluate(HIDDEN_GLYPHS, '.board-box.mine .pile[data-pile="w"]')
    await client.close()


async def test_pyramid_shows_free_cards_distinct_and_no_outline_over_a_card(web: Web) -> None:
    pairs = []

    def pairs_first(game, legal, rng):
        pair = next((m for m in legal if m.is_transfer and m.src.startswith("r") and m.dst.startswith("r")), None)
        if pair:
            pairs.append(pair)
        return pair or next((m for m in legal if m.is_transfer), legal[0])

    client, race, game = await played_race(web, "pia", "pyramid", 5, 20, choose=pairs_first)
    assert pairs, "the playout removed no pair from the pyramid"
    page = await resumed(web, client, race.code, phone=False)
    await shows(page, expected_piles(game))
    board = ".board-box.mine"
    # A removed card leaves no outline lying over the cards that remain: across each card, the
    # topmost thing is a card, never a pile's outline.
    over = await page.evaluate(
        """(board) => {
      const found = [];
      for (const card of document.querySelectorAll(`${board} .card:not(.under)`)) {
        const c = card.getBoundingClientRect();
        for (let i = 1; i < 5; i++) for (let j = 1; j < 5; j++) {
          const top = document.elementFromPoint(c.left + c.width * i / 5, c.top + c.height * j / 5);
          if (top && top.closest(".slot-mark")) {
            found.push(`${card.dataset.card} under ${top.closest(".pile").dataset.pile}`);
          }
        }
      }
      return found;
    }""",
        board,
    )
    assert not over, f"outlines over cards: {over}"
    # Free cards (nothing lies on them) look unlike the cards still held by others.
    covers = {slot.pile for slot in layout_of("pyramid").slots if slot.pile.startswith("r")}
    look = await page.evaluate(
        """(board) => [...document.querySelectorAll(`${board} .pile`)].filter(p => p.querySelector('.card'))
        .map(p => [p.dataset.pile, p.classList.contains('covered'),
                   getComputedStyle(p.querySelector('.card')).filter])""",
        board,
    )
    from engine.games.pyramid import COVERS

    held = {pid for pid, on in COVERS.items() if any(game.piles[c].cards for c in on)}
    shown = {pid: (covered, style) for pid, covered, style in look if pid in covers}
    assert {pid for pid, (covered, _) in shown.items() if covered} == held & set(shown)
    assert {style for covered, style in shown.values() if covered} != {
        style for covered, style in shown.values() if not covered
    }
    await client.close()


async def test_clock_fits_the_window_and_every_hour_label_shows(web: Web) -> None:
    for phone in (False, True):
        client, race, game = await played_race(web, f"clara-{phone}", "clock", 4, 10)
        page = await resumed(web, client, race.code, phone=phone)
        await shows(page, expected_piles(game))
        bottom = await page.evaluate("document.querySelector('.board-box.mine .table').getBoundingClientRect().bottom")
        height = await page.evaluate("window.innerHeight")
        assert bottom <= height, f"the clock ends at {bottom} px in a window {height} px tall"
        labels = await page.evaluate(ON_TOP, ".board-box.mine .pile-label")
        assert sorted(text for text, _ in labels) == sorted("A 2 3 4 5 6 7 8 9 10 J Q K".split())
        assert all(on_top for _, on_top in labels), labels
        await page.context.close()
        await client.close()


async def test_the_besieged_city_names_its_ramparts_and_its_reserve(web: Web) -> None:
    client, race, game = await played_race(web, "bess", "besieged_city", 2, 0)
    for phone in (False, True):
        page = await resumed(web, client, race.code, phone=phone)
        await shows(page, expected_piles(game))
        legends = await page.evaluate(ON_TOP, ".board-box.mine .region .legend")
        assert sorted(legends) == [["Ramparts", True], ["Reserve", True]]
        # The Reserve's box holds exactly the reserve places.
        inside = await page.evaluate("""() => {
            const box = document.querySelector('.board-box.mine .region:not(.bare)').getBoundingClientRect();
            return [...document.querySelectorAll('.board-box.mine .pile')].filter(p => {
              const r = p.getBoundingClientRect();
              return r.left >= box.left && r.right <= box.right && r.top >= box.top && r.bottom <= box.bottom;
            }).map(p => p.dataset.pile).sort();
        }""")
        assert inside == sorted(f"r{i}" for i in range(12))
        await page.context.close()
    await client.close()


def test_the_playouts_move_every_game_somewhere():
    """The geometry test above is only as good as its playouts: each game's moves more than a few
    cards (a fan that never grows proves nothing)."""
    import random

    for game_cls in GAMES:
        game = game_cls(a_seed(game_cls.key))
        rng = random.Random(1)
        for _ in range(40):
            legal = list(game.legal_moves())
            if not legal or game.won:
                break
            game.apply(build_up(game, legal, rng))
        assert len(game.history) >= 1, game_cls.key
        assert isinstance(game.history[0], Move)


async def test_clock_offers_only_the_exchanges_that_can_still_win(web: Web) -> None:
    # Seed 145 (the rules page's example): after ten turns the fourth King blocks, most cards down.
    client, race, game = await played_race(web, "clem", "clock", 145, 10)
    assert game.blocked
    down = {f"t{h}": len(game.piles[f"t{h}"]) for h in range(13) if game.piles[f"t{h}"].cards}
    page = await resumed(web, client, race.code, phone=False)
    await shows(page, expected_piles(game))
    await expect(page.locator("#exchange-note")).to_contain_text("only a bottom card can still win")
    buttons = page.locator("#actions button.move")
    moves = [await b.get_attribute("data-move") for b in await buttons.all()]
    # One button a pile, for its bottom card, the piles with the most face-down cards first.
    assert sorted(moves) == sorted(f"exchange {pile}.0" for pile in down)
    assert [down[m.split(" ")[1][:-2]] for m in moves] == sorted(down.values(), reverse=True)
    first = buttons.first
    deepest = moves[0].split(" ")[1][:-2]
    await expect(first).to_have_text(
        f"{game.pile_name(deepest)[0].upper()}{game.pile_name(deepest)[1:]} ({down[deepest]} face down)"
    )
    assert await axe(page, within="#actions") == []
    await web.screenshot(page, "clock-exchange")
    # A click on the pile shows its top card, above the others: the page says that exchange can
    # never win and offers the bottom card instead.
    top = page.locator(f'.board-box.mine .card[data-pile="{deepest}"][data-index="{down[deepest] - 1}"]')
    await top.click()
    await expect(page.locator("#exchange-ask")).to_contain_text("Only the bottom card can still win")
    assert await axe(page, within="#exchange-ask") == []
    await web.screenshot(page, "clock-exchange-ask")
    await page.click("#exchange-ask-no")
    await expect(page.locator("#exchange-ask")).to_have_count(0)
    board = race.entrants[client.player].game
    assert not board.exchanged
    await top.click()
    await page.click("#exchange-ask-yes")  # the deepest pile's bottom card, as the first button
    await expect(page.locator("#exchange-note")).to_have_count(0)
    assert board.exchanged and str(board.history[10]) == moves[0]
    await page.context.close()
    await client.close()


async def test_clock_exchange_choices_fit_a_phone_with_the_board(web: Web) -> None:
    """On a phone the exchange buttons (one a pile with face-down cards) and the clock face share
    the screen: the buttons go two to a row, each a target a finger can take (at least 24 px tall,
    WCAG 2.5.8, and within the screen's width), and the board's centre, where the Kings go, is
    reached by scrolling no more than one screen."""
    client, race, game = await played_race(web, "cleo", "clock", 145, 10)
    assert game.blocked
    page = await resumed(web, client, race.code, phone=True)
    await shows(page, expected_piles(game))
    width = page.viewport_size["width"]
    height = page.viewport_size["height"]
    rows = set()
    buttons = await page.locator("#actions button.exchange").all()
    for button in buttons:
        box = await button.bounding_box()
        assert box is not None and box["height"] >= 24 and box["x"] >= 0 and box["x"] + box["width"] <= width
        rows.add(round(box["y"]))
    assert len(rows) <= (len(buttons) + 1) // 2, "the exchange buttons are not two to a row"
    board = await page.locator(".board-box.mine").bounding_box()
    assert board is not None and board["y"] + board["height"] / 2 < 2 * height, board
    await web.screenshot(page, "clock-exchange-phone")
    await page.context.close()
    await client.close()
