"""Calculation (Broken Intervals): four foundations counting in ones, twos, threes and fours.

Rules text: 003_08087bb95aa03446.txt ("Calculation"). In the project's words:

* One pack. Before play an Ace, a Two, a Three and a Four are laid out as the four foundations
  ``f0`` to ``f3``; the other 48 cards form the stock ``s``.
* Suits never matter. Foundation ``f0`` counts in ones (A 2 3 ... K), ``f1`` in twos (2 4 6 8 T
  Q A 3 5 7 9 J K), ``f2`` in threes and ``f3`` in fours, each counting on past the King as if the
  ranks ran on (Queen + 2 is Ace). Every foundation ends with its King: 13 cards.
* The top stock card is always turned up on ``w`` (the engine turns the next one as soon as ``w``
  is empty, and reports it). It must go to a foundation (``w>f1``) or onto one of the four waste
  piles ``t0`` to ``t3`` (``w>t2``), on any card.
* The top card of a waste pile may go to a foundation (``t2>f1``), never to another waste pile.
  There is no redeal.
* Cleared: cards on the foundations, the four starting cards included (52 to win).

Choices where the text is unclear:

* Which Ace, Two, Three and Four start the foundations: the first of each rank in the shuffle
  (the text shows no suits; the game ignores them anyway).
* The text calls the four piles beneath the foundations waste piles; their ids are ``t0`` to
  ``t3`` (``w`` is the turned stock card).
"""

from __future__ import annotations

from engine.cards import Rank
from engine.core import Move
from engine.rules import UP, Foundations, PileGame, Stock, Tableau, any_card, build

__all__ = ["Calculation"]


class Calculation(PileGame):
    """Calculation: foundations A, 2, 3, 4 built in steps of 1, 2, 3, 4 regardless of suit; four
    waste piles; one pass through the stock (003_08087bb95aa03446.txt)."""

    key = "calculation"
    name = "Calculation"
    aliases = ("broken_intervals",)
    summary = "Build four foundations in steps of one, two, three and four; four waste piles, one pass."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "5 to 1"
    total = 52
    #: The text's names: the tableau piles are its waste piles, ``w`` the card turned from the stock.
    pile_words = {"t": "waste pile {n}", "w": "the turned card"}
    layout = (
        Foundations(
            4,
            start=(Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR),
            build=tuple(build(UP, wrap=n > 1, step=n) for n in (1, 2, 3, 4)),  # (f0 ends at its King)
            limit=13,
            takes_from="wt",
        ),
        Tableau(deal=(0,) * 4, build=any_card, takes_from="w"),
        Stock(auto=True),
    )

    def _safe(self, move: Move) -> bool:
        """From calculation (003_08087bb95aa03446.txt): every foundation takes one card of each
        rank, each in its own order, so which foundation a card feeds is the game's strategy: a card
        is safe only as the last of its rank, when three are up and the one foundation left wants
        it (any card goes on any waste pile: none needs it to build on)."""
        if not self._clears(move):
            return False
        rank = self.piles[move.src].cards[-1].rank
        return sum(1 for pid in self._foundation_ids for card in self.piles[pid].cards if card.rank == rank) == 3
