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
* keeps the positions it will come back to packed as bytes (`solver.compact`), not as `Game`
  objects, and counts what it holds (digests seen, frontier or stack) in bytes;
* stops at the first win, or when the budget (`Budget`: nodes, seconds, positions remembered,
  memory held) is spent: every loop checks it at every move tried, so a search ends within a
  move's time of its seconds.

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
import sys
import time

from engine.core import Game, Move
from solver.budget import Budget, Verdict
from solver.compact import SIZES, Packer
from solver.ordering import canonical_bytes, ordered_moves, proves_loss, safe_move, score
from solver.replay import replays_to_win

__all__ = ["Budget", "Verdict", "solve", "solve_best_first", "solve_by_playouts", "solve_depth_first"]


#: Games with an exact search of their own (solver/<game key>.py, function ``solve_exact``): a
#: model of the rules in plain values, with no engine call inside the search, that decides a
#: deal outright within the same `Budget`. `solve` hands these games to it.
EXACT = frozenset(
    {
        "baroness",
        "besieged_city",
        "bristol",
        "calculation",
        "canfield",
        "chameleon",
        "dutchess",
        "eight_off",
        "four_seasons",
        "friday_13",
        "generals_patience",
        "golf",
        "idiots_delight",
        "kings_clover",
        "klondike",
        "little_spider",
        "osmosis",
        "perpetual_motion",
        "pyramid",
        "queens_quadrille",
        "strategy",
        "tournament",
        "try_again",
    }
)


def _digest(game: Game) -> bytes:
    return hashlib.blake2b(canonical_bytes(game), digest_size=16).digest()


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


def _choices(game: Game) -> list[Move]:
    moves = ordered_moves(game)
    safe = safe_move(game, moves) if moves and moves[0].is_transfer and moves[0].dst.startswith("f") else None
    return [safe] if safe is not None else moves


def _line(path: tuple | None) -> list[str]:
    """The moves of a path kept as a linked list ``(move, rest)``, first move first."""
    line = []
    while path is not None:
        line.append(str(path[0]))
        path = path[1]
    return line[::-1]


def _exhausted(game: Game, verdict: Verdict) -> None:
    """Fill in ``verdict`` for a search that expanded every position it reached: lost, a proof,
    unless ``game``'s move order leaves out moves without one (`proves_loss`)."""
    if proves_loss(game):
        verdict.result = "lost"
    else:
        verdict.reason = "every line the game's move order keeps was searched (it leaves out moves: no proof)"


