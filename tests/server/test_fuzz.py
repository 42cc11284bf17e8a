"""Fuzzing a live server: every frame gets an error or a correct answer, the server neither fails
nor grows beyond what the frames could create, and a bystander race keeps playing throughout.

The frames come from `tooling.fuzz.fuzz_frame`, the generator `arena fuzz` uses, drawn here through
hypothesis so that a failing frame shrinks to a small one. The server runs in a background thread
on its own event loop, and the test speaks to it with websockets' synchronous client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Coroutine, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
from tests.conftest import MS
from tooling.fuzz import (
    ANSWER_TYPES,
    Figures,
    RandomSource,
    _Campaign,
    _open,
    check_answer,
    fuzz_frame,
    run_campaign,
    send_frame,
)
from tooling.server_process import ServerProcess

T = TypeVar("T")

#: Frames sent on each example's connection.
FRAMES_PER_EXAMPLE = 20
#: How long an answer may take, in seconds (scaled for slow machines).
ANSWER_S = 5000 * MS


class DrawSource:
    """The generator's source of choices over hypothesis's ``st.data()``, so that hypothesis
    can shrink a failing frame (smaller integers, earlier options)."""

    def __init__(self, data: st.DataObject) -> None:
        self._data = data

    def integer(self, lo: int, hi: int) -> int:
        return self._data.draw(st.integers(lo, hi))

    def pick(self, options: Sequence[T]) -> T:
        return self._data.draw(st.sampled_from(options))

    def data(self, size: int) -> bytes:
        return self._data.draw(st.binary(min_size=size, max_size=size))


class ThreadedServer:
    """An `ArenaServer` on its own event loop in a background thread, for synchronous clients;
    `call` runs a coroutine there and returns its result."""

    def __init__(self, config: ServerConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arena-server", daemon=True)
        self.thread.start()
        self.server: ArenaServer = self.call(self._start(config))

    @staticmethod
    async def _start(config: ServerConfig) -> ArenaServer:
        server = ArenaServer(config)
        await server.start()
        return server

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(ANSWER_S)

    def health(self) -> dict[str, object]:
        async def read() -> dict[str, object]:
            return self.server.health()

        return self.call(read())

    def close(self) -> None:
        self.call(self.server.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(ANSWER_S)
        self.loop.close()


class ErrorLog(logging.Handler):
    """Keeps the records of level ERROR and above that reach it."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def arena() -> Iterator[ThreadedServer]:
    """A server in a thread with the frame rate limit raised, so that every frame reaches the decoder."""
    server = ThreadedServer(ServerConfig(ping_interval_s=None, rate_per_s=1e6, burst=10**6))
    yield server
    server.close()


@pytest.fixture
def server_errors() -> Iterator[ErrorLog]:
    """The errors the server logs during the test."""
    handler = ErrorLog()
    logger = logging.getLogger("arena.server")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


def answer(ws: ClientConnection, frame: bytes | str) -> msgspec.Struct:
    """Send ``frame`` and read until its answer (events are skipped); raises TimeoutError."""
    ws.send(frame)
    deadline = time.monotonic() + ANSWER_S
    while True:
        message = p.decode_server(ws.recv(timeout=max(0.0, deadline - time.monotonic())))
        if isinstance(message, ANSWER_TYPES):
            return message


@contextlib.contextmanager
def player(url: str, name: str) -> Iterator[ClientConnection]:
    """A connection that has said hello (and been welcomed) as ``name``."""
    with connect(url, compression=None, max_size=None) as ws:
        welcome = answer(ws, p.encode(p.Hello(name=name)))
        assert isinstance(welcome, p.Welcome), welcome
        yield ws


