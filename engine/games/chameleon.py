"""Chameleon: Canfield's layout, tableau built down regardless of suit, one pass one card at a time.

Rules text: 003_08087bb95aa03446.txt ("Chameleon"). In the project's words:

* One pack. A reserve ``r0`` of thirteen cards, only its top card face up; four tableau piles
  ``t0`` to ``t3`` of one card each; the next card goes to foundation ``f0`` (the engine plays it
  at the deal); the other 34 cards form the stock ``s``.
* The rank of that first foundation card is the base: the other foundations start with a card of
  that rank. Foundations build up in suit and circular rank to thirteen cards.
* The tableau builds down in circular rank whatever the suits (the King on the Ace). Any run so
  built may move between tableau piles as a block (``t0>t2x3``). The top card of the reserve, of
  a tableau pile or of the waste may be played onto the tableau or a foundation.
* A tableau pile left empty is filled at once from the reserve (the engine does it and reports the
  cards); once the reserve is empty, a space takes any card or run.
* ``deal`` turns one stock card onto the waste ``w``; there is no redeal.
* Cleared: cards on the foundations, the first included (52 to win).

Choices where the text is unclear or other versions differ:

* Four tableau piles, as the text has them; its note says the official game has three.
* Published Chameleon has a twelve-card reserve; the text's thirteen is used. The reserve shows
  only its top card (the text is silent).
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

__all__ = ["Chameleon"]


class Chameleon(PileGame):
    """Chameleon: four tableau piles built down in circular rank regardless of suit, runs move,
    reserve fills spaces automatically, one pass (003_08087bb95aa03446.txt)."""

    key = "chameleon"
    name = "Chameleon"
    summary = "Canfield-like, tableau down regardless of suit with runs moving; one card at a time, no redeal."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "4 to 1"
    total = 52
    layout = (
        Foundations(4, base=FIRST, build=build(UP, Suits.SAME, wrap=True), opener="s"),
        Reserve(deal=(13,), face_up=1, fill=Fill.AUTO),
        Tableau(deal=(1,) * 4, build=build(DOWN, wrap=True), empty=Empty.ANY, blocks=True),
        Stock(turn=1, redeals=0),
    )

    def _safe(self, move: Move) -> bool:
        """From chameleon (003_08087bb95aa03446.txt): the tableau builds down round the corner
        regardless of suit, so a card can only ever hold a card one step below it, of any suit (a
        base card, the last card of every suit); once every foundation holds the cards of that step,
        nothing can need it. The stock is turned once, a card at a time: the waste order never
        matters."""
        if not self._clears(move):
            return False
        return built_on_cleared(self, moved_card(self, move), Suits.ANY, wrap=True)
