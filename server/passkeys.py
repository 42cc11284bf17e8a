"""Passkeys: the relying party a server is (`relying_party`) and the challenges of ceremonies
under way (`Challenges`). The WebAuthn work itself (options, attestation and assertion checks)
is the `webauthn` package's (py_webauthn), called by `server.handlers.passkeys`.

A server offers passkeys only where it knows the origin players' browsers load its page from
(``ServerConfig.public_origin``): browsers allow WebAuthn on ``https://`` origins and on
``http://localhost``; the relying party id is the origin's host. A challenge is 32 random bytes,
kept in memory with what it was made for until it is used once or ``passkey_challenge_s``
passes; the server keeps at most `MAX_CHALLENGES` (the oldest goes first), so memory stays
bounded whatever a flood of ``passkey_begin`` asks.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

__all__ = ["MAX_CHALLENGES", "Challenges", "ChallengeExpired", "Pending", "UnknownChallenge", "relying_party"]

#: Challenges kept at once, server-wide.
MAX_CHALLENGES = 10_000
_LOCAL_HOSTS = ("localhost",)


def relying_party(origin: str) -> tuple[str, str]:
    """``(rp_id, origin)`` for a server whose page is loaded from ``origin``: its host, and the
    origin without a trailing slash. Raises ValueError for an origin browsers refuse WebAuthn on
    (not https, other than http://localhost), or that holds a path, a query or credentials.

    >>> relying_party("https://arena.example.org/")
    ('arena.example.org', 'https://arena.example.org')
    >>> relying_party("http://localhost:8765")
    ('localhost', 'http://localhost:8765')
    """
    parts = urlsplit(origin.strip())
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host or parts.username or parts.password:
        raise ValueError(f"a public origin is https://HOST[:PORT], not {origin!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"a public origin has no path, query or fragment: {origin!r}")
    if parts.scheme == "http" and host not in _LOCAL_HOSTS:
        raise ValueError(f"passkeys need an https:// origin (or http://localhost), not {origin!r}")
    port = f":{parts.port}" if parts.port else ""
    return host, f"{parts.scheme}://{host}{port}"


class ChallengeExpired(Exception):
    """A challenge that was made, and whose time passed before it was used."""


class UnknownChallenge(Exception):
    """A challenge this server did not make, used already, or forgotten to make room."""


@dataclass(frozen=True, slots=True)
class Pending:
    """A challenge's ceremony: its ``purpose``, the ``player_id`` registering a passkey (None
    for a login) and ``expires`` (monotonic seconds)."""

    purpose: Literal["register", "login"]
    player_id: str | None
    expires: float


class Challenges:
    """The challenges of ceremonies under way, by challenge bytes, oldest first; at most
    ``limit`` (the oldest forgotten first), each good for ``life_s`` seconds. O(1) per call."""

    def __init__(self, life_s: float, limit: int = MAX_CHALLENGES) -> None:
        self.life_s = life_s
        self.limit = limit
        self._pending: OrderedDict[bytes, Pending] = OrderedDict()

    def __len__(self) -> int:
        return len(self._pending)

    def issue(self, purpose: Literal["register", "login"], player_id: str | None, now: float) -> bytes:
        """A new 32-byte challenge for ``purpose`` made at ``now`` (monotonic seconds)."""
        while self._pending:  # the oldest first: drop what expired a life ago (till then: "expired")
            oldest = next(iter(self._pending.values()))
            if oldest.expires + self.life_s > now and len(self._pending) < self.limit:
                break
            self._pending.popitem(last=False)
        challenge = secrets.token_bytes(32)
        self._pending[challenge] = Pending(purpose, player_id, now + self.life_s)
        return challenge

    def take(self, challenge: bytes, now: float) -> Pending:
        """Spend ``challenge`` at ``now`` (monotonic seconds): its `Pending`. Raises
        `ChallengeExpired` (its time passed) or `UnknownChallenge`; either way it is gone."""
        pending = self._pending.pop(challenge, None)
        if pending is None:
            raise UnknownChallenge
        if pending.expires <= now:
            raise ChallengeExpired
        return pending
