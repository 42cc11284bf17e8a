"""An exact search for Try Again (Old Patience): the rules as plain ranks, every reachable
position accounted for; then, where it has not decided within a tenth of the time budget
(`_SEARCH_SHARE`), a constraint solver on the same position (solver/try_again_sat.py, OR-Tools'
CP-SAT), which decides most deals this search cannot.

Rules: 003_08087bb95aa03446.txt ("Try Again"), as engine/games/try_again.py states them: the
stock's cards are turned one at a time onto ``w`` and each goes onto one of four waste piles
``t0`` to ``t3`` (``w>t1``), on any card; between rounds of four (the engine's ``dealt`` a
multiple of four) and after the last card, the top card of a waste pile may go to a foundation
(``t1>f0``); four foundations ``f0`` to ``f3`` are each built up from the Ace to the King by rank
alone. Cleared: cards on the foundations; 52 wins.

State. No rule looks at a suit, so a card is its rank (1 to 13). A position is the waste piles'
ranks bottom to top, the foundations' heights (a foundation of height h holds ranks 1 to h) and
how many cards have been turned (the stock's order is fixed). The search keys positions by the
turned count and the waste piles sorted (bytes): the waste piles are interchangeable (any card
goes on any of them and only their tops play), and so are the foundations (a rank may go on any
foundation of height one less), whose heights follow from the cards not yet up (four of each
rank in all).

The search. Depth first; between rounds, each playable top card is tried on a foundation (one
foundation of each height stands for all: they are interchangeable), and then dealing the next
round; within a round, each turned card is tried on each waste pile (piles with equal cards
once). One kind of move is played alone, with no alternative tried: a card of rank r when every
foundation has reached r - 1 (the engine's own safe move). It is safe: a card of rank r may go
up whenever some foundation has height r - 1 and fewer than four cards of rank r are up, so
once all four foundations are at r - 1 or higher, every card of rank r may go up at any time
between rounds from then on; taking it now only uncovers the card below it and raises a
foundation, which lets no move become illegal (a foundation move needs a height one less than
the card, and with all four at r - 1 or more no card of rank r or lower is waiting for one of
height r - 1 that this takes away: the others of rank r have their own). So every line from the
position without the move is matched by one from the position with it, the move left out.

Cuts, by a bound on the cards a position can still clear, proved as follows.

Runs in a pile. Take two cards a above b in one waste pile, with rank(a) >= rank(b). Both can
only go up in pile order, a first. Foundations build by rank, so a's foundation holds a card of
rank(b) put up before a, hence before b: b is on another foundation than a. So cards of a pile
that form a run (top to bottom) of ranks never rising must all go to different foundations, and
at most as many of them as there are foundations not yet at the King can go up. Cards leave a
pile from the top only, so of the cards now in a pile, only a top part with no such run longer
than that count can ever go up (`top_bound`).

No next card of a rank. Let k cards of rank r be up, and X the next card of rank r to go up.
Every card now above X goes up before it; one of them, Y, of a higher rank, goes onto a
foundation holding a card of rank r, which went up before X: one of the k foundations that have
reached r, and, since it takes Y, one whose height now is at least r and below rank(Y). So those
cards above X go onto the k' foundations now at a height from r to the Queen, none of them can
be of a rank at most the lowest such height, and (as in "Runs") a never-rising run of them needs
one foundation each: no run longer than k'. If no card of rank r still to be turned exists and
no card of rank r in a pile meets this (`_pile_facts`), no further card of rank r ever goes up,
and no rank above r ever has more than k cards up. This is checked for each rank r that some
foundation could take next (fewer cards of rank r up than of rank r - 1) and each rank no card
of which is up; a bound by ranks follows (each rank at most the least cap of the ranks up to
it, less the cards up). Ranks with none up for good stop every pile at its first such card.

Waiting cards. Take a card X of rank r in a pile, and above it a run, top to bottom, of d cards
whose ranks never rise and are all r or more (its wait, `_pile_waits`). They all go up before X, in
pile order, and (as in "Runs") onto d different foundations, each of which then holds a card of
rank r: at least d cards of rank r are up before X. So the cards of rank r can go up only in an
order in which each has at least its wait of them before it; a card still to be turned waits
for none now. Taking them in the order of their waits, lowest first, is as good as any order (a
card whose wait is met stays met as more go up), so the cards of rank r that can ever be up are
at most: those up, then one more for each next lowest wait no greater than the count so far,
and never more than the cap of rank r - 1. This caps each rank too, for every card of the rank,
where "No next card" looks at the next one only (and a card of the rank still to come does not
lift the cap of those waiting): on positions of random play it is sharper in about one in four.

Reach. A card of rank r goes up only once some foundation has reached r - 1. Letting every card
still to be turned go up whenever its rank is reachable, and playing every pile's top while its
rank is at most one above the highest rank reached, only lets more cards go up than the game
does; the cards it plays are a bound for each pile (with the runs' bound, the smaller), and
the cards to be turned of a rank it reaches a bound for those. The bound of a position is the
smaller of the sum over piles and turned cards and the bound by ranks. A position whose cleared
count plus it cannot beat the most cleared so far is not searched: nothing below it could change
the verdict or the best clear.

Free cards. Let every card still to be turned be free from the start: it may go up whenever a
foundation is one below its rank, and it covers no pile. Every line of the game from a position
is a line of this relaxed play too (the same cards go up in the same order: a pile card goes up
in the game only after every card above it, those of the pile now included, and a card still to
be turned is free), so the most the relaxed play puts up bounds the game's, and equals it when
no card is left to turn (then the two are the same play). `can_clear` searches the relaxed play
(its positions: each pile's height and the foundations' heights; the free cards left follow)
for a line that puts up a given number of cards, and a position is cut when none does. Besides the
safe move above, it plays alone a free card of rank r when some foundation is at r - 1 and no pile
holds a card of rank r: take any relaxed line L; if L plays a card of rank r, its first one is a
free one (no pile holds one), and moving it to the front changes no move between (no other card of
rank r plays there, and a higher foundation count of rank r only lets more cards of rank r + 1
go); if L plays none, adding it in front keeps every move of L legal. So nothing is lost. It is
tried on positions with at most `_FREE_MAX` cards to turn, and gives up (no cut) past
`_RELAXED_LIMIT` positions of its own.

Random lines first. For half the time budget the search runs as lines, each a fresh search with
its own table and a share of moves: the first 20,000 in the search's fixed order, then 2,000 times
Luby's sequence (`solver.exact.luby`) with the deal's piles in a random order at one position in
twenty (`random.Random(1)`, so runs repeat). A line that ends within its share searched every
position (a win, or the first pass's proof that there is none); one cut short proves nothing, and
its table is dropped. Wins that the fixed order reaches only after a long fruitless subtree are
found so. The lines use the same bound, waiting cards' caps included (sound, so it cuts no win;
it ends hopeless lines sooner, and with the caches below it costs some 1 to 2 of the bound's 6 to
8 us): at ``Budget()`` with nothing else running, deals 1000 to 1059 win 29 against 26 without the
caps in the lines (1000-1019: 12 against 10; 1020-1039: 7 against 8, as 1020 is won only without them;
1040-1059: 10 against 8).

Beams. When no line has ended, beams look for a win until 0.8 of the time budget (`_BEAM_END`)
or `_BEAM_STEPS` positions scored: each keeps, card by card turned, the best ``width`` positions
by a score and the bound. Between rounds a layer takes every position that cards to foundations
reach from its own; then each of them with the next card on each waste pile is scored (piles with
equal cards once, positions with the same key once), and, best score first (equal scores in the
order found), those the bound above shows can still clear every card are kept, up to the width.
The score is the cards cleared less a weight times the piles' disorder (`_disorder`): a win takes
each pile's cards from the top, so a card under a higher one waits for it. `_BEAMS` lists the
beams, run in order: width 100, one point for each pair of a card under a higher one; then width
300, two points for each card under some higher one. A beam keeps no table between layers, so it
proves nothing when it fails; a win it finds is a line of the engine's moves. The bound is worked
out only down the ranked list until the width is filled (the same layer as bounding every
candidate first, in a third of the CPU time). Its memory is the candidates of one layer, at
`_BEAM_BYTES` each (tracemalloc on deals 1005 and 1015: some 520 to 570 bytes each), checked
against the budget at every position scored, the clock every 128; ``nodes`` counts the positions
scored. With no random lines (``_RESTART_SHARE`` 0) the beams win deal 1013 within 22,733
positions scored, 1007 within 26,184 and 1015 within 96,585, which the lines and passes do not
within 10 s. Deals 1005, 1010 to 1012, 1016 and 1019 are won by no beam of width 100 to 1,000
with weights 1 to 5 on either disorder, nor by a greedy best first over single moves (cleared
cards, bound and disorder as the score), which wins none of 1000, 1001, 1002, 1005 and 1007 in
20,000 expansions: a winning line clears few cards until late (deal 1002's has 21 up when its
last card is turned), so the cards cleared mislead it. A width of 1,000 wins fewer than 300: the
scores tie often, and a layer's order then decides.

Two passes. The first cuts, by the same bounds, every position that cannot clear all 52 cards:
it ends with a win, or with a proof that there is none. Only then does the second search
again, cutting only as above, for the most cards that can be cleared (the first pass's most
cleared carried over as a start); a deal is lost when the second pass ends. Wins are found far
sooner with the sharper cut.

Why it is exact. The moves computed from the state are exactly the engine's (the test
tests/solver/test_try_again.py compares them move for move, and every next position, over many
deals and random lines of play; it also compares this search's verdicts and best clears with a
plain search of every position, and the bound with the most a plain search clears on late
positions). Every reachable position is searched, matched by a searched one with the same key,
played alone as a safe move, or cut by the bound above, so a search that ends without a win proves
the deal lost, and the most cards cleared in a position searched is the most that can be cleared. A
win comes back as moves in the engine's notation, which the engine replays to ``won``.

Budgets: ``nodes`` counts moves tried in both passes and the lines, and the beams' positions
scored, ``positions`` the keys kept (the larger pass's), ``memory_mb`` those keys and the pass's
keys `can_clear` cut (see `Speed`) at a measured size (`_KEY_BYTES`) plus the search's stack (in
the beams, their candidates; see "Beams"); the clock is read every 128 moves (`can_clear` looks
at no more than `_RELAXED_LIMIT` positions between; its own table, that many keys of some 20
bytes at most, is not counted, nor are the caches of `Speed`: at most `_PILES_CACHE` piles'
facts at some 800 bytes each, about 1.6 MB).

Speed. The bound (`_clearable`) is where most of the time goes, and a deal's search meets few
distinct waste piles (some 500 to 900 in 100,000 moves) and foundation heights (under 100), so
all it needs of one pile is worked out once and cached by the pile's bytes (`_pile_facts`: its
`top_bound` for each count of foundations, for each rank the lowest rank and longest falling
run above its top card of that rank, its cards' waits packed into one int, and for each rank
how far from the top its cards stay at or below that rank and the highest among them), and all
it needs of the heights by the sorted heights (`_height_facts`). The piles' waits are added up
as one int, and a rank's cap from its waits is a dict lookup (`_met`); the reach is the least
fixed point of "each pile plays its top part up to the reach plus one", read from the cached
tops in a few rounds rather than card by card. The values are those of working each out card by
card (tests/solver/test_try_again.py compares them on every position of random lines and small
layouts), so the search tries the same moves in the same order: at a fixed count of moves it
keeps the same positions and reaches the same best clear and verdict, in about half the CPU
time of the passes and a third of the random lines' (60,000 moves of the ordered passes, random
lines off, on each of deals 1000, 1001, 1005, 1008, 1011 and 1027: 15.0 s before, 6.9 s; 150,000
moves with the lines on deals 1000, 1002, 1003, 1014, 1021 and 1027: 10.0 s, 3.5 s; by
`time.process_time`, load about 1.5). `can_clear`'s own search is then most of the time on deals
1000 and 1011 (all its calls there cut). A position it cut is kept in a set of its own for the
pass and cut at once when met again (the search first looks a position up in both sets): the
search's `need` only grows within a pass, and a cut means the relaxed play was searched whole
(under its limit), so the same call would cut again; on deal 1011 a third of the calls were such
repeats. Its search keys a position by small ints in a tuple (the piles' lengths and the
heights), keeps each pile above a rank 0 so a top is always there, and raises the last
foundation of a height rather than sorting: the same positions in the same order, so the same
answer at every call (tests/solver/test_try_again.py compares it with the first version), about
1.35 times as fast. At 60,000 moves, random lines off, deals 1000, 1001, 1005, 1008, 1010, 1011 and
1027 keep the same positions and best clears as before, in 10 to 28% less CPU time (e.g. 1011:
2.24 s, 1.61 s; 1000: 1.75 s, 1.53 s; load about 2.5). What is left is the bound's walk over the
13 ranks and `can_clear`'s positions themselves (some 29 a call on deal 1000, most of them new).

Cost, with the constraint solver, at the race's par budget (``Budget()``: 10 s; ``arena solve
try_again --deals 100 --first-seed 1000 --jobs 2``, nothing else running, 2026-11-29): 96 won, 4
unknown (1045, 1046, 1060, 1081), none lost, 2.5 s a deal; deals 1000 to 1019: all 20 won.
Every deal the solver decided was a win, those this search leaves unknown included: they are
hard wins, not losses.

This search alone, at the par budget (one deal at a time, load average about 2 on 2 cores:
``--jobs 1``): deals 1000 to 1019, 14 won, 6 unknown (1005, 1010 to 1012, 1016, 1019), none
proved lost, 4.5 s of CPU a deal; with ``_BEAMS`` empty, under the same load, 12 won (1013 and
1015 unknown as well). Deals 1020 to 1039: 7 won, 13 unknown, 7.2 s a deal; with ``_BEAMS``
empty 6 won (1035 unknown as well). Deals 1040 to 1059, with ``_BEAMS`` empty and nothing else
running: 10 won, 10 unknown, 5.4 s a deal. Its unknown deals (those of 1000 to 1019: none won
within 60 s by the lines and passes; most cleared 30 to 47; the waiting cards' caps raise the
most cleared within 10 s on 5 of the 40, e.g. deal 1011 from 19 to 45, by cutting subtrees the
first pass is stuck in) run out of time in the first exhaustive pass, deep down: on deal 1001
(the random lines off) it is still below its first position with 13 cards to turn after 20 s,
and most positions it keeps have 4 to 6 cards to turn (9 to 12 with `_FREE_MAX` at 8). Reproduce
by calling `_search` with ``Budget()`` on each deal (``find_game("try_again")(seed)``).

What does not help, measured on deals 1000, 1001, 1005 and 1008. Trying `can_clear` higher up
(`_FREE_MAX` 8, 12 or 52; or between rounds only, up to 16 or 24 cards to turn; a limit of 200 to
50,000 positions) decides no more deals at 10 s, and with `_FREE_MAX` 8 the first pass of deal
1005 does not end within 120 s: on the positions that pass reaches, `can_clear` needing every card
cuts nearly all with 9 to 15 cards to turn on deals 1000 and 1005 (none with 10 on deal 1001), but
costs 2 to 10 ms a call where it does not cut. Nor does this sharper relaxation, sound but not in the search:
a card still to be turned that no foundation can take before some later card f_j is turned (count
bounds by rank from the cards up, the cards turned before f_j, and pile cards, which leave their
piles top first) stays on the pile it was put on until then, above the part of that pile that
cannot have gone up when it was turned; a win needs some placement of those waiting cards under
which `can_clear` (the moved piles' other cards free) still clears every card. On the search's own
positions it cuts where `can_clear` does not (deal 1001, 10 cards to turn: 5 of 5 sampled, against
0), but few with 17 or more cards to turn, and costs 5 to 2,000 ms a call; the first passes of
deals 1000 and 1005 still did not end within 60 s, nor that of 1001 within 40 s. A cut that
decides these deals must work with 20 or more cards to turn. The waiting cards' caps in every
other line only (not in every line) lose 1007 (won at 2.5 s with them in every line) and do not
win 1001 and 1008.
"""

