"""``arena play``, used as a person uses it: in a pseudo-terminal, typing at the prompt.

Each test runs a real server in this process (so the frame audit checks every frame it sends)
and ``python -m client.cli play`` as a child process on a pseudo-terminal (pexpect). A reader
thread collects what the child prints, strips the terminal's escape sequences, and answers
prompt_toolkit's cursor position requests as a terminal would (without an answer it could not
draw its bottom toolbar). Every wait is for text to appear, with a generous time limit; none is
a sleep. The deal is golf seed 27 from the public catalog (seeds/golf.txt), whose winning line
is typed move by move.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pexpect
import pytest

from client.connection import ArenaClient
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from tests.conftest import MS

ROOT = Path(__file__).resolve().parents[2]
GAME, SEED = "golf", 27
#: Seconds to wait for a piece of text; generous for a busy two-core machine.
WAIT_S = 20_000 * MS
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]|\r")
_CPR_REQUEST = "\x1b[6n"


def solution() -> list[str]:
    entry = next(e for e in load_catalog(public_catalogs(), GAME) if e.seed == SEED)
    return list(entry.moves)


class Tty:
    """``arena ARGS...`` on a pseudo-terminal 40 rows by 120 columns."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, TERM="xterm-256color", COLUMNS="120", LINES="40")
        env.pop("NO_COLOR", None)
        # Ctrl-C as a person's terminal delivers it: a test run started in the background (`cmd &`)
        # ignores SIGINT, and a child would inherit that and never see the key
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "client.cli", *args],
            cwd=str(ROOT),
            env=env,
            dimensions=(40, 120),
            encoding="utf-8",
            codec_errors="replace",
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self.text = ""  # everything printed so far, escape sequences removed
        self.pos = 0  # where the next `expect` starts looking
        self.ended = False
        self._pending = ""
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = self.child.read_nonblocking(65536, timeout=0.2)
            except pexpect.TIMEOUT:
                continue
            except (pexpect.EOF, OSError):
                break
            pending = self._pending + chunk
            for _ in range(pending.count(_CPR_REQUEST)):
                self.child.send("\x1b[1;1R")  # the cursor is at row 1, column 1
            cut = pending.rfind("\x1b")
            if cut >= 0 and len(pending) - cut < 64 and not _ESCAPES.match(pending, cut):
                pending, self._pending = pending[:cut], pending[cut:]  # an escape sequence split in two
            else:
                self._pending = ""
            with self._changed:
                self.text += _ESCAPES.sub("", pending.replace(_CPR_REQUEST, ""))
                self._changed.notify_all()
        with self._changed:
            self.text += _ESCAPES.sub("", self._pending)
            self.ended = True
            self._changed.notify_all()

    def expect(self, pattern: str, timeout: float = WAIT_S) -> re.Match[str]:
        """Wait until ``pattern`` (a regular expression) appears after the last match; return
        the match. Fails the test with what the terminal shows if it does not come in time."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not (found := re.compile(pattern).search(self.text, self.pos)):
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    pytest.fail(
                        f"{pattern!r} did not appear in the terminal; it shows, since the last "
                        f"match:\n{self.text[self.pos :][-3000:]}",
                        pytrace=False,
                    )
                self._changed.wait(min(left, 0.5))
            self.pos = found.end()
            return found

    async def expect_async(self, pattern: str, timeout: float = WAIT_S) -> re.Match[str]:
        """`expect` without blocking the event loop (the server runs in it)."""
        return await asyncio.to_thread(self.expect, pattern, timeout)

    def type(self, line: str) -> None:
        """Type ``line`` and press Enter."""
        self.child.send(line + "\r")

    async def exit_code(self, timeout: float = WAIT_S) -> int:
        """Wait for the child to end; its exit status."""

        def wait() -> int:
            self._reader.join(timeout)
            assert not self._reader.is_alive(), f"arena play did not exit:\n{self.text[-3000:]}"
            self.child.close()
            return self.child.exitstatus if self.child.exitstatus is not None else -(self.child.signalstatus or 0)

        return await asyncio.to_thread(wait)

    def kill(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
async def server():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as running:
        yield running


def _header(moves: int) -> str:
    """The board's heading after ``moves`` moves: 'golf race CODE  N/35 cleared  M moves'."""
    return rf"golf race \w+  \d+/35 cleared  {moves} moves?\b"


