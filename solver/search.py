"""Depth-first search over a game's own moves, with a transposition table and budgets.

`solve` knows the whole deal: it copies the engine's position and plays the engine's
`legal_moves` and `apply`, so every solution it returns is a list of moves the engine accepts.
The search:

* plays a safe move alone where a game has one (a card to a foundation that no card left in
  play could be built on: `solver.ordering.safe_move`), without trying the others;
* otherwise tries positions best first (most cards cleared, fewest face down, fewest cards
  blocking a lower one, or a game's own score: `solver.ordering.score`), and, if that decides
  nothing within half the budget, depth first with moves in a per-game order that finds wins
  early (`solver.ordering`): cards to a foundation first, then moves that turn a face-down card
  up, then builds on other cards, then the rest, and dealing from the stock or turning it over
  last;
* never expands a position twice: a transposition table holds a 128-bit digest of every position
  reached, in a canonical form where piles the rules treat alike (a game's interchangeable
  tableau piles or cells) are sorted, so the same position reached by another order of moves, or
  with two equivalent piles swapped, is pruned (some games write positions with ranks only,
  where no rule looks at a suit: `solver.ordering.canonical`);
* stops at the first win, or when the budget (`Budget`: nodes, seconds, positions remembered) is
  spent.

Because every position is expanded fully before the search backs out of it, a search that ends
with nothing left to expand has visited every position reachable from the start: the deal is
then proved unwinnable, and the most cards cleared in any position seen is the most that can be
cleared (a 128-bit digest collision could hide a position; at two million positions the chance
is about one in 10^26). A search cut short by its budget says "unknown", and its best clear is
only a lower bound. So does a search that ran out of positions in a game whose move order leaves
out moves it only judges useless (`solver.ordering.proves_loss`): no proof there.
"""

from __future__ import annotations

import hashlib
import heapq
import importlib
import itertools
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from engine.core import Game, Move
from solver.ordering import canonical, ordered_moves, proves_loss, safe_move, score

__all__ = ["Budget", "Verdict", "solve", "solve_best_first", "solve_by_playouts", "solve_depth_first"]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much one search may spend: ``nodes`` (moves tried), ``seconds`` (wall clock) and
    ``positions`` (distinct positions remembered, about 60 bytes each)."""

    nodes: int = 200_000
    seconds: float = 60.0
    positions: int = 2_000_000

    def spent(self, nodes: int, positions: int, now: float | None, deadline: float) -> str:
        """Which budget is spent after ``nodes`` moves tried and ``positions`` remembered, at
        ``now`` (monotonic seconds; None: the clock was not read) against ``deadline``, as the
        reason a verdict gives; "" while none is."""
        if nodes >= self.nodes:
            return f"node budget ({self.nodes:,} moves) spent"
        if now is not None and now > deadline:
            return f"time budget ({self.seconds:g} s) spent"
        if positions > self.positions:
            return f"memory budget ({self.positions:,} positions) spent"
        return ""


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
        return {name: getattr(self, name) for name in self.__slots__}


#: Games with an exact search of their own (solver/<game key>.py, function ``solve_exact``): a
#: model of the rules in plain values, with no engine call inside the search, that decides a
#: deal outright within the same `Budget`. `solve` hands these games to it.
EXACT = frozenset({"golf"})


def _digest(game: Game) -> bytes:
    return hashlib.blake2b(canonical(game).encode(), digest_size=16).digest()


def _start(game: Game) -> tuple[Game, Verdict]:
    """A copy of ``game`` to search from (its own history empty, so a solution starts there) and
    the verdict to fill in (already won if the position is won)."""
    start = game.copy()
    start.history = []
    start._legal_cache = None
    verdict = Verdict(
        game=game.key,
        seed=game.seed if game.seed >= 0 else None,
        result="unknown",
        total=game.total,
        best_cleared=start.cleared,
    )
    if start.won:
        verdict.result = "won"
    return start, verdict


def _finish(verdict: Verdict, nodes: int, positions: int, began: float) -> Verdict:
    verdict.nodes = nodes
    verdict.positions = positions
    verdict.seconds = round(time.monotonic() - began, 3)
    return verdict


def _choices(game: Game) -> Iterator[Move]:
    moves = ordered_moves(game)
    safe = safe_move(game, moves) if moves and moves[0].is_transfer and moves[0].dst.startswith("f") else None
    return iter([safe] if safe is not None else moves)


def _exhausted(game: Game, verdict: Verdict) -> None:
    """Fill in ``verdict`` for a search that expanded every position it reached: lost, a proof,
    unless ``game``'s move order leaves out moves without one (`proves_loss`)."""
    if proves_loss(game):
        verdict.result = "lost"
    else:
        verdict.reason = "every line the game's move order keeps was searched (it leaves out moves: no proof)"


