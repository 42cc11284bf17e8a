"""Idiot's Delight decided by the constraint solver (solver/idiots_delight_sat.py): its verdicts and
most cards cleared equal a plain search of every position, its lines replay in the engine, it
decides deals the search of solver/idiots_delight.py leaves unknown, and it keeps to its limits."""

from __future__ import annotations

import random
import time

import pytest

from engine.core import Game
from engine.games import find_game
from solver import idiots_delight
from solver.budget import Budget
from solver.idiots_delight import IdiotsDelight, solve_exact
from solver.idiots_delight_sat import schedule
from solver.sat import Schedule
from tests.solver.models import schedules_against_plain_search
from tests.solver.test_idiots_delight import late_positions, small_positions

KEY = "idiots_delight"


def plan_of(game: Game, seconds: float = 60.0, conflicts: int | None = None, hint: list[str] | None = None) -> Schedule:
    """The solver's `Schedule` for ``game``'s position."""
    model = IdiotsDelight.from_game(game)
    return schedule(model.start[0], model.stock, time.monotonic() + seconds, conflicts, hint or [])


def test_schedules_equal_a_plain_search_of_every_position_and_their_lines_replay():
    rng = random.Random(21)
    cases = late_positions(rng, range(30), 8) + small_positions(rng, 30)
    results = schedules_against_plain_search(cases, plan_of, IdiotsDelight.from_game)
    assert results["won"] >= 10 and results["lost"] >= 10, results


def test_a_hint_is_taken_and_a_line_that_is_not_legal_is_refused():
    game = late_positions(random.Random(3), range(7, 8), 8)[0]
    legal = [str(move) for move in game.legal_moves()]
    hinted = plan_of(game, hint=legal[:1])
    assert hinted.result == plan_of(game).result
    piles = IdiotsDelight.from_game(game).start[0]
    empty = next((f"t{i}>t{j}" for i in range(4) for j in range(4) if i != j and not piles[i]), "t0>t0")
    with pytest.raises(ValueError):
        plan_of(game, hint=[empty])
    with pytest.raises(ValueError):
        schedule([[0], [0], [], []], [], time.monotonic() + 1)
    with pytest.raises(ValueError):
        schedule([[0], [], []], [], time.monotonic() + 1)


def test_the_solver_decides_deals_the_search_alone_leaves_unknown(monkeypatch):
    # deals 1015 and 1018: the module's own search leaves them unknown at the par budget (10 s);
    # the solver alone, with no line to start from, proves them lost at 38 and 45
    monkeypatch.setattr(idiots_delight, "_SEARCH_SHARE", 0.0)
    for seed, most in ((1015, 38), (1018, 45)):
        game = find_game(KEY)(seed)
        verdict = solve_exact(game, Budget(seconds=60))
        assert (verdict.result, verdict.best_cleared) == ("lost", most), (seed, verdict.reason)


def test_the_solver_keeps_to_its_conflicts_and_its_deadline():
    game = find_game(KEY)(1003)
    few = plan_of(game, conflicts=50)
    assert few.result == "unknown" and few.reason == "conflicts" and few.conflicts <= 50 + 64
    began = time.monotonic()
    short = plan_of(game, seconds=0.5)
    assert short.result == "unknown" and short.reason == "time" and time.monotonic() - began < 3.0  # (building: 0.5 s)


@pytest.mark.parametrize("megabytes", [1.0, 64.0])
def test_a_memory_budget_below_what_the_solver_needs_leaves_it_out(megabytes):
    verdict = solve_exact(find_game(KEY)(1003), Budget(seconds=1.0, memory_mb=megabytes))
    assert verdict.result == "unknown" and verdict.reason.startswith("memory budget")
    assert verdict.seconds < 1.5
