"""The legal moves a player's view lists depend only on what that player can see.

The browser client holds no rules: it offers exactly the moves listed in the player's own view.
If that list changed with a face-down card or the stock order, it would tell the player about a
card it cannot see. So, over seeded random playouts of every game, the hidden cards are shuffled
among their places (every face-down card of every pile, and the whole stock) and the player's
view, legal moves included, must not change. (Games dealt all face up, such as Eight Off,
have nothing to shuffle.)
"""

import os
import random

import pytest

from engine.core import Audience
from engine.games import GAMES

PLAYOUTS = max(1, int(os.environ.get("ARENA_PLAYOUTS", "200")) * 6 // 200)  # 6; 1 in `make test`
MOVE_CAP = 120
SHUFFLES = 3


def hidden_places(game):
    """Every (pile, index) whose card the player cannot see."""
    places = []
    for pid, pile in game.piles.items():
        down = len(pile.cards) if pid == "s" else pile.down
        places += [(pid, i) for i in range(down)]
    return places


def reshuffled(game, rng):
    """A copy of ``game`` with its hidden cards shuffled among their places."""
    twin = game.copy()
    places = hidden_places(twin)
    cards = [twin.piles[pid].cards[i] for pid, i in places]
    rng.shuffle(cards)
    for (pid, i), card in zip(places, cards, strict=True):
        twin.piles[pid].cards[i] = card
    return twin


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_legal_moves_never_depend_on_a_hidden_card(game_cls):
    changed = 0
    for seed in range(PLAYOUTS):
        game = game_cls(seed)
        rng = random.Random(seed)
        for step in range(MOVE_CAP):
            view = game.view(Audience.PLAYER)
            assert list(view.legal) == [str(m) for m in game.legal_moves()]
            for _ in range(SHUFFLES):
                twin = reshuffled(game, rng)
                changed += twin.position() != game.position()
                assert twin.view(Audience.PLAYER) == view, (
                    f"{game_cls.key} seed={seed} after {step} moves: shuffling the hidden cards "
                    f"changed the player's view\n{game.position()}\n{twin.position()}"
                )
            if not view.legal:
                break
            game.apply(rng.choice(view.legal))
    if hidden_places(game_cls(0)):
        assert changed, "no position had two hidden cards to swap: the test checked nothing"


def test_spectators_get_no_legal_moves():
    game = GAMES[0](1)
    assert game.view(Audience.PLAYER).legal
    assert game.view(Audience.SPECTATOR).legal == ()
