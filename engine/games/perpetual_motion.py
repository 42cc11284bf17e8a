"""Perpetual Motion: stack cards of a rank leftwards, clear four of a kind, rebuild the deck as often as needed.

Rules text: 003_08087bb95aa03446.txt ("Perpetual Motion"). In the project's words:

* One pack. Four tableau piles ``t0`` to ``t3`` (left to right) get one card each, face up; the
  other 48 cards form the stock ``s``.
* When a top card has the rank of the top card of a pile to its left, it may be moved onto it
  (``t3>t1``); cards of that one rank on top of a pile move together (``t3>t0x2``).
* Four cards of one rank are cleared to the foundation ``f0`` together: when they lie on top of
  one pile (``t0>f0x4``), or when they are the top cards of the four piles (``clear``).
* ``deal`` puts one stock card face up on each pile, ``t0`` to ``t3``, while the stock lasts.
* When the stock is empty, ``redeal`` gathers the tableau into a new stock, as often as wanted:
  the new stock deals the cards of ``t0`` from the bottom card up, then those of ``t1``, ``t2`` and
  ``t3`` the same way (the piles picked up in order and turned over).
* Cleared: cards on the foundation (52 to win).

Choices where the text is unclear:

* "When all four are the same rank" is read both ways: four cards of a rank showing as the tops
  of the four piles (``clear``, the left pile's card first to the foundation), and four of a rank
  gathered on top of one pile (``t0>f0x4``).
* Same-rank cards on top of a pile move as a group or one by one; either is allowed.
* The rebuild follows the text's own version, which deals the new stock from its top, not the
  official one, which deals from its bottom after gathering right to left.
* The rebuild is a move (``redeal``), not automatic, so the player can still move cards after the
  last deal; it is legal only once the stock is empty and the tableau holds cards.
* Because redeals are unlimited, ``over`` becomes true only when the game is won (or nothing is
  left to gather); a stuck player resigns.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.cards import Card
from engine.core import IllegalCode, IllegalMove, Move, Pile
from engine.removal import DISCARD, RemovalGame
from engine.words import card_name, rank_name

__all__ = ["PerpetualMotion"]

_PILES = tuple(f"t{i}" for i in range(4))
_SET = 4


def _run_of_rank(pile: Pile) -> int:
    """How many cards of the top card's rank lie together on top of ``pile``."""
    cards = pile.cards
    n = 0
    while n < len(cards) and cards[-1 - n].rank == cards[-1].rank:
        n += 1
    return n


