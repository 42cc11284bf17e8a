"""The exact Calculation search (solver/calculation.py): its model of the rules is the engine's
move for move, its wins replay on the engine, its safe moves lose nothing against a plain search
of every position (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random
import time

from engine.games import find_game
from solver import Budget
from solver.calculation import Calculation, _beam, _copy_needs, _cost, _settle, _stuck, _tails, solve_exact
from tests.solver.models import UNLIMITED, assert_verdict, assert_won_within, plain_search, playout


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = from_waste = 0
    for seed in range(25):
        model = Calculation.from_game(find_game("calculation")(seed))
        for game in playout("calculation", seed, rng):
            state = model.state_of(game)
            legal = [str(move) for move in game.legal_moves()]
            assert model.legal(state) == legal, (seed, game.position())
            assert model.cleared(state) == game.cleared
            for move in legal:
                child = game.copy()
                child.apply(move)
                assert model.play(state, move) == model.state_of(child), (seed, game.position(), move)
                from_waste += move[0] == "t"
            positions += 1
            # a model read from this position starts where the deal's model stands
            again = Calculation.from_game(game)
            assert again.legal(again.start) == legal
    assert positions > 1000 and from_waste > 100


def late(seed: int, rng: random.Random, left: int) -> object:
    """A position of deal ``seed`` after a random line of play (a card to a foundation chosen
    where there is one) with ``left`` cards still to turn."""
    game = find_game("calculation")(seed)
    while len(game.piles["s"].cards) + len(game.piles["w"].cards) > left and not game.over:
        legal = [str(move) for move in game.legal_moves()]
        ups = [move for move in legal if ">f" in move]
        game.apply(rng.choice(ups if ups and rng.random() < 0.9 else legal))
    return game


def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay():
    rng = random.Random(13)
    cases = [late(seed, rng, rng.randrange(2, 5)) for seed in range(20)]
    for seed in (1003, 1006, 1008, 1047):  # part of a winning line, then a random move or two
        game = find_game("calculation")(seed)
        line = solve_exact(game, Budget(seconds=20)).solution  # won within seconds
        for move in line:
            if len(game.piles["s"].cards) + len(game.piles["w"].cards) <= 5:
                break
            game.apply(move)
        for _ in range(4):
            position = game.copy()
            for _ in range(rng.randrange(3)):
                if position.legal_moves():
                    position.apply(rng.choice(list(position.legal_moves())))
            cases.append(position)
    verdicts = {"won": 0, "lost": 0}
    for game in cases:
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = plain_search(Calculation.from_game(game))
        assert_verdict(verdict, game, won, best, before)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 5, verdicts


def test_whole_deals_won_replay():
    assert_won_within("calculation", (1003, 1006, 1008), Budget(seconds=30), solve_exact)


def test_a_beam_wide_enough_to_keep_every_position_equals_a_plain_search():
    rng = random.Random(17)
    verdicts = {"won": 0, "lost": 0}
    cases = [late(seed, rng, rng.randrange(2, 5)) for seed in range(12)]
    for seed in (1006, 1008, 1012, 1047):  # part of a winning line, then a random move or two
        game = find_game("calculation")(seed)
        for move in solve_exact(game, Budget(seconds=20)).solution:  # won within seconds
            if len(game.piles["s"].cards) + len(game.piles["w"].cards) <= 4:
                break
            game.apply(move)
        for _ in range(3):
            position = game.copy()
            for _ in range(rng.randrange(3)):
                if position.legal_moves():
                    position.apply(rng.choice(list(position.legal_moves())))
            cases.append(position)
    for game in cases:
        model = Calculation.from_game(game)
        lengths = list(model.start[0])
        waste = [list(pile) for pile in model.start[1]]
        turned, moves = _settle(lengths, waste, model.start[2], model.stock)
        won, best = plain_search(model)
        budget = Budget(nodes=10**9, seconds=60, positions=10**8)
        # the first pass leaves out what cannot win: its verdict is exact
        counter = [0, 0, sum(lengths)]
        first, complete = _beam(model, lengths, waste, turned, 10**6, budget, time.monotonic() + 60, counter, True)
        assert complete and (first is not None) == won, game.position()
        # the second leaves out what cannot clear more than the best so far: its best clear is exact
        counter = [0, 0, sum(lengths)]
        line, complete = _beam(model, lengths, waste, turned, 10**6, budget, time.monotonic() + 60, counter)
        assert complete and (line is not None) == won, game.position()
        assert (model.total if won else counter[2]) == best, game.position()
        verdicts["won" if won else "lost"] += 1
        if won:
            replay = game.copy()
            for move in moves + line:
                replay.apply(move)
            assert replay.won, game.position()
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 5, verdicts


def test_the_beam_wins_deals_the_best_first_search_does_not():
    for seed in (1005, 1011, 1015, 1038):  # not won in 10 s by the best-first search alone
        game = find_game("calculation")(seed)
        verdict = solve_exact(game, Budget(seconds=5))
        assert verdict.result == "won", seed
        replay = game.copy()
        for move in verdict.solution:
            replay.apply(move)
        assert replay.won, seed


def test_each_copy_of_a_rank_takes_its_own_place_on_the_foundations():
    # at the start the foundations take a 2 next (f1), then after 1, 4 and 6 cards (f0, f2, f3);
    # a 3 next (f2), then after 2, 3 and 7 cards
    assert _copy_needs((0, 0, 0, 0), [[2, 3, 2, 2], [], [], []]) == [[4, 0, 1, 0], [], [], []]
    assert _copy_needs((0, 0, 0, 0), [[2, 2], [2], [], []]) == [[4, 0], [1], [], []]
    # the 3 lies on a 2 needed after it: one blocking pair (by the rank's need alone, none)
    assert _cost((0, 0, 0, 0), [[2, 3, 2, 2], [], [], []]) == 10
    assert _cost((1, 0, 0, 0), [[], [], [], []]) == -10


def test_a_narrow_beam_wins_deals_that_the_need_of_the_rank_alone_did_not():
    # with the rank's need (each copy counted as needed as soon as the first) none of these
    # passes won, nor did one of width 512
    for seed, width in ((1000, 32), (1038, 32), (1011, 128), (1024, 128)):
        game = find_game("calculation")(seed)
        model = Calculation.from_game(game)
        lengths = list(model.start[0])
        waste = [list(pile) for pile in model.start[1]]
        turned, moves = _settle(lengths, waste, model.start[2], model.stock)
        budget = Budget(seconds=60)
        line, _ = _beam(model, lengths, waste, turned, width, budget, time.monotonic() + 60, [0, 0, 0], True)
        assert line is not None, seed
        replay = game.copy()
        for move in moves + line:
            replay.apply(move)
        assert replay.won, seed


def test_stuck_cards_never_go_up():
    """`_stuck` counts cards that no line puts up: a plain search of every position clears at
    most the others; on these late positions it finds stuck cards often, and its count is the
    exact shortfall on some."""
    rng = random.Random(23)
    found = exact = 0
    for seed in range(50):
        game = late(seed, rng, rng.randrange(2, 6))
        model = Calculation.from_game(game)
        lengths, waste, turned = model.start
        stuck = _stuck(lengths, waste, _tails(model.stock)[turned])
        _, best = plain_search(model)
        assert best <= model.total - stuck, (game.position(), stuck, best)
        found += stuck > 0
        exact += stuck > 0 and best == model.total - stuck
    assert found >= 5 and exact >= 1, (found, exact)
