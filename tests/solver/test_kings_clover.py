"""The exact King's Clover search (solver/kings_clover.py): its model of the rules is the engine's
move for move, its wins replay on the engine, its verdicts and best clears agree with a plain
search of every position on late positions (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver import Budget
from solver.kings_clover import KingsClover, solve_exact
from tests.solver.models import UNLIMITED, assert_won_within, plain_search

KEY = "kings_clover"
#: Deals the search wins at once (seeds 1000 to 1019: most are won within a second).
QUICK_WINS = (1000, 1002, 1003, 1004)
#: Deals a best-first search alone leaves unknown after 10 s: the random lines of play win 1043 at
#: once, the depth-first search 1048 within seconds.
BEYOND_BEST_FIRST = (1043, 1048)
#: Deals the exhaustive searches and the random lines leave unknown after 10 s (at 26 to 32 cards
#: up), which the random restarts win within about 300,000 and 22,000 moves in all.
BEYOND_EXHAUSTIVE = (1031, 1041)

#: Spades up to the Jack, Hearts up to the Queen, the rest up; the King of Spades lies on the
#: Queen of Spades and no other Queen is left to take it: lost, 50 cards at most.
LOST = (
    "kings_clover - f0:AC2C3C4C5C6C7C8C9CTCJCQCKC f1:AD2D3D4D5D6D7D8D9DTDJDQDKD"
    " f2:AH2H3H4H5H6H7H8H9HTHJHQH f3:AS2S3S4S5S6S7S8S9STSJS t0:QSKS t1:KH"
    + "".join(f" t{i}:" for i in range(2, 16))
    + " redeals=0 reshuffles=0"
)


def line_of_play(seed: int, rng: random.Random, moves: int) -> list[Game]:
    """The positions of a random line of at most ``moves`` moves of deal ``seed`` (a card to a
    foundation chosen three times in four where there is one), from the deal on."""
    game = find_game(KEY)(seed)
    line = [game.copy()]
    while not game.over and len(line) <= moves:
        legal = [str(move) for move in game.legal_moves()]
        ups = [move for move in legal if ">f" in move]
        game.apply(rng.choice(ups if ups and rng.random() < 0.75 else legal))
        line.append(game.copy())
    return line


def won_line(seed: int) -> tuple[Game, list[str]]:
    """Deal ``seed`` and the search's winning line for it."""
    game = find_game(KEY)(seed)
    verdict = solve_exact(game, UNLIMITED)
    assert verdict.result == "won"
    return game, verdict.solution


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = across = 0
    for seed in range(20):
        model = KingsClover.from_game(find_game(KEY)(seed))
        for game in line_of_play(seed, rng, 80):
            state = model.state_of(game)
            legal = [str(move) for move in game.legal_moves()]
            assert model.legal(state) == legal, (seed, game.position())
            assert model.cleared(state) == game.cleared
            for move in legal:
                child = game.copy()
                child.apply(move)
                assert model.play(state, move) == model.state_of(child), (seed, game.position(), move)
                across += ">t" in move
            positions += 1
            # a model read from this position starts where the deal's model stands
            assert KingsClover.from_game(game).legal(KingsClover.from_game(game).start) == legal
    assert positions > 800 and across > 500


def test_wins_replay_on_the_engine():
    for seed in QUICK_WINS:
        game, solution = won_line(seed)
        for move in solution:
            game.apply(move)
        assert game.won


def test_deals_beyond_a_best_first_order_are_won_within_seconds():
    assert_won_within(KEY, BEYOND_BEST_FIRST, Budget(seconds=10), solve_exact)


def test_random_restarts_win_deals_the_other_searches_do_not_reach():
    assert_won_within(KEY, BEYOND_EXHAUSTIVE, Budget(nodes=400_000, seconds=120), solve_exact)


def test_verdicts_and_best_clears_equal_a_plain_search_on_late_positions():
    rng = random.Random(11)
    results = {"won": 0, "lost": 0}
    cases = [Game.from_position(LOST)]
    for seed in QUICK_WINS:
        game, solution = won_line(seed)
        for move in solution[: len(solution) - rng.randrange(6, 10)]:
            game.apply(move)
        for _ in range(rng.randrange(1, 4)):  # a few random moves off the winning line
            legal = list(game.legal_moves())
            if legal:
                game.apply(rng.choice(legal))
        cases.append(game)
    for game in cases:
        verdict = solve_exact(game, UNLIMITED)
        won, best = plain_search(KingsClover.from_game(game))
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        results[verdict.result] += 1
        if verdict.result == "won":
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert results["lost"] >= 1 and results["won"] >= 2
    assert solve_exact(Game.from_position(LOST), UNLIMITED).best_cleared == 50


def test_a_search_from_a_won_position_needs_no_move():
    game, solution = won_line(QUICK_WINS[0])
    for move in solution:
        game.apply(move)
    verdict = solve_exact(game)
    assert (verdict.result, verdict.solution, verdict.best_cleared) == ("won", [], 52)
