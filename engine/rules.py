"""Shared pile rules: build rules, layout declarations, and `PileGame`, which plays them.

Most patience games are a layout of standard piles with a few parameters: how foundations start
and build, how the tableau is dealt and built, what may fill a space, how the stock is turned and
how often it may be redealt. A game module declares that layout and `PileGame` does the rest:

    class Klondike(PileGame):
        layout = (Foundations(4), Tableau(deal=STAIRCASE_7, build=down_alternate,
                  empty=Empty.KINGS, blocks=True), Stock(turn=3, redeals=None))

The declarations, one per kind of pile (the letter of its ids in brackets):

* `Foundations` (``f``): the base card (a fixed rank, any card, or `FIRST`: the rank of the first
  card played, which every other foundation must then start with), the build rule (one for all,
  or one per foundation), cards placed at the deal (``start``), a card limit, and ``opener``: who
  plays the first card when the base is `FIRST` (the deal, from the stock, or the player, from a
  reserve, before any other move).
* `Tableau` (``t``): cards dealt, face-up count, build rule, what fills a space (`Empty`), how cards
  move between tableau piles (one at a time, built runs with ``blocks``, or only whole piles with
  ``whole``), a card limit, and ``takes_from``: the letters of the piles whose cards may be played
  there (waste piles that take only the turned stock card say ``"w"``).
* `Reserve` (``r``): cards dealt, face-up count, and ``fill`` (`Fill`): whether its cards fill
  tableau spaces automatically, must fill them, or have no such duty.
* `Cells` (``c``): single-card cells, some dealt a card at the start.
* `Stock` (``s``): ``deal`` turns ``turn`` cards onto the waste ``w``, or one card onto each pile
  of the letter ``to`` (``"r"``, ``"t"``), or onto one pile (``"f0"``); ``redeals`` counts turns
  of the waste back into the stock; with ``auto`` the next card is always turned up onto ``w`` by
  the engine as soon as ``w`` is empty, and there is no ``deal`` action.

The deal hands out the shuffled cards in layout order: ``start`` cards of foundations first (the
first card of each wanted rank in the shuffle), then each pile of each declaration in turn gets its
cards, index 0 of the shuffle first; the stock gets what is left, with the next card of the shuffle
on top (dealt first). Automatic steps (a foundation's opening card from the stock, a space filled
from the reserve, the next card turned up) are done by the engine and reported as reveals.
Games with unusual mechanics subclass `engine.core.Game` directly, or override one hook here
(`PileGame._fits`, `PileGame._restrict`, `PileGame._deal`).

Every rule also says itself in a player's words: a build rule (`rule_words`: "build down by one in
alternate colours"), an `Empty` rule ("only a King may fill an empty tableau pile"), the base card.
`PileGame` refuses a card with them (`PileGame._misfit`), so a game composed of these rules explains
its refusals with no words of its own; a game that overrides `_fits` overrides `_misfit` too.
"""

from __future__ import annotations

import bisect
import copy as _copy
import enum
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

from engine.cards import Card, Rank
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile
from engine.words import a, card_name, counted, is_empty, kind_name, number, rank_name

__all__ = [
    "DOWN",
    "EITHER",
    "FIRST",
    "STAIRCASE_7",
    "UP",
    "BuildRule",
    "Cells",
    "Empty",
    "Fill",
    "Foundations",
    "PileGame",
    "Reserve",
    "Stock",
    "Suits",
    "Tableau",
    "any_card",
    "build",
    "rule_words",
    "circular",
    "down_alternate",
    "up_in_suit",
    "up_or_down",
]

#: ``rule(top, card)`` says whether ``card`` may go on ``top``. A rule made by `build` also has
#: ``rule.ranks``: for each rank of ``top`` (1..13), the ranks of the cards it may take (a rule
#: without that attribute may take any rank); `PileGame` uses it to skip cards that cannot fit.
#: And ``rule.words``: the rule in a player's words, for refusals (`rule_words`).
BuildRule = Callable[[Card, Card], bool]

#: Klondike's tableau: one card on the first pile, two on the second, ... seven on the last.
STAIRCASE_7 = (1, 2, 3, 4, 5, 6, 7)

#: A foundation base set by the first card played to any foundation: the others start with its rank.
FIRST = "first"

#: Directions for `build`: one rank up, one rank down, either.
UP, DOWN, EITHER = 1, -1, 0


def circular(rank: int, by: int) -> int:
    """``rank`` moved ``by`` steps round the circle Ace..King (King + 1 is Ace, Ace - 1 is King)."""
    return (rank - 1 + by) % 13 + 1


class Suits(enum.StrEnum):
    """What a build rule asks of the suits of two cards."""

    ANY = "any"
    SAME = "same"
    ALTERNATE = "alternate"

    @property
    def words(self) -> str:
        """The rule in words: "regardless of suit", "in suit", "in alternate colours"."""
        return _SUIT_WORDS[self]


_SUIT_WORDS = {Suits.ANY: "regardless of suit", Suits.SAME: "in suit", Suits.ALTERNATE: "in alternate colours"}
_DIRECTION_WORDS = {UP: "up", DOWN: "down", EITHER: "up or down"}


def _build_words(direction: int, suits: Suits, wrap: bool, step: int) -> str:
    words = f"build {_DIRECTION_WORDS[direction]} by {number(step)} {suits.words}"
    if not wrap:
        return words
    if step != 1:
        return words + " (counting on from King to Ace)"
    if direction == UP:
        return words + " (an Ace goes on a King)"
    if direction == DOWN:
        return words + " (a King goes on an Ace)"
    return words + " (a King and an Ace go on each other)"


