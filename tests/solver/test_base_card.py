"""The exact searches of Four Seasons and Chameleon (solver/four_seasons.py, solver/chameleon.py,
both on solver/base_card.py): for each game, its model of the rules is the engine's move for
move, its wins replay on the engine, its verdicts and best clears agree with a plain exhaustive
search of the engine's own moves (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import importlib
import random
from typing import Any

import pytest

from engine.core import Game
from engine.games import find_game
from solver.search import Budget
from tests.solver.models import UNLIMITED, assert_plays_as_engine, assert_verdict, assert_won_within, playout

#: Per game: a deal the search wins within a few seconds, and the deals whose winning lines give
#: late positions.
DEALS = {"four_seasons": (1008, (1016, 1017, 1013, 1020)), "chameleon": (1021, (1021, 1009, 1000, 1011))}
GAMES = pytest.mark.parametrize("key", sorted(DEALS))


def search(key: str) -> Any:
    """The game's module: its `model` and `solve_exact`."""
    return importlib.import_module(f"solver.{key}")


def plain(start: Any, most: int) -> tuple[bool, int] | None:
    """Every position reachable by the engine's own moves (as `BaseCard.play` plays them), with
    a visited set and no pruning: (some position is won, most cards cleared); None past ``most``
    positions."""
    seen = {start.start}
    stack = [start.start]
    best = start.cleared(start.start)
    while stack:
        state = stack.pop()
        best = max(best, start.cleared(state))
        for move in start.legal(state):
            child = start.play(state, move)
            if child not in seen:
                if len(seen) >= most:
                    return None
                seen.add(child)
                stack.append(child)
    return best == start.total, best


@GAMES
def test_the_model_plays_the_engines_moves_to_the_engines_positions(key):
    model = search(key).model
    rng = random.Random(7)
    positions = 0
    for seed in range(20):
        deal = model(find_game(key)(seed))
        for game in playout(key, seed, rng, 150):
            assert_plays_as_engine(deal, game, deal.state_of, again=model, where=seed)
            positions += 1
    assert positions > 500


def late_positions(key: str, rng: random.Random) -> list[Game]:
    """Positions near the end of won deals (a winning line cut short, then a random move or
    two) and after long random lines: small enough to search whole without pruning."""
    cases = []
    for seed in DEALS[key][1]:
        game = find_game(key)(seed)
        line = search(key).solve_exact(game, UNLIMITED).solution
        for cut in (len(line) - rng.randrange(1, 10), len(line) - rng.randrange(10, 25)):
            late = game.copy()
            for move in line[:cut]:
                late.apply(move)
            for _ in range(rng.randrange(3)):
                legal = [str(m) for m in late.legal_moves()]
                if legal:
                    late.apply(rng.choice(legal))
            cases.append(late)
    return cases + [playout(key, seed, rng, 200)[-1] for seed in range(24)]


@GAMES
def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay(key):
    model, solve_exact = search(key).model, search(key).solve_exact
    rng = random.Random(11)
    verdicts = {"won": 0, "lost": 0}
    for game in late_positions(key, rng):
        found = plain(model(game), 10_000)
        if found is None:
            continue
        won, best = found
        verdict = solve_exact(game, UNLIMITED)
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        verdicts[verdict.result] += 1
        if verdict.result == "won":
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert verdicts["won"] >= 1 and verdicts["lost"] >= 5, verdicts


@GAMES
def test_a_whole_deal_won_replays_and_the_position_is_not_changed(key):
    game = find_game(key)(DEALS[key][0])
    before = game.position()
    verdict = search(key).solve_exact(game, UNLIMITED)
    assert game.position() == before
    assert verdict.result == "won" and verdict.best_cleared == 52
    replay = game.copy()
    for move in verdict.solution:
        replay.apply(move)
    assert replay.won


