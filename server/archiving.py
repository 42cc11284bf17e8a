"""Finished races and tournaments written to the archive (`server.archive`), off the hot path:
`Archiver`.

A race that finishes is handed to the archiver (`Archiver.race_finished`) and written by one
task of its own (`Archiver.run`), never by the request that finished it: a move's answer never
waits for the archive. A race whose par the solver is still working out is held until the par
is kept (`Archiver.release`), so that the archived record carries it. A write that fails (the
database away) is tried again, the same race first, after a pause that doubles from
`RETRY_S` up to `MAX_RETRY_S` seconds; meanwhile the race stays in memory: the retention
sweep (`server.upkeep`) lets a race or tournament leave memory only once it is archived
(`Archiver.settle`). A tournament is written once it ends, after its races.

A rated race's ratings are applied right after it is written (`server.rated_races`), by the same
task, so a failure there is tried again like the write.

A Double or Naught round decided after the race was archived hands it in again
(`Archiver.race_changed`): it waits to be written once more, and the retention sweep keeps it in
memory until the archive's copy carries the round. Every write is idempotent
(`server.archive.Archive.put_race`, by race code) and never goes backwards: a retry, a sweep
writing a race the task is writing too, or another node that took the race over writing it
again, never makes a second copy, and an older copy (fewer rounds decided,
`server.archive.record_revision`) never replaces a newer one.

Reading: `Archiver.record` is the archived record of a race that neither memory nor the live
store holds any more (`server.handlers.races.kept_record`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from pathlib import Path

from server.archive import Archive, ArchiveError, open_archive
from server.config import ServerConfig
from server.logs import fields
from server.protocol import DailyResult, RaceRecord, encode
from server.race import Clock, Race
from server.rated_races import apply_race_ratings
from server.stopping import stop_if_cancelled
from server.store import StoreUnavailable
from server.tournament import Tournament

__all__ = ["MAX_RETRY_S", "PRUNE_EVERY_S", "RETRY_S", "Archiver", "open_configured"]

log = logging.getLogger("arena.archive")

#: Seconds before a failed write is tried again (doubling each time, up to `MAX_RETRY_S`).
RETRY_S = 0.5
MAX_RETRY_S = 30.0
#: Seconds between two applications of ``archive_retention_days`` at most (less when the
#: retention itself is short: a tenth of it).
PRUNE_EVERY_S = 600.0
_DAY_MS = 86_400_000


async def open_configured(config: ServerConfig) -> Archive | None:
    """Open the archive ``config`` asks for (`server.config.ServerConfig.archive_location`),
    making its data directory first; None when it asks for none. Raises `ArchiveError` with the
    reason (the directory cannot be made, the database cannot be opened or its schema is ahead
    of this code)."""
    url = config.archive_location()
    if url is None:
        return None
    if config.archive_url is None and config.data_dir is not None:
        folder = Path(config.data_dir).expanduser()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ArchiveError(f"cannot make the data directory {str(folder)!r}: {exc.strerror or exc}") from None
    archive = open_archive(url)
    try:
        await archive.open()
    except BaseException:
        await archive.close()
        raise
    return archive


def _finished_ms(race: Race, clock: Clock) -> int:
    """When ``race`` finished, Unix epoch ms: its start instant plus its race time at the end."""
    if race.started_at_ms is not None and race.finished_ms is not None:
        return race.started_at_ms + race.finished_ms
    return clock.wall_ms()


class Archiver:
    """Writes each finished race and ended tournament to ``archive`` once, and a race again
    after each Double or Naught round decided later (see the module docstring); ``clock``
    gives the finish instants and the retention's. ``retention_days``: `prune` forgets what
    finished longer ago (None or 0: never).

    Counts, for ``/metrics``: ``races_written`` and ``tournaments_written`` (writes that stored
    something new), ``repeated`` (writes the archive already had: retries, takeovers),
    ``failures`` (writes that failed and wait to be tried again), `pending`."""

    def __init__(self, archive: Archive, clock: Clock, *, retention_days: float | None = None) -> None:
        self.archive = archive
        self.clock = clock
        self.retention_days = retention_days or None
        self._races: dict[str, Race] = {}  # finished, not archived yet
        self._held: set[str] = set()  # of those, the ones whose par is being worked out
        self._changes: dict[str, int] = {}  # of those, how often each changed since it was handed in
        self._tournaments: dict[str, Tournament] = {}  # ended, not archived yet
        self._daily: dict[str, tuple[DailyResult, int]] = {}  # "day|game|player" -> result not written yet, as of ms
        self._queue: deque[tuple[str, str]] = deque()  # ("race" or "tournament", key), to write in order
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._next_prune = 0.0  # monotonic seconds
        self.races_written = 0
        self.tournaments_written = 0
        self.repeated = 0
        self.failures = 0

    def __str__(self) -> str:
        return self.archive.url or type(self.archive).__name__

    # ------------------------------------------------------------------------- handing in

    @property
    def pending(self) -> int:
        """Finished races and ended tournaments not archived yet."""
        return len(self._races) + len(self._tournaments) + len(self._daily)

    def counts(self) -> dict[str, int]:
        """What ``/metrics`` reports of the archive (`server.metrics.Metrics`)."""
        return {
            "archive_pending": self.pending,
            "archive_races_written": self.races_written,
            "archive_tournaments_written": self.tournaments_written,
            "archive_repeated": self.repeated,
            "archive_failures": self.failures,
        }

    def race_finished(self, race: Race, *, hold: bool = False) -> None:
        """``race`` finished (or was rebuilt finished after a restart or a takeover): write it
        soon; ``hold``: not before `release` (its par is being worked out). A race that never
        started has nothing to keep and is not written; one whose seed its tournament holds is
        written once the tournament ends."""
        if race.started_at_ms is None:
            return
        self._races[race.code] = race
        if hold:
            self._held.add(race.code)
        else:
            self._enqueue("race", race.code)

    def race_changed(self, race: Race) -> None:
        """A Double or Naught round of the finished race ``race`` was decided: its archived copy
        is out of date, so it waits to be written again (soon, unless its par is still being
        worked out), and `archived` is False until that write lands. A write already under way
        with the older record does not count as that write."""
        if race.started_at_ms is None:
            return
        self._changes[race.code] = self._changes.get(race.code, 0) + 1
        self._races[race.code] = race
        if race.code not in self._held:
            self._enqueue("race", race.code)

    def release(self, code: str) -> None:
        """Race ``code``'s par is kept (or none came): write it now."""
        self._held.discard(code)
        if code in self._races:
            self._enqueue("race", code)

    def tournament_ended(self, tournament: Tournament) -> None:
        """``tournament`` finished or was cancelled: write its races not written yet, then it."""
        self._tournaments[tournament.id] = tournament
        for race in tournament.races:
            self._held.discard(race.code)
            if race.code in self._races:
                self._enqueue("race", race.code)
        self._enqueue("tournament", tournament.id)

    def daily_result(self, result: DailyResult, at_ms: int) -> None:
        """A ranked daily attempt started (``playing``) or ended, at ``at_ms`` (Unix epoch ms):
        write its ``result`` soon (`server.archive.Archive.put_daily_result`; a newer word of the
        same attempt handed in before the write replaces it)."""
        key = f"{result.day}|{result.game}|{result.player}"
        self._daily[key] = (result, at_ms)
        self._enqueue("daily", key)

    def forget(self, code: str) -> None:
        """Race ``code`` left this node without being archived here (another node serves it
        now, and archives it)."""
        self._races.pop(code, None)
        self._held.discard(code)
        self._changes.pop(code, None)

    def archived(self, code: str) -> bool:
        """False while race ``code`` waits to be written."""
        return code not in self._races

    def _enqueue(self, kind: str, key: str) -> None:
        self._queue.append((kind, key))
        self._idle.clear()
        self._wake.set()

    # --------------------------------------------------------------------------- writing

    async def run(self) -> None:
        """Write what is handed in, in order, until cancelled; a write that fails is tried
        again after a pause (`RETRY_S`, doubling up to `MAX_RETRY_S`), the same one first."""
        pause = RETRY_S
        while True:
            while not self._queue:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
            kind, key = self._queue[0]
            try:
                if kind == "race":
                    await self._write_race(key)
                elif kind == "daily":
                    await self._write_daily(key)
                else:
                    await self._write_tournament(key)
            except (ArchiveError, StoreUnavailable) as exc:
                self.failures += 1
                log.warning(
                    "%s %s not archived yet (tried again in %g s): %s",
                    kind,
                    key,
                    pause,
                    exc,
                    extra=fields("archive_failed", race=key if kind == "race" else None, reason=str(exc)),
                )
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_RETRY_S)
                continue
            stop_if_cancelled()
            pause = RETRY_S
            if self._queue and self._queue[0] == (kind, key):
                self._queue.popleft()

    async def _write_race(self, code: str) -> None:
        """Write race ``code`` if it still waits and its seed may be published (one whose
        tournament holds it waits for the tournament's end, or the sweep). Raises `ArchiveError`,
        `server.store.StoreUnavailable` (its moves could not be read)."""
        race = self._races.get(code)
        if race is None or not race.revealed:
            return
        changes = self._changes.get(code)
        record, _ = await race.kept_record()
        finished_ms = _finished_ms(race, self.clock)
        written = await self.archive.put_race(record, finished_ms)
        if race.rated:  # (again after a failure or a takeover: applying is idempotent by race code)
            await apply_race_ratings(
                self.archive, record, finished_ms, bots=race.bots, secret_seed=not race.seed_public
            )
        if self._races.get(code) is race and self._changes.get(code) == changes:  # else: written again
            del self._races[code]
            self._held.discard(code)
            self._changes.pop(code, None)
        if written:
            self.races_written += 1
        else:
            self.repeated += 1
        log.info(
            "race %s archived%s",
            code,
            "" if written else " (the archive had it already)",
            extra=fields("race_archived", race=code, written=written),
        )

    async def _write_daily(self, key: str) -> None:
        """Write the daily result waiting under ``key``, if any. Raises `ArchiveError`."""
        waiting = self._daily.get(key)
        if waiting is None:
            return
        await self.archive.put_daily_result(*waiting)
        if self._daily.get(key) is waiting:  # (else: a newer word came meanwhile, queued after this)
            del self._daily[key]

    async def _write_tournament(self, tournament_id: str) -> None:
        """Write tournament ``tournament_id``'s races still waiting, then it. Raises
        `ArchiveError`, `server.store.StoreUnavailable`."""
        tournament = self._tournaments.get(tournament_id)
        if tournament is None:
            return
        for race in tournament.races:
            if isinstance(race, Race):
                await self._write_race(race.code)
        written = await self.archive.put_tournament(
            tournament_id, tournament.info(), tournament.standings(), self.clock.wall_ms()
        )
        if self._tournaments.get(tournament_id) is tournament:
            del self._tournaments[tournament_id]
        if written:
            self.tournaments_written += 1
        else:
            self.repeated += 1
        log.info(
            "tournament %s archived",
            tournament_id,
            extra=fields("tournament_archived", tournament=tournament_id, written=written),
        )

    async def settle(self, race: Race) -> bool:
        """Make sure ``race`` is archived before it leaves memory: True if it is (or has nothing
        to archive), writing it now if it still waits; False if the write failed (logged; the
        sweep tries again)."""
        if self.archived(race.code) or not race.revealed:
            return self.archived(race.code)
        try:
            await self._write_race(race.code)
        except (ArchiveError, StoreUnavailable) as exc:
            self.failures += 1
            log.warning("race %s cannot leave memory before it is archived: %s", race.code, exc)
            return False
        return self.archived(race.code)

    async def settle_tournament(self, tournament: Tournament) -> bool:
        """As `settle`, for an ended tournament (its races first)."""
        if tournament.id not in self._tournaments:
            return True
        try:
            await self._write_tournament(tournament.id)
        except (ArchiveError, StoreUnavailable) as exc:
            self.failures += 1
            log.warning("tournament %s cannot leave memory before it is archived: %s", tournament.id, exc)
            return False
        return True

    async def flush(self, timeout_s: float) -> bool:
        """Write everything waiting now, held races included (without their par, if it has not
        come): for a server about to stop. True if all of it was written within ``timeout_s``
        seconds (while `run` runs)."""
        for code in list(self._held):
            self.release(code)
        for code, race in self._races.items():
            if race.revealed:
                self._enqueue("race", code)
        if self._queue:
            self._idle.clear()
            self._wake.set()
        try:
            async with asyncio.timeout(timeout_s):
                await self._idle.wait()
        except TimeoutError:
            log.warning("%d finished races and tournaments were not archived before the stop", self.pending)
            return False
        return True

    # ----------------------------------------------------------------------- reading, retention

    async def record(self, code: str) -> bytes | None:
        """The archived record of race ``code``, encoded (``req`` 0), or None. Raises
        `ArchiveError`."""
        record: RaceRecord | None = await self.archive.get_race(code)
        return None if record is None else encode(record)

    async def prune(self) -> int:
        """Apply ``retention_days`` if it is due (every `PRUNE_EVERY_S` seconds at most, a tenth
        of the retention when that is shorter): forget the races and tournaments that finished
        earlier. Returns the races forgotten. Raises `ArchiveError`."""
        if not self.retention_days:
            return 0
        now = self.clock.monotonic()
        if now < self._next_prune:
            return 0
        keep_ms = self.retention_days * _DAY_MS
        self._next_prune = now + min(PRUNE_EVERY_S, keep_ms / 10_000)
        gone = await self.archive.forget_before(int(self.clock.wall_ms() - keep_ms))
        if gone:
            log.info(
                "the archive forgot %d races older than %g days",
                gone,
                self.retention_days,
                extra=fields("archive_pruned", races=gone, retention_days=self.retention_days),
            )
        return gone

    async def close(self) -> None:
        """Let the archive go."""
        await self.archive.close()
