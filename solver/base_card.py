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
Dealing a stock card straight into a space is kept: it is not dominated by the other steps (it
frees the waste card below it, which dealing on and playing later cards cannot), and a test has
a position whose most cards clearable needs it.

Best first (Four Seasons only: ``search(..., best_first=True)``). A greedy best-first search
runs twice: before the depth-first searches for `_GREEDY_STEPS` ``[0]`` steps (40,000), and
again from the start after the restarts for ``[1]`` (250,000), each for at most `_GREEDY_SHARE`
of the time and `_GREEDY_MEMORY` of the memory budget. Its steps are the engine's moves less
the whole-pile moves into a space: one stock card dealt, or a card played from the reserve, a
tableau pile or the waste (no deals folded into a step), with the same safe foundation step
played alone. It takes next the position with the most cards up, then the most spaces, then the
fewest cards lying over the next card of each suit (in the reserve, on the waste or in its
tableau pile; a stock card counts none), weighted 100, 15 and 4 (`_GREEDY_WEIGHTS`), the
earliest met among equals, and keeps every position met (with its talon cards dealt, so a deal
is never a repeat) in a table of its own, with the step from its parent for the line. Taking
one deal at a time lets the weights judge each waste it passes through: Four Seasons deals
1004, 1006, 1011, 1015, 1020 and 1022 are won within 2,500 steps, 1032 within 17,000, 1038
within 96,000 and 1007 within 177,000, where the depth-first searches alone win none of the
first four within 100,000 steps (1006 not within 8 million). The first run costs about 0.3 s
of CPU where it finds nothing, so the restarts still win their deals early. Its win is a line
of legal moves; where every position it met is expanded, the table argument above holds for it
as for a depth-first search (every child of an expanded position was expanded, or met before),
so it answers lost with the most cards it met. Otherwise its table is dropped. The same weights
win none of Chameleon's unknown deals of 1000 to 1039 (its reserve decides; weights for the
reserve height of 30 to 300 win none either), so Chameleon does not run it.

By deals (Chameleon, `beam`). Chameleon instead searches by cards dealt after the restarts:
from each kept position, the positions its steps reach without a deal (depth first, at most
`_BEAM_CLOSURE` from each), then one deal from each of those; the `_BEAM_WIDTH` best of the
dealt positions, by the best-first weights less `_BEAM_RESERVE` a reserve card and `_BEAM_WASTE`
a waste card, go on to the next deal, for at most `_BEAM_STEPS` steps or until `_BEAM_UNTIL` of
the time. It proves nothing (it drops positions). It wins deals 1012, 1033 and 1037 within
180,000 steps (about 1.5 s of CPU), which the depth-first searches leave unknown at `Budget()`;
of widths 10 to 100 and closures of 500 to 5,000, width 20 with 2,000 wins 1012 soonest. Before
the restarts it takes time in which they win deal 1005, so it runs after them. It wins none of
Four Seasons' unknown deals of 1000 to 1019.

Order, restarts and stack. Steps are tried fewest deals first, foundation steps before others, the
reserve before the rest: that order finds many wins at once, but where its first choices go wrong
it wanders through tableau arrangements (lines of blocks moved to and fro over 100,000 steps deep)
and meets the win late or never. So the first half of the time budget (`_RESTART_SHARE`) runs
restarted depth-first searches, each with a fresh table: the first in that order, the later ones
in that order perturbed (at each position, with chance `_SWAP`, one random step is tried first),
each cut after `_RESTART_STEPS` times the next term of Luby's sequence (`solver.exact.luby`); then
one search in the fixed order runs to the end. Restarted lines find many wins far sooner
(Chameleon deal 1001: 15,000 steps instead of 1.6 million; deals 1010 and 1019 won in about a
second), while a fully random order finds almost none; which deals a seed's perturbations win
varies (`_SWAP` 0.05 and `_RESTART_STEPS` 5,000 won the most of 17 unknown deals within 600,000
steps, of 0.02 to 0.1 and 2,000 to 20,000 tried). A restarted search that ends is as exhaustive as
any (the table argument above holds in every order), so it may answer lost; one that is cut
answers nothing, and the positions it met only raise the best clear (each was reached). No bound
on the cards a position can still clear is used (every pile is a built run, and runs and single
cards move freely, so the piles fix no order in which cards must reach the foundations), so a lost
deal must be searched whole. A bound from cards that can never move does not help, because one
space lets any top card move: the largest set of cards none of which can move while the others
stay put (a waste or reserve card under one of them; a top card whose foundation card below stays
put and whose every tableau support, one rank higher, is on a foundation or stays covered), valid
only while every pile's bottom card is in it (so no space appears), with each suit stopped at its
first such card, cut none of the positions of Chameleon deal 1003 and 12% of Four Seasons deal
1006's (6 s each), at some seven times the cost of a position. Nor does a larger share of
restarts: 0.95 of the time decided none of the 12 unknown Four Seasons deals of 1000 to 1019
at `Budget()` (load average 6, 0.7 to 1.8 million steps a deal). The search keeps its own
stack, no recursion: a level is a position, its steps (each an int) and the next one to try,
about 400 bytes (Chameleon deal 1002, tracemalloc), counted in the memory budget, and a budget
that runs out ends the search at once.
Sets of cards (the talon cards left, the tableau tops, the cards that go on a card, the stock from
each place on) are int bit sets, so a position's steps come from a few ands rather than a pass
over the talon.

