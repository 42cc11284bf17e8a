"""Tournament (engine/games/tournament.py), following 003_08087bb95aa03446.txt."""

from collections import Counter

from engine.cards import Card, new_pack
from engine.core import Game, Move
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Tournament = find_game("tournament")
IDS = [f"f{i}" for i in range(8)] + [f"r{i}" for i in range(8)] + [f"w{i}" for i in range(6)]


def board(s="", redeals=0, **piles):
    return Game.from_position(
        "tournament - " + " ".join(f"{p}:{piles.get(p, '')}" for p in IDS) + f" s:{s} redeals={redeals}"
    )


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


def test_the_deal_two_packs_eight_kibitzers_six_dormitzers_of_four():
    game = Tournament(seed=8)
    assert [len(game.piles[f"r{i}"]) for i in range(8)] == [1] * 8
    assert [len(game.piles[f"w{i}"]) for i in range(6)] == [4] * 6
    assert len(game.piles["s"]) == 72 and game.total == 104
    assert Counter(c for p in game.piles.values() for c in p.cards) == Counter(new_pack(2))
    # views never tell the two packs apart
    assert all("'" not in code for codes in game.view().piles.values() for code in codes)


def example():
    """The text's picture: the Aces of Diamonds and Spades in the kibitzers, the King of Clubs,
    the Two of Diamonds, the Four and Five of Hearts and the Two of Hearts on the dormitzers."""
    return board(
        r0="AD",
        r1="AS'",
        r3="9C",
        r4="6S",
        r5="7D",
        r6="8H",
        r7="QC",
        w0="3S5CKC",
        w1="9D2D",
        w2="4H",
        w3="5H",
        w4="TC2H",
        w5="JS",
        s="3c4c",
    )


def test_worked_example_aces_and_a_king_start_foundations():
    game = example()
    legal = moves(game)
    assert {"r0>f0", "r1>f0", "w0>f4", "w0>f7"} <= set(legal)
    assert refused(game, "w1>f0") == "does_not_fit"  # the Two of Diamonds waits for its Ace
    game.apply("r0>f0")
    game.apply("w1>f0")
    assert game.view().piles["f0"] == ("AD", "2D")


def test_worked_example_no_play_between_dormitzers_but_to_an_empty_kibitzer_or_deal():
    game = example()
    assert refused(game, "w2>w3") == "wrong_pile"  # the Four of Hearts on the Five of Hearts
    assert "w4>r2" in moves(game) and "deal" in moves(game)
    game.apply("w4>r2")
    assert game.view().piles["r2"] == ("2H",)


def test_one_ace_foundation_and_one_king_foundation_per_suit():
    game = board(f0="AD", f4="KS", r0="AD'", r1="KS'", r2="AS", r3="KD")
    assert refused(game, "r0>f1") == "does_not_fit"  # Diamonds already have their Ace pile
    assert refused(game, "r1>f5") == "does_not_fit"
    assert {"r2>f1", "r3>f5"} <= set(moves(game))


def test_king_foundations_build_down_in_suit_and_ace_foundations_up():
    game = board(f0="AH2H", f4="KC", r0="QC", r1="3H", r2="QD", r3="3D")
    assert {"r0>f4", "r1>f0"} <= set(moves(game))
    assert refused(game, "r2>f4") == "does_not_fit"
    assert refused(game, "r3>f0") == "does_not_fit"


def test_cards_pass_between_the_ace_and_king_foundations_of_a_suit_when_they_meet():
    game = board(f0="AH2H3H4H5H6H", f4="KHQHJHTH9H8H7H")
    assert moves(game) == ["f0>f4", "f4>f0"]
    game.apply("f4>f0")
    assert game.view().piles["f0"][-1] == "7H" and game.cleared == 13
    assert refused(game, "f0>f5") == "does_not_fit"  # never onto an empty foundation


def test_a_kibitzer_holds_one_card_and_is_filled_only_from_a_dormitzer():
    game = board(r0="9C", r1="", r2="5D", w0="8S")
    assert refused(game, "w0>r0") == "does_not_fit"
    assert refused(game, "r2>r1") == "wrong_pile"
    assert refused(game, "r0>w0") == "wrong_pile"
    game.apply("w0>r1")


