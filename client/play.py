"""``arena play CODE``: a person plays a race in the terminal.

The command joins the race as the player the CLI keeps for the server (`client.identity`: the
race shows in ``arena history``; ``--name`` renames it), or, with ``--token``, as the player of
that token (as ``arena bot`` does), prints the command that resumes it, waits for the start while printing who
joins and the countdown, then reads commands until the race ends:

* a move in the game's notation, exactly as the server takes it (``r2>f0``, ``t3>t5x3``,
  ``deal``, ``redeal``, ``turn``); a transfer may also be typed with a dash or a space
  (``t3-f0``, ``t3 f0``). Game choices are moves too: Clock's ``exchange t4.2``, General's
  Patience's ``choose t0``, Double or Naught's ``guess r2``. A bare number N plays the N-th
  move of the last ``?`` listing;
* ``u`` (``undo``) takes back the last move, where the race allows it and the rules do (never a
  move that turned a card up or dealt from the stock); ``c`` (``collect``) plays every card that
  may safely go to a foundation; ``finish`` plays the win once the game is decided (every card
  face up). After each move the server also plays the safe moves it makes possible
  (auto-collect), unless ``--no-collect``; the moves it played are printed;
* ``?`` (or ``moves``) lists the legal moves, numbered; the server sends them with every board;
* ``board``, ``standings``, ``help``; ``resign`` (asks to confirm); ``quit`` leaves: the race
  goes on, and the printed token resumes it.

After every accepted move the board is drawn again (`board_view`): every pile under its id in
the notation (``t0``, ``f0``, ``s``, ``w``, ``r0``...), grouped by role in the game's table
layout (`engine.layout`), face-down cards as ``??``, the stock by its size, a squared
foundation or waste by its top card and size. A refused move prints one line, the server's
reason and code, and nothing changes. At the end: the final standings
(`client.race_views.standings_table`), the revealed seed and the commitment to check it against
(``arena verify``). A winner of a casual race is offered Double or Naught: with ``--double`` the
rounds are played at the prompt (``guess r2``, ``deal`` after a tie); without it, the command
that does so is printed.

The race clock shown is the latest race time the server sent (every move result and progress
event carries one) plus the local time since; the server's clock is the one that counts.

The terminal. When standard input and output are both terminals, input goes through
prompt_toolkit: line editing, history, Tab completes the legal moves, and a bottom toolbar
shows the race clock and every entrant's standing, redrawn every second. Lines printed while
the person types (an opponent's progress, the end of the race) go through
`prompt_toolkit.application.run_in_terminal`, which erases the prompt, prints, and draws the
prompt again with what was typed so far: nothing garbles the input, and it works in any
terminal that understands the usual VT100 sequences. Otherwise (input from a pipe or a file)
a daemon thread reads lines, and the same lines are printed as they come; there is no echo to
garble. Opponents' progress is printed at most once a second, when someone's cards cleared or
status changed, so that a fast bot cannot flood the screen.

Exit codes (as ``client.cli.main`` returns them): 0 the race ended, or the person left it with
``quit`` or end of input; 2 a request the server refused (unknown race, race full, already
started, bad token...) or the connection lost for good; 130 Ctrl-C (the resume command is
printed first).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from client.connection import ArenaClient, ArenaConnectionError, ArenaError, ArenaTimeout
from client.identity import connect_person
from client.race_views import standings_table
from engine.games import UnknownGame
from server.protocol import (
    Board,
    Bonus,
    EntrantJoined,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    RaceStarting,
    Snapshot,
    Standing,
)

__all__ = ["Command", "add_play_arguments", "board_view", "parse_command", "run_play", "standings_line"]

#: Statuses after which an entrant makes no more moves.
_DONE = ("won", "stuck", "resigned", "out_of_time")
#: How often opponents' progress may be printed, in seconds (the toolbar is live anyway).
_ANNOUNCE_EVERY_S = 1.0
#: Reconnection attempts in a row before giving up, and the first pause between them (s; doubles).
_RECONNECT_ATTEMPTS = 5
_RECONNECT_PAUSE_S = 0.2

HELP = """\
Commands:
  MOVE         a move in the game's notation: r2>f0, t3>t5x3 (three cards), deal, redeal, turn,
               exchange t4.2, choose t0, guess r2 ... (t3-f0 and 't3 f0' mean t3>f0)
  N            the N-th move of the last '?' list
  u | undo     take back your last move (if the race allows it; never one that turned a card up)
  c | collect  play every card that may safely go to a foundation
  finish       play the win, once every card is face up and the game is decided
  ? | moves    list the legal moves (numbered)
  board        draw the board again
  standings    the standings now
  resign       give up this race (asks first); your cards cleared stand
  quit         leave: the race goes on, and the token printed at the start resumes it
               (after 5 minutes without a move the server counts you out of time)
  help         this list
