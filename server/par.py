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

**How uniform the winnable deals are.** Each fresh seed is drawn uniformly at random and kept
exactly when the solver finds a win of it within the per-deal budget; a deal it proves lost is
dropped, as it should be, and so is one it cannot decide in time. The seeds given are therefore
uniform over the winnable deals except the winnable ones the solver cannot decide within
``WinnableSearch.seconds``: where a game's undecided share at that budget is u, at most a share
u of its winnable deals is never given, and those are the hard ones. docs/winnability.md gives u
per game at the par budget.

**Par goes first.** The workers take searches one at a time from a queue with two priorities
(`_Slots`): a finished race's par before any deal tried for a winnable request, so that at
worst it waits for the searches already running (``seconds`` each, at most). Winnable requests
are limited at once (`WinnableSearch.at_once`, `WinnableSearch.at_once_per_key`: for the whole
server and per address); one beyond gets `SolverBusy` at once, and its caller serves it from the
private catalog, or refuses it. Only par searches count towards the waiting queue that makes a
finished race go without par.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import multiprocessing
import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.queues import SimpleQueue
from typing import cast

from engine.deal import random_seed
from server.protocol import Par

__all__ = ["ParService", "SolverBusy", "WinnableSearch"]

log = logging.getLogger("arena.server")

#: Par searches that may wait per worker before a finished race goes without par.
QUEUE_PER_WORKER = 8
#: Priorities of the workers' queue (`_Slots`): lower first.
PAR, WINNABLE = 0, 1


def _worker_started(pids: SimpleQueue[int]) -> None:
    """In a worker process, first: leave Ctrl-C to the server (a terminal sends SIGINT to the
    whole process group), which stops the workers itself, and tell it this worker's pid."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pids.put(os.getpid())


def _search(game: str, seed: int, options: dict[str, bool], nodes: int, seconds: float, memory_mb: float) -> tuple:
    """In a worker process: the solver's verdict on the deal, as plain values."""
    from engine.games import find_game
    from solver import Budget, solve

    verdict = solve(find_game(game)(seed, **options), Budget(nodes=nodes, seconds=seconds, memory_mb=memory_mb))
    return verdict.result, verdict.best_cleared, verdict.total, verdict.nodes, verdict.seconds


def _proves_winnable(
    game: str, seed: int, options: dict[str, bool], nodes: int, seconds: float, memory_mb: float
) -> bool:
    """In a worker process: whether the solver finds a win of the deal within the budget (a win
    the engine replays: `solver.solve` checks it)."""
    from engine.games import find_game
    from solver import Budget, solve

    budget = Budget(nodes=nodes, seconds=seconds, memory_mb=memory_mb)
    return solve(find_game(game)(seed, **options), budget).result == "won"


@dataclass(frozen=True, slots=True)
class WinnableSearch:
    """How hard `ParService.winnable_seeds` looks: ``nodes``, ``seconds`` and ``memory_mb`` per deal tried,
    ``wait_s`` seconds in all (the request waits that long at most), and at most
    ``tries_per_deal`` deals tried for each one wanted; ``at_once`` such requests searched for at
    once on the whole server, ``at_once_per_key`` per key (an address)."""

    nodes: int = 100_000_000
    seconds: float = 5.0
    memory_mb: float = 256.0
    wait_s: float = 10.0
    tries_per_deal: int = 25
    at_once: int = 4
    at_once_per_key: int = 1


