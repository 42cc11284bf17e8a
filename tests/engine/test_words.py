"""The engine's words (engine/words.py, `Game.pile_name`, `Game.describe`, the rules' words):
cards and piles named as the web page labels them, refusals that say the rule, and nothing ever
said of a face-down card.

The property test plays seeded random games of every game and, every few moves, tries every
transfer between two piles (1 to 3 cards) and every action word: each refusal's reason, and each
legal move's description, must be non-empty, must name only cards face up in the player's view at
that moment, and must use no pile id ("t3") or card code ("7C") outside the quoted input.
"""

import random
import re

import pytest

from engine.cards import UNKNOWN, Card, Rank, Suit, new_pack
from engine.core import Audience, BadNotation, Game, IllegalMove, Move
from engine.games import GAMES, find_game
from engine.rules import DOWN, EITHER, UP, Empty, Suits, any_card, build, rule_words
from engine.words import a, and_list, card_name, counted, default_pile_name, rank_name

# ------------------------------------------------------------------------------ cards and ranks


def test_a_card_is_named_by_its_rank_and_its_suits_symbol():
    names = {card_name(card) for card in new_pack(1)}
    assert len(names) == 52
    assert card_name(Card(Rank.SEVEN, Suit.CLUBS)) == "7♣"
    assert card_name(Card(Rank.TEN, Suit.HEARTS)) == "10♥"
    assert card_name(Card(Rank.ACE, Suit.SPADES)) == "A♠"
    assert card_name(Card(Rank.KING, Suit.DIAMONDS)) == "K♦"
    assert card_name(Card(Rank.QUEEN, Suit.CLUBS)) == "Q♣"


def test_the_second_packs_copy_has_the_same_name():
    assert card_name(Card.parse("JH'")) == card_name(Card.parse("JH")) == "J♥"


def test_ranks_in_full_with_plurals_and_articles():
    assert [rank_name(r) for r in (Rank.ACE, Rank.TWO, Rank.TEN, Rank.JACK)] == ["Ace", "Two", "Ten", "Jack"]
    assert rank_name(Rank.SIX, plural=True) == "Sixes" and rank_name(Rank.KING, plural=True) == "Kings"
    assert (a("Ace"), a("Eight"), a("King")) == ("an Ace", "an Eight", "a King")


def test_counts_and_lists_read_as_sentences():
    assert (counted(1, "card"), counted(2, "card")) == ("1 card", "2 cards")
    assert and_list(["a", "b", "c"]) == "a, b and c"


# ------------------------------------------------------------------------------------ piles


def test_default_pile_names_by_letter_numbered_from_one():
    assert default_pile_name("t3") == "tableau pile 4"
    assert default_pile_name("f0") == "foundation 1"
    assert default_pile_name("c2") == "cell 3"
    assert default_pile_name("r1") == "reserve pile 2"
    assert default_pile_name("w1") == "waste pile 2"
    assert (default_pile_name("s"), default_pile_name("w"), default_pile_name("d")) == (
        "the stock",
        "the waste",
        "the deck card",
    )
    assert default_pile_name("f0", alone=True) == "the foundation"
    assert default_pile_name("r0", alone=True) == "the reserve"


def test_pile_names_work_on_the_class_without_a_deal():
    klondike = find_game("klondike")
    assert klondike.pile_name("t3") == "tableau pile 4"
    assert klondike.pile_name("f0") == "foundation 1"
    assert klondike.pile_name("w") == "the waste"
    assert find_game("eight_off").pile_name("c2") == "cell 3"
    assert find_game("dutchess").pile_name("r1") == "reserve pile 2"


def test_a_game_with_one_foundation_or_one_reserve_says_the():
    assert find_game("baroness").pile_name("f0") == "the foundation"
    assert find_game("canfield").pile_name("r0") == "the reserve"
    assert find_game("generals_patience").pile_name("r") == "the reserve"


@pytest.mark.parametrize(
    ("key", "pile", "name"),
    [
        ("calculation", "t0", "waste pile 1"),
        ("calculation", "w", "the turned card"),
        ("strategy", "t6", "waste pile 7"),
        ("strategy", "w", "the turned card"),
        ("try_again", "t3", "waste pile 4"),
        ("try_again", "w", "the turned card"),
        ("queens_quadrille", "t2", "waste pile 3"),
        ("queens_quadrille", "t3", "the Queens' pile"),
        ("queens_quadrille", "w", "the turned card"),
        ("golf", "r6", "column 7"),
        ("clock", "t0", "the 1 o'clock pile"),
        ("clock", "t11", "the 12 o'clock pile"),
        ("clock", "t12", "the centre pile"),
        ("clock", "f0", "the face-up cards at 1 o'clock"),
        ("clock", "f12", "the face-up Kings"),
        ("pyramid", "r0", "row 1, card 1"),
        ("pyramid", "r2", "row 2, card 2"),
        ("pyramid", "r27", "row 7, card 7"),
        ("pyramid", "f0", "the foundation"),
        ("pyramid", "d", "the deck card"),
        ("besieged_city", "t13", "rampart 14"),
        ("besieged_city", "r0", "reserve place 1"),
        ("besieged_city", "s", "the pack"),
        ("besieged_city", "w", "the talon"),
        ("tournament", "r7", "kibitzer 8"),
        ("tournament", "w0", "dormitzer 1"),
        ("double_or_naught", "r4", "card 5"),
        ("double_or_naught", "r5", "the house card"),
        ("double_or_naught", "s", "the pack"),
        ("double_or_naught", "w", "the cards set aside"),
        ("friday_13", "f0", "the Jack foundation"),
        ("friday_13", "f3", "the Ace foundation"),
        ("friday_13", "f12", "the Ten foundation"),
    ],
)
def test_games_name_their_piles_in_their_own_words(key, pile, name):
    assert find_game(key).pile_name(pile) == name


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_every_pile_of_every_game_has_a_name_in_lower_case_words(game_cls):
    names = [game_cls.pile_name(pid) for pid in game_cls(0).piles]
    assert len(set(names)) == len(names), names
    for name in names:
        assert name and not BARE_ID.search(name), name
        assert name[0].islower() or name[0].isdigit(), name  # "the ...", "row 1, ...": callers capitalise