Tab completes a legal move; the bar at the bottom shows the race clock and the standings."""


def add_play_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``arena play``'s own arguments; ``--server`` and ``--name`` come from ``client.cli``."""
    parser.add_argument("code", help="race code")
    parser.add_argument(
        "--token",
        help="play as the player of this token (the one a resume line printed); default: your kept "
        "player (`arena whoami`), so that the race shows in `arena history`",
    )
    parser.add_argument(
        "--double", action="store_true", help="after a win, stake the points on Double or Naught (you pick the cards)"
    )
    parser.add_argument(
        "--no-collect",
        dest="collect",
        action="store_false",
        help="do not let the server play safe foundation moves for you after each move",
    )


# ------------------------------------------------------------------------------ commands


@dataclass(frozen=True)
class Command:
    """One line the person typed, read: ``kind`` is ``move`` (``move`` holds the notation),
    ``legal``, ``help``, ``board``, ``standings``, ``resign``, ``quit``, ``empty`` or ``bad``
    (``move`` holds why)."""

    kind: str
    move: str = ""


_WORDS = {
    "?": "legal",
    "moves": "legal",
    "legal": "legal",
    "help": "help",
    "h": "help",
    "board": "board",
    "b": "board",
    "standings": "standings",
    "st": "standings",
    "resign": "resign",
    "quit": "quit",
    "q": "quit",
    "exit": "quit",
}
#: Words that are moves the server plays for the player (`server.assists`), with short forms.
_ASSISTS = {"u": "undo", "undo": "undo", "c": "collect", "collect": "collect", "finish": "finish"}
_PILE = r"[a-z]\d{0,2}"
_LOOSE_TRANSFER = re.compile(rf"({_PILE})\s*(?:-|>|\s)\s*({_PILE})(x\d{{1,3}})?")


def parse_command(text: str, listed: Sequence[str] = ()) -> Command:
    """Read one typed line. ``listed``: the moves of the last ``?`` listing, for ``N``.

    >>> parse_command(" T3-F0 "), parse_command("t3 t5x3")
    (Command(kind='move', move='t3>f0'), Command(kind='move', move='t3>t5x3'))
    >>> parse_command("exchange t4.2")
    Command(kind='move', move='exchange t4.2')
    >>> parse_command("?"), parse_command("2", ["r4>f0", "deal"]), parse_command("3", ["deal"]).kind
    (Command(kind='legal', move=''), Command(kind='move', move='deal'), 'bad')
    >>> parse_command("u"), parse_command("c")
    (Command(kind='move', move='undo'), Command(kind='move', move='collect'))
    """
    words = text.strip().lower().split()
    line = " ".join(words)
    if not line:
        return Command("empty")
    if line in _WORDS:
        return Command(_WORDS[line])
    if line in _ASSISTS:
        return Command("move", _ASSISTS[line])
    if line.isdigit():
        number = int(line)
        if not listed:
            return Command("bad", "type ? first: a number plays that move of the list")
        if not 1 <= number <= len(listed):
            return Command("bad", f"the list has moves 1 to {len(listed)}")
        return Command("move", listed[number - 1])
    if m := _LOOSE_TRANSFER.fullmatch(line):
        return Command("move", f"{m[1]}>{m[2]}{m[3] or ''}")
    return Command("move", line)


# --------------------------------------------------------------------------------- views


_KIND_OF_LETTER = {"f": "foundation", "t": "tableau", "r": "reserve", "c": "cell", "s": "stock", "w": "waste"}


@dataclass(frozen=True)
class _Place:
    pile: str
    kind: str  # foundation, tableau, reserve, cell, stock, waste
    fan: str  # none, down, right
    label: str


def _places(board: Board) -> list[_Place]:
    """The board's piles in the game's layout order, with their role; piles the layout does not
    name (or a game without one) come last, their role guessed from the id's letter."""
    places: list[_Place] = []
    try:
        from engine.layout import layout_of

        slots = layout_of(board.game).slots
    except (UnknownGame, KeyError, ValueError):
        slots = ()
    for slot in slots:
        if slot.pile in board.piles:
            places.append(_Place(slot.pile, slot.kind.value, slot.fan.value, slot.label))
    named = {p.pile for p in places}
    for pid in board.piles:
        if pid not in named:
            places.append(_Place(pid, _KIND_OF_LETTER.get(pid[:1], "tableau"), "down", ""))
    return places


def _card(code: str) -> Text:
    if code == "??":
        return Text(code, style="dim")
    return Text(code, style="bold red" if code[-1:] in ("H", "D") else "bold")


