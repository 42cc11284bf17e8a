"""Per-game knowledge of the solver (solver/<game>.py, registered in solver.ordering.KNOWLEDGE):
canonical forms that merge only positions the rules cannot tell apart, move orders that follow
each game's strategy, scores, and a search that leaves out moves never claiming a proof."""

from __future__ import annotations

from engine.core import Game
from engine.games import find_game
from solver import Budget, calculation, generals_patience, solve
from solver.ordering import canonical, ordered_moves, proves_loss, score


def position(key: str, piles: dict[str, str], tail: str = "") -> Game:
    """A position of ``key`` with the named piles (bottom to top) and every other pile of a new
    deal's layout empty."""
    ids = list(find_game(key)(0).piles)
    text = " ".join(f"{pid}:{piles.get(pid, '')}" for pid in ids)
    return Game.from_position(f"{key} - {text} {tail}".rstrip())


# ------------------------------------------------------------------------------- Calculation

CALCULATION = {"f0": "AC", "f1": "2D", "f2": "3H", "f3": "4S", "s": "9h5c", "w": "KD"}


def test_calculation_positions_differing_by_suits_or_a_swap_of_waste_piles_are_one():
    a = position("calculation", CALCULATION | {"t0": "7H", "t1": "QS"}, "redeals=0")
    b = position("calculation", CALCULATION | {"t0": "QC", "t2": "7D", "f2": "3S"}, "redeals=0")
    assert canonical(a) == canonical(b)
    c = position("calculation", CALCULATION | {"t0": "7HQS"}, "redeals=0")  # one pile, not two
    d = position("calculation", CALCULATION | {"t0": "7H", "t1": "QS", "f1": "2D4C"}, "redeals=0")
    assert len({canonical(a), canonical(c), canonical(d)}) == 3


def test_calculation_needs_count_the_cards_before_a_rank_on_its_nearest_foundation():
    need = calculation.needs(position("calculation", CALCULATION, "redeals=0"))
    # f0 needs a Two now, f1 a Four, f2 a Six, f3 an Eight; a Three comes after the Two on f0.
    assert [need[r] for r in (2, 4, 6, 8, 3)] == [0, 0, 0, 0, 1]
    assert need[13] == 11  # a King comes last everywhere: f0 takes eleven cards before it


def test_calculation_a_card_on_one_needed_sooner_costs_score():
    tidy = position("calculation", CALCULATION | {"t0": "KH9C"}, "redeals=0")  # the Nine is needed first
    untidy = position("calculation", CALCULATION | {"t0": "9CKH"}, "redeals=0")  # the King blocks it
    assert score(tidy) > score(untidy)


def test_calculation_tries_a_foundation_then_a_pile_the_card_does_not_block():
    game = position("calculation", CALCULATION | {"t0": "3H", "t1": "KC", "w": "7D"}, "redeals=0")
    order = [str(move) for move in ordered_moves(game)]
    # The Seven is needed after the Three (f0 takes the Three first) and before the King: it goes
    # on the King, else on an empty pile, and on the Three last.
    assert order[0] == "w>t1" and order.index("w>t2") < order.index("w>t0")
    game = position("calculation", CALCULATION | {"w": "2S"}, "redeals=0")
    assert str(ordered_moves(game)[0]) in ("w>f0", "w>f1")


# ---------------------------------------------------------------------------------- Friday 13

OPENING = {"f0": "JC", "f1": "QC", "f2": "KC", "f3": "AC"}


def test_friday_13_started_foundations_with_one_top_rank_are_alike_whatever_their_suits_and_lengths():
    a = position("friday_13", OPENING | {"f1": "QCKD", "s": "5d", "w": "2H"}, "redeals=0")
    b = position("friday_13", OPENING | {"f2": "KS", "f1": "QHKD", "s": "5s", "w": "2C"}, "redeals=0")
    assert canonical(a) == canonical(b)
    c = position("friday_13", OPENING | {"f4": "2D", "s": "5d", "w": "2H"}, "redeals=0")  # a fifth started
    assert canonical(c) != canonical(a)


def test_friday_13_the_waste_card_starts_its_foundation_first_and_each_top_rank_is_tried_once():
    game = position("friday_13", OPENING | {"f1": "QH", "f2": "AD", "s": "9c", "w": "2S"}, "redeals=0")
    # f2 and f3 both show an Ace: w>f2 and w>f3 lead to one position.
    assert [str(m) for m in ordered_moves(game)] == ["w>f4", "w>f2", "deal"]
    assert {str(m) for m in game.legal_moves()} == {"w>f4", "w>f2", "w>f3", "deal"}


def test_friday_13_a_position_that_lost_every_card_of_an_empty_foundations_rank_scores_last():
    alive = position("friday_13", OPENING | {"w": "2S", "s": "3d4d5d6d7d8d9dtd"}, "redeals=0")
    # Every Two is on the Ace foundation: the Two foundation can never be started.
    dead = position("friday_13", OPENING | {"f3": "AC2C2D2H2S", "s": "3d4d5d6d7d8d9dtd"}, "redeals=0")
    assert dead.cleared > alive.cleared and score(dead) < score(alive)


