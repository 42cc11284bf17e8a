"""The exact Besieged City search (solver/besieged_city.py): its model of the rules is the
engine's move for move (transpositions included), its wins replay on the engine, its verdicts
and best clears agree with a plain search of every position on late positions (its budgets:
tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver.besieged_city import Besieged, solve_exact
from tests.solver.models import UNLIMITED, assert_plays_as_engine, playout


def winning_line(seed: int) -> list[Game]:
    """The positions of the exact search's winning line of deal ``seed``, from the deal on."""
    game = find_game("besieged_city")(seed)
    verdict = solve_exact(game, UNLIMITED)
    assert verdict.result == "won", seed
    line = [game.copy()]
    for move in verdict.solution:
        game.apply(move)
        line.append(game.copy())
    assert game.won
    return line


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = moves = 0
    kinds: set[str] = set()
    for seed in range(6):
        model = Besieged.from_game(find_game("besieged_city")(seed))
        for game in playout("besieged_city", seed, rng)[::3]:
            moves += len(assert_plays_as_engine(model, game, model.state_of, again=Besieged.from_game))
            positions += 1
    for seed in (1002, 1009):  # late positions, with the pack and the talon used up
        line = winning_line(seed)
        model = Besieged.from_game(line[0])
        for game in line[-60:]:
            moves += len(assert_plays_as_engine(model, game, model.state_of, again=Besieged.from_game))
            positions += 1
            kinds.update(str(move).split(" ")[0] for move in game.legal_moves())
            branch = game.copy()  # and a few random moves from there
            for _ in range(3):
                if branch.over:
                    break
                branch.apply(rng.choice(list(branch.legal_moves())))
                moves += len(assert_plays_as_engine(model, branch, model.state_of, again=Besieged.from_game))
    assert positions > 150 and moves > 2000
    assert "transpose" in kinds


def test_the_rules_the_model_reads():
    game = find_game("besieged_city")(1000)
    model = Besieged.from_game(game)
    legal = model.legal(model.start)
    # r0 holds the Ace of Clubs: a Reserve card never goes to a foundation
    assert not any(move.startswith("r0>f") for move in legal)
    # t0 holds the Ace of Spades: any empty foundation takes it
    assert [move for move in legal if move.startswith("t0>")] == ["t0>f0", "t0>f1", "t0>f2", "t0>f3"]
    state = model.play(model.start, "t0>f2")
    assert state[0][3] == 1 and state[1] == (-1, -1, 3, -1)
    # t0 emptied: refilling it from its column (r0 r3 r6 r9) is the only kind of move
    assert model.legal(state) == ["r0>t0", "r3>t0", "r6>t0", "r9>t0"]


def small_plain_search(model: Besieged, cap: int) -> tuple[bool, int] | None:
    """Every state reachable in ``model``'s own moves, with a visited set and no pruning (no
    Ace symmetry, no table without the foundations' order): (some state is won, the most cards
    cleared in any), or None where it reaches more than ``cap`` states."""
    seen = {model.start}
    stack = [model.start]
    best = model.cleared(model.start)
    while stack:
        state = stack.pop()
        best = max(best, model.cleared(state))
        for move in model.legal(state):
            child = model.play(state, move)
            if child not in seen:
                if len(seen) >= cap:
                    return None
                seen.add(child)
                stack.append(child)
    return best == model.total, best


def late_positions(rng: random.Random) -> list[Game]:
    """Positions some moves before the end of winning lines, after a few random moves (some won,
    some lost): those a plain search of every position decides quickly."""
    cases = []
    for seed in (1002, 1009, 1003):
        line = winning_line(seed)
        for back in range(4, 28, 2):
            game = line[-back].copy()
            for _ in range(rng.randrange(0, 4)):
                if not game.over:
                    game.apply(rng.choice(list(game.legal_moves())))
            cases.append(game)
    return cases


def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay():
    rng = random.Random(11)
    verdicts = {"won": 0, "lost": 0}
    for game in late_positions(rng):
        verdict = solve_exact(game, UNLIMITED)
        plain = small_plain_search(Besieged.from_game(game), 3_000)
        if plain is None:
            continue
        won, best = plain
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        verdicts[verdict.result] += 1
        if won:
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 3


def test_whole_deals_won_replay():
    for seed in (1000, 1001, 1003):
        game = find_game("besieged_city")(seed)
        verdict = solve_exact(game)
        assert verdict.result == "won" and verdict.best_cleared == 104
        for move in verdict.solution:
            game.apply(move)
        assert game.won
    assert solve_exact(game).result == "won"  # a won position: nothing to play


#: Deal 1001 near its end: the Two and the Three of Spades must trade places through moves that
#: only rearrange cards already in order (``t10>t13``, then back), which the quick round leaves out.
SHUFFLE_TO_WIN = (
    "besieged_city - f0:ASKS2S'QS'3SJS'4S'TS'5S'9S6S8S7S'7S8S'6S'9S' "
    "f1:ACKC'2CQC'3CJC'4C'TC5C'9C'6C'8C7C7C'8C'6C9C5CTC'4CJC3C'QC2C'KCAC' "
    "f2:AHKH'2HQH3HJH4H'TH5H9H'6H'8H'7H7H'8H6H9H5H'TH'4HJH'3H'QH'2H'KHAH' "
    "f3:AD'KD2D'QD'3D'JD4DTD5D9D6D'8D'7D'7D8D6D9D'5D'TD'4D'JD'3DQD2DKD' r0: r1: r2: r3: r4: r5: r6: r7: r8: "
    "r9: r10: r11: t0: t1: t2:TS t3: t4: t5: t6:AD t7: t8: t9: t10:AS'KS'2S3S'QS t11: t12: t13:JS4S5S s: w:"
)


def test_the_whole_round_tries_the_moves_the_quick_one_leaves_out():
    game = Game.from_position(SHUFFLE_TO_WIN)
    assert small_plain_search(Besieged.from_game(game), 3_000) == (True, 104)
    verdict = solve_exact(game, UNLIMITED)
    assert verdict.result == "won"
    for move in verdict.solution:
        game.apply(move)
    assert game.won