class SolverBusy(Exception):
    """A winnable request beyond `WinnableSearch.at_once` or ``at_once_per_key``: ``reason`` says
    which, in a player's words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Slots:
    """The workers, one search each: `acquire` waits for a free one, by priority (lower first),
    then in order of asking; `release` hands it to the next waiter. O(log waiters) each."""

    def __init__(self, slots: int) -> None:
        self.free = slots
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def acquire(self, priority: int) -> None:
        """Wait for a free worker; raises CancelledError (holding none) if cancelled meanwhile."""
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # handed a worker just as it was cancelled
                self.release()
            raise

    def release(self) -> None:
        """A worker is free again: the first waiter by priority gets it."""
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class ParService:
    """Runs par searches and winnable searches in ``workers`` processes (started at the first
    search, spawned rather than forked, since the server runs threads and an event loop), par
    first (see the module docstring)."""

    def __init__(self, workers: int, nodes: int, seconds: float, memory_mb: float = 256.0) -> None:
        self._slots = _Slots(0)
        self._workers = 0
        self.workers = workers
        self.nodes = nodes
        self.seconds = seconds
        self.memory_mb = memory_mb
        self.pending = 0  # par searches waiting or running
        self.searches: Counter[str] = Counter()  # winnable requests being searched for, by key
        self._pool: ProcessPoolExecutor | None = None
        self._pids: SimpleQueue[int]  # the workers' pids, each told once (`_worker_started`)

    @property
    def workers(self) -> int:
        """Worker processes (0: no par, no winnable searches)."""
        return self._workers

    @workers.setter
    def workers(self, count: int) -> None:
        """Set the number of workers before the first search (the pool starts with it); the
        free workers follow."""
        self._slots.free += count - self._workers
        self._workers = count

    async def compute(self, game: str, seed: int, options: dict[str, bool]) -> Par | None:
        """The par of deal ``seed`` of ``game``, or None (par off, queue full, or the search failed)."""
        if self.workers <= 0 or self.pending >= self.workers * QUEUE_PER_WORKER:
            return None
        self.pending += 1
        try:
            found = await self._run(PAR, _search, game, seed, dict(options), self.nodes, self.seconds, self.memory_mb)
            assert isinstance(found, tuple)
            result, best, total, nodes, seconds = found
        except BrokenProcessPool:  # a dead worker: the race has no par, and the next search starts afresh
            log.error("par of a %s deal failed: the solver's workers stopped", game)
            self._pool = None
            return None
        except asyncio.CancelledError:
            raise
        except Exception:  # a shutdown: the race simply has no par
            log.exception("par of a %s deal failed", game)
            return None
        finally:
            self.pending -= 1
        return Par(result=result, best_cleared=best, total=total, nodes=nodes, seconds=seconds)

    async def _run(self, priority: int, fn: object, *args: object) -> object:
        """Run ``fn(*args)`` in a worker once one is free for ``priority``; the worker counts as
        busy until the search ends, even if the caller stops waiting for it. Raises what the
        search raised, BrokenProcessPool."""
        await self._slots.acquire(priority)
        loop = asyncio.get_running_loop()
        try:
            self._start()
            assert self._pool is not None
            future: Future[object] = self._pool.submit(cast(Callable[..., object], fn), *args)
        except BaseException:
            self._slots.release()
            raise

        def done(_: Future[object]) -> None:  # (in the pool's thread)
            try:
                loop.call_soon_threadsafe(self._slots.release)
            except RuntimeError:  # the loop has closed: nothing waits any more
                pass

        future.add_done_callback(done)
        return await asyncio.wrap_future(future)

    async def run(self, fn: object, *args: object) -> object:
        """Run ``fn(*args)`` (a picklable top-level function) in a worker after every par and
        winnable search waiting (a tournament deal's fair-play report, `server.fair_play_reports`),
        and return what it returns; None when there are no workers. Raises what ``fn`` raised,
        BrokenProcessPool (the next search starts the workers afresh)."""
        if self.workers <= 0:
            return None
        try:
            return await self._run(WINNABLE + 1, fn, *args)
        except BrokenProcessPool:
            self._pool = None
            raise

    async def winnable_seeds(
        self, game: str, count: int, options: dict[str, bool], search: WinnableSearch, key: str | None = None
    ) -> list[int]:
        """Up to ``count`` fresh secret seeds of ``game`` that the solver proved winnable (found a
        win of), trying one deal per worker at a time (after any par waiting) within
        ``search``'s budgets. Fewer (or none) when the budget runs out first or par is off: the
        caller makes up the rest from its private catalog. Raises `SolverBusy` at once when
        ``search.at_once`` requests are being searched for, or ``search.at_once_per_key`` for
        ``key`` (an address; None: no limit of its own); never for a failed search."""
        if self.workers <= 0 or count <= 0:
            return []
        if sum(self.searches.values()) >= search.at_once:
            raise SolverBusy(f"the solver is already looking for winnable deals for {search.at_once} requests")
        if key is not None and self.searches[f"a:{key}"] >= search.at_once_per_key:
            raise SolverBusy(
                f"the solver is already looking for winnable deals for {search.at_once_per_key} "
                f"request(s) from your address"
            )
        slot = "" if key is None else f"a:{key}"  # ("": callers without a key of their own)
        self.searches[slot] += 1
        try:
            return await self._winnable(game, count, options, search)
        finally:
            self.searches[slot] -= 1
            if not self.searches[slot]:
                del self.searches[slot]

    async def _winnable(self, game: str, count: int, options: dict[str, bool], search: WinnableSearch) -> list[int]:
        deadline = time.monotonic() + search.wait_s
        budget = min(search.seconds, search.wait_s)
        found: list[int] = []
        tries = count * search.tries_per_deal
        running: dict[asyncio.Task[object], int] = {}  # each deal tried: its seed
        try:
            while len(found) < count and (running or tries > 0) and time.monotonic() < deadline:
                while tries > 0 and len(running) < self.workers:
                    tries -= 1
                    seed = random_seed()
                    task = asyncio.ensure_future(
                        self._run(
                            WINNABLE,
                            _proves_winnable,
                            game,
                            seed,
                            dict(options),
                            search.nodes,
                            budget,
                            search.memory_mb,
                        )
                    )
                    running[task] = seed
                done, _ = await asyncio.wait(
                    running, timeout=max(0.0, deadline - time.monotonic()), return_when=asyncio.FIRST_COMPLETED
                )
                for task in done:
                    seed = running.pop(task)
                    try:
                        if task.result():
                            found.append(seed)
                    except BrokenProcessPool:  # a worker died: start afresh next time
                        log.error("the solver's workers stopped; they start again at the next search")
                        self._pool = None
                        return found[:count]
                    except Exception:  # that deal simply does not count
                        log.exception("the winnable search of a %s deal failed", game)
        finally:
            for task in running:  # out of time: a deal still waiting for a worker is dropped
                task.cancel()  # (one running ends alone; its worker counts as busy until then)
        return found[:count]

    def _start(self) -> None:
        """Start the worker processes if they are not running."""
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pids = context.SimpleQueue()
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_worker_started, initargs=(self._pids,)
            )

    def close(self) -> None:
        """Stop the workers at once, dropping every search, those running too: the process could
        not exit before a running search ends (``seconds`` each, more on a loaded machine), and a
        stopping server has its grace to keep. A race whose par is dropped so has none."""
        if self._pool is None:
            return
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = None
        while not self._pids.empty():  # (a worker still starting has taken no search yet; it exits)
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pids.get(), signal.SIGTERM)
        self._pids.close()
