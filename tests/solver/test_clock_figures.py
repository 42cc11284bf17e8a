"""Clock's three figures from `arena solve`: without the exchange (rule option ``exchange`` off),
with the exchange chosen by the solver (it knows every card), and with the exchange the bot
chooses (``--bot``: it sees only face-up cards). docs/winnability.md gives them over 2,000 deals."""

from __future__ import annotations

import json
import subprocess
import sys

from engine.games import find_game

DEALS = 150
Clock = find_game("clock")


def _figures(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "solve", "clock", "--deals", str(DEALS), "--jobs", "1", "--json", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _won_by_turning(seed: int) -> bool:
    game = Clock(seed=seed)
    while not game.over and not game.blocked:
        game.apply("turn")
    return game.won


def test_the_three_clock_figures_nest():
    plain = _figures("--option", "exchange=false")
    solver = _figures()
    bot = _figures("--bot")
    assert plain["options"] == {"exchange": False} and bot["player"] == "bot" and solver["player"] == "solver"
    for figures in (plain, solver, bot):
        assert figures["deals"] == DEALS and figures["unknown"] == 0
        low, high = figures["interval_95"]
        assert low <= figures["share_won_of_decided"] <= high
    # Without the exchange a deal is won only by turning alone; every deal the bot wins, the
    # solver (which sees every card) wins too, and it wins more.
    assert set(plain["won_seeds"]) == {seed for seed in range(DEALS) if _won_by_turning(seed)}
    assert set(plain["won_seeds"]) < set(bot["won_seeds"]) < set(solver["won_seeds"])


def test_arena_solve_bot_prints_the_bots_winning_line_which_replays():
    done = subprocess.run(
        [sys.executable, "-m", "client.cli", "solve", "clock", "0", "--bot"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "clock seed 0: won by the bot" in done.stdout
    line = next(text for text in done.stdout.splitlines() if text.startswith("solution"))
    game = Clock(seed=0)
    moves = line.split(": ", 1)[1].split(",")
    for move in moves:
        game.apply(move)
    assert game.won and [m for m in moves if m.startswith("exchange")] == ["exchange t2.0"]
