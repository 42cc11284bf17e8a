"""One TCP connection of the server: `Connection`, an asyncio protocol driving websockets' sans-I/O
`ServerProtocol` through its public API.

websockets parses the opening handshake (the request alone: what follows it is the client's
first frames), answers it (or the server's plain HTTP answers: the web client, ``/healthz``,
``/metrics``; a request whose first bytes name a method other than GET or HEAD is answered 405
by the connection itself, since websockets' parser answers nothing to a request with a body),
and handles closes, text and fragmented messages, and anything it must refuse. The
binary frames that carry the protocol's requests (masked, unfragmented, at most
``max_frame_bytes``) the connection reads itself, as soon as its bytes arrive, and hands to its
session (`server.transport.session.Session.take`) without a queue or a task: websockets' parser
costs a move about twice what this does (docs/performance.md §3.4); pings and pongs it reads
itself too, each counted against the connection's rate (a ping over it gets no pong). Outgoing
frames bypass websockets the same way: a session writes its frames (pongs included) to the
socket itself, and whatever websockets has to send (a close) is written at once, whole frames
between whole frames.

The connection counts against the server's limits from the moment its socket is accepted (so
that sockets that never finish the handshake count too); one over a limit is reset at once,
unless the server makes room for it (`server.app.ArenaServer.admit`, `evict`).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Sequence
from typing import Any, Protocol

from websockets.datastructures import Headers
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import BytesLike

from server.config import ServerConfig
from server.transport.frames import unmask
from server.transport.keepalive import Keepalive
from server.transport.session import Session

__all__ = ["Connection", "Listener"]

log = logging.getLogger("arena.server")

#: Seconds the closing handshake may take before the socket is closed all the same.
CLOSE_TIMEOUT_S = 2.0


class Listener(Protocol):
    """The server as its connections need it (`server.app.ArenaServer`)."""

    config: ServerConfig
    keepalive: Keepalive | None
    draining: bool

    def admit(self, conn: Connection, address: str, *, check_total: bool = True) -> bool:
        """Count ``conn``'s socket under ``address``, or refuse it (False) when over a limit."""

    def release(self, conn: Connection, address: str, *, total: bool = True) -> None:
        """Stop counting ``conn``'s socket under ``address``."""

    def http(self, conn: Connection, request: Request) -> Response | None:
        """The server's own answer to ``request`` at the handshake, or None for a websocket."""

    def may_open(self, address: str) -> bool:
        """Whether ``address`` may open one more websocket now (False: over its rate)."""

    def connected(self, conn: Connection) -> Session:
        """The session of a connection whose handshake is over."""

    def lost(self, conn: Connection) -> None:
        """``conn``'s socket is gone (its handshake over or not)."""


