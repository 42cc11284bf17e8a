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

Stuck cards (`_stuck`): cards not up that no line from the position ever puts up. Found as a
fixpoint over a set S (empty at first): a waste card c goes into S when every foundation that
still takes c's rank takes, before it, some rank every copy of which (not up) is in S or lies
below c in c's pile; then every card below c in its pile goes into S too; and every copy of a
rank still to turn goes into S when every foundation that still takes the rank takes, before
it, a rank every copy of which is in S. Proof that no card of S ever goes up: else take the
first card of S that goes up, in some line. If it lies below a card of S in its pile, that
card went up before it (a waste card leaves only from the top): not first. Else it goes onto a
foundation that takes its rank, after that foundation took the rank before it that the rule
named; the copy that filled that place went up earlier, so it is not in S (first), and it did
not lie below the card (it left its pile first): but the rule found every copy in S or below
the card, so none is left. So from a position no line clears more than ``total - stuck``.

The search orders positions by a cost (`_cost`), least first: ``10 x blocking pairs - 10 x
cards cleared``, where a blocking pair is, as for `score`, two cards in one waste pile the upper
of which is needed later than the lower, but each card counts with its own copy's need
(`_copy_needs`): the foundations that still take a rank hold one place each for its copies not
up, and the copies on the waste piles take those places soonest first, the copy nearest its
pile's top first (the first pile first among equals). With the need of the rank alone, two
copies of which one is needed next and the other eight cards later would both look needed next,
and the search would bury the later one freely; on deals 1000 to 1049 at ``Budget()``, measured
alternately in one process, the per-copy need wins 48 deals, the rank's need 44.

