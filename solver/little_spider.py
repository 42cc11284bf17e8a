"""An exact search for Little Spider: the rules as plain numbers, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Little Spider"), as engine/games/little_spider.py states them:
eight tableau piles ``t0`` to ``t7``, four foundations ``f0`` to ``f3`` and a stock ``s``. While
the stock has cards, ``deal`` puts one card on each pile from ``t0`` on (fewer when fewer are
left), and the top card of a pile may go to a foundation; nothing moves between piles. Once the
stock is empty the top card of a pile may also go onto another non-empty pile one rank above or
below it, any suit, King and Ace neighbours. Two foundations build up in suit from the Ace, two
down in suit from the King; the Aces are of one colour and the Kings of the other, the first Ace
or King up deciding which. Won with all 52 cards up.

State. A card is the number ``suit * 13 + rank - 1``. A position is the piles' cards (a tuple of
tuples, bottom first), the stock cards dealt so far (the stock's order is fixed), the count of
cards up in each suit, the colour choice (0 while no Ace or King is up, else 1 + the colour of
the Aces that build up) and, for the engine's notation only, the suit each foundation holds.
Which cards are up fixes the counts and the colour, and pile order does not matter once the
stock is empty (any pile may go to any pile), so the search keys a position by the stock cards
dealt and the piles sorted (as bytes); while the stock has cards the piles are fixed by the
cards up, so the key is the dealt count and the counts.

The search: three searches take turns (`solver.exact.take_turns`: four slices of about 1,024
moves for the first, one for the second, two for the third). The first two search every reachable
position, each with its own table of keys, and the first of the three to end gives the verdict.
The first plays stage one (dealing: only which top cards go up, few positions) depth first; each
position that has dealt the whole stock is the root of a stage-two
depth-first search (foundation moves first, then moves between piles that bring a card wanted
next nearest the top of its pile), and these take turns in slices, the root with the least work
done so far first, each card fewer up at a root counting as 4,096 moves: no single root's huge
tableau game takes the whole budget, which is where a plain order spends it. The second is best
first: fewest cards left, then fewest cards lying over the cards wanted next (one still in the
stock counting 99); it wins some deals at once that the first reaches late. The third is random
restarts (`solver.exact.random_restarts`): depth-first lines from the position searched, each
with a fresh table of keys and 2,000 moves times the next term of Luby's sequence (2,000, 2,000,
4,000, 2,000, 2,000, 4,000, 8,000, ...), the moves at each position in a random order (foundation
moves first at half of them; seeded, so a search is repeatable); it wins deals such as 1002 and
1039 that both exhaustive searches leave at 50 cards up (a fixed line length wins some such deals
and misses others: 40,000 moves win 1002, 5,000 win 1039). All three expand every position (by
key) once, with every legal move but one kind: a card that starts a foundation goes to the first
empty foundation only (the four are interchangeable, so the others only rename them). Nothing
else is pruned, so a search that ends without a win (for the restarts: a line whose frontier
empties within its moves) has expanded every reachable position: the deal is lost, and the most
cards up in any position reached is the most that can be cleared. A win comes back as moves in
the engine's notation, which the engine replays to ``won`` (tests/solver/test_little_spider.py
checks the model's moves and next positions against the engine's, move for move, and the verdicts
against a plain search of the model's own moves).

Budgets: ``nodes`` counts moves tried, ``positions`` the keys kept (all three searches),
``memory_mb`` the keys and the frontiers' positions at measured sizes; the clock is read every
2,048 moves. A key's table entry holds only its parent's key (the same object, so no bytes of
its own); a win's line is rebuilt from the keys back to the start, taking at each step the first
move whose child has the next key (positions with the same key have children with the same keys).
A kept position then costs 120 to 160 bytes as tracemalloc measures (with its share of the
frontiers), and about 190 as counted, so about 1,400,000 fit in 256 MB.

Cost, measured at ``Budget()`` (10 s), one process under ``nice -n 5`` on this project's two-core
machine while others measured too (load average 6 to 8): deals 1000 to 1019, 14 won, 6 unknown
(1000, 1006, 1007, 1010, 1012, 1016), 3.5 s a deal, the unknown deals keeping 330,000 to 480,000
positions in their 10 s; deals 1020 to 1039, 16 won, 4 unknown (1020, 1032, 1035, 1038), 2.3 s a
deal. The slowest of the deals won is 1019: 519,708 moves (the depth-first search from the ends of
the dealing wins it), 4.6 s of one core at load 3 and 7 s at load 5, so where its 10 s give it only
4 s of a core (load 6) it ends unknown at 50 cards up. At ``Budget(seconds=30)`` (load 7) the six
unknown deals of 1000 to 1019 stay unknown, each running its 30 s and keeping 960,000 to 1,060,000
positions, well within 256 MB. Unloaded, the search keeps about 80,000 positions a second of one
core, so on a quiet machine the time budget ends it (at about 800,000 positions) before the memory
budget. Moves are generated from tables (the piles by their top card's rank, each move's notation
and its parse made once), which keeps the same search 20% cheaper than formatting and parsing each
move. Reproduce with ``solve_exact(find_game("little_spider")(seed), Budget(seconds=10))`` for each
seed under ``nice -n 5``.

Why those deals stay unknown: they are probably lost, and the reachable positions are far too many
to search. Every unknown deal reaches 49 or 50 cards up and no further: the last cards lie in one
pile in the order opposite to their foundation's (deal 1000: Jack, Queen, King of Clubs, King on
top, with Clubs building up; or Three, Two, Ace of Hearts, Ace on top, with Hearts building down),
with no card left to take the top one. Given 60 s and 4 GB (load 5), deal 1000 keeps 1,660,000
positions and gets no further; the random restarts alone, given 45 s (3,900,000 moves), win none of
1000, 1006 and 1007, nor do they win 1010, 1012 or 1016 in 4,000,000 moves (39 to 46 s of one core;
they stop at 50, 50 and 49 up); 1035 and 1038 stay unknown at 49 after 40 s. A plain depth-first
search of just one of deal 1000's 71 stage-two roots (the one with 7 cards up) keeps 1,000,000
positions without ending: cards shuffle between piles in ways beyond counting. Not every such deal
is lost (both exhaustive searches stop 1002 and 1039 at 50, and the random restarts win them). A
loss's best clear is at most 50, and exactly 50 once a position with 50 up is reached and the won
position is shown unreachable: with one card left it is on top and wanted.

Bounds that do not help, because they are too weak for what they cost here. An upper bound from
a relaxed game (a card with a neighbour rank still down anywhere moves to a free cell) cuts
about one position in seventy. A sound bound from the cards that can never move (once the stock
is empty): take the greatest sets N and F of cards still down such that each card of N has
every neighbour rank still down either in N and in its own pile or in F under another card of
F, and each card of F lies under another card of F or is in N with a card that goes up before
it in F or under it in its pile; then no card of N ever moves to another pile (consider the
first that would: its target is in its own pile or covered), no card of F ever moves, and no
card after one of F on its foundation goes up. Cutting each position whose bound is at most the
best clear reached, with 50 up, cuts about half the stage-two positions with 20 to 49 cards
left, but the bound costs about 90 microseconds a position (the search keeps about three times
fewer positions in 10 s), deal 1000 is still not decided in 60 s (430,000 positions), and the
random restarts' wins come later (1039: 18 s instead of 2 s). Playing a wanted card up alone
when every neighbour rank still down lies under it in its own pile changes the moves tried by
under a twentieth. Random restarts that cut every line at a position with a provably stuck card
(a simpler form of the bound: the greatest set S of cards still down in which each card lies
under another card of S in its pile, or else has a card of S at or before the card before it on
its foundation and every neighbour rank still down under a card of S; no card of S ever moves)
won none of the six unknown deals of 1000 to 1019 in 40 s (load 14); ordering the moves by
fewest same-suit pairs lying against their foundation's order in a pile loses even 1002 and
1039.

Partial-order reductions that do not help. Searching only one order of two moves that commute
(on four distinct piles, say: sleep sets) saves moves but not positions, since every reachable
position is still reached by one of the orders, and positions are what run out. Stubborn sets
(Valmari) keep fewer positions yet reach every position with no move left (the won one, and a
loss's last one at 50 up), but here a pile's top card ties its pile to every pile holding a card
one rank above or below it, any suit: searching only the moves of the tops of a set of piles
closed under that tie (and under holding a card of a top's suit that goes up before it) drops a
move at 3 to 8% of positions (deal 1000, the first 20,000 positions from each of three positions
18 to 22 cards up) and none on a late position of 2,809 positions.

Heuristic win-finders do not help. A greedy best-first search (a table of keys, every legal
move, the best score next: 100 a card up less 4 a card over each suit's next card, with or
without penalties for same-suit cards lying against their foundation's order or for cards over
one of their suit that goes up first) and beams of 300 to 3,000 positions win none of the six
unknown deals of 1000 to 1019 (2 to 4 s of one core each), nor of the four of 1020 to 1039 from
the ends of the dealing; they stop at 49 or 50 up, as the exhaustive searches do, and win fewer
of the deals the exact search wins (in 2 s: 1008 and 1009, not 1001 to 1005 or 1011).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter

from engine.cards import Colour
from engine.core import Game
from solver.exact import Spent, finished, random_restarts, start_verdict, take_turns
from solver.search import Budget, Verdict

__all__ = ["LittleSpider", "State", "solve_exact"]

#: (piles bottom first, stock cards dealt, cards up in each suit, colour choice, each
#: foundation's suit: -1 while empty)
State = tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...], int, tuple[int, ...]]

_DEAL = "deal"
#: Bytes a kept key costs (the bytes key and its dict slot, which holds its parent's key, the
#: same object as that key) and one frontier entry (a state's tuples and its stack or heap slot):
#: with these, the count stays about 1.4 times what tracemalloc measures at its peak (deals 1000
#: and 1038 at 400,000 positions kept: 57 and 52 MB measured, 80 and 78 MB counted).
_KEY_BYTES = 150
_FRAME_BYTES = 600


#: Moves a stage-two depth-first search makes before the next root's turn, and the moves one
#: card fewer up at a root counts as (see `solve_exact`).
_SLICE = 1024
_CARD_WORK = 4096
#: The unit of the restarts search's lines: a line makes this many moves times the next term of
#: Luby's sequence before the next starts.
_RESTART = 2000


_first = itemgetter(0)
#: The engine's notation for a card from pile i to foundation j, and to pile k: ``[i][j]``, ``[i][k]``.
_TO_FOUNDATION = [[f"t{i}>f{j}" for j in range(4)] for i in range(8)]
_TO_PILE = [[f"t{i}>t{k}" for k in range(8)] for i in range(8)]
#: Each such move as (the pile it takes from, whether it goes onto a pile, that pile or foundation).
_PARSED = {move: (i, False, j) for i, row in enumerate(_TO_FOUNDATION) for j, move in enumerate(row)}
_PARSED.update({move: (i, True, k) for i, row in enumerate(_TO_PILE) for k, move in enumerate(row) if i != k})


class _Won(Exception):
    """A search reached a won position; ``args[0]`` is the line to it, in the engine's notation."""


