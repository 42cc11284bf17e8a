"""Search over the engine with full knowledge of a deal: verdicts, best clears and solutions.

The engine never imports this package. `solve` plays a game's own `legal_moves` and `apply`
on copies of the position, knowing every face-down card (the "thoughtful" solver of the
literature), and answers with a `Verdict`: won (with a solution the engine replays), lost
(proved: the whole reachable space was searched), or unknown within the budget.
"""

from solver.search import Budget, Verdict, solve

__all__ = ["Budget", "Verdict", "solve"]
