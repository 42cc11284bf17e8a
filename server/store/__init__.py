"""Where races live: the `Store` interface, with an in-memory store (one process, the default).

A race is its log (docs/design.md, invariant 3): the store keeps each race's description, every
entrant's accepted moves in order (written before the move is acknowledged) and every event the
race published, with its version, in the form each audience received it, so that a client that
missed events can be sent them again. When a finished race leaves the server's memory, the store
keeps only its final record (what `get_record` answers) for a retention time, so that it can
still be verified.

A durable store also keeps what a restarted server needs to rebuild its races
(`ArenaServer.start`): the codes of the races still in play (`live_races`, until `archive_race`),
each race's description (everything `server.race.Race.rebuild` reads), the version of its last
event (`last_version`), and each player's id and name under a SHA-256 digest of its token
(`save_player`; never the token itself), so that a hello with an old token is the same player.
It keeps each tournament that has not left memory yet, as a description (`save_tournament`:
everything `server.tournament.Tournament.rebuild` reads, its deal races by code) listed among
`live_tournaments` until `archive_tournament`, and every recurring schedule's request
(`save_schedule`), so that a restarted server goes on with both.

Errors: every method may raise `StoreUnavailable` (an `OSError`) when the storage cannot be
reached or does not answer in time; the caller then refuses the request with ``unavailable``.
"""

from __future__ import annotations

import abc
import asyncio
import functools
import logging
from collections.abc import Callable
from typing import NamedTuple

__all__ = [
    "DataLoss",
    "LostMoves",
    "MoveEntry",
    "StaleRace",
    "Store",
    "StoreUnavailable",
    "StoredEvent",
    "StoredPlayer",
]


log = logging.getLogger("arena.server")


class StoreUnavailable(OSError):
    """The storage cannot be reached, or did not answer within its timeout. Nothing the failed
    call was asked to write may be taken as stored (it may or may not have landed)."""


class StaleRace(StoreUnavailable):
    """The race ``code`` in this node's memory no longer matches Redis: nothing was written, the
    race must leave this node's memory (rebuilt from Redis when next asked for), and the
    client's request is refused with ``unavailable`` (sent again, it finds the race as Redis has
    it)."""

    def __init__(self, code: str, why: str) -> None:
        super().__init__(f"race {code}: {why}")
        self.code = code


class LostMoves(StaleRace):
    """The store lost moves this node had acknowledged: ``player``'s log in race ``code`` ends at
    move ``stored`` (0: the log is empty) where the move being written, ``seq``, needs it to end
    at ``seq - 1`` (Redis restarted empty, or from an append-only file that lacks its last
    writes). Nothing was written. Unlike its parent `StaleRace`, the race must not be rebuilt
    from the store and played on (its log is shorter than what its entrants were told): catch
    this before `StaleRace`, flag the race as damaged and tell its entrants. The store has also
    reported the loss (`Store.on_data_loss`)."""

    def __init__(self, code: str, player: str, stored: int, seq: int) -> None:
        missing = f"moves {stored + 1} to {seq - 1}" if seq - 1 > stored + 1 else f"move {stored + 1}"
        super().__init__(code, f"the store lost {missing} of {player} (its log ends at move {stored})")
        self.player = player
        self.stored = stored
        self.seq = seq


class DataLoss(NamedTuple):
    """What a store found missing: ``why`` in words (for the operator), and ``races``, the codes
    of the races whose stored moves fell short of what this node acknowledged (each to be flagged
    as damaged: `Store.on_data_loss`)."""

    why: str
    races: tuple[str, ...]


class MoveEntry(NamedTuple):
    """One accepted move: its sequence number, notation, race time in milliseconds and the
    version of the event that publishes it (0: not known). The move is stored before its event
    is (`Store.queue_event`), so a rebuilt race numbers its events on from the highest of these
    (`server.race.Race.rebuild`): a version an audience may have seen is never given twice."""

    seq: int
    move: str
    time_ms: int
    version: int = 0


class StoredEvent(NamedTuple):
    """One race event as each audience received it: encoded frames for entrants and spectators
    (the same object when both audiences received the same bytes)."""

    version: int
    entrant_frame: bytes
    spectator_frame: bytes


class StoredPlayer(NamedTuple):
    """A player as the store keeps it: its id and display name (its token only as a digest)."""

    player: str
    name: str