def _card(card: object) -> int:
    return int(card.suit) * 13 + int(card.rank) - 1  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class LittleSpider:
    """One Little Spider position's cards as numbers, from which every later position follows.

    ``stock``: the stock's cards in the order ``deal`` takes them; ``colour``: the colour (0 or
    1) of each suit; ``start``: the `State` read; ``total``: 52.
    """

    stock: tuple[int, ...]
    colour: tuple[int, ...]
    start: State
    total: int

    @classmethod
    def from_game(cls, game: Game) -> LittleSpider:
        """The model of ``game`` (a Little Spider `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "little_spider":
            raise ValueError(f"not a little_spider game: {game.key!r}")
        colour = [0] * 4
        for pile in game.piles.values():
            for card in pile.cards:
                colour[int(card.suit)] = 0 if card.colour == Colour.RED else 1
        stock = tuple(_card(c) for c in reversed(game.piles["s"].cards))
        model = cls(stock, tuple(colour), ((), 0, (), 0, ()), game.total)
        object.__setattr__(model, "start", model.state_of(game))
        return model

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (the tests compare the engine's positions with the model's)."""
        piles = tuple(tuple(_card(c) for c in game.piles[f"t{i}"].cards) for i in range(8))
        up = [0] * 4
        fsuits = []
        mode = 0
        for j in range(4):
            cards = game.piles[f"f{j}"].cards
            fsuits.append(int(cards[0].suit) if cards else -1)
            if cards:
                suit = int(cards[0].suit)
                up[suit] = len(cards)
                aces = self.colour[suit] if int(cards[0].rank) == 1 else 1 - self.colour[suit]
                mode = 1 + aces
        dealt = len(self.stock) - len(game.piles["s"].cards)
        return piles, dealt, tuple(up), mode, tuple(fsuits)

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(state[2])

    def wanted(self, up: tuple[int, ...], mode: int, suit: int) -> tuple[int, ...]:
        """The ranks of ``suit`` that may go up next (two while nothing is up: Ace or King)."""
        count = up[suit]
        if count == 13:
            return ()
        if mode == 0:
            return (1, 13)
        if self.colour[suit] == mode - 1:
            return (count + 1,)
        return (13 - count,)

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        piles, dealt, up, mode, fsuits = state
        if sum(up) == 52:
            return []
        moves = []
        late = dealt >= len(self.stock)
        for i, pile in enumerate(piles):
            if not pile:
                continue
            card = pile[-1]
            suit, rank = divmod(card, 13)
            rank += 1
            if rank in self.wanted(up, mode, suit):
                if suit in fsuits:
                    moves.append(f"t{i}>f{fsuits.index(suit)}")
                else:
                    moves.extend(f"t{i}>f{j}" for j in range(4) if fsuits[j] < 0)
            if late:
                for k, other in enumerate(piles):
                    if k != i and other and (other[-1] % 13 - card % 13) % 13 in (1, 12):
                        moves.append(f"t{i}>t{k}")
        if not late:
            moves.append(_DEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        piles, dealt, up, mode, fsuits = state
        if move == _DEAL:
            new = list(piles)
            cards = self.stock[dealt : dealt + 8]
            for i, card in enumerate(cards):
                new[i] = new[i] + (card,)
            return tuple(new), dealt + len(cards), up, mode, fsuits
        i, onto, j = _PARSED[move]
        card = piles[i][-1]
        new = list(piles)
        new[i] = piles[i][:-1]
        if onto:
            new[j] = piles[j] + (card,)
            return tuple(new), dealt, up, mode, fsuits
        suit, rank = divmod(card, 13)
        if mode == 0:
            mode = 1 + (self.colour[suit] if rank == 0 else 1 - self.colour[suit])
        ups = list(up)
        ups[suit] += 1
        fs = list(fsuits)
        fs[j] = suit
        return tuple(new), dealt, tuple(ups), mode, tuple(fs)


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Little Spider, from its current position; it is not changed) exactly (see
    the module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with the
    budget that ran out (its best clear then a lower bound)."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = LittleSpider.from_game(game)
    deadline = began + budget.seconds
    stock, colour = model.stock, model.colour
    nstock = len(stock)
    best = game.cleared
    nodes = 0

    def wanted_cards(up: tuple[int, ...], mode: int) -> set[int]:
        """The cards that may go up next."""
        cards: set[int] = set()
        for suit in range(4):
            count = up[suit]
            if count == 13:
                continue
            if mode == 0:
                cards.update((suit * 13, suit * 13 + 12))
            elif colour[suit] == mode - 1:
                cards.add(suit * 13 + count)
            else:
                cards.add(suit * 13 + 12 - count)
        return cards

    def children(state: State) -> list[str]:
        """The moves searched from ``state``, best first: foundation moves (first empty
        foundation only), then deal, then moves between piles, those that bring a card wanted
        next nearer the top of its pile first."""
        piles, dealt, up, mode, fsuits = state
        ups: list[str] = []
        late = dealt >= nstock
        wanted = wanted_cards(up, mode)
        tops = [pile[-1] if pile else -1 for pile in piles]
        for i, card in enumerate(tops):
            if card in wanted:
                suit = card // 13
                j = fsuits.index(suit) if suit in fsuits else fsuits.index(-1)
                ups.append(_TO_FOUNDATION[i][j])
        if not late:
            ups.append(_DEAL)
            return ups
        # the piles by their top card's rank, so that each card finds its targets at once
        by_rank: list[list[int]] = [[] for _ in range(13)]
        for k, other in enumerate(tops):
            if other >= 0:
                by_rank[other % 13].append(k)
        across: list[tuple[int, str]] = []
        for i, card in enumerate(tops):
            if card < 0:
                continue
            r = card % 13
            above, below = by_rank[(r + 1) % 13], by_rank[r - 1]
            if not above and not below:
                continue
            pile = piles[i]
            size = len(pile)
            # how deep the nearest wanted card lies under the moving one (1: just under it)
            depth = 50 if size == 1 else 99
            if size > 1:
                for want in wanted:
                    if want in pile:
                        d = size - 1 - pile.index(want)
                        if 0 < d < depth:
                            depth = d
            # onto a pile whose wanted card lies deep costs more; ties in pile order
            for k in sorted(above + below) if above and below else above or below:
                across.append((depth, _TO_PILE[i][k]))
        across.sort(key=_first)
        return ups + [move for _, move in across]

    def key(state: State) -> object:
        piles, dealt, up, mode, _ = state
        if dealt < nstock:
            return (dealt, up, mode)
        return b"\xff".join(sorted(bytes(pile) for pile in piles if pile))

    def score(state: State) -> int:
        """Smaller first: fewer cards left, then fewer cards over the cards wanted next (one
        still in the stock counts 99)."""
        piles, _, up, mode, _ = state
        depths = [99 if up[suit] < 13 else 0 for suit in range(4)]
        for card in wanted_cards(up, mode):
            suit = card // 13
            for pile in piles:
                if card in pile:
                    depths[suit] = min(depths[suit], len(pile) - 1 - pile.index(card))
        return (52 - sum(up)) * 8 + sum(depths)

    Parents = dict[object, object]
    tables: list[Parents] = []  # each search's keys, each with its parent's key (None: the start)
    frames = [0, 0]  # the positions on each exhaustive search's frontier
    frontier: list[list[tuple[State, object]]] = [[]]  # the random restarts' frontier

    def expand(state: State, skey: object, parents: Parents) -> list[tuple[State, object]]:
        """The children of ``state`` not yet in ``parents`` (added there), best first; raises
        Spent when a budget runs out and _Won with the line to a won child."""
        nonlocal nodes, best
        fresh = []
        for move in children(state):
            nodes += 1
            if nodes >= budget.nodes:
                raise Spent(f"node budget ({budget.nodes:,} moves) spent")
            if not nodes & 2047:
                kept = sum(len(table) for table in tables)
                reason = budget.spent(
                    nodes,
                    kept,
                    time.monotonic(),
                    deadline,
                    kept * _KEY_BYTES + (sum(frames) + len(frontier[0])) * _FRAME_BYTES,
                )
                if reason:
                    raise Spent(reason)
            child = model.play(state, move)
            k = key(child)
            if k in parents:
                continue
            parents[k] = skey
            count = sum(child[2])
            if count == 52:
                raise _Won(line_to(k, parents))
            if count > best:
                best = count
            fresh.append((child, k))
        return fresh

    start = model.start
    k0 = key(start)

    def line_to(end: object, parents: Parents) -> list[str]:
        """The moves from the start to the position keyed ``end``, by the keys back from it in
        ``parents``: at each step the first move of `children` whose child has the next key (a
        position with that key was reached from one with this key, and positions with the same
        key have children with the same keys)."""
        keys = [end]
        while parents[keys[-1]] is not None:
            keys.append(parents[keys[-1]])
        line = []
        state = start
        for want in reversed(keys[:-1]):
            for move in children(state):
                child = model.play(state, move)
                if key(child) == want:
                    line.append(move)
                    state = child
                    break
        return line

    def by_roots() -> Iterator[None]:
        """Every position: stage one depth first; then a depth-first search from each position
        that has dealt the whole stock (a root), in slices of `_SLICE` moves, the root with the
        least work done so far first (each card fewer up at a root counting as `_CARD_WORK`
        moves), so that no one root's positions take the whole budget."""
        parents: Parents = {k0: None}
        tables.append(parents)
        roots: list[tuple[State, object]] = []
        stack = [(start, k0)]
        while stack:
            state, skey = stack.pop()
            if state[1] >= nstock:
                roots.append((state, skey))
                continue
            stack.extend(reversed(expand(state, skey, parents)))
            frames[0] = len(stack)
        queue = []
        for tie, (state, skey) in enumerate(roots):
            queue.append(((52 - sum(state[2])) * _CARD_WORK, tie, [(state, skey)]))
        heapq.heapify(queue)
        frames[0] = len(queue)
        while queue:
            work, tie, stack = heapq.heappop(queue)
            stop = nodes + _SLICE
            while stack and nodes < stop:
                state, skey = stack.pop()
                fresh = expand(state, skey, parents)
                fresh.reverse()
                stack.extend(fresh)
                frames[0] += len(fresh) - 1
            if stack:
                heapq.heappush(queue, (work + _SLICE, tie, stack))
            yield

    def best_first() -> Iterator[None]:
        """Every position, best first (`score`)."""
        parents: Parents = {k0: None}
        tables.append(parents)
        heap = [(score(start), 0, start, k0)]
        tie = 0
        mark = nodes + _SLICE
        while heap:
            _, _, state, skey = heapq.heappop(heap)
            for child, k in expand(state, skey, parents):
                tie += 1
                heapq.heappush(heap, (score(child), tie, child, k))
            frames[1] = len(heap)
            if nodes >= mark:
                yield
                mark = nodes + _SLICE

    def restarts() -> Iterator[None]:
        """Random depth-first lines of `_RESTART` moves times Luby's sequence (`random_restarts`),
        each with a fresh table of keys; it ends when a line has expanded every position."""
        mine = len(tables)
        tables.append({})

        def begin(stack: list[tuple[State, object]]) -> None:
            tables[mine] = {k0: None}
            frontier[0] = stack

        def grow(entry: tuple[State, object]) -> list[tuple[bool, tuple[State, object]]]:
            state, skey = entry
            cleared = sum(state[2])
            return [(sum(child[2]) > cleared, (child, k)) for child, k in expand(state, skey, tables[mine])]

        return random_restarts((start, k0), grow, begin, lambda: nodes, _RESTART, _SLICE, 0)

    # turns: four slices from the roots, one best first, two of random restarts
    try:
        take_turns([(by_roots(), 4, True), (best_first(), 1, True), (restarts(), 2, True)])
        verdict.result = "lost"  # an exhaustive search ended without a win
    except _Won as won:
        verdict.result = "won"
        verdict.solution = won.args[0]
        best = model.total
    except Spent as spent:
        verdict.reason = spent.args[0]
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, sum(len(table) for table in tables), began)
