"""Safe moves (`Game.safe_moves`, what auto-collect plays) and `Game.decided`.

Each game's rule is checked on hand-made positions, a safe move beside the same kind of move
that is not safe, with the reason from its rules text; then, over seeded random playouts of
every game, the safe moves are legal moves that clear a card, and depend only on what the player
can see (the hidden cards shuffled among their places change nothing). A game without a rule
never offers a safe move.
"""

from __future__ import annotations

import random

import pytest

from engine.core import Game
from engine.games import GAMES, find_game
from tests.engine.test_views import hidden_places, reshuffled

#: Games whose `_safe` is the base class's (no move is ever safe), each for the reason its class
#: gives.
NO_RULE = {
    "golf",
    "clock",
    "double_or_naught",
    "scorpion",
    "idiots_delight",
    "kings_clover",
    "little_spider",
    "besieged_city",
}


def safe(position: str) -> list[str]:
    """The safe moves of ``position``, in notation."""
    return [str(m) for m in Game.from_position(position).safe_moves()]


def clearing(position: str) -> list[str]:
    """Every legal move of ``position`` that clears a card, in notation."""
    game = Game.from_position(position)
    return [str(m) for m in game.legal_moves() if game._clears(m)]


# ---------------------------------------------------------------------------------- Klondike

KLONDIKE = "klondike - f0:AS2S f1:AH2H f2:AD f3:AC t0:5d2D t1:9h3S t2: t3: t4: t5: t6: s: w:{waste} redeals=0"


def test_klondike_an_ace_or_a_two_always_and_a_higher_card_once_the_other_colour_is_up():
    position = KLONDIKE.format(waste="")
    # The 2♦ is a Two: only an Ace could go on it, and an Ace can always go up itself. The 3♠
    # could still hold the 2♦ (red, one lower) while diamonds are only at the Ace.
    assert clearing(position) == ["t0>f2", "t1>f0"]
    assert safe(position) == ["t0>f2"]
    game = Game.from_position(position)
    game.apply("t0>f2")  # both red foundations at Two: nothing left could go on the 3♠
    assert [str(m) for m in game.safe_moves()] == ["t1>f0"]


#: A winnable Klondike position whose waste Two, played at once, loses it: the stock turns
#: three cards at a time, so with the 2♠ gone the A♥ never comes to the top of the waste.
WASTE_TRAP = (
    "klondike - f0:AS f1:AC2C3C4C5C6C7C8C9CTCJCQCKC f2:AD2D3D4D5D6D7D8D9DTDJDQDKD f3: "
    "t0:5s4s3s4H t1:8s7s6s5H t2:jsts9s6H t3:ksqs7H t4:th9h8H t5:qhjhKH t6: s:2hah3h w:2S redeals=0"
)


def _winnable(game: Game) -> bool:
    """Whether some line of play wins ``game`` (every position reached, the redeal count set
    aside: redeals are unlimited, and the rest of the position decides)."""
    seen = {game.position().rsplit(" ", 1)[0]}
    todo = [game]
    while todo:
        position = todo.pop()
        if position.won:
            return True
        for move in position.legal_moves():
            child = position.copy()
            child.apply(move)
            key = child.position().rsplit(" ", 1)[0]
            if key not in seen:
                seen.add(key)
                todo.append(child)
    return False


def test_klondike_a_waste_card_waits_while_a_later_pass_could_need_it_in_the_waste():
    game = Game.from_position(WASTE_TRAP)
    assert "w>f0" in clearing(WASTE_TRAP) and game.safe_moves() == []
    assert _winnable(game)  # deal, redeal, deal: the 2♠ in the stock brings the A♥ up
    played = game.copy()
    played.apply("w>f0")
    assert not _winnable(played)  # each pass now shows only the 2♥ of the three cards
    # With no more cards in the stock and the waste than a deal turns, nothing regroups.
    short = "klondike - f0:AS f1:AH f2:AD f3:AC t0:KH t1: t2: t3: t4: t5: t6: s:9c w:2S redeals=0"
    assert safe(short) == ["w>f0"]