from __future__ import annotations

import bisect
import functools
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.core import Game
from solver.exact import Spent, finished, luby, start_verdict
from solver.sat import Schedule, search_then_schedule
from solver.search import Budget, Verdict
from solver.try_again_sat import schedule

__all__ = ["State", "TryAgain", "can_clear", "clearable", "solve_exact", "top_bound"]

#: (each waste pile's ranks bottom to top, each foundation's height, cards turned since the
#: position read)
State = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int]

_WASTE = ("t0", "t1", "t2", "t3")
_FOUNDATIONS = ("f0", "f1", "f2", "f3")
_KING = 13
#: Bytes one kept key costs in the search's set (a bytes object of up to ~60 bytes and its slot)
#: and one frame of the search's recursion, as measured with tracemalloc (rounded up).
_KEY_BYTES = 140
_FRAME_BYTES = 1500
_SEP = 255
#: The relaxed play (`can_clear`) is tried on positions with at most this many cards still to be
#: turned, and gives up (no cut) past this many of its own positions.
_FREE_MAX = 4
_RELAXED_LIMIT = 500
#: Piles whose facts (`_pile_facts`) are kept (some 800 bytes each with the cache's own), and sorted
#: foundation heights (`_height_facts`; 2,380 in all).
_PILES_CACHE = 2048
_HEIGHTS_CACHE = 2380
#: The share of the time budget this module's search takes before the constraint solver's turn.
_SEARCH_SHARE = 0.1
#: Random lines before the exhaustive passes: a line's moves (times Luby's sequence), the share
#: of the time budget they may take, and how often a deal's piles are tried in a random order.
_FIRST = 20_000
_RESTART = 2000
_RESTART_SHARE = 0.5
_SHUFFLE = 0.05
#: Beams after the random lines (see "Beams"): each a width and a weight per unit of disorder,
#: counted as cards under a higher card (``False``) or as such pairs of cards (``True``); the
#: phase ends at this share of the time budget, or after this many positions scored.
_BEAMS = ((100, 1, True), (300, 2, False))
_BEAM_END = 0.8
_BEAM_STEPS = 400_000
#: Bytes one candidate of a beam's layer costs (its key, its state and its entry; tracemalloc,
#: rounded up).
_BEAM_BYTES = 700


