"""An exact search for Klondike (draw three, redeal at will): the rules as plain numbers.

Rules: 003_08087bb95aa03446.txt ("Klondike"), as engine/games/klondike.py states them: seven
tableau piles ``t0`` to ``t6`` built down in alternate colours, a face-up run moving as a block
(``t3>t5x3``), a space taking only a King or a run headed by a King, a face-down card left on top
turned up at once; four foundations ``f0`` to ``f3`` built up in suit from the Ace (an Ace may
start any empty one), and a card on a foundation stays there; ``deal`` turns three cards (fewer
at the end) from the stock ``s`` onto the waste ``w``, whose top card is playable, and
``redeal`` turns the waste back into the stock when the stock is empty, as often as wanted.
Cleared: cards on the foundations (52 to win).

State. A card is an int ``13 * suit + rank - 1`` (suits as `engine.cards.Suit`). A position is
(piles, heights, talon, pointer): each tableau pile as bytes, a tag (the pile's index while it
has face-down cards, else 7), how many of its face-down cards are left (they are the bottom
cards of the pile as read, which never change) and its face-up cards bottom to top; how many
cards each suit's foundation holds; the talon, that is the
waste bottom to top followed by the stock in the order it deals, as bytes; and the pointer, how
many talon cards are in the waste. ``deal`` moves the pointer on by three (at most to the end),
``redeal`` sets it to 0 and taking the waste top removes the card before the pointer. The order
of the talon never changes otherwise, so the cards that deals and redeals can bring to the waste
top are the ones before a pointer reachable from this one: this one plus multiples of three
(below the end), the end, and after a redeal the multiples of three and the end again.

The search. A step is one of: a tableau pile's top card to its foundation; a face-up run (any
number of cards from the top that is a built run) onto another tableau pile; or a talon card that
deals and redeals can bring to the waste top, to its foundation or onto a tableau pile ("deal and
redeal until it is on top, then play it": one step, expanded to the engine's moves for a
solution). Positions are searched depth first (foundation steps first, then steps that turn a
face-down card up, then the rest), each kept once in a table of seen positions. Its key sorts
the tableau piles (the rules treat them alike; a pile with face-down cards is told apart by
its tag) and leaves out the foundations (they hold the cards found nowhere else), and it writes
the pointer as 0 whenever the pointer is a multiple of three or the end: such a pointer and 0
each reach the other by deals and a redeal, so they reach the same positions.

Dominance. The table maps a key less its pointer to the pointers met with it, and a position is
not searched when one met with the same key has a pointer that reaches its pointer by deals and
redeals: any pointer met reaches the class of 0 (deal to the end), and an off-beat pointer ``q``
is reached from ``q - 3``, ``q - 6``, ... down to 1 (and from nothing else: the class of 0
reaches only multiples of three and the end). Such a position ``x`` is dominated by the one met,
``v``: every step of ``x`` is a step of ``v`` or leads to a position dominated by ``v``'s step
(a talon card ``x`` can bring to the waste top, ``v`` can too, as reaching is transitive, and
the step gives the same position; a tableau step gives the same piles and talon with ``x``'s
pointer, which ``v``'s pointer still reaches). So, by induction along any line of play, every
position reachable from the start is one searched or reached from one searched by deals and
redeals alone (which change neither foundations nor anything else): the wins and the most
cleared are the same as those of every position reachable.

Three searches. All move part of a run (a run whose lowest card sits on a face-up card) only
when the card it uncovers can go to its foundation at once, as Solvitaire's Klondike does
("partial-if-card-above-buildable"), which loses nothing ("Partial runs" below). The first
searches best first (fewest face-down cards, then most cleared, then deepest) until 15% of the
budget is spent (`_GREEDY_SHARE`): it finds many wins far sooner, and only ever answers "won".
Then the exact pass searches depth first with a table of its own, taking turns of 1,024 steps
with restarts of a depth-first search (`_RESTART_TURNS` turns of theirs to each
`_EXACT_TURNS` of its own: one to two).
Each restart starts afresh with a table of its own, tries the steps of the positions less than
`_SHALLOW` steps deep in a random order (deeper ones in the exact pass's order) and stops after
`_RESTART_UNIT` times the next term of Luby's sequence steps (`solver.exact.luby`). A
depth-first search that takes a losing step early must search the whole of what lies under it
before it tries the next: deal 1006's exact pass spends 3,270,000 of its 3,313,000 steps under
its third step (a Queen onto a King that turns a card up), and wins some forty steps after it
tries the other; the restarts leave such a trap after a few thousand steps. A restart that wins
answers "won" (its steps are legal); one that ends within its share has met every position with
the exact pass's steps and pruning (the order of the steps plays no part in that), so it proves
the loss as the exact pass would. (With the rule turned off, as tests do to compare, the exact
pass tries every partial run, no restarts run, and a depth-first search with the rule takes turns
with it: `_RESTRICTED_TURNS` turns of 1,024 steps to each of the exact one's, each with its own
table.)

Why the exact pass is exact. Its steps are all the engine's moves, with the deals and redeals
that only move the pointer folded in (tests/solver/test_klondike.py checks the model's moves and
next positions against the engine, move for move, over random lines of play, and the verdicts
and best clears against a plain search of every position reachable by the engine's own moves).
Five things are left out, each provably without losing a win or a clear:

* A tableau card ``c`` of rank ``r`` that fits its foundation is played there at once and alone
  (`_safe`) when ``r`` is at most two, or both foundations of the other colour hold ``r - 1``
  cards or more (the engine's ``_safe``), or they hold ``r - 2`` or more and the other
  foundation of ``c``'s colour (its twin) ``r - 3`` or more. The cards that fit on ``c``
  (rank ``r - 1``, the other colour) are then each up or next on its foundation; those that fit
  on them (rank ``r - 2``, ``c``'s colour) are up (``c``'s suit) or next (the twin); those that
  fit on these (rank ``r - 3``, the other colour) are up. Take any line ``L`` from the position
  before and play it from the one after as ``L'``: a card that ``L`` puts on ``c`` or on a card
  ``L'`` has sent up goes to its foundation instead (with the one card at most that ``L`` moves
  on top of it, first; both are next there, as foundation cards never come back), and a move of
  cards ``L'`` has sent up is skipped. By induction, ``L'``'s piles are ``L``'s less the cards
  sent up (always top cards, as every card put on one of them is sent up too) and its talon is
  ``L``'s, so every other move of ``L`` is legal in ``L'`` (a run less its top cards moves onto
  the same card; a card under cards sent up is uncovered earlier: one more option, never one
  fewer), and ``L'`` has at least ``L``'s foundation cards at every step: the same wins and best
  clears.
* A talon card is played this way (on the same terms) only when it is the talon's last card and
  the pointer is a multiple of three or the end (`_SAFE_END`): then the position after (the card
  up, the pointer at the new end) reaches every talon card the one before reaches, and stays so. Say the talon ``T`` has
  ``n`` cards and ``T'`` is ``T`` less its last card; a line ``L`` on ``T`` with pointer ``p`` is
  mirrored on ``T'`` with pointer ``min(p, n - 1)``: a deal or redeal of ``L`` is one on ``T'``
  (or nothing), the waste top is the same card while ``p < n``, taking a card before the last
  keeps ``T'`` equal to ``L``'s talon less its last card, and taking the last card itself ends
  the difference; the pointer class of the start (0, the end of ``T'``) is the mirror's (its
  class reaches exactly what 0 reaches). The cards ``L`` builds on it are sent up as above. Any
  other waste card is never played this way: taking it regroups the later deals (as would
  taking the last one from a pointer off the beat, which loses the cards only that pointer
  reaches).
* A run that is a whole pile, with nothing face down under it, is not moved onto an empty pile:
  that only swaps two piles, which the rules treat alike.
* Of several empty piles only the first is tried as a destination, for the same reason.
* Partial runs (`_PARTIAL_RULE`). A run whose lowest card sits on a face-up card ``u`` is moved
  only when ``u`` can go to its foundation at once (a run headed by a King onto an empty pile,
  and a run with no face-up card under it, are always tried). The head of such a run is not a
  King, and fits only ``u`` and the other card of ``u``'s rank and colour, its twin ``v``: so a
  move left out is "the cards above ``u`` onto ``v``, a top". Take a line ``L`` whose last move
  left out goes from ``P`` to ``Q``, and play the rest of ``L`` from ``P`` as ``L'``, keeping
  this invariant: ``L'``'s position is ``L``'s with the cards above ``u`` and those above ``v``
  exchanged (true at ``P`` and ``Q``; the heads of both stacks sit on twins, so they are twins
  too). Each move of ``L`` is a move of ``L'`` of the same cards onto the same card or its
  twin, uncovering the same card: a move within the cards above ``u`` or ``v``, or onto their
  top (or onto the bare one of ``u``, ``v``: onto the other in ``L'``); a run holding ``u`` or
  ``v`` (it moves with what is above it, in either line); a move of all the cards above ``u``,
  which fit only ``v`` and so need ``v`` bare: then ``L``'s position after it is ``L'``'s, and
  ``L'`` skips it (likewise for ``v``). Only a foundation move of ``u`` (or ``v``) needs more:
  ``u`` is bare in ``L``, so ``v`` is bare in ``L'``, and ``L'`` first moves the cards above
  ``u`` onto ``v``, which the rule allows as ``u`` can go up at once; then the two lines are the
  same. So ``L'`` keeps the rule where the rest of ``L`` does (a move uncovers the same card with
  the same foundations), plays the same foundation moves in the same order, and has one move
  left out fewer than ``L``: by induction, lines that keep the rule reach every win and clear.
  The rules above hold for such lines too: the line built for a safe move moves the same runs,
  less cards sent up, off the same cards, with at least as many foundation cards, and a card
  that can go up at once still can (a tableau card's foundation is never above its rank less
  one); the steps of dominated pointers and of swapped piles depend on the piles and foundations
  alone.

So an exact pass that ends without a win has met every position reachable, up to those swaps,
the lines the partial-run rule stands for and dominated positions (those above and those of
"Dominance"): the deal is lost, and the most
foundation cards in any position met (in any pass) is the most that can be cleared. A win comes
back as the engine's moves (``deal`` and ``redeal`` written out), which the engine replays to
``won``. Budgets apply as in `solver.search`: ``nodes`` (steps tried, all passes together),
``seconds`` (the clock read every 1,024 steps), ``positions`` (table entries, of the tables of
the searches under way together; an entry holds every pointer met with its key) and
``memory_mb`` (those tables and the paths, counted as bytes per entry: `_ENTRY_BYTES`,
`_FRAME_BYTES`, and the caches below: `_CACHE_BYTES`, `_HEAD_BYTES`); a search cut short says
unknown and its best clear is a lower bound.

Speed, without changing what is searched. Each pile's run (with the cards each of its heads
builds on) and each talon and pointer's offers are worked out once and cached; a step's
destinations come from a map of the tops (and a mask of their bits, to skip a head or a talon
card none of whose two parents is a top without a look-up). Every position searched is settled (no safe card on
a tableau top or last in the talon), so after a run moves only the card it uncovered is checked
for a safe move (the run's top was a top already; the talon and foundations are as they were),
and after a talon card goes onto a pile, only that card and the talon's last card. A run
moved from one face-up card onto another pile, uncovering no face-down card and playing nothing
up, is not tried straight back: that step would lead to the position it came from, which is in
the table with its pointer, so the search would skip it anyway.

Cost, measured on this project's two-core machine shared with other work, one process at
``nice -n 5``. At a fixed 2,000,000 steps a deal (``Budget(nodes=2_000_000, seconds=1000)``,
about 10 s of a quiet machine, free of the load), deals 1000 to 1039: 36 decided (32 won, 4
lost), 4 unknown (1003, 1028, 1037, 1039); the restarts win 1006 in 620,594 steps (without them:
3,313,274) and 1026 in 366,453 (without them: 638,932), and cost the exact pass a third of
its steps elsewhere (1013, lost: 570,800 steps; 1024, won by the exact pass: 1,279,269; 1031,
lost, best clear 3: 194,228). At the default budget (10 s a deal) under a load average of 2
to 4 (about 230,000 steps a second): deals 1000 to 1019: 19 decided (16 won, 3 lost), 1
unknown (1003), 0.8 s a deal on average; deals 1020 to 1039: 17 decided (16 won, 1 lost), 3
unknown (1028, 1037, 1039), 2.0 s (1024 won in 6.7 s). Under a load of 6 to 7 (about 33,000
steps a second) 1006 and 1024 stay unknown too. The unknown
deals are large, and a low best clear says nothing (1024's is 20 until its win): the exact pass
alone proves 1003 lost (best clear 10) in 13,551,249 steps and 2,110,614 positions (700 MB,
about 65 s of a quiet machine), its positions nearly all different tableaux (275,000 of
340,000 after 1,500,000 steps, 12 to 17 cards still face down) rather than talons; the exact
pass proves 1028 lost (best clear 14) in 5,525,414 steps (851,948 positions), and leaves 1037
and 1039 unknown after 6,000,000 (958,000 and 814,000 positions). Things that do not help: a
bound from cards that can provably never move (a greatest fixed point of cards that can
neither go up nor reach a parent that can ever be on top) is below 52 in none of 3,000
positions of 1031's table (the losses are no simple blockages); moving a pointer off the beat
on past the talon cards that can never be played before the next talon card is (none of their
parents left in the tableau, a lower card of their suit in the talon): sound, but 1031 keeps
the same positions and tries 175,146 steps instead of 176,653, as such cards are rare (84% of
the searched positions there have a pointer off the beat, and even counting only face-up
parents would drop 18% of them); restarts that shuffle the steps of half of all positions, at
any depth (in units of 4,096 steps), win none of 1024, 1028, 1037 and 1039 within 2,000,000
steps; looking up the talon cards by the card they build on (a dict a talon and pointer) runs
about 10% slower in CPython than the bit-mask filter. Reproduce with ``nice -n 5 arena solve
klondike --deals 20 --first-seed 1000 --jobs 1`` (10 s a deal, the default budget).
"""