def rule_words(rule: BuildRule) -> str:
    """A build rule in a player's words, as an instruction (its ``words``: `build` writes them).

    >>> rule_words(down_alternate)
    'build down by one in alternate colours'
    >>> rule_words(build(UP, Suits.SAME, wrap=True))
    'build up by one in suit (an Ace goes on a King)'
    >>> rule_words(build(UP, step=3, wrap=True))
    'build up by three regardless of suit (counting on from King to Ace)'
    """
    return getattr(rule, "words", "follow the build rule")


def build(direction: int, suits: Suits = Suits.ANY, *, wrap: bool = False, step: int = 1) -> BuildRule:
    """A build rule: ``card`` goes on ``top`` if it is ``step`` ranks up (``UP``), down (``DOWN``)
    or either (``EITHER``), with the suits as ``suits`` says; ``wrap`` makes rank circular (a King
    goes on an Ace building down, an Ace on a King building up).

    >>> build(DOWN, Suits.ANY, wrap=True)(Card.parse("AH"), Card.parse("KD"))
    True
    >>> build(UP, step=2, wrap=True)(Card.parse("QC"), Card.parse("AH"))
    True
    """
    offsets = (step, -step) if direction == EITHER else (direction * step,)

    same, alternate = suits is Suits.SAME, suits is Suits.ALTERNATE

    def rule(top: Card, card: Card) -> bool:
        if same and card.suit != top.suit:
            return False
        if alternate and (0 < card.suit < 3) == (0 < top.suit < 3):  # Diamonds and Hearts are red
            return False
        for by in offsets:
            rank = circular(top.rank, by) if wrap else top.rank + by
            if card.rank == rank:
                return True
        return False

    rule.ranks = {  # type: ignore[attr-defined]
        top: tuple(dict.fromkeys(circular(top, by) if wrap else top + by for by in offsets)) for top in range(1, 14)
    }
    rule.words = _build_words(direction, suits, wrap, step)  # type: ignore[attr-defined]
    rule.up_in_suit = direction == UP and same and step == 1  # type: ignore[attr-defined]  # (`PileGame._deadlocked`)
    return rule


def any_card(top: Card, card: Card) -> bool:
    """Any card on any card (waste piles that take whatever the player puts there)."""
    return True


any_card.words = "put any card on any card"  # type: ignore[attr-defined]


#: Build down in alternate colours: a red Six on a black Seven.
down_alternate = build(DOWN, Suits.ALTERNATE)
#: Build up in suit: the Four of Hearts on the Three of Hearts.
up_in_suit = build(UP, Suits.SAME)
#: One rank up or down, any suit, no wrap between King and Ace.
up_or_down = build(EITHER)


class Empty(enum.StrEnum):
    """What may fill an empty tableau pile."""

    ANY = "any"
    KINGS = "kings"
    NONE = "none"
    #: a card one rank below the foundations' base card, circular (Penguin)
    BELOW_BASE = "below_base"

    @property
    def words(self) -> str:
        """The rule in words: "only a King may fill an empty tableau pile"."""
        return _EMPTY_WORDS[self]


_EMPTY_WORDS = {
    Empty.ANY: "any card may fill an empty tableau pile",
    Empty.KINGS: "only a King may fill an empty tableau pile",
    Empty.NONE: "an empty tableau pile is never filled",
    Empty.BELOW_BASE: "only a card one rank below the base card may fill an empty tableau pile",
}


class Fill(enum.StrEnum):
    """A reserve's duty towards tableau spaces."""

    NO = "no"
    #: the engine fills every space from the reserve at once, until the reserve is empty
    AUTO = "auto"
    #: the player must fill a space from a reserve before anything else, until the reserves are empty
    MUST = "must"


@dataclass(frozen=True)
class Foundations:
    """``count`` foundation piles (ids ``f0``...). An empty one takes a card of rank ``base`` (any
    card when None; with `FIRST`, the rank of the first card played); the rest follow ``build``
    (one rule, or a tuple with one rule per foundation), up to ``limit`` cards (None: no limit).
    ``start``: ranks placed at the deal, one per foundation from ``f0`` (the first such card of the
    shuffle). ``opener`` (with `FIRST`): ``"s"`` the deal plays the next stock card to ``f0``;
    ``"r"`` the player's first move must be a reserve card to a foundation. ``takes_from``: the
    letters of the piles whose cards may be played here."""

    count: int = 4
    base: Rank | str | None = Rank.ACE
    build: BuildRule | tuple[BuildRule, ...] = up_in_suit
    limit: int | None = None
    start: tuple[Rank, ...] = ()
    opener: str = ""
    takes_from: str = "trwc"
    letter: ClassVar[str] = "f"


@dataclass(frozen=True)
class Tableau:
    """Tableau piles (ids ``t0``...), ``deal[i]`` cards dealt to pile i, the top ``face_up`` of each
    face up (None: all). Cards build by ``build``; ``blocks`` lets an ordered run move together;
    ``whole`` lets a pile move to another tableau pile only as a whole; ``empty`` says what fills a
    space; ``limit`` caps a pile's cards; ``takes_from`` lists the letters of the piles whose cards
    may be played here."""

    deal: tuple[int, ...]
    build: BuildRule = down_alternate
    empty: Empty = Empty.ANY
    blocks: bool = False
    whole: bool = False
    face_up: int | None = 1
    limit: int | None = None
    takes_from: str = "trwc"
    letter: ClassVar[str] = "t"


@dataclass(frozen=True)
class Reserve:
    """Reserve piles (ids ``r0``...), ``deal[i]`` cards each, the top ``face_up`` face up (None:
    all); only the top card of a reserve may be played, and nothing is ever played onto one (the
    stock may deal onto it). ``fill``: its duty towards tableau spaces."""

    deal: tuple[int, ...]
    face_up: int | None = None
    fill: Fill = Fill.NO
    letter: ClassVar[str] = "r"


