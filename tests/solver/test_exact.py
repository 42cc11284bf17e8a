"""The scaffolding every exact search shares (solver/exact.py): `take_turns`, which runs a
game's searches in turn until an exhaustive one ends, and `random_restarts`, whose lines grow by
Luby's sequence (`luby`)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from solver.exact import Spent, luby, random_restarts, take_turns


def slices(name: str, count: int | None, log: list[str]) -> Iterator[None]:
    """A search of ``count`` slices (endless when None), each logged as ``name``."""
    done = 0
    while count is None or done < count:
        log.append(name)
        done += 1
        yield


def test_searches_take_their_turns_until_an_exhaustive_one_ends():
    log: list[str] = []
    take_turns([(slices("a", 5, log), 2, True), (slices("b", None, log), 1, False)])
    # a runs two slices a turn, b one; a's sixth call finds it ended
    assert log == ["a", "a", "b", "a", "a", "b", "a"]


def test_a_search_that_is_not_exhaustive_drops_out_when_it_ends():
    log: list[str] = []
    take_turns([(slices("lines", 1, log), 1, False), (slices("all", 3, log), 1, True)])
    assert log == ["lines", "all", "all", "all"]


def test_what_a_search_raises_passes_through():
    def spent() -> Iterator[None]:
        yield
        raise Spent("time budget (1 s) spent")

    with pytest.raises(Spent, match="time budget"):
        take_turns([(slices("all", None, []), 1, True), (spent(), 1, False)])


def test_turns_need_an_exhaustive_search():
    with pytest.raises(ValueError, match="exhaustive"):
        take_turns([(slices("lines", None, []), 1, False)])


def test_luby_sequence():
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
    assert luby(2**20 - 1) == 2**19 and luby(2**20) == 1
    with pytest.raises(ValueError, match="term 1"):
        luby(0)


def test_random_restarts_start_afresh_after_their_moves_and_repeat_with_a_seed():
    def run(seed: int) -> tuple[list[int], list[int]]:
        tried = [0]
        lines: list[int] = []
        popped: list[int] = []

        def expand(entry: int) -> list[tuple[bool, int]]:
            popped.append(entry)
            tried[0] += 2
            return [(True, entry + 1), (False, entry + 1000)]  # an endless tree

        def begin(stack: list[int]) -> None:
            assert stack == [0]  # each line starts from the position searched
            lines.append(tried[0])

        search = random_restarts(0, expand, begin, lambda: tried[0], 10, 4, seed)
        for _ in range(40):
            next(search)
        return lines, popped

    lines, popped = run(3)
    # a fresh line after 10 moves tried times Luby's sequence: 10, 10, 20, 10, 10, 20, 40
    assert lines[:8] == [0, 10, 20, 40, 50, 60, 80, 120]
    assert popped.count(0) == len(lines)
    assert run(3) == (lines, popped) and run(4)[1] != popped


def test_random_restarts_end_when_the_position_has_no_move():
    search = random_restarts(0, lambda entry: [], lambda stack: None, lambda: 0, 10, 4, 0)
    assert list(search) == []


def test_random_restarts_end_when_a_line_searches_every_position():
    """A tree of 15 positions (30 moves to expand them all): the lines of 10 and 20 moves stop
    short, the seventh (40 moves) searches it whole, and the search ends there."""
    seen: set[int] = set()
    tried = [0]
    lines: list[int] = []

    def begin(stack: list[int]) -> None:
        seen.clear()
        seen.add(0)
        lines.append(tried[0])

    def expand(entry: int) -> list[tuple[bool, int]]:
        tried[0] += 2
        fresh = [child for child in (2 * entry + 1, 2 * entry + 2) if child < 15 and child not in seen]
        seen.update(fresh)
        return [(False, child) for child in fresh]

    turns = list(itertools.islice(random_restarts(0, expand, begin, lambda: tried[0], 10, 4, 0), 1000))
    assert len(turns) < 1000 and len(lines) == 7 and len(seen) == 15
