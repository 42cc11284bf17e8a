"""The exact Idiot's Delight search (solver/idiots_delight.py): its model of the rules is the
engine's move for move, its wins replay on the engine, its bound loses nothing against a plain
search of every position (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver import idiots_delight
from solver.budget import Budget
from solver.idiots_delight import IdiotsDelight, clearable, solve_exact, unwinnable
from tests.solver.models import UNLIMITED, assert_plays_as_engine, assert_verdict, plain_search, playout

KEY = "idiots_delight"


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = spaces = discards = 0
    for seed in range(25):
        model = IdiotsDelight.from_game(find_game(KEY)(seed))
        for _ in range(2):
            for game in playout(KEY, seed, rng):
                # a model read from this position starts where the deal's model stands
                legal = assert_plays_as_engine(model, game, model.state_of, again=IdiotsDelight.from_game, where=seed)
                for move in legal:
                    if move != "deal":
                        spaces += not game.piles[move[3:]].cards
                        discards += bool(game.piles[move[3:]].cards)
                positions += 1
    assert positions > 1000 and spaces > 50 and discards > 500


def late_positions(rng: random.Random, seeds: range, stock_left: int) -> list[Game]:
    """Positions of random lines of play (a discard where there is one, nine times in ten) with
    at most ``stock_left`` stock cards left."""
    found = []
    for seed in seeds:
        game = find_game(KEY)(seed)
        while len(game.piles["s"].cards) > stock_left and not game.over:
            legal = [str(move) for move in game.legal_moves()]
            discards = [move for move in legal if move != "deal" and game.piles[move[3:]].cards]
            game.apply(rng.choice(discards if discards and rng.random() < 0.9 else legal))
        found.append(game)
    return found


def small_positions(rng: random.Random, count: int) -> list[Game]:
    """Positions of a few cards each, laid out at random: the four Kings and eight to twelve
    other cards in the piles and a stock of up to eight, every other card on ``f0``."""
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    found = []
    for _ in range(count):
        others = [name for name in names if name[0] != "K"]
        rng.shuffle(others)
        cards = [name for name in names if name[0] == "K"] + others[: rng.randrange(8, 13)]
        rng.shuffle(cards)
        stock = cards[: rng.randrange(0, 9)]
        rest = cards[len(stock) :]
        piles: list[list[str]] = [[] for _ in range(4)]
        for name in rest:
            piles[rng.randrange(4)].append(name)
        gone = "".join(name for name in names if name not in cards)
        text = f"{KEY} - f0:{gone} " + " ".join(f"t{i}:{''.join(pile)}" for i, pile in enumerate(piles))
        found.append(find_game(KEY).from_position(f"{text} s:{''.join(stock).lower()}"))
    return found


def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay():
    rng = random.Random(13)
    verdicts = {"won": 0, "lost": 0}
    for game in late_positions(rng, range(40), 8) + small_positions(rng, 60):
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = plain_search(IdiotsDelight.from_game(game))
        assert_verdict(verdict, game, won, best, before)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 10 and verdicts["lost"] >= 20, verdicts


def test_a_won_position_and_a_position_with_nothing_left_to_play():
    game = find_game(KEY).from_position(
        "idiots_delight - f0:"
        + "".join(f"{r}{s}" for s in "chds" for r in "a23456789tjq")
        + " t0:KC t1:KD t2:KH t3:KS s:"
    )
    assert game.won
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared, verdict.solution) == ("won", 48, [])
    queen = "".join(f"{r}{s}" for s in "chds" for r in "a23456789tjq")[:-2]
    # the Queen of Spades over the King: into the space, onto the King, then the King apart
    late = find_game(KEY).from_position(f"idiots_delight - f0:{queen} t0:KC t1:KD t2: t3:KHKSQS s:")
    verdict = solve_exact(late, UNLIMITED)
    assert (verdict.result, verdict.best_cleared, verdict.solution) == ("won", 48, ["t3>t2", "t2>t3"])
    # no space: the Queen is stuck on its King
    stuck = find_game(KEY).from_position(f"idiots_delight - f0:{queen} t0:KC t1:KD t2:KH t3:KSQS s:")
    verdict = solve_exact(stuck, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("lost", 47)


def _bound_bites(names, cards, stock, piles):
    """Build the position (``cards`` still in play: ``stock`` to deal, ``piles`` laid out; the
    rest of ``names`` but the Kings on f0), check that a plain search clears no more than
    `clearable` allows, and say whether the bound is below every card in play."""
    gone = "".join(name for name in names if name not in cards and name[0] != "K")
    text = f"{KEY} - f0:{gone} " + " ".join(f"t{i}:{''.join(pile)}" for i, pile in enumerate(piles))
    game = find_game(KEY).from_position(f"{text} s:{''.join(stock).lower()}")
    model = IdiotsDelight.from_game(game)
    left = clearable(model.start[0], model.stock, 0)
    assert left is not None
    _, best = plain_search(model)
    assert best - game.cleared <= left, game.position()
    return left < len(cards)


def test_with_a_king_at_every_bottom_the_bound_holds_and_bites():
    # positions with a King at the bottom of each pile: nothing ever moves between piles, and
    # every cleared count a plain search reaches stays within the bound, often below all cards
    rng = random.Random(17)
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    positions = bites = 0
    for _ in range(80):
        others = [name for name in names if name[0] != "K"]
        rng.shuffle(others)
        cards = others[: rng.randrange(8, 13)]
        stock = cards[: rng.randrange(0, 9)]
        piles = [["K" + suit] for suit in "CDHS"]
        rng.shuffle(piles)
        for name in cards[len(stock) :]:
            piles[rng.randrange(4)].append(name)
        bites += _bound_bites(names, cards, stock, piles)
        positions += 1
    assert bites >= 20, bites
    # a space: the bound does not apply
    assert clearable(((51,), (), (25,), (38, 0)), (), 0) is None


def test_with_no_space_to_come_the_bound_holds_where_a_bottom_is_not_a_king():
    # each pile holds a King somewhere above its bottom (or at it): the bottom never leaves, no
    # space ever comes, and a plain search never clears more than the bound allows
    rng = random.Random(23)
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    positions = held = bites = 0
    for _ in range(80):
        others = [name for name in names if name[0] != "K"]
        rng.shuffle(others)
        cards = others[: rng.randrange(10, 15)]
        stock = cards[: rng.randrange(0, 9)]
        piles: list[list[str]] = [[] for _ in range(4)]
        for name in cards[len(stock) :]:
            piles[rng.randrange(4)].append(name)
        for pile, king in zip(piles, rng.sample(["KC", "KD", "KH", "KS"], 4)):
            pile.insert(rng.randrange(len(pile) + 1), king)
        held += any(pile[0][0] != "K" for pile in piles)
        bites += _bound_bites(names, cards, stock, piles)
        positions += 1
    assert held >= 40 and bites >= 20, (held, bites)
    # the bottom's own King to be dealt onto it holds it too; a Queen under nothing does not
    assert clearable(((11,), (25,), (38,), (51,)), (13, 14, 15, 16, 12), 0) is not None
    assert clearable(((11,), (25,), (38,), (51,)), (13, 14, 15, 12), 0) is None


def test_with_the_stock_empty_every_discard_is_played_alone():
    # three Clubs that discard in any order, and a Heart Queen held under the Club King: a
    # search of every order would keep each set of Clubs discarded, this one keeps none
    queen = "".join(f"{r}{s}" for s in "cdhs" for r in "a23456789tjq" if f"{r}{s}" not in ("2c", "3c", "4c", "qh"))
    game = find_game(KEY).from_position(f"{KEY} - f0:{queen} t0:KS2C t1:KH3C t2:KD4C t3:QHKC s:")
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared, verdict.positions) == ("lost", 47, 0)
    # late positions with the stock empty: as a plain search of every position finds
    rng = random.Random(29)
    verdicts = {"won": 0, "lost": 0}
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    small = []
    for _ in range(60):  # the four Kings and four to eight other cards, spread at random
        cards = [name for name in names if name[0] == "K"] + rng.sample(names[:12] + names[13:25], rng.randrange(4, 9))
        rng.shuffle(cards)
        piles: list[list[str]] = [[] for _ in range(4)]
        for name in cards:
            piles[rng.randrange(4)].append(name)
        gone = "".join(name for name in names if name not in cards)
        text = f"{KEY} - f0:{gone} " + " ".join(f"t{i}:{''.join(pile)}" for i, pile in enumerate(piles))
        small.append(find_game(KEY).from_position(f"{text} s:"))
    for game in late_positions(rng, range(40, 100), 0) + small:
        verdict = solve_exact(game, UNLIMITED)
        won, best = plain_search(IdiotsDelight.from_game(game))
        assert (verdict.result, verdict.best_cleared) == ("won" if won else "lost", best), game.position()
        verdicts[verdict.result] += 1
        if won:
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won, game.position()
    assert verdicts["won"] >= 3 and verdicts["lost"] >= 20, verdicts


def test_with_one_deal_to_come_a_discard_of_the_lowest_card_of_its_suit_is_played_alone():
    # the Two of Clubs, the lowest Club in play, goes onto the Five at once: the position it
    # leaves is not kept, nor is any line that keeps the Two (a search of every order keeps 17)
    gone = "".join(
        f"{r}{s}" for s in "CDHS" for r in "A23456789TJQ" if f"{r}{s}" not in ("2C", "5C", "7C", "2D", "2H", "7S")
    )
    game = find_game(KEY).from_position(f"{KEY} - f0:{gone} t0: t1:KC2C t2:KD5C t3:KH2H s:7cks7s2d")
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared, verdict.positions) == ("lost", 47, 2)
    # positions with one deal to come: as a plain search of every position finds
    rng = random.Random(31)
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    small = []
    for _ in range(80):  # the four Kings, two to six other cards in the piles and four in the stock
        others = [name for name in names if name[0] != "K"]
        rng.shuffle(others)
        cards = [name for name in names if name[0] == "K"] + others[: rng.randrange(6, 11)]
        rng.shuffle(cards)
        piles: list[list[str]] = [[] for _ in range(4)]
        for name in cards[4:]:
            piles[rng.randrange(4)].append(name)
        gone = "".join(name for name in names if name not in cards)
        text = f"{KEY} - f0:{gone} " + " ".join(f"t{i}:{''.join(pile)}" for i, pile in enumerate(piles))
        small.append(find_game(KEY).from_position(f"{text} s:{''.join(cards[:4]).lower()}"))
    verdicts = {"won": 0, "lost": 0}
    for game in late_positions(rng, range(100, 140), 4) + small:
        verdict = solve_exact(game, UNLIMITED)
        won, best = plain_search(IdiotsDelight.from_game(game))
        assert_verdict(verdict, game, won, best, game.position())
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 5 and verdicts["lost"] >= 20, verdicts


def _kings_in_piles(
    rng: random.Random, least: int, most: int, stock_most: int, *, spread: bool
) -> tuple[str, list[str], IdiotsDelight] | None:
    """A random position: ``least`` to ``most - 1`` cards that are not Kings, the first fewer
    than ``stock_most`` of them in the stock, the rest and the four Kings in random piles, the
    others discarded; as its position text, the cards not discarded and its model. With
    ``spread``, None where a pile is empty or every pile holds a King."""
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    others = [name for name in names if name[0] != "K"]
    rng.shuffle(others)
    cards = others[: rng.randrange(least, most)]
    stock = cards[: rng.randrange(0, stock_most)]
    piles: list[list[str]] = [[] for _ in range(4)]
    for name in cards[len(stock) :] + ["KC", "KD", "KH", "KS"]:
        piles[rng.randrange(4)].append(name)
    if spread and (not all(piles) or all(any(name[0] == "K" for name in pile) for pile in piles)):
        return None
    for pile in piles:
        rng.shuffle(pile)
    gone = "".join(name for name in names if name not in cards and name[0] != "K")
    text = f"{KEY} - f0:{gone} " + " ".join(f"t{i}:{''.join(pile)}" for i, pile in enumerate(piles))
    return text, cards, IdiotsDelight.from_game(find_game(KEY).from_position(f"{text} s:{''.join(stock).lower()}"))


def test_the_bound_holds_and_bites_where_a_pile_holds_no_king():
    # the four Kings anywhere in the piles (so that some pile holds none): where every bottom is
    # shown to stay, the bound applies, and a plain search never clears more than it allows
    rng = random.Random(37)
    positions = applies = bites = 0
    while positions < 200:
        made = _kings_in_piles(rng, 8, 13, 9, spread=True)
        if made is None:
            continue
        positions += 1
        text, cards, model = made
        left = clearable(model.start[0], model.stock, 0)
        if left is None:
            continue
        applies += 1
        _, best = plain_search(model)
        assert best - model.cleared(model.start) <= left, text
        bites += left < len(cards)
    assert applies >= 20 and bites >= 10, (applies, bites)


def test_a_position_whose_every_card_stays_is_cut_at_once():
    # no pile holds the King of its bottom card's suit free to come to a top (the Spade and
    # Diamond Kings lie under the Heart King, the Club King under a Three no card can take),
    # so nothing is ever cleared: the search ends at the start, where a search of every
    # position keeps the two positions before each deal
    kept = "KC KD KH KS QS 3D 4C JH 2S 2D 3C TH 4S 5D 5C".split()
    gone = "".join(r + s for s in "CDHS" for r in "A23456789TJQ" if r + s not in kept)
    text = f"{KEY} - f0:{gone} t0:KDKSKH t1:QS t2:KC3D t3:4C s:5c5d4sth3c2d2sjh"
    game = find_game(KEY).from_position(text)
    model = IdiotsDelight.from_game(game)
    assert model.stock == (36, 40, 14, 2, 35, 42, 17, 4)  # JH, 2S, 2D, 3C onto t0 to t3, then TH, 4S, 5D, 5C
    assert clearable(model.start[0], model.stock, 0) == 0
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared, verdict.positions) == ("lost", game.cleared, 1)
    assert plain_search(model) == (False, game.cleared)


def _stays_plainly(piles: tuple[tuple[int, ...], ...], stock: tuple[int, ...]) -> int | None:
    """`clearable` of a position with ``stock`` still to deal, reckoned card by card as the module
    docstring words it ("No space to come"), without its bit sets."""
    if not all(piles):
        return None
    home = {card: j for j, pile in enumerate(piles) for card in pile}
    home.update({card: d % 4 for d, card in enumerate(stock)})
    dead: set[int] = set()
    while True:
        # a card lying under a King or a dead card, above a pile's bottom, never comes to a top
        buried: set[int] = set()
        for pile in piles:
            highest = max((i for i in range(1, len(pile)) if pile[i] % 13 == 12 or pile[i] in dead), default=0)
            buried.update(pile[:highest])
        fresh = {
            card
            for card in home
            if card % 13 != 12
            and card not in dead
            and card not in buried
            and not any(
                home.get(higher) not in (None, home[card]) and higher not in buried
                for higher in range(card + 1, card - card % 13 + 13)
            )
        }
        if not fresh:
            break
        dead |= fresh
    stays = dead | buried
    if any(pile[0] % 13 != 12 and pile[0] not in stays for pile in piles):
        return None
    return sum(1 for card in home if card % 13 != 12 and card not in stays)


def test_the_bound_reckoned_with_bit_sets_equals_it_reckoned_card_by_card():
    # positions of whole deals, too large for a plain search: the bound's bit tricks (four piles
    # side by side in one int, suits smeared down within 13 bits) give what the words say
    rng = random.Random(41)
    applies = 0
    for stock_left in (44, 36, 28, 20, 12, 4, 0):
        for game in late_positions(rng, range(stock_left, stock_left + 15), stock_left):
            model = IdiotsDelight.from_game(game)
            left = clearable(model.start[0], model.stock, 0)
            assert left == _stays_plainly(model.start[0], model.stock), game.position()
            applies += left is not None
    assert applies >= 15, applies


def test_a_position_whose_kings_cannot_all_reach_a_bottom_is_not_won():
    # random positions of a few cards with the four Kings in the piles: wherever `unwinnable`
    # says no win, a plain search of every position finds none
    rng = random.Random(43)
    positions = fires = 0
    while positions < 150:
        made = _kings_in_piles(rng, 3, 9, 5, spread=False)
        assert made is not None
        positions += 1
        text, _, model = made
        if unwinnable(model.start[0], model.stock, 0):
            fires += 1
            assert not plain_search(model)[0], text
    assert fires >= 30, fires
    # the Heart King fills the space and the Diamond King stays on the Two of Clubs; a King
    # above a King at a bottom may fill the space instead, and so may a King still to be dealt
    assert unwinnable(((51,), (), (12,), (1, 25, 38)), (0,), 0)
    assert not unwinnable(((51,), (), (12, 38), (1, 25)), (0,), 0)
    assert not unwinnable(((51,), (), (12,), (1, 25)), (0, 38), 0)


def test_once_47_are_cleared_a_position_with_no_win_is_not_searched():
    # the Heart King lies on the Nine of Hearts under the Spade King, the Diamond King alone and
    # the Club King at a bottom: only one King can fill a space, so the Nine never leaves; once
    # every other card is cleared no other position is searched (a search of every position
    # with the bound keeps 1,723)
    stock = "6C3C2D4C2C7CQDAC9CTCJC3D5DQC8C7D"
    kept = {stock[i : i + 2] for i in range(0, len(stock), 2)} | {"9H", "5C", "4D"}
    gone = "".join(r + s for s in "CDHS" for r in "A23456789TJQ" if r + s not in kept)
    dealt_last_first = "".join(stock[i : i + 2] for i in range(len(stock) - 2, -2, -2)).lower()
    game = find_game(KEY).from_position(f"{KEY} - f0:{gone} t0:KC t1:9HKHKS t2:KD t3:5C4D s:{dealt_last_first}")
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("lost", 47)
    assert verdict.positions < 100, verdict.positions
    assert plain_search(IdiotsDelight.from_game(game)) == (False, 47)


def _kings_to_come(rng: random.Random) -> tuple[str, IdiotsDelight]:
    """A random position: one or two Kings and up to four other cards in a stock of at most six,
    the other Kings and two to six other cards in random piles, the rest discarded; as its
    position text and its model."""
    names = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    kings = ["KC", "KD", "KH", "KS"]
    rng.shuffle(kings)
    others = [name for name in names if name[0] != "K"]
    rng.shuffle(others)
    coming = rng.randrange(1, 3)
    stock = kings[:coming] + others[: rng.randrange(0, 7 - coming)]
    rng.shuffle(stock)
    laid = kings[coming:] + others[len(stock) - coming : len(stock) - coming + rng.randrange(2, 7)]
    piles: list[list[str]] = [[] for _ in range(4)]
    for name in laid:
        piles[rng.randrange(4)].append(name)
    for pile in piles:
        rng.shuffle(pile)
    gone = "".join(name for name in names if name not in stock and name not in laid)
    text = f"{KEY} - f0:{gone} " + " ".join(f"t{i}:{''.join(pile)}" for i, pile in enumerate(piles))
    # the stock text lists the last card dealt first
    game = find_game(KEY).from_position(f"{text} s:{''.join(reversed(stock)).lower()}")
    model = IdiotsDelight.from_game(game)
    assert [_name(card) for card in model.stock] == stock
    return f"{text} s:{''.join(stock)}", model


def _name(card: int) -> str:
    return "A23456789TJQK"[card % 13] + "CDHS"[card // 13]


def test_a_king_still_to_come_onto_a_bottom_that_stays_is_counted_in_that_pile():
    # random positions with a King or two in the stock: wherever `unwinnable` says no win (each
    # King to come lands on a bottom with no higher card of its suit in play before its deal), a
    # plain search of every position finds none, and it often says so
    rng = random.Random(47)
    fires = 0
    for _ in range(1000):
        text, model = _kings_to_come(rng)
        if unwinnable(model.start[0], model.stock, 0):
            fires += 1
            assert not plain_search(model)[0], text
    assert fires >= 25, fires
    # the Spade King settled, the Diamond and Club Kings above Twos, the Heart King to come onto
    # the Queen of Hearts (nothing can take her before): three Kings for three piles, no order
    assert unwinnable(((51,), (1, 25), (14, 12), (37,)), (2, 3, 4, 38), 0)
    # onto the Jack: the Queen of Hearts dealt with the King covers nothing, dealt before it may
    assert unwinnable(((51,), (1, 25), (14, 12), (36,)), (2, 37, 4, 38), 0)
    assert not unwinnable(((51,), (1, 25), (14, 12), (36,)), (2, 37, 4, 5, 6, 7, 8, 38), 0)
    # nor where the Ten of Hearts is in the piles, nor onto an empty or a settled pile
    assert not unwinnable(((51, 35), (1, 25), (14, 12), (34,)), (2, 3, 4, 38), 0)
    assert not unwinnable(((51,), (1, 25), (14, 12), ()), (2, 3, 4, 38), 0)
    assert not unwinnable(((51,), (1, 25), (14, 12), (37,)), (38, 3, 4, 5), 0)


def test_once_47_are_cleared_a_king_to_come_onto_a_bottom_that_stays_cuts_the_search():
    # the Spade and Diamond Kings lie on the Two of Spades in t1; the Heart King comes in the
    # last deal onto t3, whose bottom, the Jack of Hearts, nothing can take before (the Queen is
    # gone): three Kings for t1, t2 and t3, no order works, and a space in t2 keeps the bound
    # off; once 47 are cleared hardly any position is searched (without the Kings to come, the
    # search keeps about 2,700: the bound is reckoned where it pays, by the clock)
    game = find_game(KEY).from_position(
        f"{KEY} - f0:AC7C8C9CJC3D4D5D6D8D9DJDAH2H4H5H6H7HQHAS3S4S6S9SQS t0:KC4CTC5S t1:2SKSKDQD t2: t3:JHAD7D"
        " s:kh9h8sjs3hth8h7sqc2d2c5c6c3ctdts"
    )
    model = IdiotsDelight.from_game(game)
    assert _name(model.stock[-1]) == "KH" and len(model.stock) == 16  # onto t3, in the last deal
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("lost", 47)
    assert verdict.positions < 200, verdict.positions
    assert plain_search(model) == (False, 47)


def test_random_lines_tried_first_find_a_high_clear_early_and_their_wins_replay(monkeypatch):
    # deal 1003: its most, 47, is reached within the probe, while the search alone stands at 45
    # after as many moves; 47 lets the Kings' test cut from the start. The search has the whole
    # time budget, so that its moves run out first (the constraint solver never runs)
    monkeypatch.setattr(idiots_delight, "_SEARCH_SHARE", 1.0)
    verdict = solve_exact(find_game(KEY)(1003), Budget(nodes=300_000))
    assert verdict.result == "unknown" and verdict.best_cleared == 47
    # these deals are won by a random line before any position is kept, and the engine replays it
    for seed in (10, 25, 32, 38):
        game = find_game(KEY)(seed)
        verdict = solve_exact(game, Budget(nodes=20_000))
        assert verdict.result == "won" and verdict.positions == 0, seed
        for move in verdict.solution:
            game.apply(move)
        assert game.won, seed


def test_a_beam_of_deals_wins_a_deal_the_exhaustive_search_does_not_within_the_same_moves(monkeypatch):
    # deal 1000: the probe stands at 47, the beam wins within 100,000 moves and the engine
    # replays its line; without the beam the exhaustive search has no win within as many (the
    # search has the whole time budget, so that its moves run out first)
    monkeypatch.setattr(idiots_delight, "_SEARCH_SHARE", 1.0)
    game = find_game(KEY)(1000)
    verdict = solve_exact(game, Budget(nodes=100_000))
    assert verdict.result == "won" and verdict.positions == 0
    replay = game.copy()
    for move in verdict.solution:
        replay.apply(move)
    assert replay.won
    monkeypatch.setattr(idiots_delight, "_BEAM_WIDTH", 0)
    alone = solve_exact(game, Budget(nodes=100_000))
    assert alone.result == "unknown" and alone.best_cleared == 47
    # the beam is the same on every run
    monkeypatch.undo()
    assert solve_exact(game, Budget(nodes=100_000)).solution == verdict.solution


def test_the_beams_score_prefers_spaces_kings_at_bottoms_and_unburied_cards():
    score = idiots_delight._beam_score
    # a space is worth more than a card in a pile; a King at the bottom more than above a card
    assert score(((51,), (), (25,), (0,))) > score(((51,), (1,), (25,), (0,)))
    assert score(((12, 0), (51,), (25,), (38,))) > score(((0, 12), (51,), (25,), (38,)))
    # the Two of Clubs under the Five of Clubs is buried, under the Five of Diamonds it is not
    assert score(((51, 1, 17), (25,), (38,), (12,))) > score(((51, 1, 4), (25,), (38,), (12,)))
