"""The solver: its wins replay on the engine, its proofs agree with an exhaustive enumeration, and
`arena solve` does what its help says when typed in a shell."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from engine.core import Game
from engine.games import GAMES, find_game
from server.catalog import public_catalogs
from solver import Budget, solve
from solver.ordering import canonical

#: For each game, a deal the solver wins within `BUDGET` (the first seed of its public catalog
#: where that is quick, else one found with `arena solve GAME --deals N`).
WINS = {
    "klondike": 15,
    "golf": 12,
    "clock": 1,
    "baroness": None,
    "idiots_delight": 1019,
    "pyramid": 166,
    "perpetual_motion": 1,
    "scorpion": None,
    "double_or_naught": 1,
    "friday_13": None,
    "tournament": 989,
    "generals_patience": 1010,
    "besieged_city": 1000,
    "bristol": 1,
    "calculation": 1004,
    "canfield": 6,
    "chameleon": 5,
    "dutchess": 4,
    "eight_off": 2,
    "four_seasons": 8,
    "kings_clover": None,
    "little_spider": 1001,
    "osmosis": 2,
    "penguin": 1,
    "strategy": 7,
    "try_again": 1026,
    "queens_quadrille": 121,
}
BUDGET = Budget(nodes=30_000, seconds=60)

#: Games the solver cannot yet win a deal of within `BUDGET`: each needs a move order or a
#: position score of its own (issue 10 stays open for them). Strict: a win makes the test fail,
#: so that the entry is removed.
NOT_YET: dict[str, str] = {}


def catalog_seed(key: str) -> int | None:
    path = public_catalogs() / f"{key}.txt"
    if not path.exists():
        return None
    return next((int(line.split(":")[0]) for line in path.read_text().splitlines() if line[:1].isdigit()), None)


@pytest.mark.parametrize(
    "game_cls",
    [
        pytest.param(g, marks=pytest.mark.xfail(strict=True, reason=NOT_YET[g.key])) if g.key in NOT_YET else g
        for g in GAMES
    ],
    ids=lambda g: g.key,
)
def test_the_solver_wins_a_deal_and_the_engine_replays_its_solution(game_cls):
    seed = WINS.get(game_cls.key)
    if seed is None:
        seed = catalog_seed(game_cls.key)
    if seed is None:
        pytest.fail(f"no known winnable deal of {game_cls.key} for the solver yet", pytrace=False)
    verdict = solve(game_cls(seed), BUDGET)
    assert verdict.result == "won", f"{game_cls.key} seed {seed}: {verdict.result} ({verdict.reason})"
    replay = game_cls(seed)
    for move in verdict.solution:
        replay.apply(move)
    assert replay.won and verdict.best_cleared == replay.total


def _exhaust(game: Game, seen: set[str]) -> tuple[bool, int]:
    """Every line of play from ``game``, without the solver's pruning: (some line wins, most
    cards cleared on any line)."""
    best, won = game.cleared, game.won
    for move in list(game.legal_moves()):
        child = game.copy()
        child.apply(move)
        if child.position() in seen:
            continue
        seen.add(child.position())
        child_won, child_best = _exhaust(child, seen)
        won, best = won or child_won, max(best, child_best)
    return won, best


@pytest.mark.parametrize(
    "position",
    [
        # Golf: a Four or a Six goes on the Five, and then nothing fits: lost with one card more up.
        "golf queen_on_king=0 f0:5C r0:9D4S r1:3H6D r2: r3: r4: r5: r6: s: redeals=0",
        # Golf with a short stock: dealing it gives a Jack and a Two; the reserve's King and Nine never fit.
        "golf queen_on_king=0 f0:5C r0:KS r1:9H4D r2: r3: r4: r5: r6: s:js2c redeals=0",
        # Clock, a whole deal (seed 2): the fourth King turns up too soon, exchange or not.
        find_game("clock")(2).position(),
    ],
)
def test_a_lost_verdict_is_a_proof(position):
    game = Game.from_position(position)
    verdict = solve(game, BUDGET)
    won, best = _exhaust(game, {game.position()})
    assert not won
    assert (verdict.result, verdict.best_cleared) == ("lost", best)
    assert verdict.best_cleared < verdict.total


def test_a_won_position_is_found_and_a_budget_cut_is_unknown():
    near = Game.from_position(
        "klondike - f0:AS2S3S4S5S6S7S8S9STSJSQS f1:AH2H3H4H5H6H7H8H9HTHJHQH f2:AD2D3D4D5D6D7D8D9DTDJDQD "
        "f3:AC2C3C4C5C6C7C8C9CTCJCQC t0:KC t1:KD t2:KH t3:KS t4: t5: t6: s: w: redeals=0"
    )
    verdict = solve(near, BUDGET)
    assert verdict.result == "won" and len(verdict.solution) == 4
    cut = solve(find_game("klondike")(27), Budget(nodes=50))
    assert cut.result == "unknown" and "node budget" in cut.reason and cut.nodes == 50  # checked per move


def test_swapped_alike_piles_are_one_position_but_placed_piles_are_not():
    a, b = find_game("klondike")(4), find_game("klondike")(4)
    b.piles["t0"].cards, b.piles["t6"].cards = b.piles["t6"].cards, b.piles["t0"].cards
    b.piles["t0"].down, b.piles["t6"].down = b.piles["t6"].down, b.piles["t0"].down
    assert canonical(a) == canonical(b)
    c, d = find_game("clock")(4), find_game("clock")(4)
    d.piles["t0"].cards, d.piles["t1"].cards = d.piles["t1"].cards, d.piles["t0"].cards
    assert canonical(c) != canonical(d)


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_a_copy_is_what_its_position_reads_back_as_and_stands_alone(game_cls):
    game, rng = game_cls(11), random.Random(11)
    for _ in range(12):
        moves = list(game.legal_moves())
        if not moves:
            break
        game.apply(rng.choice(moves))
    twin, read = game.copy(), Game.from_position(game.position())
    assert type(twin) is type(game) and twin.position() == read.position() == game.position()
    assert list(twin.legal_moves()) == list(read.legal_moves())
    assert (twin.history, twin.seed, twin.can_undo) == (game.history, game.seed, game.can_undo)
    moves = list(twin.legal_moves())
    if moves:
        before = game.position()
        twin.apply(moves[0])
        assert game.position() == before and len(game.history) == len(twin.history) - 1


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "client.cli", *args], capture_output=True, text=True, timeout=120)


def test_arena_solve_prints_the_verdict_and_a_solution_that_replays():
    done = _arena("solve", "golf", "12")
    assert done.returncode == 0, done.stderr
    assert "golf seed 12: won" in done.stdout
    line = next(text for text in done.stdout.splitlines() if text.startswith("solution"))
    game = find_game("golf")(12)
    for move in line.split(": ", 1)[1].split(","):
        game.apply(move)
    assert game.won


def test_arena_solve_deals_estimates_a_win_rate_as_json():
    done = _arena("solve", "golf", "--deals", "4", "--first-seed", "10", "--jobs", "2", "--nodes", "2000", "--json")
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["deals"] == 4 and figures["won"] + figures["lost"] + figures["unknown"] == 4
    assert 12 in figures["won_seeds"]
    low, high = figures["interval_95"]
    assert 0 <= low <= high <= 1


def test_arena_solve_without_a_seed_or_deals_says_what_to_give():
    done = _arena("solve", "golf")
    assert done.returncode == 2 and "give a SEED" in done.stdout


def test_playouts_find_a_near_win_reproducibly_and_never_claim_a_proof():
    from solver.search import solve_by_playouts

    near = Game.from_position(
        "klondike - f0:AS2S3S4S5S6S7S8S9STSJS f1:AH2H3H4H5H6H7H8H9HTHJHQH f2:AD2D3D4D5D6D7D8D9DTDJDQD "
        "f3:AC2C3C4C5C6C7C8C9CTCJCQC t0:KC t1:KD t2:KH t3:KSQS t4: t5: t6: s: w: redeals=0"
    )
    first, again = solve_by_playouts(near, BUDGET), solve_by_playouts(near, BUDGET)
    assert first.result == "won" and first.solution == again.solution
    replay = near.copy()
    for move in first.solution:
        replay.apply(move)
    assert replay.won
    stuck = Game.from_position("golf queen_on_king=0 f0:5C r0:9D4S r1:3H6D r2: r3: r4: r5: r6: s: redeals=0")
    assert solve_by_playouts(stuck, Budget(nodes=200)).result == "unknown"


def test_arena_catalog_with_the_solver_writes_solutions_that_win(tmp_path):
    from server.catalog import load_catalog

    done = _arena(
        "catalog",
        "golf",
        "--solver",
        "--count",
        "1",
        "--first-seed",
        "12",
        "--nodes",
        "2000",
        "--jobs",
        "1",
        "--dir",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = (tmp_path / "golf.txt").read_text()
    assert "`arena catalog golf --solver`" in text and "the solver" in text
    [entry] = load_catalog(tmp_path, "golf")
    game = find_game("golf")(entry.seed)
    for move in entry.moves:
        game.apply(move)
    assert entry.seed == 12 and game.won
