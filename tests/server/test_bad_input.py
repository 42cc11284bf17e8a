"""Bad input gets an error with a code and a reason; the server stays up; no other race notices."""

from __future__ import annotations

import msgspec
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidHandshake

from server import protocol as p
from server.protocol import MAX_FRAME_BYTES


@pytest.fixture
async def bystander(server, peers):
    """A Clock race in progress on another connection; ``await bystander()`` plays its next
    move and checks that it is accepted, proving the bad input cost it nothing."""
    carl = await peers("carl")
    code = (await carl.request(p.CreateRace(req=1, game="clock", countdown_s=0), p.RaceReply)).race.code
    await carl.request(p.StartRace(req=2, race=code), p.RaceReply)
    await carl.expect(p.RaceStarted)
    state = {"seq": 0}

    async def next_move() -> None:
        state["seq"] += 1
        result = await carl.move(code, state["seq"], "turn")
        assert result.ok and result.board.moves == state["seq"]

    await next_move()
    return next_move


async def refused(peer, data: bytes | str) -> p.Error:
    await peer.ws.send(data)
    return await peer.expect(p.Error)


async def test_a_frame_that_is_not_messagepack_is_refused(peers, bystander):
    """Bytes that are not MessagePack get bad_frame; the connection stays usable."""
    eve = await peers("eve")
    error = await refused(eve, b"\xc1\xff\x00garbage")
    assert error.code == "bad_frame" and error.reason
    assert isinstance(await eve.request(p.ListRaces(req=3), p.Races), p.Races)
    await bystander()


async def test_a_messagepack_value_that_is_not_a_map_is_refused(peers, bystander):
    eve = await peers("eve")
    assert (await refused(eve, msgspec.msgpack.encode([1, 2, 3]))).code == "bad_frame"
    await bystander()


async def test_a_text_frame_is_refused(peers, bystander):
    """The protocol is binary: a text frame gets text_frame."""
    eve = await peers("eve")
    assert (await refused(eve, '{"type": "hello"}')).code == "text_frame"
    await bystander()


async def test_an_unknown_message_type_is_refused(peers, bystander):
    eve = await peers("eve")
    error = await refused(eve, msgspec.msgpack.encode({"type": "teleport", "req": 1}))
    assert error.code == "unknown_type" and "teleport" in error.reason
    await bystander()


async def test_a_missing_field_is_refused(peers, bystander):
    eve = await peers("eve")
    error = await refused(eve, msgspec.msgpack.encode({"type": "join_race", "req": 4}))
    assert error.code == "bad_field" and "race" in error.reason
    await bystander()


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "move", "race": "ABC", "seq": "one", "move": "deal"},
        {"type": "move", "race": "ABC", "seq": 0, "move": "deal"},
        {"type": "create_race", "req": 1, "game": 42},
        {"type": "create_race", "req": 1, "game": "golf", "max_entrants": 1000},
        {"type": "create_race", "req": 1, "game": "golf", "options": {"queen_on_king": "yes"}},
        {"type": "hello", "name": "x" * 33},
        {"type": "list_races", "req": 1, "sneaky": True},
    ],
)
async def test_a_field_of_the_wrong_type_or_out_of_range_is_refused(peers, bystander, fields):
    eve = await peers("eve")
    assert (await refused(eve, msgspec.msgpack.encode(fields))).code == "bad_field"
    await bystander()


async def test_a_frame_over_the_size_limit_closes_that_connection_only(server, peers, bystander):
    """A frame over max_frame_bytes closes the sender with 1009; everyone else carries on."""
    eve = await peers("eve")
    await eve.ws.send(msgspec.msgpack.encode({"type": "hello", "name": "x" * (MAX_FRAME_BYTES + 10)}))
    await eve._reader
    assert eve.ws.close_code == 1009
    await bystander()
    assert isinstance(await (await peers("dan")).request(p.ListRaces(req=1), p.Races), p.Races)


async def test_a_request_before_hello_is_refused(peers, bystander):
    eve = await peers("eve", hello=False)
    error = await eve.request(p.ListRaces(req=1), p.Races)
    assert error.code == "hello_first"
    await bystander()


async def test_an_unknown_session_token_is_refused(peers):
    eve = await peers("eve", hello=False)
    error = await eve.request(p.Hello(name="eve", token="forged"), p.Welcome)
    assert error.code == "bad_token"
    assert (await eve.hello("eve")).player


async def test_a_move_in_a_race_you_are_not_in_is_refused(server, peers, bystander):
    """Moving in someone else's race gets not_entrant and changes nothing there."""
    eve = await peers("eve")
    carls_race = next(iter(server.races))
    before = server.races[carls_race].entrants[next(iter(server.races[carls_race].entrants))].game.position()
    refused = await eve.move(carls_race, 2, "turn")
    assert (refused.ok, refused.code, refused.race) == (False, "not_entrant", carls_race)
    after = server.races[carls_race].entrants[next(iter(server.races[carls_race].entrants))].game.position()
    assert before == after
    await bystander()


