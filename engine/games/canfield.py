"""Canfield, the historical game: a thirteen-card reserve, base card set by the deal.

Rules text: 003_08087bb95aa03446.txt ("Canfield"). In the project's words:

* One pack. A reserve ``r0`` of thirteen cards, only its top card face up; four tableau piles
  ``t0`` to ``t3`` of one card each; the next card goes to foundation ``f0`` (the engine plays it
  at the deal); the other 34 cards form the stock ``s``.
* The rank of that first foundation card is the base: every other foundation ``f1`` to ``f3``
  starts with a card of that rank. Foundations build up in suit and circular rank (King, Ace,
  Two...) to thirteen cards.
* The tableau builds down in alternate colours and circular rank (a red King on a black Ace). Only
  the top card of a tableau pile plays to a foundation; between tableau piles a pile moves only as
  a whole (``t1>t3x4``), its bottom card fitting where it lands.
* A tableau pile left empty is filled at once from the reserve (the engine does it and reports
  the cards). Once the reserve is empty, a space takes any card or whole pile.
* The top reserve card plays to a foundation or onto the tableau.
* ``deal`` turns three stock cards onto the waste ``w``; ``redeal`` as often as wanted.
* Cleared: cards on the foundations, the first included (52 to win).

Choices where the text is unclear or other versions differ:

* This is the text's "historical" Canfield: whole piles only between tableau piles. Modern
  Canfield moves any built run; the text is followed.
* The reserve shows only its top card, as in every published Canfield (the text is silent).
* Unlimited redeals mean a blocked game still has ``redeal``, so it is ``over`` only when nothing
  at all can be played; a stuck player resigns.
"""

from __future__ import annotations

from engine.core import Move
from engine.games._safe import built_on_cleared, moved_card, stock_order_kept
from engine.rules import (
    DOWN,
    FIRST,
    UP,
    Empty,
    Fill,
    Foundations,
    PileGame,
    Reserve,
    Stock,
    Suits,
    Tableau,
    build,
)

__all__ = ["Canfield"]


class Canfield(PileGame):
    """Canfield (historical): whole tableau piles move, reserve fills spaces automatically,
    three-card deals with unlimited redeals (003_08087bb95aa03446.txt)."""

    key = "canfield"
    name = "Canfield"
    aliases = ("fascination", "demon")
    summary = "Thirteen-card reserve, base set by the deal; whole piles move; deal three, redeal at will."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "5 to 1"
    total = 52
    layout = (
        Foundations(4, base=FIRST, build=build(UP, Suits.SAME, wrap=True), opener="s"),
        Reserve(deal=(13,), face_up=1, fill=Fill.AUTO),
        Tableau(deal=(1,) * 4, build=build(DOWN, Suits.ALTERNATE, wrap=True), empty=Empty.ANY, whole=True),
        Stock(turn=3, redeals=None),
    )

    def _safe(self, move: Move) -> bool:
        """From canfield (003_08087bb95aa03446.txt): the tableau builds down in alternate colours
        round the corner, so a card can only ever hold the card one step below it of the other colour
        (a base card, the last cards of those suits); once both foundations of that colour hold
        those cards, nothing can need it (a pile emptied by it is filled from the reserve as it would
        have been later, by the same cards in the same order). A waste card only while the later
        deals stay as they are (`stock_order_kept`): three at a time, redealt at will, one card
        fewer regroups every later pass."""
        if not self._clears(move) or not stock_order_kept(self, move):
            return False
        return built_on_cleared(self, moved_card(self, move), Suits.ALTERNATE, wrap=True)