The search has three phases. First best first (`_best_first`, for 5% of the budget's seconds):
the position of least cost is expanded next, the latest pushed first among equals; every legal move
is tried from every position kept (the turned card onto one waste pile of each kind of alike
piles), so if its frontier empties without a win it has seen every reachable position up to
the safe moves: the deal is lost, and the most cards up in any position seen is the most that
can be cleared. Then a beam search (`_beam`) in passes of growing width (32, then four times as
many each pass): for each number of stock cards turned it keeps the ``width`` positions of
least cost, each with every position its waste cards reach on the foundations, and the turned
card's every move from each; it leaves out, besides, every position with a stuck card, which
cannot win. It finds wins whose start looks poor, which best first reaches late. A pass that
left out nothing else saw every position from which a win could be reached: the deal cannot
be won. Then (third) the same passes again from width 32, leaving out instead the positions
with ``total - stuck`` at most the best clear so far (none of them clears more); a pass that
left out nothing else proves the deal lost with that best clear exact. A card placed on a
waste pile sets off no safe move (the position was settled and the card is not safe), so the
beam keeps such a child without settling it. A win comes back as moves in the engine's
notation (best first: each step of the sorted piles mapped onto the piles as they lie; the beam
keeps the piles as they lie), which the engine replays to ``won``.
tests/solver/test_calculation.py checks the model against the engine move for move, the
verdicts and best clears of every phase, and the stuck count, against a plain search of the
model's own moves.
Budgets: ``nodes`` counts moves tried, ``positions`` the most positions one phase's pass holds;
``memory_mb`` counts those (best first: about 300 bytes a key and 100 a frontier entry; the
beam: about 1,000 bytes a position with its line, as tracemalloc counts); the clock is read
every 256 positions expanded or moves tried, and every 64 positions the beam looks at for
stuck cards. The foundations' tables of `_copy_needs` (64 kept across searches, about 75 KB)
are outside the budget.

Cost, measured on deals 1000 to 1049 at ``Budget()`` (10 s a deal), one process under
``nice -n 5`` on this project's two-core machine while others worked too (load average 2.0 to
2.3): 49 won (98%), none proved lost, 1 unknown (1001); 0.8 s a deal on average, median 0.6 s,
45 MB peak resident memory. 1041 is won in 7 s, near the limit (on a busier machine it runs
out); 1001 is not decided within 60 s (43 cards cleared at best, no proof of a loss). Best
first's share of the seconds, 5%: at 15% the same deals are decided, in 1.3 s on average.
Reproduce by calling `solve_exact` on ``find_game("calculation")(seed)`` with ``Budget()``.
"""

from __future__ import annotations

import functools
import heapq
import time
from collections.abc import Callable, Sequence
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
#: The search's order (`_cost`): a position's cost is its blocking pairs (by each copy's own
#: need) less its cards cleared (10 and 10: blocking weights of 5, 15 or 20, or a credit for
#: empty piles, won none more of deals 1000 to 1049 at ``Budget()``)
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


#: ``_BEFORE[j][n][rank]``: the ranks foundation j takes, holding n cards, before ``rank``, as a
#: bit mask (bit q for rank q), or -1 when it no longer takes ``rank`` (index 0 unused).
_BEFORE = tuple(
    tuple(
        tuple(
            sum(1 << q for q in _SEQUENCES[j][n : _PLACE[j][rank]]) if rank and _PLACE[j][rank] >= n else -1
            for rank in range(14)
        )
        for n in range(14)
    )
    for j in range(4)
)


def _tails(stock: tuple[int, ...]) -> list[list[int]]:
    """For each number of cards turned (0 to all), how many copies of each rank (index 1 to 13)
    are still to turn."""
    tails = [[0] * 14]
    for rank in reversed(stock):
        counts = tails[-1][:]
        counts[rank] += 1
        tails.append(counts)
    return tails[::-1]


def _stuck(lengths: Sequence[int], waste: Sequence[Sequence[int]], later: list[int]) -> int:
    """How many cards not up can never go up from this position (see "Stuck cards" in the module
    docstring), with ``later`` the copies of each rank still to turn (`_tails`): a waste card
    stuck by the cards below it, every card under a stuck one, and every copy of a rank that no
    foundation can reach."""
    piles_of = [0] * 14
    free = later[:]  # copies not up and not known stuck, by rank
    for i in range(4):
        for rank in waste[i]:
            piles_of[rank] |= 1 << i
            free[rank] += 1
    # nothing is stuck unless some rank has every copy not up in one waste pile
    for rank in range(1, 14):
        if not later[rank] and piles_of[rank] in (1, 2, 4, 8):
            break
    else:
        return 0
    later = later[:]
    m0, m1, m2, m3 = (_BEFORE[j][lengths[j]] for j in range(4))
    base = [0, 0, 0, 0]  # pile i's cards below base[i] are stuck
    count = 0
    changed = True
    while changed:
        changed = False
        for i in range(4):
            pile = waste[i]
            low = base[i]
            if low == len(pile):
                continue
            below = [0] * 14  # copies in this pile from low up to the card looked at
            for rank in pile[low:]:
                below[rank] += 1
            # the ranks whose every copy not known stuck lies below the card looked at
            blocked = 0
            for rank in range(1, 14):
                if free[rank] <= below[rank]:
                    blocked |= 1 << rank
            for h in range(len(pile) - 1, low - 1, -1):
                rank = pile[h]
                below[rank] -= 1
                if free[rank] > below[rank]:
                    blocked &= ~(1 << rank)
                if (
                    (m0[rank] >= 0 and not m0[rank] & blocked)
                    or (m1[rank] >= 0 and not m1[rank] & blocked)
                    or (m2[rank] >= 0 and not m2[rank] & blocked)
                    or (m3[rank] >= 0 and not m3[rank] & blocked)
                ):
                    continue
                for lower in pile[low : h + 1]:
                    free[lower] -= 1
                count += h + 1 - low
                base[i] = h + 1
                changed = True
                break
        gone = 0  # ranks with no copy left that is not stuck
        for rank in range(1, 14):
            if free[rank] <= 0:
                gone |= 1 << rank
        if not gone:
            continue
        for rank in range(1, 14):
            if later[rank] and not (
                (m0[rank] >= 0 and not m0[rank] & gone)
                or (m1[rank] >= 0 and not m1[rank] & gone)
                or (m2[rank] >= 0 and not m2[rank] & gone)
                or (m3[rank] >= 0 and not m3[rank] & gone)
            ):
                free[rank] -= later[rank]
                count += later[rank]
                later[rank] = 0
                changed = True
    return count


def _key(lengths: list[int], waste: list[list[int]]) -> bytes:
    """A position's key: the foundations' lengths, then the waste piles sorted (0 between them)."""
    return bytes(lengths) + b"\0".join(sorted(bytes(pile) for pile in waste))


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
    hopeless = False  # proved: no line wins
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
        while result == "unknown" and not hopeless:
            line, hopeless = _beam(model, lengths0, waste0, turned0, width, budget, deadline, counter, True)
            if line is not None:
                result, solution = "won", moves0 + line
            width *= 4
        width = _FIRST_WIDTH
        while result == "unknown":
            _, complete = _beam(model, lengths0, waste0, turned0, width, budget, deadline, counter)
            if complete:
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
_BEST_FIRST_SHARE = 0.05
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
    win_only: bool = False,
) -> tuple[list[str] | None, bool]:
    """One pass of the beam search (see the module docstring): keep at most ``width`` positions
    of least cost for each number of stock cards turned, leaving out those with a stuck card
    when ``win_only``, else those whose cards not stuck are no more than the best clear so far.
    Returns (a winning line from the position given, or None; whether no position was left out
    but those). ``counter`` holds the moves tried, the most positions kept and the best clear,
    updated. Raises Spent when a budget runs out."""

    stock, total = model.stock, model.total
    if sum(lengths0) == total:
        return [], True
    n_stock = len(stock)
    seqs = _SEQUENCES
    tails = _tails(stock)
    layers: list[list[_Entry]] = [[(0, tuple(lengths0), tuple(tuple(p) for p in waste0), -1, ())]]
    complete = True
    kept = 1
    spread: list[_Entry] = []
    nxt: dict[bytes, _Entry] = {}

    def check(now: bool = False) -> None:
        """Raise Spent when a budget ran out (the clock read every 256 moves, or when ``now``)."""
        if counter[0] >= budget.nodes:
            raise Spent(f"node budget ({budget.nodes:,} moves) spent")
        if now or not counter[0] & 255:
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
                if dst >= 4:
                    # the position was settled and the card is not safe: nothing more goes up
                    pile = waste[dst - 4]
                    child = (*waste[: dst - 4], (*pile, card), *waste[dst - 3 :])
                    key = bytes(lengths) + b"\0".join(sorted(bytes(p) for p in child))
                    if key in nxt:
                        continue
                    nxt[key] = (_cost(lengths, child), lengths, child, origin, (*moves, f"w>{_WASTE[dst - 4]}"))
                    continue
                child_lengths = list(lengths)
                child_waste = [list(p) for p in waste]
                child_lengths[dst] += 1
                _, played = _settle(child_lengths, child_waste, n_stock, stock)
                key = _key(child_lengths, child_waste)
                if key in nxt:
                    continue
                up = sum(child_lengths)
                if up > counter[2]:
                    counter[2] = up
                entry = (
                    _cost(child_lengths, child_waste),
                    tuple(child_lengths),
                    tuple(tuple(p) for p in child_waste),
                    origin,
                    (*moves, f"w>{_FOUNDATIONS[dst]}", *played),
                )
                if up == total:
                    return _unwind(layers, entry), complete
                nxt[key] = entry
        bar = total - 1 if win_only else counter[2]
        chosen, whole = _select(list(nxt.values()), width, bar, tails[turned + 1], check)
        complete = complete and whole
        if not chosen:
            break
        layers.append(chosen)
        kept += len(chosen)
        counter[1] = max(counter[1], kept)
    return None, complete


def _select(
    entries: list[_Entry], width: int, bar: int, later: list[int], check: Callable[[bool], None]
) -> tuple[list[_Entry], bool]:
    """The beam's choice among ``entries`` (positions with the same cards turned, ``later`` the
    copies of each rank still to turn): those of least cost, at most ``width``, leaving out every
    position whose cards not stuck (`_stuck`) number ``bar`` or fewer, which can neither win nor
    clear more than ``bar`` cards. Returns (the positions kept, whether no other was left out but
    such). ``check(True)`` is called every 64 positions looked at (it raises Spent when a budget
    ran out)."""
    entries.sort(key=lambda e: e[0])
    kept: list[_Entry] = []
    for n, entry in enumerate(entries):
        if len(kept) == width:
            return kept, False
        if not n & 63:
            check(True)
        if _TOTAL - _stuck(entry[1], entry[2], later) > bar:
            kept.append(entry)
    return kept, True


#: Cards in the game (the engine's ``total``)
_TOTAL = 52

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
            heapq.heappush(frontier, (_cost(child_lengths, child_waste), -pushed, child))
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


def _cost(lengths: Sequence[int], waste: Sequence[Sequence[int]]) -> int:
    """The search's order (least first): ``_W_BLOCK`` per blocking pair of waste cards, by each
    copy's own need (`_copy_needs`), less ``_W_CLEAR`` per card cleared (see the module
    docstring)."""
    count = 0
    for pile in _copy_needs(lengths, waste):
        for k in range(1, len(pile)):
            mine = pile[k]
            for lower in pile[:k]:
                if lower < mine:
                    count += 1
    return _W_BLOCK * count - _W_CLEAR * sum(lengths)


def _copy_needs(lengths: Sequence[int], waste: Sequence[Sequence[int]]) -> list[list[int]]:
    """Each waste card's need, shaped as ``waste`` (bottom to top): the copies of a rank on the
    waste piles take the places the foundations still hold for that rank (`_distances`), the
    copy nearest a pile's top (the first pile first among equals) the soonest."""
    distances = _distances(tuple(lengths))
    used = [0] * 14
    result = [[_NEVER] * len(pile) for pile in waste]
    for depth in range(max(len(pile) for pile in waste)):
        for i in range(4):
            h = len(waste[i]) - 1 - depth
            if h < 0:
                continue
            rank = waste[i][h]
            places = distances[rank]
            k = used[rank]
            if k < len(places):
                result[i][h] = places[k]
            used[rank] = k + 1
    return result


#: (about 1.2 KB an entry kept, as tracemalloc counts: 75 KB at most, outside the budget)
@functools.lru_cache(maxsize=64)
def _distances(lengths: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """For each rank (index 1 to 13), how many cards each foundation that still takes it takes
    before it, fewest first, with the foundations' ``lengths`` (one entry a copy not up)."""
    found: list[list[int]] = [[] for _ in range(14)]
    for j in range(4):
        n = lengths[j]
        sequence = _SEQUENCES[j]
        for k in range(n, 13):
            found[sequence[k]].append(k - n)
    return tuple(tuple(sorted(places)) for places in found)


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
