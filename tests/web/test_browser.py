"""The web client in a real headless Chromium, against a live server on 127.0.0.1.

People race, watch, replay and follow tournaments the way they would: clicking, dragging and
typing in the page. What the pages show is checked against the server's own state (its races,
entrants and games), and every frame the pages receive passes the frame audit.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from playwright.async_api import expect

from client.connection import ArenaClient
from engine.core import Audience, IllegalMove, Move
from engine.games import GAMES, find_game
from engine.layout import layout_of
from server.catalog import public_catalogs
from tests.web.conftest import Web
from tests.web.helpers import (
    Tap,
    catalog_win,
    click_move,
    create_race,
    drag_move,
    entrant,
    exactly,
    expected_piles,
    first_transfer_seed,
    one_move_played,
    resign,
    setting,
    shown_piles,
    shows,
    tournament,
    until,
)

pytestmark = pytest.mark.browser


# ------------------------------------------------------------------------------------ tests


async def test_two_players_race_by_link_while_a_third_watches(web: Web) -> None:
    seed = first_transfer_seed("klondike")
    deal = find_game("klondike")(seed)
    transfers = [m for m in deal.legal_moves() if m.is_transfer]

    alice = await web.page("alice")
    await expect(alice.locator("#game-summary")).to_contain_text("Seven piles")
    await web.screenshot(alice, "lobby")
    code = await create_race(alice, "klondike", seed, countdown=1)
    link = await alice.input_value("#share-link")
    assert link == f"{web.base}/r/{code}"

    lobby = await web.page("bob")  # the open race is listed in the lobby too
    await expect(lobby.locator("#open-races")).to_contain_text(code, timeout=8000)
    await lobby.context.close()
    bob = await web.page("bob", f"/r/{code}")
    await bob.click("#join")
    await expect(bob.locator(".actions")).to_contain_text("Waiting for the creator")
    carol = await web.page("carol", f"/w/{code}")
    await expect(alice.locator(".standings tbody tr")).to_have_count(2)
    await alice.click("#start")
    await expect(alice.locator("#clock")).to_contain_text("/ 15:00", timeout=5000)
    await expect(alice.locator("#commitment")).to_have_text(web.server.races[code].commitment)
    race = web.server.races[code]

    # Picking a card highlights exactly the piles it may go to (with Tap to move off: on, a tap plays).
    await exactly(alice)
    picked = transfers[0]
    src = deal.piles[picked.src]
    await alice.locator(
        f'.board-box.mine .pile[data-pile="{picked.src}"] .card[data-index="{len(src) - picked.count}"]'
    ).click(position={"x": 12, "y": 3})
    targets = sorted(m.dst for m in transfers if m.src == picked.src and m.count == picked.count)
    await expect(alice.locator(".board-box.mine .pile.target")).to_have_count(len(targets))
    assert (
        sorted(await alice.eval_on_selector_all(".board-box.mine .pile.target", "ps => ps.map(p => p.dataset.pile)"))
        == targets
    )
    await alice.keyboard.press("Escape")
    await expect(alice.locator(".board-box.mine .pile.target")).to_have_count(0)

    # Alice moves by clicking, Bob by dragging; Carol sees both boards change.
    await click_move(alice, deal, transfers[0])
    await until(lambda: entrant(race, "alice").moves == 1)
    drag = transfers[-1]
    await drag_move(bob, deal, drag.src, drag.dst, drag.count)
    await until(lambda: entrant(race, "bob").moves == 1)
    for name, move in (("alice", transfers[0]), ("bob", drag)):
        player = entrant(race, name)
        box = f'.board-box[data-player="{player.player}"]'
        want = list(player.game.view(Audience.SPECTATOR).piles[move.dst])
        await expect(carol.locator(f'{box} .pile[data-pile="{move.dst}"] .card')).to_have_count(len(want))
        assert (await shown_piles(carol, box))[move.dst] == want
    await shows(alice, expected_piles(entrant(race, "alice").game))

    # The standings in every page are the server's.
    rows = carol.locator(".side .standings tbody tr")
    await expect(rows).to_have_count(2)
    await expect(carol.locator(".side .standings tbody tr td.moves")).to_have_text(["1", "1"])
    shown = await rows.evaluate_all(
        "rows => rows.map(r => [r.cells[1].title, ...[...r.cells].slice(2, 4).map(c => c.textContent)])"
    )  # (the name is the player cell's title: its text also holds the guest tag)
    assert shown == [[s.name, f"{s.cleared}/{s.total}", str(s.moves)] for s in race.standings()]
    await web.screenshot(alice, "race-in-play")
    await carol.click("#settings")  # the settings dialog: four colours, clubs green and diamonds blue
    await carol.check("#four-colour")
    await carol.click("#settings-done")
    assert await carol.locator(".card.suit-D").first.evaluate("c => getComputedStyle(c).color") == "rgb(31, 95, 191)"
    await web.screenshot(carol, "watch")

    # Both resign: the end table, the seed checked in the browser, a rematch both accept.
    await resign(alice)
    # (bob's page redraws its controls as alice's resignation arrives: a tap then may land on a
    # button being replaced, so bob resigns once his page shows it)
    await expect(bob.locator(".side .standings td.status.resigned")).to_have_count(1)
    await resign(bob)
    await until(lambda: race.status == "finished")
    for page in (alice, bob, carol):
        await expect(page.locator("#fairness")).to_contain_text("matches the commitment")
        await expect(page.locator(".reveal")).to_contain_text(f"Seed {seed}")
    await alice.click("#rematch")
    await alice.wait_for_url(lambda url: "/r/" in url and not url.endswith(code))
    rematch = alice.url.rsplit("/", 1)[1]
    assert rematch != code and race.rematch == rematch
    await expect(bob.locator("#rematch-accepted")).to_contain_text("alice")
    await bob.click("#rematch")
    await bob.wait_for_url(f"**/r/{rematch}")
    assert {e.name for e in web.server.races[rematch].entrants.values()} == {"alice", "bob"}
    assert web.server.races[rematch].seed != seed
    await expect(alice.locator("#start")).to_be_visible()
    await expect(alice.locator(".standings tbody tr")).to_have_count(2)

    # Carol replays Alice's race move by move.
    await carol.click("#replay")
    await expect(carol.locator("#replay-caption")).to_contain_text("The deal")
    await carol.select_option("#replay-player", entrant(race, "alice").player)
    await carol.click("#replay-next")
    await expect(carol.locator("#replay-caption")).to_contain_text("Move 1 of 1, at ")
    await expect(carol.locator("#replay-caption")).to_contain_text(find_game("klondike")(seed).describe(transfers[0]))


async def test_an_illegal_drop_is_refused_with_the_servers_reason_and_the_card_returns(web: Web) -> None:
    seed = first_transfer_seed("klondike")
    deal = find_game("klondike")(seed)
    page = await web.page("dora")
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    await expect(page.locator(".board-box.mine .card.movable").first).to_be_visible()
    src, dst = next(
        (f"t{a}", f"t{b}")
        for a in range(7)
        for b in range(7)
        if a != b and Move.parse(f"t{a}>t{b}") not in deal.legal_moves()
    )
    with pytest.raises(IllegalMove) as refusal:
        deal.apply(f"{src}>{dst}")
    before = await shown_piles(page)
    await drag_move(page, deal, src, dst)
    await expect(page.locator("#notice")).to_have_text(refusal.value.reason[0].upper() + refusal.value.reason[1:])
    await expect(page.locator(".ghost")).to_have_count(0)
    assert await shown_piles(page) == before
    assert entrant(web.server.races[code], "dora").moves == 0


async def test_a_move_by_keyboard_alone(web: Web) -> None:
    seed = first_transfer_seed("klondike")
    deal = find_game("klondike")(seed)
    move = next(m for m in deal.legal_moves() if m.is_transfer and m.count == 1)
    page = await web.page("hal")
    await setting(page, "autoCollect", False)  # (exactly the moves made here)
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    await expect(page.locator(".board-box.mine .card").first).to_be_visible()
    await page.focus('.board-box.mine .pile[data-pile="s"]')
    slots = [slot.pile for slot in layout_of("klondike").slots]
    for _ in range(40):  # walk with the arrow keys to the source pile
        here = await page.evaluate("document.activeElement.dataset.pile")
        if here == move.src:
            break
        step = "ArrowRight" if slots.index(move.src) > slots.index(here) else "ArrowLeft"
        if here in ("s", "w") or here.startswith("f"):
            step = "ArrowDown"
        await page.keyboard.press(step)
    assert await page.evaluate("document.activeElement.dataset.pile") == move.src
    await page.keyboard.press("Space")  # picks the card up (Enter, with Tap to move on, would play it)
    await expect(page.locator(f'.board-box.mine .pile[data-pile="{move.dst}"]')).to_have_class(re.compile("target"))
    while (here := await page.evaluate("document.activeElement.dataset.pile")) != move.dst:
        await page.keyboard.press("ArrowRight" if slots.index(move.dst) > slots.index(here) else "ArrowLeft")
    await page.keyboard.press("Enter")
    race = web.server.races[code]
    await until(lambda: entrant(race, "hal").moves == 1)
    assert str(race.entrants[entrant(race, "hal").player].game.history[0]) == str(move)
    await expect(page.locator(".table.busy")).to_have_count(0)  # the answer is in
    await page.keyboard.press("d")  # the stock: deal
    await until(lambda: entrant(race, "hal").moves == 2)


async def test_going_offline_and_back_resumes_with_no_move_lost_or_doubled(web: Web) -> None:
    web.allowed = ("WebSocket connection",)
    page, race, game = await one_move_played(web, "erin")
    code = race.code
    first = game.history[0]

    await page.context.set_offline(True)
    await expect(page.locator("#offline")).to_be_visible()
    second = Move.parse("deal")
    await click_move(page, game, second)  # made while offline: sent when the page is back
    await asyncio.sleep(0.3)
    assert entrant(race, "erin").moves == 1
    await page.context.set_offline(False)
    await expect(page.locator("#offline")).to_be_hidden()
    await until(lambda: entrant(race, "erin").moves == 2)
    game.apply(second)
    await asyncio.sleep(0.3)  # a doubled move would show up now
    stored = await web.server.store.moves(code, entrant(race, "erin").player)
    assert [m.move for m in stored] == [str(first), "deal"]
    assert entrant(race, "erin").game.position() == game.position()
    await shows(page, expected_piles(game))


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_every_game_renders_its_deal_and_takes_a_move_by_click(web: Web, phone: bool) -> None:
    games = GAMES if not phone else [g for g in GAMES if g.key in ("klondike", "pyramid", "besieged_city", "clock")]
    page = await web.page("fern", phone=phone)
    for game_cls in games:
        seed = 7
        game = game_cls(seed)
        code = await create_race(page, game_cls.key, seed)
        await page.click("#start")
        await expect(page.locator(".board-box.mine .pile")).to_have_count(len(game.piles))
        await shows(page, expected_piles(game))
        if phone:  # the whole table fits the screen's width
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 360, f"{game_cls.key} is {width} px wide on a 360 px phone"
            await web.screenshot(page, f"phone-{game_cls.key}")
        legal = list(game.legal_moves())
        move = next((m for m in legal if m.is_transfer), legal[0])
        await click_move(page, game, move)
        race = web.server.races[code]
        await until(lambda: entrant(race, "fern").moves == 1)
        game.apply(move)
        await shows(page, expected_piles(game))
        if entrant(race, "fern").status == "playing":
            await resign(page)
        await until(lambda: race.status == "finished")
        await page.goto(web.base + "/")


async def test_a_tournament_page_registers_plays_a_deal_and_shows_the_standings(web: Web) -> None:
    club = tournament(web, starts_in_s=5, break_s=0)
    page = await web.page("gwen", f"/t/{club.id}")
    await expect(page.locator("h1")).to_contain_text("Club night")
    await page.click("#register")
    await expect(page.locator(".meta")).to_contain_text("you are registered")
    await expect(page.locator("#tournament-standings tbody tr")).to_have_count(1)
    await web.screenshot(page, "tournament")
    await page.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"), timeout=20_000)  # the deal starts: play it
    code = page.url.rsplit("/", 1)[1]
    race = web.server.races[code]
    await expect(page.locator(".board-box.mine .card").first).to_be_visible()
    game = entrant(race, "gwen").game.copy()
    move = next(iter(game.legal_moves()))
    await click_move(page, game, move)
    await until(lambda: entrant(race, "gwen").moves == 1)
    await resign(page)
    await until(lambda: club.status == "finished")
    await page.goto(f"{web.base}/t/{club.id}")
    await expect(page.locator("#tournament-status")).to_have_text("finished")
    row = page.locator("#tournament-standings tbody tr")
    await expect(row).to_contain_text(f"{entrant(race, 'gwen').cleared} · resigned")


async def test_a_winner_plays_double_or_naught_with_buttons(web: Web) -> None:
    seed, line = catalog_win("golf")
    game = find_game("golf")(seed)
    page = await web.page("ivy")
    code = await create_race(page, "golf", seed)
    await page.click("#start")
    race = web.server.races[code]
    for done, text in enumerate(line, 1):  # the catalog's winning line, played by clicking
        await expect(page.locator(".table.busy")).to_have_count(0)
        await click_move(page, game, Move.parse(text))
        await until(lambda done=done: entrant(race, "ivy").moves == done)
        game.apply(text)
    await until(lambda: race.status == "finished")
    assert entrant(race, "ivy").status == "won"
    await page.click("#double")
    await page.click("#bonus-stake")
    await page.click("#bonus-ask-yes")  # staking asks first
    for _ in range(10):  # guess until the round is decided (a tie deals again)
        choice = page.locator("#bonus button.move").first
        await expect(choice).to_be_visible()
        await choice.click()
        await until(lambda: entrant(race, "ivy").bonus[-1].moves)
        rnd = entrant(race, "ivy").bonus[-1]
        await expect(page.locator("#bonus-state")).to_contain_text(
            {"win": "won", "loss": "lost the stake", "tie": "tie"}.get(rnd.game.outcome, "Pick a card")
        )
        if rnd.decided:
            break
    await expect(page.locator("#bonus-points")).to_have_text(str(entrant(race, "ivy").points))
    assert entrant(race, "ivy").points in (0, 2 * game.total)


async def test_a_winnable_deal_without_a_private_catalog_is_a_public_practice_deal(web: Web) -> None:
    page = await web.page("jay")
    await page.select_option("#game", "golf")
    await page.click("#friend summary")
    await page.check("input[name=winnable]")
    await page.click("#create-form button[type=submit]")
    await page.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
    await expect(page.locator("#toast")).to_contain_text("public practice deal")
    race = web.server.races[page.url.rsplit("/", 1)[1]]
    catalog = (public_catalogs() / "golf.txt").read_text()
    assert race.seed_public and f"\n{race.seed}: " in catalog
    await expect(page.locator(".meta")).to_contain_text(f"Seed {race.seed}")


async def test_the_end_table_shows_the_deals_par(web: Web) -> None:
    web.server.par.workers, web.server.par.nodes = 1, 5000  # par on, as under `arena serve`
    page = await web.page("kit")
    code = await create_race(page, "golf", 12)
    await page.click("#start")
    await resign(page)
    await expect(page.locator("#par")).to_contain_text("a win was possible (35/35)", timeout=60_000)
    assert web.server.races[code].par.result == "won"


@pytest.mark.parametrize("delay", [0, 1], ids=["live", "delayed"])
async def test_a_spectators_page_keeps_what_it_shows_when_an_older_frame_comes(web: Web, delay: int) -> None:
    """A page may get a race's frame older than what it shows: one the server held for the
    fan-out tick when the page's snapshot was taken, or a sync page's event after a newer live
    one. It keeps the newer standings and boards (docs/protocol.md, Catching up); a delayed
    board, which has its move's version, is kept only when it is no older than the board shown."""
    seed = first_transfer_seed("klondike")
    game = find_game("klondike")(seed)
    first = next(m for m in game.legal_moves() if m.is_transfer)
    tap = Tap()
    async with await ArenaClient.connect(web.server.url, "alice") as alice:
        code = (await alice.create_race("klondike", seed, countdown_s=0, spectator_delay_s=delay)).code
        carol = await web.page("carol", f"/w/{code}", setup=tap.install)
        await expect(carol.locator(".side .standings tbody tr")).to_have_count(1)
        await alice.start_race(code)
        race = web.server.races[code]
        await until(lambda: race.status == "running")
        box = f'.board-box[data-player="{alice.player}"]'
        for move in (first, Move.parse("deal")):  # (each shown before the next: a newer board
            assert (await alice.move(code, str(move))).ok  # sent with it would take its place)
            game.apply(move)
            await shows(carol, expected_piles(game, Audience.SPECTATOR), box, timeout_s=5.0 + delay)
        now = expected_piles(game, Audience.SPECTATOR)
        await expect(carol.locator(".side .standings tbody tr td.moves")).to_have_text(["2"])

        older = [tap.find(type="progress", player=alice.player, move="" if delay else str(first))]
        if delay:
            older.append(tap.find(type="delayed_board", player=alice.player, move=str(first)))
        for frame in older:
            tap.again(frame)
        await asyncio.sleep(0.3)  # an older frame taken would show by now
        await expect(carol.locator(".side .standings tbody tr td.moves")).to_have_text(["2"])
        assert await shown_piles(carol, box) == now


async def test_an_entrants_page_keeps_its_board_when_the_start_comes_again(web: Web) -> None:
    """The start, handed again after a move (as a frame held when the page took its snapshot
    would be), does not put the deal back on the entrant's board."""
    tap = Tap()
    page, _, game = await one_move_played(web, "erin", setup=tap.install)
    await shows(page, expected_piles(game))
    tap.again(tap.find(type="race_started"))
    await asyncio.sleep(0.3)
    assert await shown_piles(page) == expected_piles(game)