def _cards(codes: Sequence[str]) -> Text:
    return Text(" ").join(_card(c) for c in codes)


def _pile_text(place: _Place, codes: Sequence[str]) -> Text:
    """A pile as one line: the stock by its size; a squared foundation or waste by its top card
    and size; a right-fanned waste by its last three cards; any other pile card by card."""
    n = len(codes)
    if place.kind == "stock":
        return Text(f"{n} card{'s' if n != 1 else ''}" if n else "empty", style="" if n else "dim")
    if not codes:
        return Text("--", style="dim")
    if place.fan == "none" and place.kind in ("foundation", "waste"):
        return _card(codes[-1]) + Text(f" ({n})" if n > 1 else "", style="dim")
    if place.kind == "waste" and place.fan == "right" and n > 3:
        return Text(f"({n}) ... ", style="dim") + _cards(codes[-3:])
    return _cards(codes)


def board_view(board: Board, *, title: str = "") -> RenderableType:
    """A rich drawing of ``board`` (a wire `Board`): a heading (``title``, cards cleared of
    total, moves, the game's public state) and every pile under its id, grouped by role in the
    order of the game's table layout. Squared piles of a role whose texts are all short
    (foundations, cells, single cards) share lines; the others get a line each. Face-down cards are ``??``.

    >>> from engine.games import find_game
    >>> from server.protocol import board_of
    >>> console = Console(width=80, color_system=None)
    >>> with console.capture() as out:
    ...     console.print(board_view(board_of(find_game("golf")(seed=27).view()), title="golf"))
    >>> print(out.get().rstrip())  # doctest: +NORMALIZE_WHITESPACE
    golf  0/35 cleared  0 moves  redeals 0
    reserve     r0  7D 4S AS 6D 8H
                r1  TS 4H 2H 4D 5H
                r2  3H 3S 6C 9C 2C
                r3  8D 7H 3C QH AC
                r4  8S 7C QC JC JS
                r5  QD KS 9H TD TC
                r6  5C JD 5S TH JH
    foundation  f0  AD
    stock       s   16 cards
    2 legal moves (? lists them)
    """
    state = "  ".join(f"{k} {_state_value(v)}" for k, v in board.info.items())
    head = Text(title, style="bold")
    head.append(f"  {board.cleared}/{board.total} cleared  {board.moves} move{'s' if board.moves != 1 else ''}")
    if state:
        head.append(f"  {state}", style="dim")
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(style="bold cyan", no_wrap=True)
    grid.add_column()
    groups: dict[str, list[_Place]] = {}
    for place in _places(board):
        groups.setdefault(place.kind, []).append(place)
    for kind, places in groups.items():
        texts = [(p, _pile_text(p, board.piles[p.pile])) for p in places]
        if len(texts) > 1 and all(p.fan == "none" and len(t) <= 12 for p, t in texts):
            cells = [Text.assemble((_pile_name(p), "bold cyan"), " ", t) for p, t in texts]
            grid.add_row(kind, "", Columns(cells, padding=(0, 3)))
            continue
        for i, (p, t) in enumerate(texts):
            grid.add_row(kind if i == 0 else "", _pile_name(p), t)
    if board.won:
        foot = Text("Won: every card cleared.", style="bold green")
    elif board.over:
        foot = Text("No legal move left: this game is over.", style="yellow")
    else:
        n = len(board.legal)
        foot = Text(f"{n} legal move{'s' if n != 1 else ''} (? lists them)", style="dim")
    return Group(head, grid, foot)


def _pile_name(place: _Place) -> str:
    return f"{place.pile}({place.label})" if place.label else place.pile


def _state_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value) if value != "" else "-"


def legal_view(legal: Sequence[str]) -> Text:
    """The legal moves numbered from 1, on as many lines as the width needs.

    >>> print(legal_view(["r4>f0", "deal"]))
    1 r4>f0   2 deal
    """
    if not legal:
        return Text("No legal move.", style="yellow")
    return Text("   ").join(Text.assemble((str(i), "dim"), " ", (m, "bold")) for i, m in enumerate(legal, 1))


