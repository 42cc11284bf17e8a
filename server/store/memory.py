"""The in-memory store: everything in dicts of one process; the embedded default."""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable

from server.store import LostMoves, MoveEntry, StaleRace, Store, StoredEvent, StoredPlayer

__all__ = ["MemoryStore"]


class MemoryStore(Store):
    """Keeps races, move logs, the last ``max_events`` events of each race, and the records of
    archived races in memory.

    ``max_events`` (events per race, default 10,000) bounds a race's memory; a client further
    behind gets a snapshot instead of the events it missed. ``max_records`` (default 100,000)
    bounds the archived records: past it the oldest go first, as they do when their keep time
    runs out. ``now``: the clock that keep times are measured on, in seconds (default
    `time.monotonic`; the server passes its own).

    Players (`save_player`), tournaments and schedules are kept too, for the contract, but the
    server saves them only in a durable store: nothing outlives this one's process.

    Move entries and events are kept as plain tuples and made `MoveEntry` and `StoredEvent`
    again when read: the garbage collector stops following a plain tuple of strings, numbers
    and bytes after its first collection, and would follow a named one for as long as the race
    lasts (a live server keeps one of each per accepted move).
    """

    durable = False  # the process's memory: its races end with it
    in_process = True  # no call waits on anything: a request needs no task of its own

    def __init__(
        self, *, max_events: int = 10_000, max_records: int = 100_000, now: Callable[[], float] = time.monotonic
    ) -> None:
        self._races: dict[str, dict[str, object]] = {}
        self._moves: dict[tuple[str, str], list[tuple[int, str, int, int]]] = defaultdict(list)  # (plain `MoveEntry`s)
        self._players: dict[str, set[str]] = defaultdict(set)  # race -> players with a move log
        self._events: dict[str, deque[tuple[int, bytes, bytes]]] = defaultdict(  # (plain `StoredEvent`s)
            lambda: deque(maxlen=max_events)
        )
        self._records: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._tokens: dict[str, tuple[float, StoredPlayer]] = {}  # token digest -> (keep until, player)
        self._tournaments: dict[str, dict[str, object]] = {}
        self._schedules: dict[str, bytes] = {}
        self.max_records = max_records
        self.now = now

    def __str__(self) -> str:
        return "memory"

    async def save_race(self, code: str, meta: dict[str, object]) -> None:
        self._races[code] = dict(meta)

    async def load_race(self, code: str) -> dict[str, object] | None:
        meta = self._races.get(code)
        return dict(meta) if meta is not None else None

    async def live_races(self) -> list[str]:
        return list(self._races)

    async def last_version(self, code: str) -> int:
        events = self._events.get(code)
        return events[-1][0] if events else 0

    async def save_player(self, player: str, token_digest: str, name: str, keep_s: float) -> None:
        self._tokens[token_digest] = (self.now() + keep_s, StoredPlayer(player, name))

    async def player_by_token(self, token_digest: str) -> StoredPlayer | None:
        kept = self._tokens.get(token_digest)
        if kept is None:
            return None
        if kept[0] <= self.now():
            del self._tokens[token_digest]
            return None
        return kept[1]

    async def forget_player(self, token_digest: str) -> None:
        self._tokens.pop(token_digest, None)

    async def append_move(self, code: str, player: str, entry: MoveEntry) -> None:
        log = self._moves[code, player]
        last = log[-1][0] if log else 0
        if last == entry.seq:
            log[-1] = (*entry,)  # (never happens in memory, where a write cannot half-fail; kept alike)
        elif last == entry.seq - 1:
            log.append((*entry,))
        elif last < entry.seq:  # (never in memory, which loses nothing: the contract, kept alike)
            raise LostMoves(code, player, last, entry.seq)
        else:
            raise StaleRace(code, f"its move log of {player} ends at move {last}, after {entry.seq}")
        self._players[code].add(player)

    async def moves(self, code: str, player: str) -> list[MoveEntry]:
        return list(map(MoveEntry._make, self._moves.get((code, player), ())))

    async def append_event(self, code: str, event: StoredEvent) -> None:
        self._events[code].append((*event,))

    def queue_event(self, code: str, event: StoredEvent) -> None:
        """As `Store.queue_event`: stored at once (nothing here waits)."""
        self._events[code].append((*event,))

    async def events_since(self, code: str, since: int, limit: int | None = None) -> list[StoredEvent] | None:
        events = self._events.get(code)
        if not events:
            return [] if since >= 0 else None
        if since + 1 < events[0][0]:  # (the first version kept)
            return None
        if since >= events[-1][0]:
            return []
        first = max(0, since + 1 - events[0][0])  # versions are consecutive: count, not search
        return list(map(StoredEvent._make, itertools.islice(events, first, None if limit is None else first + limit)))

    async def archive_race(self, code: str, record: bytes | None, keep_s: float) -> None:
        self._races.pop(code, None)
        self._events.pop(code, None)
        for player in self._players.pop(code, ()):
            self._moves.pop((code, player), None)
        now = self.now()
        self._expire(now)
        if record is not None and keep_s > 0:
            self._records[code] = (now + keep_s, record)
            self._records.move_to_end(code)
            while len(self._records) > self.max_records:
                self._records.popitem(last=False)

    async def load_record(self, code: str) -> bytes | None:
        self._expire(self.now())
        kept = self._records.get(code)
        return kept[1] if kept is not None else None

    async def save_tournament(self, tournament_id: str, meta: dict[str, object]) -> None:
        self._tournaments[tournament_id] = dict(meta)

    async def load_tournament(self, tournament_id: str) -> dict[str, object] | None:
        meta = self._tournaments.get(tournament_id)
        return dict(meta) if meta is not None else None

    async def live_tournaments(self) -> list[str]:
        return list(self._tournaments)

    async def archive_tournament(self, tournament_id: str) -> None:
        self._tournaments.pop(tournament_id, None)

    async def save_schedule(self, schedule_id: str, message: bytes) -> None:
        self._schedules[schedule_id] = message

    async def schedules(self) -> dict[str, bytes]:
        return dict(self._schedules)

    async def drop_schedule(self, schedule_id: str) -> None:
        self._schedules.pop(schedule_id, None)

    def _expire(self, now: float) -> None:
        """Drop records whose keep time is over, oldest first (records are kept in archive order,
        so only the front needs looking at while every keep time is the same)."""
        while self._records:
            code, (until, _) = next(iter(self._records.items()))
            if until > now:
                break
            del self._records[code]

    def __len__(self) -> int:
        """Races with live data (description, moves or events) in the store."""
        return len(self._races.keys() | self._events.keys() | self._players.keys())
