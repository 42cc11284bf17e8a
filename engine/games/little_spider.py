"""Little Spider: deal onto eight piles, then build up or down; Aces of one colour, Kings of the other.

Rules text: 003_08087bb95aa03446.txt ("Little Spider"). In the project's words:

* One pack. Eight tableau piles ``t0`` to ``t7`` of one card each, face up; the other 44 cards
  form the stock ``s``.
* Four foundations ``f0`` to ``f3``. Two of them start with Aces and build up in suit to the King;
  the other two start with Kings and build down in suit to the Ace. The two Aces must be of one
  colour and the two Kings of the other: the first Ace or King played decides which.
* Stage one, while the stock has cards: ``deal`` puts one card on each tableau pile, ``t0``
  first, empty piles included. Top cards of the tableau may go to foundations; no card moves
  between tableau piles.
* Stage two, once the stock is empty (it begins by itself): top cards still go to foundations, and
  may also move onto another tableau pile one rank up or down, any suit, King and Ace being
  neighbours. One card at a time; an empty pile is never filled.
* Cleared: cards on the foundations (52 to win).

Choices where the text is unclear or other versions differ:

* The official rule ties each tableau pile to one foundation during the deal; the text leaves it
  out, and so does this game.
* The text's single row of eight piles is used (the official layout has two rows of four, which
  changes nothing here).
"""

from __future__ import annotations

from engine.cards import Card, Colour, Rank
from engine.core import IllegalCode, IllegalMove, Move, Pile
from engine.rules import (
    DOWN,
    EITHER,
    UP,
    Empty,
    Foundations,
    PileGame,
    Stock,
    Suits,
    Tableau,
    build,
    rule_words,
)
from engine.words import card_name

__all__ = ["LittleSpider"]

_UP_IN_SUIT = build(UP, Suits.SAME)
_DOWN_IN_SUIT = build(DOWN, Suits.SAME)


def _other_colour(colour: Colour) -> Colour:
    return Colour.BLACK if colour == Colour.RED else Colour.RED


class LittleSpider(PileGame):
    """Little Spider: two stages, Aces of one colour up and Kings of the other down
    (003_08087bb95aa03446.txt)."""

    # Auto-collect plays nothing here (`Game._safe` stays False): the first Ace or King up chooses the colours, and in
    # stage two the piles build up or down round the corner regardless of suit, so the next card of a card's own suit
    # could always be built on it.

    key = "little_spider"
    name = "Little Spider"
    summary = "Deal onto eight piles, then build up or down; two Aces up and two Kings down, by colour."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "5 to 1"
    total = 52
    layout = (
        Foundations(4, base=None, takes_from="t"),
        Tableau(deal=(1,) * 8, build=build(EITHER, wrap=True), empty=Empty.NONE, face_up=None),
        Stock(to="t"),
    )

    def _fits(self, pile: Pile, card: Card) -> bool:
        if pile.id[0] != "f":
            return super()._fits(pile, card)
        if pile.cards:
            rule = _UP_IN_SUIT if pile.cards[0].rank == Rank.ACE else _DOWN_IN_SUIT
            return rule(pile.cards[-1], card)
        if card.rank not in (Rank.ACE, Rank.KING):
            return False
        for other in self.piles.values():
            if other.id[0] == "f" and other.cards:
                first = other.cards[0]
                same_end = first.rank == card.rank
                if same_end != (first.colour == card.colour):
                    return False
        return True

    def _misfit(self, pile: Pile, card: Card) -> str:
        if pile.id[0] != "f":
            return super()._misfit(pile, card)
        what = card_name(card)
        if pile.cards:
            top = card_name(pile.cards[-1])
            if pile.cards[0].rank == Rank.ACE:
                rule = f"a foundation started with an Ace must {rule_words(_UP_IN_SUIT)}"
            else:
                rule = f"a foundation started with a King must {rule_words(_DOWN_IN_SUIT)}"
            return f"the {what} cannot go on the {top} on {self.pile_name(pile.id)}: {rule}"
        if card.rank not in (Rank.ACE, Rank.KING):
            return f"the {what} cannot go on an empty foundation: a foundation starts with an Ace or a King"
        first = next(other.cards[0] for other in self.piles.values() if other.id[0] == "f" and other.cards)
        aces = first.colour if first.rank == Rank.ACE else _other_colour(first.colour)
        return (
            f"the {what} cannot start a foundation: in this deal the {aces} Aces build up "
            f"and the {_other_colour(aces)} Kings build down"
        )

    def _restrict(self, move: Move) -> None:
        super()._restrict(move)
        if move.is_transfer and move.src[:1] == "t" and move.dst[:1] == "t" and self.piles["s"].cards:
            raise IllegalMove(IllegalCode.NOT_NOW, "no play between tableau piles until the stock is empty", move)
