"""An exact search for King's Clover: the rules as plain numbers, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("King's Clover"), as engine/games/kings_clover.py states them:
the four Aces start the foundations ``f0`` to ``f3``, which build up in suit to the King; the other
48 cards lie in sixteen fans ``t0`` to ``t15`` of three; there is no stock. The top card of a fan
may go to its suit's foundation, or onto another fan one rank above or below it, any suit, no
wrap between King and Ace, when that fan holds fewer than three cards; an empty fan takes only
the King of Clubs. One card at a time. Won with all 52 cards up.

State. A card is the number ``suit * 13 + rank - 1``. A position is the fans' cards (a tuple of
tuples, bottom first) and the count of cards up in each suit (the Ace included); each
foundation's suit is fixed by the deal. Which cards are up fixes the counts, and fans are
interchangeable (every rule treats them alike), so the search keys a position by the fans
sorted, as bytes.

The search: four searches take turns (`solver.exact.take_turns`: two slices of about 1,024 moves
each for the first two, one line of play for the third, four slices for the fourth), and the first
exhaustive one to end decides. Two search every reachable position, each with its own table of
keys: one depth first (a card to a foundation tried before moves between fans), one best first
(fewest cards left, then fewest cards lying over the cards wanted next); each expands every
position (by key) once, with every legal move (a King of Clubs goes to one space only: spaces are
interchangeable). Nothing is pruned, so when either ends without a win it has expanded every
reachable position: the deal is lost, and the most cards up in any position reached (by any of
the four; all are reachable) is the most that can be cleared. The third plays random lines (a
card to a foundation chosen three times in four where there is one, at most 300 moves); it is not
exhaustive and counts only when it wins. The fourth is random restarts
(`solver.exact.random_restarts`): depth-first lines, each with a fresh table of keys and 5,000
moves times the next term of Luby's sequence (5,000, 5,000, 10,000, 5,000, 5,000, 10,000,
20,000, ...), the moves at each position in a random order (foundation moves first at half of
them), with the same moves as the exhaustive two, so a line whose frontier empties within its
moves has expanded every reachable position and decides too; it wins deals that look lost to
the others (1001, 1007, 1013, 1020, 1031, 1041 stop them at 21 to 43 cards up). The random lines
and restarts are seeded, so a search is repeatable. The orders find different wins: some
deals fall at once to one and not within 10 s to another. A win comes back as moves in
the engine's notation, which the engine replays to ``won`` (tests/solver/test_kings_clover.py
checks the model's moves and next positions against the engine's, move for move, and the verdicts
against a plain search of the model's own moves).

Budgets: ``nodes`` counts moves tried (random lines' moves too), ``positions`` the keys kept
(all three tables), ``memory_mb`` the kept keys and the frontiers' positions at measured sizes; the
clock is read every 2,048 moves.

Cost, measured on deals 1000 to 1049 at ``Budget()`` (10 s), one process under ``nice -n 5`` on
this project's two-core machine while others measured too (load average 2 to 3): 48 decided,
all won (a win takes 0.34 s on average, median 0.02 s, 3.3 s at most), 2 unknown (the time
budget: 1037 and 1045, best clears 26 and 17); 0.72 s a deal on average, median 0.03 s; 21,000
positions kept on average. Deals that stop the exhaustive searches at 11 to 43 cards up are not
necessarily lost: the random restarts win 1001, 1007, 1013, 1020, 1031 and 1041 (how far a search
gets in 10 s depends on the machine's load, so one near the limit may be won in one run and not
in another). No deal is proved lost: a proof needs every arrangement of the fans, more than these
searches reach in 10 s. Reproduce by calling `solve_exact` on ``find_game("kings_clover")(seed)``
for those seeds.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Iterator, Sized
from dataclasses import dataclass

from engine.core import Game
from solver.exact import Spent, finished, random_restarts, start_verdict, take_turns
from solver.search import Budget, Verdict

__all__ = ["KingsClover", "State", "solve_exact"]

#: (fans bottom first, cards up in each suit)
State = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]

#: The King of Clubs, the one card an empty fan takes (clubs are suit 0).
_KING_OF_CLUBS = 12
#: Bytes a kept key and its line back cost (a bytes key, a tuple, a dict slot), and one frontier
#: entry (a state's tuples and the heap slot), measured with tracemalloc and rounded up.
_KEY_BYTES = 300
_FRAME_BYTES = 1200
#: About how many moves each search makes before the next one's turn, and the most moves in one
#: random line of play.
_SLICE = 1024
_PLAYOUT_MOVES = 300
#: The unit of the restarts search's lines: a line makes this many moves times the next term of
#: Luby's sequence before the next starts.
_RESTART = 5000


def _card(card: object) -> int:
    return int(card.suit) * 13 + int(card.rank) - 1  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class KingsClover:
    """One King's Clover position's cards as numbers, from which every later position follows.

    ``fids``: for each suit, the index of the foundation that holds it; ``start``: the `State`
    read; ``total``: 52.
    """

    fids: tuple[int, ...]
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> KingsClover:
        """The model of ``game`` (a King's Clover `Game`, at any position). Raises ValueError
        for another game."""
        if game.key != "kings_clover":
            raise ValueError(f"not a kings_clover game: {game.key!r}")
        fids = [0] * 4
        for j in range(4):
            fids[int(game.piles[f"f{j}"].cards[0].suit)] = j
        model = cls(tuple(fids), ((), ()), game.total)
        object.__setattr__(model, "start", model.state_of(game))
        return model

    def state_of(self, game: Game) -> State:
        """The `State` of ``game`` (the tests compare the engine's positions with the model's)."""
        fans = tuple(tuple(_card(c) for c in game.piles[f"t{i}"].cards) for i in range(16))
        up = [0] * 4
        for j in range(4):
            cards = game.piles[f"f{j}"].cards
            up[int(cards[0].suit)] = len(cards)
        return fans, tuple(up)

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(state[1])

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        fans, up = state
        moves = []
        for i, fan in enumerate(fans):
            if not fan:
                continue
            card = fan[-1]
            suit, r = divmod(card, 13)
            if up[suit] == r:
                moves.append(f"t{i}>f{self.fids[suit]}")
            for k, other in enumerate(fans):
                if k == i:
                    continue
                if not other:
                    if card == _KING_OF_CLUBS:
                        moves.append(f"t{i}>t{k}")
                elif len(other) < 3 and abs(other[-1] % 13 - r) == 1:
                    moves.append(f"t{i}>t{k}")
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        fans, up = state
        src, dst = move.split(">")
        i = int(src[1:])
        card = fans[i][-1]
        new = list(fans)
        new[i] = fans[i][:-1]
        if dst[0] == "t":
            k = int(dst[1:])
            new[k] = fans[k] + (card,)
            return tuple(new), up
        ups = list(up)
        ups[card // 13] += 1
        return tuple(new), tuple(ups)


class _Won(Exception):
    """A search reached a won position; ``args[0]`` is the line to it, in the engine's notation."""


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (King's Clover, from its current position; it is not changed) exactly (see
    the module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with the
    budget that ran out (its best clear then a lower bound)."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = KingsClover.from_game(game)
    deadline = began + budget.seconds
    fids = model.fids
    best = game.cleared
    nodes = 0
    #: each exhaustive search's table of keys (with their line back) and frontier
    tables: list[tuple[dict[bytes, tuple[bytes | None, str]], Sized]] = []

    def key(fans: tuple[tuple[int, ...], ...]) -> bytes:
        return b"\xff".join(sorted(bytes(fan) for fan in fans if fan))

    def score(fans: tuple[tuple[int, ...], ...], up: tuple[int, ...]) -> int:
        """Smaller first: fewer cards left, then fewer cards over the cards wanted next."""
        over = 0
        wanted = {suit * 13 + count for suit, count in enumerate(up) if count < 13}
        for fan in fans:
            for depth, card in enumerate(reversed(fan)):
                if card in wanted:
                    over += depth
        return (52 - sum(up)) * 4 + over

    def tick() -> None:
        """Count one move tried; raises Spent when a budget has run out."""
        nonlocal nodes
        nodes += 1
        if nodes >= budget.nodes:
            raise Spent(f"node budget ({budget.nodes:,} moves) spent")
        if not nodes & 2047:
            kept = sum(len(table) for table, _ in tables)
            framed = sum(len(frontier) for _, frontier in tables)
            reason = budget.spent(nodes, kept, time.monotonic(), deadline, kept * _KEY_BYTES + framed * _FRAME_BYTES)
            if reason:
                raise Spent(reason)

    def line_to(parents: dict[bytes, tuple[bytes | None, str]], at: bytes | None) -> list[str]:
        line = []
        while at is not None:
            parent, move = parents[at]
            if parent is not None:
                line.append(move)
            at = parent
        return line[::-1]

    def expand(state: State, skey: bytes, parents: dict[bytes, tuple[bytes | None, str]]) -> list:
        """The children of ``state`` not yet in ``parents`` (added there) as (a move between
        fans, state, key), every legal move but one of each set of interchangeable ones; raises
        _Won with the line to a won child."""
        nonlocal best
        fans, up = state
        tops = [(i, fan[-1], len(fan)) for i, fan in enumerate(fans) if fan]
        spaces = [i for i, fan in enumerate(fans) if not fan]
        fresh = []
        for i, card, height in tops:
            suit, r = divmod(card, 13)
            targets = [k for k, top, h in tops if h < 3 and k != i and abs(top % 13 - r) == 1]
            if card == _KING_OF_CLUBS and spaces and height > 1:
                targets.append(spaces[0])  # (the spaces are interchangeable)
            for k in [-1] + targets if up[suit] == r else targets:
                tick()
                new = list(fans)
                new[i] = fans[i][:-1]
                if k < 0:
                    ups = list(up)
                    ups[suit] += 1
                    child_up = tuple(ups)
                    move = f"t{i}>f{fids[suit]}"
                else:
                    new[k] = fans[k] + (card,)
                    child_up = up
                    move = f"t{i}>t{k}"
                child = tuple(new)
                ck = key(child)
                if ck in parents:
                    continue
                parents[ck] = (skey, move)
                count = sum(child_up)
                if count == 52:
                    raise _Won(line_to(parents, ck))
                if count > best:
                    best = count
                fresh.append((k >= 0, (child, child_up), ck))
        return fresh

    start = model.start
    k0 = key(start[0])

    def depth_first() -> Iterator[None]:
        """Every position, depth first, a card to a foundation tried before moves between fans."""
        parents: dict[bytes, tuple[bytes | None, str]] = {k0: (None, "")}
        stack: list[tuple[State, bytes]] = [(start, k0)]
        tables.append((parents, stack))
        mark = nodes + _SLICE
        while stack:
            state, skey = stack.pop()
            fresh = expand(state, skey, parents)
            fresh.sort(key=lambda entry: entry[0], reverse=True)  # foundation moves popped first
            stack.extend((child, ck) for _, child, ck in fresh)
            if nodes >= mark:
                yield
                mark = nodes + _SLICE

    def best_first() -> Iterator[None]:
        """Every position, best first (`score`)."""
        parents: dict[bytes, tuple[bytes | None, str]] = {k0: (None, "")}
        heap: list[tuple[int, int, State, bytes]] = [(score(*start), 0, start, k0)]
        tables.append((parents, heap))
        mark = nodes + _SLICE
        tie = 0
        while heap:
            _, _, state, skey = heapq.heappop(heap)
            fresh = expand(state, skey, parents)
            for _, child, ck in fresh:
                tie += 1
                heapq.heappush(heap, (score(*child), tie, child, ck))
            if nodes >= mark:
                yield
                mark = nodes + _SLICE

    def playouts() -> Iterator[None]:
        """Random lines of play (a card to a foundation chosen three times in four where there
        is one), one a turn, seeded so that a search is repeatable; only a win counts."""
        nonlocal best
        rng = random.Random(0)
        while True:
            state = start
            line = []
            for _ in range(_PLAYOUT_MOVES):
                legal = model.legal(state)
                if not legal:
                    break
                tick()
                ups = [move for move in legal if ">f" in move]
                move = rng.choice(ups if ups and rng.random() < 0.75 else legal)
                line.append(move)
                state = model.play(state, move)
            best = max(best, model.cleared(state))
            if model.cleared(state) == model.total:
                raise _Won(line)
            yield

    def restarts() -> Iterator[None]:
        """Random depth-first lines of `_RESTART` moves times Luby's sequence (`random_restarts`),
        each with a fresh table of keys; it ends when a line has expanded every position."""
        mine = len(tables)
        tables.append(({}, []))

        def begin(stack: list[tuple[State, bytes]]) -> None:
            tables[mine] = ({k0: (None, "")}, stack)

        def grow(entry: tuple[State, bytes]) -> list[tuple[bool, tuple[State, bytes]]]:
            fresh = expand(entry[0], entry[1], tables[mine][0])
            return [(not between, (child, ck)) for between, child, ck in fresh]

        return random_restarts((start, k0), grow, begin, lambda: nodes, _RESTART, _SLICE, 1)

    # turns: two slices depth first, two best first, one random line, four of random restarts
    try:
        take_turns([(depth_first(), 2, True), (best_first(), 2, True), (playouts(), 1, False), (restarts(), 4, True)])
        verdict.result = "lost"  # an exhaustive search ended without a win
    except _Won as won:
        verdict.result = "won"
        verdict.solution = won.args[0]
        best = model.total
    except Spent as spent:
        verdict.reason = spent.args[0]
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, sum(len(table) for table, _ in tables), began)
