"""Klondike, draw three: the patience that ships with Windows.

Rules text: 003_08087bb95aa03446.txt ("Klondike"). In the project's words:

* One pack. Seven tableau piles of one to seven cards, the top card of each face up; the other 24
  cards form the stock.
* Four foundations, each started by an Ace and built up in suit to the King.
* The tableau builds down in alternate colours. A face-up run built that way may move as a block
  (``t3>t5x3``); a space takes only a King, or a run headed by a King. A face-down card left on
  top of a tableau pile is turned up at once (the engine does it and reports the card).
* ``deal`` turns three cards (fewer at the end) from the stock onto the waste; the top waste card is
  playable. When the stock is empty, ``redeal`` turns the waste back into the stock, as often as
  wanted.
* Cleared: cards on the foundations (52 to win).

Choices where the text is silent:

* A card on a foundation stays there (Windows lets it come back to the tableau; the text never
  mentions it, and racing is clearer when cleared cards only go up).
* Unlimited redeals mean a blocked game still has a legal move (``redeal``), so ``over`` stays false
  until the stock and waste are empty too; a stuck player resigns, and the race's time limit ends
  any race.
"""

from __future__ import annotations

from engine.cards import Rank
from engine.core import Move
from engine.games._safe import built_on_cleared, moved_card, stock_order_kept
from engine.rules import STAIRCASE_7, Empty, Foundations, PileGame, Stock, Suits, Tableau, down_alternate

__all__ = ["Klondike"]


class Klondike(PileGame):
    """Klondike, draw three, unlimited redeals; a space takes only a King (003_08087bb95aa03446.txt)."""

    key = "klondike"
    name = "Klondike"
    aliases = ("solitaire", "klondike3")
    summary = "Seven piles built down in alternate colours; stock turned three at a time, redeal at will."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "25 to 1"
    layout = (
        Foundations(4),
        Tableau(deal=STAIRCASE_7, build=down_alternate, empty=Empty.KINGS, blocks=True),
        Stock(turn=3, redeals=None),
    )

    def _safe(self, move: Move) -> bool:
        """From klondike (003_08087bb95aa03446.txt): the tableau builds down in alternate colours, so a
        card of rank r can only ever hold a card of rank r-1 of the other colour; once both foundations
        of that colour have reached r-1, nothing can need it. An Ace holds nothing, and a Two only an
        Ace, which can always go up itself: both are always safe. A waste card only while the later
        deals stay as they are (`stock_order_kept`): the stock turns three at a time and is turned
        back at will, so one card fewer in the waste regroups every later pass, which can bury a
        card needed first and lose a winnable game."""
        if not self._clears(move) or not stock_order_kept(self, move):
            return False
        card = moved_card(self, move)
        return card.rank <= Rank.TWO or built_on_cleared(self, card, Suits.ALTERNATE, wrap=False)
