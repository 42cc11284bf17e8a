"""An exact search for Strategy: choose the order the cards go up, and the piles follow from it.

Rules: 003_08087bb95aa03446.txt ("Strategy"), as engine/games/strategy.py states them: the stock
is turned one card at a time onto ``w``; an Ace goes to an empty foundation, any other card onto
one of the seven waste piles ``t0`` to ``t6`` (on any card); once the stock and ``w`` are empty the
top cards of the waste piles go up, in suit from the Ace to the King. Nothing else ever moves.

The model (`Strategy`) holds a position as plain values: how many stock cards have been placed,
each waste pile's cards, each foundation's top card; `Strategy.legal` and `Strategy.play` are the
engine's moves (tests/solver/test_strategy.py compares them move for move).

The search does not walk those moves. A game is fixed by the order ``L`` in which the cards still
to go up will go up in the play-off (each suit in rank order; within a waste pile, a card above
another goes first) and by where each stock card goes. Two cards end in the same pile, the later
turned on top, only if the later goes up first; so each pile, read upwards, is a run of cards
later in the stock and earlier in ``L``. Given ``L``, the stock cards and the tops of the waste
piles that already hold cards (each counted as turned before every stock card) must be covered by
at most seven such runs. By Dilworth's theorem that holds exactly when no eight of them are turned
in the same order as they go up (the tops together counting as turned at once, so any of them may
be among the eight): the longest such sequence, which patience-sorting counts card by card in
``L`` order. Cards lying under a top are not in any sequence; they only constrain ``L``.

So the search builds ``L`` card by card from the front. A state is how far ``L`` has gone in each
suit (which fixes which cards are up) and ``g``: for k = 1..7, the earliest stock place of a card
in ``L`` ending a sequence of k or more (0 for a top): a card turned at place p then ends a sequence
of 1 + (the k with g_k < p); a card that would end one of eight cannot go up, and a state where a
card still to go up would is dead. Each g_k is kept as the last stock place still to go up at or
before it (the same answers for every card left), so states that differ only there are one; a
state is searched once. Moves played alone, both proved to lose nothing: a card lying under a top
(it is in no sequence, so putting it first in ``L`` changes no count), and a stock card when every
later stock card still to go up is of its suit and higher (it counts in no other card's
sequence, and its own can only grow by waiting).

Cleared when lost. If some cards never go up, the ones that do, ``U``, are a prefix of some ``L``;
every stuck stock card may lie on one pile, under the runs of ``U`` cards that come after the last
of them, and a pile whose top is stuck takes cards as an empty one does. So ``U`` is possible when
the same count, with one extra card turned at the last stuck stock place that goes up after every
other, is at most seven: that is exactly the state of ``U`` not being dead. The most cleared is the
cards already up, the Aces still to turn, and the largest ``U`` of any live state. The search
first asks for a win; when there is none it asks again for one card more than the most it has
seen go up, until a search finds none. Each search cuts a state where even every card left that
can still go up falls short of what it asks for: a stock card whose sequence must reach eight
never goes up (its own count now; one more than an earlier card of its suit turned before it;
or, after a top still to go up, or a card under such a top, earlier in its suit, at least two
more than the tops already up, since that top ends a sequence of one more than those), nor the
cards of its suit above it, nor cards under any of these.

Why it is exact: every ``L`` is a sequence of these steps, the only states not searched are dead,
met before, matched by a move played alone, or cut by the bound; so a search that ends without a
win proves the deal lost and its best is the most that can be cleared. A win comes back as the
engine's moves: each stock card onto the pile whose top goes up soonest after it (or an empty
one), each Ace to the first empty foundation, then the play-off in ``L`` order; the engine
replays it to ``won``. tests/solver/test_strategy.py checks verdicts and best clears against a
plain search of the model's moves on late positions.

Budgets: ``nodes`` counts cards added to ``L``, ``positions`` the states kept, ``memory_mb`` those
at about 90 bytes each; the clock is read every 1,024 nodes.

Cost, measured on deals 1000 to 1049 with ``Budget()`` (10 s), one process under ``nice -n 5`` on
this project's two-core machine while others measured too (load average about 10): 47 won, each
in under 0.1 s (median 0.001 s); 3 lost deals unknown (1010, 1028, 1045: the most-cleared searches
of a lost deal take 15 to 60 s); on deals 0 to 199 before the last fix 194 won, 1 lost, 5 unknown.
Reproduce with ``nice -n 5 python -c`` over ``solve_exact(find_game("strategy")(seed))``.
"""