def test_an_emptied_dormitzer_gets_four_new_cards_at_once():
    game = board(w0="AC", w1="9S", w2="9S", w3="9S", w4="9S", w5="9S", s="2c3c4c5c6c")
    revealed = game.apply("w0>f0")
    assert [r.pile for r in revealed] == ["w0"] * 4
    assert game.view().piles["w0"] == ("6C", "5C", "4C", "3C")  # the stock's top card first
    assert game.view().piles["s"] == ("??",)


def test_deal_puts_four_cards_on_each_dormitzer():
    game = board(**{f"w{i}": "9S" for i in range(6)}, s="2c" * 26)
    game.apply("deal")
    assert [len(game.piles[f"w{i}"]) for i in range(6)] == [5, 5, 5, 5, 5, 5]
    assert len(game.piles["s"]) == 2


def test_two_redeals_gather_the_dormitzers():
    game = board(w0="9S8S", w1="7D")
    assert refused(game, "deal") == "stock_empty"
    game.apply("redeal")
    assert game.redeals == 1
    # the gathered cards were dealt out again at once: w0 gets the first four
    assert game.view().piles["w0"] == ("9S", "8S", "7D") and len(game.piles["s"]) == 0
    game.apply("redeal")
    assert refused(game, "redeal") == "no_redeal"


def test_the_second_copy_is_told_apart_in_the_position_but_not_in_the_view():
    game = board(r0="AS'", r1="AS")
    assert "r0:AS'" in game.position()
    assert game.view().piles["r0"] == game.view().piles["r1"] == ("AS",)
    game.apply(Move.parse("r0>f0"))
    assert game.piles["f0"].cards == [Card.parse("AS'")]


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_name_kibitzers_and_dormitzers():
    game = example()
    assert refusal(game, "w1>f0") == "the 2♦ cannot go on foundation 1: an empty Ace foundation takes an Ace"
    assert refusal(game, "w2>w3") == "cards cannot be played to dormitzer 4"
    assert refusal(game, "r3>r2") == "kibitzer 3 takes cards only from a dormitzer"
    assert game.describe("r0>f0") == "the A♦ from kibitzer 1 to foundation 1"
    assert game.describe("w4>r2") == "the 2♥ from dormitzer 5 to kibitzer 3"
    assert game.describe("deal") == "deal four cards to each dormitzer"
    game = board(f0="AD", f4="KC", r0="AD'", w0="KC'")
    assert refusal(game, "r0>f1") == "the A♦ cannot start foundation 2: diamonds already have an Ace foundation"
    assert game.describe("redeal") == "gather the dormitzers into a new stock"


def test_a_kibitzers_king_that_would_end_its_ace_foundation_is_not_collected_while_no_king_foundation_waits():
    """Collect (`safe_moves`) plays a kibitzer's card up, but not a King onto its Ace foundation at
    the Queen while the suit has no King foundation: started there instead, the King meets the
    Queen and the two foundations can trade, taking the other copies in either order. Once a
    King foundation of the suit is started, ending the Ace foundation is safe again (and so, the
    other way round, for an Ace onto a King foundation at the Two)."""
    clubs = "AC2C3C4C5C6C7C8C9CTCJCQC"
    game = board(f0=clubs, r0="KC", r1="5D", f1="AD2D3D4D")
    safe = sorted(str(m) for m in game.safe_moves())
    assert "r0>f0" not in safe and "r0>f4" in safe and "r1>f1" in safe
    assert "r0>f0" in moves(game)  # (still a legal move: the player may choose it)
    started = board(f0=clubs, r0="KC", f4="KC'")
    assert "r0>f0" in [str(m) for m in started.safe_moves()]
    spades_down = "KSQSJSTS9S8S7S6S5S4S3S2S"
    ace = board(f4=spades_down, r2="AS")
    assert "r2>f4" in moves(ace)
    assert sorted(str(m) for m in ace.safe_moves()) == ["r2>f0", "r2>f1", "r2>f2", "r2>f3"]  # (not r2>f4)
