"""What the search knows about Friday 13: suits never matter, and an empty foundation must be started.

Rules: 001_1b1f3c1dc9fc716f.txt, as engine/games/friday_13.py states them: thirteen foundations
labelled Jack, Queen, King, Ace, Two ... Ten (``f0`` to ``f12``), the first four started at the
deal; an empty foundation takes only a card of its label's rank, once every foundation to its
left is started; any card goes on a foundation whose top is one rank lower, round the corner;
the stock is turned one card at a time onto the waste, with one redeal. A win needs every card
home and every foundation started.

Three pieces of knowledge:

* `canonical`: no rule looks at a suit or under a foundation's top card, and started
  foundations differ only by their top rank (foundations are started left to right, so how many
  are started says which). A position is written as that count, the multiset of top ranks, the
  ranks of the stock and of the waste in order, and the redeals used.
* `ordered_moves`: the waste card onto its empty foundation first (the rules text's own advice:
  every foundation must be started, and all four cards of a rank may otherwise be built on other
  foundations), then onto a started foundation, then deal, then redeal. Two moves of the waste
  card onto foundations with the same top rank lead to one position, so only the first is kept:
  a merge of equal positions, not a pruning.
* `score`: cards cleared and foundations started; a position where an empty foundation's rank
  has no card left outside the foundations can never be won and comes last.

No move is left out, so a search that runs out of positions still proves a deal lost.

The exact search (`Friday13`, `solve_exact`) plays the same rules on plain values, with no engine
call inside the search. The talon is the stock and waste as one list, in the order the next
pass after a redeal deals it (the waste's bottom card first). State in the model: the talon's
ranks left, how many lie on the waste, each foundation's top rank and the redeals used. Inside
the search a position is the talon's cards left (as ranks, bytes), the foundations started,
the redeals used and the waste count: which ranks are up and how many foundations are started
fix how many foundations show each top rank (every card up is a top or lies under one card one
rank higher, except the one that started its foundation), and foundations with equal tops are
alike, so nothing else matters.

Why it is exact. Dealing changes nothing but the waste count, so a position reached with fewer
redeals used, or as many and fewer cards on the waste, can deal its way to the other: the
search keeps, for each (cards left, foundations started), the least (redeals, waste count) it
was reached with and skips a position reached again with as many or more. One step of the
search plays one talon card: the deals (and the redeal) that bring it to the waste's top, the
fewest first, then the card onto its own empty foundation or onto a foundation one rank lower
(one of the alike ones): a card after a redeal only where it lies under the waste's top now
(one above it is reached sooner by dealing on). Safe move, played alone: the waste's top card
when its own foundation is started (or this card starts it) and the foundations it could go on
(tops one rank lower, and its own if this card starts it) are at least as many as the cards of
its rank not yet up. Proof: only cards of its rank go on those foundations, so every other card
of the rank still finds one whenever it comes, and its own foundation needs no other card of
the rank; taking the card from a draw-one talon changes no other card's order. So every line
from the position before is matched, move for move, from the position after (the card's own
move left out), with at least as many cards up and at least as many foundations started. A
second safe move, in the last pass only: the waste's top card x of rank r when its foundation
is started, a top of rank r - 1 takes it, and no other card of rank r lies in the stock. Proof:
the other cards of rank r lie under x on the waste and no redeal is left, so no line plays one
of them before x; only a card of rank r takes a top of rank r - 1, so until a line plays x it
never needs the top x takes, and the top of rank r that x makes only adds moves. Playing x
first and then that line, less x's move, is legal move for move; once the line plays x both
reach the same position, and a line that never plays x ends with one card fewer up. A
search that ends without a win has matched every reachable position: the deal is lost, and the
most cards up in any position searched (52 with a foundation empty counting 51) is the most
that can be cleared.

Bound (branch and bound): a position is not searched when no line from it can clear more cards
than the most cleared so far (`_bound`); the figure counts cards that can never go up:

* A card of rank r goes on a foundation topped r - 1 (r - 1 = King for an Ace), or starts its own
  foundation if that is not started; each top of rank r - 1 takes one card, and a new one comes
  only when a card of rank r - 1 goes up. A foundation starts only after every one to its left,
  so it may start only while each label from the first foundation not started up to its own has
  a card left that can still go up. So in any line, at every moment, the cards of rank r gone up
  are at most (foundations topped r - 1) + (cards of rank r - 1 gone up) + (1 if its foundation
  may start), and at most the cards of rank r left: by induction over the line's moves they stay
  at or below the least fixed point of up[r] = min(left[r], tops[r - 1] + up[r - 1] + start[r])
  (computed from zero), which is the most of each rank that go up. A foundation whose label's
  rank has no card left that can still go up is never started: no win (51 at most).
* In the last pass (no redeal left) the waste is a stack that only the cards dealt onto it
  uncover. A waste card x can go up only after the cards above it on the waste, and it can be
  taken only by a top of rank r - 1 there now or made by a card of rank r - 1 above it or still
  to be dealt; when those are no more than the cards of x's rank above it (each needs one
  first), x never goes up, nor does any card beneath it. Sharper (`_uncovered`): when x goes up,
  every waste card above it and every stock card dealt so far has gone up before it (they lay on
  it), and nothing else has (the cards under x are under it, the rest not dealt); so for some
  number of stock cards dealt, before the frontier below, the counting rule above, run on just
  those cards, lets them all go up and leaves a top of rank r - 1 (or x's own start) for x. When
  no number does, x never goes up, nor does any card beneath it (a waste card that never goes up
  covers the cards under it for good). A card still in the stock whose rank
  r - 1 has no top, no card left and no own start never goes up; once the first stock card that
  never goes up (the frontier) is dealt it covers every card still on the waste for good, so a card
  before the frontier goes up before the frontier is dealt, taken by a top made by cards before
  the frontier, or never. Stock cards in order (`_dealt`, run once the other marks add
  nothing): a stock card y of rank r goes up at some moment after it is dealt, and then every
  card dealt onto it has gone up before it (they lay on it), none of them marked; the cards
  before y that have gone up did so before y was dealt (the ones left lie under y), so they are
  no more of each rank than the counting rule run on the cards before y alone allows (`F`).
  So the cards up when y goes up are at most those (capped by `F`) and all the cards dealt onto
  it, and the counting rule run on these (monotone in the cards it is given) bounds the cards of
  each rank up then: it must let every card dealt onto y go up, and y needs a top of rank r - 1
  (tops of r - 1 are those now, plus the cards of r - 1 up, less the cards of r up, each of
  which took one, less at most one that started r's foundation) or its own start: the tops of
  r - 1 now, the most cards of r - 1 up, and its start must exceed the cards of r dealt onto it.
  When no number of cards dealt onto y, up to the next marked card, passes, y never goes up.
  These marks are repeated until none is added. The same rule sees the next pass from a
  position before the redeal (the redeal empties the waste, so the whole talon is dealt in
  order): a card that may go up before the redeal (`_pass_up`) is never marked, and it counts
  among the cards that may have gone up before y is dealt (gone before the redeal, or dealt
  before y); one dealt onto y has gone up before y either way (in this pass or the next).
* The last card of a rank (`_last_caps`): every card of rank r that goes up takes a top of rank
  r - 1 made before it (one there now, or one a card of rank r - 1 made by going up), no two the
  same one, or starts r's foundation (once). So when the last card of rank r that a line takes up
  goes up, the cards of rank r up are at most the tops of rank r - 1 now, the cards of rank r - 1
  up by then, and one start; and the cards up by then are bounded by the counting rule (monotone
  in the cards it is given) run on the cards that may be up by then. In the last pass, for a waste
  card: the cards above it and the stock cards before the frontier; for a stock card: the cards
  dealt before it, no more of each rank than the counting rule on them alone lets go up (they went
  up before it was dealt: the others lie under it), and the cards dealt onto it before the next
  marked card. Before the redeal, the card goes up in this pass (the cards up by then all may go
  up before the redeal) or in the next, which deals the whole talon in order onto an emptied waste
  (the cards up by then went up before the redeal, or before it was dealt, or were dealt onto it
  before the next marked card): either way the counting rule on the cards that may go up before
  the redeal and the cards before it, plus the cards dealt onto it before the next marked card,
  bounds them. So the cards of rank r that go up are at most the largest of these figures over the
  cards of rank r left, which caps each rank in the least fixed point. (Deal 1006: two Kings for
  one Queen top, the second Queen top only from a Queen that waits on a Jack dealt under the
  second King; the counting rule alone lets both Kings go up.)
* One pass at a time (`_pass_up`), in a looser game: a rank once shown on a foundation's top
  shows there for good, and a card of a label's rank may start that foundation whenever every
  foundation to its left is (or may be) started. Every line of the rules is a line of the looser
  game. There, playing a card that fits never hurts (the ranks shown only grow, the foundations
  started only grow, the waste only loses its top card: every line from before is matched from
  after, less that card's move), so playing every card as soon as it fits, over the pass,
  takes up every card that any line takes up in it. Over the pass under way this gives the
  cards that may go up before the redeal; every other card is surely in the next pass. In the
  next pass a card that may have gone up covers nothing (it may be gone), and the ranks it shows
  and the foundations it may start count from the pass's start; a card that goes up in neither
  pass never does. In the last pass the cards it leaves are the first marks of the rule above.

Every mark follows from rules and earlier marks, so the bound is never below what a line can
clear; tests/solver/test_friday_13.py holds it against a plain search, on late positions of real
deals and on made-up positions before and after the redeal.

Pruning a position whose bound is at most the best clear found loses nothing: the best clear
only grows, so a position skipped later for its (redeals, waste count) was worth no more.

Before the search of every position, greedy random lines (`_playout`, at most 4,096 lines and a
tenth of the budget's seconds and nodes) play the most promising move three times in four, else any legal
one: they win most winnable deals in milliseconds, including ones whose wins the ordered search
reaches late. They stop once one clears what the bound of the start allows: the search then
proves the deal lost at its first position. tests/solver/test_friday_13.py checks the model against the engine move for
move, the verdicts and best clears against a plain search of the model's own moves, and the
bound against a plain search. Budgets: ``nodes`` counts cards played (and moves of the random
lines), ``positions`` the keys kept, ``memory_mb`` those (about 150 bytes each, as tracemalloc
counts) and the stack; the clock is read every 256 cards played (every 32 random lines).

Cost, measured at ``Budget()`` (10 s a deal), one process under ``nice -n 5`` on this project's
two-core machine while others measured too (load average 3 to 7): deals 1000 to 1019, 15 won, 5
proved lost (1000, 1006, 1009, 1011, 1018: the random lines clear what the bound of the start
allows, so each is lost at once, in 0.05 s), none unknown, 0.05 s a deal; deals 1020 to 1039, 14
won, 1 lost (1020, at once), 5 unknown (1023, 1026, 1028, 1033, 1038), 2.5 s a deal; every win under
0.6 s (most under 0.01 s); 25 MB peak resident memory (deal 1033). The unknown deals clear 41 to 47
cards in the best line found while the bound stays 5 to 11 cards above that over most of the search
(at the start and at the positions searched, sampled on 1023, 1026 and 1028): these are no longer one
card off, and whether they are late wins or losses is not known. The bound takes most of the time
(about 0.5 ms a position, `_dealt` and `_last_caps` the most of it). Reproduce by calling
`solve_exact` on ``find_game("friday_13")(seed)`` with ``Budget()`` for each seed.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from engine.core import Game, Move
from solver.budget import Budget, Verdict
from solver.exact import Spent, finished, start_verdict

__all__ = ["Friday13", "State", "canonical", "ordered_moves", "score", "solve_exact"]

#: Foundations ``f0`` to ``f12`` and the rank each is labelled with (Jack, Queen, King, Ace, 2 ... 10).
_FOUNDATIONS = tuple(f"f{i}" for i in range(13))
_LABELS = (11, 12, 13, *range(1, 11))
#: What a position that can never be won loses from its score (more than any clear is worth).
_DEAD = 10_000


def _started(game: Game) -> int:
    return sum(1 for pid in _FOUNDATIONS if game.piles[pid].cards)


def canonical(game: Game) -> str:
    """The position as ranks, for one search's transposition table (see the module docstring);
    e.g. ``"5 1bcdd s:7a2... w:93 r0"``."""
    piles = game.piles
    tops = "".join(sorted(f"{piles[pid].cards[-1].rank:x}" for pid in _FOUNDATIONS if piles[pid].cards))
    stock = "".join(f"{card.rank:x}" for card in piles["s"].cards)
    waste = "".join(f"{card.rank:x}" for card in piles["w"].cards)
    return f"{_started(game)} {tops} s:{stock} w:{waste} r{game.redeals}"  # type: ignore[attr-defined]


def _dead(game: Game) -> bool:
    """Whether some empty foundation's rank has no card left in the stock or the waste."""
    piles = game.piles
    loose = {card.rank for pid in ("s", "w") for card in piles[pid].cards}
    return any(not piles[pid].cards and label not in loose for pid, label in zip(_FOUNDATIONS, _LABELS))


