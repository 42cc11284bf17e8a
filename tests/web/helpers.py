"""What the browser tests share: creating races in the page, reading what a board shows, playing
moves the way a person does (clicking, dragging), and a websocket tap."""

from __future__ import annotations

import asyncio
import datetime as dt
import random
import re

import msgspec
from playwright.async_api import Page, WebSocketRoute, expect

from client.connection import ArenaClient
from engine.core import Audience, Game, Move
from engine.games import find_game
from engine.layout import Fan, Kind, layout_of
from server.app import ArenaServer
from server.catalog import public_catalogs
from server.protocol import CreateTournament
from server.race import Race
from server.tournament import Tournament
from tests.web.conftest import Web

#: The organiser's token the tests give the server (`tournament`).
ADMIN = "s3cret-organiser"

#: How many cards of a rightward waste fan the page shows (client/web/geometry.js, WASTE_FAN).
WASTE_FAN = 3


def first_transfer_seed(game: str, start: int = 1) -> int:
    """A seed whose deal offers at least one transfer (a move of cards between piles)."""
    return next(s for s in range(start, start + 500) if any(m.is_transfer for m in find_game(game)(s).legal_moves()))


async def create_race(page: Page, game: str, seed: int | None, *, countdown: int = 0) -> str:
    """Fill in the lobby's "Race a friend" form and create a race; return its code (from the
    page's address)."""
    if not re.search(r"/$", page.url):
        await page.goto(page.url.split("/r/")[0].split("/w/")[0].split("/t/")[0] + "/")
    await page.select_option("#game", game)
    if not await page.locator("#friend").evaluate("d => d.open"):
        await page.click("#friend summary")
    await page.fill("input[name=seed]", "" if seed is None else str(seed))
    await page.fill("input[name=countdown]", str(countdown))
    await page.click("#create-form button[type=submit]")
    await page.wait_for_url(re.compile(r"/r/[A-Z0-9]+$"))
    return page.url.rsplit("/", 1)[1]


async def until(predicate, timeout_s: float = 10.0, page=None) -> None:
    """Wait until ``predicate()`` is true (server state polled every 20 ms). On a timeout the
    error says what ``page`` (a Playwright page, if given) last told screen readers (``#announce``)
    and shows as its notice, the page's side of a move that never reached the server."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            said = ""
            if page is not None:
                words = await page.evaluate(
                    "() => [...document.querySelectorAll('#announce, .notice')].map(e => e.textContent.trim())"
                )
                said = f"; the page said {words!r}"
            raise AssertionError(f"timed out waiting for the server{said}")
        await asyncio.sleep(0.02)


async def join(page: Page, server: ArenaServer, code: str, name: str) -> None:
    """Press the race page's Join and wait until the server counts ``name`` among race ``code``'s
    entrants (a start sent before that would leave the page out of the race)."""
    await page.click("#join")
    race = server.races[code]
    await until(lambda: any(e.name == name for e in race.entrants.values()))


def entrant(race: Race, name: str):
    return next(e for e in race.entrants.values() if e.name == name)


async def shown_piles(page: Page, box: str = ".board-box.mine") -> dict[str, list[str]]:
    """The cards each pile of a board shows, bottom to top ("??" face down)."""
    return await page.eval_on_selector_all(
        f"{box} .pile",
        """piles => Object.fromEntries(piles.map(p => [p.dataset.pile,
             [...p.querySelectorAll('.card')].map(c => c.dataset.card || '??')]))""",
    )


async def shows(
    page: Page, expected: dict[str, list[str]], box: str = ".board-box.mine", timeout_s: float = 5.0
) -> None:
    """Wait until the board in ``box`` shows exactly ``expected`` (see `shown_piles`)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while (shown := await shown_piles(page, box)) != expected:
        if asyncio.get_running_loop().time() > deadline:
            assert shown == expected
        await asyncio.sleep(0.05)


