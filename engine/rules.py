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
"""

from __future__ import annotations

import copy as _copy
import enum
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import ClassVar

from engine.cards import Card, Rank
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile

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
    "circular",
    "down_alternate",
    "up_in_suit",
    "up_or_down",
]

#: ``rule(top, card)`` says whether ``card`` may go on ``top``. A rule made by `build` also has
#: ``rule.ranks``: for each rank of ``top`` (1..13), the ranks of the cards it may take (a rule
#: without that attribute may take any rank); `PileGame` uses it to skip cards that cannot fit.
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
        top: tuple(dict.fromkeys(circular(top, by) if wrap else top + by for by in offsets))
        for top in range(1, 14)
    }
    return rule


def any_card(top: Card, card: Card) -> bool:
    """Any card on any card (waste piles that take whatever the player puts there)."""
    return True


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


#: Every transfer made so far, by (source, destination, count): a `Move` is immutable, so the
#: legal-move lists after every move share them instead of building new ones (a few thousand at
#: most: pile ids times counts).
_TRANSFERS: dict[tuple[str, str, int], Move] = {}


def _transfer(src: str, dst: str, count: int) -> Move:
    """The `Move` of ``count`` cards from pile ``src`` to pile ``dst`` (one shared instance)."""
    key = (src, dst, count)
    move = _TRANSFERS.get(key)
    if move is None:
        move = _TRANSFERS[key] = Move(src=src, dst=dst, count=count)
    return move


def _build_rule(spec: Foundations | Tableau, pile_id: str) -> BuildRule:
    """The build rule of pile ``pile_id``: its own of a foundation that has one each."""
    rule = spec.build
    return rule[int(pile_id[1:])] if isinstance(rule, tuple) else rule


def _built_run(cards: list[Card], up: int, rule: BuildRule) -> int:
    """How many of the top ``up`` ``cards`` form a sequence built by ``rule`` (at least 1)."""
    run = 1
    while run < up and rule(cards[-run - 1], cards[-run]):
        run += 1
    return run


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
            for name in ("_candidates", "_transfers", "_check", "_check_transfer", "_block_counts")
        )
        cls._plain_restrict = cls._restrict is PileGame._restrict

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
        twin._revealed = []
        return twin

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
        legal moves after every move)."""
        piles = self.piles
        specs = self._by_letter
        hints = self._rank_hints
        plain = self._plain_fits
        base = self.base_rank() if hints else None
        # Destinations as (layout index, pile, its takes_from, card limit, build rule, top card),
        # filed by the ranks that may fit: the tableau's take blocks, the others (foundations,
        # cells) a top card. With the plain `_fits`, a card of a wanted rank fits when the rule
        # (None: the rank alone decides) takes it on the top card; otherwise `_fits` decides.
        tableau_by_rank: dict[int, list[tuple]] = {}
        tableau_any: list[tuple] = []
        others_by_rank: dict[int, list[tuple]] = {}
        others_any: list[tuple] = []
        for index, (pid, dst) in enumerate(piles.items()):
            letter = pid[0]
            if letter not in "ftc":
                continue
            spec = specs[letter]
            wanted = self._wanted_ranks(dst, spec, base) if hints else None
            if wanted == ():
                continue
            rule = top = None
            if dst.cards and plain:
                top = dst.cards[-1]
                rule = _build_rule(spec, pid)  # type: ignore[arg-type]
            if letter == "t":
                entry = (index, dst, spec.takes_from, spec.limit, rule, top)  # type: ignore[union-attr]
                by_rank, any_rank = tableau_by_rank, tableau_any
            else:
                entry = (index, dst, spec.takes_from, None, rule, top)
                by_rank, any_rank = others_by_rank, others_any
            if wanted is None:
                any_rank.append(entry)
            else:
                for rank in wanted:
                    by_rank.setdefault(rank, []).append(entry)
        fits = self._fits
        for src in piles.values():
            letter = src.id[0]
            cards = src.cards
            up = len(cards) - src.down
            if letter not in "trwc" or not up:
                continue
            found: list[tuple[int, int, str]] = []  # (destination's layout index, count, its id)
            card = cards[-1]
            entries = others_by_rank.get(card.rank)
            if others_any:
                entries = others_any + entries if entries else others_any
            if entries:
                for index, dst, takes_from, _, rule, top in entries:
                    if dst is not src and letter in takes_from and (
                        (rule is None or rule(top, card)) if plain else fits(dst, card)
                    ):
                        found.append((index, 1, dst.id))
            if tableau_by_rank or tableau_any:
                src_spec = specs.get(letter)
                blocks = self._block_counts(src, src_spec)
                if blocks and blocks[-1] > 1:  # several cards move only as a built sequence
                    run = _built_run(cards, up, src_spec.build)  # type: ignore[union-attr]
                    blocks = [count for count in blocks if count <= run]
                for count in blocks:
                    card = cards[-count]
                    entries = tableau_by_rank.get(card.rank)
                    if tableau_any:
                        entries = tableau_any + entries if entries else tableau_any
                    if not entries:
                        continue
                    for index, dst, takes_from, limit, rule, top in entries:
                        if (dst is not src and letter in takes_from
                                and (limit is None or len(dst.cards) + count <= limit)
                                and ((rule is None or rule(top, card)) if plain else fits(dst, card))):
                            found.append((index, count, dst.id))
            if len(found) > 1:
                found.sort()
            for _, count, dst_id in found:
                yield _transfer(src.id, dst_id, count)

    def _actions(self) -> Iterator[Move]:
        """The stock's actions that might be legal (``deal``, ``redeal``)."""
        stock = self._stock_spec()
        if stock is not None and not stock.auto:
            yield Move(action="deal")
            if stock.to == "w":
                yield Move(action="redeal")

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
            moves = list(self._transfers())
        else:
            moves = [m for m in self._transfers() if self._allowed(m)]
        moves += [m for m in self._actions() if self._passes(m)]
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
        elif move.arg:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{move.action!r} takes no argument", move)
        elif move.action == "deal":
            spec = self._stock_spec()
            if spec is None:
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{self.name} has no stock", move)
            if spec.auto:
                raise IllegalMove(IllegalCode.NOT_NOW, "the next stock card turns up by itself", move)
            if not self.piles["s"].cards:
                raise IllegalMove(IllegalCode.STOCK_EMPTY, "the stock is empty", move)
        elif move.action == "redeal":
            self._check_redeal(move)
        else:
            raise IllegalMove(
                IllegalCode.UNKNOWN_ACTION, f"{self.name} has no action {move.action!r}", move
            )

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
                    IllegalCode.NOT_NOW, f"fill the space {spaces[0]} from the reserve first", move
                )

    def _check_redeal(self, move: Move) -> None:
        spec = self._stock_spec()
        if spec is None or spec.to != "w" or spec.auto:
            raise IllegalMove(IllegalCode.NO_REDEAL, f"{self.name} has no redeal", move)
        if self.piles["s"].cards:
            raise IllegalMove(IllegalCode.NOT_NOW, "redeal only when the stock is empty", move)
        if not self.piles["w"].cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, "the waste is empty: nothing to redeal", move)
        if spec.redeals is not None and self.redeals >= spec.redeals:
            raise IllegalMove(IllegalCode.NO_REDEAL, f"no redeal left ({spec.redeals} allowed)", move)

    def _check_transfer(self, move: Move) -> None:
        src = self.pile(move.src, move)
        dst = self.pile(move.dst, move)
        src_spec = self._spec(src.id)
        dst_spec = self._spec(dst.id)
        if src.id[0] not in "trwc" or src is dst:
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards may not be moved from {src.id}", move)
        if dst.id[0] not in "ftc":
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards may not be played to {dst.id}", move)
        if src.id[0] not in dst_spec.takes_from:  # type: ignore[union-attr]
            raise IllegalMove(IllegalCode.WRONG_PILE, f"{dst.id} takes no card from {src.id}", move)
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{src.id} is empty", move)
        if move.count > src.up:
            raise IllegalMove(IllegalCode.FACE_DOWN, f"{src.id} has only {src.up} face-up cards", move)
        whole = isinstance(src_spec, Tableau) and src_spec.whole
        if move.count > 1:
            if dst.id[0] != "t":
                raise IllegalMove(IllegalCode.BAD_COUNT, f"{dst.id} takes one card at a time", move)
            if not (isinstance(src_spec, Tableau) and (src_spec.blocks or whole)):
                raise IllegalMove(IllegalCode.BAD_COUNT, "only one card may move at a time", move)
            block = src.cards[-move.count :]
            if not all(src_spec.build(a, b) for a, b in zip(block, block[1:])):
                raise IllegalMove(
                    IllegalCode.NOT_A_SEQUENCE,
                    f"the top {move.count} cards of {src.id} are not a built sequence",
                    move,
                )
        if whole and dst.id[0] == "t" and move.count != len(src):
            raise IllegalMove(
                IllegalCode.BAD_COUNT, f"only the whole of {src.id} ({len(src)} cards) may move", move
            )
        limit = dst_spec.limit if isinstance(dst_spec, Tableau) else None
        if limit is not None and len(dst) + move.count > limit:
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, f"{dst.id} holds at most {limit} cards", move)
        card = src.cards[-move.count]
        if not self._fits(dst, card):
            where = f"an empty {dst.id}" if not dst.cards else f"{dst.top.code} on {dst.id}"  # type: ignore[union-attr]
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, f"{card.code} may not go on {where}", move)

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
