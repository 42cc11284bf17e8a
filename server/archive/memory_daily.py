"""The daily challenge's results and the kept secrets in this process's memory: `MemoryDaily`, the
daily part of `server.archive.Archive` that `server.archive.memory.MemoryArchive` takes (a mixin)."""

from __future__ import annotations

import bisect

import msgspec

from server.archive import DAILY_VOID, Archive, ArchiveError, daily_counted, daily_order, daily_replaces
from server.archive.daily_totals import (
    DailyTotal,
    decode_totals_cursor,
    encode_totals_cursor,
    periods_of_day,
    totals_order,
)
from server.protocol import DailyResult

__all__ = ["MemoryDaily"]


class _State:
    def __init__(self) -> None:
        self.results: dict[tuple[str, str, str], DailyResult] = {}  # (day, game, player) -> its result
        self.by_player: dict[str, set[tuple[str, str]]] = {}  # player -> its (day, game) keys
        self.secrets: dict[str, str] = {}
        self.totals: dict[tuple[str, str, str], DailyTotal] = {}  # (game, period, player) -> its sums
        self.boards: dict[tuple[str, str], list[tuple[int, int, str]]] = {}  # (game, period) -> sorted keys

    def count(self, result: DailyResult) -> None:
        """Add a final ``result`` to its week's and all time's totals."""
        for period in periods_of_day(result.day):
            key = (result.game, period, result.player)
            kept = self.totals.get(key)
            board = self.boards.setdefault((result.game, period), [])
            if kept is None:
                kept = DailyTotal(result.player, result.game, period, 0, 0, 0)
            else:
                del board[bisect.bisect_left(board, totals_order(kept))]
            total = DailyTotal(
                result.player,
                result.game,
                period,
                kept.cleared + result.cleared,
                kept.time_ms + result.time_ms,
                kept.days + 1,
            )
            self.totals[key] = total
            bisect.insort(board, totals_order(total))


class MemoryDaily(Archive):
    """Daily results by ``(day, game, player)`` with each player's keys beside them, the running
    totals of each game and period with a sorted list of their board keys, and the secrets by
    name."""

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
        if daily_counted(result):
            state.count(result)
        return True

    async def daily_board(self, game: str, day: str, limit: int) -> list[DailyResult]:
        """See `Archive.daily_board`."""
        if limit < 1:
            raise ArchiveError(f"a daily leaderboard page holds at least one result (limit {limit})")
        found = [
            r for (d, g, _), r in self._daily_state.results.items() if d == day and g == game and r.status != DAILY_VOID
        ]
        return sorted(found, key=daily_order)[:limit]

    async def daily_of(self, player_id: str, first_day: str, last_day: str) -> list[DailyResult]:
        """See `Archive.daily_of`."""
        state = self._daily_state
        keys = [k for k in state.by_player.get(player_id, ()) if first_day <= k[0] <= last_day]
        keys.sort(key=lambda key: key[1])
        keys.sort(key=lambda key: key[0], reverse=True)  # (stable: newest day first, then by game)
        return [state.results[(day, game, player_id)] for day, game in keys]

    async def daily_totals_board(
        self, game: str, period: str, *, after: str | None = None, around: str | None = None, limit: int
    ) -> tuple[list[DailyTotal], str | None]:
        """See `Archive.daily_totals_board`."""
        if limit < 1:
            raise ArchiveError(f"a daily board page holds at least one player (limit {limit})")
        if after is not None and around is not None:
            raise ArchiveError("a daily board page starts after a cursor or around a player, not both")
        state = self._daily_state
        board = state.boards.get((game, period), [])
        start = 0
        if after is not None:
            try:
                cleared, time_ms, player = decode_totals_cursor(after)
            except ValueError as exc:
                raise ArchiveError(str(exc)) from None
            start = bisect.bisect_right(board, (-cleared, time_ms, player))
        elif around is not None:
            mine = state.totals.get((game, period, around))
            if mine is None:
                return [], None
            start = max(0, bisect.bisect_left(board, totals_order(mine)) - limit // 2)
        keys = board[start : start + limit]
        page = [state.totals[game, period, player] for _, _, player in keys]
        more = start + limit < len(board)
        return page, (encode_totals_cursor(page[-1]) if more and page else None)

    async def daily_totals_among(self, game: str, period: str, player_ids: list[str]) -> list[DailyTotal]:
        """See `Archive.daily_totals_among`."""
        totals = self._daily_state.totals
        found = {p: totals[game, period, p] for p in player_ids if (game, period, p) in totals}
        return sorted(found.values(), key=totals_order)

    async def kept_secret(self, name: str, fresh: str) -> str:
        """See `Archive.kept_secret`."""
        return self._daily_state.secrets.setdefault(name, fresh)

    def _forget_daily(self, player_id: str, anonymous_name: str) -> None:
        """Name ``player_id``'s daily results ``anonymous_name`` (a deleted identity)."""
        state = self._daily_state
        for day, game in state.by_player.get(player_id, ()):
            key = (day, game, player_id)
            state.results[key] = msgspec.structs.replace(state.results[key], name=anonymous_name)
        days = state.by_player.get(player_id, ())
        for game, period in {(game, period) for day, game in days for period in periods_of_day(day)}:
            total = state.totals.pop((game, period, player_id), None)  # (its totals go: no board shows it)
            if total is not None:
                board = state.boards[game, period]
                del board[bisect.bisect_left(board, totals_order(total))]
