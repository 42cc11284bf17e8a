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

The same workers find **winnable deals on demand** (`ParService.winnable_seeds`): a race or a
tournament that asks for a winnable deal with a secret seed gets fresh secret seeds (drawn with
`engine.deal.random_seed`, never from a catalog) that the solver has proved winnable by finding
a win, searching several at once, within a per-deal budget and an overall wait. Whatever the
solver has not found by then comes from the private catalog (the server's caller does that), so
that a game the solver is slow on still gets its deals.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from engine.deal import random_seed
from server.protocol import Par

__all__ = ["ParService", "WinnableSearch"]

log = logging.getLogger("arena.server")

#: Searches that may wait per worker before a finished race goes without par.
QUEUE_PER_WORKER = 8


def _ignore_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the server (a terminal sends SIGINT to the whole
    process group), which stops the workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _search(game: str, seed: int, options: dict[str, bool], nodes: int, seconds: float) -> tuple:
    """In a worker process: the solver's verdict on the deal, as plain values."""
    from engine.games import find_game
    from solver import Budget, solve

    verdict = solve(find_game(game)(seed, **options), Budget(nodes=nodes, seconds=seconds))
    return verdict.result, verdict.best_cleared, verdict.total, verdict.nodes, verdict.seconds


def _proves_winnable(game: str, seed: int, options: dict[str, bool], nodes: int, seconds: float) -> bool:
    """In a worker process: whether the solver finds a win of the deal within the budget."""
    from engine.games import find_game
    from solver import Budget, solve

    return solve(find_game(game)(seed, **options), Budget(nodes=nodes, seconds=seconds)).result == "won"


@dataclass(frozen=True, slots=True)
class WinnableSearch:
    """How hard `ParService.winnable_seeds` looks: ``nodes`` and ``seconds`` per deal tried,
    ``wait_s`` seconds in all (the request waits that long at most), and at most
    ``tries_per_deal`` deals tried for each one wanted."""

    nodes: int = 4_000
    seconds: float = 2.0
    wait_s: float = 10.0
    tries_per_deal: int = 25


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
        self._start()
        self.pending += 1
        try:
            loop = asyncio.get_running_loop()
            result, best, total, nodes, seconds = await loop.run_in_executor(
                self._pool, _search, game, seed, dict(options), self.nodes, self.seconds
            )
        except BrokenProcessPool:  # a dead worker: the race has no par, and the next search starts afresh
            log.error("par of a %s deal failed: the solver's workers stopped", game)
            self._pool = None
            return None
        except Exception:  # a shutdown: the race simply has no par
            log.exception("par of a %s deal failed", game)
            return None
        finally:
            self.pending -= 1
        return Par(result=result, best_cleared=best, total=total, nodes=nodes, seconds=seconds)

    async def winnable_seeds(
        self, game: str, count: int, options: dict[str, bool], search: WinnableSearch
    ) -> list[int]:
        """Up to ``count`` fresh secret seeds of ``game`` that the solver proved winnable (found a
        win of), searching one deal per worker at a time within ``search``'s budgets. Fewer (or
        none) when the budget runs out first, par is off, or the workers are busy: the caller
        makes up the rest from its private catalog. Never raises for a failed search."""
        if self.workers <= 0 or count <= 0 or self.pending >= self.workers * QUEUE_PER_WORKER:
            return []
        self._start()
        loop = asyncio.get_running_loop()
        deadline = time.monotonic() + search.wait_s
        budget = min(search.seconds, search.wait_s)
        found: list[int] = []
        tries = count * search.tries_per_deal
        running: dict[asyncio.Future, int] = {}
        try:
            while len(found) < count and (running or tries > 0) and time.monotonic() < deadline:
                while tries > 0 and len(running) < self.workers:
                    seed = random_seed()
                    tries -= 1
                    try:
                        future = loop.run_in_executor(
                            self._pool, _proves_winnable, game, seed, dict(options), search.nodes, budget
                        )
                    except BrokenProcessPool:  # a worker died: start afresh next time
                        log.error("the solver's workers stopped; they start again at the next search")
                        self._pool = None
                        return found[:count]
                    self.pending += 1  # until the worker is done with it, even after we stop waiting
                    future.add_done_callback(self._search_done)
                    running[future] = seed
                done, _ = await asyncio.wait(
                    running, timeout=max(0.0, deadline - time.monotonic()), return_when=asyncio.FIRST_COMPLETED
                )
                for future in done:
                    seed = running.pop(future)
                    try:
                        if future.result():
                            found.append(seed)
                    except Exception:  # a dead worker: that deal simply does not count
                        log.exception("the winnable search of a %s deal failed", game)
        finally:
            for future in running:  # out of time: a search not started is dropped, one running ends alone
                future.cancel()
        return found[:count]

    def _search_done(self, future: asyncio.Future) -> None:
        self.pending -= 1
        if not future.cancelled():
            future.exception()  # retrieved, so that a failure nobody waits for is not reported later

    def _start(self) -> None:
        """Start the worker processes if they are not running."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_interrupts
            )

    def close(self) -> None:
        """Stop the workers, dropping searches not started."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
