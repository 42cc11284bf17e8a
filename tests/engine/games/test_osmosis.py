"""Osmosis (engine/games/osmosis.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.core import Game
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Osmosis = find_game("osmosis")
PILES = ("f0", "f1", "f2", "f3", "r0", "r1", "r2", "r3", "s", "w")


def board(**piles):
    """An Osmosis position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("osmosis - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_makes_four_reserves_of_four_and_plays_the_first_foundation_card():
    game = Osmosis(seed=12)
    order = shuffled("osmosis", 12)
    assert [game.piles[f"r{i}"].cards for i in range(4)] == [order[4 * i : 4 * i + 4] for i in range(4)]
    assert all(game.piles[f"r{i}"].up == 1 for i in range(4))
    assert game.piles["f0"].cards == [order[16]] and len(game.piles["s"]) == 35


def test_the_worked_example_spades_in_any_order_then_the_queen_of_hearts_waits_for_its_deuce():
    game = board(f0="2S", w="2HQH6S", r0="9d4S", r1="QS", r2="KC", r3="7D", s="3c")
    game.apply("w>f0")  # the Six of Spades from the waste
    game.apply("r0>f0")  # the Four of Spades
    game.apply("r1>f0")  # the Queen of Spades
    assert not [m for m in game.legal_moves() if m.src == "w"]  # the Queen of Hearts waits
    game = board(f0="2S6S4SQS", f1="2H", w="QH", r0="KC")
    game.apply("w>f1")  # playable now: the Queen of Spades is out


def test_other_foundations_start_with_the_rank_of_the_first_card():
    game = board(f0="2S", r0="3H", r1="2D")
    assert refused(game, "r0>f1") == "does_not_fit"
    game.apply("r1>f3")


def test_a_card_goes_up_only_when_its_rank_is_on_the_first_foundation():
    game = board(f0="2S9S", f1="2H", r0="9H", r1="KH", r2="KS")
    assert refused(game, "r1>f1") == "does_not_fit"
    game.apply("r0>f1")
    game.apply("r2>f0")
    game.apply("r1>f1")


def test_deal_three_and_redeal_at_will():
    game = board(f0="2S", r0="KC", s="3h4h5h6h")
    game.apply("deal")
    assert game.view().piles["w"] == ("6H", "5H", "4H")
    game.apply("deal")
    for n in range(1, 4):
        game.apply("redeal")
        game.apply("deal")
        game.apply("deal")
    assert game.redeals == 3


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="4C8C", f1="4H", r0="as8H", r1="9H", w="5C", s="2d")
    assert refusal(game, "r1>f1") == "the 9♥ cannot go on foundation 2 until a Nine lies on foundation 1"
    assert refusal(game, "w>f1") == "the 5♣ cannot go on foundation 2: it holds hearts only"
    assert refusal(game, "r0>f2") == (
        "the 8♥ cannot go on an empty foundation: in this deal every foundation starts with a Four"
    )
    assert refusal(game, "r0>f1x2") == "reserve pile 1 has only 1 face-up card"  # not a word of the A♠
    assert game.describe("r0>f1") == "the 8♥ from reserve pile 1 to foundation 2"
