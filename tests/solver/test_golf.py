"""The exact Golf search (solver/golf.py): its model of the rules is the engine's move for move,
its wins replay on the engine, its dominance pruning loses nothing against a plain exhaustive
search, and its verdicts agree with the generic search wherever that decides them."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from engine.core import Game, Move
from engine.games import find_game
from server.catalog import public_catalogs
from solver import Budget, solve
from solver.golf import Golf, State, solve_exact
from solver.search import solve_best_first, solve_depth_first
from tests.solver.models import assert_plays_as_engine

UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8)
OPTIONS = [{}, {"queen_on_king": False}]


def catalog_lines() -> list[tuple[int, list[str]]]:
    """The public catalog's winning lines of Golf (seeds/golf.txt): (seed, moves)."""
    path = public_catalogs() / "golf.txt"
    return [
        (int(seed), moves.strip().split(","))
        for seed, _, moves in (line.partition(":") for line in path.read_text().splitlines() if line[:1].isdigit())
    ]


def playout(seed: int, options: dict[str, bool], rng: random.Random, moves: int | None = None) -> list[Game]:
    """The positions of one random line of play of deal ``seed``, from the deal on."""
    game = find_game("golf")(seed, **options)
    line = [game.copy()]
    while not game.over and (moves is None or len(line) <= moves):
        game.apply(rng.choice(list(game.legal_moves())))
        line.append(game.copy())
    return line


@pytest.mark.parametrize("options", OPTIONS, ids=["queen_on_king", "nothing_on_a_king"])
def test_the_model_plays_the_engines_moves_to_the_engines_positions(options):
    rng = random.Random(7)
    positions = 0
    for seed in range(30):
        start = find_game("golf")(seed, **options)
        model = Golf.from_game(start)
        for _ in range(2):
            for game in playout(seed, options, rng):
                # a model read from this position starts where the deal's model stands
                assert_plays_as_engine(model, game, model.state_of, again=Golf.from_game, where=seed)
                positions += 1
    assert positions > 1000


def test_no_wrap_and_the_queen_on_king_option():
    on, off = Golf.from_game(find_game("golf")(1)), Golf.from_game(find_game("golf")(1, queen_on_king=False))
    assert not on.fits(13, 1) and not on.fits(1, 13)  # King and Ace are not neighbours
    assert on.fits(13, 12) and not off.fits(13, 12)  # a Queen on a King: the option
    assert on.fits(12, 13) and off.fits(12, 13)  # a King on a Queen: always
    assert on.fits(0, 7)  # an empty foundation takes any card


def _plain(model: Golf) -> tuple[bool, int]:
    """Every position reachable in ``model``'s own moves, with a visited set and no pruning:
    (some position is won, most cards cleared)."""
    seen = {model.start}
    stack = [model.start]
    won, best = False, model.cleared(model.start)
    while stack:
        state: State = stack.pop()
        best = max(best, model.cleared(state))
        if not any(state[0]):
            won = True
        for move in model.legal(state):
            child = model.play(state, move)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return won, best


@pytest.mark.parametrize("options", OPTIONS, ids=["queen_on_king", "nothing_on_a_king"])
def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay(options):
    rng = random.Random(11)
    verdicts = {"won": 0, "lost": 0}
    cases = [find_game("golf")(seed, **options) for seed in (2, 5)]  # whole deals: quick ones
    for seed in range(30):
        line = playout(seed, options, rng, moves=rng.randrange(12, 30))
        cases.append(line[-1])
    for seed, moves in catalog_lines():  # part of a known winning line, then a random move or two
        game = find_game("golf")(seed, **options)
        prefix = [Move.parse(move) for move in moves[: rng.randrange(20, len(moves) - 3)]]
        for move in prefix:
            if not game.is_legal(move):
                break
            game.apply(move)
        else:
            for _ in range(rng.randrange(3)):
                if game.legal_moves():
                    game.apply(rng.choice(list(game.legal_moves())))
            cases.append(game)
        # (a line that plays a Queen on a King is not a line of the other option's game)
    for game in cases:
        verdict = solve_exact(game, UNLIMITED)
        won, best = _plain(Golf.from_game(game))
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        verdicts[verdict.result] += 1
        if verdict.result == "won":
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert verdicts["won"] >= (5 if not options else 1) and verdicts["lost"] >= 5


def test_solve_uses_the_exact_search_for_golf_within_its_budget():
    verdict = solve(find_game("golf")(12))
    assert verdict.result == "won" and verdict.positions > 0
    replay = find_game("golf")(12)
    for move in verdict.solution:
        replay.apply(move)
    assert replay.won
    lost = solve(find_game("golf")(5))
    assert (lost.result, lost.best_cleared) == ("lost", 20)
    cut = solve(find_game("golf")(3), Budget(nodes=500))
    assert cut.result == "unknown" and "node budget" in cut.reason and cut.nodes == 500
    assert cut.best_cleared < cut.total


def test_verdicts_agree_with_the_generic_search_where_it_decides():
    rng = random.Random(3)
    budget = Budget(nodes=20_000, seconds=30)
    games = [find_game("golf")(12), find_game("golf")(5)]
    for seed in range(30, 45):
        games.append(playout(seed, {}, rng, moves=rng.randrange(18, 30))[-1])
    decided = 0
    for game in games:
        exact = solve_exact(game, UNLIMITED)
        for search in (solve_best_first, solve_depth_first):
            generic = search(game, budget)
            if generic.result == "unknown":
                continue
            decided += 1
            assert generic.result == exact.result, game.position()
            if generic.result == "lost":
                assert generic.best_cleared == exact.best_cleared, game.position()
    assert decided >= 10


def test_arena_solve_takes_a_rule_option():
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "solve", "golf", "5", "--option", "queen_on_king=false", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "lost"
    bad = subprocess.run(
        [sys.executable, "-m", "client.cli", "solve", "golf", "5", "--option", "jokers=true"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "jokers" in bad.stdout
