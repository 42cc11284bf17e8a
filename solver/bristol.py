"""An exact search for Bristol: ranks only, tableau piles sorted, safe foundation moves alone,
a bound on the cards still to come up, and restarts in shuffled move orders.

Rules: 003_08087bb95aa03446.txt ("Bristol"), as engine/games/bristol.py states them: eight
tableau piles ``t0`` to ``t7`` (all face up) build down by one rank whatever the suits, one card
at a time, and an empty one is never filled; three reserve piles ``r0`` to ``r2`` (only the top
card plays, to a foundation or onto the tableau); four foundations ``f0`` to ``f3`` start with
an Ace and build up by one to the King whatever the suits; ``deal`` puts one stock card on each
reserve, ``r0`` first (the last deal has one card), with no redeal. Won with 52 cards up.

State. No rule looks at a suit, so a position is: each tableau pile's ranks (bottom to top),
each reserve pile's ranks, how many stock cards have been dealt (the stock order is the deal's,
so the count says which come next), and each foundation's height (a foundation holding h cards
has rank h on top). The search keys positions by a canonical form: the non-empty tableau piles
sorted (they are alike, and an empty one is never used again), the reserves in order while
stock is left (each gets its own stock cards) and sorted once it is all dealt (then they are
alike: only the top plays and nothing is put on one), the deal count and the foundation heights
sorted (they are alike).

Why it is exact. The moves computed from the state are the engine's (tests/solver/test_bristol.py
compares them move for move, and every next position, over many deals and random lines of play).
The search tries every move, with two exceptions. First, the engine's own safe rule
(``Bristol._safe``): a card of rank r goes up alone, without trying the other moves, once every
foundation holds r - 1 cards or more. Then every card of rank r - 1 is up, so nothing can ever be
built on that card, and every other card of rank r still has a foundation at r - 1 waiting for it
(there are as many such foundations as cards of rank r not up), so every line from the position
before is matched by one from the position after, with the same moves less those that move that
card. Second, a tableau card alone in its pile is never moved onto another tableau pile: from the
position where it stays (``S``), every line of play from the position after the move (``S'``: the
card, with whatever is later built on it, on top of the other pile) is matched move for move, while
that card stays, by the same moves in ``S`` with the card's own pile named instead (its top is the
same card; the cards of the pile below are reached in ``S'`` only once the card has left, and then
``S`` and ``S'`` hold the same piles, the emptied one never used again), so ``S`` clears at least
as much. Positions equal in the canonical form are searched once. Third, a position is not
searched past when `bound` shows that nothing reached from it has more cards up than the best
position reached so far (which is real, so the best clear stays exact and no win is cut: a win
would need a bound of 52). So a search that ends without a win proves the deal lost, and the most
cards up in any position searched is the most that can be cleared; tests/solver/test_bristol.py
compares verdicts and best clears with a plain search of every position on late positions, on
positions where a lone tableau card could move, and on positions with stock still to come (where
sorting the reserves would be wrong), and the bound with a plain search's best. A win comes back as
moves in the engine's notation, which the engine replays to ``won``.

The bound. In a position, let ``up[r]`` be the cards of rank r up (``up[0]`` = 4). Take the
least set ``U`` of cards ("uncoverable") and counts ``most`` closed under these rules: every pile's
top and every stock card is in ``U``; a card is in ``U`` when each card above it in its pile may
leave; a card of rank w may leave when some card of rank w + 1 in ``U`` may lie on the tableau
(it is a tableau card, or a reserve or stock card of rank v such that some card of rank v + 1 in
``U`` may lie on the tableau), or when ``most[w - 1] > up[w]``; ``most[0]`` = 4 and ``most[r]`` =
min(``most[r - 1]``, ``up[r]`` + the cards of rank r in ``U``). Then every position reached from
this one has at most sum(``most``) cards up. Proof, by induction along any line of play from the
position: each card that is ever a pile's top is in ``U`` (a stock card is a top when dealt; any
other card is first a top once each card now above it has left, and a card leaves onto a tableau
card of rank one higher that is a top then, so in ``U`` by induction and lying on the tableau,
itself or through the reserve card it was, or onto a foundation of height w - 1, when rank w - 1
has more cards up than rank w, which has ``up[w]`` at least); and at every moment rank r has at
most ``most[r]`` cards up (each card gone up since was a top, so in ``U``, and rank r never has
more up than rank r - 1). `bound` grows ``U`` pile by pile from the tops down until nothing
changes, so it is the least such set; it is worked out only for positions within two cards of the
best so far (elsewhere it seldom cuts, and skipping a cut loses nothing).

Probes. The search is a series of depth-first searches ("probes") of the same position, each with
its own table of positions, taking turns so that each kind keeps about as many positions in all:
plain probes try each position's moves in the plain order (foundation moves first, a deal last)
and stop once they keep more than 300, 600, 1,200, ... positions (doubling); shuffled probes try
them in an order shuffled by a fixed seed (so a deal's verdict is the same every run) and stop
once they keep more than 300 times the next term of Luby's sequence (`solver.exact.luby`: 1, 1,
2, 1, 1, 2, 4, ...). A depth-first search whose first choices lead into a large part of the
positions with no win is thus left, and a win that some order finds soon is found (most deals a
single plain search left unknown are won this way). The order of the moves changes which
positions come first, never which are searched, so a probe that ends by itself has searched every
position: it found a win, or it proves that none exists, with the best clear exact (the cuts use
the best clear of any probe, which is a position reached). A probe that is stopped proves nothing.

Budgets: ``nodes`` counts moves tried, ``positions`` the canonical positions kept by the probe
under way (the verdict's ``positions``: by all probes together), ``memory_mb`` those and the
probe's stack at measured sizes (about 215 bytes a position kept, stack
included, as tracemalloc counts); the clock is read every 1,024 positions.

Cost, measured on deals 1000 to 1049 at ``Budget()`` (10 s), one process under ``nice -n 5`` on
this project's two-core machine while others measured too (load average about 4): 48 decided, all
won, 2 unknown (deal 1006 with 49 cards up at best, 1041 with 50); 0.54 s a deal on average,
median 0.009 s, 10 s at most; 18,000 positions kept a deal on average (all probes), 342,000 at
most; 30 MB peak resident memory. At load average 8 to 10: the same 48 decided (0.77 s a deal on
average), and 46 of deals 1050 to 1099 (1054, 1056, 1072, 1074 unknown, 47 or 48 cards up). No
deal was proved lost: a lost deal must be searched whole, which the bound shortens only where few
cards are still to come up, and the unknown deals keep 320,000 to 340,000 positions in their 10 s
(alone on a core the search keeps about 75,000 positions a second). Reproduce with a script
calling ``solve_exact(find_game("bristol")(seed), Budget())`` for each seed under ``nice -n 5``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from engine.core import Game
from solver.exact import Spent, finished, luby, start_verdict
from solver.search import Budget, Verdict

__all__ = ["Bristol", "State", "bound", "solve_exact"]

#: (tableau piles' ranks, reserve piles' ranks, stock cards dealt, foundation heights)
State = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], int, tuple[int, ...]]

_DEAL = "deal"
#: The seed of the probes' move shuffles (fixed: a deal's verdict is the same every time).
_SEED = 40
#: A line of play, last moves first: (the line before, its last moves in notation).
_Link = tuple[Any, list[str]] | None
#: Bytes a kept position costs (a bytes key of about 60 bytes and its slot in the set), and one
#: frame of the search's stack (a state of small tuples and a link), rounded up from tracemalloc.
_KEY_BYTES = 200
_FRAME_BYTES = 1200


@dataclass(frozen=True, slots=True)
class Bristol:
    """One Bristol position's cards as ranks, from which every later position follows.

    ``stock``: the stock's ranks in the order they will be dealt (the next first); ``start``: the
    `State` read; ``total``: 52."""

    stock: tuple[int, ...]
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Bristol:
        """The model of ``game`` (a Bristol `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "bristol":
            raise ValueError(f"not a bristol game: {game.key!r}")
        stock = tuple(int(card.rank) for card in reversed(game.piles["s"].cards))
        model = cls(stock, ((), (), 0, ()), game.total)
        object.__setattr__(model, "start", model.state_of(game))
        return model

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (dealt counts from there)."""
        ranks = lambda pid: tuple(int(card.rank) for card in game.piles[pid].cards)  # noqa: E731
        return (
            tuple(ranks(f"t{i}") for i in range(8)),
            tuple(ranks(f"r{i}") for i in range(3)),
            len(self.stock) - len(game.piles["s"].cards),
            tuple(len(game.piles[f"f{i}"].cards) for i in range(4)),
        )

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(state[3])

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        tableau, reserves, dealt, heights = state
        moves = []
        for letter, piles in (("t", tableau), ("r", reserves)):
            for i, pile in enumerate(piles):
                if not pile:
                    continue
                rank = pile[-1]
                src = f"{letter}{i}"
                moves += [f"{src}>f{j}" for j, height in enumerate(heights) if height == rank - 1]
                moves += [
                    f"{src}>t{j}"
                    for j, other in enumerate(tableau)
                    if other and other[-1] == rank + 1 and (letter, i) != ("t", j)
                ]
        if dealt < len(self.stock):
            moves.append(_DEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        tableau, reserves, dealt, heights = state
        if move == _DEAL:
            cards = self.stock[dealt : dealt + 3]
            reserves = tuple(pile + cards[i : i + 1] for i, pile in enumerate(reserves))
            return tableau, reserves, dealt + len(cards), heights
        src, dst = move.split(">")
        piles = {"t": list(tableau), "r": list(reserves)}
        source = piles[src[0]]
        rank = source[int(src[1:])][-1]
        source[int(src[1:])] = source[int(src[1:])][:-1]
        if dst[0] == "f":
            j = int(dst[1:])
            heights = heights[:j] + (heights[j] + 1,) + heights[j + 1 :]
        else:
            piles["t"][int(dst[1:])] += (rank,)
        return tuple(piles["t"]), tuple(piles["r"]), dealt, heights


def _key(state: State, dealt_out: bool) -> bytes:
    """The canonical form of ``state`` (see the module docstring); ``dealt_out``: no stock left."""
    tableau, reserves, dealt, heights = state
    parts = sorted(map(bytes, filter(None, tableau)))
    kept = list(map(bytes, reserves))
    if dealt_out:
        kept.sort()
    return b"\0".join([*parts, b"\xff", *kept, bytes([dealt, *sorted(heights)])])


def _up_counts(heights: tuple[int, ...]) -> list[int]:
    """``c`` with ``c[r]`` the cards of rank ``r`` on the foundations (``c[0]`` = 4, ``c[14]`` = 0)
    for foundation ``heights``: a foundation of height h holds one card of each rank 1 to h."""
    return [4] + [sum(h >= r for h in heights) for r in range(1, 14)] + [0]


def bound(
    tableau: tuple[tuple[int, ...], ...],
    reserves: tuple[tuple[int, ...], ...],
    rest: tuple[int, ...],
    heights: tuple[int, ...],
) -> int:
    """An upper bound on the cards up in any position reachable from the one given (``rest``: the
    stock cards not dealt yet), proved in the module docstring: a least fixpoint of cards that may
    ever be uncovered, and of how many cards of each rank may ever go up."""
    c = _up_counts(heights)
    tab = [0] * 15  # uncovered-at-some-time tableau cards by rank
    res = [0] * 15  # the same for reserve and stock cards
    piles: list[list[Any]] = []
    for pile in tableau:
        if pile:
            tab[pile[-1]] += 1
            if len(pile) > 1:
                piles.append([pile, len(pile) - 1, tab])
    for pile in reserves:
        if pile:
            res[pile[-1]] += 1
            if len(pile) > 1:
                piles.append([pile, len(pile) - 1, res])
    for rank in rest:
        res[rank] += 1
    room = [False] * 15
    while True:
        # target[v]: a card of rank v may lie on the tableau uncovered
        target = [False] * 16
        most = [4] * 15
        total = 0
        u = 4
        for r in range(1, 14):
            n = c[r] + tab[r] + res[r]
            if n < u:
                u = n
            most[r] = u
            total += u
        for v in range(13, 0, -1):
            target[v] = bool(tab[v]) or (bool(res[v]) and target[v + 1])
            # a card of rank v may leave its pile: onto a v + 1, or up
            room[v] = target[v + 1] or most[v - 1] > c[v]
        changed = False
        for entry in piles:
            pile, e, counts = entry
            if e and room[pile[e]]:
                while e and room[pile[e]]:
                    e -= 1
                    counts[pile[e]] += 1
                entry[1] = e
                changed = True
        if not changed:
            return total


class _Tally:
    """What the probes of one search have spent and found: moves tried, positions kept (over all
    probes), the most cards up in any position reached, and the line of play to a win."""

    __slots__ = ("nodes", "kept", "best", "won")

    def __init__(self, best: int) -> None:
        self.nodes = 0
        self.kept = 0
        self.best = best
        self.won: _Link = None


def _probe(model: Bristol, budget: Budget, deadline: float, tally: _Tally, rng: random.Random | None, cap: int) -> bool:
    """One depth-first search of every position from ``model.start`` (with the safe moves, the
    lone-card rule, the canonical form and the bound cut of the module docstring), its moves in
    the plain order (foundation moves first, a deal last) or, with ``rng``, shuffled; it stops
    once it keeps more than ``cap`` positions. True when it ended by itself: a win was found
    (``tally.won``), or every position was searched, which proves that none is won. Raises
    `Spent` when a budget runs out."""
    stock = model.stock
    seen: set[bytes] = set()
    best = tally.best
    nodes = tally.nodes
    stack: list[tuple[State, _Link]] = [(model.start, None)]
    try:
        while stack:
            state, link = stack.pop()
            tableau, reserves, dealt, heights = state
            # the safe moves (see the module docstring), alone
            low = min(heights)
            if any(pile and pile[-1] == low + 1 for pile in tableau + reserves):
                t, r, h = list(tableau), list(reserves), list(heights)
                safe: list[str] = []
                again = True
                while again:
                    again = False
                    for letter, piles in (("t", t), ("r", r)):
                        for i, pile in enumerate(piles):
                            if pile and pile[-1] == low + 1:
                                j = h.index(pile[-1] - 1)
                                h[j] += 1
                                piles[i] = pile[:-1]
                                safe.append(f"{letter}{i}>f{j}")
                                low = min(h)
                                again = True
                link = (link, safe)
                state = (tuple(t), tuple(r), dealt, tuple(h))
            count = sum(state[3])
            if count > best:
                best = count
            if count == 52:
                tally.won = link
                return True
            key = _key(state, dealt == len(stock))
            if key in seen:
                continue
            seen.add(key)
            if not len(seen) & 1023:
                reason = budget.spent(
                    nodes, len(seen), time.monotonic(), deadline, len(seen) * _KEY_BYTES + len(stack) * _FRAME_BYTES
                )
                if reason:
                    raise Spent(reason)
            if len(seen) > cap:
                return False
            if count >= best - _NEAR and bound(state[0], state[1], stock[dealt:], state[3]) <= best:
                continue  # (no position reached from here clears more than the best so far)
            children: list[tuple[State, _Link]] = []
            tt, rr, hh = state[0], state[1], state[3]
            onto: dict[int, list[int]] = {}  # tableau piles by the rank that goes on them
            for j, other in enumerate(tt):
                if other:
                    onto.setdefault(other[-1] - 1, []).append(j)
            if dealt < len(stock):
                cards = stock[dealt : dealt + 3]
                dealt_r = tuple(pile + cards[i : i + 1] for i, pile in enumerate(rr))
                children.append(((tt, dealt_r, dealt + len(cards), hh), (link, [_DEAL])))
            for letter, sources in (("t", tt), ("r", rr)):
                for i, pile in enumerate(sources):
                    if not pile:
                        continue
                    rank = pile[-1]
                    for j in onto.get(rank, ()) if letter == "r" or len(pile) > 1 else ():
                        if letter != "t" or i != j:
                            nt = list(tt)
                            nt[j] = tt[j] + (rank,)
                            if letter == "t":
                                nt[i] = pile[:-1]
                                child: State = (tuple(nt), rr, dealt, hh)
                            else:
                                child = (tuple(nt), rr[:i] + (pile[:-1],) + rr[i + 1 :], dealt, hh)
                            children.append((child, (link, [f"{letter}{i}>t{j}"])))
                    if rank - 1 in hh:
                        j = hh.index(rank - 1)
                        nh = hh[:j] + (rank,) + hh[j + 1 :]
                        if letter == "t":
                            child = (tt[:i] + (pile[:-1],) + tt[i + 1 :], rr, dealt, nh)
                        else:
                            child = (tt, rr[:i] + (pile[:-1],) + rr[i + 1 :], dealt, nh)
                        children.append((child, (link, [f"{letter}{i}>f{j}"])))
            nodes += len(children)
            if nodes >= budget.nodes:
                raise Spent(f"node budget ({budget.nodes:,} moves) spent")
            if rng is not None:
                rng.shuffle(children)
            stack += children  # (unshuffled: a foundation move is tried first, a deal last)
        return True
    finally:
        tally.nodes = nodes
        tally.kept += len(seen)
        tally.best = best


#: The bound is worked out only for positions this close to the best clear so far (others rarely
#: have a bound as low as it, and it costs about as much as the rest of a position's work).
_NEAR = 2

#: Positions the first probe of each kind may keep (then doubled for plain probes, times Luby's
#: sequence for shuffled ones).
_FIRST_CAP = 300


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Bristol, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with
    the budget that ran out (its best clear then a lower bound). ``positions``: the positions
    kept by all its probes together."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Bristol.from_game(game)
    tally = _Tally(game.cleared)
    rng = random.Random(_SEED)
    plain_cap, plain, shuffled, term = _FIRST_CAP, 0, 0, 1  # (plain, shuffled: positions kept)
    try:
        while True:
            kept = tally.kept
            if plain <= shuffled:
                if _probe(model, budget, began + budget.seconds, tally, None, plain_cap):
                    break
                plain += tally.kept - kept
                plain_cap *= 2
            else:
                if _probe(model, budget, began + budget.seconds, tally, rng, _FIRST_CAP * luby(term)):
                    break
                shuffled += tally.kept - kept
                term += 1
        if tally.won is None:
            verdict.result = "lost"
    except Spent as spent:
        verdict.reason = spent.args[0]
    if tally.won is not None:
        verdict.result = "won"
        chunks = []
        line: _Link = tally.won
        while line is not None:
            line, moves = line
            chunks.append(moves)
        verdict.solution = [move for moves in reversed(chunks) for move in moves]
        tally.best = model.total
    verdict.best_cleared = max(verdict.best_cleared, tally.best)
    return finished(verdict, tally.nodes, tally.kept, began)
