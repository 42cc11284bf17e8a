"""Try Again (engine/games/try_again.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.core import Game
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

TryAgain = find_game("try_again")
PILES = ("f0", "f1", "f2", "f3", "t0", "t1", "t2", "t3", "s", "w")


def board(dealt=0, **piles):
    """A Try Again position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position(
        "try_again - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + f" redeals=0 dealt={dealt}"
    )


def test_the_whole_pack_is_in_the_stock_and_its_top_card_is_turned_up():
    game = TryAgain(seed=15)
    assert game.piles["w"].cards == shuffled("try_again", 15)[:1] and game.dealt == 0


def test_the_worked_example_after_four_deals_the_ace_and_the_deuce_go_up():
    game = board(dealt=4, t0="KS", t1="AH", t2="2C", t3="9D", w="7S", s="3h")
    game.apply("t1>f2")  # the Ace to any foundation
    game.apply("t2>f2")  # the Deuce, whatever its suit
    game.apply("w>t0")  # then the next round of four
    assert game.dealt == 5


def test_no_card_goes_up_in_the_middle_of_a_round_of_four():
    game = board(dealt=5, t0="AH", w="7S", s="3h2h")
    assert refused(game, "t0>f0") == "not_now"
    for _ in range(3):
        game.apply("w>t1")
    assert game.dealt == 8
    game.apply("t0>f0")


def test_a_dealt_card_goes_to_a_waste_pile_not_straight_up():
    game = board(dealt=0, w="AS", s="2h")
    assert refused(game, "w>f0") == "wrong_pile"
    game.apply("w>t3")


def test_foundations_build_by_rank_alone_and_there_is_no_play_between_waste_piles():
    game = board(dealt=8, f0="AC", t0="2D", t1="3H", t2="3S")
    assert refused(game, "t1>t2") == "wrong_pile"
    game.apply("t0>f0")
    game.apply("t2>f0")
    assert refused(game, "redeal") == "no_redeal"


def test_after_the_last_card_the_waste_piles_play_off_whatever_the_count():
    game = board(dealt=51, f0="AC", t0="2D")
    game.apply("t0>f0")


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(dealt=5, t0="AH", w="7S", s="3h2h")
    assert refusal(game, "t0>f0") == "finish dealing the round of four first"
    assert refusal(game, "t0>t1") == "waste pile 2 takes no card from a waste pile"
    assert game.describe("w>t1") == "the 7♠ from the turned card to waste pile 2"
