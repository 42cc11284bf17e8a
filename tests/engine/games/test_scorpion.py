"""Scorpion (engine/games/scorpion.py), following 003_08087bb95aa03446.txt."""

from engine.cards import Card
from engine.core import Game, Reveal
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Scorpion = find_game("scorpion")


def board(stock="", **piles):
    ids = [f"t{i}" for i in range(7)]
    return Game.from_position("scorpion - " + " ".join(f"{p}:{piles.get(p, '')}" for p in ids) + f" s:{stock}")


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


SUIT = "KQJT98765432A"


def full(suit):
    return "".join(r + suit for r in SUIT)


def test_the_deal_makes_seven_piles_of_seven_with_three_face_down_in_the_first_four():
    game = Scorpion(seed=4)
    assert [len(game.piles[f"t{i}"]) for i in range(7)] == [7] * 7
    assert [game.piles[f"t{i}"].down for i in range(7)] == [3, 3, 3, 3, 0, 0, 0]
    assert game.view().piles["t0"][:4] == ("??", "??", "??", game.piles["t0"].cards[3].code)
    assert len(game.piles["s"]) == 3 and game.view().piles["s"] == ("??",) * 3


def test_worked_example_the_queen_of_hearts_takes_four_cards_along_onto_the_king():
    game = board(t0="KH", t2="5C3H", t5="9C8DQHJS2H6S4D", t6="7C")
    assert "t5>t0x5" in moves(game)
    game.apply("t5>t0x5")
    assert game.view().piles["t0"] == ("KH", "QH", "JS", "2H", "6S", "4D")
    assert game.view().piles["t5"] == ("9C", "8D")
    # Then the Two of Hearts, now on the first pile, goes onto the Three of Hearts with its load.
    game.apply("t0>t2x3")
    assert game.view().piles["t2"] == ("5C", "3H", "2H", "6S", "4D")
    assert game.view().piles["t0"] == ("KH", "QH", "JS")


def test_a_card_goes_only_on_the_next_higher_card_of_its_suit():
    game = board(t0="9H", t1="8S", t2="7H")
    assert refused(game, "t1>t0") == "does_not_fit"
    assert refused(game, "t2>t0") == "does_not_fit"
    assert refused(game, "t0>t3") == "does_not_fit"  # only a King fills a space


def test_nothing_is_played_on_an_ace():
    game = board(t0="AS", t1="KS", t2="2S")
    assert not [m for m in moves(game) if m.endswith(">t0")]


def test_a_king_with_its_load_moves_to_an_empty_pile_but_not_from_the_bottom():
    game = board(t0="3CKD4S", t1="KS2H", t2="")
    assert "t0>t2x2" in moves(game)
    assert refused(game, "t1>t2x2") == "does_not_fit"  # the King already heads t1
    game.apply("t0>t2x2")
    assert game.view().piles["t2"] == ("KD", "4S")


def test_a_face_down_card_left_on_top_is_turned_up():
    game = board(t0="kc4H", t1="5H")  # KC face down under the Four of Hearts
    revealed = game.apply("t0>t1")
    assert revealed == (Reveal("t0", 0, Card.parse("KC")),)
    assert game.view().piles["t0"] == ("KC",)


def test_face_down_cards_cannot_move():
    game = board(t0="4hqc", t1="5H")
    assert refused(game, "t0>t1x2") == "face_down"


def test_deal_puts_the_three_stock_cards_on_the_first_three_piles_only_when_no_move_is_left():
    game = board(t0="9H", t1="8H", t2="2C", t3="5D", stock="4s3s2s")
    assert moves(game) == ["t1>t0"]
    assert refused(game, "deal") == "not_now"
    game.apply("t1>t0")
    assert moves(game) == ["deal"]
    game.apply("deal")
    assert [game.view().piles[f"t{i}"][-1] for i in range(3)] == ["2S", "3S", "4S"]
    assert refused(game, "deal") == "stock_empty"


def test_cleared_counts_suit_runs_down_from_a_king_at_the_bottom_of_a_pile():
    game = board(t0="KHQHJH5C", t1="2DKS", t2="KCQD", t3="QS")
    assert game.cleared == 3 + 0 + 1
    game = board(t0="kdQD")  # a face-down King does not count
    assert game.cleared == 0


def test_four_full_suits_from_king_to_ace_win():
    game = board(t0=full("C"), t1=full("D"), t2=full("H"), t3=full("S")[:-4], t4="2SAS")
    assert game.cleared == 50 and not game.won
    game.apply("t4>t3x2")
    assert game.won and game.over and game.cleared == 52


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(t0="kh3d4c8S7S", t1="9S", t2="QH", stock="2c3c4c")
    assert refusal(game, "t0>t1") == (
        "the 7♠ cannot go on the 9♠: a card goes only on the next higher card of its suit"
    )
    assert refusal(game, "t0>t3") == "only a King may fill an empty tableau pile"
    assert refusal(game, "t0>t1x3") == "tableau pile 1 has only 2 face-up cards"  # the 4♣ stays unnamed
    assert refusal(game, "t1>t0x3") == "tableau pile 2 has only 1 card"
    assert refusal(game, "deal") == "deal only when no other move is left"
    assert game.describe("t0>t1x2") == "the 8♠ and the 7♠ from tableau pile 1 to tableau pile 2"
    game = board(t0="8S", t1="KH", t2="QS", stock="2c3c4c")
    assert game.describe("deal") == "deal the three stock cards to tableau piles 1, 2 and 3"
