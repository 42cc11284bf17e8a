"""The server reads its clients' frames itself once a handshake is over, and leaves every other
frame to websockets' sans-I/O protocol (`server.transport.connection.Connection`): these tests
talk to it over a raw socket, byte by byte where it matters, and check that it answers as
websockets would."""

from __future__ import annotations

import asyncio
import base64
import os
import struct

import msgspec
import pytest

from server import dispatch
from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
from server.protocol import MAX_FRAME_BYTES
from server.transport.connection import Connection
from server.transport.session import Session

#: Who reads a connection's frames: the server itself, or websockets (`reading`).
_OWN, _WEBSOCKETS = "own", "websockets"

BINARY, TEXT, CONT, CLOSE, PING, PONG = 0x2, 0x1, 0x0, 0x8, 0x9, 0xA


def frame(payload: bytes, opcode: int = BINARY, *, fin: bool = True, masked: bool = True, long: bool = False) -> bytes:
    """One client frame; ``long``: its length in 64 bits even when it is small."""
    head = bytes([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if masked else 0
    size = len(payload)
    if long:
        head += bytes([mask_bit | 127]) + struct.pack("!Q", size)
    elif size < 126:
        head += bytes([mask_bit | size])
    else:
        head += bytes([mask_bit | 126]) + struct.pack("!H", size)
    if not masked:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def request(message: msgspec.Struct) -> bytes:
    return frame(p.encode(message))


class RawClient:
    """A websocket client over a plain TCP socket: what it sends is exactly the bytes given."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, server: ArenaServer, *, after_request: bytes = b"") -> RawClient:
        host, port = server.url.removeprefix("ws://").rstrip("/").rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
            + after_request
        )
        status = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 3)
        assert status.startswith(b"HTTP/1.1 101"), status
        return cls(reader, writer)

    async def send(self, data: bytes, *, one_byte_at_a_time: bool = False) -> None:
        if not one_byte_at_a_time:
            self.writer.write(data)
            await self.writer.drain()
            return
        for i in range(len(data)):
            self.writer.write(data[i : i + 1])
            await self.writer.drain()
            await asyncio.sleep(0.001)  # each byte its own segment, so the server reads it alone

    async def receive(self) -> tuple[int, bytes]:
        """The next frame from the server: (opcode, payload)."""
        first, second = await asyncio.wait_for(self.reader.readexactly(2), 3)
        size = second & 0x7F
        if size == 126:
            (size,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif size == 127:
            (size,) = struct.unpack("!Q", await self.reader.readexactly(8))
        return first & 0x0F, await self.reader.readexactly(size)

    async def answer(self) -> msgspec.Struct:
        """The next data frame, decoded (pongs skipped)."""
        while True:
            opcode, payload = await self.receive()
            if opcode == BINARY:
                return p.decode_server(payload)
            assert opcode == PONG, opcode

    async def closed_with(self) -> int:
        """The code of the server's close frame."""
        while True:
            opcode, payload = await self.receive()
            if opcode == CLOSE:
                return struct.unpack("!H", payload[:2])[0]

    def close(self) -> None:
        self.writer.close()


def reading(server: ArenaServer) -> list[str]:
    """Who reads each open connection's frames: ``_OWN`` (the server) or ``_WEBSOCKETS``."""
    return [_OWN if session.conn._rx is not None else _WEBSOCKETS for session in server.sessions]


@pytest.fixture
async def client(server):
    client = await RawClient.open(server)
    await client.send(request(p.Hello(name="raw")))
    assert isinstance(await client.answer(), p.Welcome)
    yield client
    client.close()


async def test_the_connection_is_open_until_the_closing_handshake_begins(server, client):
    """What the writes and the reader ask before each frame (`Connection.open`) follows
    websockets' state: no frame is written once a close frame has come."""
    conn = next(iter(server.sessions)).conn
    assert conn.open
    await client.send(frame(struct.pack("!H", 1000), CLOSE))
    assert await client.closed_with() == 1000
    assert not conn.open


async def test_frames_in_one_segment_are_answered_in_order(server, client):
    await client.send(b"".join(request(p.ListRaces(req=n)) for n in range(1, 6)))
    assert [(await client.answer()).req for _ in range(5)] == [1, 2, 3, 4, 5]
    assert reading(server) == [_OWN]


async def test_a_frame_that_comes_a_byte_at_a_time_is_answered(server, client):
    await client.send(request(p.ListRaces(req=7)) + request(p.ListRaces(req=8)), one_byte_at_a_time=True)
    assert [(await client.answer()).req for _ in range(2)] == [7, 8]
    assert reading(server) == [_OWN]


async def test_a_frame_with_a_16_bit_length_is_read(server, client):
    name = "n" * 200  # too long a name: the answer names the field, so the frame was read whole
    await client.send(request(p.Hello(name=name)), one_byte_at_a_time=False)
    answer = await client.answer()
    assert isinstance(answer, p.Error) and answer.code == "bad_field"
    assert reading(server) == [_OWN]


async def test_a_fragmented_message_is_put_together_and_frames_after_it_are_read_as_before(server, client):
    payload = p.encode(p.ListRaces(req=11))
    fragments = frame(payload[:3], fin=False) + frame(payload[3:7], CONT, fin=False) + frame(payload[7:], CONT)
    await client.send(fragments + request(p.ListRaces(req=12)))
    assert [(await client.answer()).req for _ in range(2)] == [11, 12]
    assert reading(server) == [_OWN]


async def test_a_ping_gets_its_pong_between_requests(server, client):
    await client.send(request(p.ListRaces(req=1)) + frame(b"are you there", PING) + request(p.ListRaces(req=2)))
    seen = [await client.receive() for _ in range(3)]  # (websockets writes its pong at once)
    assert [payload for opcode, payload in seen if opcode == PONG] == [b"are you there"]
    assert [p.decode_server(payload).req for opcode, payload in seen if opcode == BINARY] == [1, 2]


async def test_a_text_frame_is_refused_with_its_code(server, client):
    await client.send(frame(b'{"type": "list_races"}', TEXT))
    answer = await client.answer()
    assert isinstance(answer, p.Error) and answer.code == "text_frame"
    await client.send(request(p.ListRaces(req=3)))
    assert (await client.answer()).req == 3


@pytest.mark.parametrize(
    "bad, code",
    [
        (frame(p.encode(p.ListRaces(req=1)), masked=False), 1002),  # a client must mask its frames
        (frame(b"\x80" * (MAX_FRAME_BYTES + 1)), 1009),
        (frame(p.encode(p.ListRaces(req=1)), long=True), None),  # legal, if odd: websockets reads it
        (bytes([0xC2]) + frame(b"")[1:], 1002),  # a reserved bit set, with no extension to own it
        (frame(b"p" * 126, PONG), 1002),  # a control frame over 125 bytes (not read as the keepalive's pong)
    ],
    ids=["unmasked", "oversized", "64-bit-length", "reserved-bit", "long-pong"],
)  # (the masks are random: named, not shown)
async def test_what_the_server_does_not_read_itself_websockets_reads(server, client, bad, code):
    """An unmasked, oversized, 64-bit-length or reserved-bit frame goes to websockets, which
    closes the connection with its code where the frame breaks the protocol; the server stays
    up for everyone else."""
    await client.send(bad + request(p.ListRaces(req=2)))
    if code is None:
        assert (await client.answer()).req == 1
        assert (await client.answer()).req == 2
    else:
        assert await client.closed_with() == code
    other = await RawClient.open(server)
    await other.send(request(p.Hello(name="other")))
    assert isinstance(await other.answer(), p.Welcome)
    other.close()


async def test_frames_sent_with_the_handshake_are_read_by_the_server_itself(server):
    """Frames in the same segment as the handshake's request are the client's first frames:
    the server reads them as any others (websockets gets the request alone), so that a client
    cannot leave every frame to websockets (which answers every ping) by sending one early."""
    client = await RawClient.open(server, after_request=request(p.Hello(name="eager")) + frame(b"early", PING))
    assert isinstance(await client.answer(), p.Welcome)
    await client.send(request(p.ListRaces(req=4)), one_byte_at_a_time=True)
    assert (await client.answer()).req == 4
    assert reading(server) == [_OWN]
    client.close()


async def test_a_close_frame_is_answered_with_a_close(server, client):
    await client.send(frame(struct.pack("!H", 1000) + b"bye", CLOSE))
    assert await client.closed_with() == 1000
    assert await asyncio.wait_for(client.reader.read(), 3) == b""  # and the server hangs up


# ------------------------------------------------------------- frames carried out at once


async def started_clock_race(client: RawClient) -> str:
    """A Clock race of the raw client alone, started."""
    await client.send(request(p.CreateRace(req=1, game="clock", seed=3, countdown_s=0)))
    while not isinstance(reply := await client.answer(), p.RaceReply):
        pass  # (the creator joins it: that event comes first)
    code = reply.race.code
    await client.send(request(p.StartRace(req=2, race=code)))
    while not isinstance(await client.answer(), p.RaceStarted):
        pass
    return code


async def answers_to_moves(client: RawClient, count: int) -> list[p.MoveResult]:
    results = []
    while len(results) < count:
        answer = await client.answer()
        if isinstance(answer, p.MoveResult):
            results.append(answer)
    return results


async def test_with_the_memory_store_a_move_is_carried_out_in_the_callback_that_read_it(server, client, monkeypatch):
    """No task is made for a move: it is carried out, stored and answered within the call that
    took its frame."""
    at_once = []
    take = Session.take
    monkeypatch.setattr(Session, "take", lambda self, f: (take(self, f), at_once.append(self.running is None)))
    assert server.takes_at_once
    code = await started_clock_race(client)
    at_once.clear()
    for seq in (1, 2, 3):
        await client.send(frame(p.encode(p.MoveRequest(race=code, seq=seq, move="turn"))))
        assert (await answers_to_moves(client, 1))[0].ok
    assert at_once == [True, True, True]


async def test_a_moves_answer_is_written_in_the_callback_that_read_it(server, client, monkeypatch):
    """The answer leaves as soon as the bytes read are carried out, not at the end of the loop
    turn, which on a busy server first reads and carries out every other connection's moves."""
    reading_now = []
    written = []
    data_received = Connection.data_received
    flush = Session._flush

    def read(self, data):
        reading_now.append(self)
        try:
            data_received(self, data)
        finally:
            reading_now.pop()

    def write(self):
        if self._out is not None:
            written.append(bool(reading_now))
        flush(self)

    code = await started_clock_race(client)
    monkeypatch.setattr(Connection, "data_received", read)
    monkeypatch.setattr(Session, "_flush", write)
    for seq in (1, 2, 3):
        await client.send(frame(p.encode(p.MoveRequest(race=code, seq=seq, move="turn"))))
        assert (await answers_to_moves(client, 1))[0].ok
    assert written == [True, True, True]


async def test_a_frame_that_must_wait_holds_back_the_frames_after_it(server, client, monkeypatch):
    """The first move's store write waits 100 ms: the moves sent right after it, in the same
    segment, are carried out after it, in order, and a request after them too."""
    code = await started_clock_race(client)
    append = server.store.append_move
    waited = []

    async def slow_append(race, player, entry):
        if entry.seq == 1:
            waited.append(entry.seq)
            await asyncio.sleep(0.1)
        await append(race, player, entry)

    monkeypatch.setattr(server.store, "append_move", slow_append)
    moves = [frame(p.encode(p.MoveRequest(race=code, seq=seq, move="turn"))) for seq in (1, 2, 3)]
    await client.send(b"".join(moves) + request(p.ListRaces(req=9)))
    results = await answers_to_moves(client, 3)
    assert waited == [1]
    assert [(r.seq, r.ok, r.board.moves) for r in results] == [(1, True, 1), (2, True, 2), (3, True, 3)]
    assert (await client.answer()).req == 9


@pytest.mark.parametrize("at_once", [True, False], ids=["at-once", "through-the-handler"])
async def test_a_frame_that_fails_closes_its_connection_with_1011_and_nothing_else(
    server, client, monkeypatch, at_once
):
    if not at_once:
        monkeypatch.setattr(ArenaServer, "takes_at_once", property(lambda self: False))
    receive = dispatch.receive

    async def failing(state, session, data):
        if getattr(p.decode(data), "req", None) == 13:
            raise RuntimeError("a bug")
        await receive(state, session, data)

    monkeypatch.setattr(dispatch, "receive", failing)
    await client.send(request(p.ListRaces(req=13)))
    assert await client.closed_with() == 1011
    other = await RawClient.open(server)
    await other.send(request(p.Hello(name="other")) + request(p.ListRaces(req=14)))
    assert isinstance(await other.answer(), p.Welcome)
    assert (await other.answer()).req == 14
    other.close()


# ------------------------------------------------------------------------------ keepalive


@pytest.fixture
async def pinging_server():
    """A server that pings a client quiet for 0.3 s and waits 0.3 s for its pong."""
    async with ArenaServer(ServerConfig(ping_interval_s=0.3, ping_timeout_s=0.3)) as srv:
        yield srv


@pytest.mark.slow
async def test_a_quiet_client_that_answers_its_pings_stays(pinging_server):
    """The server's one keepalive task pings a quiet connection, and the pong (read by the
    server with the client's other frames) keeps it open well past interval plus timeout."""
    client = await RawClient.open(pinging_server)
    await client.send(request(p.Hello(name="quiet")))
    assert isinstance(await client.answer(), p.Welcome)
    loop = asyncio.get_running_loop()
    start = loop.time()
    pings = []
    while loop.time() - start < 2.0:
        opcode, payload = await client.receive()
        assert opcode == PING, opcode
        pings.append(loop.time() - start)
        await client.send(frame(payload, PONG))
    assert len(pings) >= 3 and pings[0] >= 0.25  # (quiet for the interval: not before)
    await client.send(request(p.ListRaces(req=5)))
    assert (await client.answer()).req == 5
    assert pinging_server.tally.keepalive_timeouts == 0
    client.close()


@pytest.mark.parametrize("with_handshake", [False, True])
async def test_a_client_that_does_not_answer_its_ping_is_closed_with_1011(pinging_server, with_handshake):
    """Unanswered for the timeout, a ping closes the connection as websockets' keepalive would,
    whether the hello came with the handshake or after it; the server goes on."""
    eager = request(p.Hello(name="deaf")) if with_handshake else b""
    client = await RawClient.open(pinging_server, after_request=eager)
    if not eager:
        await client.send(request(p.Hello(name="deaf")))
    assert isinstance(await client.answer(), p.Welcome)
    assert reading(pinging_server) == [_OWN]
    loop = asyncio.get_running_loop()
    start = loop.time()
    opcode, _ = await client.receive()
    assert opcode == PING
    code = await client.closed_with()
    assert code == 1011 and 0.5 <= loop.time() - start <= 2.0
    assert pinging_server.tally.keepalive_timeouts == 1
    other = await RawClient.open(pinging_server)
    await other.send(request(p.Hello(name="other")))
    assert isinstance(await other.answer(), p.Welcome)
    other.close()


async def test_a_client_that_keeps_sending_is_not_pinged(pinging_server):
    """Anything a client sends shows that it is there: a client sending a request every 0.1 s
    gets no ping."""
    client = await RawClient.open(pinging_server)
    await client.send(request(p.Hello(name="busy")))
    assert isinstance(await client.answer(), p.Welcome)
    for req in range(1, 16):
        await client.send(request(p.ListRaces(req=req)))
        assert (await client.answer()).req == req  # (`answer` would fail on a ping frame)
        await asyncio.sleep(0.1)
    assert pinging_server.tally.keepalive_pings == 0
    client.close()


async def test_a_closed_connection_leaves_the_keepalive(pinging_server):
    """Once a connection is closed the keepalive holds nothing of it."""
    client = await RawClient.open(pinging_server)
    await client.send(request(p.Hello(name="gone")))
    assert isinstance(await client.answer(), p.Welcome)
    client.close()
    await asyncio.sleep(0.1)
    assert all(entry[2] is None for entry in pinging_server.keepalive._heap)