# ------------------------------------------------------------------- Canfield-like games


def test_canfield_a_card_once_both_foundations_of_the_other_colour_hold_the_step_below_it():
    # Base Five. The 6♠ needs the red Fives up (both are); the 7♥ could still hold the 6♣ (the
    # clubs have not started); the 5♣, a base card, could hold a red Four round the corner.
    position = "canfield - f0:5H6H f1:5S f2:5D f3: r0:9h8cQC t0:6S t1:7H t2:5C t3:JD s: w: redeals=0"
    assert clearing(position) == ["t0>f1", "t1>f0", "t2>f3"]
    assert safe(position) == ["t0>f1"]


def test_chameleon_and_four_seasons_a_card_once_every_suit_holds_the_step_below_it():
    # Base Seven, tableau built regardless of suit: the 8♣ needs every Seven up (all are), the
    # 9♦ could still hold the 8♣.
    position = "chameleon - f0:7D8D f1:7H8H f2:7S8S f3:7C r0:KS t0:8C t1:9D t2:2H t3:3H s: w: redeals=0"
    assert clearing(position) == ["t0>f3", "t1>f0"]
    assert safe(position) == ["t0>f3"]
    position = "four_seasons - f0:5C6C f1:5H6H f2:5D f3:5S6S t0:6D t1:7C t2:2H t3:3H t4:9S s: w: redeals=0"
    # The 6♦ needs every Five up; the 7♣ could still hold the 6♦.
    assert clearing(position) == ["t0>f2", "t1>f0"]
    assert safe(position) == ["t0>f2"]
    # A base card could hold the last card of any suit (a King on an Ace, round the corner).
    assert safe("four_seasons - f0:AC f1: f2: f3: t0:AD t1: t2: t3: t4: s: w: redeals=0") == []


def test_dutchess_nothing_before_the_base_and_no_pile_emptied_while_the_reserve_must_fill_it():
    assert find_game("dutchess")(1).safe_moves() == []  # the first move chooses the base card
    # Base Ace, both red Aces up: the Twos of spades and clubs are safe by rank; but the 2♣ is the
    # last card of its pile, and a reserve card would then have to fill the space at once.
    position = "dutchess - f0:AH f1:AD f2:AS f3:AC r0:KS r1: r2: r3: t0:9C2S t1:2C t2:QD t3:QH s: w: redeals=0"
    assert clearing(position) == ["t0>f2", "t1>f3"]
    assert safe(position) == ["t0>f2"]
    assert safe(position.replace("r0:KS", "r0:")) == ["t0>f2", "t1>f3"]  # no reserve card left


def test_eight_off_and_penguin_every_card_up_is_safe_but_the_penguin():
    # Built down in suit: the card that could go on one going up is on the foundation already.
    position = (
        "eight_off - f0:AH f1:AS2S f2: f3: c0:2H c1: c2: c3: c4: c5: c6: c7: "
        "t0:KD3S t1:AC t2: t3: t4: t5: t6: t7: redeals=0"
    )
    assert clearing(position) == ["c0>f0", "t0>f1", "t1>f2", "t1>f3"]
    assert safe(position) == clearing(position)
    # The penguin (the 7♣, base card) could still hold the 6♣ round the corner; the 8♥ is safe.
    position = "penguin - f0: f1:7H f2:7S f3:7D c0: c1: c2: c3: c4: c5: c6: t0:7C t1:8H t2:6C t3: t4: t5: t6: redeals=0"
    assert clearing(position) == ["t0>f0", "t1>f1"]
    assert safe(position) == ["t1>f1"]


