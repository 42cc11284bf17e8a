"""What the tests of the exact searches (solver/<game>.py) share: random lines of play on the
engine, and a plain search of every position a model's own moves reach, with no pruning, to
hold each exact search's verdicts and best clears against."""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Protocol

from engine.core import Game
from engine.games import find_game
from solver import Budget

#: A budget no test position comes near.
UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8)


class Model(Protocol):
    """A game's rules as plain values: a start state, its moves, the state after one, cards cleared."""

    start: Hashable
    total: int

    def legal(self, state: Hashable, /) -> list[str]: ...

    def play(self, state: Hashable, move: str, /) -> Hashable: ...

    def cleared(self, state: Hashable, /) -> int: ...


def playout(key: str, seed: int, rng: random.Random, moves: int | None = None) -> list[Game]:
    """The positions of one random line of play of deal ``seed`` of game ``key``, from the deal
    on, until the game is over or ``moves`` moves were played."""
    game = find_game(key)(seed)
    line = [game.copy()]
    while not game.over and (moves is None or len(line) <= moves):
        game.apply(rng.choice(list(game.legal_moves())))
        line.append(game.copy())
    return line


def plain_search(model: Model) -> tuple[bool, int]:
    """Every state reachable in ``model``'s own moves, with a visited set and no pruning:
    (some state is won, the most cards cleared in any)."""
    seen = {model.start}
    stack = [model.start]
    best = model.cleared(model.start)
    while stack:
        state = stack.pop()
        best = max(best, model.cleared(state))
        for move in model.legal(state):
            child = model.play(state, move)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return best == model.total, best
