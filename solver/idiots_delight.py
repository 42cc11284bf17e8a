"""An exact search for Idiot's Delight (Aces Up, Kings high): the rules as plain numbers, every
reachable position accounted for; then, where it has not decided within a fifth of the time
budget (`_SEARCH_SHARE`), a constraint solver on the same position (solver/idiots_delight_sat.py,
OR-Tools' CP-SAT), starting from the line of the most cards the search cleared. The two decide
different deals: the search those whose reachable positions are few enough, the solver many
losses whose positions are far too many to search (seeds 1000 to 1099 at the par budget: the
search alone leaves 45 to 49 unknown, the two together 18; docs/winnability.md).

Rules: 003_08087bb95aa03446.txt ("Idiot's Delight"), as engine/games/idiots_delight.py states
them: four tableau piles ``t0`` to ``t3``, a stock ``s`` dealt one card onto each pile in turn
(``deal``, legal whenever the stock has cards, no redeal), and one discard foundation ``f0``. The
top card of a pile is discarded (``t2>t0``) when the top card of another pile is a higher card
of its suit; the top card of a pile of two cards or more may fill an empty pile (``t1>t3``).
Cleared: cards on ``f0``; 48 wins.

State. A card is ``suit * 13 + rank - 1`` (so of two cards of one suit the higher is the larger
number). A position is the four piles' cards, bottom to top, and how many stock cards have been
dealt (the stock's order is fixed).

The key of a position with a deal to come: one int of 82 bits, the set of cards in the piles (bits
0 to 51), the cards dealt (bits 52 to 57) and, for each pile, the card that was moved into it when
it was a space, if that card is still there (6 bits a pile, card + 1, 0 for none). It fixes the
position: call a card natural to pile j if it was in pile j at the start of the search or is a
stock card dealt onto pile j. A card moved into a space lands in an empty pile, so it is at the
bottom and, with nothing under it, never moves again (a move needs a pile of two cards or more);
every other card in a pile is natural to it, since deals only add natural cards on top and
discards and moves only take the top. So pile j is: its moved-in card if it has one; else what is
left of its start cards (they were under every dealt card and only leave from the top); then its
dealt natural cards still in the piles and not moved into another pile, in the order dealt. The
moved-in card is the pile's bottom when it is not natural to it, so one position has one key.

The search. Depth first over every legal move: discards first (in pile order, each onto any
higher card of its suit: which one makes no difference to the position), then ``deal``, then
moves into spaces; each position is searched once (a set of the keys seen). Cards only leave the
piles by discards and only arrive by deals, so the moves into spaces are the only ones that can
lead back to a position: the set of keys seen ends those cycles. Two rules below play a discard
alone where it is provably safe: with the stock empty, and with one deal to come.

Stock empty (the search's ``endgame``). With no deal to come, which pile holds which cards no
longer matters (every move is the same for piles in another order): the key is a ``bytes`` of the
sorted piles (the dealt count, then each pile's cards, a byte no card uses between piles), and a
move into a space is tried into one space only. And every discard is played alone, as soon as it is
legal: let S have a discard of card c (top of pile i, onto a higher card h of its suit, top of
another pile) and S' be S after it. Nothing is ever put on c again (no deal, and moves only go into
empty piles), so c stays a top until it leaves, and while it is in play some card of its suit
higher than c is a top of another pile: h at first; a card that moves into a space stays a top; and
the higher top r is discarded only onto a still higher top r', which is not on c's pile (its top is
c, lower than r). Play any line of S in S', leaving out the moves of c. Each move stays legal: a
discard of a card x onto c has the higher top r (on neither x's pile, whose top is x, nor c's), a
move into a space takes the top of a pile other than c's (whose top is c), which has as many cards
in S' as in S, into a pile empty in S and so in S', and discards onto other cards are as in S. The
piles of S' stay those of S less c, so S' clears every card S clears, c too: playing the discard
loses nothing. After the discards a position with no space, or no pile of two cards or more, has no
move and is not kept.

One deal to come, a safe discard. Let S have one deal at most still to come and a discard of a
card c (the top of pile i, onto a higher top of its suit) where no card of c's suit lower than c
is in play (in the piles or the stock), and S' be S after it. Play any line of S in S', leaving
out the moves of c, keeping this: the piles of S' are those of S less c, pile for pile until the
deal, and after it (the stock empty, where the order of the piles makes no difference) in some
order. Each move stays legal: nothing is discarded onto c (no lower card of its suit is in play);
another discard takes a top onto a top, both tops in S' too; the deal puts the same cards onto the
same piles; a move of a card x into a space takes it into a pile empty in S, so empty in S', from
a pile of two cards or more in S, which in S' holds one card only if it is [c, x] in S. Then a card
lies on c, which only the deal puts there (a move goes into an empty pile), so the stock is empty:
S' leaves x where it is, and its piles are again those of S less c, in another order. A move of c
into a space is left out (S' has an empty pile where S has c alone). Once S discards c the two
positions are the same, up to the order of the piles. So S' clears every card S clears, and c:
the discard is searched alone, and the position it is played from is not kept (its child is).

No space to come (`clearable`), a bound. A King is never discarded, and the bottom card of a pile
only leaves it by a discard (a move into a space needs a pile of two cards or more). Suppose for a
moment that no pile is ever empty again: then no card ever moves into a space, every card stays in
the pile it is in, and each stock card goes to a pile fixed now (the k-th card still to be dealt to
pile k mod 4). A card is discarded only while a higher card of its suit is the top of another pile,
so a card with no higher card of its suit in another pile, still able to come to a top, is never
discarded ("dead"); a card lying now under a dead card or a King never comes to a top again
("buried"). Repeating this until nothing changes marks the cards D that never go, under the
supposition. If every pile is non-empty and its bottom card is a King or in D, the supposition holds
and so does D: were some card of D discarded, take the first time it happens; until then every
bottom card stayed, so no pile was empty, no card moved between piles, and the reckoning that put
that card in D holds up to that time (the cards of D it rests on are all still in place), so the
card could not be discarded then. The cards not in D, less the Kings, bound the cards still to be
cleared. A position whose cleared count plus that bound cannot beat the most cleared so far is not
searched: nothing below it could change the verdict or the best clear; its key is kept, since the
most cleared only grows, so it would be cut again. The bound needs no King in a pile: a bottom card
with no higher card of its suit free to come to a top elsewhere stays too (deal 1002: the Queen of
Spades at the bottom of ``t1`` once the Spade King lies under the Diamond King), and in the last
two deals of a lost deal it often cuts most positions (deal 1002: 147,000 positions kept instead of
601,000). Reckoning it costs about 13 microseconds (the four piles' cards side by side in one int,
64 bits a pile, the cards below each suit's highest free card found for all four at once by
smearing bits down within each suit's 13; a round that buries nothing new ends the reckoning),
more than many positions it fails to cut cost to search. So the search sorts positions into slots:
the count dealt, and whether the position was reached by discards from one where the bound did not
apply (a bottom may leave: a discard seldom changes that, while a deal fills every space and is
where most cuts come). In each slot it reckons the bound at the first 64 positions, then while its
cuts there save at least the time its reckonings there took, and at one position in 32 otherwise,
to notice when it starts to cut as the best grows. What a cut saves is measured: the second cut of
a slot and one in 32 after it are searched in full all the same, and timed. (The mean search of
all positions at that count is no estimate of it: the positions the bound cuts hold small searches,
and that mean kept the bound on where it cost more than it saved.) Where the bound is used decides
only the time spent, never the verdict: leaving a sound cut out loses nothing.

No win: the Kings' moves (`unwinnable`). Once the most cleared is 47, only a win can change the
verdict or the best clear, so a position that provably cannot be won is not searched (its key is
kept, as for the bound). Call a pile settled when its bottom card is a King: that King never moves,
so the pile is never empty. A King still to be dealt, the k-th card still to come, comes onto pile
k mod 4 in the deal of the cards k - k mod 4 to k - k mod 4 + 3. Suppose that some pile is not
settled, that no King lies above the King at a settled pile's bottom, and that each King still to
be dealt comes onto a pile p that is not settled and not empty now, whose bottom card b has no
higher card of its suit in the piles now or among the cards dealt before that deal. Then b stays
in p until that deal: a bottom card leaves only by a discard (a move needs a pile of two cards or
more), which needs a higher card of its suit at the top of another pile, and only deals bring
cards into the piles; the deal puts its four cards down at once, so the King then covers b. Call
a King's home the pile it is in now, or p for a King still to come: every King not at a settled
bottom has a home that is not settled, and that home is not empty at any time from now until the
King leaves it (a King now in a pile that is not settled lies above its bottom; p holds b until
the deal, then the King). Then no line wins. A won position holds only the Kings, and each King
with a home lies above a card that is not a King (its home's bottom now, or b), which cannot leave
while the King is above it, so the King must leave its home; a King leaves a pile only by a move
into an empty pile, where it is the bottom and stays. So each of these Kings makes exactly one
move, into a pile that is not settled (a settled one is never empty) and that is not its home
(which holds it). Each settled pile has one King (at its bottom), so n piles are not settled and
n Kings have homes; a pile that receives a King by a move is never empty again, so it receives
one at most, and each of the n piles receives exactly one. Draw an arrow from each such King's
home to the pile it moves into: each of the n piles has one arrow in, none from itself, so
following the arrows backwards goes round a cycle p1 <- p2 <- ... <- pk <- p1. The King from p2
moves into p1 when p1 is empty, so after every King homed at p1 has left it, in particular after
the move from p1 into pk; that move comes after the move from pk, and so on round the cycle to
the move from p2 itself, which would come after itself. A King above a settled bottom, or still to
be dealt onto a settled or empty pile or onto a bottom card that may be discarded before (a
space may then take it, or a King moved there first), could settle a pile without taking one of
these turns, so any of them ends the reasoning. Deal 1003: once 47 is reached it cuts 28,500 of
the 29,500 positions with three deals to come, and the deal is proved lost after 0.9 million
moves instead of 2.1 million; deal 1005 has Kings on a settled King, where it still cuts the
moves needed from 5.3 to 3.0 million. In deals 1000 and 1014 a King comes in the last deal onto a
pile whose bottom has a higher card of its suit in play (deal 1000: the Heart King onto ``t2``,
whose bottom is mostly the Eight of Diamonds or the Four of Clubs, with their Kings in the piles;
deal 1014: the Club King onto ``t3``, whose bottom the Spade King on ``t2`` may take), so the test
seldom holds there: such a bottom can be discarded, and a King moved into the space first (or the
dealt King landing in it) gives lines no reasoning on the Kings' places alone rules out.

A probe first. Before the exhaustive search, up to `_PROBES` random lines of play are played
from the start (a discard nineteen times in twenty where one is legal, else a move into a space or
a deal, chosen at random; the generator is seeded, so runs with a node budget repeat exactly; each
move counts in ``nodes``). Every position on such a line is reachable, so the most cleared on any
of them is a clear the deal allows: the search starts with it as its best, which is sound for every
cut above (each needs only that the best has been reached by some line), and a line that clears
all 48 is returned as the win. The probe stops at once when its best is 47 (only a win could beat
it, and the search looks for one with the Kings' test on from its first position). Deal 1003 is
proved lost in 674,000 moves instead of 928,000 (the probe reaches 47 within 300,000 moves; the
search alone stands at 45 after as many), and seeds 10, 25, 32 and 38 are won by a random line
before any position is kept. It does not decide deal 1023: started with 47 as its best, the search
still fills 256 MiB at 2,680,000 positions (in 7.7 s of one core), as do deals 1000 and 1014; so
reaching 47 late is not what keeps those deals unknown.

A beam of deals. Unless the probe wins, a beam search follows it, before the exhaustive search.
From each position it keeps, it plays every discard and every move into a space in every order
(a table of the positions reached, one per kept position), and deals from each position reached;
of the positions after that deal (each once) it keeps the `_BEAM_WIDTH` best by `_beam_score`,
and so on deal by deal, until the stock is empty (where every position reached is looked at) or
a position clears all 48. The score, for positions with the same count dealt: 100 a card gone,
100 a space, 80 a King at a pile's bottom, less 60 plus 20 for each card under it for a King
above another card (it needs a space to reach a bottom), and less 50 for each card with a higher
card of its suit above it in its pile (it cannot leave before that card). Ties keep the order the
positions were reached in (the moves are tried in a fixed order), so the beam is the same on
every run. Its bounds: `_BEAM_NODES` moves tried (each counts in ``nodes``, read every 1,024
moves) and `_BEAM_SHARE` of the whole seconds budget from its start (the constraint solver's
share of the budget takes none of it); past either it gives up, and the search runs with what is
left. Sound: every position it reaches is reachable, so its most cleared is a clear the
deal allows (the search starts with it as its best, as after the probe), and a line that clears
48 is a win, returned as the engine's moves. It proves nothing lost: the search still runs. Its
memory: the positions of the level at hand and the lines to them, `_BEAM_ENTRY_BYTES` each
(measured with tracemalloc on deals 1000 to 1026: at most 630 bytes, with the lines), counted in
``memory_mb`` while it runs (at most about 2,000 positions at once, under 2 MB). Measured with
``solve_exact(find_game("idiots_delight")(seed), Budget(nodes=2_000_000))``: it wins deal 1000 at
20,800 moves (the probe stands at 47 there; the exhaustive search alone fills 256 MiB without
a win at ``Budget(seconds=30)``), and 1016, 1017 and 1019, which the search also wins; it tries
at most 40,000 moves, about 0.15 s of one core, where it finds no win. A wider beam finds a
few more wins among deals 1040 to 1099 (16 at 100 positions a deal, 17 at 300, 20 at 1,000, the
last at about 1.2 s a deal), none more among 1000 to 1039 (nor at 5,000 among 1000 to 1019).

Why it is exact. The moves computed from the state are exactly the engine's (the test
tests/solver/test_idiots_delight.py compares them move for move, and every next position, over many
deals and random lines of play; it also compares this search's verdicts and best clears with a
plain search of every position, the bound with the most a plain search clears, and the bound
reckoned with bit sets with the same reckoned card by card on positions of whole deals). Every
reachable position is searched, matched by a searched one with the same key, left for the position
a safe discard leads to (which clears all it clears and one card more), cut by the bound above, or
cut once 47 are cleared as one no line wins (the Kings' test; the test file checks it against a
plain search too), so a search that ends without a win proves the deal lost, and the most cards
cleared in any position searched or reached by the probe is the most that can be cleared. A win
comes back as moves in the engine's notation, which the engine replays to ``won``.

Budgets: ``nodes`` counts moves tried, ``positions`` the keys kept, ``memory_mb`` those keys at
measured sizes (`_INT_KEY_BYTES` with a deal to come, `_KEY_BYTES` with the stock empty) plus the
search's stack, and while the beam runs its positions (`_BEAM_ENTRY_BYTES` each); the node budget
and the clock are read every 1,024 moves (so ``nodes`` may pass its budget by up to 1,023 moves)
and the clock every 8 reckonings of the bound.

Cost, measured at the race's par budget (``Budget()``: 10 s, 256 MiB), one deal at a time
(``arena solve idiots_delight --deals 20 --first-seed 1000 --jobs 1``), on this project's two-core
machine with other work running (load average 1.3 to 3.0), the probe, the beam and the search:
deals 1000 to 1019, 4 won (1000 in 0.14 s, 1016 in 0.8 s, 1017, 1019), 8 lost (1002 to 1007, 1009,
1012), 8 unknown (1001, 1008, 1010, 1011, 1013, 1014, 1015, 1018); the probe and the search alone on
the same machine just after: 3 won (1016 in 5.2 s), the same 8 lost, 9 unknown (1000 too). The
figures below are of the probe and the search alone, one process under ``nice -n 5`` on this
project's two-core machine with other work running (load average 2.3 to 3.2; the search's
processor time was within 0.3 s of the wall clock): deals 1000 to 1019, 12 decided (3 won, 9 lost),
8 unknown, 5.4 s a deal; deals 1020 to 1039, 11 decided (4 won, 7 lost), 9 unknown, 5.8 s a deal.
The probe costs about 0.25 s on a deal where it does not reach 47 (so a deal decided in under a
second takes that much longer) and gains where it does: deal 1003 is lost in 1.9 s (3.7 s without
it), 1017 and 1025 are won in 0.2 s and at once (0.9 and 1.7 s), and 1031 is won in 2.7 s (unknown
without it: 47 found early lets the Kings' test cut from the start). Deals 1005 and 1030 stand at 47
and are lost in 4.4 and 5.4 s. Deals 1000, 1014 and 1023 stand at 47 too and the search alone leaves
them unknown at ``Budget(seconds=30)`` (the beam wins 1000): each fills 256 MiB at about 2,680,000
positions (after 15, 22 and 8 s). In 1000 and 1014 the Kings' test seldom holds (the Kings to come,
above; it cuts a few dozen positions of deal 1000); 1023 fills it all the same with 47 as its best
from the start. The other unknown deals (1008, 1010, 1011, 1013, 1015, 1018, 1020, 1021, 1024, 1028,
1032, 1033, 1038, 1039) stand at 37 to 46, where the Kings' test does not apply; there the probe
reaches the search's best or up to two cards fewer (deals 1008 to 1018). Profiled for 5 s (deal
1010), the search's own lines take about half the time and reckoning the bound a third.
The unknown deals are lost deals (or wins not yet found) whose
every position must be searched: most positions have one or two deals to come, and where a pile's
bottom can still leave (a space may come) no bound applies; the bound finds a card that provably
stays at few positions of deal 1000 (at none of 37,000 reckonings). Taking each pile's discards in a
row in the stock-empty discards (instead of going back to the first pile after each) makes no
measurable difference. A reckoning that applies almost always cuts (deal 1007: all but 18 of
161,170), so passing the cards shown to stay down to the positions reached from there by discards
and deals (where they still stay) saves nothing; nor does playing alone, there, a discard of a card
with no lower card of its suit that may still leave (sound where no space can come, but it held 17
times in deal 1012). Tops, discards and the bound are reckoned with one bit a card (playing the
stock-empty discards in rounds, all tops below their suit's highest top at once, was slower: most
rounds hold one discard). The safe discard with one deal to come keeps about a quarter fewer
positions (deal 1002: 601,000 instead of 785,000); played with two deals to come it would need no
pile able to be emptied before the next deal (so that the card discarded is never alone under a
dealt card that moves on), which held at no position of deals 1001 and 1002 (even where it holds,
the discard of a card with no lower card of its suit in play or among the eight to come is rare: 27
of deal 1002's 121,000 positions with two deals to come). Sorting the piles in the key with a deal
still to come gains nothing: every deal gives each pile its own card (the 48 stock cards make 12
full deals), so two positions whose piles differ only in order lead to different piles after the
deal. Reproduce by calling `solve_exact` with ``Budget()`` on each deal
(``find_game("idiots_delight")(seed)``), or ``arena solve idiots_delight --jobs 1`` once the game is
in ``solver.search.EXACT``.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from typing import cast

from engine.core import Game
from solver.exact import Spent, finished, start_verdict
from solver.idiots_delight_sat import schedule
from solver.sat import Schedule, search_then_schedule
from solver.search import Budget, Verdict

__all__ = ["IdiotsDelight", "State", "clearable", "solve_exact", "unwinnable"]

#: (each pile's cards bottom to top, stock cards dealt)
State = tuple[tuple[tuple[int, ...], ...], int]

_DEAL = "deal"
_PILES = ("t0", "t1", "t2", "t3")
#: Bytes one kept key costs in the search's set (a bytes object of up to ~60 bytes and its slot)
#: and one frame of the search's recursion, as measured with tracemalloc (rounded up).
_KEY_BYTES = 140
#: Bytes one kept key of a position with a deal to come costs (an int of 82 bits and its slot).
_INT_KEY_BYTES = 100
_FRAME_BYTES = 1200
#: Random lines of play tried before the exhaustive search (`solve_exact`, "A probe first"), and
#: for each line the chance of a move into a space rather than a deal where both are legal
#: (taken in turn).
_PROBES = 4000
_PROBE_SPACE = (0.95, 0.8)
#: The beam (`solve_exact`, "A beam of deals"): positions kept after each deal, the most moves it
#: may try, the share of the seconds budget it may take, and the bytes one of its entries costs
#: (a position's piles as tuples, its dict slot and its link in the line; tracemalloc, rounded up).
_BEAM_WIDTH = 128
_BEAM_NODES = 40_000
_BEAM_SHARE = 0.1
_BEAM_ENTRY_BYTES = 800
#: The share of the seconds the search here gets before the constraint solver takes over.
_SEARCH_SHARE = 0.2
_SEP = 255
#: Where each pile's card moved into it when a space sits in the search's int key (6 bits each).
_SHIFT = (58, 64, 70, 76)
_KINGS = frozenset((12, 25, 38, 51))
_KING_BITS = sum(1 << king for king in _KINGS)
#: For each card, the cards of its suit below it (a bit each).
_LOWER = tuple(((1 << c) - 1) & ~((1 << (c - c % 13)) - 1) for c in range(52))
#: For each card, the cards of its suit above it (a bit each): a top ``c`` can be discarded when
#: the set of tops meets ``_HIGHER[c]`` (a pile has one top, so that top is on another pile).
_HIGHER = tuple(((1 << (c - c % 13 + 13)) - 1) & ~((1 << (c + 1)) - 1) for c in range(52))


def _card(card: object) -> int:
    return int(card.suit) * 13 + int(card.rank) - 1  # type: ignore[attr-defined]


def clearable(piles: list[list[int]] | tuple[tuple[int, ...], ...], stock: tuple[int, ...], dealt: int) -> int | None:
    """At most how many cards can still be discarded from a position (``piles``: cards bottom to
    top, ``stock[dealt:]`` still to be dealt) where no pile can ever be empty again, or None when
    that is not shown (a space may still come). A pile is never empty again when its bottom card
    is a King or never leaves by the reckoning below. The proof is in the module docstring ("No
    space to come")."""
    if not all(piles):
        return None
    return _reckon(piles, _coming(stock, dealt))


def unwinnable(piles: list[list[int]] | tuple[tuple[int, ...], ...], stock: tuple[int, ...], dealt: int) -> bool:
    """True when a position (``piles``: cards bottom to top, ``stock[dealt:]`` still to be
    dealt) provably cannot be won: some pile is empty or has a bottom card that is not a King,
    every King lies at a pile's bottom or in such a pile, and every King still to be dealt comes
    onto such a pile whose bottom card provably stays until then. False says nothing. The proof
    is in the module docstring ("No win: the Kings' moves")."""
    in_piles = sum(1 << card for pile in piles for card in pile)
    return _kings_stuck(piles) and _kings_held(piles, stock, dealt, in_piles)


def _kings_stuck(piles: list[list[int]] | tuple[tuple[int, ...], ...]) -> bool:
    # some pile not settled, and no King above a King at a bottom
    open_pile = False
    for pile in piles:
        if not pile or pile[0] % 13 != 12:
            open_pile = True
        elif len(pile) > 1 and not _KINGS.isdisjoint(pile[1:]):
            return False  # a King above a King at a bottom: it may fill a space
    return open_pile


def _kings_held(
    piles: list[list[int]] | tuple[tuple[int, ...], ...], stock: tuple[int, ...], dealt: int, in_piles: int
) -> bool:
    # every King of ``stock[dealt:]`` comes onto a pile whose bottom card is not a King and
    # cannot be discarded before that deal: no higher card of its suit is in the piles now
    # (``in_piles``, a bit a card) or dealt before that deal
    for d in range(dealt, len(stock)):
        if stock[d] % 13 == 12:
            pile = piles[(d - dealt) % 4]
            if not pile or pile[0] % 13 == 12:
                return False
            if _HIGHER[pile[0]] & in_piles:
                return False
            for e in range(dealt, d - (d - dealt) % 4):
                if _HIGHER[pile[0]] >> stock[e] & 1:
                    return False
    return True


def _coming(stock: tuple[int, ...], dealt: int) -> tuple[int, int, int, int]:
    """The cards ``stock[dealt:]`` deals onto each pile (a bit each)."""
    homes = [0, 0, 0, 0]
    for d in range(dealt, len(stock)):
        homes[(d - dealt) % 4] |= 1 << stock[d]
    return homes[0], homes[1], homes[2], homes[3]


#: For each set of one suit's cards (13 bits), the cards below its highest (a bit each).
_UNDER_TOP = (0,) + tuple((1 << (n.bit_length() - 1)) - 1 for n in range(1, 1 << 13))


#: Ones at bit 0 of each of four 64-bit lanes: a set of cards times this is that set in each lane.
_LANES = 1 | 1 << 64 | 1 << 128 | 1 << 192
#: In each lane, the bits of each suit's 13 but its top 1, 2, 4 and 8 (what a shift down by
#: that many keeps within the suit).
_KEEP = tuple(
    sum(((1 << (13 - k)) - 1) << (13 * s + 64 * lane) for s in range(4) for lane in range(4)) for k in (1, 2, 4, 8)
)
#: Every card but the Kings.
_NOT_KINGS = (1 << 52) - 1 - _KING_BITS
#: Each card's bit.
_BIT = tuple(1 << c for c in range(52))


def _reckon(piles: list[list[int]] | tuple[tuple[int, ...], ...], coming: tuple[int, int, int, int]) -> int | None:
    # `clearable` of non-empty ``piles`` with ``coming`` (`_coming`) still to be dealt
    bit = _BIT.__getitem__
    ms = (sum(map(bit, piles[0])), sum(map(bit, piles[1])), sum(map(bit, piles[2])), sum(map(bit, piles[3])))
    # every card's pile, for good (a bit each): its cards, then the stock's dealt onto it
    h0, h1, h2, h3 = coming[0] | ms[0], coming[1] | ms[1], coming[2] | ms[2], coming[3] | ms[3]
    stay = [0, 0, 0, 0]  # each pile's highest card, above its bottom, known to stay (0: none yet)
    buried = 0  # cards under a card that stays: they never come to a top
    for j in range(4):
        if ms[j] & _KING_BITS:
            pile = piles[j]
            got = 0  # the pile's cards from its top down to the one looked at (a bit each)
            for i in range(len(pile) - 1, 0, -1):
                card = pile[i]
                got |= 1 << card
                if card % 13 == 12:  # a King never leaves
                    stay[j] = i
                    buried |= ms[j] ^ got
                    break
    dead = 0
    # the four piles' cards for good side by side, pile j in bits 64 j on ("lanes"), so that one
    # reckoning of big ints does the work of four
    lanes = h0 | h1 << 64 | h2 << 128 | h3 << 192
    while True:
        # a card with no higher card of its suit in another pile that can come to a top: in each
        # lane the free cards smeared down within their suit, then the cards strictly below each
        # suit's highest (``under``), then for each lane the other three lanes' together
        c = lanes & ~(buried * _LANES)
        c |= c >> 1 & _KEEP[0]
        c |= c >> 2 & _KEEP[1]
        c |= c >> 4 & _KEEP[2]
        c |= c >> 8 & _KEEP[3]
        under = c >> 1 & _KEEP[0]
        c = lanes & ~(under >> 64 | under << 192 | under >> 128 | under << 128 | under >> 192 | under << 64)
        fresh = (c | c >> 64 | c >> 128 | c >> 192) & ~buried & ~dead & _NOT_KINGS
        if not fresh:
            break
        dead |= fresh
        was = buried
        for j in range(4):
            if fresh & ms[j]:
                pile = piles[j]
                got = 0
                for i in range(len(pile) - 1, stay[j], -1):
                    card = pile[i]
                    got |= 1 << card
                    if dead >> card & 1:
                        stay[j] = i
                        buried |= ms[j] ^ got
                        break
        if buried == was:
            break  # the next round would find the same tops free, so no card newly dead
    stays = dead | buried
    for pile in piles:
        if pile[0] % 13 != 12 and not stays >> pile[0] & 1:
            return None
    return ((h0 | h1 | h2 | h3) & ~_KING_BITS & ~stays).bit_count()


def _unchain(chain: object) -> list[str]:
    """The moves of a beam's line, a chain of (move, the chain before it) ending in None, first
    move first."""
    moves = []
    while chain is not None:
        move, chain = cast(tuple[str, object], chain)
        moves.append(move)
    return moves[::-1]


def _beam_score(piles: tuple[tuple[int, ...], ...]) -> int:
    # the beam's worth of a position (higher is better; positions compared have the same count
    # dealt): fewer cards in the piles, spaces, Kings at bottoms; no King above another card
    # (the deeper the worse), no card under a higher card of its suit
    score = 0
    for pile in piles:
        if not pile:
            score += 100
            continue
        score -= 100 * len(pile)
        if pile[0] % 13 == 12:
            score += 80
        above = 0  # the cards above the one looked at (a bit each)
        for k in range(len(pile) - 1, -1, -1):
            card = pile[k]
            if k and card % 13 == 12:
                score -= 60 + 20 * k
            if above & _HIGHER[card]:
                score -= 50
            above |= 1 << card
    return score


@dataclass(frozen=True, slots=True)
class IdiotsDelight:
    """One Idiot's Delight position's cards as numbers (``suit * 13 + rank - 1``), from which
    every later position follows.

    ``stock``: the stock's cards in the order they will be dealt (the next first); ``start``: the
    `State` read; ``in_play``: cards in the piles and stock at the start (cleared is ``base`` plus
    those gone); ``base``: cards on ``f0`` at the start; ``total``: the game's total (48).
    """

    stock: tuple[int, ...]
    start: State
    in_play: int
    base: int
    total: int

    @classmethod
    def from_game(cls, game: Game) -> IdiotsDelight:
        """The model of ``game`` (an Idiot's Delight `Game`, at any position). Raises ValueError
        for another game."""
        if game.key != "idiots_delight":
            raise ValueError(f"not an idiot's delight game: {game.key!r}")
        stock = tuple(_card(c) for c in reversed(game.piles["s"].cards))
        piles = tuple(tuple(_card(c) for c in game.piles[pid].cards) for pid in _PILES)
        in_play = len(stock) + sum(len(p) for p in piles)
        return cls(stock, (piles, 0), in_play, len(game.piles["f0"].cards), game.total)

    def state_of(self, game: Game) -> State:
        """The `State` of ``game``, a position reached by play from the one this model was read
        from (for tests)."""
        piles = tuple(tuple(_card(c) for c in game.piles[pid].cards) for pid in _PILES)
        return piles, len(self.stock) - len(game.piles["s"].cards)

    def cleared(self, state: State) -> int:
        """Cards on ``f0`` in ``state``, as the engine counts them."""
        piles, dealt = state
        return self.base + self.in_play - sum(len(p) for p in piles) - (len(self.stock) - dealt)

    def legal(self, state: State) -> list[str]:
        """The legal moves in ``state``, in the engine's notation and order."""
        piles, dealt = state
        moves = []
        for i, src in enumerate(piles):
            if not src:
                continue
            card = src[-1]
            for j, dst in enumerate(piles):
                if j == i:
                    continue
                if dst:
                    if dst[-1] // 13 == card // 13 and dst[-1] > card:
                        moves.append(f"{_PILES[i]}>{_PILES[j]}")
                elif len(src) >= 2:
                    moves.append(f"{_PILES[i]}>{_PILES[j]}")
        if dealt < len(self.stock):
            moves.append(_DEAL)
        return moves

    def play(self, state: State, move: str) -> State:
        """The state after ``move`` (one of `legal`'s)."""
        piles, dealt = state
        if move == _DEAL:
            new = list(piles)
            for j in range(4):
                if dealt < len(self.stock):
                    new[j] = new[j] + (self.stock[dealt],)
                    dealt += 1
            return tuple(new), dealt
        i, j = (_PILES.index(p) for p in move.split(">"))
        new = list(piles)
        card = new[i][-1]
        new[i] = new[i][:-1]
        if not piles[j]:
            new[j] = (card,)
        return tuple(new), dealt


def solve_exact(game: Game, budget: Budget = Budget()) -> Verdict:
    """Decide ``game`` (Idiot's Delight, from its current position; it is not changed) exactly:
    the search here (see the module docstring) for `_SEARCH_SHARE` of the seconds, then, if its
    time ran out, the constraint solver (`solver.idiots_delight_sat`) until the deadline, from the
    line of the most cards cleared the search found, where the memory budget allows it
    (`solver.sat.SAT_MB`). Returns a `Verdict` as `solver.solve` does: won with a solution in the
    engine's notation (the solver's replayed in the engine first), lost (proved) with the most
    cards that can be cleared, or unknown when a budget ran out. ``nodes`` counts moves tried and
    the solver's conflicts, ``positions`` the positions kept."""
    model = IdiotsDelight.from_game(game)
    best_line: list[str] = []

    def plan(deadline: float, conflicts: int) -> Schedule:
        return schedule(model.start[0], model.stock, deadline, conflicts, best_line)

    beam_s = budget.seconds * _BEAM_SHARE  # (the whole budget's share: the search gets a part)
    return search_then_schedule(
        game, budget, lambda game, part: _search(game, part, best_line, beam_s), _SEARCH_SHARE, plan
    )


def _search(game: Game, budget: Budget, best_line: list[str], beam_s: float | None = None) -> Verdict:
    """The search of this module alone (see the module docstring), as `solve_exact` returns it;
    ``best_line`` is left holding a line to the most cards it cleared (from its probe and beam).
    ``beam_s``: the beam's seconds at most (default: `_BEAM_SHARE` of the budget's). ``nodes``
    counts moves tried, ``positions`` the positions kept."""
    began = time.monotonic()
    deadline = began + budget.seconds
    model = IdiotsDelight.from_game(game)
    verdict = start_verdict(game)
    if game.won:
        return finished(verdict, 0, 0, began)
    stock = model.stock
    n_stock = len(stock)
    total, base, in_play = model.total, model.base, model.in_play
    seen: set[bytes | int] = set()
    ends = 0  # the keys in ``seen`` of positions with the stock empty (bytes)
    # the key of a position with a deal to come ("The key" in the module docstring): the cards
    # in the piles (``mask``), each pile's card moved into it when a space (``foreign``, -1:
    # none; ``fkey``: those, bits 58 on) and the cards dealt (bits 52 to 57)
    mask = sum(1 << c for p in model.start[0] for c in p)
    dealing = [sum(1 << c for c in stock[d : d + 4]) for d in range(n_stock)]
    # the last deal's cards, and the first count dealt from which one deal at most is to come
    last = max(n_stock - 4, 0)
    last_deal = sum(1 << c for c in stock[last:])
    # for each count dealt, each King still to come: the pile it comes onto and the cards dealt
    # before its deal (a bit each), for the Kings' test (`_kings_held`)
    before = [0] * (n_stock + 1)
    for d in range(n_stock):
        before[d + 1] = before[d] | 1 << stock[d]
    kings_coming = [
        [
            ((d - dealt) % 4, before[d - (d - dealt) % 4] ^ before[dealt])
            for d in range(dealt, n_stock)
            if stock[d] % 13 == 12
        ]
        for dealt in range(n_stock + 1)
    ]
    foreign = [-1, -1, -1, -1]
    head, sep = bytes([n_stock]), bytes([_SEP])  # the endgame key's first byte and separator
    fkey = 0
    line: list[str] = []
    nodes = reckoned = 0
    best = verdict.best_cleared
    depth = 0

    budget_nodes = budget.nodes
    coming = [_coming(stock, d) for d in range(n_stock + 1)]
    # for each count dealt d, at 2 d for positions reached by a deal, a move into a space or a
    # discard from a position where the bound was not reckoned or applied, and at 2 d + 1 for
    # those reached by a discard from a position where it did not apply (a bottom may leave): the
    # bound's reckonings, its cuts, the positions it could be reckoned at, the seconds its
    # reckonings took
    tries = [0] * (2 * n_stock + 2)
    cuts = [0] * (2 * n_stock + 2)
    skips = [0] * (2 * n_stock + 2)
    spent = [0.0] * (2 * n_stock + 2)
    # for each slot: the positions the bound cut that were searched in full all the same (one
    # cut in 32, the second one first), and the seconds those searches took
    probes = [0] * (2 * n_stock + 2)
    probed = [0.0] * (2 * n_stock + 2)
    monotonic = time.monotonic
    beam_entries = 0  # the beam's positions held (`beam`), for the memory budget

    def check() -> None:
        # every 1,024 moves: the node budget, then the others
        if nodes >= budget_nodes:
            raise Spent(f"node budget ({budget_nodes:,} moves) spent")
        reason = budget.spent(
            0,
            len(seen),
            time.monotonic(),
            deadline,
            ends * _KEY_BYTES
            + (len(seen) - ends) * _INT_KEY_BYTES
            + depth * _FRAME_BYTES
            + beam_entries * _BEAM_ENTRY_BYTES,
        )
        if reason:
            raise Spent(reason)

    def endgame(piles: list[list[int]], cleared: int) -> bool:
        # stock empty: every discard is played alone ("Stock empty" in the module docstring);
        # ``cleared``: the cards on f0 before them
        nonlocal best, depth, ends, nodes
        forced: list[tuple[int, int, int]] = []
        tops = [p[-1] if p else -1 for p in piles]
        up = 0  # the tops, a bit each
        for card in tops:
            if card >= 0:
                up |= 1 << card
        i = 0
        while i < 4:  # the first discard in pile order, again until there is none
            card = tops[i]
            if card >= 0 and up & _HIGHER[card]:
                nodes += 1
                if not nodes & 1023:
                    check()
                high = up & _HIGHER[card]
                j = tops.index((high & -high).bit_length() - 1)
                pile = piles[i]
                pile.pop()
                up ^= 1 << card
                if pile:
                    tops[i] = pile[-1]
                    up |= 1 << pile[-1]
                else:
                    tops[i] = -1
                forced.append((i, j, card))
                i = 0
            else:
                i += 1
        cleared += len(forced)
        if cleared > best:
            best = cleared
        if cleared >= total:
            for i, j, _ in reversed(forced):
                line.append(f"{_PILES[i]}>{_PILES[j]}")
            return True
        if -1 in tops and any(len(p) >= 2 for p in piles):
            # the piles are interchangeable: a sorted key, and one space stands for all
            key = head + sep.join(sorted([bytes(p) for p in piles]))
            if key not in seen:
                seen.add(key)
                ends += 1
                depth += 1
                j = tops.index(-1)
                for i in range(4):
                    if len(piles[i]) >= 2:
                        nodes += 1
                        if not nodes & 1023:
                            check()
                        card = piles[i].pop()
                        piles[j].append(card)
                        if endgame(piles, cleared):
                            line.append(f"{_PILES[i]}>{_PILES[j]}")
                            for i, j, _ in reversed(forced):
                                line.append(f"{_PILES[i]}>{_PILES[j]}")
                            return True
                        piles[j].pop()
                        piles[i].append(card)
                depth -= 1
        for i, _, card in reversed(forced):
            piles[i].append(card)
        return False

    def discard(piles: list[list[int]], i: int, j: int, dealt: int, cleared: int, held: int) -> bool:
        # pile i's top onto pile j's, then the search from there; True (the line kept) if it wins;
        # ``held``: 1 if the bound did not apply where the discard is played from
        nonlocal mask, fkey, nodes
        nodes += 1
        if not nodes & 1023:
            check()
        pile = piles[i]
        card = pile.pop()
        mask ^= 1 << card
        moved = foreign[i] if not pile else -1  # the pile's bottom leaves
        if moved >= 0:
            foreign[i] = -1
            fkey -= (moved + 1) << _SHIFT[i]
        if search(piles, dealt, cleared + 1, held):
            line.append(f"{_PILES[i]}>{_PILES[j]}")
            return True
        if moved >= 0:
            foreign[i] = moved
            fkey += (moved + 1) << _SHIFT[i]
        mask ^= 1 << card
        pile.append(card)
        return False

    def search(piles: list[list[int]], dealt: int, cleared: int, held: int) -> bool:
        # ``cleared``: the cards on f0 in this position; ``held``: 1 if it is reached by a discard
        # from a position where the bound did not apply (then it seldom applies here)
        nonlocal best, depth, mask, fkey, reckoned, nodes
        if dealt == n_stock:
            return endgame(piles, cleared)
        if cleared > best:
            best = cleared
        if cleared >= total:
            return True
        key = mask | fkey | dealt << 52
        if key in seen:
            return False  # searched already (a position a safe discard leaves is never kept)
        if best >= total - 1:
            # only a win could beat the best: none is possible where every King still to come
            # lands on a pile whose bottom card (not a King) stays until then and the Kings in
            # the piles are stuck ("No win: the Kings' moves"; `_kings_held`, `_kings_stuck`)
            for k, early in kings_coming[dealt]:
                pile = piles[k]
                if not pile or pile[0] % 13 == 12 or _HIGHER[pile[0]] & (mask | early):
                    break
            else:
                if _kings_stuck(piles):
                    seen.add(key)
                    return False
        p0, p1, p2, p3 = piles
        child = held  # ``held`` for the discards from here
        probe = 0.0  # when a search of a position the bound cuts began (0: not such a search)
        if p0 and p1 and p2 and p3:
            # the bound ("No space to come"), reckoned in this count dealt and way of coming here
            # (``slot``) at the first 64 positions, while its cuts save at least the time its
            # reckonings take (the cuts times the mean time of the cut positions searched all the
            # same, against the reckonings' time), and at one in 32 otherwise
            slot = dealt + dealt + held
            tried = tries[slot]
            if (
                tried < 64
                or (probes[slot] and cuts[slot] * probed[slot] >= spent[slot] * probes[slot])
                or not skips[slot] & 31
            ):
                tries[slot] = tried + 1
                reckoned += 1
                if not reckoned & 7:
                    check()  # a reckoning of the bound may take some milliseconds
                began_reckoning = monotonic()
                left = _reckon(piles, coming[dealt])
                spent[slot] += monotonic() - began_reckoning
                if left is None:
                    child = 1
                elif cleared + left <= best:
                    cuts[slot] += 1
                    if cuts[slot] & 31 != 2:
                        seen.add(key)  # nothing below it can beat the best, now or later
                        return False
                    probe = monotonic()  # searched all the same, to measure what a cut saves
                    child = 0
                else:
                    child = 0
            skips[slot] += 1
        tops = [p0[-1] if p0 else -1, p1[-1] if p1 else -1, p2[-1] if p2 else -1, p3[-1] if p3 else -1]
        up = 0  # the tops, a bit each
        for card in tops:
            if card >= 0:
                up |= 1 << card
        if dealt >= last:
            # one deal to come: a discard of the lowest card of its suit still in play is played
            # alone ("One deal to come" in the module docstring)
            held = mask | last_deal
            for i in range(4):
                card = tops[i]
                if card >= 0 and up & _HIGHER[card] and not held & _LOWER[card]:
                    high = up & _HIGHER[card]
                    if discard(piles, i, tops.index((high & -high).bit_length() - 1), dealt, cleared, child):
                        return True
                    if probe:
                        probes[slot] += 1
                        probed[slot] += monotonic() - probe
                    return False
        seen.add(key)
        depth += 1
        # discards first (onto which higher card makes no difference)
        for i in range(4):
            card = tops[i]
            if card >= 0 and up & _HIGHER[card]:
                high = up & _HIGHER[card]
                if discard(piles, i, tops.index((high & -high).bit_length() - 1), dealt, cleared, child):
                    return True
        nodes += 1
        if not nodes & 1023:
            check()
        to = min(dealt + 4, n_stock)
        for j in range(to - dealt):
            piles[j].append(stock[dealt + j])
        mask ^= dealing[dealt]
        if search(piles, to, cleared, 0):
            line.append(_DEAL)
            return True
        mask ^= dealing[dealt]
        for j in range(to - dealt):
            piles[j].pop()
        # spaces
        if -1 in tops:
            spaces = [j for j in range(4) if tops[j] < 0]
            for i in range(4):
                pile = piles[i]
                if len(pile) >= 2:
                    card = pile[-1]
                    for j in spaces:
                        nodes += 1
                        if not nodes & 1023:
                            check()
                        pile.pop()
                        piles[j].append(card)
                        foreign[j] = card
                        fkey += (card + 1) << _SHIFT[j]
                        if search(piles, dealt, cleared, 0):
                            line.append(f"{_PILES[i]}>{_PILES[j]}")
                            return True
                        fkey -= (card + 1) << _SHIFT[j]
                        foreign[j] = -1
                        piles[j].pop()
                        pile.append(card)
        depth -= 1
        if probe:
            probes[slot] += 1
            probed[slot] += monotonic() - probe
        return False

    def probe(start: list[list[int]], cleared: int) -> bool:
        # random lines of play from the start ("A probe first" in the module docstring): the
        # most cleared on any of them becomes ``best``; True (the line kept) if one wins
        nonlocal best, nodes
        rng = random.Random(0)
        for n in range(_PROBES):
            space = _PROBE_SPACE[n % len(_PROBE_SPACE)]
            piles = [list(p) for p in start]
            dealt, now, moves = 0, cleared, []
            while True:
                nodes += 1
                if not nodes & 1023:
                    check()
                tops = [p[-1] if p else -1 for p in piles]
                up = 0
                for card in tops:
                    if card >= 0:
                        up |= 1 << card
                ready = [i for i in range(4) if tops[i] >= 0 and up & _HIGHER[tops[i]]]
                spaces = [j for j in range(4) if tops[j] < 0]
                movers = [i for i in range(4) if len(piles[i]) >= 2] if spaces else []
                if ready and (rng.random() < 0.95 or not movers and dealt == n_stock):
                    i = rng.choice(ready)
                    high = up & _HIGHER[tops[i]]
                    moves.append(f"{_PILES[i]}>{_PILES[tops.index((high & -high).bit_length() - 1)]}")
                    piles[i].pop()
                    now += 1
                    if now >= total:
                        break
                elif movers and (dealt == n_stock or rng.random() < space):
                    i, j = rng.choice(movers), rng.choice(spaces)
                    moves.append(f"{_PILES[i]}>{_PILES[j]}")
                    piles[j].append(piles[i].pop())
                elif dealt < n_stock:
                    moves.append(_DEAL)
                    to = min(dealt + 4, n_stock)
                    for j in range(to - dealt):
                        piles[j].append(stock[dealt + j])
                    dealt = to
                else:
                    break
            if now > best:
                best = now
                best_line[:] = moves
            if now >= total:
                line.extend(reversed(moves))
                return True
            if best >= total - 1:
                return False  # only a win could beat the best now: the search looks for one
        return False

    def beam(start: list[list[int]]) -> bool:
        # a beam of deals ("A beam of deals" in the module docstring): True (the line kept) if
        # it wins; the most cleared on it becomes ``best``
        nonlocal best, nodes, beam_entries
        frontier: list[tuple[tuple[tuple[int, ...], ...], object]] = [(tuple(tuple(p) for p in start), None)]
        dealt = 0
        stop = nodes + _BEAM_NODES
        give_up = monotonic() + (budget.seconds * _BEAM_SHARE if beam_s is None else beam_s)
        while True:
            # every position each kept one reaches without a deal, and those positions after the
            # deal; a line is a chain of (move, the line before it)
            dealt_now: dict[tuple[tuple[int, ...], ...], object] = {}
            gone = base + in_play - n_stock + dealt  # cleared is this less the cards in the piles
            to = min(dealt + 4, n_stock)
            for piles, link in frontier:
                reach: dict[tuple[tuple[int, ...], ...], object] = {piles: link}
                stack = [piles]
                while stack:
                    ps = stack.pop()
                    cleared = gone - len(ps[0]) - len(ps[1]) - len(ps[2]) - len(ps[3])
                    if cleared > best:
                        best = cleared
                        best_line[:] = _unchain(reach[ps])
                    if cleared >= total:
                        line.extend(reversed(_unchain(reach[ps])))
                        return True
                    if dealt < n_stock:
                        new = list(ps)
                        for j in range(to - dealt):
                            new[j] = ps[j] + (stock[dealt + j],)
                        after = tuple(new)
                        if after not in dealt_now:
                            dealt_now[after] = (_DEAL, reach[ps])
                    tops = [p[-1] if p else -1 for p in ps]
                    up = 0
                    for card in tops:
                        if card >= 0:
                            up |= 1 << card
                    for i in range(4):
                        card = tops[i]
                        moves = []
                        if card >= 0 and up & _HIGHER[card]:
                            high = up & _HIGHER[card]
                            moves.append(tops.index((high & -high).bit_length() - 1))
                        if len(ps[i]) >= 2:
                            moves += [j for j in range(4) if tops[j] < 0]
                        for j in moves:
                            nodes += 1
                            if not nodes & 1023:
                                beam_entries = len(dealt_now) + len(reach) + len(frontier)
                                check()
                                if nodes >= stop or monotonic() >= give_up:
                                    return False
                            new = list(ps)
                            new[i] = ps[i][:-1]
                            if tops[j] < 0:
                                new[j] = (card,)
                            child = tuple(new)
                            if child not in reach:
                                reach[child] = (f"{_PILES[i]}>{_PILES[j]}", reach[ps])
                                stack.append(child)
            if dealt == n_stock or nodes >= stop or monotonic() >= give_up:
                return False
            frontier = sorted(dealt_now.items(), key=lambda kept: -_beam_score(kept[0]))[:_BEAM_WIDTH]
            dealt = to

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 2000))
    try:
        start = [list(p) for p in model.start[0]]
        cleared = base + in_play - n_stock - sum(len(p) for p in start)
        won = probe(start, cleared) or beam(start)
        beam_entries = 0
        won = won or search(start, 0, cleared, 0)
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
    return finished(verdict, nodes, len(seen), began)
