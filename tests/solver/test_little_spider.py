"""The exact Little Spider search (solver/little_spider.py): its model of the rules is the
engine's move for move, its wins replay on the engine, its verdicts and best clears agree with a
plain search of every position on late positions, its memory budget holds what it counts
(its other budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random
import tracemalloc

from engine.core import Game
from engine.games import find_game
from solver import Budget
from solver.little_spider import LittleSpider, solve_exact
from tests.solver.models import UNLIMITED, assert_won_within, plain_search

KEY = "little_spider"
#: Deals the search wins within a second (seeds 1000 to 1009).
QUICK_WINS = (1001, 1008)
#: Deals a best-first search alone leaves unknown after 10 s (1004 stops there at 15 cards up),
#: which the depth-first searches from the ends of the dealing win within seconds.
BEYOND_BEST_FIRST = (1004, 1009, 1011)
#: Deals both exhaustive searches leave unknown after 10 s (at 50 cards up), which the random
#: restarts win within about 50,000 and 100,000 moves in all (1002 only with lines of tens of
#: thousands of moves, which Luby's sequence reaches).
BEYOND_EXHAUSTIVE = (1002, 1039)

#: Red Aces up, black Kings down; Hearts up to the Two, Diamonds to the Eight, the rest up. The
#: Five of Hearts lies on the Three of Hearts and no Four or Six is left to take it: lost, once
#: the Nine of Diamonds is up, with 37 cards up.
LOST = (
    "little_spider - f0:AH2H f1:AD2D3D4D5D6D7D8D f2:KSQSJSTS9S8S7S6S5S4S3S2SAS"
    " f3:KCQCJCTC9C8C7C6C5C4C3C2CAC t0:3H5H t1:9D t2: t3: t4: t5: t6: t7: s: redeals=0"
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
    positions = across = deals = 0
    for seed in range(25):
        model = LittleSpider.from_game(find_game(KEY)(seed))
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
                deals += move == "deal"
            positions += 1
            # a model read from this position starts where the deal's model stands
            assert LittleSpider.from_game(game).legal(LittleSpider.from_game(game).start) == legal
    assert positions > 400 and across > 300 and deals > 100


def test_the_first_ace_or_king_up_chooses_the_colours():
    model = LittleSpider.from_game(find_game(KEY)(1))
    spades, hearts = 3, 2  # engine suit numbers: clubs, diamonds, hearts, spades
    assert model.colour[spades] != model.colour[hearts]
    up = (0, 0, 0, 0)
    assert model.wanted(up, 0, spades) == (1, 13)  # nothing up yet: an Ace or a King
    black_aces = 1 + model.colour[spades]
    assert model.wanted(up, black_aces, spades) == (1,)
    assert model.wanted(up, black_aces, hearts) == (13,)
    assert model.wanted((0, 0, 3, 0), black_aces, hearts) == (10,)


def test_a_memory_budget_holds_as_many_positions_as_fit_and_no_more_bytes_than_it_allows():
    # deal 1000 is not decided within 3 MB: the memory budget ends the search
    tracemalloc.start()
    try:
        verdict = solve_exact(find_game(KEY)(1000), Budget(seconds=60, memory_mb=3))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert verdict.reason == "memory budget (3 MB) spent"
    assert peak < 3 * 2**20, f"peak {peak:,} bytes"
    # a kept key costs 150 bytes as counted (its dict slot holds only its parent's key), a frontier
    # entry 600: about 11,000 positions fit (5,500 when a key with its move back counted 300)
    assert verdict.positions > 9_000


def test_wins_replay_on_the_engine():
    for seed in QUICK_WINS:
        game, solution = won_line(seed)
        for move in solution:
            game.apply(move)
        assert game.won


def test_deals_beyond_a_best_first_order_are_won_within_seconds():
    assert_won_within(KEY, BEYOND_BEST_FIRST, Budget(seconds=10), solve_exact)


def test_random_restarts_win_deals_the_exhaustive_searches_do_not_reach():
    assert_won_within(KEY, BEYOND_EXHAUSTIVE, Budget(nodes=200_000, seconds=120), solve_exact)


def test_verdicts_and_best_clears_equal_a_plain_search_on_late_positions():
    rng = random.Random(11)
    results = {"won": 0, "lost": 0}
    cases = [Game.from_position(LOST)]
    for seed in QUICK_WINS:
        for _ in range(2):
            game, solution = won_line(seed)
            for move in solution[: len(solution) - rng.randrange(5, 9)]:
                game.apply(move)
            for _ in range(rng.randrange(1, 4)):  # a few random moves off the winning line
                legal = list(game.legal_moves())
                if legal:
                    game.apply(rng.choice(legal))
            cases.append(game)
    for game in cases:
        verdict = solve_exact(game, UNLIMITED)
        won, best = plain_search(LittleSpider.from_game(game))
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        results[verdict.result] += 1
        if verdict.result == "won":
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert results["lost"] >= 1 and results["won"] >= 2
    assert solve_exact(Game.from_position(LOST), UNLIMITED).best_cleared == 37