# ------------------------------------------------------------------------- General's Patience


def test_generals_patience_a_reserve_whose_suit_falls_three_times_is_stuck():
    # Base Two. Hearts leave the reserve (top first) as 9, 6, 4: the two heart foundations can
    # take at most two falling cards, so the third can never be played.
    falls = position("generals_patience", {"f0": "2C", "r": "4H6H9H", "s": "5d"}, "redeals=0")
    assert generals_patience.reserve_stuck(falls, 2)
    two = position("generals_patience", {"f0": "2C", "r": "9H6H4H", "s": "5d"}, "redeals=0")  # 4, 6, 9
    assert not generals_patience.reserve_stuck(two, 2)
    twice = position("generals_patience", {"f0": "2C", "r": "4H6H", "s": "5d"}, "redeals=0")
    assert not generals_patience.reserve_stuck(twice, 2)
    # ... unless a heart foundation has already passed the Four with the other copy.
    passed = position("generals_patience", {"f0": "2C", "f1": "2H3H4H'5H", "r": "4H6H9H", "s": "5d"}, "redeals=0")
    assert generals_patience.reserve_stuck(passed, 2) and score(passed) < score(two)


def test_generals_patience_copies_of_a_card_and_swapped_piles_are_one_position():
    a = position(
        "generals_patience", {"f0": "2C", "f1": "2H'", "t0": "9S8H", "t3": "KD", "r": "5C", "s": "7d"}, "redeals=0"
    )
    b = position(
        "generals_patience", {"f0": "2H", "f4": "2C'", "t5": "9S'8H", "t1": "KD'", "r": "5C", "s": "7d"}, "redeals=0"
    )
    assert canonical(a) == canonical(b)


def test_generals_patience_a_card_nothing_could_be_built_on_goes_up_alone():
    # Base Two: the Three of Clubs could take only a red Two, and both red Twos are home.
    game = position(
        "generals_patience",
        {"f0": "2C", "f1": "2D", "f2": "2D'", "f3": "2H", "f4": "2H'", "t0": "3C", "t1": "9S", "w": "8D", "s": "7d"},
        "redeals=0",
    )
    assert [str(m) for m in ordered_moves(game)] == ["t0>f0"]
    # With a red Two (and a black Ace, which could go on it) still in play, every move is tried,
    # the foundation first.
    game = position(
        "generals_patience",
        {"f0": "2C", "f1": "2D", "t0": "3C", "t1": "9S", "w": "8D", "t2": "2H", "t3": "AS", "s": "7d"},
        "redeals=0",
    )
    moves = [str(m) for m in ordered_moves(game)]
    assert moves[0] in ("t0>f0", "t2>f2") and "w>t1" in moves and len(moves) > 2


# -------------------------------------------------------------------------- The Besieged City


def test_besieged_city_copies_of_a_card_and_the_foundations_order_are_ignored_places_are_not():
    a = position("besieged_city", {"f0": "AH", "f1": "AS'", "t0": "5C", "r4": "9D'", "s": "7d"})
    b = position("besieged_city", {"f2": "AS", "f3": "AH'", "t0": "5C'", "r4": "9D", "s": "7d"})
    assert canonical(a) == canonical(b)
    c = position("besieged_city", {"f0": "AH", "f1": "AS'", "t1": "5C", "r4": "9D'", "s": "7d"})
    assert canonical(c) != canonical(a)


def test_besieged_city_a_card_moves_between_packets_only_to_some_purpose():
    # No Reserve card is left, so the empty Ramparts stay empty.
    game = position("besieged_city", {"f0": "AH", "t0": "7D6S", "t1": "5S", "t2": "8CKH", "t13": "7S", "s": "9c"})
    legal = {str(m) for m in game.legal_moves()}
    kept = {str(m) for m in ordered_moves(game)}
    assert {"t0>t1", "t0>t13", "t1>t0", "t2>f0"} <= legal
    assert "t2>f0" in kept and str(ordered_moves(game)[0]) == "t2>f0"
    # The Six of Spades lies on a Seven of Diamonds needed later: moving it exposes nothing useful.
    assert "t0>t1" not in kept and "t0>t13" not in kept
    # The Five of Spades alone on its packet: moving it empties the packet for a Reserve card.
    assert "t1>t0" in kept


def test_a_search_that_leaves_out_moves_never_claims_a_proof():
    assert not proves_loss(find_game("besieged_city")(0)) and proves_loss(find_game("friday_13")(0))
    game = position("besieged_city", {"f0": "AH", "t0": "5C", "r0": "9D", "r1": "8S"})
    verdict = solve(game, Budget(nodes=5_000), exact=False)  # (the generic search: its knowledge leaves moves out)
    assert verdict.result == "unknown" and "no proof" in verdict.reason
    assert verdict.nodes < 5_000  # it ran out of positions, not of budget
