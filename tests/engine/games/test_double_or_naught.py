"""Double or Naught (engine/games/double_or_naught.py), following 003_08087bb95aa03446.txt."""

from engine.cards import Card
from engine.core import Game, Reveal
from engine.games import find_game
from tests.engine.helpers import refusal, refused

DoubleOrNaught = find_game("double_or_naught")


def board(guesses="2c3c4c5c6c", house="TD", stock="", w="", outcome="", ties=0):
    """Five face-down cards (lower case) for r0..r4, the house's card, the stock (bottom to top)."""
    cards = [guesses[i : i + 2] for i in range(0, 10, 2)]
    piles = " ".join(f"r{i}:{c}" for i, c in enumerate(cards))
    return Game.from_position(f"double_or_naught - {piles} r5:{house} s:{stock} w:{w} outcome={outcome} ties={ties}")


def moves(game):
    return sorted(str(m) for m in game.legal_moves())


def test_six_cards_in_rows_of_three_two_and_one_with_only_the_house_card_face_up():
    game = DoubleOrNaught(seed=9)
    view = game.view()
    assert [view.piles[f"r{i}"] for i in range(5)] == [("??",)] * 5
    assert view.piles["r5"] != ("??",) and len(view.piles["s"]) == 46
    assert moves(game) == [f"guess r{i}" for i in range(5)]
    assert (game.total, game.cleared, game.won, game.over) == (1, 0, False, False)


def test_worked_example_the_fifth_card_a_six_loses_to_the_house_ten():
    game = board(guesses="2c3c4c5c6h", house="TD")
    assert game.apply("guess r4") == (Reveal("r4", 0, Card.parse("6H")),)
    assert game.outcome == "loss" and game.over and not game.won
    assert game.view().piles["r3"] == ("??",)  # the other cards stay hidden


def test_a_higher_card_wins_the_game():
    game = board(guesses="2cjs4c5c6c", house="TD")
    game.apply("guess r1")
    assert game.outcome == "win" and game.won and game.cleared == 1 and game.over


def test_kings_are_high_so_a_house_king_can_only_be_tied():
    game = board(guesses="kc2c2c2c2c", house="KD")
    game.apply("guess r0")
    assert game.outcome == "tie" and not game.won


def test_aces_are_low_so_a_house_ace_can_only_be_tied_or_beaten():
    game = board(guesses="ac2c2c2c2c", house="AD")
    game.apply("guess r0")
    assert game.outcome == "tie"


def test_a_tie_may_be_tried_again_with_six_new_cards():
    game = board(guesses="9c2c2c2c2c", house="9D", stock="qsqhqdqckskh")
    assert refused(game, "deal") == "not_now"  # before the guess
    game.apply("guess r0")
    assert moves(game) == ["deal"] and game.ties == 1
    assert refused(game, "guess r1") == "not_now"  # one guess a round
    revealed = game.apply("deal")
    assert revealed == (Reveal("r5", 0, Card.parse("QS")),)  # only the house card shows
    assert game.outcome == "" and game.view().piles["w"] == ("??",) * 6
    assert [game.view().piles[f"r{i}"] for i in range(5)] == [("??",)] * 5


def test_no_new_round_when_fewer_than_six_cards_are_left():
    game = board(guesses="9c2c2c2c2c", house="9D", stock="qsqh")
    game.apply("guess r0")
    assert refused(game, "deal") == "stock_empty"
    assert game.over and not game.won


def test_the_house_card_and_unknown_piles_cannot_be_guessed():
    game = board()
    assert refused(game, "guess r5") == "wrong_pile"
    assert refused(game, "guess r9") == "no_such_pile"
    assert refused(game, "guess s") == "no_such_pile"
    assert refused(game, "guess") == "no_such_pile"
    assert refused(game, "r0>r5") == "wrong_pile"


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_guesses_in_words():
    game = board()
    assert refusal(game, "guess r5") == "the house card cannot be guessed: beat it"
    assert refusal(game, "guess x1") == "guess one of the five face-down cards, not 'x1'"
    assert refusal(game, "deal") == "a new round is dealt only after a tie"
    assert game.describe("guess r2") == "guess card 3"  # never the card itself
    game = board(outcome="tie", stock="2c3c4c5c6c7c", ties=1)
    assert game.describe("deal") == "set this round's six cards aside and deal a new round"


def test_the_piles_have_the_names_of_the_bonus_round():
    names = [DoubleOrNaught.pile_name(p) for p in ("r0", "r4", "r5", "s", "w")]
    assert names == ["card 1", "card 5", "the house card", "the pack", "the cards set aside"]
