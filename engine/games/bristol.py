"""Bristol: eight piles built down regardless of suit, three reserves fed three cards at a time.

Rules text: 003_08087bb95aa03446.txt ("Bristol"). In the project's words:

* One pack. Eight tableau piles ``t0`` to ``t7`` of three cards each, all face up; three reserve
  piles ``r0`` to ``r2`` of one card each; the other 25 cards form the stock ``s``.
* Four foundations ``f0`` to ``f3``, each started by an Ace and built up to the King by rank
  alone: the suits do not matter.
* The tableau builds down by one rank, whatever the suits. Cards move one at a time. An empty
  tableau pile is never filled.
* Only the top card of a reserve plays, to a foundation or onto the tableau; nothing is ever
  played onto a reserve.
* ``deal`` puts one stock card on each reserve, ``r0`` first (the last deal has one card, for
  ``r0``). There is no redeal.
* Cleared: cards on the foundations (52 to win).

Choices where the text is unclear or other versions differ:

* The text does not say how many cards the tableau starts with; its note cites eight fans of
  three (Morehead and Mott-Smith), so each pile starts with three cards, and its worked example
  plays Deuces "from reserves" before any deal, so each reserve starts with one card.
* Published Bristol moves Kings to the bottom of their fans at the deal; the text never says so,
  and here the deal is left as it falls.
"""

from __future__ import annotations

from engine.core import Move
from engine.games._safe import all_reached, moved_card
from engine.rules import (
    DOWN,
    UP,
    Empty,
    Foundations,
    PileGame,
    Reserve,
    Stock,
    Tableau,
    build,
)

__all__ = ["Bristol"]


class Bristol(PileGame):
    """Bristol: tableau down regardless of suit, foundations up regardless of suit, three
    reserves dealt to (003_08087bb95aa03446.txt)."""

    key = "bristol"
    name = "Bristol"
    summary = "Eight piles built down regardless of suit; deal three cards at a time onto three reserves."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "2 to 1"
    total = 52
    layout = (
        Foundations(4, build=build(UP)),
        Tableau(deal=(3,) * 8, build=build(DOWN), empty=Empty.NONE, face_up=None),
        Reserve(deal=(1, 1, 1)),
        Stock(to="r"),
    )

    def _safe(self, move: Move) -> bool:
        """From bristol (003_08087bb95aa03446.txt): the tableau builds down regardless of suit and
        the foundations build up regardless of suit, so a card of rank r can hold any card of rank
        r-1, and takes a foundation's place that another card of rank r might want; once every
        foundation has reached r-1, every card of rank r-1 is up and every card of rank r left has a
        foundation waiting for it."""
        if not self._clears(move):
            return False
        return all_reached(self, moved_card(self, move).rank - 1)
