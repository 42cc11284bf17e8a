"""server/protocol.py without a network: every client message round-trips; bad frames get codes."""

from __future__ import annotations

import msgspec
import pytest

from engine.core import IllegalCode
from engine.games import find_game
from server import protocol as p

CLIENT_MESSAGES = [
    p.Hello(name="ada"),
    p.Hello(name="ada", token="tok"),
    p.CreateRace(req=1, game="klondike", seed=42, options={}, max_entrants=3, countdown_s=0, time_limit_s=60),
    p.CreateRace(req=2, game="golf", options={"queen_on_king": False}, join=False),
    p.ListRaces(req=3),
    p.JoinRace(req=4, race="ABCDEF"),
    p.StartRace(req=5, race="ABCDEF"),
    p.MoveRequest(race="ABCDEF", seq=7, move="t3>t5x3"),
    p.Resign(req=6, race="ABCDEF"),
    p.Watch(req=7, race="ABCDEF"),
    p.Sync(req=8, race="ABCDEF", since=12),
    p.GetRecord(req=9, race="ABCDEF"),
]


@pytest.mark.parametrize("message", CLIENT_MESSAGES, ids=lambda m: type(m).__name__)
def test_every_client_message_round_trips(message):
    assert p.decode(p.encode(message)) == message


def test_the_type_field_names_the_message_on_the_wire():
    raw = msgspec.msgpack.decode(p.encode(p.JoinRace(req=4, race="ABCDEF")))
    assert raw == {"type": "join_race", "req": 4, "race": "ABCDEF"}


def test_a_board_goes_on_the_wire_exactly_as_the_view_shows_it():
    game = find_game("klondike")(seed=1)
    board = p.board_of(game.view())
    decoded = p.decode_server(p.encode(p.MoveResult(race="R", seq=1, move="deal", ok=True, board=board)))
    assert decoded.board.piles["s"] == ["??"] * 24
    assert decoded.board.piles["t6"][:6] == ["??"] * 6 and decoded.board.piles["t6"][6] != "??"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "bad_frame"),
        (b"\xc1", "bad_frame"),
        (msgspec.msgpack.encode("hello"), "bad_frame"),
        (msgspec.msgpack.encode({"name": "ada"}), "unknown_type"),
        (msgspec.msgpack.encode({"type": 5}), "unknown_type"),
        (msgspec.msgpack.encode({"type": "welcome", "player": "p"}), "unknown_type"),
        (msgspec.msgpack.encode({"type": "hello"}), "bad_field"),
        (msgspec.msgpack.encode({"type": "hello", "name": ""}), "bad_field"),
        (msgspec.msgpack.encode({"type": "move", "race": "R", "seq": 1, "move": "x" * 41}), "bad_field"),
        (msgspec.msgpack.encode({"type": "create_race", "req": 1, "game": "golf", "seed": -5}), "bad_seed"),
        (b"\x91" * 5000, "bad_frame"),
        ("text", "text_frame"),
    ],
)
def test_a_bad_frame_is_refused_with_its_code(data, code):
    with pytest.raises(p.ProtocolError) as caught:
        p.decode(data)
    assert caught.value.code == code and caught.value.reason


def test_a_deeply_nested_frame_is_refused_not_crashed():
    nested = b"\x91" * 100_000 + b"\xc0"
    with pytest.raises(p.ProtocolError) as caught:
        p.decode(nested)
    assert caught.value.code in ("bad_frame", "bad_field")


def test_error_codes_and_rule_codes_never_collide():
    assert not {c.value for c in p.ErrorCode} & {c.value for c in IllegalCode}
