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

from engine.core import Move
from engine.games._safe import built_on_cleared, moved_card
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

    def _safe(self, move: Move) -> bool:
        """From dutchess (003_08087bb95aa03446.txt): the tableau builds down in alternate colours
        round the corner, so a card can only ever hold the card one step below it of the other colour
        (a base card, the last cards of those suits); once both foundations of that colour hold
        those cards, nothing can need it. Not before the player has chosen the base card (that first
        move is the game's choice), and not a tableau pile's last card while a reserve card is left:
        the space must then be filled at once, from the reserve cards showing now, a choice the
        player might rather make later."""
        if not self._clears(move):
            return False
        if move.src[0] == "t" and len(self.piles[move.src].cards) == 1:
            if any(pile.cards for pid, pile in self.piles.items() if pid[0] == "r"):
                return False
        return built_on_cleared(self, moved_card(self, move), Suits.ALTERNATE, wrap=True)
