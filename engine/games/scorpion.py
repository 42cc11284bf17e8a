"""Scorpion: build four suits from King down to Ace on the tableau, moving any face-up card with all above it.

Rules text: 003_08087bb95aa03446.txt ("Scorpion"). In the project's words:

* One pack. Seven tableau piles ``t0`` to ``t6`` of seven cards each, dealt a row at a time; in
  ``t0`` to ``t3`` the three bottom cards are face down, every other card is face up. The last
  three cards form the stock ``s``. There are no foundations.
* Any face-up card may be moved onto the top card of another pile if that card is of its suit and
  one rank higher; every card lying on it goes along (``t5>t0x4`` moves the fourth card from the
  top of ``t5`` and the three above it). Nothing is played on an Ace.
* Only a King, with whatever lies on it, may move to an empty pile (``t2>t6x3``).
* A face-down card left on top of a pile is turned up at once (the engine does it and reports it).
* ``deal`` turns the three stock cards face up onto ``t0``, ``t1`` and ``t2``; it is legal only when
  no other move is.
* The game is won when the cards lie in four piles, each from a King down to the Ace of its suit.
* Cleared: for every pile whose bottom card is a face-up King, the cards from that King up the
  pile for as long as each is the next lower card of the King's suit (the text's own scoring of
  "foundation" piles). 52 cleared is exactly the winning layout.

Choices where the text is unclear:

* The text deals "when no other play remains"; read as a rule (``not_now`` before that).
* A King that already lies at the bottom of its pile may not move to an empty pile (the move would
  change nothing and could be played back and forth).
* The deal is made a row at a time, as cards are dealt by hand; the text does not say.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.cards import Card, Rank, Suit
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile
from engine.words import card_name, counted

__all__ = ["Scorpion"]

_PILES = tuple(f"t{i}" for i in range(7))
_DOWN = 3  # face-down cards at the bottom of each of the first four piles


def _next_lower(top: Card, card: Card) -> bool:
    """``card`` is the next lower card of ``top``'s suit."""
    return card.suit == top.suit and card.rank == top.rank - 1


class Scorpion(Game):
    """Scorpion (Snake): any face-up card moves with everything above it onto the next higher card
    of its suit; Kings to spaces; three cards dealt at the end (003_08087bb95aa03446.txt)."""

    # Auto-collect plays nothing here (`Game._safe` stays False): there are no foundations: a suit is complete only on
    # the tableau, and which card to move there is the game.

    key = "scorpion"
    name = "Scorpion"
    aliases = ("snake",)
    summary = "Move any face-up card, with all above it, onto the next higher card of its suit; no foundations."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "15 to 1"

    def _deal(self, cards: list[Card]) -> None:
        for i, pid in enumerate(_PILES):
            self.piles[pid] = Pile(pid, cards[i : 49 : len(_PILES)], _DOWN if i < 4 else 0)
        self.piles["s"] = Pile("s", cards[49:][::-1], 3)

    @property
    def cleared(self) -> int:
        total = 0
        for pid in _PILES:
            pile = self.piles[pid]
            cards = pile.cards
            if not cards or pile.down or cards[0].rank != Rank.KING:
                continue
            n = 1
            while n < len(cards) and _next_lower(cards[n - 1], cards[n]):
                n += 1
            total += n
        return total

    def _candidates(self) -> Iterator[Move]:
        tops: dict[tuple[int, Suit], str] = {
            (p.cards[-1].rank, p.cards[-1].suit): pid for pid, p in self.piles.items() if pid != "s" and p.cards
        }
        spaces = [pid for pid in _PILES if not self.piles[pid].cards]
        for src in _PILES:
            pile = self.piles[src]
            for index in range(pile.down, len(pile.cards)):
                card = pile.cards[index]
                count = len(pile.cards) - index
                if card.rank == Rank.KING:
                    if index:
                        for dst in spaces:
                            yield Move(src=src, dst=dst, count=count)
                    continue
                onto = tops.get((card.rank + 1, card.suit))
                if onto is not None and onto != src:
                    yield Move(src=src, dst=onto, count=count)
        yield Move(action="deal")

    def _check(self, move: Move) -> None:
        if not move.is_transfer:
            if move.action != "deal":
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"Scorpion has no action {move.action!r}", move)
            if move.arg:
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, "'deal' takes no argument", move)
            if not self.piles["s"].cards:
                raise IllegalMove(IllegalCode.STOCK_EMPTY, "the stock has been dealt", move)
            if any(self._passes(m) for m in self._candidates() if m.is_transfer):
                raise IllegalMove(IllegalCode.NOT_NOW, "deal only when no other move is left", move)
            return
        src, dst = self.pile(move.src, move), self.pile(move.dst, move)
        if src.id not in _PILES or dst.id not in _PILES or src is dst:
            raise IllegalMove(IllegalCode.WRONG_PILE, "cards move only from one tableau pile to another", move)
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(src.id)} is empty", move)
        if move.count > len(src):
            raise IllegalMove(
                IllegalCode.BAD_COUNT, f"{self.pile_name(src.id)} has only {counted(len(src), 'card')}", move
            )
        if move.count > src.up:
            held = f"only {counted(src.up, 'face-up card')}" if src.up else "no face-up card"
            raise IllegalMove(IllegalCode.FACE_DOWN, f"{self.pile_name(src.id)} has {held}", move)
        card = src.cards[-move.count]
        if not dst.cards:
            if card.rank != Rank.KING:
                raise IllegalMove(IllegalCode.DOES_NOT_FIT, "only a King may fill an empty tableau pile", move)
            if move.count == len(src):
                raise IllegalMove(
                    IllegalCode.DOES_NOT_FIT,
                    f"the {card_name(card)} already lies at the bottom of {self.pile_name(src.id)}",
                    move,
                )
            return
        if not _next_lower(dst.cards[-1], card):
            raise IllegalMove(
                IllegalCode.DOES_NOT_FIT,
                f"the {card_name(card)} cannot go on the {card_name(dst.cards[-1])}: "
                f"a card goes only on the next higher card of its suit",
                move,
            )

    def _describe(self, move: Move) -> str:
        if move.action == "deal":
            return "deal the three stock cards to tableau piles 1, 2 and 3"
        return super()._describe(move)

    def _perform(self, move: Move) -> None:
        if move.is_transfer:
            src = self.piles[move.src]
            self.piles[move.dst].cards.extend(self._take(src, move.count))
            self._turn_up(src)
        else:
            for pid in _PILES[:3]:
                self._add(self.piles[pid], self._take(self.piles["s"], 1))
