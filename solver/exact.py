"""What every exact search (solver/<game>.py, listed in `solver.search.EXACT`) shares: the
verdict it starts from, the exception that ends it when a budget runs out, and its figures at
the end. Each game's module holds only its rules as plain values and its own search."""

from __future__ import annotations

import time

from engine.core import Game
from solver.budget import Verdict

__all__ = ["Spent", "finished", "start_verdict"]


class Spent(Exception):
    """A budget ran out; ``args[0]`` is the reason, in `solver.search.Budget.spent`'s words."""


def start_verdict(game: Game) -> Verdict:
    """The verdict a search of ``game``'s current position starts from: unknown, its best clear
    what the position already has, or won (no moves needed) if the position is won."""
    verdict = Verdict(
        game=game.key,
        seed=game.seed if game.seed >= 0 else None,
        result="unknown",
        total=game.total,
        best_cleared=game.cleared,
    )
    if game.won:
        verdict.result = "won"
    return verdict


def finished(verdict: Verdict, nodes: int, positions: int, began: float) -> Verdict:
    """``verdict`` with its figures: ``nodes`` moves tried, ``positions`` kept, and the seconds
    since ``began`` (`time.monotonic`), rounded to the millisecond."""
    verdict.nodes = nodes
    verdict.positions = positions
    verdict.seconds = round(time.monotonic() - began, 3)
    return verdict
