"""Depth-first search over a game's own moves, with a transposition table and budgets.

`solve` knows the whole deal: it copies the engine's position and plays the engine's
`legal_moves` and `apply`, so every solution it returns is a list of moves the engine accepts.
The search:

* tries moves in a per-game order that finds wins early (`solver.ordering`): cards to a
  foundation first, then moves that turn a face-down card up, then builds on other cards, then
  the rest, and dealing from the stock or turning it over last;
* never expands a position twice: a transposition table holds a 128-bit digest of every position
  reached, in a canonical form where piles the rules treat alike (a game's interchangeable
  tableau piles or cells) are sorted, so the same position reached by another order of moves, or
  with two equivalent piles swapped, is pruned;
* stops at the first win, or when the budget (`Budget`: nodes, seconds, positions remembered) is
  spent.

Because every position is expanded fully before the search backs out of it, a search that ends
with nothing left to expand has visited every position reachable from the start: the deal is
then proved unwinnable, and the most cards cleared in any position seen is the most that can be
cleared (a 128-bit digest collision could hide a position; at two million positions the chance
is about one in 10^26). A search cut short by its budget says "unknown", and its best clear is
only a lower bound.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from engine.core import Game, Move
from solver.ordering import canonical, ordered_moves

__all__ = ["Budget", "Verdict", "solve"]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one search may spend: ``nodes`` (moves tried), ``seconds`` (wall clock) and
    ``positions`` (distinct positions remembered, about 60 bytes each)."""

    nodes: int = 200_000
    seconds: float = 60.0
    positions: int = 2_000_000


@dataclass(slots=True)
class Verdict:
    """The outcome of one search.

    ``result``: ``won`` (``solution`` holds the moves, in notation, from the position searched to
    a won game), ``lost`` (proved: no reachable position is won) or ``unknown`` (``reason`` says
    which budget ran out). ``best_cleared``: the most cards cleared in any position reached, out
    of ``total``; exact unless the result is unknown. ``nodes``: moves tried; ``positions``:
    distinct positions reached; ``seconds``: wall-clock time.
    """

    game: str
    seed: int | None
    result: Literal["won", "lost", "unknown"]
    total: int
    best_cleared: int
    solution: list[str] = field(default_factory=list)
    nodes: int = 0
    positions: int = 0
    seconds: float = 0.0
    reason: str = ""

    def as_dict(self) -> dict[str, object]:
        """The verdict as plain JSON values."""
        return {name: getattr(self, name) for name in self.__slots__}  # type: ignore[attr-defined]


def _digest(game: Game) -> bytes:
    return hashlib.blake2b(canonical(game).encode(), digest_size=16).digest()


def solve(game: Game, budget: Budget = Budget()) -> Verdict:
    """Search ``game`` from its current position (it is not changed) with full knowledge of the
    deal. Returns a `Verdict`; never raises for a legal position."""
    began = time.monotonic()
    deadline = began + budget.seconds
    start = game.copy()
    start.history = []
    start._legal_cache = None  # type: ignore[attr-defined]
    verdict = Verdict(game=game.key, seed=game.seed if game.seed >= 0 else None, result="unknown",
                      total=game.total, best_cleared=start.cleared)
    if start.won:
        verdict.result = "won"
        return verdict
    seen = {_digest(start)}
    stack: list[tuple[Game, Iterator[Move]]] = [(start, iter(ordered_moves(start)))]
    path: list[Move] = []
    nodes = 0
    while stack:
        if nodes >= budget.nodes:
            verdict.reason = f"node budget ({budget.nodes:,} moves) spent"
            break
        if nodes % 256 == 0 and time.monotonic() > deadline:
            verdict.reason = f"time budget ({budget.seconds:g} s) spent"
            break
        position, moves = stack[-1]
        move = next(moves, None)
        if move is None:
            stack.pop()
            if path:
                path.pop()
            continue
        child = position.copy()
        child.apply(move)
        nodes += 1
        if child.won:
            verdict.result = "won"
            verdict.solution = [str(m) for m in path + [move]]
            verdict.best_cleared = child.total
            break
        key = _digest(child)
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > budget.positions:
            verdict.reason = f"memory budget ({budget.positions:,} positions) spent"
            break
        if child.cleared > verdict.best_cleared:
            verdict.best_cleared = child.cleared
        path.append(move)
        stack.append((child, iter(ordered_moves(child))))
    else:
        verdict.result = "lost"
    verdict.nodes = nodes
    verdict.positions = len(seen)
    verdict.seconds = round(time.monotonic() - began, 3)
    return verdict
