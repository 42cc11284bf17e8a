"""Friday 13 (engine/games/friday_13.py), following 001_1b1f3c1dc9fc716f.txt."""

from engine.cards import Rank
from engine.core import Game, Move
from engine.games import find_game
from tests.engine.helpers import refusal, refused

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


def test_an_ace_goes_on_a_king_round_the_corner():
    """The text's foundations "range from the Jack through the 10", and the game is won when "all
    the cards have been moved to the foundations": with four Aces and one Ace foundation, three
    Aces must go on Kings (rules version 2)."""
    assert Friday13.rules_version == 2
    game = board(w="2CAD")
    assert "w>f2" in {str(m) for m in game.legal_moves()}
    game.apply("w>f2")  # the Ace of Diamonds on the King of Spades
    assert game.view().piles["f2"] == ("KS", "AD") and game.cleared == 5
    game.apply("w>f2")  # and a Two on that Ace
    assert game.view().piles["f2"] == ("KS", "AD", "2C")
    game = board(OPENING.replace("f0:JS", "f0:JSQHKD"), w="AH")
    game.apply("w>f0")  # the Jack foundation runs on past its King too
    assert game.view().piles["f0"] == ("JS", "QH", "KD", "AH")


def test_nothing_but_an_ace_goes_on_a_king():
    game = board(w="2D")
    assert refused(game, "w>f2") == "does_not_fit"
    game = board(w="KD")
    assert refused(game, "w>f2") == "does_not_fit"


#: The foundation labels, f0 to f12, as rank letters.
LABEL_LETTERS = "JQKA23456789T"
ROUND = "A23456789TJQK"


def winning_order():
    """The 48 stock cards in an order that plays out to a win, each card as soon as it is turned.

    Foundation ``fi`` ends as its label in Clubs, the next rank in Diamonds, then Hearts, then
    Spades (round the corner), so every card of the pack lies on exactly one foundation and the
    Jack, Queen and King foundations each take an Ace on a King."""
    order = [(i, LABEL_LETTERS[i] + "C") for i in range(4, 13)]  # start f4 .. f12, left to right
    for offset, suit in enumerate("DHS", start=1):
        for i, label in enumerate(LABEL_LETTERS):
            rank = ROUND[(ROUND.index(label) + offset) % 13]
            order.append((i, rank + suit))
    return order


def test_a_whole_pack_can_be_cleared_and_wins():
    """ "The game is won when all the cards have been moved to the foundations, and all of the
    foundations are filled with at least one card": a stock laid out so that every turned card
    fits at once plays out to all 52 cards home, three of the Aces on Kings."""
    order = winning_order()
    assert len({card for _, card in order}) == 48
    opening = " ".join(f"f{i}:{LABEL_LETTERS[i]}C" for i in range(4))
    stock = "".join(card.lower() for _, card in reversed(order))  # the first card to turn on top
    game = board(opening, s=stock)
    aces_on_kings = 0
    for pid, card in order:
        game.apply("deal")
        assert game.view().piles["w"][-1] == card
        aces_on_kings += card[0] == "A" and game.piles[f"f{pid}"].top.rank == Rank.KING
        game.apply(f"w>f{pid}")
    assert aces_on_kings == 3
    assert game.won and game.cleared == game.total == 52 and game.over
    assert all(len(game.piles[f"f{i}"]) == 4 for i in range(13))


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


#: A winning move list for the deal of seed 0 (found by a search over the deal's stock order).
SEED_0_WIN = (
    "deal deal deal deal deal deal deal deal deal deal deal w>f4 deal deal w>f0 deal w>f3 deal "
    "deal deal deal deal w>f0 deal deal w>f5 deal deal deal w>f6 deal w>f5 deal deal deal deal "
    "deal deal deal w>f0 deal deal deal deal deal deal w>f1 deal deal w>f3 deal w>f0 deal w>f1 "
    "deal w>f2 deal deal deal deal w>f3 deal w>f7 redeal deal w>f3 deal deal w>f0 deal w>f4 deal "
    "w>f8 w>f9 deal w>f10 deal w>f5 deal w>f8 deal deal w>f0 deal w>f8 deal w>f11 w>f12 deal w>f3 "
    "deal w>f8 deal w>f0 deal w>f10 deal deal w>f0 deal deal w>f8 deal w>f8 w>f8 deal w>f1 deal "
    "w>f12 w>f12 deal w>f9 deal w>f10 deal w>f5 deal w>f0 deal w>f11 deal w>f9 deal w>f3 deal "
    "w>f8 deal w>f10 deal w>f0 "
).split()


def test_the_deal_of_seed_0_can_be_won():
    """ "The object is to build upon the foundation cards in such a way as to play all cards, and
    build at least one card on every foundation": a real deal played out to all 52 cards home."""
    game = Friday13(seed=0)
    aces_on_kings = 0
    for text in SEED_0_WIN:
        if text != "deal" and text != "redeal":
            top = game.piles[text[2:]].top
            aces_on_kings += top is not None and top.rank == Rank.KING and game.piles["w"].top.rank == Rank.ACE
        game.apply(text)
    assert aces_on_kings == 3
    assert game.won and game.cleared == game.total == 52 and game.over


# ------------------------------------------------------------------------------------ in words


def test_foundations_are_named_by_their_labels():
    names = [Friday13.pile_name(f"f{i}") for i in range(13)]
    assert names[:5] == [
        "the Jack foundation",
        "the Queen foundation",
        "the King foundation",
        "the Ace foundation",
        "the Two foundation",
    ]
    assert names[-1] == "the Ten foundation"


def test_refusals_and_moves_in_words():
    game = board(w="4C")
    assert refusal(game, "w>f4") == "the 4♣ cannot go on the Two foundation: it starts with a Two"
    assert refusal(game, "w>f6") == (
        "the 4♣ cannot start the Four foundation before the Two foundation: "
        "the foundations start in order from the left"
    )
    assert refusal(game, "w>f0") == (
        "the 4♣ cannot go on the J♠ on the Jack foundation: "
        "foundations build up by one regardless of suit (an Ace goes on a King)"
    )
    game = board(w="AC", redeals=1)
    assert refusal(game, "redeal") == "no redeal left: this game allows 1"
    assert game.describe("w>f2") == "the A♣ from the waste to the King foundation"
