"""The engine as judge of a solver's win: a "won" verdict stands only if its line replays to a win.

Exact searches (solver/<game>.py) model the rules in plain values rather than calling the
engine's own moves, so `solver.solve` checks each of their wins with `replays_to_win` before
anyone sees it: the solution is played on a copy of the position searched with the engine's
`Game.apply`, and a line that the engine refuses, or that does not end in a won game, does not
count as a win.
"""

from __future__ import annotations

from engine.core import EngineError, Game

__all__ = ["replays_to_win"]


def replays_to_win(game: Game, solution: list[str]) -> bool:
    """Whether ``solution`` (moves in the engine's notation) played from ``game``'s position (not
    changed) is legal move for move and ends in a won game."""
    position = game.copy()
    try:
        for move in solution:
            position.apply(move)
    except EngineError:
        return False
    return position.won