def standings_line(
    standings: Sequence[Standing], me: str, elapsed_s: float, *, limit_s: float | None = None, others_only: bool = False
) -> str:
    """One line of standings: the race clock (seconds), then each entrant's place, name,
    cards cleared, moves and status; ``me`` (a player id) is marked "(you)", or left out with
    ``others_only``.

    >>> s = [Standing(place=1, player="p1", name="robin", cleared=9, total=35, time_ms=0, moves=12,
    ...               status="playing", order=1),
    ...      Standing(place=2, player="p2", name="alice", cleared=3, total=35, time_ms=0, moves=4,
    ...               status="playing", order=0)]
    >>> standings_line(s, "p2", 12.4, limit_s=900)
    '12 s of 900 | 1. robin 9/35 cleared, 12 moves, playing | 2. alice (you) 3/35 cleared, 4 moves, playing'
    >>> standings_line(s, "p2", 12.4, others_only=True)
    '12 s | 1. robin 9/35 cleared, 12 moves, playing'
    """
    clock = f"{int(elapsed_s)} s" + (f" of {int(limit_s)}" if limit_s else "")
    parts = [clock]
    for s in standings:
        if others_only and s.player == me:
            continue
        you = " (you)" if s.player == me else ""
        parts.append(
            f"{s.place}. {s.name}{you} {s.cleared}/{s.total} cleared, {s.moves} "
            f"move{'s' if s.moves != 1 else ''}, {s.status.replace('_', ' ')}"
        )
    return " | ".join(parts)


# ------------------------------------------------------------------------------ terminals


class _Terminal(Protocol):
    async def read(self, message: Callable[[], str]) -> str | None:
        """One line; None when `interrupt` was called. Raises EOFError at the end of input and
        KeyboardInterrupt on Ctrl-C."""

    async def show(self, *items: RenderableType) -> None:
        """Print above the prompt."""

    def interrupt(self) -> None:
        """Make the pending (or next) `read` return None."""


class _PromptTerminal:
    """prompt_toolkit: line editing, history, Tab completion of the legal moves and a live
    bottom toolbar; printing goes above the prompt through ``run_in_terminal``."""

    def __init__(self, console: Console, legal: Callable[[], Sequence[str]], toolbar: Callable[[], str]) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import CompleteEvent, Completer, Completion
        from prompt_toolkit.document import Document
        from prompt_toolkit.history import InMemoryHistory
        from prompt_toolkit.shortcuts import CompleteStyle

        class LegalMoves(Completer):
            def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
                typed = document.text_before_cursor.lstrip().lower()
                for move in legal():
                    if move.startswith(typed):
                        yield Completion(move, start_position=-len(document.text_before_cursor))

        self.console = console
        self.session: Any = PromptSession(
            history=InMemoryHistory(),
            completer=LegalMoves(),
            complete_style=CompleteStyle.READLINE_LIKE,
            bottom_toolbar=lambda: " " + toolbar(),
            refresh_interval=1.0,
        )

    async def read(self, message: Callable[[], str]) -> str | None:
        try:
            return await self.session.prompt_async(message)
        except KeyboardInterrupt:
            raise _CtrlC from None  # a KeyboardInterrupt leaving a task would stop the event loop

    async def show(self, *items: RenderableType) -> None:
        from prompt_toolkit.application import run_in_terminal

        def draw() -> None:
            for item in items:
                self.console.print(item, highlight=False)

        await run_in_terminal(draw)

    def interrupt(self) -> None:
        app = self.session.app
        if app.is_running and not app.future.done():
            app.exit(result=None)


class _LineTerminal:
    """Plain lines from standard input (a pipe, a file): a daemon thread reads them, so that a
    blocked read never keeps the process alive; a line read from a pipe or file is echoed after
    the prompt, so that the output reads as a transcript."""

    _INTERRUPT = object()

    def __init__(self, console: Console) -> None:
        self.console = console
        self._lines: asyncio.Queue[object] = asyncio.Queue()
        self._thread: threading.Thread | None = None
        self._echo = not sys.stdin.isatty()  # a terminal echoes what is typed by itself

    def _pump(self, loop: asyncio.AbstractEventLoop) -> None:
        def put(item: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody reads any more
                loop.call_soon_threadsafe(self._lines.put_nowait, item)

        for line in sys.stdin:
            put(line.rstrip("\r\n"))
        put(None)

    async def read(self, message: Callable[[], str]) -> str | None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._pump, args=(asyncio.get_running_loop(),), name="arena-play-stdin", daemon=True
            )
            self._thread.start()
        self.console.print(message(), end="", markup=False, highlight=False)
        self.console.file.flush()
        item = await self._lines.get()
        if item is self._INTERRUPT:
            self.console.print()
            return None
        if item is None:
            self.console.print()
            raise EOFError
        assert isinstance(item, str)
        if self._echo:
            self.console.print(item, markup=False, highlight=False)
        return item

    async def show(self, *items: RenderableType) -> None:
        for item in items:
            self.console.print(item, highlight=False)

    def interrupt(self) -> None:
        self._lines.put_nowait(self._INTERRUPT)


# ------------------------------------------------------------------------------- a session


class _CtrlC(Exception):
    """Ctrl-C at the prompt (raw mode: a key, not a signal)."""


class _Leave(Exception):
    """The person left (quit, end of input): the race goes on."""