class _Restart(Exception):
    """A random line tried its share of moves."""


def top_bound(pile: Sequence[int], limit: int) -> int:
    """How many cards of ``pile`` (ranks bottom to top) can ever go up when ``limit`` foundations
    are not yet at the King: the longest top part with no run of ranks, top to bottom, that
    never rises and is longer than ``limit`` (see the module docstring)."""
    # ends[i]: the highest last rank of a never-rising run of i + 1 cards seen so far
    ends: list[int] = []
    n = 0
    for rank in reversed(pile):
        # the first run end lower than rank: rank extends the run before it
        i = 0
        while i < len(ends) and ends[i] >= rank:
            i += 1
        if i == len(ends):
            if i == limit:
                return n
            ends.append(rank)
        else:
            ends[i] = rank
        n += 1
    return n


def clearable(
    piles: Sequence[Sequence[int]],
    heights: Sequence[int],
    future: tuple[int, ...],
) -> int:
    """At most how many cards of a position can still go up: ``piles`` the waste piles' ranks
    bottom to top, ``heights`` the foundations' heights, ``future`` the ranks of the cards
    still to be turned. See the module docstring ("No first card of a rank") for the proof."""
    mask = 0
    for rank in future:
        mask |= 1 << rank
    return _clearable(piles, heights, mask, [sum(1 for r in future if r < k) for k in range(15)])