def test_a_stock_card_dealt_into_a_space_is_searched():
    """Dealing a stock card straight into a space is a step of its own, not dominated by the
    others: here the most cards clearable (36, as a plain search finds) needs KS dealt into the
    space t4, so that 9S under it on the waste is free for the foundation once 8S has gone up (QS
    goes on KS); a search without that step clears only 35. The stock text lists its cards bottom
    to top: 9S comes up first, then KS, QS, 8S."""
    suits = {s: "".join(f"{r}{s}" for r in "A23456789TJQK") for s in "CD"}
    game = Game.from_position(
        f"four_seasons - f0:{suits['C']} f1:{suits['D']} f2:AH f3:AS2S3S4S5S6S7S t0:7H t1:3H "
        "t2:2HTH8HQH t3:KH6H9HTS4HJH5HJS t4: s:8sqsks9s w: redeals=0"
    )
    model, solve_exact = search("four_seasons").model, search("four_seasons").solve_exact
    assert plain(model(game), 10**6) == (False, 36)
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("lost", 36)


@GAMES
def test_restarted_searches_in_perturbed_orders_stay_exact(key, monkeypatch):
    """With lines cut after a few steps, the searches that end are restarted ones in perturbed
    orders: their verdicts and best clears still equal a plain exhaustive search's."""
    model, solve_exact = search(key).model, search(key).solve_exact
    games = late_positions(key, random.Random(13))[:16]
    monkeypatch.setattr("solver.base_card._RESTART_STEPS", 40)
    monkeypatch.setattr("solver.base_card._SWAP", 0.5)
    verdicts = {"won": 0, "lost": 0}
    for game in games:
        found = plain(model(game), 3_000)
        if found is None:
            continue
        verdict = solve_exact(game, UNLIMITED)
        assert_verdict(verdict, game, *found, where=game.position())
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 1 and verdicts["lost"] >= 1, verdicts


def test_restarts_win_chameleon_deals_the_fixed_order_meets_late():
    """Deals 1001 and 1002 take the fixed order's depth-first search 1.6 and 0.9 million steps;
    restarted searches in perturbed orders win them within 200,000 (15,000 and 77,000)."""
    assert_won_within("chameleon", (1001, 1002), Budget(nodes=200_000, seconds=60), search("chameleon").solve_exact)


def test_best_first_wins_four_seasons_deals_the_depth_first_searches_meet_late():
    """Deals 1004, 1006, 1011 and 1015 are won by the best-first phase within 3,000 steps each
    (1006: 1,226), while the depth-first searches alone (restarts, then the fixed order) win none
    of them within 100,000 steps."""
    from solver.base_card import search as base_search

    four_seasons = search("four_seasons")
    assert_won_within(
        "four_seasons", (1004, 1006, 1011, 1015), Budget(nodes=3_000, seconds=60), four_seasons.solve_exact
    )
    for seed in (1004, 1006, 1011, 1015):
        game = find_game("four_seasons")(seed)
        verdict = base_search(game, four_seasons.model(game), Budget(nodes=100_000, seconds=60))
        assert verdict.result == "unknown" and verdict.nodes >= 100_000, seed


def test_the_search_by_deals_wins_a_chameleon_deal_the_depth_first_searches_do_not(monkeypatch):
    """Deal 1012 is won by the search by cards dealt within 120,000 steps (here it runs first:
    no time for the restarts), while the depth-first searches alone (restarts, then the fixed
    order) do not win it within 300,000."""
    from solver.base_card import search as base_search

    chameleon = search("chameleon")
    with monkeypatch.context() as patched:
        patched.setattr("solver.base_card._RESTART_SHARE", 0.0)
        assert_won_within("chameleon", (1012,), Budget(nodes=120_000, seconds=60), chameleon.solve_exact)
    game = find_game("chameleon")(1012)
    verdict = base_search(game, chameleon.model(game), Budget(nodes=300_000, seconds=60))
    assert verdict.result == "unknown" and verdict.nodes >= 300_000


#: Settings that give one phase of the search the whole budget: the best-first search (Four
#: Seasons) and the search by cards dealt (Chameleon), with the deal each is run on.
ALONE = {
    "best_first": (
        "four_seasons",
        1010,
        {"_GREEDY_SHARE": 1.0, "_GREEDY_STEPS": (10**9, 10**9), "_GREEDY_MEMORY": 1.0},
    ),
    "by_deals": (
        "chameleon",
        1003,
        {
            "_RESTART_SHARE": 0.0,
            "_BEAM_UNTIL": 1.0,
            "_BEAM_STEPS": 10**9,
            "_BEAM_WIDTH": 10**6,
            "_GREEDY_MEMORY": 1.0,
        },
    ),
}


