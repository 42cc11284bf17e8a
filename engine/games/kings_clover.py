"""King's Clover: sixteen fans of three, Aces out at the start, only the King of Clubs fills a space.

Rules text: 003_08087bb95aa03446.txt ("King's Clover"). In the project's words:

* One pack. The four Aces start the foundations ``f0`` to ``f3``; the other 48 cards are dealt
  face up into sixteen fans ``t0`` to ``t15`` of three cards each. There is no stock.
* If no Two lies on top of a fan after the deal, nothing can ever move (every fan is full, no fan
  is empty, and only a Two fits the Aces), so the game reshuffles the pack and deals again, as
  often as needed, before play starts. This is an automatic step of the deal, not a move: it is
  in no move list, and the state field ``reshuffles`` (shown in the views and the position
  string) says how many reshuffles the deal took, 0 for most deals.
* Foundations build up in suit from the Ace to the King.
* The top card of a fan may go to a foundation, or onto another fan one rank above or below it
  (any suit, no wrap between King and Ace); one card at a time.
* A fan never holds more than three cards.
* An empty fan takes only the King of Clubs.
* Cleared: cards on the foundations, the four Aces included (52 to win).

The reshuffle is fixed by the seed, so a deal stays reproducible and checkable: reshuffle ``n``
(``n = 1, 2, ...``) lays out `engine.deal.shuffled` for the seed with the name
``"kings_clover/reshuffle/n"`` in place of the game key (docs/deals.md, step 2: the HMAC message
becomes ``kings_clover/reshuffle/1:42:0`` and so on), a fresh shuffle of a new pack dealt like
the first. The first deal whose fans show a Two is kept. About 18% of seeds need one reshuffle
or more; after `MAX_RESHUFFLES` (a chance below one in 10**40) the last deal is kept as it is.

Rules version 2 (version 1 never reshuffled: a deal with no Two on top was over at once, lost,
with 4 cards cleared).

Choices where the text is unclear:

* "Reshuffle" gathers the whole pack, Aces included, shuffles it anew and deals it again from
  the start (Aces to the foundations, fans of three).
* Which Ace starts which foundation: in the order the Aces come in the shuffle.
"""

from __future__ import annotations

from engine.cards import Card, Rank, Suit
from engine.core import Pile
from engine.deal import shuffled
from engine.rules import EITHER, Foundations, PileGame, Tableau, build
from engine.words import card_name

__all__ = ["KingsClover", "MAX_RESHUFFLES", "reshuffle_name"]

#: The most reshuffles one deal may take (bounded work per deal; far beyond any real need).
MAX_RESHUFFLES = 64


def reshuffle_name(n: int) -> str:
    """The name that stands for the game key in the shuffle of reshuffle ``n`` (1, 2, ...)."""
    return f"kings_clover/reshuffle/{n}"


class KingsClover(PileGame):
    """King's Clover: fans of at most three cards built up or down regardless of suit; only the
    King of Clubs fills a space; a deal with no free Two is reshuffled (003_08087bb95aa03446.txt)."""

    # Auto-collect plays nothing here (`Game._safe` stays False): the fans build up as well as down, so the next card of
    # a card's own suit, in play until it goes up, could always be built on it (only a King with every Queen up could
    # qualify, and the finish plays those).

    key = "kings_clover"
    name = "King's Clover"
    summary = "Sixteen fans of three built up or down, three cards at most; only the King of Clubs fills a space."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "2 to 1"
    #: 2: a deal with no Two on top of a fan is reshuffled (1 left it, over at once).
    rules_version = 2
    total = 52
    #: `_fits` only narrows the layout's rules (a space takes the King of Clubs alone, a fan at most three).
    fits_within_layout = True
    layout = (
        Foundations(4, start=(Rank.ACE,) * 4),
        Tableau(deal=(3,) * 16, build=build(EITHER), face_up=None, limit=3, takes_from="t"),
    )
    state_fields = ("redeals", "reshuffles")
    #: How many times the deal was reshuffled because no Two lay on top of a fan.
    reshuffles: int = 0

    def _deal(self, cards: list[Card]) -> None:
        """Deal ``cards``; then, as an automatic step of the deal, reshuffle and deal again while no
        fan shows a Two (reshuffle ``n`` shuffles under `reshuffle_name` ``(n)`` and the seed)."""
        self.reshuffles = 0
        super()._deal(cards)
        while not self._two_on_top() and self.reshuffles < MAX_RESHUFFLES:
            self.reshuffles += 1
            self.piles = {}
            self._revealed = []
            super()._deal(shuffled(reshuffle_name(self.reshuffles), self.seed, self.packs))

    def _two_on_top(self) -> bool:
        """Whether some fan shows a Two: without one, no card of a fresh deal can ever move."""
        return any(pile.top is not None and pile.top.rank == Rank.TWO for pile in self._fans())

    def _fans(self) -> list[Pile]:
        return [pile for pid, pile in self.piles.items() if pid[0] == "t"]

    def _fits(self, pile: Pile, card: Card) -> bool:
        if pile.id[0] == "t" and not pile.cards:
            return card.rank == Rank.KING and card.suit == Suit.CLUBS
        if pile.id[0] == "t" and len(pile.cards) >= 3:
            return False
        return super()._fits(pile, card)

    def _misfit(self, pile: Pile, card: Card) -> str:
        if pile.id[0] == "t" and not pile.cards:
            return f"the {card_name(card)} cannot fill an empty tableau pile: only the K♣ may"
        if pile.id[0] == "t" and len(pile.cards) >= 3:
            return f"{self.pile_name(pile.id)} holds at most 3 cards"
        return super()._misfit(pile, card)
