"""Par for races: what the deal allowed, computed by the solver when a race ends.

When a race finishes and its seed is public, the server asks the solver (`solver.solve`, full
knowledge of the deal) for the deal's verdict and the most cards that could be cleared, within
a budget, in a worker process: the search is CPU-bound and must never run on the event loop.
The answer (`Par`) is published to the race's audience as a `race_par` event and kept in the
race's description (`RaceInfo.par`), so the final standings and the record show it beside each
entrant's result.

Work is bounded: ``workers`` processes (0: no par at all), each search limited by ``nodes``
moves and ``seconds``, and at most 8 searches waiting per worker; a race that finishes when the
queue is full gets no par. A deal whose seed is still held (an arena tournament's, until the
tournament ends) gets none either: what the deal allows is information about a deal that others
have yet to play.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from server.protocol import Par

__all__ = ["ParService"]

log = logging.getLogger("arena.server")

#: Searches that may wait per worker before a finished race goes without par.
QUEUE_PER_WORKER = 8


def _search(game: str, seed: int, options: dict[str, bool], nodes: int, seconds: float) -> tuple:
    """In a worker process: the solver's verdict on the deal, as plain values."""
    from engine.games import find_game
    from solver import Budget, solve

    verdict = solve(find_game(game)(seed, **options), Budget(nodes=nodes, seconds=seconds))
    return verdict.result, verdict.best_cleared, verdict.total, verdict.nodes, verdict.seconds


class ParService:
    """Runs par searches in ``workers`` processes (started at the first search, spawned rather
    than forked, since the server runs threads and an event loop)."""

    def __init__(self, workers: int, nodes: int, seconds: float) -> None:
        self.workers = workers
        self.nodes = nodes
        self.seconds = seconds
        self.pending = 0
        self._pool: ProcessPoolExecutor | None = None

    async def compute(self, game: str, seed: int, options: dict[str, bool]) -> Par | None:
        """The par of deal ``seed`` of ``game``, or None (par off, queue full, or the search failed)."""
        if self.workers <= 0 or self.pending >= self.workers * QUEUE_PER_WORKER:
            return None
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"))
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            result, best, total, nodes, seconds = await loop.run_in_executor(
                self._pool, _search, game, seed, dict(options), self.nodes, self.seconds)
        except Exception:  # a dead worker, a shutdown: the race simply has no par
            log.exception("par of %s seed %d failed", game, seed)
            return None
        finally:
            self.pending -= 1
        return Par(result=result, best_cleared=best, total=total, nodes=nodes, seconds=seconds)

    def close(self) -> None:
        """Stop the workers, dropping searches not started."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
