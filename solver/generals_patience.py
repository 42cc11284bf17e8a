"""General's Patience for the solver: the generic search's knowledge, and an exact search.

Rules: 000_9969d46f4a8b5ed6.txt, as engine/games/generals_patience.py states them: after the
base rank is chosen, eight foundations build up in suit from it round the corner; nine tableau
piles build down in alternate colours round the corner and take any card in a space; the
reserve's top card plays only to a foundation; the stock is turned one card at a time, with one
redeal after which every turned card must be played.

The generic search's knowledge (`canonical`, `score`, `ordered_moves`, used by
``solve(..., exact=False)``) is described first; the exact search (`Thirteen`, `solve_exact`)
after it.

Pieces of knowledge:

* `canonical`: the two copies of a card obey the same rules, so the pack mark is dropped; once
  the base is chosen the nine tableau piles are alike, and so are the eight foundations (any
  base card starts any of them), so both are sorted. The reserve is written as its length (only
  its top leaves it, so the length says which cards are left), and so is the stock before the
  redeal (its order is the deal's).
* `ordered_moves`: the bases that leave the reserve playable first (`reserve_stuck`). Then a
  card to a foundation where it is safe goes alone (no card left in play could be built on it in
  the tableau: every card one rank lower in the other colour is home already); otherwise cards
  to foundations first (the reserve's first), then the waste card onto a card, then tableau
  moves that empty a pile or uncover a card that goes up or takes the waste card, then builds of
  a run off a card it does not fit, then the waste card or such a run into a space, then deal
  and redeal. Moves of one card onto two foundations at the same height, or of a base card onto
  two empty foundations, lead to one position, so only one is kept. A run that already lies on a
  card it fits is moved only when that uncovers a card that goes up or takes the waste card:
  the other such moves only rearrange built runs, and are left out without a proof that they
  cannot matter, so a search that runs out of positions proves nothing (`Knowledge.complete`
  is False).
* `score`: ranks counted from the base (the base is 0, the card below it 12): cards cleared
  count most; a card lying on a card of lower count in the tableau, the reserve or the waste will
  have to move again first and costs a little, and so does each card still in the stock (so
  that the search moves on rather than rearranging the tableau). A position whose reserve can
  never be played out (`reserve_stuck`) comes last: with the base chosen badly, or with two
  foundations of a suit past a card the reserve still holds, the deal is lost.

The exact search (`solve_exact`).

State. `Thirteen` reads a position as plain values (`State`): a card is ``suit * 13 + rank - 1``
(the two copies of a card obey the same rules, so they are one number); foundations as (suit,
height); the tableau piles, reserve height, stock, waste and redeals as they lie. Its `legal`
and `play` are the engine's, move for move and in the engine's order (the test compares them
over random lines of play, the redeal and the end of the game included). The search keeps a
position as bytes: the foundations as two heights a suit (counted from the base, so any base
card starts any empty foundation and the two of a suit are interchangeable), the piles (sorted
in the key: they are alike), the reserve height, the stock (by its length before the redeal: it
is then the deal's, less the cards dealt) and the waste.

Safe moves, played alone. A card that fits a foundation goes up at once when the foundations
waiting for its count take both copies not yet up, and either it is the reserve's top (which
plays only to a foundation) or both copies of each card that could be built on it (one lower,
the other colour) are up. Proof: from the position after it, every line from the position
before can be copied, move for move, skipping the moves of that card and sending the other
copy to the other waiting foundation; nothing is ever built on the card, its absence only frees
the cards below it (and a space), and more spaces and fewer turned cards that must be played
never make a move illegal. So the copy clears at least as many cards.

The ceiling (a proof that bounds what can go up). Only the reserve's top leaves it, and only to
a foundation of its suit exactly one count below it. Say the reserve's top cards leave and the
rest stay for ever. A foundation can pass a count only with a copy of that card, so with one
copy of a count kept in the reserve at most one foundation of the suit passes it, and with both
none does; the leaving cards of a suit must split into two strictly rising runs, one for each
foundation, each below where it ends. Every other card is taken as free to go up at any time:
so the sum, over suits, of the highest two heights allowed, maximised over how many reserve
cards leave, is at least the cards that can ever be up (`_Ceiling`, cached by foundation
heights and reserve height). It is 104 exactly when the reserve can be played out
(`reserve_stuck`; the test checks both agree).

The search. Each base choice (the first move, before it the four offered cards) is searched
best first by `_Search.score` (8 a card up, less 2 a card lying above a lower count, less the
stock left before the redeal; deepest first among equals), the bases in turns of 1,024 moves.
First only the bases with the highest ceiling, leaving out positions whose ceiling is lower: a
line reaching that ceiling is a win (104) or, below it, the most any base can clear, so the
deal is lost with that best clear. If that search ends without, every base is searched again,
leaving out only positions whose ceiling is no higher than the best reached; when it ends, the
best reached is exact. Every move (but those matched by a safe move) is tried and each position
key is searched once, so an ended search has seen everything that matters. A win comes back in
the engine's notation (each card up to the first foundation that takes it), which the engine
replays to ``won``. Budgets: ``nodes`` (moves tried, counted in blocks of 1,024),
``seconds`` (the clock read every 1,024 moves), ``positions`` (keys kept) and ``memory_mb``
(keys and frontier at a measured size per position, see `_KEY_EXTRA`).

Speed. `expand` finds where a run can go from the two card numbers each pile's top takes
(`_TAKES`), gathered in the same pass over the piles as the cards up and the first space, not
by trying every pile against every other for every length of run; which cards go up it reads
from 53 flags cached by foundation heights (`fitting`). `_Ceiling` works out once, per number of
reserve cards left, the first count each suit cannot pass once or twice, and caches, per suit,
reserve height and the suit's two heights, which numbers of cards left the suit allows (a card
up changes one suit, so a new position's ceiling is mostly four lookups). A random line asks
`expand` to build only the positions after cards up (their heights order its moves) and builds
the one it takes (`_Search.child`). The moves, their order and the random draws are those of
building every position and working each ceiling out whole (the same positions after a fixed
number of moves), in 0.8 of the best-first search's CPU time and 0.6 of the random lines'
(40,960 moves on each base of deals 1001, 1004 and 1027, `time.process_time` on a quiet
machine: 2.0 s against 2.5 s, and 4.3 s against 7.4 s). The moves between piles are the model's (`Thirteen.legal`'s,
as the test checks).

Random lines beside it (`_Search.playouts`). After each round of the best-first turns, one turn
of random lines of play for the next base whose ceiling is the highest of all bases (and above
the best reached), while they have had less than `_PLAYOUT_SHARE` (0.7) of the time: from the
base's root, each move the first in `expand`'s order three times in four (else in a random
order) that leads to a position not yet on the line, until the line can go nowhere new or its
ceiling is no higher than the best. The best-first search reaches few long lines (it widens
near the root), and the best clear of a lost deal lies at the end of a long line: these lines
reach it far sooner (deal 1003: 57 cards in 10 s against 25). Only a line reaching the highest
ceiling decides a deal by itself (a win at 104, else a loss with that best clear), and whether
one does is luck: on deal 1011 one stream of lines reaches it in 2 s where another has not in 6
s. So the lines run only on the bases with the highest ceiling, and get most of the time: over
deals 1000 to 1039 at 10 s, that decides 17 deals against 12 with lines for every base and 0.3
of the time (at 0.5 of the time, 4 of the 6 new ones stay unknown; deal 1017 needs the
best-first search's share: lost at 0.3 and 0.5, unknown at 0.7). They are lines of the model's
own moves, so what they clear is cleared in a reachable position, and a line that clears every
card is a win that replays. When a line reaches a new best, its last `_TRAIL` positions go to
the best-first search's frontier (`_Search.share`; those it has not seen, as seen), where their
many cards up put them first: the search then tries the lines next to the best one, which is
where a deal reaches its ceiling (deal 1016: lost with 88, proved in under 1 s). Only a base
whose ceiling is below 104 hands lines over: where a win may lie, the search's own order is
what finds it (handing lines over there diverted it from deal 1008's win). Neither changes what
the search proves: the best reached only rises through reachable positions, so pruning by it
stays sound, and a position handed over is searched like any other (every key marked seen lies
in the frontier until expanded), so an ended search has still expanded every position not
pruned.

How a line chooses. A line decides a deal only if it reaches the highest ceiling, so at each
position it tries first the moves that keep its base's ceiling (a stable sort after the order
above: a move lowers it when a foundation passes a count the reserve still holds). Where the
ceiling is 104, half the lines start not from the root but from the best line so far, gone back
a Luby number of `_BACK` moves from its last position above the best reached (`luby`: mostly a
few moves, now and then far), so that they search the continuations next to the best line, and
restarts keep a stream from staying in one early choice. Measured with three random streams a
deal at 10 s under a load of 6: on deals 1020, 1027 and 1033 (ceiling 104) the two together won
8 of 9 runs against 1 of 9 before; ordering alone won 2 of 8, going back alone 0 of 2. On the
losses 1011, 1017 and 1037, ordering by the ceiling proved 8 of 9 runs, as before, but with
going back too only 5 of 9 (deal 1037: 1 of 3): so lines below 104 do not go back.

Cost, measured on deals 1000 to 1039 at ``Budget()`` (10 s), one process under ``nice -n 5``
on this project's two-core machine with a load average of 1 to 2 (about 145,000 moves tried a
second): 24 of 40 decided (won: 1004, 1008, 1010, 1014, 1020, 1021, 1027, 1028, 1029, 1031,
1033; lost, each at its ceiling: 1000, 1005, 1011, 1013, 1016, 1017, 1022, 1023, 1030, 1032,
1034, 1035, 1037), 16 unknown; 4.9 s a deal on average. At 30 s, deals 1001 (lost with 75,
22 s) and 1036 (lost with 68, 12 s) are decided too, while 1015 stays at 82 of 86. Unknown at
10 s, best clear against ceiling: 1001 74/75, 1002 67/70, 1003 61/81, 1006 60/81, 1007 54/68,
1009 64/69, 1012 49/57, 1015 82/86, 1018 54/104, 1019 71/104, 1024 56/69, 1025 63/104, 1026
35/104, 1036 67/68, 1038 48/62, 1039 61/104. Deals whose ceiling is 104 may be late wins:
deal 1004 is won after 824,740 moves (4.4 s), while deal 1018 reached 70 in 120 s under a load
of 6.5 (about 40 s here). With lines for every base and 0.3 of
the time, four times the time decided none more (1001, 1007, 1011, 1012 at 40 s ended where they
did at 10 s). The best clear of an unknown deal is proved only where a line reaches the ceiling.
Most deals cannot be decided so: 62% of deals have no base whose reserve can be played out, and
the ceiling counts only what the reserve blocks, while what ends a line is the tableau and the
stock after the redeal. Deals whose reserve can be played out (ceiling 104) and are not won
within the budget stay unknown, as a loss there has no bound below 104. Coupling the suits would
not sharpen the ceiling: a reserve card needs only cards of its own suit to go up, those from the
reserve lie above it (each suit's check keeps their order), and the cards of other suits above it
need only their own suits' cards in turn, so lines meeting each suit's check interleave in the
reserve's order. Reproduce with a script calling `solve_exact` on
``find_game("generals_patience")(seed)`` for seeds 1000 to 1039 with ``Budget()`` (one process,
``nice -n 5``).

What ends a line, and bounds on it that were measured not to apply. Every tableau pile is
always one built run from its bottom card (a card enters a pile only by a build or into a
space, and runs move whole), so with no space only single cards move. A random line ends in the
second pass with no space and about 20 to 45 cards in the stock; the turned card that can go
nowhere has on average 2.2 to 3.6 of its four possible supports (the next rank in the other
colour) on the foundations already: lines end because the supports went up, a choice, not a
blockage a static test sees. Two sound cuts nearly never apply, so the search has neither:
(1) "every pile holds a card that can never go up and whose four supports are up or in
the reserve, so no space can open": no position of 8,000 on deals 1003 and 1012's lines has one
in every pile (deal 1003 has none in any pile: no card there can be proved never to go up, as
each suit has a foundation that can reach 13 for some choice of reserve cards left); (2) "the
next card to be placed in the second pass can go neither up (a rank its foundation needs has no
copy outside the stock) nor onto a support, and every pile holds a card that cannot leave
before it, so the game ends there": it held at 2 of 680 second-pass positions of deals 1001,
1003 and 1012 (at the end of a line 5.5 to 7 of the 9 piles hold no such card, on average). A
bound on how the cards that never go up can lie in nine runs cuts nothing either: they may wait
in the stock after the redeal, having been left in the waste. Deal 1012's ceiling (57, its
reserve's top card alone leaving) needs every other card that can go up to go up; the best
reached in 40 s is 55. Random lines that shuffle half or nine in ten of their moves, or that try
foundation moves last, reached no further than three in four.

Searches for wins ranked by a score find less than the random lines, so the search runs none.
From every base with the highest ceiling, at fixed move counts: a greedy best-first search
with a table (ranked by `_Search.score`, or by 100 a card up and 15 a space less 4 a card over
each foundation's next card, with or without disorder) wins only 1010 of the deals whose
ceiling is 104 (1004, 1008, 1010, 1014, 1018, 1019) in 300,000 moves, and reaches 19 to 55
cards towards the ceiling of 1001, 1002, 1007, 1012 and 1015 in 150,000, where the search
reaches 42 to 74 in 10 s under a load of 5; a beam by cards dealt loses every position within
15 cards after the redeal. The moves between piles make wide plateaus of one score, and what
ends a line is the waste's order at the redeal, which no score of a first-pass position reads.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from engine.cards import Card, new_pack
from engine.core import Game, Move
from solver.budget import Budget, Verdict
from solver.exact import Spent, finished, luby, start_verdict

__all__ = ["State", "Thirteen", "canonical", "ordered_moves", "score", "solve_exact"]

_FOUNDATIONS = tuple(f"f{i}" for i in range(8))
_TABLEAU = tuple(f"t{i}" for i in range(9))
#: Every card's notation without the pack mark, looked up rather than rebuilt.
_CODE = {card: f"{card.rank:x}{card.suit.letter}" for card in new_pack(2)}


def _count(game: Game, card: Card) -> int:
    """The card's rank counted from the base rank (0 to 12), or its rank before a base is chosen."""
    base = game.base  # type: ignore[attr-defined]
    return (card.rank - base) % 13 if base is not None else int(card.rank)


