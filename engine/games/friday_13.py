"""Friday 13: thirteen foundations from Jack round to Ten, built up regardless of suit.

Rules text: 001_1b1f3c1dc9fc716f.txt. In the project's words:

* One pack. Thirteen foundations ``f0`` to ``f12``, labelled in order Jack, Queen, King, Ace, Two,
  ..., Ten. At the deal the first Jack, Queen, King and Ace of the shuffle are placed on ``f0`` to
  ``f3``; the other 48 cards form the stock ``s``.
* ``deal`` turns the top stock card onto the waste ``w``; the top waste card may be played.
* An empty foundation takes only a card of its label's rank, and only once every foundation to
  its left holds at least one card (``w>f4`` plays a Two onto the Two foundation).
* On a foundation any card goes that is one rank higher than its top card, whatever the suits
  (``w>f3`` plays a Two on an Ace), and the ranks go round the corner: an Ace goes on a King
  (``w>f2`` plays an Ace on the King foundation's King).
* When the stock is used up, ``redeal`` turns the waste back into the stock, once.
* The game is won when all 52 cards are on the foundations and every foundation holds at least one.
  Cleared: the cards on the foundations, except that 52 cards with a foundation still empty (all
  four cards of its rank went elsewhere: a lost game) count 51.

Rules version 2 (version 1 stopped every foundation at the King, so that an Ace could never go on
a King. The pack has four Aces and one Ace foundation, so three Aces must go on Kings for "all the
cards" to reach the foundations, as the text's object asks; under version 1 at most 49 cards could
be cleared and no deal could be won).

Choices where the text is unclear:

* "Upwards" goes round the corner, King to Ace (the text's foundations run "from the Jack
  through the 10", past the King, and a full clear needs it). A foundation has no card limit.
* The four opening cards are the first Jack, Queen, King and Ace in the shuffle, taken out of the
  pack before the stock is formed.
* The text plays stock cards "to be played", else to the waste; here every stock card goes to the
  waste first and is played from there (the same thing in one more move).
"""

from __future__ import annotations

from engine.cards import Card, Rank
from engine.core import Move, Pile
from engine.rules import UP, Foundations, PileGame, Stock, build, circular
from engine.words import a, card_name, rank_name

__all__ = ["Friday13"]

#: The rank each foundation is labelled with, ``f0`` to ``f12``.
LABELS = (Rank.JACK, Rank.QUEEN, Rank.KING, *(Rank(r) for r in range(1, 11)))
_FOUNDATIONS = tuple(f"f{i}" for i in range(len(LABELS)))


class Friday13(PileGame):
    """Friday 13: thirteen foundations Jack..Ten, each started in order from the left, built up
    regardless of suit, an Ace on a King; one redeal (001_1b1f3c1dc9fc716f.txt)."""

    key = "friday_13"
    name = "Friday 13"
    aliases = ("friday_the_13th",)
    summary = "Thirteen foundations from Jack to Ten, started left to right, built up in any suit; one redeal."
    rules_text = "001_1b1f3c1dc9fc716f.txt"
    #: 2: foundations build round the corner (an Ace on a King); 1 stopped them at the King.
    rules_version = 2
    #: `_fits` only narrows the layout's rules (each empty foundation takes its own label, in turn).
    fits_within_layout = True
    #: Each foundation is named by its label: "the Jack foundation" ... "the Ten foundation".
    pile_words = {pid: f"the {rank_name(rank)} foundation" for pid, rank in zip(_FOUNDATIONS, LABELS)}
    layout = (
        Foundations(13, base=None, build=build(UP, wrap=True), start=LABELS[:4]),
        Stock(turn=1, redeals=1),
    )

    @property
    def cleared(self) -> int:
        played = sum(len(self.piles[pid]) for pid in _FOUNDATIONS)
        if played == self.total and not all(self.piles[pid].cards for pid in _FOUNDATIONS):
            return self.total - 1
        return played

    def _safe(self, move: Move) -> bool:
        """From 001_1b1f3c1dc9fc716f.txt: suits never matter and a foundation takes any card one rank
        higher, so cards of one rank compete for the foundations one rank below, and for starting
        their own foundation (the text's tip: keep a card to start one). A card is safe once its own
        foundation is started (or this move starts it) and the foundations ready for its rank are at
        least as many as the cards of its rank not yet up: no card of that rank is left waiting."""
        if not self._clears(move):
            return False
        rank = self.piles[move.src].cards[-1].rank
        own = self.piles[_FOUNDATIONS[LABELS.index(rank)]]
        starts = move.dst == own.id and not own.cards
        if not own.cards and not starts:
            return False
        piles = [self.piles[pid].cards for pid in _FOUNDATIONS]
        below = circular(rank, -1)
        waiting = sum(1 for cards in piles if cards and cards[-1].rank == below) + starts
        up = sum(1 for cards in piles for card in cards if card.rank == rank)
        return waiting >= 4 - up

    def _fits(self, pile: Pile, card: Card) -> bool:
        if pile.id[0] == "f" and not pile.cards:
            index = int(pile.id[1:])
            return card.rank == LABELS[index] and all(self.piles[f"f{i}"].cards for i in range(index))
        return super()._fits(pile, card)

    def _misfit(self, pile: Pile, card: Card) -> str:
        if pile.id[0] == "f" and not pile.cards:
            label = LABELS[int(pile.id[1:])]
            name = self.pile_name(pile.id)
            if card.rank != label:
                return f"the {card_name(card)} cannot go on {name}: it starts with {a(rank_name(label))}"
            waiting = next(pid for pid in _FOUNDATIONS if not self.piles[pid].cards)
            return (
                f"the {card_name(card)} cannot start {name} before {self.pile_name(waiting)}: "
                f"the foundations start in order from the left"
            )
        return super()._misfit(pile, card)
