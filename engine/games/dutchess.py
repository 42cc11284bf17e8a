"""Dutchess (Duchess, Glenwood): four reserve fans, the player picks the base card.

Rules text: 003_08087bb95aa03446.txt ("Dutchess"). In the project's words:

* One pack. Four reserve fans ``r0`` to ``r3`` of three cards each, all face up (only the top card
  of a fan plays); four tableau piles ``t0`` to ``t3`` of one card each; the other 36 cards form
  the stock ``s``.
* The first move must put a reserve card on a foundation (``r2>f0``); nothing else may be played
  before it. Its rank is the base: the other foundations start with cards of that rank.
  Foundations build up in suit and circular rank to thirteen cards.
* The tableau builds down in alternate colours and circular rank. Only the top card of a tableau
  pile plays to a foundation; between tableau piles a pile moves only as a whole.
* While any reserve card is left, an empty tableau pile must be filled from a reserve (the player
  picks which top card) before any other move. Once the reserves are empty, a space takes any card.
* ``deal`` turns one stock card onto the waste ``w``; one ``redeal`` is allowed.
* Cleared: cards on the foundations (52 to win).

Choices where the text is unclear:

* "You must fill it from the reserves" is read as a duty, as its "may" afterwards suggests: while
  a space is open and a reserve card is left, filling the space is the only legal move. The player
  chooses the reserve card, since there are four fans.
"""

from __future__ import annotations

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

__all__ = ["Dutchess"]


class Dutchess(PileGame):
    """Dutchess: base card chosen from four reserve fans, whole piles move, spaces must be filled
    from the reserves, one redeal (003_08087bb95aa03446.txt)."""

    key = "dutchess"
    name = "Dutchess"
    aliases = ("duchess", "glenwood")
    summary = "Pick the base card from four reserve fans; whole piles move; one card at a time, one redeal."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "3 to 1"
    total = 52
    layout = (
        Foundations(4, base=FIRST, build=build(UP, Suits.SAME, wrap=True), opener="r"),
        Reserve(deal=(3,) * 4, fill=Fill.MUST),
        Tableau(deal=(1,) * 4, build=build(DOWN, Suits.ALTERNATE, wrap=True), empty=Empty.ANY, whole=True),
        Stock(turn=1, redeals=1),
    )