def score(game: Game) -> int:
    """How promising a position looks: 4 per card cleared and 4 per foundation started; a
    position that can never be won (`_dead`) loses `_DEAD`."""
    return 4 * game.cleared + 4 * _started(game) - (_DEAD if _dead(game) else 0)


def ordered_moves(game: Game) -> list[Move]:
    """The legal moves of ``game`` that lead to distinct positions, most promising first (see
    the module docstring)."""
    starts, builds, rest = [], [], []
    tops: set[int] = set()
    for move in game.legal_moves():
        if not move.is_transfer:
            rest.append(move)
            continue
        pile = game.piles[move.dst].cards
        if not pile:
            starts.append(move)
        elif pile[-1].rank not in tops:
            tops.add(pile[-1].rank)
            builds.append(move)
    rest.sort(key=lambda move: move.action == "redeal")
    return starts + builds + rest


# The exact search ------------------------------------------------------------------------------

#: (the ranks of the stock and waste cards, in the order of the talon (see `Friday13`), talon
#: cards on the waste, each foundation's top rank (0: empty), redeals used)
State = tuple[tuple[int, ...], int, tuple[int, ...], int]

_DEAL, _REDEAL = "deal", "redeal"
#: The label's place among the foundations, for each rank (1 to 13; index 0 unused).
_PLACE = [0] * 14
for _i, _rank in enumerate(_LABELS):
    _PLACE[_rank] = _i