def solve(game: Game, budget: Budget = Budget(), exact: bool = True) -> Verdict:
    """Search ``game`` from its current position (it is not changed) with full knowledge of the
    deal: best first (`solve_best_first`) until two fifths of the budget's seconds have passed
    (two fifths of its nodes), then, if that decided nothing, depth first (`solve_depth_first`)
    until four fifths have (two fifths of its nodes), then greedy random lines
    (`solve_by_playouts`) until the whole budget has (the last fifth of its nodes): each finds
    different deals easy, and a phase that stops early leaves its time to the next. Each phase
    may hold the whole ``memory_mb`` and ``positions`` (one runs at a time).
    Returns a `Verdict` (nodes and seconds added up over the phases, positions the most any
    held); never raises for a legal position. A game in `EXACT` is searched by its own exact
    search instead (unless ``exact`` is False: callers that compare many small searches across
    games, whose move counts must mean the same), within the whole budget, and a win it reports
    stands only if the engine replays its line to a won game (`solver.replay`; otherwise the
    verdict is unknown)."""
    if exact and game.key in EXACT:
        verdict = importlib.import_module(f"solver.{game.key}").solve_exact(game, budget)
        if verdict.result == "won" and not replays_to_win(game, verdict.solution):
            verdict.result, verdict.solution = "unknown", []
            verdict.reason = "its winning line does not replay in the engine"
            verdict.best_cleared = min(verdict.best_cleared, verdict.total - 1)
        return verdict
    began = time.monotonic()
    phases = (
        (solve_best_first, 2 / 5, budget.nodes * 2 // 5),
        (solve_depth_first, 4 / 5, budget.nodes * 2 // 5),
        (solve_by_playouts, 1.0, budget.nodes // 5),
    )
    verdicts = []
    for search, until, nodes in phases:
        left = max(0.0, round(budget.seconds * until - (time.monotonic() - began), 3))
        part = Budget(nodes=max(1, nodes), seconds=left, positions=budget.positions, memory_mb=budget.memory_mb)
        verdict = search(game, part)
        verdicts.append(verdict)
        if verdict.result != "unknown":
            break
    verdict.best_cleared = max(v.best_cleared for v in verdicts)
    verdict.nodes = sum(v.nodes for v in verdicts)
    verdict.positions = max(v.positions for v in verdicts)
    verdict.seconds = round(time.monotonic() - began, 3)
    if verdict.result == "unknown":
        verdict.reason = ", then ".join(v.reason for v in verdicts)
    return verdict


def solve_by_playouts(game: Game, budget: Budget = Budget()) -> Verdict:
    """Play greedy, randomised lines from the start until one wins or the budget is spent: at
    each position the most promising move (`ordered_moves`, safe moves first) with probability
    3/4, else any legal move, never returning to a position of the same line. It proves
    nothing (its verdict is won or unknown) but finds wins in games with few real choices, where
    a full search drowns in orders of moves that lead to the same place. The lines are drawn
    from a generator seeded by the deal's seed, so a verdict is reproducible (within a budget
    of nodes: one of seconds cuts it where the clock says). What it holds (the positions of the
    line being played, as digests, and its moves) counts against ``memory_mb``; ``positions``
    bounds one line's positions."""
    began = time.monotonic()
    deadline = began + budget.seconds
    start, verdict = _start(game)
    if start.won:
        return verdict
    rng = random.Random(game.seed)
    per_seen = SIZES.digest + SIZES.move
    nodes = lines = 0
    reason = ""
    while not reason:
        lines += 1
        position, seen = start, {_digest(start)}
        line: list[Move] = []
        while not reason:
            moves = _choices(position)
            if not moves:
                break
            if rng.random() < 0.75:
                order = moves
            else:
                order = moves[:]
                rng.shuffle(order)
            for move in order:
                held = len(seen) * per_seen + sys.getsizeof(seen) + sys.getsizeof(line)
                if reason := budget.spent(nodes, len(seen), time.monotonic(), deadline, held):
                    break
                child = position.copy()
                child.apply_checked(move)
                nodes += 1
                key = _digest(child)
                if key not in seen:
                    break
            else:
                break
            if reason:
                break
            seen.add(key)
            line.append(move)
            position = child
            verdict.best_cleared = max(verdict.best_cleared, child.cleared)
            if child.won:
                verdict.result, verdict.solution = "won", [str(m) for m in line]
                break
        if verdict.result == "won":
            break
    if verdict.result == "unknown":
        verdict.reason = f"{reason}: no win in {lines:,} lines"
    return _finish(verdict, nodes, 0, began)


def solve_best_first(game: Game, budget: Budget = Budget()) -> Verdict:
    """Search best first (`solver.ordering.score`), then deepest first among equals; as `solve`.
    The frontier keeps each position packed (`solver.compact.Packer`) with its path as a linked
    list of moves; the digests seen and the frontier count against ``memory_mb``."""
    began = time.monotonic()
    deadline = began + budget.seconds
    start, verdict = _start(game)
    if start.won:
        return verdict
    packer = Packer(start)
    seen = {_digest(start)}
    order = itertools.count()
    first = packer.pack(start)
    # (-score, -depth, tie, packed position, path as a linked list (move, rest))
    frontier: list[tuple[int, int, int, bytes, tuple | None]] = [(-score(start), 0, next(order), first, None)]
    per_seen = SIZES.digest + SIZES.node  # (a path link per position pushed, at most)
    per_entry = SIZES.entry + SIZES.bytes_head + len(first)  # (every position of a deal packs as long)
    getsizeof = sys.getsizeof
    nodes = 0
    reason = ""
    while frontier and not reason:
        _, depth, _, blob, path = heapq.heappop(frontier)
        position = packer.unpack(blob)
        for move in _choices(position):
            held = len(seen) * per_seen + getsizeof(seen) + len(frontier) * per_entry + getsizeof(frontier)
            if reason := budget.spent(nodes, len(seen), time.monotonic(), deadline, held):
                break
            child = position.copy()
            child.apply_checked(move)
            nodes += 1
            if child.won:
                verdict.result = "won"
                verdict.solution = _line((move, path))
                verdict.best_cleared = child.total
                break
            key = _digest(child)
            if key in seen:
                continue
            seen.add(key)
            if child.cleared > verdict.best_cleared:
                verdict.best_cleared = child.cleared
            heapq.heappush(frontier, (-score(child), depth - 1, next(order), packer.pack(child), (move, path)))
        if verdict.result == "won":
            break
    if reason:
        verdict.reason = reason
    elif verdict.result == "unknown":
        _exhausted(game, verdict)
    return _finish(verdict, nodes, len(seen), began)


def solve_depth_first(game: Game, budget: Budget = Budget()) -> Verdict:
    """Search ``game`` depth first (see the module docstring); as `solve`. Only the position at
    the top of the stack is a `Game`: the stack keeps the others packed
    (`solver.compact.Packer`), with the moves left to try from each; the digests seen and the
    stack count against ``memory_mb``."""
    began = time.monotonic()
    deadline = began + budget.seconds
    start, verdict = _start(game)
    if start.won:
        return verdict
    packer = Packer(start)
    seen = {_digest(start)}
    # frames [the position packed (None until a child is pushed above it), its moves, the next to try]
    stack: list[list] = [[None, _choices(start), 0]]
    path: list[Move] = []
    per_seen = SIZES.digest
    getsizeof = sys.getsizeof
    framed = SIZES.frame + SIZES.move * len(stack[0][1])  # bytes the frames hold, kept as they change
    position = start  # the position of the top frame
    nodes = 0
    reason = ""
    while stack:
        held = len(seen) * per_seen + getsizeof(seen) + framed + getsizeof(stack) + getsizeof(path)
        if reason := budget.spent(nodes, len(seen), time.monotonic(), deadline, held):
            break
        frame = stack[-1]
        moves, at = frame[1], frame[2]
        if at == len(moves):
            stack.pop()
            blob = frame[0]
            framed -= SIZES.frame + SIZES.move * len(moves) + (SIZES.bytes_head + len(blob) if blob else 0)
            if stack:
                position = packer.unpack(stack[-1][0])
            if path:
                path.pop()
            continue
        frame[2] = at + 1
        move = moves[at]
        child = position.copy()
        child.apply_checked(move)
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
        if frame[0] is None:
            packed = frame[0] = packer.pack(position)
            framed += SIZES.bytes_head + len(packed)
        choices = _choices(child)
        stack.append([None, choices, 0])
        framed += SIZES.frame + SIZES.move * len(choices)
        position = child
    else:
        _exhausted(game, verdict)
    if reason:
        verdict.reason = reason
    return _finish(verdict, nodes, len(seen), began)
