"""Clock (engine/games/clock.py), following 002_5e8f4a23aea861b2.txt."""

from engine.cards import Card
from engine.core import Game, Move, Reveal
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

Clock = find_game("clock")
HOURS = range(13)
# Each hour's four cards, written as a foundation (face up): AC AD AH AS, 2C 2D 2H 2S...
FULL = {h: "".join("A23456789TJQK"[h] + s for s in "CDHS") for h in HOURS}


def board(current=12, exchanged=False, **piles):
    """A Clock position: the named piles as given (bottom to top; tableau cards are face down,
    so write them in lower case), every other pile empty."""
    ids = [f"t{h}" for h in HOURS] + [f"f{h}" for h in HOURS]
    assert set(piles) <= set(ids)
    return Game.from_position(
        "clock - "
        + " ".join(f"{pid}:{piles.get(pid, '')}" for pid in ids)
        + f" current={current} exchanged={int(exchanged)}"
    )


def turn_until_stuck(game):
    while Move.parse("turn") in game.legal_moves():
        game.apply("turn")
    return game


# ------------------------------------------------------------------------------------ the deal


def test_the_deal_makes_thirteen_face_down_piles_of_four_dealt_round_the_dial():
    game = Clock(seed=42)
    order = shuffled("clock", 42)
    for h in HOURS:
        pile = game.piles[f"t{h}"]
        assert pile.cards == order[h::13] and pile.down == 4
        assert not game.piles[f"f{h}"].cards
    assert game.view().piles["t5"] == ("??",) * 4
    assert (game.current, game.exchanged, game.cleared, game.total) == (12, False, 0, 52)


def test_play_starts_with_the_top_card_of_the_centre_pile():
    game = Clock(seed=42)
    top = game.piles["t12"].top
    assert game.apply("turn") == (Reveal(f"f{top.rank - 1}", 0, top),)


# -------------------------------------------------------------------------------- turning


def test_a_turned_seven_goes_to_seven_o_clock_and_play_continues_from_that_pile():
    game = board(t12="kh7c", t6="2s9d")
    revealed = game.apply("turn")
    assert revealed == (Reveal("f6", 0, Card.parse("7C")),)
    assert game.current == 6 and game.view().piles["f6"] == ("7C",)
    game.apply("turn")  # the top card of the seven o'clock pile
    assert game.view().piles["f8"] == ("9D",) and game.current == 8


def test_a_turned_king_goes_to_the_centre():
    game = board(current=3, t3="5hkd", t12="3c")
    game.apply("turn")
    assert game.view().piles["f12"] == ("KD",) and game.current == 12
    game.apply("turn")
    assert game.view().piles["f2"] == ("3C",) and game.current == 2


def test_a_card_turned_on_its_own_hour_is_laid_there_and_play_goes_on_from_the_same_pile():
    game = board(current=2, t2="5s3d", f2="3C")
    game.apply("turn")
    assert game.view().piles["f2"] == ("3C", "3D")
    assert game.current == 2 and game.view().piles["t2"] == ("??",)
    game.apply("turn")
    assert game.view().piles["f4"] == ("5S",)


def test_cleared_counts_face_up_cards_at_their_hours():
    game = board(t12="kh7c", f0="AC", f1="2D2H")
    assert game.cleared == 3
    game.apply("turn")
    assert game.cleared == 4


def test_the_only_move_while_play_flows_is_turn():
    game = Clock(seed=1)
    assert [str(m) for m in game.legal_moves()] == ["turn"]
    assert refused(game, "t12>f12") == "unknown_action"
    assert refused(game, "deal") == "unknown_action"
    assert refused(game, "turn x") == "unknown_action"


# ------------------------------------------------------------------------- the fourth King


def blocked_board():
    """The fourth King has just come out at the centre, with two cards still face down."""
    game = board(current=5, t5="kd", t4="9s2h", f12="KCKHKS")
    game.apply("turn")
    return game


def test_the_fourth_king_blocks_when_cards_remain_face_down():
    game = blocked_board()
    assert game.view().piles["f12"] == ("KC", "KH", "KS", "KD")
    assert game.current == 12 and game.blocked
    assert refused(game, "turn") == "not_now"
    assert not game.won and not game.over  # the exchange is still to come
    assert [str(m) for m in game.legal_moves()] == ["exchange t4.0", "exchange t4.1"]


def test_exchange_is_refused_while_play_flows():
    game = board(t12="kh7c", t6="2s")
    assert refused(game, "exchange t12.0") == "not_now"
    assert refused(game, "exchange t6.0") == "not_now"


def test_the_fourth_king_is_exchanged_for_a_face_down_card_which_goes_to_its_hour():
    game = blocked_board()
    revealed = game.apply("exchange t4.1")
    assert revealed == (Reveal("f1", 0, Card.parse("2H")),)
    assert game.exchanged and game.current == 1
    assert game.view().piles["f12"] == ("KC", "KH", "KS")
    assert game.piles["t4"].cards == [Card.parse("9S"), Card.parse("KD")]
    assert game.view().piles["t4"] == ("??", "??")  # the King lies hidden
    assert game.cleared == 4  # a King went back, the Two came out


def test_play_continues_from_the_exchanged_cards_hour():
    game = board(current=5, t5="kd", t2="6c", t4="3h", f12="KCKHKS")
    game.apply("turn")
    game.apply("exchange t4.0")  # the Three of Hearts goes to three o'clock...
    assert game.current == 2
    game.apply("turn")  # ...and the next card comes from that pile
    assert game.view().piles["f5"] == ("6C",)


