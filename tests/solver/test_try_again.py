"""The exact Try Again search (solver/try_again.py): its model of the rules is the engine's move
for move, its wins replay on the engine, its safe moves and bound lose nothing against a plain
search of every position (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

import pytest

from engine.core import Game
from engine.games import find_game
from solver import try_again
from solver.search import Budget
from solver.try_again import TryAgain, can_clear, clearable, solve_exact, top_bound
from tests.solver.models import UNLIMITED, assert_plays_as_engine, assert_verdict, plain_search, playout

KEY = "try_again"


def line_of_play(seed: int, rng: random.Random) -> list[Game]:
    """The positions of a random line of play of deal ``seed`` (a card to a foundation, where
    there is one, three times in four)."""
    game = find_game(KEY)(seed)
    line = [game.copy()]
    while not game.over:
        legal = [str(move) for move in game.legal_moves()]
        ups = [move for move in legal if ">f" in move]
        game.apply(rng.choice(ups if ups and rng.random() < 0.75 else legal))
        line.append(game.copy())
    return line


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(5)
    positions = ups = 0
    for seed in range(25):
        model = TryAgain.from_game(find_game(KEY)(seed))
        for game in line_of_play(seed, rng) + playout(KEY, seed, rng):
            # a model read from this position starts where the deal's model stands
            legal = assert_plays_as_engine(model, game, model.state_of, again=TryAgain.from_game, where=seed)
            ups += sum(">f" in move for move in legal)
            positions += 1
    assert positions > 2000 and ups > 200


def test_the_bound_of_a_pile():
    assert top_bound([], 4) == 0
    assert top_bound([1, 2, 3, 4, 5, 6], 4) == 4  # top to bottom 6 5 4 3 2 1: only four can go up
    assert top_bound([6, 5, 4, 3, 2, 1], 4) == 6  # the Ace on top, then the Two...
    assert top_bound([7, 7, 7, 7, 7], 4) == 4  # five of a rank: one more than the foundations
    assert top_bound([2, 9, 3, 8], 2) == 3 and top_bound([2, 9, 3, 8], 3) == 4  # 8 3 2 is a run


def small_positions(rng: random.Random, count: int) -> list[Game]:
    """Positions with eight to twelve cards left (up to four to turn), laid out at random: the foundations built to
    random heights, the other cards spread over the waste piles and the cards left to turn."""
    found = []
    for _ in range(count):
        while True:
            heights = [rng.randrange(8, 14) for _ in range(4)]
            left = sum(13 - h for h in heights)
            if 8 <= left <= 12:
                break
        names = {rank: [rank + suit for suit in "CDHS"] for rank in "A23456789TJQK"}
        ranks = "A23456789TJQK"
        foundations = ["".join(names[ranks[r]][i] for r in range(h)) for i, h in enumerate(heights)]
        rest = [names[ranks[r]][i] for i, h in enumerate(heights) for r in range(h, 13)]
        rng.shuffle(rest)
        turn = rest[: rng.randrange(0, 5)]
        piles: list[list[str]] = [[] for _ in range(4)]
        for name in rest[len(turn) :]:
            piles[rng.randrange(4)].append(name)
        dealt = 52 - len(turn) - rng.choice([0, 0, 1, 2])
        text = " ".join(f"f{i}:{cards}" for i, cards in enumerate(foundations))
        text += " " + " ".join(f"t{i}:{''.join(pile)}" for i, pile in enumerate(piles))
        stock = "".join(reversed(turn[1:])).lower()
        waste = turn[0] if turn else ""
        found.append(find_game(KEY).from_position(f"{KEY} - {text} s:{stock} w:{waste} redeals=0 dealt={dealt}"))
    return found


@pytest.mark.parametrize("lines", [True, False], ids=["random lines first", "ordered passes only"])
def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay(lines, monkeypatch):
    if not lines:
        # no random lines nor beams: the ordered passes, with the free cards' cut, decide every position
        monkeypatch.setattr(try_again, "_RESTART_SHARE", 0.0)
        monkeypatch.setattr(try_again, "_BEAMS", ())
    rng = random.Random(13)
    cases = []
    for seed in range(30):
        line = line_of_play(seed, rng)
        cases.append(next(game for game in line if len(game.piles["s"].cards) <= 2 or game.over))
    cases += small_positions(rng, 40)
    verdicts = {"won": 0, "lost": 0}
    for game in cases:
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = plain_search(TryAgain.from_game(game))
        assert_verdict(verdict, game, won, best, before)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 10 and verdicts["lost"] >= 20, verdicts


def test_four_cards_of_a_falling_run_go_to_four_foundations():
    # t3 falls from the King of Clubs to the Ten of Spades: each goes to its own foundation
    game = find_game(KEY).from_position(
        f"{KEY} - f0:AC2C3C4C5C6C7C8C9CTCJCQC f1:AD2D3D4D5D6D7D8D9DTDJD f2:AH2H3H4H5H6H7H8H9HTH"
        " f3:AS2S3S4S5S6S7S8S9S t0:KSQSJS t1:KHQH t2:KD t3:TSJHQDKC s: w: redeals=0 dealt=52"
    )
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("won", 52)
    for move in verdict.solution:
        game.apply(move)
    assert game.won


def test_no_first_card_of_a_rank_bounds_what_a_plain_search_clears():
    # late positions of random play: every cleared count a plain search reaches stays within the
    # bound, which is mostly sharper than the run bound alone (`top_bound`)
    rng = random.Random(13)
    positions = sharper = 0
    for seed in range(20):
        for game in line_of_play(seed, rng):
            if len(game.piles["s"].cards) > 3 or game.over:
                continue
            model = TryAgain.from_game(game)
            piles, heights, turned = model.start
            bound = clearable(piles, heights, model.turn[turned:])
            _, best = plain_search(model)
            assert best - game.cleared <= bound, game.position()
            limit = 4 - heights.count(13)
            sharper += bound < len(model.turn) - turned + sum(top_bound(pile, limit) for pile in piles)
            positions += 1
    assert positions > 50 and sharper > positions // 2, (positions, sharper)
    # no Five is up and both left lie under a Six: none can go up, nor anything above a Four
    game = find_game(KEY).from_position(
        f"{KEY} - f0:AC2C3C4C5C6C7C8C9CTCJCQCKC f1:AD2D3D4D5D6D7D8D9DTDJDQDKD f2:AH2H3H4H f3:AS2S3S4S"
        " t0:KS5H6S t1:QS5S6H t2:JSTS9S t3:KH8S7SQHJHTH9H8H7H s: w: redeals=0 dealt=52"
    )
    model = TryAgain.from_game(game)
    assert clearable(*model.start[:2], ()) == 0
    assert (solve_exact(game, UNLIMITED).result, solve_exact(game, UNLIMITED).best_cleared) == ("lost", 34)


def test_free_cards_bound_what_a_plain_search_clears_and_decide_it_when_all_are_turned():
    # the relaxed play (every card still to be turned free) reaches what a plain search clears,
    # and exactly that once no card is left to turn
    rng = random.Random(21)
    cases = []
    for seed in range(20):
        cases += [game for game in line_of_play(seed, rng) if len(game.piles["s"].cards) <= 3 and not game.over]
    cases += small_positions(rng, 30)
    exact = cut = 0
    for game in cases:
        model = TryAgain.from_game(game)
        piles, heights, turned = model.start
        future = model.turn[turned:]
        _, best = plain_search(model)
        assert can_clear(piles, heights, future, best - game.cleared), game.position()
        if not future:
            assert not can_clear(piles, heights, future, best - game.cleared + 1), game.position()
            exact += 1
        cut += not can_clear(piles, heights, future, best - game.cleared + 1)
    assert exact >= 10 and cut >= 20, (exact, cut)


def test_random_lines_find_a_win_the_ordered_search_misses():
    # deal 1014: the first pass in its fixed move order finds no win within 10 s
    game = find_game(KEY)(1014)
    verdict = solve_exact(game, Budget())
    assert verdict.result == "won", verdict.reason
    for move in verdict.solution:
        game.apply(move)
    assert game.won


def test_beams_win_a_deal_that_the_lines_and_passes_do_not_within_as_many_moves(monkeypatch):
    # deal 1013: the beams alone (no random lines) win within 100,000 positions scored; the
    # random lines and the ordered passes (no beams), within as many moves, do not
    budget = Budget(seconds=600, nodes=100_000)
    with monkeypatch.context() as patch:
        patch.setattr(try_again, "_RESTART_SHARE", 0.0)
        game = find_game(KEY)(1013)
        verdict = solve_exact(game, budget)
    assert verdict.result == "won", verdict.reason
    for move in verdict.solution:
        game.apply(move)
    assert game.won
    with monkeypatch.context() as patch:
        patch.setattr(try_again, "_BEAMS", ())
        plain = solve_exact(find_game(KEY)(1013), budget)
    assert plain.result == "unknown" and "node budget" in plain.reason, plain.reason


def test_a_card_waits_for_as_many_of_its_rank_as_the_falling_run_above_it():
    # every foundation at the Four; one Five is free, but each other lies under a Seven on a Six,
    # which need two foundations past the Five: no second Five can go up, nor any second card of a
    # higher rank, so only t0 clears (its nine cards)
    run = "KSQSJSTS9S8S"
    game = find_game(KEY).from_position(
        f"{KEY} - f0:AC2C3C4C f1:AD2D3D4D f2:AH2H3H4H f3:AS2S3S4S"
        f" t0:{run}7S6S5S t1:{run.replace('S', 'H')}5H6H7H"
        f" t2:{run.replace('S', 'D')}5D6D7D t3:{run.replace('S', 'C')}5C6C7C s: w: redeals=0 dealt=52"
    )
    model = TryAgain.from_game(game)
    assert clearable(*model.start[:2], ()) == 9
    _, best = plain_search(model)
    assert best == 16 + 9
    verdict = solve_exact(game, UNLIMITED)
    assert (verdict.result, verdict.best_cleared) == ("lost", 25)


def plain_bound(piles, heights, future, waiting):
    """The bound of `clearable` worked out card by card, with nothing cached (see the module
    docstring: "No next card of a rank", "Waiting cards", "Reach")."""

    def next_can_go(pile, rank, k, low):
        # the cards above the top card of rank: those of a higher rank all above low, and no
        # never-rising run of them longer than k
        above = []
        for card in reversed(pile):
            if card == rank:
                higher = [c for c in above if c > rank]
                return all(c > low for c in higher) and longest_run(higher) <= k
            above.append(card)
        return False

    def longest_run(cards):  # cards top to bottom: the longest never-rising run, by brute force
        best = [0] * len(cards)
        for i, card in enumerate(cards):
            best[i] = 1 + max((best[j] for j in range(i) if cards[j] >= card), default=0)
        return max(best, default=0)

    def wait(pile, i, rank):  # the longest never-rising run of ranks r or more above pile[i]
        return longest_run([c for c in reversed(pile[i + 1 :]) if c >= rank])

    up = [4] + [sum(h >= r for h in heights) for r in range(1, 14)]
    cap, caps = 4, [4]
    for rank in range(1, 14):
        k = up[rank]
        if (k < cap and k < up[rank - 1] or k == 0 < cap) and rank not in future:
            past = [h for h in heights if rank <= h < 13]
            low = min(past, default=13)
            if not any(next_can_go(pile, rank, len(past), low) for pile in piles):
                cap = k
        count = min(cap, k + sum(r == rank for r in future)) if waiting else cap
        waits = sorted(wait(pile, i, rank) for pile in piles for i, r in enumerate(pile) if r == rank)
        for w in waits:
            if count >= cap or w > count:
                break
            count += 1
        cap = min(cap, count)
        caps.append(cap)
    stuck = caps.index(0) if 0 in caps else 14
    reach, ends, changed = max(heights), [len(pile) for pile in piles], True
    while changed:
        changed = False
        while reach + 1 < stuck and reach + 1 in future:
            reach += 1
        for j, pile in enumerate(piles):
            while ends[j] and pile[ends[j] - 1] <= min(reach + 1, stuck - 1):
                ends[j] -= 1
                reach, changed = max(reach, pile[ends[j]]), True
    limit = 4 - up[13]
    by_pile = sum(r < min(stuck, reach + 1) for r in future)
    by_pile += sum(min(len(pile) - ends[j], top_bound(pile, limit)) for j, pile in enumerate(piles))
    return min(sum(caps) - sum(up), by_pile)


def test_the_cached_bound_equals_the_bound_worked_out_card_by_card():
    # every position of random lines of play and of small layouts, with and without the waiting
    # cards' caps: `_clearable` reads the piles' and heights' facts from caches
    rng = random.Random(8)
    games = [game for seed in range(12) for game in line_of_play(seed, rng)] + small_positions(rng, 100)
    differ = 0
    for game in games:
        model = TryAgain.from_game(game)
        piles, heights, turned = model.start
        future = model.turn[turned:]
        mask = sum({1 << r for r in future})
        below = [sum(r < k for r in future) for k in range(15)]
        for waiting in (True, False):
            expected = plain_bound(piles, heights, future, waiting)
            assert try_again._clearable(piles, heights, mask, below, waiting) == expected, (game.position(), waiting)
        differ += plain_bound(piles, heights, future, True) < plain_bound(piles, heights, future, False)
    assert len(games) > 700 and differ > 20, (len(games), differ)


def plain_can_clear(piles, heights, free, need, limit):
    """The relaxed play's search (`try_again._can_clear`) as first written, a plain reference:
    the same moves in the same order, keyed by the piles' lengths and the free cards left."""
    if need <= 0:
        return True
    seen = set()
    if sum(len(p) for p in piles) + sum(free) < need:
        return False

    def dfs(gone):
        played, played_rank = [], []
        while True:
            low = heights[0] + 1
            source = -2
            if low <= 13:
                if free[low]:
                    source = -1
                else:
                    source = next((i for i, pile in enumerate(piles) if pile and pile[-1] == low), -2)
            if source == -2:
                for j in range(1, 4):
                    r = heights[j] + 1
                    if r <= 13 and free[r] and heights[j - 1] != heights[j] and free[r] == sum(h < r for h in heights):
                        source, low = -1, r
                        break
                else:
                    break
            if source == -1:
                free[low] -= 1
            else:
                piles[source].pop()
            played.append(source)
            played_rank.append(low)
            heights[heights.index(low - 1)] = low
            heights.sort()
            gone += 1
        found = gone >= need
        if not found:
            key = bytes(map(len, piles)) + bytes(free)
            if len(seen) >= limit:
                found = True
            elif key not in seen:
                seen.add(key)
                for j, h in enumerate(heights):
                    if h == 13 or (j + 1 < len(heights) and heights[j + 1] == h):
                        continue
                    r = heights[j] = h + 1
                    if free[r]:
                        free[r] -= 1
                        found = dfs(gone + 1)
                        free[r] += 1
                    for pile in piles if not found else ():
                        if pile and pile[-1] == r:
                            pile.pop()
                            found = dfs(gone + 1)
                            pile.append(r)
                            if found:
                                break
                    heights[j] = h
                    if found:
                        break
        for i in reversed(played):
            rank = played_rank.pop()
            heights[heights.index(rank)] = rank - 1
            if i < 0:
                free[rank] += 1
            else:
                piles[i].append(rank)
        return found

    return dfs(0)


