"""The engine's model (engine/core.py): move notation, position strings, errors, options, views."""

import random

import pytest

import engine.core
from engine.cards import Card
from engine.core import (
    Audience,
    BadNotation,
    EngineError,
    Game,
    IllegalCode,
    IllegalMove,
    LegalMoves,
    Move,
    Reveal,
)
from engine.games import GAMES, find_game

Klondike = find_game("klondike")
Golf = find_game("golf")
Clock = find_game("clock")

# ------------------------------------------------------------------------------ move notation


@pytest.mark.parametrize(
    "text",
    ["t3>f0", "w>t6", "r0>f0", "t12>f12", "t3>t5x3", "t0>t1x13"]
    + ["deal", "redeal", "turn", "exchange t4.2", "exchange t12.0"],
)
def test_move_notation_round_trips(text):
    move = Move.parse(text)
    assert str(move) == text
    assert Move.parse(str(move)) == move
    assert eval(repr(move)) == move


def test_a_transfer_names_source_destination_and_count():
    move = Move.parse("t3>t5x3")
    assert (move.src, move.dst, move.count, move.is_transfer) == ("t3", "t5", 3, True)
    single = Move.parse("w>f2")
    assert (single.src, single.dst, single.count) == ("w", "f2", 1)


def test_a_count_of_one_is_not_written():
    assert Move.parse("t3>f0x1") == Move.parse("t3>f0")
    assert str(Move.parse("t3>f0x1")) == "t3>f0"


def test_an_action_has_a_word_and_an_optional_argument():
    deal = Move.parse("deal")
    assert (deal.action, deal.arg, deal.is_transfer) == ("deal", "", False)
    exchange = Move.parse("exchange t4.2")
    assert (exchange.action, exchange.arg) == ("exchange", "t4.2")


@pytest.mark.parametrize(
    "junk",
    ["", "t3>", ">f0", "t3>f0x0", "t3>f0x", "t3 > f0", "t3>>f0", "T3>F0", "t3>f0x1000", "t100>f0"]
    + ["deal ", " deal", "deal  x", "exchange t4.2 x", "DEAL", "x" * 100, "t3>f0\n", "déal"],
)
def test_junk_is_not_a_move(junk):
    with pytest.raises(BadNotation) as info:
        Move.parse(junk)
    assert info.value.code == "bad_notation"


@pytest.mark.parametrize("junk", [None, 3, b"deal", ["deal"], Move.parse("deal")])
def test_only_text_is_parsed_as_a_move(junk):
    with pytest.raises(BadNotation) as info:
        Move.parse(junk)
    assert info.value.code == "bad_notation"


def test_one_notation_reads_as_one_shared_move_within_a_bound(monkeypatch):
    """A game's history keeps a `Move` per move played: the same notation gives the same
    (immutable) instance, the one a listing of legal moves holds, so that histories share them
    and a move sent is found among those listed by identity; past the bound, moves are made
    afresh."""
    assert Move.parse("t3>t5x3") is Move.parse("t3>t5x3")
    assert Move.parse("exchange t4.2") is Move.parse("exchange t4.2")
    assert Move.parse("t3>f0") is Move.transfer("t3", "f0") is Move.parse("t3>f0x1")
    monkeypatch.setattr(engine.core, "_PARSED", {})
    monkeypatch.setattr(engine.core, "_TRANSFERS", {})
    monkeypatch.setattr(engine.core, "_PARSED_MOST", 3)
    texts = [f"t{i}>f0" for i in range(10)]
    first = [Move.parse(text) for text in texts]
    again = [Move.parse(text) for text in texts]
    assert again == first and [str(m) for m in again] == texts
    assert [a is b for a, b in zip(first, again)] == [True] * 3 + [False] * 7
    assert len(engine.core._PARSED) == len(engine.core._TRANSFERS) == 3
    with pytest.raises(BadNotation):
        Move.parse("t3>f0x0")
    assert "t3>f0x0" not in engine.core._PARSED


def test_notation_errors_and_illegal_moves_share_one_root_under_value_error():
    assert issubclass(BadNotation, EngineError) and issubclass(IllegalMove, EngineError)
    assert issubclass(EngineError, ValueError)
    assert not issubclass(BadNotation, IllegalMove) and not issubclass(IllegalMove, BadNotation)


