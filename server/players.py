"""Players: someone who said hello, and outlives its connections.

A `Player` has an id (``p`` and twelve hex digits), a display name and a secret token; its token
resumes it on a new connection (docs/protocol.md, Session). A durable store keeps a player under
`token_digest` of its token, never the token itself.

>>> len(token_digest("secret"))
64
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from server.race import Listener

__all__ = ["Player", "token_digest"]


def token_digest(token: str) -> str:
    """What a store keeps of a player's token: its SHA-256 hex digest, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(eq=False)
class Player:
    """Someone who said hello: an id, a display name, a secret token, the races it entered, the
    open races it created, the tournaments it registered for, its current connection
    (``session``: None while disconnected, since ``left_at``, monotonic seconds), and the
    address key it is counted under (``address_key``, `server.addresses.address_key`: that of
    the connection it said its first hello on; empty for a player not counted under any, one
    brought back from a durable store or awaited by a rebuilt tournament), whether its name is
    claimed (``claimed``: `server.handlers.claims`), the other devices' tokens that resume it
    in memory (``devices``: each a key of `ServerState.players` too, given by a login or redeem),
    and whether its hello said it is a bot (``bot``)."""

    id: str
    name: str
    token: str
    races: set[str] = field(default_factory=set)
    open_races: set[str] = field(default_factory=set)
    tournaments: set[str] = field(default_factory=set)
    session: Listener | None = None
    left_at: float = 0.0
    address_key: str = ""
    claimed: bool = False
    devices: set[str] = field(default_factory=set)
    bot: bool = False  # its last hello said it is a program (`server.protocol.Hello.bot`): never rated

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Deliver to the current connection, if any (a reconnecting client syncs what it missed);
        ``later``: a broadcast frame, which may wait for the next fan-out tick; ``standings``:
        the standings after another entrant's move, which may wait longer
        (`server.transport.session.Session.send`)."""
        if self.session is not None:
            self.session.send(frame, later=later, standings=standings)
