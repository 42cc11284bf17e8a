"""Every search keeps to its budgets. The generic search: each of its searches (best first, depth
first, playouts, and `solve`, which runs them in turn) stops near its seconds, and holds about
what ``memory_mb`` allows (measured with tracemalloc), on a Klondike and a Scorpion deal that none
of them wins within these budgets. Every exact search (`solver.search.EXACT`): each budget alone,
nodes, seconds, positions and memory, ends it on a deal it does not decide at once. Also the
search's knowledge of Klondike: no waste card goes up as "safe" where taking it regroups the
stock's later deals, and the count of redeals, which changes nothing where redeals are
unlimited, is not part of a position."""

from __future__ import annotations

import importlib
import time
import tracemalloc

import pytest

from engine.core import Game, Move
from engine.games import find_game
from solver.compact import Packer
from solver.ordering import canonical, safe_move
from solver.search import EXACT, Budget, solve, solve_best_first, solve_by_playouts, solve_depth_first

DEALS = [("klondike", 1), ("scorpion", 3)]
SEARCHES = [solve_best_first, solve_depth_first, solve_by_playouts, solve]
UNLIMITED = 10**9

#: What a search holds besides its counted tables (a few games, their legal moves, the budget's
#: own bookkeeping), in bytes: the slack allowed over the memory budget besides half of it again.
SLACK = 200_000


@pytest.mark.parametrize("search", SEARCHES, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("key", "seed"), DEALS)
def test_a_search_stops_near_its_seconds(key, seed, search):
    game = find_game(key)(seed)
    began = time.monotonic()
    verdict = search(game, Budget(nodes=UNLIMITED, positions=UNLIMITED, seconds=1.0, memory_mb=1e6))
    wall = time.monotonic() - began
    assert verdict.result == "unknown" and "time budget" in verdict.reason, verdict.reason
    assert 0.9 <= wall < 2.0 and verdict.seconds < 2.0


@pytest.mark.parametrize("search", SEARCHES, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("key", "seed"), DEALS)
def test_a_search_holds_about_what_its_memory_budget_allows(key, seed, search):
    # The playouts hold one line's positions at a time (tens to hundreds): a budget of a few
    # kilobytes is what they can spend. The others grow with every position they reach (about
    # 500 positions here); `solve` ends with playouts, which then run until its seconds.
    megabytes = 0.002 if search is solve_by_playouts else 0.1
    seconds = 4.0 if search is solve else 10.0
    game = find_game(key)(seed)
    search(game, Budget(nodes=1))  # (loads what the search imports on first use: not its tables)
    tracemalloc.start()
    try:
        verdict = search(game, Budget(nodes=UNLIMITED, positions=UNLIMITED, seconds=seconds, memory_mb=megabytes))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert verdict.result == "unknown" and "memory budget" in verdict.reason, verdict.reason
    assert peak < 1.5 * megabytes * 2**20 + SLACK, f"peak {peak:,} bytes for a budget of {megabytes} MB"


#: For each game with an exact search: a deal it does not decide within a second and 1 MB (or,
#: where it decides every deal about as fast, a long one), for the tight budgets below.
HARD = {
    "baroness": 274,
    "besieged_city": 1045,
    "bristol": 5,
    "calculation": 1000,
    "canfield": 5,
    "chameleon": 1003,
    "dutchess": 1001,
    "eight_off": 204,
    "four_seasons": 1009,
    "friday_13": 1023,
    "generals_patience": 1000,
    "golf": 3,
    "idiots_delight": 1001,
    "kings_clover": 1013,
    "klondike": 1,
    "little_spider": 1000,
    "osmosis": 13,
    "perpetual_motion": 6,
    "pyramid": 316,
    "queens_quadrille": 1017,
    "strategy": 186,
    "tournament": 1009,
    "try_again": 1001,
}