@pytest.mark.slow
async def test_a_person_plays_a_catalog_deal_to_a_win(server):
    line = solution()
    async with await ArenaClient.connect(server.url, "host") as host:
        race = await host.create_race(GAME, seed=SEED, join=False, countdown_s=1)
        tty = Tty("play", race.code, "--server", server.url, "--name", "alice")
        try:
            await tty.expect_async(rf"alice joined race {race.code} \(golf, seed 27\)")
            await tty.expect_async(rf"arena play {race.code} --token=\S+")
            await tty.expect_async("Waiting for the start")
            await host.start_race(race.code)
            await tty.expect_async("The race starts in 1 s; commitment to the deal: [0-9a-f]{64}")
            await tty.expect_async(_header(0))
            await tty.expect_async(r"reserve\s+r0\s+7D 4S AS 6D 8H")  # piles by their ids, bottom card first
            await tty.expect_async(r"foundation\s+f0\s+AD\s")
            await tty.expect_async(r"stock\s+s\s+16 cards")  # the stock by its size, never its cards
            await tty.expect_async(r"2 legal moves \(\? lists them\)")

            tty.type("?")
            await tty.expect_async(r"1 r2>f0\s+2 deal")
            tty.type("r0>r1")  # no card is ever played onto a reserve pile
            refusal = await tty.expect_async(r"refused r0>r1: (.+) \[(\w+)\]\n")
            assert refusal[2] == "wrong_pile" and "\n" not in refusal[1]

            tty.type(line[0].replace(">", "-"))  # "r2-f0" is read as r2>f0
            await tty.expect_async(_header(1))
            await tty.expect_async(r"reserve\s+r0\s+7D 4S AS 6D 8H")
            await tty.expect_async(r"r2\s+3H 3S 6C 9C\s*\n")  # the 2C went to the foundation
            await tty.expect_async(r"f0\s+2C \(2\)")
            for played, move in enumerate(line[1:], start=2):
                tty.type(move)
                await tty.expect_async(_header(played))
            await tty.expect_async("Won: every card cleared")
            await tty.expect_async(r"Race \w+: final standings")
            await tty.expect_async(r"alice\s+│\s+won\s+│\s+35/35")
            await tty.expect_async(r"all done; seed 27")
            await tty.expect_async(rf"arena verify {race.code} --commitment [0-9a-f]{{64}}")
            assert await tty.exit_code() == 0
        finally:
            tty.kill()
    assert server.races[race.code].status == "finished"


async def test_an_opponents_progress_shows_while_the_person_plays_and_the_end_interrupts_the_prompt(server):
    line = solution()
    async with (
        await ArenaClient.connect(server.url, "host") as host,
        await ArenaClient.connect(server.url, "robin") as robin,
    ):
        race = await host.create_race(GAME, seed=SEED, join=False, countdown_s=0)
        await robin.join_race(race.code)
        tty = Tty("play", race.code, "--server", server.url, "--name", "alice")
        try:
            await tty.expect_async(r"Waiting for the start \(2 in: robin, alice\)")
            await host.start_race(race.code)
            await tty.expect_async(_header(0))
            await robin.wait_for(lambda: race.code in robin.started, timeout_s=WAIT_S)

            for move in line[:6]:
                result = await robin.move(race.code, move)
                assert result.ok, result
            cleared = result.board.cleared
            # a line printed above the prompt, then the bottom toolbar (race clock and standings)
            await tty.expect_async(rf"\d+ s \| 1\. robin {cleared}/35 cleared, 6 moves, playing\n")
            await tty.expect_async(r"\d+ s of 900 \| 1\. robin \d+/35 cleared, \d+ moves, playing \| 2\. alice \(you\)")

            tty.type(line[0])
            await tty.expect_async(_header(1))
            tty.type("resign")
            await tty.expect_async(r"Resign race \w+\? Your cards cleared stand\. \[y/N\]")
            tty.type("n")
            await tty.expect_async("Not resigned.")
            tty.type("resign")
            await tty.expect_async(r"\[y/N\]")
            tty.type("y")
            await tty.expect_async("You resigned. The race goes on until the others finish")
            assert not tty.ended and "final standings" not in tty.text
            await robin.resign(race.code)  # the race ends while alice's prompt waits for a line
            await tty.expect_async(r"Race \w+: final standings")
            await tty.expect_async(rf"1 │ robin\s+│ resigned │\s+{cleared}/35")
            await tty.expect_async(r"2 │ alice\s+│ resigned │\s+1/35")
            assert await tty.exit_code() == 0
        finally:
            tty.kill()