class _Play:
    """One person's session in race ``code``: the state the server told us, the events task,
    and the prompt loop."""

    def __init__(
        self, client: ArenaClient, code: str, console: Console, server: str, *, tty: bool, collect: bool = True
    ) -> None:
        self.client = client
        self.collect = collect  # auto-collect: the server plays the safe moves after each of ours
        self.code = code
        self.console = console
        self.server = server
        self.info: RaceInfo | None = None
        self.board: Board | None = None
        self.standings: list[Standing] = []
        self.finished: RaceFinished | None = None
        self.listed: list[str] = []  # the last '?' listing, for 'N'
        self.started = asyncio.Event()
        self.done = asyncio.Event()  # the race finished
        self.fatal: BaseException | None = None
        self._clock: tuple[int, float] | None = None  # (race ms, time.monotonic() then)
        self._limit_ms: int | None = None
        self._shown: dict[str, tuple[int, str]] = {}  # opponents' (cleared, status) last printed
        self._changed = asyncio.Event()
        self._said_over = False
        self._said_decided = False
        self._countdown: asyncio.Task[None] | None = None
        self._generation = 0  # connections opened so far, for one reconnect per loss
        self._reconnecting = asyncio.Lock()
        if tty:
            self.term: _Terminal = _PromptTerminal(
                console, lambda: self.board.legal if self.board else (), self.toolbar
            )
        else:
            self.term = _LineTerminal(console)

    # ----------------------------------------------------------------------- the state

    def elapsed_s(self) -> float:
        """The race clock now, in seconds (0 before the start), from the latest server time we
        heard and the local time since."""
        if self._clock is None:
            return 0.0
        ms, then = self._clock
        elapsed = ms / 1000 + (time.monotonic() - then if not self.done.is_set() else 0)
        return min(elapsed, self._limit_ms / 1000) if self._limit_ms else elapsed

    def _tick(self, ms: int) -> None:
        self._clock = (ms, time.monotonic())

    def me(self) -> Standing | None:
        return next((s for s in self.standings if s.player == self.client.player), None)

    def toolbar(self) -> str:
        limit = self._limit_ms / 1000 if self._limit_ms else None
        return standings_line(self.standings, self.client.player, self.elapsed_s(), limit_s=limit)

    def prompt(self) -> str:
        mine = self.me()
        score = f"{mine.cleared}/{mine.total}" if mine else ""
        return f"[{int(self.elapsed_s())} s {score}] {self.client.name}> "

    def resume_hint(self) -> str:
        """The command that resumes this session (the token is this player's secret)."""
        return f"arena play {self.code} --token={self.client.token} --server {self.server}"

    # ---------------------------------------------------------------------- the events

    async def follow(self) -> None:
        """Read race events until the client closes, reconnecting when the connection drops;
        a failure that cannot be recovered ends the session (``fatal``)."""
        try:
            while True:
                generation = self._generation
                try:
                    async with contextlib.aclosing(self.client.events()) as events:
                        async for event in events:
                            await self.on_event(event)
                    return
                except ArenaConnectionError:
                    await self.reconnect(generation)
        except Exception as exc:  # noqa: BLE001 - handed to the prompt loop, which raises it
            self.fatal = exc
            self.done.set()
            self.term.interrupt()

    async def on_event(self, event: object) -> None:
        """Apply one event of our race to the state and print what a person should see."""
        if isinstance(event, Snapshot):
            if event.race.code == self.code:
                self.info, self.standings = event.race, event.standings
                self._limit_ms = event.race.time_limit_s * 1000
                if event.board is not None:
                    self.board = event.board
                if event.race.status in ("running", "finished"):
                    self._tick(event.elapsed_ms)
                    self.started.set()
                if event.race.status == "finished" and not self.done.is_set():
                    self.done.set()
                    self.term.interrupt()
            return
        if getattr(event, "race", None) != self.code:
            return
        if isinstance(event, EntrantJoined):
            if not self.started.is_set() and event.player != self.client.player:
                await self.term.show(Text(f"{event.name} joined the race."))
        elif isinstance(event, RaceStarting):
            self._countdown = asyncio.create_task(self.count_down(event.countdown_ms))
            when = f"in {math.ceil(event.countdown_ms / 1000)} s" if event.countdown_ms >= 1000 else "now"
            await self.term.show(Text(f"The race starts {when}; commitment to the deal: {event.commitment}"))
        elif isinstance(event, RaceStarted):
            if self._countdown is not None:
                self._countdown.cancel()
            self.board = event.board
            self._limit_ms = event.time_limit_ms
            self._tick(0)
            self.started.set()
        elif isinstance(event, Progress):
            self.standings = event.standings
            self._tick(event.elapsed_ms)
            for s in event.standings:
                if s.player != self.client.player and self._shown.get(s.player) != (s.cleared, s.status):
                    self._changed.set()
            mine = self.me()
            if mine is not None and mine.status == "out_of_time" and not self._said_over:
                await self.say_over(mine)
        elif isinstance(event, RaceFinished):
            self.finished = event
            self.standings = event.standings
            self.done.set()
            self.term.interrupt()

    async def count_down(self, countdown_ms: int) -> None:
        """Print the whole seconds left before the start as they pass (the start cancels it)."""
        end = time.monotonic() + countdown_ms / 1000
        while (next_second := math.ceil(end - time.monotonic()) - 1) > 0:
            await asyncio.sleep(end - time.monotonic() - next_second)
            await self.term.show(Text(f"{next_second}...", style="bold"))

    async def announce(self) -> None:
        """Print the opponents' standings when someone's cards cleared or status changed, at
        most once every `_ANNOUNCE_EVERY_S` seconds (the toolbar shows every move live)."""
        while True:
            await self._changed.wait()
            self._changed.clear()
            others = [s for s in self.standings if s.player != self.client.player]
            self._shown = {s.player: (s.cleared, s.status) for s in others}
            if others:
                await self.term.show(
                    Text(
                        standings_line(self.standings, self.client.player, self.elapsed_s(), others_only=True),
                        style="cyan",
                    )
                )
            await asyncio.sleep(_ANNOUNCE_EVERY_S)

    async def reconnect(self, generation: int) -> None:
        """Open a new connection as the same player, unless another task already did since
        ``generation``; up to `_RECONNECT_ATTEMPTS` tries. Raises `ArenaConnectionError`."""
        async with self._reconnecting:
            if self._generation != generation:
                return
            await self.term.show(Text("The connection was lost; reconnecting...", style="yellow"))
            pause = _RECONNECT_PAUSE_S
            for attempt in range(_RECONNECT_ATTEMPTS):
                try:
                    await self.client.reconnect()  # its snapshots come through the events
                    break
                except ArenaConnectionError:
                    if attempt == _RECONNECT_ATTEMPTS - 1:
                        raise
                    await asyncio.sleep(pause)
                    pause *= 2
            self._generation += 1
            await self.term.show(Text("Reconnected.", style="green"))

    # ------------------------------------------------------------------------ the prompt

    async def read(self, message: Callable[[], str] | None = None) -> str | None:
        """One line from the person, or None once the race has finished."""
        if self.done.is_set():
            return None
        reading = asyncio.ensure_future(self.term.read(message or self.prompt))
        ended = asyncio.ensure_future(self.done.wait())
        try:
            await asyncio.wait((reading, ended), return_when=asyncio.FIRST_COMPLETED)
        finally:
            ended.cancel()
        if not reading.done():
            self.term.interrupt()
            try:
                async with asyncio.timeout(2):
                    await asyncio.shield(reading)
            except TimeoutError:
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reading
            return None
        return reading.result()

    async def play(self) -> None:
        """The prompt loop, from the start to the race's end. Raises `_Leave` when the person
        leaves and `_CtrlC` on Ctrl-C at the prompt."""
        if self.board is not None:
            await self.term.show(board_view(self.board, title=self.title()))
        mine = self.me()
        if mine is not None and mine.status in _DONE:
            await self.say_over(mine)
        while True:
            try:
                line = await self.read()
            except EOFError:
                raise _Leave from None
            if line is None:
                return
            command = parse_command(line, self.listed)
            if command.kind == "empty":
                continue
            if command.kind == "bad":
                await self.term.show(Text(command.move, style="yellow"))
            elif command.kind == "help":
                await self.term.show(Text(HELP))
            elif command.kind == "legal":
                self.listed = list(self.board.legal) if self.board else []
                await self.term.show(legal_view(self.listed))
            elif command.kind == "board":
                if self.board is not None:
                    await self.term.show(board_view(self.board, title=self.title()))
            elif command.kind == "standings":
                await self.term.show(self.standings_table())
            elif command.kind == "quit":
                raise _Leave
            elif command.kind == "resign":
                await self.resign()
            else:
                await self.move(command.move)

    def title(self) -> str:
        game = self.board.game if self.board else (self.info.game if self.info else "")
        return f"{game} race {self.code}"

    def standings_table(self) -> RenderableType:
        return standings_table(self.standings, title=f"Race {self.code} at {int(self.elapsed_s())} s")

    async def move(self, notation: str) -> None:
        """Send one move; draw the new board, or print the refusal in one line."""
        generation = self._generation
        try:
            result = await self.client.move(self.code, notation, collect=self.collect)
        except ArenaConnectionError as exc:
            await self.reconnect(generation)
            if exc.seq is None or exc.race != self.code:
                await self.term.show(
                    Text(f"{notation}: not sent (the connection was lost); type it again", style="yellow")
                )
                return
            result = await self.client.move_result(self.code, exc.seq)
        except ArenaTimeout as exc:
            await self.term.show(
                Text(f"{notation}: {exc.reason}; look at the board before you type it again", style="yellow")
            )
            return
        if not result.ok:
            await self.term.show(
                Text.assemble(
                    ("refused ", "bold red"),
                    f"{result.move or notation}: ",
                    result.reason,
                    (f" [{result.code}]", "red"),
                )
            )
            return
        self.listed = []
        played = [result.move, *result.then] if notation in ("collect", "finish") else result.then
        if played:
            await self.term.show(Text(f"played for you: {', '.join(played)}", style="cyan"))
        board = result.board
        if board is not None:
            self.board = board
            self._tick(result.elapsed_ms)
            await self.term.show(board_view(board, title=self.title()))
            if board.won or (board.over and not board.undo):
                await self.say_over(self.me(), "won" if board.won else "stuck")
            elif board.over:
                await self.term.show(Text("No legal move left: u takes back your last move, or resign.", style="bold"))
            elif board.decided and not self._said_decided:
                self._said_decided = True
                await self.term.show(
                    Text("Every card is face up and the win is certain: finish plays it.", style="bold")
                )

    async def say_over(self, mine: Standing | None, status: str | None = None) -> None:
        """Print, once, that our game is over while the race goes on."""
        if self._said_over or self.done.is_set():
            return
        self._said_over = True
        status = status or (mine.status if mine else "done")
        text = {
            "won": "You won!",
            "stuck": "No legal move left: your game is over.",
            "resigned": "You resigned.",
            "out_of_time": "You made no move for too long: out of time.",
        }
        await self.term.show(
            Text(
                f"{text.get(status, 'Your game is over.')} The race goes on until the others "
                "finish; quit leaves (your result stands).",
                style="bold",
            )
        )

    async def resign(self) -> None:
        """Ask to confirm, then resign."""
        try:
            answer = await self.read(lambda: f"Resign race {self.code}? Your cards cleared stand. [y/N] ")
        except EOFError:
            raise _Leave from None
        if answer is None:
            return
        if answer.strip().lower() not in ("y", "yes"):
            await self.term.show(Text("Not resigned."))
            return
        try:
            await self.client.resign(self.code)
        except ArenaError as exc:
            await self.term.show(
                Text.assemble(("refused ", "bold red"), "resign: ", exc.reason, (f" [{exc.code}]", "red"))
            )
            return
        await self.say_over(None, "resigned")