class Connection(asyncio.Protocol):
    """A websocket connection (see the module docstring). ``client``: the address the limits
    apply to, the socket's peer or, behind a trusted proxy, the address the proxy forwarded;
    ``session``: its session once the handshake is over."""

    # Keepalive (`server.transport.keepalive.Keepalive`): when anything last came from the
    # client, by the loop's clock; the payload of the ping not answered yet, and when it left;
    # the connection's entry in the keepalive's heap. Class values until a connection has its own.
    heard_at = 0.0
    ping_payload: bytes | None = None
    pinged_at = 0.0
    keepalive_entry: list[Any] | None = None
    _head = b""  # (handshake) the request's last bytes so far, to find its end
    _started = False  # (handshake) the request's first bytes came (and their method was checked)
    _request_done = False  # (handshake) the request's end has come
    _fragmented = False  # (own reading) websockets has a fragmented message open
    _message: list[BytesLike] | None = None  # a fragmented message's parts, while it comes
    _close_timer: asyncio.TimerHandle | None = None

    def __init__(self, server: Listener) -> None:
        self.server = server
        cfg = server.config
        self.protocol = ServerProtocol(max_size=cfg.max_frame_bytes)
        self.limit = cfg.max_frame_bytes
        self.loop = asyncio.get_running_loop()
        self.transport: asyncio.Transport | None = None
        self.client = ""
        self.counted = False
        self.session: Session | None = None
        #: (own reading) the start of a frame not yet whole; None: websockets reads every frame
        self._rx: bytes | None = None
        self._paused = False
        self._behind = False  # the socket's buffer is over ``behind_bytes`` (`pause_writing`)
        self._open_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ the socket's life

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        peer = transport.get_extra_info("peername")
        self.client = str(peer[0]) if peer else ""
        self.heard_at = self.loop.time()  # (idle since it was accepted, until it says anything)
        self.counted = self.server.admit(self, self.client)
        if not self.counted:
            transport.abort()  # type: ignore[attr-defined]
            return
        cfg = self.server.config
        transport.set_write_buffer_limits(high=cfg.behind_bytes)  # type: ignore[attr-defined]
        if cfg.socket_send_bytes:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, cfg.socket_send_bytes)
        self._open_timer = self.loop.call_later(cfg.open_timeout_s, self._too_slow_to_open)

    def pause_writing(self) -> None:
        """The bytes waiting for the socket went over ``behind_bytes``: the client is behind."""
        self._behind = True

    def resume_writing(self) -> None:
        """They fell to a quarter of ``behind_bytes``: write what waited (`Session.drained`)."""
        self._behind = False
        session = self.session
        if session is not None:
            self.loop.call_soon(session.drained)

    @property
    def behind(self) -> bool:
        """True while the client reads slower than it is sent (`pause_writing`): broadcast
        states wait for it, the newest of each replacing the older (`Session.send_shared`)."""
        return self._behind

    def _too_slow_to_open(self) -> None:
        if self.transport is not None and self.protocol.state is State.CONNECTING:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        """Read the client's frames itself once its handshake is over with nothing after it;
        until then, and for good once anything unusual comes, websockets reads them."""
        self.heard_at = self.loop.time()
        rx = self._rx
        if rx is not None:
            self._read_frames(rx + data if rx else data)
        elif self.session is None and self.protocol.state is State.CONNECTING:
            self._handshake_bytes(data)
        else:
            self._feed(data)

    def eof_received(self) -> bool | None:
        if self._rx:
            self._give_up(self._rx)  # a frame cut short: websockets says so as it would
        self.protocol.receive_eof()
        self._events()
        self._flush_protocol()
        return None  # (the transport closes itself)

    def connection_lost(self, exc: Exception | None) -> None:
        protocol = self.protocol
        if protocol.state is not State.CLOSED:
            protocol.receive_eof()  # (so that its state says closed)
        for timer in (self._open_timer, self._close_timer):
            if timer is not None:
                timer.cancel()
        Keepalive.forget(self)
        if self.counted:
            self.counted = False
            self.server.release(self, self.client)
        self.server.lost(self)

    # ---------------------------------------------------------------------- the handshake

    def _handshake_bytes(self, data: bytes) -> None:
        """Before the first frame: hand the request, and only the request, to websockets (a
        handshake's request has no body: it ends with its first empty line). Whatever came after
        it in the same chunk is the client's first frames, read as any later bytes are, once
        websockets has answered the request."""
        if not self._started:
            self._started = True
            method = data.split(b" ", 1)[0] if b" " in data[:32] else b"GET"
            if method not in (b"GET", b"HEAD"):
                self._not_allowed(method)
                return
        if not self._request_done:
            head = self._head + data
            end = head.find(b"\r\n\r\n")
            if end < 0:
                self._head = head[-3:]  # the end may be split across two chunks
            else:
                self._request_done = True
                cut = end + 4 - (len(head) - len(data))  # where the request ends in ``data``
                self._head = b""
                self._feed(data[:cut])
                if cut < len(data):
                    self.data_received(data[cut:])
                return
        self._feed(data)

    def _not_allowed(self, method: bytes) -> None:
        """Answer 405 Method Not Allowed (``Allow: GET, HEAD``) to a request whose first bytes
        name another method, before websockets parses it: its parser answers nothing to a
        request with a body, as a POST usually has. The rest of its bytes are read and discarded
        until the client closes (or the opening timeout): closing at once could reset the
        connection before the client reads the answer."""
        text = f"{method.decode('ascii', 'replace')[:16]} is not allowed here: use GET or HEAD\n"
        response = self.protocol.reject(405, text)
        response.headers["Allow"] = "GET, HEAD"
        self.protocol.send_response(response)  # (and its end of stream)
        self._flush_protocol()

    def _answer(self, request: Request) -> None:
        """Answer the handshake: the server's own HTTP answer, 429 to a websocket from an address
        over its rate of new ones (`may_open`), or the websocket's (101, or websockets' refusal
        of a bad upgrade). A server shutting down still accepts websockets
        until it stops listening: they may do what it still carries out (a client reconnecting
        to fetch its record; `server.dispatch.Route.while_draining`)."""
        protocol = self.protocol
        response = self.server.http(self, request)
        if response is None and not self.server.may_open(self.client):
            text = "too many new connections from your address: try again in a moment\n"
            response = reply(self, 429, text)
            response.headers["Retry-After"] = "1"
        if response is None:
            response = protocol.accept(request)
        protocol.send_response(response)
        self._flush_protocol()
        if protocol.state is not State.OPEN:
            if self.transport is not None:
                self.transport.close()  # (after what was written)
            return
        if self._open_timer is not None:
            self._open_timer.cancel()
            self._open_timer = None
        self.session = self.server.connected(self)
        keepalive = self.server.keepalive
        if keepalive is not None:
            keepalive.watch(self, self.loop.time())
        if self._request_done:
            self._rx = b""

    # ---------------------------------------------------------------------------- frames

    def _read_frames(self, buf: bytes) -> None:
        """Take each whole binary frame of ``buf`` (masked, unfragmented, at most the largest
        frame allowed: every request of the protocol) to the session, without websockets'
        parser; answer pings and read pongs; hand websockets every other whole frame (closes,
        text or fragmented frames, control frames it must refuse) to handle; keep a partial
        frame for the next bytes. Anything websockets must refuse (an unmasked, oversized or
        64-bit-length frame) and everything after it go to websockets for good, as does
        everything once websockets has closed the connection. A ping's pong leaves with the
        session's answers, in one write.

        Every frame counts against the connection's rate (docs/security.md, "Floods"): a
        request when it is carried out (`server.dispatch`); a ping, a pong, or a fragment before
        a message's last here (`Session.count_frame`). A ping or pong over the rate is dropped
        (no pong is sent) and counts as a strike, as does a fragment over it (kept: its message
        would be broken without it); a close is never refused. Once the server is closing the
        connection (`Session.close`), only the client's close is read: everything else is
        dropped, pings unanswered.

        Then the session's answers are written at once, not at the end of the loop turn: a busy
        loop turn reads and carries out the moves of many connections, and the first mover's
        answer would wait for all of them."""
        session = self.session
        assert session is not None
        if self.protocol.state is not State.OPEN and not session.closing:
            self._give_up(buf)  # websockets closed it: it reads (and discards) the rest
            return
        size = len(buf)
        pos = 0
        limit = self.limit
        while size - pos >= 2:
            first = buf[pos]
            second = buf[pos + 1]
            length = second & 0x7F
            start = pos + 6  # the payload's, after the mask
            if length == 126:
                start = pos + 8
                if size < start:
                    break
                length = (buf[pos + 2] << 8) | buf[pos + 3]
            if not second & 0x80 or length > limit or length == 127:
                self._give_up(buf[pos:])
                return
            end = start + length
            if end > size:
                break
            if first == 0x82 and not self._fragmented:  # a request: the rate applies when it is carried out
                if not session.closing:
                    session.take(unmask(buf[start:end], buf[start - 4 : start]))
                pos = end
                continue
            if first != 0x88:  # (a close is always read)
                if session.closing:
                    pos = end  # dropped: only the client's close matters now
                    continue
                if first & 0x08:  # a ping, a pong (or a control frame websockets will refuse)
                    if not session.count_frame():
                        pos = end  # over the rate: dropped, unanswered
                        continue
                    if first == 0x8A and length <= 125:  # a pong (a longer one is for websockets to refuse)
                        Keepalive.pong(self, unmask(buf[start:end], buf[start - 4 : start]))
                        pos = end
                        continue
                    if first == 0x89 and length <= 125:  # a ping: its pong leaves with the session's next write
                        session.send_control(
                            b"\x8a" + bytes((length,)) + unmask(buf[start:end], buf[start - 4 : start])
                        )
                        pos = end
                        continue
                elif not first & 0x80:  # a fragment before its message's last (which counts as a request)
                    session.count_frame()  # (over the rate: a strike, but kept, or the message breaks)
                opcode = first & 0x0F
                if opcode and opcode < 3:  # a text or binary frame: its message may go on
                    self._fragmented = not first & 0x80
                elif not opcode and first & 0x80:  # the message's last frame
                    self._fragmented = False
            self._feed(buf[pos:end])
            if self.protocol.state is not State.OPEN:
                self._give_up(buf[end:])
                return
            pos = end
        self._rx = buf[pos:] if pos < size else b""
        if session._flush_pending:  # its answers leave now, not at the turn's end
            session._flush()

    def _give_up(self, rest: bytes) -> None:
        """From now on websockets reads every frame, starting with ``rest``."""
        self._rx = None
        if rest:
            self._feed(rest)

    def _feed(self, data: bytes) -> None:
        """Hand ``data`` to websockets, then act on what it made of it."""
        self.protocol.receive_data(data)
        self._events()
        self._flush_protocol()

    def _events(self) -> None:
        """What websockets parsed: the handshake's request, and frames. A data message (whole,
        or its fragments put together) goes to the session; a pong to the keepalive; pings and
        closes websockets answers itself."""
        for event in self.protocol.events_received():
            if not isinstance(event, Frame):
                assert isinstance(event, Request), "a server is sent requests, never responses"
                self._answer(event)
                continue
            opcode = event.opcode
            if opcode is Opcode.PONG:
                Keepalive.pong(self, event.data)
            elif opcode in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
                parts = self._message
                if opcode is not Opcode.CONT:
                    parts = self._message = [event.data]
                elif parts is not None:
                    parts.append(event.data)
                if event.fin and parts is not None and self.session is not None:
                    self._message = None
                    data = b"".join(parts)
                    text = opcode is Opcode.TEXT or (opcode is Opcode.CONT and self._text)
                    self.session.take(data.decode("utf-8", "replace") if text else data)
                if opcode is not Opcode.CONT:
                    self._text = opcode is Opcode.TEXT

    _text = False  # the message being put together is text

    def _flush_protocol(self) -> None:
        """Write what websockets has to send (its end of stream, when it is over), and, once it
        expects the connection to end, close the socket if the client has not within
        `CLOSE_TIMEOUT_S`."""
        transport = self.transport
        if transport is None:
            return
        protocol = self.protocol
        for data in protocol.data_to_send():
            if data:
                self.write(data)
            elif transport.can_write_eof():
                try:
                    transport.write_eof()
                except (RuntimeError, OSError):
                    pass
            else:
                transport.close()
        if protocol.close_expected() and self._close_timer is None:
            self._close_timer = self.loop.call_later(CLOSE_TIMEOUT_S, transport.abort)

    # -------------------------------------------------------------- what the session calls

    @property
    def open(self) -> bool:
        """True while the websocket is open (its closing handshake has not begun)."""
        return self.protocol.state is State.OPEN

    def write(self, data: bytes) -> None:
        """Write ``data`` to the socket now (nothing once it is closing)."""
        try:
            self.transport.write(data)  # type: ignore[union-attr]
        except (RuntimeError, OSError, AttributeError):  # closing, or gone: the connection is going anyway
            pass

    def buffered(self) -> int:
        """Bytes written that the socket has not taken yet (0 once it is gone)."""
        transport = self.transport
        return transport.get_write_buffer_size() if transport is not None and not transport.is_closing() else 0

    def close(self, code: int, reason: str) -> None:
        """Start the closing handshake with ``code`` and ``reason`` (nothing if it has begun)."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code, reason)
            self._flush_protocol()

    def fail(self, code: int, reason: str) -> None:
        """Close the websocket with ``code`` and ``reason`` without waiting for the client."""
        if self.protocol.state is State.OPEN:
            self.protocol.fail(code, reason)
            self._flush_protocol()

    def abort(self) -> None:
        """Cut the connection off at once."""
        if self.transport is not None:
            self.transport.abort()

    def evict(self, code: int, reason: str) -> None:
        """Give up the connection's place for a newcomer: its slot goes back at once, and it is
        closed with ``code`` and ``reason`` (what its session holds is sent first), its socket
        closed once that is written, whether the client answers or not (within
        `CLOSE_TIMEOUT_S` at most); a socket still in its handshake is cut off."""
        if self.counted:
            self.counted = False
            self.server.release(self, self.client)
        session = self.session
        if session is None or self.protocol.state is not State.OPEN:
            self.abort()
            return
        session.close(code, reason)
        if self.transport is not None:
            self.transport.close()

    def pause(self, paused: bool) -> None:
        """Stop (True) or go on (False) reading the client's bytes: while frames wait to be
        carried out, the client's socket buffers hold the rest."""
        if paused == self._paused or self.transport is None or self.transport.is_closing():
            return
        self._paused = paused
        if paused:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    @property
    def close_code(self) -> int | None:
        """The close code the connection ended with (None while open or without one)."""
        return self.protocol.close_code

    @property
    def close_reason(self) -> str | None:
        """The close reason the connection ended with."""
        return self.protocol.close_reason

    def forwarded(self, client: str) -> bool:
        """Behind a trusted proxy: count this connection against the forwarded ``client``
        address instead of the proxy's; False (and nothing changed) if that address is over its
        limit."""
        if not self.server.admit(self, client, check_total=False):
            return False
        self.server.release(self, self.client, total=False)
        self.client = client
        return True


def reply(conn: Connection, status: int, text: str, headers: Sequence[tuple[str, str]] = ()) -> Response:
    """A plain answer to a handshake's request: ``status`` with ``text`` as its body."""
    response = conn.protocol.reject(status, text)
    for name, value in headers:
        del response.headers[name]
        response.headers[name] = value
    return response


def response(status: int, reason: str, headers: dict[str, str], body: bytes) -> Response:
    """An HTTP answer with these parts (for the server's own routes)."""
    return Response(status, reason, Headers(headers), body)
