"""Golf: clear seven reserve piles onto one foundation, a rank up or down at a time.

Rules text: 003_08087bb95aa03446.txt ("Golf"). In the project's words:

* One pack. Seven reserve piles of five cards each, all face up; 17 cards form the stock.
* One foundation, which is also the waste. At the deal the top stock card is turned onto it (the
  engine does it and reports the card).
* The top card of any reserve pile may be played to the foundation if it is one rank above or below
  the foundation's top card, whatever the suit (``r3>f0``). Ace and King are not neighbours: there
  is no wrap.
* ``deal`` turns the next stock card onto the foundation. There is no redeal.
* Cleared: cards played from the reserve piles (35 to win). The text's goal, all cards on the
  foundation, is the same thing: once the reserve is empty, the rest of the stock can always be
  turned over.

Choices:

* Queen on King. The text plays a Queen on a King in its own example and leaves the 'official' rule,
  which forbids it, to the player. Rule option ``queen_on_king``: true (the default) follows the
  text; false forbids any card on a King, as the official game does. The option is recorded with a
  race and in the position string.
* The text does not say how play starts; the usual start, one stock card turned to the foundation,
  is used.
"""

from __future__ import annotations

from typing import ClassVar

from engine.cards import Card, Rank
from engine.core import Option, Pile
from engine.rules import Foundations, PileGame, Reserve, Stock, up_or_down
from engine.words import card_name

__all__ = ["Golf"]


class Golf(PileGame):
    """Golf: seven reserve piles of five, one foundation, one rank up or down, no wrap
    (003_08087bb95aa03446.txt). Option ``queen_on_king`` (default true, as the text)."""

    # Auto-collect plays nothing here (`Game._safe` stays False): every card played changes the foundation's top card,
    # and so which cards fit next: which column to play is the whole game.

    key = "golf"
    name = "Golf"
    summary = "Play reserve cards one rank up or down onto a single foundation; no wrap at King-Ace."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "40 to 1"
    total = 35
    options: ClassVar = {
        "queen_on_king": Option(True, "a Queen may be played on a King (the text); false: nothing on a King"),
    }
    #: `_fits` only narrows the layout's rules (nothing on a King unless ``queen_on_king``).
    fits_within_layout = True
    #: The seven reserve piles are the table's columns.
    pile_words = {"r": "column {n}"}
    layout = (
        Foundations(1, base=None, build=up_or_down),
        Reserve(deal=(5,) * 7),
        Stock(turn=1, redeals=0, to="f0"),
    )

    def _deal(self, cards: list[Card]) -> None:
        super()._deal(cards)
        self._add(self.piles["f0"], self._take(self.piles["s"], 1))

    @property
    def cleared(self) -> int:
        return self.total - sum(len(p) for pid, p in self.piles.items() if pid[0] == "r")

    def _fits(self, pile: Pile, card: Card) -> bool:
        top = pile.top
        if top is not None and top.rank == Rank.KING and not self.rule_options["queen_on_king"]:
            return False
        return super()._fits(pile, card)

    def _misfit(self, pile: Pile, card: Card) -> str:
        top = pile.top
        if top is not None and top.rank == Rank.KING and not self.rule_options["queen_on_king"]:
            return f"the {card_name(card)} cannot go on the {card_name(top)}: in this race nothing goes on a King"
        if top is not None and {top.rank, card.rank} == {Rank.ACE, Rank.KING}:
            return f"the {card_name(card)} cannot go on the {card_name(top)}: Ace and King are not neighbours"
        return super()._misfit(pile, card)