def test_a_pile_no_game_has_is_quoted():
    assert find_game("klondike").pile_name("z9") == "pile 'z9'"


# ------------------------------------------------------------------------------- rule words


def test_build_rules_say_direction_step_suits_and_wrap():
    assert rule_words(build(DOWN, Suits.ALTERNATE)) == "build down by one in alternate colours"
    assert rule_words(build(UP, Suits.SAME)) == "build up by one in suit"
    assert rule_words(build(EITHER)) == "build up or down by one regardless of suit"
    assert rule_words(build(DOWN, wrap=True)) == "build down by one regardless of suit (a King goes on an Ace)"
    assert rule_words(build(UP, Suits.SAME, wrap=True)) == "build up by one in suit (an Ace goes on a King)"
    assert rule_words(build(UP, step=2)) == "build up by two regardless of suit"
    assert rule_words(any_card) == "put any card on any card"


def test_each_empty_rule_says_what_fills_a_space():
    assert Empty.KINGS.words == "only a King may fill an empty tableau pile"
    assert Empty.NONE.words == "an empty tableau pile is never filled"
    assert Empty.ANY.words and Empty.BELOW_BASE.words


# ----------------------------------------------------------------------------------- describe


def test_describe_refuses_an_illegal_move_as_apply_does():
    game = find_game("klondike")(seed=0)
    with pytest.raises(IllegalMove) as info:
        game.describe("redeal")
    assert info.value.code == "not_now"
    with pytest.raises(BadNotation):
        game.describe("t1 to t2")
    words = "the 5♠ from tableau pile 2 to tableau pile 3"
    assert game.describe(Move.parse("t1>t2")) == game.describe("t1>t2") == words


def test_a_won_game_refuses_every_move_with_game_over():
    won = Game.from_position(
        "idiots_delight - f0:"
        + "".join(f"{r}{s}" for s in "CDHS" for r in "A23456789TJQ")
        + " t0:KC t1:KD t2:KH t3:KS s:"
    )
    assert won.won
    with pytest.raises(IllegalMove) as info:
        won.apply("t0>t1")
    assert (info.value.code, info.value.reason) == ("game_over", "the game is won")


# ------------------------------------------------------------------------ the property test

SEEDS = 3
MOVE_CAP = 90
CHECK_EVERY = 15
#: A card by name, a pile id (a letter of a pile kind and its number, or s, w, d alone), a card code.
CARD_NAME = re.compile(r"(?:10|[A2-9JQK])[♠♥♦♣]")
BARE_ID = re.compile(r"(?<![\w'])(?:[tfrcw]\d{1,2}|[swd])(?![\w'])")
CARD_CODE = re.compile(r"(?<![\w])[A2-9TJQK][CDHS](?![\w])")
NAMES = {card.code: card_name(card) for card in new_pack(1)}
ACTIONS = [
    Move.parse(text)
    for text in (
        "deal",
        "redeal",
        "turn",
        "clear",
        "fly",
        "deal x",
        "exchange",
        "exchange t0.0",
        "exchange t4.3",
        "exchange t12.9",
        "guess r0",
        "guess r5",
        "guess z1",
        "choose t0",
        "choose t7",
        "transpose r0.r1",
        "transpose r0.r0",
    )
]


def check_words(text, game, move, where):
    """``text`` names only cards face up in the player's view, and no pile id or card code other
    than in the quoted input."""
    assert text, f"{where}: {move} gives no words"
    shown = {NAMES[code] for codes in game.view(Audience.PLAYER).piles.values() for code in codes if code != UNKNOWN}
    hidden = set(CARD_NAME.findall(text)) - shown
    assert not hidden, f"{where}: {move!s}: {text!r} names {hidden}, not face up"
    bare = text
    for quoted in {repr(str(move)), repr(move.action), repr(move.arg), repr(move.src), repr(move.dst)}:
        bare = bare.replace(quoted, "")
    assert not BARE_ID.search(bare), f"{where}: {move!s}: {text!r} has a pile id"
    assert not CARD_CODE.search(bare), f"{where}: {move!s}: {text!r} has a card code"


def check_position(game, legal, where):
    """Every refusal and every legal move's description, in the position as it is."""
    ids = list(game.piles)
    for move in [Move(src=src, dst=dst, count=n) for src in ids for dst in ids for n in (1, 2, 3)] + ACTIONS:
        if move in legal:
            check_words(game.describe(move), game, move, where)
            continue
        try:
            game.check(move)
        except IllegalMove as error:
            check_words(error.reason, game, move, where)
        else:
            raise AssertionError(f"{where}: {move} passes check but is not listed")


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_no_refusal_or_description_names_a_face_down_card_or_a_pile_id(game_cls):
    for seed in range(SEEDS):
        game = game_cls(seed)
        rng = random.Random(seed)
        for step in range(MOVE_CAP + 1):
            legal = list(game.legal_moves())
            if step % CHECK_EVERY == 0 or not legal or step == MOVE_CAP:
                position = game.position()
                check_position(game, set(legal), f"{game_cls.key} seed={seed} after {step} moves: {position!r}")
                assert game.position() == position
            if not legal:
                break
            game.apply(rng.choice(legal))
