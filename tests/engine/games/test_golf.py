"""Golf (engine/games/golf.py), following 003_08087bb95aa03446.txt and its worked example."""

from engine.cards import Card
from engine.core import Game, Move, Reveal
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Golf = find_game("golf")
PILES = ("f0", "r0", "r1", "r2", "r3", "r4", "r5", "r6", "s")


def board(queen_on_king=True, **piles):
    """A Golf position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position(
        f"golf queen_on_king={int(queen_on_king)} "
        + " ".join(f"{pid}:{piles.get(pid, '')}" for pid in PILES)
        + " redeals=0"
    )


# ------------------------------------------------------------------------------------ the deal


def test_the_deal_makes_seven_face_up_reserve_piles_of_five_and_turns_one_card_to_the_foundation():
    game = Golf(seed=42)
    order = shuffled("golf", 42)
    for i in range(7):
        pile = game.piles[f"r{i}"]
        assert pile.cards == order[5 * i : 5 * i + 5] and pile.down == 0
    assert game.piles["f0"].cards == [order[35]]
    stock = game.piles["s"]
    assert len(stock) == 16 and stock.down == 16 and stock.top == order[36]


def test_a_new_game_has_nothing_cleared_of_35():
    game = Golf(seed=42)
    assert (game.cleared, game.total, game.won, game.over) == (0, 35, False, False)


# ------------------------------------------------------------------------- the worked example


def test_the_king_of_hearts_goes_on_the_queen_of_hearts_then_the_queen_of_diamonds_on_the_king():
    game = board(f0="QH", r0="KH", r1="QD")
    game.apply("r0>f0")
    game.apply("r1>f0")
    assert game.view().piles["f0"] == ("QH", "KH", "QD")


def test_without_queen_on_king_nothing_goes_on_a_king():
    game = board(queen_on_king=False, f0="QH", r0="KH", r1="QD")
    game.apply("r0>f0")  # a King on a Queen is still one rank up
    assert Move.parse("r1>f0") not in game.legal_moves()
    assert refused(game, "r1>f0") == "does_not_fit"


def test_queen_on_king_is_on_by_default_and_recorded_in_the_position():
    assert Golf(seed=1).rule_options == {"queen_on_king": True}
    assert Golf(seed=1, queen_on_king=False).position().split(" ")[1] == "queen_on_king=0"


# ------------------------------------------------------------------------------------ playing


def test_a_card_one_rank_above_or_below_plays_whatever_its_suit():
    game = board(f0="4H", r0="5C", r1="4S", r2="3D")
    game.apply("r0>f0")  # up
    game.apply("r1>f0")  # down
    game.apply("r2>f0")  # down again
    assert game.view().piles["f0"] == ("4H", "5C", "4S", "3D")


def test_a_card_of_the_same_rank_or_two_away_does_not_play():
    game = board(f0="4H", r0="4C", r1="6S", r2="2D")
    for src in ("r0", "r1", "r2"):
        assert refused(game, f"{src}>f0") == "does_not_fit"


def test_there_is_no_wrap_between_king_and_ace():
    assert refused(board(f0="KS", r0="AH"), "r0>f0") == "does_not_fit"
    assert refused(board(f0="AH", r0="KS"), "r0>f0") == "does_not_fit"
    game = board(f0="AH", r0="2S")
    game.apply("r0>f0")


def test_only_the_top_card_of_a_reserve_pile_plays():
    game = board(f0="4H", r0="5C9D")
    assert refused(game, "r0>f0") == "does_not_fit"  # the Five is covered by the Nine
    assert refused(game, "r0>f0x2") == "bad_count"
    assert [str(m) for m in game.legal_moves()] == []


def test_playing_a_reserve_card_uncovers_the_next_one():
    game = board(f0="4H", r0="9D5C")
    game.apply("r0>f0")
    assert game.view().piles["r0"] == ("9D",)


def test_nothing_is_played_onto_a_reserve_or_from_the_foundation():
    game = board(f0="4H", r0="5C", r1="3C")
    assert refused(game, "r0>r1") == "wrong_pile"
    assert refused(game, "f0>r0") == "wrong_pile"
    assert refused(game, "s>f0") in ("wrong_pile", "no_such_pile")
    assert refused(game, "r0>t0") == "no_such_pile"
    assert refused(game, "r6>f0") == "empty_pile"


def test_deal_turns_the_next_stock_card_onto_the_foundation():
    game = board(f0="4H", r0="JC", s="2c9h")
    revealed = game.apply("deal")
    assert game.view().piles["f0"] == ("4H", "9H")
    assert revealed == (Reveal("f0", 1, Card.parse("9H")),)
    assert game.cleared == 34  # dealing clears nothing; only reserve cards count
    game.apply("deal")
    assert refused(game, "deal") == "stock_empty"


def test_there_is_no_redeal():
    assert refused(board(f0="4H", r0="JC", s="2c"), "redeal") == "no_redeal"
    assert refused(board(f0="4H", r0="JC"), "redeal") == "no_redeal"
    assert Move.parse("redeal") not in Golf(seed=3).legal_moves()


def test_cleared_counts_cards_played_from_the_reserve():
    game = Golf(seed=42)
    assert [str(m) for m in game.legal_moves()] == ["r0>f0", "r3>f0", "r6>f0", "deal"]
    game.apply("r0>f0")
    assert game.cleared == 1
    game.apply("deal")
    assert game.cleared == 1
    assert game.view().cleared == 1


def test_the_game_is_won_when_the_reserve_is_empty_even_with_stock_left():
    game = board(f0="4H", r3="5C", s="kdqd")
    assert game.cleared == 34 and not game.won
    game.apply("r3>f0")
    assert (game.cleared, game.total, game.won, game.over) == (35, 35, True, True)
    assert refused(game, "deal") == "game_over"


def test_the_game_is_lost_when_the_stock_is_empty_and_no_reserve_card_plays():
    game = board(f0="4H", r0="9C", r1="KD")
    assert game.over and not game.won and game.cleared == 33


# ------------------------------------------------------------------------------------ in words


def test_refusals_say_why_a_card_does_not_play_on_the_foundation():
    game = board(f0="KH", r0="QS", r1="AC", r2="5D", s="2c")
    assert refusal(game, "r1>f0") == "the A♣ cannot go on the K♥: Ace and King are not neighbours"
    assert refusal(game, "r2>f0") == (
        "the 5♦ cannot go on the K♥ on the foundation: build up or down by one regardless of suit"
    )
    assert refusal(game, "f0>r0") == "cards cannot be taken from the foundation"
    game = board(queen_on_king=False, f0="KH", r0="QS", s="2c")
    assert refusal(game, "r0>f0") == "the Q♠ cannot go on the K♥: in this race nothing goes on a King"


def test_the_reserve_piles_are_called_columns():
    game = board(f0="KH", r0="QS", s="2c")
    assert game.describe("r0>f0") == "the Q♠ from column 1 to the foundation"
    assert game.describe("deal") == "deal a card from the stock to the foundation"
