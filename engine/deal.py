"""Deterministic deals: ``(game key, seed)`` gives one card order, on every machine, forever.

The shuffle never uses Python's ``random`` module, whose algorithms may change between versions.
It is specified in docs/deals.md (deal version 1) and pinned by tests:

1. Start from `engine.cards.new_pack` for the game's number of packs (pack by pack, clubs,
   diamonds, hearts, spades, each Ace to King).
2. A byte stream: block ``i`` (``i = 0, 1, 2, ...``) is
   ``HMAC-SHA256(key=b"patience-arena/deal/v1", msg=f"{game}:{seed}:{i}".encode("ascii"))``;
   the blocks are concatenated.
3. A uniform integer below ``n`` reads the next 4 bytes of the stream as a big-endian unsigned
   integer ``x``; if ``x >= 2**32 - (2**32 % n)`` it is rejected and the next 4 bytes are read
   (no modulo bias); otherwise the result is ``x % n``.
4. Fisher-Yates: for ``i`` from ``len(cards) - 1`` down to 1, swap ``cards[i]`` with
   ``cards[j]`` where ``j`` is a uniform integer below ``i + 1``.

Index 0 of the result is the first card dealt; each game says how it deals the order out.

>>> [str(c) for c in shuffled("klondike", 42)[:3]]
['KH', 'QC', 'TC']
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator

from engine.cards import Card, new_pack

__all__ = ["DEAL_VERSION", "MAX_SEED", "check_seed", "commitment_of", "random_seed", "shuffled"]

#: The version of the shuffle in this module; a change to deals needs a new version.
DEAL_VERSION = 1
#: Seeds are integers from 0 to MAX_SEED inclusive (63 bits: they fit a signed 64-bit integer).
MAX_SEED = 2**63 - 1

_KEY = b"patience-arena/deal/v1"


def check_seed(seed: object) -> int:
    """Return ``seed`` if it is an int in ``0..MAX_SEED``; raise ValueError otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED}, not {seed!r}")
    return seed


def random_seed() -> int:
    """A fresh secret seed from the operating system's random source (`secrets`)."""
    return secrets.randbelow(MAX_SEED + 1)


def commitment_of(seed: int, salt: str) -> str:
    """The public commitment to a secret seed: SHA-256 of ``f"{seed}:{salt}"``, in hex.

    Published before a deal is played; revealing the seed and salt afterwards lets anyone check
    that the deal was fixed in advance (docs/deals.md).
    """
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()


def _stream(game: str, seed: int) -> Iterator[int]:
    """Yield 32-bit unsigned integers from the keyed byte stream of step 2 and 3."""
    block = 0
    while True:
        digest = hmac.new(_KEY, f"{game}:{seed}:{block}".encode("ascii"), hashlib.sha256).digest()
        for offset in range(0, len(digest), 4):
            yield int.from_bytes(digest[offset : offset + 4], "big")
        block += 1


def shuffled(game: str, seed: int, packs: int = 1) -> list[Card]:
    """The deal order for ``game`` (its registry key) and ``seed``: a list of ``packs * 52`` cards.

    Raises ValueError for a seed outside ``0..MAX_SEED``.
    """
    check_seed(seed)
    cards = new_pack(packs)
    words = _stream(game, seed)
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    return cards
