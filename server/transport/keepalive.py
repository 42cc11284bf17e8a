"""Keepalive pings for every connection from one task (`Keepalive`).

websockets would run a task and a timer per connection; one sweep over a heap of due times costs
an idle connection nothing but its entry.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import struct
from typing import Any, Protocol

from server.logs import fields
from server.metrics import Tally

__all__ = ["Keepalive", "Pinged"]

log = logging.getLogger("arena.server")


class Pinged(Protocol):
    """A connection as the keepalive sees it (`server.transport.connection.Connection`)."""

    client: str  # its address, for the log
    heard_at: float  # when anything last came from the client (the loop's clock)
    ping_payload: bytes | None  # the payload of the ping not answered yet
    pinged_at: float  # when that ping left
    keepalive_entry: list[Any] | None  # its entry in the keepalive's heap

    @property
    def open(self) -> bool:
        """True while its websocket is open."""

    def write(self, data: bytes) -> None:
        """Write ``data`` to the socket now."""

    def fail(self, code: int, reason: str) -> None:
        """Close the websocket with ``code`` and ``reason`` without waiting for anything."""


class Keepalive:
    """Keepalive pings for every connection from one task, instead of websockets' task (and
    timer) per connection: a connection the server has heard nothing from for ``interval_s``
    seconds is pinged, and one that does not answer within ``timeout_s`` seconds is closed
    (1011, "keepalive ping timeout"), as websockets would. Anything a client sends, not only
    a pong, shows it is there, so a client that plays is not pinged. ``timeout_s`` None: pings
    are sent but never waited for.

    Each connection has one entry in a heap ordered by when to look at it next (`sweep`, every
    `STEP_S` seconds at most); a closed connection's entry is emptied (`forget`) and dropped
    when it comes up. A ping is one write of a prepared frame; its pong is read with the
    client's other frames (`server.transport.connection.Connection`)."""

    #: Seconds between two sweeps, at most.
    STEP_S = 0.25

    def __init__(self, tally: Tally, interval_s: float, timeout_s: float | None) -> None:
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self.step_s = min(self.STEP_S, interval_s / 4)
        self._heap: list[list[Any]] = []  # [when, order, connection or None]
        self._order = itertools.count()
        self._payloads = itertools.count(1)
        self.tally = tally

    def watch(self, conn: Pinged, now: float) -> None:
        """Start pinging ``conn``, whose handshake is over (``now``: the loop's time)."""
        conn.heard_at = now
        self._push(now + self.interval_s, conn)

    def _push(self, when: float, conn: Pinged) -> None:
        entry = [when, next(self._order), conn]
        conn.keepalive_entry = entry
        heapq.heappush(self._heap, entry)

    @staticmethod
    def forget(conn: Pinged) -> None:
        """``conn`` is closed: its entry no longer holds it."""
        entry = conn.keepalive_entry
        if entry is not None:
            entry[2] = None
            conn.keepalive_entry = None

    @staticmethod
    def pong(conn: Pinged, payload: bytes | bytearray | memoryview) -> None:
        """``conn`` answered a ping with ``payload`` (any other pong is ignored)."""
        if payload == conn.ping_payload:
            conn.ping_payload = None

    async def run(self) -> None:
        """Sweep until cancelled."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.step_s)
            self.sweep(loop.time())

    def sweep(self, now: float) -> None:
        """Look at every connection whose time has come (``now``: the loop's time): close
        those whose ping went unanswered for ``timeout_s``, ping those quiet for
        ``interval_s``, and put the others back for when they will be."""
        heap = self._heap
        interval = self.interval_s
        timeout = self.timeout_s
        while heap and heap[0][0] <= now:
            conn = heapq.heappop(heap)[2]
            if conn is None:
                continue
            conn.keepalive_entry = None
            if not conn.open:
                continue
            if conn.ping_payload is not None and timeout is not None:
                if now - conn.pinged_at >= timeout:
                    self.tally.keepalive_timeouts += 1
                    log.debug(
                        "closing a connection whose keepalive ping went unanswered",
                        extra=fields("keepalive_timeout", remote=conn.client),
                    )
                    conn.fail(1011, "keepalive ping timeout")
                    continue
                self._push(conn.pinged_at + timeout, conn)
                continue
            if now - conn.heard_at < interval:
                self._push(conn.heard_at + interval, conn)
                continue
            payload = struct.pack("!I", next(self._payloads) & 0xFFFFFFFF)
            conn.ping_payload = payload
            conn.pinged_at = now
            self.tally.keepalive_pings += 1
            conn.write(b"\x89\x04" + payload)  # a whole ping frame (server frames are not masked)
            self._push(now + (timeout if timeout is not None else interval), conn)