#: Bytes one kept key costs in the search's table (a bytes key of up to 49 bytes, an int value and the slot), and
#: one frame of the search's stack, as measured with tracemalloc (rounded up).
_KEY_BYTES = 150
#: The mark of a safe step (tried alone)
_SAFE = -(10**6)
_FRAME_BYTES = 1200


@dataclass(frozen=True, slots=True)
class Friday13:
    """One Friday 13 position as plain ranks, from which every later position follows.

    ``talon``: the ranks of the stock and waste cards in the order the next pass after a redeal
    deals them (the waste's bottom card first, then the stock's top card first); ``start``: the
    `State` read; ``redeals``: how many redeals the rules allow; ``total``: 52.
    """

    talon: tuple[int, ...]
    start: State
    redeals: int
    total: int

    @classmethod
    def from_game(cls, game: Game) -> Friday13:
        """The model of ``game`` (a Friday 13 `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "friday_13":
            raise ValueError(f"not a friday_13 game: {game.key!r}")
        piles = game.piles
        talon = tuple(int(c.rank) for c in piles["w"].cards) + tuple(int(c.rank) for c in piles["s"].cards[::-1])
        tops = tuple(int(piles[pid].cards[-1].rank) if piles[pid].cards else 0 for pid in _FOUNDATIONS)
        spec = game._stock_spec()  # type: ignore[attr-defined]
        allowed = spec.redeals if spec is not None and spec.redeals is not None else 1
        used = game.redeals  # type: ignore[attr-defined]
        return cls(talon, (talon, len(piles["w"].cards), tops, used), max(allowed, used), game.total)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (the tests compare the engine's positions with the model's)."""
        piles = game.piles
        left = tuple(int(c.rank) for c in piles["w"].cards) + tuple(int(c.rank) for c in piles["s"].cards[::-1])
        tops = tuple(int(piles[pid].cards[-1].rank) if piles[pid].cards else 0 for pid in _FOUNDATIONS)
        return left, len(piles["w"].cards), tops, game.redeals  # type: ignore[attr-defined]

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them (52 with a foundation
        still empty counts 51)."""
        left, _, tops, _ = state
        up = self.total - len(left)
        if up == self.total and not all(tops):
            return up - 1
        return up

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        left, k, tops, used = state
        moves = []
        if k:
            rank = left[k - 1]
            moves = [f"w>{_FOUNDATIONS[j]}" for j in range(13) if _fits(tops, j, rank)]
        if k < len(left):
            moves.append(_DEAL)
        elif k and used < self.redeals:
            moves.append(_REDEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        left, k, tops, used = state
        if move == _DEAL:
            return left, k + 1, tops, used
        if move == _REDEAL:
            return left, 0, tops, used + 1
        j = _FOUNDATIONS.index(move.split(">")[1])
        return left[: k - 1] + left[k:], k - 1, tops[:j] + (left[k - 1],) + tops[j + 1 :], used


def _fits(tops: tuple[int, ...] | list[int], j: int, rank: int) -> bool:
    """Whether a card of ``rank`` may go on foundation ``j`` with the foundations' ``tops``."""
    top = tops[j]
    if top:
        return rank == top % 13 + 1
    return rank == _LABELS[j] and all(tops[:j])


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Friday 13, from its current position; it is not changed) exactly (see the
    module docstring). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation, lost (proved) with the most cards that can be cleared, or unknown with the
    budget that ran out (its best clear then a lower bound). ``nodes`` counts cards played (with
    the deals before each) and the greedy random lines' moves, ``positions`` the positions kept.
    The default budget is a race's par budget."""
    began = time.monotonic()
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    model = Friday13.from_game(game)
    deadline = began + budget.seconds
    talon, allowed, total = model.talon, model.redeals, model.total
    _, k0, tops0, used0 = model.start
    base = total - len(talon)  # cards on the foundations at the start
    # counts[r]: foundations whose top has rank r; started: foundations started (from the left)
    counts = [0] * 14
    for top in tops0:
        counts[top] += 1
    started = sum(1 for top in tops0 if top)
    below = [0, 13, *range(1, 13)]  # the rank a card of each rank goes on
    # (mask of talon cards played, foundations started) -> the least (redeals used, cards on
    # the waste) it was reached with, as redeals * 64 + cards
    least: dict[bytes, int] = {}
    line: list[tuple[int, int, int, int]] = []  # (place before, place after, rank, 1: a start)
    nodes = 0
    best = game.cleared
    budget_nodes = budget.nodes
    depth = 0

    def _steps(
        steps: list[tuple[int, int, int]], k: int, n: int, used: int, allowed: int, rest: tuple[int, ...]
    ) -> None:
        for at in range(max(k, 1), n + 1):
            rank = talon[rest[at - 1]]
            if _PLACE[rank] == started or counts[below[rank]]:
                steps.append((at - k, used * 64 + at, at))
        if used < allowed:  # after a redeal: only places before k (the others are reached sooner)
            for at in range(1, k):
                rank = talon[rest[at - 1]]
                if _PLACE[rank] == started or counts[below[rank]]:
                    steps.append((n - k + 1 + at, (used + 1) * 64 + at, at))

    def search(rest: tuple[int, ...], k: int, used: int, mask: int) -> bool:
        nonlocal nodes, best, started, depth
        n = len(rest)
        if not n:
            return started == 13
        key = bytes(talon[i] for i in rest) + bytes((started,))
        place = used * 64 + k
        known = least.get(key)
        if known is not None and known <= place:
            return False
        least[key] = place
        if _bound(talon, rest, k, started, counts, used >= allowed, total) <= best:
            return False  # (no line from here clears more than found: see the module docstring)
        # the cards that can be played next: (deals first, place after the deals, talon place)
        steps = []
        if k and (
            _safe(talon[rest[k - 1]], started, counts, talon, rest)
            or (used >= allowed and _last_safe(talon, rest, k, started, counts))
        ):
            steps.append((_SAFE, place, k))  # (the only step tried: see the module docstring)
        else:
            _steps(steps, k, n, used, allowed, rest)
        steps.sort()
        depth += 1
        for cost, after, at in steps:
            index = rest[at - 1]
            rank = talon[index]
            child = rest[: at - 1] + rest[at:]
            child_mask = mask | 1 << index
            up = base + child_mask.bit_count()
            for start in ((_PLACE[rank] == started),) if cost == _SAFE else (True, False):
                if start:
                    if _PLACE[rank] != started:
                        continue
                    started += 1
                else:
                    if not counts[below[rank]]:
                        continue
                    counts[below[rank]] -= 1
                counts[rank] += 1
                nodes += 1
                if nodes >= budget_nodes:
                    raise Spent(f"node budget ({budget_nodes:,} moves) spent")
                if not nodes & 255:
                    reason = budget.spent(
                        nodes, len(least), time.monotonic(), deadline, len(least) * _KEY_BYTES + depth * _FRAME_BYTES
                    )
                    if reason:
                        raise Spent(reason)
                cleared = up - 1 if up == total and started < 13 else up
                if cleared > best:
                    best = cleared
                if search(child, at - 1, after >> 6, child_mask):
                    line.append((used * 64 + k, after, rank, start))
                    return True
                counts[rank] -= 1
                if start:
                    started -= 1
                else:
                    counts[below[rank]] += 1
        depth -= 1
        return False

    played: list[str] | None = None
    try:
        # first greedy random lines (they find wins the ordered search reaches late), then the
        # search of every position
        rng = random.Random(game.seed)
        until = min(deadline, began + budget.seconds * _PLAYOUT_SHARE)
        share = budget_nodes * _PLAYOUT_SHARE
        lines = 0
        # (no more random lines once one clears what the bound allows: the search then ends at once)
        most = _bound(talon, tuple(range(len(talon))), k0, started, counts, used0 >= allowed, total)
        while played is None and best < most and nodes < share and lines < _PLAYOUT_LINES and time.monotonic() < until:
            lines += _PLAYOUT_BATCH
            for _ in range(_PLAYOUT_BATCH):
                played, up, steps = _playout(model, rng)
                nodes += steps
                best = max(best, up)
                if played is not None or nodes >= share:
                    break
        if played is not None:
            won = True
        else:
            won = search(tuple(range(len(talon))), k0, used0, 0)
            if won:
                played = _notation(model, line[::-1])
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            verdict.solution = played or []
            best = total
        else:
            verdict.result = "lost"
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, len(least), began)


