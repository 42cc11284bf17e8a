"""Calculation (engine/games/calculation.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.cards import Rank
from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Calculation = find_game("calculation")
PILES = ("f0", "f1", "f2", "f3", "t0", "t1", "t2", "t3", "s", "w")


def board(**piles):
    """A Calculation position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("calculation - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_lays_out_ace_two_three_four_and_turns_up_the_first_stock_card():
    game = Calculation(seed=3)
    order = shuffled("calculation", 3)
    assert [game.piles[f"f{i}"].cards[0].rank for i in range(4)] == [Rank.ACE, Rank.TWO, Rank.THREE, Rank.FOUR]
    firsts = [next(c for c in order if c.rank == r) for r in (1, 2, 3, 4)]
    assert [game.piles[f"f{i}"].cards[0] for i in range(4)] == firsts
    rest = [c for c in order if c not in firsts]
    assert game.piles["w"].cards == rest[:1] and len(game.piles["s"]) == 47
    assert game.cleared == 4 and list(game.view().piles["s"]) == ["??"] * 47


def test_the_worked_example_four_on_the_deuce_then_the_six_on_either_foundation_not_the_ace():
    game = board(f0="AC", f1="2D", f2="3H", f3="4S", t0="4C", t2="AD", w="6S", s="9h")
    game.apply("t0>f1")  # the Four on the second foundation's Deuce
    assert Move.parse("w>f1") in game.legal_moves() and Move.parse("w>f2") in game.legal_moves()
    for f in ("f0", "f1", "f2", "f3"):
        assert refused(game, f"t2>{f}") == "does_not_fit"  # the Ace is not playable yet
    revealed = game.apply("w>f2")
    assert [(r.pile, str(r.card)) for r in revealed] == [("w", "9H")]  # the next card turns up


def test_each_foundation_counts_in_its_own_step_past_the_king():
    twos = "2D4C6H8STCQDAS3H5D7C9HJS"
    game = board(f0="AC", f1=twos, f2="3H6S9DQC", f3="4S8HQD3C7SJD2H6C", t0="KH", t1="2C", t2="TS", t3="2S")
    game.apply("t0>f1")  # Jack + 2 is King
    assert refused(game, "t3>f1") == "does_not_fit"  # thirteen cards: the foundation is full
    game.apply("t1>f2")  # Queen + 3 counts on past the King to Two
    game.apply("t2>f3")  # Six + 4 is Ten


def test_suits_never_matter():
    game = board(f0="AC", f1="2D", f2="3H", f3="4S", t0="2H")
    game.apply("t0>f0")


def test_the_turned_card_goes_to_a_waste_pile_on_any_card_but_not_between_waste_piles():
    game = board(f0="AC", f1="2D", f2="3H", f3="4S", t0="KH", w="9S", s="5c")
    game.apply("w>t0")
    assert game.view().piles["t0"] == ("KH", "9S") and game.view().piles["w"] == ("5C",)
    assert refused(game, "t0>t1") == "wrong_pile"
    assert refused(game, "deal") == "not_now"
    assert refused(game, "redeal") == "no_redeal"


def test_a_lost_game_is_over_when_the_stock_is_out_and_nothing_plays():
    game = board(f0="AC", f1="2D", f2="3H", f3="4S", t0="KH")
    assert game.over and not game.won


# ------------------------------------------------------------------------------------ in words


def test_the_waste_piles_and_the_turned_card_keep_the_texts_names():
    game = board(f0="AS", f1="2H", f2="3C", f3="4D", w="6H", t0="9C", s="kc")
    assert refusal(game, "w>f1") == (
        "the 6♥ cannot go on the 2♥ on foundation 2: build up by two regardless of suit (counting on from King to Ace)"
    )
    assert refusal(game, "t0>t1") == "waste pile 2 takes no card from a waste pile"
    assert refusal(game, "deal") == "the next stock card turns up by itself"
    assert game.describe("w>t1") == "the 6♥ from the turned card to waste pile 2"