@pytest.mark.parametrize("phase", sorted(ALONE))
def test_a_search_phase_alone_holds_what_it_counts(phase, monkeypatch):
    """With the whole budget its own, the best-first search or the search by cards dealt ends
    on the memory budget with a tracemalloc peak within it: its positions met, positions waiting
    and links are counted."""
    import tracemalloc

    key, seed, settings = ALONE[phase]
    for name, value in settings.items():
        monkeypatch.setattr(f"solver.base_card.{name}", value)
    game = find_game(key)(seed)
    search(key).solve_exact(game, Budget(nodes=1))
    tracemalloc.start()
    try:
        verdict = search(key).solve_exact(game, Budget(memory_mb=2, seconds=60))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert verdict.result == "unknown" and verdict.reason == "memory budget (2 MB) spent"
    assert peak < 2 * 2**20, f"peak {peak:,} bytes"


def test_each_piles_steps_are_those_of_trying_every_card_of_its_run():
    """`pile_steps` (worked out once per pile) gives, for every pile met in random lines of
    both games and for long built runs that wrap round the corner, the top card, the cards that
    may move and the steps onto each tableau card and into a space that trying each card of the
    pile's built run against the target gives (the search's steps, in its order)."""
    from solver.base_card import _S, _rank, _run_of, pile_steps

    fits = [[_rank(c) == (_rank(t) - 2) % 13 + 1 for c in range(52)] for t in range(52)]
    lower = [sum(1 << (13 * s + (t % 13 - 1) % 13) for s in range(4)) for t in range(52)]
    rng = random.Random(5)
    piles: set[tuple[bytes, bool]] = set()
    for key, blocks in (("four_seasons", False), ("chameleon", True)):
        for seed in range(10):
            for game in playout(key, seed, rng, 150):
                piles.update((bytes(p), blocks) for p in search(key).model(game).state_of(game)[1])
    for start in range(52):  # runs of 20 distinct cards, down round the corner, suits mixed
        suits = [rng.randrange(4) for _ in range(13)]
        run = bytes(13 * ((suits[n % 13] + n // 13) % 4) + (start - n) % 13 for n in range(20))
        piles.update(((run, True), (run[:14], True), (b"", True)))
    assert len(piles) > 500
    for pile, blocks in piles:
        top, topbit, movable, onto_rank, to_space = pile_steps(pile, fits, blocks)
        run = _run_of(pile, fits) if blocks else (1 if pile else 0)
        assert top == (pile[-1] if pile else -1) and topbit == (1 << top if pile else 0)
        assert movable == sum(1 << pile[-n] for n in range(1, run + 1))
        for t in range(52):
            tried = [1 | n << 8 | pile[-n] << 14 for n in range(1, run + 1) if lower[t] & 1 << pile[-n]]
            assert list(onto_rank[(t % 13 - 1) % 13]) == tried, (pile, t)
        assert list(to_space) == [1 | n << 8 | pile[-n] << 14 | _S << 20 for n in range(1, min(run, len(pile) - 1) + 1)]


@GAMES
def test_the_piles_kept_are_only_a_cache(key, monkeypatch):
    """With the kept piles' steps emptied every few piles, a search tries the same steps: the
    same verdict, steps tried, positions kept and line."""
    game = find_game(key)(DEALS[key][1][0])
    budget = Budget(nodes=20_000, seconds=60)
    kept = search(key).solve_exact(game, budget)
    monkeypatch.setattr("solver.base_card._PILES", 3)
    emptied = search(key).solve_exact(game, budget)
    assert (emptied.result, emptied.nodes, emptied.positions, emptied.best_cleared, emptied.solution) == (
        kept.result,
        kept.nodes,
        kept.positions,
        kept.best_cleared,
        kept.solution,
    )