from __future__ import annotations

import time
from bisect import bisect_right
from dataclasses import dataclass

from engine.cards import Rank
from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["Strategy", "State", "solve_exact"]

#: (stock cards placed, each waste pile's cards bottom to top, each foundation's top card: -1 if empty)
State = tuple[int, tuple[tuple[int, ...], ...], tuple[int, ...]]

_PILES = 7
_BYTES_PER_STATE = 90


def card_id(card: object) -> int:
    """A card as one int: suit (clubs 0 .. spades 3) times 13 plus rank less one."""
    return int(card.suit) * 13 + int(card.rank) - 1  # type: ignore[attr-defined]


def _rank(card: int) -> int:
    return card % 13 + 1


@dataclass(frozen=True, slots=True)
class Strategy:
    """One Strategy position's cards as plain ints (`card_id`), from which every later one follows.

    ``stock``: the cards still to be placed, ``w``'s first, then the stock's from the top;
    ``start``: the `State` read (0 placed); ``total``: the game's total (52).
    """

    stock: tuple[int, ...]
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Strategy:
        """The model of ``game`` (a Strategy `Game`, at any position)."""
        if game.key != "strategy":
            raise ValueError(f"not a strategy game: {game.key!r}")
        stock = tuple(card_id(c) for c in game.piles["w"].cards[::-1]) + tuple(
            card_id(c) for c in reversed(game.piles["s"].cards)
        )
        piles = tuple(tuple(card_id(c) for c in game.piles[f"t{i}"].cards) for i in range(_PILES))
        found = tuple(card_id(game.piles[f"f{i}"].cards[-1]) if game.piles[f"f{i}"].cards else -1 for i in range(4))
        return cls(stock, (0, piles, found), game.total)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, reached by play from the position this model was read from."""
        left = len(game.piles["w"].cards) + len(game.piles["s"].cards)
        later = Strategy.from_game(game).start
        return (len(self.stock) - left, later[1], later[2])

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``."""
        return sum(_rank(top) for top in state[2] if top >= 0)

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        placed, piles, found = state
        if placed < len(self.stock):
            card = self.stock[placed]
            if _rank(card) == Rank.ACE:
                return [f"w>f{i}" for i in range(4) if found[i] < 0]
            return [f"w>t{i}" for i in range(_PILES)]
        moves = []
        for i, pile in enumerate(piles):
            if pile:
                home = self._home(found, pile[-1])
                if home is not None:
                    moves.append(f"t{i}>f{home}")
        return moves

    @staticmethod
    def _home(found: tuple[int, ...], card: int) -> int | None:
        for i, top in enumerate(found):
            if top >= 0 and top // 13 == card // 13 and _rank(top) + 1 == _rank(card):
                return i
        return None

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        placed, piles, found = state
        src, dst = move.split(">")
        if src == "w":
            card = self.stock[placed]
            placed += 1
        else:
            i = int(src[1:])
            card = piles[i][-1]
            piles = piles[:i] + (piles[i][:-1],) + piles[i + 1 :]
        j = int(dst[1:])
        if dst[0] == "f":
            found = found[:j] + (card,) + found[j + 1 :]
        else:
            piles = piles[:j] + (piles[j] + (card,),) + piles[j + 1 :]
        return placed, piles, found


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Strategy, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when a
    budget ran out. ``nodes`` counts cards put in the play-off order, ``positions`` the states
    kept."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Strategy.from_game(game)
    _, piles, found = model.start
    search = _Search(model, budget, began)
    fixed = model.cleared(model.start) + sum(1 for c in model.stock if _rank(c) == Rank.ACE)
    kept = 0
    try:
        order = search.run(search.left)
        if order is not None:
            verdict.result = "won"
            verdict.solution = _notation(model, order)
            verdict.best_cleared = model.total
        else:
            # lost: the most that can go up, one more than the best found until none is
            bound = search.bound()
            while search.best < bound:
                found_more = search.run(search.best + 1)
                kept = max(kept, len(search.seen))
                if found_more is None:
                    break
            verdict.result = "lost"
    except Spent as spent:
        verdict.reason = spent.args[0]
    if verdict.result != "won":
        verdict.best_cleared = max(verdict.best_cleared, fixed + search.best)
    return finished(verdict, search.nodes, max(kept, len(search.seen)) + 1, began)