class Bystander:
    """A player racing a Klondike deal on its own connection ``ws``; `play` makes its next move
    ("deal", or "redeal" once the stock is empty) and checks that it is accepted."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        reply = answer(self.ws, p.encode(p.CreateRace(req=1, game="klondike", countdown_s=0)))
        assert isinstance(reply, p.RaceReply), reply
        self.code = reply.race.code
        self.ws.send(p.encode(p.StartRace(req=2, race=self.code)))
        started = None
        while started is None:
            message = p.decode_server(self.ws.recv(timeout=ANSWER_S))
            if isinstance(message, p.RaceStarted):
                started = message
        self.stock = len(started.board.piles["s"])
        self.seq = 0

    def play(self) -> None:
        self.seq += 1
        move = "deal" if self.stock else "redeal"
        result = answer(self.ws, p.encode(p.MoveRequest(race=self.code, seq=self.seq, move=move)))
        assert isinstance(result, p.MoveResult) and result.ok, f"the bystander's {move!r} was refused: {result}"
        assert result.board is not None and result.board.moves == self.seq
        self.stock = len(result.board.piles["s"])


@pytest.mark.slow
def test_every_fuzzed_frame_gets_an_error_or_a_correct_answer(arena: ThreadedServer, server_errors: ErrorLog) -> None:
    """Random, mutated and hostile frames each get an Error with the right code and req, or the
    reply their request calls for; the connection stays open; the bystander's next move is
    accepted; afterwards closed connections are forgotten, players and races number no more than
    the frames could create, and nothing was logged as a failure."""
    with player(arena.server.url, "carl") as ws:
        bystander = Bystander(ws)
        bystander.play()
        made = _fuzz(arena.server.url, bystander)
    health = _settled(arena, sessions=0)
    assert health["sessions"] == 0, health
    assert health["players"] == made["players"], health
    assert sum(health["races"].values()) <= made["races"], (health, made)
    assert not server_errors.records, [r.getMessage() for r in server_errors.records]


def _fuzz(url: str, bystander: Bystander) -> dict[str, int]:
    """Run the property over many examples; return the players and races the frames made (the
    bystander's included)."""
    races = [bystander.code]
    made = {"players": 1, "races": 1}

    @settings(
        max_examples=120,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    @given(st.data())
    def exchange(data: st.DataObject) -> None:
        source = DrawSource(data)
        with player(url, "fuzz") as ws:
            made["players"] += 1
            for _ in range(FRAMES_PER_EXAMPLE):
                frame = fuzz_frame(source, races=races)
                note(f"frame: {frame!r}")
                try:
                    reply = answer(ws, frame)
                except ConnectionClosed as exc:
                    pytest.fail(f"the server closed the connection ({exc}) after frame {_hex(frame)}")
                problem = check_answer(frame, reply)
                assert problem is None, f"{problem}: frame {_hex(frame)}"
                if isinstance(reply, p.RaceReply):
                    races.append(reply.race.code)
                    made["races"] += isinstance(p.decode(frame), (p.CreateRace, p.PlayDaily))
        bystander.play()

    exchange()
    return made


def test_the_generator_makes_every_client_message_type_valid_and_every_frame_fits() -> None:
    """Among a few thousand frames, each client message type comes up decoding cleanly, and no
    frame is bigger than the server's limit."""
    source = RandomSource(random.Random(11))
    seen = set()
    for _ in range(4000):
        frame = fuzz_frame(source, races=["ABC234"])
        assert len(frame.encode() if isinstance(frame, str) else frame) <= p.MAX_FRAME_BYTES
        try:
            seen.add(type(p.decode(frame)))
        except p.ProtocolError:
            pass
    assert seen == set(p.ClientMessage.__args__)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("frame", "wrong"),
    [
        (p.encode(p.ListRaces(req=9)), p.Races(req=8, races=[])),
        (p.encode(p.ListRaces(req=9)), p.Welcome(player="p", name="n", token="t", protocol=1, server_time_ms=0)),
        (p.encode(p.ListRaces(req=9)), p.Error(code="bad_field", reason="no", req=9)),
        (p.encode(p.ListRaces(req=9)), p.Error(code="unknown_race", reason="no", req=None)),
        (
            p.encode(p.MoveRequest(race="ABC", seq=3, move="deal")),
            p.MoveResult(race="ABC", seq=4, move="deal", ok=False, code="seq_gap", reason="gap"),
        ),
        (p.encode(p.MoveRequest(race="ABC", seq=3, move="deal")), p.Error(code="unknown_race", reason="no")),
        (b"\xc1", p.Error(code="unknown_type", reason="no")),
        (b"\xc1", p.Error(code="bad_frame", reason="")),
        (msgspec.msgpack.encode({"type": "join_race", "req": 4}), p.Error(code="bad_field", reason="no", req=None)),
        ("text", p.Error(code="bad_frame", reason="no")),
    ],
)
def test_the_oracle_refuses_a_wrong_answer(frame: bytes | str, wrong: msgspec.Struct) -> None:
    """An answer with the wrong req, type, code, race or seq, or without a reason, is caught."""
    assert check_answer(frame, wrong) is not None


#: A create_race whose options nest 900 arrays deep.
_DEEP_FRAME = (
    b"\x84"
    + b"".join(msgspec.msgpack.encode(v) for v in ("type", "create_race", "req", 5, "game"))
    + b"\xa8klondike\xa7options"
    + b"\x91" * 900
    + b"\xc0"
)


@pytest.mark.parametrize(
    ("frame", "right"),
    [
        (p.encode(p.Sync(req=3, race="ABC", since=0)), p.SyncPage(req=3, race="ABC", until=256, version=300)),
        (
            p.encode(p.MoveRequest(race="abc234", seq=3, move="deal")),
            p.MoveResult(race="ABC234", seq=3, move="deal", ok=False, code="no_such_pile", reason="r"),
        ),
        (p.encode(p.ListRaces(req=9)), p.Error(code="rate_limited", reason="slow down", req=9)),
        (msgspec.msgpack.encode({"type": "join_race", "req": 4}), p.Error(code="bad_field", reason="no", req=4)),
        ("text", p.Error(code="text_frame", reason="binary only")),
        (_DEEP_FRAME, p.Error(code="bad_frame", reason="too deep")),
        (_DEEP_FRAME, p.Error(code="bad_field", reason="options", req=5)),
    ],
)
def test_the_oracle_accepts_a_right_answer(frame: bytes | str, right: msgspec.Struct) -> None:
    """The reply a request calls for, a refusal with the frame's own code and req (a frame nested
    past the recursion limit may get bad_frame without its req), and rate_limited are right."""
    assert check_answer(frame, right) is None


async def test_a_short_campaign_against_its_own_server_process_finds_nothing_wrong() -> None:
    """`run_campaign` starts a server process, fuzzes it (oversize frames included) while the
    bystander plays, and reports every frame answered or expectedly closed, and no failure."""
    figures = await run_campaign(frames=400, connections=4, seed=3, oversize_share=0.02)
    assert figures.frames == 400
    assert sum(figures.answers.values()) + sum(figures.expected_closes.values()) == 400
    assert figures.failures == [] and figures.ok
    assert figures.server_alive and figures.crashes == figures.tracebacks == 0
    assert figures.bystander_played >= 2 and figures.bystander_refused == 0
    assert figures.health_end is not None and figures.health_end["sessions"] == 0
    assert figures.rss_start_kib and figures.rss_peak_kib >= figures.rss_start_kib


def _settled(arena: ThreadedServer, *, sessions: int) -> dict[str, object]:
    """The server's health once its sessions number ``sessions`` (or after the answer time)."""
    deadline = time.monotonic() + ANSWER_S
    while (health := arena.health())["sessions"] != sessions and time.monotonic() < deadline:
        time.sleep(10 * MS)
    return health


def _hex(frame: bytes | str) -> str:
    return (frame.encode() if isinstance(frame, str) else frame).hex()


# ------------------------------------------------ what a campaign leaves behind, and held requests


def _marked(mark: str) -> list[int]:
    """The processes (other than this one) whose environment holds ``ARENA_TEST_MARK=mark``:
    every process a test started after setting it, its children's children included, wherever
    they were reparented."""
    needle = f"ARENA_TEST_MARK={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:  # gone meanwhile, or not ours
            continue
    return found


async def _gone(mark: str, timeout_s: float = 5.0) -> list[int]:
    """The marked processes still there after ``timeout_s`` (a killed process may take a moment
    to leave /proc)."""
    deadline = time.monotonic() + timeout_s
    while (left := _marked(mark)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return left


async def test_a_campaign_leaves_no_process_it_started(monkeypatch: pytest.MonkeyPatch) -> None:
    mark = uuid.uuid4().hex
    monkeypatch.setenv("ARENA_TEST_MARK", mark)
    monkeypatch.setenv("ARENA_PAR_WORKERS", "1")  # as `arena fuzz` runs it
    figures = await run_campaign(frames=150, connections=2, seed=5)
    assert figures.frames == 150 and figures.server_alive
    assert await _gone(mark) == []


@pytest.mark.slow
async def test_a_winnable_request_the_server_holds_is_not_counted_unanswered() -> None:
    """A create_race asking for a winnable deal waits for the solver (in a par worker) far longer
    than the answer timeout given here: it is answered within the hold, and counted as answered."""
    limits = {"par_workers": 1, "winnable_wait_s": 2, "winnable_seconds": 0.5}
    async with ServerProcess(limits) as server:
        figures = Figures()
        campaign = _Campaign(figures, server.url, 1, 0.0, p.MAX_FRAME_BYTES, answer_timeout_s=0.01, hold_s=4.0)
        ws = await _open(server.url, "held", 5.0)
        try:
            frame = p.encode(p.CreateRace(req=7, game="klondike", winnable=True))
            assert await send_frame(campaign, ws, "valid create_race", frame, False)
        finally:
            await ws.close()
    assert figures.unanswered == 0 and figures.failures == []
    assert sum(figures.answers.values()) == 1


@pytest.mark.slow
async def test_stopping_the_server_ends_its_busy_par_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server is stopped while its par worker searches for a winnable deal (budgets far
    beyond the stop's patience, so that the server is killed): no process it started remains."""
    mark = uuid.uuid4().hex
    monkeypatch.setenv("ARENA_TEST_MARK", mark)
    limits = {"par_workers": 1, "winnable_wait_s": 60, "winnable_seconds": 60, "winnable_nodes": 10**9}
    async with ServerProcess(limits) as server:
        ws = await _open(server.url, "busy", 5.0)
        await ws.send(p.encode(p.CreateRace(req=7, game="klondike", winnable=True)))
        deadline = time.monotonic() + 20
        while len(_marked(mark)) < 2 and time.monotonic() < deadline:  # the worker is spawned
            await asyncio.sleep(0.05)
        assert len(_marked(mark)) >= 2, "the server and its par worker"
        pid = server.pid
    assert await _gone(mark) == [], f"left behind by server {pid}"
