"""An exact search for Golf: the rules as plain numbers, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Golf"), as engine/games/golf.py states them: seven reserve
piles ``r0`` to ``r6`` (five face-up cards each at the deal), one foundation ``f0`` that is also
the waste (the deal turns the first stock card onto it), and a stock ``s`` of 16 more. A move is
either the top card of a reserve pile to the foundation, when its rank is one above or one below
the foundation's top card, whatever the suit, with no wrap between King and Ace (``r3>f0``), or
``deal``: the next stock card onto the foundation, whatever it is; there is no redeal. With the
rule option ``queen_on_king`` false nothing goes on a King. An empty foundation (only in a
position string) takes any card. The game is won when the reserve is empty (35 cards cleared);
once won, no move is legal.

State. Nothing else changes in play, so a position is fully described by three numbers: the
height of each reserve pile (its cards are the deal's, bottom to top, so the height says which
card is on top), how many stock cards have been dealt (the stock order is the deal's, so the
count says which card comes next), and the rank of the foundation's top card (no rule looks at
a suit or at the cards under the top). `Golf` reads these from an engine `Game` (any position,
not only a deal's start) and plays its moves on them; the search packs heights and top rank
into one int and calls no engine code.

The search. One step of it plays one reserve card, after the fewest deals that make the card
fit (none if it fits the top now): dealing more first only reaches the same heights and top with
fewer stock cards left. Positions with the same heights and top are kept once, with the fewest
stock cards dealt they were reached with: such a position can do all that the same one with
more dealt can (deal until the counts agree whenever the other deals: the stock order is
fixed), so a position reached again with as many or more dealt is not searched again, and one
reached with fewer is searched again. Every step removes a reserve card, so no position leads
back to its own heights and depth-first search is safe. Steps are tried fewest deals first, then
from the tallest pile, which finds most wins early.

Why it is exact. The moves computed from the state are exactly the engine's (the test
tests/solver/test_golf.py compares them move for move, and every next position, over many
deals and random lines of play, and compares this search's verdicts and best clears with a
plain exhaustive search of every position). Every position the rules can reach is either
searched or matched by a searched one with the same heights and top and fewer stock cards
dealt, which reaches everything it reaches. So a search that ends without a win proves the deal
lost, and the fewest reserve cards left in any position searched gives the most cards that can
be cleared. A win comes back as moves in the engine's notation, which the engine replays to
``won``. Budgets apply as in `solver.search`: a search cut short by ``nodes`` (reserve cards
tried), ``seconds``, ``positions`` or ``memory_mb`` says unknown, and its best clear is then a
lower bound.

Cost, measured on deals 0 to 199 on this project's two-core machine: 0.4 s a deal on average,
3 s at most; about 160,000 positions and 460,000 moves tried a deal on average, at most 0.9
million and 3.2 million: a lost deal must be searched whole.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.cards import Rank
from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["Golf", "State", "solve_exact"]

#: (heights of the reserve piles, stock cards dealt, rank of the foundation's top card: 0 if empty)
State = tuple[tuple[int, ...], int, int]

_DEAL = "deal"
#: Bytes one entry of the table of positions kept holds (a dict from an int key to an int),
#: measured with tracemalloc over whole searches (72 to 114), rounded up.
_ENTRY_BYTES = 120


@dataclass(frozen=True, slots=True)
class Golf:
    """One Golf position's cards as plain ranks, from which every later position follows.

    ``columns``: for each reserve pile, its cards' ranks bottom to top; ``ids``: the piles' ids;
    ``stock``: the stock's ranks in the order they will be dealt (the next first); ``start``:
    the `State` of the position read; ``queen_on_king``: the rule option; ``total``: the
    game's total (35: cards cleared are ``total`` less the reserve cards, as the engine counts);
    ``foundation``: the foundation's id.
    """

    columns: tuple[tuple[int, ...], ...]
    ids: tuple[str, ...]
    stock: tuple[int, ...]
    start: State
    queen_on_king: bool
    total: int
    foundation: str = "f0"

    @classmethod
    def from_game(cls, game: Game) -> Golf:
        """The model of ``game`` (a Golf `Game`, at any position)."""
        if game.key != "golf":
            raise ValueError(f"not a golf game: {game.key!r}")
        ids = tuple(sorted((pid for pid in game.piles if pid[0] == "r"), key=lambda pid: int(pid[1:])))
        columns = tuple(tuple(int(card.rank) for card in game.piles[pid].cards) for pid in ids)
        stock = tuple(int(card.rank) for card in reversed(game.piles["s"].cards))
        top = game.piles["f0"].top
        start = (tuple(len(column) for column in columns), 0, int(top.rank) if top is not None else 0)
        return cls(columns, ids, stock, start, bool(game.rule_options["queen_on_king"]), game.total)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (for tests: it compares the engine's positions with the model's)."""
        top = game.piles["f0"].top
        return (
            tuple(len(game.piles[pid].cards) for pid in self.ids),
            len(self.stock) - len(game.piles["s"].cards),
            int(top.rank) if top is not None else 0,
        )

    def fits(self, top: int, rank: int) -> bool:
        """Whether a card of ``rank`` may go on a foundation whose top has rank ``top`` (0: empty)."""
        if top == 0:
            return True
        if top == Rank.KING and not self.queen_on_king:
            return False
        return rank == top + 1 or rank == top - 1

    def cleared(self, state: State) -> int:
        """Cards cleared in ``state``, as the engine counts them."""
        return self.total - sum(state[0])

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        heights, dealt, top = state
        if not any(heights):
            return []
        moves = [
            f"{pid}>{self.foundation}"
            for pid, column, height in zip(self.ids, self.columns, heights)
            if height and self.fits(top, column[height - 1])
        ]
        if dealt < len(self.stock):
            moves.append(_DEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        heights, dealt, top = state
        if move == _DEAL:
            return heights, dealt + 1, self.stock[dealt]
        index = self.ids.index(move.split(">", 1)[0])
        height = heights[index]
        return heights[:index] + (height - 1,) + heights[index + 1 :], dealt, self.columns[index][height - 1]


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Golf, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when
    the budget ran out. ``nodes`` counts moves tried (a reserve card played, with the deals
    before it), ``positions`` the positions kept (one per reserve heights and top card),
    ``memory_mb`` those at `_ENTRY_BYTES` each; the clock and the tables are read every 1,024
    moves."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = Golf.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)

    columns, stock = model.columns, model.stock
    piles = range(len(columns))
    fits = [[model.fits(top, rank) for rank in range(14)] for top in range(14)]
    # first[m][rank]: the fewest stock cards dealt, from m dealt, after which a card of ``rank``
    # fits the foundation (the next stock card it fits is on top); None: no stock card left fits.
    first: list[list[int | None]] = [[None] * 14 for _ in range(len(stock) + 1)]
    for m in range(len(stock) - 1, -1, -1):
        first[m] = [m + 1 if fits[stock[m]][rank] else first[m + 1][rank] for rank in range(14)]
    radix = max((len(column) for column in columns), default=0) + 1
    weights = [radix**i for i in piles]
    heights0, dealt0, top0 = model.start
    # key (heights in a mixed radix, top rank) -> the fewest stock cards dealt it was reached with
    fewest_dealt: dict[int, int] = {}
    line: list[tuple[int, int, int]] = []  # (dealt before, dealt after, pile), last step first
    nodes = 0
    fewest = sum(heights0)
    budget_nodes = budget.nodes

    def search(heights: tuple[int, ...], hkey: int, dealt: int, top: int, left: int) -> bool:
        nonlocal nodes, fewest
        fit, after = fits[top], first[dealt]
        steps = []
        for i in piles:
            height = heights[i]
            if height:
                rank = columns[i][height - 1]
                if fit[rank]:
                    steps.append((dealt, -height, i, rank))
                else:
                    to = after[rank]
                    if to is not None:
                        steps.append((to, -height, i, rank))
        # fewest deals first (a position reached with fewer deals can do all the other can),
        # then from the tallest pile
        steps.sort()
        for to, _, i, rank in steps:
            if nodes >= budget_nodes:
                raise Spent(f"node budget ({budget_nodes:,} moves) spent")
            nodes += 1
            if left == 1:
                line.append((dealt, to, i))
                return True
            key = (hkey - weights[i]) * 14 + rank
            known = fewest_dealt.get(key)
            if known is not None and known <= to:
                continue
            fewest_dealt[key] = to
            if left <= fewest:
                fewest = left - 1
            if not nodes & 1023:
                kept = len(fewest_dealt)
                reason = budget.spent(nodes, kept, time.monotonic(), deadline, kept * _ENTRY_BYTES)
                if reason:
                    raise Spent(reason)
            if search(heights[:i] + (heights[i] - 1,) + heights[i + 1 :], hkey - weights[i], to, rank, left - 1):
                line.append((dealt, to, i))
                return True
        return False

    try:
        won = search(heights0, sum(h * w for h, w in zip(heights0, weights)), dealt0, top0, sum(heights0))
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            fewest = 0
            verdict.solution = [
                move
                for before, after, i in reversed(line)
                for move in [_DEAL] * (after - before) + [f"{model.ids[i]}>{model.foundation}"]
            ]
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, model.total - fewest)
    return finished(verdict, nodes, len(fewest_dealt) + 1, began)