def _clearable(
    piles: Sequence[Sequence[int]],
    heights: Sequence[int],
    future: int,
    below: list[int],
    waiting: bool = True,
    blobs: Sequence[bytes] | None = None,
) -> int:
    """`clearable` with the cards still to be turned given as ``future``, the bit mask
    (``1 << rank``) of their ranks, and ``below[r]``, how many of them are of a rank below r;
    the waiting cards' caps (``waiting``) are left out when false (a weaker bound, found sooner).
    ``blobs``: ``bytes(pile)`` for each of ``piles``, where the caller has them."""
    infos = [_pile_facts(blob) for blob in (blobs if blobs is not None else [bytes(pile) for pile in piles])]
    # up[r]: cards of rank r up; past[r]: how many foundations a higher card above the next card
    # of rank r can go on, and the lowest of them
    up, past, limit, reach, cleared = _height_facts(tuple(sorted(heights)))
    # the piles' cards of each rank by their waits, 0 to 3 (see `_pile_facts`), added up
    waits = 0
    for info in infos:
        waits += info[3]
    cap = 4
    caps = [4] * (_KING + 1)
    for rank in range(1, _KING + 1):
        k = up[rank]
        if (k < cap and k < up[rank - 1] or k == 0 < cap) and not future >> rank & 1:
            n, low = past[rank]
            for info in infos:
                if info[1][rank] > low and info[2][rank] <= n:
                    break
            else:
                cap = k
        # each card of this rank in a pile goes up only after as many others of its rank as its
        # wait (see "Waiting cards"); those still to be turned wait for none (`_met`)
        count = k + below[rank + 1] - below[rank] if waiting else cap
        if count < cap:
            key = (waits >> (rank << 4) & 0xFFFF) << 5 | count << 3 | cap
            met = _MET.get(key)
            if met is None:
                met = _MET[key] = _met(key)
            cap = met
        caps[rank] = cap
    by_rank = sum(caps) - 4 - cleared
    stuck = caps.index(0) if caps[_KING] == 0 else _KING + 1
    # the ranks a foundation might reach, every card of the stock free: a card of rank r can
    # only go up once some foundation has reached r - 1; each pile plays its top part of ranks
    # at most the reach plus one and below `stuck`, whose highest rank raises the reach, until
    # nothing changes (the least such reach, as playing card by card reaches)
    changed = True
    while changed:
        while reach + 1 < stuck and future >> (reach + 1) & 1:
            reach += 1
        changed = False
        top = min(reach + 1, stuck - 1)
        for info in infos:
            if info[5][top] > reach:
                reach = info[5][top]
                changed = True
    top = min(reach + 1, stuck - 1)
    by_pile = below[min(stuck, reach + 1)]
    for info in infos:
        by_pile += min(info[4][top], info[0][limit])
    return min(by_rank, by_pile)


#: `_met` by its key, filled as the search meets them (some 1,120 keys at most in a deal)
_MET: dict[int, int] = {}


