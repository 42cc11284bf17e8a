"""The exact Strategy search (solver/strategy.py): its model of the rules is the engine's move for
move, its wins replay on the engine, its verdicts and best clears agree with a plain search of
every position on late positions (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver import Budget
from solver.strategy import Strategy, solve_exact
from tests.solver.models import UNLIMITED, assert_plays_as_engine, assert_verdict, plain_search, playout


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = 0
    for seed in range(20):
        model = Strategy.from_game(find_game("strategy")(seed))
        for game in playout("strategy", seed, rng):
            assert_plays_as_engine(model, game, model.state_of, again=Strategy.from_game, where=seed)
            positions += 1
    assert positions > 1000


def _late(rng: random.Random, seed: int, left: int) -> Game:
    """A position of deal ``seed`` with ``left`` stock cards still to place (``w``'s included):
    along the search's own win of the deal (when it has one) every other time, else at random."""
    game = find_game("strategy")(seed)
    line = solve_exact(game, Budget(seconds=30)).solution if rng.random() < 0.5 else []
    while len(game.piles["s"].cards) + len(game.piles["w"].cards) > left:
        game.apply(line.pop(0) if line else rng.choice(list(game.legal_moves())))
    return game


def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay():
    rng = random.Random(13)
    verdicts = {"won": 0, "lost": 0}
    for seed in range(45):
        game = _late(rng, seed, rng.randrange(0, 6))
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = plain_search(Strategy.from_game(game))
        assert_verdict(verdict, game, won, best, before)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 5, verdicts


def test_whole_deals_are_won_with_lines_the_engine_replays():
    won = 0
    for seed in range(1000, 1010):
        game = find_game("strategy")(seed)
        verdict = solve_exact(game, Budget(seconds=30))
        if verdict.result == "won":
            won += 1
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won, seed
    assert won >= 8
