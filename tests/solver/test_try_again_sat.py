"""Try Again decided by the constraint solver (solver/try_again_sat.py): its verdicts and most
cards cleared equal a plain search of every position, its lines replay in the engine, it wins
deals the search of solver/try_again.py leaves undecided, and it keeps to its limits."""

from __future__ import annotations

import random
import time

import pytest

from engine.core import Game
from engine.games import find_game
from solver import try_again
from solver.search import Budget
from solver.try_again import TryAgain, solve_exact
from solver.try_again_sat import schedule
from tests.solver.models import schedules_against_plain_search
from tests.solver.test_try_again import line_of_play, small_positions

KEY = "try_again"


def plan_of(game: Game, seconds: float = 60.0, conflicts: int | None = None):
    """The solver's `Schedule` for ``game``'s position."""
    model = TryAgain.from_game(game)
    piles, heights, turned = model.start
    return schedule(model.turn[turned:], model.dealt + turned, piles, heights, time.monotonic() + seconds, conflicts)


def test_schedules_equal_a_plain_search_of_every_position_and_their_lines_replay():
    # late positions of random play (some in the middle of a round) and positions laid out at
    # random (foundations part built, cards on the piles and to turn)
    rng = random.Random(13)
    cases = [next(g for g in line_of_play(seed, rng) if len(g.piles["s"].cards) <= 2 or g.over) for seed in range(30)]
    cases += small_positions(rng, 40)
    results = schedules_against_plain_search(cases, plan_of, TryAgain.from_game)
    assert results["won"] >= 10 and results["lost"] >= 20, results


def test_the_solver_wins_deals_the_search_alone_leaves_undecided(monkeypatch):
    # deals 1005, 1011 and 1012: the module's own search finds no win within 60 s (its docstring)
    monkeypatch.setattr(try_again, "_SEARCH_SHARE", 0.0)  # the solver alone
    for seed in (1005, 1011, 1012):
        game = find_game(KEY)(seed)
        before = game.position()
        verdict = solve_exact(game, Budget(seconds=60))
        assert verdict.result == "won", (seed, verdict.reason)
        assert game.position() == before
        for move in verdict.solution:
            game.apply(move)
        assert game.won, seed


def test_the_solver_keeps_to_its_conflicts_and_its_deadline():
    game = find_game(KEY)(1016)  # a deal it does not decide at once
    few = plan_of(game, conflicts=50)
    assert (few.result, few.reason) == ("unknown", "conflicts") and few.conflicts <= 50 + 64
    began = time.monotonic()
    short = plan_of(game, seconds=0.5)
    assert short.result == "unknown" and short.reason == "time" and time.monotonic() - began < 1.5


@pytest.mark.parametrize("megabytes", [1.0, 64.0])
def test_a_memory_budget_below_what_the_solver_needs_leaves_it_out(megabytes):
    verdict = solve_exact(find_game(KEY)(1016), Budget(seconds=1.0, memory_mb=megabytes))
    assert verdict.result == "unknown" and verdict.reason == f"memory budget ({megabytes:g} MB) spent"
    assert verdict.seconds < 1.5


@pytest.mark.parametrize(
    ("piles", "heights", "turn", "words"),
    [
        ([[], [], []], [0, 0, 0, 0], [1], "four waste piles"),
        ([[], [], [], []], [0, 0, 0, 14], [1], "0 to 13 cards"),
        ([[], [], [], [0]], [0, 0, 0, 0], [1], "ranks run from 1 to 13"),
        ([[], [], [], []], [0, 0, 0, 0], [14], "ranks run from 1 to 13"),
    ],
)
def test_a_position_that_is_not_try_agains_is_refused(piles, heights, turn, words):
    with pytest.raises(ValueError, match=words):
        schedule(turn, 0, piles, heights, time.monotonic() + 1)