def test_strategy_every_card_up_is_safe():
    # Stage one: the turned Ace must go up (to any empty foundation, all alike).
    position = "strategy - f0: f1:AS f2: f3: t0:5C t1: t2: t3: t4: t5: t6: s:kd w:AH redeals=0"
    assert safe(position) == clearing(position) == ["w>f0", "w>f2", "w>f3"]
    # Stage two: nothing is ever put on a waste pile again.
    position = "strategy - f0:AH f1:AS f2: f3: t0:2S2H t1:3S t2: t3: t4: t5: t6: s: w: redeals=0"
    assert safe(position) == clearing(position) == ["t0>f0"]


def test_osmosis_a_reserve_card_always_and_a_waste_card_when_no_pass_regroups():
    position = "osmosis - f0:8D f1:8S f2: f3: r0:AD r1:8H r2: r3: s:{stock} w:3D redeals=0"
    # Three cards at a time, redealt at will: a waste card off changes every later pass.
    assert clearing(position.format(stock="kc5c9h4s")) == ["r0>f0", "r1>f2", "r1>f3", "w>f0"]
    assert safe(position.format(stock="kc5c9h4s")) == ["r0>f0", "r1>f2", "r1>f3"]
    assert safe(position.format(stock="kc")) == ["r0>f0", "r1>f2", "r1>f3", "w>f0"]


# ------------------------------------------------------------- foundations by rank alone


def test_bristol_and_try_again_a_card_once_every_foundation_reached_the_rank_below():
    # Every foundation holds a Two: every Three left has a foundation waiting, and no Two is left to
    # be built on a Three. A Four waits: the foundations at Two would each want a Three first.
    position = (
        "bristol - f0:AC2D3H f1:AD2S f2:AH2C f3:AS2H t0:3S t1:4C t2: t3: t4: t5: t6: t7: r0: r1: r2: s: redeals=0"
    )
    assert clearing(position) == ["t0>f1", "t0>f2", "t0>f3", "t1>f0"]
    assert safe(position) == ["t0>f1", "t0>f2", "t0>f3"]
    position = "try_again - f0:AC2D3H f1:AD2S f2:AH2C f3:AS2H t0:3S t1:4C t2: t3: s:9d w:KC redeals=0 dealt=0"
    assert safe(position) == ["t0>f1", "t0>f2", "t0>f3"]
    # With a foundation still at the Ace, a Three up could take the place another Three needs.
    assert safe(position.replace("f3:AS2H", "f3:AS").replace("t1:4C", "t1:2H")) == ["t1>f3"]


def test_queens_quadrille_a_five_or_six_always_and_others_when_no_card_of_their_rank_waits():
    # Eight foundations for four Fives and four Sixes: a Five or Six always has a place.
    assert safe("queens_quadrille - f0: f1: f2: f3: f4: f5: f6: f7: t0: t1: t2: t3: s:9c w:5H redeals=0") == [
        "w>f0",
        "w>f1",
        "w>f2",
        "w>f3",
        "w>f4",
        "w>f5",
        "w>f6",
        "w>f7",
    ]
    # Three Fives up, four Fours to come: one Four would be left without a foundation.
    position = "queens_quadrille - f0:5C f1:5D f2:5H f3: f4: f5: f6: f7: t0:4D t1: t2: t3: s:9c w:KH redeals=0"
    assert clearing(position) == ["t0>f0", "t0>f1", "t0>f2"]
    assert safe(position) == []
    # Four Fives up: every Four has a Five waiting.
    assert safe(position.replace("f3:", "f3:5S")) == ["t0>f0", "t0>f1", "t0>f2", "t0>f3"]


def test_calculation_only_the_last_card_of_a_rank_goes_up_by_itself():
    # f0 wants a Six now, and f1, f2 hold theirs; f3 (4 8 Q 3, then 7 J 2 6) wants one later:
    # which foundation gets which Six is the game's choice.
    position = "calculation - f0:AS2H3C4H5D f1:2D4S6H f2:3S6C f3:4C8DQH3H t0:6S t1: t2: t3: s:9c w:KS redeals=0"
    assert clearing(position) == ["t0>f0"]
    assert safe(position) == []
    # Once f3 has its Six, the Six of t0 is the last one: f0 is the only place it can ever go.
    assert safe(position.replace("3H t0", "3H7CJD2C6D t0")) == ["t0>f0"]


