"""The exact Klondike search (solver/klondike.py): its model of the rules is the engine's move for
move, its wins replay on the engine, its pruning loses nothing against a plain exhaustive search
of the engine's own moves (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import functools
import random
import re

import pytest

from engine.core import Game, Move
from engine.games import find_game
from solver import klondike
from solver.klondike import Klondike, State, reachable, solve_exact
from solver.search import Budget, solve_depth_first

UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8)


#: Positions from random lines of play where playing every card that fits a foundation at once
#: (not only the safe ones) would lose a win or a clear: the pruning must keep their verdicts.
TRAPS = [
    "klondike - f0:AC2C3C4C f1:AH2H f2:AS f3:AD t0: t1:KSQDJCTH9C t2:jh6D5S4H t3:KDQCJDTS9H8C7D6S5D4S3D2S "
    "t4:3h7S6H t5:2d7cTC t6:8d6ckh8h4dKCQHJS s:9s7h9dtdqs8s5h w:3S5C redeals=3",
    "klondike - f0: f1:AD2D f2:AC2C f3:AH2H t0:KH t1:KDQCJHTC9H t2:3h4S t3:jd6c2s7H6S5D4C "
    "t4:8c5C4D3S t5:9c8h9s4htdTH t6:6h7dastsqs7S6D5S s:9d8sjc8d7cjs5h3c w:3DKSQDKCQH redeals=2",
    "klondike - f0: f1:AD2D f2:AC2C f3:AH2H t0:KHQCJHTC9H t1:KD t2:3h4S t3:jd6c2s7H6S5D4C "
    "t4:8c5C4D3S t5:9c8h9s4htdTH t6:6h7dastsqs7S6D5S s:9d8sjc8d7cjs5h3cqhkc w:3DKSQD redeals=3",
    "klondike - f0: f1:AD2D f2:AC2C f3:AH2H t0:KH t1:KDQCJHTC9H8S7H6S5D4C t2:3h4S t3:jd6c2S "
    "t4:8c5C4D3S t5:9c8h9s4htdTH t6:6h7dastsqs7S6D5S s:9d w:3DKSQDKCQH3C5HJS7C8DJC redeals=3",
    # won only from a waste count off the beat: taking it for one that deals reach from the class
    # of 0 (or from any count met with the same cards) would prove it lost
    "klondike - f0:AC f1:AD f2: f3: t0:QCJHTS t1:7H t2:KC t3:4hjdqsJSTD t4:3s6ckh2h6D5C t5:3c2s9s3djc3H "
    "t6:9c2c8hth4d9d8S7D6S5H s:qhas w:9H8D4C5S6H2D5DTC4S7C8CAHKSQD7SKD redeals=1",
    # won only by building both black Fours from the stock on 5H, then 3D on one of them to free
    # 2D: 5H is two above the black foundations but the other red one (AD) is four below, so 5H
    # must not go up alone (a rule without that last condition would prove it lost)
    "klondike - f0:AC2C3C f1:AS2S3S f2:AH2H3H4H f3:AD t0:5H t1:5d2d3D t2:khkdkskcqhqdqsqcjhjdjsjcthtdtstc"
    "9h9d9s9c8h8d8s8c7h7d7s7c6h6d6s6c5s5c4D t3: t4: t5: t6: s:4c4s w: redeals=0",
    # won only by taking 9D now: KH, last in the talon, is safe, but dealing to it leaves a pointer
    # from which 9D is never on top again (KH goes up alone only from a pointer on the beat)
    "klondike - f0:AC2C3C4C5C6C7C8C9CTCJCQCKC f1:AS2S3S4S5S6S7S8S9STSJSQSKS f2:AH2H3H4H5H6H7H8H9HTHJHQH "
    "f3:AD2D3D4D5D6D7D8D t0:KD t1: t2: t3: t4: t5: t6: s:khtdjdqd w:9D redeals=0",
]


def _plain_move(move: object) -> str:
    """An engine move with its foundation written ``f`` (the model's notation for tests)."""
    return re.sub(r">f\d", ">f", str(move))


def playout(seed: int, rng: random.Random, moves: int) -> list[Game]:
    """The positions of one random line of play of deal ``seed``, redeals made rarer."""
    game = find_game("klondike")(seed)
    line = [game.copy()]
    while not game.over and len(line) <= moves:
        legal = list(game.legal_moves())
        transfers = [m for m in legal if m.is_transfer]
        game.apply(rng.choice(transfers if transfers and rng.random() < 0.6 else legal))
        line.append(game.copy())
    return line


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    checked = moves = 0
    for seed in range(25):
        model = Klondike.from_game(find_game("klondike")(seed))
        for game in playout(seed, rng, 120):
            state = model.state_of(game)
            legal = [_plain_move(m) for m in game.legal_moves()]
            assert model.engine_moves(state) == set(legal), game.position()
            assert Klondike.cleared(state) == game.cleared
            for move in set(legal):
                child = game.copy()
                child.apply(move + _fitting_foundation(game, move)[1:] if move.endswith(">f") else move)
                assert model.play_engine(state, move) == model.state_of(child), (game.position(), move)
                moves += 1
            checked += 1
    assert checked > 2000 and moves > 5000


def _fitting_foundation(game: Game, move: str) -> str:
    """The first foundation that takes ``move``'s card (``move`` written with ``f``)."""
    return next(f"f{i}" for i in range(4) if game.is_legal(Move.parse(move[:-1] + f"f{i}")))


def test_reachable_talon_pointers():
    # 24 cards, nothing dealt: every third card, the end, nothing else
    assert reachable(24, 0) == (3, 6, 9, 12, 15, 18, 21, 24)
    # one card taken from the second deal leaves the pointer off the beat: both beats reach
    assert reachable(23, 5) == (3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 23)
    assert reachable(2, 0) == (2,) and reachable(0, 0) == ()


def test_a_pointer_is_skipped_only_after_one_that_reaches_it():
    # the search skips a position when one with the same cards and a pointer in _BEHIND[q] (q off
    # the beat) or any pointer (q in the class of 0, written 0) was met: each must reach q
    for n in range(25):
        for q in range(1, n):
            if q % 3:
                behind = {p for p in range(1, n) if klondike._BEHIND[q] >> p & 1}
                assert behind == {p for p in range(1, n) if p % 3 and q in reachable(n, p)}, (n, q)
        for p in range(n + 1):
            assert set(reachable(n, 0)) <= set(reachable(n, p)), (n, p)


def _plain(model: Klondike) -> tuple[bool, int]:
    """Every position reachable with the engine's own moves (no pruning, nothing folded):
    (some position is won, most cards cleared)."""
    seen = {model.start}
    stack = [model.start]
    won, best = False, Klondike.cleared(model.start)
    while stack:
        state: State = stack.pop()
        best = max(best, Klondike.cleared(state))
        if best == 52:
            return True, 52
        # (in a fixed order: a set's order changes with the process's hash seed, and a won
        # position's search may then meet its win at once or only after a great many positions)
        for move in sorted(Klondike.engine_moves(state)):
            child = model.play_engine(state, move)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return won, best


@functools.cache
def _plain_of(position: str) -> tuple[bool, int]:
    """`_plain` of the position written ``position``, searched once for both passes' tests."""
    return _plain(Klondike.from_game(Game.from_position(position)))


@functools.cache
def _winning_lines() -> dict[int, list[str]]:
    """Winning lines of a few quick deals (seed: moves), searched once for the tests."""
    lines = {}
    for seed in (2, 3, 5, 10, 12):
        verdict = solve_exact(find_game("klondike")(seed), UNLIMITED)
        if verdict.result == "won":
            lines[seed] = verdict.solution
    return lines


def _late_positions(rng: random.Random) -> list[Game]:
    """Positions late in won deals (part of a win, then random moves)."""
    cases = []
    for seed, solution in _winning_lines().items():
        game = find_game("klondike")(seed)
        for cut in (len(solution) - 20, len(solution) - 35):
            position = game.copy()
            for move in solution[: max(0, cut)]:
                position.apply(move)
            for _ in range(rng.randrange(1, 4)):
                position.apply(rng.choice(list(position.legal_moves())))
            cases.append(position)
    return cases


@pytest.mark.parametrize("passes", ["all", "last_alone", "every_partial_run"])
def test_exact_verdicts_equal_a_plain_exhaustive_search_and_wins_replay(passes, monkeypatch):
    if passes != "all":  # the quicker passes take no share: the exact pass decides alone
        monkeypatch.setattr(klondike, "_GREEDY_SHARE", 0.0)
        monkeypatch.setattr(klondike, "_RESTRICTED_TURNS", 0)
        monkeypatch.setattr(klondike, "_RESTART_TURNS", 0)
    if passes == "every_partial_run":  # the exact pass moves every partial run
        monkeypatch.setattr(klondike, "_PARTIAL_RULE", False)
    rng = random.Random(2)
    cases = _late_positions(rng) + [find_game("klondike")(seed) for seed in (0, 8)]
    cases += [Game.from_position(text) for text in TRAPS]
    results = {"won": 0, "lost": 0}
    for game in cases:
        verdict = solve_exact(game, UNLIMITED)
        won, best = _plain_of(game.position())
        assert verdict.result == ("won" if won else "lost"), game.position()
        assert verdict.best_cleared == best, game.position()
        results[verdict.result] += 1
        if won:
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won
    assert results["won"] >= 6 and results["lost"] >= 5


def test_wins_replay_and_verdicts_agree_with_the_generic_search_where_it_decides():
    rng = random.Random(9)
    decided = won = 0
    for game in _late_positions(rng)[:6] + [find_game("klondike")(seed) for seed in (0, 7, 10, 11, 13)]:
        exact = solve_exact(game, UNLIMITED)
        if exact.result == "won":
            won += 1
            replay = game.copy()
            for move in exact.solution:
                replay.apply(move)
            assert replay.won, game.position()
        generic = solve_depth_first(game, Budget(nodes=4_000, seconds=20))
        if generic.result != "unknown":
            decided += 1
            assert generic.result == exact.result, game.position()
            if generic.result == "lost":
                assert generic.best_cleared == exact.best_cleared, game.position()
    assert won >= 6 and decided >= 3


def test_cached_runs_and_talon_offers_are_the_rules():
    # the search's caches: each run head with the cards it builds on and the card under it, and
    # the talon cards each pointer can bring to the waste top, with the cards they build on
    rng = random.Random(3)
    for seed in range(6):
        model = Klondike.from_game(find_game("klondike")(seed))
        for game in playout(seed, rng, 80):
            piles, heights, talon, p = model.state_of(game)
            for pile in piles:
                up = pile[2:]
                run, heads = klondike._run_info(pile)
                assert run == klondike._run(up)
                for k, a, b, under_suit, under_need in heads:
                    head = up[-k]
                    builds_on = {c for c in range(52) if klondike._fits(bytes((c,)), head)}
                    assert builds_on == ({a, b} if a >= 0 else set()) and (a < 0) == (head % 13 == 12)
                    if k < len(up):
                        assert (under_suit, under_need) == (up[-k - 1] // 13, up[-k - 1] % 13)
                    else:
                        assert under_suit == under_need == -1
            offers = klondike._talon_offers(talon, p)
            assert [q for q, *_ in offers] == list(reachable(len(talon), p))
            for q, suit, need, a, b in offers:
                card = talon[q - 1]
                assert (suit, need) == (card // 13, card % 13)
                builds_on = {c for c in range(52) if klondike._fits(bytes((c,)), card)}
                assert builds_on == ({a, b} if a >= 0 else set())


@pytest.mark.parametrize("seed", [6, 1031])
def test_skipping_the_step_straight_back_keeps_every_position(seed, monkeypatch):
    # the step back onto the card a run left is skipped for speed only: the exact pass keeps the
    # same positions with it and without it (a skip that also dropped the step back onto a card
    # just turned up, a new position, keeps fewer)
    # (with the partial-run rule a step back is rare: both cards must be able to go up at once)
    monkeypatch.setattr(klondike, "_GREEDY_SHARE", 0.0)
    monkeypatch.setattr(klondike, "_RESTRICTED_TURNS", 0)
    monkeypatch.setattr(klondike, "_PARTIAL_RULE", False)
    game = find_game("klondike")(seed)
    skipping = solve_exact(game, UNLIMITED)
    monkeypatch.setattr(klondike, "_SKIP_BACK", False)
    trying = solve_exact(game, UNLIMITED)
    assert skipping.result == trying.result == "lost"
    assert skipping.best_cleared == trying.best_cleared
    assert skipping.positions == trying.positions and skipping.nodes < trying.nodes


@pytest.mark.parametrize("seed", [1004, 1005])
def test_the_restricted_and_the_exact_search_take_turns(seed, monkeypatch):
    # after the best-first search the restricted depth-first search and the exact one take turns
    # of 1,024 steps, each with its own table: a win the restricted one finds costs about twice
    # its own steps, the same line, and both tables count as positions kept
    monkeypatch.setattr(klondike, "_GREEDY_SHARE", 0.0)
    monkeypatch.setattr(klondike, "_PARTIAL_RULE", False)  # else the exact search is the restricted one
    game = find_game("klondike")(seed)
    monkeypatch.setattr(klondike, "_RESTRICTED_TURNS", 10**6)  # the restricted search all but alone
    alone = solve_exact(game, UNLIMITED)
    monkeypatch.setattr(klondike, "_RESTRICTED_TURNS", 1)
    turns = solve_exact(game, UNLIMITED)
    assert alone.result == turns.result == "won" and alone.solution == turns.solution
    assert abs(turns.nodes - 2 * alone.nodes) <= 1024
    assert turns.positions > alone.positions


def test_a_card_two_above_the_other_colour_goes_up_alone_when_its_twin_suit_is_three_below():
    # heights by suit (clubs, diamonds, hearts, spades); 5H fits its foundation (hearts at 4)
    five_of_hearts = 13 * 2 + 4
    assert klondike._safe((4, 0, 4, 4), five_of_hearts)  # both black Fours up: nothing needs it
    assert klondike._safe((3, 2, 4, 3), five_of_hearts)  # black Threes and the Two of diamonds up
    assert not klondike._safe((3, 1, 4, 3), five_of_hearts)  # 3D could still need a black Four on it
    assert not klondike._safe((2, 4, 4, 3), five_of_hearts)  # clubs only at Two: 4C may need to sit on it
    assert not klondike._safe((4, 4, 3, 4), five_of_hearts)  # it does not fit its foundation


@pytest.mark.parametrize("rule", ["_SAFE_WIDE", "_SAFE_END"])
def test_each_wider_safe_rule_keeps_the_verdict_with_fewer_positions(rule, monkeypatch):
    # deal 58 is lost: the exact pass alone keeps fewer positions with each rule (a tableau card
    # two above the other colour; the talon's last card), and proves the same loss with the same
    # best clear as without it
    monkeypatch.setattr(klondike, "_GREEDY_SHARE", 0.0)
    monkeypatch.setattr(klondike, "_RESTRICTED_TURNS", 0)
    monkeypatch.setattr(klondike, "_RESTART_TURNS", 0)
    game = find_game("klondike")(58)
    wide = solve_exact(game, UNLIMITED)
    monkeypatch.setattr(klondike, rule, False)
    narrow = solve_exact(game, UNLIMITED)
    assert wide.result == narrow.result == "lost"
    assert wide.best_cleared == narrow.best_cleared
    assert wide.positions < narrow.positions


@pytest.mark.parametrize("seed", [6, 58])
def test_the_partial_run_rule_keeps_the_verdict_with_fewer_positions(seed, monkeypatch):
    # the exact pass moves part of a run off a face-up card only when that card can go up at once
    # ("Partial runs" in the module docstring): on these lost deals it proves the same loss with
    # the same best clear, keeping fewer positions than with every partial run
    monkeypatch.setattr(klondike, "_GREEDY_SHARE", 0.0)
    monkeypatch.setattr(klondike, "_RESTRICTED_TURNS", 0)
    monkeypatch.setattr(klondike, "_RESTART_TURNS", 0)
    game = find_game("klondike")(seed)
    ruled = solve_exact(game, UNLIMITED)
    monkeypatch.setattr(klondike, "_PARTIAL_RULE", False)
    every = solve_exact(game, UNLIMITED)
    assert ruled.result == every.result == "lost"
    assert ruled.best_cleared == every.best_cleared
    assert ruled.positions < every.positions and ruled.nodes < every.nodes


def test_restarts_leave_a_losing_early_step_that_the_exact_pass_searches_to_the_end(monkeypatch):
    # deal 22: the exact pass alone is still under a losing early step after 20,000 steps; the
    # restarts (first steps in a random order, a fresh table each) win within a few thousand, and
    # the win replays
    monkeypatch.setattr(klondike, "_GREEDY_SHARE", 0.0)
    game = find_game("klondike")(22)
    budget = Budget(nodes=20_000, seconds=30)
    turns = solve_exact(game, budget)
    assert turns.result == "won" and turns.nodes < 5_000
    replay = game.copy()
    for move in turns.solution:
        replay.apply(move)
    assert replay.won
    monkeypatch.setattr(klondike, "_RESTART_TURNS", 0)
    assert solve_exact(game, budget).result == "unknown"


@pytest.mark.parametrize("seed", [6, 58])
def test_a_restart_that_ends_within_its_share_proves_the_loss_as_the_exact_pass_does(seed, monkeypatch):
    # with the restarts all but alone, one of them meets every position before the exact pass
    # could: the same loss and best clear as the exact pass alone
    monkeypatch.setattr(klondike, "_GREEDY_SHARE", 0.0)
    game = find_game("klondike")(seed)
    monkeypatch.setattr(klondike, "_RESTART_TURNS", 0)
    alone = solve_exact(game, UNLIMITED)
    monkeypatch.setattr(klondike, "_RESTART_TURNS", 10**6)
    restarts = solve_exact(game, UNLIMITED)
    assert alone.result == restarts.result == "lost"
    assert restarts.best_cleared == alone.best_cleared
    # the exact pass had its first turns only (1,024 steps each): too few for it to end alone
    assert alone.nodes > 1_024 * klondike._EXACT_TURNS
