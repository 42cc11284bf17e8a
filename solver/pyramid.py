"""An exact search for Pyramid: the rules as plain numbers, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Pyramid"), as engine/games/pyramid.py states them: 28 pyramid
cards ``r0`` (the apex) to ``r27``, row by row, each covered by the two cards touching it in the
row below; a deck of 24 whose top card shows as the deck card ``d`` (the rest, the stock, face
down) and a waste ``w``. Two free cards (uncovered pyramid cards, the deck card, the waste's top)
whose ranks add up to 13 are discarded together (``r21>d``); a free King alone (``r3>f0``); a
pyramid card may also pair with the one card still covering it when that card is free
(``r27>r20``). When the deck card goes, the next stock card turns up. ``deal`` puts the deck card
on the waste and turns up the next, and is legal only when no discard is (the engine's reading
of "when no moves remain"); there is no redeal. Won when all 52 cards are discarded.

State. The deck's order never changes: the waste holds deck cards in deck order, the deck card
is the next, the stock the rest. So a position is three ints: a 28-bit mask of the pyramid cards
still in play, a mask of the deck cards still in play (bit k: the k-th deck card, the waste's
bottom card first), and the index of the deck card (the deck's length once the deck card is
gone). The waste is the deck cards still in play below that index; its top is the highest one.
`Pyramid` reads these from an engine `Game` at any position (its waste, deck card and stock
become the deck, in that order) and plays its moves on them without engine code; the search
packs the three into one int.

The search. Depth-first over every position reachable, each packed position searched once (a
set of those seen: the state determines all that follows). One rule cuts the tree, and it is
sound: when a King is free, discarding it is the only move searched. A free King stays free
until it is discarded (nothing covers a card again, the waste grows only by ``deal``, and the
deck card changes only by ``deal`` or a discard of itself), and while it is free ``deal`` is
illegal; so any line from here discards it before its next deal, or never deals again. Moving
that discard to the front keeps every move of the line legal (discarding a card only frees
cards and shrinks the set covering one, so no discard that was legal stops being so; a King
pairs with nothing) and reaches the same positions with the King gone, which have as many
cards cleared or more. So a win is found if one exists, and the most cards cleared is kept.

Why it is exact. The moves and next positions computed from the state are the engine's (the
test tests/solver/test_pyramid.py compares them move for move, and every next position, over many
deals and random lines of play, and compares the search's verdicts and best clears with a plain
exhaustive search without the King rule). Every reachable position is searched or has the same
future as one searched, apart from those the King rule skips, which it shows add nothing. So a
search that ends without a win proves the deal lost, and the fewest cards left in any position
searched gives the most cards that can be cleared. Budgets apply as in `solver.search`:
``nodes`` (moves tried), ``seconds`` (the clock read every 256 moves), ``positions`` (packed
positions kept, checked with the clock) and ``memory_mb`` (those positions at `ENTRY_BYTES`
each, checked with the clock); cut short, the verdict is unknown and its best clear a lower
bound.

Cost. The rule that ``deal`` waits until no discard is left leaves few choices: on deals 0 to
999 (``nice -n 5``, one process, on this project's loaded two-core machine) every deal is
decided, 52 won (5.2%) and 948 proved lost; 0.03 s a deal on average, 0.18 s at most (under
tracemalloc); 164 positions kept a deal on average, at most 936 moves tried; peak memory 0.1
MiB. To reproduce::

    arena solve pyramid --deals 1000 --jobs 1
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["ENTRY_BYTES", "Pyramid", "State", "solve_exact"]

#: (mask of pyramid cards in play, mask of deck cards in play, index of the deck card)
State = tuple[int, int, int]

ROWS = 7
SIZE = ROWS * (ROWS + 1) // 2
KING = 13
#: The bytes one kept position costs in the search's set (a packed int and its set slot),
#: measured with tracemalloc on a million of them, rounded up.
ENTRY_BYTES = 80
_DEAL = "deal"


def _cover_masks() -> tuple[int, ...]:
    """For each pyramid card, the mask of the two cards covering it (0 in the bottom row)."""
    masks = []
    for row in range(ROWS):
        for k in range(row + 1):
            if row == ROWS - 1:
                masks.append(0)
            else:
                below = (row + 1) * (row + 2) // 2 + k
                masks.append((1 << below) | (1 << (below + 1)))
    return tuple(masks)


COVERS = _cover_masks()


@dataclass(frozen=True, slots=True)
class Pyramid:
    """One Pyramid position's cards as plain ranks, from which every later position follows.

    ``pyramid``: the rank of each pyramid card ``r0`` to ``r27`` (0 where the pile is empty);
    ``deck``: the ranks of the waste (bottom first), the deck card and the stock (next first);
    ``start``: the `State` read; ``order``: the piles that can hold a card in play, in the
    engine's pile order (it lists moves source by source in that order); ``total``: 52;
    ``codes``: the deck's cards (as ``deck``), for `state_of`.
    """

    pyramid: tuple[int, ...]
    deck: tuple[int, ...]
    start: State
    order: tuple[str, ...]
    total: int
    codes: tuple[str, ...] = ()

    @classmethod
    def from_game(cls, game: Game) -> Pyramid:
        """The model of ``game`` (a Pyramid `Game`, at any position). Raises ValueError for
        another game, or a position whose deck card is gone while the stock still has cards."""
        if game.key != "pyramid":
            raise ValueError(f"not a pyramid game: {game.key!r}")
        piles = game.piles
        pyramid = tuple(int(piles[f"r{j}"].cards[-1].rank) if piles[f"r{j}"].cards else 0 for j in range(SIZE))
        if not piles["d"].cards and piles["s"].cards:
            raise ValueError("the deck card is gone but the stock is not")
        waste = [int(card.rank) for card in piles["w"].cards]
        deck = tuple(waste + [int(card.rank) for card in piles["d"].cards[-1:]])
        deck += tuple(int(card.rank) for card in reversed(piles["s"].cards))
        mask = sum(1 << j for j in range(SIZE) if pyramid[j])
        order = tuple(pid for pid in piles if pid[0] == "r" or pid in ("d", "w"))
        cards = [*piles["w"].cards, *piles["d"].cards[-1:], *reversed(piles["s"].cards)]
        start = (mask, (1 << len(deck)) - 1, len(waste))
        return cls(pyramid, deck, start, order, game.total, tuple(card.code for card in cards))

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (for tests: it compares the engine's positions with the model's)."""
        mask = sum(1 << j for j in range(SIZE) if game.piles[f"r{j}"].cards)
        where = {code: k for k, code in enumerate(self.codes)}
        dmask = 0
        for pid in ("w", "d", "s"):
            for card in game.piles[pid].cards:
                dmask |= 1 << where[card.code]
        index = len(self.deck) - len(game.piles["s"].cards) - len(game.piles["d"].cards)
        return mask, dmask, index

    def cleared(self, state: State) -> int:
        """Cards cleared in ``state``, as the engine counts them."""
        return self.total - state[0].bit_count() - state[1].bit_count()

    def free(self, state: State) -> dict[str, int]:
        """The free cards in ``state``: pile id -> rank (pyramid cards, then ``d`` and ``w``)."""
        mask, dmask, index = state
        free = {f"r{j}": self.pyramid[j] for j in range(SIZE) if mask >> j & 1 and not mask & COVERS[j]}
        if index < len(self.deck) and dmask >> index & 1:
            free["d"] = self.deck[index]
        below = dmask & ((1 << index) - 1)
        if below:
            free["w"] = self.deck[below.bit_length() - 1]
        return free

    def _tops(self, state: State) -> dict[str, int]:
        """Every pile's top card in ``state`` (free or not): pile id -> rank, in pile order."""
        free = self.free(state)
        tops = {}
        for pid in self.order:
            if pid[0] == "r":
                if state[0] >> int(pid[1:]) & 1:
                    tops[pid] = self.pyramid[int(pid[1:])]
            elif pid in free:
                tops[pid] = free[pid]
        return tops

    def _may_pair(self, state: State, src: str, dst: str, free: dict[str, int]) -> bool:
        if src in free and dst in free:
            return True
        for card, partner in ((src, dst), (dst, src)):
            if partner in free and card[0] == "r" and partner[0] == "r":
                if state[0] & COVERS[int(card[1:])] == 1 << int(partner[1:]):
                    return True
        return False

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        if self.cleared(state) == self.total:
            return []
        free, tops = self.free(state), self._tops(state)
        moves = []
        for src, rank in tops.items():
            if rank == KING:
                if src in free:
                    moves.append(f"{src}>f0")
                continue
            for dst, other in tops.items():
                if other + rank == 13 and dst != src and self._may_pair(state, src, dst, free):
                    moves.append(f"{src}>{dst}")
        if not moves and "d" in free:
            moves.append(_DEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        mask, dmask, index = state
        if move == _DEAL:
            return mask, dmask, index + 1
        for pid in move.split(">"):
            if pid[0] == "r":
                mask &= ~(1 << int(pid[1:]))
            elif pid == "d":
                dmask &= ~(1 << index)
                index += 1
            elif pid == "w":
                dmask &= ~(1 << ((dmask & ((1 << index) - 1)).bit_length() - 1))
        return mask, dmask, index


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Pyramid, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when
    the budget ran out. ``nodes`` counts moves tried, ``positions`` the packed positions kept.
    Raises ValueError for a game that is not Pyramid."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = Pyramid.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)

    ranks, deck = model.pyramid, model.deck
    size = len(deck)
    covers = COVERS
    bits = [1 << j for j in range(SIZE)]
    seen: set[int] = set()
    line: list[str] = []  # the winning line, last move first
    nodes = 0
    start = model.start
    fewest = start[0].bit_count() + start[1].bit_count()
    limit_nodes = budget.nodes
    check_at = min(256, limit_nodes)

    def search(mask: int, dmask: int, index: int, left: int) -> bool:
        nonlocal nodes, fewest, check_at
        # free cards: (pile id, rank, pyramid bit or 0, deck bit or 0)
        free: list[tuple[str, int, int, int]] = []
        covered: list[tuple[int, int]] = []  # (pyramid card, its one cover left), for pairing
        rest = mask
        while rest:
            low = rest & -rest
            j = low.bit_length() - 1
            rest ^= low
            on = mask & covers[j]
            if not on:
                free.append((f"r{j}", ranks[j], low, 0))
            elif on & (on - 1) == 0:
                covered.append((j, on))
        if index < size and dmask >> index & 1:
            free.append(("d", deck[index], 0, 1 << index))
        below = dmask & ((1 << index) - 1)
        if below:
            top = below.bit_length() - 1
            free.append(("w", deck[top], 0, 1 << top))
        steps: list[tuple[str, int, int, int]] = []  # (move, pyramid bits, deck bits, deck card goes)
        for pid, rank, pbit, dbit in free:
            if rank == KING:  # the only move searched (see the module docstring)
                steps = [(f"{pid}>f0", pbit, dbit, pid == "d")]
                break
        else:
            for a in range(len(free)):
                pa, ra, ba, da = free[a]
                for b in range(a + 1, len(free)):
                    pb, rb, bb, db = free[b]
                    if ra + rb == 13:
                        steps.append((f"{pa}>{pb}", ba | bb, da | db, pa == "d" or pb == "d"))
            for j, on in covered:
                partner = on.bit_length() - 1
                if ranks[j] + ranks[partner] == 13 and not mask & covers[partner]:
                    steps.append((f"r{j}>r{partner}", bits[j] | on, 0, False))
            if not steps:
                if index < size and dmask >> index & 1:
                    steps.append((_DEAL, 0, 0, True))
                else:
                    return False
        for move, pbits, dbits, advance in steps:
            nodes += 1
            if nodes >= check_at:  # the clock and the tables, every 256 moves and at the node budget
                check_at = min(nodes + 256, limit_nodes)
                reason = budget.spent(nodes, len(seen), time.monotonic(), deadline, len(seen) * ENTRY_BYTES)
                if reason:
                    raise Spent(reason)
            gone = (pbits.bit_count() + dbits.bit_count()) if move != _DEAL else 0
            if left - gone == 0:
                line.append(move)
                return True
            child = (mask ^ pbits, dmask ^ dbits, index + 1 if advance else index)
            key = (child[0] << 30 | child[1]) << 5 | child[2]
            if key in seen:
                continue
            seen.add(key)
            if left - gone < fewest:
                fewest = left - gone
            if search(child[0], child[1], child[2], left - gone):
                line.append(move)
                return True
        return False

    try:
        won = search(start[0], start[1], start[2], fewest)
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            fewest = 0
            verdict.solution = line[::-1]
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, model.total - fewest)
    return finished(verdict, nodes, len(seen) + 1, began)
