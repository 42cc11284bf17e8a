"""Pyramid (engine/games/pyramid.py), following 003_08087bb95aa03446.txt."""

from engine.cards import Card
from engine.core import Game, Move, Reveal
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Pyramid = find_game("pyramid")

# Rows 0-5 of a pyramid (r0..r20) in which no two cards add up to 13 and there is no King;
# r20 is the Jack of Diamonds of the text's example.
UPPER = [
    "AD",
    "AH",
    "AS",
    "2D",
    "2H",
    "2S",
    "3C",
    "3H",
    "3S",
    "4C",
    "4H",
    "4S",
    "5C",
    "5D",
    "5H",
    "6D",
    "6H",
    "6S",
    "7C",
    "TD",
    "JD",
]
# The text's bottom row: the Five of Spades, ..., the Jack of Hearts, the Ace of Clubs, the Deuce of Clubs.
BOTTOM = ["5S", "9C", "9D", "JH", "9S", "AC", "2C"]


def board(rows=UPPER + BOTTOM, d="", w="", stock="", f0=""):
    piles = " ".join(f"r{i}:{rows[i] if i < len(rows) else ''}" for i in range(28))
    return Game.from_position(f"pyramid - f0:{f0} {piles} s:{stock} d:{d} w:{w}")


def test_the_deal_builds_a_pyramid_of_28_and_turns_up_the_deck_card():
    game = Pyramid(seed=5)
    assert all(len(game.piles[f"r{i}"]) == 1 for i in range(28))
    assert len(game.piles["s"]) == 23 and len(game.piles["d"]) == 1 and not game.piles["w"].cards
    assert game.view().piles["s"] == ("??",) * 23
    assert game.view().piles["d"] != ("??",)


def test_worked_example_five_on_the_eight_of_the_deck():
    game = board(d="8H", w="JC", stock="qs")
    assert Move.parse("r21>d") in game.legal_moves()
    game.apply("r21>d")
    assert game.view().piles["f0"] == ("8H", "5S") and game.cleared == 2


def test_worked_example_the_deuce_pairs_with_either_free_jack_but_not_the_covered_one():
    game = board(d="8H", w="JC")
    assert Move.parse("r27>w") in game.legal_moves()
    assert Move.parse("r27>r24") in game.legal_moves()
    # The Ace of Clubs still covers the Jack of Diamonds (r20) in part.
    assert refused(game, "r27>r20") == "wrong_pile"
    assert refused(game, "r20>r27") == "wrong_pile"


def test_a_card_covered_only_by_its_partner_pairs_with_it():
    game = board(w="QS")
    game.apply("r26>w")  # the Ace of Clubs goes with the Queen of Spades
    assert game.cleared == 2
    assert {"r27>r20", "r20>r27"} <= {str(m) for m in game.legal_moves()}
    game.apply("r20>r27")
    assert not game.piles["r20"].cards and not game.piles["r27"].cards


def test_a_free_king_is_discarded_alone_from_the_pyramid_the_deck_or_the_waste():
    rows = UPPER + BOTTOM[:-1] + ["KC"]
    game = board(rows=rows, d="KD", w="KH")
    for src in ("r27", "d", "w"):
        assert Move(src=src, dst="f0") in game.legal_moves()
    assert refused(game, "r20>f0") == "wrong_pile"  # not free
    assert refused(game, "r21>f0") == "does_not_fit"  # not a King


def test_deal_only_when_no_pair_is_left_then_the_deck_card_goes_to_the_waste():
    game = board(rows=UPPER + ["5S", "9C", "9D", "7H", "9S", "8C", "8D"], d="8H", stock="2s3s")
    assert refused(game, "deal") == "not_now"  # r21 (5S) pairs with the Eight
    revealed = game.apply("r21>d")
    assert revealed[-1] == Reveal("d", 0, Card.parse("3S"))  # the next deck card turns up
    assert [str(m) for m in game.legal_moves()] == ["deal"]
    game.apply("deal")
    assert game.view().piles["w"] == ("3S",) and game.view().piles["d"] == ("2S",)


def test_the_deck_runs_out_once_and_there_is_no_redeal():
    game = board(rows=UPPER + ["TC", "9C", "9D", "7H", "9S", "8C", "8D"], d="QC", stock="")
    game.apply("deal")
    assert game.view().piles["w"] == ("QC",) and not game.piles["d"].cards
    assert refused(game, "deal") == "stock_empty"
    assert refused(game, "redeal") == "unknown_action"
    assert game.over and not game.won


def test_a_deal_reveals_the_next_deck_card():
    game = board(rows=UPPER + ["TC", "9C", "9D", "7H", "9S", "8C", "8D"], d="QC", stock="2s3s")
    assert game.apply("deal") == (Reveal("w", 0, Card.parse("QC")), Reveal("d", 0, Card.parse("3S")))


def test_nothing_moves_into_a_space_or_between_unrelated_piles():
    game = board(d="8H")
    game.apply("r21>d")
    assert refused(game, "r22>r21") == "empty_pile"
    assert refused(game, "r22>r23") == "does_not_fit"
    assert refused(game, "s>r22") == "wrong_pile"


# ------------------------------------------------------------------------------------ in words


def test_refusals_name_the_pair_and_what_it_makes():
    game = board(d="8H", w="JC", stock="qs")
    assert refusal(game, "r21>r22") == "the 5♠ and the 9♣ make 14, not 13"
    assert refusal(game, "r20>f0") == "the J♦ is still covered"
    assert refusal(game, "r27>f0") == "only a King is discarded alone: the 2♣ needs a partner to make 13"
    assert refusal(game, "deal") == "deal only when no other move is left"


def test_a_discard_is_described_by_its_cards():
    game = board(d="8H", w="JC", stock="qs")
    assert game.describe("r21>d") == "discard the 5♠ and the 8♥ (13 together)"
    game = board(rows=UPPER + ["5S", "9C", "9D", "JH", "9S", "AC", "KC"], d="8H", w="JC", stock="qs")
    assert game.describe("r27>f0") == "discard the K♣"
    game = board(rows=UPPER + ["5S", "9C", "9D", "JH", "9S", "AC", "3C"], d="3H", w="5D", stock="qs")
    assert game.describe("deal") == "put the 3♥ on the waste and turn up the next deck card"


def test_the_pyramid_cards_are_named_by_row_and_place():
    assert [Pyramid.pile_name(p) for p in ("r0", "r1", "r2", "r27", "f0", "d")] == [
        "row 1, card 1",
        "row 2, card 1",
        "row 2, card 2",
        "row 7, card 7",
        "the foundation",
        "the deck card",
    ]
