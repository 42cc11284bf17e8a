"""The Besieged City (engine/games/besieged_city.py), following 004_b8ac959bf00b6dc2.txt."""

from engine.cards import Card, Rank
from engine.core import Game, Reveal
from engine.games import find_game
from engine.games.besieged_city import ENDS, LINE_OF, ORDER
from tests.engine.helpers import refusal, refused

BesiegedCity = find_game("besieged_city")
IDS = [f"f{i}" for i in range(4)] + [f"r{i}" for i in range(12)] + [f"t{i}" for i in range(14)]

# Rampart tops that pack on none of each other and take nothing from the tests' Reserve, and
# Reserve cards that fit none of them (Threes, Fives, Sevens and Kings never neighbour each other).
WALL_CARDS = ["3H", "3H'", "5H", "5H'", "KH", "KH'", "7H", "3D", "3D'", "5D", "5D'", "KD", "KD'", "7D"]
FILL_CARDS = ["3S", "5S", "KS", "7S", "3S'", "5S'", "KS'", "3S", "5S", "KS", "3S'", "5S'"]
WALL = {f"t{i}": c for i, c in enumerate(WALL_CARDS)}
FILL = {f"r{i}": c for i, c in enumerate(FILL_CARDS)}


def board(s="", w="", **piles):
    given = {**WALL, **FILL, **piles}
    return Game.from_position("besieged_city - " + " ".join(f"{p}:{given.get(p, '')}" for p in IDS) + f" s:{s} w:{w}")


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


# The text's tableau, as far as its notes tell: the Four of Clubs in the Reserve, with the Ace of
# Diamonds and the Three of Clubs in its row and the Ace of Clubs, Seven and Six of Spades in its
# column. Its Rampart places: A (t4) and C (t8) at the ends of the row, B (t1) and D (t12) at the
# ends of the column.
EXAMPLE = {"r1": "AC", "r3": "AD", "r4": "4C", "r5": "3C", "r7": "7S", "r10": "6S"}
A, B, C, D = "t4", "t1", "t8", "t12"


def test_the_deal_twelve_reserve_cards_inside_fourteen_ramparts():
    game = BesiegedCity(seed=4)
    assert all(len(game.piles[f"r{i}"]) == 1 for i in range(12))
    assert all(len(game.piles[f"t{i}"]) == 1 for i in range(14))
    assert len(game.piles["s"]) == 78 and game.total == 104
    assert ENDS["r4"] == ("t1", "t4", "t8", "t12")


def test_worked_example_the_four_of_clubs_goes_only_to_a_b_c_or_d_and_here_only_on_d():
    game = board(**EXAMPLE, **{D: "5C"})
    assert "r4>t12" in moves(game)
    for place in (A, B, C):
        assert refused(game, f"r4>{place}") == "does_not_fit"
    assert refused(game, "r4>t0") == "wrong_pile"  # not at an end of its row or column
    game.apply("r4>t12")
    assert game.view().piles[D] == ("5C", "4C")


def test_worked_example_a_vacancy_is_filled_from_the_line_at_whose_end_it_lies():
    game = board(**EXAMPLE, **{B: ""})
    fills = {m.split(">")[0] for m in moves(game)}
    assert {game.piles[r].cards[0].code for r in fills} == {"4C", "AC", "7S", "6S"}
    game = board(**EXAMPLE, **{A: ""})
    fills = {m.split(">")[0] for m in moves(game)}
    assert {game.piles[r].cards[0].code for r in fills} == {"AD", "3C", "4C"}
    assert LINE_OF[C] == LINE_OF[A] and LINE_OF[D] == LINE_OF[B]


def test_a_rampart_vacancy_must_be_filled_before_anything_else():
    game = board(**EXAMPLE, **{B: "", "t2": "AH"}, s="2c")
    assert refused(game, "t2>f0") == "not_now"
    assert refused(game, "deal") == "not_now"
    game.apply("r7>t1")
    assert "t2>f0" in moves(game)


def test_an_emptied_reserve_place_is_filled_from_the_talon_or_else_from_the_pack():
    game = board(**EXAMPLE, **{D: "5C"}, s="2c9c", w="KS")
    assert game.apply("r4>t12")[-1] == Reveal("r4", 0, Card.parse("KS"))
    game = board(**EXAMPLE, **{D: "5C"}, s="2c9c")
    assert game.apply("r4>t12")[-1] == Reveal("r4", 0, Card.parse("9C"))  # the pack's next card


