"""Klondike (engine/games/klondike.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.cards import Card
from engine.core import Game, Move, Reveal
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Klondike = find_game("klondike")
PILES = ("f0", "f1", "f2", "f3", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "s", "w")


def board(redeals=0, **piles):
    """A Klondike position: the named piles as given (bottom to top, face down in lower case),
    every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position(
        "klondike - " + " ".join(f"{pid}:{piles.get(pid, '')}" for pid in PILES) + f" redeals={redeals}"
    )


def suit_run(suit):
    return "".join(rank + suit for rank in "A23456789TJQK")


# ------------------------------------------------------------------------------------ the deal


def test_the_deal_makes_a_staircase_of_seven_piles_with_the_top_cards_face_up():
    game = Klondike(seed=42)
    order = shuffled("klondike", 42)
    for i in range(7):
        pile = game.piles[f"t{i}"]
        assert len(pile) == i + 1 and pile.up == 1
    assert game.piles["t0"].cards == order[0:1]
    assert game.piles["t1"].cards == order[1:3]
    assert game.piles["t6"].cards == order[21:28]


def test_the_other_24_cards_form_the_stock_next_card_of_the_deal_on_top():
    game = Klondike(seed=42)
    order = shuffled("klondike", 42)
    stock = game.piles["s"]
    assert len(stock) == 24 and stock.down == 24
    assert stock.top == order[28] and stock.cards[0] == order[51]
    assert not game.piles["w"].cards
    assert all(not game.piles[f"f{i}"].cards for i in range(4))


def test_a_new_game_has_nothing_cleared_of_52():
    game = Klondike(seed=1)
    assert (game.cleared, game.total, game.won, game.over) == (0, 52, False, False)


# ------------------------------------------------------------------------------------- tableau


def test_the_worked_example_four_of_diamonds_on_five_of_spades_four_of_clubs_on_five_of_hearts():
    game = board(t0="5S", t1="4D", t2="5H", t3="4C")
    game.apply("t1>t0")
    game.apply("t3>t2")
    view = game.view()
    assert view.piles["t0"] == ("5S", "4D")
    assert view.piles["t2"] == ("5H", "4C")
    assert view.piles["t1"] == view.piles["t3"] == ()


def test_a_four_of_diamonds_does_not_go_on_a_five_of_hearts():
    game = board(t0="5H", t1="4D")
    assert Move.parse("t1>t0") not in game.legal_moves()
    assert refused(game, "t1>t0") == "does_not_fit"


def test_the_tableau_builds_down_by_exactly_one_rank():
    game = board(t0="5S", t1="3D", t2="6D", t3="5D")
    assert refused(game, "t1>t0") == "does_not_fit"  # two ranks down
    assert refused(game, "t2>t0") == "does_not_fit"  # up, not down
    game.apply("t0>t2")  # a black Five on a red Six


def test_only_a_king_fills_an_empty_tableau_pile():
    game = board(t0="QH", t1="KS", w="KD")
    assert refused(game, "t0>t2") == "does_not_fit"
    game.apply("t1>t2")
    game.apply("w>t1")
    assert game.view().piles["t1"] == ("KD",)
    assert game.view().piles["t2"] == ("KS",)


def test_a_run_headed_by_a_king_fills_a_space():
    game = board(t0="5cKHQSJD")
    revealed = game.apply("t0>t1x3")
    assert game.view().piles["t1"] == ("KH", "QS", "JD")
    assert revealed == (Reveal("t0", 0, Card.parse("5C")),)


def test_a_run_headed_by_a_queen_does_not_fill_a_space():
    game = board(t0="KCQHJS")
    assert refused(game, "t0>t1x2") == "does_not_fit"


def test_a_built_run_moves_as_a_block():
    game = board(t0="2d9C8H7S", t1="TD", t2="9S")
    assert Move.parse("t0>t1x3") in game.legal_moves()
    assert Move.parse("t0>t2x2") in game.legal_moves()
    game.apply("t0>t1x3")
    assert game.view().piles["t1"] == ("TD", "9C", "8H", "7S")
    assert game.view().piles["t0"] == ("2D",)