#: The share of the budget's seconds (and nodes) the greedy random lines may take first
_PLAYOUT_SHARE = 0.1
#: The most greedy random lines played (about a second's worth on this machine: the deals won
#: by them in 1000 to 1049 needed at most 1,000)
_PLAYOUT_LINES = 4096
#: Greedy random lines played between two reads of the clock
_PLAYOUT_BATCH = 32
#: How often a greedy random line plays its most promising move (else any legal move)
_GREEDY = 0.75


def _playout(model: Friday13, rng: random.Random) -> tuple[list[str] | None, int, int]:
    """One greedy random line from the model's start: at each position the most promising move
    (the waste card onto its own empty foundation, then onto a foundation, then deal, then
    redeal) with probability `_GREEDY`, else any legal move. Returns (its moves in the engine's
    notation if it wins, else None; the most cards it cleared, as the engine counts them; the
    moves played)."""
    left, k, start_tops, used = model.start
    cards = list(left)
    tops = list(start_tops)
    allowed, total = model.redeals, model.total
    moves: list[str] = []
    while True:
        options: list[str] = []
        if k:
            rank = cards[k - 1]
            place = _PLACE[rank]
            if not tops[place] and all(tops[:place]):
                options.append(_FOUNDATIONS[place])
            ranks_seen = set()
            for j in range(13):
                top = tops[j]
                if top and top % 13 + 1 == rank and top not in ranks_seen:
                    ranks_seen.add(top)
                    options.append(_FOUNDATIONS[j])
        if k < len(cards):
            options.append(_DEAL)
        elif k and used < allowed:
            options.append(_REDEAL)
        if not options:
            break
        move = options[0] if rng.random() < _GREEDY else rng.choice(options)
        if move == _DEAL:
            k += 1
            moves.append(move)
        elif move == _REDEAL:
            k = 0
            used += 1
            moves.append(move)
        else:
            k -= 1
            tops[int(move[1:])] = cards.pop(k)
            moves.append(f"w>{move}")
    up = total - len(cards)
    if up == total and all(tops):
        return moves, total, len(moves)
    return None, up - 1 if up == total else up, len(moves)


