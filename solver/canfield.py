"""An exact search for Canfield (historical: whole tableau piles move), all cards known.

Rules: 003_08087bb95aa03446.txt ("Canfield"), as engine/games/canfield.py states them: a reserve
``r0`` (only its top card plays), four tableau piles ``t0`` to ``t3`` building down in alternate
colours round the corner (a red King on a black Ace), a pile moving to another tableau pile only
as a whole; a space is filled at once from the reserve top (the engine does it after every move),
and takes any card or whole pile once the reserve is empty; four foundations build up in suit
round the corner from the base rank (the rank of the card the deal plays to ``f0``); ``deal``
turns three stock cards onto the waste ``w``, ``redeal`` (stock empty) turns the waste back, as
often as wanted. Only the top card of a tableau pile, the reserve or the waste plays to a
foundation; no foundation card ever leaves it. Won with 52 cards on the foundations.

Step model. `Canfield` holds a position's cards as ints (``13 * suit + rank - 1``) and plays the
engine's moves on a plain `State` (reserve height, tableau piles, foundation piles, waste,
stock): `Canfield.legal` and `Canfield.play` are the engine's, move for move (the test
tests/solver/test_canfield.py compares them over many deals and random lines of play).

The search works on a smaller state: the reserve height, the tableau piles, and the talon (stock
and waste) as one cyclic sequence. Deals and redeals never change the order in which the talon's
cards come up (a redeal turns the waste over, so its bottom card is dealt first), so the talon is
the talon's cards at the position read, in that order, less those played (a bit mask), with the
number of them now on the waste (``w``). From ``w`` of ``n`` cards the waste can show the card at
``w`` (the top now), ``w + 3``, ``w + 6``... up to ``n`` and, after a redeal, ``3``, ``6``... up
to ``n``. One step of the search plays one card (reserve top, tableau top, a whole tableau pile,
or a talon card, after the deals and redeals that bring it to the top of the waste) to a
foundation, onto a tableau card or into a space. Foundation heights follow from the cards left
elsewhere. Positions searched are kept in a table: the reserve height, the talon mask and the
tableau piles sorted (their places matter only for naming moves), as bytes, with the waste counts
they were searched with. ``w`` is written as 0 whenever the waste counts reachable from it are
those reachable from 0 (``w`` a multiple of three, or ``n``): such positions reach each other by
deals and redeals alone, so they can do the same things. A position is not searched again when
the same cards were searched with a waste count from which deals reach its own (its count less a
multiple of three, or any count when its own is written as 0): that search covered everything
this one can do (no line of play comes back to the same cards, so the covering search is never
still under way).

Pruning, and why it is sound. A card ``c`` that plays to its foundation is played alone (no other
move is tried from that position) when every card that could ever be built on it (one rank lower,
the other colour; for a card of the base rank, the other colour's last cards) is on the foundations
already, and it comes from the reserve top, a tableau top, the last card of the talon (the one dealt
last; deals always reach it), or, with at most three talon cards left, the top the waste shows now.
Proof: take any line of play ``L`` from the position where ``c`` stays. Nothing can ever be put on
``c`` (its lower neighbours never leave the foundations), so in ``L`` it sits on top of its pile, or
alone in one, until it is played to the foundation or moved onto a tableau card where it again only
covers. Play ``c`` now, then follow ``L``, skipping ``c``'s own moves: every other move stays legal,
because in the new line every pile holds the same cards less ``c``, except that the space ``c``
leaves (or its reserve place) is filled from the reserve one step earlier, so where ``L`` plays the
reserve top the new line plays the same card from that tableau pile (a single card alone in its
pile: the same move as a whole pile), and where ``L`` fills a space from the reserve, the new line
has that card in a pile already and the space is empty (an empty pile can only be used, never
needed). The talon is unchanged when ``c`` is not a talon card: its cards and their order do not
depend on ``c``. When ``c`` is the talon's last card it stays last in ``L`` until ``L`` takes it
(taking other cards never moves a card behind it), and the new line's talon is ``L``'s less that
last card, with waste count ``min(w, n - 1)`` for ``L``'s ``w`` of ``n``: the positions the waste
can show, ``w``, ``w + 3``... and ``3``, ``6``... capped at the talon's length, are then ``L``'s
less the last one, plus perhaps ``n - 1``, so every talon card ``L`` takes the new line can take,
and after it the same relation holds (both waste counts become the taken card's place less one).
With at most three talon cards the same holds for the waste top: taking it leaves the others in one
deal, in order, the last showing at once, and the last is the only card besides ``c`` that ``L`` can
show before it takes one. With more, taking a card other than the last would regroup every later
deal, which is why those are not played alone. So the new line reaches at least the foundations
``L`` reaches. A whole pile moved onto an empty pile is not tried: it gives the same position with
the piles renamed.

Bound (`solver.whole_piles.cycle_bound`). A tableau pile keeps its order for good: its cards leave
one at a time from the top to a foundation, or all together onto another pile, so a card above
another in a pile reaches the foundations before it; and each suit's cards reach them in order. Of
these "before" relations (the current piles' and the suits'), a card on a cycle, or after one,
never reaches the foundations. So the foundation cards now plus the cards on no cycle and after
none (a topological sort) bound the cards any later position can hold there. A position whose bound
is no more than the most cards already cleared in a searched position is not searched further: it
can neither win nor clear more. (The reserve's order gives no such relation: a reserve card can
leave it for a space the engine fills.) The bound depends on the tableau alone, so it is worked out
once for each tableau (piles sorted) and kept.

Why it is exact. The search's steps are the engine's moves grouped (the deals and redeals before
a talon card, one step) and every position the rules reach from the start is reached by the
search or matched by one it searched (same cards in the same piles up to their order, talon
counts reaching each other), less what the pruning above drops, which is dominated, and less
positions whose bound shows they can neither win nor clear more than a searched one. So a search
that ends without a win proves the deal lost, and the most foundation cards in any position
searched is the most that can be cleared. A win comes back as the engine's moves (deals and
redeals written out), which the engine replays to ``won`` (the tests replay every one). Budgets
apply as in `solver.search`: ``nodes`` (steps tried), ``seconds``, ``positions`` and
``memory_mb`` (positions and tableau bounds kept, times a measured size); a search cut short says unknown, and its
best clear is then a lower bound.

Cost, measured on deals 0 to 99 with a 10 s budget a deal (one process, ``nice -n 5``, on the
project's two-core machine while other work kept its load average between 2.5 and 5.5): 92 decided
(69 won, 23 lost), 8 unknown (seeds 5, 20, 22, 47, 51, 57, 64, 85; best clears 12 to 35 cards);
1.1 to 1.2 s a deal on average, 0.02 s median, the 10 s budget at most; 56,000 positions kept on
average (35,000 to 50,000 a second on the hard deals); about 100 bytes a kept position
under tracemalloc, 90 MB peak resident memory for one 10 s deal and 330 MB for the whole 100-deal
run. Lost deals are the hard ones: a lost deal must be searched whole. Reproduce with
``arena solve canfield --deals 100 --seconds 10 --jobs 1``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.core import Game, Move
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict
from solver.whole_piles import (
    TO_FOUNDATION,
    TO_SPACE,
    card_code,
    card_rank,
    cycle_bound,
    engine_moves,
    is_red,
    on_tableau,
)

__all__ = ["Canfield", "State", "solve_exact"]

#: (reserve height, tableau piles t0..t3 bottom to top, foundation piles f0..f3 bottom to top,
#: waste bottom to top, stock in dealing order: next card first); cards as ``13 * suit + rank - 1``
State = tuple[int, tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]

_DEAL = "deal"
_REDEAL = "redeal"
#: foundation and tableau piles' places in the engine's layout (f0..f3, r0, t0..t3, s, w)
_F_INDEX = (0, 1, 2, 3)
_T_INDEX = (5, 6, 7, 8)
#: bytes a kept position costs on average (its key and its share of the table), measured with
#: tracemalloc on deal 5 (about 190 with the search stack; rounded up); also counted for each
#: tableau bound kept (a shorter key: an over-count)
_ENTRY_BYTES = 200
_CHECK_EVERY = 1024


@dataclass(frozen=True, slots=True)
class Canfield:
    """One Canfield position's cards as ints, from which every later position follows.

    ``reserve``: the reserve's cards bottom to top; ``base``: the foundations' base rank (1..13);
    ``start``: the `State` of the position read; ``total``: cards to clear (52).
    """

    reserve: tuple[int, ...]
    base: int
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Canfield:
        """The model of ``game`` (a Canfield `Game` at any position). Raises ValueError for
        another game, or a position whose foundations are all empty (no base rank)."""
        if game.key != "canfield":
            raise ValueError(f"not a canfield game: {game.key!r}")
        base = game.base_rank()  # type: ignore[attr-defined]
        if base is None:
            raise ValueError("a canfield position with no foundation card has no base rank")
        piles = game.piles
        reserve = tuple(card_code(c) for c in piles["r0"].cards)
        start: State = (
            len(reserve),
            tuple(tuple(card_code(c) for c in piles[f"t{i}"].cards) for i in range(4)),
            tuple(tuple(card_code(c) for c in piles[f"f{i}"].cards) for i in range(4)),
            tuple(card_code(c) for c in piles["w"].cards),
            tuple(card_code(c) for c in reversed(piles["s"].cards)),
        )
        return cls(reserve, int(base), start, game.total)

    @staticmethod
    def state_of(game: Game) -> State:
        """The `State` of ``game`` (for tests: the engine's positions against the model's)."""
        piles = game.piles
        return (
            len(piles["r0"].cards),
            tuple(tuple(card_code(c) for c in piles[f"t{i}"].cards) for i in range(4)),
            tuple(tuple(card_code(c) for c in piles[f"f{i}"].cards) for i in range(4)),
            tuple(card_code(c) for c in piles["w"].cards),
            tuple(card_code(c) for c in reversed(piles["s"].cards)),
        )

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(len(f) for f in state[2])

    def _on_foundation(self, found: tuple[int, ...], c: int) -> bool:
        if not found:
            return card_rank(c) == self.base
        top = found[-1]
        return top // 13 == c // 13 and card_rank(c) == card_rank(top) % 13 + 1

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order (sources r0, t0..t3,
        w; for each, destinations in layout order, fewest cards first; then deal, redeal)."""
        k, tab, fnd, waste, stock = state
        moves: list[str] = []
        sources: list[tuple[str, tuple[int, ...], bool]] = []
        if k:
            sources.append(("r0", (self.reserve[k - 1],), False))
        for i in range(4):
            if tab[i]:
                sources.append((f"t{i}", tab[i], True))
        if waste:
            sources.append(("w", (waste[-1],), False))
        for sid, cards, is_tab in sources:
            found: list[tuple[int, int, str]] = []
            top = cards[-1]
            for j in range(4):
                if self._on_foundation(fnd[j], top):
                    found.append((_F_INDEX[j], 1, str(Move.transfer(sid, f"f{j}", 1))))
            count = len(cards) if is_tab else 1
            if is_tab and any(not on_tableau(a, b) for a, b in zip(cards, cards[1:])):
                count = 0  # (not a built run: it cannot move as a whole)
            if count:
                bottom = cards[-count]
                for j in range(4):
                    dst = f"t{j}"
                    if dst == sid:
                        continue
                    if (not tab[j]) or on_tableau(tab[j][-1], bottom):
                        found.append((_T_INDEX[j], count, str(Move.transfer(sid, dst, count))))
            found.sort()
            moves += [m for _, _, m in found]
        if stock:
            moves.append(_DEAL)
        elif waste:
            moves.append(_REDEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s), with the spaces filled from the reserve."""
        k, tab, fnd, waste, stock = state
        tabl = list(tab)
        fndl = list(fnd)
        if move == _DEAL:
            waste, stock = waste + stock[:3], stock[3:]
        elif move == _REDEAL:
            waste, stock = (), waste
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
        for i in range(4):
            if not tabl[i] and k:
                tabl[i] = (self.reserve[k - 1],)
                k -= 1
        return k, tuple(tabl), tuple(fndl), waste, stock


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Canfield, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when a
    budget ran out (``nodes``: search steps tried, a step being one card played with the deals
    before it; ``positions``: positions kept; ``memory_mb``: the bytes of those positions and
    of the tableau bounds kept, counted as entries times a measured size)."""
    began = time.monotonic()
    deadline = began + budget.seconds
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Canfield.from_game(game)
    k0, tab0, fnd0, waste0, stock0 = model.start
    reserve, base = model.reserve, model.base
    talon = waste0 + stock0
    n_talon = len(talon)
    heights0 = [0, 0, 0, 0]
    for f in fnd0:
        if f:
            heights0[f[0] // 13] = len(f)
    red = [is_red(c) for c in range(52)]
    rank = [card_rank(c) for c in range(52)]
    # the card each suit's foundation takes next, by height (None once complete)
    wanted = [[13 * s + (base - 1 + h) % 13 if h < 13 else -1 for h in range(14)] for s in range(4)]
    # fits[top][c]: c goes on tableau card top
    fits = [[red[t] != red[c] and rank[c] == (rank[t] - 2) % 13 + 1 for c in range(52)] for t in range(52)]
    # the height both other-colour suits need before nothing can be built on c
    need = [((rank[c] - base) % 13) or 13 for c in range(52)]
    others = [(0, 3) if red[c] else (1, 2) for c in range(52)]
    # step[c]: 4096 times c's place in its suit's order on the foundation (0 for the base card)
    step = [4096 * ((rank[c] - base) % 13) for c in range(52)]

    # the positions searched: their cards (reserve height, talon mask, sorted piles) -> the
    # waste counts they were searched with (bit ``w``; bit 0 for the class of 0)
    seen: dict[bytes, int] = {}
    # the bound of each tableau searched (sorted piles; it depends on nothing else)
    bounds: dict[bytes, int] = {}
    # dominated[w]: the waste counts (bits) whose search covers one with ``w``: the same count
    # less a multiple of three (from those the waste reaches ``w`` by deals)
    dominated = [sum(1 << x for x in range(w, 0, -3)) if w else -1 for w in range(n_talon + 1)]
    kept = 0
    path: list[tuple[int, int]] = []  # (card, target card or TO_FOUNDATION / TO_SPACE)
    nodes = 0
    best = sum(heights0)
    budget_nodes = budget.nodes

    def check() -> None:
        reason = budget.spent(nodes, kept, time.monotonic(), deadline, (len(seen) + len(bounds)) * _ENTRY_BYTES)
        if reason:
            raise Spent(reason)

    def safe(c: int, heights: list[int]) -> bool:
        a, b = others[c]
        return heights[a] >= need[c] and heights[b] >= need[c]

    reach_cache: dict[tuple[int, int], list[int]] = {}

    def reach(n: int, wc: int) -> list[int]:
        """The waste counts reachable from ``wc`` (0: the class of 0) of ``n`` talon cards."""
        counts = reach_cache.get((n, wc))
        if counts is None:
            counts = []
            if wc:
                p = wc
                counts.append(p)
                while p < n:
                    p = min(p + 3, n)
                    counts.append(p)
            p = 0
            while p < n:
                p = min(p + 3, n)
                if p not in counts:
                    counts.append(p)
            reach_cache[n, wc] = counts
        return counts

    def search(k: int, tab: list[tuple[int, ...]], heights: list[int], seq: tuple[int, ...], mask: int, w: int) -> bool:
        nonlocal nodes, best, kept
        cleared = heights[0] + heights[1] + heights[2] + heights[3]
        if cleared > best:
            best = cleared
            if cleared == 52:
                return True
        n = len(seq)
        wc = 0 if (w % 3 == 0 or w == n) else w
        piles = b"\xff".join(sorted(map(bytes, tab)))
        key = bytes((k,)) + mask.to_bytes(5, "little") + piles
        bits = seen.get(key, 0)
        if bits & dominated[wc]:
            return False
        seen[key] = bits | 1 << wc
        kept += 1
        most = bounds.get(piles)
        if most is None:
            most = bounds[piles] = cycle_bound(tab, step)
        if most <= best:
            return False
        nxt = (wanted[0][heights[0]], wanted[1][heights[1]], wanted[2][heights[2]], wanted[3][heights[3]])
        rtop = reserve[k - 1] if k else -1
        tops = [p[-1] if p else -1 for p in tab]
        counts = reach(n, wc)
        steps: list[tuple[int, int, int, int]] = []  # (source kind, where, card, target)
        # a safe foundation move, played alone (see the module docstring)
        if k and nxt[rtop // 13] == rtop and safe(rtop, heights):
            steps.append((0, 0, rtop, TO_FOUNDATION))
        if not steps:
            for i in range(4):
                c = tops[i]
                if c >= 0 and nxt[c // 13] == c and safe(c, heights):
                    steps.append((1, i, c, TO_FOUNDATION))
                    break
        if not steps and n:
            p = w if wc and n <= 3 else n
            c = talon[seq[p - 1]]
            if nxt[c // 13] == c and safe(c, heights):
                steps.append((2, p, c, TO_FOUNDATION))
        if not steps:
            spaces = k == 0 and -1 in tops
            cards = [(p, talon[seq[p - 1]]) for p in counts]
            # foundation moves first
            if k and nxt[rtop // 13] == rtop:
                steps.append((0, 0, rtop, TO_FOUNDATION))
            for i in range(4):
                c = tops[i]
                if c >= 0 and nxt[c // 13] == c:
                    steps.append((1, i, c, TO_FOUNDATION))
            for p, c in cards:
                if nxt[c // 13] == c:
                    steps.append((2, p, c, TO_FOUNDATION))
            # whole piles, the reserve top and talon cards onto tableau cards
            for j in range(4):
                t = tops[j]
                if t < 0:
                    continue
                onto = fits[t]
                for i in range(4):
                    if i != j and tab[i] and onto[tab[i][0]]:
                        steps.append((1, i, tab[i][0], t))
                if k and onto[rtop]:
                    steps.append((0, 0, rtop, t))
                for p, c in cards:
                    if onto[c]:
                        steps.append((2, p, c, t))
            if spaces:
                for p, c in cards:
                    steps.append((2, p, c, TO_SPACE))
        for kind, where, c, target in steps:
            nodes += 1
            if not nodes % _CHECK_EVERY or nodes >= budget_nodes:
                check()
            nk, nseq, nmask, nw = k, seq, mask, w
            ntab = list(tab)
            nheights = heights
            if kind == 0:
                nk = k - 1
                moved: tuple[int, ...] = (c,)
            elif kind == 1:
                moved = tab[where] if target != TO_FOUNDATION else (c,)
                ntab[where] = tab[where][: len(tab[where]) - len(moved)]
            else:
                nseq = seq[: where - 1] + seq[where:]
                nmask = mask & ~(1 << seq[where - 1])
                nw = where - 1
                moved = (c,)
            if target == TO_FOUNDATION:
                nheights = heights.copy()
                nheights[c // 13] += 1
            elif target == TO_SPACE:
                ntab[tops.index(-1)] = moved
            else:
                j = tops.index(target)
                ntab[j] = ntab[j] + moved
            if nk:
                for i in range(4):
                    if not ntab[i] and nk:
                        ntab[i] = (reserve[nk - 1],)
                        nk -= 1
            path.append((c, target))
            if search(nk, ntab, nheights, nseq, nmask, nw):
                return True
            path.pop()
        return False

    # (one level of recursion a step: a line of play has at most about 150 steps, each taking a
    # card off the reserve or talon, to a foundation, or a pile onto another)
    try:
        won = search(k0, list(tab0), heights0, tuple(range(n_talon)), (1 << n_talon) - 1, len(waste0))
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            verdict.solution = engine_moves(game, path, ("r0",))
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, kept, began)