def the_search_s_relaxed_calls(monkeypatch, seed, nodes):
    """The arguments of each `_can_clear` call of the ordered passes on deal ``seed`` within
    ``nodes`` moves, copied."""
    calls = []
    real = try_again._can_clear

    def spy(piles, heights, free, need, limit):
        calls.append(([list(p) for p in piles], list(heights), list(free), need, limit))
        return real(piles, heights, free, need, limit)

    with monkeypatch.context() as patch:
        patch.setattr(try_again, "_can_clear", spy)
        patch.setattr(try_again, "_RESTART_SHARE", 0.0)
        patch.setattr(try_again, "_BEAMS", ())
        solve_exact(find_game(KEY)(seed), Budget(seconds=600, nodes=nodes))
    return calls


def test_the_relaxed_search_answers_as_the_plain_one_at_every_call(monkeypatch):
    # the search's own calls on two deals, and the same with fewer cards needed (where the play
    # can put them up) and small limits (where it gives up): the same answer each time
    rng = random.Random(3)
    cases = the_search_s_relaxed_calls(monkeypatch, 1000, 4000) + the_search_s_relaxed_calls(monkeypatch, 1011, 4000)
    assert len(cases) > 1000
    cases += [(p, h, f, max(1, need - rng.randrange(1, 12)), limit) for p, h, f, need, limit in cases[::3]]
    cases += [(p, h, f, need, rng.randrange(1, 40)) for p, h, f, need, limit in cases[::3]]
    answers = {True: 0, False: 0}
    for piles, heights, free, need, limit in cases:
        copies = ([list(p) for p in piles], list(heights), list(free))
        answer = try_again._can_clear(*copies, need, limit)
        assert copies == (piles, heights, free)  # restored
        assert answer == plain_can_clear(*copies, need, limit), (piles, heights, free, need, limit)
        answers[answer] += 1
    assert min(answers.values()) > 300, answers


def test_a_position_the_relaxed_play_cuts_is_not_tried_again_in_the_same_pass(monkeypatch):
    # deal 1011 meets positions again (by other orders of the same moves) that `can_clear` cut:
    # the first pass cuts them at once
    calls = the_search_s_relaxed_calls(monkeypatch, 1011, 20_000)
    keys = [(tuple(free), tuple(sorted(map(tuple, piles)))) for piles, heights, free, need, limit in calls]
    assert len(keys) > 2000 and len(set(keys)) == len(keys)
