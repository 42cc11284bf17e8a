"""An exact search for Tournament: the rules as small numbers, every reachable position accounted for.

Rules: 003_08087bb95aa03446.txt ("Tournament"), as engine/games/tournament.py states them: two
packs; eight kibitzers ``r0`` to ``r7`` of one card each, six dormitzers ``w0`` to ``w5`` (only
the top card plays; an emptied one is dealt four stock cards at once), an Ace foundation and a
King foundation for each suit, which trade cards when they meet in rank; ``deal`` puts four stock
cards on each dormitzer, ``redeal`` (twice) gathers the dormitzers into a new stock when the stock
is empty. A kibitzer's card may only go up; a dormitzer's top card may go up or to an empty
kibitzer.

State. The two copies of a card behave alike, so a card is ``suit * 13 + rank - 1`` (no pack
mark), and the kibitzers, which are alike too, are the sorted tuple of the cards they hold. A
suit's two foundations are a pair (u, d): its Ace pile holds the ranks 1 to u, its King pile d to
13 (d = 14: no King pile). When u + 1 = d the piles *meet*: they hold one copy of each rank and
trading moves the split anywhere from (0, 1) to (13, 14). From (1, 2) to (12, 13) every split
reaches every other, so those are one state, ``MEET``, in which any card of the suit may go up
(trade until it fits, then play it), giving (r, r). The ends (0, 1) and (13, 14) cannot trade back
and are reached from ``MEET``, so they can do no more than it: a card that could make either
goes to its other foundation instead, which makes ``MEET`` (an Ace on the King pile 2 with no
Ace pile, say: it starts the Ace pile). The stock is the bytes of its cards in the order they
will be dealt; the dormitzers bytes bottom to top; plus the redeals used. `state_of`
reads this from an engine `Game`; the search calls no engine code.

Safe moves (played alone, in `settle`). (1) A kibitzer's card c that fits a suit not in ``MEET``
goes up at once. Proof: let P' be P with c up and its kibitzer K empty, and L any line from P.
P' plays L's moves, keeping K empty (L cannot use K while c lies there). Until a card of c's rank
r goes up in L, L's suit cannot pass r on the chain c fits (u = r - 1 needs an r; so does
d = r + 1), the two foundations cannot meet in L (that needs an r up), and the other chain is
the same in both, so every move of L is legal in P', which holds one card more up. When L first
puts an r up: if it is c, the positions are equal; if it is the other copy c' from pile X, P'
moves c' from X to K instead (a dormitzer's top may go to an empty kibitzer; a kibitzer's card
stays where it is), and the suit then stands the same in both, or at two splits of the same
meeting. (In ``MEET`` this fails: L may first play another card of the suit, after which c no
longer fits, so there it is a choice.) Hence a dormitzer's card that fits a suit not in ``MEET``
never needs to go to a kibitzer: that position plus the safe move is the position after playing
it up at once, which the search tries. (2) Once no redeal is left, a dormitzer's top card c goes
up when its suit's piles have passed each other (u >= d: each chain then needs the one copy
left of each of its ranks, in order), unless c is its pile's last card while the stock has
cards. Proof: P' (c up) plays L's moves; L's chain cannot move on before c goes up, the other
chain is the same in both; cards dealt onto c's pile in L lie in the same order on the pile
without c in P', and with a card under c (or an empty stock, which no later move refills)
the pile never empties in P' where it does not in L, so no refill differs; when L plays c (up,
or to a kibitzer and later up), P' does nothing (keeping that kibitzer empty meanwhile).

The search is a limited-discrepancy depth-first search over settled positions: each iteration
allows a number of moves that are not the first in the search's order (0, 0, 1, 1, 2, 2, ...),
alternating two orders, and keeps each position once with the most such moves it had left
(searched again only with more). Moves from a position: a dormitzer's top card up; a kibitzer's
card up to a ``MEET`` suit; the dormitzer cards to an empty kibitzer that dig down to a card that
fits (one order: only those baring such a card at once or emptying the pile; the other: those
reaching it with fewest cards moved, keeping a kibitzer free); ``deal``; the other dormitzer
cards to a kibitzer (never one that fits a suit not in ``MEET``); ``redeal``.

Why it is exact. The moves computed from a state are the engine's, with trades folded into
``MEET`` (tests/solver/test_tournament.py compares them, and every next state, with the engine's
over many deals and random lines of play, trades included). Every reachable position is searched
or matched by one that can do all it can (the safe moves and the two ends above). A deal is
called lost only after an iteration that left out no move at all (every position it reached had
all its moves tried), so that search proves it, and the most cards up in any position searched is
the most that can be cleared. A win is turned into the engine's notation (trades, kibitzer and
foundation ids chosen by replaying it on the engine), and the engine replays it to ``won``.

Budgets: ``nodes`` counts moves tried, ``positions`` the positions kept in the current
iteration, ``memory_mb`` those at a measured size each plus the search's stack; the clock is read
every 1,024 moves.

Cost, measured with `solve_exact` at ``Budget()`` (10 s) on deals 1000 to 1049, one process
under ``nice -n 5`` on this project's two-core machine while others measured too (load average
about 9.5): 46 decided (45 won, 1 lost: no Ace or King can ever be reached), 4 unknown (deals
1009, 1023, 1024, 1034); 2.2 s a deal on average, median 0.65 s, 10 s at most; 53,000 positions
kept a deal on average; 297 MB peak resident memory for the whole run. Reproduce with
``arena solve tournament --deals 50 --jobs 1`` once the game is registered in
``solver.search.EXACT``. A lost deal with more than a few cards in play is out of reach: proving
it means searching every order of kibitzer moves and deals.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.core import Game, IllegalMove
from solver.exact import Spent, finished, start_verdict
from solver.search import Budget, Verdict

__all__ = ["MEET", "Tournament", "State", "solve_exact"]

#: (each suit's foundation code, the kibitzers' cards sorted, each dormitzer's cards bottom to
#: top, the stock's cards in the order they are dealt, redeals used)
State = tuple[tuple[int, ...], tuple[int, ...], tuple[bytes, ...], bytes, int]

_DEAL, _REDEAL = "deal", "redeal"
#: A line of play, last move first: (the line before, its last move).
_Link = tuple["_Link", str] | None
_KIBITZERS, _DORMITZERS, _BATCH, _REDEALS = 8, 6, 4, 2
#: The code of a suit whose foundations meet (any split from (1, 2) to (12, 13)).
MEET = 15 * 16
#: Bytes one kept state costs (a bytes key of about 120 bytes and its table slot), as
#: tracemalloc measured (peak over positions kept, deals 1009 and 1024), rounded up; and one
#: frame of the search.
_KEY_BYTES = 300
_FRAME_BYTES = 1_200


def _code(u: int, d: int) -> int:
    """The code of a suit whose Ace pile holds ranks 1 to ``u`` and King pile ``d`` to 13."""
    return MEET if u + 1 == d and 1 <= u <= 12 else u * 16 + d


def _fit_table() -> tuple[list[list[int]], list[int]]:
    """fit[code][rank]: the code after a card of ``rank`` goes up (-1: it does not fit);
    cleared[code]: the cards up in a suit of that code."""
    fit = [[-1] * 14 for _ in range(MEET + 1)]
    cleared = [0] * (MEET + 1)
    for u in range(14):
        for d in range(1, 15):
            code = u * 16 + d
            if code == MEET:
                continue
            cleared[code] = u + 14 - d
            for r in range(1, 14):
                options = []
                if r == u + 1:
                    options.append(_code(r, d))
                if r == d - 1:
                    options.append(_code(u, r))
                if options:
                    fit[code][r] = MEET if MEET in options else options[0]
    cleared[MEET] = 13
    for r in range(1, 14):
        fit[MEET][r] = r * 16 + r
    return fit, cleared


_FIT, _CLEARED = _fit_table()
#: For each code, a mask of the ranks (bit rank - 1) that fit: any; and only where a kibitzer's
#: card fitting goes up safely (not ``MEET``), or a dormitzer's (piles passed each other).
_ANY = [sum(1 << r - 1 for r in range(1, 14) if _FIT[code][r] >= 0) for code in range(MEET + 1)]
_SAFE = [0 if code == MEET else _ANY[code] for code in range(MEET + 1)]
_PASSED = [_SAFE[code] if code >> 4 >= code & 15 else 0 for code in range(MEET + 1)]


def _mask(table: list[int], found: tuple[int, ...]) -> int:
    """The cards (bit ``suit * 13 + rank - 1``) whose suit's code marks their rank in ``table``."""
    return table[found[0]] | table[found[1]] << 13 | table[found[2]] << 26 | table[found[3]] << 39


