"""The archive in this process's memory (``memory://``): for tests and throwaway servers; lost at
exit. Records are kept encoded (msgspec MessagePack), as the SQL backends keep them, so what
`get_race` returns is a fresh copy."""

from __future__ import annotations

import bisect

import msgspec

from server.archive import Archive, ArchiveError, RaceRow, decode_cursor, encode_cursor, race_rows
from server.protocol import RaceRecord, TournamentInfo, TournamentStanding

__all__ = ["MemoryArchive"]

_TournamentBody = tuple[TournamentInfo, list[TournamentStanding]]


class MemoryArchive(Archive):
    """`Archive` in a few dicts: races by code (encoded record, finished ms), each player's
    races as a sorted list of ``(finished_ms, code)`` (a page is a bisection), tournaments by
    id, players by id and by token digest."""

    url = "memory://"

    def __init__(self) -> None:
        self._races: dict[str, tuple[bytes, int]] = {}
        self._rows: dict[str, dict[str, RaceRow]] = {}
        self._order: dict[str, list[tuple[int, str]]] = {}
        self._tournaments: dict[str, tuple[bytes, int]] = {}
        self._players: dict[str, tuple[str, str, int, int]] = {}  # id -> (name, digest, created, seen ms)
        self._tokens: dict[str, str] = {}  # token digest -> player id

    async def open(self) -> None:
        """Nothing to connect to."""

    async def close(self) -> None:
        """Nothing to let go (what is kept stays until the object goes)."""

    async def put_race(self, record: RaceRecord, finished_ms: int) -> bool:
        """See `Archive.put_race`."""
        code = record.race.code
        if code in self._races:
            return False
        self._races[code] = (msgspec.msgpack.encode(msgspec.structs.replace(record, req=0)), finished_ms)
        for player, row in race_rows(record, finished_ms):
            self._rows.setdefault(player, {})[code] = row
            bisect.insort(self._order.setdefault(player, []), (finished_ms, code))
        return True

    async def get_race(self, code: str) -> RaceRecord | None:
        """See `Archive.get_race`."""
        kept = self._races.get(code)
        return None if kept is None else msgspec.msgpack.decode(kept[0], type=RaceRecord)

    async def put_tournament(
        self, tournament_id: str, info: TournamentInfo, standings: list[TournamentStanding], finished_ms: int
    ) -> bool:
        """See `Archive.put_tournament`."""
        if tournament_id in self._tournaments:
            return False
        self._tournaments[tournament_id] = (msgspec.msgpack.encode((info, standings)), finished_ms)
        return True

    async def get_tournament(self, tournament_id: str) -> _TournamentBody | None:
        """See `Archive.get_tournament`."""
        kept = self._tournaments.get(tournament_id)
        return None if kept is None else msgspec.msgpack.decode(kept[0], type=_TournamentBody)

    async def races_of(self, player_id: str, *, before: str | None, limit: int) -> tuple[list[RaceRow], str | None]:
        """See `Archive.races_of`."""
        if limit < 1:
            raise ArchiveError(f"a history page holds at least one race (limit {limit})")
        order = self._order.get(player_id, [])
        end = len(order) if before is None else bisect.bisect_left(order, decode_cursor(before))
        keys = order[max(0, end - limit) : end][::-1]
        rows = [self._rows[player_id][code] for _, code in keys]
        more = end - limit > 0
        return rows, (encode_cursor(*keys[-1]) if more and keys else None)

    async def put_player(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> bool:
        """See `Archive.put_player`."""
        kept = self._players.get(player_id)
        if kept is not None and (kept[1] != token_digest or kept[3] > seen_ms):
            return False
        created = seen_ms if kept is None else kept[2]
        self._players[player_id] = (name, token_digest, created, seen_ms)
        self._tokens[token_digest] = player_id
        return True

    async def player_by_token(self, token_digest: str) -> tuple[str, str] | None:
        """See `Archive.player_by_token`."""
        player_id = self._tokens.get(token_digest)
        return None if player_id is None else (player_id, self._players[player_id][0])

    async def forget_before(self, ms: int) -> int:
        """See `Archive.forget_before`."""
        gone = {code for code, (_, finished) in self._races.items() if finished < ms}
        for code in gone:
            del self._races[code]
        for player in list(self._order):
            self._order[player] = [key for key in self._order[player] if key[1] not in gone]
            for code in gone:
                self._rows[player].pop(code, None)
            if not self._order[player]:
                del self._order[player], self._rows[player]
        for tid in [tid for tid, (_, finished) in self._tournaments.items() if finished < ms]:
            del self._tournaments[tid]
        return len(gone)