def test_only_one_exchange_is_allowed():
    game = board(current=5, t5="kd", t4="9s2h", t1="5c", f12="KCKHKS")
    game.apply("turn")
    game.apply("exchange t4.1")  # the King goes on top of t4; the Two of Hearts to two o'clock
    game.apply("turn")  # the Five of Clubs, from two o'clock to five o'clock
    game.apply("turn")  # the King again, from five o'clock, with the Nine of Spades still hidden
    assert game.current == 12 and game.blocked
    assert refused(game, "exchange t4.0") == "not_now"
    assert refused(game, "turn") == "not_now"
    assert game.over and not game.won


def test_exchange_needs_a_face_down_card_that_exists():
    game = blocked_board()
    assert refused(game, "exchange t4.2") == "empty_pile"
    assert refused(game, "exchange t12.0") == "empty_pile"
    assert refused(game, "exchange t13.0") == "no_such_pile"
    refused(game, "exchange f4.0")
    refused(game, "exchange t04.1")  # pile numbers are written without leading zeros
    refused(game, "exchange")


def test_a_game_where_the_fourth_king_comes_last_is_won():
    full = {f"f{h}": FULL[h] for h in range(12)}
    full["f6"] = "7C7D7H"  # one Seven and two Kings are still face down
    game = board(t12="kd7s", t6="ks", f12="KCKH", **full)
    for _ in range(3):
        game.apply("turn")
    assert game.view().piles["f12"] == ("KC", "KH", "KS", "KD")
    assert (game.cleared, game.won, game.over) == (52, True, True)
    assert refused(game, "turn") == "game_over"


def test_a_constructed_lost_game_is_over_and_not_won():
    game = board(current=12, exchanged=True, t3="7h", f12="KCKDKHKS", f0=FULL[0])
    assert game.over and not game.won
    assert not game.legal_moves()
    assert game.cleared == 8


def test_seed_10_is_won_by_turning_alone():
    game = turn_until_stuck(Clock(seed=10))
    assert game.won and len(game.history) == 52


def test_seed_0_blocks_with_one_card_face_down_and_the_exchange_wins_it():
    game = turn_until_stuck(Clock(seed=0))
    assert game.cleared == 51 and game.blocked and not game.over
    assert [str(m) for m in game.legal_moves()] == ["exchange t2.0"]
    game.apply("exchange t2.0")  # the last hidden card is a Three: it goes home to t2's hour...
    turn_until_stuck(game)  # ...where the King now lies, the last card to turn up
    assert game.won and game.exchanged and len(game.history) == 53


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_name_the_hours_and_never_a_face_down_card():
    game = blocked_board()
    assert refusal(game, "turn") == "the fourth King is out: exchange it"
    assert refusal(game, "exchange t4.5") == "the 5 o'clock pile has only 2 face-down cards"
    assert refusal(game, "exchange t4") == "exchange names a face-down pile and a card in it, not 't4'"
    assert game.describe("exchange t4.1") == (
        "exchange the fourth King for face-down card 2 from the bottom of the 5 o'clock pile"
    )
    game = board(current=5, t5="kd", t4="9s2h", f12="KCKH")
    assert game.describe("turn") == "turn up the top card of the 6 o'clock pile"


def test_the_dial_names_its_piles_by_the_hour():
    assert [Clock.pile_name(p) for p in ("t0", "t11", "t12")] == [
        "the 1 o'clock pile",
        "the 12 o'clock pile",
        "the centre pile",
    ]
    assert [Clock.pile_name(p) for p in ("f0", "f11", "f12")] == [
        "the face-up cards at 1 o'clock",
        "the face-up cards at 12 o'clock",
        "the face-up Kings",
    ]


# ------------------------------------------------------------------------ the exchange option


def test_the_exchange_is_on_by_default_and_recorded_in_the_position():
    assert Clock(seed=1).rule_options == {"exchange": True}
    assert Clock(seed=1, exchange=False).position().split(" ")[1] == "exchange=0"
    assert Game.from_position(Clock(seed=1, exchange=False).position()).rule_options == {"exchange": False}


def test_without_the_exchange_the_fourth_king_ends_the_game():
    game = turn_until_stuck(Clock(seed=0, exchange=False))  # seed 0 needs the exchange (see above)
    assert game.cleared == 51 and game.blocked
    assert game.over and not game.won and not game.legal_moves()
    assert refusal(game, "exchange t2.0") == "this race has no exchange: the game is lost"
    assert refusal(game, "turn") == "the game is lost"


def test_without_the_exchange_a_deal_won_by_turning_alone_is_still_won():
    assert turn_until_stuck(Clock(seed=10, exchange=False)).won


def test_only_an_exchange_with_a_bottom_card_can_win():
    # The King goes back face down at index I; it turns up once the cards above it have gone and
    # ends the game there, so a card under it (I > 0) is still face down: never won.
    won_from = {True: 0, False: 0}
    for seed in range(40):
        game = turn_until_stuck(Clock(seed=seed))
        if game.won:
            continue
        for move in list(game.legal_moves()):
            after = game.copy()
            after.apply(move)
            turn_until_stuck(after)
            assert after.over
            won_from[move.arg.endswith(".0")] += after.won
    assert won_from[False] == 0 and won_from[True] > 0
