"""Queen's Quadrille (engine/games/queens_quadrille.py), following 003_08087bb95aa03446.txt."""

from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

QueensQuadrille = find_game("queens_quadrille")
PILES = tuple(QueensQuadrille(0).piles)


def board(**piles):
    """A Queen's Quadrille position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position("queens_quadrille - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0")


def test_the_whole_pack_is_in_the_stock_and_its_top_card_is_turned_up():
    game = QueensQuadrille(seed=16)
    assert game.piles["w"].cards == shuffled("queens_quadrille", 16)[:1] and len(game.piles["s"]) == 51
    assert [p for p in game.piles if p[0] == "f"] == [f"f{i}" for i in range(8)]


def test_the_worked_example_the_seven_on_either_six_then_the_five_and_the_four_on_it():
    game = board(f0="6H", f1="6C", t0="7S", t1="4H", w="5D", s="8c")
    assert Move.parse("t0>f0") in game.legal_moves()
    game.apply("t0>f1")  # the Seven of Spades on either Six
    assert Move.parse("w>f7") in game.legal_moves()
    game.apply("w>f2")  # the Five of Diamonds to any empty foundation
    game.apply("t1>f2")  # the Four of Hearts on it


def test_fives_build_down_to_the_ace_and_then_take_a_king():
    game = board(f0="5C4D3H2S", t0="AC", t1="KH", t2="KS", t3="QC")
    game.apply("t0>f0")
    game.apply("t1>f0")
    assert refused(game, "t2>f0") == "does_not_fit"  # six cards: complete
    assert refused(game, "t3>f0") == "does_not_fit"


def test_sixes_build_up_to_the_queen():
    game = board(f0="6C7D8H9STCJD", t0="AC", t3="QH", t1="KS")
    game.apply("t3>f0")  # from the Queens' pile
    assert refused(game, "t1>f0") == "does_not_fit"


def test_queens_go_only_to_the_queens_pile_and_other_cards_only_to_the_central_piles():
    game = board(w="QS", s="9h8h")
    for t in ("t0", "t1", "t2"):
        assert refused(game, f"w>{t}") == "does_not_fit"
    game.apply("w>t3")
    assert refused(game, "w>t3") == "does_not_fit"
    game.apply("w>t1")
    assert refused(game, "t1>t2") == "wrong_pile"


def test_any_empty_foundation_takes_only_a_five_or_a_six():
    game = board(w="7S", t0="6D", t1="5S", s="3h")
    assert refused(game, "w>f0") == "does_not_fit"
    game.apply("t0>f4")
    game.apply("t1>f5")
    game.apply("w>f4")


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_name_the_queens_pile_and_the_waste_piles():
    game = board(f0="5C4D3H2SAC", f1="6C7D", t0="KH", t1="KS", t3="QC", w="QS", s="9h8h")
    assert refusal(game, "w>t0") == "a Queen goes only on the Queens' pile"
    assert refusal(game, "t0>t3") == "the Queens' pile takes no card from a waste pile"
    assert refusal(game, "t1>f1") == (
        "the K♠ cannot go on the 7♦ on foundation 2: it builds up by one from its Six to the Queen, regardless of suit"
    )
    assert refusal(game, "t0>f2") == (
        "the K♥ cannot go on an empty foundation: a foundation starts with a Five or a Six"
    )
    assert game.describe("w>t3") == "the Q♠ from the turned card to the Queens' pile"
    assert game.describe("t0>f0") == "the K♥ from waste pile 1 to foundation 1"
    game = board(f0="5C4D3H2SACKD", t1="KS", w="9S", s="9h8h")
    assert refusal(game, "t1>f0") == "foundation 1 is complete"


def test_the_piles_keep_the_texts_names():
    names = [QueensQuadrille.pile_name(p) for p in ("t0", "t2", "t3", "w", "s", "f7")]
    assert names == [
        "waste pile 1",
        "waste pile 3",
        "the Queens' pile",
        "the turned card",
        "the stock",
        "foundation 8",
    ]
