"""Double or Naught: pick one of five face-down cards and beat the house's card.

Rules text: 003_08087bb95aa03446.txt ("Double or Naught", the bonus round at its end). In the
project's words:

* One pack, shuffled. Six cards are dealt to reserve piles in rows of three, two and one: ``r0``
  ``r1`` ``r2``, then ``r3`` ``r4``, then ``r5``. The single card ``r5`` is the house's and lies face
  up; the other five lie face down. The rest of the pack is the stock ``s``.
* The player makes one guess, ``guess r2``: that card is turned face up and compared with the
  house's card, Kings high and Aces low (suits do not count).
* Higher: the round is won, and so is the game. Lower: the game is lost. Equal: a tie, and the
  player may try again with ``deal``: the six cards are put aside face down in ``w`` and six more
  are dealt from the stock the same way.
* Cleared: 1 when the round is won, else 0; ``total`` is 1. ``outcome`` (``""`` before the guess,
  then ``win``, ``tie`` or ``loss``) and ``ties`` are public state fields.

Choices where the text is unclear:

* This engine game is one round of the bonus, played on its own: a win ends it. Whether to double
  again, and what a round is worth, is for the server (a new game with a new seed).
* The text shuffles before each try; here a try after a tie takes the next six cards of the same
  shuffled pack, so the whole game follows from its seed. With fewer than six cards left (after
  eight ties in a row) there is no further try, and the game ends undecided (not won).
* The cards put aside after a tie stay face down, so nothing but the guessed card and the house's
  card is ever shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from engine.cards import Card
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile

__all__ = ["DoubleOrNaught"]

_GUESSES = tuple(f"r{i}" for i in range(5))
_HOUSE = "r5"
_ROUND = 6
_PILE_ID = re.compile(r"r[0-9]")


class DoubleOrNaught(Game):
    """Double or Naught: beat the house's face-up card with one of five face-down cards; a tie
    may be tried again (003_08087bb95aa03446.txt)."""

    # Auto-collect plays nothing here (`Game._safe` stays False): its one move is a guess.

    key = "double_or_naught"
    name = "Double or Naught"
    summary = "Guess which of five face-down cards beats the house's card; a tie may try again."
    rules_text = "003_08087bb95aa03446.txt"
    #: the text: "the odds for any one round are 50/50"
    quoted_odds = "1 to 1"
    total = 1
    state_fields = ("outcome", "ties")
    #: The five cards to guess from, the house's card, the pack, and the cards of tied rounds.
    pile_words = {"r": "card {n}", "r5": "the house card", "s": "the pack", "w": "the cards set aside"}
    outcome: str = ""
    ties: int = 0

    def _deal(self, cards: list[Card]) -> None:
        for pid in (*_GUESSES, _HOUSE):
            self.piles[pid] = Pile(pid)
        self.piles["s"] = Pile("s", cards[::-1], len(cards))
        self.piles["w"] = Pile("w")
        self.outcome = ""
        self.ties = 0
        self._deal_round()

    def _deal_round(self) -> None:
        stock = self.piles["s"]
        for pid in _GUESSES:
            self._add(self.piles[pid], self._take(stock, 1), face_up=False)
        self._add(self.piles[_HOUSE], self._take(stock, 1))

    @property
    def cleared(self) -> int:
        return int(self.outcome == "win")

    def _candidates(self) -> Iterator[Move]:
        for pid in _GUESSES:
            yield Move(action="guess", arg=pid)
        yield Move(action="deal")

    def _check(self, move: Move) -> None:
        if move.action == "guess":
            if self.outcome:
                raise IllegalMove(IllegalCode.NOT_NOW, "the guess of this round is made", move)
            if not _PILE_ID.fullmatch(move.arg):
                raise IllegalMove(
                    IllegalCode.NO_SUCH_PILE, f"guess one of the five face-down cards, not {move.arg!r}", move
                )
            if move.arg == _HOUSE:
                raise IllegalMove(IllegalCode.WRONG_PILE, "the house card cannot be guessed: beat it", move)
            pile = self.pile(move.arg, move)
            if not pile.cards:
                raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(pile.id)} is not dealt", move)
        elif move.action == "deal":
            if move.arg:
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, "'deal' takes no argument", move)
            if self.outcome != "tie":
                raise IllegalMove(IllegalCode.NOT_NOW, "a new round is dealt only after a tie", move)
            if len(self.piles["s"]) < _ROUND:
                raise IllegalMove(IllegalCode.STOCK_EMPTY, "fewer than six cards are left", move)
        elif move.is_transfer:
            raise IllegalMove(IllegalCode.WRONG_PILE, "no card moves in Double or Naught: guess one", move)
        else:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"Double or Naught has no action {move.action!r}", move)

    def _describe(self, move: Move) -> str:
        if move.action == "guess":
            return f"guess {self.pile_name(move.arg)}"
        return "set this round's six cards aside and deal a new round"

    def _perform(self, move: Move) -> None:
        if move.action == "guess":
            pile = self.piles[move.arg]
            self._turn_up(pile)
            mine, house = pile.cards[-1].rank, self.piles[_HOUSE].cards[-1].rank
            self.outcome = "win" if mine > house else "loss" if mine < house else "tie"
            self.ties += self.outcome == "tie"
        else:
            put_aside = self.piles["w"]
            for pid in (*_GUESSES, _HOUSE):
                cards = self._take(self.piles[pid], 1)
                put_aside.cards.extend(cards)
                put_aside.down += 1
            self.outcome = ""
            self._deal_round()
