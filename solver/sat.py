"""What the games decided by a constraint solver (OR-Tools' CP-SAT) share: the solver's settings,
its answer (`Schedule`), and the way a game's own search hands over to it (`search_then_schedule`).

A game states a position as a scheduling problem whose schedules are exactly its legal plays
(solver/try_again_sat.py, solver/idiots_delight_sat.py); the solver maximizes the cards cleared
and proves the maximum. The engine stays the judge: every line the solver gives is replayed in the
engine before a deal is called won or lost.

The solver runs on one thread with a fixed seed (repeatable within a time limit). Its memory is
native, so tracemalloc does not see it: importing OR-Tools (with NumPy and pandas) takes some
80 MB; solving Idiot's Delight deal 1015 from its start (the larger of the two models) took a
process's peak 141 MB above Python's own, a 10 s search of Try Again deal 1013 16 MB above the
import (`SAT_MB` is what a search must be allowed). Its conflicts are the nodes it spends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from engine.core import Game, IllegalMove
from solver.exact import finished
from solver.search import Budget, Verdict

if TYPE_CHECKING:
    from ortools.sat.python import cp_model

__all__ = ["SAT_MB", "SAT_MIN_S", "Schedule", "complete_hint", "search_then_schedule", "slot_literals", "solve"]

#: Mebibytes a search with the constraint solver needs: OR-Tools' import and its own growth on
#: the largest model measured, rounded up.
SAT_MB = 160.0
#: Seconds a search must have left for the constraint solver to run: importing OR-Tools (0.7 s,
#: once a process), building a model (up to 0.5 s) and its presolve (0.5 s) come before any
#: answer, and the deadline does not cut them short.
SAT_MIN_S = 2.0


@dataclass(slots=True)
class Schedule:
    """What the solver found. ``result``: ``won`` (``line`` clears every card), ``lost`` (proved:
    no play clears every card; ``cleared`` is the most any play clears, proved) or ``unknown`` (a
    limit ran out: ``cleared`` is the most cleared in a schedule found, a lower bound, and ``line``
    that schedule's moves; 0 and none when none was found). ``cleared`` counts only the cards
    cleared from the position; ``conflicts`` is the solver's count of conflicts, ``reason`` the
    limit that ran out ("time" or "conflicts")."""

    result: Literal["won", "lost", "unknown"]
    cleared: int = 0
    line: list[str] = field(default_factory=list)
    conflicts: int = 0
    reason: str = ""


def solve(
    model: cp_model.CpModel,
    deadline: float,
    conflicts: int | None,
    wins_at: int,
    line: Callable[[cp_model.CpSolver], list[str]],
    tuning: Mapping[str, int] | None = None,
) -> Schedule:
    """Maximize ``model``'s objective (the cards cleared; ``wins_at`` of them is a win, where the
    solver stops) until ``deadline`` (`time.monotonic` seconds) or ``conflicts`` conflicts, and
    return what it found, its moves given by ``line`` from the solver holding the solution.
    ``tuning``: CP-SAT parameters of the game's own (name, value)."""
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    _settle(solver, deadline, conflicts, tuning)
    status = solver.solve(model)
    spent = solver.num_conflicts
    out_of = "conflicts" if conflicts is not None and spent >= conflicts else "time"
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Schedule("unknown", 0, [], spent, out_of)
    cleared = round(solver.objective_value)
    if cleared >= wins_at:
        return Schedule("won", cleared, line(solver), spent)
    if status == cp_model.OPTIMAL:
        return Schedule("lost", cleared, line(solver), spent)
    return Schedule("unknown", cleared, line(solver), spent, out_of)


def slot_literals(
    model: cp_model.CpModel, time: cp_model.IntVar, per_slot: int, slots: range, name: str
) -> dict[int, cp_model.IntVar]:
    """For each slot ``s`` of ``slots``, a literal of ``model`` that holds exactly when ``time`` is
    at slot ``s`` or later (``time >= per_slot * s``), named ``{name}.{s}``: the order encoding the
    constraint models share."""
    row = {}
    for s in slots:
        v = model.new_bool_var(f"{name}.{s}")
        model.add(time >= per_slot * s).only_enforce_if(v)
        model.add(time < per_slot * s).only_enforce_if(~v)
        row[s] = v
    return row


