"""Clock: thirteen piles of four round a dial, every card sent home to its hour.

Rules text: 002_5e8f4a23aea861b2.txt. In the project's words:

* One pack, dealt face down one card at a time into thirteen piles of four: ``t0`` to ``t11`` are
  the hours one (Aces) to twelve (Queens), ``t12`` is the centre (Kings).
* ``turn`` takes the top face-down card of the current pile and lays it face up at its own hour:
  an Ace at one o'clock, a Jack at eleven, a King in the centre. Those face-up cards are the hour's
  foundation, ``f0`` to ``f12`` (``f0`` Aces ... ``f12`` Kings). The pile the card went to becomes
  the current pile; play starts at the centre. A card that turns up on its own pile is laid under it
  all the same, and play goes on from the same pile.
* The game stops when the pile to take from has no face-down card left, which happens exactly when
  the fourth King is laid in the centre. If every card is face up by then, the game is won.
* Otherwise the player may, once per game, ``exchange tP.I``: the fourth King trades places with the
  face-down card at index ``I`` (counted from the bottom, as in the view) of pile ``tP``. The King
  goes face down into that place; the card taken out is laid face up at its hour and play goes on
  from there. If the fourth King turns up again before the end, the game is lost.
* Only an exchange with a pile's bottom card (``I`` 0) can still win: the King turns up, and ends
  the game, as soon as the cards above it have gone, so any card left under it stays face down.
* Rule option ``exchange``: true (the default) allows the exchange, as the text does; false is the
  plain game, lost as soon as the fourth King turns up with cards face down (won 1 deal in 13).
* Cleared: face-up cards at their hours (52 to win).

Choices where the text is unclear:

* The text says the King "can be exchanged for any one face-down card"; it does not say where the
  card taken out goes. Here it is played at once, as if just turned up, which keeps the game moving
  and leaves the King hidden in the layout (the usual reading).
* Every turn is a move, so a race records the whole game; a bot (or a player's client) may play the
  forced turns as fast as it likes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar

from engine.cards import Card
from engine.core import Game, IllegalCode, IllegalMove, Move, Option, Pile
from engine.words import counted

__all__ = ["Clock"]

_ADDRESS = re.compile(r"t(0|[1-9]\d?)\.(0|[1-9]\d?)")


class Clock(Game):
    """Clock patience: thirteen piles of four, one exchange of the fourth King
    (002_5e8f4a23aea861b2.txt). State fields: ``current`` (pile index), ``exchanged``. Option
    ``exchange`` (default true, as the text): false leaves the exchange out."""

    # Auto-collect plays nothing here (`Game._safe` stays False): no card is moved by hand; every move is a turn the
    # rules force, or the one exchange, a guess.

    key = "clock"
    name = "Clock"
    summary = "Turn cards round a clock dial to their hours; one exchange of the fourth King allowed."
    rules_text = "002_5e8f4a23aea861b2.txt"
    state_fields = ("current", "exchanged")
    options: ClassVar = {
        "exchange": Option(True, "one exchange of the fourth King (the text); false: no exchange, lost at once"),
    }
    #: The dial's names: the hours' face-down piles, the centre, the face-up cards at each hour.
    pile_words = {
        "t": "the {n} o'clock pile",
        "t12": "the centre pile",
        "f": "the face-up cards at {n} o'clock",
        "f12": "the face-up Kings",
    }
    current: int = 12
    exchanged: bool = False

    def _deal(self, cards: list[Card]) -> None:
        for hour in range(13):
            dealt = cards[hour::13]
            self.piles[f"t{hour}"] = Pile(f"t{hour}", dealt, len(dealt))
        for hour in range(13):
            self.piles[f"f{hour}"] = Pile(f"f{hour}")
        self.current = 12
        self.exchanged = False

    @property
    def cleared(self) -> int:
        return sum(len(self.piles[f"f{hour}"]) for hour in range(13))

    @property
    def blocked(self) -> bool:
        """True when the current pile has no face-down card left and cards are still hidden."""
        return not self.piles[f"t{self.current}"].cards and not self.won

    @property
    def can_exchange(self) -> bool:
        """True when the fourth King blocks and the exchange is still to be played (and allowed)."""
        return self.blocked and not self.exchanged and bool(self.rule_options["exchange"])

    def _candidates(self) -> Iterator[Move]:
        yield Move(action="turn")
        if self.can_exchange:
            for hour in range(13):
                for index in range(len(self.piles[f"t{hour}"])):
                    yield Move(action="exchange", arg=f"t{hour}.{index}")

    def _check(self, move: Move) -> None:
        if move.action == "turn":
            if move.arg:
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, "'turn' takes no argument", move)
            if self.blocked:
                raise IllegalMove(
                    IllegalCode.NOT_NOW,
                    "the fourth King is out: exchange it" if self.can_exchange else "the game is lost",
                    move,
                )
        elif move.action == "exchange":
            if not self.blocked:
                raise IllegalMove(IllegalCode.NOT_NOW, "exchange only when the fourth King blocks", move)
            if not self.rule_options["exchange"]:
                raise IllegalMove(IllegalCode.NOT_NOW, "this race has no exchange: the game is lost", move)
            if self.exchanged:
                raise IllegalMove(IllegalCode.NOT_NOW, "the one exchange has been used", move)
            m = _ADDRESS.fullmatch(move.arg)
            if not m:
                raise IllegalMove(
                    IllegalCode.BAD_COUNT, f"exchange names a face-down pile and a card in it, not {move.arg!r}", move
                )
            pile = self.pile(f"t{int(m[1])}", move)
            if int(m[2]) >= len(pile):
                have = "only " + counted(len(pile), "face-down card") if pile.cards else "no face-down card"
                raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(pile.id)} has {have}", move)
        elif move.is_transfer:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, "no card is moved by hand in Clock: turn them up", move)
        else:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"Clock has no action {move.action!r}", move)

    def _perform(self, move: Move) -> None:
        if move.action == "turn":
            (card,) = self._take(self.piles[f"t{self.current}"], 1)
        else:
            m = _ADDRESS.fullmatch(move.arg)
            assert m is not None
            pile = self.piles[f"t{int(m[1])}"]
            (king,) = self._take(self.piles["f12"], 1)
            card, pile.cards[int(m[2])] = pile.cards[int(m[2])], king
            self.exchanged = True
        self._lay(card)

    def _describe(self, move: Move) -> str:
        if move.action == "turn":
            return f"turn up the top card of {self.pile_name(f't{self.current}')}"
        m = _ADDRESS.fullmatch(move.arg)
        assert m is not None
        return (
            f"exchange the fourth King for face-down card {int(m[2]) + 1} from the bottom of "
            f"{self.pile_name(f't{int(m[1])}')}"
        )

    def _lay(self, card: Card) -> None:
        self.current = card.rank - 1
        self._add(self.piles[f"f{self.current}"], [card])
