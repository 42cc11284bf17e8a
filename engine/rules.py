"""Shared pile rules: build rules, layout declarations, and `PileGame`, which plays them.

Most patience games are a layout of standard piles with a few parameters: how foundations start
and build, how the tableau is dealt and built, what may fill a space, how the stock is turned and
how often it may be redealt. A game module declares that layout and `PileGame` does the rest:

    class Klondike(PileGame):
        layout = (Foundations(4), Tableau(deal=STAIRCASE_7, build=down_alternate,
                  empty=Empty.KINGS, blocks=True), Stock(turn=3, redeals=None))

The deal hands out the shuffled cards in layout order: each pile of each declaration in turn gets
its cards, index 0 of the shuffle first; the stock gets what is left, with the next card of the
shuffle on top (dealt first). Games with unusual mechanics subclass `engine.core.Game` directly,
or override a hook here (`PileGame._fits`, `PileGame._deal`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from engine.cards import Card, Rank
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile

__all__ = [
    "BuildRule",
    "Empty",
    "Foundations",
    "PileGame",
    "Reserve",
    "STAIRCASE_7",
    "Stock",
    "Tableau",
    "down_alternate",
    "up_in_suit",
    "up_or_down",
]

#: ``rule(top, card)`` says whether ``card`` may go on ``top``.
BuildRule = Callable[[Card, Card], bool]

#: Klondike's tableau: one card on the first pile, two on the second, ... seven on the last.
STAIRCASE_7 = (1, 2, 3, 4, 5, 6, 7)


def down_alternate(top: Card, card: Card) -> bool:
    """Build down in alternate colours: a red Six on a black Seven."""
    return card.rank == top.rank - 1 and card.colour != top.colour


def up_in_suit(top: Card, card: Card) -> bool:
    """Build up in suit: the Four of Hearts on the Three of Hearts."""
    return card.suit == top.suit and card.rank == top.rank + 1


def up_or_down(top: Card, card: Card) -> bool:
    """One rank up or down, any suit, no wrap between King and Ace."""
    return abs(card.rank - top.rank) == 1


class Empty(enum.StrEnum):
    """What may fill an empty tableau pile."""

    ANY = "any"
    KINGS = "kings"
    NONE = "none"


@dataclass(frozen=True)
class Foundations:
    """``count`` foundation piles (ids ``f0``...). An empty one takes a card of rank ``base`` (any
    card when ``base`` is None); the rest follow ``build``."""

    count: int = 4
    base: Rank | None = Rank.ACE
    build: BuildRule = up_in_suit
    letter: ClassVar[str] = "f"


@dataclass(frozen=True)
class Tableau:
    """Tableau piles (ids ``t0``...), ``deal[i]`` cards dealt to pile i, the top ``face_up`` of each
    face up (None: all). Cards build by ``build``; ``blocks`` lets an ordered run move together;
    ``empty`` says what fills a space."""

    deal: tuple[int, ...]
    build: BuildRule = down_alternate
    empty: Empty = Empty.ANY
    blocks: bool = False
    face_up: int | None = 1
    letter: ClassVar[str] = "t"


@dataclass(frozen=True)
class Reserve:
    """Reserve piles (ids ``r0``...), ``deal[i]`` cards each, all face up; only the top card of a
    reserve may be played, and nothing is ever played onto one."""

    deal: tuple[int, ...]
    letter: ClassVar[str] = "r"


@dataclass(frozen=True)
class Stock:
    """The stock (id ``s``): ``deal`` turns ``turn`` cards onto ``to`` (the waste ``w`` unless
    stated); ``redeals`` is how many times the waste may be turned back into a stock (None: as
    often as wanted)."""

    turn: int = 1
    redeals: int | None = 0
    to: str = "w"
    letter: ClassVar[str] = "s"


Spec = Foundations | Tableau | Reserve | Stock


class PileGame(Game):
    """A game made of standard piles; subclasses set ``layout`` (a tuple of declarations).

    State field ``redeals`` counts the times the waste was turned back into the stock.
    Cleared cards are the cards on foundations.
    """

    layout: ClassVar[tuple[Spec, ...]] = ()
    state_fields: ClassVar[tuple[str, ...]] = ("redeals",)
    redeals: int = 0

    # ------------------------------------------------------------------------ declarations

    @classmethod
    def _spec(cls, pile_id: str) -> Spec | None:
        for spec in cls.layout:
            if spec.letter == pile_id[:1]:
                return spec
        return None

    @classmethod
    def _stock_spec(cls) -> Stock | None:
        return next((s for s in cls.layout if isinstance(s, Stock)), None)

    # ------------------------------------------------------------------------------- deal

    def _deal(self, cards: list[Card]) -> None:
        self.redeals = 0
        rest = list(cards)
        for spec in self.layout:
            if isinstance(spec, Foundations):
                for i in range(spec.count):
                    self.piles[f"f{i}"] = Pile(f"f{i}")
            elif isinstance(spec, (Tableau, Reserve)):
                for i, n in enumerate(spec.deal):
                    dealt, rest = rest[:n], rest[n:]
                    up = n if isinstance(spec, Reserve) or spec.face_up is None else spec.face_up
                    self.piles[f"{spec.letter}{i}"] = Pile(f"{spec.letter}{i}", dealt, max(0, n - up))
            elif isinstance(spec, Stock):
                self.piles["s"] = Pile("s", rest[::-1], len(rest))
                rest = []
                if spec.to == "w":
                    self.piles["w"] = Pile("w")

    # ------------------------------------------------------------------------------ rules

    @property
    def cleared(self) -> int:
        return sum(len(p) for pid, p in self.piles.items() if pid[0] == "f")

    def _fits(self, pile: Pile, card: Card) -> bool:
        """Whether ``card`` may be placed on ``pile`` (a foundation or tableau pile)."""
        spec = self._spec(pile.id)
        top = pile.top
        if isinstance(spec, Foundations):
            if top is None:
                return spec.base is None or card.rank == spec.base
            return spec.build(top, card)
        if isinstance(spec, Tableau):
            if top is None:
                return spec.empty == Empty.ANY or (spec.empty == Empty.KINGS and card.rank == Rank.KING)
            return spec.build(top, card)
        return False

    def _candidates(self) -> Iterator[Move]:
        sources = [pid for pid, p in self.piles.items() if pid[0] in "trw" and p.up]
        targets = [pid for pid in self.piles if pid[0] in "ft"]
        for src in sources:
            spec = self._spec(src)
            most = self.piles[src].up if isinstance(spec, Tableau) and spec.blocks else 1
            for dst in targets:
                if dst == src:
                    continue
                dst_pile, cards = self.piles[dst], self.piles[src].cards
                for count in range(1, (most if dst[0] == "t" else 1) + 1):
                    if self._fits(dst_pile, cards[-count]):  # a cheap filter; _check decides
                        yield Move(src=src, dst=dst, count=count)
        yield Move(action="deal")
        yield Move(action="redeal")

    def _check(self, move: Move) -> None:
        if move.is_transfer:
            self._check_transfer(move)
        elif move.arg:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{move.action!r} takes no argument", move)
        elif move.action == "deal":
            stock = self.piles.get("s")
            if stock is None:
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{self.name} has no stock", move)
            if not stock.cards:
                raise IllegalMove(IllegalCode.STOCK_EMPTY, "the stock is empty", move)
        elif move.action == "redeal":
            self._check_redeal(move)
        else:
            raise IllegalMove(
                IllegalCode.UNKNOWN_ACTION, f"{self.name} has no action {move.action!r}", move
            )

    def _check_redeal(self, move: Move) -> None:
        spec = self._stock_spec()
        if spec is None or spec.to != "w":
            raise IllegalMove(IllegalCode.NO_REDEAL, f"{self.name} has no redeal", move)
        if self.piles["s"].cards:
            raise IllegalMove(IllegalCode.NOT_NOW, "redeal only when the stock is empty", move)
        if not self.piles["w"].cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, "the waste is empty: nothing to redeal", move)
        if spec.redeals is not None and self.redeals >= spec.redeals:
            raise IllegalMove(IllegalCode.NO_REDEAL, f"no redeal left ({spec.redeals} allowed)", move)

    def _check_transfer(self, move: Move) -> None:
        src = self.pile(move.src, move)
        dst = self.pile(move.dst, move)
        src_spec = self._spec(src.id)
        if src.id[0] not in "trw" or src is dst:
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards may not be moved from {src.id}", move)
        if dst.id[0] not in "ft":
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards may not be played to {dst.id}", move)
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{src.id} is empty", move)
        if move.count > src.up:
            raise IllegalMove(IllegalCode.FACE_DOWN, f"{src.id} has only {src.up} face-up cards", move)
        if move.count > 1:
            if dst.id[0] == "f":
                raise IllegalMove(IllegalCode.BAD_COUNT, "foundations take one card at a time", move)
            if not (isinstance(src_spec, Tableau) and src_spec.blocks):
                raise IllegalMove(IllegalCode.BAD_COUNT, "only one card may move at a time", move)
            block = src.cards[-move.count :]
            if not all(src_spec.build(a, b) for a, b in zip(block, block[1:])):
                raise IllegalMove(
                    IllegalCode.NOT_A_SEQUENCE,
                    f"the top {move.count} cards of {src.id} are not a built sequence",
                    move,
                )
        card = src.cards[-move.count]
        if not self._fits(dst, card):
            where = f"an empty {dst.id}" if not dst.cards else f"{dst.top.code} on {dst.id}"  # type: ignore[union-attr]
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, f"{card.code} may not go on {where}", move)

    def _perform(self, move: Move) -> None:
        if move.is_transfer:
            src, dst = self.piles[move.src], self.piles[move.dst]
            cards = self._take(src, move.count)
            dst.cards.extend(cards)
            self._turn_up(src)
        elif move.action == "deal":
            spec = self._stock_spec()
            assert spec is not None
            stock = self.piles["s"]
            for _ in range(min(spec.turn, len(stock))):
                self._add(self.piles[spec.to], self._take(stock, 1))
        elif move.action == "redeal":
            waste, stock = self.piles["w"], self.piles["s"]
            stock.cards = waste.cards[::-1]
            stock.down = len(stock.cards)
            waste.cards = []
            waste.down = 0
            self.redeals += 1
