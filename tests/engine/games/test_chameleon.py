"""Chameleon (engine/games/chameleon.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.core import Game
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Chameleon = find_game("chameleon")
PILES = ("f0", "f1", "f2", "f3", "r0", "t0", "t1", "t2", "t3", "s", "w")


def board(**piles):
    """A Chameleon position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("chameleon - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_makes_a_reserve_of_thirteen_four_piles_and_plays_the_base_card():
    game = Chameleon(seed=2)
    order = shuffled("chameleon", 2)
    assert game.piles["r0"].cards == order[:13] and game.piles["r0"].up == 1
    assert [len(game.piles[f"t{i}"]) for i in range(4)] == [1] * 4
    assert game.piles["f0"].cards == [order[17]] and len(game.piles["s"]) == 34


def test_the_worked_example_king_on_ace_pulls_the_jack_then_ten_and_nine_follow():
    game = board(f0="3S", t0="AH", t1="KD", t2="TC", t3="6S", r0="5cJD", w="9S")
    revealed = game.apply("t1>t0")  # the King of Diamonds on the Ace of Hearts
    assert game.view().piles["t1"] == ("JD",)  # pulled from the reserve by itself
    assert ("t1", "JD") in [(r.pile, str(r.card)) for r in revealed]
    game.apply("t2>t1")  # the Ten of Clubs on the Jack of Diamonds
    assert game.view().piles["t2"] == ("5C",)  # the next reserve card fills that space
    game.apply("w>t1")  # the Nine of Spades from the waste
    assert game.view().piles["t1"] == ("JD", "TC", "9S")


def test_the_tableau_builds_down_regardless_of_suit_and_runs_move_together():
    game = board(f0="3S", t0="9H8H7C", t1="TC", t2="9D", t3="KS", r0="2c5C")
    game.apply("t0>t2x2")  # a partial run: the Eight and Seven onto the Nine
    game.apply("t0>t1")
    assert game.view().piles["t0"] == ("5C",)
    assert refused(game, "t2>t1x3") == "does_not_fit"  # the Nine of Diamonds on the Nine of Hearts


def test_foundations_take_the_base_rank_then_build_up_in_suit_circularly():
    game = board(f0="QS", t0="QH", t1="KS", t2="JH", r0="2c")
    assert refused(game, "t2>f1") == "does_not_fit"
    game.apply("t0>f1")
    game.apply("t1>f0")


def test_one_card_at_a_time_and_no_redeal():
    game = board(f0="3S", t0="KC", s="2h5d")
    game.apply("deal")
    assert game.view().piles["w"] == ("5D",)
    game.apply("deal")
    assert refused(game, "deal") == "stock_empty"
    assert refused(game, "redeal") == "no_redeal"


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="5H", r0="ks7C", t0="QD", t1="9S8D", s="2c", w="4C")
    assert refusal(game, "t1>t0x2") == (
        "the 9♠ cannot go on the Q♦: build down by one regardless of suit (a King goes on an Ace)"
    )
    assert refusal(game, "redeal") == "you may redeal only when the stock is empty"
    assert game.describe("deal") == "deal a card from the stock"
    assert refusal(board(f0="5H", r0="ks7C", w="4C"), "redeal") == "Chameleon has no redeal"
