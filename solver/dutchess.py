"""An exact search for Dutchess (four reserve fans, the base card chosen, whole piles move).

Rules: 003_08087bb95aa03446.txt ("Dutchess"), as engine/games/dutchess.py states them: four
reserve fans ``r0`` to ``r3`` (only a fan's top card plays, nothing goes on a fan), four tableau
piles ``t0`` to ``t3`` building down in alternate colours round the corner, a pile moving to
another tableau pile only as a whole; the first move puts a reserve top on a foundation and its
rank is the base; foundations build up in suit round the corner; while a reserve card is left, a
space must be filled from a fan top before anything else, and once the reserve is empty a space
takes any card; ``deal`` turns one stock card onto the waste ``w``, one ``redeal``. Won with 52
cards on the foundations.

Step model. `Dutchess` holds the fans' cards as ints (``13 * suit + rank - 1``) and plays the
engine's moves on a plain `State` (fan heights, tableau, foundations, waste, stock, redeals):
`Dutchess.legal` and `Dutchess.play` are the engine's, move for move, duties included
(tests/solver/test_dutchess.py compares them over many deals and random lines of play).

The search's state: fan heights, the tableau piles, the suits' foundation heights, and the talon
(stock and waste) as one sequence in dealing order (a redeal turns the waste over, so the order
never changes) less the cards taken (a bit mask), with ``w`` cards on the waste and the redeals
left. One step plays one card or pile (a fan top, a tableau top or whole pile, or any talon card
after the deals, and the redeal, that bring it to the top of the waste) to a foundation, onto a
tableau card or into a space. From ``w`` with a redeal left, a talon card at place ``p >= w`` is
taken in this pass (no redeal spent), one behind the waste top after the redeal. Positions
searched are kept by their cards (fan heights, talon mask, tableau piles sorted: their places
only name moves) with the least waste count searched with a redeal left and the least without:
a position is not searched again when its cards were searched with a redeal left (that search
reaches everything: it may redeal), or with as many redeals left and a waste count no greater
(deals reach this one's). No line of play comes back to the same cards (each step plays a card
to a foundation, takes one off a fan or the talon, or joins two piles; filling a space takes a
card off a fan or the talon), so a covering search is never still under way. A whole pile moved
into a space is not tried: the same position with piles renamed.

Pruning, and why it is sound. A card ``c`` that plays to its foundation while every card that
could be built on it (one rank lower, other colour) is on the foundations is played alone when
it is (a) a tableau top over other cards, or the last card of its pile once the reserve is empty,
(b) the waste top, or (c) the reserve's last card. Take any line ``L`` from the position where
``c`` stays: nothing is ever put on ``c``, so it stays on top of its pile (or on the waste, or a
fan) until it goes up or moves along. Play ``c`` now and follow ``L`` skipping ``c``'s moves:
piles hold the same cards less ``c``; no pile empties earlier while the reserve holds cards (in
(a) the cards under ``c`` leave only with or after it), so no duty to fill a space arises that
``L`` does not meet; a space ``c`` would have filled in ``L`` (only once the reserve is empty in
(a), (b) and (c)) is left empty, which takes nothing away. The talon in (b) is ``L``'s less its
waste top with one card fewer on the waste: every card ``L`` can show, the new line can show,
and taking one keeps that relation. So the new line reaches at least ``L``'s foundations. A fan
top with other reserve cards left is never played alone: ``L`` might fill a space with it, and
the duty to fill would then differ.

Bound (`solver.whole_piles.cycle_bound`, shared with Canfield): a tableau pile keeps its order
(cards leave its top one at a time to a foundation, or all together), and each suit goes up in
order; a card on a cycle of these "before" relations, or after one, never reaches the foundations,
so the foundation cards now plus the tableau cards on no cycle and after none (and every card off
the tableau) bound what any later position can hold. A position whose bound is no more than the
best clear so far is not searched further.

Phases. A won deal usually has many winning lines, and one exhaustive search in a fixed order
can spend all its time under one bad early choice, so two quick phases come first. Both take the
talon as the engine does: only the waste top plays, and a deal (or the redeal) is a step of its
own, so that a line does not jump deep into the talon past cards it may need. Best first (cards
cleared, less cards lying above one that goes up before them in the fans, tableau and waste;
then the most engine moves played), each base card's search in turn a thousand steps at a time,
until half the seconds or half the memory budget: a win found is the solution, and a search
that meets every position proves the deal lost (it drops only what the safe moves above drop).
Then, until 85% of the seconds, the exhaustive search below with each position's steps (the
foundation moves first, the rest in a random order, seeded: the same deal gives the same
search), started again with a quarter more steps each time it reaches its step limit; there a
position is known by its cards with its waste count and redeals (deals keep the cards), and one
search that ends is whole. Last, the exhaustive depth-first search in its fixed order with the
talon cards taken directly (the foundation moves first), each base card in turn when none is
chosen yet: ending without a win, it proves the deal lost, and its best clear is exact.

Why it is exact. The search's steps are the engine's moves grouped (deals and the redeal before
a talon card, one step) and every position the rules reach is reached or matched by one
searched, less what the pruning above drops (dominated) and positions whose bound shows they can
neither win nor clear more. Budgets apply as in `solver.search`: ``nodes`` (steps tried),
``seconds``, ``positions`` and ``memory_mb`` (positions and tableau bounds kept, times a
measured size); a search cut short says unknown, and its best clear is then a lower bound.

Cost, measured on deals 1000 to 1049 at `Budget()` (10 s a deal; one process, ``nice -n 5``,
on the project's two-core machine with a load average of 4.5 to 9 from other work): 48 decided,
all won, 2 unknown (1001 and 1029: time, best clears 34 and 28; most likely lost, and a lost deal
must be searched whole, four base cards times every talon card on every tableau top, far beyond
what 10 s reach); 0.68 s a deal on average, 0.09 s median, 10 s at most; 15,000 positions kept on
average (up to 295,000); about 300 bytes a position of the exhaustive search and 600 a best-first
one under tracemalloc. Reproduce with ``arena solve dutchess --deals 50 --seconds 10 --jobs 1``
(from deal 1000) once dutchess is in `solver.search.EXACT`.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Generator
from dataclasses import dataclass

from engine.core import Game, Move
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict
from solver.whole_piles import (
    DEAL_STEP,
    TO_FOUNDATION,
    TO_SPACE,
    card_code,
    card_rank,
    cycle_bound,
    engine_moves,
    is_red,
    on_tableau,
)

__all__ = ["Dutchess", "State", "solve_exact"]

#: (reserve fan heights r0..r3, tableau piles t0..t3 bottom to top, foundation piles f0..f3
#: bottom to top, waste bottom to top, stock in dealing order: next card first, redeals played);
#: cards as ``13 * suit + rank - 1``
State = tuple[
    tuple[int, ...],
    tuple[tuple[int, ...], ...],
    tuple[tuple[int, ...], ...],
    tuple[int, ...],
    tuple[int, ...],
    int,
]

_DEAL = "deal"
_REDEAL = "redeal"
#: redeals the rules allow
_REDEALS = 1
#: the piles' places in the engine's layout (f0..f3, r0..r3, t0..t3, s, w)
_F_INDEX = (0, 1, 2, 3)
_T_INDEX = (8, 9, 10, 11)
#: bytes a kept position costs on average (its key, its waste entry and its share of the table),
#: measured with tracemalloc (rounded up); also counted for each tableau bound kept (an over-count)
_ENTRY_BYTES = 300
#: bytes a position the best-first phase met costs (its key, its state and line on the frontier),
#: measured with tracemalloc (rounded up)
_MET_BYTES = 1000
_CHECK_EVERY = 1024
#: where a step's card comes from: a reserve fan, a tableau pile, the talon; or a deal (or the
#: redeal) alone, a step of the quick phases, whose target is DEAL_STEP
_FAN, _PILE, _TALON, _DEALT = 0, 1, 2, 3
#: "no waste count searched" in the table of positions (more than any talon holds)
_NONE = 63
#: the share of the seconds the best-first phase ends at, and the random restarts'
_BEST_FIRST_SHARE = 0.5
_RESTART_UNTIL = 0.85
#: the steps the first restart may try (each next one a quarter more)
_RESTART_STEPS = 2000


class _Restart(Exception):
    """A second-phase search reached its step limit."""


@dataclass(frozen=True, slots=True)
class Dutchess:
    """One Dutchess position's cards as ints, from which every later position follows.

    ``fans``: the four reserve fans' cards at the position read, bottom to top (a `State` holds
    only their heights); ``start``: the `State` of the position read; ``total``: cards to clear (52).
    """

    fans: tuple[tuple[int, ...], ...]
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Dutchess:
        """The model of ``game`` (a Dutchess `Game` at any position). Raises ValueError for another game."""
        if game.key != "dutchess":
            raise ValueError(f"not a dutchess game: {game.key!r}")
        fans = tuple(tuple(card_code(c) for c in game.piles[f"r{i}"].cards) for i in range(4))
        return cls(fans, cls.state_of(game), game.total)

    @staticmethod
    def state_of(game: Game) -> State:
        """The `State` of ``game`` (for tests: the engine's positions against the model's)."""
        piles = game.piles
        return (
            tuple(len(piles[f"r{i}"].cards) for i in range(4)),
            tuple(tuple(card_code(c) for c in piles[f"t{i}"].cards) for i in range(4)),
            tuple(tuple(card_code(c) for c in piles[f"f{i}"].cards) for i in range(4)),
            tuple(card_code(c) for c in piles["w"].cards),
            tuple(card_code(c) for c in reversed(piles["s"].cards)),
            int(game.redeals),  # type: ignore[attr-defined]
        )

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(len(f) for f in state[2])

    @staticmethod
    def base(state: State) -> int | None:
        """The base rank (1..13) of ``state``: the rank of a foundation's first card; None before the first."""
        for f in state[2]:
            if f:
                return card_rank(f[0])
        return None

    def _on_foundation(self, found: tuple[int, ...], c: int, base: int | None) -> bool:
        if not found:
            return base is None or card_rank(c) == base
        top = found[-1]
        return top // 13 == c // 13 and card_rank(c) == card_rank(top) % 13 + 1

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order (sources r0..r3,
        t0..t3, w; for each, destinations in layout order; then deal, redeal), with the rules'
        duties: the first move a reserve card to a foundation, and while a reserve card is left
        a space filled from a reserve before anything else."""
        heights, tab, fnd, waste, stock, redeals = state
        base = self.base(state)
        reserve_left = any(heights)
        must_fill = reserve_left and any(not p for p in tab)
        moves: list[str] = []
        sources: list[tuple[str, tuple[int, ...], bool]] = []
        for i in range(4):
            if heights[i]:
                sources.append((f"r{i}", (self.fans[i][heights[i] - 1],), False))
        for i in range(4):
            if tab[i]:
                sources.append((f"t{i}", tab[i], True))
        if waste:
            sources.append(("w", (waste[-1],), False))
        for sid, cards, is_tab in sources:
            if base is None and sid[0] != "r":
                continue
            found: list[tuple[int, int, str]] = []
            top = cards[-1]
            if not must_fill:
                for j in range(4):
                    if self._on_foundation(fnd[j], top, base):
                        found.append((_F_INDEX[j], 1, str(Move.transfer(sid, f"f{j}", 1))))
            if base is not None and (not must_fill or sid[0] == "r"):
                count = len(cards) if is_tab else 1
                bottom = cards[-count]
                for j in range(4):
                    dst = f"t{j}"
                    if dst == sid:
                        continue
                    if must_fill and tab[j]:
                        continue
                    if (not tab[j]) or on_tableau(tab[j][-1], bottom):
                        found.append((_T_INDEX[j], count, str(Move.transfer(sid, dst, count))))
            found.sort()
            moves += [m for _, _, m in found]
        if base is not None and not must_fill:
            if stock:
                moves.append(_DEAL)
            elif waste and redeals < _REDEALS:
                moves.append(_REDEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        heights, tab, fnd, waste, stock, redeals = state
        tabl = list(tab)
        fndl = list(fnd)
        if move == _DEAL:
            waste, stock = waste + stock[:1], stock[1:]
        elif move == _REDEAL:
            waste, stock, redeals = (), waste, redeals + 1
        else:
            parsed = Move.parse(move)
            src, dst, count = parsed.src, parsed.dst, parsed.count
            if src[0] == "r":
                i = int(src[1:])
                cards: tuple[int, ...] = (self.fans[i][heights[i] - 1],)
                hl = list(heights)
                hl[i] -= 1
                heights = tuple(hl)
            elif src == "w":
                cards, waste = waste[-1:], waste[:-1]
            else:
                i = int(src[1:])
                cards, tabl[i] = tabl[i][-count:], tabl[i][:-count]
            if dst[0] == "f":
                fndl[int(dst[1:])] += cards
            else:
                tabl[int(dst[1:])] += cards
        return heights, tuple(tabl), tuple(fndl), waste, stock, redeals


def solve_exact(game: Game, budget: Budget = Budget(), *, quick: bool = True) -> Verdict:
    """Decide ``game`` (Dutchess, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown when a
    budget ran out (``nodes``: search steps tried, a step being one card or pile moved with the
    deals and redeal before it; ``positions``: positions kept; ``memory_mb``: the bytes of those
    positions and of the tableau bounds kept, counted as entries times a measured size).
    ``quick``: the best-first and restart phases run before the exhaustive one (tests turn them
    off to hold the exhaustive search alone against a plain one). Raises ValueError for another
    game."""
    began = time.monotonic()
    deadline = began + budget.seconds
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Dutchess.from_game(game)
    heights0, tab0, fnd0, waste0, stock0, redeals0 = model.start
    fans = model.fans
    talon = waste0 + stock0
    n_talon = len(talon)
    red = [is_red(c) for c in range(52)]
    rank = [card_rank(c) for c in range(52)]
    fits = [[red[t] != red[c] and rank[c] == (rank[t] - 2) % 13 + 1 for c in range(52)] for t in range(52)]
    others = [(0, 3) if red[c] else (1, 2) for c in range(52)]
    # fan tops by height: top[i][h] (-1 when empty)
    fan_top = [[fans[i][h - 1] if h else -1 for h in range(len(fans[i]) + 1)] for i in range(4)]
    # the positions searched, per base rank: their cards (fan heights, talon mask, sorted piles)
    # -> the least waste count searched with a redeal left, times 64, plus the least without
    tables: list[dict[bytes, int]] = []
    # the best-first phase's positions met (each also held on its frontier, or expanded)
    met_tables: list[dict[bytes, None]] = []
    bound_tables: list[dict[bytes, int]] = []
    path: list[tuple[int, int]] = []  # (card, target card or TO_FOUNDATION / TO_SPACE)
    nodes = 0
    kept = 0
    best = model.cleared(model.start)
    budget_nodes = budget.nodes
    # the second phase's random order of steps, and the steps its current search may reach
    shuffle: random.Random | None = None
    granular = False
    limit = budget_nodes + 1

    def check() -> None:
        held = sum(len(t) for t in tables) + sum(len(t) for t in bound_tables)
        held_bytes = held * _ENTRY_BYTES + sum(len(t) for t in met_tables) * _MET_BYTES
        reason = budget.spent(nodes, kept, time.monotonic(), deadline, held_bytes)
        if reason:
            raise Spent(reason)

    def run(
        base: int,
        heights: list[int],
        tab: list[tuple[int, ...]],
        fheights: list[int],
        exhaustive: bool,
    ) -> bool | Generator[None, None, bool]:
        """Search every position reachable from this one with foundations built from ``base``:
        exhaustively, or (not ``exhaustive``) best first, as a generator that pauses now and
        then and returns whether it found a win (see `best_first`)."""
        seen: dict[bytes, int] = {}
        bounds: dict[bytes, int] = {}
        tables.append(seen)
        bound_tables.append(bounds)
        wanted = [[13 * s + (base - 1 + h) % 13 if h < 13 else -1 for h in range(14)] for s in range(4)]
        need = [((rank[c] - base) % 13) or 13 for c in range(52)]
        step = [4096 * ((rank[c] - base) % 13) for c in range(52)]
        order = [(rank[c] - base) % 13 for c in range(52)]

        def safe(c: int, fh: list[int]) -> bool:
            a, b = others[c]
            return fh[a] >= need[c] and fh[b] >= need[c]

        def gen_steps(
            heights: list[int], tab: list[tuple[int, ...]], fh: list[int], seq: tuple[int, ...], w: int, left: int
        ) -> tuple[list[tuple[int, int, int, int, int]], list[int]]:
            """The steps to try from a position (see the module docstring), and its tableau tops;
            while ``granular`` (the quick phases), only the waste top of the talon, and a deal
            (or the redeal) as a step of its own, as the engine plays them."""
            n = len(seq)
            hcode = heights[0] + 4 * heights[1] + 16 * heights[2] + 64 * heights[3]
            reserve_left = hcode != 0
            tops = [p[-1] if p else -1 for p in tab]
            steps: list[tuple[int, int, int, int, int]] = []  # (source kind, where, card, target, pass)
            if reserve_left and -1 in tops:
                # a space must be filled from a reserve fan first
                for i in range(4):
                    if heights[i]:
                        steps.append((_FAN, i, fan_top[i][heights[i]], TO_SPACE, 0))
            else:
                nxt = (wanted[0][fh[0]], wanted[1][fh[1]], wanted[2][fh[2]], wanted[3][fh[3]])
                # a safe foundation move, played alone (see the module docstring)
                for i in range(4):
                    c = tops[i]
                    if c >= 0 and nxt[c // 13] == c and safe(c, fh) and (len(tab[i]) > 1 or not reserve_left):
                        steps.append((_PILE, i, c, TO_FOUNDATION, 0))
                        break
                if not steps and w:
                    c = talon[seq[w - 1]]
                    if nxt[c // 13] == c and safe(c, fh):
                        steps.append((_TALON, w, c, TO_FOUNDATION, 0))
                if not steps and hcode in (1, 4, 16, 64):
                    i = (1, 4, 16, 64).index(hcode)
                    c = fan_top[i][1]
                    if nxt[c // 13] == c and safe(c, fh):
                        steps.append((_FAN, i, c, TO_FOUNDATION, 0))
                if not steps:
                    # talon cards within reach: this pass from the waste top on, then (a redeal
                    # left) the ones behind it after the redeal
                    if granular:
                        cards = [(w, talon[seq[w - 1]], 0)] if w else []
                    else:
                        cards = [(p, talon[seq[p - 1]], 0) for p in range(max(w, 1), n + 1)]
                        if left:
                            cards += [(p, talon[seq[p - 1]], 1) for p in range(1, w)]
                    rtops = [(i, fan_top[i][heights[i]]) for i in range(4) if heights[i]]
                    for i, c in rtops:
                        if nxt[c // 13] == c:
                            steps.append((_FAN, i, c, TO_FOUNDATION, 0))
                    for i in range(4):
                        c = tops[i]
                        if c >= 0 and nxt[c // 13] == c:
                            steps.append((_PILE, i, c, TO_FOUNDATION, 0))
                    for p, c, again in cards:
                        if nxt[c // 13] == c:
                            steps.append((_TALON, p, c, TO_FOUNDATION, again))
                    for j in range(4):
                        t = tops[j]
                        if t < 0:
                            continue
                        onto = fits[t]
                        for i in range(4):
                            if i != j and tab[i] and onto[tab[i][0]]:
                                steps.append((_PILE, i, tab[i][0], t, 0))
                        for i, c in rtops:
                            if onto[c]:
                                steps.append((_FAN, i, c, t, 0))
                        for p, c, again in cards:
                            if onto[c]:
                                steps.append((_TALON, p, c, t, again))
                    if -1 in tops:  # (the reserve is empty: a space takes any talon card)
                        for p, c, again in cards:
                            steps.append((_TALON, p, c, TO_SPACE, again))
                    if granular and (w < n or (left and n)):
                        steps.append((_DEALT, 0, -1, DEAL_STEP, 0))
            return steps, tops

        def make_child(
            step: tuple[int, int, int, int, int],
            heights: list[int],
            tab: list[tuple[int, ...]],
            fh: list[int],
            seq: tuple[int, ...],
            mask: int,
            w: int,
            left: int,
            tops: list[int],
        ) -> tuple[list[int], list[tuple[int, ...]], list[int], tuple[int, ...], int, int, int]:
            """The position after ``step``."""
            kind, where, c, target, again = step
            if kind == _DEALT:  # one engine deal, or the redeal
                return (
                    (heights, tab, fh, seq, mask, w + 1, left)
                    if w < len(seq)
                    else (heights, tab, fh, seq, mask, 0, left - 1)
                )
            nheights, nseq, nmask, nw, nleft = heights, seq, mask, w, left
            ntab = list(tab)
            nfh = fh
            if kind == _FAN:
                nheights = heights.copy()
                nheights[where] -= 1
                moved: tuple[int, ...] = (c,)
            elif kind == _PILE:
                moved = tab[where] if target != TO_FOUNDATION else (c,)
                ntab[where] = tab[where][: len(tab[where]) - len(moved)]
            else:
                nseq = seq[: where - 1] + seq[where:]
                nmask = mask & ~(1 << seq[where - 1])
                nw = where - 1
                nleft = left - again
                moved = (c,)
            if target == TO_FOUNDATION:
                nfh = fh.copy()
                nfh[c // 13] += 1
            elif target == TO_SPACE:
                ntab[tops.index(-1)] = moved
            else:
                j = tops.index(target)
                ntab[j] = ntab[j] + moved
            return nheights, ntab, nfh, nseq, nmask, nw, nleft

        def score(heights: list[int], tab: list[tuple[int, ...]], fh: list[int], seq: tuple[int, ...], w: int) -> int:
            """How promising a position looks: cards cleared, less cards lying above a card that
            goes to its foundation before them (in the fans, the tableau and the waste)."""
            inversions = 0
            for i in range(4):
                low = 99
                for c in fans[i][: heights[i]]:
                    r = order[c]
                    if r > low:
                        inversions += 1
                    elif r < low:
                        low = r
            for pile in tab:
                low = 99
                for c in pile:
                    r = order[c]
                    if r > low:
                        inversions += 1
                    elif r < low:
                        low = r
            low = 99
            for i in seq[:w]:
                r = order[talon[i]]
                if r > low:
                    inversions += 1
                elif r < low:
                    low = r
            return 4 * (fh[0] + fh[1] + fh[2] + fh[3]) - 2 * inversions

        def best_first(
            prefix: list[tuple[int, int]],
            heights: list[int],
            tab: list[tuple[int, ...]],
            fh: list[int],
            seq: tuple[int, ...],
            mask: int,
            w: int,
            left: int,
        ) -> Generator[None, None, bool]:
            """Search the most promising positions first (`score`, then the deepest), pausing
            (yielding) every few thousand steps; returns True when a won position is found (its
            steps, after ``prefix``, then on ``path``), False when every position was searched."""
            nonlocal nodes, best, kept
            met: dict[bytes, None] = {}
            met_tables.append(met)
            tie = 0
            frontier: list[tuple[int, int, int, tuple, tuple | None]] = [
                (-score(heights, tab, fh, seq, w), 0, 0, (heights, tab, fh, seq, mask, w, left), None)
            ]
            while frontier:
                _, depth, _, state, line = heapq.heappop(frontier)
                heights, tab, fh, seq, mask, w, left = state
                cleared = fh[0] + fh[1] + fh[2] + fh[3]
                if cleared > best:
                    best = cleared
                if cleared == 52:
                    steps_back = []
                    while line is not None:
                        steps_back.append(line[0])
                        line = line[1]
                    path[:] = prefix + steps_back[::-1]
                    return True
                steps, tops = gen_steps(heights, tab, fh, seq, w, left)
                for st in steps:
                    nodes += 1
                    if not nodes % _CHECK_EVERY or nodes >= budget_nodes:
                        check()
                        yield
                    child = make_child(st, heights, tab, fh, seq, mask, w, left, tops)
                    hcode = child[0][0] + 4 * child[0][1] + 16 * child[0][2] + 64 * child[0][3]
                    key = bytes((hcode, child[5], child[6])) + child[4].to_bytes(5, "little")
                    key += b"\xff".join(sorted(map(bytes, child[1])))
                    if key in met:
                        continue
                    met[key] = None
                    kept += 1
                    tie += 1
                    moves = 1  # (the engine's moves: the deals and redeal before a talon card count)
                    if st[0] == _TALON:
                        moves += (len(seq) - w + 1 + st[1]) if st[4] else st[1] - w
                    heapq.heappush(
                        frontier,
                        (
                            -score(child[0], child[1], child[2], child[3], child[5]),
                            depth - moves,
                            tie,
                            child,
                            ((st[2], st[3]), line),
                        ),
                    )
            return False

        def search(
            heights: list[int],
            tab: list[tuple[int, ...]],
            fh: list[int],
            seq: tuple[int, ...],
            mask: int,
            w: int,
            left: int,
        ) -> bool:
            nonlocal nodes, best, kept
            cleared = fh[0] + fh[1] + fh[2] + fh[3]
            if cleared > best:
                best = cleared
                if cleared == 52:
                    return True
            hcode = heights[0] + 4 * heights[1] + 16 * heights[2] + 64 * heights[3]
            piles = b"\xff".join(sorted(map(bytes, tab)))
            key = bytes((hcode,)) + mask.to_bytes(5, "little") + piles
            if granular:
                # (deals keep the cards: a position is then known by its waste count too, and
                # only the same position is not searched again)
                key += bytes((w, left))
                if key in seen:
                    return False
                seen[key] = 0
            else:
                got = seen.get(key, 4095)
                m1, m0 = got >> 6, got & 63
                if left:
                    if m1 <= w:
                        return False
                    m1 = w
                else:
                    if m1 != _NONE or m0 <= w:
                        return False
                    m0 = w
                seen[key] = m1 << 6 | m0
            kept += 1
            most = bounds.get(piles)
            if most is None:
                most = bounds[piles] = cycle_bound(tab, step)
            if most <= best:
                return False
            steps, tops = gen_steps(heights, tab, fh, seq, w, left)
            if shuffle is not None:
                first = sum(1 for st in steps if st[3] == TO_FOUNDATION)
                rest = steps[first:]
                shuffle.shuffle(rest)
                steps[first:] = rest
            for st in steps:
                nodes += 1
                if not nodes % _CHECK_EVERY or nodes >= budget_nodes:
                    check()
                if nodes >= limit:
                    raise _Restart
                path.append((st[2], st[3]))
                if search(*make_child(st, heights, tab, fh, seq, mask, w, left, tops)):
                    return True
                path.pop()
            return False

        if exhaustive:
            return search(
                heights, tab, fheights, tuple(range(n_talon)), (1 << n_talon) - 1, len(waste0), _REDEALS - redeals0
            )
        return best_first(
            list(path),
            heights,
            tab,
            fheights,
            tuple(range(n_talon)),
            (1 << n_talon) - 1,
            len(waste0),
            _REDEALS - redeals0,
        )

    heights0l = list(heights0)
    fh0 = [0, 0, 0, 0]
    for f in fnd0:
        if f:
            fh0[f[0] // 13] = len(f)
    base0 = model.base(model.start)

    def starts() -> list[tuple[int, list[int], list[int]]]:
        """(base rank, fan heights, suits' foundation heights) after each first move there is a
        choice of (one entry when the base is chosen already), with that move on ``path``."""
        if base0 is not None:
            return [(base0, heights0l, fh0)]
        out = []
        for i in range(4):
            if heights0[i]:
                c = fan_top[i][heights0[i]]
                heights = heights0l.copy()
                heights[i] -= 1
                fh = [0, 0, 0, 0]
                fh[c // 13] = 1
                out.append((rank[c], heights, fh))
        return out

    def first_move(base: int, fh: list[int]) -> list[tuple[int, int]]:
        """The search's first step, choosing ``base`` (none when it was chosen before)."""
        if base0 is not None:
            return []
        return [(next(13 * s + base - 1 for s in range(4) if fh[s]), TO_FOUNDATION)]

    def best_first_phase(until: float) -> str:
        """Best first from each base card in turn, a few thousand steps each, until ``until``
        (monotonic seconds) or half the memory budget is held: "won" (its line on ``path``),
        "lost" (every position searched) or "" (time or room is up)."""
        nonlocal best
        runs: list[Generator[None, None, bool]] = []
        for base, heights, fh in starts():
            del path[:]
            path.extend(first_move(base, fh))
            best = max(best, sum(fh))
            one = run(base, heights, list(tab0), fh, False)
            assert not isinstance(one, bool)
            runs.append(one)
        # (the phase leaves at least half the memory budget to the searches after it)
        room = budget.memory_mb * 2**20 / 2 / _MET_BYTES
        while runs and time.monotonic() < until and sum(len(t) for t in met_tables) < room:
            for one in list(runs):
                try:
                    next(one)
                except StopIteration as stop:
                    if stop.value:
                        return "won"
                    runs.remove(one)
        met_tables.clear()  # (the generators and their frontiers go with ``runs``)
        return "" if runs else "lost"

    def exhaustive() -> bool:
        """The exhaustive search, each base card in turn: whether a win was found (its line on ``path``)."""
        nonlocal best
        tables.clear()
        bound_tables.clear()
        for base, heights, fh in starts():
            del path[:]
            path.extend(first_move(base, fh))
            best = max(best, sum(fh))
            if run(base, heights, list(tab0), fh, True):
                return True
        return False

    won = False
    # (one level of recursion a step: a line of play has at most about 200 steps, each taking a
    # card off a reserve fan or the talon, to a foundation, or a pile onto another)
    try:
        # first phase: best first, for part of the time (won deals have many winning lines,
        # and an exhaustive search in a fixed order can spend all its time under one bad early
        # choice); then the exhaustive search, which proves a loss
        granular = True
        outcome = best_first_phase(began + budget.seconds * _BEST_FIRST_SHARE) if quick else ""
        won = outcome == "won"
        if not outcome:
            # second phase: exhaustive searches with the steps (but foundation moves) in a
            # random order, each cut short after a growing number of steps: a won deal has many
            # winning lines, and one search in a fixed order can spend all its time under one
            # bad early choice
            shuffle = random.Random(0)
            size = _RESTART_STEPS
            while quick and time.monotonic() < began + budget.seconds * _RESTART_UNTIL:
                limit = nodes + size
                try:
                    won = exhaustive()
                    break  # (a search that ends is whole: won, or a proof)
                except _Restart:
                    size = size * 5 // 4
            else:
                shuffle, limit, granular = None, budget_nodes + 1, False
                won = exhaustive()
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        verdict.result = "won" if won else "lost"
        if won:
            verdict.solution = engine_moves(game, path, ("r0", "r1", "r2", "r3"))
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, kept, began)
