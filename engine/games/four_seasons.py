"""Four Seasons (Corner Card): five piles in a cross, base card set by the deal.

Rules text: 003_08087bb95aa03446.txt ("Four Seasons"). In the project's words:

* One pack. Five tableau piles ``t0`` to ``t4`` of one card each, face up; the next card goes to
  foundation ``f0`` (the engine plays it at the deal); the other 46 cards form the stock ``s``.
* That first card's rank is the base: the other foundations start with cards of that rank.
  Foundations build up in suit and circular rank to thirteen cards.
* The tableau builds down in circular rank whatever the suits, one card at a time. A space takes
  any card.
* ``deal`` turns one stock card onto the waste ``w``; there is no redeal.
* Cleared: cards on the foundations, the first included (52 to win).

Choices where the text is unclear:

* The text's worked example plays a card of the base rank "from waste to any empty foundation":
  any empty foundation takes a base card, not only the next in order.
"""

from __future__ import annotations

from engine.core import Move
from engine.games._safe import built_on_cleared, moved_card
from engine.rules import (
    DOWN,
    FIRST,
    UP,
    Empty,
    Foundations,
    PileGame,
    Stock,
    Suits,
    Tableau,
    build,
)

__all__ = ["FourSeasons"]


class FourSeasons(PileGame):
    """Four Seasons: five tableau piles down in circular rank regardless of suit, base card set by
    the deal, one pass (003_08087bb95aa03446.txt)."""

    key = "four_seasons"
    name = "Four Seasons"
    aliases = ("corner_card",)
    summary = "Five piles built down regardless of suit, base set by the deal; one card at a time, one pass."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "4 to 1"
    total = 52
    layout = (
        Foundations(4, base=FIRST, build=build(UP, Suits.SAME, wrap=True), opener="s"),
        Tableau(deal=(1,) * 5, build=build(DOWN, wrap=True), empty=Empty.ANY),
        Stock(turn=1, redeals=0),
    )

    def _safe(self, move: Move) -> bool:
        """From four seasons (003_08087bb95aa03446.txt): the tableau builds down round the corner
        regardless of suit, one card at a time, so a card can only ever hold a card one step below
        it, of any suit (a base card, the last card of every suit); once every foundation holds the
        cards of that step, nothing can need it."""
        if not self._clears(move):
            return False
        return built_on_cleared(self, moved_card(self, move), Suits.ANY, wrap=True)
