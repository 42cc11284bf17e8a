"""The server frames an event once and hands the same bytes to every receiver: the frames it
builds itself are the ones websockets would build, at every length boundary of RFC 6455."""

from __future__ import annotations

import pytest
from websockets.frames import Frame, Opcode

from server.service import framed, websocket_frame


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 65_535, 65_536, 70_000])
def test_a_frame_built_once_is_the_frame_websockets_builds(size):
    payload = bytes(range(256)) * (size // 256) + bytes(size % 256)
    assert websocket_frame(payload) == Frame(Opcode.BINARY, payload).serialize(mask=False, extensions=[])


def test_the_same_payload_object_is_framed_once_and_equal_bytes_are_never_mixed_up():
    first, second = b"\x81\xa4type", bytearray(b"\x81\xa4type")
    frame = framed(first)
    assert framed(first) is frame
    assert framed(bytes(second)) == frame and framed(bytes(second)) is not frame
    other = b"other"
    assert framed(other) == websocket_frame(other)
