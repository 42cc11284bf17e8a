"""Bristol (engine/games/bristol.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Bristol = find_game("bristol")
PILES = tuple(Bristol(0).piles)


def board(**piles):
    """A Bristol position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("bristol - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_makes_eight_piles_of_three_one_card_on_each_reserve_and_a_stock_of_25():
    game = Bristol(seed=5)
    order = shuffled("bristol", 5)
    assert [len(game.piles[f"t{i}"]) for i in range(8)] == [3] * 8
    assert all(game.piles[f"t{i}"].down == 0 for i in range(8))
    assert game.piles["t0"].cards == order[:3]
    assert [game.piles[f"r{i}"].cards for i in range(3)] == [[order[24]], [order[25]], [order[26]]]
    assert len(game.piles["s"]) == 25 and game.cleared == 0


def test_the_worked_example_ace_up_either_deuce_on_it_then_trey_four_and_five():
    game = board(t7="9CAS", r0="2D", r1="2H", r2="6D", t0="3D", t1="4H", t2="5HQH", t3="KD")
    game.apply("t7>f0")  # the Ace of Spades to any foundation
    assert Move.parse("r0>f0") in game.legal_moves() and Move.parse("r1>f0") in game.legal_moves()
    game.apply("r1>f0")  # either Deuce, whatever its suit
    game.apply("t0>f0")  # Trey of Diamonds
    game.apply("t1>f0")  # Four of Hearts
    assert refused(game, "t2>f0") == "does_not_fit"  # the Queen covers the Five
    game.apply("t2>t3")  # Queen of Hearts on the King of Diamonds
    game.apply("t2>f0")
    game.apply("r2>f0")  # the Six of Diamonds from the reserves
    assert game.view().piles["f0"] == ("AS", "2H", "3D", "4H", "5H", "6D")


def test_foundations_start_with_aces_and_ignore_suits_but_not_rank():
    game = board(t0="2C", t1="AH", t2="3S")
    assert refused(game, "t0>f0") == "does_not_fit"
    game.apply("t1>f2")
    assert refused(game, "t2>f2") == "does_not_fit"
    game.apply("t0>f2")
    game.apply("t2>f2")


def test_the_tableau_builds_down_regardless_of_suit_one_card_at_a_time():
    game = board(t0="8H", t1="7H", t2="9C8C")
    game.apply("t1>t0")
    assert refused(game, "t2>t0") == "does_not_fit"  # not down by one
    assert refused(game, "t2>t1x2") == "bad_count"


def test_an_empty_tableau_pile_is_never_filled():
    game = board(t0="8H", r0="KS")
    assert refused(game, "r0>t1") == "does_not_fit"
    assert refused(game, "t0>t1") == "does_not_fit"


def test_nothing_is_played_onto_a_reserve():
    game = board(t0="8H", r0="9S")
    assert refused(game, "t0>r0") == "wrong_pile"
    assert refused(game, "r0>t0") == "does_not_fit"  # a reserve card still builds down by rank


def test_deal_puts_one_card_on_each_reserve_and_there_is_no_redeal():
    game = board(s="7c6c5c4c", t0="KD")
    revealed = game.apply("deal")
    assert [(r.pile, str(r.card)) for r in revealed] == [("r0", "4C"), ("r1", "5C"), ("r2", "6C")]
    game.apply("deal")
    assert game.view().piles["r0"] == ("4C", "7C") and game.view().piles["r1"] == ("5C",)
    assert refused(game, "deal") == "stock_empty"
    assert refused(game, "redeal") == "no_redeal"


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="AS", t0="9C2H", r0="3D", r1="KD", s="4c")
    assert refusal(game, "t0>t1") == "an empty tableau pile is never filled"
    assert refusal(game, "r1>f0") == (
        "the K♦ cannot go on the A♠ on foundation 1: foundations build up by one regardless of suit"
    )
    assert refusal(game, "t0>r0") == "cards cannot be played to reserve pile 1"
    assert refusal(game, "redeal") == "Bristol has no redeal"
    assert game.describe("t0>f0") == "the 2♥ from tableau pile 1 to foundation 1"
    assert game.describe("deal") == "deal a card to each reserve pile"