def canonical(game: Game) -> str:
    """The position for one search's transposition table (see the module docstring)."""
    piles = game.piles
    if game.base is None:  # type: ignore[attr-defined]
        return game.position()
    found = sorted(
        f"{len(piles[pid].cards)}{_CODE[piles[pid].cards[-1]] if piles[pid].cards else ''}" for pid in _FOUNDATIONS
    )
    tableau = sorted("".join([_CODE[card] for card in piles[pid].cards]) for pid in _TABLEAU)
    redeals = game.redeals  # type: ignore[attr-defined]
    stock = "".join([_CODE[card] for card in piles["s"].cards]) if redeals else str(len(piles["s"].cards))
    waste = "".join([_CODE[card] for card in piles["w"].cards])
    return f"{'.'.join(found)} {'|'.join(tableau)} r{len(piles['r'].cards)} s:{stock} w:{waste} {redeals}"


def _inversions(game: Game) -> int:
    """Cards lying above a card of lower count in the tableau, the reserve or the waste."""
    count = 0
    for pid in (*_TABLEAU, "r", "w"):
        low = 99
        for card in game.piles[pid].cards:
            mine = _count(game, card)
            if mine > low:
                count += 1
            elif mine < low:
                low = mine
    return count


def reserve_stuck(game: Game, base: int) -> bool:
    """Whether the reserve can never be played out with ``base`` as the base rank (1 to 13), from
    the foundations as they are.

    Only the reserve's top card leaves it, and only to a foundation of its suit that has just
    reached the count below it; a foundation only grows, and each suit has two. So, suit by
    suit, the reserve's cards in the order they leave must split into two strictly rising runs of
    counts, each above its foundation's count now. The greedy split (each card onto the run with
    the highest end still below it) finds one whenever one exists; three cards of one suit whose
    counts fall as they leave the reserve already make it impossible."""
    ends: dict[int, list[int]] = {suit: [] for suit in range(4)}
    for pid in _FOUNDATIONS:
        cards = game.piles[pid].cards
        if cards:
            ends[cards[0].suit].append((cards[-1].rank - base) % 13)
    for suit_ends in ends.values():
        suit_ends += [-1] * (2 - len(suit_ends))
    for card in reversed(game.piles["r"].cards):
        count = (card.rank - base) % 13
        below = [i for i, end in enumerate(ends[card.suit]) if end < count]
        if not below:
            return True
        best = max(below, key=lambda i: ends[card.suit][i])
        ends[card.suit][best] = count
    return False


