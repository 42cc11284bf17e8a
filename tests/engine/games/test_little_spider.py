"""Little Spider (engine/games/little_spider.py), following 003_08087bb95aa03446.txt and its example."""

from engine.core import Game
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

LittleSpider = find_game("little_spider")
PILES = ("f0", "f1", "f2", "f3", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "s")


def board(**piles):
    """A Little Spider position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("little_spider - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_makes_eight_piles_of_one_and_a_stock_of_44():
    game = LittleSpider(seed=1)
    order = shuffled("little_spider", 1)
    assert [game.piles[f"t{i}"].cards for i in range(8)] == [[c] for c in order[:8]]
    assert len(game.piles["s"]) == 44


def test_the_worked_example_ace_and_deuce_of_hearts_and_the_king_of_clubs_go_up():
    game = board(t0="AH", t1="2H", t2="KC", t3="5D", s="9c")
    game.apply("t0>f0")
    game.apply("t1>f0")
    game.apply("t2>f1")
    assert game.view().piles["f0"] == ("AH", "2H") and game.view().piles["f1"] == ("KC",)


def test_aces_of_one_colour_and_kings_of_the_other():
    game = board(f0="AH", t0="AS", t1="AD", t2="KD", t3="KS", s="9c")
    assert refused(game, "t0>f1") == "does_not_fit"  # a black Ace after a red one
    assert refused(game, "t2>f1") == "does_not_fit"  # a red King with red Aces
    game.apply("t1>f1")
    game.apply("t3>f2")
    game = board(f0="KH", t0="KD", t1="AD", t2="AC")
    assert refused(game, "t1>f1") == "does_not_fit"  # red Kings: the Aces are black
    game.apply("t2>f1")
    game.apply("t0>f2")


def test_king_foundations_build_down_in_suit():
    game = board(f0="KS", t0="QS", t1="QC")
    assert refused(game, "t1>f0") == "does_not_fit"
    game.apply("t0>f0")


def test_stage_one_deals_one_card_on_each_pile_and_allows_no_play_between_piles():
    game = board(t0="9H", t1="8S", t3="4D", s="2c3c4c5c6c7c8c9cTc")
    assert refused(game, "t1>t0") == "not_now"
    revealed = game.apply("deal")
    assert [r.pile for r in revealed] == [f"t{i}" for i in range(8)]
    assert game.view().piles["t2"] == ("8C",)  # an empty pile gets its card too
    game.apply("deal")
    assert game.view().piles["t0"] == ("9H", "TC", "2C")


def test_stage_two_builds_up_or_down_regardless_of_suit_king_and_ace_included():
    game = board(t0="9H", t1="8S", t2="AD", t3="KC", t4="9C")
    game.apply("t1>t0")  # down
    game.apply("t4>t0")  # up
    game.apply("t3>t2")  # a King on an Ace
    assert refused(game, "t0>t3") == "does_not_fit"  # an empty pile is never filled
    assert refused(game, "deal") == "stock_empty"


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="AH", t0="AS", t1="AD", t2="KD", t3="KS", s="9c")
    assert refusal(game, "t0>f1") == (
        "the A♠ cannot start a foundation: in this deal the red Aces build up and the black Kings build down"
    )
    assert refusal(game, "t0>t1") == "no play between tableau piles until the stock is empty"
    assert game.describe("deal") == "deal a card to each tableau pile"
    game = board(f0="KS", t0="QS", t1="QC", t2="5D")
    assert refusal(game, "t1>f0") == (
        "the Q♣ cannot go on the K♠ on foundation 1: a foundation started with a King must build down by one in suit"
    )
    assert refusal(game, "t2>f1") == (
        "the 5♦ cannot go on an empty foundation: a foundation starts with an Ace or a King"
    )
    assert game.describe("t0>f0") == "the Q♠ from tableau pile 1 to foundation 1"
