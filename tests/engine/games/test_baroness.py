"""Baroness (engine/games/baroness.py), following 003_08087bb95aa03446.txt."""

from engine.cards import Card
from engine.core import Game, Reveal
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Baroness = find_game("baroness")


def board(stock="", f0="", **piles):
    """A Baroness position: the named tableau piles as given, the stock face down (write it in
    lower case, bottom to top), every other pile empty."""
    ids = [f"t{i}" for i in range(7)]
    return Game.from_position(f"baroness - f0:{f0} " + " ".join(f"{p}:{piles.get(p, '')}" for p in ids) + f" s:{stock}")


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


def test_the_deal_lays_five_cards_face_up_and_leaves_47_in_the_stock():
    game = Baroness(seed=3)
    assert [len(game.piles[f"t{i}"]) for i in range(7)] == [1, 1, 1, 1, 1, 0, 0]
    assert len(game.piles["s"]) == 47 and game.view().piles["s"] == ("??",) * 47
    assert (game.cleared, game.total) == (0, 52)


def test_worked_example_four_on_nine_and_jack_on_two_then_deal():
    # The text's picture: a Four, a Nine, a Jack, a Two and a Five on top.
    game = board(t0="4S", t1="9H", t2="JC", t3="2D", t4="5C", stock="6d7d8d9dtd")
    assert moves(game) == ["t0>t1", "t1>t0", "t2>t3", "t3>t2"]
    assert refused(game, "deal") == "not_now"  # moves remain
    assert refused(game, "t4>t0") == "does_not_fit"  # the Five is not yet playable
    game.apply("t0>t1")
    game.apply("t2>t3")
    assert game.cleared == 4 and game.view().piles["f0"] == ("9H", "4S", "2D", "JC")
    assert moves(game) == ["deal"]
    revealed = game.apply("deal")
    assert [r.pile for r in revealed] == ["t0", "t1", "t2", "t3", "t4"]
    assert game.view().piles["t4"] == ("5C", "6D")


def test_a_king_is_discarded_alone_and_pairs_with_nothing():
    game = board(t0="KS", t1="AH", t2="QD")
    assert refused(game, "t0>t1") == "does_not_fit"
    game.apply("t0>f0")
    assert game.cleared == 1
    assert refused(game, "t1>f0") == "does_not_fit"  # only a King goes alone


def test_only_top_cards_are_free():
    game = board(t0="6S5C", t1="7H")
    assert refused(game, "t1>t0") == "does_not_fit"  # the Six is covered by the Five
    assert moves(game) == []


def test_nothing_moves_between_piles_or_into_a_space():
    game = board(t0="5S", t1="6H", t2="")
    assert refused(game, "t0>t2") == "empty_pile"
    assert refused(game, "t0>t1") == "does_not_fit"
    assert refused(game, "t0>t1x2") == "bad_count"


def test_the_last_two_cards_go_to_the_middle_piles_and_pair_with_the_tops():
    game = board(t0="9C", t1="3D", stock="4h8s")  # the Eight is on top, dealt first
    assert moves(game) == ["deal"]
    assert game.apply("deal") == (Reveal("t5", 0, Card.parse("8S")), Reveal("t6", 0, Card.parse("4H")))
    assert game.view().piles["t0"] == ("9C",) and not game.piles["s"].cards
    assert moves(game) == ["t0>t6", "t6>t0"]
    game.apply("t6>t0")
    assert refused(game, "deal") == "stock_empty"
    assert game.over and not game.won


def test_a_deal_covers_each_of_the_five_piles():
    game = board(t0="9C", t1="3D", stock="qsjs5h6h7h")
    game.apply("deal")
    assert [game.view().piles[f"t{i}"][-1] for i in range(5)] == ["7H", "6H", "5H", "JS", "QS"]
    assert game.view().piles["t5"] == ()


ALL_BUT_KH = "".join(f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK" if f"{r}{s}" != "KH")


def test_the_game_is_won_when_every_card_is_discarded():
    game = board(t0="KH", f0=ALL_BUT_KH)
    assert game.cleared == 51 and not game.won
    game.apply("t0>f0")
    assert game.won and game.over and game.cleared == 52


# ------------------------------------------------------------------------------------ in words


def test_refusals_name_the_pair_and_what_it_makes():
    game = board(t0="4S", t1="9H", t2="KD", t3="3C", t4="QH", stock="2c3c")
    assert refusal(game, "t0>t3") == "the 4♠ and the 3♣ make 7, not 13"
    assert refusal(game, "t3>f0") == "only a King is discarded alone: the 3♣ needs a partner to make 13"
    assert refusal(game, "t5>t0") == "tableau pile 6 is empty"
    assert refusal(game, "deal") == "deal only when no other move is left"


def test_discards_and_deals_in_words():
    game = board(t0="4S", t1="9H", t2="KD", t3="3C", t4="QH", stock="2c3c")
    assert game.describe("t0>t1") == "discard the 4♠ and the 9♥ (13 together)"
    assert game.describe("t2>f0") == "discard the K♦"
    game = board(t0="4S", t1="8H", t2="JD", t3="3C", t4="QH", stock="2c3c4c5c6c7c")
    assert game.describe("deal") == "deal a card to each of tableau piles 1 to 5"
    game = board(t0="4S", t1="8H", t2="JD", t3="3C", t4="QH", stock="2c3c")
    assert game.describe("deal") == "deal the last two cards to tableau piles 6 and 7"
