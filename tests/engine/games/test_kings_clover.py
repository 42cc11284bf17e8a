"""King's Clover (engine/games/kings_clover.py), following 003_08087bb95aa03446.txt and its example."""

from engine.cards import Rank
from engine.core import Game, Move
from engine.deal import shuffled
from engine.games import find_game
from tests.engine.helpers import refusal, refused

KingsClover = find_game("kings_clover")
PILES = tuple(KingsClover(0).piles)


def board(**piles):
    """A King's Clover position: the named piles as given (bottom to top), every other pile empty."""
    assert set(piles) <= set(PILES)
    return Game.from_position(
        "kings_clover - " + " ".join(f"{p}:{piles.get(p, '')}" for p in PILES) + " redeals=0 reshuffles=0"
    )


def fans_of(order):
    """The sixteen fans that a shuffled order deals, the Aces taken out first (as codes)."""
    rest = [c.code for c in order if c.rank != Rank.ACE]
    return [rest[3 * i : 3 * i + 3] for i in range(16)]


def first_deal_stuck(seed):
    """Whether the seed's first shuffle puts no Two on top of any fan (rules version 1 kept it)."""
    return not any(fan[-1][0] == "2" for fan in fans_of(shuffled("kings_clover", seed)))


def test_the_aces_start_the_foundations_and_sixteen_fans_of_three_hold_the_rest():
    game = KingsClover(seed=11)
    order = [c for c in shuffled("kings_clover", 11) if c.rank != Rank.ACE]
    assert all(game.piles[f"f{i}"].cards[0].rank == Rank.ACE for i in range(4))
    assert [game.piles[f"t{i}"].cards for i in range(16)] == [order[3 * i : 3 * i + 3] for i in range(16)]
    assert game.cleared == 4


def test_the_worked_example_clubs_and_diamonds_up_then_a_five_on_the_six_of_clubs():
    game = board(f0="AC", f1="AD", f2="AH", f3="AS", t0="5D3C2C", t1="8S2D4C", t2="2H5H3D", t3="7S6C4D", t4="KSQSJS")
    for move in ("t0>f0", "t0>f0", "t1>f0"):  # the Deuce, Trey and Four of Clubs
        game.apply(move)
    for move in ("t1>f1", "t2>f1", "t3>f1"):  # the Deuce, Trey and Four of Diamonds
        game.apply(move)
    assert Move.parse("t0>t3") in game.legal_moves()  # the Five of Diamonds on the Six of Clubs
    game.apply("t2>t3")  # or the Five of Hearts, exposing a Deuce
    game.apply("t2>f2")


def test_fans_build_up_or_down_regardless_of_suit_but_never_past_three_cards():
    game = board(f0="AC", t0="9D", t1="8S", t2="TH", t3="KSQS7C")
    game.apply("t1>t0")  # down
    game = board(f0="AC", t0="9D", t1="TH", t2="KSQSJS", t3="8C")
    game.apply("t1>t0")  # up
    assert refused(game, "t3>t2") == "does_not_fit"
    game = board(f0="AC", t0="KH9D8S", t1="7C")
    assert refused(game, "t1>t0") == "does_not_fit"  # the fan already holds three cards


def test_only_the_king_of_clubs_fills_an_empty_fan():
    game = board(f0="AC", t0="KH", t1="KC", t2="QS")
    assert refused(game, "t0>t3") == "does_not_fit"
    assert refused(game, "t2>t3") == "does_not_fit"
    game.apply("t1>t3")


def test_a_position_with_no_free_deuce_and_full_fans_is_over():
    game = board(f0="AC", f1="AD", t0="2C9H8D", t1="7S6S5S")
    assert game.over and not game.won


STUCK_SEEDS = [seed for seed in range(200) if first_deal_stuck(seed)]


def test_a_deal_with_no_free_deuce_is_reshuffled_by_the_seed():
    """ "If no Deuces are available on the fans, reshuffle - play cannot proceed": a seed whose first
    shuffle shows no Two gets a new deal, the same every time, that offers a move (rules version 2).
    """
    assert KingsClover.rules_version == 2
    assert len(STUCK_SEEDS) > 20 and 42 in STUCK_SEEDS
    for seed in STUCK_SEEDS:
        game = KingsClover(seed)
        assert game.position() == KingsClover(seed).position()  # deterministic
        first = fans_of(shuffled("kings_clover", seed))
        fans = [[c.code for c in game.piles[f"t{i}"].cards] for i in range(16)]
        assert fans != first
        assert game.reshuffles >= 1 and game.view().info["reshuffles"] == game.reshuffles
        assert any(fan[-1][0] == "2" for fan in fans)
        assert game.legal_moves() and not game.over and game.cleared == 4 and not game.history
        assert sorted(c.rank for i in range(4) for c in game.piles[f"f{i}"].cards) == [Rank.ACE] * 4
        # the documented function of the seed: reshuffle n shuffles under "kings_clover/reshuffle/n"
        assert fans == fans_of(shuffled(f"kings_clover/reshuffle/{game.reshuffles}", seed))
        for n in range(1, game.reshuffles):  # every reshuffle before the kept one was stuck too
            assert not any(fan[-1][0] == "2" for fan in fans_of(shuffled(f"kings_clover/reshuffle/{n}", seed)))


def test_a_deal_with_a_free_deuce_is_not_reshuffled():
    for seed in (0, 1, 11):
        assert not first_deal_stuck(seed)
        game = KingsClover(seed)
        assert game.reshuffles == 0
        fans = [[c.code for c in game.piles[f"t{i}"].cards] for i in range(16)]
        assert fans == fans_of(shuffled("kings_clover", seed))


def test_a_reshuffled_deal_round_trips_and_replays():
    game = KingsClover(42)
    assert game.reshuffles == 1 and "reshuffles=1" in game.position()
    assert Game.from_position(game.position()).position() == game.position()
    assert Game.from_position(game.position()).reshuffles == 1
    move = next(iter(game.legal_moves()))
    game.apply(move)
    assert game.reshuffles == 1 and game.copy().position() == game.position()
    replay = KingsClover(42)
    replay.apply(str(move))
    assert replay.position() == game.position()


def test_no_deal_is_over_at_once():
    """Over 500 seeds, no deal starts without a move (version 1: about one in six was lost with
    only the four Aces cleared); about a sixth of the seeds were reshuffled."""
    games = [KingsClover(seed) for seed in range(500)]
    assert not [g.seed for g in games if g.over or not g.legal_moves()]
    assert all(any(g.piles[f"t{i}"].top.rank == Rank.TWO for i in range(16)) for g in games)
    reshuffled = sum(g.reshuffles > 0 for g in games)
    assert reshuffled == sum(first_deal_stuck(seed) for seed in range(500))
    assert 50 < reshuffled < 130


# ------------------------------------------------------------------------------------ in words


def test_refusals_and_moves_in_words():
    game = board(f0="AC", t0="2C", t2="5D6C7S", t3="KH", t4="4D")
    assert refusal(game, "t3>t1") == "the K♥ cannot fill an empty tableau pile: only the K♣ may"
    assert refusal(game, "t4>t2") == "tableau pile 3 holds at most 3 cards"
    assert refusal(game, "t4>t3") == "the 4♦ cannot go on the K♥: build up or down by one regardless of suit"
    assert game.describe("t0>f0") == "the 2♣ from tableau pile 1 to foundation 1"