def expected_piles(game: Game, audience: Audience = Audience.PLAYER) -> dict[str, list[str]]:
    """What the page should show of ``game`` to ``audience``: every card of a fanned pile but a
    rightward waste (its last three), the top two of a squared one (only the top one is visible;
    the one under it shows during a drag)."""
    slots = {slot.pile: slot for slot in layout_of(game.key).slots}
    out = {}
    for pid, codes in game.view(audience).piles.items():
        slot, codes = slots[pid], list(codes)
        if slot.fan is Fan.NONE:
            codes = codes[-2:]
        elif slot.fan is Fan.RIGHT and slot.kind is Kind.WASTE:
            codes = codes[-WASTE_FAN:]
        out[pid] = codes
    return out


async def setting(page: Page, name: str, on: bool) -> None:
    """Set one of the page's settings (settings.js: ``tapToMove``, ``autoCollect``, ``animations``,
    ``sounds``, ``fourColour``) as the settings dialog keeps it; the page reads it when it acts."""
    await page.evaluate("([name, on]) => localStorage.setItem(`arena.${name}`, on ? '1' : '0')", [name, on])


async def exactly(page: Page) -> None:
    """Make the page play exactly the moves a test makes: Tap to move off (a click picks a card up,
    a second click puts it down) and Auto-collect off (no safe moves follow a move)."""
    await setting(page, "tapToMove", False)
    await setting(page, "autoCollect", False)


async def click_move(page: Page, game: Game, move: Move, box: str = ".board-box.mine") -> None:
    """Play ``move`` by clicking: the card (or stock, or the action's button), then the target (with
    Tap to move and Auto-collect off: `exactly`)."""
    await exactly(page)
    if move.is_transfer:
        pile = game.piles[move.src]
        card = page.locator(f'{box} .pile[data-pile="{move.src}"] .card[data-index="{len(pile) - move.count}"]')
        await card.click(position={"x": 12, "y": 3})  # the strip of a fanned card that shows
        await page.click(f'{box} .pile[data-pile="{move.dst}"]')
    elif (
        str(move) in ("deal", "redeal")
        and "s" in game.piles
        and not any(m == "deal" for m in map(str, game.legal_moves()) if str(move) == "redeal")
    ):
        await page.click(f'{box} .pile[data-pile="s"]')
    else:
        await page.click(f'button.move[data-move="{move}"]')


async def drag_move(page: Page, game: Game, src: str, dst: str, count: int = 1, box: str = ".board-box.mine") -> None:
    """Drag the card ``count`` from the top of ``src`` onto pile ``dst`` with the mouse (with
    Auto-collect off: `exactly`)."""
    await exactly(page)
    card = page.locator(f'{box} .pile[data-pile="{src}"] .card[data-index="{len(game.piles[src]) - count}"]')
    pile = page.locator(f'{box} .pile[data-pile="{dst}"]')
    await expect(card).to_be_visible()  # (the page may still be drawing the deal)
    await expect(pile).to_be_visible()
    start = await card.bounding_box()
    target = await pile.bounding_box()
    assert start and target
    await page.mouse.move(start["x"] + 12, start["y"] + 3)
    await page.mouse.down()
    await page.mouse.move(start["x"] + 22, start["y"] + 13, steps=2)
    await page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=8)
    await page.mouse.up()


async def resign(page: Page) -> None:
    """Resign from the page's race, answering yes to the page's question."""
    await page.click("#resign")
    await page.click("#resign-ask-yes")


