"""The exact Perpetual Motion search (solver/perpetual_motion.py): its model of the rules is the
engine's move for move (redeals included), its wins replay on the engine, its verdicts and best
clears agree with a plain exhaustive search and with the generic search (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver.perpetual_motion import PerpetualMotion, solve_exact
from solver.search import Budget, solve_depth_first
from tests.solver.models import UNLIMITED, assert_plays_as_engine, plain_search


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(7)
    positions = redeals = 0
    for seed in range(12):
        game = find_game("perpetual_motion")(seed)
        model = PerpetualMotion.from_game(game)
        for _ in range(250):
            legal = assert_plays_as_engine(model, game, model.state_of, again=PerpetualMotion.from_game, where=seed)
            positions += 1
            if not legal:
                break
            move = rng.choice(legal)
            redeals += move == "redeal"
            game.apply(move)
    assert positions > 1500 and redeals > 20


def _small(rng: random.Random) -> Game:
    """A position with a few cards in play (the rest on the foundation), spread at random over
    the piles and the stock: some can be won, some cannot."""
    deck = [card.code for pile in find_game("perpetual_motion")(0).piles.values() for card in pile.cards]
    ranks = rng.sample("A23456789TJQK", 2)
    keep = [code for code in deck if code[0] in ranks and rng.random() < 0.8]
    rest = [code for code in deck if code not in keep]
    rng.shuffle(keep)
    cuts = [0, *sorted(rng.randrange(len(keep) + 1) for _ in range(4)), len(keep)]
    parts = [keep[cuts[k] : cuts[k + 1]] for k in range(5)]
    piles = " ".join(f"t{k}:{''.join(parts[k])}" for k in range(4))
    return Game.from_position(f"perpetual_motion - f0:{''.join(rest)} {piles} s:{''.join(parts[4]).lower()} redeals=0")


def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay():
    rng = random.Random(11)
    cases = [_small(rng) for _ in range(60)]  # (a whole deal reaches far too many positions)
    verdicts = {"won": 0, "lost": 0}
    for game in cases:
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = plain_search(PerpetualMotion.from_game(game))
        assert verdict.result == ("won" if won else "lost"), before
        assert verdict.best_cleared == best, before
        verdicts[verdict.result] += 1
        if won:
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert verdicts["won"] >= 10 and verdicts["lost"] >= 10


def test_whole_deals_are_won_and_agree_with_the_generic_search():
    for seed in range(20):
        verdict = solve_exact(find_game("perpetual_motion")(seed), UNLIMITED)
        assert verdict.result == "won", seed
        replay = find_game("perpetual_motion")(seed)
        for move in verdict.solution:
            replay.apply(move)
        assert replay.won
    # the generic search counts redeals in its positions, so it proves nothing lost here: compare wins
    decided = 0
    for seed in range(4):
        generic = solve_depth_first(find_game("perpetual_motion")(seed), Budget(nodes=4_000, seconds=5))
        if generic.result != "unknown":
            decided += 1
            assert generic.result == "won", seed
    assert decided >= 2


def test_a_won_position_and_another_game():
    game = find_game("perpetual_motion")(1)
    for move in solve_exact(game).solution:
        game.apply(move)
    assert game.won and solve_exact(game).result == "won"
    try:
        solve_exact(find_game("golf")(1))
    except ValueError as error:
        assert "not a perpetual_motion game" in str(error)
    else:
        raise AssertionError("a Golf game was searched as Perpetual Motion")