def _bound(
    talon: tuple[int, ...], rest: tuple[int, ...], k: int, started: int, counts: list[int], last: bool, total: int
) -> int:
    """The most cards any line from a position can clear, as the engine counts them (see the
    module docstring): ``rest`` the talon places left (the first ``k`` on the waste, bottom
    first), ``started`` foundations started, ``counts[r]`` foundations whose top has rank r,
    ``last`` whether no redeal is left."""
    ranks = [talon[i] for i in rest]
    n = len(ranks)
    tokens = [count > 0 for count in counts]
    once = _pass_up(ranks, k, [True] * n, tokens, started, started)
    if last:
        stuck = [not up for up in once]
    else:
        # the pass after the redeal: the cards that may go up in this one may be gone by then,
        # and they may have made their ranks show and started their foundations
        ups = {ranks[p] for p in range(n) if once[p]}
        for rank in ups:
            tokens[rank] = True
        ready = started
        while ready < 13 and _LABELS[ready] in ups:
            ready += 1
        second = _pass_up(ranks, 0, [not up for up in once], tokens, started, ready)
        stuck = [not (a or b) for a, b in zip(once, second)]
        # the cards surely in the next pass, dealt in order onto a waste emptied by the redeal
        while _dealt(ranks, 0, stuck, counts, started, once):
            pass
    frontier = n  # the first card known never to go up (n: none)
    checked, verified = -1, k  # the waste cards from `verified` up pass `_uncovered` at frontier `checked`
    if last:
        while True:
            left = [0] * 14
            early = [0] * 14  # cards left before the frontier
            for p in range(n):
                if not stuck[p]:
                    left[ranks[p]] += 1
                    if p < frontier:
                        early[ranks[p]] += 1
            changed = False
            # waste cards, top down: the cards of their rank above them go first, and only
            # cards above them (and before the frontier, when it lies in the stock) can take them
            limit = frontier
            above = [0] * 14
            passed = [0] * 14
            for p in range(k, limit):
                if not stuck[p]:
                    passed[ranks[p]] += 1
            for p in range(k - 1, -1, -1):
                if stuck[p]:
                    continue
                rank = ranks[p]
                lower = 13 if rank == 1 else rank - 1
                slots = counts[lower] + passed[lower] + (_PLACE[rank] >= started)
                if slots <= above[rank]:
                    stuck[p] = changed = True
                    continue
                above[rank] += 1
                passed[rank] += 1
            # stock cards: a card of the rank below must be there to take
            for p in range(k, n):
                if stuck[p]:
                    continue
                rank = ranks[p]
                lower = 13 if rank == 1 else rank - 1
                pool = early if p < frontier else left
                if not counts[lower] and not pool[lower] and _PLACE[rank] < started:
                    stuck[p] = changed = True
            # waste cards, top down: one goes up only once every card above it is gone (what
            # `_uncovered` finds depends only on the cards above and the frontier)
            if frontier != checked:
                checked, verified = frontier, k
            for p in range(verified - 1, -1, -1):
                if stuck[p]:
                    break
                if not _uncovered(ranks, p, k, frontier, counts, started):
                    stuck[p] = changed = True
                    break
                verified = p
            # a waste card that never goes up covers the cards under it for good
            high = next((p for p in range(k - 1, -1, -1) if stuck[p]), -1)
            for p in range(high):
                if not stuck[p]:
                    stuck[p] = changed = True
            if not changed:
                # stock cards, in order: one goes up only once the cards dealt onto it are gone
                # (the dearest rule, run once the others add nothing)
                changed = _dealt(ranks, k, stuck, counts, started)
            frontier = next((p for p in range(k, n) if stuck[p]), n)
            if not changed:
                break
    left = [0] * 14
    for p in range(n):
        if not stuck[p]:
            left[ranks[p]] += 1
    # the most cards of each rank that go up
    most = _fix(left, counts, started)
    # the most of each rank that go up by the time the last of them goes up
    caps = (
        _last_caps(ranks, k, stuck, counts, started, most)
        if last
        else _last_caps(ranks, 0, stuck, counts, started, most, once)
    )
    if caps is not None:
        most = _fix(left, counts, started, caps)
    lost = n - sum(most)
    bound = total - lost
    for place in range(started, 13):
        if not left[_LABELS[place]]:
            return min(bound, total - 1)
    return bound


