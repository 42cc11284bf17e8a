"""What the search knows about Calculation: suits never matter, and a waste pile is a stack.

Rules: 003_08087bb95aa03446.txt ("Calculation"), as engine/games/calculation.py states them:
foundation ``f{i}`` (i = 0..3) starts with rank i + 1 and counts on in steps of i + 1 past the
King, so each foundation takes every rank once and ends with its King; the turned stock card
``w`` goes to a foundation or onto any of the four waste piles ``t0`` to ``t3``; a waste pile's
top card goes only to a foundation.

Three pieces of knowledge:

* `canonical`: no rule looks at a suit, so a position is written with ranks only: each
  foundation's length (which fixes the rank it needs next), the four waste piles as rank strings
  sorted (they are alike), and the number of stock cards left (the stock order is the deal's, so
  the count says which cards they are). Positions that differ only by suits or by a swap of
  waste piles are one position.
* `score`: the well-known human strategy. A card's *need* is how many cards its rank's nearest
  foundation still takes before that rank (0: playable now); a waste card that lies above a card
  needed sooner than itself *blocks* it, and every such pair must be undone before the lower card
  can go up. Positions with more cards cleared and fewer blocking pairs come first.
* `ordered_moves`: cards to a foundation first; then the turned card onto a waste pile whose top
  is needed no sooner than it (the tightest fit first), then onto an empty pile, and last onto a
  pile whose top it would block (the one needed latest first).

All three only order and merge positions; no move is left out, so a search that runs out of
positions still proves a deal lost.

The exact search (`Calculation`, `solve_exact`) plays the same rules on plain values, with no
engine call inside the search. State: each foundation's length (which fixes the rank it takes
next), each waste pile's ranks bottom to top, and how many stock cards were turned (the stock
order is the deal's; the count follows from the cards on the foundations and waste piles). A
position's key is the four lengths and the waste piles sorted (they are alike), as bytes.

Safe moves: a card that is the last of its rank not yet up, when the one foundation that still
takes that rank takes it now, goes there at once and alone. Proof: each foundation takes every
rank once, so the cards of a rank not up are as many as the foundations still taking it: one.
That foundation can take nothing until this card goes on it, so every line from the position
before can be played, move for move, from the position after (the card's own move left out;
cards later put on its waste pile lie one place lower and come off the same way), with at least
as many cards up at every step: nothing a line could win or clear is lost.

The search has two phases. First best first (`_best_first`, for 15% of the budget's seconds):
the position with the least ``10 x blocking pairs - 10 x cards cleared`` (the `score` knowledge
above, on the model) is expanded next, the latest pushed first among equals; every legal move
is tried from every position kept (the turned card onto one waste pile of each kind of alike
piles), so if its frontier empties without a win it has seen every reachable position up to
the safe moves: the deal is lost, and the most cards up in any position seen is the most that
can be cleared. Then a beam search (`_beam`) in passes of growing width (32, then four times as
many each pass): for each number of stock cards turned it keeps the ``width`` positions of
least cost, each with every position its waste cards reach on the foundations, and the turned
card's every move from each. It finds wins whose start looks poor, which best first reaches
late. A pass that never had to leave a position out saw every reachable position: then the
deal is lost, with the most cards up in any position it saw. A win comes back as moves in the
engine's notation (best first: each step of the sorted piles mapped onto the piles as they lie;
the beam keeps the piles as they lie), which the engine replays to ``won``.
tests/solver/test_calculation.py checks the model against the engine move for move, the
verdicts and best clears of both phases against a plain search of the model's own moves.
Budgets: ``nodes`` counts moves tried, ``positions`` the most positions one phase's pass holds;
``memory_mb`` counts those (best first: about 300 bytes a key and 100 a frontier entry; the
beam: about 1,000 bytes a position with its line, as tracemalloc counts); the clock is read
every 256 positions expanded or moves tried.

Cost, measured on deals 1000 to 1049 at 10 s a deal, one process under ``nice -n 5`` on this
project's two-core machine while others measured too (load average 1 to 6): 43 won (86%), none
proved lost, 7 unknown; won deals took 1.4 s on average (9.2 s at most; median 1.6 s over all
deals), 2.6 s a deal over all; 138 MB peak resident memory. Best first alone, in the same hour
(load 5 to 7): 23 won (46%). The unknown deals clear at most 27 to 46 cards in any line found;
a proof would need every position. Reproduce by calling `solve_exact` on
``find_game("calculation")(seed)`` with ``Budget()``.
"""