# ------------------------------------------------------------------------------ the command


async def run_play(args: argparse.Namespace, console: Console) -> int:
    """``arena play``: join (or resume) race ``args.code`` and play it at the prompt; see the
    module docstring. Returns the exit code; raises `ArenaError` for a refused join (the caller
    prints it and exits 2)."""
    code = args.code.upper()
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    async with await connect_person(args.server, args.name, token=args.token) as client:
        session = _Play(client, code, console, args.server, tty=tty, collect=args.collect)
        try:
            return await _session(session, args)
        except (_CtrlC, KeyboardInterrupt, asyncio.CancelledError) as exc:
            console.print(
                f"\nInterrupted; the race goes on. Resume with: {session.resume_hint()}",
                highlight=False,
                soft_wrap=True,
            )
            if isinstance(exc, asyncio.CancelledError):
                raise  # asyncio.run turns the cancellation of Ctrl-C into KeyboardInterrupt: 130
            return 130
        except ArenaConnectionError:
            console.print(f"Resume with: {session.resume_hint()}", highlight=False, soft_wrap=True)
            raise


async def _session(session: _Play, args: argparse.Namespace) -> int:
    client, code, console = session.client, session.code, session.console
    try:
        info = await client.join_race(code)
        console.print(
            f"{escape(client.name)} joined race [bold]{code}[/] ({info.game}, "
            f"seed {'secret' if info.seed is None else info.seed})."
        )
    except ArenaError as exc:
        if exc.code != "already_joined":
            raise
        console.print(f"{escape(client.name)} is in race [bold]{code}[/] already.")
    console.print(f"To come back after leaving: {session.resume_hint()}", highlight=False, soft_wrap=True)
    snapshot = await client.sync(code, client.last_version.get(code, 0))
    await session.on_event(snapshot)
    for event in client.pending_events():  # what came before the snapshot is in it already
        if getattr(event, "version", 0) > snapshot.race.version:
            await session.on_event(event)
    if snapshot.race.status == "starting":
        console.print(f"The race is starting; commitment to the deal: {snapshot.race.commitment}", highlight=False)
    following = asyncio.create_task(session.follow(), name="arena-play-events")
    announcing: asyncio.Task[None] | None = None
    try:
        if not session.started.is_set() and not session.done.is_set():
            entrants = ", ".join(snapshot.race.entrants)
            console.print(
                f"Waiting for the start ({len(snapshot.race.entrants)} in: {escape(entrants)}); Ctrl-C leaves.",
                highlight=False,
            )
            waits = [asyncio.ensure_future(session.started.wait()), asyncio.ensure_future(session.done.wait())]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for wait in waits:
                    wait.cancel()
        if session.fatal is not None:
            raise session.fatal
        if not session.done.is_set():
            console.print(Text("Go! Type ? for the legal moves, help for the commands.", style="bold green"))
            announcing = asyncio.create_task(session.announce(), name="arena-play-standings")
            try:
                await session.play()
            except _Leave:
                console.print(
                    f"You left race {code}; it goes on without you. Resume with: {session.resume_hint()}",
                    highlight=False,
                    soft_wrap=True,
                )
                return 0
        if session.fatal is not None:
            raise session.fatal
    finally:
        for task in (following, announcing, session._countdown):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
    return await _the_end(session, args)