#: What a position whose reserve can never be played out loses from its score.
_STUCK = 10_000


def score(game: Game) -> int:
    """How promising a position looks: 8 per card cleared, less 2 per card lying on a card of
    lower count and 1 per card still in the stock (so that the search moves on through the
    stock rather than rearranging the tableau); a position whose reserve is stuck
    (`reserve_stuck`) loses `_STUCK`."""
    result = 8 * game.cleared - 2 * _inversions(game) - len(game.piles["s"].cards)
    base = game.base  # type: ignore[attr-defined]
    if base is not None and reserve_stuck(game, base):
        result -= _STUCK
    return result


def _base_order(game: Game, base: int) -> tuple[bool, int]:
    """How a base rank (1 to 13) looks before the choice, best first: one that leaves the reserve
    playable, then the fewer reserve cards lying on a card of their suit with a lower count."""
    later = 0
    reserve = game.piles["r"].cards
    for i, card in enumerate(reserve):
        count = (card.rank - base) % 13
        later += sum(1 for lower in reserve[:i] if lower.suit == card.suit and (lower.rank - base) % 13 < count)
    return reserve_stuck(game, base), later


def _safe(game: Game, card: Card) -> bool:
    """Whether no card left in play could be built on ``card`` in the tableau: every card one
    rank lower and of the other colour is on a foundation."""
    below = card.rank - 1 or 13
    colour = card.colour
    for pid in (*_TABLEAU, "r", "w", "s"):
        for other in game.piles[pid].cards:
            if other.rank == below and other.colour != colour:
                return False
    return True


def _fits_on(top: Card, card: Card) -> bool:
    """Whether ``card`` may be built on ``top`` in the tableau: one rank lower, round the corner,
    and of the other colour."""
    return card.colour != top.colour and (top.rank - card.rank) % 13 == 1


def _uncovers(game: Game, card: Card) -> bool:
    """Whether ``card``, once on top of its pile, can go to a foundation or take the waste card."""
    waste = game.piles["w"].cards
    if waste and _fits_on(card, waste[-1]):
        return True
    return any(game._fits(f, card) for f in _FOUNDATIONS)  # type: ignore[attr-defined]


def ordered_moves(game: Game) -> list[Move]:
    """The legal moves of ``game`` worth trying, best first (see the module docstring)."""
    piles = game.piles
    legal = list(game.legal_moves())
    if game.base is None:  # type: ignore[attr-defined]
        return sorted(legal, key=lambda move: _base_order(game, piles[move.arg].cards[0].rank))
    keyed: list[tuple[int, Move]] = []
    landed: set[tuple[str, str]] = set()
    for move in legal:
        if not move.is_transfer:
            keyed.append((8 if move.action == "redeal" else 7, move))
            continue
        src = piles[move.src].cards
        card = src[-move.count]
        dst = piles[move.dst].cards
        if move.dst[0] == "f":
            landing = (move.src, _CODE[dst[-1]] if dst else "")
            if landing in landed:
                continue
            landed.add(landing)
            if _safe(game, card):
                return [move]
            keyed.append((0 if move.src == "r" else 1, move))
        elif move.src == "w":
            keyed.append((2 if dst else 5, move))
        elif move.count == len(src):
            keyed.append((3, move))  # empties a pile
        else:
            under = src[-move.count - 1]
            if _fits_on(under, card):
                if not _uncovers(game, under):
                    continue  # the run already lies on a card it fits: a shuffle that exposes nothing useful
                keyed.append((3, move))
            else:
                keyed.append((4 if dst else 6, move))
    keyed.sort(key=lambda pair: pair[0])
    return [move for _, move in keyed]