from __future__ import annotations

import heapq
import time
from dataclasses import dataclass
from typing import Literal

from engine.core import Game, Move
from solver.budget import Budget, Verdict
from solver.exact import Spent, finished, start_verdict

__all__ = ["Calculation", "State", "canonical", "needs", "ordered_moves", "score", "solve_exact"]

_STEPS = (1, 2, 3, 4)
#: For each foundation, the ranks (1 to 13) of its thirteen cards in order, its starting card
#: first: a foundation holding k cards needs the rank at index k next.
_SEQUENCES = tuple(tuple((step * (k + 1) - 1) % 13 + 1 for k in range(13)) for step in _STEPS)
_PLACE = tuple({rank: k for k, rank in enumerate(sequence)} for sequence in _SEQUENCES)
_FOUNDATIONS = ("f0", "f1", "f2", "f3")
_WASTE = ("t0", "t1", "t2", "t3")
#: The need of a rank no foundation takes any more (every card of it is home).
_NEVER = 99


def needs(game: Game) -> list[int]:
    """For each rank (index 1 to 13; index 0 unused), how many cards the foundation that needs it
    soonest takes before it: 0 when a card of that rank goes up now, `_NEVER` when no foundation
    needs it any more."""
    lengths = [len(game.piles[pid].cards) for pid in _FOUNDATIONS]
    result = [_NEVER] * 14
    for rank in range(1, 14):
        for place, length in zip(_PLACE, lengths):
            ahead = place[rank] - length
            if 0 <= ahead < result[rank]:
                result[rank] = ahead
    return result


def _blocking_pairs(game: Game, need: list[int]) -> int:
    """Pairs of cards in one waste pile where the upper one is needed later than the lower one."""
    count = 0
    for pid in _WASTE:
        below: list[int] = []
        for card in game.piles[pid].cards:
            mine = need[card.rank]
            count += sum(1 for other in below if other < mine)
            below.append(mine)
    return count


def score(game: Game) -> int:
    """How promising a position looks: 10 per card cleared, less 3 per blocking pair."""
    return 10 * game.cleared - 3 * _blocking_pairs(game, needs(game))


def canonical(game: Game) -> str:
    """The position with ranks only, for one search's transposition table (see the module
    docstring); e.g. ``"1.3.2.1 |5c|d|9 s30 w1"``."""
    piles = game.piles
    lengths = ".".join(str(len(piles[pid].cards)) for pid in _FOUNDATIONS)
    waste = "|".join(sorted("".join(f"{card.rank:x}" for card in piles[pid].cards) for pid in _WASTE))
    return f"{lengths} {waste} s{len(piles['s'].cards)} w{len(piles['w'].cards)}"


def ordered_moves(game: Game) -> list[Move]:
    """Every legal move of ``game``, most promising first (see the module docstring)."""
    need = needs(game)

    def key(move: Move) -> tuple[int, int]:
        if move.dst in _FOUNDATIONS:
            return (0, 0)
        mine = need[game.piles[move.src].cards[-1].rank]
        pile = game.piles[move.dst].cards
        if not pile:
            return (2, 0)
        top = need[pile[-1].rank]
        if top >= mine:
            return (1, top - mine)
        return (3, -top)

    return sorted(game.legal_moves(), key=key)


# The exact search ------------------------------------------------------------------------------

#: (each foundation's length, each waste pile's ranks bottom to top, stock cards turned: the
#: card on ``w`` is ``stock[turned]``, none once ``turned == len(stock)``)
State = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]

#: Bytes one kept key costs in the search's set (a bytes object of up to 60 bytes and its slot),
#: as measured with tracemalloc (rounded up).
_KEY_BYTES = 300
#: The best-first order: a position's cost is its blocking pairs less its cards cleared
#: (weights tried on deals 1000 to 1019 at 2 s: 10 and 10 won the most)
_W_BLOCK, _W_CLEAR = 10, 10
#: Bytes one entry of the frontier costs (a tuple of two ints and the key)
_FRONTIER_BYTES = 100