async def _the_end(session: _Play, args: argparse.Namespace) -> int:
    """Print the final standings, the seed and the commitment to check; with ``--double``, play
    Double or Naught when offered."""
    client, code, console = session.client, session.code, session.console
    finished = session.finished
    if finished is not None:
        caption = (
            f"{finished.reason.replace('_', ' ')}; seed {finished.seed if finished.seed is not None else 'secret'}"
        )
    elif session.info is not None and session.info.seed is not None:
        caption = f"seed {session.info.seed}"
    else:
        caption = f"race {code} is over"
    console.print(standings_table(session.standings, title=f"Race {code}: final standings", caption=caption))
    commitment = client.commitments.get(code)
    if commitment:
        console.print(
            f"Commitment published at the start: {commitment}\n"
            f"Check the deal against it: arena verify {code} --commitment {commitment} "
            f"--server {session.server}",
            highlight=False,
            soft_wrap=True,
        )
    offered = finished is not None and client.player in finished.double_or_naught
    if offered and not args.double:
        mine = session.me()
        console.print(
            f"You may stake your {mine.points if mine else ''} points on Double or Naught: "
            f"arena play {code} --double --token={client.token} --server {session.server}",
            highlight=False,
            soft_wrap=True,
        )
    if args.double and (offered or finished is None):
        return await _double_or_naught(session)
    return 0


