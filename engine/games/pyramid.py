"""Pyramid: discard pairs that add up to 13 from a pyramid of 28 cards, the deck and the waste.

Rules text: 003_08087bb95aa03446.txt ("Pyramid"). In the project's words:

* One pack. 28 cards face up in a pyramid of seven rows, one card in the top row and seven in the
  bottom row: reserve piles ``r0`` (the apex) to ``r27``, row by row, left to right, one card each.
  A card is covered by the two cards touching it in the row below; it is free when both are gone.
  The bottom row is free from the start.
* The other 24 cards form the deck. Its top card lies face up in pile ``d`` (the deck card); the
  rest, face down, are the stock ``s``. Beside it is the waste ``w``; its top card is free too.
* Ranks count Ace 1 ... Jack 11, Queen 12, King 13. Two free cards (pyramid, deck card or waste
  top) whose ranks add up to 13 are discarded together to the foundation ``f0``: drag either onto
  the other (``r21>d``, ``w>r27``). A free King is discarded alone (``r3>f0``, ``d>f0``).
* A pyramid card may also be paired with the one card that still covers it, when the other card
  that covered it is gone (``r27>r20``): the partner is the only thing in the way.
* When the deck card is discarded, the next stock card turns up in its place (the engine does it
  and reports the card).
* ``deal`` puts the deck card on the waste and turns the next stock card up as the new deck card.
  When the stock is empty, ``deal`` just moves the last deck card to the waste. There is no redeal.
* Nothing moves between pyramid piles and a space is never filled.
* Cleared: cards on the foundation (52 to win).

Choices where the text is unclear:

* The text deals "when no moves remain"; read as a rule: ``deal`` is legal only when no pair or
  King can be discarded.
* The text has the deck's top card in play ("played upon the Eight of Hearts on the deck"), so the
  deck shows its top card from the start; the engine turns it up and reports it.
"""

from __future__ import annotations

from engine.cards import Card
from engine.core import IllegalCode, IllegalMove, Move, Pile
from engine.removal import ThirteensGame
from engine.words import card_name

__all__ = ["Pyramid"]

ROWS = 7
SIZE = ROWS * (ROWS + 1) // 2


def _covers() -> dict[str, tuple[str, ...]]:
    """For each pyramid pile, the two piles of the next row that cover it (none in the bottom row)."""
    covers: dict[str, tuple[str, ...]] = {}
    for row in range(ROWS):
        for k in range(row + 1):
            index = row * (row + 1) // 2 + k
            if row == ROWS - 1:
                covers[f"r{index}"] = ()
            else:
                below = (row + 1) * (row + 2) // 2 + k
                covers[f"r{index}"] = (f"r{below}", f"r{below + 1}")
    return covers


COVERS = _covers()


class Pyramid(ThirteensGame):
    """Pyramid: pairs adding to 13 from 28 pyramid cards, the deck card and the waste; one pass
    through the deck (003_08087bb95aa03446.txt)."""

    key = "pyramid"
    name = "Pyramid"
    summary = "Discard pairs adding to 13 from a 28-card pyramid, the deck and the waste; Kings alone."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "50 to 1"
    deal_when_stuck = True
    #: Each pyramid card by its row (1 the apex, 7 the bottom) and its place in the row, from the left.
    pile_words = {
        f"r{row * (row + 1) // 2 + k}": f"row {row + 1}, card {k + 1}" for row in range(ROWS) for k in range(row + 1)
    }

    def _deal(self, cards: list[Card]) -> None:
        self._new_discard()
        for i in range(SIZE):
            self.piles[f"r{i}"] = Pile(f"r{i}", [cards[i]])
        self._new_stock(cards[SIZE:])
        self.piles["d"] = Pile("d")
        self.piles["w"] = Pile("w")
        self._add(self.piles["d"], self._take(self.piles["s"], 1))

    def _covered_by(self, pid: str) -> list[str]:
        return [c for c in COVERS[pid] if self.piles[c].cards]

    def _free(self) -> dict[str, Card]:
        free = {pid: self.piles[pid].cards[-1] for pid in ("d", "w") if self.piles[pid].cards}
        for pid, below in COVERS.items():
            pile = self.piles[pid]
            if pile.cards and not any(self.piles[c].cards for c in below):
                free[pid] = pile.cards[-1]
        return free

    def _may_pair(self, src: str, dst: str, free: dict[str, Card]) -> bool:
        if src in free and dst in free:
            return True
        for card, partner in ((src, dst), (dst, src)):
            if partner in free and card in COVERS and self._covered_by(card) == [partner]:
                return True
        return False

    def _do_transfer(self, move: Move) -> None:
        super()._do_transfer(move)
        if not self.piles["d"].cards and self.piles["s"].cards:
            self._add(self.piles["d"], self._take(self.piles["s"], 1))

    def _check_deal(self, move: Move) -> None:
        if not self.piles["d"].cards:
            raise IllegalMove(IllegalCode.STOCK_EMPTY, "the deck is used up", move)
        if self._any_transfer():
            raise IllegalMove(IllegalCode.NOT_NOW, "deal only when no other move is left", move)

    def _describe(self, move: Move) -> str:
        if move.action != "deal":
            return super()._describe(move)
        put = f"put the {card_name(self.piles['d'].cards[-1])} on the waste"
        return put + " and turn up the next deck card" if self.piles["s"].cards else put

    def _do_deal(self) -> None:
        self._add(self.piles["w"], self._take(self.piles["d"], 1))
        if self.piles["s"].cards:
            self._add(self.piles["d"], self._take(self.piles["s"], 1))