def _fix(have: list[int], counts: list[int], started: int, caps: list[int] | None = None) -> list[int]:
    """The most cards of each rank of ``have`` (a count for each rank, 1 to 13) that can go up
    (see the module docstring): the least fixed point of most[r] = min(have[r], counts[r - 1] +
    most[r - 1] + (r's foundation may still start), caps[r]), ``caps`` none where not given;
    ``counts``, ``started`` as in `_bound`. Returns a list of 14 counts (index 0 unused)."""
    ready = started  # foundations that may be started: each needs a card of its label
    while ready < 13 and have[_LABELS[ready]]:
        ready += 1
    most = [0] * 14
    changed = True
    while changed:
        changed = False
        for rank in range(1, 14):
            lower = 13 if rank == 1 else rank - 1
            cap = counts[lower] + most[lower] + (started <= _PLACE[rank] < ready)
            if cap > have[rank]:
                cap = have[rank]
            if caps is not None and cap > caps[rank]:
                cap = caps[rank]
            if cap > most[rank]:
                most[rank] = cap
                changed = True
    return most


def _last_caps(
    ranks: list[int],
    k: int,
    stuck: list[bool],
    counts: list[int],
    started: int,
    most: list[int],
    maybe: list[bool] | None = None,
) -> list[int] | None:
    """In the last pass, the most cards of each rank that go up, from the moment the last of
    them goes up (see the module docstring): each took a top of the rank below made before that
    moment, or started its foundation, so they are no more than the tops of the rank below now,
    the most cards of that rank up by then, and one start; for the card that goes up last, the
    cards up by then are among the cards before the next card marked never to go up (a stock
    card: the cards before it only as many as the counting rule lets go up before it is dealt).
    ``ranks``, ``k``, ``stuck``, ``counts``, ``started`` as in `_dealt`; ``most`` the counting
    rule's figures (only ranks where the cap may be lower are looked at). Returns a cap for each
    rank (index 0 unused; 52: none), or None where no cap is below ``most``."""
    n = len(ranks)
    todo = []
    for rank in range(1, 14):
        lower = 13 if rank == 1 else rank - 1
        if most[rank] >= 2 and most[rank] > counts[lower] + (started <= _PLACE[rank]):
            todo.append(rank)
    if not todo:
        return None
    frontier = next((p for p in range(k, n) if stuck[p]), n)
    caps = [52] * 14
    lowered = False
    for rank in todo:
        lower = 13 if rank == 1 else rank - 1
        start = started <= _PLACE[rank]
        top = counts[lower] + start  # the largest cap of a card of this rank so far
        for p in range(n):
            if stuck[p] or ranks[p] != rank:
                continue
            have = [0] * 14  # the cards that may be up when card p goes up
            if p < k:
                for q in range(p + 1, frontier):
                    if not stuck[q]:
                        have[ranks[q]] += 1
            else:
                for q in range(n):
                    if not stuck[q] and (q < p or (maybe is not None and maybe[q])):
                        have[ranks[q]] += 1
                have = _fix(have, counts, started)  # those before it: gone up before it was dealt
                for q in range(p + 1, n):
                    if stuck[q]:
                        break
                    have[ranks[q]] += 1
            cap = counts[lower] + _fix(have, counts, started)[lower] + start
            if cap > top:
                top = cap
                if top >= most[rank]:
                    break
        if top < most[rank]:
            caps[rank] = top
            lowered = True
    return caps if lowered else None