def _met(key: int) -> int:
    """How many cards of one rank can ever be up (see "Waiting cards"), from ``key``: bits 0 to 2
    the cap (at most 4), bits 3 and 4 the count before the cards waiting in piles (below the cap),
    and from bit 5 on, four bits for each wait w from 0 to 3 (lowest first), the cards of the rank
    in piles that wait for w others. Taken lowest wait first, all cards of one wait go while the
    count so far is at least that wait; a wait of 4 or more is never met (the count stays below the
    cap)."""
    cap, count, field = key & 7, key >> 3 & 3, key >> 5
    for wait in range(4):
        if wait > count:
            break
        count += field >> (wait << 2) & 15
        if count >= cap:
            return cap
    return count


@functools.lru_cache(maxsize=_HEIGHTS_CACHE)
def _height_facts(heights: tuple[int, ...]) -> tuple[list[int], list[tuple[int, int]], int, int, int]:
    """What `_clearable` reads from the foundations' heights (sorted): the cards of each rank up
    (ranks 0 to 13; 4 for rank 0), for each rank r the count and the lowest height of the
    foundations from r to below the King, the count not yet at the King, the highest height and
    the cards up. The lists are shared: do not change them."""
    up = [4] + [sum(1 for h in heights if h >= r) for r in range(1, _KING + 1)]
    past = [(0, _KING)]
    for rank in range(1, _KING + 1):
        over = [h for h in heights if rank <= h < _KING]
        past.append((len(over), min(over, default=_KING)))
    return up, past, 4 - up[_KING], max(heights), sum(heights)


@functools.lru_cache(maxsize=_PILES_CACHE)
def _pile_facts(pile: bytes) -> tuple[bytes, bytes, bytes, int, bytes, bytes]:
    """What `_clearable` reads from one waste pile (``pile``: its ranks bottom to top), worked out
    once, in small values (bytes, an int) to keep each pile's share of memory small. A tuple of:

    - `top_bound` for each count of foundations 0 to 4;
    - for each rank r (0 to 13), 0 when no card of rank r is in the pile, else the lowest rank
      above r (14 for none) among the cards over its top card of rank r; and the longest
      never-rising run, top to bottom, among those cards of a rank above r (that card can be
      the next of its rank to go up while k foundations from r to below the King are left, the
      lowest at height low, exactly when that lowest rank is above low and that run at most k;
      see "No next card of a rank");
    - the same waits as counts in one int: bits 16r + 4w to 16r + 4w + 3 hold how many cards of
      rank r wait for w (0 to 3) others;
    - for each rank v (0 to 13), how many cards from the top come before the first of a rank
      above v (bytes), and the highest rank among those (bytes, 0 for none).
    """
    bounds = bytes(top_bound(pile, limit) for limit in range(5))
    lowests = []
    runs = []
    for rank in range(_KING + 1):
        if rank not in pile:
            lowests.append(0)
            runs.append(0)
            continue
        ends: list[int] = []
        lowest = _KING + 1
        for above in reversed(pile):
            if above == rank:
                break
            if above > rank:
                lowest = min(lowest, above)
                i = 0
                while i < len(ends) and ends[i] >= above:
                    i += 1
                if i == len(ends):
                    ends.append(above)
                else:
                    ends[i] = above
        lowests.append(lowest)
        runs.append(len(ends))
    packed = 0
    for rank, found in enumerate(_pile_waits(pile)):
        for wait in found:
            if wait < 4:
                packed += 1 << (rank << 4) + (wait << 2)
    tops = []
    highest = []
    for v in range(_KING + 1):
        n = 0
        while n < len(pile) and pile[-1 - n] <= v:
            n += 1
        tops.append(n)
        highest.append(max(pile[len(pile) - n :], default=0))
    return bounds, bytes(lowests), bytes(runs), packed, bytes(tops), bytes(highest)


def can_clear(
    piles: Sequence[Sequence[int]],
    heights: Sequence[int],
    future: Sequence[int],
    need: int,
    limit: int = 1 << 62,
) -> bool:
    """Whether ``need`` more cards could go up from a position (``piles`` the waste piles' ranks
    bottom to top, ``heights`` the foundations' heights, ``future`` the ranks still to be turned)
    if every card still to be turned were free from the start (see the module docstring, "Free
    cards"). False is a proof that the game cannot put up ``need`` more cards; True when the
    relaxed play can, or when more than ``limit`` of its positions would have to be looked at."""
    free = [0] * (_KING + 2)
    for rank in future:
        free[rank] += 1
    return _can_clear([list(p) for p in piles], sorted(heights), free, need, limit)