@dataclass(frozen=True, slots=True)
class Calculation:
    """One Calculation position as plain ranks, from which every later position follows.

    ``stock``: the ranks still to be turned, the card on ``w`` first, then the stock top first;
    ``start``: the `State` read; ``total``: 52.
    """

    stock: tuple[int, ...]
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Calculation:
        """The model of ``game`` (a Calculation `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "calculation":
            raise ValueError(f"not a calculation game: {game.key!r}")
        piles = game.piles
        stock = tuple(int(c.rank) for c in piles["w"].cards[::-1]) + tuple(int(c.rank) for c in piles["s"].cards[::-1])
        lengths = tuple(len(piles[pid].cards) for pid in _FOUNDATIONS)
        waste = tuple(tuple(int(c.rank) for c in piles[pid].cards) for pid in _WASTE)
        return cls(stock, (lengths, waste, 0), game.total)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (the tests compare the engine's positions with the model's)."""
        piles = game.piles
        left = len(piles["s"].cards) + len(piles["w"].cards)
        return (
            tuple(len(piles[pid].cards) for pid in _FOUNDATIONS),
            tuple(tuple(int(c.rank) for c in piles[pid].cards) for pid in _WASTE),
            len(self.stock) - left,
        )

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(state[0])

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        lengths, waste, turned = state
        wanted = [_SEQUENCES[j][n] if n < 13 else 0 for j, n in enumerate(lengths)]
        moves = [
            f"{_WASTE[i]}>{_FOUNDATIONS[j]}"
            for i, pile in enumerate(waste)
            if pile
            for j in range(4)
            if wanted[j] == pile[-1]
        ]
        if turned < len(self.stock):
            card = self.stock[turned]
            moves += [f"w>{_FOUNDATIONS[j]}" for j in range(4) if wanted[j] == card]
            moves += [f"w>{pid}" for pid in _WASTE]
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        lengths, waste, turned = state
        src, dst = move.split(">")
        if src == "w":
            card = self.stock[turned]
            turned += 1
        else:
            i = _WASTE.index(src)
            card = waste[i][-1]
            waste = waste[:i] + (waste[i][:-1],) + waste[i + 1 :]
        if dst[0] == "f":
            j = _FOUNDATIONS.index(dst)
            return lengths[:j] + (lengths[j] + 1,) + lengths[j + 1 :], waste, turned
        i = _WASTE.index(dst)
        return lengths, waste[:i] + (waste[i] + (card,),) + waste[i + 1 :], turned


def _settle(lengths: list[int], waste: list[list[int]], turned: int, stock: tuple[int, ...]) -> tuple[int, list[str]]:
    """Play the safe moves (see the module docstring) in place: while a waste pile's top card or
    the turned card is the last card of its rank and fits the one foundation that still takes
    that rank, it goes there. Returns the new ``turned`` and the moves played, in notation."""
    played: list[str] = []
    moved = True
    while moved:
        moved = False
        for i in range(4):
            pile = waste[i]
            while pile:
                j = _last_home(lengths, pile[-1])
                if j < 0:
                    break
                pile.pop()
                lengths[j] += 1
                played.append(f"{_WASTE[i]}>{_FOUNDATIONS[j]}")
                moved = True
        if turned < len(stock):
            j = _last_home(lengths, stock[turned])
            if j >= 0:
                turned += 1
                lengths[j] += 1
                played.append(f"w>{_FOUNDATIONS[j]}")
                moved = True
    return turned, played


def _last_home(lengths: list[int], rank: int) -> int:
    """The foundation a card of ``rank`` goes to safely: the only one that still takes the rank,
    when it takes it now; -1 when there is none such."""
    home = -1
    for j in range(4):
        if _PLACE[j][rank] >= lengths[j]:
            if home >= 0:
                return -1
            home = j
    if home >= 0 and _SEQUENCES[home][lengths[home]] == rank:
        return home
    return -1


def _key(lengths: list[int], waste: list[list[int]]) -> bytes:
    """A position's key: the foundations' lengths, then the waste piles sorted (0 between them)."""
    return bytes(lengths) + b"\0".join(sorted(bytes(pile) for pile in waste))


