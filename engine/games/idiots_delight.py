"""Idiot's Delight (Aces Up as the text plays it): discard any top card beaten by a higher one of its suit.

Rules text: 003_08087bb95aa03446.txt ("Idiot's Delight"). In the project's words:

* One pack. Four tableau piles ``t0`` to ``t3`` get one card each, face up; the other 48 cards form
  the stock ``s``.
* Aces are low and Kings high. When two top cards are of one suit, the lower may be dragged onto
  the higher (``t2>t0``): it goes to the foundation ``f0``, and the higher card stays.
* A space may be filled with the top card of another pile that holds two cards or more
  (``t1>t3`` onto an empty ``t3``).
* ``deal`` puts one stock card face up on each pile, ``t0`` to ``t3``. There is no redeal.
* Kings can never be discarded. The game is won when only the four Kings are left, one to a pile.
  Cleared: cards on the foundation; 48 to win (the four Kings stay).

Choices where the text is unclear:

* Kings high, as the text plays it (it names Aces high as the official rule, but does not).
* Spaces: the text lets the player fill them "before each deal". Here a space may be filled at any
  time, before the next deal or after the last one, always from a pile of two cards or more; so
  when 48 cards are discarded, the Kings can always be spread one to a pile, and 48 cleared is a
  win.
* Play never has to wait for a deal: ``deal`` is legal whenever the stock has cards.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.cards import Card
from engine.core import IllegalCode, IllegalMove, Move, Pile
from engine.removal import RemovalGame
from engine.words import card_name

__all__ = ["IdiotsDelight"]

_PILES = tuple(f"t{i}" for i in range(4))


class IdiotsDelight(RemovalGame):
    """Idiot's Delight (Aces Up, Firing Squad), Kings high: a lower card of a suit is discarded
    onto a higher one; spaces filled from piles of two or more (003_08087bb95aa03446.txt)."""

    # Auto-collect plays nothing here (`Game._safe` stays False): a card kept could still discard a lower card of its
    # suit, or fill a space, once the higher card showing now is covered by the next deal; no discard is free of that.

    key = "idiots_delight"
    name = "Idiot's Delight"
    aliases = ("aces_up", "firing_squad")
    summary = "Discard a top card when a higher card of its suit shows; Kings stay. Deal four at a time."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "50 to 1"
    total = 48

    def _deal(self, cards: list[Card]) -> None:
        self._new_discard()
        for i, pid in enumerate(_PILES):
            self.piles[pid] = Pile(pid, [cards[i]])
        self._new_stock(cards[len(_PILES) :])

    def _deal_targets(self) -> list[str]:
        return list(_PILES)

    def _transfers(self) -> Iterator[Move]:
        for src in _PILES:
            if self.piles[src].cards:
                for dst in _PILES:
                    if dst != src:
                        yield Move(src=src, dst=dst)

    def _check_transfer(self, move: Move) -> None:
        if move.src not in _PILES or move.dst not in _PILES:
            raise IllegalMove(IllegalCode.WRONG_PILE, "cards move only between tableau piles", move)
        if move.count != 1:
            raise IllegalMove(IllegalCode.BAD_COUNT, "only one card may move at a time", move)
        src, dst = self.piles[move.src], self.piles[move.dst]
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(src.id)} is empty", move)
        card = src.cards[-1]
        if not dst.cards:
            if len(src) < 2:
                raise IllegalMove(
                    IllegalCode.WRONG_PILE, "a space is filled only from a pile of two cards or more", move
                )
            return
        top = dst.cards[-1]
        if top.suit != card.suit or top.rank < card.rank:
            raise IllegalMove(
                IllegalCode.DOES_NOT_FIT,
                f"the {card_name(card)} cannot be discarded onto the {card_name(top)}: "
                f"a card is discarded only onto a higher card of its suit",
                move,
            )

    def _describe(self, move: Move) -> str:
        if move.is_transfer and self.piles[move.dst].cards:
            card, top = self.piles[move.src].cards[-1], self.piles[move.dst].cards[-1]
            return f"discard the {card_name(card)} (the {card_name(top)} beats it)"
        return super()._describe(move)

    def _do_transfer(self, move: Move) -> None:
        if self.piles[move.dst].cards:
            self._discard([move.src])
        else:
            self._add(self.piles[move.dst], self._take(self.piles[move.src], 1))
