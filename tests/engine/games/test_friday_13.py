"""Friday 13 (engine/games/friday_13.py), following 001_1b1f3c1dc9fc716f.txt."""

from engine.cards import Rank
from engine.core import Game, Move
from engine.games import find_game
from tests.engine.helpers import refused

Friday13 = find_game("friday_13")
OPENING = "f0:JS f1:QS f2:KS f3:AS"


def board(foundations=OPENING, w="", s="", redeals=0):
    given = dict(word.split(":") for word in foundations.split())
    piles = " ".join(f"f{i}:{given.get(f'f{i}', '')}" for i in range(13))
    return Game.from_position(f"friday_13 - {piles} s:{s} w:{w} redeals={redeals}")


def test_the_deal_puts_a_jack_queen_king_and_ace_on_the_first_four_foundations():
    game = Friday13(seed=13)
    assert [game.piles[f"f{i}"].top.rank for i in range(4)] == [Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE]
    assert all(not game.piles[f"f{i}"].cards for i in range(4, 13))
    assert len(game.piles["s"]) == 48 and game.cleared == 4
    assert game.view().piles["s"] == ("??",) * 48


def test_worked_example_a_two_starts_its_foundation_at_once_but_a_four_must_wait():
    game = board(w="4C2H")
    assert Move.parse("w>f4") in game.legal_moves()  # the Two foundation: J, Q, K, A are filled
    game.apply("w>f4")
    assert refused(game, "w>f6") == "does_not_fit"  # the Four waits for the Three foundation
    game = board(OPENING + " f4:2D f5:3D", w="4C")
    game.apply("w>f6")
    assert game.view().piles["f6"] == ("4C",)


def test_an_empty_foundation_takes_only_its_own_rank():
    game = board(w="5C")
    assert refused(game, "w>f4") == "does_not_fit"
    game = board(OPENING + " f4:2D f5:3D f6:4D", w="6C")
    assert refused(game, "w>f7") == "does_not_fit"


def test_foundations_build_up_regardless_of_suit():
    game = board(w="4H2D")
    assert {"w>f3", "w>f4"} <= {str(m) for m in game.legal_moves()}  # the Two on the Ace too
    game.apply("w>f3")
    assert game.view().piles["f3"] == ("AS", "2D")
    assert refused(game, "w>f2") == "does_not_fit"  # a Four is not on a King


def test_nothing_goes_on_a_king():
    game = board(w="AD")
    assert refused(game, "w>f2") == "does_not_fit"


def test_one_redeal_turns_the_waste_back_into_the_stock():
    game = board(w="9C", s="")
    game.apply("redeal")
    assert game.redeals == 1 and len(game.piles["s"]) == 1
    game.apply("deal")
    assert refused(game, "redeal") == "no_redeal"
    assert game.over and not game.won


def full_foundations(tens_on_f12):
    labels = ["J", "Q", "K", "A", "2", "3", "4", "5", "6", "7", "8", "9"]
    piles = {f"f{i}": "".join(r + s for s in "CDHS") for i, r in enumerate(labels)}
    piles["f12"] = tens_on_f12
    return piles


def test_all_cards_home_with_every_foundation_started_wins():
    piles = full_foundations("TCTDTH")
    game = board(" ".join(f"{p}:{c}" for p, c in piles.items()), w="TS")
    assert game.cleared == 51
    game.apply("w>f11")  # the last Ten on a Nine
    assert game.won and game.cleared == 52


def test_all_cards_home_with_a_foundation_empty_is_lost_and_counts_51():
    piles = full_foundations("")
    piles["f11"] += "TCTDTHTS"  # every Ten went on a Nine: the Ten foundation stayed empty
    game = board(" ".join(f"{p}:{c}" for p, c in piles.items()))
    assert game.cleared == 51 and not game.won and game.over
