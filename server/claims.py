"""Claimed names: password hashes, the strength rule, transfer codes, and the login limiter.

Passwords are hashed with argon2id through argon2-cffi's `argon2.PasswordHasher` with
`HASH_PARAMETERS` (RFC 9106's second recommended option: 64 MiB of memory, 3 passes, 4 lanes);
hashing and checking run in a worker thread (`hash_password`, `check_password`), so the event
loop goes on meanwhile, through a `PasswordGate` that bounds how many run and wait at once. A
password is refused only for being shorter than `MIN_PASSWORD_LENGTH` characters (NIST SP
800-63B: length, no composition rules).

A transfer code is 10 characters of an alphabet without look-alikes (about 50 bits), kept as its
SHA-256 digest only, spent once, valid for ``transfer_code_minutes``.

`LoginLimiter` counts failed logins per name key and per address key in token buckets: past
``login_failures_per_name`` (or ``_per_ip``) in ``login_window_s`` a login is refused with
``rate_limited`` and how many seconds to wait.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import secrets
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from server.limits import TokenBucket
from server.protocol import MIN_PASSWORD_LENGTH

__all__ = [
    "ANONYMOUS_NAME",
    "HASH_PARAMETERS",
    "MIN_PASSWORD_LENGTH",
    "GateFull",
    "LoginLimiter",
    "PasswordGate",
    "check_password",
    "code_digest",
    "hash_password",
    "new_transfer_code",
    "password_problem",
]

#: The name a deleted player's archived races show.
ANONYMOUS_NAME = "deleted player"
#: argon2id's cost: ``time_cost`` passes over ``memory_cost`` KiB with ``parallelism`` lanes.
HASH_PARAMETERS = {"time_cost": 3, "memory_cost": 65_536, "parallelism": 4, "hash_len": 32, "salt_len": 16}

_hasher = PasswordHasher(  # argon2id is its default type
    time_cost=HASH_PARAMETERS["time_cost"],
    memory_cost=HASH_PARAMETERS["memory_cost"],
    parallelism=HASH_PARAMETERS["parallelism"],
    hash_len=HASH_PARAMETERS["hash_len"],
    salt_len=HASH_PARAMETERS["salt_len"],
)
_T = TypeVar("_T")
_CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0/O, 1/I/L
_CODE_LENGTH = 10


def password_problem(password: str) -> str | None:
    """Why ``password`` cannot be used (too short), or None."""
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"a password needs at least {MIN_PASSWORD_LENGTH} characters"
    return None


class GateFull(Exception):
    """Too many password hashes are waiting already (`PasswordGate`): try again shortly."""


class PasswordGate:
    """Bounds what argon2id costs the server as a whole: at most ``at_once`` hashes worked out
    at a time (each in a worker thread: about 0.1 s of a core and 64 MiB), at most ``waiting``
    more queued behind them; past that a hash is refused at once (`GateFull`), so a flood of
    logins from many addresses costs at most ``at_once`` cores and a bounded queue, never a
    backlog that grows. ``refused``: how many it refused so far."""

    def __init__(self, at_once: int, waiting: int) -> None:
        self._slots = asyncio.Semaphore(max(1, at_once))
        self.waiting = max(0, waiting)
        self._queued = 0
        self.refused = 0

    async def run(self, work: Callable[[], _T]) -> _T:
        """``work()`` in a worker thread once a slot is free. Raises `GateFull` when
        ``at_once`` run and ``waiting`` wait already."""
        if self._slots.locked() and self._queued >= self.waiting:
            self.refused += 1
            raise GateFull
        self._queued += 1
        try:
            await self._slots.acquire()
        finally:
            self._queued -= 1
        try:
            return await asyncio.to_thread(work)
        finally:
            self._slots.release()


async def hash_password(gate: PasswordGate, password: str) -> str:
    """``password``'s argon2id hash (a PHC string with its salt and parameters), worked out in a
    thread through ``gate`` (about a tenth of a second: docs/security.md). Raises `GateFull`."""
    return await gate.run(lambda: _hasher.hash(password))


async def check_password(gate: PasswordGate, password_hash: str, password: str) -> bool:
    """Whether ``password`` matches ``password_hash`` (`hash_password`'s), in a thread through
    ``gate``. Raises `GateFull`."""

    def verify() -> bool:
        try:
            return _hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    return await gate.run(verify)


def new_transfer_code() -> str:
    """A fresh one-time transfer code: ``_CODE_LENGTH`` characters of ``_CODE_ALPHABET``."""
    return "".join(secrets.choice(_CODE_ALPHABET) for _ in range(_CODE_LENGTH))


def code_digest(code: str) -> str:
    """What the archive keeps of a transfer code: the SHA-256 hex digest of its upper-cased form
    with spaces and dashes taken out (so ``abcd-efgh 23`` is ``ABCDEFGH23``)."""
    plain = code.upper().replace("-", "").replace(" ", "")
    return hashlib.sha256(plain.encode()).hexdigest()


class LoginLimiter:
    """Failed logins per key (a name key, an address key), each in a token bucket that holds
    ``failures`` and refills them over ``window_s`` seconds; at most ``keys`` buckets are kept
    (the least recently used goes first), so memory stays bounded. Costs O(1) per call."""

    def __init__(self, failures: int, window_s: float, keys: int = 100_000) -> None:
        self.failures = failures
        self.window_s = window_s
        self.keys = keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def wait_s(self, key: str, now: float) -> int:
        """Seconds before ``key`` may try again at ``now`` (monotonic seconds): 0 if it may now."""
        bucket = self._buckets.get(key)
        if bucket is None or bucket.ready(now):
            return 0
        tokens = bucket.tokens + (now - bucket.last) * bucket.rate_per_s
        return max(1, math.ceil((1 - tokens) / bucket.rate_per_s))

    def failed(self, key: str, now: float) -> None:
        """Count one failed login of ``key`` at ``now``."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.failures / self.window_s, self.failures, now)
            if len(self._buckets) > self.keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        bucket.take(now)
