"""Penguin: seven piles of seven, seven one-card flippers, the penguin sets the base rank.

Rules text: 003_08087bb95aa03446.txt ("Penguin"). In the project's words:

* One pack, all dealt face up. The first card of the deal is the penguin: it lies at the bottom of
  tableau pile ``t0``. The other three cards of its rank are sent up to start foundations ``f1``
  to ``f3`` as they come (``f0`` waits for the penguin); the other 48 cards complete seven tableau
  piles ``t0`` to ``t6`` of seven cards. Seven cells ``c0`` to ``c6`` (the flippers) start empty.
  There is no stock.
* Foundations build up in suit and circular rank from the penguin's rank, thirteen cards each.
* The tableau builds down in suit and circular rank. A run so built moves as a block
  (``t2>t4x3``). An empty tableau pile takes only a card one rank below the penguin (a King when
  the penguin is an Ace), or a run headed by one.
* A cell holds one card: any top tableau card may go to an empty cell; a cell's card plays to a
  foundation or onto the tableau.
* Cleared: cards on the foundations, the three sent up at the deal included (52 to win).

Choices where the text is unclear:

* The text calls the cells reserves or flippers; they hold one card each, so their ids are ``c0``
  to ``c6``.
* The text puts no limit on a block's length (some computer versions limit it by the free cells);
  any built run moves.
"""

from __future__ import annotations

from engine.cards import Card
from engine.core import Move
from engine.games._safe import moved_card, steps_from_base
from engine.rules import (
    DOWN,
    FIRST,
    UP,
    Cells,
    Empty,
    Foundations,
    PileGame,
    Suits,
    Tableau,
    build,
)

__all__ = ["Penguin"]


class Penguin(PileGame):
    """Penguin: down in suit circular, runs move, seven cells, spaces take the rank below the
    penguin (003_08087bb95aa03446.txt)."""

    key = "penguin"
    name = "Penguin"
    summary = "Seven piles of seven built down in suit; the penguin sets the base; seven one-card cells."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "2 to 1"
    total = 52
    layout = (
        Foundations(4, base=FIRST, build=build(UP, Suits.SAME, wrap=True)),
        Cells(7),
        Tableau(
            deal=(7,) * 7,
            build=build(DOWN, Suits.SAME, wrap=True),
            empty=Empty.BELOW_BASE,
            blocks=True,
            face_up=None,
        ),
    )

    def _safe(self, move: Move) -> bool:
        """From penguin (003_08087bb95aa03446.txt): the tableau builds down in suit round the
        corner, so the only card that could go on a card is the next lower one of its suit, which is
        on the foundation already when the card can go up: safe, except the penguin itself, the last
        base card, on which the last card of its suit could still be built."""
        if not self._clears(move):
            return False
        return steps_from_base(self, moved_card(self, move)) != 0

    def _deal(self, cards: list[Card]) -> None:
        penguin = cards[0]
        mates = [c for c in cards[1:] if c.rank == penguin.rank]
        super()._deal([penguin] + [c for c in cards[1:] if c.rank != penguin.rank])
        for i, card in enumerate(mates, start=1):
            self._add(self.piles[f"f{i}"], [card])
