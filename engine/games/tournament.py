"""Tournament: two packs onto Ace and King foundations, from eight kibitzers and six dormitzers.

Rules text: 003_08087bb95aa03446.txt ("Tournament"). In the project's words:

* Two packs (104 cards). Eight reserves, the kibitzers ``r0`` to ``r7``, get one card each; six
  waste piles, the dormitzers ``w0`` to ``w5``, get four cards each; all face up. The other 72
  cards form the stock ``s``.
* Eight foundations: ``f0`` to ``f3`` take Aces and build up in suit to the King; ``f4`` to ``f7``
  take Kings and build down in suit to the Ace. Each suit gets one Ace foundation and one King
  foundation: an Ace (King) starts an empty Ace (King) foundation only if no other Ace (King)
  foundation is of its suit.
* When the Ace and King foundations of a suit meet in rank, cards may be played between them: the
  top card of either goes onto the other if it fits there (``f4>f0``: the Seven of the King pile
  onto the Six of the Ace pile).
* A kibitzer holds one card at a time. Its card may go to a foundation; an empty kibitzer may be
  filled with the top card of a dormitzer (``w2>r5``), if the player wishes.
* The top card of a dormitzer may go to a foundation or to an empty kibitzer; nothing moves from
  one dormitzer to another, and nothing is ever played onto a dormitzer by the player.
* A dormitzer that is emptied is dealt four new cards from the stock at once (the engine does it
  and reports the cards).
* ``deal`` puts four stock cards on each dormitzer, ``w0`` first (while the stock lasts).
* When the stock is empty, ``redeal`` gathers the dormitzers into a new stock (the cards of ``w0``
  from the bottom card up are dealt first, then ``w1``...), and the emptied dormitzers are dealt
  four cards each again at once. Two redeals are allowed; ``redeals`` counts them.
* Cleared: cards on the foundations (104 to win).

Choices where the text is unclear:

* One Ace foundation and one King foundation per suit, as "an Ace of each suit" and the play
  between "the Ace and King pile of the same suit" imply.
* A kibitzer is filled only from a dormitzer (the text names no other source), and never from
  another kibitzer or a foundation.
* Play between meeting foundations can go back and forth, so a board where the two piles of a
  suit meet always has a legal move: ``over`` stays false there; a stuck player resigns.
* The refill of an emptied dormitzer is automatic, as the text says it "is dealt four more".
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.cards import Card, Rank
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile
from engine.rules import DOWN, Suits, build, rule_words, up_in_suit
from engine.words import a, card_name, suit_name

__all__ = ["Tournament"]

_ACE_PILES = tuple(f"f{i}" for i in range(4))
_KING_PILES = tuple(f"f{i}" for i in range(4, 8))
_FOUNDATIONS = _ACE_PILES + _KING_PILES
_RESERVES = tuple(f"r{i}" for i in range(8))
_WASTES = tuple(f"w{i}" for i in range(6))
_BATCH = 4
_REDEALS = 2
_down_in_suit = build(DOWN, Suits.SAME)


class Tournament(Game):
    """Tournament: two packs, Ace and King foundations that may trade cards when they meet,
    eight one-card kibitzers, six dormitzers refilled four at a time, two redeals
    (003_08087bb95aa03446.txt)."""

    key = "tournament"
    name = "Tournament"
    summary = "Two packs onto Ace and King foundations from eight kibitzers and six dormitzers; two redeals."
    rules_text = "003_08087bb95aa03446.txt"
    quoted_odds = "4 to 1"
    packs = 2
    total = 104
    state_fields = ("redeals",)
    redeals: int = 0
    #: The text's names: the reserves are its kibitzers, the waste piles its dormitzers.
    pile_words = {"r": "kibitzer {n}", "w": "dormitzer {n}"}

    def _deal(self, cards: list[Card]) -> None:
        for pid in _FOUNDATIONS:
            self.piles[pid] = Pile(pid)
        for i, pid in enumerate(_RESERVES):
            self.piles[pid] = Pile(pid, [cards[i]])
        start = len(_RESERVES)
        for i, pid in enumerate(_WASTES):
            self.piles[pid] = Pile(pid, cards[start + i * _BATCH : start + (i + 1) * _BATCH])
        rest = cards[start + len(_WASTES) * _BATCH :]
        self.piles["s"] = Pile("s", rest[::-1], len(rest))
        self.redeals = 0

    @property
    def cleared(self) -> int:
        return sum(len(self.piles[pid]) for pid in _FOUNDATIONS)

    # ------------------------------------------------------------------------------ rules

    def _fits(self, pid: str, card: Card) -> bool:
        """Whether ``card`` may go onto foundation ``pid``."""
        pile = self.piles[pid]
        aces = pid in _ACE_PILES
        if not pile.cards:
            if card.rank != (Rank.ACE if aces else Rank.KING):
                return False
            same_kind = _ACE_PILES if aces else _KING_PILES
            return not any(self.piles[p].cards and self.piles[p].cards[0].suit == card.suit for p in same_kind)
        return (up_in_suit if aces else _down_in_suit)(pile.cards[-1], card)

    def _safe(self, move: Move) -> bool:
        """From tournament (003_08087bb95aa03446.txt): nothing is built outside the foundations, but
        the Ace and King foundations of a suit take one copy of each of its cards between them. A
        kibitzer's card is safe: should the other copy need the foundation it took, that copy can
        wait in the kibitzer it frees; but not a King that ends its suit's Ace foundation (or an
        Ace its King foundation) while the other foundation of the suit is empty: started with
        that card instead, the two would meet and trade, taking the other copies in either order,
        where the finished one leaves them one order only. A dormitzer's card only when every copy not yet up has a
        foundation waiting for it, once no redeal is left, and not as the last card of its pile while
        the stock has cards: a redeal gathers the dormitzers four cards to a pile, and an emptied one
        is dealt four at once, so one card fewer would change where every later stock card goes."""
        if not self._clears(move):
            return False
        src = self.piles[move.src]
        if src.id[0] == "r":
            card = src.cards[-1]
            ends = Rank.KING if move.dst in _ACE_PILES else Rank.ACE
            if card.rank == ends and self.piles[move.dst].cards:
                other = _KING_PILES if move.dst in _ACE_PILES else _ACE_PILES
                return any(self.piles[p].cards and self.piles[p].cards[0].suit == card.suit for p in other)
            return True
        if self.redeals < _REDEALS or (self.piles["s"].cards and len(src.cards) == 1):
            return False
        card = src.cards[-1]
        heights = {
            (pid in _ACE_PILES, pile.cards[0].suit): len(pile.cards)
            for pid in _FOUNDATIONS
            if (pile := self.piles[pid]).cards
        }
        up = heights.get((True, card.suit), 0)  # (the suit's Ace pile holds its ranks 1 to `up`)
        down = 14 - heights.get((False, card.suit), 0)  # (its King pile holds `down` to 13)
        waiting = (up == card.rank - 1) + (down == card.rank + 1)
        copies = 2 - (card.rank <= up) - (card.rank >= down)
        return waiting >= copies

    def _candidates(self) -> Iterator[Move]:
        spaces = [pid for pid in _RESERVES if not self.piles[pid].cards]
        for src in _WASTES + _RESERVES + _FOUNDATIONS:
            pile = self.piles[src]
            if not pile.cards:
                continue
            for dst in _FOUNDATIONS:
                if dst != src and self._fits(dst, pile.cards[-1]):
                    yield Move(src=src, dst=dst)
            if src[0] == "w":
                for dst in spaces:
                    yield Move(src=src, dst=dst)
        yield Move(action="deal")
        yield Move(action="redeal")

    def _check(self, move: Move) -> None:
        if move.is_transfer:
            self._check_transfer(move)
        elif move.action not in ("deal", "redeal"):
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"Tournament has no action {move.action!r}", move)
        elif move.arg:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{move.action!r} takes no argument", move)
        elif move.action == "deal":
            if not self.piles["s"].cards:
                raise IllegalMove(IllegalCode.STOCK_EMPTY, "the stock is empty", move)
        else:
            if self.piles["s"].cards:
                raise IllegalMove(IllegalCode.NOT_NOW, "you may redeal only when the stock is empty", move)
            if self.redeals >= _REDEALS:
                raise IllegalMove(IllegalCode.NO_REDEAL, f"no redeal left: this game allows {_REDEALS}", move)
            if not any(self.piles[pid].cards for pid in _WASTES):
                raise IllegalMove(IllegalCode.EMPTY_PILE, "the dormitzers are empty: nothing to redeal", move)

    def _check_transfer(self, move: Move) -> None:
        src, dst = self.pile(move.src, move), self.pile(move.dst, move)
        if src is dst:
            raise IllegalMove(IllegalCode.WRONG_PILE, "a card cannot move onto its own pile", move)
        if src.id == "s":
            raise IllegalMove(IllegalCode.WRONG_PILE, "cards cannot be taken from the stock", move)
        if dst.id[0] not in "fr":
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be played to {self.pile_name(dst.id)}", move)
        if dst.id[0] == "r" and src.id[0] != "w":
            raise IllegalMove(
                IllegalCode.WRONG_PILE, f"{self.pile_name(dst.id)} takes cards only from a dormitzer", move
            )
        if move.count != 1:
            raise IllegalMove(IllegalCode.BAD_COUNT, "only one card may move at a time", move)
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(src.id)} is empty", move)
        card = src.cards[-1]
        if dst.id[0] == "r":
            if dst.cards:
                raise IllegalMove(IllegalCode.DOES_NOT_FIT, f"{self.pile_name(dst.id)} holds one card at a time", move)
            return
        if src.id[0] == "f" and not dst.cards:
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, "foundations trade cards only when they meet", move)
        if not self._fits(dst.id, card):
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, self._misfit(dst.id, card), move)

    def _misfit(self, pid: str, card: Card) -> str:
        """Why `_fits` refuses ``card`` on foundation ``pid``, in words."""
        pile = self.piles[pid]
        what = card_name(card)
        aces = pid in _ACE_PILES
        if not pile.cards:
            first = "Ace" if aces else "King"
            if card.rank != (Rank.ACE if aces else Rank.KING):
                return f"the {what} cannot go on {self.pile_name(pid)}: an empty {first} foundation takes {a(first)}"
            return (
                f"the {what} cannot start {self.pile_name(pid)}: "
                f"{suit_name(card.suit)} already have {a(first)} foundation"
            )
        rule = rule_words(up_in_suit if aces else _down_in_suit)
        return (
            f"the {what} cannot go on the {card_name(pile.cards[-1])} on {self.pile_name(pid)}: "
            f"{'Ace' if aces else 'King'} foundations {rule}"
        )

    def _describe(self, move: Move) -> str:
        if move.action == "deal":
            return "deal four cards to each dormitzer"
        if move.action == "redeal":
            return "gather the dormitzers into a new stock"
        return super()._describe(move)

    def _perform(self, move: Move) -> None:
        if move.is_transfer:
            self.piles[move.dst].cards.extend(self._take(self.piles[move.src], 1))
        elif move.action == "deal":
            for pid in _WASTES:
                self._deal_to(pid)
        else:
            gathered: list[Card] = []
            for pid in _WASTES:
                gathered += self.piles[pid].cards
                self.piles[pid].cards = []
            self.piles["s"] = Pile("s", gathered[::-1], len(gathered))
            self.redeals += 1
        for pid in _WASTES:
            if not self.piles[pid].cards:
                self._deal_to(pid)

    def _deal_to(self, pid: str) -> None:
        stock = self.piles["s"]
        if stock.cards:
            self._add(self.piles[pid], self._take(stock, min(_BATCH, len(stock)))[::-1])
