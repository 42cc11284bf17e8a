"""Queen's Quadrille: eight foundations from Fives down and Sixes up; Queens wait on their own pile.

Rules text: 003_08087bb95aa03446.txt ("Queen's Quadrille"). In the project's words:

* One pack, all in the stock ``s``. The top stock card is always turned up on ``w`` (the engine
  turns the next one as soon as ``w`` is empty, and reports it).
* Eight foundations ``f0`` to ``f7``; suits never matter. Any empty foundation takes a Five or a
  Six. A Five's foundation builds down to the Ace and then takes a King (Five, Four, Three, Two,
  Ace, King: six cards). A Six's foundation builds up to the Queen (Six to Queen: seven cards).
* The turned card goes to a foundation it fits, or else to a waste pile: a Queen onto the Queens'
  pile ``t3``, any other card onto one of the three central waste piles ``t0`` to ``t2``, on any
  card. The top card of any waste pile, the Queens' pile included, may be played to a foundation.
  Nothing moves between waste piles, and there is no redeal.
* Cleared: cards on the foundations (52 to win).

Choices where the text is unclear:

* A card that could go to a foundation may still be put on a waste pile (the text only says where
  the cards that cannot go up must go).
* Fives and Sixes are played to any empty foundation; the text's circle of eight has no fixed
  places for them.
"""

from __future__ import annotations

from engine.cards import Card, Rank
from engine.core import Move, Pile
from engine.rules import Foundations, PileGame, Stock, Tableau, any_card, circular
from engine.words import card_name

__all__ = ["QueensQuadrille"]

#: Cards a foundation holds, by the rank it starts with.
_SIZE = {Rank.FIVE: 6, Rank.SIX: 7}
#: The ranks of a Five's foundation and of a Six's, in the order they go up.
_CHAINS = (
    (Rank.FIVE, Rank.FOUR, Rank.THREE, Rank.TWO, Rank.ACE, Rank.KING),
    (Rank.SIX, Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN),
)


class QueensQuadrille(PileGame):
    """Queen's Quadrille: Fives down to Ace then King, Sixes up to Queen, three waste piles and a
    Queens' pile, one pass (003_08087bb95aa03446.txt)."""

    key = "queens_quadrille"
    name = "Queen's Quadrille"
    summary = "Eight foundations: Fives down to Ace then King, Sixes up to Queen; Queens wait on their own pile."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "25 to 1"
    total = 52
    #: The text's names: waste piles, the Queens' pile, and ``w`` the card turned from the stock.
    pile_words = {"t": "waste pile {n}", "t3": "the Queens' pile", "w": "the turned card"}
    layout = (
        Foundations(8, base=None, takes_from="wt"),
        Tableau(deal=(0,) * 4, build=any_card, takes_from="w"),
        Stock(auto=True),
    )

    def _safe(self, move: Move) -> bool:
        """From queen's quadrille (003_08087bb95aa03446.txt): any card goes on any waste pile, so no
        card needs another to build on, but suits never matter on the foundations: a card takes a
        foundation's place that another card of its rank might want. A Five or a Six is always safe
        (eight foundations for four Fives and four Sixes); any other card once the foundations
        waiting for its rank are at least as many as the cards of its rank not yet up."""
        if not self._clears(move):
            return False
        rank = self.piles[move.src].cards[-1].rank
        if rank in _SIZE:
            return True
        chain = next(chain for chain in _CHAINS if rank in chain)
        before = chain[chain.index(rank) - 1]
        foundations = [self.piles[pid].cards for pid in self._foundation_ids]
        waiting = sum(1 for cards in foundations if cards and cards[-1].rank == before)
        up = sum(1 for cards in foundations for card in cards if card.rank == rank)
        return waiting >= 4 - up

    def _fits(self, pile: Pile, card: Card) -> bool:
        if pile.id[0] == "t":
            return (card.rank == Rank.QUEEN) == (pile.id == "t3")
        if pile.id[0] != "f":
            return False
        if not pile.cards:
            return card.rank in _SIZE
        first, top = pile.cards[0], pile.cards[-1]
        if len(pile.cards) >= _SIZE[first.rank]:
            return False
        step = -1 if first.rank == Rank.FIVE else 1
        return card.rank == circular(top.rank, step)

    def _misfit(self, pile: Pile, card: Card) -> str:
        what = card_name(card)
        if pile.id[0] == "t":
            if card.rank == Rank.QUEEN:
                return "a Queen goes only on the Queens' pile"
            return "only Queens go on the Queens' pile"
        if not pile.cards:
            return f"the {what} cannot go on an empty foundation: a foundation starts with a Five or a Six"
        first, top = pile.cards[0], pile.cards[-1]
        name = self.pile_name(pile.id)
        if len(pile.cards) >= _SIZE[first.rank]:
            return f"{name} is complete"
        rule = (
            "down by one from its Five to the Ace, then the King"
            if first.rank == Rank.FIVE
            else "up by one from its Six to the Queen"
        )
        return f"the {what} cannot go on the {card_name(top)} on {name}: it builds {rule}, regardless of suit"
