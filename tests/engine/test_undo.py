"""Undo never peeks: checked over random playouts of every game, and on hand-picked positions.

A playout picks at random, at every step, a legal move or ``undo``. Every undo accepted must
bring back exactly the position (and legal moves) from before the move it takes back; every undo
refused must leave the game as it was; a move that turns a card up or deals from the stock can
never be taken back. And the cards the player has seen along the whole sequence, undos
included, must be exactly the cards seen along the same sequence without its undos and the
moves they took back: undo never shows a card the player would not have seen anyway.
"""

import os
import random

import pytest

from engine.cards import UNKNOWN
from engine.core import UNDO_DEPTH, Audience, Game, IllegalCode, IllegalMove, Move
from engine.games import GAMES, find_game
from tests.engine.helpers import refusal_of

PLAYOUTS = max(4, int(os.environ.get("ARENA_PLAYOUTS", "200")) // 10)
STEPS = 120


def seen(game: Game) -> set[str]:
    """The cards the player sees now: every face-up card's code."""
    return {code for codes in game.view(Audience.PLAYER).piles.values() for code in codes if code != UNKNOWN}


def hidden_count(game: Game) -> int:
    """How many cards the player cannot see now."""
    return sum(codes.count(UNKNOWN) for codes in game.view(Audience.PLAYER).piles.values())


def play_with_undos(game_cls: type[Game], seed: int) -> tuple[Game, list[str], set[str], int]:
    """A random playout with undos mixed in: (the game, the moves in effect at the end, the
    cards seen along the way, how many undos were accepted)."""
    rng = random.Random(seed)
    game = game_cls(seed)
    effective: list[str] = []  # the moves in effect: undone ones taken out
    before: list[tuple[str, list[str]]] = []  # (position, legal moves) before each move in effect
    shown = seen(game)
    undos = 0
    for _ in range(STEPS):
        if game.won:
            break
        legal = [str(m) for m in game.legal_moves()]
        if rng.random() < 0.3 or not legal:
            if game.can_undo:
                assert game.apply("undo") == (), f"{game_cls.key} seed {seed}: an undo revealed a card"
                undos += 1
                position, was_legal = before.pop()
                effective.pop()
                assert game.position() == position, f"{game_cls.key} seed {seed}: undo did not restore the position"
                assert [str(m) for m in game.legal_moves()] == was_legal
            else:
                assert refusal_of(game, "undo").code == IllegalCode.NO_UNDO
            shown |= seen(game)
            if not legal and not game.can_undo:
                break
            continue
        move = rng.choice(legal)
        before.append((game.position(), legal))
        hidden = hidden_count(game)
        game.apply(move)
        effective.append(move)
        if hidden_count(game) < hidden or not Move.parse(move).is_transfer:
            assert not game.can_undo, f"{game_cls.key} seed {seed}: {move} turned a card up, yet may be undone"
        shown |= seen(game)
    return game, effective, shown, undos


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_undo_never_shows_a_card_the_same_line_without_it_had_not_shown(game_cls):
    undone = 0
    for seed in range(PLAYOUTS):
        game, effective, shown, undos = play_with_undos(game_cls, seed)
        undone += undos
        plain = game_cls(seed)  # the same sequence without its undos and the moves they took back
        without = seen(plain)
        for move in effective:
            plain.apply(move)
            without |= seen(plain)
        assert plain.position() == game.position(), f"seed {seed}: the line without undos ends elsewhere"
        assert shown == without, f"seed {seed}: undo showed {sorted(shown - without)}"
        again = game_cls(seed)  # the record, undos and all, replays to the same game
        for move in game.history:
            again.apply(move)
        assert again.position() == game.position()
    if game_cls.key not in ("clock", "double_or_naught", "friday_13", "golf", "calculation", "strategy"):
        assert undone, "no playout took a move back"  # (in these few, nearly every move turns a card up)


def test_undo_refused_across_a_flip_and_a_deal_accepted_otherwise():
    """Klondike seed 15 (the public catalog's first deal), along its winning line."""
    game = find_game("klondike")(seed=15)
    assert refusal_of(game, "undo").reason == "there is no move to take back yet"
    assert game.apply("t5>t6")  # it turns a card up
    refusal = refusal_of(game, "undo")
    assert refusal.code == IllegalCode.NO_UNDO and "turned a card face up or dealt from the stock" in refusal.reason
    for move in ["t5>t4", "t5>t0", "t1>t2", "deal", "deal", "deal"]:
        game.apply(move)
    assert not game.can_undo and refusal_of(game, "undo").code == IllegalCode.NO_UNDO  # after a deal
    before = game.position()
    assert game.apply("w>t3") == () and game.can_undo  # a waste card to the tableau: nothing turned up
    assert game.apply("undo") == () and game.position() == before and not game.can_undo


def test_undo_takes_back_several_moves_in_turn_and_play_goes_on():
    game = find_game("eight_off")(seed=3)
    positions = [game.position()]
    moves = []
    for _ in range(5):
        move = next(m for m in game.legal_moves() if m.dst[:1] in ("c", "t", "f"))
        assert game.apply(move) == ()
        moves.append(move)
        positions.append(game.position())
    for position in reversed(positions[:-1]):
        assert game.can_undo
        game.apply("undo")
        assert game.position() == position
    assert not game.can_undo
    assert [str(m) for m in game.history[-5:]] == ["undo"] * 5
    assert game.view().moves == 10 and game.view().undo is False
    game.apply(moves[0])
    assert game.view().undo is True and game.view(Audience.SPECTATOR).undo is False


def test_undo_takes_no_argument_and_never_joins_the_legal_moves():
    game = find_game("eight_off")(seed=3)
    game.apply(next(iter(game.legal_moves())))
    assert Move.parse("undo") not in game.legal_moves()
    assert "undo" not in game.view().legal
    with pytest.raises(IllegalMove) as info:
        game.apply("undo 2")
    assert info.value.code == IllegalCode.NO_UNDO
    assert game.describe("undo") == "take back the last move"


def test_undo_reaches_back_past_many_kept_states():
    """More moves than `_MARK_EVERY` in a row (a card to and fro between a cell and a tableau
    pile), each taken back, each to its exact position."""
    game = find_game("eight_off")(seed=3)
    positions = []
    for move in ["c1>t7", "t7>c1"] * 25:
        positions.append(game.position())
        assert game.apply(move) == ()
        assert game.can_undo
    while positions:
        game.apply("undo")
        assert game.position() == positions.pop()
    assert not game.can_undo


def test_undo_reaches_back_at_most_undo_depth_moves_and_a_checkpoint_keeps_what_it_may_take_back():
    game = find_game("eight_off")(seed=3)
    positions = []
    for move in ["c1>t7", "t7>c1"] * 50:
        positions.append(game.position())
        game.apply(move)
    taken = 0
    while game.can_undo:
        game.apply("undo")
        taken += 1
        assert game.position() == positions[-taken]
    assert UNDO_DEPTH <= taken < UNDO_DEPTH + 16
    game.apply("c1>t7")
    game.apply("t7>c1")
    checkpoint = game.checkpoint()
    twin = Game.from_checkpoint(checkpoint)
    assert twin.position() == game.position() and len(checkpoint[1]) == 2
    twin.apply("undo")
    game.apply("undo")
    assert twin.position() == game.position() and twin.can_undo and game.can_undo
