"""An exact search for Bristol: ranks only, tableau piles sorted, safe foundation moves alone.

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
as much. Positions equal in the canonical form are searched once. So a search that ends without a
win proves the deal lost, and the most cards up in any position searched is the most that can be
cleared; tests/solver/test_bristol.py compares verdicts and best clears with a plain search of
every position on late positions, on positions where a lone tableau card could move, and on
positions with stock still to come (where sorting the reserves would be wrong). A win comes back as
moves in the engine's notation, which the engine replays to ``won``.

Budgets: ``nodes`` counts moves tried, ``positions`` the canonical positions kept, ``memory_mb``
those and the search's stack at measured sizes (about 215 bytes a position kept, stack
included, as tracemalloc counts); the clock is read every 1,024 positions.

Cost, measured on deals 0 to 49 with a 10 s budget, one process under ``nice -n 5`` on this
project's two-core machine while others measured too (load average 2.6 to 3.3): 44 decided, all
won, 6 unknown (deals 5, 9, 13, 16, 26, 33, with 43 to 48 cards up at best); 1.4 s a deal on
average, median 0.004 s, 10 s at most; 59,000 positions kept a deal on average, 510,000 at most;
70 MB peak resident memory for a 10 s search keeping 385,000 positions. No whole deal was proved
lost: a lost deal must be searched whole, and the six unknown deals each keep 350,000 to 510,000
positions in their 10 s without deciding (half that at load average 5), so this search does not
reach 95% decided at 10 s. Reproduce with ``arena solve bristol --deals 50 --seconds 10 --nodes
100000000 --jobs 1``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["Bristol", "State", "solve_exact"]

#: (tableau piles' ranks, reserve piles' ranks, stock cards dealt, foundation heights)
State = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], int, tuple[int, ...]]

_DEAL = "deal"
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


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Bristol, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with
    the budget that ran out (its best clear then a lower bound)."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Bristol.from_game(game)
    deadline = began + budget.seconds
    stock = model.stock
    seen: set[bytes] = set()
    best = game.cleared
    nodes = 0
    stack: list[tuple[State, _Link]] = [(model.start, None)]
    won_link: _Link = None
    try:
        while stack:
            (tableau, reserves, dealt, heights), link = stack.pop()
            # the safe moves (see the module docstring), alone
            t, r, h = list(tableau), list(reserves), list(heights)
            safe: list[str] = []
            low = min(h)
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
            if safe:
                link = (link, safe)
            count = sum(h)
            if count > best:
                best = count
            if count == 52:
                won_link = link
                break
            state = (tuple(t), tuple(r), dealt, tuple(h))
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
            children: list[tuple[State, _Link]] = []
            tt, rr, hh = state[0], state[1], state[3]
            if dealt < len(stock):
                cards = stock[dealt : dealt + 3]
                dealt_r = tuple(pile + cards[i : i + 1] for i, pile in enumerate(rr))
                children.append(((tt, dealt_r, dealt + len(cards), hh), (link, [_DEAL])))
            for letter, sources in (("t", tt), ("r", rr)):
                for i, pile in enumerate(sources):
                    if not pile:
                        continue
                    rank = pile[-1]
                    for j, other in enumerate(tt if letter == "r" or len(pile) > 1 else ()):
                        if other and other[-1] == rank + 1 and (letter != "t" or i != j):
                            nt = list(tt)
                            nt[j] = other + (rank,)
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
            stack += children  # (a foundation move is tried first, a deal last)
        if won_link is None:
            verdict.result = "lost"
    except Spent as spent:
        verdict.reason = spent.args[0]
    if won_link is not None:
        verdict.result = "won"
        chunks = []
        line: _Link = won_link
        while line is not None:
            line, moves = line
            chunks.append(moves)
        verdict.solution = [move for moves in reversed(chunks) for move in moves]
        best = model.total
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, len(seen), began)
