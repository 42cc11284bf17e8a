"""Strategy: place every card on seven waste piles, then play them all off in order.

Rules text: 003_08087bb95aa03446.txt ("Strategy"). In the project's words:

* One pack, all in the stock ``s``. The top stock card is always turned up on ``w`` (the engine
  turns the next one as soon as ``w`` is empty, and reports it).
* Stage one, while cards are left in the stock or on ``w``: an Ace goes to an empty foundation
  (``w>f0``); any other card goes onto one of the seven waste piles ``t0`` to ``t6``, on any card
  or into an empty pile (``w>t3``). No other card goes to a foundation, and nothing moves between
  waste piles.
* Stage two begins by itself once the stock and ``w`` are empty: the top card of a waste pile may
  go to a foundation. Foundations build up in suit from the Ace to the King.
* Cleared: cards on the foundations (52 to win).

Choices where the text is unclear or other versions differ:

* Seven waste piles, as the text has them; its note says the official game has eight.
* An Ace must go to a foundation ("play Aces as they appear"); it may not be put on a waste pile.
* The text calls the seven piles waste piles; their ids are ``t0`` to ``t6`` (``w`` is the turned
  stock card).
"""

from __future__ import annotations

from engine.cards import Rank
from engine.core import IllegalCode, IllegalMove, Move
from engine.rules import Foundations, PileGame, Stock, Tableau, any_card

__all__ = ["Strategy"]


class Strategy(PileGame):
    """Strategy: Aces up and every other card onto seven waste piles, then play off the waste
    (003_08087bb95aa03446.txt)."""

    key = "strategy"
    name = "Strategy"
    summary = "Put every card on seven waste piles (Aces up), then play them off to the foundations."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "3 to 1"
    total = 52
    #: The text's names: the tableau piles are its waste piles, ``w`` the card turned from the stock.
    pile_words = {"t": "waste pile {n}", "w": "the turned card"}
    layout = (
        Foundations(4, takes_from="wt"),
        Tableau(deal=(0,) * 7, build=any_card, takes_from="w"),
        Stock(auto=True),
    )

    def _safe(self, move: Move) -> bool:
        """From strategy (003_08087bb95aa03446.txt): nothing moves between the waste piles and any
        card goes on any card, so a card kept out of its foundation only covers others; an Ace turned
        up must go to a foundation, and every empty one is alike: every card that can go up is
        safe."""
        return self._clears(move)

    @property
    def stage(self) -> int:
        """1 while cards remain to be placed, then 2."""
        return 1 if self.piles["w"].cards or self.piles["s"].cards else 2

    def _restrict(self, move: Move) -> None:
        super()._restrict(move)
        if not move.is_transfer or self.stage == 2:
            return
        if move.src == "w" and move.src in self.piles and self.piles["w"].cards:
            ace = self.piles["w"].cards[-1].rank == Rank.ACE
            if ace and move.dst[:1] == "t":
                raise IllegalMove(IllegalCode.NOT_NOW, "an Ace goes straight to a foundation", move)
            if not ace and move.dst[:1] == "f":
                raise IllegalMove(
                    IllegalCode.NOT_NOW, "only Aces go to the foundations until every card is placed", move
                )
        elif move.src[:1] == "t" and move.dst[:1] == "f":
            raise IllegalMove(IllegalCode.NOT_NOW, "the waste piles play off only once every card is placed", move)
