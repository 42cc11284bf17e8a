"""The exact Tournament search (solver/tournament.py): its model of the rules is the engine's move
for move (trades between meeting foundations folded in), its wins replay on the engine, its safe
moves and pruning lose nothing against a plain search of every position (its budgets: tests/solver/test_budgets.py)."""

from __future__ import annotations

import random

from engine.core import Game
from engine.games import find_game
from solver import Budget
from solver.tournament import MEET, Tournament, settle, solve_exact, state_of
from tests.solver.models import assert_verdict

UNLIMITED = Budget(nodes=10**9, seconds=120, positions=10**8, memory_mb=10**5)
_ENDS = (0 * 16 + 1, 13 * 16 + 14)  # the codes of the splits (0, 1) and (13, 14)


def line_of_play(seed: int, rng: random.Random, moves: int, up: float = 0.8) -> list[Game]:
    """The positions of a random line of ``moves`` moves of deal ``seed`` (a card to a
    foundation chosen with chance ``up`` where there is one, trades included), from the deal on."""
    game = find_game("tournament")(seed)
    line = [game.copy()]
    while len(line) <= moves:
        legal = [str(move) for move in game.legal_moves()]
        if not legal:
            break
        ups = [move for move in legal if ">f" in move and move[0] != "f"]
        game.apply(rng.choice(ups if ups and rng.random() < up else legal))
        line.append(game.copy())
    return line


def _folded(game: Game) -> tuple[set[str], dict[str, list[Game]]]:
    """The engine's moves from ``game`` and from every position its trades reach, in the model's
    notation, with the positions each leads to."""
    seen = {game.position()}
    frontier = [game]
    found: dict[str, list[Game]] = {}
    while frontier:
        pos = frontier.pop()
        for move in (str(m) for m in pos.legal_moves()):
            child = pos.copy()
            child.apply(move)
            src, _, dst = move.partition(">")
            if not dst:
                found.setdefault(move, []).append(child)
                continue
            if src[0] == "f":  # a trade
                if child.position() not in seen:
                    seen.add(child.position())
                    frontier.append(child)
                continue
            if src[0] == "r":
                card = pos.piles[src].cards[-1]
                name = f"r{'A23456789TJQK'[int(card.rank) - 1]}{'CDHS'[int(card.suit)]}>f"
            else:
                name = f"{src}>{dst[0]}"
            found.setdefault(name, []).append(child)
    return set(found), found


def test_the_model_plays_the_engines_moves_to_the_engines_positions():
    rng = random.Random(7)
    games = [game for seed in range(10) for game in line_of_play(seed, rng, 200, up=0.9)]
    for seed in (1007, 1010, 1013):  # and along lines that win, where the foundations meet
        board = find_game("tournament")(seed)
        for move in solve_exact(board, UNLIMITED).solution:
            board.apply(move)
            games.append(board.copy())
    trades = redeals = meets = 0
    for game in games:
        state = state_of(game)
        model = Tournament.from_game(game)
        assert model.cleared(state) == game.cleared
        moves, children = _folded(game)
        assert set(model.legal(state)) == moves, game.position()
        for move, engines in children.items():
            ours = model.play(state, move)
            for child in engines:
                theirs = state_of(child)
                if theirs != ours:
                    # only splits at an end, which the model leaves for MEET (it can do more)
                    diff = [s for s in range(4) if theirs[0][s] != ours[0][s]]
                    assert theirs[1:] == ours[1:], (game.position(), move)
                    assert all(theirs[0][s] in _ENDS and ours[0][s] == MEET for s in diff), (game.position(), move)
        trades += any(str(m)[0] == "f" for m in game.legal_moves())
        redeals += "redeal" in moves
        meets += MEET in state[0]
    assert len(games) > 900 and trades > 50 and redeals > 100 and meets > 50, (len(games), trades, redeals, meets)


def test_meeting_foundations_take_any_card_of_their_suit():
    model = Tournament.from_game(find_game("tournament")(1))
    found = (MEET, 0 * 16 + 14, 0 * 16 + 14, 0 * 16 + 14)
    seven_clubs = 6
    state = (found, (seven_clubs,), (b"",) * 6, b"", 2)
    assert model.legal(state) == ["r7C>f"]
    assert model.play(state, "r7C>f")[0][0] == 7 * 16 + 7  # Ace pile to 7, King pile down to 7
    # (4, 6): only a Five fits, on either pile, and it makes the piles meet
    state = ((4 * 16 + 6,) + found[1:], (4, 6), (b"",) * 6, b"", 2)
    assert model.legal(state) == ["r5C>f"]
    assert model.play(state, "r5C>f")[0][0] == MEET
    # the safe moves leave a kibitzer's card to a meeting suit alone
    assert settle(((MEET,) + found[1:], (4,), (b"",) * 6, b"", 2))[1] == []
    assert settle(((4 * 16 + 6,) + found[1:], (4,), (b"",) * 6, b"", 2))[1] == [(-1, 4)]


def _plain(model: Tournament) -> tuple[bool, int]:
    """Every state reachable in ``model``'s own moves (all of them, no safe moves, no pruning),
    with a visited set, until one is won: (some state is won, most cards cleared)."""
    seen = {model.start}
    stack = [model.start]
    best = model.cleared(model.start)
    while stack:
        state = stack.pop()
        best = max(best, model.cleared(state))
        if best == model.total:
            return True, best
        for move in model.legal(state):
            child = model.play(state, move)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return False, best


def _late_positions(rng: random.Random) -> list[Game]:
    """Positions late in play, near and off the lines that win some deals: the line played to
    a point with 20 to 52 cards off the foundations, then a few random moves."""
    found = []
    for seed in (1007, 1008, 1010, 1011, 1013):
        game = find_game("tournament")(seed)
        solution = solve_exact(game, UNLIMITED).solution
        for left in (20, 28, 36, 44, 52):
            board = game.copy()
            for move in solution:
                if 104 - board.cleared <= left:
                    break
                board.apply(move)
            for _ in range(rng.randrange(0, 12)):
                legal = [str(move) for move in board.legal_moves()]
                if not legal:
                    break
                board.apply(rng.choice(legal))
            found.append(board)
    return found


def test_exact_verdicts_equal_a_plain_search_of_every_position_and_wins_replay():
    verdicts = {"won": 0, "lost": 0}
    for game in _late_positions(random.Random(3)):
        before = game.position()
        verdict = solve_exact(game, UNLIMITED)
        assert game.position() == before  # the game searched is not changed
        won, best = _plain(Tournament.from_game(game))
        assert_verdict(verdict, game, won, best, before)
        verdicts[verdict.result] += 1
    assert verdicts["won"] >= 8 and verdicts["lost"] >= 8, verdicts


def test_whole_deals_won_replay_on_the_engine():
    won = 0
    for seed in (1002, 1003, 1007, 1008):
        game = find_game("tournament")(seed)
        verdict = solve_exact(game, Budget(seconds=30))
        if verdict.result == "won":
            won += 1
            replay = game.copy()
            for move in verdict.solution:
                replay.apply(move)
            assert replay.won, seed
    assert won >= 3
