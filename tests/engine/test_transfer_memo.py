"""`PileGame._transfers` keeps the last listing and works out again only what a move changed.

The kept lists must always equal a listing worked out afresh: over seeded random playouts of every
game that keeps them, the legal moves of the game (kept lists brought up to date move by move) are
compared at every step with those of a copy (`PileGame.copy` starts with nothing kept).
"""

import gc
import os
import random
import types

import pytest

from engine.games import GAMES
from engine.rules import PileGame

MEMO_GAMES = [g for g in GAMES if issubclass(g, PileGame) and g._memo_ok]
PLAYOUTS = max(2, int(os.environ.get("ARENA_PLAYOUTS", "200")) // 20)  # 10; 2 in `make test`
MOVE_CAP = 250


def test_most_pile_games_keep_their_transfers() -> None:
    keys = {g.key for g in MEMO_GAMES}
    assert {"klondike", "canfield", "eight_off", "penguin"} <= keys
    assert "golf" not in keys  # a `_fits` of its own: every listing is worked out afresh


@pytest.mark.parametrize("game_cls", MEMO_GAMES, ids=lambda g: g.key)
def test_kept_transfers_match_a_fresh_listing(game_cls: type[PileGame]) -> None:
    kept = 0
    for seed in range(PLAYOUTS):
        game = game_cls(seed)
        rng = random.Random(seed)
        for _ in range(MOVE_CAP):
            legal = list(game.legal_moves())
            fresh = game.copy()
            assert fresh._transfer_memo is None
            assert legal == list(fresh.legal_moves()), (seed, game.position())
            if game._transfer_memo is not None and game._transfer_memo.piles is game.piles:
                kept += 1
            if not legal:
                break
            game.apply(rng.choice(legal))
    assert kept > 0


def test_a_copy_does_not_share_the_kept_lists() -> None:
    klondike = next(g for g in MEMO_GAMES if g.key == "klondike")
    game = klondike(7)
    before = [str(m) for m in game.legal_moves()]
    twin = game.copy()
    twin.apply(next(m for m in twin.legal_moves() if m.is_transfer or m.action == "deal"))
    list(twin.legal_moves())
    assert [str(m) for m in game.legal_moves()] == before
    game._legal_cache = None  # list again from the kept lists, not the cached list
    assert [str(m) for m in game.legal_moves()] == before


def _tracked_in(game: PileGame) -> set[int]:
    """Every object the garbage collector follows that ``game`` holds, directly or not (not
    classes, functions or modules): by id."""
    seen: dict[int, object] = {}
    stack: list[object] = [game]
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    while stack:
        for ref in gc.get_referents(stack.pop()):
            if id(ref) not in seen and gc.is_tracked(ref) and not isinstance(ref, skip):
                seen[id(ref)] = ref
                stack.append(ref)
    return set(seen)


def test_a_move_and_its_listing_leave_few_new_objects_for_the_collector() -> None:
    """The server plays a move and lists the legal moves after it for every move of every
    entrant; what that leaves in the game lives until the piles change again, long enough for
    the garbage collector to follow it once or twice. Shared moves, the kept lists changed in
    place and reveals not kept past the move's answer leave about two new objects a move (a
    changed destination's entry, the new list of legal moves)."""
    klondike = next(g for g in MEMO_GAMES if g.key == "klondike")
    line = klondike(11)
    rng = random.Random(11)
    notations = []
    for _ in range(80):
        legal = list(line.legal_moves())
        if not legal:
            break
        move = rng.choice(legal)
        notations.append(str(move))
        line.apply(move)
    game = klondike(11)
    list(game.legal_moves())
    new = []
    for text in notations:  # (each read once already: shared)
        gc.collect(0)
        before = _tracked_in(game)
        game.apply(text)
        list(game.legal_moves())
        gc.collect(0)
        new.append(len(_tracked_in(game) - before))
    assert len(new) >= 40
    assert sum(new) / len(new) <= 3.0, new