async def test_a_move_in_a_race_that_does_not_exist_is_refused(peers, bystander):
    eve = await peers("eve")
    refused = await eve.move("NOSUCH", 1, "turn")
    assert (refused.ok, refused.code) == (False, "unknown_race"), "a move is answered by its race and seq"
    await bystander()


async def test_a_move_before_the_start_is_refused(peers, bystander):
    eve = await peers("eve")
    code = (await eve.request(p.CreateRace(req=1, game="golf"), p.RaceReply)).race.code
    result = await eve.move(code, 1, "deal")
    assert (result.ok, result.code) == (False, "not_started") and result.reason
    await bystander()


async def test_a_move_after_the_end_is_refused(peers, bystander):
    eve = await peers("eve")
    code = (await eve.request(p.CreateRace(req=1, game="golf", countdown_s=0), p.RaceReply)).race.code
    await eve.request(p.StartRace(req=2, race=code), p.RaceReply)
    await eve.expect(p.RaceStarted)
    await eve.request(p.Resign(req=3, race=code), p.RaceReply)
    await eve.expect(p.RaceFinished)
    result = await eve.move(code, 1, "deal")
    assert (result.ok, result.code) == (False, "race_over")
    await bystander()


async def test_a_move_in_bad_notation_is_refused(peers, bystander):
    eve = await peers("eve")
    code = (await eve.request(p.CreateRace(req=1, game="golf", countdown_s=0), p.RaceReply)).race.code
    await eve.request(p.StartRace(req=2, race=code), p.RaceReply)
    await eve.expect(p.RaceStarted)
    result = await eve.move(code, 1, "fly me to the moon")
    assert (result.ok, result.code) == (False, "bad_notation")
    assert (await eve.move(code, 1, "deal")).ok, "a refused move uses up no sequence number"
    await bystander()


async def test_an_unknown_game_is_refused(peers, bystander):
    eve = await peers("eve")
    error = await eve.request(p.CreateRace(req=1, game="tetris"), p.RaceReply)
    assert error.code == "unknown_game" and "tetris" in error.reason
    await bystander()


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64 - 1, 1.5, "42"])
async def test_a_seed_out_of_range_is_refused(peers, bystander, seed):
    eve = await peers("eve")
    frame = msgspec.msgpack.encode({"type": "create_race", "req": 1, "game": "golf", "seed": seed})
    error = await refused(eve, frame)
    assert error.code == "bad_seed" and "seed" in error.reason
    await bystander()


async def test_an_unknown_rule_option_is_refused_and_creates_nothing(server, peers, bystander):
    eve = await peers("eve")
    count = len(server.races)
    error = await eve.request(p.CreateRace(req=1, game="golf", options={"jokers": True}), p.RaceReply)
    assert error.code == "bad_option" and "jokers" in error.reason
    assert len(server.races) == count
    await bystander()


async def test_flooding_gets_rate_limited_then_closed(server, peers, bystander):
    """Frames beyond the rate get rate_limited; a client that keeps going is closed with 1008."""
    eve = await peers("eve")
    frame = p.encode(p.ListRaces(req=1))
    for _ in range(server.config.burst + server.config.max_strikes + 20):
        await eve.ws.send(frame)
    await eve._reader
    assert any(isinstance(f, p.Error) and f.code == "rate_limited" for f in eve.frames)
    assert eve.ws.close_code == 1008
    await bystander()


async def test_the_server_refuses_connections_over_its_limit(server, peers, bystander):
    """Over max_connections a new socket is reset at once; the connections already open go on."""
    server.config.max_connections = server.connections
    with pytest.raises((OSError, InvalidHandshake)):
        async with connect(server.url, open_timeout=2):
            pass
    await bystander()


@pytest.mark.parametrize(
    "frame, code",
    [
        (msgspec.msgpack.encode({"type": "join_race", "req": 41}), "bad_field"),  # a field missing
        (msgspec.msgpack.encode({"type": "list_races", "req": 41, "limit": 0}), "bad_field"),
        (msgspec.msgpack.encode({"type": "teleport", "req": 41}), "unknown_type"),
        (msgspec.msgpack.encode({"type": "create_race", "req": 41, "game": "golf", "seed": -1}), "bad_seed"),
        # a map whose text is not UTF-8: undecodable, but its req can still be read
        (b"\x83\xa4type\xa5hello\xa3req\x29\xa4name\xa2\xff\xfe", "bad_frame"),
    ],
)
async def test_an_error_carries_the_req_of_the_frame_it_answers(peers, bystander, frame, code):
    """Whenever the refused frame held a readable req, the error echoes it, so that a client
    knows which request failed."""
    eve = await peers("eve")
    error = await refused(eve, frame)
    assert (error.code, error.req) == (code, 41)
    await bystander()


async def test_a_rate_limited_frame_is_answered_with_its_req(server, peers, bystander):
    eve = await peers("eve")
    for req in range(server.config.burst + 5):
        await eve.send(p.ListRaces(req=req))
    error = await eve.expect(p.Error)
    assert error.code == "rate_limited" and error.req is not None and error.req >= server.config.burst - 1
    await bystander()