@dataclass(frozen=True)
class Cells:
    """``count`` cells (ids ``c0``...) of one card each; ``deal[i]`` (0 or 1) cards dealt to cell i.
    A cell takes one card from a pile whose letter is in ``takes_from``."""

    count: int
    deal: tuple[int, ...] = ()
    takes_from: str = "t"
    letter: ClassVar[str] = "c"


@dataclass(frozen=True)
class Stock:
    """The stock (id ``s``): ``deal`` turns ``turn`` cards onto ``to``: the waste ``w`` (the
    default) or one pile (``"f0"``); or, with ``to`` a letter (``"r"``, ``"t"``), one card onto
    each pile of that kind (``turn`` is then unused);
    ``redeals`` is how many times the waste may be turned back into a stock (None: as often as
    wanted); ``auto``: the engine turns the next card onto the waste whenever it is empty, and the
    player never deals."""

    turn: int = 1
    redeals: int | None = 0
    to: str = "w"
    auto: bool = False
    letter: ClassVar[str] = "s"


Spec = Foundations | Tableau | Reserve | Cells | Stock


_transfer = Move.transfer


def _build_rule(spec: Foundations | Tableau, pile_id: str) -> BuildRule:
    """The build rule of pile ``pile_id``: its own of a foundation that has one each."""
    rule = spec.build
    return rule[int(pile_id[1:])] if isinstance(rule, tuple) else rule


def _face_up(pile: Pile) -> str:
    """How many cards of ``pile`` may be taken, in words: "only 2 face-up cards", "only 1 card"
    (a pile with no face-down card), "no face-up card"."""
    if not pile.up:
        return "no face-up card"
    return "only " + (counted(pile.up, "face-up card") if pile.down else counted(pile.up, "card"))


def _built_run(cards: list[Card], up: int, rule: BuildRule) -> int:
    """How many of the top ``up`` ``cards`` form a sequence built by ``rule`` (at least 1)."""
    run = 1
    while run < up and rule(cards[-run - 1], cards[-run]):
        run += 1
    return run


#: A destination as `PileGame._transfers` files it: (layout index, pile, the letters of the piles
#: it takes from, how many more cards it may hold (None: no limit), its build rule and top card
#: (None: the wanted rank alone decides), the ranks it may take now (None: any), whether it is a
#: tableau pile). Kept lists read only the values, never the pile as it is later. The top card is None
#: only where the rule is None too, so ``rule is None or rule(top, card)`` never passes None, which
#: the tuple's type cannot say: those calls carry ``type: ignore[arg-type]``.
_Destination = tuple[int, Pile, str, "int | None", "BuildRule | None", "Card | None", "tuple[int, ...] | None", bool]

_DEAL = Move(action="deal")
_REDEAL = Move(action="redeal")

#: Past this many changed piles, `PileGame._transfers` lists every pair again.
_MEMO_MOST_CHANGED = 4


class _TransferMemo:
    """The transfers of a position (with the plain `PileGame._fits`) and what they were worked
    out from: each pile's face-down count and cards, the destinations, each source's blocks.
    One game's own (`PileGame.copy` starts without one): brought up to date in place, so that a
    move leaves no new long-lived objects for the garbage collector to follow."""

    __slots__ = ("piles", "base", "downs", "cards", "dests", "blocks", "found")

    def __init__(
        self,
        piles: dict[str, Pile],
        base: Rank | None,
        dests: list[_Destination | None],
        blocks: list[Sequence[int] | None],
        found: list[tuple[str, list[tuple[int, int, Move]]]],
    ) -> None:
        self.piles = piles
        self.base = base
        self.downs = [pile.down for pile in piles.values()]
        self.cards = [list(pile.cards) for pile in piles.values()]
        self.dests = dests
        self.blocks = blocks
        self.found = found


def _fitting(
    src_index: int, src: Pile, blocks: Sequence[int], dests: list[_Destination]
) -> list[tuple[int, int, Move]]:
    """The moves of ``src``, at layout position ``src_index`` (its top card, and ``blocks``: the
    counts to try onto a tableau pile) onto ``dests``, with the plain `PileGame._fits`:
    (destination's layout index, count, the `Move`), in the order of ``dests`` then count."""
    src_id = src.id
    letter = src_id[0]
    cards = src.cards
    card = cards[-1]
    found = []
    for index, dst, takes_from, room, rule, top, wanted, tableau in dests:
        if index == src_index or letter not in takes_from:
            continue
        if not tableau:
            if (wanted is None or card.rank in wanted) and (
                rule is None or rule(top, card)  # type: ignore[arg-type]  # (`_Destination`)
            ):
                found.append((index, 1, _transfer(src_id, dst.id, 1)))
            continue
        for count in blocks:
            bottom = cards[-count]
            if (
                (wanted is None or bottom.rank in wanted)
                and (room is None or count <= room)
                and (rule is None or rule(top, bottom))  # type: ignore[arg-type]  # (`_Destination`)
            ):
                found.append((index, count, _transfer(src_id, dst.id, count)))
    return found