def test_apply_reads_notation_and_refuses_junk_with_bad_notation():
    game = Klondike(seed=42)
    before = game.position()
    for junk in ["t3>", None, 12]:
        with pytest.raises(BadNotation):
            game.apply(junk)
    assert game.position() == before
    game.apply("deal")
    assert game.history == [Move.parse("deal")]


# --------------------------------------------------------------------------- position strings


def play(game, moves, seed):
    """Play ``moves`` random legal moves (reproducibly) and return the game."""
    rng = random.Random(seed)
    for _ in range(moves):
        legal = list(game.legal_moves())
        if not legal:
            break
        game.apply(rng.choice(legal))
    return game


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_a_fresh_position_round_trips(game_cls):
    game = game_cls(seed=7)
    text = game.position()
    assert text.startswith(game_cls.key + " ")
    rebuilt = Game.from_position(text)
    assert type(rebuilt) is game_cls
    assert rebuilt.position() == text
    assert game_cls.from_position(text).position() == text


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_a_played_position_round_trips_and_plays_on_the_same(game_cls):
    game = play(game_cls(seed=11), 25, seed=3)
    assert game.history
    rebuilt = Game.from_position(game.position())
    assert rebuilt.position() == game.position()
    assert (rebuilt.cleared, rebuilt.won, rebuilt.over) == (game.cleared, game.won, game.over)
    assert list(rebuilt.legal_moves()) == list(game.legal_moves())


def test_a_position_lists_the_key_options_piles_and_state_fields():
    words = Klondike(seed=42).position().split(" ")
    assert words[0] == "klondike" and words[1] == "-"
    assert words[2:6] == ["f0:", "f1:", "f2:", "f3:"]
    assert words[6] == "t0:KH"
    assert words[7] == "t1:qcTC"  # face-down cards in lower case
    assert words[-2] == "w:" and words[-1] == "redeals=0"
    assert Golf(seed=1).position().split(" ")[1] == "queen_on_king=1"
    assert Golf(seed=1, queen_on_king=False).position().split(" ")[1] == "queen_on_king=0"


def test_rule_options_survive_a_position_round_trip():
    game = Game.from_position(Golf(seed=3, queen_on_king=False).position())
    assert game.rule_options == {"queen_on_king": False}


def test_piles_given_out_of_order_are_put_back_in_layout_order():
    text = Klondike(seed=42).position()
    words = text.split(" ")
    shuffled = words[:2] + list(reversed(words[2:-1])) + words[-1:]
    assert Game.from_position(" ".join(shuffled)).position() == text


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "klondike",
        "chess - a1:K",
        "klondike - f0:ZZ",
        "klondike - t0:ASkh",  # a face-down card above a face-up one
        "klondike - f0: colour=red",  # unknown state field
        "klondike - 00:AS",  # a bad pile id
    ],
)
def test_junk_positions_are_refused_with_bad_position(junk):
    with pytest.raises(BadNotation) as info:
        Game.from_position(junk)
    assert info.value.code == "bad_position"


def edit(text, old, new):
    assert old in text
    return text.replace(old, new, 1)


def test_a_position_missing_a_state_field_or_a_pile_is_refused():
    text = Klondike(seed=1).position()
    for bad in (edit(text, " redeals=0", ""), edit(text, " w:", ""), text + " t7:", text + " w:"):
        with pytest.raises(BadNotation) as info:
            Game.from_position(bad)
        assert info.value.code == "bad_position"


@pytest.mark.parametrize("value", ["x", "-1", "", "1.5"])
def test_a_state_field_that_is_not_a_number_is_refused(value):
    with pytest.raises(BadNotation) as info:
        Game.from_position(edit(Klondike(seed=1).position(), "redeals=0", f"redeals={value}"))
    assert info.value.code == "bad_position"


def test_clock_state_fields_are_checked_too():
    text = Clock(seed=1).position()
    for bad in (edit(text, "exchanged=0", "exchanged=yes"), edit(text, "current=12", "current=twelve")):
        with pytest.raises(BadNotation) as info:
            Game.from_position(bad)
        assert info.value.code == "bad_position"


