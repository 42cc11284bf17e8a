"""Four Seasons (engine/games/four_seasons.py), following 003_08087bb95aa03446.txt and its example."""

from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

FourSeasons = find_game("four_seasons")
PILES = ("f0", "f1", "f2", "f3", "t0", "t1", "t2", "t3", "t4", "s", "w")


def board(**piles):
    """A Four Seasons position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("four_seasons - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_makes_five_piles_of_one_and_plays_the_base_card():
    game = FourSeasons(seed=6)
    order = shuffled("four_seasons", 6)
    assert [game.piles[f"t{i}"].cards for i in range(5)] == [[c] for c in order[:5]]
    assert game.piles["f0"].cards == [order[5]] and len(game.piles["s"]) == 46


def test_the_worked_example_the_six_from_the_waste_and_the_clubs_built_down():
    game = board(f0="6H", w="6D", t0="5C", t1="4C", t2="3C", t3="TH", t4="TS", s="9d")
    assert Move.parse("w>f3") in game.legal_moves()  # any empty foundation
    game.apply("w>f1")  # the Six of Diamonds
    game.apply("t1>t0")  # the Four of Clubs on the Five of Clubs
    game.apply("t2>t0")  # and the Trey on the Four
    assert game.view().piles["t1"] == game.view().piles["t2"] == ()
    assert not [m for m in game.legal_moves() if m.dst in ("t3", "t4")]  # nothing plays on the Tens


def test_other_foundations_start_only_with_the_base_rank():
    game = board(f0="6H", t0="AC", t1="6S")
    assert refused(game, "t0>f1") == "does_not_fit"
    game.apply("t1>f1")


def test_the_tableau_builds_down_circularly_regardless_of_suit_one_card_at_a_time():
    game = board(f0="6H", t0="AS", t1="KS", t2="4C3D", t3="5H")
    game.apply("t1>t0")  # a King on an Ace
    assert refused(game, "t2>t3x2") == "bad_count"


def test_a_space_takes_any_card():
    game = board(f0="6H", t0="JD", t1="7H")
    game.apply("t1>f0")
    game.apply("t0>t1")


def test_one_card_at_a_time_and_no_redeal():
    game = board(f0="6H", t0="KC", s="2h")
    game.apply("deal")
    assert refused(game, "redeal") == "no_redeal"


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="7C", t0="9H", w="8S", s="2c")
    assert refusal(game, "w>f1") == (
        "the 8♠ cannot go on an empty foundation: in this deal every foundation starts with a Seven"
    )
    assert refusal(game, "w>f0") == (
        "the 8♠ cannot go on the 7♣ on foundation 1: foundations build up by one in suit (an Ace goes on a King)"
    )
    assert refusal(board(f0="7C", t0="9H", w="8S"), "redeal") == "Four Seasons has no redeal"
    assert game.describe("w>t0") == "the 8♠ from the waste to tableau pile 1"