def _blocking(waste: list[list[int]], need: list[int]) -> int:
    """Pairs of cards in one waste pile where the upper one is needed later than the lower one."""
    count = 0
    for pile in waste:
        for k in range(1, len(pile)):
            mine = need[pile[k]]
            for lower in pile[:k]:
                if need[lower] < mine:
                    count += 1
    return count


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Calculation, from its current position; it is not changed) exactly (see
    the module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with the
    budget that ran out (its best clear then a lower bound). ``nodes`` counts moves tried,
    ``positions`` the most positions one pass kept. The default budget is a race's par budget."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Calculation.from_game(game)
    deadline = began + budget.seconds
    lengths0 = list(model.start[0])
    waste0 = [list(pile) for pile in model.start[1]]
    turned0, moves0 = _settle(lengths0, waste0, model.start[2], model.stock)
    best = sum(lengths0)
    counter = [0, 0, 0]  # nodes, the most positions one pass kept, the best clear
    counter[2] = best
    result: Literal["won", "lost", "unknown"] = "unknown"
    solution: list[str] = []
    width = _FIRST_WIDTH
    try:
        if best == model.total:
            result, solution = "won", moves0
        else:
            until = began + budget.seconds * _BEST_FIRST_SHARE
            found, complete = _best_first(model, budget, until, deadline, counter)
            if found is not None:
                result, solution = "won", found
            elif complete:
                result = "lost"
        while result == "unknown":
            line, complete = _beam(model, lengths0, waste0, turned0, width, budget, deadline, counter)
            if line is not None:
                result, solution = "won", moves0 + line
            elif complete:
                result = "lost"
            width *= 4
    except Spent as spent:
        verdict.reason = spent.args[0]
    verdict.result = result
    verdict.solution = solution
    best = model.total if result == "won" else counter[2]
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, counter[0], counter[1], began)


#: The share of the budget's seconds the best-first search takes before the beam search
_BEST_FIRST_SHARE = 0.15
#: The first pass's beam width (positions kept for each number of cards turned); each later
#: pass keeps four times as many.
_FIRST_WIDTH = 32

#: A kept position: (cost, foundations' lengths, waste piles as they lie, the index of the
#: position it came from in the layer before, the moves from there in the engine's notation)
_Entry = tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...], int, tuple[str, ...]]


