"""Eight Off (engine/games/eight_off.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

EightOff = find_game("eight_off")
PILES = tuple(EightOff(0).piles)


def board(**piles):
    """An Eight Off position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("eight_off - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_deal_fills_four_cells_and_eight_piles_of_six_with_no_stock():
    game = EightOff(seed=9)
    order = shuffled("eight_off", 9)
    assert [game.piles[f"c{i}"].cards for i in range(8)] == [[c] for c in order[:4]] + [[]] * 4
    assert [game.piles[f"t{i}"].cards for i in range(8)] == [order[4 + 6 * i : 10 + 6 * i] for i in range(8)]
    assert "s" not in game.piles and refused(game, "deal") == "unknown_action"


def test_the_worked_example_jack_on_queen_frees_the_six_then_seven_eight_and_the_deuce():
    game = board(f0="AS2S3S4S5S", f1="AH", t0="2H7S", t1="6SJS", t6="QS", c0="8S", t3="KD")
    game.apply("t1>t6")  # the Jack of Spades on the Queen of Spades
    game.apply("t1>f0")  # frees the Six of Spades
    game.apply("t0>f0")  # the Seven of Spades, already free
    game.apply("c0>f0")  # the Eight of Spades from the cells
    game.apply("t0>f1")  # and now the Deuce of Hearts
    assert game.cleared == 10


def test_the_tableau_builds_down_in_suit_one_card_at_a_time():
    game = board(t0="QS", t1="JH", t2="JS", t3="6H5H")
    assert refused(game, "t1>t0") == "does_not_fit"
    game.apply("t2>t0")
    assert refused(game, "t3>t4x2") == "bad_count"


def test_a_cell_holds_one_card_from_the_tableau():
    game = board(t0="QS", t1="JH", c0="2D")
    assert refused(game, "t0>c0") == "does_not_fit"
    game.apply("t0>c1")
    assert refused(game, "c1>c2") == "wrong_pile"
    assert refused(game, "t1>c1") == "does_not_fit"


def test_an_empty_tableau_pile_takes_only_a_king():
    game = board(t0="QS", c0="KD")
    assert refused(game, "t0>t1") == "does_not_fit"
    game.apply("c0>t1")
    game.apply("t0>c0")
    assert Move.parse("c0>t2") not in game.legal_moves()


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(c0="9H", t0="TH", t2="JS")
    assert refusal(game, "t0>c0") == "cell 1 already holds a card"
    assert refusal(game, "c0>t1") == "only a King may fill an empty tableau pile"
    assert refusal(game, "t0>t2") == "the 10♥ cannot go on the J♠: build down by one in suit"
    assert refusal(game, "c0>c1") == "cell 2 takes no card from a cell"
    assert game.describe("c0>t0") == "the 9♥ from cell 1 to tableau pile 1"