def solve(game: Game, budget: Budget = Budget()) -> Verdict:
    """Search ``game`` from its current position (it is not changed) with full knowledge of the
    deal: best first (`solve_best_first`) with two fifths of the budget, then, if that decided
    nothing, depth first (`solve_depth_first`) with two fifths, then greedy random lines
    (`solve_by_playouts`) with the last fifth; each finds different deals easy.
    Returns a `Verdict` (nodes, positions and seconds added up over both); never raises for a
    legal position. A game in `EXACT` is searched by its own exact search instead, within the
    whole budget."""
    if game.key in EXACT:
        return importlib.import_module(f"solver.{game.key}").solve_exact(game, budget)
    share = Budget(nodes=max(1, budget.nodes * 2 // 5), seconds=budget.seconds * 2 / 5, positions=budget.positions)
    rest = Budget(nodes=max(1, budget.nodes // 5), seconds=budget.seconds / 5, positions=budget.positions)
    verdicts = []
    for search, part in ((solve_best_first, share), (solve_depth_first, share), (solve_by_playouts, rest)):
        verdict = search(game, part)
        verdicts.append(verdict)
        if verdict.result != "unknown":
            break
    verdict.best_cleared = max(v.best_cleared for v in verdicts)
    verdict.nodes = sum(v.nodes for v in verdicts)
    verdict.positions = max(v.positions for v in verdicts)
    verdict.seconds = round(sum(v.seconds for v in verdicts), 3)
    if verdict.result == "unknown":
        verdict.reason = ", then ".join(v.reason for v in verdicts)
    return verdict


def solve_by_playouts(game: Game, budget: Budget = Budget()) -> Verdict:
    """Play greedy, randomised lines from the start until one wins or the budget is spent: at
    each position the most promising move (`ordered_moves`, safe moves first) with probability
    3/4, else any legal move, never returning to a position of the same line. It proves
    nothing (its verdict is won or unknown) but finds wins in games with few real choices, where
    a full search drowns in orders of moves that lead to the same place. The lines are drawn
    from a generator seeded by the deal's seed, so a verdict is reproducible."""
    began = time.monotonic()
    deadline = began + budget.seconds
    start, verdict = _start(game)
    if start.won:
        return verdict
    rng = random.Random(game.seed)
    nodes = lines = 0
    while nodes < budget.nodes and time.monotonic() < deadline:
        lines += 1
        position, line, seen = start, [], {_digest(start)}
        while nodes < budget.nodes:
            moves = list(_choices(position))
            if not moves:
                break
            if rng.random() < 0.75:
                order = moves
            else:
                order = moves[:]
                rng.shuffle(order)
            for move in order:
                child = position.copy()
                child.apply(move)
                nodes += 1
                key = _digest(child)
                if key not in seen:
                    break
            else:
                break
            seen.add(key)
            line.append(str(move))
            position = child
            verdict.best_cleared = max(verdict.best_cleared, child.cleared)
            if child.won:
                verdict.result, verdict.solution = "won", line
                break
        if verdict.result == "won":
            break
    if verdict.result == "unknown":
        verdict.reason = f"no win in {lines:,} lines ({nodes:,} moves)"
    return _finish(verdict, nodes, 0, began)


def solve_best_first(game: Game, budget: Budget = Budget()) -> Verdict:
    """Search best first (`solver.ordering.score`), then deepest first among equals; as `solve`."""
    began = time.monotonic()
    deadline = began + budget.seconds
    start, verdict = _start(game)
    if start.won:
        return verdict
    seen = {_digest(start)}
    order = itertools.count()
    # (-score, -depth, tie, position, path as a linked list (move, rest))
    frontier: list[tuple[int, int, int, Game, tuple | None]] = [(-score(start), 0, next(order), start, None)]
    nodes = 0
    while frontier:
        if reason := budget.spent(nodes, len(seen), time.monotonic(), deadline):
            verdict.reason = reason
            break
        _, depth, _, position, path = heapq.heappop(frontier)
        for move in _choices(position):
            child = position.copy()
            child.apply(move)
            nodes += 1
            if child.won:
                verdict.result = "won"
                line = [str(move)]
                while path is not None:
                    line.append(str(path[0]))
                    path = path[1]
                verdict.solution = line[::-1]
                verdict.best_cleared = child.total
                break
            key = _digest(child)
            if key in seen:
                continue
            seen.add(key)
            if child.cleared > verdict.best_cleared:
                verdict.best_cleared = child.cleared
            heapq.heappush(frontier, (-score(child), depth - 1, next(order), child, (move, path)))
        if verdict.result == "won":
            break
    else:
        _exhausted(game, verdict)
    return _finish(verdict, nodes, len(seen), began)


def solve_depth_first(game: Game, budget: Budget = Budget()) -> Verdict:
    """Search ``game`` depth first (see the module docstring); as `solve`."""
    began = time.monotonic()
    deadline = began + budget.seconds
    start, verdict = _start(game)
    if start.won:
        return verdict
    seen = {_digest(start)}
    stack: list[tuple[Game, Iterator[Move]]] = [(start, _choices(start))]
    path: list[Move] = []
    nodes = 0
    while stack:
        if reason := budget.spent(nodes, len(seen), time.monotonic() if nodes % 256 == 0 else None, deadline):
            verdict.reason = reason
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
        if child.cleared > verdict.best_cleared:
            verdict.best_cleared = child.cleared
        path.append(move)
        stack.append((child, _choices(child)))
    else:
        _exhausted(game, verdict)
    return _finish(verdict, nodes, len(seen), began)
