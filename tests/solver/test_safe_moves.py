"""A safe move never loses a won game: checked with the solver, which knows every card.

For each game with a safe-move rule (`Game.safe_moves`, what auto-collect plays), positions are
reached by seeded random playouts that branch off the winning lines of the game's public catalog
(seeds/KEY.txt: deals known to be won, so that many positions reached are still won). Where a
position has a safe move and the solver wins it within a small budget, the first safe move is
played on a copy and the solver, with a larger budget, must still find a win: "lost" fails the
test (naming the game, the seed and the position), "unknown" leaves that position out. Each game
must have at least `FLOOR` positions checked so.
"""

from __future__ import annotations

import random

import pytest

from engine.core import Game
from engine.games import GAMES
from server.catalog import load_catalog, public_catalogs
from solver import Budget, solve

#: Games with a safe-move rule (the others' classes say why they have none: tests/engine/test_assists.py
#: names them).
RULED = [g for g in GAMES if g._safe is not Game._safe]

#: Playouts from each position of a winning line, and the most random moves each makes off it
#: before its position is looked at.
BRANCHES = 2
BRANCH = 3
#: Positions checked per game: the test stops looking once it has `TARGET`, and fails below `FLOOR`
#: (the removal games' catalog lines reach about 115 to 165 positions with a safe move: all are
#: checked; the other games reach 300).
TARGET = 300
FLOOR = 100
#: The budget that must decide a position as won before its safe move is tried, and the one that
#: must then still win (moves tried; the time limits only guard against a slow machine).
SMALL = Budget(nodes=300, seconds=20)
LARGE = Budget(nodes=3000, seconds=60)


def candidates(game_cls: type[Game]) -> list[tuple[int, Game]]:
    """(seed, position) for every position with a safe move that the playouts reach: from each
    position of each catalog line, `BRANCHES` playouts of up to `BRANCH` random moves off it
    (seeded by the deal), in a seeded random order."""
    found = []
    for entry in load_catalog(public_catalogs(), game_cls.key):
        rng = random.Random(entry.seed)
        game = game_cls(entry.seed)
        for move in entry.moves:
            for _ in range(BRANCHES):
                branch = game.copy()
                for _ in range(rng.randint(0, BRANCH)):
                    legal = list(branch.legal_moves())
                    if not legal:
                        break
                    branch.apply(rng.choice(legal))
                if branch.safe_moves():
                    found.append((entry.seed, branch))
            game.apply(move)
    random.Random(game_cls.key).shuffle(found)
    return found


@pytest.mark.parametrize("game_cls", RULED, ids=lambda g: g.key)
def test_the_first_safe_move_of_a_won_position_keeps_it_won(game_cls):
    checked = 0
    for seed, position in candidates(game_cls):
        if checked >= TARGET:
            break
        if solve(position, SMALL).result != "won":
            continue
        move = position.safe_moves()[0]
        after = position.copy()
        after.apply(move)
        verdict = solve(after, LARGE)
        assert verdict.result != "lost", (
            f"{game_cls.key} seed {seed}: the safe move {move} loses a won position\n{position.position()}"
        )
        checked += verdict.result == "won"
    assert checked >= FLOOR, f"{game_cls.key}: only {checked} positions checked"
