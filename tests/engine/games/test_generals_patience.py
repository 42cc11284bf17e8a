"""General's Patience (engine/games/generals_patience.py), following 000_9969d46f4a8b5ed6.txt."""

from engine.cards import Rank
from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

GeneralsPatience = find_game("generals_patience")
IDS = [f"f{i}" for i in range(8)] + [f"t{i}" for i in range(9)]


def board(r="", s="", w="", redeals=0, **piles):
    return Game.from_position(
        "generals_patience - "
        + " ".join(f"{p}:{piles.get(p, '')}" for p in IDS)
        + f" r:{r} s:{s} w:{w} redeals={redeals}"
    )


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


# Nine piles, none empty, no card fitting anywhere, with Sevens as the base rank.
QUIET = {
    "t0": "2C",
    "t1": "2S",
    "t2": "2D'",
    "t3": "9C",
    "t4": "9S",
    "t5": "9S'",
    "t6": "QC",
    "t7": "QS",
    "t8": "QC'",
}


def test_thirteen_is_an_alias_and_the_deal_offers_four_cards_and_shows_the_reserve():
    assert find_game("thirteen") is GeneralsPatience
    game = GeneralsPatience(seed=6)
    order = shuffled("generals_patience", 6, 2)
    assert [game.piles[f"t{i}"].cards for i in range(4)] == [[c] for c in order[:4]]
    assert game.piles["r"].cards == order[4:17]
    assert game.view().piles["r"] == tuple(c.code for c in order[4:17])  # all thirteen examined
    assert len(game.piles["s"]) == 87 and game.total == 104
    assert moves(game) == ["choose t0", "choose t1", "choose t2", "choose t3"]
    assert refused(game, "deal") == "not_now"


def test_choosing_a_card_sets_the_base_rank_and_deals_six_more_cards():
    game = GeneralsPatience(seed=6)
    chosen = game.piles["t2"].cards[0]
    revealed = game.apply("choose t2")
    assert game.piles["f0"].cards == [chosen] and game.base == chosen.rank
    assert [r.pile for r in revealed] == ["t2", "t4", "t5", "t6", "t7", "t8"]
    assert all(len(game.piles[f"t{i}"]) == 1 for i in range(9))
    assert len(game.piles["s"]) == 81
    assert refused(game, "choose t1") == "not_now"


def test_other_foundations_start_only_with_the_base_rank_and_build_up_in_suit_round_the_corner():
    game = board(f0="7H", w="7D", **QUIET)
    assert "w>f1" in moves(game)
    game = board(f0="7H8H9HTHJHQHKH", w="AH", **QUIET)
    assert "w>f0" in moves(game)  # an Ace on a King
    game = board(f0="7H", w="8D", **QUIET)
    assert refused(game, "w>f0") == "does_not_fit"
    assert refused(game, "w>f1") == "does_not_fit"


def test_a_foundation_holds_thirteen_cards():
    full = "7H8H9HTHJHQHKHAH2H3H4H5H6H"
    game = board(f0=full, w="7H'", **QUIET)
    assert refused(game, "w>f0") == "does_not_fit"
    assert "w>f1" in moves(game)


def test_the_layout_builds_down_in_alternate_colours_with_kings_on_aces():
    game = board(f0="7H", **{**QUIET, "t0": "AC", "t1": "KH", "t2": "QS", "t3": "KS"})
    assert {"t1>t0", "t2>t1"} <= set(moves(game))
    assert refused(game, "t3>t0") == "does_not_fit"  # black on black


def test_the_reserve_plays_only_its_top_card_and_only_to_the_foundations():
    game = board(f0="7H", r="7C8H", **QUIET)
    assert "r>f0" in moves(game)
    game = board(f0="7H", r="8H7C", **{**QUIET, "t8": ""})
    assert refused(game, "r>f0") == "does_not_fit"  # the Eight is not on top
    assert refused(game, "r>t8") == "wrong_pile"
    assert "r>f1" in moves(game)


def test_spaces_are_filled_from_the_layout_as_well_as_from_the_waste():
    game = board(f0="7H", w="5D", **{**QUIET, "t3": "", "t0": "9C2C"})
    assert {"w>t3", "t0>t3"} <= set(moves(game))
    assert refused(game, "t1>t3") == "does_not_fit"  # a whole one-card pile would change nothing