Speed. What the steps need of a tableau pile (its top card, the cards of its built run as bits,
its steps onto a tableau card of each rank and into a space, as ints less source and target) is
worked out once for each pile met (`pile_steps`, kept by `_Piles`, at most `_PILES` piles,
counted in the memory budget: at most 32 MB): a step changes one or two piles, so a new position's
piles were mostly met before (Chameleon deal 1004: 10,000 piles for 180,000 positions in 600,000
steps). The steps onto a pile's top then come from the piles holding a card that goes on it
(bits), in pile order, stopping once every such card is met, rather than from every card of
every run tried against every top. The steps and their order are those of trying every card (a
test compares them pile by pile; at a node budget the steps tried, positions kept, best clear,
verdict and winning line are the same on Four Seasons deals 1000, 1001, 1003, 1005, 1006, 1008,
1013 and Chameleon deals 1000, 1001, 1003, 1004, 1006, 1009, 1010). CPU (`time.process_time`)
for 400,000 steps on each deal, load 2.7: Four Seasons 1000, 1003, 1006, 1008 together 4.0 s
(4.2 s trying every card: its runs are one card, and each new position's own costs, copying
piles and building its key, weigh as much), Chameleon 1003, 1004, 1006 together 3.0 s (4.2 s).

Why it is exact. Every step is the engine's moves grouped (the deals before a talon card, one
step), every position the rules reach is searched or covered by one searched (same cards in the
same piles up to their order, fewer talon cards dealt), less what the safe steps drop, which is
dominated. So a search that ends without a win proves the deal lost, and the most foundation
cards in any position searched is the most that can be cleared. A win comes back as the engine's
moves (deals written out), which the engine replays to ``won``. Budgets apply as in
`solver.search`: ``nodes`` (steps tried), ``seconds``, ``positions`` and ``memory_mb``
(positions kept, stack levels and piles kept, each times a measured size); a search cut short
says unknown, and its best clear is then a lower bound.
"""

from __future__ import annotations

import random
import time
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from heapq import heappop, heappush, nsmallest

from engine.cards import Card
from engine.core import Game, Move
from solver.exact import Spent, finished, luby, start_verdict
from solver.search import Budget, Verdict

__all__ = ["BaseCard", "State", "search"]

#: (reserve height, tableau piles bottom to top, foundation piles f0..f3 bottom to top, waste
#: bottom to top, stock in dealing order: next card first); cards as ``13 * suit + rank - 1``
State = tuple[int, tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]

_DEAL = "deal"
#: bytes a kept position costs on average (its key, its value and its share of the table),
#: measured with tracemalloc on Four Seasons deal 1003 (about 120); rounded up
_ENTRY_BYTES = 160
#: bytes one level of the search's stack costs (its frame, its piles, its array of steps),
#: measured with tracemalloc on Chameleon deal 1002 (about 400, 85,000 levels deep); rounded up
_FRAME_BYTES = 500
_CHECK_EVERY = 256
#: the most piles whose steps the search keeps (`_Piles`), and the bytes one costs (its key,
#: its tuple and lists; measured with tracemalloc: about 510 on 17,000 piles of 1 to 11 cards,
#: 1,816 on the 1,290 piles of Chameleon deal 1003's first 3,800 positions, whose long runs have
#: many moves; the larger, rounded up)
_PILES = 1 << 14
_PILE_BYTES = 2_000
#: the best-first search's share of the time budget (each of its two runs), the steps it may try
#: (its first run, before the restarts, and its second, after them), the share of the memory
#: budget it may hold, and its weights: cards up, spaces, cards over the next card of each suit
#: (`search`'s ``greedy``)
_GREEDY_SHARE = 0.15
_GREEDY_STEPS = (40_000, 250_000)
_GREEDY_MEMORY = 0.5
_GREEDY_WEIGHTS = (100, 15, 4)
#: bytes a position waiting in the best-first search's frontier costs (its tuple, piles and
#: heights), measured with tracemalloc; rounded up
_GREEDY_BYTES = 400
#: The search by cards dealt (`beam`): positions kept a deal, positions met from each before
#: its deals, and the score's cost of a reserve card and of a waste card.
_BEAM_WIDTH = 20
_BEAM_CLOSURE = 2_000
_BEAM_RESERVE = 30
_BEAM_WASTE = 2
_BEAM_UNTIL = 0.75
_BEAM_STEPS = 250_000
#: the share of the time budget (from the start) spent on restarted searches before the last one
_RESTART_SHARE = 0.5
#: the steps a restarted search may try: this times the next term of Luby's sequence
_RESTART_STEPS = 5_000
#: the seed of the perturbations (`random.Random`), so that a search is repeatable
_RESTART_SEED = 1
#: the chance, at each position of a perturbed search, that one random step is tried first
_SWAP = 0.05
#: the best-first search's step that deals one stock card (kind 3: no other step has it)
_DEAL_ONE = 3
#: the target of a search step: a foundation, or a space
_TO_FOUNDATION = -1
_TO_SPACE = -2
#: the same targets in a search step's int (a tableau target is its pile's index)
_F = 62
_S = 63


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


def search(game: Game, model: BaseCard, budget: Budget, best_first: bool = False, by_deals: bool = False) -> Verdict:
    """Decide ``game`` from its current position (not changed) with ``model`` read from it (see
    the module docstring). Returns a `Verdict`: won with a solution in the engine's notation,
    lost (proved) with the most cards that can be cleared, or unknown when a budget ran out
    (``nodes``: steps tried, a step being one card or block played with the deals before it;
    ``positions``: positions kept; ``memory_mb``: those positions and the stack times measured
    sizes). ``best_first``: run the best-first search before and after the restarts;
    ``by_deals``: run the search by cards dealt after them (the module docstring)."""
    began = time.monotonic()
    deadline = began + budget.seconds
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    k0, tab0, fnd0, waste0, stock0 = model.start
    reserve, base, npiles, blocks = model.reserve, model.base, model.piles, model.blocks
    talon = waste0 + stock0
    tpos = [-1] * 53  # each card's place in the talon (-1: not there; index 52 stands for "none")
    for p, c in enumerate(talon):
        tpos[c] = p
    rpos = [-1] * 52  # each card's place in the reserve (-1: not there)
    for p, c in enumerate(reserve):
        rpos[c] = p
    rank = [_rank(c) for c in range(52)]
    wanted = [[13 * s + (base - 1 + h) % 13 if h < 13 else 52 for h in range(14)] for s in range(4)]
    fits = [[rank[c] == (rank[t] - 2) % 13 + 1 for c in range(52)] for t in range(52)]
    # the cards that go on each card in the tableau (one rank lower round the corner, any suit)
    lower = [tuple(13 * s + (t % 13 - 1) % 13 for s in range(4)) for t in range(52)]
    # the height every suit needs before nothing can be built on c
    need = [((rank[c] - base) % 13) or 13 for c in range(52)]
    single = [bytes((c,)) for c in range(52)]
    # the rank (0..12) of the cards that go on each card in the tableau
    below = [(t % 13 - 1) % 13 for t in range(52)]
    piles = _Piles(fits, blocks)
    pile_info = piles.__getitem__
    # sets of cards as bits; index 52 (and -1, the same entry) is "no card", the empty set
    bit = [1 << c for c in range(52)] + [0]
    lowerbits = [sum(bit[c] for c in lower[t]) for t in range(52)] + [0]
    # the cards on which nothing can be built once every suit is at least so high
    needbits = [sum(bit[c] for c in range(52) if need[c] <= low) for low in range(14)]
    # the talon cards from each place on: the stock once ``d`` are dealt
    from_d = [sum(bit[c] for c in talon[d:]) for d in range(len(talon) + 1)]
    heights0 = [0, 0, 0, 0]
    for f in fnd0:
        if f:
            heights0[f[0] // 13] = len(f)

    kept = 0
    nodes = 0
    best = sum(heights0)
    budget_nodes = budget.nodes

    def expand(k: int, tab: list[bytes], heights: list[int], mask: int, cards: int, d: int) -> Sequence[int]:
        """The steps from a position, in the order they are tried, each as an int: kind (0
        reserve top, 1 tableau run, 2 talon card) | where << 2 (pile or talon index) | count << 8
        | card << 14 | target << 20 (a pile, or _F, or _S). ``cards``: the talon cards left as
        bits ``1 << card`` (sets of cards below are such bits too)."""
        h0, h1, h2, h3 = heights
        ready = bit[wanted[0][h0]] | bit[wanted[1][h1]] | bit[wanted[2][h2]] | bit[wanted[3][h3]]
        # each pile's top card, top as a bit, cards that may move as bits, steps onto tableau
        # cards by rank, steps into a space (a card is in one pile only, so sums are unions)
        tops, topbit, moves, onto_rank, to_space = zip(*map(pile_info, tab))
        topbits = sum(topbit)
        movable = sum(moves)
        rtop = reserve[k - 1] if k else -1
        rbit = bit[rtop]
        wtop = talon[d - 1] if d else -1
        wbit = bit[wtop]
        stock = cards & from_d[d]
        # a safe foundation step, played alone (see the module docstring)
        safe = ready & needbits[min(heights)]
        if safe:
            if safe & rbit:
                return [rtop << 14 | _F << 20]
            if safe & topbits:
                for i in range(npiles):
                    if bit[tops[i]] & safe:
                        return [1 | i << 2 | 1 << 8 | tops[i] << 14 | _F << 20]
            if safe & wbit:
                return [2 | (d - 1) << 2 | 1 << 8 | wtop << 14 | _F << 20]
            rest = mask >> d
            if rest:
                p = (rest & -rest).bit_length() - 1 + d
                if safe & bit[talon[p]]:
                    return [2 | p << 2 | 1 << 8 | talon[p] << 14 | _F << 20]
        # fewest deals first, foundation steps before others, the reserve before the rest
        steps: list[int] = []
        if ready & rbit:
            steps.append(rtop << 14 | _F << 20)
        if ready & topbits:
            for i in range(npiles):
                if bit[tops[i]] & ready:
                    steps.append(1 | i << 2 | 1 << 8 | tops[i] << 14 | _F << 20)
        if ready & wbit:
            steps.append(2 | (d - 1) << 2 | 1 << 8 | wtop << 14 | _F << 20)
        if rbit:
            for j in range(npiles):
                if lowerbits[tops[j]] & rbit:
                    steps.append(rtop << 14 | j << 20)
        space = k == 0 and -1 in tops
        for j, top in enumerate(tops):
            onto = lowerbits[top]
            hits = onto & movable
            if hits:
                r = below[top]
                for i in range(npiles):  # piles in order, until every card that goes on top is met
                    here = moves[i] & hits
                    if here:
                        if i != j:
                            for part in onto_rank[i][r]:
                                steps.append(part | i << 2 | j << 20)
                        hits ^= here
                        if not hits:
                            break
            if onto & wbit:
                steps.append(2 | (d - 1) << 2 | 1 << 8 | wtop << 14 | j << 20)
        if space:
            for i in range(npiles):
                for part in to_space[i]:
                    steps.append(part | i << 2)
            if wbit:
                steps.append(2 | (d - 1) << 2 | 1 << 8 | wtop << 14 | _S << 20)
        if not stock:
            return array("I", steps)
        # stock cards, each after its deals: the fewest deals first (its place), then its
        # foundation step, its tableau steps in pile order, its space step
        later: list[int] = []
        hits = ready & stock
        while hits:
            low_bit = hits & -hits
            later.append(tpos[low_bit.bit_length() - 1] << 6)
            hits ^= low_bit
        for j in range(npiles):
            hits = lowerbits[tops[j]] & stock
            while hits:
                low_bit = hits & -hits
                later.append(tpos[low_bit.bit_length() - 1] << 6 | 1 + j)
                hits ^= low_bit
        if space:
            rest = mask >> d
            while rest:
                low_bit = rest & -rest
                later.append((d + low_bit.bit_length() - 1) << 6 | 63)
                rest ^= low_bit
        if later:
            later.sort()
            for entry in later:
                p = entry >> 6
                j = entry & 63
                target = _F if j == 0 else _S if j == 63 else j - 1
                steps.append(2 | p << 2 | 1 << 8 | talon[p] << 14 | target << 20)
        return array("I", steps)  # (4 bytes a step while the level waits on the stack)

    def play(
        k: int, tab: list[bytes], heights: list[int], mask: int, cards: int, d: int, step: int
    ) -> tuple[int, list[bytes], list[int], int, int, int, bytes]:
        """The position after ``step`` (one of `expand`'s) and its key (`_key`): reserve height,
        piles, foundation heights (the same list unless a card went up), talon mask, talon cards
        left as bits, ``d``, key."""
        if step == _DEAL_ONE:
            rest = mask >> d
            nd = d + (rest & -rest).bit_length()
            return k, tab, heights, mask, cards, nd, _key(k, tab, mask)
        kind = step & 3
        where = step >> 2 & 63
        c = step >> 14 & 63
        target = step >> 20
        nk, nmask, ncards, nd = k, mask, cards, d
        ntab = tab.copy()
        if kind == 0:
            nk = k - 1
            moved = single[c]
        elif kind == 1:
            pile = tab[where]
            count = step >> 8 & 63
            moved = pile[-count:]
            ntab[where] = pile[:-count]
        else:
            nmask = mask & ~(1 << where)
            ncards = cards & ~bit[c]
            nd = (nmask & ((1 << (where + 1)) - 1)).bit_length()  # one past the waste top
            moved = single[c]
        nheights = heights
        if target == _F:
            nheights = heights.copy()
            nheights[c // 13] += 1
        elif target == _S:
            ntab[ntab.index(b"")] = moved
        else:
            ntab[target] = ntab[target] + moved
        if nk:
            for i in range(npiles):
                if not ntab[i] and nk:
                    ntab[i] = single[reserve[nk - 1]]
                    nk -= 1
        return (
            nk,
            ntab,
            nheights,
            nmask,
            ncards,
            nd,
            sep.join(sorted(ntab)) + (nmask << 6 | nk).to_bytes(8, "little"),
        )  # `_key`, inline

    def check(memory: int) -> None:
        memory += len(piles) * _PILE_BYTES
        reason = budget.spent(nodes, kept, time.monotonic(), deadline, memory)
        if reason:
            raise Spent(reason)

    tab_start = [bytes(p) for p in tab0]
    d0 = (((1 << len(talon)) - 1) & ((1 << len(waste0)) - 1)).bit_length()
    mask0 = (1 << len(talon)) - 1
    cards0 = from_d[0]
    sep = b"\xff"
    inf = float("inf")

    def depth_first(seen: dict[bytes, int], until: float, most: float, rng: random.Random | None) -> list[list] | None:
        """Search depth first from the position read with the table ``seen`` (empty), steps in
        `expand`'s order or, with ``rng``, a random one (foundation steps first at half the
        positions). Returns the stack at a win (each frame's last step tried is the line's), or
        None when every position was searched or covered. Raises `_Cut` past ``until`` (the clock)
        or ``most`` steps, Spent when a budget runs out."""
        nonlocal nodes, kept, best

        def order(steps: Sequence[int]) -> Sequence[int]:
            if rng is None or len(steps) < 2:
                return steps
            if rng.random() >= _SWAP:
                return steps
            mixed = list(steps)
            i = rng.randrange(1, len(mixed))
            mixed[0], mixed[i] = mixed[i], mixed[0]
            return array("I", mixed)

        seen[_key(k0, tab_start, mask0)] = d0
        kept += 1
        # the search's own stack: one frame a level, [reserve height, piles, heights, mask, talon
        # cards left as bits, d, steps, next step's index]; a line may move blocks to and fro
        stack: list[list] = [
            [k0, tab_start, heights0, mask0, cards0, d0, order(expand(k0, tab_start, heights0, mask0, cards0, d0)), 0]
        ]
        while stack:
            frame = stack[-1]
            k, tab, heights, mask, cards, d, steps, at = frame
            if at == len(steps):
                stack.pop()
                continue
            frame[7] = at + 1
            step = steps[at]
            nodes += 1
            if not nodes % _CHECK_EVERY or nodes >= budget_nodes:
                check(len(seen) * _ENTRY_BYTES + len(stack) * _FRAME_BYTES)
                if nodes >= most or time.monotonic() > until:
                    raise _Cut
            nk, ntab, nheights, nmask, ncards, nd, key = play(k, tab, heights, mask, cards, d, step)
            known = seen.get(key)
            if known is not None and known <= nd:
                continue
            seen[key] = nd
            kept += 1
            if nheights is not heights:
                cleared = nheights[0] + nheights[1] + nheights[2] + nheights[3]
                if cleared > best:
                    best = cleared
                    if cleared == 52:
                        return stack
            todo = expand(nk, ntab, nheights, nmask, ncards, nd)
            if rng is not None and len(todo) > 1 and rng.random() < _SWAP:  # `order`, inline
                mixed = list(todo)
                i = rng.randrange(1, len(mixed))
                mixed[0], mixed[i] = mixed[i], mixed[0]
                todo = array("I", mixed)
            stack.append([nk, ntab, nheights, nmask, ncards, nd, todo, 0])
        return None

    def buried(k: int, tab: list[bytes], heights: list[int], mask: int, d: int) -> int:
        """How deep the next card of each suit lies: cards over it in the reserve, on the waste
        (talon cards left between it and the waste top) or in its tableau pile; none in the stock."""
        depth = 0
        for s in range(4):
            h = heights[s]
            if h == 13:
                continue
            c = wanted[s][h]
            r = rpos[c]
            if 0 <= r < k:
                depth += k - 1 - r
                continue
            p = tpos[c]
            if p >= 0 and mask >> p & 1:
                if p < d:
                    depth += (mask >> (p + 1) & ((1 << (d - p - 1)) - 1)).bit_count()
                continue
            for pile in tab:
                at = pile.find(c)
                if at >= 0:
                    depth += len(pile) - 1 - at
                    break
        return depth

    def stop(memory: int, until: float, most: float) -> bool:
        """Whether a search phase that holds ``memory`` bytes stops here: past ``most`` steps, the
        clock past ``until``, or its memory past `_GREEDY_MEMORY` of the budget. Raises Spent
        when a budget runs out."""
        check(memory)
        return nodes >= most or time.monotonic() > until or memory > budget.memory_mb * 2**20 * _GREEDY_MEMORY

    def meet(seen: set[bytes], parents: array, links: array, at: int, tab: list[bytes], step: int, key: bytes) -> bool:
        """Whether the position that ``step`` reaches from position ``at`` (piles ``tab``) of a
        best-first or beam search is new by its ``key`` (with its count dealt); a new one is kept
        in ``seen``, with its parent and step for `linked`."""
        nonlocal kept
        if key in seen:
            return False
        seen.add(key)
        kept += 1
        parents.append(at)
        links.append(-1 if step == _DEAL_ONE else step >> 14 & 63 | (_target(tab, step) + 2) << 6)
        return True

    def linked(parents: array, links: array) -> list[tuple[int, int]]:
        """The line of (card, target) to the last position met, from each position's parent and
        step (card | (target + 2) << 6; -1 for a deal, which the line leaves out)."""
        line = []
        i = len(parents) - 1
        while i:
            if links[i] >= 0:
                line.append((links[i] & 63, (links[i] >> 6) - 2))
            i = parents[i]
        return line[::-1]

    def greedy(until: float, most: float) -> tuple[bool, list[tuple[int, int]] | None]:
        """Search best first from the position read, with a table of its own: the position taken
        next is the one with the most cards up, then spaces, then the least buried next cards
        (`_GREEDY_WEIGHTS`), the earliest met among equals. Returns a win's line of (card,
        target) as (True, line); (True, None) when every position met is expanded (the deal is
        lost: see the module docstring); (False, None) once ``most`` steps are tried, the clock
        passes ``until`` or its memory passes `_GREEDY_MEMORY` of the budget. Raises Spent when
        a budget runs out."""
        nonlocal nodes, kept, best
        up, room, deep = _GREEDY_WEIGHTS
        seen = {_key(k0, tab_start, mask0) + bytes((d0,))}  # (positions with as many cards dealt)
        kept += 1
        parents = array("i", [-1])  # each position met: the one it came from, and its step's
        links = array("i", [0])  # card | target << 6 (target + 2: a foundation 1, a space 0)
        frontier: list[tuple] = [(0, 0, k0, tab_start, heights0, mask0, cards0, d0)]
        while frontier:
            _, at, k, tab, heights, mask, cards, d = heappop(frontier)
            steps = [step for step in expand(k, tab, heights, mask, cards, d) if step & 3 != 2 or step >> 2 & 63 < d]
            if mask >> d:
                steps.append(_DEAL_ONE)
            for step in steps:
                nodes += 1
                if not nodes % _CHECK_EVERY or nodes >= budget_nodes:
                    memory = len(seen) * _ENTRY_BYTES + len(frontier) * _GREEDY_BYTES + len(parents) * 8
                    if stop(memory, until, most):
                        return False, None
                nk, ntab, nheights, nmask, ncards, nd, key = play(k, tab, heights, mask, cards, d, step)
                if not meet(seen, parents, links, at, tab, step, key + bytes((nd,))):
                    continue
                cleared = nheights[0] + nheights[1] + nheights[2] + nheights[3]
                if cleared > best:
                    best = cleared
                    if cleared == 52:
                        return True, linked(parents, links)
                score = deep * buried(nk, ntab, nheights, nmask, nd) - up * cleared - room * ntab.count(b"")
                heappush(frontier, (score, len(parents) - 1, nk, ntab, nheights, nmask, ncards, nd))
        return True, None

    def beam(until: float, most: float) -> tuple[bool, list[tuple[int, int]] | None]:
        """Search by cards dealt: from each kept position, the positions its steps reach without
        a deal (at most `_BEAM_CLOSURE` each, depth first), then one deal from each of them; of
        those, the `_BEAM_WIDTH` best by `_GREEDY_WEIGHTS`, less `_BEAM_RESERVE` a reserve card
        and `_BEAM_WASTE` a waste card, are kept for the next deal. Returns (True, a win's line)
        or (False, None): it proves nothing. Raises Spent when a budget runs out."""
        nonlocal nodes, best
        up, room, deep = _GREEDY_WEIGHTS
        parents = array("i", [-1])
        links = array("i", [0])
        layer = [(0, k0, tab_start, heights0, mask0, cards0, d0)]
        while layer:
            seen: set[bytes] = set()
            dealt: list[tuple] = []
            for root in layer:
                stack = [root]
                met = 0
                while stack:
                    at, k, tab, heights, mask, cards, d = stack.pop()
                    if mask >> d:
                        nk, ntab, nheights, nmask, ncards, nd, key = play(k, tab, heights, mask, cards, d, _DEAL_ONE)
                        parents.append(at)
                        links.append(-1)
                        waste = (nmask & ((1 << nd) - 1)).bit_count()
                        cleared = nheights[0] + nheights[1] + nheights[2] + nheights[3]
                        score = (
                            deep * buried(nk, ntab, nheights, nmask, nd)
                            - up * cleared
                            - room * ntab.count(b"")
                            + _BEAM_RESERVE * nk
                            + _BEAM_WASTE * waste
                        )
                        dealt.append((score, len(parents) - 1, nk, ntab, nheights, nmask, ncards, nd))
                    if met >= _BEAM_CLOSURE:
                        continue
                    for step in expand(k, tab, heights, mask, cards, d):
                        if step & 3 == 2 and step >> 2 & 63 >= d:
                            continue
                        nodes += 1
                        if not nodes % _CHECK_EVERY or nodes >= budget_nodes:
                            waiting = len(seen) + len(dealt) + len(stack) + len(layer)
                            if stop(waiting * _GREEDY_BYTES + len(parents) * 8, until, most):
                                return False, None
                        nk, ntab, nheights, nmask, ncards, nd, key = play(k, tab, heights, mask, cards, d, step)
                        if not meet(seen, parents, links, at, tab, step, key + bytes((nd,))):
                            continue
                        met += 1
                        if nheights is not heights:
                            cleared = nheights[0] + nheights[1] + nheights[2] + nheights[3]
                            if cleared > best:
                                best = cleared
                                if cleared == 52:
                                    return True, linked(parents, links)
                        stack.append((len(parents) - 1, nk, ntab, nheights, nmask, ncards, nd))
            layer = [entry[1:] for entry in nsmallest(_BEAM_WIDTH, dealt)]
        return False, None

    def line_of(won: list[list] | None) -> list[tuple[int, int]] | None:
        """The line of (card, target) of a depth-first search's stack at a win (None: no win)."""
        if won is None:
            return None
        return [(frame[6][frame[7] - 1] >> 14 & 63, _target(frame[1], frame[6][frame[7] - 1])) for frame in won]

    def restarts() -> tuple[bool, list[tuple[int, int]] | None]:
        """Restarted depth-first searches until `_RESTART_SHARE` of the time (each with a fresh
        table, the first in the fixed order, the rest perturbed, each cut after its term of Luby's
        sequence times `_RESTART_STEPS` steps), which find wins the fixed order meets late.
        Returns (True, a win's line) or (True, None) when one ends (a search that ends is
        exhaustive, whatever its order), (False, None) when the time share runs out. Raises Spent
        when a budget runs out."""
        rng = random.Random(_RESTART_SEED)
        until = began + budget.seconds * _RESTART_SHARE
        term = 0
        while time.monotonic() < until:
            term += 1
            try:
                return True, line_of(
                    depth_first({}, until, nodes + _RESTART_STEPS * luby(term), rng if term > 1 else None)
                )
            except _Cut:
                pass
        return False, None

    line: list[tuple[int, int]] | None = None
    try:
        # best first for a few steps (it meets many wins that the depth-first orders meet late or
        # never), the restarts, by deals, best first again for more steps (the same search from
        # the start: it is repeatable), then the fixed order to the end
        ended = False
        if best_first:
            ended, line = greedy(began + budget.seconds * _GREEDY_SHARE, nodes + _GREEDY_STEPS[0])
        if not ended:
            ended, line = restarts()
        if not ended and by_deals:
            ended, line = beam(began + budget.seconds * _BEAM_UNTIL, nodes + _BEAM_STEPS)
        if not ended and best_first:
            until = began + budget.seconds * (_RESTART_SHARE + _GREEDY_SHARE)
            ended, line = greedy(until, nodes + _GREEDY_STEPS[1])
        if not ended:
            line = line_of(depth_first({}, inf, inf, None))
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if line is not None:
            verdict.result = "won"
            verdict.solution = _engine_moves(game, model, line)
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, kept, began)


