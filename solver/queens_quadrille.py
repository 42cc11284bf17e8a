"""An exact search for Queen's Quadrille: cards as ranks, foundations as counts, Queens set aside.

Rules: 003_08087bb95aa03446.txt ("Queen's Quadrille"), as engine/games/queens_quadrille.py states
them: the stock is turned one card at a time onto ``w``; eight foundations, each started by a Five
(built down Five, Four, Three, Two, Ace, King) or a Six (built up Six to Queen), suits never
matter; the turned card goes to a foundation it fits or to a waste pile (a Queen onto the Queens'
pile ``t3``, any other card onto ``t0`` to ``t2``); the top card of any waste pile may go up; one
pass. Cleared: cards on the foundations.

The model (`Quadrille`) is the rules as plain values: the stock's ranks in turn order and how many
have been placed, each waste pile's ranks, each foundation's ranks; `Quadrille.legal` and
`Quadrille.play` are the engine's moves (tests/solver/test_queens_quadrille.py compares them move
for move). The search works on a smaller state, three facts making it so:

* Foundations of one kind and height are interchangeable (no rule looks at a suit or at a
  foundation's place), so the foundations are the count of cards of each rank up: ``up[c]`` for the
  twelve ranks other than the Queen, coded 0 to 5 (Five, Four, Three, Two, Ace, King) and 6 to 11
  (Six to Jack). A card of code ``c`` fits when it starts a chain (0 or 6: the eight foundations
  hold exactly the four Fives and four Sixes, so one is always free) or ``up[c] < up[c - 1]``.
* Queens are set aside: the Queens' pile holds nothing else, so every Queen turned is at once the
  top of ``w`` or reachable on ``t3`` (all Queens alike), and a foundation topped by a Jack takes
  nothing but a Queen. So a Queen decides nothing: in the end each foundation topped by a Jack gets
  one, and a position's best outcome counts ``sum(up) + up[Jack]`` cards.
* The three central waste piles are interchangeable: the key of a position sorts them.

Moves played alone (proved to lose nothing): a card of code ``c`` that fits when all four cards
of the rank below are up (Fives and Sixes always). Then as many foundations wait for its rank as
there are cards of its rank not up, and stay so: so every line from the position with the card
left where it is is matched, move for move, by one from the position with it up (the matching
line plays each other card of that rank to one of the waiting foundations, and skips the move
that played this card), which clears at least as many cards.

The search is depth-first over (cards placed, ``up``, sorted piles), with moves: a waste pile's
top up when it fits (one of equal piles only); the turned card up when it fits, or onto a waste
pile (one of equal piles only), tried in a guide's order (onto a top wanted later than the card,
the nearest such first; else onto an empty pile; else onto the top wanted last). A win is sought
first with limited discrepancy: a search that leaves the guide's first choice at most ``k`` times
on a line, for ``k`` in `_SPARES`, each position kept with the allowance it was searched with
(searched again only with a larger one); then with no limit, each position searched once. A lost
deal then asks for one card more than the best seen until a search finds none: that last search
is a proof, and the best seen is the most cards that can be cleared.

The cuts. A card lying in a waste pile goes up only after every card above it and before every
card below it. Say a card ``y`` of code ``c`` goes up as the ``p``-th of its code (``p`` is its
place): then ``p > up[c]``; ``p`` exceeds the place of each card of its chain at code ``c`` or
higher lying above ``y`` (that card went up first, after as many of code ``c`` as its place); and
as the chain's counts never grow up the chain, ``p`` cards of each code from the chain's start to
``c`` are up, none of them lying under ``y`` in its pile or dead (below). The least such ``p``,
read down each pile, is ``y``'s place; if it is over ``4 - below(d) - dead(d)`` for some such code
``d`` (``below(d)``: cards of code ``d`` under ``y``; ``dead(d)``: those elsewhere that never go
up), ``y`` never goes up: it is dead, and so is every card under it.

* For a win (`_winnable`, every card goes up, so no card may be dead) the cards of one code
  also need distinct places: at most ``5 - n`` of them may need place ``n`` or later. A position
  failing either is cut from the search for a win.
* For ``n`` cards cleared (`_bound`), dead cards are found to a fixed point; then the cards of
  each code that can go up are at most ``m[c] = min(4 - dead[c], m[c - 1])`` (``m`` of a chain's
  start: ``4 - dead``), and a position whose ``sum(m) + m[Jack]`` is below ``n`` is cut.

Why it is exact: every position the rules reach from the position read is, up to the facts above,
a position of this search, searched or cut by a proved bound or matched by a move played alone;
so a search with no limit that ends without reaching its target proves the target out of reach
(the limited ones only ever find wins). A win comes back as the engine's moves (each Queen turned
played up on a Jack or onto ``t3``, and from ``t3`` as soon as a Jack waits), which the engine
replays to ``won``.

Budgets: ``nodes`` counts moves tried, ``positions`` the positions kept, ``memory_mb`` those and
the cached pile readings at about `_BYTES_PER_STATE` each; the clock is read every 1,024 nodes.

Cost, measured on deals 1000 to 1049 with ``Budget()`` (10 s), one process under ``nice -n 5`` on
this project's two-core machine while others worked too (load average 3 to 5): 48 won (96%),
each in 2.3 s at most (median 0.02 s, about 6,000 positions on average, 103,000 at most); 2
unknown (1002: a win needs four discrepancies, found in about 25 s; 1017: not decided in 60 s).
On deals 0 to 99 likewise (load about 2.5): 98 won (2.6 s at most, median 0.01 s), 2 unknown
(48, 82); peak resident memory of an unknown 10 s search about 130 MB.
No lost deal was met: a lost deal's proof, and its most-cleared searches, are exhaustive and
would mostly run out of time. Reproduce with ``nice -n 5 python -c`` over
``solve_exact(find_game("queens_quadrille")(seed))`` for those seeds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.cards import Rank
from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["Quadrille", "State", "solve_exact"]

#: (stock cards placed, each waste pile's ranks bottom to top (t0 to t3), each foundation's ranks
#: bottom to top (f0 to f7))
State = tuple[int, tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]

_QUEEN = int(Rank.QUEEN)
_FIVE, _SIX = int(Rank.FIVE), int(Rank.SIX)
#: The search's code of each rank (None: the Queen).
_CODE = {5: 0, 4: 1, 3: 2, 2: 3, 1: 4, 13: 5, 6: 6, 7: 7, 8: 8, 9: 9, 10: 10, 11: 11}
_JACK = 11
_STARTS = (0, 6)
_TOTAL = 52
_BYTES_PER_STATE = 200
#: The most pile readings `_Search.places` keeps (then it starts again), each about
#: `_BYTES_PER_STATE` bytes.
_PLACES = 1 << 16
#: A discrepancy allowance no search spends: the search is then exhaustive.
_ALL = 1 << 30
#: The discrepancy allowances of the searches for a win tried before the exhaustive one.
_SPARES = (0, 1, 2, 3, 4, 5)


def _next_rank(first: int, top: int) -> int:
    """The rank that goes on a foundation started by ``first`` whose top is ``top``."""
    if first == _FIVE:
        return 13 if top == 1 else top - 1
    return top + 1


@dataclass(frozen=True, slots=True)
class Quadrille:
    """One Queen's Quadrille position's cards as plain ranks (ints 1 to 13), from which every later
    position follows.

    ``stock``: the ranks still to be placed, ``w``'s first, then the stock's from the top;
    ``start``: the `State` read (0 placed); ``total``: the game's total (52).
    """

    stock: tuple[int, ...]
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Quadrille:
        """The model of ``game`` (a Queen's Quadrille `Game`, at any position)."""
        if game.key != "queens_quadrille":
            raise ValueError(f"not a queens_quadrille game: {game.key!r}")
        stock = tuple(int(c.rank) for c in game.piles["w"].cards[::-1]) + tuple(
            int(c.rank) for c in reversed(game.piles["s"].cards)
        )
        piles = tuple(tuple(int(c.rank) for c in game.piles[f"t{i}"].cards) for i in range(4))
        founds = tuple(tuple(int(c.rank) for c in game.piles[f"f{i}"].cards) for i in range(8))
        return cls(stock, (0, piles, founds), game.total)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, reached by play from the position this model was read from."""
        later = Quadrille.from_game(game)
        return (len(self.stock) - len(later.stock), later.start[1], later.start[2])

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``."""
        return sum(len(f) for f in state[2])

    @staticmethod
    def fits(found: tuple[int, ...], rank: int) -> bool:
        """Whether a card of ``rank`` may go on a foundation holding ``found`` (ranks, bottom up)."""
        if not found:
            return rank in (_FIVE, _SIX)
        if len(found) >= (6 if found[0] == _FIVE else 7):
            return False
        return rank == _next_rank(found[0], found[-1])

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        placed, piles, founds = state
        if self.cleared(state) == self.total:
            return []
        moves: list[str] = []
        for i, pile in enumerate(piles):
            if pile:
                moves.extend(f"t{i}>f{j}" for j, found in enumerate(founds) if self.fits(found, pile[-1]))
        if placed < len(self.stock):
            rank = self.stock[placed]
            moves.extend(f"w>f{j}" for j, found in enumerate(founds) if self.fits(found, rank))
            moves.extend(f"w>t{i}" for i in range(4) if (rank == _QUEEN) == (i == 3))
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        placed, piles, founds = state
        src, dst = move.split(">")
        if src == "w":
            rank = self.stock[placed]
            placed += 1
        else:
            i = int(src[1:])
            rank = piles[i][-1]
            piles = piles[:i] + (piles[i][:-1],) + piles[i + 1 :]
        j = int(dst[1:])
        if dst[0] == "f":
            founds = founds[:j] + (founds[j] + (rank,),) + founds[j + 1 :]
        else:
            piles = piles[:j] + (piles[j] + (rank,),) + piles[j + 1 :]
        return placed, piles, founds


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Queen's Quadrille, from its current position; it is not changed) exactly
    (see the module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in
    the engine's notation, lost (proved) with the most cards that can be cleared, or unknown when a
    budget ran out. ``nodes`` counts moves tried, ``positions`` the positions kept."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Quadrille.from_game(game)
    search = _Search(model, budget, began)
    kept = 0
    try:
        line = None
        for spare in _SPARES:
            line = search.run(model.total, spare)
            if line is not None:
                break
        if line is None:
            line = search.run(model.total)
        if line is not None:
            verdict.result = "won"
            verdict.solution = _notation(game, line)
            verdict.best_cleared = model.total
        else:
            kept = len(search.seen)
            while search.best < model.total and search.run(search.best + 1) is not None:
                kept = max(kept, len(search.seen))
            verdict.result = "lost"
    except Spent as spent:
        verdict.reason = spent.args[0]
    if verdict.result != "won":
        verdict.best_cleared = max(verdict.best_cleared, search.best)
    return finished(verdict, search.nodes, max(kept, len(search.seen)) + 1, began)


#: One step of a line: (source: -1 for the turned card, else a waste pile; destination: -1 for a
#: foundation, else a waste pile).
Step = tuple[int, int]


class _Search:
    """The depth-first search over positions of codes (module docstring)."""

    def __init__(self, model: Quadrille, budget: Budget, began: float) -> None:
        self.budget, self.deadline = budget, began + budget.seconds
        self.nodes, self.best, self.target = 0, 0, 0
        self.seen: dict[bytes, int] = {}
        self.places: dict[bytes, list[tuple[int, int]] | None] = {}
        self.line: list[Step] = []
        _, piles, founds = model.start
        self.stock = [_CODE[r] for r in model.stock if r != _QUEEN]
        self.start_piles = [[_CODE[r] for r in pile] for pile in piles[:3]]
        up = [0] * 12
        for found in founds:
            for r in found:
                if r != _QUEEN:
                    up[_CODE[r]] += 1
        self.start_up = up

    def run(self, target: int, spare: int = _ALL) -> list[Step] | None:
        """A line reaching a position whose best outcome (module docstring) is ``target`` cards or
        more, or None when there is none (a proof when ``spare`` is `_ALL`; else only lines that
        leave the guide's first choice at most ``spare`` times were searched); raises `Spent`."""
        self.target = target
        self.seen.clear()
        self.line.clear()
        if self._search(0, list(self.start_up), [list(p) for p in self.start_piles], spare):
            return self.line[::-1]
        return None

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes >= self.budget.nodes:
            raise Spent(f"node budget ({self.budget.nodes:,} moves) spent")
        if not self.nodes & 1023 and time.monotonic() > self.deadline:
            raise Spent(f"time budget ({self.budget.seconds:g} s) spent")

    def _search(self, i: int, up: list[int], piles: list[list[int]], spare: int) -> bool:
        """Whether the target can be reached from this position (then ``line`` holds the steps,
        last first). ``up`` and ``piles`` are this call's own."""
        stock = self.stock
        # moves played alone
        alone: list[Step] = []
        changed = True
        while changed:
            changed = False
            for j, pile in enumerate(piles):
                while pile:
                    c = pile[-1]
                    if c in _STARTS or up[c - 1] == 4:
                        pile.pop()
                        up[c] += 1
                        alone.append((j, -1))
                        changed = True
                    else:
                        break
            while i < len(stock):
                c = stock[i]
                if c in _STARTS or up[c - 1] == 4:
                    i += 1
                    up[c] += 1
                    alone.append((-1, -1))
                    changed = True
                else:
                    break
        if self._found(i, up, piles, spare):
            self.line.extend(reversed(alone))
            return True
        return False

    def _found(self, i: int, up: list[int], piles: list[list[int]], spare: int) -> bool:
        outcome = sum(up) + up[_JACK]
        if outcome > self.best:
            self.best = outcome
        if outcome >= self.target:
            return True
        key = bytes([i, *up]) + b"\xff".join(sorted(bytes(p) for p in piles))
        seen = self.seen
        if seen.get(key, -1) >= spare:
            return False
        seen[key] = spare
        if len(seen) > self.budget.positions:
            raise Spent(f"memory budget ({self.budget.positions:,} positions) spent")
        if (len(seen) + len(self.places)) * _BYTES_PER_STATE > self.budget.memory_mb * 2**20:
            raise Spent(f"memory budget ({self.budget.memory_mb:g} MB) spent")
        if self.target >= _TOTAL and not _winnable(up, piles, self.places):
            return False
        if self.target < _TOTAL and _bound(up, piles) < self.target:
            return False
        steps: list[Step] = []
        # a waste pile's top up (one of equal piles)
        tried = set()
        for j, pile in enumerate(piles):
            if pile:
                c = pile[-1]
                if up[c] < up[c - 1] and bytes(pile) not in tried:
                    tried.add(bytes(pile))
                    steps.append((j, -1))
        if i < len(self.stock):
            c = self.stock[i]
            if up[c] < up[c - 1]:
                steps.append((-1, -1))
            places = set()
            options = []
            here = _dist(up, c)
            for j, pile in enumerate(piles):
                if bytes(pile) in places:
                    continue
                places.add(bytes(pile))
                if not pile:
                    options.append((1, 0, j))
                else:
                    there = _dist(up, pile[-1])
                    # on a card wanted later than this one (the nearest such first), else on the
                    # one wanted last
                    options.append((0, there, j) if there > here else (2, -there, j))
            options.sort()
            steps.extend((-1, j) for _, _, j in options)
        for k, (src, dst) in enumerate(steps):
            left = spare if k == 0 else spare - 1
            if left < 0:
                break
            self._tick()
            child = [list(p) for p in piles]
            after = list(up)
            if src >= 0:
                after[child[src].pop()] += 1
                found = self._search(i, after, child, left)
            elif dst < 0:
                after[self.stock[i]] += 1
                found = self._search(i + 1, after, child, left)
            else:
                child[dst].append(self.stock[i])
                found = self._search(i + 1, after, child, left)
            if found:
                self.line.append((src, dst))
                return True
        return False


def _dist(up: list[int], c: int) -> int:
    """How many cards must go up before a card of code ``c`` fits (a move-ordering guide)."""
    base = 0 if c < 6 else 6
    have = up[c]
    for level in range(c, base, -1):
        if up[level - 1] > have:
            return c - level
    return c - base


def _winnable(up: list[int], piles: list[list[int]], places: dict[bytes, list[tuple[int, int]] | None]) -> bool:
    """Whether no pile card is cut from every win (module docstring: the cut for a win); each
    pile's `_places` are kept in ``places`` by ``up`` and pile (cleared past `_PLACES` entries)."""
    need = [0] * 48  # cards of each code (times 4) needing each place (less one) or later
    code = bytes(up)
    for pile in piles:
        key = code + bytes(pile)
        if key in places:
            got = places[key]
        else:
            got = places[key] = _places(up, pile)
            if len(places) > _PLACES:
                places.clear()
        if got is None:
            return False
        for c, place in got:
            need[c * 4 + place - 1] += 1
    # the cards of one code need distinct places: at most 5 - n of them place n or later
    for c in range(0, 48, 4):
        if need[c + 3] > 1 or need[c + 3] + need[c + 2] > 2 or need[c + 3] + need[c + 2] + need[c + 1] > 3:
            return False
    return True


def _places(up: list[int], pile: list[int]) -> list[tuple[int, int]] | None:
    """Each card of ``pile`` (code, least place among the cards of its code to go up) when every
    card goes up, or None when one cannot (module docstring: the cuts, for one pile)."""
    below = [0] * 12
    for c in pile:
        below[c] += 1
    most = [0] * 12
    got = []
    for k in range(len(pile) - 1, -1, -1):
        c = pile[k]
        below[c] -= 1
        base = 0 if c < 6 else 6
        place = max(up[c] + 1, 1 + max(most[c : base + 6]))
        if place > 4 - max(below[base : c + 1]):
            return None
        if place > most[c]:
            most[c] = place
        got.append((c, place))
    return got


def _bound(up: list[int], piles: list[list[int]]) -> int:
    """The most cards the best outcome of this position can count (module docstring: the cut)."""
    cut = [0] * len(piles)  # pile[:cut[j]] is dead
    changed = True
    while changed:
        changed = False
        dead = [0] * 12
        for j, pile in enumerate(piles):
            for c in pile[: cut[j]]:
                dead[c] += 1
        for j, pile in enumerate(piles):
            other = list(dead)
            below = [0] * 12
            for k, c in enumerate(pile):
                below[c] += 1
                if k < cut[j]:
                    other[c] -= 1
            most = [0] * 12  # the greatest place among the cards of each code above
            for k in range(len(pile) - 1, cut[j] - 1, -1):
                c = pile[k]
                below[c] -= 1
                base = 0 if c < 6 else 6
                place = max(up[c] + 1, 1 + max(most[c : base + 6]))
                if place > min(4 - below[d] - other[d] for d in range(base, c + 1)):
                    cut[j] = k + 1
                    changed = True
                    break
                most[c] = max(most[c], place)
    dead = [0] * 12
    for j, pile in enumerate(piles):
        for c in pile[: cut[j]]:
            dead[c] += 1
    total = jack = 0
    for base in _STARTS:
        m = 4
        for c in range(base, base + 6):
            m = min(m, 4 - dead[c])
            total += m
        jack = m
    return total + jack


def _notation(game: Game, line: list[Step]) -> list[str]:
    """The engine's moves of the win ``line`` (steps of the search) from ``game``."""
    play = game.copy()
    moves: list[str] = []

    def apply(move: str) -> None:
        play.apply(move)
        moves.append(move)

    def queens() -> None:
        while True:
            w = play.piles["w"].cards
            if w and int(w[-1].rank) == _QUEEN:
                home = _home(play, _QUEEN)
                apply(f"w>{home}" if home else "w>t3")
                continue
            t3 = play.piles["t3"].cards
            home = _home(play, _QUEEN)
            if t3 and home:
                apply(f"t3>{home}")
                continue
            return

    for src, dst in line:
        queens()
        source = "w" if src < 0 else f"t{src}"
        if dst < 0:
            rank = int(play.piles[source].cards[-1].rank)
            apply(f"{source}>{_home(play, rank)}")
        else:
            apply(f"{source}>t{dst}")
    queens()
    return moves


def _home(game: Game, rank: int) -> str | None:
    """A foundation a card of ``rank`` fits in ``game`` (None if none)."""
    for j in range(8):
        found = tuple(int(c.rank) for c in game.piles[f"f{j}"].cards)
        if Quadrille.fits(found, rank):
            return f"f{j}"
    return None
