"""Shared mechanics of removal games: cards leave the layout for one discard foundation.

In Baroness, Pyramid, Idiot's Delight and Perpetual Motion nothing is built: cards are discarded,
alone or in pairs or sets, onto a single foundation ``f0``, and the stock is dealt out in rounds.
This module holds what those games share:

* `RemovalGame`: the discard foundation (cleared = cards on ``f0``), the stock ``s`` (always face
  down), dealing one card to each of several piles, actions dispatched by name, and the optional
  rule that the stock may be dealt only when no other move is left.
* `ThirteensGame`: pairs of free cards whose ranks add up to 13 are discarded together, a King
  alone. ``a>b`` drags the free card of pile ``a`` onto the free card of pile ``b``: both go to
  the foundation; ``a>f0`` discards a King. Which cards are free is the game's business
  (`ThirteensGame._free`), and so is any extra pairing a game allows (`ThirteensGame._may_pair`).

Ace counts 1, Jack 11, Queen 12, King 13 (`engine.cards.Rank` values).
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Iterator
from typing import ClassVar

from engine.cards import Card, Rank
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile
from engine.words import card_name, is_empty, kind_name

__all__ = ["PAIR_TOTAL", "RemovalGame", "ThirteensGame", "adds_to_thirteen"]

#: The sum of the ranks of a pair that a Thirteens game discards.
PAIR_TOTAL = 13

#: The pile id of the single discard foundation.
DISCARD = "f0"


def adds_to_thirteen(a: Card, b: Card) -> bool:
    """True when the ranks of ``a`` and ``b`` add up to 13 (a Six and a Seven, a Queen and an Ace)."""
    return a.rank + b.rank == PAIR_TOTAL


class RemovalGame(Game):
    """Base of the removal games: one discard foundation ``f0``, a face-down stock ``s``.

    Subclasses set ``actions`` (the action words they accept besides transfers), and write
    ``_check_<action>`` / ``_do_<action>`` for each, plus ``_transfers`` (candidate transfers),
    ``_check_transfer`` and ``_do_transfer``. ``deal`` is provided: it calls ``_deal_targets``
    for the piles that receive one card each. With ``deal_when_stuck`` the stock may be dealt only
    when no transfer is legal (the texts' "when no moves remain"); that depends on face-up cards
    only, like every rule here.
    """

    actions: ClassVar[tuple[str, ...]] = ("deal",)
    deal_when_stuck: ClassVar[bool] = False

    # ------------------------------------------------------------------------- layout helpers

    def _new_discard(self) -> None:
        self.piles[DISCARD] = Pile(DISCARD)

    def _new_stock(self, cards: list[Card]) -> None:
        """The stock ``s``: ``cards[0]`` on top (dealt first), every card face down."""
        self.piles["s"] = Pile("s", cards[::-1], len(cards))

    @property
    def cleared(self) -> int:
        """Cards on the discard foundation."""
        return len(self.piles[DISCARD])

    def _discard(self, pile_ids: Iterable[str]) -> None:
        """Move the top card of each pile in ``pile_ids`` to the discard foundation."""
        for pid in pile_ids:
            self._add(self.piles[DISCARD], self._take(self.piles[pid], 1))

    def _deal_round(self, pile_ids: Iterable[str]) -> None:
        """One card from the stock, face up, onto each pile in turn (while the stock lasts)."""
        stock = self.piles["s"]
        for pid in pile_ids:
            if not stock.cards:
                return
            self._add(self.piles[pid], self._take(stock, 1))

    # ---------------------------------------------------------------------------------- hooks

    @abc.abstractmethod
    def _transfers(self) -> Iterator[Move]:
        """Candidate transfers (a superset of the legal ones)."""

    @abc.abstractmethod
    def _check_transfer(self, move: Move) -> None:
        """Raise `IllegalMove` unless the transfer ``move`` is legal now."""

    @abc.abstractmethod
    def _do_transfer(self, move: Move) -> None:
        """Carry out a transfer that `_check_transfer` accepted."""

    def _deal_targets(self) -> list[str]:
        """The piles that get one card each from ``deal``, in order (none by default: a game
        that deals otherwise overrides ``_do_deal``)."""
        return []

    # ------------------------------------------------------------------------------ the model

    def _candidates(self) -> Iterator[Move]:
        yield from self._transfers()
        for action in self.actions:
            yield Move(action=action)

    def _check(self, move: Move) -> None:
        if move.is_transfer:
            self.pile(move.src, move)
            self.pile(move.dst, move)
            if move.src == move.dst:
                raise IllegalMove(IllegalCode.WRONG_PILE, "a card cannot move onto its own pile", move)
            self._check_transfer(move)
            return
        if move.action not in self.actions:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{self.name} has no action {move.action!r}", move)
        if move.arg:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{move.action!r} takes no argument", move)
        getattr(self, f"_check_{move.action}")(move)

    def _perform(self, move: Move) -> None:
        if move.is_transfer:
            self._do_transfer(move)
        else:
            getattr(self, f"_do_{move.action}")()

    def _any_transfer(self) -> bool:
        """True if some transfer is legal now."""
        return any(self._passes(m) for m in self._transfers())

    def _check_deal(self, move: Move) -> None:
        if not self.piles["s"].cards:
            raise IllegalMove(IllegalCode.STOCK_EMPTY, "the stock is empty", move)
        if self.deal_when_stuck and self._any_transfer():
            raise IllegalMove(IllegalCode.NOT_NOW, "deal only when no other move is left", move)

    def _do_deal(self) -> None:
        self._deal_round(self._deal_targets())

    def _describe(self, move: Move) -> str:
        """``deal``: a card to each pile that `_deal_targets` names (a game that deals otherwise
        says it in its own module); transfers as `Game._describe`, unless the game says them."""
        if move.action == "deal":
            targets = self._deal_targets()
            if targets and len(targets) == sum(pid[0] == targets[0][0] for pid in self.piles):
                return f"deal a card to each {kind_name(targets[0][0])}"
        return super()._describe(move)


class ThirteensGame(RemovalGame):
    """A removal game of pairs adding to 13 and lone Kings (see the module docstring).

    Subclasses give ``_free`` (pile id -> the card that may be paired now) and may widen
    ``_may_pair`` (Pyramid's card covered only by its partner).
    """

    #: `_free` for one position: (the length of ``history`` then, the free cards); None after a move.
    _free_cache: tuple[int, dict[str, Card]] | None

    @abc.abstractmethod
    def _free(self) -> dict[str, Card]:
        """The free cards now, by pile id (only piles whose top card is free)."""

    def _free_now(self) -> dict[str, Card]:
        """`_free`, computed once per position (the legal-move checks ask for it many times)."""
        cached = getattr(self, "_free_cache", None)
        if cached is None or cached[0] != len(self.history):
            cached = (len(self.history), self._free())
            self._free_cache = cached
        return cached[1]

    def _perform(self, move: Move) -> None:
        self._free_cache = None
        super()._perform(move)

    def _safe(self, move: Move) -> bool:
        """From baroness and pyramid (003_08087bb95aa03446.txt): the only card discarded alone is a
        King, and a King pairs with nothing (13 on its own), so a free King left in play can only
        cover cards and hold up the deal: discarding it is always safe. A pair is a choice and does
        not clear by a move to the foundation (`Game._clears`)."""
        return self._clears(move)

    def _may_pair(self, src: str, dst: str, free: dict[str, Card]) -> bool:
        """Whether the top cards of ``src`` and ``dst`` are both available to pair now."""
        return src in free and dst in free

    def _transfers(self) -> Iterator[Move]:
        """Kings that are free, then pairs adding to 13 (`_may_pair`), source by source in pile
        order, each source's partners in pile order too."""
        free = self._free_now()
        tops = {pid: p.cards[-1] for pid, p in self.piles.items() if p.cards and pid not in ("s", DISCARD)}
        by_rank: dict[int, list[str]] = {}  # the piles whose top card has each rank, in pile order
        for pid, card in tops.items():
            by_rank.setdefault(card.rank, []).append(pid)
        for src, card in tops.items():
            if card.rank == Rank.KING:
                if src in free:
                    yield Move(src=src, dst=DISCARD)
                continue
            for dst in by_rank.get(PAIR_TOTAL - card.rank, ()):
                if dst != src and self._may_pair(src, dst, free):
                    yield Move(src=src, dst=dst)

    def _check_transfer(self, move: Move) -> None:
        if move.count != 1:
            raise IllegalMove(IllegalCode.BAD_COUNT, "cards are discarded one at a time", move)
        if move.src in ("s", DISCARD):
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be taken from {self.pile_name(move.src)}", move)
        if move.dst == "s":
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be played to {self.pile_name(move.dst)}", move)
        src = self.piles[move.src]
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, is_empty(self.pile_name(src.id)), move)
        free = self._free_now()
        card = src.cards[-1]
        if move.dst == DISCARD:
            if move.src not in free:
                raise IllegalMove(IllegalCode.WRONG_PILE, f"the {card_name(card)} is still covered", move)
            if card.rank != Rank.KING:
                raise IllegalMove(
                    IllegalCode.DOES_NOT_FIT,
                    f"only a King is discarded alone: the {card_name(card)} needs a partner to make 13",
                    move,
                )
            return
        dst = self.piles[move.dst]
        if not dst.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, is_empty(self.pile_name(dst.id)), move)
        other = dst.cards[-1]
        if not self._may_pair(move.src, move.dst, free):
            raise IllegalMove(
                IllegalCode.WRONG_PILE,
                f"the {card_name(card)} and the {card_name(other)} are not both free",
                move,
            )
        if not adds_to_thirteen(card, other):
            raise IllegalMove(
                IllegalCode.DOES_NOT_FIT,
                f"the {card_name(card)} and the {card_name(other)} make {card.rank + other.rank}, not 13",
                move,
            )

    def _describe(self, move: Move) -> str:
        """A King discarded alone, or a pair making 13; else as `RemovalGame._describe`."""
        if not move.is_transfer:
            return super()._describe(move)
        card = self.piles[move.src].cards[-1]
        if move.dst == DISCARD:
            return f"discard the {card_name(card)}"
        return f"discard the {card_name(card)} and the {card_name(self.piles[move.dst].cards[-1])} (13 together)"

    def _do_transfer(self, move: Move) -> None:
        if move.dst == DISCARD:
            self._discard([move.src])
        else:
            self._discard([move.dst, move.src])