class PerpetualMotion(RemovalGame):
    """Perpetual Motion: same-rank cards stacked right to left, four of a kind cleared, the
    deck rebuilt from the tableau at will (003_08087bb95aa03446.txt)."""

    key = "perpetual_motion"
    name = "Perpetual Motion"
    summary = "Stack cards of a rank leftwards and clear four of a kind; rebuild the deck when it runs out."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "1 to 1"
    actions = ("clear", "deal", "redeal")
    state_fields = ("redeals",)
    redeals: int = 0

    def _safe(self, move: Move) -> bool:
        """From perpetual motion (003_08087bb95aa03446.txt): a card moves only onto a card of its
        rank, so four of a kind lying together on one pile (``t0>f0x4``) can never move again and only
        cover cards; a redeal would gather them as four cards in a row, so without them every later
        card is dealt to the same pile as before, a round earlier: clearing them is always safe. Not
        ``clear``, the four tops of the piles: they would lie apart in a gathered stock, and without
        them the later cards would go to other piles."""
        return self._clears(move)

    def _deal(self, cards: list[Card]) -> None:
        self._new_discard()
        for i, pid in enumerate(_PILES):
            self.piles[pid] = Pile(pid, [cards[i]])
        self._new_stock(cards[len(_PILES) :])
        self.redeals = 0

    def _deal_targets(self) -> list[str]:
        return list(_PILES)

    def _transfers(self) -> Iterator[Move]:
        """Four of a kind to the foundation, and same-rank cards onto a pile to their left that
        shows their rank (the others would only be refused, with a reason written for nothing)."""
        for b, src in enumerate(_PILES):
            pile = self.piles[src]
            if not pile.cards:
                continue
            run = _run_of_rank(pile)
            if run >= _SET:
                yield Move(src=src, dst=DISCARD, count=_SET)
            rank = pile.cards[-1].rank
            for dst in _PILES[:b]:
                top = self.piles[dst].top
                if top is not None and top.rank == rank:
                    for n in range(1, run + 1):
                        yield Move(src=src, dst=dst, count=n)

    def _check_transfer(self, move: Move) -> None:
        if move.src not in _PILES or move.dst not in (*_PILES, DISCARD):
            raise IllegalMove(IllegalCode.WRONG_PILE, "cards move only from a tableau pile", move)
        src = self.piles[move.src]
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(src.id)} is empty", move)
        run = _run_of_rank(src)
        if move.dst == DISCARD:
            if move.count != _SET:
                raise IllegalMove(IllegalCode.BAD_COUNT, "four cards of a rank are cleared together", move)
            if run < _SET:
                raise IllegalMove(
                    IllegalCode.DOES_NOT_FIT, f"{self.pile_name(src.id)} has no four of a kind on top", move
                )
            return
        if _PILES.index(move.dst) > _PILES.index(move.src):
            raise IllegalMove(IllegalCode.WRONG_PILE, "cards move only to a pile on their left", move)
        if move.count > run:
            raise IllegalMove(
                IllegalCode.NOT_A_SEQUENCE,
                f"the top {move.count} cards of {self.pile_name(src.id)} are not of one rank",
                move,
            )
        dst = self.piles[move.dst]
        if not dst.cards:
            raise IllegalMove(
                IllegalCode.DOES_NOT_FIT,
                f"{self.pile_name(dst.id)} is empty: a card goes only onto one of its rank",
                move,
            )
        if dst.cards[-1].rank != src.cards[-1].rank:
            raise IllegalMove(
                IllegalCode.DOES_NOT_FIT,
                f"the {card_name(src.cards[-move.count])} cannot go on the {card_name(dst.cards[-1])}: "
                f"a card goes only onto one of its rank",
                move,
            )

    def _do_transfer(self, move: Move) -> None:
        cards = self._take(self.piles[move.src], move.count)
        self.piles[move.dst].cards.extend(cards)

    def _check_clear(self, move: Move) -> None:
        tops = {self.piles[pid].cards[-1].rank for pid in _PILES if self.piles[pid].cards}
        if len(tops) != 1 or not all(self.piles[pid].cards for pid in _PILES):
            raise IllegalMove(IllegalCode.NOT_NOW, "the four top cards are not of one rank", move)

    def _do_clear(self) -> None:
        self._discard(_PILES)

    def _check_redeal(self, move: Move) -> None:
        if self.piles["s"].cards:
            raise IllegalMove(IllegalCode.NOT_NOW, "you may redeal only when the stock is empty", move)
        if not any(self.piles[pid].cards for pid in _PILES):
            raise IllegalMove(IllegalCode.EMPTY_PILE, "the tableau is empty: nothing to gather", move)

    def _describe(self, move: Move) -> str:
        if move.action == "clear":
            rank = self.piles[_PILES[0]].cards[-1].rank
            return f"clear the four {rank_name(rank, plural=True)} from the tops of the tableau piles"
        if move.action == "redeal":
            return "gather the tableau piles into a new stock"
        if move.dst == DISCARD:
            rank = self.piles[move.src].cards[-1].rank
            return f"clear the four {rank_name(rank, plural=True)} from {self.pile_name(move.src)}"
        return super()._describe(move)

    def _do_redeal(self) -> None:
        gathered: list[Card] = []
        for pid in _PILES:
            gathered += self.piles[pid].cards
            self.piles[pid].cards = []
        self._new_stock(gathered)
        self.redeals += 1
