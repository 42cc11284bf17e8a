"""The exact Canfield search (solver/canfield.py): its model of the rules is the engine's move
for move, its wins replay on the engine, its verdicts and best clears agree with a plain
exhaustive search of the engine's own moves (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver.canfield import Canfield, State, solve_exact
from solver.search import Budget
from tests.solver.models import assert_plays_as_engine, playout

UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8, memory_mb=10**5)
#: positions (from random lines of deals 175 and 211) where playing a card to its foundation as
#: soon as it fits, without the search's safety test, clears fewer cards than the best line
EAGER_LOSES = [
    "canfield - f0:QS f1:QH f2:QDKDAD2D f3:QCKC r0:ks8c2h8djs4cTD t0:2S t1:6C5D t2:8S7H6S5H4S3D2CAH "
    "t3:JCTH9S8H7S6D5S4H3C s:jhtckh w:3S7D5CJD3HTS7C9H6H4D9CAC9DAS redeals=5",
    "canfield - f0:QHKHAH f1: f2:QSKS f3:QDKD r0:3c2h2cas8h5s4dqcjs3s8C t0:JCTD9C t1:7C6D t2:AC "
    "t3:9D8S7H6S5D4C3H2S s:kcjdtc9h3d w:2D8DAD7D4H9S5H5C7SJH4STHTS6C6H redeals=5",
]

#: a won position whose waste top (the ten of clubs, safe to play up: both red suits are at their
#: nines) must wait: taken now, with twelve talon cards, it moves the six of spades behind it from
#: the sixth place to the fifth, where no deal shows it, and nothing else plays
REGROUP = (
    "canfield - f0:AS2S3S4S5S f1:AH2H3H4H5H6H7H8H9H f2:AD2D3D4D5D6D7D8D9D f3:AC2C3C4C5C6C7C8C9C r0: "
    "t0:TH7S t1:TD8S t2:JH9S t3:JDTS s:ksqsjskdqdkh6sqh w:JCQCKCTC redeals=0"
)


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(7)
    positions = 0
    for seed in range(25):
        model = Canfield.from_game(find_game("canfield")(seed))
        for game in playout("canfield", seed, rng, 150, lean=0.6):
            # a model read from this position starts where the deal's model stands
            assert_plays_as_engine(model, game, model.state_of, again=Canfield.from_game, where=seed)
            positions += 1
    assert positions > 2000


def _plain(model: Canfield, most: int) -> tuple[bool, int] | None:
    """Every position reachable by the engine's own moves (as `Canfield.play` plays them), with
    a visited set and no pruning: (some position is won, most cards cleared); None past ``most``
    positions."""
    seen = {model.start}
    stack = [model.start]
    won, best = False, model.cleared(model.start)
    while stack:
        state: State = stack.pop()
        cleared = model.cleared(state)
        best = max(best, cleared)
        if cleared == model.total:
            won = True
            continue
        for move in model.legal(state):
            child = model.play(state, move)
            if child not in seen:
                if len(seen) >= most:
                    return None
                seen.add(child)
                stack.append(child)
    return won, best


def _late_positions(rng: random.Random) -> list[Game]:
    """Positions near the end of won deals (a winning line cut short, then a random move or
    two) and after long random lines: small enough to search whole without pruning."""
    cases = []
    for seed in (0, 1, 2, 4, 6, 8, 10, 13):
        game = find_game("canfield")(seed)
        line = solve_exact(game, UNLIMITED).solution
        for cut in (len(line) - rng.randrange(1, 12), len(line) - rng.randrange(12, 40)):
            late = game.copy()
            for move in line[:cut]:
                late.apply(move)
            for _ in range(rng.randrange(4)):
                legal = [str(m) for m in late.legal_moves()]
                if legal:
                    late.apply(rng.choice(legal))
            cases.append(late)
    for seed in range(30, 38):
        cases.append(playout("canfield", seed, rng, rng.randrange(60, 200), lean=0.6)[-1])
    return cases


def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay():
    rng = random.Random(11)
    verdicts = {"won": 0, "lost": 0}
    fixed = [Game.from_position(text) for text in EAGER_LOSES] + [find_game("canfield")(seed) for seed in (3, 9)]
    for game in fixed + _late_positions(rng):
        plain = _plain(Canfield.from_game(game), 8_000)
        if plain is None:
            continue
        won, best = plain
        verdict = solve_exact(game, UNLIMITED)
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        verdicts[verdict.result] += 1
        if verdict.result == "won":
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert verdicts["won"] >= 6 and verdicts["lost"] >= 5, verdicts


def test_whole_deals_won_replay_and_the_position_is_not_changed():
    for seed in (0, 1, 2, 4, 6, 8):
        game = find_game("canfield")(seed)
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before
        assert verdict.result == "won" and verdict.best_cleared == 52
        replay = game.copy()
        for move in verdict.solution:
            replay.apply(move)
        assert replay.won
    lost = solve_exact(find_game("canfield")(9), UNLIMITED)
    assert (lost.result, lost.best_cleared) == ("lost", 3)


def test_a_safe_waste_card_is_not_played_alone_when_taking_it_regroups_the_deals():
    game = Game.from_position(REGROUP)
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("won", 52)
    replay = game.copy()
    for move in verdict.solution:
        replay.apply(move)
    assert replay.won
    # the ten of clubs dealt last instead (the six of spades still sixth): taking it moves no
    # other card, so the search plays it alone, and the deal stays won
    last = Game.from_position(REGROUP.replace("s:ksqsjskdqdkh6sqh w:JCQCKCTC", "s:tcksqsjskdqd6skhqh w:JCQCKC"))
    assert solve_exact(last, UNLIMITED).result == "won"
