"""The exact Eight Off search (solver/eight_off.py): its model of the rules is the engine's move for
move, its wins replay on the engine, its pruning (cells and piles as sets, foundation moves played
at once) loses nothing against a plain exhaustive search, its lost verdicts agree with the generic
search (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

import pytest

from engine.core import Game
from engine.games import find_game
from solver.eight_off import NONE, EightOffModel, State, solve_exact
from solver.search import Budget, solve_depth_first
from tests.solver.models import assert_plays_as_engine

UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8, memory_mb=4096)
#: Deals the search proves lost (the generic search agrees: see the test below), with the most
#: cards clearable.
LOST = {29: 4, 407: 3}


def deal(seed: int) -> Game:
    return find_game("eight_off")(seed)


def replays(game: Game, moves: list[str]) -> bool:
    replay = game.copy()
    for move in moves:
        replay.apply(move)
    return replay.won


def random_line(game: Game, rng: random.Random, moves: int) -> list[Game]:
    """The positions of a random line of play from ``game`` (a copy), ``moves`` moves at most."""
    game = game.copy()
    line = [game.copy()]
    while not game.over and len(line) <= moves:
        game.apply(rng.choice(list(game.legal_moves())))
        line.append(game.copy())
    return line


def along_a_win(seed: int, rng: random.Random) -> list[Game]:
    """Positions along the search's win of deal ``seed``, each followed by a random move or two:
    foundations started and filled, Kings to spaces, cells emptied and filled."""
    game = deal(seed)
    found = []
    for move in solve_exact(game, UNLIMITED).solution:
        game.apply(move)
        found += random_line(game, rng, rng.randrange(3))
    return found


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = 0
    games = []
    for seed in range(12):
        games += random_line(deal(seed), rng, 40)
    for seed in range(12, 16):
        games += along_a_win(seed, rng)
    for game in games:
        assert_plays_as_engine(EightOffModel.from_game(game), game, EightOffModel.state_of)
        positions += 1
    assert positions > 700
    assert any(game.won for game in games)


def test_the_model_reads_positions_and_refuses_what_is_not_eight_off():
    game = Game.from_position(
        "eight_off - f0:AH f1:AS2S f2: f3: c0:2H c1: c2: c3: c4: c5: c6: c7: "
        "t0:KD3S t1:AC t2: t3: t4: t5: t6: t7: redeals=0"
    )
    tops, cells, piles = EightOffModel.from_game(game).start
    assert tops == (26, 40, NONE, NONE) and cells[:2] == (27, NONE) and piles[0] == (25, 41)
    with pytest.raises(ValueError, match="not an eight_off game"):
        EightOffModel.from_game(find_game("golf")(1))
    with pytest.raises(ValueError, match="foundation f1"):
        EightOffModel.from_game(Game.from_position(game.position().replace("f1:AS2S", "f1:AS3S")))


def _plain(model: EightOffModel, cells_by_name: bool) -> tuple[bool, int]:
    """Every position reachable in ``model``'s own moves, with a visited set and no pruning:
    (some position is won, most cards cleared). Positions are told apart by every pile's name,
    the cells' too if ``cells_by_name`` (else the cells' cards as a set: many fewer positions)."""

    def seen_as(state: State) -> State:
        return state if cells_by_name else (state[0], tuple(sorted(state[1])), state[2])

    seen = {seen_as(model.start)}
    stack: list[State] = [model.start]
    won, best = False, 0
    while stack:
        state = stack.pop()
        cleared = model.cleared(state)
        best = max(best, cleared)
        won = won or cleared == model.total
        for move in model.legal(state):
            child = model.play(state, move)
            if seen_as(child) not in seen:
                seen.add(seen_as(child))
                stack.append(child)
    return won, best


def _late(game: Game, rng: random.Random, left: int) -> Game:
    """``game`` played along the search's win until ``left`` cards are off the foundations, then a
    few random moves."""
    game = game.copy()
    for move in solve_exact(game, UNLIMITED).solution:
        if game.total - game.cleared <= left:
            break
        game.apply(move)
    return random_line(game, rng, rng.randrange(4))[-1]


def _without(game: Game, rng: random.Random) -> Game:
    """``game``'s position with one card taken off the board (a cell or a pile): never won, so a
    search must say lost with the most cards that can still be cleared."""
    places = [pid for pid, pile in game.piles.items() if pid[0] in "ct" and pile.cards]
    pid = rng.choice(places)
    pile = game.piles[pid]
    codes = list(pile.codes())
    del codes[rng.randrange(len(codes))]
    return Game.from_position(game.position().replace(f" {pid}:{pile.text()} ", f" {pid}:{''.join(codes)} "))


def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay():
    rng = random.Random(2)
    verdicts = {"won": 0, "lost": 0}
    cases = []  # (position, whether the plain search tells cells apart by name)
    for seed in range(8):
        late = _late(deal(seed), rng, rng.randrange(3, 5))
        cases += [(late, True), (_without(late, rng), True)]
        late = _late(deal(seed), rng, rng.randrange(6, 9))
        cases += [(late, False), (_without(late, rng), False)]
    for game, cells_by_name in cases:
        verdict = solve_exact(game, UNLIMITED)
        won, best = _plain(EightOffModel.from_game(game), cells_by_name)
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        verdicts[verdict.result] += 1
        if won:
            assert replays(game, verdict.solution)
    assert verdicts["won"] >= 10 and verdicts["lost"] >= 10


def test_wins_replay_from_deals_and_from_positions_in_play():
    rng = random.Random(9)
    won = 0
    for seed in range(20):
        game = deal(seed)
        for start in (game, random_line(game, rng, 30)[-1]):
            before = start.position()
            verdict = solve_exact(start, UNLIMITED)
            assert start.position() == before  # the search leaves the game as it was
            assert verdict.result != "unknown" and verdict.positions > 0
            if verdict.result == "won":  # (random play may fill every cell and lose)
                won += 1
                assert verdict.best_cleared == 52 and verdict.nodes > 0 and replays(start, verdict.solution)
            else:
                assert start is not game and not verdict.solution and verdict.best_cleared < 52
    assert won >= 20
    over = deal(3)
    for move in solve_exact(over, UNLIMITED).solution:
        over.apply(move)
    assert (solve_exact(over).result, solve_exact(over).solution) == ("won", [])


def test_lost_deals_agree_with_the_generic_search():
    for seed, best in LOST.items():
        exact = solve_exact(deal(seed), UNLIMITED)
        assert (exact.result, exact.best_cleared, exact.solution) == ("lost", best, [])
        generic = solve_depth_first(deal(seed), Budget(nodes=10**6, seconds=60, positions=10**7))
        assert (generic.result, generic.best_cleared) == ("lost", best)
