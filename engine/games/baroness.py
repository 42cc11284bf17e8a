"""Baroness: discard pairs that add up to 13 from the tops of five piles; Kings go alone.

Rules text: 003_08087bb95aa03446.txt ("Baroness"). In the project's words:

* One pack. Five tableau piles ``t0`` to ``t4`` get one card each, face up; the other 47 cards form
  the stock ``s``. Two more piles, ``t5`` and ``t6``, stay empty until the end.
* Ranks count Ace 1 ... Jack 11, Queen 12, King 13. Two top cards whose ranks add up to 13 are
  discarded together to the one foundation ``f0``: drag either onto the other (``t3>t1``). A King
  on top of a pile is discarded alone (``t2>f0``). Only top cards are ever free.
* ``deal`` puts one stock card face up on each of ``t0`` to ``t4``, covering what lies there. When
  only two cards are left in the stock, ``deal`` puts them on ``t5`` and ``t6`` instead, where they
  pair with the other tops like any card. There is no redeal.
* Nothing moves between piles and a space is never filled.
* Cleared: cards on the foundation (52 to win).

Choices where the text is unclear:

* The text says to deal "when no moves remain". Read as a rule, it is one: ``deal`` is legal only
  when no pair or King can be discarded (the same for every player in a race).
* The last two cards: 47 = 9 x 5 + 2, so the tenth and last deal is the one that fills ``t5`` and
  ``t6``, the first of them getting the earlier card.
"""

from __future__ import annotations

from engine.cards import Card
from engine.core import Move, Pile
from engine.removal import ThirteensGame

__all__ = ["Baroness"]

_MAIN = tuple(f"t{i}" for i in range(5))
_MIDDLE = ("t5", "t6")


class Baroness(ThirteensGame):
    """Baroness (Thirteen, Five Piles): pairs adding to 13 off five piles, Kings alone; the last
    two stock cards go to two middle piles (003_08087bb95aa03446.txt)."""

    key = "baroness"
    name = "Baroness"
    aliases = ("five_piles",)
    summary = "Discard pairs adding to 13 from the tops of five piles, Kings alone; deal five at a time."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "40 to 1"
    deal_when_stuck = True

    def _deal(self, cards: list[Card]) -> None:
        self._new_discard()
        for i, pid in enumerate(_MAIN):
            self.piles[pid] = Pile(pid, [cards[i]])
        for pid in _MIDDLE:
            self.piles[pid] = Pile(pid)
        self._new_stock(cards[5:])

    def _free(self) -> dict[str, Card]:
        return {pid: self.piles[pid].cards[-1] for pid in _MAIN + _MIDDLE if self.piles[pid].cards}

    def _deal_targets(self) -> list[str]:
        return list(_MIDDLE if len(self.piles["s"]) == len(_MIDDLE) else _MAIN)

    def _describe(self, move: Move) -> str:
        if move.action != "deal":
            return super()._describe(move)
        if len(self.piles["s"]) == len(_MIDDLE):
            return "deal the last two cards to tableau piles 6 and 7"
        return "deal a card to each of tableau piles 1 to 5"