class _Search:
    """The depth-first search over play-off orders (module docstring)."""

    def __init__(self, model: Strategy, budget: Budget, began: float) -> None:
        _, piles, found = model.start
        self.budget, self.deadline = budget, began + budget.seconds
        self.nodes, self.best, self.target = 0, 0, 0
        self.seen: set[int] = set()
        up = [0] * 4  # highest rank up (or sure to go up: Aces still to turn) in each suit
        for top in found:
            if top >= 0:
                up[top // 13] = _rank(top)
        stock = [c for c in model.stock if _rank(c) != Rank.ACE]
        for c in model.stock:
            if _rank(c) == Rank.ACE:
                up[c // 13] = max(up[c // 13], 1)
        self.n = len(stock)
        self.pos = [-1] * 52  # 1..n: stock place; 0: a pile's top; -1: under a top (or up)
        self.above = [-1] * 52
        for place, c in enumerate(stock, 1):
            self.pos[c] = place
        self.top_of = [-1] * 52  # the top of the pile a card lies in
        for pile in piles:
            for k, c in enumerate(pile):
                self.top_of[c] = pile[-1]
                if k == len(pile) - 1:
                    self.pos[c] = 0
                else:
                    self.above[c] = pile[k + 1]
        self.chains = [[s * 13 + r - 1 for r in range(up[s] + 1, 14)] for s in range(4)]
        self.index = [0] * 52
        for chain in self.chains:
            for k, c in enumerate(chain):
                self.index[c] = k
        self.left = sum(len(chain) for chain in self.chains)
        self.tops = sum(1 for pile in piles if pile)
        self.line: list[int] = []

    def run(self, target: int) -> list[int] | None:
        """The play-off order of ``target`` cards that can go up (a win when that is all of
        them), or None when there is none; raises `Spent`."""
        self.target = target
        self.seen.clear()
        self.line.clear()
        if self.search([0, 0, 0, 0], [self.n + 1] * _PILES, 0, 0):
            return self.line[::-1]
        return None

    def bound(self) -> int:
        """How many of the cards still to go up could go up at most (the cut, from the start)."""
        remaining = sorted(p for p in self.pos if p > 0)
        return self._reachable([0, 0, 0, 0], [self.n + 1] * _PILES, 0, remaining)

    def _in(self, heights: list[int], card: int) -> bool:
        return self.index[card] < heights[card // 13]

    def search(self, heights: list[int], g: list[int], tops: int, done: int) -> bool:
        """Whether the rest of ``L`` can be completed from this state (then ``line`` holds it,
        last card first)."""
        chains, pos, above = self.chains, self.pos, self.above
        # remaining stock places, and the cards that may go next
        remaining: list[int] = []
        moves: list[int] = []
        for s in range(4):
            chain, h = chains[s], heights[s]
            for k in range(h, len(chain)):
                p = pos[chain[k]]
                if p > 0:
                    remaining.append(p)
            if h < len(chain):
                c = chain[h]
                a = above[c]
                if a < 0 or self._in(heights, a):
                    moves.append(c)
        remaining.sort()
        last = remaining[-1] if remaining else 0
        if g[6] < last:
            return False  # dead: the last stock card to go up would end a sequence of eight
        if done > self.best:
            self.best = done
        if done >= self.target:
            return True
        key = heights[0] | heights[1] << 4 | heights[2] << 8 | heights[3] << 12 | tops << 16
        shift = 19
        for v in g:
            i = bisect_right(remaining, v)
            key |= (remaining[i - 1] if i else 0) << shift
            shift += 6
        if key in self.seen:
            return False
        self.seen.add(key)
        if len(self.seen) > self.budget.positions:
            raise Spent(f"memory budget ({self.budget.positions:,} positions) spent")
        if len(self.seen) * _BYTES_PER_STATE > self.budget.memory_mb * 2**20:
            raise Spent(f"memory budget ({self.budget.memory_mb:g} MB) spent")
        if done + self._reachable(heights, g, tops, remaining) < self.target:
            return False
        # moves played alone
        for c in moves:
            p = pos[c]
            if p < 0 or (p > 0 and remaining[-1] == p) or (p > 0 and self._alone(c, p, remaining)):
                return self._step(heights, g, tops, done, c)
        scored = []
        for c in moves:
            p = pos[c]
            if p == 0:
                scored.append((tops + 1, 0, c))
            else:
                length = 1 + sum(1 for v in g if v < p)
                if length <= _PILES:
                    scored.append((length, -p, c))
        scored.sort()
        for _, _, c in scored:
            if self._step(heights, g, tops, done, c):
                return True
        return False

    def _alone(self, card: int, place: int, remaining: list[int]) -> bool:
        """Whether every stock card still to go up turned after ``card`` (at ``place``) is of
        its suit and above it."""
        chain = self.chains[card // 13]
        later = {self.pos[c] for c in chain[self.index[card] + 1 :] if self.pos[c] > 0}
        return all(q <= place or q in later for q in remaining[bisect_right(remaining, place) :])

    def _step(self, heights: list[int], g: list[int], tops: int, done: int, c: int) -> bool:
        self.nodes += 1
        if self.nodes >= self.budget.nodes:
            raise Spent(f"node budget ({self.budget.nodes:,} moves) spent")
        if not self.nodes & 1023 and time.monotonic() > self.deadline:
            raise Spent(f"time budget ({self.budget.seconds:g} s) spent")
        p = self.pos[c]
        child = list(g)
        if p == 0:
            child[tops] = 0
            tops += 1
        elif p > 0:
            length = 1 + sum(1 for v in g if v < p)
            child[length - 1] = min(child[length - 1], p)
        s = c // 13
        after = heights[:s] + [heights[s] + 1] + heights[s + 1 :]
        if self.search(after, child, tops, done + 1):
            self.line.append(c)
            return True
        return False

    def _reachable(self, heights: list[int], g: list[int], tops: int, remaining: list[int]) -> int:
        """How many cards still to go up could go up at most (module docstring: the cut)."""
        chains, pos, above = self.chains, self.pos, self.above
        stuck: set[int] = set()
        for s in range(4):
            chain = chains[s]
            earlier: list[tuple[int, int]] = []  # (stock place, least count) of this suit's cards
            floor = 0  # a top still to go up comes first (or its pile's card): at least tops + 1
            for k in range(heights[s], len(chain)):
                c = chain[k]
                p = pos[c]
                if p <= 0:
                    if not self._in(heights, self.top_of[c]):
                        floor = max(floor, tops + 1)  # its pile's top is still to go up
                    continue
                least = max(1 + sum(1 for v in g if v < p), floor + 1)
                for q, n in earlier:
                    if q < p and n + 1 > least:
                        least = n + 1
                if least > _PILES:
                    stuck.update(chain[k:])
                    break
                earlier.append((p, least))
        if not stuck:
            return self.left - sum(heights)
        changed = True
        while changed:
            changed = False
            for s in range(4):
                chain = chains[s]
                for k in range(heights[s], len(chain)):
                    c = chain[k]
                    if c in stuck:
                        break
                    a = above[c]
                    if a >= 0 and a in stuck:
                        stuck.update(chain[k:])
                        changed = True
                        break
        return self.left - sum(heights) - len(stuck)


def _notation(model: Strategy, order: list[int]) -> list[str]:
    """The engine's moves of the win whose play-off order is ``order`` (module docstring)."""
    rank = {c: i for i, c in enumerate(order)}
    _, start_piles, found = model.start
    piles = [list(pile) for pile in start_piles]
    homes = {top // 13: i for i, top in enumerate(found) if top >= 0}
    empty = [i for i, top in enumerate(found) if top < 0]
    moves = []
    for c in model.stock:
        if _rank(c) == Rank.ACE:
            f = empty.pop(0)
            homes[c // 13] = f
            moves.append(f"w>f{f}")
            continue
        fits = [i for i, pile in enumerate(piles) if pile and rank.get(pile[-1], 99) > rank[c]]
        if fits:
            i = min(fits, key=lambda i: rank[piles[i][-1]])
        else:
            # an empty pile, or one whose top never... (in a win every top goes up: empty only)
            i = next(i for i, pile in enumerate(piles) if not pile)
        piles[i].append(c)
        moves.append(f"w>t{i}")
    for c in order:
        i = next(i for i, pile in enumerate(piles) if pile and pile[-1] == c)
        piles[i].pop()
        moves.append(f"t{i}>f{homes[c // 13]}")
    return moves