def _beam(
    model: Calculation,
    lengths0: list[int],
    waste0: list[list[int]],
    turned0: int,
    width: int,
    budget: Budget,
    deadline: float,
    counter: list[int],
) -> tuple[list[str] | None, bool]:
    """One pass of the beam search (see the module docstring): keep at most ``width`` positions
    of least cost for each number of stock cards turned. Returns (a winning line from the
    position given, or None; whether no position was ever left out). ``counter`` holds the moves
    tried, the most positions kept and the best clear, updated. Raises Spent when a budget runs out."""

    stock, total = model.stock, model.total
    if sum(lengths0) == total:
        return [], True
    n_stock = len(stock)
    seqs = _SEQUENCES
    layers: list[list[_Entry]] = [[(0, tuple(lengths0), tuple(tuple(p) for p in waste0), -1, ())]]
    complete = True
    kept = 1
    spread: list[_Entry] = []
    nxt: dict[bytes, _Entry] = {}

    def check() -> None:
        """Raise Spent when a budget ran out (the clock read every 256 moves)."""
        if counter[0] >= budget.nodes:
            raise Spent(f"node budget ({budget.nodes:,} moves) spent")
        if not counter[0] & 255:
            held = kept + len(spread) + len(nxt)
            counter[1] = max(counter[1], held)
            reason = budget.spent(counter[0], held, time.monotonic(), deadline, held * _ENTRY_BYTES)
            if reason:
                raise Spent(reason)

    for turned in range(turned0, n_stock + 1):
        layer = layers[-1]
        # every position this layer reaches by waste cards to the foundations
        seen: dict[bytes, int] = {}
        spread = []
        nxt = {}
        for index, (_, lengths, waste, _, _) in enumerate(layer):
            key = _key(list(lengths), [list(p) for p in waste])
            if key not in seen:
                seen[key] = len(spread)
                spread.append((0, lengths, waste, index, ()))
        at = 0
        while at < len(spread):
            _, lengths, waste, origin, moves = spread[at]
            at += 1
            wanted = [seqs[j][n] if n < 13 else 0 for j, n in enumerate(lengths)]
            for i in range(4):
                if not waste[i]:
                    continue
                for j in range(4):
                    if wanted[j] != waste[i][-1]:
                        continue
                    counter[0] += 1
                    check()
                    child_lengths = list(lengths)
                    child_lengths[j] += 1
                    child_waste = [list(p) for p in waste]
                    child_waste[i].pop()
                    _, played = _settle(child_lengths, child_waste, n_stock, stock)
                    key = _key(child_lengths, child_waste)
                    if key in seen:
                        continue
                    seen[key] = len(spread)
                    cleared = sum(child_lengths)
                    if cleared > counter[2]:
                        counter[2] = cleared
                    line = (*moves, f"{_WASTE[i]}>{_FOUNDATIONS[j]}", *played)
                    entry = (0, tuple(child_lengths), tuple(tuple(p) for p in child_waste), origin, line)
                    if cleared == total:
                        return _unwind(layers, entry), complete
                    spread.append(entry)
        if turned == n_stock:
            break
        # the turned card to a foundation or onto a waste pile
        card = stock[turned]
        for _, lengths, waste, origin, moves in spread:
            wanted = [seqs[j][n] if n < 13 else 0 for j, n in enumerate(lengths)]
            safe = _last_home(list(lengths), card)
            for dst in range(8) if safe < 0 else (safe,):
                if dst < 4:
                    if wanted[dst] != card:
                        continue
                elif any(waste[dst - 4] == waste[h] for h in range(dst - 4)):
                    continue  # alike piles: one position
                counter[0] += 1
                check()
                child_lengths = list(lengths)
                child_waste = [list(p) for p in waste]
                if dst < 4:
                    child_lengths[dst] += 1
                else:
                    child_waste[dst - 4].append(card)
                _, played = _settle(child_lengths, child_waste, n_stock, stock)
                key = _key(child_lengths, child_waste)
                if key in nxt:
                    continue
                cleared = sum(child_lengths)
                if cleared > counter[2]:
                    counter[2] = cleared
                line = (*moves, f"w>{_FOUNDATIONS[dst] if dst < 4 else _WASTE[dst - 4]}", *played)
                entry = (
                    _cost(child_lengths, child_waste),
                    tuple(child_lengths),
                    tuple(tuple(p) for p in child_waste),
                    origin,
                    line,
                )
                if cleared == total:
                    return _unwind(layers, entry), complete
                nxt[key] = entry
        chosen = list(nxt.values())
        if len(chosen) > width:
            complete = False
            chosen = heapq.nsmallest(width, chosen, key=lambda e: e[0])
        if not chosen:
            break
        layers.append(chosen)
        kept += len(chosen)
        counter[1] = max(counter[1], kept)
    return None, complete


#: Bytes one kept position costs (its tuples and its line), as measured with tracemalloc (rounded up)
_ENTRY_BYTES = 1000