from __future__ import annotations

import heapq
import operator
import random
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import Literal

from engine.core import Game
from solver.exact import Spent, finished, luby, start_verdict, take_turns
from solver.search import Budget, Verdict

__all__ = ["Klondike", "State", "solve_exact"]

#: (piles, foundation heights by suit, talon, pointer); a pile is bytes: its tag (its index while
#: it has face-down cards, else 7), how many face-down cards are left, then its face-up cards
State = tuple[tuple[bytes, ...], tuple[int, ...], bytes, int]
#: A step: ("f", pile, 0) a tableau top to its foundation; ("F", q, 0) the talon card before pointer
#: q to its foundation; ("t", pile, to, count) a run onto another pile; ("T", q, to) a talon card
#: onto a pile.
Step = tuple

_RANK = [c % 13 + 1 for c in range(52)]
_SUIT = [c // 13 for c in range(52)]
_RED = [c // 13 in (1, 2) for c in range(52)]
#: the suits of the other colour, by suit (clubs, diamonds, hearts, spades)
_OTHERS = ((1, 2), (0, 3), (0, 3), (1, 2))
#: the other suit of the same colour, by suit
_TWIN = (3, 2, 1, 0)
#: Whether a card at most two above both foundations of the other colour and at most three above
#: the other of its own colour counts as safe too (tests turn it off to compare)
_SAFE_WIDE = True
#: Whether the talon's last card counts as safe too, where the pointer is a multiple of three or
#: the end (tests turn it off to compare)
_SAFE_END = True
#: by card below a King: the two cards it builds on (one rank more, the other colour)
_PARENTS = [
    (13 * _OTHERS[c // 13][0] + c % 13 + 1, 13 * _OTHERS[c // 13][1] + c % 13 + 1) if c % 13 < 12 else (-1, -1)
    for c in range(52)
]
#: by card ``a`` of the pair in `_PARENTS`: the bits (1 << card) of both cards of its pair
_PAIR = [0] * 52
for _a, _b in _PARENTS:
    if _a >= 0:
        _PAIR[_a] = 1 << _a | 1 << _b
#: What one kept position costs, in bytes beyond its key's length: the key's bytes object header
#: (33), its share of the table and its mask of pointers, rounded up (tracemalloc's peak stays
#: under the count: 1.8 MB for a search stopped at 2 MB, 7.5 MB at 8 MB; tests check it).
_ENTRY_BYTES = 100
#: What one position waiting in the best-first pass's frontier costs, in bytes (its state and
#: its entry in the table of parents).
_OPEN_BYTES = 1500
#: The share of the budget (time and steps, from the start) that the best-first pass may spend.
_GREEDY_SHARE = 0.15
#: Whether the exact pass drops a partial run's move when the card it uncovers cannot go up at
#: once (see "Partial runs" in the module docstring; tests turn it off to compare)
_PARTIAL_RULE = True
#: Turns (of 1,024 steps) the restricted depth-first pass takes for each turn of the exact one
#: (0: the exact pass alone); only with `_PARTIAL_RULE` off (with it, the exact pass is that one).
_RESTRICTED_TURNS = 1
#: Whether the depth-first passes skip a run's step straight back onto the card it left (for speed
#: only: it changes no position searched; tests turn it off to check that).
_SKIP_BACK = True
#: What one entry of the caches of runs and talon offers costs, in bytes beyond its key's length and
#: its items (`_HEAD_BYTES` each: a tuple of five small ints and its place in the entry's tuple).
_CACHE_BYTES = 250
_HEAD_BYTES = 90
#: Turns (of 1,024 steps) the restarting depth-first passes take for each `_EXACT_TURNS` turns of
#: the exact one (0: none); see "Three searches" in the module docstring.
_RESTART_TURNS = 1
_EXACT_TURNS = 2
#: The positions less than this many steps deep whose steps a restart tries in a random order.
_SHALLOW = 6
#: A restart's share of steps: this many times the next term of Luby's sequence.
_RESTART_UNIT = 8192
#: What one frame of the depth-first path costs, in bytes (its position and its list of steps).
_FRAME_BYTES = 4000


def reachable(n: int, p: int) -> tuple[int, ...]:
    """The pointers (waste sizes) that deals and redeals reach from pointer ``p`` in a talon of
    ``n`` cards, draw three, redeals at will, 0 left out (no waste top there)."""
    found = set()
    q = p
    while q < n:
        found.add(q)
        q += 3
    found.add(n)
    found.update(range(3, n, 3))
    found.discard(0)
    return tuple(sorted(q for q in found if q <= n))


_REACH: dict[tuple[int, int], tuple[int, ...]] = {(n, p): reachable(n, p) for n in range(25) for p in range(n + 1)}
#: by pointer q off the beat (not a multiple of three; 0 stands for the class of 0): the bits of
#: the pointers whose position reaches q by deals alone (q, q - 3, ... down to 1)
_BEHIND = [0] + [sum(1 << r for r in range(q, 0, -3)) if q % 3 else 0 for q in range(1, 25)]


@dataclass(frozen=True, slots=True)
class Klondike:
    """One Klondike position's cards as plain ints, from which every later position follows.

    ``down``: for each tableau pile, its face-down cards bottom to top (bytes; the state says
    how many are left); ``start``: the `State` read.
    """

    down: tuple[bytes, ...]
    start: State

    @classmethod
    def from_game(cls, game: Game) -> Klondike:
        """The model of ``game`` (a Klondike `Game`, at any position). Raises ValueError for
        another game or a pile with a face-down card on top."""
        if game.key != "klondike":
            raise ValueError(f"not a klondike game: {game.key!r}")
        down, piles = [], []
        for i in range(7):
            pile = game.piles[f"t{i}"]
            if pile.cards and pile.down >= len(pile.cards):
                raise ValueError(f"t{i} has a face-down card on top")
            cards = [13 * int(c.suit) + int(c.rank) - 1 for c in pile.cards]
            down.append(bytes(cards[: pile.down]))
            piles.append(bytes((i if pile.down else 7, pile.down, *cards[pile.down :])))
        heights = [0] * 4
        for i in range(4):
            founded = game.piles[f"f{i}"].cards
            if founded:
                heights[int(founded[0].suit)] = len(founded)
        waste = [13 * int(c.suit) + int(c.rank) - 1 for c in game.piles["w"].cards]
        stock = [13 * int(c.suit) + int(c.rank) - 1 for c in reversed(game.piles["s"].cards)]
        start = (tuple(piles), tuple(heights), bytes(waste + stock), len(waste))
        return cls(tuple(down), start)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game`` (a position reached from the one read), for tests."""
        return Klondike.from_game(game).start

    @staticmethod
    def cleared(state: State) -> int:
        """Cards cleared in ``state``, as the engine counts them."""
        return sum(state[1])

    @staticmethod
    def engine_moves(state: State) -> set[str]:
        """The engine's legal moves in ``state``, with every foundation written ``f`` (the engine
        lists an Ace to each empty foundation; which one does not matter to the rules): for
        tests, to compare with ``{str(m) with f<i> written f}``."""
        piles, heights, talon, p = state
        moves = set()
        if p < len(talon):
            moves.add("deal")
        elif talon:
            moves.add("redeal")
        sources = [(f"t{i}", pile[2:]) for i, pile in enumerate(piles)]
        if p:
            sources.append(("w", talon[p - 1 : p]))
        for src, up in sources:
            if not up:
                continue
            top = up[-1]
            if heights[_SUIT[top]] == _RANK[top] - 1:
                moves.add(f"{src}>f")
            run = _run(up) if src != "w" else 1
            for k in range(1, run + 1):
                head = up[-k]
                for j, dst in enumerate(piles):
                    if f"t{j}" == src:
                        continue
                    if _fits(dst[2:], head):
                        moves.add(f"{src}>t{j}" + (f"x{k}" if k > 1 else ""))
        return moves

    def play_engine(self, state: State, move: str) -> State:
        """The state after the engine move ``move`` (foundations written ``f`` or ``f<i>``), for
        tests: deal and redeal move the pointer, transfers go through the search's steps."""
        piles, heights, talon, p = state
        if move == "deal":
            return piles, heights, talon, min(p + 3, len(talon))
        if move == "redeal":
            return piles, heights, talon, 0
        src, _, dst = move.partition(">")
        count = 1
        if "x" in dst:
            dst, _, k = dst.partition("x")
            count = int(k)
        if src == "w":
            step: Step = ("F", p, 0) if dst[0] == "f" else ("T", p, int(dst[1:]))
        elif dst[0] == "f":
            step = ("f", int(src[1:]), 0)
        else:
            step = ("t", int(src[1:]), int(dst[1:]), count)
        return self.apply(state, step, canonical=False)

    def apply(self, state: State, step: Step, canonical: bool = True) -> State:
        """The state after ``step`` (no safe moves added). ``canonical``: write a pointer that is
        a multiple of three or the end as 0 (see the module docstring)."""
        piles, heights, talon, p = state
        kind = step[0]
        if kind in ("F", "T"):
            q = step[1]
            card = talon[q - 1]
            talon = talon[: q - 1] + talon[q:]
            p = q - 1
            if canonical and (p % 3 == 0 or p == len(talon)):
                p = 0
            if kind == "F":
                heights = _raise(heights, card)
            else:
                j = step[2]
                piles = piles[:j] + (piles[j] + bytes((card,)),) + piles[j + 1 :]
            return piles, heights, talon, p
        i = step[1]
        pile = piles[i]
        count = 1 if kind == "f" else step[3]
        moved, rest = pile[-count:], pile[:-count]
        if len(rest) == 2 and rest[1]:
            d = rest[1] - 1
            rest = bytes((i if d else 7, d, self.down[i][d]))
        new = list(piles)
        new[i] = rest
        if kind == "f":
            heights = _raise(heights, moved[0])
        else:
            j = step[2]
            new[j] += moved
        return tuple(new), heights, talon, p


#: a scored step's score
_first = operator.itemgetter(0)


def _raise(heights: tuple[int, ...], card: int) -> tuple[int, ...]:
    s = _SUIT[card]
    return heights[:s] + (heights[s] + 1,) + heights[s + 1 :]


def _run(up: bytes) -> int:
    """How many cards on top of ``up`` form a run built down in alternate colours."""
    k = 1
    while k < len(up) and _RANK[up[-k - 1]] == _RANK[up[-k]] + 1 and _RED[up[-k - 1]] != _RED[up[-k]]:
        k += 1
    return k if up else 0


def _run_info(pile: bytes) -> tuple[int, tuple[tuple[int, int, int, int, int], ...]]:
    """A pile's run for `solve_exact`'s steps: how many cards on top form a run, and for each
    ``k`` from 1 to that count: (``k``, the two cards the ``k``-th card from the top builds on, or
    -1 twice for a King, the suit of the card under it and that card's rank less one, or -1
    twice for none)."""
    up = pile[2:]
    run = _run(up)
    heads = []
    for k in range(1, run + 1):
        a, b = _PARENTS[up[-k]]
        under = up[-k - 1] if k < len(up) else -1
        heads.append((k, a, b, _SUIT[under] if under >= 0 else -1, _RANK[under] - 1 if under >= 0 else -1))
    return run, tuple(heads)


def _talon_offers(talon: bytes, p: int) -> tuple[tuple[int, int, int, int, int], ...]:
    """The talon cards that deals and redeals can bring to the waste top from pointer ``p``, for
    `solve_exact`'s steps: (the pointer ``q`` that shows it, its suit, its rank less one, the two
    cards it builds on, or -1 twice for a King)."""
    offers = []
    for q in _REACH[len(talon), p]:
        card = talon[q - 1]
        a, b = _PARENTS[card]
        offers.append((q, _SUIT[card], _RANK[card] - 1, a, b))
    return tuple(offers)


def _fits(dst: bytes, card: int) -> bool:
    if not dst:
        return _RANK[card] == 13
    top = dst[-1]
    return _RANK[top] == _RANK[card] + 1 and _RED[top] != _RED[card]


def _safe(heights: tuple[int, ...], card: int) -> bool:
    """Whether ``card`` (a tableau top) goes to its foundation at once and alone (see "Why the
    exact pass is exact" in the module docstring): it fits its foundation, and its rank is at
    most two, or at most one above both foundations of the other colour, or at most two above
    them and at most three above the other foundation of its own colour (`_SAFE_WIDE`)."""
    rank = _RANK[card]
    suit = _SUIT[card]
    if heights[suit] != rank - 1:
        return False
    if rank <= 2:
        return True
    a, b = _OTHERS[suit]
    low = min(heights[a], heights[b])
    return low >= rank - 1 or (_SAFE_WIDE and low >= rank - 2 and heights[_TWIN[suit]] >= rank - 3)


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Klondike, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when
    a budget ran out. ``nodes`` counts steps tried, ``positions`` the positions kept. Raises
    ValueError for another game."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = Klondike.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    apply = model.apply
    # each search under way (by name) -> its table of positions: the key of a position less its
    # pointer -> a bit mask of the pointers met with it (bit 0: the class of 0, bit q: pointer q
    # off the beat; see "Dominance" in the docstring), the bytes it holds and its depth-first path
    tables: dict[str, dict[bytes, int]] = {}
    held: dict[str, int] = {}
    paths: dict[str, list] = {}
    # the most positions the searches under way kept at once
    peak = 0
    # the bytes the caches of runs and talon offers hold (kept across passes)
    cached = 0
    limit_bytes = budget.memory_mb * 1024 * 1024
    budget_nodes, budget_positions = budget.nodes, budget.positions
    nodes = 0
    best = game.cleared
    # each pile's run (a pile's bytes -> `_run_info`), filled as met
    runs: dict[bytes, tuple[int, tuple[tuple[int, int, int, int, int], ...]]] = {}
    # the cards a talon and pointer offer (-> `_talon_offers`), filled as met
    offered: dict[tuple[bytes, int], tuple[tuple[int, int, int, int, int], ...]] = {}

    def settle(state: State, step: Step | None = None) -> tuple[State, list[Step]]:
        """Play the safe moves to the foundations until none is left. After ``step`` (from a
        settled position), only the piles it changed can offer one unless it raised a foundation:
        after a run moved, only the card it uncovered (the run's top was a top before)."""
        done: list[Step] = []
        if step is not None:
            kind = step[0]
            if kind == "t":
                pile = state[0][step[1]]
                if len(pile) < 3 or not _safe(state[1], pile[-1]):
                    return state, done
            elif kind == "T" and not _safe(state[1], state[0][step[2]][-1]) and not end_safe(state):
                return state, done
        again = True
        while again:
            again = False
            for i, pile in enumerate(state[0]):
                if len(pile) > 2 and _safe(state[1], pile[-1]):
                    state = apply(state, ("f", i, 0))
                    done.append(("f", i, 0))
                    again = True
            if end_safe(state):
                step = ("F", len(state[2]), 0)
                state = apply(state, step)
                done.append(step)
                again = True
        return state, done

    def end_safe(state: State) -> bool:
        """Whether the talon's last card goes to its foundation at once and alone: it is `_safe`
        and the pointer is a multiple of three or the end (see "Why the exact pass is exact")."""
        talon, p = state[2], state[3]
        return _SAFE_END and bool(talon) and (p % 3 == 0 or p == len(talon)) and _safe(state[1], talon[-1])

    def prefix(state: State) -> bytes:
        """The key of ``state`` less its pointer: the piles sorted (a tag and a count below 8, cards
        below 52, so 255 and 254 part them unambiguously), then the talon."""
        return b"\xff".join(sorted(state[0])) + b"\xfe" + state[2]

    def met(seen: dict[bytes, int], here: bytes, p: int) -> bool:
        """Whether a position of key ``here`` and pointer ``p`` (0: the class of 0) is in ``seen``,
        or one whose pointer reaches ``p`` by deals and redeals; if not, it is entered there."""
        mask = seen.get(here)
        if mask is None:
            seen[here] = 1 << p
            return False
        if p == 0 or mask & _BEHIND[p]:
            return True
        seen[here] = mask | 1 << p
        return False

    def check(until: float) -> None:
        """Raise Spent when the clock is past ``until`` or the searches under way hold more
        positions or bytes than the budget allows."""
        nonlocal peak
        if time.monotonic() > until:
            raise Spent(f"time budget ({budget.seconds:g} s) spent")
        count = sum(map(len, tables.values()))
        peak = max(peak, count)
        if count > budget_positions:
            raise Spent(f"memory budget ({budget_positions:,} positions) spent")
        if sum(held.values()) + cached + _FRAME_BYTES * sum(map(len, paths.values())) > limit_bytes:
            raise Spent(f"memory budget ({budget.memory_mb:g} MB) spent")

    def drop(name: str) -> None:
        """Forget the table, bytes and path of the search ``name`` (it ended)."""
        nonlocal peak
        peak = max(peak, len(tables.get(name, ())))
        tables.pop(name, None)
        held.pop(name, None)
        paths.pop(name, None)

    def steps(state: State, restricted: bool) -> list[Step]:
        piles, heights, talon, p = state
        nonlocal cached
        rank, suit = _RANK, _SUIT
        scored: list[tuple[int, Step]] = []
        add = scored.append
        first_space = -1
        # the pile whose top is each card (a top card is in one pile only)
        top_at: dict[int, int] = {}
        # the same tops as bits (1 << card), to skip a head none of whose two cards is a top
        tops = 0
        for j, pile in enumerate(piles):
            if len(pile) == 2:
                if first_space < 0:
                    first_space = j
            else:
                top_at[pile[-1]] = j
                tops |= 1 << pile[-1]
        where, pair = top_at.get, _PAIR
        for i, pile in enumerate(piles):
            size = len(pile) - 2
            if not size:
                continue
            d = pile[1]
            top = pile[-1]
            if heights[suit[top]] == rank[top] - 1:
                add((130 if size == 1 and d else 100, ("f", i, 0)))
            info = runs.get(pile)
            if info is None:
                info = runs[pile] = _run_info(pile)
                cached += _CACHE_BYTES + len(pile) + _HEAD_BYTES * info[0]
            run, heads = info
            for k, a, b, under_suit, under_need in heads:
                if a < 0:  # a King
                    if first_space >= 0 and (k < size or d):
                        add((60 + d if k == size else -10, ("t", i, first_space, k)))
                    continue
                if not tops & pair[a]:
                    continue
                ja, jb = where(a), where(b)
                if ja is None:
                    if jb is None:
                        continue
                elif jb is not None and jb < ja:
                    ja, jb = jb, ja
                if k < size:
                    if restricted and heights[under_suit] != under_need:
                        continue
                    score = -20
                else:
                    score = 50 + d if d else (20 if run == size else 0)
                if ja is not None:
                    add((score, ("t", i, ja, k)))
                if jb is not None:
                    add((score, ("t", i, jb, k)))
        offers = offered.get((talon, p))
        if offers is None:
            offers = offered[talon, p] = _talon_offers(talon, p)
            cached += _CACHE_BYTES + len(talon) + _HEAD_BYTES * len(offers)
        for q, card_suit, need, a, b in offers:
            if heights[card_suit] == need:
                add((90, ("F", q, 0)))
            if a < 0:  # a King
                if first_space >= 0:
                    add((30, ("T", q, first_space)))
                continue
            if not tops & pair[a]:
                continue
            ja, jb = where(a), where(b)
            if ja is not None and jb is not None and jb < ja:
                ja, jb = jb, ja
            if ja is not None:
                add((40, ("T", q, ja)))
            if jb is not None:
                add((40, ("T", q, jb)))
        scored.sort(key=_first, reverse=True)
        return [step for _, step in scored]

    start, auto = settle(model.start)
    if start[3] % 3 == 0 or start[3] == len(start[2]):
        start = (*start[:3], 0)  # the class of 0: it reaches what these pointers reach
    best = max(best, sum(start[1]))

    def run(
        restricted: bool, name: str, shuffle: random.Random | None = None, cap: int = 0
    ) -> Generator[None, None, list[Step] | None | Literal[False]]:
        """Search depth first from ``start`` (``restricted``: without the partial-run moves that
        "Partial runs" in the module docstring drops; ``name``: the search's, for its table);
        yields every 1,024 steps, after reading the clock, so that two searches can take turns;
        returns the win's steps, or None when every position was met. ``shuffle``: try the
        steps of the positions less than `_SHALLOW` steps deep in this random order instead;
        ``cap``: stop after this many steps of its own (0: no cap) and return False. Raises
        Spent when a budget runs out."""
        nonlocal nodes, best
        own = 0
        seen: dict[bytes, int] = {}
        tables[name] = seen
        here = prefix(start)
        met(seen, here, start[3])
        memory = len(here) + _ENTRY_BYTES
        held[name] = memory
        if sum(start[1]) == 52:
            return []
        # frames: (state, steps to try, index of the next); line[k]: the steps into frame k+1
        todo = steps(start, restricted)
        if shuffle is not None:
            shuffle.shuffle(todo)
        stack: list[list] = [[start, todo, 0]]
        paths[name] = stack
        line: list[list[Step]] = []
        join, seen_get, behind, skip_back = b"\xff".join, seen.get, _BEHIND, _SKIP_BACK
        while stack:
            frame = stack[-1]
            state, todo, index = frame
            if index >= len(todo):
                stack.pop()
                if line:
                    line.pop()
                continue
            frame[2] = index + 1
            if nodes >= budget_nodes:
                raise Spent(f"node budget ({budget_nodes:,} moves) spent")
            nodes += 1
            if not nodes & 1023:
                held[name] = memory
                check(deadline)
                yield
            if cap:
                own += 1
                if own > cap:
                    return False
            step = todo[index]
            child, more = settle(apply(state, step), step)
            cleared = sum(child[1])
            if cleared == 52:
                line.append([step, *more])
                return [s for group in line for s in group]
            # met(seen, prefix(child), child[3]), written out: this is the search's innermost loop
            here = join(sorted(child[0])) + b"\xfe" + child[2]
            p = child[3]
            mask = seen_get(here)
            if mask is None:
                seen[here] = 1 << p
                memory += len(here) + _ENTRY_BYTES
            elif p == 0 or mask & behind[p]:
                continue
            else:
                seen[here] = mask | 1 << p
            if cleared > best:
                best = cleared
            line.append([step, *more])
            todo = steps(child, restricted)
            if skip_back and step[0] == "t" and not more and len(child[0][step[1]]) == len(state[0][step[1]]) - step[3]:
                # the run moved back onto the card it left (no card turned up, none went up) leads
                # to this frame's position, met already: skipped without trying it, for speed
                back = ("t", step[2], step[1], step[3])
                if back in todo:
                    todo.remove(back)
            if shuffle is not None and len(stack) < _SHALLOW:
                shuffle.shuffle(todo)
            stack.append([child, todo, 0])
        return None

    def greedy(until: float, most: int) -> list[Step] | None:
        """Search best first (fewest face-down cards, then most cards cleared, then deepest) with
        the partial-run rule's steps; the win's steps, or None when every position was met. Raises
        Spent when a budget (``until``: the clock, ``most``: steps) runs out."""
        nonlocal nodes, best
        seen: dict[bytes, int] = {}
        tables["greedy"] = seen
        memory = 0
        parents: dict[tuple[bytes, int], tuple[tuple[bytes, int], list[Step]]] = {}
        root = (prefix(start), start[3])
        met(seen, *root)
        order = 0
        frontier: list[tuple[int, int, int, State, tuple[bytes, int]]] = [(0, 0, 0, start, root)]
        if sum(start[1]) == 52:
            return []
        while frontier:
            _, _, depth, state, here = heapq.heappop(frontier)
            for step in steps(state, True):
                if nodes >= most:
                    raise Spent(f"node budget ({budget_nodes:,} moves) spent")
                nodes += 1
                if not nodes & 1023:
                    held["greedy"] = memory
                    check(until)
                child, more = settle(apply(state, step), step)
                cleared = sum(child[1])
                if cleared == 52:
                    plan = [step, *more]
                    while here != root:
                        here, before = parents[here]
                        plan[:0] = before
                    return plan
                k = (prefix(child), child[3])
                if met(seen, *k):
                    continue
                parents[k] = (here, [step, *more])
                memory += len(k[0]) + _ENTRY_BYTES + _OPEN_BYTES
                if cleared > best:
                    best = cleared
                hidden = sum(pile[1] for pile in child[0])
                order += 1
                heapq.heappush(frontier, (3 * hidden - cleared, -depth - 1, order, child, k))
        return None

    def restarts() -> Generator[None, None, list[Step] | None]:
        """Restart a restricted depth-first search with its own table, each time with the first
        steps in a new random order, for `_RESTART_UNIT` times the next term of Luby's sequence
        steps of its own; returns the win's steps, or None when one restart met every position."""
        shuffle = random.Random(len(start[2]) * 1009 + sum(start[1]))
        term = 0
        while True:
            term += 1
            found = yield from run(True, "restart", shuffle, _RESTART_UNIT * luby(term))
            drop("restart")
            if found is not False:
                return found

    def restricted() -> Generator[None, None, list[Step] | None]:
        """The restricted depth-first search (`run`); its table is dropped when it ends without a win."""
        found = yield from run(True, "restricted")
        if found is None:
            drop("restricted")
        return found or None

    def exact() -> list[Step] | None:
        """Run the exact depth-first search until it wins, meets every position (None: lost) or a
        budget runs out (Spent), taking turns (`solver.exact.take_turns`) with the restarts
        (`restarts`, `_RESTART_TURNS` turns of 1,024 steps to each `_EXACT_TURNS` of the exact
        search's: their win or proof ends it too). With `_PARTIAL_RULE` off, no restarts run and a
        restricted one takes turns with it (`_RESTRICTED_TURNS` turns to each of the exact one's)
        and, if it ends without a win, leaves the rest of the time to the exact one."""
        searches: list[tuple[Generator[None, None, list[Step] | None | Literal[False]], int, bool]]
        searches = [(run(_PARTIAL_RULE, "exact"), 1, True)]
        if _RESTART_TURNS and _PARTIAL_RULE:  # a restart's steps are then the exact pass's
            searches = [(run(_PARTIAL_RULE, "exact"), _EXACT_TURNS, True), (restarts(), _RESTART_TURNS, True)]
        elif _RESTRICTED_TURNS and not _PARTIAL_RULE:
            searches.insert(0, (restricted(), _RESTRICTED_TURNS, False))
        return take_turns(searches) or None

    plan = None
    try:
        # First a best-first search (with the partial-run rule): it finds many wins soon; it
        # answers only "won", the depth-first exact pass then searches from scratch.
        try:
            plan = greedy(began + budget.seconds * _GREEDY_SHARE, max(1, int(budget_nodes * _GREEDY_SHARE)))
        except Spent:
            pass
        drop("greedy")
        if plan is None:
            plan = exact()
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if plan is not None:
            verdict.result = "won"
            best = 52
            verdict.solution = _written(game, model, [*auto, *plan])
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, best)
    for name in list(tables):
        drop(name)
    return finished(verdict, nodes, peak, began)


def _written(game: Game, model: Klondike, plan: list[Step]) -> list[str]:
    """The steps of ``plan`` as the engine's moves, replayed on a copy of ``game`` (outside the
    search: deals and redeals until the talon card is on top, the foundation that holds the suit
    or the first empty one)."""
    replay = game.copy()
    state = model.start
    moves: list[str] = []

    def play(move: str) -> None:
        replay.apply(move)
        moves.append(move)

    def foundation(card: int) -> str:
        for i in range(4):
            cards = replay.piles[f"f{i}"].cards
            if cards and int(cards[0].suit) == _SUIT[card]:
                return f"f{i}"
        return next(f"f{i}" for i in range(4) if not replay.piles[f"f{i}"].cards)

    for step in plan:
        kind = step[0]
        if kind in ("F", "T"):
            card = state[2][step[1] - 1]
            for _ in range(30):
                waste = replay.piles["w"].cards
                if waste and 13 * int(waste[-1].suit) + int(waste[-1].rank) - 1 == card:
                    break
                play("deal" if replay.piles["s"].cards else "redeal")
            dst = foundation(card) if kind == "F" else f"t{step[2]}"
            play(f"w>{dst}")
        elif kind == "f":
            play(f"t{step[1]}>{foundation(state[0][step[1]][-1])}")
        else:
            play(f"t{step[1]}>t{step[2]}" + (f"x{step[3]}" if step[3] > 1 else ""))
        state = model.apply(state, step)
    return moves