def test_a_position_of_another_game_is_refused_by_a_game_class():
    with pytest.raises(BadNotation) as info:
        Klondike.from_position(Golf(seed=1).position())
    assert info.value.code == "bad_position"


def test_non_text_is_not_a_position():
    for junk in (None, 42, b"klondike -"):
        with pytest.raises(BadNotation) as info:
            Game.from_position(junk)
        assert info.value.code == "bad_position"


def test_repr_evaluates_back_to_an_equal_position():
    for game_cls in GAMES:
        game = play(game_cls(seed=5), 10, seed=1)
        assert eval(repr(game)).position() == game.position()


def test_copy_is_independent_and_keeps_seed_and_history():
    game = play(Klondike(seed=8), 6, seed=2)
    twin = game.copy()
    assert (twin.position(), twin.seed, twin.history) == (game.position(), game.seed, game.history)
    twin.apply(next(iter(twin.legal_moves())))
    assert twin.position() != game.position()
    assert len(twin.history) == len(game.history) + 1


# ------------------------------------------------------------------------------ illegal moves


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_an_illegal_move_raises_and_leaves_the_state_untouched(game_cls):
    game = play(game_cls(seed=21), 5, seed=9)
    before, history = game.position(), list(game.history)
    for text in ("t0>s", "f0>t0", "s>f0", "t0>t0", "z9>f0", "fly", "redeal", "exchange t0.0"):
        move = Move.parse(text)
        if move in game.legal_moves():
            continue
        with pytest.raises(IllegalMove) as info:
            game.apply(move)
        assert info.value.code in set(IllegalCode)
        assert info.value.move == move and info.value.text == text
        assert game.position() == before and game.history == history


def test_an_illegal_move_carries_a_code_a_reason_and_the_move():
    game = Klondike(seed=42)
    with pytest.raises(IllegalMove) as info:
        game.apply("t9>f0")
    error = info.value
    assert error.code == IllegalCode.NO_SUCH_PILE == "no_such_pile"
    assert "t9" in error.reason and str(error).endswith("[no_such_pile]")


def test_check_and_is_legal_agree_with_apply():
    game = Klondike(seed=42)
    assert game.is_legal(Move.parse("deal"))
    game.check(Move.parse("deal"))
    assert not game.is_legal(Move.parse("redeal"))
    with pytest.raises(IllegalMove) as info:
        game.check(Move.parse("redeal"))
    assert info.value.code == "not_now"


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_check_passes_a_move_listed_since_the_last_move_and_asks_the_rules_of_any_other(game_cls, monkeypatch):
    """The server lists the mover's legal moves after each move and checks the next one: a
    listed move passes without asking the rules again; one not listed, or listed before the
    last move, is asked of the rules, as `is_legal` asks them."""
    rng = random.Random(5)
    game = game_cls(seed=5)
    for _ in range(30):
        legal = list(game.legal_moves())
        if not legal:
            break
        with monkeypatch.context() as m:
            m.setattr(game, "_check_any", None)  # (not asked: calling it would fail)
            for move in legal:
                game.check(move)
        move = rng.choice(legal)
        game.apply(move)
        for old in legal:  # (the rules asked again: the last listing is from before this move)
            if game.is_legal(old):
                game.check(old)
            else:
                with pytest.raises(IllegalMove):
                    game.check(old)
    with pytest.raises(IllegalMove) as info:
        game.check(Move.transfer("t0", "t0"))
    assert info.value.code in set(IllegalCode)


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_an_action_that_takes_no_argument_refuses_one(game_cls):
    game = game_cls(seed=4)
    # a game may allow its actions only when no transfer is left (Pyramid's deal): "deal" then
    plain = next((m for m in game.legal_moves() if not m.is_transfer), Move.parse("deal"))
    with_arg = Move.parse(f"{plain.action} x")
    assert with_arg not in game.legal_moves()
    with pytest.raises(IllegalMove):
        game.apply(with_arg)


# ------------------------------------------------------------------------------- rule options


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_an_unknown_rule_option_is_refused_with_bad_option(game_cls):
    with pytest.raises(BadNotation) as info:
        game_cls(seed=1, no_such_rule=True)
    assert info.value.code == "bad_option"


