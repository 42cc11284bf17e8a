"""Eight Off: eight tableau piles built down in suit, eight one-card cells.

Rules text: 003_08087bb95aa03446.txt ("Eight Off"). In the project's words:

* One pack, all dealt face up: eight cells ``c0`` to ``c7``, the first four with one card each;
  eight tableau piles ``t0`` to ``t7`` of six cards each. There is no stock.
* Four foundations ``f0`` to ``f3``, each started by an Ace and built up in suit to the King.
* The tableau builds down in suit, one card at a time. An empty tableau pile takes only a King.
* A cell holds one card: the top card of any tableau pile may go to an empty cell (``t3>c5``);
  a cell's card plays to a foundation or onto the tableau.
* Cleared: cards on the foundations (52 to win).

Choices where the text is unclear:

* The text calls the cells "reserves"; they hold one card each, so their ids are ``c0`` to ``c7``.
* A cell's card does not move to another cell (that never helps).
"""

from __future__ import annotations

from engine.core import Move
from engine.rules import (
    DOWN,
    Cells,
    Empty,
    Foundations,
    PileGame,
    Suits,
    Tableau,
    build,
)

__all__ = ["EightOff"]


class EightOff(PileGame):
    """Eight Off: down in suit, one card at a time, Kings fill spaces, eight cells
    (003_08087bb95aa03446.txt)."""

    key = "eight_off"
    name = "Eight Off"
    summary = "Eight piles built down in suit, one card at a time, with eight one-card cells."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "2 to 1"
    total = 52
    layout = (
        Foundations(4),
        Cells(8, deal=(1, 1, 1, 1)),
        Tableau(deal=(6,) * 8, build=build(DOWN, Suits.SAME), empty=Empty.KINGS, face_up=None),
    )

    def _safe(self, move: Move) -> bool:
        """From eight off (003_08087bb95aa03446.txt): the tableau builds down in suit, so the only
        card that could go on a card is the next lower one of its suit, which is on the foundation
        already when the card can go up: every card that can go up is safe (a cell holds one card
        and nothing goes on it)."""
        return self._clears(move)