def test_foundations_are_built_a_k_2_q_3_j_and_back_down_to_an_ace():
    assert "".join(r.letter for r in ORDER) == "AK2Q3J4T5968778695T4J3Q2KA"
    assert len(ORDER) == 26 and ORDER[0] == ORDER[-1] == Rank.ACE
    game = board(f0="ACKC", t0="3D'2C", t1="KD'QC")
    assert "t0>f0" in moves(game)
    assert refused(game, "t1>f0") == "does_not_fit"
    game.apply("t0>f0")
    game.apply("t1>f0")
    assert game.view().piles["f0"] == ("AC", "KC", "2C", "QC")


def test_one_foundation_per_suit_started_by_an_ace():
    game = board(f0="AD", t0="AD'", t1="AS", t2="2S")
    assert refused(game, "t0>f1") == "does_not_fit"
    assert refused(game, "t2>f1") == "does_not_fit"
    assert "t1>f1" in moves(game)


def test_ramparts_pack_in_suit_by_rank_or_by_playing_order_either_way():
    game = board(t0="6H", t1="5H", t2="QH", t3="2H", t4="7D", t5="7D'", t6="JC", t7="3C", t8="5S")
    legal = set(moves(game))
    assert {"t1>t0", "t0>t1", "t2>t3", "t3>t2", "t4>t5", "t6>t7", "t7>t6"} <= legal
    assert refused(game, "t8>t0") == "does_not_fit"  # a Five of Spades on a Six of Hearts
    assert refused(game, "t2>t0") == "does_not_fit"


def test_reserve_cards_never_go_to_the_foundations_and_ramparts_are_not_filled_from_ramparts():
    game = board(r0="AH", t0="AS")
    assert refused(game, "r0>f0") == "wrong_pile"
    game = board(t3="", t0="AS", r0="", r1="", r2="")  # no Reserve card left in t3's row: it stays empty
    assert refused(game, "t0>t3") == "does_not_fit"


def test_deal_plays_a_suitable_card_to_its_foundation_and_the_rest_to_the_talon():
    game = board(f0="AC", s="5dkc")
    assert game.apply("deal") == (Reveal("f0", 1, Card.parse("KC")),)
    assert game.apply("deal") == (Reveal("w", 0, Card.parse("5D")),)
    assert refused(game, "deal") == "stock_empty"
    assert refused(game, "w>f0") == "wrong_pile"  # the talon only feeds the Reserve


def test_transposing_two_reserve_cards_at_the_end_to_reach_the_ramparts():
    game = board(r0="4C", r11="9H", t13="5C", s="")
    assert refused(game, "r0>t13") == "wrong_pile"
    assert "transpose r0.r11" in moves(game)  # the Four moves into t13's column...
    game = board(r0="4C", r11="9H", t13="5C", s="2c")
    assert refused(game, "transpose r0.r11") == "not_now"  # ...only once the pack is used up
    game = board(r0="4C", r11="9H", t13="5C")
    game.apply("transpose r0.r11")
    assert game.view().piles["r11"] == ("4C",)
    assert "r11>t13" in moves(game)
    game = board(r0="4C", r11="QS")
    assert refused(game, "transpose r0.r11") == "not_now"  # it would help neither card
    assert refused(game, "transpose r0.r0") == "no_such_pile"
    assert refused(game, "transpose r0.r12") == "no_such_pile"


def test_the_game_is_won_with_all_104_cards_on_the_foundations():
    half = "".join(r.letter for r in ORDER)
    piles = {f"f{i}": "".join(f"{r}{s}" for r in half) for i, s in enumerate("CDHS")}
    piles["f3"] = piles["f3"][:-2]
    empty = {pid: "" for pid in IDS if pid[0] in "rt"}
    game = board(**{**empty, **piles, "t0": "AS'"})
    assert game.cleared == 103
    game.apply("t0>f3")
    assert game.won and game.cleared == 104


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_name_ramparts_and_reserve_places():
    game = board(**EXAMPLE)
    assert refusal(game, "r4>t2") == (
        "reserve place 5 plays only to the ramparts at the ends of its row and column: "
        "rampart 2, rampart 5, rampart 9 and rampart 13"
    )
    assert refusal(game, "r4>t1") == (
        "the 4♣ cannot go on the 3♥: a card packs on one of its suit a rank above or below it, "
        "or next to it in the foundations' order"
    )
    assert refusal(game, "r1>f0") == "reserve cards reach the foundations only through the ramparts"
    assert refusal(game, "s>t0") == "cards cannot be taken from the pack"
    game = board(**EXAMPLE, **{B: "", "t2": "AH"}, s="2c")
    assert refusal(game, "deal") == "first fill the empty rampart 2 from the reserve places of its line"
    assert game.describe("r4>t1") == "the 4♣ from reserve place 5 to rampart 2"
    game = board(**EXAMPLE, s="2c")
    assert game.describe("deal") == "turn the next card of the pack"
