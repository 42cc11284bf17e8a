"""Fixtures for server tests: a real server on 127.0.0.1, port 0, and raw websocket peers that
record every frame they receive (so a test can check each one for hidden cards)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import msgspec
import pytest
from websockets.asyncio.client import ClientConnection, connect

from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
from server.race import Clock
from tests.conftest import MS


class FastClock(Clock):
    """A server clock that runs ``speed`` times faster than the loop's: race times, countdowns,
    limits and the wall clock (which starts at the real time, or at ``start_ms``) all speed up.
    A test may change ``speed`` while it runs (time stays continuous; sleepers wake in steps of
    at most 20 real milliseconds, so they notice)."""

    def __init__(self, speed: float, start_ms: int | None = None) -> None:
        self._speed = speed
        self._base: tuple[float, float] | None = None  # (loop time, fast time) when speed last changed
        self._start_ms = start_ms
        self._origin: float | None = None

    @property
    def speed(self) -> float:
        return self._speed

    @speed.setter
    def speed(self, speed: float) -> None:
        now = self.monotonic()
        self._base = (super().monotonic(), now)
        self._speed = speed

    def monotonic(self) -> float:
        real = super().monotonic()
        if self._base is None:
            return real * self._speed
        return self._base[1] + (real - self._base[0]) * self._speed

    def wall_ms(self) -> int:
        if self._origin is None:
            self._origin = self.monotonic()
            if self._start_ms is None:
                self._start_ms = super().wall_ms()
        return int(self._start_ms + (self.monotonic() - self._origin) * 1000)

    async def sleep_until(self, deadline: float) -> None:
        while (left := deadline - self.monotonic()) > 0:
            await asyncio.sleep(min(left / self._speed, 0.02))


class Peer:
    """A raw websocket client: sends messages, keeps every decoded frame it receives in order."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[msgspec.Struct] = []
        self._unread: list[msgspec.Struct] = []
        self._arrived = asyncio.Condition()
        self._reader = asyncio.create_task(self._read())
        self.player = ""
        self.token = ""

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                msg = p.decode_server(data)
                self.frames.append(msg)
                async with self._arrived:
                    self._unread.append(msg)
                    self._arrived.notify_all()
        except Exception:  # the connection closed; the test looks at ws.close_code
            pass

    async def send(self, message: msgspec.Struct) -> None:
        await self.ws.send(p.encode(message))

    async def expect(self, kind: type, *, timeout_ms: float = 3000, **fields: object) -> msgspec.Struct:
        """The oldest unread frame of type ``kind`` whose fields match (others stay unread)."""
        return await self._take(
            lambda m: isinstance(m, kind) and all(getattr(m, k) == v for k, v in fields.items()), timeout_ms
        )

    async def _take(self, match, timeout_ms: float) -> msgspec.Struct:
        async with asyncio.timeout(timeout_ms * MS), self._arrived:
            while True:
                for i, msg in enumerate(self._unread):
                    if match(msg):
                        return self._unread.pop(i)
                await self._arrived.wait()

    async def request(self, message: msgspec.Struct, kind: type, timeout_ms: int = 3000) -> msgspec.Struct:
        """Send ``message`` and wait (``timeout_ms``) for its reply (``kind``) or an Error with the
        same req."""
        await self.send(message)
        req = getattr(message, "req", None)
        return await self._take(
            lambda m: (
                (isinstance(m, p.Error) and m.req == req) or (isinstance(m, kind) and getattr(m, "req", req) == req)
            ),
            timeout_ms,
        )

    async def hello(self, name: str, token: str | None = None) -> p.Welcome:
        welcome = await self.request(p.Hello(name=name, token=token), p.Welcome)
        assert isinstance(welcome, p.Welcome), welcome
        self.player, self.token = welcome.player, welcome.token
        return welcome

    async def move(self, race: str, seq: int, move: str) -> p.MoveResult:
        await self.send(p.MoveRequest(race=race, seq=seq, move=move))
        return await self.expect(p.MoveResult, seq=seq)

    async def close(self) -> None:
        await self.ws.close()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


@pytest.fixture
async def server() -> AsyncIterator[ArenaServer]:
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as srv:
        yield srv


@pytest.fixture
async def make_server() -> AsyncIterator[callable]:
    """``await make_server(host=..., clock=..., **config)``: a started server with those limits
    (keepalive pings off unless given), closed at the test's end."""
    made: list[ArenaServer] = []

    async def make(host: str = "127.0.0.1", clock: Clock | None = None, **fields) -> ArenaServer:
        server = ArenaServer(ServerConfig(**({"ping_interval_s": None} | fields)), clock=clock)
        await server.start(host)
        made.append(server)
        return server

    yield make
    for server in made:
        await server.close()


@pytest.fixture
async def fast_server() -> AsyncIterator[ArenaServer]:
    """A server whose clock runs 1000 times faster: a 10-second limit lasts 10 ms."""
    async with ArenaServer(ServerConfig(ping_interval_s=None), clock=FastClock(1000)) as srv:
        yield srv


@pytest.fixture
async def peers(server: ArenaServer) -> AsyncIterator[callable]:
    """``await peers(name)`` connects a new Peer to ``server`` and says hello."""
    made: list[Peer] = []

    async def make(name: str, *, hello: bool = True, url: str | None = None) -> Peer:
        peer = Peer(await connect(url or server.url, compression=None))
        made.append(peer)
        if hello:
            await peer.hello(name)
        return peer

    yield make
    for peer in made:
        await peer.close()
