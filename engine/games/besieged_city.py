"""The Besieged City: two packs; a Reserve of twelve inside fourteen Ramparts; foundations A, K, 2, Q ... and back.

Rules text: 004_b8ac959bf00b6dc2.txt. In the project's words:

* Two packs (104 cards). Twelve cards, face up, make the Reserve: four rows of three, ``r0`` to
  ``r11`` row by row (``r0 r1 r2`` is the top row). Fourteen cards, face up, make the Ramparts
  round it, one card to a packet: ``t0 t1 t2`` above the three columns, ``t3`` to ``t6`` at the
  left ends of the four rows, ``t7`` to ``t10`` at their right ends, ``t11 t12 t13`` below the
  columns. The other 78 cards are the pack (the stock ``s``)::

            t0   t1   t2
      t3    r0   r1   r2    t7
      t4    r3   r4   r5    t8
      t5    r6   r7   r8    t9
      t6    r9   r10  r11   t10
            t11  t12  t13

* Four foundations ``f0`` to ``f3``, one per suit, each started by an Ace and built in suit in the
  playing order A K 2 Q 3 J 4 T 5 9 6 8 7, then back: 7 8 6 9 5 T 4 J 3 Q 2 K A (26 cards).
* Only the top card of a Rampart packet is available. It may go to a foundation (``t4>f1``) or onto
  the top card of another packet (``t4>t9``) when both are of one suit and they are neighbours,
  either one rank apart (a Five on a Six or a Six on a Five) or next to each other in the playing
  order (a Queen on a Two, a Jack on a Three, or the other way round). A packet may mix
  directions.
* A Reserve card may go onto a Rampart packet by the same rule, but only onto one at an end of its
  own row or its own column (``r4>t1``, ``r4>t4``, ``r4>t8``, ``r4>t12`` for ``r4``). Reserve
  cards never go to a foundation.
* A Rampart packet that is emptied must be refilled at once with a Reserve card of the row or column
  at whose end it lies: while such a refill is possible, it is the only legal kind of move.
* An emptied Reserve place is filled at once by the engine with the top card of the talon ``w``,
  or, while the talon is empty, with the next card of the pack (reported as reveals).
* ``deal`` turns the next card of the pack: if it can go to a foundation the engine plays it there,
  otherwise it goes onto the talon. Talon cards reach play only through the Reserve.
* When the pack and the talon are both used up, two Reserve cards may change places
  (``transpose r2.r9``) so that one of them can then go to the Ramparts.
* Cleared: cards on the foundations (104 to win).

Readings taken where the text is incomplete:

* The lines. The text's note lets a card go to four Rampart places and fills a vacancy from three
  cards at some places and four at others: so a Reserve card's "line" is its row (three cards,
  Ramparts at its two ends) or its column (four cards, Ramparts above and below).
* The playing order after the first Seven: the text only says the foundations go back down to an
  Ace, so the second half is the first reversed; the two Sevens meet in the middle, so a Seven on a
  Seven of its suit is next in the playing order and may be packed too.
* Foundations: one per suit ("four aces of different suits"); the second Ace of a suit is the last
  card of that suit's foundation.
* A card turned from the pack that fits a foundation is always played there (the text places only
  unsuitable cards on the talon). The talon's top card is used only to fill the Reserve.
* Ramparts, Reserve and pack: moves between Ramparts and from the Reserve may be made at any time,
  before dealing or while dealing.
* Transposition: only once the pack and the talon are exhausted, any two Reserve cards, and only
  when afterwards one of them can go onto (or fill) a Rampart at the end of its new row or column.
  Every such transposition is a move.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise

from engine.cards import Card, Rank
from engine.core import Game, IllegalCode, IllegalMove, Move, Pile
from engine.words import and_list, card_name, suit_name

__all__ = ["BesiegedCity"]

ROWS, COLUMNS = 4, 3
_RESERVE = tuple(f"r{i}" for i in range(ROWS * COLUMNS))
_RAMPARTS = tuple(f"t{i}" for i in range(2 * (ROWS + COLUMNS)))
_FOUNDATIONS = tuple(f"f{i}" for i in range(4))

_HALF = (1, 13, 2, 12, 3, 11, 4, 10, 5, 9, 6, 8, 7)
#: The playing order of a foundation: 26 ranks, Ace first and last.
ORDER = tuple(Rank(r) for r in _HALF + _HALF[::-1])
#: Pairs of ranks that are next to each other in the playing order (either way round).
_PLAY_NEIGHBOURS = frozenset((a, b) for x, y in pairwise(ORDER) for a, b in ((x, y), (y, x)))


def _lines() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """For each Reserve place, the Ramparts at the ends of its row and column; for each Rampart,
    the Reserve places of the row or column at whose end it lies."""
    ends: dict[str, tuple[str, ...]] = {}
    line_of: dict[str, tuple[str, ...]] = {}
    for i in range(ROWS):
        row = tuple(f"r{COLUMNS * i + j}" for j in range(COLUMNS))
        line_of[f"t{3 + i}"] = line_of[f"t{7 + i}"] = row
    for j in range(COLUMNS):
        column = tuple(f"r{COLUMNS * i + j}" for i in range(ROWS))
        line_of[f"t{j}"] = line_of[f"t{11 + j}"] = column
    for place in _RESERVE:
        ends[place] = tuple(t for t in _RAMPARTS if place in line_of[t])
    return ends, line_of


ENDS, LINE_OF = _lines()

_ORDER_WORDS = "foundations build in suit in the order A K 2 Q 3 J 4 10 5 9 6 8 7, then back to the Ace"


def _unpacked(card: Card, top: Card) -> str:
    """Why ``card`` may not be packed on ``top`` in the ramparts, in words."""
    return (
        f"the {card_name(card)} cannot go on the {card_name(top)}: a card packs on one of its suit "
        f"a rank above or below it, or next to it in the foundations' order"
    )


_TRANSPOSE = re.compile(r"(r\d{1,2})\.(r\d{1,2})")


def packs_on(top: Card, card: Card) -> bool:
    """Whether ``card`` may be packed on ``top`` in the Ramparts: same suit, and one rank apart or
    next to each other in the playing order."""
    if card.suit != top.suit:
        return False
    return abs(card.rank - top.rank) == 1 or (top.rank, card.rank) in _PLAY_NEIGHBOURS


class BesiegedCity(Game):
    """The Besieged City: two packs, a Reserve of twelve inside fourteen Ramparts, foundations
    built A K 2 Q 3 J ... 7 and back to an Ace (004_b8ac959bf00b6dc2.txt)."""

    # Auto-collect plays nothing here (`Game._safe` stays False): the next card in a suit's foundation order, in play
    # until the card goes up, may always be packed on it in the Ramparts, and an emptied Rampart must be filled at once,
    # a choice.

    key = "besieged_city"
    name = "The Besieged City"
    summary = "Two packs: Ramparts round a Reserve; foundations built A, K, 2, Q, 3, J ... and back down to an Ace."
    rules_text = "004_b8ac959bf00b6dc2.txt"
    packs = 2
    total = 104
    #: The text's names: ramparts, reserve places, the pack and the talon.
    pile_words = {"t": "rampart {n}", "r": "reserve place {n}", "s": "the pack", "w": "the talon"}
    #: `_vacancies` for one position: (the length of ``history`` then, the ramparts); None after a move.
    _vacancy_cache: tuple[int, list[str]] | None

    def _deal(self, cards: list[Card]) -> None:
        for pid in _FOUNDATIONS:
            self.piles[pid] = Pile(pid)
        for i, pid in enumerate(_RESERVE):
            self.piles[pid] = Pile(pid, [cards[i]])
        start = len(_RESERVE)
        for i, pid in enumerate(_RAMPARTS):
            self.piles[pid] = Pile(pid, [cards[start + i]])
        rest = cards[start + len(_RAMPARTS) :]
        self.piles["s"] = Pile("s", rest[::-1], len(rest))
        self.piles["w"] = Pile("w")

    @property
    def cleared(self) -> int:
        return sum(len(self.piles[pid]) for pid in _FOUNDATIONS)

    # ------------------------------------------------------------------------------ rules

    def _fits_foundation(self, pid: str, card: Card) -> bool:
        pile = self.piles[pid]
        if not pile.cards:
            return card.rank == Rank.ACE and not any(
                self.piles[f].cards and self.piles[f].cards[0].suit == card.suit for f in _FOUNDATIONS
            )
        n = len(pile.cards)
        return n < len(ORDER) and card.suit == pile.cards[0].suit and card.rank == ORDER[n]

    def _home(self, card: Card) -> str | None:
        """A foundation that takes ``card`` now, if any."""
        return next((f for f in _FOUNDATIONS if self._fits_foundation(f, card)), None)

    def _vacancies(self) -> list[str]:
        """Empty Ramparts that a Reserve card of their line could fill now (computed once per
        position: every check asks)."""
        cached = getattr(self, "_vacancy_cache", None)
        if cached is None or cached[0] != len(self.history):
            found = [t for t in _RAMPARTS if not self.piles[t].cards and any(self.piles[r].cards for r in LINE_OF[t])]
            cached = (len(self.history), found)
            self._vacancy_cache = cached
        return cached[1]

    def _may_place(self, place: str, rampart: str, card: Card) -> bool:
        """Whether the Reserve card ``card``, at ``place``, may go onto (or fill) ``rampart``."""
        if rampart not in ENDS[place]:
            return False
        pile = self.piles[rampart]
        return not pile.cards or packs_on(pile.cards[-1], card)

    def _candidates(self) -> Iterator[Move]:
        vacancies = self._vacancies()
        if vacancies:
            for t in vacancies:
                for r in LINE_OF[t]:
                    if self.piles[r].cards:
                        yield Move(src=r, dst=t)
            return
        piles = self.piles
        # the rank each foundation takes next (None: it is complete), and the Ramparts' top cards
        # by suit, in Rampart order: a card packs only on its own suit
        following = {f: ORDER[len(piles[f].cards)] if len(piles[f].cards) < len(ORDER) else None for f in _FOUNDATIONS}
        by_suit: dict[int, list[tuple[str, Card]]] = {}
        for t in _RAMPARTS:
            if piles[t].cards:
                by_suit.setdefault(piles[t].cards[-1].suit, []).append((t, piles[t].cards[-1]))
        for src in _RAMPARTS:
            pile = piles[src]
            if not pile.cards:
                continue
            card = pile.cards[-1]
            for dst in _FOUNDATIONS:
                if card.rank == following[dst] and self._fits_foundation(dst, card):
                    yield Move(src=src, dst=dst)
            for dst, top in by_suit.get(card.suit, ()):
                if dst != src and packs_on(top, card):
                    yield Move(src=src, dst=dst)
        for src in _RESERVE:
            pile = piles[src]
            if pile.cards:
                for dst in ENDS[src]:
                    if self._may_place(src, dst, pile.cards[-1]):
                        yield Move(src=src, dst=dst)
        yield Move(action="deal")
        if not piles["s"].cards and not piles["w"].cards:
            tops = {r: piles[r].cards[-1] for r in _RESERVE if piles[r].cards}
            for i, a in enumerate(_RESERVE):
                for b in _RESERVE[i + 1 :]:
                    if a in tops and b in tops and self._useful_transpose(a, b, tops):
                        yield Move(action="transpose", arg=f"{a}.{b}")

    def _useful_transpose(self, a: str, b: str, tops: dict[str, Card]) -> bool:
        """Whether, once the Reserve cards at ``a`` and ``b`` (``tops``) swap places, either could
        go to the Ramparts (the test `_check_transpose` makes)."""
        return any(self._may_place(place, t, card) for place, card in ((a, tops[b]), (b, tops[a])) for t in ENDS[place])

    def _check(self, move: Move) -> None:
        vacancies = self._vacancies()
        if vacancies and not (move.is_transfer and move.dst in vacancies):
            if not move.is_transfer and move.action not in ("deal", "transpose"):
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{self.name} has no action {move.action!r}", move)
            raise IllegalMove(
                IllegalCode.NOT_NOW,
                f"first fill the empty {self.pile_name(vacancies[0])} from the reserve places of its line",
                move,
            )
        if move.is_transfer:
            self._check_transfer(move)
        elif move.action == "deal":
            if move.arg:
                raise IllegalMove(IllegalCode.UNKNOWN_ACTION, "'deal' takes no argument", move)
            if not self.piles["s"].cards:
                raise IllegalMove(IllegalCode.STOCK_EMPTY, "the pack is dealt out", move)
        elif move.action == "transpose":
            self._check_transpose(move)
        else:
            raise IllegalMove(IllegalCode.UNKNOWN_ACTION, f"{self.name} has no action {move.action!r}", move)

    def _check_transfer(self, move: Move) -> None:
        src, dst = self.pile(move.src, move), self.pile(move.dst, move)
        if src is dst:
            raise IllegalMove(IllegalCode.WRONG_PILE, "a card cannot move onto its own pile", move)
        if src.id not in _RAMPARTS + _RESERVE:
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be taken from {self.pile_name(src.id)}", move)
        if dst.id not in _RAMPARTS + _FOUNDATIONS:
            raise IllegalMove(IllegalCode.WRONG_PILE, f"cards cannot be played to {self.pile_name(dst.id)}", move)
        if move.count != 1:
            raise IllegalMove(IllegalCode.BAD_COUNT, "only one card may move at a time", move)
        if not src.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, f"{self.pile_name(src.id)} is empty", move)
        card = src.cards[-1]
        if dst.id in _FOUNDATIONS:
            if src.id in _RESERVE:
                raise IllegalMove(
                    IllegalCode.WRONG_PILE, "reserve cards reach the foundations only through the ramparts", move
                )
            if not self._fits_foundation(dst.id, card):
                raise IllegalMove(IllegalCode.DOES_NOT_FIT, self._misfit(dst.id, card), move)
            return
        if src.id in _RESERVE:
            if dst.id not in ENDS[src.id]:
                raise IllegalMove(
                    IllegalCode.WRONG_PILE,
                    f"{self.pile_name(src.id)} plays only to the ramparts at the ends of its row and column: "
                    f"{and_list([self.pile_name(t) for t in ENDS[src.id]])}",
                    move,
                )
            if dst.cards and not packs_on(dst.cards[-1], card):
                raise IllegalMove(IllegalCode.DOES_NOT_FIT, _unpacked(card, dst.cards[-1]), move)
            return
        if not dst.cards:
            raise IllegalMove(
                IllegalCode.DOES_NOT_FIT, "an empty rampart is filled only from a reserve place of its line", move
            )
        if not packs_on(dst.cards[-1], card):
            raise IllegalMove(IllegalCode.DOES_NOT_FIT, _unpacked(card, dst.cards[-1]), move)

    def _misfit(self, pid: str, card: Card) -> str:
        """Why foundation ``pid`` does not take ``card`` now, in words."""
        pile = self.piles[pid]
        what = card_name(card)
        if not pile.cards:
            if card.rank != Rank.ACE:
                return f"the {what} cannot go on an empty foundation: a foundation starts with an Ace"
            return f"the {what} cannot start {self.pile_name(pid)}: {suit_name(card.suit)} already have a foundation"
        if len(pile.cards) >= len(ORDER):
            return f"{self.pile_name(pid)} is complete"
        return f"the {what} cannot go on the {card_name(pile.cards[-1])} on {self.pile_name(pid)}: {_ORDER_WORDS}"

    def _describe(self, move: Move) -> str:
        if move.action == "deal":
            return "turn the next card of the pack"
        if move.action == "transpose":
            m = _TRANSPOSE.fullmatch(move.arg)
            assert m is not None
            a, b = m[1], m[2]
            return (
                f"swap the {card_name(self.piles[a].cards[-1])} in {self.pile_name(a)} "
                f"with the {card_name(self.piles[b].cards[-1])} in {self.pile_name(b)}"
            )
        return super()._describe(move)

    def _check_transpose(self, move: Move) -> None:
        if self.piles["s"].cards or self.piles["w"].cards:
            raise IllegalMove(IllegalCode.NOT_NOW, "transpose only when the pack and the talon are used up", move)
        m = _TRANSPOSE.fullmatch(move.arg)
        if not m or m[1] == m[2]:
            raise IllegalMove(IllegalCode.NO_SUCH_PILE, f"transpose needs two reserve places, not {move.arg!r}", move)
        a, b = self.pile(m[1], move), self.pile(m[2], move)
        if a.id not in _RESERVE or b.id not in _RESERVE:
            raise IllegalMove(IllegalCode.WRONG_PILE, "only reserve cards are transposed", move)
        if not a.cards or not b.cards:
            raise IllegalMove(IllegalCode.EMPTY_PILE, "transpose two reserve places that hold cards", move)
        useful = any(
            self._may_place(place, t, card)
            for place, card in ((a.id, b.cards[-1]), (b.id, a.cards[-1]))
            for t in ENDS[place]
        )
        if not useful:
            raise IllegalMove(IllegalCode.NOT_NOW, "neither card could then go to the ramparts", move)

    def _perform(self, move: Move) -> None:
        self._vacancy_cache = None
        if move.is_transfer:
            self.piles[move.dst].cards.extend(self._take(self.piles[move.src], 1))
        elif move.action == "deal":
            (card,) = self._take(self.piles["s"], 1)
            home = self._home(card)
            self._add(self.piles[home if home is not None else "w"], [card])
        else:
            m = _TRANSPOSE.fullmatch(move.arg)
            assert m is not None
            a, b = self.piles[m[1]], self.piles[m[2]]
            a.cards, b.cards = b.cards, a.cards
        self._fill_reserve()

    def _fill_reserve(self) -> None:
        """Fill every empty Reserve place from the talon, or while it is empty from the pack."""
        for place in _RESERVE:
            pile = self.piles[place]
            if pile.cards:
                continue
            source = self.piles["w"] if self.piles["w"].cards else self.piles["s"]
            if not source.cards:
                return
            self._add(pile, self._take(source, 1))