def _lift(have: list[int], ups: list[int], rank: int, counts: list[int], started: int, ready: int) -> tuple[int, int]:
    """Add a card of ``rank`` to ``have`` and bring ``ups`` (the most of each rank of ``have``
    that can go up, the least fixed point of `_bound`) up to date; returns the foundations that
    may be started (``ready``: each label from ``started`` on has a card in ``have``) and how
    many more cards of ``have`` can go up than before."""
    have[rank] += 1
    before = ready
    while ready < 13 and have[_LABELS[ready]]:
        ready += 1
    raised = 0
    todo = [rank] if ready == before else list(range(1, 14))
    while todo:
        r = todo.pop()
        below = 13 if r == 1 else r - 1
        cap = counts[below] + ups[below] + (started <= _PLACE[r] < ready)
        if cap > have[r]:
            cap = have[r]
        if cap > ups[r]:
            raised += cap - ups[r]
            ups[r] = cap
            todo.append(r % 13 + 1)
    return ready, raised


def _dealt(
    ranks: list[int], k: int, stuck: list[bool], counts: list[int], started: int, maybe: list[bool] | None = None
) -> bool:
    """Mark the stock cards that never go up in the last pass (see the module docstring): a
    stock card y goes up once dealt, after the cards dealt onto it are all gone; so for some
    number of cards dealt onto it, before the next card marked never to go up, the counting rule
    of `_bound`, run on those cards (all of which go up) and the cards dealt before y (any of
    which may), lets those cards all go up and leaves a top of the rank below (or its own start)
    for y. ``ranks``: the talon's ranks, the first ``k`` on the waste; ``stuck``: the marks so
    far, updated in place; ``counts``, ``started`` as in `_bound`. For the pass after the redeal,
    seen before it: ``maybe[p]`` whether card p may go up before the redeal (those are never
    marked, and any of them may go up before y). Returns whether a mark was added."""
    n = len(ranks)
    changed = False
    have = [0] * 14  # the cards before y not marked (any may go up before y is dealt)
    ups = [0] * 14
    ready = started
    for p in range(n):
        if not stuck[p] and (p < k or (maybe is not None and maybe[p])):
            ready, _ = _lift(have, ups, ranks[p], counts, started, ready)
    for p in range(k, n):
        if stuck[p] or (maybe is not None and maybe[p]):
            continue
        rank = ranks[p]
        lower = 13 if rank == 1 else rank - 1
        if not counts[lower] + ups[lower] + (started <= _PLACE[rank] <= ready):
            # not at once: the cards dealt onto it first
            # (a card before y still on the waste lies under it: those that go up before y
            # are no more than the counting rule lets go up before y is dealt)
            more, lifted = ups[:], ups[:]
            now = started
            while now < 13 and more[_LABELS[now]]:
                now += 1
            need = [0] * 14
            short = 0  # the cards dealt onto y that the counting rule cannot all let go up
            for q in range(p + 1, n):
                if stuck[q]:
                    break
                r = ranks[q]
                need[r] += 1
                more[r] += 1
                if need[r] > lifted[r]:
                    short += 1
                before = now
                while now < 13 and more[_LABELS[now]]:
                    now += 1
                todo = [r] if now == before else list(range(1, 14))
                while todo:
                    r = todo.pop()
                    below = 13 if r == 1 else r - 1
                    cap = counts[below] + lifted[below] + (started <= _PLACE[r] < now)
                    if cap > more[r]:
                        cap = more[r]
                    was = lifted[r]
                    if cap > was:
                        lifted[r] = cap
                        if was < need[r]:
                            short -= (cap if cap < need[r] else need[r]) - was
                        todo.append(r % 13 + 1)
                if not short and counts[lower] + lifted[lower] + (started <= _PLACE[rank] <= now) > need[rank]:
                    break
            else:
                q = n
            if q >= n or stuck[q]:
                stuck[p] = changed = True
                continue
        ready, _ = _lift(have, ups, rank, counts, started, ready)
    return changed


