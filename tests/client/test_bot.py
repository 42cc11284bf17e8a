"""The bot plays from what a player sees: rebuilt boards have the real legal moves, and its
strategy finishes every deal and wins some."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from client.bot import (
    BotMemory,
    ClockStrategy,
    DigStrategy,
    GolfStrategy,
    Strategy,
    choose_move,
    game_from_board,
    layout_key,
    play_game,
    strategy_for,
)
from engine.cards import UNKNOWN, new_pack
from engine.core import Game, Move
from engine.games import find_game
from server.protocol import board_of

#: The one-pack pile games of issue 4 (engine/rules.py declarations).
PILE_GAMES = (
    "bristol",
    "calculation",
    "canfield",
    "chameleon",
    "dutchess",
    "eight_off",
    "four_seasons",
    "kings_clover",
    "little_spider",
    "osmosis",
    "penguin",
    "strategy",
    "try_again",
    "queens_quadrille",
)

GAMES = (
    "klondike",
    "golf",
    "clock",
    "baroness",
    "idiots_delight",
    "pyramid",
    "perpetual_motion",
    "scorpion",
    "double_or_naught",
    "friday_13",
    "tournament",
    "generals_patience",
    "besieged_city",
    *PILE_GAMES,
)


def _moves(game: Game) -> list[str]:
    return sorted(str(m) for m in game.legal_moves())


def _positions(key: str, seed: int, steps: int, **options: bool):
    """Yield the real game at every step of a random playout (moves picked by a seeded RNG)."""
    game = find_game(key)(seed, **options)
    rng = random.Random(seed)
    for _ in range(steps):
        yield game
        moves = list(game.legal_moves())
        if not moves:
            return
        game.apply(rng.choice(moves))


@pytest.mark.parametrize("key", GAMES)
def test_a_rebuilt_board_has_exactly_the_real_legal_moves(key: str) -> None:
    for seed in range(6):
        for step, game in enumerate(_positions(key, seed, 60)):
            if step % 3:
                continue
            twin = game_from_board(board_of(game.view()), game.rule_options)
            assert _moves(twin) == _moves(game), f"{key} seed {seed} step {step}: {game!r}"
            assert twin.view().piles == game.view().piles
            assert (twin.cleared, twin.won, twin.over) == (game.cleared, game.won, game.over)


def test_a_rebuilt_golf_board_keeps_the_race_options() -> None:
    for seed in range(8):
        for game in _positions("golf", seed, 40, queen_on_king=False):
            twin = game_from_board(game.view(), {"queen_on_king": False})
            assert _moves(twin) == _moves(game)


def test_hidden_cards_are_filled_with_the_unseen_cards_of_the_pack() -> None:
    game = find_game("klondike")(7)
    view = game.view()
    twin = game_from_board(view)
    assert Counter(c for p in twin.piles.values() for c in p.cards) == Counter(new_pack())
    for pid, codes in view.piles.items():
        assert len(twin.piles[pid]) == len(codes)
        assert twin.piles[pid].down == codes.count(UNKNOWN)


def test_a_board_showing_a_card_twice_is_refused() -> None:
    view = find_game("golf")(1).view()
    piles = dict(view.piles)
    piles["r0"] = piles["r0"][:-1] + (piles["r1"][-1],)
    board = board_of(view)
    board.piles = {pid: list(codes) for pid, codes in piles.items()}
    with pytest.raises(ValueError, match="more often"):
        game_from_board(board)


@pytest.mark.parametrize(
    ("key", "seeds"),
    [("klondike", 25), ("golf", 50), ("clock", 50), ("perpetual_motion", 20)],
)
def test_the_bot_finishes_every_deal_and_wins_some(key: str, seeds: int) -> None:
    wins = 0
    for seed in range(seeds):
        game = find_game(key)(seed)
        memory = play_game(game, max_moves=2000)
        assert memory.moves < 2000, f"{key} seed {seed} did not end"
        assert game.won or choose_move(game_from_board(game.view()), memory) is None
        wins += game.won
    assert wins >= 1


@pytest.mark.parametrize(
    "key",
    [
        "baroness",
        "idiots_delight",
        "pyramid",
        "scorpion",
        "double_or_naught",
        "friday_13",
        "tournament",
        "generals_patience",
        "besieged_city",
    ],
)
@pytest.mark.slow
def test_the_bot_finishes_every_deal_of_games_it_may_not_win(key: str) -> None:
    for seed in range(12):
        game = find_game(key)(seed)
        memory = play_game(game, max_moves=2000)
        assert memory.moves < 2000, f"{key} seed {seed} did not end"
        assert game.won or choose_move(game_from_board(game.view()), memory) is None


def test_the_bot_never_comes_back_to_a_layout() -> None:
    for seed in range(10):
        game = find_game("klondike")(seed)
        memory = BotMemory()
        layouts = [layout_key(game)]
        while (move := choose_move(game_from_board(game.view()), memory)) is not None:
            game.apply(move)
            memory.played(move)
            if move.action not in ("deal", "redeal"):
                assert layout_key(game) not in layouts, f"seed {seed}: {move} repeats a layout"
                layouts.append(layout_key(game))


KLONDIKE_STUCK = "klondike - f0:AH f1: f2: f3: t0:KS t1: t2: t3: t4: t5: t6: s: w:QHJS redeals=0"


def test_klondike_redeals_only_after_some_progress() -> None:
    game = Game.from_position(KLONDIKE_STUCK)
    assert {str(m) for m in game.legal_moves()} >= {"redeal"}
    assert choose_move(game, BotMemory(moved_since_redeal=False)) is None
    assert str(choose_move(game, BotMemory(moved_since_redeal=True))) == "redeal"


def test_a_king_is_not_moved_from_one_space_to_another() -> None:
    game = Game.from_position("klondike - f0: f1: f2: f3: t0:KSQH t1: t2: t3: t4: t5: t6: s:2c w: redeals=0")
    assert "t0>t1x2" in _moves(game)
    assert str(choose_move(game, BotMemory())) == "deal"


def test_foundation_plays_come_first() -> None:
    game = Game.from_position("klondike - f0: f1: f2: f3: t0:5h2c t1:3H t2:AS t3: t4: t5: t6: s:4d w:9C redeals=0")
    assert str(choose_move(game, BotMemory())) == "t2>f0"


def test_a_face_down_card_is_turned_up_before_a_waste_card_is_played() -> None:
    game = Game.from_position("klondike - f0: f1: f2: f3: t0:5h2c9H t1:TS t2:9D t3: t4: t5: t6: s:4d w:8C redeals=0")
    assert str(choose_move(game, BotMemory())) == "t0>t1"


def test_golf_plays_the_card_that_starts_the_longest_run() -> None:
    # On the 5: the 4 leads nowhere (nothing plays on it), the 6 leads to 7, 8.
    game = Game.from_position("golf queen_on_king=1 f0:5H r0:4C r1:8S r2:7D6S r3:KC r4:KD r5:KH r6:KS s:2d redeals=0")
    assert isinstance(strategy_for("golf"), GolfStrategy)
    assert str(choose_move(game, BotMemory())) == "r2>f0"


def test_golf_deals_when_no_card_plays() -> None:
    game = Game.from_position("golf queen_on_king=1 f0:5H r0:9C r1:8S r2:KD r3:KC r4:KD r5:KH r6:KS s:2d redeals=0")
    assert str(choose_move(game, BotMemory())) == "deal"


def test_clock_turns_then_exchanges_the_fourth_king_for_a_face_down_card() -> None:
    assert isinstance(strategy_for("clock"), ClockStrategy)
    game = find_game("clock")(3)
    memory = BotMemory()
    while (move := choose_move(game_from_board(game.view()), memory)) is not None:
        if move.action == "exchange":
            assert game.blocked and not game.exchanged
            break
        assert move == Move.parse("turn")
        game.apply(move)
        memory.played(move)
    else:
        assert game.won


def test_variety_only_breaks_ties() -> None:
    assert Strategy(variety=None).jitter() == 0
    rng_strategy = Strategy(variety=3)
    assert all(0 <= rng_strategy.jitter() < 0.5 for _ in range(100))


@pytest.mark.parametrize("key", PILE_GAMES)
def test_the_bot_finishes_every_deal_of_a_pile_game(key: str) -> None:
    for seed in range(10):
        game = find_game(key)(seed)
        memory = play_game(game, max_moves=2000)
        assert memory.moves < 2000, f"{key} seed {seed} did not end"
        assert game.won or choose_move(game_from_board(game.view()), memory) is None


def test_eight_off_digs_an_ace_out_through_the_cells() -> None:
    assert isinstance(strategy_for("eight_off"), DigStrategy)
    game = Game.from_position(
        "eight_off - f0: f1: f2: f3: c0:2H c1:3D c2:4C c3:6S c4: c5: c6: c7: t0:AS5D9C t1:KH"
        " t2:KD t3:KS t4:QH t5:QD t6:JC t7:JH redeals=0"
    )
    assert str(choose_move(game, BotMemory())) == "t0>c4"  # the Ace lies two cards deep