def test_part_of_a_run_may_move():
    game = board(t0="9C8H7S", t1="9S")
    game.apply("t0>t1x2")
    assert game.view().piles["t1"] == ("9S", "8H", "7S")
    assert game.view().piles["t0"] == ("9C",)


def test_a_block_must_land_where_its_bottom_card_fits():
    game = board(t0="9C8H7S", t1="9D")
    assert refused(game, "t0>t1x2") == "does_not_fit"  # 8H on 9D: same colour


def test_a_broken_run_does_not_move_as_a_block():
    game = board(t0="9C8C", t1="TH")
    assert Move.parse("t0>t1x2") not in game.legal_moves()
    assert refused(game, "t0>t1x2") == "not_a_sequence"
    game = board(t0="9C7H", t1="TH")
    assert refused(game, "t0>t1x2") == "not_a_sequence"


def test_a_block_may_not_include_face_down_cards():
    game = board(t0="9c8H", t1="TD")
    assert refused(game, "t0>t1x2") == "face_down"


def test_a_block_does_not_go_to_a_foundation():
    game = board(t0="2CAC")
    assert refused(game, "t0>f0x2") == "bad_count"


def test_the_waste_plays_one_card_at_a_time():
    game = board(w="KHQS")
    assert refused(game, "w>t0x2") == "bad_count"


def test_a_face_down_card_left_on_top_is_turned_up_and_reported():
    game = board(t0="ahjc3D", t1="4S")
    revealed = game.apply("t0>t1")
    assert revealed == (Reveal("t0", 1, Card.parse("JC")),)
    pile = game.piles["t0"]
    assert pile.up == 1 and pile.down == 1
    assert game.view().piles["t0"] == ("??", "JC")


def test_a_move_that_uncovers_a_face_up_card_reveals_nothing():
    game = board(t0="jc8D7C", t1="8H")
    assert game.apply("t0>t1") == ()


# --------------------------------------------------------------------------------- foundations


def test_foundations_start_with_an_ace_and_build_up_in_suit():
    game = board(t0="3H", t1="2D", t2="2H", t3="AH")
    assert refused(game, "t2>f0") == "does_not_fit"  # a Two may not start a foundation
    game.apply("t3>f0")
    assert refused(game, "t1>f0") == "does_not_fit"  # wrong suit
    assert refused(game, "t0>f0") == "does_not_fit"  # skips a rank
    game.apply("t2>f0")
    game.apply("t0>f0")
    assert game.view().piles["f0"] == ("AH", "2H", "3H")
    assert game.cleared == 3


def test_any_empty_foundation_takes_an_ace():
    game = board(f0="AC", t0="AS")
    game.apply("t0>f3")
    assert game.view().piles["f3"] == ("AS",)


def test_a_foundation_card_stays_on_the_foundation():
    game = board(f0="AC2C", t0="3H")
    assert refused(game, "f0>t0") == "wrong_pile"


def test_cards_never_move_from_the_stock_or_to_the_stock_or_waste():
    game = board(s="ackd", t0="AH")
    assert refused(game, "s>f0") == "wrong_pile"
    assert refused(game, "t0>s") == "wrong_pile"
    assert refused(game, "t0>w") == "wrong_pile"
    assert refused(game, "t0>t0") == "wrong_pile"
    assert refused(game, "t7>f0") == "no_such_pile"
    assert refused(game, "t1>f0") == "empty_pile"


def test_the_waste_top_card_plays_to_a_foundation():
    game = board(w="AS2S")
    assert refused(game, "w>f0") == "does_not_fit"  # the Two is on top; the Ace is covered
    game = board(w="2DAS")
    game.apply("w>f0")
    assert game.view().piles["w"] == ("2D",)


def test_all_52_cards_on_the_foundations_win():
    game = board(f0=suit_run("C"), f1=suit_run("D"), f2=suit_run("H"), f3=suit_run("S")[:-2], t0="KS")
    assert game.cleared == 51 and not game.won
    game.apply("t0>f3")
    assert (game.cleared, game.won, game.over) == (52, True, True)
    assert refused(game, "f3>t0") == "game_over"