def test_friday_13_a_card_once_no_card_of_its_rank_would_be_left_waiting():
    # Every foundation shows an Ace: four places for the four Twos, the Two foundation included.
    position = (
        "friday_13 - f0:JSQSKSAS f1:QHKHAH f2:KDAD f3:AC f4: f5: f6: f7: f8: f9: f10: f11: f12: s:9c w:2D redeals=0"
    )
    assert clearing(position) == ["w>f0", "w>f1", "w>f2", "w>f3", "w>f4"]
    # Starting the Two foundation is safe; a Two on an Ace while the Two foundation is empty is not:
    # that foundation needs a Two, and all four may be needed on the Aces.
    assert safe(position) == ["w>f4"]
    # One Ace showing and four Twos to come: starting the Two foundation may leave a Two waiting.
    assert safe("friday_13 - f0:JS f1:QS f2:KS f3:AC f4: f5: f6: f7: f8: f9: f10: f11: f12: s:9c w:2D redeals=0") == []


# ------------------------------------------------------------------------- two packs


def test_generals_patience_both_copies_need_a_place_and_nothing_could_be_built_on_the_card():
    position = (
        "generals_patience - f0:AH f1:AH' f2:AC f3:AC' f4:AS f5:AS' f6: f7: "
        "t0:2H t1:AD t2: t3: t4: t5: t6: t7: t8: r:AD' s:9c w: redeals=0"
    )
    # The 2♥: both heart foundations take a Two, and every black Ace is up. A base card could
    # hold the last cards of the other colour, so the A♦ waits in the tableau, not in the reserve
    # (which plays only to the foundations).
    assert clearing(position) == ["r>f6", "r>f7", "t0>f0", "t0>f1", "t1>f6", "t1>f7"]
    assert safe(position) == ["r>f6", "r>f7", "t0>f0", "t0>f1"]
    # One heart foundation started: the other 2♥ would have none waiting.
    assert "t0>f0" not in safe(position.replace("f1:AH'", "f1:").replace("r:AD'", "r:AH'"))
    # A black Ace still in play could go on the 2♥.
    assert "t0>f0" not in safe(position.replace("f5:AS'", "f5:").replace("r:AD'", "r:AS'"))


def test_tournament_a_kibitzer_always_a_dormitzer_after_the_last_redeal():
    # Hearts: the Ace pile is up to the Six, the King pile down to the Eight: both take a Seven,
    # and there are two 7♥ in play.
    position = (
        "tournament - f0:AH2H3H4H5H6H f1: f2: f3: f4:KHQHJHTH9H8H f5: f6: f7: r0:7H r1: r2: r3: r4: r5: r6: r7: "
        "w0:9C7H' w1:5D w2:5C w3:6C w4:8D w5:9D s:{stock} redeals={redeals}"
    )
    both = ["w0>f0", "w0>f4", "r0>f0", "r0>f4"]
    assert clearing(position.format(stock="", redeals=2)) == both
    assert safe(position.format(stock="", redeals=2)) == both
    # A redeal left: it would gather the dormitzers four to a pile, and one card fewer would change
    # where every later card goes. The kibitzer's card is safe all the same.
    assert safe(position.format(stock="", redeals=1)) == ["r0>f0", "r0>f4"]
    # The dormitzer's last card while the stock has cards: it would be dealt four at once.
    last = position.format(stock="4c", redeals=2).replace("w0:9C7H'", "w0:7H'")
    assert safe(last) == ["r0>f0", "r0>f4"]
    # The King pile only down to the Nine: one Seven would be left with no foundation waiting. The
    # kibitzer's card is still safe: the other copy could wait in the kibitzer it frees.
    short = position.format(stock="", redeals=2).replace("9H8H", "9H")
    assert clearing(short) == ["w0>f0", "r0>f0"]
    assert safe(short) == ["r0>f0"]