def _best_first(
    model: Calculation, budget: Budget, until: float, deadline: float, counter: list[int]
) -> tuple[list[str] | None, bool]:
    """The best-first search (see the module docstring) from the model's start until ``until``
    (`time.monotonic`). Returns (a winning line in the engine's notation, or None; whether every
    reachable position was searched). ``counter`` holds the moves tried, the most positions
    kept and the best clear, updated. Raises Spent when a budget runs out."""

    stock, total = model.stock, model.total
    n_stock = len(stock)
    seqs = _SEQUENCES
    lengths0 = list(model.start[0])
    waste0 = [list(pile) for pile in model.start[1]]
    turned0, _ = _settle(lengths0, waste0, model.start[2], stock)
    # cards turned follow from the cards on the foundations and the waste piles
    offset = turned0 - sum(lengths0) - sum(len(pile) for pile in waste0)
    start = _key(lengths0, waste0)
    # key -> (the key it was reached from, the move: (source: -1 w or a waste pile in the
    # parent's key order, destination: 0..3 a foundation, 4..7 a waste pile in that order))
    parents: dict[bytes, tuple[bytes, int, int] | None] = {start: None}
    frontier: list[tuple[int, int, bytes]] = [(0, 0, start)]
    pushed = expanded = 0
    while frontier:
        key = heapq.heappop(frontier)[2]
        expanded += 1
        lengths = list(key[:4])
        waste = [list(pile) for pile in key[4:].split(b"\0")]
        turned = offset + sum(lengths) + sum(len(pile) for pile in waste)
        if not expanded & 255 or counter[0] >= budget.nodes:
            now = time.monotonic()
            counter[1] = max(counter[1], len(parents))
            held = len(parents) * _KEY_BYTES + len(frontier) * _FRONTIER_BYTES
            reason = budget.spent(counter[0], len(parents), now, deadline, held)
            if reason:
                raise Spent(reason)
            if now >= until:
                return None, False
        wanted = [seqs[j][n] if n < 13 else 0 for j, n in enumerate(lengths)]
        children: list[tuple[int, int]] = []
        for i in range(4):
            if waste[i]:
                rank = waste[i][-1]
                children += [(i, j) for j in range(4) if wanted[j] == rank]
        if turned < n_stock:
            card = stock[turned]
            children += [(-1, j) for j in range(4) if wanted[j] == card]
            children += [(-1, 4 + i) for i in range(4) if i == 0 or waste[i] != waste[i - 1]]
        for src, dst in children:
            counter[0] += 1
            child_lengths = lengths[:]
            child_waste = [pile[:] for pile in waste]
            if src < 0:
                card = stock[turned]
                child_turned = turned + 1
            else:
                card = child_waste[src].pop()
                child_turned = turned
            if dst < 4:
                child_lengths[dst] += 1
            else:
                child_waste[dst - 4].append(card)
            _settle(child_lengths, child_waste, child_turned, stock)
            child = _key(child_lengths, child_waste)
            if child in parents:
                continue
            parents[child] = (key, src, dst)
            cleared = sum(child_lengths)
            if cleared > counter[2]:
                counter[2] = cleared
            if cleared == total:
                counter[1] = max(counter[1], len(parents))
                return _line(model, parents, child), True
            pushed += 1
            cost = _W_BLOCK * _blocking(child_waste, _needs(child_lengths)) - _W_CLEAR * cleared
            heapq.heappush(frontier, (cost, -pushed, child))
    counter[1] = max(counter[1], len(parents))
    return None, True


def _unwind(layers: list[list[_Entry]], entry: _Entry) -> list[str]:
    """The moves from the first layer's position to ``entry``'s, following the kept links."""
    parts = [entry[4]]
    origin = entry[3]
    for layer in reversed(layers[1:]):
        parts.append(layer[origin][4])
        origin = layer[origin][3]
    return [move for part in reversed(parts) for move in part]


def _cost(lengths: list[int], waste: list[list[int]]) -> int:
    """The beam's order: blocking pairs less cards cleared (see the module docstring), least first."""
    need = _needs(lengths)
    return _W_BLOCK * _blocking(waste, need) - _W_CLEAR * sum(lengths)


def _needs(lengths: list[int]) -> list[int]:
    """For each rank (index 1 to 13), how many cards the foundation that takes it soonest takes
    before it (`_NEVER` when none takes it any more), with the foundations' ``lengths``."""
    need = [_NEVER] * 14
    for j in range(4):
        n = lengths[j]
        sequence = _SEQUENCES[j]
        for k in range(n, 13):
            rank = sequence[k]
            if k - n < need[rank]:
                need[rank] = k - n
    return need


def _line(model: Calculation, parents: dict[bytes, tuple[bytes, int, int] | None], end: bytes) -> list[str]:
    """The moves in the engine's notation from the model's start to the position keyed ``end``:
    each step of the search (its piles in key order) played on the piles as they lie, each
    followed by the safe moves the search played after it."""
    steps = []
    key = end
    while (link := parents[key]) is not None:
        key, src, dst = link
        steps.append((src, dst))
    lengths = list(model.start[0])
    waste = [list(pile) for pile in model.start[1]]
    turned, moves = _settle(lengths, waste, model.start[2], model.stock)
    for src, dst in reversed(steps):
        order = sorted(range(4), key=lambda i: bytes(waste[i]))
        if src < 0:
            card = model.stock[turned]
            turned += 1
            name = "w"
        else:
            card = waste[order[src]].pop()
            name = _WASTE[order[src]]
        if dst < 4:
            lengths[dst] += 1
            moves.append(f"{name}>{_FOUNDATIONS[dst]}")
        else:
            waste[order[dst - 4]].append(card)
            moves.append(f"{name}>{_WASTE[order[dst - 4]]}")
        turned, played = _settle(lengths, waste, turned, model.stock)
        moves += played
    return moves