# ---------------------------------------------------------------------------- stock and waste


def test_deal_turns_three_cards_from_the_stock_onto_the_waste():
    game = board(s="acadahasks")  # bottom to top: the King of Spades is the top card
    revealed = game.apply("deal")
    assert game.view().piles["w"] == ("KS", "AS", "AH")
    assert [r.card for r in revealed] == [Card.parse(c) for c in ("KS", "AS", "AH")]
    assert [(r.pile, r.index) for r in revealed] == [("w", 0), ("w", 1), ("w", 2)]
    assert game.view().piles["s"] == ("??", "??")
    game.apply("w>f0")  # the Ace of Hearts, dealt last, is the playable card
    game.apply("deal")  # only two cards are left: both are turned
    assert game.view().piles["w"] == ("KS", "AS", "AD", "AC")
    assert refused(game, "deal") == "stock_empty"


def test_redeal_turns_the_waste_back_into_the_stock_in_the_same_order():
    game = board(s="2c3c4c5c6c7c8c")
    first_pass = []
    while game.piles["s"].cards:
        first_pass += [r.card for r in game.apply("deal")]
    game.apply("redeal")
    assert not game.piles["w"].cards and len(game.piles["s"]) == 7
    assert game.view().piles["s"] == ("??",) * 7
    second_pass = []
    while game.piles["s"].cards:
        second_pass += [r.card for r in game.apply("deal")]
    assert second_pass == first_pass


def test_redeal_only_when_the_stock_is_empty():
    game = board(s="2c", w="3C")
    assert refused(game, "redeal") == "not_now"


def test_redeal_needs_cards_in_the_waste():
    game = board(t0="3C")
    assert refused(game, "redeal") == "empty_pile"


def test_redeals_are_unlimited():
    game = board(w="2C3C", t0="5H")
    for n in range(1, 21):
        game.apply("redeal")
        assert game.redeals == n
        game.apply("deal")
    assert "redeals=20" in game.position()


def test_the_game_is_not_over_while_a_redeal_is_possible():
    game = board(w="2C3C", t0="5H")
    assert [str(m) for m in game.legal_moves()] == ["redeal"]
    assert not game.over


def test_the_game_is_over_when_stock_and_waste_are_empty_and_nothing_moves():
    game = board(t0="5H", t1="2C")
    assert not game.legal_moves() and game.over and not game.won


def test_the_stock_never_shows_in_a_view():
    game = board(s="as2s3s4s5s")
    assert game.view().piles["s"] == ("??",) * 5


def test_a_legal_move_list_from_a_real_deal():
    game = Klondike(seed=42)
    assert [str(m) for m in game.legal_moves()] == ["deal"]
    game.apply("deal")
    assert game.view().piles["w"] == tuple(c.code for c in shuffled("klondike", 42)[28:31])


# ------------------------------------------------------------------------------------ in words


def test_a_refusal_names_the_cards_the_piles_and_the_rule_in_the_players_words():
    game = board(t0="9H", t1="kd7C", t3="ksQH9C8H", w="5D", s="ah")
    assert refusal(game, "t1>t0") == "the 7♣ cannot go on the 9♥: build down by one in alternate colours"
    assert refusal(game, "w>f1") == "the 5♦ cannot go on an empty foundation: a foundation starts with an Ace"
    assert refusal(game, "t1>t2") == "only a King may fill an empty tableau pile"
    assert refusal(game, "t3>t2x4") == "tableau pile 4 has only 3 face-up cards"  # never a word of the K♠
    assert refusal(game, "s>t0") == "cards cannot be taken from the stock"
    assert refusal(game, "w>s") == "cards cannot be played to the stock"


def test_a_move_in_words_names_a_run_by_its_bottom_card():
    game = board(t0="TC", t2="QC", t3="ksJHTS9H8C", w="5D", s="ahas2c")
    assert game.describe("t3>t0x2") == "the 9♥ and the 8♣ from tableau pile 4 to tableau pile 1"
    assert game.describe("t3>t2x4") == "the J♥ and 3 cards on it from tableau pile 4 to tableau pile 3"
    assert game.describe("deal") == "deal three cards from the stock"
