"""`Game.decided` and `Game.finishing_line`: a finishing line wins when replayed, never exists
while a card is face down, and the quick deadlock test of `PileGame` never hides one."""

import os
import random

import pytest

from engine.core import Game
from engine.games import GAMES, find_game
from engine.rules import PileGame

PLAYOUTS = max(2, int(os.environ.get("ARENA_PLAYOUTS", "200")) // 20)


def positions(game_cls: type[Game], seed: int, steps: int = 150):
    """The positions of a seeded random playout (the game itself, moved on in place)."""
    rng = random.Random(seed)
    game = game_cls(seed)
    for _ in range(steps):
        yield game
        legal = list(game.legal_moves())
        if not legal:
            return
        clearing = [m for m in legal if game._clears(m)]  # (lean to clearing, to reach endgames)
        game.apply(rng.choice(clearing if clearing and rng.random() < 0.6 else legal))


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_a_finishing_line_wins_and_needs_every_card_face_up(game_cls):
    for seed in range(PLAYOUTS):
        for game in positions(game_cls, seed):
            line = game.finishing_line()
            hidden = any(pile.down for pile in game.piles.values())
            if hidden:
                assert line is None and not game.decided and not game.view().decided
            if line is not None:
                assert game.decided and game.view().decided
                twin = game.copy()
                for move in line:
                    twin.apply(move)
                assert twin.won


@pytest.mark.parametrize("game_cls", [g for g in GAMES if issubclass(g, PileGame)], ids=lambda g: g.key)
def test_the_quick_deadlock_test_never_hides_a_finish(game_cls):
    for seed in range(PLAYOUTS):
        for game in positions(game_cls, seed):
            if not any(pile.down for pile in game.piles.values()) and game._deadlocked():
                assert Game._find_finish(game) is None, game.position()


def test_klondike_with_every_card_face_up_is_decided_and_finish_wins():
    """Klondike seed 15 along its catalog line: once the stock, waste and tableau show every
    card, the game is decided and the finishing line plays it out."""
    line = [m for m in open("seeds/klondike.txt").read().split("\n15:")[1].split("\n")[0].strip().split(",")]
    game = find_game("klondike")(15)
    played = 0
    while not game.decided:
        assert not game.won
        game.apply(line[played])
        played += 1
    assert not any(pile.down for pile in game.piles.values())
    finish = game.finishing_line()
    for move in finish:
        game.apply(move)
    assert game.won and played + len(finish) <= len(line) + 10