# --------------------------------------------------------------------------- removal


def test_baroness_and_pyramid_discard_a_free_king_but_no_pair():
    position = "baroness - f0: t0:KD t1:4S t2:9C t3:2D t4:JS t5: t6: s:7h8c"
    assert safe(position) == ["t0>f0"]  # (the 4♠ and the 9♣ pair too: a choice, not a clear)
    game = Game.from_position(position)
    assert "t1>t2" in [str(m) for m in game.legal_moves()]
    pyramid = find_game("pyramid")(1)  # the apex is the K♣, covered: no free King
    assert pyramid.safe_moves() == []
    assert safe("pyramid - f0: " + " ".join(f"r{i}:" for i in range(27)) + " r27:KS s:2c d:JD w:2H") == ["r27>f0"]


def test_perpetual_motion_four_of_a_kind_on_one_pile_but_not_the_four_tops():
    position = "perpetual_motion - f0: t0:3C9H9D9S9C t1:2H t2: t3: s:4h redeals=0"
    assert safe(position) == ["t0>f0x4"]
    tops = "perpetual_motion - f0: t0:9H t1:9D t2:9S t3:9C s:4h redeals=0"
    assert "clear" in [str(m) for m in Game.from_position(tops).legal_moves()] and safe(tops) == []


# ---------------------------------------------------------------- every game, playouts

PLAYOUTS = 3
STEPS = 120


@pytest.mark.parametrize("game_cls", GAMES, ids=lambda g: g.key)
def test_safe_moves_are_legal_clearing_moves_that_depend_only_on_what_the_player_sees(game_cls):
    offered = 0
    for seed in range(PLAYOUTS):
        rng = random.Random(seed)
        game = game_cls(seed)
        for _ in range(STEPS):
            legal = list(game.legal_moves())
            if not legal:
                break
            found = [str(m) for m in game.safe_moves()]
            offered += bool(found)
            assert set(found) <= {str(m) for m in legal}
            assert all(game._clears(m) for m in game.safe_moves())
            assert [str(m) for m in legal if game._safe(m)] == found  # (`_safe` of a move that clears nothing: False)
            if hidden_places(game):
                twin = reshuffled(game, rng)
                assert [str(m) for m in twin.safe_moves()] == found, (
                    f"{game_cls.key} seed={seed}: shuffling the hidden cards changed the safe moves\n{game.position()}"
                )
            clears = [m for m in legal if game._clears(m)]
            game.apply(rng.choice(clears if clears and rng.random() < 0.6 else legal))
    if game_cls.key in NO_RULE:
        assert offered == 0
        assert type(game_cls(0))._safe is Game._safe


# -------------------------------------------------------------------------------- decided

ALL_UP = (
    "klondike - f0:AS2S3S4S5S6S7S8S9S f1:AH2H3H4H5H6H7H8H9H f2:AD2D3D4D5D6D7D8D9D "
    "f3:AC2C3C4C5C6C7C8C9C t0:KSQHJSTH t1:KHQSJHTS t2:KDQCJDTC t3:KCQDJCTD t4: t5: t6: s: w: redeals=0"
)


def test_klondike_with_every_card_face_up_is_decided_and_its_finishing_line_wins():
    game = Game.from_position(ALL_UP)
    assert game.decided
    line = game.finishing_line()
    assert line is not None
    twin = game.copy()
    for move in line:
        twin.apply(move)
    assert twin.won
    hidden = Game.from_position(ALL_UP.replace("t0:KSQHJSTH", "t0:ksQHJSTH"))
    assert not hidden.decided and hidden.finishing_line() is None