def test_a_rule_option_takes_true_or_false_only():
    with pytest.raises(BadNotation) as info:
        Golf(seed=1, queen_on_king=1)
    assert info.value.code == "bad_option"


def test_options_default_from_the_game_and_can_be_set():
    assert Golf(seed=1).rule_options == {"queen_on_king": True}
    assert Golf(seed=1, queen_on_king=False).rule_options == {"queen_on_king": False}
    assert Klondike(seed=1).rule_options == {}


def test_an_unknown_option_in_a_position_is_refused():
    text = edit(Golf(seed=1).position(), "queen_on_king=1", "kings_high=1")
    with pytest.raises(BadNotation) as info:
        Game.from_position(text)
    assert info.value.code == "bad_option"


def test_an_option_value_other_than_0_or_1_in_a_position_is_refused():
    text = edit(Golf(seed=1).position(), "queen_on_king=1", "queen_on_king=yes")
    with pytest.raises(BadNotation) as info:
        Game.from_position(text)
    assert info.value.code == "bad_position"


# -------------------------------------------------------------------------------- legal moves


def test_legal_moves_support_iteration_len_bool_and_in():
    game = Golf(seed=42)
    legal = game.legal_moves()
    assert isinstance(legal, LegalMoves)
    moves = list(legal)
    assert [str(m) for m in moves] == ["r0>f0", "r3>f0", "r6>f0", "deal"]
    assert len(legal) == 4 and bool(legal)
    assert Move.parse("r3>f0") in legal
    assert Move.parse("r1>f0") not in legal
    assert "r3>f0" not in legal  # membership is for Move objects
    assert "r3>f0" in repr(legal)


def test_legal_moves_are_empty_and_false_when_the_game_is_over():
    game = Game.from_position("golf queen_on_king=1 f0:5H r0:2C r1: r2: r3: r4: r5: r6: s: redeals=0")
    legal = game.legal_moves()
    assert list(legal) == [] and len(legal) == 0 and not legal
    assert game.over and not game.won


def test_legal_moves_follow_the_game_after_a_move():
    game = Klondike(seed=42)
    legal = game.legal_moves()
    game.apply("deal")
    assert Move.parse("deal") in legal
    assert len(legal) == len(list(game.legal_moves()))


def test_a_won_game_refuses_every_move_with_game_over():
    game = Game.from_position("golf queen_on_king=1 f0:5H r0: r1: r2: r3: r4: r5: r6: s:ac redeals=0")
    assert game.won and game.over and game.cleared == game.total == 35
    with pytest.raises(IllegalMove) as info:
        game.apply("deal")
    assert info.value.code == "game_over"


# ------------------------------------------------------------------------------------- views


def test_a_view_hides_face_down_cards_and_the_stock():
    game = Klondike(seed=42)
    for audience in Audience:
        view = game.view(audience)
        assert view.piles["t0"] == ("KH",)
        assert view.piles["t1"] == ("??", "TC")
        assert view.piles["s"] == ("??",) * 24
        assert view.info == {"redeals": 0}
        assert (view.game, view.cleared, view.total, view.won, view.over, view.moves) == (
            "klondike",
            0,
            52,
            False,
            False,
            0,
        )


def test_a_view_never_shows_the_second_pack_mark():
    game = Game.from_position("klondike - f0:AC' f1: f2: f3: t0:2C' t1: t2: t3: t4: t5: t6: s: w: redeals=0")
    assert game.view().piles["f0"] == ("AC",)
    assert game.view().piles["t0"] == ("2C",)


def test_a_move_that_uncovers_a_card_reports_it():
    game = Game.from_position("klondike - f0: f1: f2: f3: t0:qdAS t1:KS t2: t3: t4: t5: t6: s: w: redeals=0")
    assert game.apply("t0>f0") == (Reveal("t0", 0, Card.parse("QD")),)
    assert game.view().piles["t0"] == ("QD",)
    assert game.apply("t1>t2") == ()  # nothing was under the King


def test_str_draws_the_board_as_an_audience_sees_it():
    text = str(Klondike(seed=42))
    assert text.splitlines()[0] == "Klondike (0/52 cleared)"
    assert " t1: ?? TC" in text
    assert "QC" not in text  # face down under the Ten of Clubs
