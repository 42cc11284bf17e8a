"""The table's assists in a real Chromium: tap to move (the foundation first, a second tap on to
the next place, a card that cannot move refused on the spot), auto-collect, Finish, Undo (and
what the rules refuse to take back), the cards' motion (and none of it under reduced motion or
with Animations off), sounds, the win's celebration, and the settings dialog.

Positions come from the engine: deals and playouts searched for what each test needs, played
through a client of the test's up to that point, then on in the page of the same player (its
session resumed, as after a reload)."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from playwright.async_api import Page, expect

from client.connection import ArenaClient
from engine.core import Game, Move
from engine.games import find_game
from tests.web.conftest import Web, axe
from tests.web.helpers import (
    Tap,
    catalog_win,
    click_move,
    create_race,
    entrant,
    expected_piles,
    join,
    played_race,
    setting,
    shows,
    until,
)

pytestmark = pytest.mark.browser

#: In the page: sample `document.getAnimations()` every frame from now on; `window.motionSeen`
#: is the most animations running at once, `window.stillMoving` a running CSS transition.
SAMPLE = """() => {
  window.motionSeen = 0;
  window.stillMoving = [];
  const tick = () => {
    const running = document.getAnimations();
    window.motionSeen = Math.max(window.motionSeen, running.length);
    for (const a of running) if (a instanceof CSSTransition) window.stillMoving.push(a.transitionProperty);
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""

#: In the page: every element whose style would let it move (a transition or a CSS animation).
MAY_MOVE = """() => [...document.querySelectorAll('*')].filter(e => {
  const s = getComputedStyle(e);
  return s.animationName !== 'none' || s.transitionDuration.split(',').some(d => parseFloat(d) > 0);
}).map(e => e.className || e.tagName)"""


def script(moves: list[str]):
    """A `played_race` chooser that plays ``moves`` in order."""
    it = iter(moves)
    return lambda game, legal, rng: Move.parse(next(it))


def position(seed_range, wanted, steps: int = 80) -> tuple[int, list[str], object]:
    """A Klondike position reached by a seeded random playout where ``wanted(game)`` returns
    something true: (seed, the moves to it, what ``wanted`` returned)."""
    klondike = find_game("klondike")
    for seed in seed_range:
        game, rng = klondike(seed), random.Random(seed)
        for _ in range(steps):
            found = wanted(game)
            if found:
                return seed, [str(m) for m in game.history], found
            legal = list(game.legal_moves())
            if not legal or game.won:
                break
            game.apply(rng.choice(legal))
    raise AssertionError("no such position")


def destinations(game: Game) -> dict[tuple[str, int], list[str]]:
    """(source, count) -> the piles that block may go to, in the order of the legal moves."""
    out: dict[tuple[str, int], list[str]] = {}
    for m in game.legal_moves():
        if m.is_transfer:
            out.setdefault((m.src, m.count), []).append(m.dst)
    return out


async def at(web: Web, name: str, moves: list[str], seed: int, *, phone: bool = False, setup=None):
    """``name``'s page at a Klondike race of one, with ``moves`` of deal ``seed`` played."""
    client, race, game = await played_race(web, name, "klondike", seed, len(moves), choose=script(moves))
    page = await web.page(name, f"/r/{race.code}", token=client.token, phone=phone, setup=setup)
    await shows(page, expected_piles(game))
    return client, race, game, page


def top_card(page: Page, pile: str):
    return page.locator(f'.board-box.mine .pile[data-pile="{pile}"] .card').last


async def stored(web: Web, race, name: str) -> list[str]:
    return [m.move for m in await web.server.store.moves(race.code, entrant(race, name).player)]


# ------------------------------------------------------------------------------ tap to move


async def test_a_tap_sends_a_card_to_the_foundation_before_a_tableau_pile(web: Web) -> None:
    def both(game):
        return next(
            (
                (src, dsts)
                for (src, count), dsts in destinations(game).items()
                if count == 1 and any(d.startswith("f") for d in dsts) and any(d.startswith("t") for d in dsts)
            ),
            None,
        )

    seed, moves, (src, dsts) = position(range(1, 200), both)
    client, race, game, page = await at(web, "tapper", moves, seed)
    await setting(page, "autoCollect", False)  # (only the tapped card moves)
    card = game.piles[src].top.code
    foundation = next(d for d in dsts if d.startswith("f"))
    await top_card(page, src).click()
    await until(lambda: len(entrant(race, "tapper").game.history) == len(moves) + 1)
    assert await stored(web, race, "tapper") == [*moves, f"{src}>{foundation}"]
    await expect(top_card(page, foundation)).to_have_attribute("data-card", card)
    await expect(page.locator("#announce")).to_contain_text("to foundation")

    # Tapped again at once: no other place (foundation cards stay put in Klondike): refused on the
    # page, with words for screen readers, and nothing is sent.
    await expect(page.locator(".table.busy")).to_have_count(0)
    await top_card(page, foundation).click()
    await expect(page.locator("#announce")).to_contain_text("has nowhere else to go")
    await asyncio.sleep(0.3)
    assert len(entrant(race, "tapper").game.history) == len(moves) + 1
    await client.close()


async def test_a_second_tap_cycles_through_the_places_of_the_first(web: Web) -> None:
    def two_places(game):
        return next(
            (
                (src, dsts)
                for (src, count), dsts in destinations(game).items()
                if count == 1 and len(dsts) >= 2 and all(d.startswith("t") for d in dsts)
            ),
            None,
        )

    seed, moves, (src, dsts) = position(range(1, 400), two_places)
    client, race, game, page = await at(web, "cyclist", moves, seed)
    await setting(page, "autoCollect", False)
    card = game.piles[src].top.code
    first, second = dsts[0], dsts[1]
    await top_card(page, src).click()  # the first place, in the order of the legal moves
    await until(lambda: len(entrant(race, "cyclist").game.history) == len(moves) + 1)
    await expect(top_card(page, first)).to_have_attribute("data-card", card)
    await expect(page.locator(".table.busy")).to_have_count(0)
    await top_card(page, first).click()  # again: on to the next place of that list
    await until(lambda: len(entrant(race, "cyclist").game.history) == len(moves) + 2, page=page)
    await expect(top_card(page, second)).to_have_attribute("data-card", card)
    # And round the list, by keyboard this time: Enter on the pile plays its card.
    await expect(page.locator(".table.busy")).to_have_count(0)
    await page.focus(f'.board-box.mine .pile[data-pile="{second}"]')
    await page.keyboard.press("Enter")
    await until(lambda: len(entrant(race, "cyclist").game.history) == len(moves) + 3, page=page)
    tail = (await stored(web, race, "cyclist"))[len(moves) :]
    if len(dsts) == 2:
        assert tail == [f"{src}>{first}", f"{first}>{second}", f"{second}>{first}"]
    else:
        assert tail[:2] == [f"{src}>{first}", f"{first}>{second}"] and tail[2].startswith(f"{second}>")
    await client.close()


async def test_a_card_that_cannot_move_is_refused_on_the_page(web: Web) -> None:
    klondike = find_game("klondike")
    seed = next(s for s in range(1, 300) if not any(m.src == "t0" for m in klondike(s).legal_moves() if m.is_transfer))
    page = await web.page("stuck")
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    await top_card(page, "t0").click()
    code_ = klondike(seed).piles["t0"].top.code
    words = {"T": "10"}.get(code_[0], code_[0]) + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[code_[1]]
    await expect(page.locator("#announce")).to_have_text(f"{words} cannot move now")
    await page.locator('.board-box.mine .pile[data-pile="t6"] .card[data-index="0"]').click(position={"x": 10, "y": 2})
    await expect(page.locator("#announce")).to_have_text("A face-down card cannot move")
    await asyncio.sleep(0.3)
    assert entrant(web.server.races[code], "stuck").moves == 0


# ------------------------------------------------------------------------------ auto-collect


def frees_an_ace(seed: int) -> Move | None:
    """A first move of Klondike deal ``seed`` that turns up an Ace in the tableau."""
    game = find_game("klondike")(seed)
    for move in game.legal_moves():
        if move.is_transfer and move.src.startswith("t"):
            revealed = game.copy().apply(move)
            if any(str(r.card).startswith("A") for r in revealed):
                return move
    return None


async def test_auto_collect_puts_a_freed_ace_on_its_foundation(web: Web) -> None:
    klondike = find_game("klondike")
    seed = next(s for s in range(1, 500) if frees_an_ace(s))
    move = frees_an_ace(seed)
    assert move is not None
    page = await web.page("collie")
    await setting(page, "tapToMove", False)  # (the move exactly; Auto-collect is on, as by default)
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    race = web.server.races[code]
    index = len(klondike(seed).piles[move.src]) - move.count
    await page.locator(f'.board-box.mine .pile[data-pile="{move.src}"] .card[data-index="{index}"]').click(
        position={"x": 12, "y": 3}
    )
    await page.click(f'.board-box.mine .pile[data-pile="{move.dst}"]')
    await until(lambda: entrant(race, "collie").moves >= 2)
    record = await stored(web, race, "collie")
    assert record[0] == str(move)
    assert re.fullmatch(rf"{move.src}>f\d", record[1]), record  # the Ace, played for the player
    ace = entrant(race, "collie").game.piles[record[1].split(">")[1]].top.code
    assert ace.startswith("A")
    await expect(top_card(page, record[1].split(">")[1])).to_have_attribute("data-card", ace)
    await expect(page.locator("#announce")).to_contain_text("then")


async def test_with_auto_collect_off_the_collect_button_collects(web: Web) -> None:
    seed = next(s for s in range(1, 500) if frees_an_ace(s))
    move = frees_an_ace(seed)
    assert move is not None
    game = find_game("klondike")(seed)
    page = await web.page("colin")
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    race = web.server.races[code]
    await expect(page.locator("#collect")).to_have_count(0)  # (Auto-collect is on)
    await click_move(page, game, move)  # (Auto-collect off now)
    game.apply(move)
    await until(lambda: entrant(race, "colin").moves == 1)
    await shows(page, expected_piles(game))  # the Ace stays where it turned up
    await page.click("#collect")
    await until(lambda: entrant(race, "colin").moves >= 2)
    record = await stored(web, race, "colin")
    assert record[0] == str(move) and re.fullmatch(rf"{move.src}>f\d", record[1]), record


# ----------------------------------------------------------------------------- finish, win


async def test_finish_plays_a_decided_klondike_to_the_win_in_one_request(web: Web) -> None:
    seed, line = catalog_win("klondike")
    game = find_game("klondike")(seed)
    decided = next(i for i in range(len(line)) if game.apply(line[i]) is not None and game.decided) + 1
    tap = Tap()
    client, race, played, page = await at(web, "finn", line[: decided - 2], seed, setup=tap.install)
    for text in line[decided - 2 : decided]:  # the last moves before it is decided, in the page
        await expect(page.locator(".table.busy")).to_have_count(0)
        await click_move(page, played, Move.parse(text))
        played.apply(text)
        await until(lambda: len(entrant(race, "finn").game.history) == len(played.history))
    assert played.decided
    finish = page.locator("#finish")
    await expect(finish).to_be_visible()
    await expect(page.locator("#announce")).to_contain_text("Finish plays the win")
    sent = len(tap.frames)
    await finish.click()
    await until(lambda: race.status == "finished")
    rest = played.finishing_line()
    assert entrant(race, "finn").status == "won"
    assert await stored(web, race, "finn") == [*line[:decided], *map(str, rest)]
    await until(lambda: any(m["type"] == "move_result" for m, _ in tap.frames[sent:]))  # (the page's copy)
    await asyncio.sleep(0.2)
    answers = [m for m, _ in tap.frames[sent:] if m["type"] == "move_result"]
    assert len(answers) == 1 and answers[0]["ok"]  # one request
    assert [answers[0]["move"], *answers[0]["then"]] == [str(m) for m in rest]
    assert answers[0]["next_seq"] == decided + len(rest) + 1

    # The win: a celebration that says it plainly, passes axe and leads on.
    box = page.locator("#celebration")
    await expect(box).to_be_visible(timeout=10_000)
    line_ = race.standings()[0]
    minutes, seconds = divmod(line_.time_ms // 1000, 60)
    await expect(page.locator("#celebration-text")).to_have_text(f"You won in {minutes}:{seconds:02d}, 1st place")
    await expect(page.locator("#celebration-rematch")).to_be_visible()
    await expect(page.locator("#celebration-lobby")).to_be_visible()
    assert await page.locator(".shower .falling").count() > 0  # cards fall (motion is on)
    await web.screenshot(page, "win-desktop")
    assert await axe(page) == []
    await page.click("#celebration-close")
    await expect(box).to_have_count(0)
    await expect(page.locator("#rematch")).to_be_visible()  # the page still leads on
    await client.close()


async def test_the_win_on_a_phone_under_reduced_motion(web: Web) -> None:
    seed, line = catalog_win("golf")
    client, race, game = await played_race(web, "wyn", "golf", seed, len(line) - 1, choose=script(line))
    page = await web.page("wyn", f"/r/{race.code}", token=client.token, phone=True)
    await page.emulate_media(reduced_motion="reduce")
    await shows(page, expected_piles(game))
    await page.evaluate(SAMPLE)
    await click_move(page, game, Move.parse(line[-1]))
    await expect(page.locator("#celebration")).to_be_visible()
    await expect(page.locator("#celebration-text")).to_contain_text("You won in")
    await expect(page.locator("#celebration-text")).to_contain_text("1st place")
    await asyncio.sleep(0.3)
    assert await page.evaluate("window.motionSeen") == 0
    await expect(page.locator(".shower")).to_have_count(0)  # nothing falls
    await web.screenshot(page, "win-phone")
    assert await axe(page) == []
    await page.keyboard.press("Escape")
    await expect(page.locator("#celebration")).to_have_count(0)
    await client.close()


# ------------------------------------------------------------------------------------- undo


async def test_undo_is_refused_across_a_deal_and_a_flip_and_taken_otherwise(web: Web) -> None:
    klondike = find_game("klondike")

    def fits(seed):
        legal = [str(m) for m in klondike(seed).legal_moves()]
        single = [m for m in legal if m.startswith("t0>t")]
        flip = [m for m in legal if re.fullmatch(r"t[1-6]>t\d", m)]
        return (single[0], flip[0]) if single and flip else None

    seed = next(s for s in range(1, 300) if fits(s))
    single, flip = fits(seed)
    game = klondike(seed)
    page = await web.page("uma")
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    race = web.server.races[code]
    undo = page.locator("#undo")
    await expect(undo).to_be_disabled()  # nothing played yet

    await click_move(page, game, Move.parse("deal"))
    game.apply("deal")
    await until(lambda: entrant(race, "uma").moves == 1)
    await expect(page.locator(".table.busy")).to_have_count(0)
    await expect(undo).to_be_disabled()  # a deal is never taken back
    await page.locator("body").press("u")  # the key asks anyway: the server says why not
    await expect(page.locator("#notice")).to_contain_text("cannot be taken back")
    assert entrant(race, "uma").moves == 1

    await click_move(page, game, Move.parse(single))  # t0's only card: nothing turns up
    await until(lambda: entrant(race, "uma").moves == 2)
    await expect(undo).to_be_enabled()
    await page.locator("body").press("Control+z")
    await until(lambda: entrant(race, "uma").moves == 3)
    await shows(page, expected_piles(game))  # as it was after the deal
    await expect(page.locator(".side .standings td.status .undos")).to_have_text("1 undo")

    await click_move(page, game, Move.parse(single))
    await until(lambda: entrant(race, "uma").moves == 4)
    await undo.click()
    await until(lambda: entrant(race, "uma").moves == 5)
    await expect(page.locator(".side .standings td.status .undos")).to_have_text("2 undos")
    assert await stored(web, race, "uma") == ["deal", single, "undo", single, "undo"]

    await click_move(page, game, Move.parse(flip))  # turns a card up: final
    game.apply(flip)
    await until(lambda: entrant(race, "uma").moves == 6)
    await shows(page, expected_piles(game))
    await expect(undo).to_be_disabled()
    await web.screenshot(page, "undo-desktop")


async def test_a_race_without_undo_shows_no_undo(web: Web) -> None:
    async with await ArenaClient.connect(web.server.url, "host") as host:
        code = (await host.create_race("klondike", 3, countdown_s=0, undo=False)).code
        page = await web.page("nora", f"/r/{code}")
        await join(page, web.server, code, "nora")
        await host.start_race(code)
        await expect(page.locator("#resign")).to_be_visible()
        await expect(page.locator("#undo")).to_have_count(0)
        await expect(page.locator("#keys")).not_to_contain_text("U (or Ctrl+Z)")


async def test_no_moves_left_but_an_undo_says_so(web: Web) -> None:
    """An entrant with no legal move but one to take back still plays: the page says what it can
    do. (Golf: the stock runs out; the last move, a card to the waste, may be taken back.)"""
    golf = find_game("golf")

    def last_card_no_move(seed):
        game, rng = golf(seed), random.Random(seed)
        for _ in range(80):
            legal = list(game.legal_moves())
            if not legal:
                return None
            moves = [m for m in legal if m.is_transfer] or legal
            game.apply(rng.choice(moves))
            if not list(game.legal_moves()) and game.can_undo and not game.won:
                return [str(m) for m in game.history]
        return None

    seed = next(s for s in range(1, 400) if last_card_no_move(s))
    line = last_card_no_move(seed)
    client, race, game = await played_race(web, "gil", "golf", seed, len(line), choose=script(line))
    assert entrant(race, "gil").status == "playing"
    page = await web.page("gil", f"/r/{race.code}", token=client.token)
    await expect(page.locator("#notice")).to_have_text("No moves left: undo, or resign")
    await expect(page.locator("#undo")).to_be_enabled()
    await page.click("#undo")
    await until(lambda: entrant(race, "gil").moves == len(line) + 1)
    await expect(page.locator("#notice")).to_be_hidden()
    await client.close()


# ----------------------------------------------------------------------------------- motion


async def test_a_move_animates_for_the_player_and_for_spectators(web: Web) -> None:
    seed = next(s for s in range(1, 300) if any(m.src == "t0" for m in find_game("klondike")(s).legal_moves()))
    game = find_game("klondike")(seed)
    async with await ArenaClient.connect(web.server.url, "rival") as rival:
        code = (await rival.create_race("klondike", seed, countdown_s=0)).code
        page = await web.page("mo", f"/r/{code}")
        await page.click("#join")
        watcher = await web.page("vic", f"/w/{code}")
        await rival.start_race(code)
        await expect(page.locator(".board-box.mine .card.up").first).to_be_visible()
        await expect(watcher.locator(".board-box .card.up").first).to_be_visible()
        for p in (page, watcher):
            await p.evaluate(SAMPLE)
        await top_card(page, "t0").click()  # a tap: the card travels
        race = web.server.races[code]
        await until(lambda: entrant(race, "mo").moves >= 1)
        await asyncio.sleep(0.4)
        assert await page.evaluate("window.motionSeen") > 0
        assert await watcher.evaluate("window.motionSeen") > 0  # the spectator's copy travels too
        await page.evaluate("window.motionSeen = 0")
        move = next(m for m in game.legal_moves() if m.is_transfer)
        assert (await rival.move(code, str(move))).ok  # another entrant's move, seen by the spectator
        await asyncio.sleep(0.4)
        assert await page.evaluate("window.motionSeen") == 0  # (an entrant sees no one else's cards)

        # Another entrant finishes: its row lights up for a moment, and it is said.
        await rival.resign(code)
        row = page.locator(f'.side .standings tr.flash[data-player="{rival.player}"]')
        await expect(row).to_have_count(1)
        await expect(page.locator("#announce")).to_have_text("rival resigned with 0 of 52 cards")
        await expect(row).to_have_count(0, timeout=5000)


@pytest.mark.parametrize("how", ["reduced-motion", "animations-off"])
async def test_nothing_moves_under_reduced_motion_or_with_animations_off(web: Web, how: str) -> None:
    klondike = find_game("klondike")
    seed = next(s for s in range(1, 300) if any(m.src == "t0" for m in klondike(s).legal_moves()))
    page = await web.page("still")
    if how == "reduced-motion":
        await page.emulate_media(reduced_motion="reduce")
    else:
        await setting(page, "animations", False)
        await page.reload()
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    await expect(page.locator(".board-box.mine .card.up").first).to_be_visible()
    assert not await page.evaluate("document.body.classList.contains('motion')")
    await page.evaluate(SAMPLE)
    await top_card(page, "t0").click()  # a move
    await until(lambda: entrant(web.server.races[code], "still").moves >= 1)
    await expect(page.locator(".table.busy")).to_have_count(0)
    await page.locator('.board-box.mine .pile[data-pile="t6"] .card[data-index="0"]').click(position={"x": 10, "y": 2})
    await expect(page.locator("#announce")).to_contain_text("cannot move")  # a refusal: no shake
    await asyncio.sleep(0.4)
    assert await page.evaluate("window.motionSeen") == 0
    assert await page.evaluate("window.stillMoving") == []
    assert await page.evaluate("document.getAnimations().length") == 0
    assert await page.evaluate(MAY_MOVE) == []


# ------------------------------------------------------------------------------------ sound


SOUNDS = """
  window.soundsMade = 0;
  window.audioContexts = 0;
  const Real = window.AudioContext;
  if (Real) {
    window.AudioContext = class extends Real { constructor(...a) { super(...a); window.audioContexts++; } };
    for (const name of ['createBufferSource', 'createOscillator']) {
      const make = Real.prototype[name];
      Real.prototype[name] = function (...a) { window.soundsMade++; return make.apply(this, a); };
    }
  }
"""


@pytest.mark.parametrize("on", [True, False], ids=["sounds", "silent"])
async def test_a_move_makes_a_sound_only_with_sounds_on(web: Web, on: bool) -> None:
    klondike = find_game("klondike")
    seed = next(s for s in range(1, 300) if any(m.src == "t0" for m in klondike(s).legal_moves()))

    async def listen(page: Page) -> None:
        await page.add_init_script(SOUNDS)

    page = await web.page("sonny", setup=listen)
    if not on:
        await setting(page, "sounds", False)
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    await top_card(page, "t0").click()
    await until(lambda: entrant(web.server.races[code], "sonny").moves >= 1)
    await asyncio.sleep(0.3)
    made = await page.evaluate("[window.audioContexts, window.soundsMade]")
    assert (made[0] > 0 and made[1] > 0) if on else made == [0, 0], made


# --------------------------------------------------------------------------------- settings


@pytest.mark.parametrize("phone", [False, True], ids=["desktop", "phone"])
async def test_the_settings_dialog_applies_at_once_and_persists(web: Web, phone: bool) -> None:
    page = await web.page("sette", phone=phone)
    await page.click("#settings")
    dialog = page.locator("#settings-dialog")
    await expect(dialog).to_be_visible()
    for box in ("#set-tap", "#set-collect", "#set-animations", "#set-sounds"):
        await expect(page.locator(box)).to_be_checked()  # on by default
    await expect(page.locator("#four-colour")).not_to_be_checked()
    await expect(page.locator("#back-blue")).to_be_checked()
    await web.screenshot(page, f"settings-{'phone' if phone else 'desktop'}")
    assert await axe(page) == []
    await page.check("#four-colour")
    await page.check("#back-red")
    await page.uncheck("#set-animations")
    await page.uncheck("#set-tap")
    classes = await page.evaluate("document.body.className")
    assert {"four-colour", "back-red"} <= set(classes.split()) and "motion" not in classes.split()  # at once
    await page.keyboard.press("Escape")
    await expect(dialog).to_have_count(0)
    await expect(page.locator("#settings")).to_be_focused()  # the focus comes back

    await page.reload()
    await expect(page.locator("#who")).to_have_text("sette")
    classes = (await page.evaluate("document.body.className")).split()
    assert "four-colour" in classes and "back-red" in classes and "motion" not in classes
    await page.click("#settings")
    await expect(page.locator("#four-colour")).to_be_checked()
    await expect(page.locator("#back-red")).to_be_checked()
    await expect(page.locator("#set-animations")).not_to_be_checked()
    await expect(page.locator("#set-tap")).not_to_be_checked()
    await expect(page.locator("#set-collect")).to_be_checked()
    await page.click("#settings-done")

    await page.click("#play-now")  # the table follows: a red back, and the keys for picking up
    await expect(page.locator(".board-box.mine .card.down").first).to_be_visible()
    back = await page.locator(".board-box.mine .card.down").first.evaluate("c => getComputedStyle(c).backgroundImage")
    assert "143, 29, 29" in back or "192, 57, 43" in back, back
    await expect(page.locator("#keys")).to_contain_text("Tap a card, then where it goes")
    await web.screenshot(page, f"settings-table-{'phone' if phone else 'desktop'}")
