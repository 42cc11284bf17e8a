"""What keeps a long-running server's memory bounded: the retention sweeps, giving freed memory
back to the system, and the garbage collector's settings.

One task sweeps every ``sweep_interval_s`` seconds (`housekeeping`): open races nobody started
expire, finished races and tournaments leave memory after ``race_retention_s`` (their records go
to the store; with an archive, not before they are archived: `server.archiving.Archiver.settle`),
players who left are forgotten after ``player_retention_s``; the archive forgets what finished
more than ``archive_retention_days`` ago. Each kind waits in a
queue ordered by when it is due (`server.state.ServerState`), so a sweep costs what it removes
(docs/design.md, invariant 8).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import logging
import time
from collections.abc import Callable

from server.archive import ArchiveError
from server.players import token_digest
from server.protocol import encode
from server.state import ServerState
from server.stopping import stop_if_cancelled
from server.store import StaleRace, StoreUnavailable
from server.transport.session import Session

__all__ = ["TRIM_EVERY", "TRIM_MIN", "give_back_memory", "housekeeping", "settle_garbage", "sweep"]

log = logging.getLogger("arena.server")

#: Freed memory is given back (a pause of tens of milliseconds) after ``TRIM_EVERY`` races and
#: players left memory, or at the first sweep that evicts nothing after ``TRIM_MIN`` of them.
TRIM_EVERY = 10_000
TRIM_MIN = 1_000


async def housekeeping(state: ServerState) -> None:
    """Sweep every ``sweep_interval_s`` seconds until cancelled; a sweep that fails is logged
    and tried again at the next."""
    while True:
        await state.clock.sleep_until(state.clock.monotonic() + state.config.sweep_interval_s)
        try:
            await sweep(state)
        except Exception:
            log.exception("housekeeping failed; trying again at the next sweep")
        stop_if_cancelled()


async def sweep(state: ServerState) -> None:
    """Apply the time limits that are due: end open races nobody started, let finished races and
    tournaments leave memory (their records go to the store), forget idle players; give freed
    memory back after a burst of evictions."""
    now = state.clock.monotonic()
    before = len(state.races) + len(state.players)
    while state.expiring and state.expiring[0][0] <= now:
        _, code = state.expiring.popleft()
        race = state.races.get(code)
        if race is not None:
            await race.expire()  # logged as race_finished, reason expired
    while state.retiring and state.retiring[0][0] <= now:
        _, kind, ident = state.retiring.popleft()
        if kind == "race":
            await _retire_race(state, ident, now)
        else:
            await _retire_tournament(state, ident, now)
    while state.leaving and state.leaving[0][0] <= now:
        _, token = state.leaving.popleft()
        _retire_player(state, token, now)
    if state.archiver is not None:
        try:
            await state.archiver.prune()
        except ArchiveError as exc:
            log.warning("the archive's retention was not applied (tried again later): %s", exc)
    after = len(state.races) + len(state.players)
    state.freed += before - after
    if state.freed >= TRIM_EVERY or (before == after and state.freed >= TRIM_MIN):
        give_back_memory()  # once a large burst of evictions is over, and now and then during one
        state.freed = 0


async def _retire_race(state: ServerState, code: str, now: float) -> None:
    race = state.races.get(code)
    if race is None:
        return
    if not race.revealed:  # an arena deal holds its seed until its tournament ends
        state.retiring.append((now + state.config.race_retention_s, "race", code))
        return
    if state.archiver is not None and not await state.archiver.settle(race):  # (logged)
        state.retiring.appendleft((now + state.config.sweep_interval_s, "race", code))
        return
    try:
        record = encode(await race.record(0)) if race.started_at is not None else None
        await state.store.archive_race(code, record, state.config.record_retention_s)
    except StaleRace:  # another node serves it now, and archives it in its time
        await state.drop_race(race)
        return
    except StoreUnavailable as exc:  # it stays in memory; tried again at the next sweep
        log.warning("race %s cannot leave memory yet: %s", code, exc)
        state.retiring.appendleft((now + state.config.sweep_interval_s, "race", code))
        return
    if state.archiver is not None and not state.archiver.archived(code):  # a round decided meanwhile
        state.retiring.appendleft((now + state.config.sweep_interval_s, "race", code))
        return
    await state.drop_race(race)


async def _retire_tournament(state: ServerState, tournament_id: str, now: float) -> None:
    """A finished or cancelled tournament leaves memory: its races (their records go to the
    store), then its description in a durable store (if the store cannot be reached, it stays in
    memory and is tried again at the next sweep), then its followers' and entrants' lists; an
    entrant awaited since a restart that never came back goes too."""
    tournament = state.tournaments.get(tournament_id)
    if tournament is None:
        return
    for race in tournament.races:
        await _retire_race(state, race.code, now)
    if state.archiver is not None and not await state.archiver.settle_tournament(tournament):  # (logged)
        state.retiring.appendleft((now + state.config.sweep_interval_s, "tournament", tournament_id))
        return
    if state.store.durable:
        try:
            await state.store.archive_tournament(tournament_id)
        except StoreUnavailable as exc:
            log.warning("tournament %s cannot leave memory yet: %s", tournament_id, exc)
            state.retiring.appendleft((now + state.config.sweep_interval_s, "tournament", tournament_id))
            return
    del state.tournaments[tournament_id]
    for follower in tournament.followers:
        if isinstance(follower, Session):
            follower.following.discard(tournament_id)
    for entrant in tournament.entrants.values():
        player = state.players_by_id.get(entrant.player.id)
        if player is not None:
            player.tournaments.discard(tournament_id)
            if not player.token and not player.tournaments and not player.races:
                del state.players_by_id[player.id]  # awaited since a restart, never back: nothing needs it


def _retire_player(state: ServerState, token: str, now: float) -> None:
    player = state.players.get(token)
    if player is None or player.session is not None or now < player.left_at + state.config.player_retention_s:
        return  # gone already, back online, or it left again later (a later entry stands for that)
    racing = any(
        race.status != "finished" and not race.entrants[player.id].done
        for code in player.races
        if (race := state.races.get(code)) is not None and player.id in race.entrants
    )
    waiting = any(
        t.status not in ("finished", "cancelled")
        for tid in player.tournaments
        if (t := state.tournaments.get(tid)) is not None
    )
    if racing or waiting or player.open_races:  # its races and tournaments still need its token
        state.leaving.append((now + state.config.player_retention_s, token))
        return
    state.drop_player(player)
    if state.store.durable:  # forgotten here, forgotten by the store: its token no longer resumes
        state.spawn(_forget_stored_player(state, token))


async def _forget_stored_player(state: ServerState, token: str) -> None:
    try:
        await state.store.forget_player(token_digest(token))
    except StoreUnavailable as exc:  # it expires by itself
        log.warning("a forgotten player stays in the store until it expires: %s", exc)


def give_back_memory() -> None:
    """Return freed heap memory to the operating system (glibc's ``malloc_trim``; nothing
    elsewhere). Without it, memory freed by races that left stays in the process: measured with
    `arena bench memory`, 30,000 expired races kept the server 120 MiB above its idle size, and
    about 26 MiB with it. Costs tens of milliseconds (a full garbage collection, then the trim),
    so it runs only after large bursts of evictions."""
    trim = _malloc_trim()
    if trim is not None:
        began = time.perf_counter()
        gc.collect()  # races in reference cycles are free only once the collector has run
        trim(0)
        log.info("gave freed memory back to the system in %.1f ms", (time.perf_counter() - began) * 1000)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    return getattr(libc, "malloc_trim", None)


def settle_garbage(full_threshold: int) -> None:
    """Set the garbage collector for a long-running server: a full collection only after
    ``full_threshold`` collections of the middle generation (Python's own: 10), and everything
    made so far (modules, catalogs, the server itself) frozen, never scanned again. A full
    collection scans every tracked object, about 70 per connection: at 5,000 clients it holds
    the server for about 200 ms (docs/performance.md §3.11). Young garbage is collected as before."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, full_threshold)
    gc.freeze()
