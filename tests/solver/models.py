"""What the tests of the exact searches (solver/<game>.py) share: random lines of play on the
engine, and a plain search of every position a model's own moves reach, with no pruning, to
hold each exact search's verdicts and best clears against."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable
from typing import Protocol

from engine.core import Game
from engine.games import find_game
from solver import Budget, Verdict
from solver.sat import Schedule

#: A budget no test position comes near.
UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8)


class Model(Protocol):
    """A game's rules as plain values: a start state, its moves, the state after one, cards cleared."""

    start: Hashable
    total: int

    def legal(self, state: Hashable, /) -> list[str]: ...

    def play(self, state: Hashable, move: str, /) -> Hashable: ...

    def cleared(self, state: Hashable, /) -> int: ...


def playout(key: str, seed: int, rng: random.Random, moves: int | None = None, lean: float = 0.0) -> list[Game]:
    """The positions of one random line of play of deal ``seed`` of game ``key``, from the deal
    on, until the game is over or ``moves`` moves were played. With ``lean`` (a share, 0 to 1),
    each move is chosen among the moves other than ``deal`` and ``redeal`` that often where there
    are any, so that the line goes somewhere (one more draw of ``rng`` a move); at 0, among all
    legal moves."""
    game = find_game(key)(seed)
    line = [game.copy()]
    while not game.over and (moves is None or len(line) <= moves):
        legal = list(game.legal_moves())
        if lean:
            plays = [move for move in legal if str(move) not in ("deal", "redeal")]
            if plays and rng.random() < lean:
                legal = plays
        game.apply(rng.choice(legal))
        line.append(game.copy())
    return line


def assert_plays_as_engine(
    model: Model,
    game: Game,
    read: Callable[[Game], Hashable],
    again: Callable[[Game], Model] | None = None,
    where: object = None,
) -> list[str]:
    """Assert that ``model`` plays ``game``'s position as the engine does: at ``read(game)`` (the
    model's state of a position) it lists the engine's legal moves, in the engine's order, and has
    as many cards cleared; each move played on that state gives ``read`` of the engine's position
    after the move. With ``again`` (a model made from a `Game`), the model it makes of ``game``
    starts with the same moves and as many cards cleared. Messages name ``game``'s position,
    after ``where`` (e.g. the seed) where one is given. Returns the legal moves as strings.
    Raises AssertionError at the first difference."""

    def context(*more: object) -> tuple[object, ...]:
        return (game.position(), *more) if where is None else (where, game.position(), *more)

    state = read(game)
    legal = [str(move) for move in game.legal_moves()]
    assert model.legal(state) == legal, context()
    assert model.cleared(state) == game.cleared, context()
    for move in legal:
        child = game.copy()
        child.apply(move)
        assert model.play(state, move) == read(child), context(move)
    if again is not None:
        here = again(game)
        assert here.legal(here.start) == legal, context("again")
        assert here.cleared(here.start) == game.cleared, context("again")
    return legal


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


def assert_won_within(key: str, seeds: Iterable[int], budget: Budget, solve: Callable[[Game, Budget], Verdict]) -> None:
    """Assert that ``solve`` wins each deal ``seed`` of game ``key`` within ``budget`` and that the
    engine replays its line to ``won``."""
    for seed in seeds:
        game = find_game(key)(seed)
        verdict = solve(game, budget)
        assert verdict.result == "won", (seed, verdict.reason)
        for move in verdict.solution:
            game.apply(move)
        assert game.won, seed


def assert_verdict(verdict: Verdict, game: Game, won: bool, best: int, where: object = None) -> None:
    """Assert that ``verdict``, an exact search's of ``game``, says what a plain search found:
    won when ``won`` (with a line the engine replays from ``game`` to ``won``), else lost, and
    ``best`` cards at most cleared. ``where``: context for the assertion messages."""
    assert verdict.result == ("won" if won else "lost"), where
    assert verdict.best_cleared == best, where
    if won:
        replay = game.copy()
        for move in verdict.solution:
            replay.apply(move)
        assert replay.won, where


def schedules_against_plain_search(
    cases: Iterable[Game], plan_of: Callable[[Game], Schedule], model_of: Callable[[Game], Model]
) -> dict[str, int]:
    """Assert, for each position of ``cases``, that the constraint solver's `Schedule`
    (``plan_of``) has the verdict and the most cards cleared of a plain search of every position
    of ``model_of``'s model, and that its line replays in the engine to that; the count of each
    verdict."""
    results = {"won": 0, "lost": 0}
    for game in cases:
        plan = plan_of(game)
        won, best = plain_search(model_of(game))
        where = game.position()
        assert plan.result == ("won" if won else "lost"), where
        assert game.cleared + plan.cleared == best, where
        replay = game.copy()
        for move in plan.line:
            replay.apply(move)
        assert replay.cleared == best and replay.won == won, where
        results[plan.result] += 1
    return results