def complete_hint(model: cp_model.CpModel, fixed: list[tuple[cp_model.IntVar, int]], deadline: float) -> bool:
    """Hint every variable of ``model`` with a solution in which each of ``fixed`` (variable,
    value) takes its value, found by the solver on a copy of the model (a partial hint the
    solver must complete itself is often lost). False, with no hint given, if none was found by
    ``deadline``."""
    from ortools.sat.python import cp_model

    copy = model.clone()
    for var, value in fixed:
        copy.add(copy.get_int_var_from_proto_index(var.index) == value)
    solver = cp_model.CpSolver()
    _settle(solver, deadline, None)
    if solver.solve(copy) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return False
    for index in range(len(model.proto.variables)):
        var = model.get_int_var_from_proto_index(index)
        model.add_hint(var, solver.value(var))
    return True


def _settle(
    solver: cp_model.CpSolver, deadline: float, conflicts: int | None, tuning: Mapping[str, int] | None = None
) -> None:
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 1
    solver.parameters.max_time_in_seconds = max(deadline - time.monotonic(), 0.001)
    if conflicts is not None:
        solver.parameters.max_number_of_conflicts = max(conflicts, 0)
    for name, value in (tuning or {}).items():
        setattr(solver.parameters, name, value)


def search_then_schedule(
    game: Game,
    budget: Budget,
    search: Callable[[Game, Budget], Verdict],
    share: float,
    plan: Callable[[float, int], Schedule],
) -> Verdict:
    """Decide ``game`` with its own ``search`` for ``share`` of the seconds, then, if its time
    ran out (and the memory budget allows `SAT_MB`, with `SAT_MIN_S` seconds left), with ``plan``
    (deadline, conflicts allowed: the game's constraint model) until the deadline. The plan's
    line is replayed in the engine: a deal is called won only if the engine wins it, lost only
    if the line clears exactly what the solver proved most. Returns a `Verdict` as
    `solver.solve` does; ``nodes`` adds the solver's conflicts to the search's moves."""
    began = time.monotonic()
    verdict = search(game, replace(budget, seconds=budget.seconds * share))
    if verdict.result != "unknown" or not verdict.reason.startswith("time budget"):
        return finished(verdict, verdict.nodes, verdict.positions, began)
    if budget.memory_mb < SAT_MB:
        verdict.reason = f"memory budget ({budget.memory_mb:g} MB) spent"
        return finished(verdict, verdict.nodes, verdict.positions, began)
    if began + budget.seconds - time.monotonic() < SAT_MIN_S:  # (too little left to decide anything)
        verdict.reason = f"time budget ({budget.seconds:g} s) spent"
        return finished(verdict, verdict.nodes, verdict.positions, began)
    found = plan(began + budget.seconds, budget.nodes - verdict.nodes)
    replay = game.copy()
    try:
        for move in found.line:
            replay.apply(move)
    except IllegalMove:  # (then neither won nor cleared as it said: no verdict from it)
        pass
    if found.result == "won" and replay.won:
        verdict.result, verdict.solution, verdict.reason = "won", found.line, ""
    elif found.result == "lost" and replay.cleared == game.cleared + found.cleared:
        verdict.result, verdict.reason = "lost", ""
    elif found.result == "unknown":
        verdict.reason = (
            f"node budget ({budget.nodes:,} moves) spent"
            if found.reason == "conflicts"
            else f"time budget ({budget.seconds:g} s) spent"
        )
    else:  # a schedule the engine does not play as the solver says: no verdict from it
        verdict.reason = f"the constraint solver's line ends at {replay.cleared} cards, not as it said"
    verdict.best_cleared = max(verdict.best_cleared, replay.cleared)
    return finished(verdict, verdict.nodes + found.conflicts, verdict.positions, began)
