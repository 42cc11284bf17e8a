"""The in-memory store: everything in dicts of one process; the embedded default."""

from __future__ import annotations

from collections import defaultdict, deque

from server.store import MoveEntry, Store, StoredEvent

__all__ = ["MemoryStore"]


class MemoryStore(Store):
    """Keeps races, move logs and the last ``max_events`` events of each race in memory.

    ``max_events`` (events per race, default 10,000) bounds memory; a client further behind gets
    a snapshot instead of the events it missed.
    """

    def __init__(self, *, max_events: int = 10_000) -> None:
        self._races: dict[str, dict[str, object]] = {}
        self._moves: dict[tuple[str, str], list[MoveEntry]] = defaultdict(list)
        self._events: dict[str, deque[StoredEvent]] = defaultdict(lambda: deque(maxlen=max_events))

    async def save_race(self, code: str, meta: dict[str, object]) -> None:
        self._races[code] = dict(meta)

    async def load_race(self, code: str) -> dict[str, object] | None:
        meta = self._races.get(code)
        return dict(meta) if meta is not None else None

    async def append_move(self, code: str, player: str, entry: MoveEntry) -> None:
        self._moves[code, player].append(entry)

    async def moves(self, code: str, player: str) -> list[MoveEntry]:
        return list(self._moves.get((code, player), ()))

    async def append_event(self, code: str, event: StoredEvent) -> None:
        self._events[code].append(event)

    async def events_since(self, code: str, since: int) -> list[StoredEvent] | None:
        events = self._events.get(code)
        if not events:
            return [] if since >= 0 else None
        if since + 1 < events[0].version:
            return None
        return [e for e in events if e.version > since]
