"""The exact Pyramid search (solver/pyramid.py): its model of the rules is the engine's move for
move, its wins replay on the engine, its King rule loses nothing against a plain exhaustive
search, its verdicts agree with the generic search (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.games import find_game
from solver.pyramid import Pyramid, solve_exact
from solver.search import Budget, solve_depth_first
from tests.solver.models import UNLIMITED, assert_plays_as_engine, plain_search, playout


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(7)
    positions = pairs_with_cover = 0
    for seed in range(40):
        model = Pyramid.from_game(find_game("pyramid")(seed))
        for _ in range(2):
            for game in playout("pyramid", seed, rng):
                # a model read from this position lists the same moves
                legal = assert_plays_as_engine(model, game, model.state_of, again=Pyramid.from_game, where=seed)
                for move in legal:
                    if move[0] == "r" and move.split(">")[1][0] == "r":
                        src, dst = (int(pid[1:]) for pid in move.split(">"))
                        pairs_with_cover += abs(src - dst) > 1 and src // 7 != dst // 7
                positions += 1
    assert positions > 1000 and pairs_with_cover > 0


def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay():
    rng = random.Random(11)
    cases = [find_game("pyramid")(seed) for seed in range(60)]
    for seed in range(60, 90):
        cases.append(playout("pyramid", seed, rng, moves=rng.randrange(4, 20))[-1])
    verdicts = {"won": 0, "lost": 0}
    for game in cases:
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = plain_search(Pyramid.from_game(game))
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
        game = find_game("pyramid")(seed)
        generic = solve_depth_first(game, Budget(nodes=20_000, seconds=30))
        if generic.result == "unknown":
            continue
        exact = solve_exact(game, UNLIMITED)
        decided += 1
        assert (generic.result, generic.best_cleared) == (exact.result, exact.best_cleared), seed
    assert decided >= 4


def test_a_won_position_and_another_game():
    game = find_game("pyramid")(8)
    verdict = solve_exact(game, UNLIMITED)
    assert verdict.result == "won"
    for move in verdict.solution:
        game.apply(move)
    assert game.won and solve_exact(game).result == "won"
    try:
        solve_exact(find_game("golf")(1))
    except ValueError as error:
        assert "not a pyramid game" in str(error)
    else:
        raise AssertionError("a Golf game was searched as Pyramid")