@pytest.mark.parametrize("key", sorted(EXACT))
def test_an_exact_search_keeps_to_each_budget(key):
    """Each budget alone ends the search: ``nodes`` within a clock check's worth of moves (1,024),
    ``seconds`` within a second, ``positions`` within 4,096, and ``memory_mb`` with a tracemalloc
    peak under half as much again plus 512 KiB (the search's fixed share: the model, the deal's
    tables); a search that decides the deal first is within them too."""
    solve_exact = importlib.import_module(f"solver.{key}").solve_exact
    game = find_game(key)(HARD[key])
    before = game.position()
    cut = solve_exact(game, Budget(nodes=100))
    assert cut.result == "unknown" and cut.reason == "node budget (100 moves) spent" and cut.nodes <= 100 + 1024
    assert cut.best_cleared < cut.total
    began = time.monotonic()
    timed = solve_exact(game, Budget(nodes=UNLIMITED, positions=UNLIMITED, seconds=1.0))
    assert time.monotonic() - began < 2.0
    assert timed.result != "unknown" or timed.reason == "time budget (1 s) spent", timed.reason
    few = solve_exact(game, Budget(nodes=UNLIMITED, positions=50))
    assert few.result == "unknown" and few.reason == "memory budget (50 positions) spent"
    assert few.positions <= 50 + 4096
    tracemalloc.start()
    try:
        small = solve_exact(game, Budget(nodes=UNLIMITED, positions=UNLIMITED, seconds=60, memory_mb=1.0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert small.result != "unknown" or small.reason == "memory budget (1 MB) spent", small.reason
    assert peak < 1.5 * 2**20 + 2**19, f"peak {peak:,} bytes for a budget of 1 MB"
    assert game.position() == before  # the game searched is not changed


def test_solve_gives_a_phase_the_time_an_earlier_one_left():
    game = find_game("klondike")(1)
    began = time.monotonic()
    # best first stops at once (memory), so depth first may run until four fifths of the budget
    verdict = solve(game, Budget(nodes=UNLIMITED, positions=UNLIMITED, seconds=1.0, memory_mb=0.01))
    wall = time.monotonic() - began
    assert wall < 2.0 and verdict.seconds < 2.0 and "memory budget" in verdict.reason


def test_packed_positions_unpack_to_the_same_game():
    game = find_game("klondike")(7)
    packer = Packer(game)
    for move in ["deal"] * 8 + ["redeal", "deal"]:
        game.apply(move)
        again = packer.unpack(packer.pack(game))
        assert again.position() == game.position() and again.redeals == game.redeals
        assert list(again.legal_moves()) == list(game.legal_moves()) and again.history == []


def _klondike(stock: str, waste: str, redeals: int = 0) -> Game:
    return Game.from_position(
        f"klondike - f0:AS f1:AH f2:AD f3: t0:KC t1: t2: t3: t4: t5: t6: s:{stock} w:{waste} redeals={redeals}"
    )


def test_a_waste_card_goes_up_as_safe_only_where_the_stock_deals_the_same_after():
    # The Two of Spades fits only f0 and no card in play could be built on it: safe by the build
    # rule. But with more cards in the stock and waste than one deal turns, taking it regroups
    # every later pass of three (the King of Hearts would come up on top where it was buried).
    regrouped = _klondike("3h4h5h6h", "KH3S2S")
    up = Move.parse("w>f0")
    assert up in regrouped.legal_moves()
    assert safe_move(regrouped, list(regrouped.legal_moves())) is None
    kept = _klondike("", "3S2S")  # the last deal: nothing to regroup
    assert safe_move(kept, list(kept.legal_moves())) == up


def test_the_redeal_count_is_no_part_of_a_klondike_position_but_is_where_redeals_are_counted():
    assert canonical(_klondike("3h", "2S", redeals=0)) == canonical(_klondike("3h", "2S", redeals=5))
    dutchess, again = find_game("dutchess")(3), find_game("dutchess")(3)  # one redeal allowed
    again.redeals = 1
    assert canonical(dutchess) != canonical(again)