def _card(card: object) -> int:
    return int(card.suit) * 13 + int(card.rank) - 1  # type: ignore[attr-defined]


def _name(card: int) -> str:
    return "A23456789TJQK"[card % 13] + "CDHS"[card // 13]


@dataclass(frozen=True, slots=True)
class Tournament:
    """A Tournament position as plain values (see the module docstring), with the moves of the
    model: ``w<i>>f`` (dormitzer i's top card up), ``w<i>>r`` (to an empty kibitzer), ``r<card>>f``
    (a kibitzer holding ``card``, e.g. ``r5H>f``, up), ``deal``, ``redeal``; a card goes up with
    the trades it needs folded in (see ``MEET``).

    ``start``: the `State` read, as it stands; ``total``: 104.
    """

    start: State
    total: int = 104

    @classmethod
    def from_game(cls, game: Game) -> Tournament:
        """The model of ``game`` (a Tournament `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "tournament":
            raise ValueError(f"not a tournament game: {game.key!r}")
        return cls(state_of(game), game.total)

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(_CLEARED[code] for code in state[0])

    def legal(self, state: State) -> list[str]:
        """Every move of the model in ``state`` (none left out as the search leaves some out)."""
        found, kib, dorms, stock, redeals = state
        moves = [
            f"w{i}>f" for i, pile in enumerate(dorms) if pile and _FIT[found[pile[-1] // 13]][pile[-1] % 13 + 1] >= 0
        ]
        moves += [f"r{_name(card)}>f" for card in sorted(set(kib)) if _FIT[found[card // 13]][card % 13 + 1] >= 0]
        if len(kib) < _KIBITZERS:
            moves += [f"w{i}>r" for i, pile in enumerate(dorms) if pile]
        if stock:
            moves.append(_DEAL)
        elif redeals < _REDEALS and any(dorms):
            moves.append(_REDEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s), as the engine leaves it (emptied
        dormitzers refilled; no safe move made)."""
        return step(state, move)


def state_of(game: Game) -> State:
    """The `State` of an engine position, as it stands (not settled)."""
    found = [0] * 4
    aces: dict[int, int] = {}
    kings: dict[int, int] = {}
    for i in range(8):
        cards = game.piles[f"f{i}"].cards
        if cards:
            (aces if i < 4 else kings)[int(cards[0].suit)] = len(cards)
    for suit in range(4):
        found[suit] = _code(aces.get(suit, 0), 14 - kings.get(suit, 0))
    kib = tuple(sorted(_card(game.piles[f"r{i}"].cards[-1]) for i in range(8) if game.piles[f"r{i}"].cards))
    dorms = tuple(bytes(_card(c) for c in game.piles[f"w{i}"].cards) for i in range(_DORMITZERS))
    stock = bytes(_card(c) for c in reversed(game.piles["s"].cards))
    return tuple(found), kib, dorms, stock, int(game.redeals)  # type: ignore[attr-defined]


def _refill(dorms: list[bytes], stock: bytes) -> bytes:
    """Deal four stock cards to each empty dormitzer (w0 first) while the stock lasts; the stock left."""
    for i in range(_DORMITZERS):
        if not dorms[i] and stock:
            dorms[i], stock = stock[:_BATCH], stock[_BATCH:]
    return stock


#: The search's moves as ints: dormitzer i's top card up (``_UP + i``) or to a kibitzer
#: (``_PARK + i``), ``deal``, ``redeal``, a kibitzer's card up (``_KIB + card``).
_UP, _PARK, _DEAL_M, _REDEAL_M, _KIB = 0, 8, 16, 17, 64
_SUIT = bytes(card // 13 for card in range(52))
_RANK = bytes(card % 13 + 1 for card in range(52))


def _encode(move: str) -> int:
    """A move of `Tournament.legal` as the search's int."""
    if move == _DEAL:
        return _DEAL_M
    if move == _REDEAL:
        return _REDEAL_M
    if move[0] == "w":
        return (_UP if move[-1] == "f" else _PARK) + int(move[1])
    return _KIB + "CDHS".index(move[2]) * 13 + "A23456789TJQK".index(move[1])


def step(state: State, move: str | int) -> State:
    """The state right after ``move`` (a move of `Tournament.legal`, or the search's int for
    it), before `settle`."""
    m = _encode(move) if isinstance(move, str) else move
    found, kib, dorms, stock, redeals = state
    if m == _DEAL_M:
        piles = list(dorms)
        for i in range(_DORMITZERS):
            piles[i], stock = piles[i] + stock[:_BATCH], stock[_BATCH:]
    elif m == _REDEAL_M:
        stock = b"".join(dorms)
        piles = [b""] * _DORMITZERS
        redeals += 1
    elif m < _DEAL_M:
        i = m & 7
        piles = list(dorms)
        card = piles[i][-1]
        piles[i] = piles[i][:-1]
        if m < _PARK:
            suit = _SUIT[card]
            found = found[:suit] + (_FIT[found[suit]][_RANK[card]],) + found[suit + 1 :]
        else:
            kib = tuple(sorted(kib + (card,)))
        if piles[i]:
            return found, kib, tuple(piles), stock, redeals
    else:
        card = m - _KIB
        at = kib.index(card)
        kib = kib[:at] + kib[at + 1 :]
        suit = _SUIT[card]
        found = found[:suit] + (_FIT[found[suit]][_RANK[card]],) + found[suit + 1 :]
        return found, kib, dorms, stock, redeals
    stock = _refill(piles, stock)
    return found, kib, tuple(piles), stock, redeals


def settle(state: State) -> tuple[State, list[tuple[int, int]]]:
    """``state`` after the safe moves (module docstring), until none is left: a kibitzer's card
    that fits a suit not in ``MEET`` goes up; once no redeal is left, so does a dormitzer's top card
    that fits a suit whose piles have passed each other, unless it is the pile's last card while
    the stock has cards. Also the moves made, in order: (-1 for a kibitzer or the dormitzer's
    index, card)."""
    found, kib, dorms, stock, redeals = state
    fit, suits, ranks = _FIT, _SUIT, _RANK
    moved: list[tuple[int, int]] = []
    while True:
        safe = _mask(_SAFE, found)
        for at, card in enumerate(kib):
            if safe >> card & 1:
                suit = suits[card]
                found = found[:suit] + (fit[found[suit]][ranks[card]],) + found[suit + 1 :]
                kib = kib[:at] + kib[at + 1 :]
                moved.append((-1, card))
                break
        else:
            if redeals < _REDEALS:
                break
            passed = _mask(_PASSED, found)
            if not passed:
                break
            for i, pile in enumerate(dorms):
                if pile and passed >> pile[-1] & 1 and (len(pile) > 1 or not stock):
                    card = pile[-1]
                    suit = suits[card]
                    found = found[:suit] + (fit[found[suit]][ranks[card]],) + found[suit + 1 :]
                    dorms = dorms[:i] + (pile[:-1],) + dorms[i + 1 :]
                    moved.append((i, card))
                    break
            else:
                break
    return (found, kib, dorms, stock, redeals), moved


def _moves(state: State, dig: bool = True) -> list[int]:
    """The search's moves in ``state`` (`Tournament.legal`'s less those the module docstring
    shows are never needed), as ints, in the order it tries them; ``dig``: which of the two
    orders (see the module docstring)."""
    found, kib, dorms, stock, redeals = state
    fits = _mask(_ANY, found)
    safe = _mask(_SAFE, found)
    moves = [_UP + i for i in range(_DORMITZERS) if dorms[i] and fits >> dorms[i][-1] & 1]
    last = -1
    for card in kib:
        if card != last and fits >> card & 1:  # (a kibitzer's card that fits is in a MEET suit)
            moves.append(_KIB + card)
        last = card
    later: list[int] = []
    free = _KIBITZERS - len(kib)
    if free:
        # first those that dig down to a card that fits (fewest cards to move first) or empty
        # the pile, keeping a kibitzer free where they can; the others after ``deal``
        digs: list[tuple[int, int]] = []
        for i in range(_DORMITZERS):
            pile = dorms[i]
            if pile and not safe >> pile[-1] & 1:
                n = len(pile)
                j = 1
                while j < n and j <= free and not fits >> pile[-1 - j] & 1:
                    j += 1
                if not dig:
                    if j == 1 or n == 1:
                        digs.append((0, i))
                    else:
                        later.append(_PARK + i)
                elif j < free or j == n and j <= free:
                    digs.append((j, i))
                else:
                    later.append(_PARK + i)
        digs.sort()
        moves += [_PARK + i for _, i in digs]
    if stock:
        moves.append(_DEAL_M)
    elif redeals < _REDEALS and any(dorms):
        later.append(_REDEAL_M)
    return moves + later


def _key(state: State) -> bytes:
    found, kib, dorms, stock, redeals = state
    return bytes(found) + bytes(kib) + b"\xff".join(dorms) + b"\xfe" + stock + bytes((redeals, len(kib)))


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Tournament, from its current position; it is not changed) exactly (see
    the module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with
    the budget that ran out (its best clear then a lower bound)."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    deadline = began + budget.seconds
    model = Tournament.from_game(game)
    start = settle(model.start)[0]
    cleared = _CLEARED
    # key -> the most discrepancies (moves other than the first tried) left when it was searched
    seen: dict[bytes, int] = {}
    line: list[int] = []
    best = model.cleared(start)
    nodes = 0
    depth = 0
    cut = False

    def search(state: State, left: int) -> bool:
        nonlocal nodes, best, depth, cut
        depth += 1
        for index, move in enumerate(_moves(state, dig)):
            spend = left - (index > 0)
            if spend < 0:
                cut = True
                break
            nodes += 1
            if nodes >= budget.nodes:
                raise Spent(f"node budget ({budget.nodes:,} moves) spent")
            if not nodes & 1023:
                reason = budget.spent(
                    nodes, len(seen), time.monotonic(), deadline, len(seen) * _KEY_BYTES + depth * _FRAME_BYTES
                )
                if reason:
                    raise Spent(reason)
            child, _ = settle(step(state, move))
            f = child[0]
            up = cleared[f[0]] + cleared[f[1]] + cleared[f[2]] + cleared[f[3]]
            if up > best:
                best = up
                if up == 104:
                    line.append(move)
                    return True
            k = _key(child)
            if seen.get(k, -1) >= spend:
                continue
            seen[k] = spend
            if search(child, spend):
                line.append(move)
                return True
        depth -= 1
        return False

    try:
        allowed = 0
        dig = False
        while best < 104:
            cut = False
            seen.clear()
            seen[_key(start)] = allowed
            depth = 0
            if search(start, allowed):
                verdict.result = "won"
                best = 104
                verdict.solution = _notation(game, model, line[::-1])
                break
            if not cut:  # every reachable position was searched
                verdict.result = "lost"
                break
            if dig:
                allowed += 1
            dig = not dig
        else:  # the safe moves alone win
            verdict.result = "won"
            verdict.solution = _notation(game, model, [])
    except Spent as spent:
        verdict.reason = spent.args[0]
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, len(seen), began)


def _notation(game: Game, model: Tournament, moves: list[int]) -> list[str]:
    """The model's ``moves`` from ``model.start`` (read from ``game``) in the engine's notation,
    chosen by playing them on a copy of ``game``: the safe moves `settle` makes, trades where a
    card goes up to a ``MEET`` suit, the kibitzer and foundation each card uses."""
    board = game.copy()
    out: list[str] = []
    state = state_of(board)
    settled, moved = settle(state)
    for src, card in moved:
        _lift(board, out, card, None if src < 0 else f"w{src}")
    state = settled
    for move in moves:
        raw = step(state, move)
        if move < _PARK:
            _lift(board, out, state[2][move][-1], f"w{move}")
        elif move < _DEAL_M:
            empty = next(i for i in range(8) if not board.piles[f"r{i}"].cards)
            _apply(board, out, f"w{move - _PARK}>r{empty}")
        elif move < _KIB:
            _apply(board, out, _DEAL if move == _DEAL_M else _REDEAL)
        else:
            _lift(board, out, move - _KIB, None)
        state, moved = settle(raw)
        for src, card in moved:
            _lift(board, out, card, None if src < 0 else f"w{src}")
    return out


def _apply(board: Game, out: list[str], move: str) -> None:
    board.apply(move)
    out.append(move)


def _lift(board: Game, out: list[str], card: int, src: str | None) -> None:
    """Play ``card`` up from ``src`` (None: a kibitzer holding it) on ``board``, with the trades
    it needs first, so that its suit ends as the model's step says."""
    if src is None:
        src = next(f"r{i}" for i in range(8) if (p := board.piles[f"r{i}"].cards) and _card(p[-1]) == card)
    suit = card // 13
    before = state_of(board)[0][suit]
    want = _FIT[before][card % 13 + 1]
    # breadth-first over trades of this suit's foundations until the card's move makes `want`
    frontier: list[tuple[Game, list[str]]] = [(board, [])]
    seen = {board.position()}
    while frontier:
        nxt: list[tuple[Game, list[str]]] = []
        for pos, trades in frontier:
            for fid in range(8):
                trial = pos.copy()
                try:
                    trial.apply(f"{src}>f{fid}")
                except IllegalMove:
                    continue
                if state_of(trial)[0][suit] == want:
                    for move in [*trades, f"{src}>f{fid}"]:
                        _apply(board, out, move)
                    return
            ours = [f for f in range(8) if (p := pos.piles[f"f{f}"].cards) and int(p[0].suit) == suit]
            for a in ours:
                for b in ours:
                    if a == b:
                        continue
                    trial = pos.copy()
                    try:
                        trial.apply(f"f{a}>f{b}")
                    except IllegalMove:
                        continue
                    if trial.position() not in seen:
                        seen.add(trial.position())
                        nxt.append((trial, [*trades, f"f{a}>f{b}"]))
        frontier = nxt
    raise AssertionError(f"no engine line plays {_name(card)} up from {src}")
