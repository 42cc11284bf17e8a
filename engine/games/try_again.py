"""Try Again (Old Patience): deal four cards at a time onto four waste piles, then play off.

Rules text: 003_08087bb95aa03446.txt ("Try Again"). In the project's words:

* One pack, all in the stock ``s``. The top stock card is always turned up on ``w`` (the engine
  turns the next one as soon as ``w`` is empty, and reports it).
* Cards are dealt in rounds of four: each turned card goes onto one of the four waste piles ``t0``
  to ``t3`` (``w>t1``), on any card. The state field ``dealt`` counts the cards dealt.
* Between rounds (when ``dealt`` is a multiple of four, and after the last card), the top card of
  any waste pile may be played to a foundation (``t1>f0``). There is no play between waste piles
  and no redeal.
* Four foundations ``f0`` to ``f3``, each started by an Ace and built up to the King by rank
  alone, whatever the suits.
* Cleared: cards on the foundations (52 to win).

Choices where the text is unclear:

* "Play ... to foundations when possible, then deal four more" is read as a rule: no card goes to
  a foundation in the middle of a round of four, and a dealt card always goes to a waste pile
  first (never straight to a foundation).
* The text calls the four piles waste piles; their ids are ``t0`` to ``t3``.
"""

from __future__ import annotations

from engine.cards import Card
from engine.core import IllegalCode, IllegalMove, Move
from engine.games._safe import all_reached, moved_card
from engine.rules import UP, Foundations, PileGame, Stock, Tableau, any_card, build

__all__ = ["TryAgain"]


class TryAgain(PileGame):
    """Try Again: rounds of four cards onto four waste piles, foundations up by rank alone
    (003_08087bb95aa03446.txt). State fields: ``redeals`` (always 0), ``dealt``."""

    key = "try_again"
    name = "Try Again"
    aliases = ("old_patience",)
    summary = "Deal four cards at a time onto four waste piles, then play off by rank, suits ignored."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "50 to 1"
    total = 52
    #: The text's names: the tableau piles are its waste piles, ``w`` the card turned from the stock.
    pile_words = {"t": "waste pile {n}", "w": "the turned card"}
    state_fields = ("redeals", "dealt")
    dealt: int = 0
    layout = (
        Foundations(4, build=build(UP), takes_from="t"),
        Tableau(deal=(0,) * 4, build=any_card, takes_from="w"),
        Stock(auto=True),
    )

    def _safe(self, move: Move) -> bool:
        """From try again (003_08087bb95aa03446.txt): any card goes on any waste pile, so no card
        needs another to build on, but the foundations build up regardless of suit: a card of rank r
        takes a foundation's place that another card of rank r might want. Once every foundation has
        reached r-1, every card of rank r left has a foundation waiting for it."""
        if not self._clears(move):
            return False
        return all_reached(self, moved_card(self, move).rank - 1)

    def _deal(self, cards: list[Card]) -> None:
        self.dealt = 0
        super()._deal(cards)

    def _restrict(self, move: Move) -> None:
        super()._restrict(move)
        mid_round = self.dealt % 4 != 0 and (self.piles["w"].cards or self.piles["s"].cards)
        if mid_round and move.is_transfer and move.dst[:1] == "f":
            raise IllegalMove(IllegalCode.NOT_NOW, "finish dealing the round of four first", move)

    def _perform(self, move: Move) -> None:
        if move.is_transfer and move.src == "w":
            self.dealt += 1
        super()._perform(move)