def _uncovered(ranks: list[int], p: int, k: int, frontier: int, counts: list[int], started: int) -> bool:
    """Whether waste card ``p`` may go up in the last pass (see the module docstring): some
    moment, before the stock card ``frontier`` is dealt, when every waste card above it and every
    stock card dealt so far can have gone up using only the tops those cards make (and
    ``counts``, ``started`` as in `_bound`), and a top of the rank below (or its own start) is left
    for it. ``ranks``: the talon's ranks, the first ``k`` on the waste."""
    rank = ranks[p]
    lower = 13 if rank == 1 else rank - 1
    have = [0] * 14  # the cards that go up before it, by rank
    ups = [0] * 14  # the most of each that can (the least fixed point, kept up to date)
    short = 0  # cards of `have` that cannot go up
    ready = started  # foundations that may be started: each needs a card of its label
    j = p + 1
    while True:
        if j >= k:
            if not short and counts[lower] + have[lower] + (started <= _PLACE[rank] <= ready) > have[rank]:
                return True
            if j >= frontier:
                return False
        ready, raised = _lift(have, ups, ranks[j], counts, started, ready)
        j += 1
        short += 1 - raised


def _pass_up(ranks: list[int], k: int, blocks: list[bool], tokens: list[bool], started: int, ready: int) -> list[bool]:
    """Which cards may go up in one pass of the talon, a superset (see the module docstring):
    ``ranks`` the talon's ranks in order (the first ``k`` on the waste, bottom first),
    ``blocks[p]`` whether card p surely lies in this pass's talon (a card that may be gone
    covers nothing), ``tokens[r]`` whether a foundation may show rank r (1 to 13) when the pass
    begins, ``started`` the foundations surely started and ``ready`` (at least ``started``)
    those that may be started when the pass begins. Plays the pass greedily with every rank
    once shown showing for good. Returns a list of n bools."""
    n = len(ranks)
    shown = list(tokens)
    up = [False] * n
    placed = ready  # foundations started in the greedy line
    stack: list[int] = []
    loose: list[int] = []  # cards that may be gone: they cover nothing and wait to go up
    for p in range(n):
        if blocks[p]:
            stack.append(p)
        else:
            loose.append(p)
        if p < k - 1:
            continue  # the waste is laid out before anything goes up
        moved = True
        while moved:
            moved = False
            while stack:
                r = ranks[stack[-1]]
                place = _PLACE[r]
                if shown[13 if r == 1 else r - 1] or started <= place <= placed:
                    up[stack.pop()] = shown[r] = moved = True
                    if place == placed:
                        placed += 1
                else:
                    break
            for q in loose:
                if not up[q]:
                    r = ranks[q]
                    place = _PLACE[r]
                    if shown[13 if r == 1 else r - 1] or started <= place <= placed:
                        up[q] = shown[r] = moved = True
                        if place == placed:
                            placed += 1
    return up


def _safe(rank: int, started: int, counts: list[int], talon: tuple[int, ...], rest: tuple[int, ...]) -> bool:
    """Whether the waste's top card, of ``rank``, may go up at once with nothing lost (see the
    module docstring): its own foundation is started, or this card starts it, and the
    foundations it could go on (their top one rank lower, and its own when this card starts it)
    are at least as many as the cards of its rank not yet up."""
    place = _PLACE[rank]
    if place > started:
        return False
    starts = place == started
    ready = counts[13 if rank == 1 else rank - 1] + starts
    left = sum(1 for i in rest if talon[i] == rank)
    return ready >= left


def _last_safe(talon: tuple[int, ...], rest: tuple[int, ...], k: int, started: int, counts: list[int]) -> bool:
    """Whether, in the last pass, the waste's top card may go up at once with nothing lost (see
    the module docstring): its foundation is started, a top one rank lower takes it, and no
    other card of its rank lies in the stock (``rest``: the talon places left, the first ``k``
    on the waste)."""
    rank = talon[rest[k - 1]]
    if _PLACE[rank] >= started or not counts[13 if rank == 1 else rank - 1]:
        return False
    return all(talon[rest[p]] != rank for p in range(k, len(rest)))


def _notation(model: Friday13, steps: list[tuple[int, int, int, int]]) -> list[str]:
    """The moves of a line of the search's steps (place before, place after, rank played, 1 if
    it starts its foundation) in the engine's notation: the deals (and redeal) to the card, then
    the card onto its own foundation, or onto the first foundation whose top is one rank lower."""
    left, _, start_tops, _ = model.start
    tops = list(start_tops)
    n = len(left)
    moves: list[str] = []
    for before, after, rank, start in steps:
        used, k = divmod(before, 64)
        used_after, at = divmod(after, 64)
        if used_after == used:
            moves += [_DEAL] * (at - k)
        else:
            moves += [_DEAL] * (n - k) + [_REDEAL] + [_DEAL] * at
        if start:
            j = _PLACE[rank]
        else:
            j = next(i for i, top in enumerate(tops) if top and top % 13 + 1 == rank)
        tops[j] = rank
        moves.append(f"w>{_FOUNDATIONS[j]}")
        n -= 1
    return moves