def _can_clear(piles: list[list[int]], heights: list[int], free: list[int], need: int, limit: int) -> bool:
    """`can_clear` with ``heights`` sorted and ``free[r]`` the count of free cards of rank r;
    ``heights`` and ``free`` are changed while it runs and restored (``piles`` are copied)."""
    if need <= 0:
        return True
    if sum(len(p) for p in piles) + sum(free) < need:
        return False
    # each pile with a rank 0 under its bottom card, which no foundation takes: a top is always there
    stacks = [[0, *pile] for pile in piles]
    # a position by its piles' lengths and its heights (the free cards left follow from them)
    seen: set[tuple[int, ...]] = set()
    right = bisect.bisect_right
    last = len(heights) - 1

    def dfs(gone: int) -> bool:
        # safe moves, alone: a card of rank r once every foundation is at r - 1 or more
        played: list[list[int] | None] = []  # the stack a safe move took from, or None for a free card
        played_rank: list[int] = []
        # and a free card of rank r when a foundation is at r - 1 and no pile holds a card of rank r
        while True:
            low = heights[0] + 1
            source: list[int] | None = None
            moves = False
            if low <= _KING:
                if free[low]:
                    moves = True
                else:
                    for stack in stacks:
                        if stack[-1] == low:
                            source, moves = stack, True
                            break
            if not moves:
                for j in range(1, last + 1):
                    h = heights[j]
                    r = h + 1
                    # the cards of rank r not up: one per foundation below r
                    if r <= _KING and free[r] and heights[j - 1] != h and free[r] == bisect.bisect_left(heights, r):
                        low = r
                        break
                else:
                    break
            if source is None:
                free[low] -= 1
            else:
                source.pop()
            played.append(source)
            played_rank.append(low)
            # the last foundation at low - 1 goes up, so that the heights stay sorted
            heights[right(heights, low - 1) - 1] = low
            gone += 1
        found = gone >= need
        if not found:
            key = (*map(len, stacks), *heights)
            if len(seen) >= limit:
                found = True
            elif key not in seen:
                seen.add(key)
                for j in range(last + 1):
                    h = heights[j]
                    # one foundation of each height: the last, so that the heights stay sorted
                    if h == _KING or (j < last and heights[j + 1] == h):
                        continue
                    r = h + 1
                    heights[j] = r
                    if free[r]:
                        free[r] -= 1
                        found = dfs(gone + 1)
                        free[r] += 1
                    if not found:
                        for stack in stacks:
                            if stack[-1] == r:
                                stack.pop()
                                found = dfs(gone + 1)
                                stack.append(r)
                                if found:
                                    break
                    heights[j] = h
                    if found:
                        break
        # undo the safe moves, the last first (a foundation of the card's rank goes back down)
        for taken in reversed(played):
            rank = played_rank.pop()
            heights[heights.index(rank)] = rank - 1
            if taken is None:
                free[rank] += 1
            else:
                taken.append(rank)
        return found

    return dfs(0)


def _pile_waits(pile: bytes) -> tuple[tuple[int, ...], ...]:
    """For each rank r (0 to 13), the waits of the cards of rank r in ``pile`` (ranks bottom to
    top): a card's wait is the length of the longest run, top to bottom, of ranks never rising
    and none below r, among the cards above it (see the module docstring, "Waiting cards")."""
    waits: list[list[int]] = [[] for _ in range(_KING + 1)]
    # longest[v]: the longest never-rising run, top to bottom, ending in a card of rank v
    longest = [0] * (_KING + 1)
    for rank in reversed(pile):
        wait = max(longest[rank:])
        waits[rank].append(wait)
        if wait + 1 > longest[rank]:
            longest[rank] = wait + 1
    return tuple(tuple(found) for found in waits)


