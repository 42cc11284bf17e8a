"""Dutchess (engine/games/dutchess.py), following 003_08087bb95aa03446.txt and its worked examples."""

from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Dutchess = find_game("dutchess")
PILES = ("f0", "f1", "f2", "f3", "r0", "r1", "r2", "r3", "t0", "t1", "t2", "t3", "s", "w")


def board(**piles):
    """A Dutchess position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("dutchess - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_duchess_is_an_alias():
    assert find_game("duchess") is Dutchess


def test_the_deal_makes_four_open_reserve_fans_of_three_and_four_piles_of_one():
    game = Dutchess(seed=4)
    order = shuffled("dutchess", 4)
    assert [game.piles[f"r{i}"].cards for i in range(4)] == [order[3 * i : 3 * i + 3] for i in range(4)]
    assert all(game.piles[f"r{i}"].down == 0 for i in range(4))
    assert [game.piles[f"t{i}"].cards for i in range(4)] == [[c] for c in order[12:16]]
    assert len(game.piles["s"]) == 36 and game.cleared == 0


def test_the_first_move_puts_a_reserve_card_on_a_foundation():
    game = Dutchess(seed=4)
    assert all(m.src[0] == "r" and m.dst[0] == "f" for m in game.legal_moves())
    assert refused(game, "deal") == "not_now"


def test_the_worked_example_the_ace_of_diamonds_starts_then_the_tableau_aces_and_the_deuce():
    game = board(r0="7HAD", r1="9S2C", r2="JC", r3="QS", t0="AC", t1="AS", t2="QH", t3="QD", s="5h")
    assert refused(game, "t0>f0") == "not_now"  # the base card comes from the reserves
    game.apply("r0>f0")  # the Ace of Diamonds
    game.apply("t0>f1")  # the Ace of Clubs
    assert refused(game, "t1>f2") == "not_now"  # the space must be filled from the reserves first
    game.apply("r3>t0")
    game.apply("t1>f2")  # the Ace of Spades
    game.apply("r0>t1")
    game.apply("r1>f1")  # the Deuce of Clubs on the Ace of Clubs
    assert game.view().piles["f1"] == ("AC", "2C")


def test_the_worked_example_the_jack_of_clubs_goes_on_either_red_queen():
    game = board(f0="AD", r2="JC", t0="5S", t1="8C", t2="QH", t3="QD")
    assert Move.parse("r2>t2") in game.legal_moves()
    game.apply("r2>t3")


def test_the_tableau_builds_down_in_alternate_colours_circularly_and_moves_whole_piles():
    game = board(f0="AD", t0="AS", t1="KH", t2="9H8S", t3="TS")
    game.apply("t1>t0")
    assert refused(game, "t2>t3") == "bad_count"
    game.apply("t2>t3x2")


def test_spaces_are_filled_freely_once_the_reserves_are_empty():
    game = board(f0="AD", t0="2D", t1="KH", t2="9S", t3="TS", w="7C")
    game.apply("t0>f0")
    game.apply("w>t0")


def test_one_redeal_is_allowed():
    game = board(f0="AD", t0="KC", s="9h")
    game.apply("deal")
    game.apply("redeal")
    game.apply("deal")
    assert refused(game, "redeal") == "no_redeal"


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(r0="8S", t0="KH", t1="", s="2c")
    assert refusal(game, "t0>f0") == "first start a foundation with a reserve card"
    game = board(f0="8S", r0="9H", t0="KH", t1="", s="2c")
    assert refusal(game, "deal") == "first fill the empty tableau pile 2 from a reserve pile"
    assert game.describe("r0>t1") == "the 9♥ from reserve pile 1 to tableau pile 2"
