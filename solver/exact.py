"""What every exact search (solver/<game>.py, listed in `solver.search.EXACT`) shares: the
verdict it starts from, the exception that ends it when a budget runs out, and its figures at
the end; searches taking turns (`take_turns`), random restarts (`random_restarts`) and the
restart schedule they and Bristol's probes follow (Luby's sequence, `luby`). Each game's module
holds only its rules as plain values and its own search."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TypeVar

from engine.core import Game
from solver.budget import Verdict

__all__ = ["Spent", "finished", "luby", "random_restarts", "start_verdict", "take_turns"]

T = TypeVar("T")


class Spent(Exception):
    """A budget ran out; ``args[0]`` is the reason, in `solver.search.Budget.spent`'s words."""


def start_verdict(game: Game) -> Verdict:
    """The verdict a search of ``game``'s current position starts from: unknown, its best clear
    what the position already has, or won (no moves needed) if the position is won."""
    verdict = Verdict(
        game=game.key,
        seed=game.seed if game.seed >= 0 else None,
        result="unknown",
        total=game.total,
        best_cleared=game.cleared,
    )
    if game.won:
        verdict.result = "won"
    return verdict


def finished(verdict: Verdict, nodes: int, positions: int, began: float) -> Verdict:
    """``verdict`` with its figures: ``nodes`` moves tried, ``positions`` kept, and the seconds
    since ``began`` (`time.monotonic`), rounded to the millisecond."""
    verdict.nodes = nodes
    verdict.positions = positions
    verdict.seconds = round(time.monotonic() - began, 3)
    return verdict


def take_turns(searches: Sequence[tuple[Generator[None, None, T] | Iterator[None], int, bool]]) -> T | None:
    """Run ``searches`` in turn until one that is exhaustive ends, or one ends with a result.

    Each entry is (a search as a generator that yields after each slice of its work, the slices it
    runs a turn, whether it is exhaustive). Returns what the search that ends returns when it is
    exhaustive (None where it searched every reachable position, so the caller may call the deal
    lost; a win's line where a search returns one) or when what it returns is not None. A search
    that is not exhaustive (random lines of play, say) and returns None drops out when it ends.
    Whatever a search raises (a win found, `Spent`) passes through. Raises ValueError when no
    search is exhaustive.
    """
    if not any(exhaustive for _, _, exhaustive in searches):
        raise ValueError("no exhaustive search to end the turns")
    running = list(searches)
    while running:
        for entry in list(running):
            search, turns, exhaustive = entry
            try:
                for _ in range(turns):
                    next(search)
            except StopIteration as stop:
                if exhaustive or stop.value is not None:
                    result: T | None = stop.value
                    return result
                running.remove(entry)
    return None


def luby(i: int) -> int:
    """The ``i``-th term (``i`` >= 1) of Luby's sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...: the
    multiples of a restart schedule's unit (Luby, Sinclair and Zuckerman: within a logarithmic
    factor of the best fixed restart length, whatever the spread of the work a win takes).
    Raises ValueError for ``i`` < 1."""
    if i < 1:
        raise ValueError(f"Luby's sequence starts at term 1, not {i}")
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


def random_restarts(
    start: T,
    expand: Callable[[T], list[tuple[bool, T]]],
    begin: Callable[[list[T]], None],
    nodes: Callable[[], int],
    moves: int,
    slice_moves: int,
    seed: int,
) -> Iterator[None]:
    """Depth-first lines from ``start`` in random move orders, each starting afresh once it has
    tried its share of moves: ``moves`` times the next term of Luby's sequence (`luby`: 1, 1, 2,
    1, 1, 2, 4, ... times ``moves``), so that a win that needs long lines is reached too.

    ``expand(entry)``: the fresh children of a frontier entry as (it clears a card, entry), or
    raises (a win, `Spent`); ``begin(stack)``: called as each line starts, with its frontier
    (the caller starts a fresh table of keys and counts the frontier's entries); ``nodes()``: the
    moves tried so far by all searches (this one counts only those its own ``expand`` calls
    add, so that a line's length does not depend on the other searches' turns). At each
    position the children are tried in a random order, foundation moves first at half of them
    (`random.Random(seed)`, so a search is repeatable). Yields about every ``slice_moves``
    moves. Ends when a line's frontier empties within its share: when ``begin`` starts a fresh
    table and ``expand`` gives every child not in it, that line expanded every position
    reachable from ``start``, so the caller may count the search as exhaustive.
    """
    rng = random.Random(seed)
    mine = 0  # the moves this search has tried (the other searches' turns not counted)
    mark = slice_moves
    term = 0
    while True:
        stack = [start]
        begin(stack)
        term += 1
        stop = mine + moves * luby(term)
        while stack and mine < stop:
            before = nodes()
            fresh = expand(stack.pop())
            mine += nodes() - before
            rng.shuffle(fresh)
            if rng.random() < 0.5:
                fresh.sort(key=lambda child: not child[0])  # cards cleared first
            stack.extend(entry for _, entry in reversed(fresh))
            if mine >= mark:
                yield
                mark = mine + slice_moves
        if not stack:
            return