@dataclass(frozen=True, slots=True)
class TryAgain:
    """One Try Again position's cards as ranks, from which every later position follows.

    ``turn``: the cards still to be turned in order (the card on ``w`` first); ``start``: the
    `State` read; ``dealt``: the engine's ``dealt`` field at the start (rounds of four count from
    it); ``total``: the game's total (52).
    """

    turn: tuple[int, ...]
    start: State
    dealt: int
    total: int

    @classmethod
    def from_game(cls, game: Game) -> TryAgain:
        """The model of ``game`` (a Try Again `Game`, at any position). Raises ValueError for
        another game."""
        if game.key != "try_again":
            raise ValueError(f"not a try again game: {game.key!r}")
        turn = tuple(int(c.rank) for c in game.piles["w"].cards) + tuple(
            int(c.rank) for c in reversed(game.piles["s"].cards)
        )
        model = cls(turn, ((), (), 0), int(game.dealt), game.total)  # type: ignore[attr-defined]
        object.__setattr__(model, "start", model.state_of(game))
        return model

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (for tests)."""
        piles = tuple(tuple(int(c.rank) for c in game.piles[pid].cards) for pid in _WASTE)
        heights = tuple(len(game.piles[fid].cards) for fid in _FOUNDATIONS)
        left = len(game.piles["w"].cards) + len(game.piles["s"].cards)
        return piles, heights, len(self.turn) - left

    def cleared(self, state: State) -> int:
        """Cards on the foundations in ``state``, as the engine counts them."""
        return sum(state[1])

    def mid_round(self, turned: int) -> bool:
        """Whether ``turned`` cards turned since the start leave a round of four unfinished."""
        return (self.dealt + turned) % 4 != 0 and turned < len(self.turn)

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        piles, heights, turned = state
        moves = []
        if not self.mid_round(turned):
            for i, pile in enumerate(piles):
                if pile:
                    moves += [f"{_WASTE[i]}>{fid}" for fid, h in zip(_FOUNDATIONS, heights) if h == pile[-1] - 1]
        if turned < len(self.turn):
            moves += [f"w>{pid}" for pid in _WASTE]
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        piles, heights, turned = state
        src, dst = move.split(">")
        if src == "w":
            j = _WASTE.index(dst)
            new = piles[:j] + (piles[j] + (self.turn[turned],),) + piles[j + 1 :]
            return new, heights, turned + 1
        i, j = _WASTE.index(src), _FOUNDATIONS.index(dst)
        new = piles[:i] + (piles[i][:-1],) + piles[i + 1 :]
        return new, heights[:j] + (heights[j] + 1,) + heights[j + 1 :], turned


def _disorder(piles: Sequence[Sequence[int]], pairs: bool) -> int:
    """How far ``piles`` (ranks bottom to top) are from falling to the top: with ``pairs``, the
    pairs of a card under a higher one; else the cards under some higher one."""
    found = 0
    for pile in piles:
        if pairs:
            for i, rank in enumerate(pile):
                for above in pile[i + 1 :]:
                    found += above > rank
        else:
            high = 0
            for rank in reversed(pile):
                if high > rank:
                    found += 1
                elif rank > high:
                    high = rank
    return found


def _beam(
    model: TryAgain,
    masks: Sequence[int],
    below: Sequence[list[int]],
    width: int,
    weight: int,
    pairs: bool,
    step: Callable[[int, int], bool],
) -> list[str] | None:
    """One beam from ``model``'s start (see "Beams"): a win's moves in the engine's notation, or
    None when the beam empties, ends without a win, or ``step(positions scored, candidates
    held)`` returns False (its share spent; it raises `Spent` for the search's budgets).
    ``masks[t]``, ``below[t]``: the turned cards' facts as in `_clearable`, ``width`` the
    positions kept a layer, ``weight`` the score's cost of one unit of `_disorder`."""
    turn, total = model.turn, model.total
    piles0, heights0, _ = model.start
    # a state: the piles, the heights and the moves to it (a linked list, the last move first)
    State_ = tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple | None]
    layer: list[State_] = [(tuple(piles0), tuple(heights0), None)]
    for turned in range(len(turn) + 1):
        if not model.mid_round(turned):
            # every state reached by cards to foundations from the layer's
            closed: dict[bytes, State_] = {}
            stack = []
            for state in layer:
                closed[bytes([_SEP]).join(sorted(bytes(pile) for pile in state[0]))] = state
                stack.append(state)
            while stack:
                piles, heights, moves = stack.pop()
                if sum(heights) >= total:
                    found = []
                    while moves is not None:
                        moves, move = moves
                        found.append(move)
                    return found[::-1]
                for i, pile in enumerate(piles):
                    if pile and pile[-1] - 1 in heights:
                        j = heights.index(pile[-1] - 1)
                        new = piles[:i] + (pile[:-1],) + piles[i + 1 :]
                        key = bytes([_SEP]).join(sorted(bytes(p) for p in new))
                        if key in closed:
                            continue
                        state = (
                            new,
                            heights[:j] + (pile[-1],) + heights[j + 1 :],
                            (moves, f"{_WASTE[i]}>{_FOUNDATIONS[j]}"),
                        )
                        closed[key] = state
                        stack.append(state)
                if not step(1, len(closed)):
                    return None
            layer = list(closed.values())
            del closed
        if turned == len(turn):
            return None
        rank = turn[turned]
        scored: dict[bytes, tuple[int, State_]] = {}
        for piles, heights, moves in layer:
            cleared = sum(heights)
            for i in range(4):
                new = piles[:i] + (piles[i] + (rank,),) + piles[i + 1 :]
                key = bytes([_SEP]).join(sorted(bytes(pile) for pile in new))
                if key not in scored:
                    scored[key] = (cleared - weight * _disorder(new, pairs), (new, heights, (moves, f"w>{_WASTE[i]}")))
                    if not step(1, len(scored)):
                        return None
        # the best scores first (equal ones in the order found: the sort is stable), less those
        # the bound shows cannot win, up to the width
        layer = []
        for _, state in sorted(scored.values(), key=lambda entry: -entry[0]):
            if sum(state[1]) + _clearable(state[0], state[1], masks[turned + 1], below[turned + 1]) >= total:
                layer.append(state)
                if len(layer) == width:
                    break
        del scored
        if not layer:
            return None
    return None


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Try Again, from its current position; it is not changed) exactly (see the
    module docstring): the search here for `_SEARCH_SHARE` of the seconds, then, if its time ran
    out, the constraint solver (`solver.try_again_sat`) until the deadline, where the memory
    budget allows it (`solver.sat.SAT_MB`). Returns a `Verdict` as `solver.solve` does: won with
    a solution in the engine's notation (the solver's replayed in the engine first), lost (proved)
    with the most cards that can be cleared, or unknown when a budget ran out. ``nodes`` counts
    moves tried (and the beams' positions scored) and the solver's conflicts, ``positions`` the
    positions kept."""
    model = TryAgain.from_game(game)
    piles, heights, turned = model.start

    def plan(deadline: float, conflicts: int) -> Schedule:
        return schedule(model.turn[turned:], model.dealt + turned, piles, heights, deadline, conflicts)

    return search_then_schedule(game, budget, _search, _SEARCH_SHARE, plan)


def _search(game: Game, budget: Budget) -> Verdict:
    """The search of this module alone (see the module docstring), as `solve_exact` returns it.
    ``nodes`` counts moves tried (and the beams' positions scored), ``positions`` the positions
    kept."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = TryAgain.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    turn = model.turn
    n_turn = len(turn)
    total = model.total
    seen: set[bytes] = set()
    # the keys of positions `_can_clear` cut in this pass (counted in memory, not in positions)
    cut: set[bytes] = set()
    line: list[str] = []
    nodes = 0
    best = verdict.best_cleared
    depth = 0
    budget_nodes = budget.nodes
    # masks[t]: the ranks among the cards turned from t on; below[t][r]: how many of those are
    # of a rank below r
    masks = [0] * (n_turn + 1)
    below = [[0] * 15 for _ in range(n_turn + 1)]
    for t in range(n_turn - 1, -1, -1):
        masks[t] = masks[t + 1] | 1 << turn[t]
        below[t] = [n + (turn[t] < r) for r, n in enumerate(below[t + 1])]
    # frees[t][r]: how many cards of rank r are turned from t on
    frees = [[0] * (_KING + 2) for _ in range(n_turn + 1)]
    for t in range(n_turn - 1, -1, -1):
        frees[t] = list(frees[t + 1])
        frees[t][turn[t]] += 1
    floor = total - 1  # the first pass cuts every position that cannot win; the second none
    kept = 0

    rng: random.Random | None = None
    cap = budget_nodes  # a restart's last move

    def tick() -> None:
        nonlocal nodes
        if nodes >= cap:
            if nodes >= budget_nodes:
                raise Spent(f"node budget ({budget_nodes:,} moves) spent")
            raise _Restart
        nodes += 1
        if not nodes & 127:
            reason = budget.spent(
                0, len(seen), time.monotonic(), deadline, (len(seen) + len(cut)) * _KEY_BYTES + depth * _FRAME_BYTES
            )
            if reason:
                raise Spent(reason)

    def search(piles: list[list[int]], heights: list[int], turned: int) -> bool:
        nonlocal best, depth
        between = not model.mid_round(turned)
        safe: list[str] = []
        if between:
            # safe moves, alone: a card of rank r once every foundation is at r - 1 or more
            low = min(heights)
            again = True
            while again:
                again = False
                for i in range(4):
                    pile = piles[i]
                    if pile and pile[-1] == low + 1:
                        j = heights.index(low)
                        tick()
                        pile.pop()
                        heights[j] += 1
                        safe.append(f"{_WASTE[i]}>{_FOUNDATIONS[j]}")
                        low = min(heights)
                        again = True
        found = search_free(piles, heights, turned, between)
        if found:
            line.extend(reversed(safe))
            return True
        # undo the safe moves
        for move in reversed(safe):
            i, j = _WASTE.index(move[:2]), _FOUNDATIONS.index(move[3:])
            heights[j] -= 1
            piles[i].append(heights[j] + 1)
        return False

    def search_free(piles: list[list[int]], heights: list[int], turned: int, between: bool) -> bool:
        nonlocal best, depth
        cleared = sum(heights)
        if cleared > best:
            best = cleared
            if cleared >= total:
                return True
        blobs = [bytes(pile) for pile in piles]
        bound = cleared + _clearable(piles, heights, masks[turned], below[turned], True, blobs)
        if bound <= best or bound <= floor:
            return False
        key = bytes([turned]) + bytes([_SEP]).join(sorted(blobs))
        if key in seen or key in cut:
            return False
        if (
            rng is None
            and n_turn - turned <= _FREE_MAX
            and not _can_clear(piles, sorted(heights), frees[turned], max(best, floor) - cleared + 1, _RELAXED_LIMIT)
        ):
            # cut again at once when met again in this pass (see "Speed")
            cut.add(key)
            return False
        seen.add(key)
        depth += 1
        if between:
            tried: list[list[int]] = []
            for i in range(4):
                pile = piles[i]
                if not pile:
                    continue
                rank = pile[-1]
                if rank - 1 not in heights or pile in tried:
                    continue
                tried.append(list(pile))
                j = heights.index(rank - 1)
                tick()
                pile.pop()
                heights[j] += 1
                if search(piles, heights, turned):
                    line.append(f"{_WASTE[i]}>{_FOUNDATIONS[j]}")
                    return True
                heights[j] -= 1
                pile.append(rank)
        if turned < n_turn:
            rank = turn[turned]
            # on a pile whose top is higher first (lowest such top first), then empty piles,
            # then on lower tops (highest first)
            order = sorted(
                range(4),
                key=lambda i: (
                    (0, piles[i][-1])
                    if piles[i] and piles[i][-1] >= rank
                    else ((1, 0) if not piles[i] else (2, -piles[i][-1]))
                ),
            )
            if rng is not None and term > 1 and rng.random() < _SHUFFLE:
                rng.shuffle(order)
            done = []
            for i in order:
                pile = piles[i]
                if pile in done:
                    continue
                done.append(list(pile))
                tick()
                pile.append(rank)
                if search(piles, heights, turned + 1):
                    line.append(f"w>{_WASTE[i]}")
                    return True
                pile.pop()
        depth -= 1
        return False

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 3000))
    piles0, heights0, _ = model.start
    try:
        # lines first, each a fresh search with a share of moves (Luby's sequence), the later
        # ones in a partly random order, for a share of the time: wins are found far sooner so
        won = ended = False
        rng = random.Random(1)
        term = 0
        while not ended and time.monotonic() < began + budget.seconds * _RESTART_SHARE:
            term += 1
            # the first line in the fixed order, the later ones with a few random turns
            cap = min(budget_nodes, nodes + (_FIRST if term == 1 else _RESTART * luby(term - 1)))
            seen.clear()
            cut.clear()
            line.clear()
            depth = 0
            try:
                won = search([list(p) for p in piles0], list(heights0), 0)
                ended = True  # won, or a line that ended searched every position: no win
            except _Restart:
                pass
        rng, cap = None, budget_nodes
        if not ended:
            # beams, for a share of the time: wins that neither the lines nor the order find
            seen.clear()
            cut.clear()
            line.clear()
            beam_end = began + budget.seconds * _BEAM_END
            beam_steps = 0
            late = False

            def step(scored: int, held: int) -> bool:
                nonlocal nodes, beam_steps, late
                nodes += scored
                beam_steps += scored
                # the clock every 128 positions; the memory at each
                now = None if nodes & 127 else time.monotonic()
                reason = budget.spent(nodes, held, now, deadline, held * _BEAM_BYTES)
                if reason:
                    raise Spent(reason)
                late = late or (now is not None and now >= beam_end)
                return not late and beam_steps < _BEAM_STEPS

            for width, weight, pairs in _BEAMS:
                if late or beam_steps >= _BEAM_STEPS:
                    break
                moves = _beam(model, masks, below, width, weight, pairs, step)
                if moves is not None:
                    line[:] = moves[::-1]
                    won = ended = True
                    break
        if not ended:
            kept, depth = len(seen), 0
            seen.clear()
            cut.clear()
            line.clear()
            won = search([list(p) for p in piles0], list(heights0), 0)
        if not won:
            # no win: search again for the most cards that can be cleared
            kept, floor, depth = len(seen), -1, 0
            seen.clear()
            cut.clear()
            search([list(p) for p in piles0], list(heights0), 0)
    except Spent as spent:
        verdict.reason = spent.args[0]
    else:
        if won:
            verdict.result = "won"
            best = total
            verdict.solution = line[::-1]
        else:
            verdict.result = "lost"
    finally:
        sys.setrecursionlimit(old)
    verdict.best_cleared = max(verdict.best_cleared, best)
    return finished(verdict, nodes, max(kept, len(seen)), began)