class _Cut(Exception):
    """A restarted line's share ran out."""


def pile_steps(
    pile: bytes, fits: list[list[bool]], blocks: bool
) -> tuple[int, int, int, list[tuple[int, ...]], tuple[int, ...]]:
    """What a search's steps need of one tableau pile (cards bottom to top): its top card (-1
    when empty), that card as a bit, the cards that may move (the built run's with ``blocks``,
    else the top) as bits, and the partial steps (the kind, count and card of `search`'s step
    ints, without source pile and target) that move from it, onto a tableau card by the rank
    of the moved block's bottom card (13 tuples, fewest cards first) and into a space (fewest
    cards first; a whole pile is not moved into a space)."""
    run = _run_of(pile, fits) if blocks else (1 if pile else 0)
    movable = 0
    byrank: list[list[int]] = [[] for _ in range(13)]
    for n in range(1, run + 1):
        c = pile[-n]
        movable |= 1 << c
        byrank[c % 13].append(1 | n << 8 | c << 14)
    space = tuple(1 | n << 8 | pile[-n] << 14 | _S << 20 for n in range(1, min(run, len(pile) - 1) + 1))
    top = pile[-1] if pile else -1
    return top, 1 << top if pile else 0, movable, [tuple(parts) for parts in byrank], space


class _Piles(dict[bytes, tuple[int, int, int, list[tuple[int, ...]], tuple[int, ...]]]):
    """`pile_steps` of each pile met, worked out once (a step changes one or two piles, so a
    position's piles were mostly met before); emptied when it holds `_PILES` piles."""

    __slots__ = ("blocks", "fits")

    def __init__(self, fits: list[list[bool]], blocks: bool) -> None:
        super().__init__()
        self.fits = fits
        self.blocks = blocks

    def __missing__(self, pile: bytes) -> tuple[int, int, int, list[tuple[int, ...]], tuple[int, ...]]:
        if len(self) >= _PILES:
            self.clear()
        info = self[pile] = pile_steps(pile, self.fits, self.blocks)
        return info


def _target(tab: list[bytes], step: int) -> int:
    """Where a search step (an int of `search`'s ``expand``) from a position with piles ``tab``
    plays its card, as `_engine_moves` reads it: `_TO_FOUNDATION`, `_TO_SPACE` or the tableau card
    it goes on."""
    target = step >> 20
    return _TO_FOUNDATION if target == _F else _TO_SPACE if target == _S else tab[target][-1]


def _run_of(pile: bytes, fits: list[list[bool]]) -> int:
    """How many cards on top of ``pile`` form a built run (0 for an empty pile)."""
    if not pile:
        return 0
    n = 1
    while n < len(pile) and fits[pile[-n - 1]][pile[-n]]:
        n += 1
    return n


def _key(k: int, tab: list[bytes], mask: int) -> bytes:
    """A position's key: its piles sorted (their places only name moves), the talon cards left
    and the reserve height."""
    return b"\xff".join(sorted(tab)) + (mask << 6 | k).to_bytes(8, "little")


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
