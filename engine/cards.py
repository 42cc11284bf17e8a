"""Cards, suits, ranks, colours, packs and card notation.

A card is written as two characters, rank then suit: ``"AS"`` (Ace of Spades), ``"TD"`` (Ten of
Diamonds), ``"KH"``. Games with two packs hold two copies of every card; the copy from the second
pack is written with a trailing apostrophe (``"AS'"``) in position strings and logs, where the
copies must be told apart. Views for players and spectators never carry the apostrophe, because
which copy is which is nobody's business but the server's. ``"??"`` stands for a card that the
audience may not see.

>>> Card.parse("TD")
Card.parse('TD')
>>> str(Card.parse("AS'")), Card.parse("AS'").code
("AS'", 'AS')
>>> len(new_pack(2))
104
"""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = [
    "Card",
    "Colour",
    "Rank",
    "Suit",
    "UNKNOWN",
    "BadCard",
    "new_pack",
    "parse_cards",
]

#: How a card that the audience may not see is written.
UNKNOWN = "??"


class BadCard(ValueError):
    """Raised for text that is not a card in notation; ``text`` holds the input."""

    def __init__(self, text: str) -> None:
        super().__init__(f"not a card: {text!r} (expected rank A23456789TJQK then suit CDHS)")
        self.text = text


class Colour(enum.StrEnum):
    """The two card colours."""

    BLACK = "black"
    RED = "red"


class Suit(enum.IntEnum):
    """The four suits, in the order a new pack holds them (clubs, diamonds, hearts, spades)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """One-letter notation: C, D, H or S."""
        return "CDHS"[self]

    @property
    def colour(self) -> Colour:
        """Red for diamonds and hearts, black for clubs and spades."""
        return Colour.RED if self in (Suit.DIAMONDS, Suit.HEARTS) else Colour.BLACK


class Rank(enum.IntEnum):
    """Ranks with their usual values: Ace is 1, Jack 11, Queen 12, King 13."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def letter(self) -> str:
        """One-character notation: A 2 3 4 5 6 7 8 9 T J Q K."""
        return "A23456789TJQK"[self - 1]


_RANK_LETTERS = {r.letter: r for r in Rank}
_SUIT_LETTERS = {s.letter: s for s in Suit}


class Card(NamedTuple):
    """One playing card: a rank, a suit and the pack it came from (0 or 1).

    Cards are small immutable tuples, so they hash, compare and copy cheaply. ``str(card)`` is the
    full notation (with ``'`` for the second pack); ``card.code`` is the notation an audience sees.
    """

    rank: Rank
    suit: Suit
    pack: int = 0

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card in notation (``"QH"``, ``"QH'"``); raises `BadCard`."""
        if not isinstance(text, str) or len(text) not in (2, 3):
            raise BadCard(text)
        rank = _RANK_LETTERS.get(text[0].upper())
        suit = _SUIT_LETTERS.get(text[1].upper())
        if rank is None or suit is None or (len(text) == 3 and text[2] != "'"):
            raise BadCard(text)
        return cls(rank, suit, 1 if len(text) == 3 else 0)

    @property
    def code(self) -> str:
        """Notation without the pack mark: what players and spectators see."""
        return self.rank.letter + self.suit.letter

    @property
    def colour(self) -> Colour:
        """The card's colour (its suit's)."""
        return self.suit.colour

    def __str__(self) -> str:
        return self.code + ("'" if self.pack else "")

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


def new_pack(packs: int = 1) -> list[Card]:
    """A new, unshuffled pack of ``packs`` x 52 cards: pack by pack, suit by suit, Ace to King."""
    if packs not in (1, 2):
        raise ValueError(f"packs must be 1 or 2, not {packs!r}")
    return [Card(rank, suit, pack) for pack in range(packs) for suit in Suit for rank in Rank]


def parse_cards(text: str) -> list[Card]:
    """Read cards written one after another without separators (``"AS2H3D'"``); raises `BadCard`."""
    cards = []
    i = 0
    while i < len(text):
        width = 3 if text[i + 2 : i + 3] == "'" else 2
        cards.append(Card.parse(text[i : i + width]))
        i += width
    return cards
