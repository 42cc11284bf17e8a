"""Penguin (engine/games/penguin.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.core import Game
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Penguin = find_game("penguin")
PILES = tuple(Penguin(0).piles)


def board(**piles):
    """A Penguin position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("penguin - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_penguin_lies_under_the_first_pile_and_its_three_mates_go_up_at_the_deal():
    game = Penguin(seed=13)
    order = shuffled("penguin", 13)
    penguin = order[0]
    mates = [c for c in order[1:] if c.rank == penguin.rank]
    rest = [c for c in order[1:] if c.rank != penguin.rank]
    assert game.piles["t0"].cards == [penguin] + rest[:6]
    assert [game.piles[f"t{i}"].cards for i in range(1, 7)] == [rest[6 + 7 * i : 13 + 7 * i] for i in range(6)]
    assert [game.piles[f"f{i}"].cards for i in range(4)] == [[]] + [[c] for c in mates]
    assert game.cleared == 3 and all(not game.piles[f"c{i}"].cards for i in range(7))


def test_the_worked_example_the_jack_of_hearts_goes_up_and_a_cell_frees_the_jack_of_clubs():
    game = board(f0="JD", f1="JS", t0="KD", t1="5DJH", t6="9CJC3H", t2="4S")
    game.apply("t1>f2")  # the Jack of Hearts to a foundation
    assert refused(game, "t6>f3") == "does_not_fit"  # the Trey covers the Jack of Clubs
    game.apply("t6>c0")  # the Trey of Hearts to a cell
    game.apply("t6>f3")  # frees the Jack of Clubs


def test_foundations_build_up_in_suit_round_the_corner():
    game = board(f0="JDQDKD", f1="JS", t0="AD", t1="AS", t2="2H")
    assert refused(game, "t1>f0") == "does_not_fit"
    game.apply("t0>f0")
    assert refused(game, "t2>f2") == "does_not_fit"  # an empty foundation takes only a Jack


def test_the_tableau_builds_down_in_suit_circularly_and_runs_move_as_blocks():
    game = board(f1="JS", t0="AS", t1="KS", t2="3H2H", t3="4H", t4="KH")
    game.apply("t1>t0")  # a King on an Ace of its suit
    assert refused(game, "t4>t0") == "does_not_fit"
    game.apply("t2>t3x2")


def test_an_empty_pile_takes_only_the_rank_below_the_penguin():
    game = board(f1="JS", t0="QH", t1="TH9H", c0="KC", t2="TC")
    assert refused(game, "t0>t3") == "does_not_fit"
    assert refused(game, "c0>t3") == "does_not_fit"
    game.apply("t1>t3x2")  # a run headed by a Ten, one below the Jack
    game = board(f1="AS", t0="KH", t1="QH")
    game.apply("t0>t2")  # with an Ace penguin, a King


def test_a_cell_holds_one_card_and_plays_back_to_the_tableau():
    game = board(f1="JS", t0="5H", t1="4H", c0="2D")
    assert refused(game, "t1>c0") == "does_not_fit"
    game.apply("t1>c1")
    game.apply("c1>t0")


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f1="QH", c0="9H", t0="TH", t2="2S", t3="5D4D")
    assert refusal(game, "c0>t1") == "only a Jack may fill an empty tableau pile (one rank below the base card)"
    assert refusal(game, "t3>t0x2") == (
        "the 5♦ cannot go on the 10♥: build down by one in suit (a King goes on an Ace)"
    )
    assert refusal(game, "t0>c0") == "cell 1 already holds a card"
    assert refusal(game, "deal") == "Penguin has no stock to deal from"
    assert game.describe("t3>c1") == "the 4♦ from tableau pile 4 to cell 2"
