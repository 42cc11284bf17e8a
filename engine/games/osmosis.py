"""Osmosis: four reserves; a card goes up only when its rank is already on the first foundation.

Rules text: 003_08087bb95aa03446.txt ("Osmosis"). In the project's words:

* One pack. Four reserve piles ``r0`` to ``r3`` of four cards each, only the top card face up; the
  next card goes to foundation ``f0`` (the engine plays it at the deal); the other 35 cards form
  the stock ``s``. There is no tableau.
* Each foundation holds one suit, in any order of rank. ``f0`` takes any card of its suit.
  The other foundations ``f1`` to ``f3`` are started by cards of the same rank as the first card
  of ``f0`` (one per suit), and a card may go onto one of them only if its suit matches and a card
  of its rank is already on ``f0``.
* The top card of a reserve or of the waste may be played to a foundation.
* ``deal`` turns three stock cards onto the waste ``w``; ``redeal`` as often as wanted.
* Cleared: cards on the foundations, the first included (52 to win).

Choices where the text is unclear or other versions differ:

* The text checks every foundation against the first one; published Osmosis checks each against
  the foundation just above it. The text is followed.
* The text gives no reserve size; the usual four cards each, only the top face up, are used.
* Unlimited redeals mean a blocked game still has ``redeal``; a stuck player resigns.
"""

from __future__ import annotations

from engine.cards import Card
from engine.core import Move, Pile
from engine.games._safe import stock_order_kept
from engine.rules import FIRST, Foundations, PileGame, Reserve, Stock
from engine.words import a, card_name, rank_name, suit_name

__all__ = ["Osmosis"]


class Osmosis(PileGame):
    """Osmosis: suit foundations in any order, gated by the ranks on the first foundation; deal
    three, redeal at will (003_08087bb95aa03446.txt)."""

    key = "osmosis"
    name = "Osmosis"
    aliases = ("treasure_trove",)
    summary = "Foundations by suit in any order; a card goes up only if its rank is on the first foundation."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "2 to 1"
    total = 52
    layout = (
        Foundations(4, base=FIRST, opener="s"),
        Reserve(deal=(4,) * 4, face_up=1),
        Stock(turn=3, redeals=None),
    )

    def _safe(self, move: Move) -> bool:
        """From osmosis (003_08087bb95aa03446.txt): nothing is built outside the foundations, each
        suit has one foundation in any order, and a card up only lets more cards of its rank follow:
        a reserve card is always safe. A waste card only while the later deals stay as they are
        (`stock_order_kept`): three at a time, redealt at will, one card fewer regroups every later
        pass."""
        return self._clears(move) and stock_order_kept(self, move)

    def _fits(self, pile: Pile, card: Card) -> bool:
        if pile.id[0] != "f":
            return super()._fits(pile, card)
        first = self.piles["f0"].cards
        if not pile.cards:
            return super()._fits(pile, card)
        if card.suit != pile.cards[0].suit:
            return False
        return pile.id == "f0" or any(c.rank == card.rank for c in first)

    def _misfit(self, pile: Pile, card: Card) -> str:
        if pile.id[0] != "f" or not pile.cards:
            return super()._misfit(pile, card)
        name = self.pile_name(pile.id)
        if card.suit != pile.cards[0].suit:
            return f"the {card_name(card)} cannot go on {name}: it holds {suit_name(pile.cards[0].suit)} only"
        return (
            f"the {card_name(card)} cannot go on {name} until {a(rank_name(card.rank))} lies on {self.pile_name('f0')}"
        )
