"""Perpetual Motion (engine/games/perpetual_motion.py), following 003_08087bb95aa03446.txt."""

from engine.cards import parse_cards
from engine.core import Game
from engine.games import find_game
from tests.engine.helpers import refusal, refused

PerpetualMotion = find_game("perpetual_motion")


def board(t0="", t1="", t2="", t3="", stock="", f0="", redeals=0):
    return Game.from_position(f"perpetual_motion - f0:{f0} t0:{t0} t1:{t1} t2:{t2} t3:{t3} s:{stock} redeals={redeals}")


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


def test_worked_example_the_six_of_spades_goes_onto_the_six_of_hearts_on_its_left():
    game = board(t0="2C", t1="6H", t2="6S", t3="9D", stock="ahad")
    assert moves(game) == ["deal", "t2>t1"]
    assert refused(game, "t1>t2") == "wrong_pile"  # never to the right
    game.apply("t2>t1")
    assert game.view().piles["t1"] == ("6H", "6S") and game.cleared == 0
    game.apply("deal")
    assert game.view().piles["t0"] == ("2C", "AD") and game.view().piles["t1"][-1] == "AH"


def test_cards_of_a_rank_on_top_move_together_or_singly():
    game = board(t0="9C", t2="5H9D9S")
    assert moves(game) == ["redeal", "t2>t0", "t2>t0x2"]
    assert refused(game, "t2>t0x3") == "not_a_sequence"
    assert refused(game, "t2>t1") == "does_not_fit"  # never into a space


def test_four_of_a_kind_on_top_of_a_pile_is_cleared():
    game = board(t0="2D9C9D9H9S", t1="3C")
    assert "t0>f0x4" in moves(game)
    assert refused(game, "t0>f0") == "bad_count"
    assert refused(game, "t1>f0x4") == "does_not_fit"
    game.apply("t0>f0x4")
    assert game.cleared == 4 and game.view().piles["t0"] == ("2D",)


def test_redeal_gathers_the_piles_in_order_and_deals_from_the_top():
    game = board(t0="2C3C", t1="4C", t2="", t3="5C6C")
    assert refused(game, "deal") == "stock_empty"
    game.apply("redeal")
    assert game.redeals == 1 and game.view().piles["s"] == ("??",) * 5
    assert all(not game.piles[f"t{i}"].cards for i in range(4))
    # The first card dealt is the bottom card of t0, then t0's next card, and so on.
    assert game.piles["s"].cards[::-1] == parse_cards("2C3C4C5C6C")
    game.apply("deal")
    assert [game.view().piles[f"t{i}"] for i in range(4)] == [("2C",), ("3C",), ("4C",), ("5C",)]


def test_redeal_only_when_the_stock_is_empty_and_as_often_as_wanted():
    game = board(t0="2C", stock="3c")
    assert refused(game, "redeal") == "not_now"
    game.apply("deal")
    game.apply("redeal")
    game.apply("deal")
    game.apply("redeal")
    assert game.redeals == 2 and not game.over


def test_the_game_is_won_when_all_52_are_cleared():
    rest = "".join(f"{r}{s}" for s in "CDHS" for r in "A23456789TJQ")
    game = board(t0="KCKDKHKS", f0=rest)
    game.apply("t0>f0x4")
    assert game.won and game.over and game.cleared == 52


def test_four_top_cards_of_one_rank_across_the_piles_are_cleared():
    game = board(t0="2C7C", t1="7D", t2="3H7H", t3="7S", stock="5c")
    assert "clear" in moves(game)
    game.apply("clear")
    assert game.view().piles["f0"] == ("7C", "7D", "7H", "7S")
    assert [game.view().piles[f"t{i}"] for i in range(4)] == [("2C",), (), ("3H",), ()]
    assert refused(game, "clear") == "not_now"
    assert refused(game, "clear x") == "unknown_action"


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(t0="5H", t1="7C", t2="5S5D", t3="5C")
    assert refusal(game, "t1>t0") == "the 7♣ cannot go on the 5♥: a card goes only onto one of its rank"
    assert refusal(game, "t0>t2") == "cards move only to a pile on their left"
    assert refusal(game, "t2>t0x3") == "the top 3 cards of tableau pile 3 are not of one rank"
    assert refusal(game, "t3>f0x4") == "tableau pile 4 has no four of a kind on top"
    assert game.describe("t2>t0x2") == "the 5♠ and the 5♦ from tableau pile 3 to tableau pile 1"
    assert game.describe("redeal") == "gather the tableau piles into a new stock"
    game = board(t0="5H", t1="5C", t2="5S", t3="5D", stock="2c")
    assert game.describe("clear") == "clear the four Fives from the tops of the tableau piles"
    game = board(t0="5H5C5S5D", t1="7C", stock="2c")
    assert game.describe("t0>f0x4") == "clear the four Fives from tableau pile 1"