@pytest.mark.slow
async def test_ctrl_c_shows_the_token_that_resumes_the_race(server):
    async with await ArenaClient.connect(server.url, "host") as host:
        race = await host.create_race(GAME, seed=SEED, join=False, countdown_s=0)
        tty = Tty("play", race.code, "--server", server.url, "--name", "alice")
        try:
            await tty.expect_async("Waiting for the start")
            tty.child.sendintr()
            token = (
                await tty.expect_async(
                    rf"Interrupted; the race goes on\. Resume with: arena play {race.code} "
                    r"--token=(\S+)"
                )
            )[1]
            assert await tty.exit_code() == 130
        finally:
            tty.kill()
        await host.start_race(race.code)
        tty = Tty("play", race.code.lower(), "--server", server.url, f"--token={token}")
        try:
            await tty.expect_async(rf"alice is in race {race.code} already")
            await tty.expect_async(_header(0))
            tty.type(solution()[0])
            await tty.expect_async(_header(1))
            tty.child.sendintr()  # at the prompt, Ctrl-C is a key, not a signal: the same ending
            await tty.expect_async(rf"Resume with: arena play {race.code} --token={re.escape(token)}")
            assert await tty.exit_code() == 130
        finally:
            tty.kill()
        tty = Tty("play", race.code, "--server", server.url, f"--token={token}")
        try:
            await tty.expect_async(_header(1))
            tty.type("quit")
            await tty.expect_async(rf"You left race {race.code}; it goes on without you")
            assert await tty.exit_code() == 0
        finally:
            tty.kill()
    assert server.races[race.code].status == "running"


def _klondike_line() -> tuple[list[str], int, int]:
    """Klondike seed 15 of the public catalog: its winning line, the number of its moves after
    which a safe move is first possible, and after which the game is first decided."""
    from engine.games import find_game

    line = list(next(e for e in load_catalog(public_catalogs(), "klondike") if e.seed == 15).moves)
    game = find_game("klondike")(15)
    safe_at = decided_at = None
    for played in range(len(line)):
        if safe_at is None and game.safe_moves():
            safe_at = played
        if game.decided:
            decided_at = played
            break
        game.apply(line[played])
    assert safe_at is not None and decided_at is not None
    return line, safe_at, decided_at


async def _klondike_at_the_prompt(server, host: ArenaClient) -> tuple[Tty, str]:
    race = await host.create_race("klondike", seed=15, join=False, countdown_s=0)
    tty = Tty("play", race.code, "--server", server.url, "--name", "alice", "--no-collect")
    await tty.expect_async("Waiting for the start")
    await host.start_race(race.code)
    await tty.expect_async(r"klondike race \w+  0/52 cleared  0 moves")
    return tty, race.code


@pytest.mark.slow
async def test_undo_and_collect_at_the_prompt(server):
    """u is refused after a move that turned a card up and takes back one that did not; c plays
    the safe moves (the catalog line of Klondike seed 15 is typed with auto-collect off, so that
    it stays the catalog's line)."""
    from engine.games import find_game

    line, safe_at, _ = _klondike_line()
    game = find_game("klondike")(15)
    for move in line[:safe_at]:
        game.apply(move)
    collected = []
    while safe := game.safe_moves():
        game.apply(safe[0])
        collected.append(str(safe[0]))
    async with await ArenaClient.connect(server.url, "host") as host:
        tty, code = await _klondike_at_the_prompt(server, host)
        try:
            tty.type(line[0])  # turns a card up
            await tty.expect_async(r"1 move\b")
            tty.type("u")
            await tty.expect_async(r"refused undo: the last move turned a card face up[^[]*\[no_undo\]")
            for played, move in enumerate(line[1:8], start=2):
                tty.type(move)
                await tty.expect_async(rf"{played} moves\b")
            tty.type("u")  # line[7] took a waste card to the tableau: nothing turned up
            await tty.expect_async(r"9 moves\b")
            for played, move in enumerate(line[7:safe_at], start=10):
                tty.type(move)
                await tty.expect_async(rf"{played} moves\b")
            tty.type("c")
            await tty.expect_async(re.escape(f"played for you: {', '.join(collected)}"))
            tty.type("quit")
            assert await tty.exit_code() == 0
        finally:
            tty.kill()
    standing = server.races[code].standings()[0]
    assert (standing.undos, standing.moves, standing.cleared) == (1, safe_at + 2 + len(collected), game.cleared)


@pytest.mark.slow
async def test_finish_at_the_prompt(server):
    """finish plays a decided Klondike deal to the win."""
    line, _, decided_at = _klondike_line()
    async with await ArenaClient.connect(server.url, "host") as host:
        tty, code = await _klondike_at_the_prompt(server, host)
        try:
            for played, move in enumerate(line[:decided_at], start=1):
                tty.type(move)
                await tty.expect_async(rf"{played} moves?\b")
            await tty.expect_async("the win is certain: finish plays it")
            tty.type("finish")
            await tty.expect_async(r"played for you: ")
            await tty.expect_async(r"52/52 cleared")
            await tty.expect_async(r"alice\s+│\s+won\s+│\s+52/52")
            assert await tty.exit_code() == 0
        finally:
            tty.kill()
    assert server.races[code].standings()[0].status == "won"
