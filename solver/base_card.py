"""What the exact searches of Four Seasons and Chameleon share (solver/four_seasons.py,
solver/chameleon.py): a step model of the rules as plain ints, and one exact search.

Both games (rules text 003_08087bb95aa03446.txt, as engine/games/four_seasons.py and
engine/games/chameleon.py state them) have four foundations building up in suit round the corner
from a base rank (the rank of the card the deal plays to ``f0``; any empty foundation takes a
card of that rank), tableau piles building down round the corner whatever the suits, a space
taking any card, and a stock turned one card at a time onto the waste, once (no redeal). Four
Seasons has five tableau piles and moves one card at a time; Chameleon has four, a reserve ``r0``
whose top card fills a space at once (the engine does it after every move), and built runs move
between tableau piles as blocks of any length. Only the top card of the reserve, of a tableau
pile or of the waste plays to a foundation; no foundation card ever leaves it. Won with 52 cards
on the foundations. Cards are ints ``13 * suit + rank - 1``.

Step model. `BaseCard` plays the engine's moves on a plain `State` (reserve height, tableau
piles, foundation piles, waste, stock); `BaseCard.legal` and `BaseCard.play` are the engine's,
move for move (the tests compare them over many deals and random lines of play).

The search works on a smaller state: the reserve height, the tableau piles, the talon (the waste
and stock at the position read, in the order the cards come up) less the cards played from it (a
bit mask), and ``d``, the talon cards dealt. With no redeal the waste is a stack: it holds the
talon cards left below ``d``, in order, and the stock those from ``d`` on (all still there). A
talon card is reached by dealing: the waste top now, or any stock card after the deals that put
it on top. ``d`` is written as one past the waste top (talon cards played between change
nothing), and foundation heights follow from the cards left elsewhere. One step of the search
plays one card or block (reserve top, tableau top or run, a talon card after its deals) to a
foundation, onto a tableau card or into a space (one space stands for all: they are alike).
Positions are kept in a table: reserve height, talon mask and tableau piles sorted (their places
matter only for naming moves), as bytes, with the fewest talon cards dealt they were searched
with. A position with the same cards and as many or more dealt is not searched again: from the
one with fewer dealt, dealing up to the same count reaches it (the stock order is fixed), so that
search covered all this one can do. Every reachable position is thus searched or covered; a
depth-first search with such a table visits every position that a searched one reaches, so the
search is exhaustive.

Pruning, and why it is sound. A card ``c`` that plays to its foundation is played alone (no other
step is tried there) when every card that could be built on it (one rank lower, any suit; for a
base card the last cards of all suits) is on the foundations already, and it is the reserve top,
a tableau top, the waste top, or the next stock card (one deal). Proof: take any line ``L`` from
the position where ``c`` stays. Nothing can ever be put on ``c``, so it stays a top card (in a
pile, in a block's top place, on the waste, in the stock) until ``L`` plays it to its foundation
or moves it. Play ``c`` now, then follow ``L`` skipping ``c``'s own moves: each pile holds what
it holds in ``L`` less ``c``. A block moved in ``L`` with ``c`` on top moves without it (the rest
is still a built run with the same bottom card); a pile ``c`` would occupy is empty instead (an
empty pile is only ever used, never needed: with a reserve the engine fills it from the reserve
one step earlier, and where ``L`` plays that reserve card the new line plays it from the pile it
filled, a single card, and where ``L`` fills a space from the reserve the new line has that card
there already and one more space). The waste shows the same top whenever ``L``'s top is not
``c``, and when it is, ``L``'s only waste move is ``c``'s own. The next stock card taken now
leaves every later deal as it was. So the new line reaches at least ``L``'s foundations.
Moving a tableau pile whole into a space is not tried (the same position, piles renamed).

Order and stack. Steps are tried fewest deals first, foundation steps before others, the
reserve before the rest: it finds most won deals' wins at once. No bound on the cards a position
can still clear is used (every pile is a built run, and runs and single cards move freely, so the
piles fix no order in which cards must reach the foundations), so a lost deal must be searched
whole. Many deals left unknown at 10 s are wins found later (Four Seasons and Chameleon deal
1001 both within 22 s, after some 1.2 million and 430,000 positions kept). Blocks moved to and
fro make deep lines: the stack (one level a step, the level's lists of talon cards and runs
freed before the levels below are searched) is counted in the memory budget, and the clock is
read as if the stack were unwound already.

Why it is exact. Every step is the engine's moves grouped (the deals before a talon card, one
step), every position the rules reach is searched or covered by one searched (same cards in the
same piles up to their order, fewer talon cards dealt), less what the safe steps drop, which is
dominated. So a search that ends without a win proves the deal lost, and the most foundation
cards in any position searched is the most that can be cleared. A win comes back as the engine's
moves (deals written out), which the engine replays to ``won``. Budgets apply as in
`solver.search`: ``nodes`` (steps tried), ``seconds``, ``positions`` and ``memory_mb``
(positions kept times a measured size); a search cut short says unknown, and its best clear is
then a lower bound.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

from engine.cards import Card
from engine.core import Game, Move
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["BaseCard", "State", "search"]

#: (reserve height, tableau piles bottom to top, foundation piles f0..f3 bottom to top, waste
#: bottom to top, stock in dealing order: next card first); cards as ``13 * suit + rank - 1``
State = tuple[int, tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]

_DEAL = "deal"
#: bytes a kept position costs on average (its key, its value and its share of the table, with
#: the search stack), measured with tracemalloc; rounded up
_ENTRY_BYTES = 200
#: bytes one level of the search's stack costs (its frame, its list of steps, its path entry),
#: measured as the process's peak resident memory on Chameleon deals 1002 to 1004; rounded up
_FRAME_BYTES = 2700
_CHECK_EVERY = 256
#: seconds one level of the search's stack takes to unwind when a budget ends it (measured)
_UNWIND_SECONDS = 6e-5
#: the target of a search step: a foundation, or a space
_TO_FOUNDATION = -1
_TO_SPACE = -2


def code(card: Card) -> int:
    """The int of ``card``: ``13 * suit + rank - 1`` (0..51)."""
    return 13 * int(card.suit) + int(card.rank) - 1


def _rank(c: int) -> int:
    return c % 13 + 1


def _on_tableau(top: int, c: int) -> bool:
    """Whether card ``c`` may go on tableau card ``top``: one rank lower round the corner, any suit."""
    return _rank(c) == (_rank(top) - 2) % 13 + 1


def _run(cards: tuple[int, ...]) -> int:
    """How many cards on top of ``cards`` form a built run (0 for none)."""
    n = 1 if cards else 0
    while n < len(cards) and _on_tableau(cards[-n - 1], cards[-n]):
        n += 1
    return n


@dataclass(frozen=True, slots=True)
class BaseCard:
    """One position's cards as ints, from which every later position follows.

    ``key``: the game; ``piles``: tableau piles; ``blocks``: built runs move as blocks;
    ``reserve``: the reserve's cards bottom to top (empty for a game with none); ``base``: the
    foundations' base rank (1..13); ``start``: the `State` of the position read; ``total``: 52.
    """

    key: str
    piles: int
    blocks: bool
    has_reserve: bool
    reserve: tuple[int, ...]
    base: int
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game, piles: int, blocks: bool, has_reserve: bool) -> BaseCard:
        """The model of ``game`` (at any position). Raises ValueError for a position whose
        foundations are all empty (no base rank)."""
        base = game.base_rank()  # type: ignore[attr-defined]
        if base is None:
            raise ValueError(f"a {game.key} position with no foundation card has no base rank")
        reserve = tuple(code(c) for c in game.piles["r0"].cards) if has_reserve else ()
        return cls(game.key, piles, blocks, has_reserve, reserve, int(base), cls.read(game, piles), game.total)

    @staticmethod
    def read(game: Game, piles: int) -> State:
        """The `State` of ``game`` with ``piles`` tableau piles."""
        p = game.piles
        return (
            len(p["r0"].cards) if "r0" in p else 0,
            tuple(tuple(code(c) for c in p[f"t{i}"].cards) for i in range(piles)),
            tuple(tuple(code(c) for c in p[f"f{i}"].cards) for i in range(4)),
            tuple(code(c) for c in p["w"].cards),
            tuple(code(c) for c in reversed(p["s"].cards)),
        )

    def state_of(self, game: Game) -> State:
        """The `State` of ``game`` (for tests: the engine's positions against the model's)."""
        return self.read(game, self.piles)

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(len(f) for f in state[2])

    def _on_foundation(self, found: tuple[int, ...], c: int) -> bool:
        if not found:
            return _rank(c) == self.base
        top = found[-1]
        return top // 13 == c // 13 and _rank(c) == _rank(top) % 13 + 1

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order (sources r0, t0...,
        w; for each, destinations in layout order, fewest cards first; then deal)."""
        k, tab, fnd, waste, stock = state
        first_t = 5 if self.has_reserve else 4  # t0's place in the layout
        moves: list[str] = []
        sources: list[tuple[str, tuple[int, ...], bool]] = []
        if k:
            sources.append(("r0", (self.reserve[k - 1],), False))
        for i in range(self.piles):
            if tab[i]:
                sources.append((f"t{i}", tab[i], True))
        if waste:
            sources.append(("w", (waste[-1],), False))
        for sid, cards, is_tab in sources:
            found: list[tuple[int, int, str]] = []
            for j in range(4):
                if self._on_foundation(fnd[j], cards[-1]):
                    found.append((j, 1, str(Move.transfer(sid, f"f{j}", 1))))
            counts = range(1, _run(cards) + 1) if is_tab and self.blocks else (1,)
            for count in counts:
                bottom = cards[-count]
                for j in range(self.piles):
                    dst = f"t{j}"
                    if dst != sid and ((not tab[j]) or _on_tableau(tab[j][-1], bottom)):
                        found.append((first_t + j, count, str(Move.transfer(sid, dst, count))))
            found.sort()
            moves += [m for _, _, m in found]
        if stock:
            moves.append(_DEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s), with spaces filled from the reserve."""
        k, tab, fnd, waste, stock = state
        tabl = list(tab)
        fndl = list(fnd)
        if move == _DEAL:
            waste, stock = waste + stock[:1], stock[1:]
        else:
            parsed = Move.parse(move)
            src, dst, count = parsed.src, parsed.dst, parsed.count
            if src == "r0":
                cards: tuple[int, ...] = (self.reserve[k - 1],)
                k -= 1
            elif src == "w":
                cards, waste = waste[-1:], waste[:-1]
            else:
                i = int(src[1:])
                cards, tabl[i] = tabl[i][-count:], tabl[i][:-count]
            if dst[0] == "f":
                fndl[int(dst[1:])] += cards
            else:
                tabl[int(dst[1:])] += cards
        for i in range(self.piles):
            if not tabl[i] and k:
                tabl[i] = (self.reserve[k - 1],)
                k -= 1
        return k, tuple(tabl), tuple(fndl), waste, stock


def search(game: Game, model: BaseCard, budget: Budget) -> Verdict:
    """Decide ``game`` from its current position (not changed) with ``model`` read from it (see
    the module docstring). Returns a `Verdict`: won with a solution in the engine's notation,
    lost (proved) with the most cards that can be cleared, or unknown when a budget ran out
    (``nodes``: steps tried, a step being one card or block played with the deals before it;
    ``positions``: positions kept; ``memory_mb``: those positions times a measured size)."""
    began = time.monotonic()
    deadline = began + budget.seconds
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    k0, tab0, fnd0, waste0, stock0 = model.start
    reserve, base, npiles, blocks = model.reserve, model.base, model.piles, model.blocks
    talon = waste0 + stock0
    n_talon = len(talon)
    heights0 = [0, 0, 0, 0]
    for f in fnd0:
        if f:
            heights0[f[0] // 13] = len(f)
    rank = [_rank(c) for c in range(52)]
    wanted = [[13 * s + (base - 1 + h) % 13 if h < 13 else -1 for h in range(14)] for s in range(4)]
    fits = [[rank[c] == (rank[t] - 2) % 13 + 1 for c in range(52)] for t in range(52)]
    # the height every suit needs before nothing can be built on c
    need = [((rank[c] - base) % 13) or 13 for c in range(52)]

    seen: dict[bytes, int] = {}
    kept = 0
    path: list[tuple[int, int]] = []  # (card or block's bottom card, target card or _TO_*)
    nodes = 0
    depth = 0  # the search's own stack: a line of play may move blocks to and fro at length
    best = sum(heights0)
    budget_nodes = budget.nodes
    full = (1 << n_talon) - 1

    def check() -> None:
        # (the clock is read as if the stack were unwound already: that takes a while when deep)
        now = time.monotonic() + depth * _UNWIND_SECONDS
        reason = budget.spent(nodes, kept, now, deadline, len(seen) * _ENTRY_BYTES + depth * _FRAME_BYTES)
        if reason:
            raise Spent(reason)

    def run_of(pile: tuple[int, ...]) -> int:
        n = 1
        while n < len(pile) and fits[pile[-n - 1]][pile[-n]]:
            n += 1
        return n

    def dfs(k: int, tab: list[tuple[int, ...]], heights: list[int], mask: int, d: int) -> bool:
        nonlocal nodes, best, kept, depth
        cleared = heights[0] + heights[1] + heights[2] + heights[3]
        if cleared > best:
            best = cleared
            if cleared == 52:
                return True
        below = mask & ((1 << d) - 1)
        d = below.bit_length()  # one past the waste top
        key = bytes((k,)) + mask.to_bytes(7, "little") + b"\xff".join(sorted(map(bytes, tab)))
        known = seen.get(key)
        if known is not None and known <= d:
            return False
        seen[key] = d
        kept += 1
        h0, h1, h2, h3 = heights
        low = min(heights)
        nxt = (wanted[0][h0], wanted[1][h1], wanted[2][h2], wanted[3][h3])
        rtop = reserve[k - 1] if k else -1
        tops = [p[-1] if p else -1 for p in tab]
        wtop = d - 1 if d else -1  # talon index of the waste top
        # (source kind, where, card, target): kind 0 reserve top, 1 tableau (where: pile, card:
        # the block's bottom), 2 talon (where: talon index)
        steps: list[tuple[int, int, int, int]] = []
        # a safe foundation step, played alone (see the module docstring)
        if k and nxt[rtop // 13] == rtop and low >= need[rtop]:
            steps.append((0, 0, rtop, _TO_FOUNDATION))
        else:
            for i in range(npiles):
                c = tops[i]
                if c >= 0 and nxt[c // 13] == c and low >= need[c]:
                    steps.append((1, i, c, _TO_FOUNDATION))
                    break
            else:
                nxt_stock = (mask >> d & -(mask >> d)).bit_length() - 1 + d if mask >> d else -1
                for p in (wtop, nxt_stock):
                    if p >= 0:
                        c = talon[p]
                        if nxt[c // 13] == c and low >= need[c]:
                            steps.append((2, p, c, _TO_FOUNDATION))
                            break
        if not steps:
            cards = [(p, talon[p]) for p in range(d, n_talon) if mask >> p & 1]
            if wtop >= 0:
                cards.insert(0, (wtop, talon[wtop]))
            if k and nxt[rtop // 13] == rtop:
                steps.append((0, 0, rtop, _TO_FOUNDATION))
            for i in range(npiles):
                c = tops[i]
                if c >= 0 and nxt[c // 13] == c:
                    steps.append((1, i, c, _TO_FOUNDATION))
            for p, c in cards:
                if nxt[c // 13] == c:
                    steps.append((2, p, c, _TO_FOUNDATION))
            runs = [run_of(p) if p else 0 for p in tab] if blocks else [1 if p else 0 for p in tab]
            for j in range(npiles):
                t = tops[j]
                if t < 0:
                    continue
                onto = fits[t]
                for i in range(npiles):
                    if i != j and tab[i]:
                        pile = tab[i]
                        for n in range(1, runs[i] + 1):
                            if onto[pile[-n]]:
                                steps.append((1, i, pile[-n], t))
                if k and onto[rtop]:
                    steps.append((0, 0, rtop, t))
                for p, c in cards:
                    if onto[c]:
                        steps.append((2, p, c, t))
            if k == 0 and -1 in tops:
                for i in range(npiles):
                    pile = tab[i]
                    for n in range(1, min(runs[i], len(pile) - 1) + 1):
                        steps.append((1, i, pile[-n], _TO_SPACE))
                for p, c in cards:
                    steps.append((2, p, c, _TO_SPACE))
            # fewest deals first, foundation steps before others, the reserve before the rest
            steps.sort(
                key=lambda step: (
                    step[1] - d + 1 if step[0] == 2 and step[1] >= d else 0,
                    step[3] != _TO_FOUNDATION,
                    step[0] != 0,
                )
            )
            del cards, runs  # (the stack keeps what a level holds while it is searched below)
        for kind, where, c, target in steps:
            nodes += 1
            if not nodes % _CHECK_EVERY or nodes >= budget_nodes:
                check()
            nk, nmask, nd = k, mask, d
            ntab = list(tab)
            nheights = heights
            if kind == 0:
                nk = k - 1
                moved: tuple[int, ...] = (c,)
            elif kind == 1:
                pile = tab[where]
                cut = len(pile) - 1 - pile[::-1].index(c)
                moved = pile[cut:]
                ntab[where] = pile[:cut]
            else:
                nmask = mask & ~(1 << where)
                nd = where + 1
                moved = (c,)
            if target == _TO_FOUNDATION:
                nheights = heights.copy()
                nheights[c // 13] += 1
            elif target == _TO_SPACE:
                ntab[tops.index(-1)] = moved
            else:
                j = tops.index(target)
                ntab[j] = ntab[j] + moved
            if nk:
                for i in range(npiles):
                    if not ntab[i] and nk:
                        ntab[i] = (reserve[nk - 1],)
                        nk -= 1
            path.append((c, target))
            depth += 1
            if dfs(nk, ntab, nheights, nmask, nd):
                return True
            depth -= 1
            path.pop()
        return False

    limit = sys.getrecursionlimit()
    # (one level a step; the stack is counted in the memory budget, `_FRAME_BYTES` a level, so
    # the memory budget ends the search before the limit is reached)
    sys.setrecursionlimit(max(limit, 1_000_000))
    try:
        won = dfs(k0, list(tab0), heights0, full, len(waste0))
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            verdict.solution = _engine_moves(game, model, path)
        else:
            verdict.result = "lost"
    finally:
        sys.setrecursionlimit(limit)
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, kept, began)


def _engine_moves(game: Game, model: BaseCard, path: list[tuple[int, int]]) -> list[str]:
    """The search's steps (card, target) written out as the engine's moves, played on a copy of
    ``game`` to name the piles (deals written out before a talon card)."""
    replay = game.copy()
    piles = replay.piles
    tids = [f"t{i}" for i in range(model.piles)]
    out: list[str] = []

    def play(move: str) -> None:
        replay.apply(move)
        out.append(move)

    for c, target in path:
        src = None
        count = 1
        if model.has_reserve and piles["r0"].cards and code(piles["r0"].cards[-1]) == c:
            src = "r0"
        for tid in tids:
            codes = [code(x) for x in piles[tid].cards]
            if c in codes:
                src, count = tid, len(codes) - codes.index(c)
        if src is None:  # a talon card: deal until it shows
            while not (piles["w"].cards and code(piles["w"].cards[-1]) == c):
                play(_DEAL)
            src = "w"
        if target == _TO_FOUNDATION:
            fids = [f"f{j}" for j in range(4)]
            dst = next((f for f in fids if piles[f].cards and code(piles[f].cards[0]) // 13 == c // 13), None)
            if dst is None:
                dst = next(f for f in fids if not piles[f].cards)
        elif target == _TO_SPACE:
            dst = next(tid for tid in tids if not piles[tid].cards)
        else:
            dst = next(tid for tid in tids if piles[tid].cards and code(piles[tid].cards[-1]) == target)
        play(str(Move.transfer(src, dst, count)))
    return out
