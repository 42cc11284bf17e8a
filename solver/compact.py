"""Positions of one search as short byte strings, and what the search holds, in bytes.

A search remembers many positions (a best-first frontier, a depth-first stack) but works on one
at a time, so it keeps each as the bytes `Packer.pack` writes (a few hundred bytes for a deal of
one pack, where a whole `Game` takes several kilobytes) and rebuilds a `Game` with
`Packer.unpack` when it comes back to it. The bytes hold, for each pile in layout order, its
length and face-down count (one byte each), then every pile's cards as one byte each (the card's
place in a table built from the start position: a deal never gains a card), then the game's
state fields as text, separated by NUL bytes. A rebuilt game is what `Game.from_position` would
give for the same position: no history, no undo, the start's seed and rule options.

`SIZES` says what one entry of each kind a search keeps costs (`sys.getsizeof`, measured once
when the module is imported), so that a search can count its memory against `Budget.memory_mb`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from engine.cards import Card
from engine.core import Game, Move, Pile

__all__ = ["SIZES", "Packer", "Sizes"]

_SEP = b"\x00"


class Packer:
    """Packs positions of the game ``start`` (and of every position reached from it) as bytes,
    and unpacks them as `Game` objects. Raises ValueError for a game with more than 255 cards
    or a pile longer than 255 cards."""

    __slots__ = ("_cls", "_options", "_seed", "_ids", "_fields", "_kinds", "_cards", "_index", "_head")

    def __init__(self, start: Game) -> None:
        self._cls = type(start)
        self._options = dict(start.rule_options)
        self._seed = start.seed
        self._ids = tuple(start.piles)
        self._fields = start.state_fields
        self._kinds = tuple(type(getattr(start, name)) for name in self._fields)
        self._cards: list[Card] = []
        self._index: dict[Card, int] = {}
        for pile in start.piles.values():
            for card in pile.cards:
                if card not in self._index:
                    self._index[card] = len(self._cards)
                    self._cards.append(card)
        if len(self._cards) > 255:
            raise ValueError(f"{start.key} has {len(self._cards)} distinct cards: more than one byte can name")
        self._head = 2 * len(self._ids)

    def pack(self, game: Game) -> bytes:
        """``game``'s position (a position reached from the start) as bytes."""
        head: list[int] = []
        body: list[int] = []
        index = self._index
        for pile in game.piles.values():
            cards = pile.cards
            head += (len(cards), pile.down)
            body += map(index.__getitem__, cards)
        blob = bytes(head) + bytes(body)
        if self._fields:
            blob += _SEP + _SEP.join(str(int(v) if isinstance(v, bool) else v).encode() for v in self._values(game))
        return blob

    def _values(self, game: Game) -> list[object]:
        return [getattr(game, name) for name in self._fields]

    def unpack(self, blob: bytes) -> Game:
        """The game whose position `pack` wrote as ``blob``: a new, independent `Game` with an
        empty history."""
        game = self._cls.__new__(self._cls)
        game._setup(dict(self._options))
        game.seed = self._seed
        cards = self._cards
        piles = game.piles
        at = self._head
        for n, pid in enumerate(self._ids):
            size = blob[2 * n]
            piles[pid] = Pile(pid, [cards[i] for i in blob[at : at + size]], blob[2 * n + 1])
            at += size
        if self._fields:
            words = blob[at + 1 :].split(_SEP)
            for name, kind, word in zip(self._fields, self._kinds, words, strict=True):
                text = word.decode()
                setattr(game, name, text == "1" if kind is bool else int(text) if kind is int else text)
        return game


@dataclass(frozen=True, slots=True)
class Sizes:
    """Bytes one entry of each kind costs a search (CPython, as `sys.getsizeof` says):
    ``digest``: a 16-byte digest in a set, besides the set's own table (counted apart);
    ``node``: one link of a path (a pair: a move, shared, and the rest of the path);
    ``entry``: a best-first frontier entry without its position's bytes (a tuple of five, three
    integers, a slot of the heap list); ``bytes_head``: a bytes object's size besides its
    contents; ``frame``: a depth-first stack entry without its position's bytes and moves (a
    list of three, a slot in the stack list); ``move``: one move in a list of moves (a pointer:
    the engine shares its `Move` instances)."""

    digest: int
    node: int
    entry: int
    bytes_head: int
    frame: int
    move: int


def _measure() -> Sizes:
    integer = sys.getsizeof(10**6)
    return Sizes(
        digest=sys.getsizeof(bytes(16)),
        node=sys.getsizeof((Move.parse("t1>t2"), None)),
        entry=sys.getsizeof((0, 0, 0, b"", None)) + 3 * integer + 8,
        bytes_head=sys.getsizeof(b""),
        frame=sys.getsizeof([b"", [], 0]) + 8,
        move=8,
    )


#: What each kind of entry costs, measured once.
SIZES = _measure()