class PileGame(Game):
    """A game made of standard piles; subclasses set ``layout`` (a tuple of declarations).

    State field ``redeals`` counts the times the waste was turned back into the stock.
    Cleared cards are the cards on foundations.
    """

    layout: ClassVar[tuple[Spec, ...]] = ()
    state_fields: ClassVar[tuple[str, ...]] = ("redeals",)
    redeals: int = 0

    # ------------------------------------------------------------------------ declarations

    _by_letter: ClassVar[dict[str, Spec]] = {}
    _foundation_ids: ClassVar[tuple[str, ...]] = ()
    _opens_from_reserve: ClassVar[bool] = False
    _must_fill: ClassVar[bool] = False
    #: Set by a game whose `_fits` override only refuses cards that the layout's rules accept
    #: (never accepts one they refuse), so that the ranks those rules name still bound it.
    fits_within_layout: ClassVar[bool] = False
    #: Whether `_fits` is this class's own (not overridden); set per class.
    _plain_fits: ClassVar[bool] = True
    #: Whether `_fits` is bounded by the layout's ranks (`_wanted_ranks`); set per class.
    _rank_hints: ClassVar[bool] = True
    #: Whether `_legal_now` may trust `_transfers` (no override of the hooks it mirrors).
    _exact_transfers: ClassVar[bool] = True
    #: Whether `_restrict` is the plain one (a game with stages overrides it).
    _plain_restrict: ClassVar[bool] = True
    #: Whether a move's transfers depend only on its two piles and the base rank, so that
    #: `_transfers` may keep them for the next listing: the plain `_fits`, `_block_counts` and
    #: `_wanted_ranks`; set per class.
    _memo_ok: ClassVar[bool] = True
    #: The transfers last listed, for the next listing (`_transfers`); None until then.
    _transfer_memo: _TransferMemo | None = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._by_letter = {spec.letter: spec for spec in cls.layout}
        found = cls._by_letter.get("f")
        cls._foundation_ids = tuple(f"f{i}" for i in range(found.count)) if isinstance(found, Foundations) else ()
        reserve = cls._by_letter.get("r")
        cls._opens_from_reserve = isinstance(found, Foundations) and found.opener == "r"
        cls._must_fill = isinstance(reserve, Reserve) and reserve.fill == Fill.MUST
        cls._plain_fits = cls._fits is PileGame._fits
        cls._rank_hints = cls._plain_fits or cls.fits_within_layout
        cls._exact_transfers = all(
            getattr(cls, name) is getattr(PileGame, name)
            for name in ("_candidates", "_transfers", "_check", "_check_transfer", "_check_redeal", "_block_counts")
        )
        cls._plain_restrict = cls._restrict is PileGame._restrict
        cls._memo_ok = cls._plain_fits and all(
            getattr(cls, name) is getattr(PileGame, name) for name in ("_block_counts", "_wanted_ranks")
        )

    @classmethod
    def _specs(cls) -> dict[str, Spec]:
        return cls._by_letter

    @classmethod
    def _spec(cls, pile_id: str) -> Spec | None:
        return cls._by_letter.get(pile_id[:1])

    @classmethod
    def _stock_spec(cls) -> Stock | None:
        spec = cls._specs().get("s")
        return spec if isinstance(spec, Stock) else None

    def copy(self) -> PileGame:
        """An independent copy of this game, history included (as `Game.copy`, without the round
        trip through a position string: the bot and the tests copy a game for every move they
        weigh)."""
        twin = _copy.copy(self)
        twin.piles = {pid: Pile(pid, list(p.cards), p.down) for pid, p in self.piles.items()}
        twin.history = list(self.history)
        twin.rule_options = dict(self.rule_options)
        twin._legal_cache = None
        twin._transfer_memo = None
        twin._revealed = []
        twin._undo = list(self._undo)
        twin._marks = list(self._marks)
        return twin

    # --------------------------------------------------------------------------- finishing

    def _deadlocked(self) -> bool:
        """Whether clearing cards alone can never win from here, seen at a glance: in a game of
        one pack whose foundations all build up by one in suit, some pile holds a card above a
        card of its suit that must reach the foundation first (the upper card could only leave
        by being cleared, and cannot be cleared before the lower one). Spares `finishing_line` its
        search on most positions with every card face up (Eight Off, Penguin, from the deal)."""
        spec = self._by_letter.get("f")
        if (
            self.packs != 1
            or not isinstance(spec, Foundations)
            or not getattr(spec.build, "up_in_suit", False)
            or not self._plain_fits
            or type(self)._clears is not Game._clears
        ):
            return False
        base = self.base_rank()
        if base is None:
            return False  # (any rank may start a foundation: no order to go by)
        for pid, pile in self.piles.items():
            if pid[0] == "f":
                continue
            lowest: dict[int, int] = {}  # suit -> the least distance from the base of a card below
            for card in pile.cards:
                distance = (card.rank - base) % 13
                below = lowest.get(card.suit)
                if below is not None and distance > below:
                    return True
                if below is None or distance < below:
                    lowest[card.suit] = distance
        return False

    # ------------------------------------------------------------------------------- deal

    def _deal(self, cards: list[Card]) -> None:
        self.redeals = 0
        rest = list(cards)
        for spec in self.layout:
            if isinstance(spec, Foundations):
                for i in range(spec.count):
                    self.piles[f"f{i}"] = Pile(f"f{i}")
                for i, rank in enumerate(spec.start):
                    card = next(c for c in rest if c.rank == rank)
                    rest.remove(card)
                    self.piles[f"f{i}"].cards.append(card)
            elif isinstance(spec, (Tableau, Reserve, Cells)):
                deal = spec.deal
                if isinstance(spec, Cells):
                    deal += (0,) * (spec.count - len(deal))
                for i, n in enumerate(deal):
                    dealt, rest = rest[:n], rest[n:]
                    up = n if isinstance(spec, Cells) or spec.face_up is None else spec.face_up
                    self.piles[f"{spec.letter}{i}"] = Pile(f"{spec.letter}{i}", dealt, max(0, n - up))
            elif isinstance(spec, Stock):
                self.piles["s"] = Pile("s", rest[::-1], len(rest))
                rest = []
                if spec.to == "w":
                    self.piles["w"] = Pile("w")
        assert not rest, f"{self.key}: the layout leaves {len(rest)} cards undealt and has no stock"
        found = self._specs().get("f")
        if isinstance(found, Foundations) and found.opener == "s":
            self._add(self.piles["f0"], self._take(self.piles["s"], 1))
        self._automatic()

    # ------------------------------------------------------------------------------ rules

    @property
    def cleared(self) -> int:
        piles = self.piles
        return sum([len(piles[pid].cards) for pid in self._foundation_ids])

    def base_rank(self) -> Rank | None:
        """The foundations' base rank: the declared one, or with `FIRST` the rank of the first card
        played to a foundation (None until then, or when any card starts a foundation)."""
        spec = self._specs().get("f")
        if not isinstance(spec, Foundations) or spec.base is None:
            return None
        if spec.base != FIRST:
            return spec.base  # type: ignore[return-value]
        for pid, pile in self.piles.items():
            if pid[0] == "f" and pile.cards:
                return pile.cards[0].rank
        return None

    def _fits(self, pile: Pile, card: Card) -> bool:
        """Whether ``card`` may be placed on ``pile`` (a foundation, tableau pile or cell)."""
        kind = pile.id[0]
        spec = self._by_letter.get(kind)
        cards = pile.cards
        if kind == "f":
            assert isinstance(spec, Foundations)
            if spec.limit is not None and len(cards) >= spec.limit:
                return False
            if not cards:
                base = self.base_rank()
                return base is None or card.rank == base
            return _build_rule(spec, pile.id)(cards[-1], card)
        if kind == "t":
            assert isinstance(spec, Tableau)
            if cards:
                return spec.build(cards[-1], card)
            if spec.empty == Empty.BELOW_BASE:
                base = self.base_rank()
                return base is not None and card.rank == circular(base, -1)
            return spec.empty == Empty.ANY or (spec.empty == Empty.KINGS and card.rank == Rank.KING)
        return kind == "c" and not cards

    def _block_counts(self, src: Pile, spec: Spec | None) -> range | tuple[int, ...]:
        """The numbers of cards of ``src`` worth trying as one move onto another tableau pile."""
        if isinstance(spec, Tableau):
            if spec.whole:
                return (len(src),) if src.up == len(src) else ()
            if spec.blocks:
                return range(1, src.up + 1)
        return (1,)

    def _wanted_ranks(self, pile: Pile, spec: Spec, base: Rank | None) -> tuple[int, ...] | None:
        """The ranks that `_fits` may accept on ``pile`` now (None: any rank), as the layout's
        rules say; ``base`` is `base_rank`. Empty when nothing fits (a full cell or foundation,
        a space nothing fills)."""
        cards = pile.cards
        if isinstance(spec, Foundations):
            if spec.limit is not None and len(cards) >= spec.limit:
                return ()
            if not cards:
                return None if base is None else (base,)
            rule = _build_rule(spec, pile.id)
        elif isinstance(spec, Tableau):
            if not cards:
                if spec.empty == Empty.BELOW_BASE:
                    return () if base is None else (circular(base, -1),)
                if spec.empty == Empty.KINGS:
                    return (Rank.KING,)
                return None if spec.empty == Empty.ANY else ()
            rule = spec.build
        else:
            return None if not cards else ()
        ranks = getattr(rule, "ranks", None)
        return None if ranks is None else ranks[cards[-1].rank]

    def _transfers(self) -> Iterator[Move]:
        """Every transfer that `_check_transfer` accepts now, source pile by source pile in layout
        order, then destination, then count (fewest cards first); `_restrict` still applies.

        A move of several cards needs a built sequence on top of its source, and a tableau pile
        with a ``limit`` room for them: both are tested here before `_fits`, which decides. The
        destinations are filed by the ranks they may take (`_wanted_ranks`), so each source meets
        only those its cards could fit, not every pile of the layout (the server lists the mover's
        legal moves after every move).

        With the plain `_fits`, whether a source's cards fit a destination depends on those two
        piles and the base rank alone, so the lists are kept (`_TransferMemo`) and the next
        listing works out again only the pairs of piles that a move changed."""
        for _, moves in self._transfer_lists():
            for entry in moves:
                yield entry[2]

    def _transfer_lists(self) -> list[tuple[str, list[tuple[int, int, Move]]]]:
        """The transfers of `_transfers` as (source id, [(destination's layout index, count,
        the `Move`), ...]) in layout order: kept and brought up to date where the class allows,
        else worked out afresh."""
        base = self.base_rank() if self._rank_hints else None
        found = None
        memo = self._transfer_memo
        if memo is not None and memo.piles is self.piles and memo.base == base:  # (only with _memo_ok)
            found = self._update_transfers(memo, base)
        if found is None:
            found = self._list_transfers(base)
        return found

    def _destination(self, index: int, dst: Pile, base: Rank | None) -> _Destination | None:
        """What `_transfers` needs to know of a possible destination (a foundation, tableau pile
        or cell) at layout position ``index``; None for any other pile, or when nothing fits."""
        letter = dst.id[0]
        if letter not in "ftc":
            return None
        spec = self._by_letter[letter]
        wanted = self._wanted_ranks(dst, spec, base) if self._rank_hints else None
        if wanted == ():
            return None
        rule = top = None
        if dst.cards and self._plain_fits:
            top = dst.cards[-1]
            rule = _build_rule(spec, dst.id)  # type: ignore[arg-type]
        limit = spec.limit if letter == "t" else None  # type: ignore[union-attr]
        room = None if limit is None else limit - len(dst.cards)
        return (index, dst, spec.takes_from, room, rule, top, wanted, letter == "t")  # type: ignore[union-attr]

    def _blocks(self, src: Pile) -> Sequence[int] | None:
        """How many cards of ``src`` to try moving onto a tableau pile, fewest first:
        `_block_counts`, cut to the built sequence on top. None when ``src`` is not a source now
        (not a tableau pile, reserve, waste or cell, or no face-up card)."""
        cards = src.cards
        if src.id[0] not in "trwc" or len(cards) == src.down:
            return None
        spec = self._by_letter.get(src.id[0])
        blocks = self._block_counts(src, spec)
        if blocks and blocks[-1] > 1:  # several cards move only as a built sequence
            assert isinstance(spec, Tableau), "only a tableau pile's block counts exceed 1 (`_block_counts`)"
            run = _built_run(cards, len(cards) - src.down, spec.build)
            return blocks[: bisect.bisect_right(blocks, run)]  # (fewest first: the counts up to run)
        return blocks

    def _list_transfers(self, base: Rank | None) -> list[tuple[str, list[tuple[int, int, Move]]]]:
        """Every source's transfers worked out afresh, as (source id, [(destination's layout
        index, count, the `Move`), ...]) in layout order; kept in `_transfer_memo` where the
        class allows (`_memo_ok`)."""
        piles = self.piles
        plain = self._plain_fits
        # Destinations filed by the ranks that may fit: the tableau's take blocks, the others
        # (foundations, cells) a top card. With the plain `_fits`, a card of a wanted rank fits
        # when the rule (None: the rank alone decides) takes it on the top card; otherwise `_fits`
        # decides.
        dests: list[_Destination | None] = []
        tableau_by_rank: dict[int, list[_Destination]] = {}
        tableau_any: list[_Destination] = []
        others_by_rank: dict[int, list[_Destination]] = {}
        others_any: list[_Destination] = []
        for index, pile in enumerate(piles.values()):
            entry = self._destination(index, pile, base) if pile.id[0] in "ftc" else None
            dests.append(entry)
            if entry is None:
                continue
            by_rank, any_rank = (tableau_by_rank, tableau_any) if entry[7] else (others_by_rank, others_any)
            wanted = entry[6]
            if wanted is None:
                any_rank.append(entry)
            else:
                for rank in wanted:
                    by_rank.setdefault(rank, []).append(entry)
        fits = self._fits
        tableau_dests = bool(tableau_by_rank or tableau_any)
        blocks_of: list[Sequence[int] | None] = []
        result: list[tuple[str, list[tuple[int, int, Move]]]] = []
        for src in piles.values():
            letter = src.id[0]
            cards = src.cards
            if letter not in "trwc" or len(cards) == src.down:
                blocks_of.append(None)
                result.append((src.id, []))
                continue
            found: list[tuple[int, int, Move]] = []
            card = cards[-1]
            entries = others_by_rank.get(card.rank)
            if others_any:
                entries = others_any + entries if entries else others_any
            if entries:
                for index, dst, takes_from, _, rule, top, _, _ in entries:
                    if (
                        dst is not src
                        and letter in takes_from
                        and (
                            (rule is None or rule(top, card))  # type: ignore[arg-type]  # (`_Destination`)
                            if plain
                            else fits(dst, card)
                        )
                    ):
                        found.append((index, 1, _transfer(src.id, dst.id, 1)))
            blocks = self._blocks(src) if plain or tableau_dests else None
            blocks_of.append(blocks)
            if tableau_dests:
                for count in blocks:  # type: ignore[union-attr]
                    card = cards[-count]
                    entries = tableau_by_rank.get(card.rank)
                    if tableau_any:
                        entries = tableau_any + entries if entries else tableau_any
                    if not entries:
                        continue
                    for index, dst, takes_from, room, rule, top, _, _ in entries:
                        if (
                            dst is not src
                            and letter in takes_from
                            and (room is None or count <= room)
                            and (
                                (rule is None or rule(top, card))  # type: ignore[arg-type]  # (`_Destination`)
                                if plain
                                else fits(dst, card)
                            )
                        ):
                            found.append((index, count, _transfer(src.id, dst.id, count)))
            if len(found) > 1:
                found.sort()
            result.append((src.id, found))
        if self._memo_ok:
            self._transfer_memo = _TransferMemo(piles, base, dests, blocks_of, result)
        return result

    def _update_transfers(
        self, memo: _TransferMemo, base: Rank | None
    ) -> list[tuple[str, list[tuple[int, int, Move]]]] | None:
        """The lists of `_list_transfers`, brought up to date in ``memo`` (same piles, same base
        rank): a pile that changed is listed again as a source, and met again as a destination
        by every other source. None when too much changed to gain anything. Each source's list
        is changed in place, so that a move leaves no new long-lived lists behind."""
        piles = list(self.piles.values())
        downs = memo.downs
        cards = memo.cards
        if len(piles) != len(downs):  # (a pile added or taken away: list afresh)
            return None
        changed = {i for i, pile in enumerate(piles) if pile.down != downs[i] or pile.cards != cards[i]}
        if not changed:
            return memo.found
        if len(changed) > _MEMO_MOST_CHANGED:
            return None
        dests = memo.dests
        blocks_of = memo.blocks
        changed_dests = set()
        for i in changed:
            pile = piles[i]
            downs[i] = pile.down
            cards[i][:] = pile.cards
            was = dests[i]
            entry = dests[i] = self._destination(i, pile, base)
            if entry is not None or was is not None:
                changed_dests.add(i)
            blocks_of[i] = self._blocks(pile)
        live_dests = [entry for entry in dests if entry is not None]
        met_again = [entry for j in sorted(changed_dests) if (entry := dests[j]) is not None]
        result = memo.found
        for i, blocks in enumerate(blocks_of):
            if i in changed:
                result[i][1][:] = () if blocks is None else _fitting(i, piles[i], blocks, live_dests)
            elif blocks is not None and changed_dests:
                old = result[i][1]
                found = [move for move in old if move[0] not in changed_dests] if old else []
                added = _fitting(i, piles[i], blocks, met_again) if met_again else ()
                if added or len(found) != len(old):
                    found += added
                    found.sort()
                    old[:] = found
        return result

    def _actions(self) -> Iterator[Move]:
        """The stock's actions that might be legal (``deal``, ``redeal``)."""
        stock = self._stock_spec()
        if stock is not None and not stock.auto:
            yield _DEAL
            if stock.to == "w":
                yield _REDEAL

    def _candidates(self) -> Iterator[Move]:
        yield from self._transfers()
        yield from self._actions()

    def _legal_now(self) -> list[Move]:
        """As `Game._legal_now`, without `_check` for each transfer: `_transfers` yields exactly
        the ones `_check_transfer` accepts, so only `_restrict` is left to ask (and nothing, for
        a game that never restricts). Games that override those hooks take the general way."""
        if not self._exact_transfers:
            return super()._legal_now()
        if self._plain_restrict and not self._opens_from_reserve and not self._must_fill:
            moves = [entry[2] for _, kept in self._transfer_lists() for entry in kept]
            allowed = None
        else:
            moves = [m for m in self._transfers() if self._allowed(m)]
            allowed = self._allowed
        for move in self._actions():  # deal and redeal are asked without raising
            if move.action not in ("deal", "redeal"):
                legal = self._passes(move)
            else:
                refusal = self._deal_refusal() if move.action == "deal" else self._redeal_refusal()
                legal = refusal is None and (allowed is None or allowed(move))
            if legal:
                moves.append(move)
        return moves

    def _allowed(self, move: Move) -> bool:
        """True unless `_restrict` refuses ``move``."""
        try:
            self._restrict(move)
        except IllegalMove:
            return False
        return True

    def _check(self, move: Move) -> None:
        self._restrict(move)
        if move.is_transfer:
            self._check_transfer(move)
        elif move.action not in ("deal", "redeal"):
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{self.name} has no action {move.action!r}", move)
        elif move.arg:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{move.action!r} takes no argument", move)
        elif move.action == "deal":
            refusal = self._deal_refusal()
            if refusal is not None:
                raise IllegalMove(*refusal, move)
        else:
            self._check_redeal(move)

    def _restrict(self, move: Move) -> None:
        """Refuse (``not_now``) what the state of play forbids whatever the piles: before the first
        foundation card of an ``opener="r"`` game, only a reserve card to a foundation; while a
        `Fill.MUST` reserve has cards and a tableau pile is empty, only a reserve card to a space.
        Games with stages extend this hook."""
        from_reserve = move.is_transfer and move.src[:1] == "r"
        if self._opens_from_reserve and self.base_rank() is None and not (from_reserve and move.dst[:1] == "f"):
            raise IllegalMove(IllegalCode.NOT_NOW, "first start a foundation with a reserve card", move)
        if self._must_fill:
            spaces = [pid for pid, p in self.piles.items() if pid[0] == "t" and not p.cards]
            waiting = spaces and any(p.cards for pid, p in self.piles.items() if pid[0] == "r")
            if waiting and not (from_reserve and move.dst in spaces):
                raise IllegalMove(
                    IllegalCode.NOT_NOW, f"first fill the empty {self.pile_name(spaces[0])} from a reserve pile", move
                )

    def _deal_refusal(self) -> tuple[IllegalCode, str] | None:
        """Why ``deal`` cannot be played now (code, reason), or None if it can: `_check` raises
        it, and the legal listing asks without raising (one refusal in most positions)."""
        spec = self._stock_spec()
        if spec is None:
            return IllegalCode.UNKNOWN_ACTION, f"{self.name} has no stock to deal from"
        if spec.auto:
            return IllegalCode.NOT_NOW, "the next stock card turns up by itself"
        if not self.piles["s"].cards:
            return IllegalCode.STOCK_EMPTY, "the stock is empty"
        return None

    def _redeal_refusal(self) -> tuple[IllegalCode, str] | None:
        """Why ``redeal`` cannot be played now (code, reason), or None if it can (as
        `_deal_refusal`)."""
        spec = self._stock_spec()
        if spec is None or spec.to != "w" or spec.auto:
            return IllegalCode.NO_REDEAL, f"{self.name} has no redeal"
        if self.piles["s"].cards:
            return IllegalCode.NOT_NOW, "you may redeal only when the stock is empty"
        if not self.piles["w"].cards:
            return IllegalCode.EMPTY_PILE, "the waste is empty: nothing to redeal"
        if spec.redeals is not None and self.redeals >= spec.redeals:
            if not spec.redeals:
                return IllegalCode.NO_REDEAL, f"{self.name} has no redeal"
            return IllegalCode.NO_REDEAL, f"no redeal left: this game allows {spec.redeals}"
        return None

    def _check_redeal(self, move: Move) -> None:
        refusal = self._redeal_refusal()
        if refusal is not None:
            raise IllegalMove(*refusal, move)

    def _check_transfer(self, move: Move) -> None:
        src = self.pile(move.src, move)
        dst = self.pile(move.dst, move)
        src_spec = self._spec(src.id)
        dst_spec = self._spec(dst.id)
        if src is dst:
            raise IllegalMove(IllegalCode.WRONG_PILE, "a card cannot move onto its own pile", move)
        if src.id[0] not in "trwc":
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be taken from {self.pile_name(src.id)}", move)
        if dst.id[0] not in "ftc":
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be played to {self.pile_name(dst.id)}", move)
        if src.id[0] not in dst_spec.takes_from:  # type: ignore[union-attr]
            raise IllegalMove(
                IllegalCode.WRONG_PILE, f"{self.pile_name(dst.id)} takes no card from {self._pile_kind(src.id)}", move
            )
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, is_empty(self.pile_name(src.id)), move)
        if move.count > src.up:
            raise IllegalMove(IllegalCode.FACE_DOWN, f"{self.pile_name(src.id)} has {_face_up(src)}", move)
        whole = isinstance(src_spec, Tableau) and src_spec.whole
        if move.count > 1:
            if dst.id[0] != "t":
                raise IllegalMove(IllegalCode.BAD_COUNT, f"{self.pile_name(dst.id)} takes one card at a time", move)
            if not (isinstance(src_spec, Tableau) and (src_spec.blocks or whole)):
                raise IllegalMove(IllegalCode.BAD_COUNT, "only one card may move at a time", move)
            block = src.cards[-move.count :]
            if not all(src_spec.build(a, b) for a, b in zip(block, block[1:])):
                raise IllegalMove(
                    IllegalCode.NOT_A_SEQUENCE,
                    f"the top {move.count} cards of {self.pile_name(src.id)} are not a built run",
                    move,
                )
        if whole and dst.id[0] == "t" and move.count != len(src):
            raise IllegalMove(
                IllegalCode.BAD_COUNT,
                f"only the whole of {self.pile_name(src.id)} ({counted(len(src), 'card')}) "
                f"may move to another tableau pile",
                move,
            )
        limit = dst_spec.limit if isinstance(dst_spec, Tableau) else None
        if limit is not None and len(dst) + move.count > limit:
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, f"{self.pile_name(dst.id)} holds at most {limit} cards", move)
        card = src.cards[-move.count]
        if not self._fits(dst, card):
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, self._misfit(dst, card), move)

    def _misfit(self, pile: Pile, card: Card) -> str:
        """Why `_fits` refuses ``card`` on ``pile``, in a player's words, with the rule that
        refuses it: the pile's build rule (`rule_words`), its `Empty` rule, the base card, a
        foundation's limit. A game that overrides `_fits` overrides this as well."""
        kind = pile.id[0]
        spec = self._by_letter.get(kind)
        cards = pile.cards
        what = card_name(card)
        if isinstance(spec, Foundations):
            if spec.limit is not None and len(cards) >= spec.limit:
                return f"{self.pile_name(pile.id)} is complete: a foundation holds {spec.limit} cards"
            if not cards:
                return f"the {what} cannot go on an empty foundation: {self._base_words()}"
            shared = spec.count > 1 and not isinstance(spec.build, tuple)
            return (
                f"the {what} cannot go on the {card_name(cards[-1])} on {self.pile_name(pile.id)}: "
                f"{'foundations ' if shared else ''}{rule_words(_build_rule(spec, pile.id))}"
            )
        if isinstance(spec, Tableau):
            if cards:
                return f"the {what} cannot go on the {card_name(cards[-1])}: {rule_words(spec.build)}"
            base = self.base_rank()
            if spec.empty == Empty.BELOW_BASE and base is not None:
                below = rank_name(circular(base, -1))
                return f"only {a(below)} may fill an empty tableau pile (one rank below the base card)"
            return spec.empty.words
        return f"{self.pile_name(pile.id)} already holds a card"

    def _base_words(self) -> str:
        """What starts an empty foundation, in words: "a foundation starts with an Ace"."""
        spec = self._specs().get("f")
        base = self.base_rank()
        if not isinstance(spec, Foundations) or base is None:
            return "it takes no card now"
        if spec.base == FIRST:
            return f"in this deal every foundation starts with {a(rank_name(base))}"
        return f"a foundation starts with {a(rank_name(base))}"

    def _describe(self, move: Move) -> str:
        """``deal`` as the stock deals: "deal three cards from the stock", "deal a card to each
        tableau pile"; any other move as `Game._describe`."""
        if move.action != "deal":
            return super()._describe(move)
        spec = self._stock_spec()
        assert spec is not None
        if spec.to in ("r", "t"):
            return f"deal a card to each {kind_name(spec.to)}"
        turned = min(spec.turn, len(self.piles["s"]))
        cards = "a card" if turned == 1 else f"{number(turned)} cards"
        if spec.to == "w":
            return f"deal {cards} from {self.pile_name('s')}"
        return f"deal {cards} from {self.pile_name('s')} to {self.pile_name(spec.to)}"

    def _perform(self, move: Move) -> None:
        if move.is_transfer:
            src, dst = self.piles[move.src], self.piles[move.dst]
            cards = self._take(src, move.count)
            dst.cards.extend(cards)
            self._turn_up(src)
        elif move.action == "deal":
            spec = self._stock_spec()
            assert spec is not None
            stock = self.piles["s"]
            if spec.to in ("r", "t"):  # one card onto each pile of that kind
                for pid in [p for p in self.piles if p[0] == spec.to]:
                    if stock.cards:
                        self._add(self.piles[pid], self._take(stock, 1))
            else:
                for _ in range(min(spec.turn, len(stock))):
                    self._add(self.piles[spec.to], self._take(stock, 1))
        elif move.action == "redeal":
            waste, stock = self.piles["w"], self.piles["s"]
            stock.cards = waste.cards[::-1]
            stock.down = len(stock.cards)
            waste.cards = []
            waste.down = 0
            self.redeals += 1
        self._automatic()

    def _automatic(self) -> None:
        """The steps the rules impose after every move: spaces filled from a `Fill.AUTO` reserve,
        the next stock card turned up onto an empty waste (``Stock(auto=True)``)."""
        reserve = self._specs().get("r")
        if isinstance(reserve, Reserve) and reserve.fill == Fill.AUTO:
            for pid, pile in self.piles.items():
                if pid[0] != "t" or pile.cards:
                    continue
                source = next((p for q, p in self.piles.items() if q[0] == "r" and p.cards), None)
                if source is None:
                    break
                self._add(pile, self._take(source, 1))
                self._turn_up(source)
        stock = self._stock_spec()
        if stock is not None and stock.auto and not self.piles["w"].cards and self.piles["s"].cards:
            self._add(self.piles["w"], self._take(self.piles["s"], 1))
