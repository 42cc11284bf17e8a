"""Ratings in this process's memory: `MemoryRatings`, the rating part of `server.archive.Archive`
that `server.archive.memory.MemoryArchive` takes (a mixin, so that the rest of that class stays
as it is)."""

from __future__ import annotations

import bisect
from collections.abc import Iterator

from server.archive import (
    Archive,
    ArchiveError,
    RatedPlayer,
    RatingChange,
    RatingConflict,
    RatingUpdate,
    decode_board_cursor,
    encode_board_cursor,
)
from server.ratings import display

__all__ = ["MemoryRatings", "check_updates"]

_Key = tuple[float, str]  # (ordinal, player id): a board is sorted by it, best last


def check_updates(updates: list[RatingUpdate]) -> None:
    """Raise `ArchiveError` for updates no race makes: none, or a player listed twice."""
    if not updates:
        raise ArchiveError("a rated race updates at least one player")
    if len({update.player_id for update in updates}) != len(updates):
        raise ArchiveError("a player is listed twice in one race's rating updates")


class _State:
    def __init__(self) -> None:
        self.ratings: dict[tuple[str, str], RatedPlayer] = {}  # (player, game) -> its rating
        self.boards: dict[str, list[_Key]] = {}  # game -> sorted keys
        self.applied: set[str] = set()  # race codes
        self.history: dict[tuple[str, str], list[tuple[int, str, RatingChange]]] = {}  # sorted, oldest first


class MemoryRatings(Archive):
    """Ratings in a few dicts: each player's rating by (player, game), each game's board as a
    sorted list of ``(ordinal, player id)`` (a page is a bisection), the race codes applied, and
    each player's history per game as a sorted list."""

    @property
    def _rating_state(self) -> _State:
        state = self.__dict__.get("_ratings_kept")
        if state is None:
            state = self.__dict__["_ratings_kept"] = _State()
        return state

    async def apply_ratings(self, race_code: str, game: str, finished_ms: int, updates: list[RatingUpdate]) -> bool:
        """See `Archive.apply_ratings`."""
        check_updates(updates)
        state = self._rating_state
        if race_code in state.applied:
            return False
        for update in updates:
            kept = state.ratings.get((update.player_id, game))
            if (kept.rating.races if kept else 0) != update.before.races:
                raise RatingConflict(f"{update.player_id}'s {game} rating changed since it was read (race {race_code})")
        state.applied.add(race_code)
        board = state.boards.setdefault(game, [])
        for update in updates:
            kept = state.ratings.get((update.player_id, game))
            if kept is not None:
                del board[bisect.bisect_left(board, (kept.ordinal, update.player_id))]
            row = RatedPlayer(update.player_id, game, update.after, display(update.after), finished_ms)
            state.ratings[update.player_id, game] = row
            bisect.insort(board, (row.ordinal, update.player_id))
            change = RatingChange(race_code, game, finished_ms, update.before, update.after)
            bisect.insort(state.history.setdefault((update.player_id, game), []), (finished_ms, race_code, change))
        return True

    def _forget_ratings(self, player_id: str) -> None:
        """Drop ``player_id``'s ratings and their board entries (a deleted identity); its lines
        in the races' rating history stay."""
        state = self._rating_state
        for key in [key for key in state.ratings if key[0] == player_id]:
            row = state.ratings.pop(key)
            board = state.boards[key[1]]
            del board[bisect.bisect_left(board, (row.ordinal, player_id))]

    async def ratings_of(self, player_id: str) -> list[RatedPlayer]:
        """See `Archive.ratings_of`."""
        kept = self._rating_state.ratings
        return sorted((row for (player, _), row in kept.items() if player == player_id), key=lambda row: row.game)

    async def rating_history(self, player_id: str, game: str, limit: int) -> list[RatingChange]:
        """See `Archive.rating_history`."""
        if limit < 1:
            raise ArchiveError(f"a rating history holds at least one change (limit {limit})")
        lines = self._rating_state.history.get((player_id, game), [])
        return [change for _, _, change in lines[::-1][:limit]]

    async def rating_board(
        self,
        game: str,
        *,
        active_since_ms: int,
        after: str | None = None,
        around: str | None = None,
        limit: int,
    ) -> tuple[list[RatedPlayer], str | None]:
        """See `Archive.rating_board`."""
        if limit < 1:
            raise ArchiveError(f"a board page holds at least one player (limit {limit})")
        if after is not None and around is not None:
            raise ArchiveError("a board page starts after a cursor or around a player, not both")
        state = self._rating_state
        board = state.boards.get(game, [])

        def active(keys: Iterator[_Key]) -> Iterator[RatedPlayer]:
            for _, player in keys:
                row = state.ratings[player, game]
                if row.updated_ms >= active_since_ms:
                    yield row

        def below(end: int, count: int) -> list[RatedPlayer]:
            rows: list[RatedPlayer] = []
            for row in active(board[i] for i in range(end - 1, -1, -1)):
                if len(rows) == count:
                    break
                rows.append(row)
            return rows

        above: list[RatedPlayer] = []
        end = len(board)
        if after is not None:
            end = bisect.bisect_left(board, decode_board_cursor(after))
        elif around is not None:
            mine = state.ratings.get((around, game))
            if mine is None:
                return [], None
            end = bisect.bisect_right(board, (mine.ordinal, around))
            for row in active(board[i] for i in range(end, len(board))):
                if len(above) == limit // 2:
                    break
                above.append(row)
            above.reverse()
        rows = below(end, limit - len(above) + 1)
        more = len(rows) > limit - len(above)
        page = above + rows[: limit - len(above)]
        return page, (encode_board_cursor(page[-1].ordinal, page[-1].player_id) if more else None)
