"""The generic search keeps to its budgets: each search (best first, depth first, playouts, and
`solve`, which runs them in turn) stops near its seconds, and holds about what ``memory_mb``
allows (measured with tracemalloc), on a Klondike and a Scorpion deal that none of them wins
within these budgets. Also the search's knowledge of Klondike: no waste card goes up as "safe"
where taking it regroups the stock's later deals, and the count of redeals, which changes
nothing where redeals are unlimited, is not part of a position."""

from __future__ import annotations

import time
import tracemalloc

import pytest

from engine.core import Game, Move
from engine.games import find_game
from solver.compact import Packer
from solver.ordering import canonical, safe_move
from solver.search import Budget, solve, solve_best_first, solve_by_playouts, solve_depth_first

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
    tracemalloc.start()
    try:
        verdict = search(game, Budget(nodes=UNLIMITED, positions=UNLIMITED, seconds=seconds, memory_mb=megabytes))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert verdict.result == "unknown" and "memory budget" in verdict.reason, verdict.reason
    assert peak < 1.5 * megabytes * 2**20 + SLACK, f"peak {peak:,} bytes for a budget of {megabytes} MB"


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
