"""Idiot's Delight (engine/games/idiots_delight.py), following 003_08087bb95aa03446.txt."""

from engine.core import Game
from engine.games import find_game
from tests.engine.helpers import refusal, refused

IdiotsDelight = find_game("idiots_delight")


def board(t0="", t1="", t2="", t3="", stock="", f0=""):
    return Game.from_position(f"idiots_delight - f0:{f0} t0:{t0} t1:{t1} t2:{t2} t3:{t3} s:{stock}")


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


def test_aces_up_is_an_alias_and_four_kings_stay():
    assert find_game("aces_up") is IdiotsDelight and find_game("firing_squad") is IdiotsDelight
    game = IdiotsDelight(seed=2)
    assert game.total == 48 and len(game.piles["s"]) == 48
    assert [len(game.piles[f"t{i}"]) for i in range(4)] == [1, 1, 1, 1]


def test_worked_example_the_eight_of_spades_goes_onto_the_king_of_spades():
    game = board(t0="8S", t1="KS", t2="TH", t3="AC", stock="2c3c4c5c")
    assert moves(game) == ["deal", "t0>t1"]
    assert refused(game, "t2>t3") == "does_not_fit"  # the Ten and the Ace differ in suit
    assert refused(game, "t3>t2") == "does_not_fit"
    game.apply("t0>t1")
    assert game.view().piles["f0"] == ("8S",) and game.view().piles["t1"] == ("KS",)
    game.apply("deal")
    assert [game.view().piles[f"t{i}"][-1] for i in range(4)] == ["5C", "4C", "3C", "2C"]


def test_kings_are_high_and_aces_low():
    game = board(t0="AH", t1="KH", t2="2D", t3="QD")
    assert moves(game) == ["t0>t1", "t2>t3"]
    assert refused(game, "t1>t0") == "does_not_fit"  # a King is never discarded
    assert refused(game, "t3>t2") == "does_not_fit"


def test_a_space_is_filled_from_a_pile_of_two_or_more_any_time():
    game = board(t0="5C9D", t1="", t2="7S", t3="8H")
    assert moves(game) == ["t0>t1"]
    assert refused(game, "t2>t1") == "wrong_pile"  # a single card stays put
    game.apply("t0>t1")
    assert game.view().piles["t1"] == ("9D",) and game.cleared == 0


def test_a_covered_card_waits_and_moves_are_one_card_at_a_time():
    game = board(t0="3C9D", t1="5C", t2="", t3="")
    assert refused(game, "t1>t0") == "does_not_fit"  # the Three of Clubs is covered
    assert refused(game, "t0>t2x2") == "bad_count"
    assert refused(game, "t0>f0") == "wrong_pile"


def test_the_game_is_won_when_only_the_four_kings_are_left():
    rest = "".join(f"{r}{s}" for s in "CDHS" for r in "A23456789TJQ" if f"{r}{s}" != "QH")
    game = board(t0="KC", t1="KDQH", t2="KH", t3="KS", f0=rest)
    assert moves(game) == ["t1>t2"]
    game.apply("t1>t2")
    assert game.won and game.cleared == 48 and game.over


def test_a_lost_game_is_over_with_the_stock_empty():
    game = board(t0="KC", t1="KD", t2="QHKH", t3="KS")
    assert refused(game, "deal") == "stock_empty"
    assert game.over and not game.won


# ------------------------------------------------------------------------------------ in words


def test_a_card_is_discarded_only_onto_a_higher_card_of_its_suit_in_words():
    game = board(t0="8S", t1="KS", t2="9H", stock="2c3c4c5c")
    assert refusal(game, "t1>t0") == (
        "the K♠ cannot be discarded onto the 8♠: a card is discarded only onto a higher card of its suit"
    )
    assert refusal(game, "t2>t3") == "a space is filled only from a pile of two cards or more"
    assert game.describe("t0>t1") == "discard the 8♠ (the K♠ beats it)"
    assert game.describe("deal") == "deal a card to each tableau pile"
    game = board(t0="4C8S", t1="KS", t2="9H", stock="2c3c4c5c")
    assert game.describe("t0>t3") == "the 8♠ from tableau pile 1 to tableau pile 4"