async def _double_or_naught(session: _Play) -> int:
    """Play Double or Naught rounds at the prompt: guess one of five face-down cards against the
    house's; a tie may deal again; a win may stake again."""
    client, code, term = session.client, session.code, session.term
    try:
        bonus = await client.double_or_naught(code)
    except ArenaError as exc:
        session.console.print(f"Double or Naught: {escape(exc.reason)} [{exc.code}]", highlight=False)
        return 0
    while True:
        await term.show(_bonus_view(bonus))
        if bonus.decided:
            if bonus.outcome != "win":
                return 0
            again = await _ask(term, "Stake them again? [y/N] ")
            if again not in ("y", "yes"):
                return 0
            bonus = await client.double_or_naught(code)
            continue
        line = await _ask(term, "guess r0..r4 (or deal after a tie; quit leaves)> ")
        if line in ("quit", "q", "exit", ""):
            return 0
        command = parse_command(line, bonus.board.legal)
        if command.kind != "move":
            await term.show(legal_view(bonus.board.legal))
            continue
        try:
            bonus = await client.bonus_move(code, command.move)
        except ArenaError as exc:
            await term.show(
                Text.assemble(("refused ", "bold red"), f"{command.move}: ", exc.reason, (f" [{exc.code}]", "red"))
            )


async def _ask(term: _Terminal, question: str) -> str:
    try:
        answer = await term.read(lambda: question)
    except EOFError:
        return ""
    return (answer or "").strip().lower()


def _bonus_view(bonus: Bonus) -> RenderableType:
    said = {"win": "you won: points doubled", "loss": "you lost: no points", "tie": "a tie: deal again"}
    head = Text(
        f"Double or Naught, round {bonus.round}: stake {bonus.stake}, points now {bonus.points}; "
        f"{said.get(bonus.outcome, 'guess a card')}",
        style="bold",
    )
    parts: list[RenderableType] = [head, board_view(bonus.board, title="double_or_naught")]
    if bonus.decided and bonus.seed is not None:
        parts.append(
            Text(f"The round's seed {bonus.seed} and salt {bonus.salt} (commitment {bonus.commitment})", style="dim")
        )
    return Group(*parts)
