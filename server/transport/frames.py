"""A server's websocket frames as bytes (RFC 6455, section 5.2), and a client's unmasked.

A server's frames are not masked, so the same payload makes the same bytes for every receiver:
an event fanned out to many connections is framed once (`framed`).

>>> websocket_frame(b"hi"), websocket_frame(bytes(200))[:4]
(b'\\x82\\x02hi', b'\\x82~\\x00\\xc8')
>>> unmask(unmask(b"move", b"abcd"), b"abcd")
b'move'
"""

from __future__ import annotations

import struct

__all__ = ["framed", "unmask", "websocket_frame"]


def websocket_frame(payload: bytes) -> bytes:
    """``payload`` as one unmasked, unfragmented binary websocket frame: FIN and the binary
    opcode, the payload length in 7, 7+16 or 7+64 bits, then the payload."""
    size = len(payload)
    if size < 126:
        head = bytes((0x82, size))
    elif size < 65_536:
        head = struct.pack("!BBH", 0x82, 126, size)
    else:
        head = struct.pack("!BBQ", 0x82, 127, size)
    return head + payload


#: The last few payloads framed, with their frames: a fan-out sends one payload to every
#: receiver in a row, so it is framed once. Held by identity (the payload object itself is kept,
#: so an identity match is the same bytes).
_FRAMED: list[tuple[bytes, bytes]] = []


def framed(payload: bytes) -> bytes:
    """`websocket_frame` of ``payload``, reused while the same payload object is sent on."""
    for known, frame in _FRAMED:
        if known is payload:
            return frame
    frame = websocket_frame(payload)
    _FRAMED.insert(0, (payload, frame))
    del _FRAMED[4:]
    return frame


def unmask(data: bytes, key: bytes) -> bytes:
    """A client frame's payload ``data`` unmasked with its four-byte ``key`` (section 5.3): each
    byte XORed with the key's byte at its position modulo 4, done as one integer XOR."""
    size = len(data)
    if not size:
        return b""
    mask = int.from_bytes((key * (size // 4 + 1))[:size], "big")
    return (int.from_bytes(data, "big") ^ mask).to_bytes(size, "big")