def test_a_piles_only_card_of_the_base_rank_starts_an_empty_foundation():
    """ "Move out the other 7 cards of the same rank when you can": a card of the base rank alone
    on a pile goes up to an empty foundation, leaving a space (rules version 2)."""
    assert GeneralsPatience.rules_version == 2
    game = board(f0="7H", **{**QUIET, "t3": "7C"})
    assert {"t3>f1", "t3>f7"} <= set(moves(game))
    game.apply("t3>f1")
    assert game.view().piles["f1"] == ("7C",)
    assert not game.piles["t3"].cards and game.cleared == 2
    game = board(f0="7H", **{**QUIET, "t0": "7S", "t3": ""})
    assert "t0>f1" in moves(game)  # with a space elsewhere too
    assert refused(game, "t0>t3") == "does_not_fit"  # but the pile still does not move to a space


def test_a_piles_only_card_goes_up_onto_a_started_foundation():
    game = board(f0="7H", f1="7C", **{**QUIET, "t3": "8C"})
    game.apply("t3>f1")
    assert not game.piles["t3"].cards and len(game.piles["f1"]) == 2


def test_an_endgame_the_text_wins_is_won():
    """Seven foundations are full, the last is empty and its base card lies alone on a pile; the
    text's "Move out the other 7 cards of the same rank when you can" lets it go up, and the
    reserve's "top card available for play only to the foundation piles" then finishes it."""

    def full(suit, mark=""):
        return "".join(f"{rank}{suit}{mark}" for rank in "789TJQKA23456")

    foundations = {
        "f0": full("H"),
        "f1": full("H", "'"),
        "f2": full("D"),
        "f3": full("D", "'"),
        "f4": full("C"),
        "f5": full("C", "'"),
        "f6": full("S"),
    }
    reserve = "".join(f"{rank}S'" for rank in reversed("89TJQKA23456"))  # the Eight on top
    game = board(r=reserve, **foundations, t0="7S'")
    assert game.cleared == 91
    game.apply("t0>f7")
    while not game.won:
        game.apply("r>f7")
    assert game.cleared == game.total == 104 and game.over


def test_each_empty_pile_doubles_the_cards_that_move_together():
    run = "8S7H6C5D"
    piles = {**QUIET, "t0": "9H" + run, "t1": "9D", "t2": "", "t3": ""}
    game = board(f0="JH", **piles)  # two spaces: up to four cards onto a pile
    assert "t0>t1x4" in moves(game)
    game = board(f0="JH", **{**piles, "t3": "3S"})  # one space: up to two
    assert refused(game, "t0>t1x4") == "bad_count"
    assert "t0>t1x4" not in moves(game) and "t0>t2x2" not in moves(game)
    assert refused(game, "t0>t2x2") == "bad_count"  # into the only space: one card at a time
    game.apply("t0>t2")


def test_one_redeal_then_each_turned_card_must_be_played_first():
    game = board(f0="7H", w="8H", s="", **{**QUIET, "t8": ""})
    game.apply("redeal")
    assert game.redeals == 1 and game.view().piles["s"] == ("??",)
    game.apply("deal")
    assert refused(game, "redeal") == "no_redeal"
    game = board(f0="7H", w="5H", s="2c", redeals=1, **{**QUIET, "t8": ""})
    assert refused(game, "deal") == "not_now"  # play the turned Five first
    game.apply("w>t8")
    assert "deal" in moves(game)


def test_after_the_redeal_a_turned_card_that_can_go_nowhere_ends_the_game():
    game = board(f0="7H", w="5H", s="2c", redeals=1, **QUIET)
    assert game.over and not game.won
    assert refused(game, "t0>t1") == "not_now"
    game = board(f0="7H", w="5H", s="2c", redeals=0, **QUIET)
    assert moves(game) == ["deal"]  # in the first pass the card just stays on the waste


def test_base_rank_follows_the_first_foundation_card():
    game = board(f0="QD", **QUIET)
    assert game.base == Rank.QUEEN
    assert Move.parse("choose t0") not in game.legal_moves()


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(r="5C", s="9h", t0="2C", t1="KH", t2="9S", t3="7D")
    assert refusal(game, "t0>f0") == "first choose the base rank: one of the cards of tableau piles 1 to 4"
    assert refusal(game, "choose t7") == "choose the card of one of tableau piles 1 to 4, not 't7'"
    assert game.describe("choose t2") == "choose the 9♠ from tableau pile 3: its rank starts every foundation"
    game = board(r="5C", s="9h", f0="7D", **QUIET)
    assert refusal(game, "t0>t1") == (
        "the 2♣ cannot go on the 2♠: build down by one in alternate colours (a King goes on an Ace)"
    )
    assert refusal(game, "t0>f1") == "the 2♣ cannot go on an empty foundation: a foundation starts with a Seven"
    assert refusal(game, "r>t0") == "the reserve plays only to the foundations"
    assert game.describe("deal") == "deal a card from the stock"
