"""An exact search for Perpetual Motion: the rules as plain ranks, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Perpetual Motion"), as engine/games/perpetual_motion.py states
them: four piles ``t0`` to ``t3`` (one card each at the deal) and a stock of 48. Cards of one
rank on top of a pile move, all or some, onto a pile to their left whose top has that rank
(``t3>t1``, ``t3>t0x2``); four of a rank on top of one pile are cleared (``t0>f0x4``), and so are
the four tops when they are of one rank (``clear``). ``deal`` puts a stock card on each pile,
``t0`` to ``t3``, while the stock lasts; once it is empty, ``redeal`` gathers ``t0`` bottom card
up, then ``t1``, ``t2``, ``t3`` into a new stock, as often as wanted. Won when all 52 are cleared.

State. No rule looks at a suit, so a card is its rank, and a position is the four piles' ranks
(bottom first) and the stock's (the next first): `State`. `PerpetualMotion` reads it from an
engine `Game` at any position and plays its moves on it without engine code; the search keys a
position by one bytes string. Redeals are unlimited, so play can come back to a position: the
search keeps every position it has seen, and a position seen is never searched again (the same
ranks in the same places have the same future, whatever the suits or the redeals counted).

The search. Depth-first, with a stack of its own (lines can be long), over every position
reachable from the one read, trying for each position the moves that clear cards first, then
moves onto a pile to the left (most cards first), ``deal``, and ``redeal`` last. No move is cut.

Why it is exact. The moves and next positions computed from the state are the engine's (the
test tests/solver/test_perpetual_motion.py compares them move for move, and every next
position, over many deals and random lines of play with redeals, and compares the search's
verdicts and best clears with a plain exhaustive search on positions with a few cards in play). Every reachable
position is searched, or has the same ranks in the same places as one searched. So a search
that ends without a win proves the deal lost, and the fewest cards left in any position searched
gives the most cards that can be cleared. Budgets apply as in `solver.search`: ``nodes`` (moves
tried), ``seconds`` (the clock read every 256 moves), ``positions`` (positions kept) and
``memory_mb`` (those at `ENTRY_BYTES` each, plus the stack at `FRAME_BYTES` a level), the last
three checked with the clock; cut short, the verdict is unknown and its best clear a lower bound.

Cost. On deals 0 to 999 (``nice -n 5``, one process, on this project's loaded two-core machine)
every deal is won, the first line tried nearly always reaching the win: 0.04 s a deal on average,
0.18 s at most (under tracemalloc), 297 positions kept a deal on average, peak memory 0.5 MiB. No
deal among them is lost; a lost deal would have to be searched whole, and a whole deal reaches
far more positions than 10 s can visit, so one would come back unknown. To reproduce::

    arena solve perpetual_motion --deals 1000 --jobs 1
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["ENTRY_BYTES", "FRAME_BYTES", "PerpetualMotion", "State", "solve_exact"]

#: (the four piles' ranks, bottom first; the stock's ranks, the next card first)
State = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]

PILES = ("t0", "t1", "t2", "t3")
SET = 4
#: The bytes one kept position costs in the search's set (a bytes key of about 60 bytes and its
#: set slot), measured with tracemalloc, rounded up.
ENTRY_BYTES = 160
#: The bytes one level of the search's stack costs (its state, its list of moves), rounded up.
FRAME_BYTES = 2048
_ACTIONS = ("clear", "deal", "redeal")


def _run(pile: tuple[int, ...]) -> int:
    """How many cards of the top card's rank lie together on top of ``pile``."""
    n = 0
    while n < len(pile) and pile[-1 - n] == pile[-1]:
        n += 1
    return n


@dataclass(frozen=True, slots=True)
class PerpetualMotion:
    """One Perpetual Motion position as plain ranks: ``start`` (its `State`), ``cleared0`` (the
    cards cleared when read) and ``total`` (52)."""

    start: State
    cleared0: int
    total: int

    @classmethod
    def from_game(cls, game: Game) -> PerpetualMotion:
        """The model of ``game`` (a Perpetual Motion `Game`, at any position). Raises ValueError
        for another game."""
        if game.key != "perpetual_motion":
            raise ValueError(f"not a perpetual_motion game: {game.key!r}")
        return cls(cls.state_of(game), game.cleared, game.total)

    @staticmethod
    def state_of(game: Game) -> State:
        """The `State` of ``game`` (any Perpetual Motion position)."""
        piles = tuple(tuple(int(card.rank) for card in game.piles[pid].cards) for pid in PILES)
        return piles, tuple(int(card.rank) for card in reversed(game.piles["s"].cards))

    def cleared(self, state: State) -> int:
        """Cards cleared in ``state``, as the engine counts them."""
        piles, stock = state
        start = sum(map(len, self.start[0])) + len(self.start[1])
        return self.cleared0 + start - sum(map(len, piles)) - len(stock)

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        piles, stock = state
        if self.cleared(state) == self.total:
            return []
        moves = []
        for b, src in enumerate(piles):
            if not src:
                continue
            run = _run(src)
            if run >= SET:
                moves.append(f"{PILES[b]}>f0x{SET}")
            for a in range(b):
                if piles[a] and piles[a][-1] == src[-1]:
                    moves += [f"{PILES[b]}>{PILES[a]}" + (f"x{n}" if n > 1 else "") for n in range(1, run + 1)]
        if all(piles) and len({pile[-1] for pile in piles}) == 1:
            moves.append("clear")
        if stock:
            moves.append("deal")
        elif any(piles):
            moves.append("redeal")
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        piles, stock = state
        if move == "clear":
            return tuple(pile[:-1] for pile in piles), stock
        if move == "deal":
            return tuple(pile + stock[k : k + 1] for k, pile in enumerate(piles)), stock[len(piles) :]
        if move == "redeal":
            return ((), (), (), ()), tuple(rank for pile in piles for rank in pile)
        src, _, rest = move.partition(">")
        dst, _, count = rest.partition("x")
        n = int(count) if count else 1
        moved = list(piles)
        b = PILES.index(src)
        moved[b] = piles[b][:-n]
        if dst != "f0":
            a = PILES.index(dst)
            moved[a] = piles[a] + piles[b][-n:]
        return tuple(moved), stock


