"""The daily challenge's results and the kept secrets in this process's memory: `MemoryDaily`, the
daily part of `server.archive.Archive` that `server.archive.memory.MemoryArchive` takes (a mixin)."""

from __future__ import annotations

import msgspec

from server.archive import Archive, ArchiveError, daily_order, daily_replaces
from server.protocol import DailyResult

__all__ = ["MemoryDaily"]


class _State:
    def __init__(self) -> None:
        self.results: dict[tuple[str, str, str], DailyResult] = {}  # (day, game, player) -> its result
        self.by_player: dict[str, set[tuple[str, str]]] = {}  # player -> its (day, game) keys
        self.secrets: dict[str, str] = {}


class MemoryDaily(Archive):
    """Daily results by ``(day, game, player)`` with each player's keys beside them, and the
    secrets by name."""

    @property
    def _daily_state(self) -> _State:
        state = self.__dict__.get("_daily_kept")
        if state is None:
            state = self.__dict__["_daily_kept"] = _State()
        return state

    async def put_daily_result(self, result: DailyResult, finished_ms: int) -> bool:
        """See `Archive.put_daily_result`."""
        state = self._daily_state
        key = (result.day, result.game, result.player)
        kept = state.results.get(key)
        if kept is not None and not daily_replaces(kept, result):
            return False
        state.results[key] = result
        state.by_player.setdefault(result.player, set()).add((result.day, result.game))
        return True

    async def daily_board(self, game: str, day: str, limit: int) -> list[DailyResult]:
        """See `Archive.daily_board`."""
        if limit < 1:
            raise ArchiveError(f"a daily leaderboard page holds at least one result (limit {limit})")
        found = [r for (d, g, _), r in self._daily_state.results.items() if d == day and g == game]
        return sorted(found, key=daily_order)[:limit]

    async def daily_of(self, player_id: str, first_day: str, last_day: str) -> list[DailyResult]:
        """See `Archive.daily_of`."""
        state = self._daily_state
        keys = [k for k in state.by_player.get(player_id, ()) if first_day <= k[0] <= last_day]
        keys.sort(key=lambda key: key[1])
        keys.sort(key=lambda key: key[0], reverse=True)  # (stable: newest day first, then by game)
        return [state.results[(day, game, player_id)] for day, game in keys]

    async def kept_secret(self, name: str, fresh: str) -> str:
        """See `Archive.kept_secret`."""
        return self._daily_state.secrets.setdefault(name, fresh)

    def _forget_daily(self, player_id: str, anonymous_name: str) -> None:
        """Name ``player_id``'s daily results ``anonymous_name`` (a deleted identity)."""
        state = self._daily_state
        for day, game in state.by_player.get(player_id, ()):
            key = (day, game, player_id)
            state.results[key] = msgspec.structs.replace(state.results[key], name=anonymous_name)