# ---------------------------------------------------------------------------- the exact search

#: Whether each suit (clubs, diamonds, hearts, spades) is red.
_RED = (False, True, True, False)
#: The byte that separates piles in a search key (card numbers are 0 to 51).
_SEP = b"\xff"
_DEAL, _REDEAL = "deal", "redeal"
_DEAL_STEP, _REDEAL_STEP = (_DEAL,), (_REDEAL,)

#: A position as plain values: (base rank, 0 before the choice; the eight foundations as (suit,
#: height), (-1, 0) while empty; the nine tableau piles' cards bottom to top; the reserve's
#: height; the stock's cards, the next first; the waste's cards, bottom to top; redeals used).
#: A card is ``suit * 13 + rank - 1``: the two copies of a card are one number.
State = tuple[int, tuple[tuple[int, int], ...], tuple[tuple[int, ...], ...], int, tuple[int, ...], tuple[int, ...], int]


def _number(card: Card) -> int:
    return int(card.suit) * 13 + int(card.rank) - 1


def _on(top: int, card: int) -> bool:
    """Whether card number ``card`` may be built on ``top`` in the tableau."""
    return _RED[card // 13] != _RED[top // 13] and (top - card) % 13 == 1


#: `_on` looked up: ``_ON[top][card]``; and the cards that may be built on each card.
_ON = tuple(tuple(_on(top, card) for card in range(52)) for top in range(52))
_TAKES = tuple(tuple(card for card in range(52) if _ON[top][card]) for top in range(52))


@dataclass(frozen=True, slots=True)
class Thirteen:
    """One General's Patience position's cards as numbers (``suit * 13 + rank - 1``), from which
    every later position follows.

    ``reserve``: the reserve's cards bottom to top (only its height changes); ``start``: the
    `State` read; ``total``: 104.
    """

    reserve: tuple[int, ...]
    start: State
    total: int = 104

    @classmethod
    def from_game(cls, game: Game) -> Thirteen:
        """The model of ``game`` (a General's Patience `Game`, at any position). Raises ValueError
        for another game."""
        if game.key != "generals_patience":
            raise ValueError(f"not a generals_patience game: {game.key!r}")
        return cls(tuple(_number(card) for card in game.piles["r"].cards), cls.read(game))

    @staticmethod
    def read(game: Game) -> State:
        """The `State` of ``game`` (the tests compare the engine's positions with the model's)."""
        piles = game.piles
        base = game.base  # type: ignore[attr-defined]
        found = tuple(
            (int(piles[pid].cards[0].suit), len(piles[pid].cards)) if piles[pid].cards else (-1, 0)
            for pid in _FOUNDATIONS
        )
        tableau = tuple(tuple(_number(card) for card in piles[pid].cards) for pid in _TABLEAU)
        stock = tuple(_number(card) for card in reversed(piles["s"].cards))
        waste = tuple(_number(card) for card in piles["w"].cards)
        return (int(base or 0), found, tableau, len(piles["r"].cards), stock, waste, game.redeals)  # type: ignore[attr-defined]

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(height for _, height in state[1])

    @staticmethod
    def home(state: State, card: int) -> int:
        """The first foundation (0 to 7) that takes ``card`` in ``state``, or -1."""
        base, found = state[0], state[1]
        count = (card % 13 + 1 - base) % 13
        suit = card // 13
        for j, (held, height) in enumerate(found):
            if height == 0 if count == 0 else held == suit and height == count:
                return j
        return -1

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        base, found, tableau, res, stock, waste, redeals = state
        if not base:
            return [f"choose t{i}" for i in range(4)]
        if redeals and waste and not any(not pile or _on(pile[-1], waste[-1]) for pile in tableau):
            if self.home(state, waste[-1]) < 0:
                return []  # the turned card can go nowhere: the game has ended
        moves = []
        spaces = sum(1 for pile in tableau if not pile)
        sources: list[tuple[str, tuple[int, ...]]] = [("w", waste), ("r", self.reserve[:res])]
        sources += [(f"t{i}", pile) for i, pile in enumerate(tableau)]
        for src, cards in sources:
            if not cards:
                continue
            top = cards[-1]
            count = (top % 13 + 1 - base) % 13
            suit = top // 13
            for j, (held, height) in enumerate(found):
                if height == 0 if count == 0 else held == suit and height == count:
                    moves.append(f"{src}>f{j}")
            if src == "r":
                continue
            run = 1
            if src != "w":
                while run < len(cards) and _on(cards[-1 - run], cards[-run]):
                    run += 1
            for d, pile in enumerate(tableau):
                dst = f"t{d}"
                if dst == src:
                    continue
                room = 2 ** (spaces - (not pile))
                for n in range(1, run + 1):
                    card = cards[-n]
                    if pile and not _on(pile[-1], card):
                        continue
                    if not pile and src != "w" and n == len(cards):
                        continue
                    if n > room:
                        continue
                    moves.append(f"{src}>{dst}" + (f"x{n}" if n > 1 else ""))
        if stock and not (redeals and waste):
            moves.append(_DEAL)
        if not stock and not redeals and waste:
            moves.append(_REDEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        base, found, tableau, res, stock, waste, redeals = state
        if move.startswith("choose"):
            i = int(move[-1])
            card = tableau[i][-1]
            found = ((card // 13, 1),) + found[1:]
            piles = list(tableau)
            for n, pid in enumerate((i, 4, 5, 6, 7, 8)):
                piles[pid] = (stock[n],)
            return (card % 13 + 1, found, tuple(piles), res, stock[6:], waste, redeals)
        if move == _DEAL:
            return (base, found, tableau, res, stock[1:], waste + stock[:1], redeals)
        if move == _REDEAL:
            return (base, found, tableau, res, waste, (), 1)
        src, _, dst = move.partition(">")
        dst, _, times = dst.partition("x")
        n = int(times or 1)
        piles = list(tableau)
        if src == "w":
            moving, waste = waste[-1:], waste[:-1]
        elif src == "r":
            moving, res = self.reserve[res - 1 : res], res - 1
        else:
            i = int(src[1:])
            moving, piles[i] = piles[i][-n:], piles[i][:-n]
        if dst[0] == "f":
            j = int(dst[1:])
            held, height = found[j]
            found = found[:j] + ((moving[0] // 13, height + 1),) + found[j + 1 :]
        else:
            d = int(dst[1:])
            piles[d] = piles[d] + moving
        return (base, found, tuple(piles), res, stock, waste, redeals)


def _run_split(leaving: list[int], starts: tuple[int, int], tops: tuple[int, int]) -> bool:
    """Whether counts ``leaving`` (in the order they leave the reserve) can go up on two
    foundations now ``starts`` high that end ``tops`` high: each card on a foundation then
    exactly its count high, so each foundation takes a strictly rising run of them."""
    ends = {(starts[0] - 1, starts[1] - 1)}
    for count in leaving:
        ends = {(count, b) for a, b in ends if a < count < tops[0]} | {
            (a, count) for a, b in ends if b < count < tops[1]
        }
        if not ends:
            return False
    return True


class _Ceiling:
    """The most cards that can ever be on the foundations from a position, counting only what
    the reserve forces (see `solve_exact`'s proof): per (foundation heights, reserve height),
    cached."""

    def __init__(self, reserve: tuple[int, ...], base: int) -> None:
        self.counts = [((card % 13 + 1 - base) % 13, card // 13) for card in reserve]
        self.cache: dict[tuple[bytes, int], int] = {}
        #: Per number of reserve cards left (bottom ones), per suit: the first count with one
        #: copy left (no foundation passes it twice) and with both left (none passes it).
        self.tops: list[tuple[tuple[int, int], ...]] = []
        for left in range(len(reserve) + 1):
            per_suit = []
            for suit in range(4):
                stuck = [0] * 14
                for count, held in self.counts[:left]:
                    if held == suit:
                        stuck[count] += 1
                one = next(c for c in range(14) if c == 13 or stuck[c])
                two = next(c for c in range(14) if c == 13 or stuck[c] == 2)
                per_suit.append((one, two))
            self.tops.append(tuple(per_suit))
        #: Per (cards left, reserve height), per suit: the counts of the leaving cards in the
        #: order they leave.
        self.leaving: dict[tuple[int, int], tuple[list[int], ...]] = {}
        #: `allows`'s cache; and per number of reserve cards left, the sum over suits of the
        #: two highest heights allowed.
        self.allowed: dict[tuple[int, int, int, int], int] = {}
        self.values = [sum(one + two for one, two in per_suit) for per_suit in self.tops]

    def __call__(self, heights: bytes, res: int) -> int:
        key = (heights, res)
        best = self.cache.get(key)
        if best is not None:
            return best
        # the numbers of reserve cards left that every suit allows, as bits
        allowed = (2 << res) - 1
        for suit in range(4):
            allowed &= self.allows(res, suit, heights[2 * suit], heights[2 * suit + 1])
            if not allowed:
                break
        best = max([self.values[left] for left in range(res + 1) if allowed >> left & 1], default=0)
        self.cache[key] = best
        return best

    def allows(self, res: int, suit: int, a: int, b: int) -> int:
        """The numbers of reserve cards left (bit ``left``: the bottom ``left`` of ``res`` stay)
        with which ``suit``'s two foundations, now ``a`` and ``b`` high, can take the leaving
        cards of the suit, as bits; cached by its arguments."""
        key = (res, suit, a, b)
        known = self.allowed.get(key)
        if known is not None:
            return known
        known = 0
        for left in range(res + 1):
            leaving = self.leaving.get((left, res))
            if leaving is None:
                going = list(reversed(self.counts[left:res]))
                leaving = tuple([count for count, held in going if held == suit] for suit in range(4))
                self.leaving[left, res] = leaving
            one, two = self.tops[left][suit]
            if (two >= a and one >= b and _run_split(leaving[suit], (a, b), (two, one))) or (
                one >= a and two >= b and _run_split(leaving[suit], (a, b), (one, two))
            ):
                known |= 1 << left
        self.allowed[key] = known
        return known


#: A search position: (foundation heights, two a suit, higher first; the tableau piles, bottom
#: to top; the reserve's height; the stock, the next card first; the waste, bottom to top;
#: 1 after the redeal).
_Pos = tuple[bytes, tuple[bytes, ...], int, bytes, bytes, int]
#: A move of the search: ("f", source) a card up (source "w", "r" or a pile index), ("t",
#: source, pile, count) onto the tableau, or ("deal",) / ("redeal",).
_Step = tuple[object, ...]
#: A line of play, last step first: (the line before, its last step).
_Link = tuple["_Link", _Step] | None
#: Bytes a kept position costs beyond its key's length: the key's bytes object and set slot,
#: its frontier entry, position and line link (about 330 in all as tracemalloc measures a
#: search's peak, deals 1000 and 1004, rounded up); and an entry of the disorder cache.
_KEY_EXTRA = 300
_CACHE_EXTRA = 120
#: The share of the time given to random lines (`_Search.playouts`).
_PLAYOUT_SHARE = 0.7
#: How many of a line's last positions `_Search.share` hands to the best-first search.
_TRAIL = 40
#: The share of random lines that go back along the best line so far rather than start from
#: the root, and the moves they go back per term of Luby's sequence (`_Search.playouts`).
_BACK_SHARE = 0.5
_BACK = 4


def _first(entry: tuple[int, _Step, _Pos | None]) -> int:
    """An `expand` entry's rank (its sort key)."""
    return entry[0]


def _steps(link: _Link) -> list[_Step]:
    """The steps of the line that ``link`` ends, from the root."""
    steps: list[_Step] = []
    while link is not None:
        link, last = link
        steps.append(last)
    return steps[::-1]


class _Search:
    """The depth-first search of the positions after one base choice (see `solve_exact`)."""

    def __init__(self, model: Thirteen, state: State) -> None:
        base, found, tableau, res, stock, waste, redeals = state
        self.base = base
        self.reserve = model.reserve
        pairs = [[0, 0] for _ in range(4)]
        for held, height in found:
            if height:
                pair = pairs[held]
                pair[pair.index(0)] = height
        self.root: _Pos = (
            bytes(h for pair in pairs for h in sorted(pair, reverse=True)),
            tuple(bytes(pile) for pile in tableau),
            res,
            bytes(stock),
            bytes(waste),
            redeals,
        )
        self.ceiling = _Ceiling(model.reserve, base)
        self.count = [(card % 13 + 1 - base) % 13 for card in range(52)]
        self.seen: set[bytes] = set()
        self.memory = 0
        #: The most this base's search can reach: its root's ceiling.
        self.goal = self.ceiling(self.root[0], res)
        self.won: list[_Step] | None = None
        self.inversions: dict[bytes, int] = {}
        #: `fitting`'s cache.
        self.fits: dict[bytes, bytes] = {}
        self.frontier: list[tuple[int, int, int, _Pos, _Link]] = []
        #: Bytes the line being played out holds (`playouts`).
        self.line_memory = 0
        #: Tie-breaks for the positions `share` hands to the frontier (below the search's own).
        self.shared = 0

    def key(self, pos: _Pos) -> bytes:
        """The position's key: tableau piles sorted (they are alike), the stock by its length
        before the redeal (it is the deal's, less the cards dealt)."""
        heights, tableau, res, stock, waste, second = pos
        tail = _SEP + stock if second else b""
        return heights + bytes((res, second, len(stock))) + _SEP.join(sorted(tableau)) + _SEP + waste + tail

    def up(self, heights: bytes, card: int) -> bytes | None:
        """The heights after ``card`` goes up, or None if no foundation takes it."""
        count = self.count[card]
        j = 2 * (card // 13)
        if heights[j] == count:
            return heights[:j] + bytes((count + 1,)) + heights[j + 1 :]
        if heights[j + 1] == count:
            pair = sorted((heights[j], count + 1), reverse=True)
            return heights[:j] + bytes(pair) + heights[j + 2 :]
        return None

    def safe(self, heights: bytes, card: int, reserve: bool) -> bool:
        """Whether putting ``card`` up (it fits) loses nothing: the foundations waiting for its
        count take both copies not yet up, and (unless it is the reserve's: it could never be
        built on) both copies of each card that could be built on it are up already."""
        count = self.count[card]
        j = 2 * (card // 13)
        a, b = heights[j], heights[j + 1]
        if (a == count) + (b == count) < 2 - (a > count) - (b > count):
            return False
        if reserve:
            return True
        below = (count - 1) % 13
        red = _RED[card // 13]
        return all(heights[2 * t + 1] > below for t in range(4) if _RED[t] != red)

    def fitting(self, heights: bytes) -> bytes:
        """Per card number (0 to 51), 1 where a foundation takes it at ``heights`` (exactly where
        `up` is not None), else 0; and a last 0, so that -1 (no card) reads 0. Cached by heights."""
        known = self.fits.get(heights)
        if known is None:
            flags = bytearray(53)
            base = self.base
            for suit in range(4):
                for height in heights[2 * suit : 2 * suit + 2]:
                    if height < 13:
                        flags[suit * 13 + (height + base - 1) % 13] = 1
            known = self.fits[heights] = bytes(flags)
            self.memory += len(heights) + _CACHE_EXTRA
        return known

    def expand(self, pos: _Pos, complete: bool = True, build: bool = True) -> list[tuple[_Step, _Pos | None]]:
        """The moves from ``pos`` worth trying, best first, with the positions they lead to
        (one alone when it is safe). With ``build`` False, only the positions after cards up
        are built (their heights order a random line's moves), the others are None: `child`
        builds the one a line takes."""
        heights, tableau, res, stock, waste, second = pos
        reserve = self.reserve
        keyed: list[tuple[int, _Step, _Pos | None]] = []
        wtop = waste[-1] if waste else -1
        fits = self.fitting(heights)
        up = self.up
        # cards up
        if res:
            card = reserve[res - 1]
            if fits[card]:
                child: _Pos | None = (up(heights, card), tableau, res - 1, stock, waste, second)  # type: ignore[assignment]
                if self.safe(heights, card, True):
                    return [(("f", "r"), child)]
                keyed.append((0, ("f", "r"), child))
        placed = False
        if fits[wtop]:
            child = (up(heights, wtop), tableau, res, stock, waste[:-1], second)  # type: ignore[assignment]
            if self.safe(heights, wtop, False):
                return [(("f", "w"), child)]
            keyed.append((1, ("f", "w"), child))
            placed = True
        # cards up from the piles; the first space; the piles that take each card (its number)
        # on their top
        space = -1
        full = 1
        takers: dict[int, list[int]] = {}
        for i, pile in enumerate(tableau):
            if pile:
                card = pile[-1]
                if fits[card]:
                    child = (
                        up(heights, card),
                        tableau[:i] + (pile[:-1],) + tableau[i + 1 :],
                        res,
                        stock,
                        waste,
                        second,
                    )  # type: ignore[assignment]
                    if self.safe(heights, card, False):
                        return [(("f", i), child)]
                    keyed.append((1, ("f", i), child))
                a, b = _TAKES[card]
                if a in takers:
                    takers[a].append(i)
                else:
                    takers[a] = [i]
                if b in takers:
                    takers[b].append(i)
                else:
                    takers[b] = [i]
            else:
                full <<= 1
                if space < 0:
                    space = i
        on = _ON
        # the waste's card onto the tableau: onto the piles in their order, then into a space
        if waste:
            found = takers.get(wtop)
            if found:
                placed = True
                for d in found:
                    if build:
                        piles = list(tableau)
                        piles[d] = tableau[d] + waste[-1:]
                        child = (heights, tuple(piles), res, stock, waste[:-1], second)
                    else:
                        child = None
                    keyed.append((3, ("t", "w", d, 1), child))
            if space >= 0:
                placed = True
                child = (
                    (heights, tableau[:space] + (waste[-1:],) + tableau[space + 1 :], res, stock, waste[:-1], second)
                    if build
                    else None
                )
                keyed.append((6, ("t", "w", space, 1), child))
            if second and not placed:
                return []  # the turned card can go nowhere: the game has ended
        # runs between tableau piles
        for i, pile in enumerate(tableau):
            if not pile:
                continue
            size = len(pile)
            run = 1
            while run < size and on[pile[-1 - run]][pile[-run]]:
                run += 1
            # (pile, cards) moved: onto a card that takes the run's card, or into the first space
            # (not the whole pile), in the order of the piles, then of the counts
            if run == 1 or full == 1:
                # one card: no pile takes its own top card, and the takers are in pile order
                found = takers.get(pile[-1])
                moves = [(d, 1) for d in found] if found else []
                if space >= 0 and size > 1 and full > 1:
                    moves.append((space, 1))
                    if len(moves) > 1:
                        moves.sort()
            else:
                moves = [(d, n) for n in range(1, min(run, full) + 1) for d in takers.get(pile[-n], ()) if d != i]
                if space >= 0:
                    moves += [(space, n) for n in range(1, min(run, full >> 1, size - 1) + 1)]
                moves.sort()
            for d, moved in moves:
                card = pile[-moved]
                if moved == size:
                    rank = 2
                else:
                    under = pile[-moved - 1]
                    if fits[under] or wtop >= 0 and on[under][wtop]:
                        rank = 2
                    elif on[under][card]:
                        if not complete:
                            continue
                        rank = 7
                    else:
                        rank = 5 if tableau[d] else 6
                if build:
                    piles = list(tableau)
                    piles[i], piles[d] = pile[:-moved], tableau[d] + pile[-moved:]
                    child = (heights, tuple(piles), res, stock, waste, second)
                else:
                    child = None
                keyed.append((rank, ("t", i, d, moved), child))
        if stock and not (second and waste):
            child = (heights, tableau, res, stock[1:], waste + stock[:1], second) if build else None
            keyed.append((4, _DEAL_STEP, child))
        elif not stock and not second and waste:
            keyed.append((4, _REDEAL_STEP, (heights, tableau, res, waste, b"", 1) if build else None))
        keyed.sort(key=_first)
        return [(step, child) for _, step, child in keyed]

    @staticmethod
    def child(pos: _Pos, step: _Step) -> _Pos:
        """The position after ``step`` (a move between piles, from the waste onto a pile, a deal
        or the redeal) from ``pos``: the position `expand` builds for it."""
        heights, tableau, res, stock, waste, second = pos
        kind = step[0]
        if kind == "t":
            src, d, moved = cast(tuple[int | str, int, int], step[1:])
            piles = list(tableau)
            if isinstance(src, str):  # the waste's card
                piles[d] = tableau[d] + waste[-1:]
                return (heights, tuple(piles), res, stock, waste[:-1], second)
            pile = tableau[src]
            piles[src], piles[d] = pile[:-moved], tableau[d] + pile[-moved:]
            return (heights, tuple(piles), res, stock, waste, second)
        if kind == _DEAL:
            return (heights, tableau, res, stock[1:], waste + stock[:1], second)
        return (heights, tableau, res, waste, b"", 1)

    def disorder(self, pile: bytes) -> int:
        """Cards of ``pile`` lying above a card of lower count (each must move again before
        that card can go up), cached by pile."""
        known = self.inversions.get(pile)
        if known is None:
            known = 0
            low = 99
            count = self.count
            for card in pile:
                mine = count[card]
                if mine > low:
                    known += 1
                elif mine < low:
                    low = mine
            self.inversions[pile] = known
            self.memory += len(pile) + _CACHE_EXTRA
        return known

    def score(self, pos: _Pos) -> int:
        """How promising ``pos`` looks (higher first): 8 a card up, less 2 a card lying above a
        card of lower count in the tableau or the waste, less 1 a card in the stock before the
        redeal."""
        heights, tableau, _, stock, waste, second = pos
        disorder = self.disorder
        bad = disorder(waste) + sum([disorder(pile) for pile in tableau])
        return 8 * sum(heights) - 2 * bad - (0 if second else len(stock))

    def best_first(self, shared: dict[str, int], floor: int = 0, complete: bool = True) -> Iterator[int]:
        """Search best first (by `score`) from the root, yielding the nodes tried every 1,024 of
        them (and once at the end); as `run` otherwise."""
        root = self.root
        self.seen.clear()
        self.seen.add(self.key(root))
        counter = 0
        # (-score, -depth: deepest first among equals, tie, position, line)
        frontier: list[tuple[int, int, int, _Pos, _Link]] = [(0, 0, 0, root, None)]
        self.frontier = frontier
        nodes = 0
        ceiling, seen, total, key_of, score, expand = self.ceiling, self.seen, 104, self.key, self.score, self.expand
        push, pop = heapq.heappush, heapq.heappop
        yield 0  # set up: `share` may hand it positions from here on
        while frontier and shared["best"] < self.goal:
            _, depth, _, pos, link = pop(frontier)
            for step, child in cast(list[tuple[_Step, _Pos]], expand(pos, complete)):
                nodes += 1
                if not nodes & 1023:
                    yield 1024
                heights, res = child[0], child[2]
                cleared = sum(heights)
                if cleared > shared["best"]:
                    shared["best"] = cleared
                    if cleared == total:
                        self.won = _steps((link, step))
                        yield nodes & 1023
                        return
                bound = ceiling(heights, res)
                if bound <= shared["best"] or bound < floor:
                    continue
                key = key_of(child)
                if key in seen:
                    continue
                seen.add(key)
                self.memory += len(key) + _KEY_EXTRA
                counter += 1
                push(frontier, (-score(child), depth - 1, counter, child, (link, step)))
        yield nodes & 1023

    def share(self, trail: list[tuple[_Pos, _Link]]) -> None:
        """Hand the last positions of a line that reached a new best to the best-first search
        (those it has not seen), so that it searches the lines near that one first: they hold
        many cards up and so score high. They are positions the moves reach, so the search
        stays exact: it only searches them sooner."""
        seen, frontier, score = self.seen, self.frontier, self.score
        for depth, (pos, link) in enumerate(trail):
            key = self.key(pos)
            if key in seen:
                continue
            seen.add(key)
            self.memory += len(key) + _KEY_EXTRA
            self.shared -= 1
            heapq.heappush(frontier, (-score(pos), -1000 - depth, self.shared, pos, link))

    def playouts(self, shared: dict[str, int], seed: int) -> Iterator[int]:
        """Random lines of play, for ever (until this base's ceiling is reached), yielding the
        nodes tried every 1,024 of them: at each position the moves in `expand`'s order three
        times in four, else in a random order, then those that keep this base's ceiling
        (`goal`) before those that lower it, the first to a position not yet on the line
        (`random.Random(seed)`, so repeatable). A line ends where it can go nowhere new or its
        position's ceiling is no higher than the best reached. Where the ceiling is 104, every
        other line (`_BACK_SHARE`) does not start from the root but from the best line so far
        (the one that cleared most, the latest among equals): from its last position whose
        ceiling is above the best reached, gone back the next term of Luby's sequence
        (`solver.exact.luby`) times `_BACK` moves. Raises the best reached in ``shared``; a
        line that clears every card is kept in ``won``. It proves nothing: it finds the long
        lines that the best-first search reaches late."""
        rng = random.Random(seed)
        nodes = 0
        key_of, ceiling, expand, total, goal = self.key, self.ceiling, self.expand, 104, self.goal
        build = self.child
        root_key = key_of(self.root)
        # the best line so far: (position, link, key) from the root on, and what it cleared
        best_line: list[tuple[_Pos, _Link, bytes]] = [(self.root, None, root_key)]
        best_cleared = -1
        term = 0
        while self.goal > shared["best"]:
            trail = best_line[:1]
            if best_cleared >= 0 and self.goal == total and rng.random() < _BACK_SHARE:
                usable = len(best_line)
                while (
                    usable > 1 and ceiling(best_line[usable - 1][0][0], best_line[usable - 1][0][2]) <= shared["best"]
                ):
                    usable -= 1
                term += 1
                trail = best_line[: max(1, usable - _BACK * luby(term))]
            pos, link, _ = trail[-1]
            line = {key for _, _, key in trail}
            while True:
                # only the positions after cards up are built: the line builds the one it takes
                children = expand(pos, False, False)
                if rng.random() >= 0.75:
                    rng.shuffle(children)
                # the moves that keep this base's ceiling first (a stable sort: in the order so
                # far); only a card up changes the heights or the reserve, and so the ceiling
                if any(child is not None for _, child in children):
                    low = ceiling(pos[0], pos[2]) < goal
                    children.sort(
                        key=lambda entry: low if entry[1] is None else ceiling(entry[1][0], entry[1][2]) < goal
                    )
                for step, child in children:
                    nodes += 1
                    if not nodes & 1023:
                        yield 1024
                    if child is None:
                        child = build(pos, step)
                    key = key_of(child)
                    if key not in line:
                        break
                else:
                    break  # nowhere new to go
                line.add(key)
                # the line and the best line kept beside it
                self.line_memory = 2 * len(line) * (len(key) + _KEY_EXTRA)
                link, pos = (link, step), child
                trail.append((pos, link, key))
                heights = child[0]
                cleared = sum(heights)
                if cleared > shared["best"]:
                    shared["best"] = cleared
                    if self.goal < total:
                        self.share([(p, k) for p, k, _ in trail[-_TRAIL:]])
                    if cleared == total:
                        self.won = _steps(link)
                        yield nodes & 1023
                        return
                if ceiling(heights, child[2]) <= shared["best"]:
                    break
            cleared = sum(pos[0])
            if cleared >= best_cleared:
                best_line, best_cleared = trail, cleared
        yield nodes & 1023


def _notation(model: Thirteen, state: State, steps: list[_Step]) -> list[str]:
    """The search's ``steps`` from ``state`` in the engine's notation (each card up goes to the
    first foundation that takes it)."""
    moves = []
    for step in steps:
        if step[0] == "f":
            src = step[1]
            name = src if isinstance(src, str) else f"t{src}"
            if src == "w":
                card = state[5][-1]
            elif src == "r":
                card = model.reserve[state[3] - 1]
            else:
                card = state[2][int(src)][-1]  # type: ignore[call-overload]
            move = f"{name}>f{model.home(state, card)}"
        elif step[0] == "t":
            _, src, d, n = step
            name = src if isinstance(src, str) else f"t{src}"
            move = f"{name}>t{d}" + (f"x{n}" if n != 1 else "")
        else:
            move = str(step[0])
        moves.append(move)
        state = model.play(state, move)
    return moves


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (General's Patience, from its current position; it is not changed)
    exactly (see the module docstring). Returns a `Verdict` as `solver.solve` does: won with a
    solution in the engine's notation, lost (proved) with the most cards that can be cleared,
    or unknown with the budget that ran out (its best clear then a lower bound). ``budget``:
    the default is a race's par budget."""
    began = time.monotonic()
    deadline = began + budget.seconds
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Thirteen.from_game(game)
    start = model.start
    if start[0]:
        roots: list[tuple[list[str], State]] = [([], start)]
    else:
        roots = [([f"choose t{i}"], model.play(start, f"choose t{i}")) for i in range(4)]
    searches = [(first, state, _Search(model, state)) for first, state in roots]
    searches.sort(key=lambda entry: -entry[2].goal)
    shared = {"best": max(model.cleared(state) for _, state, _ in searches)}
    nodes = 0
    won: tuple[list[str], State, list[_Step]] | None = None

    seed = game.seed
    #: Random lines for each base, one turn after each round of the best-first searches, by
    #: turns (they prove nothing: they raise the best reached, which cuts the exact searches).
    lines = [
        (first, state, search, search.playouts(shared, seed * 4 + i))
        for i, (first, state, search) in enumerate(searches)
        if search.goal == searches[0][2].goal
    ]
    turn = 0
    played = 0.0  # seconds spent on random lines

    def check() -> None:
        """Raises `Spent` when a budget is spent."""
        positions = sum(len(s.seen) for _, _, s in searches)
        memory = sum(s.memory + s.line_memory for _, _, s in searches)
        reason = budget.spent(nodes, positions, time.monotonic(), deadline, memory)
        if reason:
            raise Spent(reason)

    def play_out() -> bool:
        """One turn of the next base's random lines that can still beat the best, while they
        have had less than `_PLAYOUT_SHARE` of the time; True if one won."""
        nonlocal nodes, turn, won, played
        now = time.monotonic()
        if played > _PLAYOUT_SHARE * (now - began):
            return False
        try:
            return play_turn()
        finally:
            played += time.monotonic() - now

    def play_turn() -> bool:
        nonlocal nodes, turn, won
        for _ in range(len(lines)):
            first, state, search, walk = lines[turn % len(lines)]
            turn += 1
            if search.goal > shared["best"]:
                nodes += next(walk, 0)
                if search.won is not None:
                    won = (first, state, search.won)
                    return True
                check()
                return False
        return False

    def interleave(chosen: list[tuple[list[str], State, _Search]], floor: int, complete: bool) -> None:
        """Run the searches ``chosen`` by turns (with the random lines, `play_out`) until one
        wins or each is done; raises `Spent`."""
        nonlocal nodes, won
        running = [
            (first, state, search, search.best_first(shared, floor, complete)) for first, state, search in chosen
        ]
        while running:
            for entry in list(running):
                first, state, search, walk = entry
                if search.won is not None:
                    won = (first, state, search.won)
                    return
                if search.goal <= shared["best"]:
                    running.remove(entry)
                    continue
                try:
                    nodes += next(walk)
                except StopIteration:
                    running.remove(entry)
                    if search.won is not None:
                        won = (first, state, search.won)
                        return
                    continue
                check()
            if running and play_out():
                return

    try:
        # first a line to the highest ceiling of any base (a win where the reserve allows one):
        # positions with a lower ceiling are left out; then the most cards that can go up
        top = searches[0][2].goal
        interleave([entry for entry in searches if entry[2].goal == top], top, True)
        if won is None:
            interleave(searches, 0, True)
    except Spent as spent:
        verdict.reason = spent.args[0]
        verdict.best_cleared = max(verdict.best_cleared, shared["best"])
        return finished(verdict, nodes, sum(len(s.seen) for _, _, s in searches), began)
    positions = sum(len(s.seen) for _, _, s in searches)
    if won is not None:
        first, state, steps = won
        verdict.result = "won"
        verdict.solution = first + _notation(model, state, steps)
    else:
        verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, shared["best"])
    return finished(verdict, nodes, positions, began)
