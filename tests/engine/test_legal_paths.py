"""The quick ways to the legal moves give exactly what asking `Game.check` of every move would.

`Game.legal_moves` does not try every move: `PileGame` yields only the transfers that fit (skipping
cards whose rank a pile cannot take, blocks that are not built sequences, piles at their limit) and
skips `_check` for them; the Thirteens games, General's Patience and The Besieged City prune their
candidates likewise. Over seeded random playouts, every transfer between two piles (every count a
pile could give) and every candidate action is asked of `Game.is_legal`, and the legal ones must be
the listed ones; a `PileGame` also lists its transfers by source pile, destination pile and count.
"""

import os
import random

import pytest

from engine.cards import new_pack
from engine.core import Game, Move
from engine.games import GAMES
from engine.rules import DOWN, EITHER, UP, PileGame, Suits, build

PLAYOUTS = max(1, int(os.environ.get("ARENA_PLAYOUTS", "200")) * 3 // 200)  # 3; 1 in `make test`
MOVE_CAP = 80


def exhaustive_legal(game: Game) -> set[str]:
    """Every legal transfer, found by trying each pair of piles with each count."""
    ids = list(game.piles)
    found = set()
    for a in ids:
        for b in ids:
            for count in range(1, len(game.piles[a]) + 1):
                move = Move(src=a, dst=b, count=count)
                if game.is_legal(move):
                    found.add(str(move))
    return found


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_the_listed_transfers_are_all_the_legal_ones(game_cls: type[Game]) -> None:
    order = {pid: i for i, pid in enumerate(game_cls(0).piles)}
    for seed in range(PLAYOUTS):
        game = game_cls(seed)
        rng = random.Random(seed)
        for _ in range(MOVE_CAP):
            legal = list(game.legal_moves())
            transfers = [m for m in legal if m.is_transfer]
            assert {str(m) for m in transfers} == exhaustive_legal(game), (seed, game.position())
            assert all(game.is_legal(m) for m in legal), (seed, game.position())
            if issubclass(game_cls, PileGame):
                keys = [(order[m.src], order[m.dst], m.count) for m in transfers]
                assert keys == sorted(keys), (seed, game.position())
                assert legal == [m for m in game._candidates() if game._passes(m)], (seed, game.position())
            if not legal:
                break
            game.apply(rng.choice(legal))


@pytest.mark.parametrize(
    "rule",
    [
        build(DOWN, Suits.ALTERNATE),
        build(UP, Suits.SAME),
        build(EITHER),
        build(EITHER, wrap=True),
        build(UP, wrap=True, step=3),
        build(DOWN, Suits.SAME, wrap=True),
    ],
)
def test_a_build_rules_ranks_name_every_card_it_takes(rule) -> None:
    pack = new_pack(1)
    for top in pack:
        assert {c.rank for c in pack if rule(top, c)} <= set(rule.ranks[top.rank])
