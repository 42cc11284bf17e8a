"""The exact Bristol search (solver/bristol.py): its model of the rules is the engine's move for
move, its wins replay on the engine, its safe moves and canonical positions lose nothing against
a plain search of every position (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver import Budget
from solver.bristol import Bristol, State, bound, solve_exact
from tests.solver.models import assert_verdict

UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8, memory_mb=10**5)


def line_of_play(seed: int, rng: random.Random, moves: int) -> list[Game]:
    """The positions of a random line of at most ``moves`` moves of deal ``seed`` (a card to a
    foundation chosen where there is one, a deal one time in four otherwise), from the deal on."""
    game = find_game("bristol")(seed)
    line = [game.copy()]
    while not game.over and len(line) <= moves:
        legal = [str(move) for move in game.legal_moves()]
        ups = [move for move in legal if ">f" in move]
        if ups:
            move = rng.choice(ups)
        elif "deal" in legal and (rng.random() < 0.25 or legal == ["deal"]):
            move = "deal"
        else:
            move = rng.choice(legal)
        game.apply(move)
        line.append(game.copy())
    return line


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(9)
    positions = 0
    for seed in range(20):
        model = Bristol.from_game(find_game("bristol")(seed))
        for game in line_of_play(seed, rng, 80):
            state = model.state_of(game)
            legal = [str(move) for move in game.legal_moves()]
            assert model.legal(state) == legal, (seed, game.position())
            assert model.cleared(state) == game.cleared
            for move in legal:
                child = game.copy()
                child.apply(move)
                assert model.play(state, move) == model.state_of(child), (seed, game.position(), move)
            positions += 1
            assert Bristol.from_game(game).legal(Bristol.from_game(game).start) == legal
    assert positions > 800


def _plain(model: Bristol, limit: int = 10**9) -> tuple[bool, int]:
    """Every position reachable in ``model``'s own moves (all of them, no safe moves, no
    canonical form), with a visited set, until one is won: (some position is won, most cleared).
    Raises OverflowError past ``limit`` positions."""
    seen = {model.start}
    stack = [model.start]
    best = model.cleared(model.start)
    while stack:
        state: State = stack.pop()
        best = max(best, model.cleared(state))
        if best == model.total:
            return True, best
        for move in model.legal(state):
            child = model.play(state, move)
            if child not in seen:
                seen.add(child)
                if len(seen) > limit:
                    raise OverflowError(limit)
                stack.append(child)
    return False, best


def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay():
    rng = random.Random(21)
    verdicts = {"won": 0, "lost": 0}
    for seed in range(60):
        game = line_of_play(seed, rng, rng.randrange(30, 70))[-1]
        before = game.position()
        verdict = solve_exact(game, Budget(nodes=10**9, positions=4_000))
        assert game.position() == before  # the game searched is not changed
        if verdict.result == "unknown" or (verdict.result == "lost" and verdict.positions > 200):
            continue  # (the plain search would take too long)
        won, best = _plain(Bristol.from_game(game))
        assert_verdict(verdict, game, won, best, before)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 10 and verdicts["lost"] >= 5, verdicts


def test_whole_deals_won_replay():
    for seed in (1, 2, 3, 7, 8):
        game = find_game("bristol")(seed)
        verdict = solve_exact(game, UNLIMITED)
        assert verdict.result == "won", seed
        replay = game.copy()
        for move in verdict.solution:
            replay.apply(move)
        assert replay.won, seed


def test_no_move_of_a_lone_tableau_card_loses_anything():
    """Positions where a tableau card alone in its pile could go onto another tableau pile (a move
    the search never tries): verdicts and best clears equal a plain search's."""
    rng = random.Random(40)
    verdicts = {"won": 0, "lost": 0}
    for seed in range(200):
        for game in line_of_play(seed, rng, 90)[25:]:
            lone = {f"t{i}" for i in range(8) if len(game.piles[f"t{i}"].cards) == 1}
            moves = [str(move).partition(">") for move in game.legal_moves()]
            if not any(src in lone and dst.startswith("t") for src, _, dst in moves):
                continue
            verdict = solve_exact(game, Budget(nodes=10**9, positions=1_000))
            if verdict.result == "unknown" or verdict.positions > 150:
                continue  # (the plain search would take too long)
            try:
                won, best = _plain(Bristol.from_game(game), limit=3_000)
            except OverflowError:
                continue
            assert verdict.result == ("won" if won else "lost"), game.position()
            assert verdict.best_cleared == best, game.position()
            verdicts[verdict.result] += 1
            break
        if min(verdicts.values()) >= 8:
            break
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 5, verdicts