class Store(abc.ABC):
    """Storage for races. Every method may raise `OSError` if the storage is unreachable; the
    caller then refuses the request (nothing is acknowledged that was not stored)."""

    #: True when races outlive the server process (another node, or the same one restarted,
    #: resumes them from the store); False when they live and die with it, as in memory. A
    #: server shutting down over a store that is not durable ends every unfinished race
    #: (reason ``server_shutdown``) and tells its entrants, rather than leave them waiting.
    durable: bool = False
    #: True when several server nodes may share it, each with its ``node_id`` (`server.nodes`
    #: links them); False for a store of one process.
    shared: bool = False
    #: This node's name among those sharing the store ("" for a store of one process).
    node_id: str = ""
    #: True when no call ever waits on anything outside the process (the memory store): a
    #: request may then be carried out within the callback that read its frame, without a task
    #: of its own (`server.transport.session.Session.take`).
    in_process: bool = False
    #: Called, on the event loop, each time the store finds that it lost data this node wrote
    #: (`DataLoss`: which races fell short); set by the server (the race side flags those races
    #: as damaged and tells their entrants). None: the loss is only logged and counted. The store
    #: in memory never loses anything and never calls it.
    on_data_loss: Callable[[DataLoss], None] | None = None
    #: How many times this store found lost data (``arena_store_data_lost_total`` in /metrics).
    data_losses: int = 0

    async def open(self) -> None:
        """Connect, and check that the storage answers; raises `StoreUnavailable` if it does
        not. The server calls it once before it listens. Nothing to do in memory."""

    async def close(self) -> None:
        """Let go of connections (the server calls it in `ArenaServer.close` for a store it
        built itself). Nothing to do in memory."""

    @abc.abstractmethod
    async def save_race(self, code: str, meta: dict[str, object]) -> None:
        """Create or update a race's description (a flat dict of str, int, bool or None), and
        list the race among `live_races` until `archive_race`."""

    @abc.abstractmethod
    async def load_race(self, code: str) -> dict[str, object] | None:
        """A race's description, or None if there is no such race."""

    @abc.abstractmethod
    async def live_races(self) -> list[str]:
        """The codes of every race with a description (saved and not archived yet), in no
        particular order: what a restarted server resumes."""

    @abc.abstractmethod
    async def last_version(self, code: str) -> int:
        """The version of the newest event stored for race ``code`` (0 if none): a rebuilt race
        numbers its next event after it."""

    @abc.abstractmethod
    async def save_player(self, player: str, token_digest: str, name: str, keep_s: float) -> None:
        """Keep ``player``'s id and display name under ``token_digest`` (the SHA-256 hex digest of
        its token; never the token) for ``keep_s`` seconds from now (saving again renews it)."""

    @abc.abstractmethod
    async def player_by_token(self, token_digest: str) -> StoredPlayer | None:
        """The player saved under ``token_digest``, or None (never saved, forgotten or expired)."""

    @abc.abstractmethod
    async def forget_player(self, token_digest: str) -> None:
        """Drop the player saved under ``token_digest`` (its token no longer resumes it)."""

    @abc.abstractmethod
    async def append_move(self, code: str, player: str, entry: MoveEntry) -> None:
        """Append an accepted move to ``player``'s log in race ``code``; an entrant's first move
        is ``seq`` 1, and each next one the number after the log's last.

        A move with the same ``seq`` as the last one in the log replaces it: a write whose caller
        gave up on it (a timeout) may still have landed, and the caller refused that move, so
        the one it stores now under that number is the true one. Raises `LostMoves` (nothing
        written) when the log ends before ``seq - 1`` (an empty log included: the store lost
        moves), `StaleRace` when it ends after ``seq`` (another writer went on)."""

    @abc.abstractmethod
    async def moves(self, code: str, player: str) -> list[MoveEntry]:
        """Every accepted move of ``player`` in race ``code``, in order."""

    @abc.abstractmethod
    async def append_event(self, code: str, event: StoredEvent) -> None:
        """Append a published event; versions go up by one per race."""

    def queue_event(self, code: str, event: StoredEvent) -> None:
        """Store a published event as `append_event` does, without waiting for it: a store that
        sends writes in batches sends it with the race's next writes (the Redis store: in one
        call with the race's next move, `server.store.redis`), so that a move's answer waits for
        one durable write only. Reads of the race's events (`events_since`, `last_version`)
        and `archive_race` see it. A failure is only logged: a catch-up over a missing event
        gets a snapshot. This default runs `append_event` in a task of its own."""
        task = asyncio.ensure_future(self.append_event(code, event))
        task.add_done_callback(functools.partial(_event_stored, code, event.version))

    @abc.abstractmethod
    async def events_since(self, code: str, since: int, limit: int | None = None) -> list[StoredEvent] | None:
        """Events with version greater than ``since``, oldest first, at most ``limit`` of them
        (None: all); None if some of them are no longer kept (the caller sends a snapshot
        instead)."""

    @abc.abstractmethod
    async def archive_race(self, code: str, record: bytes | None, keep_s: float) -> None:
        """The race left the server's memory: drop its description, move logs and events, and
        keep ``record`` (an encoded `server.protocol.RaceRecord`, None for a race that was never
        dealt) for ``keep_s`` seconds."""

    @abc.abstractmethod
    async def load_record(self, code: str) -> bytes | None:
        """The record `archive_race` kept for ``code``, or None (never kept, or expired)."""

    @abc.abstractmethod
    async def save_tournament(self, tournament_id: str, meta: dict[str, object]) -> None:
        """Create or update a tournament's description (a flat dict of str, int, bool or None,
        as for `save_race`), and list it among `live_tournaments` until `archive_tournament`."""

    @abc.abstractmethod
    async def load_tournament(self, tournament_id: str) -> dict[str, object] | None:
        """A tournament's description, or None if there is no such tournament (or it was
        archived)."""

    @abc.abstractmethod
    async def live_tournaments(self) -> list[str]:
        """The ids of every tournament with a description (saved and not archived yet), in no
        particular order: what a restarted server resumes."""

    @abc.abstractmethod
    async def archive_tournament(self, tournament_id: str) -> None:
        """The tournament left the server's memory: drop its description and unlist it (its deal
        races are archived one by one, `archive_race`)."""

    @abc.abstractmethod
    async def save_schedule(self, schedule_id: str, message: bytes) -> None:
        """Keep a recurring schedule: ``message`` is its encoded
        `server.protocol.CreateTournament` (msgspec MessagePack), replaced if ``schedule_id``
        had one already."""

    @abc.abstractmethod
    async def schedules(self) -> dict[str, bytes]:
        """Every kept schedule: its id -> the message `save_schedule` kept."""

    @abc.abstractmethod
    async def drop_schedule(self, schedule_id: str) -> None:
        """Forget a schedule (it was cancelled); nothing happens for an unknown id."""


def _event_stored(code: str, version: int, task: asyncio.Future[None]) -> None:
    """Log an event that `Store.queue_event` could not store."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.warning("event %d of race %s not stored: %s", version, code, exc)
