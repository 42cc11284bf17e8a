"""Strategy (engine/games/strategy.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Strategy = find_game("strategy")
PILES = ("f0", "f1", "f2", "f3", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "s", "w")


def board(**piles):
    """A Strategy position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("strategy - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_whole_pack_is_in_the_stock_and_its_top_card_is_turned_up():
    game = Strategy(seed=14)
    order = shuffled("strategy", 14)
    assert game.piles["w"].cards == order[:1] and len(game.piles["s"]) == 51


def test_the_worked_example_the_eight_of_diamonds_goes_on_the_nine_of_clubs_or_anywhere():
    game = board(t0="9C", t1="KH", w="8D", s="5h")
    assert Move.parse("w>t1") in game.legal_moves() and Move.parse("w>t4") in game.legal_moves()
    assert refused(game, "w>f0") == "not_now"
    game.apply("w>t0")
    assert game.view().piles["t0"] == ("9C", "8D") and game.view().piles["w"] == ("5H",)


def test_stage_one_aces_go_up_and_nothing_else_does():
    game = board(f0="AS", t0="2S", w="AH", s="2h")
    assert refused(game, "w>t1") == "not_now"  # an Ace goes to a foundation
    assert refused(game, "t0>f0") == "not_now"  # waste piles wait for stage two
    game.apply("w>f1")
    assert refused(game, "w>f1") == "not_now"  # the Deuce of Hearts waits on a waste pile
    game.apply("w>t1")
    assert game.stage == 2


def test_stage_two_plays_waste_tops_up_in_suit_and_nothing_moves_between_waste_piles():
    game = board(f0="AS", t0="3S", t1="2S", t2="4H")
    assert refused(game, "t0>t2") == "wrong_pile"
    assert refused(game, "t0>f0") == "does_not_fit"
    game.apply("t1>f0")
    game.apply("t0>f0")
    assert game.over and not game.won


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="AS", t0="2S", w="AH", s="2h")
    assert refusal(game, "w>t1") == "an Ace goes straight to a foundation"
    assert refusal(game, "t0>f0") == "the waste piles play off only once every card is placed"
    assert game.describe("w>f1") == "the A♥ from the turned card to foundation 2"
    game = board(f0="AS", t0="2S", w="4H", s="2h")
    assert refusal(game, "w>f1") == "only Aces go to the foundations until every card is placed"
    assert game.describe("w>t1") == "the 4♥ from the turned card to waste pile 2"