def test_reserves_with_stock_still_to_come_are_told_apart():
    """Late positions with stock left (each reserve still to get its own cards, so reserves are
    not sorted in the canonical form): verdicts and best clears equal a plain search's."""
    compared = 0
    for seed in range(98, 103):
        rng = random.Random(seed)
        for game in line_of_play(seed, rng, 80)[20:]:
            if not game.piles["s"].cards:
                break
            verdict = solve_exact(game, Budget(nodes=10**9, positions=1_000))
            if verdict.result == "unknown" or verdict.positions > 300:
                continue  # (the plain search would take too long)
            try:
                won, best = _plain(Bristol.from_game(game), limit=5_000)
            except OverflowError:
                continue
            assert verdict.result == ("won" if won else "lost"), game.position()
            assert verdict.best_cleared == best, game.position()
            compared += 1
            break
    assert compared >= 3, compared


def test_the_bound_is_never_below_what_a_plain_search_clears():
    """The bound on cards up (the module docstring's fixpoint) holds against a plain search of
    every position on late positions, and it is often tight, so the search cuts with it."""
    rng = random.Random(5)
    checked = tight = below = 0
    for seed in range(40):
        for game in line_of_play(seed, rng, 120)[35::6]:
            model = Bristol.from_game(game)
            tableau, reserves, dealt, heights = model.start
            most = bound(tableau, reserves, model.stock[dealt:], heights)
            assert model.cleared(model.start) <= most <= 52
            try:
                _, best = _plain(model, limit=3_000)
            except OverflowError:
                continue
            assert best <= most, game.position()
            checked += 1
            tight += best == most
            below += most < 52
    assert checked >= 100 and tight >= 50 and below >= 50, (checked, tight, below)


def test_probes_in_shuffled_orders_find_a_win_that_the_plain_order_does_not():
    """Deal 1007: the plain depth-first order keeps no more than 13 cards up in its first 400,000
    moves (its first choices lead to a huge part with no win); the probes win it within 100,000."""
    game = find_game("bristol")(1007)
    verdict = solve_exact(game, Budget(nodes=100_000, seconds=60))
    assert verdict.result == "won" and verdict.nodes < 100_000
    replay = game.copy()
    for move in verdict.solution:
        replay.apply(move)
    assert replay.won


def test_the_bound_cuts_lost_positions_short(monkeypatch):
    """Late positions proved lost: the search with the bound's cut gives the verdict and best
    clear that it gives with no cut (a bound of 99 everywhere), and keeps fewer positions on
    some of them."""
    shorter = 0
    for seed in range(12):
        for game in line_of_play(seed, random.Random(seed), 120)[30::5]:
            cut = solve_exact(game, Budget(nodes=10**9, positions=1_000))
            if cut.result != "lost":
                continue
            with monkeypatch.context() as patch:
                patch.setattr("solver.bristol.bound", lambda *state: 99)
                plain = solve_exact(game, Budget(nodes=10**9, positions=1_000))
            assert (plain.result, plain.best_cleared) == (cut.result, cut.best_cleared), game.position()
            shorter += cut.positions < plain.positions
    assert shorter >= 20, shorter
