"""Try Again as a scheduling problem, decided by a constraint solver (OR-Tools' CP-SAT).

Rules: 003_08087bb95aa03446.txt ("Try Again"), as engine/games/try_again.py states them: each
card turned goes onto one of four waste piles; between rounds of four (and after the last card)
top cards of the waste piles go to four foundations built up from the Ace by rank alone.

A play of a position is fixed by two choices for each card: the waste pile each card still to be
turned goes onto, and when (if ever) each card goes up. "When" is a time ``t = 64 * s + o``:
``s`` the slot, the count of cards dealt at which it goes up (the slots are the multiples of four
from the position on, and the end of the stock), ``o`` its order among the cards going up in that
slot; a card that never goes up takes the time ``64 * slots`` (none). The cards going up all have
different times. A play is legal exactly when:

* **top first**: a card goes up only after every card lying on it then: for cards ``a`` under
  ``b`` in one pile (now, or ``b`` still to be turned onto ``a``'s pile before ``a``'s slot),
  ``a`` up means ``b`` up earlier;
* **by rank**: four foundations building by rank alone take a card of rank ``r`` exactly when one
  of them stands at ``r - 1``, that is, when more cards of rank ``r - 1`` are up than of rank
  ``r``: so a card of rank ``r`` going up needs, of the cards up before it, at least one more of
  rank ``r - 1`` than of rank ``r``;
* a card goes up no earlier than the first slot at which it lies on a pile.

Every legal play of the game is such a schedule and every schedule is a legal play (a slot's
cards go up in their order, each the top of its pile then, onto a foundation at ``r - 1``), so
the solver's verdict is the game's: the most cards up in any schedule, proved optimal, is the
most that can be cleared, and the deal is lost when that is not every card. The solver maximizes
the cards up, and stops at once on a schedule that puts every card up.

The model states the rank rule twice, as each card up following one card of the rank below on
its foundation (a matching between the two ranks; one below already up stands for a foundation
at ``r - 1``), and as the counts above: the same rule, but each form lets the solver see
conflicts the other hides. Empty waste piles are interchangeable, so a card may go onto an
empty pile only once an earlier card has gone onto the empty pile before it (in pile order):
that removes only renamed copies of plays. The solver starts from a hint, the play of a rule
of thumb (`_rule_of_thumb`: its piles and its times), and improves on it.

A found schedule comes back as moves in the engine's notation (`Schedule.line`); the caller
replays them in the engine before it calls a deal won or lost (solver/try_again.py).

The solver's settings and memory: solver/sat.py. The model of a whole deal has 1,200 variables
and some 7,000 constraints. Deals 1000 to 1099 at the par budget, with solver/try_again.py's own
search first for a tenth of it: 96 won, 4 unknown (``arena solve try_again --deals 100
--first-seed 1000 --jobs 2``; docs/winnability.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from solver.sat import Schedule, slot_literals, solve

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

__all__ = ["schedule"]

#: Times per slot: more than the cards that can go up in one slot (52).
_PER_SLOT = 64


def schedule(
    turn: Sequence[int],
    dealt: int,
    piles: Sequence[Sequence[int]],
    heights: Sequence[int],
    deadline: float,
    conflicts: int | None = None,
) -> Schedule:
    """Decide a Try Again position: ``turn`` the ranks (1 to 13) of the cards still to be turned,
    in order (the card on ``w`` first); ``dealt`` the cards dealt so far (the engine's state
    field); ``piles`` the four waste piles' ranks, bottom first; ``heights`` the four
    foundations' heights. Limits: ``deadline`` (`time.monotonic` seconds), at most ``conflicts``
    conflicts.

    The solver looks for the most cards that can go up, and stops at once when that is every
    card. Returns a `Schedule` whose ``line`` is in the engine's notation
    (``w>t0``, ``t0>f1``: each card to the first foundation at one below its rank). Raises
    ValueError for a position that is not one of Try Again (ranks, heights, pile count)."""
    from ortools.sat.python import cp_model  # (imported here: some 80 MB, for this game only)

    if len(piles) != 4 or len(heights) != 4 or not all(0 <= h <= 13 for h in heights):
        raise ValueError("a Try Again position has four waste piles and four foundations of 0 to 13 cards")
    if not all(1 <= r <= 13 for r in list(turn) + [r for pile in piles for r in pile]):
        raise ValueError("ranks run from 1 to 13")
    n_turn = len(turn)
    slots = [d for d in range(dealt, dealt + n_turn + 1) if d % 4 == 0 or d == dealt + n_turn]
    none = _PER_SLOT * len(slots)
    # the cards in play: those on the piles (pile, place), then those to be turned (None, index)
    cards: list[tuple[int, int | None, int]] = []  # (rank, pile or None, place in pile or in turn)
    for k, pile in enumerate(piles):
        cards += [(rank, k, place) for place, rank in enumerate(pile)]
    first_turned = len(cards)
    cards += [(rank, None, j) for j, rank in enumerate(turn)]
    # the first slot at which each card lies on a pile
    first = [0 if k is not None else next(s for s, d in enumerate(slots) if d > dealt + j) for _, k, j in cards]

    model = cp_model.CpModel()
    time = [model.new_int_var(_PER_SLOT * first[c], none, f"t{c}") for c in range(len(cards))]
    # at_least[c][s]: card c goes up at slot s or later (or never)
    at_least = [
        slot_literals(model, time[c], _PER_SLOT, range(first[c] + 1, len(slots) + 1), f"ge{c}")
        for c in range(len(cards))
    ]
    up: list[cp_model.LiteralT] = [~at_least[c][len(slots)] for c in range(len(cards))]
    model.add_no_overlap(
        [model.new_optional_fixed_size_interval_var(time[c], 1, up[c], f"i{c}") for c in range(len(cards))]
    )

    # top first: the cards now on the piles, then each card to be turned over those under it
    for c in range(first_turned - 1):
        if cards[c + 1][1] == cards[c][1]:
            model.add(time[c + 1] < time[c]).only_enforce_if(up[c])
    onto = [[model.new_bool_var(f"x{j}.{k}") for k in range(4)] for j in range(n_turn)]
    for choice in onto:
        model.add_exactly_one(choice)
    empty = [k for k in range(4) if not piles[k]]
    for j in range(n_turn):
        for a, b in zip(empty, empty[1:], strict=False):
            model.add_bool_or([onto[i][a] for i in range(j)] + [~onto[j][b]])
    for j in range(n_turn):
        above = first_turned + j
        for c in range(above):
            for k in range(4):
                if cards[c][1] is not None and cards[c][1] != k:
                    continue
                condition = [onto[j][k], up[c]]
                if c >= first_turned:
                    condition.append(onto[c - first_turned][k])
                if first[above] > first[c]:
                    condition.append(at_least[c][first[above]])
                model.add(time[above] < time[c]).only_enforce_if(condition)

    # by rank, twice over: each card up follows one of the rank below on its foundation (one up
    # earlier, or one of the foundations standing at one below), and counts of the two ranks
    up_already = [sum(h >= r for h in heights) for r in range(14)]
    of_rank: dict[int, list[int]] = {r: [] for r in range(1, 14)}
    for c, (rank, _, _) in enumerate(cards):
        of_rank[rank].append(c)
    for r in range(2, 14):
        standing_by = up_already[r - 1] - up_already[r]
        below: dict[int, list[cp_model.IntVar]] = {y: [] for y in of_rank[r - 1]}
        standing = []
        for x in of_rank[r]:
            follows = []
            for y in of_rank[r - 1]:
                v = model.new_bool_var(f"m{y}.{x}")
                model.add(time[y] < time[x]).only_enforce_if(v)
                below[y].append(v)
                follows.append(v)
            v = model.new_bool_var(f"m.{x}")
            standing.append(v)
            follows.append(v)
            model.add(sum(follows) == 1).only_enforce_if(up[x])
            model.add(sum(follows) == 0).only_enforce_if(~up[x])
            earlier = []
            for y in of_rank[r - 1]:
                v = model.new_bool_var(f"e{y}.{x}")
                model.add(time[y] < time[x]).only_enforce_if(v)
                earlier.append(v)
            ahead = []
            for z in of_rank[r]:
                if z != x:
                    v = model.new_bool_var(f"e{z}.{x}")
                    model.add(time[z] > time[x]).only_enforce_if(~v)
                    ahead.append(v)
            model.add(standing_by + sum(earlier) - sum(ahead) >= 1).only_enforce_if(up[x])
        model.add(sum(standing) <= standing_by)
        for taken in below.values():
            model.add_at_most_one(taken)

    chosen, hinted = _rule_of_thumb(cards, first_turned, slots, dealt, heights)
    for j, k in enumerate(chosen):
        for other in range(4):
            model.add_hint(onto[j][other], other == k)
    for c, t in enumerate(hinted):
        model.add_hint(time[c], t)
    model.maximize(sum(up))

    return solve(
        model,
        deadline,
        conflicts,
        len(cards),
        lambda solver: _line(solver, time, cards, onto, slots, dealt, heights, first_turned),
    )


def _rule_of_thumb(
    cards: list[tuple[int, int | None, int]], first_turned: int, slots: list[int], dealt: int, heights: Sequence[int]
) -> tuple[list[int], list[int]]:
    """A play by a simple rule of thumb, as a schedule: each card to be turned goes onto the pile
    whose top is the lowest at or above its rank, else an empty one, else the one with the
    highest top; at each slot every card that can go up goes up. Returns the pile of each card
    to be turned and the time of each card (`schedule`'s times; ``64 * len(slots)``: never)."""
    stacks: list[list[int]] = [[] for _ in range(4)]
    for c, (_, pile, _) in enumerate(cards[:first_turned]):
        stacks[pile if pile is not None else 0].append(c)  # (the cards on the piles have one)
    tops = list(heights)
    times = [_PER_SLOT * len(slots)] * len(cards)
    chosen = []

    def play_off(slot: int) -> None:
        order = 0
        again = True
        while again:
            again = False
            for stack in stacks:
                if stack and cards[stack[-1]][0] - 1 in tops:
                    tops[tops.index(cards[stack[-1]][0] - 1)] += 1
                    times[stack.pop()] = _PER_SLOT * slot + order
                    order += 1
                    again = True

    placed = 0
    for slot, d in enumerate(slots):
        while dealt + placed < d:
            rank = cards[first_turned + placed][0]
            above = [k for k in range(4) if stacks[k] and cards[stacks[k][-1]][0] >= rank]
            empty = [k for k in range(4) if not stacks[k]]
            if above:
                k = min(above, key=lambda k: cards[stacks[k][-1]][0])
            elif empty:
                k = empty[0]
            else:
                k = max(range(4), key=lambda k: cards[stacks[k][-1]][0])
            stacks[k].append(first_turned + placed)
            chosen.append(k)
            placed += 1
        play_off(slot)
    return chosen, times


def _line(
    solver: cp_model.CpSolver,
    time: list[cp_model.IntVar],
    cards: list[tuple[int, int | None, int]],
    onto: list[list[cp_model.IntVar]],
    slots: list[int],
    dealt: int,
    heights: Sequence[int],
    first_turned: int,
) -> list[str]:
    """The moves of the schedule ``solver`` found, in the engine's notation."""
    value = solver.value
    pile_of = [k for _, k, _ in cards[:first_turned]]
    pile_of += [next(k for k in range(4) if value(row[k])) for row in onto]
    times = [value(t) for t in time]
    tops = list(heights)
    line = []
    placed = 0
    for s, d in enumerate(slots):
        while dealt + placed < d:
            line.append(f"w>t{pile_of[first_turned + placed]}")
            placed += 1
        for _, c in sorted((t, c) for c, t in enumerate(times) if t // _PER_SLOT == s):
            f = tops.index(cards[c][0] - 1)
            tops[f] += 1
            line.append(f"t{pile_of[c]}>f{f}")
    return line
