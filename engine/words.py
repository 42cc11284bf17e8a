"""Cards, ranks, counts and piles in a player's words: what refusals and move captions are made of.

A card is named by its rank and its suit's symbol, as the web page prints it: ``"7♣"``, ``"10♥"``,
``"A♠"`` (both copies of a two-pack game have the same name). Ranks are also named in full, for
rules ("only a King may fill ..."). A pile's default name comes from the letter of its id, counted
from 1 (``t3`` is "tableau pile 4"); `engine.core.Game.pile_name` adds each game's own names.

Nothing here knows whether a card is face down: a caller names only cards the player can see.

>>> card_name(Card.parse("7C")), card_name(Card.parse("TH")), card_name(Card.parse("AS'"))
('7♣', '10♥', 'A♠')
>>> rank_name(Rank.SIX), rank_name(Rank.SIX, plural=True), a(rank_name(Rank.EIGHT))
('Six', 'Sixes', 'an Eight')
>>> default_pile_name("t3"), default_pile_name("f0", alone=True), default_pile_name("s")
('tableau pile 4', 'the foundation', 'the stock')
"""

from __future__ import annotations

from engine.cards import Card, Rank, Suit, new_pack

__all__ = [
    "a",
    "and_list",
    "card_name",
    "counted",
    "default_pile_name",
    "is_empty",
    "kind_name",
    "number",
    "rank_name",
    "run_name",
    "suit_name",
]

_RANK_SYMBOLS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_RANK_WORDS = ("Ace", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King")
#: Every card's name, looked up (refusals are written while the legal moves are listed).
_NAMES = {card: _RANK_SYMBOLS[card.rank - 1] + _SUIT_SYMBOLS[card.suit] for card in new_pack(2)}
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")

#: The kind of pile each id letter stands for, and the name of a pile that is the only one of
#: its letter (or has no number at all: ``s``, ``w``, ``d``, General's Patience's ``r``).
_KINDS = {"t": "tableau pile", "f": "foundation", "c": "cell", "r": "reserve pile", "w": "waste pile"}
_ALONE = {"f": "the foundation", "r": "the reserve", "w": "the waste", "s": "the stock", "d": "the deck card"}


def card_name(card: Card) -> str:
    """A face-up card as the player sees it: ``"7♣"``, ``"10♥"``, ``"Q♦"``. Never call it for a
    card the player may not see (docs/design.md, invariant 1)."""
    return _NAMES[card]


def run_name(cards: list[Card]) -> str:
    """Face-up cards that move together, bottom card first: ``"the 9♥"``, ``"the 9♥ and the
    8♠"``, ``"the 9♥ and 2 cards on it"``."""
    first = _NAMES[cards[0]]
    if len(cards) == 1:
        return f"the {first}"
    if len(cards) == 2:
        return f"the {first} and the {_NAMES[cards[1]]}"
    return f"the {first} and {len(cards) - 1} cards on it"


def rank_name(rank: Rank | int, *, plural: bool = False) -> str:
    """A rank in full: ``"Ace"`` ... ``"King"``; with ``plural``: ``"Aces"``, ``"Sixes"``."""
    word = _RANK_WORDS[rank - 1]
    if plural:
        return word + ("es" if word.endswith("x") else "s")
    return word


def suit_name(suit: Suit) -> str:
    """A suit in lower case, plural: ``"hearts"``."""
    return suit.name.lower()


def a(word: str) -> str:
    """``word`` with its indefinite article: ``"a King"``, ``"an Ace"``, ``"an Eight"``."""
    return ("an " if word[:1] in "AEIOUaeiou" else "a ") + word


def number(n: int) -> str:
    """A small count in words (``"three"``); digits past ten."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``"1 card"``, ``"2 face-up cards"``.

    >>> counted(1, "card"), counted(3, "face-up card")
    ('1 card', '3 face-up cards')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def and_list(items: list[str]) -> str:
    """Items joined as in a sentence: ``"a, b and c"``.

    >>> and_list(["rampart 1", "rampart 4"]), and_list(["x"])
    ('rampart 1 and rampart 4', 'x')
    """
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def is_empty(name: str) -> str:
    """That the pile called ``name`` has no card: ``"tableau pile 2 is empty"``; for a pile
    named as a card, ``"there is no turned card"``.

    >>> is_empty("the waste"), is_empty("the deck card")
    ('the waste is empty', 'there is no deck card')
    """
    if name.startswith("the ") and name.endswith(" card"):
        return f"there is no {name[4:]}"
    return f"{name} is empty"


def kind_name(letter: str) -> str:
    """What a pile of id letter ``letter`` is, as a noun without article (``"tableau pile"``);
    ``"pile"`` for a letter with no kind of its own."""
    return _KINDS.get(letter, "pile")


def default_pile_name(pile_id: str, *, alone: bool = False) -> str:
    """The name of pile ``pile_id`` by the letter of its id, its number counted from 1:
    ``"tableau pile 4"`` (``t3``), ``"foundation 1"``, ``"cell 3"``, ``"reserve pile 2"``,
    ``"waste pile 2"``; ``alone``, the only pile of its letter, or an id without a number:
    ``"the foundation"``, ``"the reserve"``, ``"the waste"``, ``"the stock"``, ``"the deck card"``.
    An id no game uses is quoted: ``"pile 'z9'"``."""
    letter, index = pile_id[:1], pile_id[1:]
    if (alone or not index) and letter in _ALONE:
        return _ALONE[letter]
    if letter in _KINDS and index.isdigit():
        return f"{_KINDS[letter]} {int(index) + 1}"
    return f"pile {pile_id!r}"