def _key(piles: tuple[tuple[int, ...], ...], stock: tuple[int, ...]) -> bytes:
    return b"\x0e".join(map(bytes, piles)) + b"\x0f" + bytes(stock)


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Perpetual Motion, from its current position; it is not changed) exactly
    (see the module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution
    in the engine's notation, lost (proved) with the most cards that can be cleared, or unknown
    when the budget ran out. ``nodes`` counts moves tried, ``positions`` the positions kept.
    Raises ValueError for another game."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = PerpetualMotion.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)

    def steps(piles: tuple[tuple[int, ...], ...], stock: tuple[int, ...]) -> list[tuple[str, State]]:
        """The moves from a position and the positions after them, in the order tried."""
        clears: list[tuple[str, State]] = []
        moves: list[tuple[int, str, State]] = []
        for b in range(4):
            src = piles[b]
            if not src:
                continue
            top = src[-1]
            run = 1
            while run < len(src) and src[-1 - run] == top:
                run += 1
            if run >= SET:
                after = piles[:b] + (src[:-SET],) + piles[b + 1 :]
                clears.append((f"{PILES[b]}>f0x{SET}", (after, stock)))
            for a in range(b):
                if piles[a] and piles[a][-1] == top:
                    for n in range(run, 0, -1):
                        moved = list(piles)
                        moved[b], moved[a] = src[:-n], piles[a] + src[-n:]
                        notation = f"{PILES[b]}>{PILES[a]}" + (f"x{n}" if n > 1 else "")
                        moves.append((-n, notation, (tuple(moved), stock)))
        if (
            piles[0]
            and piles[1]
            and piles[2]
            and piles[3]
            and piles[0][-1] == piles[1][-1] == piles[2][-1] == piles[3][-1]
        ):
            clears.append(("clear", (tuple(pile[:-1] for pile in piles), stock)))
        moves.sort(key=lambda item: item[0])
        found = clears + [(notation, after) for _, notation, after in moves]
        if stock:
            found.append(("deal", (tuple(pile + stock[k : k + 1] for k, pile in enumerate(piles)), stock[4:])))
        elif piles[0] or piles[1] or piles[2] or piles[3]:
            found.append(("redeal", (((), (), (), ()), piles[0] + piles[1] + piles[2] + piles[3])))
        return found

    total = model.total
    start_left = sum(map(len, model.start[0])) + len(model.start[1])
    offset = model.cleared0 + start_left  # cleared = offset - cards left
    seen = {_key(*model.start)}
    fewest = start_left
    nodes = 0
    limit_nodes = budget.nodes
    check_at = min(256, limit_nodes)
    # the line searched: (moves from this position not tried yet, the move that led here)
    stack: list[tuple[list[tuple[str, State]], str]] = [(steps(*model.start)[::-1], "")]
    won = False
    try:
        while stack:
            todo = stack[-1][0]
            if not todo:
                stack.pop()
                continue
            move, (piles, stock) = todo.pop()
            nodes += 1
            if nodes >= check_at:  # the clock and the tables, every 256 moves and at the node budget
                check_at = min(nodes + 256, limit_nodes)
                reason = budget.spent(
                    nodes, len(seen), time.monotonic(), deadline, len(seen) * ENTRY_BYTES + len(stack) * FRAME_BYTES
                )
                if reason:
                    raise Spent(reason)
            left = len(piles[0]) + len(piles[1]) + len(piles[2]) + len(piles[3]) + len(stock)
            if offset - left == total:
                stack.append(([], move))
                won = True
                break
            key = _key(piles, stock)
            if key in seen:
                continue
            seen.add(key)
            if left < fewest:
                fewest = left
            stack.append((steps(piles, stock)[::-1], move))
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            fewest = 0
            verdict.solution = [move for _, move in stack[1:]]
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, offset - fewest)
    return finished(verdict, nodes, len(seen), began)
