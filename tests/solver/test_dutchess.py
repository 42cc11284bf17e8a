"""The exact Dutchess search (solver/dutchess.py): its model of the rules is the engine's move
for move, its wins replay on the engine, its verdicts and best clears agree with a plain
exhaustive search of the model's own moves on late positions, and it keeps to tight budgets."""

from __future__ import annotations

import random
import time
import tracemalloc

from engine.core import Game
from engine.games import find_game
from solver.dutchess import Dutchess, solve_exact
from solver.search import Budget
from tests.solver.models import UNLIMITED, assert_plays_as_engine, plain_search, playout

#: a deal the search wins within a second
WON = (1002,)


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(7)
    positions = 0
    for seed in range(20):
        model = Dutchess.from_game(find_game("dutchess")(seed))
        for game in playout("dutchess", seed, rng, 150, lean=0.7):
            assert_plays_as_engine(model, game, model.state_of, again=Dutchess.from_game, where=seed)
            positions += 1
    assert positions > 1500


def _replays(game: Game, solution: list[str]) -> bool:
    replay = game.copy()
    for move in solution:
        replay.apply(move)
    return replay.won


def test_wins_replay_and_the_position_is_not_changed():
    # (the quick phases win these within 20,000 steps; the exhaustive search alone does not)
    for seed in (1000, 1002, 1003, 1005, 1008):
        game = find_game("dutchess")(seed)
        before = game.position()
        verdict = solve_exact(game, Budget(nodes=20_000, seconds=30))
        assert game.position() == before
        assert verdict.result == "won" and verdict.best_cleared == 52
        assert _replays(game, verdict.solution)


def _late_positions(rng: random.Random) -> list[Game]:
    """Positions near the end of won deals (a winning line cut short, then a random move or two)
    and after long random lines: small enough to search whole without pruning."""
    cases = []
    for seed in WON:
        game = find_game("dutchess")(seed)
        line = solve_exact(game, Budget(seconds=30)).solution
        for back in (2, 4, 6, 9, 12, 16, 20, 25, 30, 35, 40, 45):
            late = game.copy()
            for move in line[: len(line) - back]:
                late.apply(move)
            for _ in range(rng.randrange(3)):
                legal = [str(m) for m in late.legal_moves()]
                if legal:
                    late.apply(rng.choice(legal))
            cases.append(late)
    for seed in range(40):
        cases.append(playout("dutchess", seed, rng, rng.randrange(60, 200), lean=0.7)[-1])
    return cases


class _Capped:
    """A model whose plain search gives up past ``most`` states (raises OverflowError)."""

    def __init__(self, model: Dutchess, most: int) -> None:
        self.model, self.most, self.count = model, most, 0
        self.start, self.total = model.start, model.total

    def legal(self, state):
        self.count += 1
        if self.count > self.most:
            raise OverflowError
        return self.model.legal(state)

    def play(self, state, move):
        return self.model.play(state, move)

    def cleared(self, state):
        return self.model.cleared(state)


def test_exact_verdicts_equal_a_plain_exhaustive_search_on_late_positions():
    rng = random.Random(11)
    verdicts = {"won": 0, "lost": 0}
    for game in _late_positions(rng):
        try:
            won, best = plain_search(_Capped(Dutchess.from_game(game), 10_000))
        except OverflowError:
            continue
        # the exhaustive search alone (its pruning and dominance), and after the quick phases
        for quick in (False, True):
            verdict = solve_exact(game, UNLIMITED, quick=quick)
            assert verdict.result == ("won" if won else "lost"), (quick, game.position())
            assert verdict.best_cleared == best, (quick, game.position())
            if won:
                assert _replays(game, verdict.solution)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 3 and verdicts["lost"] + verdicts["won"] >= 4, verdicts


def test_tight_budgets_end_the_search():
    game = find_game("dutchess")(1001)
    big = 10**9
    verdict = solve_exact(game, Budget(nodes=5_000, seconds=60, positions=big, memory_mb=1e6))
    assert verdict.result == "unknown" and "node budget" in verdict.reason
    verdict = solve_exact(game, Budget(nodes=big, seconds=60, positions=3_000, memory_mb=1e6))
    assert verdict.result == "unknown" and "positions" in verdict.reason
    began = time.monotonic()
    verdict = solve_exact(game, Budget(nodes=big, seconds=1.0, positions=big, memory_mb=1e6))
    assert verdict.result == "unknown" and "time budget" in verdict.reason
    assert time.monotonic() - began < 2.0
    tracemalloc.start()
    try:
        verdict = solve_exact(game, Budget(nodes=big, seconds=60, positions=big, memory_mb=1.0))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert verdict.result == "unknown" and "MB" in verdict.reason
    assert peak < 1.5 * 2**20 + 400_000, peak
