"""The exact Queen's Quadrille search (solver/queens_quadrille.py): its model of the rules is the
engine's move for move, its wins replay on the engine, its cut and its moves played alone lose
nothing against a plain exhaustive search (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game, Move
from engine.games import find_game
from server.catalog import public_catalogs
from solver import Budget
from solver.queens_quadrille import Quadrille, _bound, _winnable, solve_exact
from tests.solver.models import UNLIMITED, assert_plays_as_engine, plain_search, playout

KEY = "queens_quadrille"


def catalog_lines() -> list[tuple[int, list[str]]]:
    """The public catalog's winning lines (seeds/queens_quadrille.txt): (seed, moves)."""
    path = public_catalogs() / f"{KEY}.txt"
    return [
        (int(seed), moves.strip().split(","))
        for seed, _, moves in (line.partition(":") for line in path.read_text().splitlines() if line[:1].isdigit())
    ]


def left(game: Game) -> int:
    """Cards still to be turned or placed (the stock and ``w``)."""
    return len(game.piles["s"].cards) + len(game.piles["w"].cards)


def replays_to_won(game: Game, moves: list[str]) -> bool:
    """Whether ``moves`` played on a copy of ``game`` win it."""
    replay = game.copy()
    for move in moves:
        replay.apply(move)
    return replay.won


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(7)
    positions = 0
    for seed in range(25):
        model = Quadrille.from_game(find_game(KEY)(seed))
        for game in playout(KEY, seed, rng):
            assert_plays_as_engine(model, game, model.state_of, again=Quadrille.from_game, where=seed)
            positions += 1
    assert positions > 1000


def plain(model: Quadrille) -> tuple[bool, int]:
    """Every state reachable in ``model``'s own moves, no pruning, with positions that differ only
    by the order of the foundations or of ``t0`` to ``t2`` kept once (nothing in the rules tells
    them apart): (some state is won, the most cards cleared in any)."""

    def key(state):
        placed, piles, founds = state
        return placed, tuple(sorted(piles[:3])), piles[3], tuple(sorted(founds))

    seen = {key(model.start)}
    stack = [model.start]
    best = model.cleared(model.start)
    while stack:
        state = stack.pop()
        best = max(best, model.cleared(state))
        for move in model.legal(state):
            child = model.play(state, move)
            if key(child) not in seen:
                seen.add(key(child))
                stack.append(child)
    return best == model.total, best


def late_positions(rng: random.Random) -> list[Game]:
    """Positions with few cards left to turn: random lines of play, and winning catalog lines
    followed to near their end then left for a random move or two."""
    games = []
    for seed in range(40):
        line = playout(KEY, seed, rng)
        late = [game for game in line if 0 < left(game) <= rng.randrange(3, 6)]
        if late:
            games.append(late[0])
    for seed, moves in catalog_lines():
        game = find_game(KEY)(seed)
        for move in moves:
            if left(game) <= 5:
                break
            game.apply(Move.parse(move))
        for _ in range(rng.randrange(3)):
            if game.legal_moves():
                game.apply(rng.choice(list(game.legal_moves())))
        games.append(game)
    return games


def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay():
    rng = random.Random(11)
    verdicts = {"won": 0, "lost": 0}
    for game in late_positions(rng):
        verdict = solve_exact(game, UNLIMITED)
        won, best = plain(Quadrille.from_game(game))
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        verdicts[verdict.result] += 1
        if won:
            assert replays_to_won(game, verdict.solution), game.position()
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 10


#: The search's code of each rank but the Queen (solver/queens_quadrille.py).
CODES = {5: 0, 4: 1, 3: 2, 2: 3, 1: 4, 13: 5, 6: 6, 7: 7, 8: 8, 9: 9, 10: 10, 11: 11}


def coded(game: Game) -> tuple[list[int], list[list[int]]]:
    """``game``'s foundations as counts of each code up, and ``t0`` to ``t2`` as codes."""
    up = [0] * 12
    for i in range(8):
        for card in game.piles[f"f{i}"].cards:
            if int(card.rank) != 12:
                up[CODES[int(card.rank)]] += 1
    return up, [[CODES[int(card.rank)] for card in game.piles[f"t{i}"].cards] for i in range(3)]


def test_the_cuts_never_cut_what_play_reaches():
    # the bound at a position is at least the best any line from it reaches, and a position
    # from which a win is reached is never cut from every win
    rng = random.Random(5)
    checked = 0
    for game in late_positions(rng):
        won, best = plain(Quadrille.from_game(game))
        up, piles = coded(game)
        assert _bound(up, piles) >= best, game.position()
        if won:
            assert _winnable(up, piles, {}), game.position()
        checked += 1
    assert checked > 30


#: Three Fours under two Threes on t0: the top Three goes up on the Four from ``w``, the other
#: Three then needs a second Four up, and all three are under it; t2's Threes compete for the same
#: Four. The most cleared is 34 (the Jacks' Queens, four Fives, the Four, one Three).
OUT_OF_ORDER = (
    f"{KEY} - f0:5S f1:5H f2:5D f3:5C f4:6S7S8S9STSJSQS f5:6H7H8H9HTHJHQH f6:6D7D8D9DTDJDQD "
    "f7:6C7C8C9CTCJCQC t0:4S4H4D3S3H t1:KSKHKDKC t2:ASAHADAC2S2H2D2C3D3C t3: s: w:4C redeals=0"
)


def test_a_pile_that_must_go_up_out_of_order_is_cut():
    game = Game.from_position(OUT_OF_ORDER)
    up, piles = coded(game)
    assert up == [4, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4]
    assert not _winnable(up, piles, {})  # the lower Three can never take its place
    assert 34 <= _bound(up, piles) < 52  # it and the Fours under it are dead
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("lost", 34)
    assert plain_search(Quadrille.from_game(game)) == (False, 34)


def test_whole_deals_won_replay_and_solve_quickly():
    for seed in (1001, 1007):
        game = find_game(KEY)(seed)
        verdict = solve_exact(game, Budget(seconds=30))
        assert verdict.result == "won" and verdict.best_cleared == 52
        assert replays_to_won(game, verdict.solution)
        assert game.cleared == 0 and not game.won  # the game searched is not changed
