"""The exact Baroness search (solver/baroness.py): its model of the rules is the engine's move for
move, its wins replay on the engine, its King rule loses nothing against a plain exhaustive
search, its verdicts agree with the generic search (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.games import find_game
from solver.baroness import Baroness, solve_exact
from solver.search import Budget, solve_depth_first
from tests.solver.models import UNLIMITED, assert_plays_as_engine, plain_search, playout


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(7)
    positions = middle = 0
    for seed in range(40):
        model = Baroness.from_game(find_game("baroness")(seed))
        for _ in range(2):
            for game in playout("baroness", seed, rng):
                # a model read from this position lists the same moves
                legal = assert_plays_as_engine(model, game, model.state_of, again=Baroness.from_game, where=seed)
                middle += sum("t5" in move or "t6" in move for move in legal)
                positions += 1
    assert positions > 1000 and middle > 0  # the last two cards' piles pair too


def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay():
    rng = random.Random(11)
    cases = [find_game("baroness")(seed) for seed in range(60)]
    for seed in range(60, 90):
        cases.append(playout("baroness", seed, rng, moves=rng.randrange(4, 20))[-1])
    verdicts = {"won": 0, "lost": 0}
    for game in cases:
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = plain_search(Baroness.from_game(game))
        assert verdict.result == ("won" if won else "lost"), before
        assert verdict.best_cleared == best, before
        verdicts[verdict.result] += 1
        if won:
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert verdicts["won"] >= 2 and verdicts["lost"] >= 20


def test_verdicts_agree_with_the_generic_search_where_it_decides():
    decided = 0
    for seed in range(8):
        game = find_game("baroness")(seed)
        generic = solve_depth_first(game, Budget(nodes=20_000, seconds=30))
        if generic.result == "unknown":
            continue
        exact = solve_exact(game, UNLIMITED)
        decided += 1
        assert (generic.result, generic.best_cleared) == (exact.result, exact.best_cleared), seed
    assert decided >= 4


def test_a_won_position_and_another_game():
    game = find_game("baroness")(11)
    verdict = solve_exact(game, UNLIMITED)
    assert verdict.result == "won"
    for move in verdict.solution:
        game.apply(move)
    assert game.won and solve_exact(game).result == "won"
    try:
        solve_exact(find_game("golf")(1))
    except ValueError as error:
        assert "not a baroness game" in str(error)
    else:
        raise AssertionError("a Golf game was searched as Baroness")
