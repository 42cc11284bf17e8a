"""King's Clover: sixteen fans of three, Aces out at the start, only the King of Clubs fills a space.

Rules text: 003_08087bb95aa03446.txt ("King's Clover"). In the project's words:

* One pack. The four Aces start the foundations ``f0`` to ``f3``; the other 48 cards are dealt
  face up into sixteen fans ``t0`` to ``t15`` of three cards each. There is no stock.
* Foundations build up in suit from the Ace to the King.
* The top card of a fan may go to a foundation, or onto another fan one rank above or below it
  (any suit, no wrap between King and Ace); one card at a time.
* A fan never holds more than three cards.
* An empty fan takes only the King of Clubs.
* Cleared: cards on the foundations, the four Aces included (52 to win).

Choices where the text is unclear:

* The text says to reshuffle when no Two is free at the start. A race's deal is fixed, so there is
  no reshuffle: such a deal has no legal move and is over at once (lost).
* Which Ace starts which foundation: in the order the Aces come in the shuffle.
"""

from __future__ import annotations

from engine.cards import Card, Rank, Suit
from engine.core import Pile
from engine.rules import EITHER, Foundations, PileGame, Tableau, build

__all__ = ["KingsClover"]


class KingsClover(PileGame):
    """King's Clover: fans of at most three cards built up or down regardless of suit; only the
    King of Clubs fills a space (003_08087bb95aa03446.txt)."""

    key = "kings_clover"
    name = "King's Clover"
    summary = "Sixteen fans of three built up or down, three cards at most; only the King of Clubs fills a space."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "2 to 1"
    total = 52
    layout = (
        Foundations(4, start=(Rank.ACE,) * 4),
        Tableau(deal=(3,) * 16, build=build(EITHER), face_up=None, limit=3, takes_from="t"),
    )

    def _fits(self, pile: Pile, card: Card) -> bool:
        if pile.id[0] == "t" and not pile.cards:
            return card.rank == Rank.KING and card.suit == Suit.CLUBS
        if pile.id[0] == "t" and len(pile.cards) >= 3:
            return False
        return super()._fits(pile, card)
