"""Idiot's Delight as a scheduling problem, decided by a constraint solver (OR-Tools' CP-SAT).

Rules: 003_08087bb95aa03446.txt ("Idiot's Delight"), as engine/games/idiots_delight.py states
them: four tableau piles, a stock dealt one card onto each pile in turn (legal whenever the stock
has cards), a top card discarded when the top of another pile is a higher card of its suit, and
the top of a pile of two cards or more moved into an empty pile. Cards are numbered as in
solver/idiots_delight.py (``suit * 13 + rank - 1``).

The cards in play. Call a card natural to pile ``p`` if it is in ``p`` now or is a stock card dealt
onto ``p``, and give the natural cards of a pile their order (those now in it from the bottom,
then those to be dealt, in the order dealt). A card moved into a space is the only card of that
pile, so nothing ever lies under it and it never moves again (a move needs a pile of two cards or
more): each card moves at most once, and then from its natural pile into the bottom of another.

Times. The deals split play into slots: slot 0 before the next deal, slot ``k`` after the k-th
deal from now. An event (a card discarded, or moved) has the time ``B * k + o``: ``k`` its slot,
``o`` its order in the slot (1 to ``B - 1``; ``B`` exceeds the events a slot can hold); the k-th
deal has the time ``B * k`` and a card dealt then arrives at that time (one now in a pile, at 0).
No two events share a time; an event that never happens has the time ``B * (deals + 1)``. Each
card ``c`` has a discard time ``d(c)`` and a move time ``m(c)`` (a move comes before the discard),
the pile ``q(c)`` it moves into, and ``L(c)``, the time it leaves its natural pile: ``m(c)`` if it
moves, else ``d(c)``. A schedule is a legal play exactly when:

* **top of its pile**: when ``c`` leaves its natural pile (moved or discarded), each card natural to
  that pile and above ``c`` in its order that has arrived has left it; when ``c`` is discarded
  after a move into ``q(c)``, each card natural to ``q(c)`` that has arrived has left it;
* **into a space**: when ``c`` moves into ``q(c)``, each card natural to ``q(c)`` that has
  arrived has left it, and the cards moved into one pile hold it in turn (the spans from their
  move to their discard do not overlap); and some card lies under ``c``: one natural to its pile
  and below it that has not left, or one moved into its pile earlier and not discarded yet;
* **onto a higher card of its suit**: when ``c`` is discarded, a higher card ``h`` of its suit
  (its witness) is the top of a pile: it has arrived and is not discarded yet, and either it is
  still in its natural pile with each card above it there that has arrived gone, or it has moved
  and each card natural to the pile it moved into that has arrived has left. Two tops lie in two
  piles, so ``h`` lies in another pile than ``c``.

Every legal play is such a schedule (its events numbered in their order, slot by slot), and every
schedule is a legal play (its events in the order of their times: each is legal when it comes).
All deals are made: dealing never stops a card from going, so the most cleared over schedules is
the most over plays. The solver maximizes the cards discarded, proves the maximum, and stops at
once on a win (every card in play but the Kings: the engine counts 48 cleared a win). The search
of solver/idiots_delight.py gives the solver a line to start from: the hint, completed into
values for every variable by the solver itself on a copy of the model where the line's times are
fixed (a partial hint is often lost).

Each of the conditions "every card natural to pile ``p`` from place ``l`` up that has arrived by
time ``t`` has left it" is one literal, shared by every constraint that needs it (a chain per card
time and pile: the literal for place ``l`` implies the one for ``l + 1``).

A schedule found comes back as moves in the engine's notation, up to the last discard; the caller
replays them in the engine before it calls a deal won or lost (`solver.sat.search_then_schedule`).
The solver's settings and memory: solver/sat.py, with this model's own parameters (`_TUNING`).
The model of a whole deal has some 9,600 variables and 22,000 constraints (deal 1015), built in
about 0.5 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from solver.sat import Schedule, complete_hint, slot_literals, solve

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

__all__ = ["schedule"]

_PILES = 4
_KING = 12
#: CP-SAT parameters for this model: no probing in presolve and no linear relaxation. With them
#: the losses of deals 1014, 1015 and 1018 are proved in about 4 s each after 2 s of search, about
#: 7 s with the solver's defaults.
_TUNING = {"cp_model_probing_level": 0, "linearization_level": 0}


class _Card:
    """One card in play: its number, its natural pile, its place in that pile's order and the
    slot it arrives at (0: in a pile now)."""

    __slots__ = ("card", "pile", "place", "slot")

    def __init__(self, card: int, pile: int, place: int, slot: int) -> None:
        self.card, self.pile, self.place, self.slot = card, pile, place, slot


def schedule(
    piles: Sequence[Sequence[int]],
    stock: Sequence[int],
    deadline: float,
    conflicts: int | None = None,
    hint: Sequence[str] = (),
) -> Schedule:
    """Decide an Idiot's Delight position: ``piles`` the four piles' cards, bottom first;
    ``stock`` the stock's cards, the next dealt first. Limits: ``deadline`` (`time.monotonic`
    seconds), at most ``conflicts`` conflicts. ``hint``: a line of play from the position, in the
    engine's notation (``deal``, ``t2>t0``), to start from.

    The solver looks for the most cards that can be discarded, and stops at once when that is
    every card in play but the Kings. Returns a `Schedule` whose ``line`` is in the engine's
    notation. Raises ValueError for a position that is not one of Idiot's Delight (four piles,
    cards 0 to 51 each at most once), or a hint that is not a legal line from it."""
    from ortools.sat.python import cp_model  # (imported here: some 80 MB, for these games only)

    if len(piles) != _PILES:
        raise ValueError("an Idiot's Delight position has four piles")
    every = [c for pile in piles for c in pile] + list(stock)
    if not all(0 <= c < 52 for c in every) or len(set(every)) != len(every):
        raise ValueError("cards are numbered 0 to 51, each in play at most once")
    cards: list[_Card] = []
    heights = [0] * _PILES
    for p, pile in enumerate(piles):
        cards += [_Card(c, p, place, 0) for place, c in enumerate(pile)]
        heights[p] = len(pile)
    for j, card in enumerate(stock):
        cards.append(_Card(card, j % _PILES, heights[j % _PILES], j // _PILES + 1))
        heights[j % _PILES] += 1
    n, deals = len(cards), (len(stock) + _PILES - 1) // _PILES
    per_slot = 2 * n + 2
    never = per_slot * (deals + 1)
    natural = [[x for x in range(n) if cards[x].pile == p] for p in range(_PILES)]

    model = cp_model.CpModel()
    gone = [model.new_int_var(per_slot * c.slot + 1, never, f"d{x}") for x, c in enumerate(cards)]
    moved = [model.new_int_var(per_slot * c.slot + 1, never, f"m{x}") for x, c in enumerate(cards)]
    leaves = [model.new_int_var(per_slot * c.slot + 1, never, f"L{x}") for x, c in enumerate(cards)]

    def after_deals(time: cp_model.IntVar, x: int, name: str) -> dict[int, cp_model.IntVar]:
        # k -> [time >= B * k], for the slots after card x's arrival (deals + 1: never)
        return slot_literals(model, time, per_slot, range(cards[x].slot + 1, deals + 2), f"{name}{x}")

    gone_after = [after_deals(gone[x], x, "gd") for x in range(n)]
    moved_after = [after_deals(moved[x], x, "gm") for x in range(n)]
    goes = [~gone_after[x][deals + 1] for x in range(n)]
    moves = [~moved_after[x][deals + 1] for x in range(n)]

    def arrived(row: dict[int, cp_model.IntVar], y: int) -> list[cp_model.IntVar]:
        # the literal "card y has arrived by then", none when it has arrived before any such time
        return [row[cards[y].slot]] if cards[y].slot in row else []

    for x, c in enumerate(cards):
        if c.card % 13 == _KING:  # (no higher card to go onto)
            model.add(gone[x] == never)
        model.add(moved[x] < gone[x]).only_enforce_if(moves[x])
        model.add(leaves[x] == moved[x]).only_enforce_if(moves[x])
        model.add(leaves[x] == gone[x]).only_enforce_if(~moves[x])
    model.add_no_overlap(
        [model.new_optional_fixed_size_interval_var(gone[x], 1, goes[x], f"di{x}") for x in range(n)]
        + [model.new_optional_fixed_size_interval_var(moved[x], 1, moves[x], f"mi{x}") for x in range(n)]
    )
    into: list[list[cp_model.IntVar | None]] = []
    for x, c in enumerate(cards):
        row: list[cp_model.IntVar | None] = [
            model.new_bool_var(f"q{x}.{p}") if p != c.pile else None for p in range(_PILES)
        ]
        choices = [v for v in row if v is not None]
        model.add(sum(choices) == 1).only_enforce_if(moves[x])
        model.add(sum(choices) == 0).only_enforce_if(~moves[x])
        into.append(row)

    def clear_chain(
        time: cp_model.IntVar, row: dict[int, cp_model.IntVar], p: int, x: int, name: str
    ) -> list[cp_model.IntVar | None]:
        # level -> literal "every card natural to pile p with a place above level that has
        # arrived by ``time`` has left it before": levels -1 (the whole pile) to the top (True)
        chain: list[cp_model.IntVar | None] = [None]  # (None: true)
        for y in reversed(natural[p]):
            v = model.new_bool_var(f"{name}{x}.{p}.{cards[y].place}")
            above = chain[-1]
            if above is not None:
                model.add_implication(v, above)
            model.add(leaves[y] < time).only_enforce_if([v, *arrived(row, y)])
            chain.append(v)
        return chain[::-1]  # chain[level + 1]

    clear_gone = [[clear_chain(gone[x], gone_after[x], p, x, "cd") for p in range(_PILES)] for x in range(n)]
    clear_moved = [[clear_chain(moved[x], moved_after[x], p, x, "cm") for p in range(_PILES)] for x in range(n)]

    def needs(literal: cp_model.IntVar | None, *given: cp_model.LiteralT) -> None:
        # ``given`` all true: ``literal`` (a chain's entry; None: true) is true
        if literal is not None:
            model.add_bool_or([*(~g for g in given), literal])

    # top of its pile, into a space
    for x, c in enumerate(cards):
        needs(clear_gone[x][c.pile][c.place + 1], goes[x], ~moves[x])
        needs(clear_moved[x][c.pile][c.place + 1], moves[x])
        for p, target in enumerate(into[x]):
            if target is not None:
                needs(clear_gone[x][p][0], goes[x], target)
                needs(clear_moved[x][p][0], target)
        under: list[cp_model.IntVar] = []
        for y in natural[c.pile]:
            if cards[y].place < c.place:
                v = model.new_bool_var(f"u{x}.{y}")
                model.add(leaves[y] > moved[x]).only_enforce_if(v)
                under.append(v)
        for z in range(n):
            came = into[z][c.pile]
            if came is not None:
                v = model.new_bool_var(f"v{x}.{z}")
                model.add_implication(v, came)
                model.add(moved[z] < moved[x]).only_enforce_if(v)
                model.add(gone[z] > moved[x]).only_enforce_if(v)
                under.append(v)
        model.add_bool_or([*under, ~moves[x]])
    for p in range(_PILES):
        spans = []
        for z in range(n):
            came = into[z][p]
            if came is not None:
                length = model.new_int_var(1, never, f"s{z}.{p}")
                model.add(length == gone[z] - moved[z]).only_enforce_if(came)
                spans.append(model.new_optional_interval_var(moved[z], length, gone[z], came, f"si{z}.{p}"))
        model.add_no_overlap(spans)

    # onto a higher card of its suit
    for x, c in enumerate(cards):
        if c.card % 13 == _KING:
            continue
        witnesses = []
        for h, w in enumerate(cards):
            if w.card // 13 != c.card // 13 or w.card <= c.card:
                continue
            by = model.new_bool_var(f"w{x}.{h}")
            witnesses.append(by)
            shifted = model.new_bool_var(f"r{x}.{h}")  # h has moved by then
            for v in arrived(gone_after[x], h):
                model.add_implication(by, v)
            model.add(gone[h] > gone[x]).only_enforce_if(by)
            model.add_implication(shifted, moves[h])
            model.add(moved[h] < gone[x]).only_enforce_if(shifted)
            model.add(leaves[h] > gone[x]).only_enforce_if([by, ~shifted])
            needs(clear_gone[x][w.pile][w.place + 1], by, ~shifted)
            for p, target in enumerate(into[h]):
                if target is not None:
                    needs(clear_gone[x][p][0], by, shifted, target)
        model.add(sum(witnesses) == 1).only_enforce_if(goes[x])
        model.add(sum(witnesses) == 0).only_enforce_if(~goes[x])

    if hint:
        fixed = _times(cards, hint, per_slot, never)
        complete_hint(
            model,
            [(gone[x], t) for x, (t, _) in enumerate(fixed)] + [(moved[x], t) for x, (_, t) in enumerate(fixed)],
            deadline,
        )
    model.maximize(sum(goes))
    wins_at = sum(c.card % 13 != _KING for c in cards)
    return solve(
        model,
        deadline,
        conflicts,
        wins_at,
        lambda solver: _line(solver, cards, gone, moved, into, deals, per_slot, wins_at),
        _TUNING,
    )


def _laid_out(cards: list[_Card]) -> tuple[list[list[int]], list[int]]:
    """The piles now (each card's index, bottom first) and the cards still to be dealt, in order."""
    stacks: list[list[int]] = [[] for _ in range(_PILES)]
    for x, c in enumerate(cards):
        if c.slot == 0:
            stacks[c.pile].append(x)
    return stacks, [x for x, c in enumerate(cards) if c.slot > 0]


def _times(cards: list[_Card], line: Sequence[str], per_slot: int, never: int) -> list[tuple[int, int]]:
    """Each card's discard and move times in ``line`` (`schedule`'s times; ``never``: not in it).
    Raises ValueError if ``line`` is not legal from the position."""
    n = len(cards)
    stacks, coming = _laid_out(cards)
    times = [[never, never] for _ in range(n)]
    slot = order = 0
    for move in line:
        if move == "deal":
            if not coming:
                raise ValueError("a deal from an empty stock")
            slot, order = slot + 1, 0
            for x in coming[:_PILES]:
                stacks[cards[x].pile].append(x)
            coming = coming[_PILES:]
            continue
        src, dst = (int(p[1:]) for p in move.split(">"))
        if not stacks[src]:
            raise ValueError(f"{move}: an empty pile")
        order += 1
        x = stacks[src].pop()
        if stacks[dst]:
            top = cards[stacks[dst][-1]].card
            if top // 13 != cards[x].card // 13 or top < cards[x].card:
                raise ValueError(f"{move}: not onto a higher card of its suit")
            times[x][0] = per_slot * slot + order
        else:
            if not stacks[src]:
                raise ValueError(f"{move}: a space filled from a pile of one card")
            times[x][1] = per_slot * slot + order
            stacks[dst].append(x)
    return [(d, m) for d, m in times]


def _line(
    solver: cp_model.CpSolver,
    cards: list[_Card],
    gone: list[cp_model.IntVar],
    moved: list[cp_model.IntVar],
    into: list[list[cp_model.IntVar | None]],
    deals: int,
    per_slot: int,
    wins_at: int,
) -> list[str]:
    """The moves of the schedule ``solver`` found, in the engine's notation, up to the discard that
    makes ``wins_at`` (the game is over then)."""
    value = solver.value
    never = per_slot * (deals + 1)
    events: list[tuple[int, int]] = [(per_slot * k, -1) for k in range(1, deals + 1)]
    for x in range(len(cards)):
        events += [(t, x) for t in (value(moved[x]), value(gone[x])) if t < never]
    stacks, coming = _laid_out(cards)
    line = []
    discarded = 0
    for t, x in sorted(events):
        if x < 0:
            for y in coming[:_PILES]:
                stacks[cards[y].pile].append(y)
            coming = coming[_PILES:]
            line.append("deal")
            continue
        src = next((p for p in range(_PILES) if stacks[p] and stacks[p][-1] == x), None)
        if t == value(moved[x]):
            dst = next((p for p, v in enumerate(into[x]) if v is not None and value(v)), None)
        else:
            card = cards[x].card
            dst = next(
                (
                    p
                    for p in range(_PILES)
                    if stacks[p] and cards[stacks[p][-1]].card // 13 == card // 13 and cards[stacks[p][-1]].card > card
                ),
                None,
            )
        if src is None or dst is None:  # (not a legal play: the caller's replay stops short)
            break
        stacks[src].pop()
        if t == value(moved[x]):
            stacks[dst].append(x)
        else:
            discarded += 1
        line.append(f"t{src}>t{dst}")
        if discarded == wins_at:
            break
    return line