class Tap:
    """A page's websocket routed through Playwright to the real server: every frame the server
    sends the page is passed on at once and kept, decoded, so that a test can hand the page one
    of them again later, as the server hands a page a frame it held for the fan-out tick after
    the page's snapshot (`server.transport.fanout.FanoutChannel`)."""

    def __init__(self) -> None:
        self.frames: list[tuple[dict, bytes]] = []  # (the decoded message, its bytes), in order
        self.route: WebSocketRoute | None = None

    async def install(self, page: Page) -> None:
        """Route ``page``'s websockets through this tap (before the page loads)."""
        await page.route_web_socket(re.compile(r"^wss?://"), self._route)

    def _route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()  # (what the page sends goes on untouched)
        self.route = ws

        def down(message: str | bytes) -> None:
            if isinstance(message, bytes):
                self.frames.append((msgspec.msgpack.decode(message), message))
            ws.send(message)

        server.on_message(down)

    def find(self, **fields: object) -> bytes:
        """The first frame kept whose message has all of ``fields``."""
        return next(raw for message, raw in self.frames if all(message.get(k) == v for k, v in fields.items()))

    def again(self, frame: bytes) -> None:
        """Hand the page ``frame`` once more, now."""
        assert self.route is not None, "the page opened no websocket"
        self.route.send(frame)


async def one_move_played(web: Web, name: str, **page_options: object) -> tuple[Page, Race, Game]:
    """``name``'s page (``page_options`` as `Web.page` takes them) creates and starts a Klondike
    race alone and plays one transfer by clicking; returns the page once it has the answer, the
    race, and a game with the same move played."""
    seed = first_transfer_seed("klondike")
    game = find_game("klondike")(seed)
    page = await web.page(name, **page_options)  # type: ignore[arg-type]
    code = await create_race(page, "klondike", seed)
    await page.click("#start")
    race = web.server.races[code]
    first = next(m for m in game.legal_moves() if m.is_transfer)
    await click_move(page, game, first)
    await until(lambda: entrant(race, name).moves == 1)
    game.apply(first)
    await expect(page.locator(".table.busy")).to_have_count(0)  # the page has the answer too
    return page, race, game


async def played_race(
    web: Web, name: str, game_key: str, seed: int, moves: int, *, rng: int = 1, choose=None
) -> tuple[ArenaClient, Race, Game]:
    """A race of one that ``name`` (a client of the test's) created, started and played for up to
    ``moves`` moves of a seeded random playout (``choose(game, legal, rng)`` picks each move, by
    default at random); the client is still connected. Returns it, the race and the game as
    played, so that a page resuming the client's session (`Web.page` with its token) shows it."""
    client = await ArenaClient.connect(web.server.url, name)
    info = await client.create_race(game_key, seed, max_entrants=1, countdown_s=0, time_limit_s=3600)
    await client.start_race(info.code)
    race = web.server.races[info.code]
    await until(lambda: race.status == "running")
    game = find_game(game_key)(seed)
    pick = random.Random(rng)
    for _ in range(moves):
        legal = list(game.legal_moves())
        if not legal or game.won:
            break
        move = choose(game, legal, pick) if choose else pick.choice(legal)
        result = await client.move(info.code, str(move))
        assert result.ok, result.reason
        game.apply(move)
    return client, race, game


def tournament(web: Web, *, starts_in_s: float, **fields: object) -> Tournament:
    """A golf tournament ``Club night`` on the test's server, starting ``starts_in_s`` seconds from
    now; ``fields`` as `CreateTournament` takes them (``deals``, ``break_s``...)."""
    web.server.config.admin_token = ADMIN
    starts = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=starts_in_s)
    plan = {
        "name": "Club night",
        "game": "golf",
        "deals": 1,
        "countdown_s": 1,
        "registration_opens_s": 600,
        "deal_time_limit_s": 120,
    } | fields
    return web.server.create_tournament(
        CreateTournament(req=1, admin_token=ADMIN, starts_at=starts.isoformat(), **plan)
    )


def catalog_win(game: str) -> tuple[int, list[str]]:
    """The first deal of ``game``'s public catalog (seeds/GAME.txt) and its winning moves."""
    rows = (public_catalogs() / f"{game}.txt").read_text().splitlines()
    seed, _, moves = next(row.partition(": ") for row in rows if row.partition(": ")[0].isdigit())
    return int(seed), moves.split(",")
