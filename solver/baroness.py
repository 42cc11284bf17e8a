"""An exact search for Baroness: the rules as plain numbers, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Baroness"), as engine/games/baroness.py states them: five
piles ``t0`` to ``t4`` (one card each at the deal), two piles ``t5`` and ``t6`` empty until the
end, and a stock of 47. Two top cards whose ranks add up to 13 are discarded together
(``t3>t1``), a King on top alone (``t2>f0``); only top cards are free. ``deal`` puts one stock
card on each of ``t0`` to ``t4``, or, when two are left, on ``t5`` and ``t6``; it is legal only
when no discard is (the engine's reading of "when no moves remain"). Nothing else moves; there
is no redeal. Won when all 52 cards are discarded.

State. Cards never move between piles, so every card has a fixed slot: its pile, its place in
the pile (the cards there now, bottom first, then those the stock will deal onto it, in order)
and the deal that brings it (0 for the cards in the piles now). A position is two ints: a mask
of the slots whose cards are not discarded (cards still in the stock count as not discarded)
and the number of deals made. A pile's top is the highest slot in the mask among its slots
already dealt. `Baroness` reads the slots from an engine `Game` at any position and plays its
moves on the state without engine code; the search packs the two ints into one.

The search. Depth-first over every position reachable, each packed position searched once (the
state determines all that follows). One rule cuts the tree, and it is sound: when a King is on
top, discarding it is the only move searched. It stays on top until discarded (only ``deal``
covers a card, and ``deal`` is illegal while a King can go), so any line discards it before its
next deal or never deals again; moving that discard to the front keeps every move of the line
legal (the other tops stay tops; a King pairs with nothing) and reaches the same positions with
the King gone, which have one more card cleared.

Why it is exact. The moves and next positions computed from the state are the engine's (the
test tests/solver/test_baroness.py compares them move for move, and every next position, over
many deals and random lines of play, and compares the search's verdicts and best clears with a
plain exhaustive search without the King rule). Every reachable position is searched, has the
same future as one searched, or is one the King rule skips, which adds nothing. So a search that
ends without a win proves the deal lost, and the fewest cards left in any position searched
gives the most cards that can be cleared. Budgets apply as in `solver.search`: ``nodes`` (moves
tried), ``seconds`` (the clock read every 256 moves), ``positions`` (packed positions kept) and
``memory_mb`` (those positions at `ENTRY_BYTES` each), the last three checked with the clock;
cut short, the verdict is unknown and its best clear a lower bound.

Cost. The rule that ``deal`` waits until no discard is left leaves few choices: on deals 0 to
999 (``nice -n 5``, one process, on this project's loaded two-core machine) every deal is
decided, 78 won (7.8%) and 922 proved lost; 0.009 s a deal on average, 0.07 s at most (under
tracemalloc); 108 positions kept a deal on average, at most 1,450 moves tried; peak memory 0.1
MiB. To reproduce::

    arena solve baroness --deals 1000 --jobs 1
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.cards import Card
from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["ENTRY_BYTES", "Baroness", "State", "solve_exact"]

#: (mask of the slots whose cards are not discarded, deals made)
State = tuple[int, int]

MAIN = ("t0", "t1", "t2", "t3", "t4")
MIDDLE = ("t5", "t6")
KING = 13
#: The bytes one kept position costs in the search's set (a packed int and its set slot),
#: measured with tracemalloc on a million of them, rounded up.
ENTRY_BYTES = 80
_DEAL = "deal"


@dataclass(frozen=True, slots=True)
class Baroness:
    """One Baroness position's cards as slots, from which every later position follows.

    ``ranks``, ``piles``, ``deals``: for each slot (bit ``k`` of a state's mask), its card's
    rank, the index of its pile in ``ids`` and the deal that brings it (0: in play now); slots
    run pile by pile, bottom to top. ``ids``: the piles, in the engine's pile order. ``start``:
    the `State` read. ``rounds``: how many deals the stock has left. ``cleared0``: cards
    cleared when read; ``codes``: each slot's card (for `state_of`); ``total``: 52.
    """

    ranks: tuple[int, ...]
    piles: tuple[int, ...]
    deals: tuple[int, ...]
    ids: tuple[str, ...]
    start: State
    rounds: int
    cleared0: int
    codes: tuple[str, ...]
    total: int = 52

    @classmethod
    def from_game(cls, game: Game) -> Baroness:
        """The model of ``game`` (a Baroness `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "baroness":
            raise ValueError(f"not a baroness game: {game.key!r}")
        ids = tuple(pid for pid in game.piles if pid[0] == "t")
        future: dict[str, list[tuple[int, Card]]] = {pid: [] for pid in ids}
        stock = list(reversed(game.piles["s"].cards))  # the next card first
        rounds = 0
        while stock:
            rounds += 1
            targets = MIDDLE if len(stock) == len(MIDDLE) else MAIN
            for pid in targets:
                if stock:
                    future[pid].append((rounds, stock.pop(0)))
        ranks, piles, deals, codes = [], [], [], []
        for index, pid in enumerate(ids):
            for deal, card in [(0, card) for card in game.piles[pid].cards] + future[pid]:
                ranks.append(int(card.rank))
                piles.append(index)
                deals.append(deal)
                codes.append(card.code)
        start = ((1 << len(ranks)) - 1, 0)
        return cls(tuple(ranks), tuple(piles), tuple(deals), ids, start, rounds, game.cleared, tuple(codes), game.total)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (for tests: it compares the engine's positions with the model's)."""
        where = {code: k for k, code in enumerate(self.codes)}
        in_play = [card.code for pid in self.ids for card in game.piles[pid].cards]
        in_play += [card.code for card in game.piles["s"].cards]
        stock = [self.deals[where[card.code]] for card in game.piles["s"].cards]
        return sum(1 << where[code] for code in in_play), min(stock) - 1 if stock else self.rounds

    def cleared(self, state: State) -> int:
        """Cards cleared in ``state``, as the engine counts them."""
        return self.cleared0 + len(self.ranks) - state[0].bit_count()

    def tops(self, state: State) -> dict[str, int]:
        """The top card of each pile in ``state``: pile id -> slot, in pile order."""
        mask, dealt = state
        tops: dict[str, int] = {}
        for k in range(len(self.ranks)):
            if mask >> k & 1 and self.deals[k] <= dealt:
                tops[self.ids[self.piles[k]]] = k
        return {pid: tops[pid] for pid in self.ids if pid in tops}

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        if not state[0]:
            return []
        tops = self.tops(state)
        moves = []
        for src, k in tops.items():
            if self.ranks[k] == KING:
                moves.append(f"{src}>f0")
                continue
            moves += [
                f"{src}>{dst}" for dst, other in tops.items() if dst != src and self.ranks[k] + self.ranks[other] == 13
            ]
        if not moves and state[1] < self.rounds:
            moves.append(_DEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        mask, dealt = state
        if move == _DEAL:
            return mask, dealt + 1
        tops = self.tops(state)
        for pid in move.split(">"):
            if pid in tops:
                mask &= ~(1 << tops[pid])
        return mask, dealt


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Baroness, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when
    the budget ran out. ``nodes`` counts moves tried, ``positions`` the packed positions kept.
    Raises ValueError for a game that is not Baroness."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = Baroness.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    ranks, ids, rounds = model.ranks, model.ids, model.rounds
    # per pile, the mask of its slots; per deal count, the mask of the slots dealt by then
    pile_masks = [sum(1 << k for k, p in enumerate(model.piles) if p == index) for index in range(len(ids))]
    dealt_masks = [sum(1 << k for k, d in enumerate(model.deals) if d <= r) for r in range(rounds + 1)]
    seen: set[int] = set()
    line: list[str] = []  # the winning line, last move first
    nodes = 0
    fewest = model.start[0].bit_count()
    limit_nodes = budget.nodes
    check_at = min(256, limit_nodes)

    def search(mask: int, dealt: int, left: int) -> bool:
        nonlocal nodes, fewest, check_at
        shown = mask & dealt_masks[dealt]
        tops: list[tuple[int, int, int]] = []  # (pile index, slot bit, rank)
        for index, pmask in enumerate(pile_masks):
            here = shown & pmask
            if here:
                k = here.bit_length() - 1
                tops.append((index, 1 << k, ranks[k]))
        steps: list[tuple[str, int, int]] = []  # (move, slot bits discarded, deals after)
        for index, bit, rank in tops:
            if rank == KING:  # the only move searched (see the module docstring)
                steps = [(f"{ids[index]}>f0", bit, dealt)]
                break
        else:
            for a in range(len(tops)):
                ia, ba, ra = tops[a]
                for b in range(a + 1, len(tops)):
                    ib, bb, rb = tops[b]
                    if ra + rb == 13:
                        steps.append((f"{ids[ia]}>{ids[ib]}", ba | bb, dealt))
            if not steps:
                if dealt < rounds:
                    steps.append((_DEAL, 0, dealt + 1))
                else:
                    return False
        for move, bits, after in steps:
            nodes += 1
            if nodes >= check_at:  # the clock and the tables, every 256 moves and at the node budget
                check_at = min(nodes + 256, limit_nodes)
                reason = budget.spent(nodes, len(seen), time.monotonic(), deadline, len(seen) * ENTRY_BYTES)
                if reason:
                    raise Spent(reason)
            gone = bits.bit_count()
            if left == gone:
                line.append(move)
                return True
            key = (mask ^ bits) << 4 | after
            if key in seen:
                continue
            seen.add(key)
            if left - gone < fewest:
                fewest = left - gone
            if search(mask ^ bits, after, left - gone):
                line.append(move)
                return True
        return False

    try:
        won = search(model.start[0], model.start[1], fewest)
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            fewest = 0
            verdict.solution = line[::-1]
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, model.cleared0 + len(ranks) - fewest)
    return finished(verdict, nodes, len(seen) + 1, began)
