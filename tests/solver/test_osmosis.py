"""The exact Osmosis search (solver/osmosis.py): its model of the rules is the engine's move for
move, its wins replay on the engine, its pruning loses nothing against a plain search of every
position (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver import Budget
from solver.osmosis import Osmosis, State, solve_exact
from solver.search import solve_depth_first
from tests.solver.models import assert_plays_as_engine, assert_verdict, playout

UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8, memory_mb=10**5)


def line_of_play(seed: int, rng: random.Random, moves: int) -> list[Game]:
    """The positions of a random line of ``moves`` moves of deal ``seed`` (a card to a
    foundation, every move but deal and redeal, chosen three times in four where there is one),
    from the deal on."""
    return playout("osmosis", seed, rng, moves, lean=0.75)


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = redeals = 0
    for seed in range(25):
        model = Osmosis.from_game(find_game("osmosis")(seed))
        for game in line_of_play(seed, rng, 120):
            # a model read from this position starts where the deal's model stands
            legal = assert_plays_as_engine(model, game, model.state_of, again=Osmosis.from_game, where=seed)
            redeals += "redeal" in legal
            positions += 1
    assert positions > 1500 and redeals > 20


def test_the_rules_the_model_reads():
    model = Osmosis.from_game(find_game("osmosis")(1))  # f0 holds the Eight of Diamonds
    eight_d, four_d = 1 * 13 + 7, 1 * 13 + 3
    eight_s, jack_c, jack_d = 3 * 13 + 7, 0 * 13 + 10, 1 * 13 + 10
    state = model.start
    assert model.homes(state, four_d) == [0]  # f0 takes any card of its suit
    assert model.homes(state, eight_s) == [1, 2, 3]  # a base card starts any empty foundation
    assert model.homes(state, jack_c) == []  # no Club foundation, no Jack on f0
    clubs = (state[0] | 1 << (0 * 13 + 7), state[1], (1, 0, -1, -1))  # the Eight of Clubs up on f1
    assert model.homes(clubs, jack_c) == []  # the Jack of Diamonds is not on f0 yet
    both = (clubs[0] | 1 << jack_d, clubs[1], clubs[2])
    assert model.homes(both, jack_c) == [1]
    assert model.start[0] == 1 << eight_d


def _plain(model: Osmosis) -> tuple[bool, int]:
    """The positions reachable in ``model``'s own moves (all of them, no pruning; positions that
    differ only in which empty foundation a suit went to are one), with a visited set, until one
    is won: (some position is won, most cards cleared)."""
    seen = {model.start[:2]}
    stack = [model.start]
    best = model.cleared(model.start)
    while stack:
        state: State = stack.pop()
        best = max(best, model.cleared(state))
        if best == model.total:
            return True, best
        for move in model.legal(state):
            child = model.play(state, move)
            if child[:2] not in seen:
                seen.add(child[:2])
                stack.append(child)
    return False, best


def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay():
    rng = random.Random(13)
    cases = [find_game("osmosis")(seed) for seed in (3, 6, 15)]  # whole deals lost early
    for seed in range(40):
        line = line_of_play(seed, rng, rng.randrange(40, 90))
        cases.append(line[-1])
    verdicts = {"won": 0, "lost": 0}
    for game in cases:
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        if verdict.result == "lost" and verdict.positions > 300:
            continue  # (the plain search would take too long)
        won, best = _plain(Osmosis.from_game(game))
        assert_verdict(verdict, game, won, best, before)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 5, verdicts
    assert sum(verdicts.values()) >= 20


def test_whole_deals_won_replay_and_agree_with_the_generic_search():
    won = decided = 0
    for seed in (0, 2, 3, 6, 7, 15):
        game = find_game("osmosis")(seed)
        verdict = solve_exact(game, UNLIMITED)
        if verdict.result == "won":
            won += 1
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won, seed
        generic = solve_depth_first(game, Budget(nodes=2_000, seconds=20))
        if generic.result != "unknown":
            decided += 1
            assert generic.result == verdict.result, seed
            if generic.result == "lost":
                assert generic.best_cleared == verdict.best_cleared, seed
    assert won >= 3 and decided >= 3
