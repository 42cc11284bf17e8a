"""Canfield (engine/games/canfield.py), the text's historical version, and its worked example."""

from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Canfield = find_game("canfield")
PILES = ("f0", "f1", "f2", "f3", "r0", "t0", "t1", "t2", "t3", "s", "w")


def board(**piles):
    """A Canfield position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("canfield - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_makes_a_reserve_of_thirteen_four_piles_and_plays_the_base_card():
    game = Canfield(seed=8)
    order = shuffled("canfield", 8)
    reserve = game.piles["r0"]
    assert reserve.cards == order[:13] and reserve.down == 12
    assert [game.piles[f"t{i}"].cards for i in range(4)] == [[c] for c in order[13:17]]
    assert game.piles["f0"].cards == [order[17]] and game.cleared == 1
    assert len(game.piles["s"]) == 34 and game.view().piles["r0"][:12] == ("??",) * 12


def test_the_worked_example_the_reserve_four_starts_a_foundation_then_the_fives_go_on_the_fours():
    game = board(f0="4D", r0="qh4C", t0="5C", t1="9S", t2="9H", t3="8S", w="5D")
    game.apply("r0>f1")  # the Four of Clubs to an empty foundation
    game.apply("w>f0")  # the Five of Diamonds on the Four of Diamonds
    game.apply("t0>f1")  # and the Five of Clubs on the Four of Clubs
    assert game.view().piles["f1"] == ("4C", "5C")


def test_the_first_foundation_card_sets_the_base_of_the_others():
    game = board(f0="4D", t0="AC", t1="4S")
    assert refused(game, "t0>f1") == "does_not_fit"
    game.apply("t1>f3")


def test_foundations_build_up_in_suit_round_the_corner_from_king_to_ace():
    game = board(f0="JDQDKD", t0="AD", t1="AS")
    assert refused(game, "t1>f0") == "does_not_fit"
    game.apply("t0>f0")


def test_the_tableau_builds_down_in_alternate_colours_round_the_corner():
    game = board(f0="5D", t0="AS", t1="KH", t2="KC", r0="9c")
    assert refused(game, "t2>t0") == "does_not_fit"  # same colour
    game.apply("t1>t0")  # a red King on a black Ace


def test_only_whole_piles_move_between_tableau_piles():
    game = board(f0="5D", t0="8S7H", t1="9H", t2="8D", r0="9c")
    assert refused(game, "t0>t2") == "bad_count"  # the Seven alone may not move
    assert Move.parse("t0>t2") not in game.legal_moves()
    game.apply("t0>t1x2")
    assert game.view().piles["t1"] == ("9H", "8S", "7H")


def test_the_top_card_of_a_tableau_pile_still_plays_to_a_foundation():
    game = board(f0="5D", t0="8S6D", r0="9c")
    game.apply("t0>f0")


def test_a_space_is_filled_from_the_reserve_at_once_then_freely_once_it_is_empty():
    game = board(f0="5D", t0="6D", t1="KS", t2="TD", t3="9C", r0="4hJS")
    revealed = game.apply("t0>f0")
    assert game.view().piles["t0"] == ("JS",) and game.view().piles["r0"] == ("4H",)
    assert [(r.pile, str(r.card)) for r in revealed] == [("t0", "JS"), ("r0", "4H")]
    game = board(f0="5D", t0="6D", t1="KS", t2="TD", t3="9C", w="2H")
    game.apply("t0>f0")
    assert game.view().piles["t0"] == ()
    game.apply("w>t0")  # the reserve is empty: any card fills the space


def test_the_reserve_plays_to_foundations_and_tableau():
    game = board(f0="5D", t0="8S", t1="KC", t2="KD", t3="KH", r0="2c7H6D", s="3h")
    game.apply("r0>f0")
    game.apply("r0>t0")
    assert game.view().piles["r0"] == ("2C",)


def test_deal_turns_three_and_redeals_are_unlimited():
    game = board(f0="5D", t0="KC", s="2h3h4h9s")
    game.apply("deal")
    assert game.view().piles["w"] == ("9S", "4H", "3H")
    game.apply("deal")
    for n in range(1, 6):
        game.apply("redeal")
        assert game.redeals == n
        while game.piles["s"].cards:
            game.apply("deal")


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="5H", r0="ks7C", t0="QD", t1="9S8D", s="2c", w="4C")
    assert refusal(game, "t1>t0") == "only the whole of tableau pile 2 (2 cards) may move to another tableau pile"
    assert refusal(game, "w>f1") == (
        "the 4♣ cannot go on an empty foundation: in this deal every foundation starts with a Five"
    )
    assert refusal(game, "r0>t0") == (
        "the 7♣ cannot go on the Q♦: build down by one in alternate colours (a King goes on an Ace)"
    )
    assert game.describe("t1>t2x2") == "the 9♠ and the 8♦ from tableau pile 2 to tableau pile 3"
