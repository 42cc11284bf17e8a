"""The archive in this process's memory (``memory://``): for tests and throwaway servers; lost at
exit. Records are kept encoded (msgspec MessagePack), as the SQL backends keep them, so what
`get_race` returns is a fresh copy."""

from __future__ import annotations

import bisect
from typing import TypeVar

import msgspec

from server.archive import (
    Archive,
    ArchiveError,
    Claim,
    RaceRow,
    TournamentRow,
    anonymised,
    anonymised_standings,
    decode_cursor,
    encode_cursor,
    race_rows,
    record_revision,
    tournament_rows,
)
from server.archive.memory_daily import MemoryDaily
from server.archive.memory_follows import MemoryFollows
from server.archive.memory_passkeys import MemoryPasskeys
from server.archive.memory_ratings import MemoryRatings
from server.archive.memory_stats import MemoryStats
from server.protocol import RaceRecord, TournamentInfo, TournamentStanding

__all__ = ["MemoryArchive"]

_TournamentBody = tuple[TournamentInfo, list[TournamentStanding]]


class MemoryArchive(MemoryDaily, MemoryRatings, MemoryStats, MemoryFollows, MemoryPasskeys, Archive):
    """`Archive` in a few dicts: races by code (encoded record, finished ms), each player's
    races as a sorted list of ``(finished_ms, code)`` (a page is a bisection), tournaments by
    id, each player's tournaments the same way as its races, players by id and by token
    digest."""

    url = "memory://"

    def __init__(self) -> None:
        self._races: dict[str, tuple[bytes, int]] = {}
        self._rows: dict[str, dict[str, RaceRow]] = {}
        self._order: dict[str, list[tuple[int, str]]] = {}
        self._tournaments: dict[str, tuple[bytes, int]] = {}
        self._entries: dict[str, dict[str, TournamentRow]] = {}  # player -> tournament id -> its line
        self._entry_order: dict[str, list[tuple[int, str]]] = {}  # player -> sorted (finished ms, id)
        self._players: dict[str, tuple[str, int, int]] = {}  # id -> (name, created, seen ms)
        self._tokens: dict[str, str] = {}  # token digest -> player id
        self._claims: dict[str, Claim] = {}  # player id -> its claim
        self._claim_keys: dict[str, str] = {}  # name key -> player id
        self._codes: dict[str, tuple[str, int, bool]] = {}  # code digest -> (player id, expires ms, used)
        self._organisers: dict[str, int] = {}  # player id -> granted ms

    async def open(self) -> None:
        """Nothing to connect to."""

    async def close(self) -> None:
        """Nothing to let go (what is kept stays until the object goes)."""

    async def put_race(self, record: RaceRecord, finished_ms: int) -> bool:
        """See `Archive.put_race`."""
        code = record.race.code
        kept = self._races.get(code)
        if kept is not None:
            older = msgspec.msgpack.decode(kept[0], type=RaceRecord)
            if record_revision(record) <= record_revision(older):
                return False
            finished_ms = kept[1]  # a newer copy keeps the first finish time (and history order)
            for player, _ in race_rows(older, finished_ms):
                self._rows[player].pop(code, None)
                self._order[player].remove((finished_ms, code))
        self._races[code] = (msgspec.msgpack.encode(msgspec.structs.replace(record, req=0)), finished_ms)
        for player, row in race_rows(record, finished_ms):
            self._rows.setdefault(player, {})[code] = row
            bisect.insort(self._order.setdefault(player, []), (finished_ms, code))
        if kept is None:
            self._count_stats(record, finished_ms)  # (a first copy only, as the SQL archive)
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
        for player, _, row in tournament_rows(tournament_id, info, standings, finished_ms):
            self._entries.setdefault(player, {})[tournament_id] = row
            bisect.insort(self._entry_order.setdefault(player, []), (finished_ms, tournament_id))
        return True

    async def get_tournament(self, tournament_id: str) -> _TournamentBody | None:
        """See `Archive.get_tournament`."""
        kept = self._tournaments.get(tournament_id)
        return None if kept is None else msgspec.msgpack.decode(kept[0], type=_TournamentBody)

    async def races_of(self, player_id: str, *, before: str | None, limit: int) -> tuple[list[RaceRow], str | None]:
        """See `Archive.races_of`."""
        return _page(self._order.get(player_id, []), self._rows.get(player_id, {}), before, limit)

    async def tournaments_of(
        self, player_id: str, *, before: str | None, limit: int
    ) -> tuple[list[TournamentRow], str | None]:
        """See `Archive.tournaments_of`."""
        return _page(self._entry_order.get(player_id, []), self._entries.get(player_id, {}), before, limit)

    async def put_player(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> bool:
        """See `Archive.put_player`."""
        kept = self._players.get(player_id)
        if kept is not None and (self._tokens.get(token_digest) != player_id or kept[2] > seen_ms):
            return False
        if kept is None and token_digest in self._tokens:
            return False
        created = seen_ms if kept is None else kept[1]
        self._players[player_id] = (name, created, seen_ms)
        self._tokens[token_digest] = player_id
        return True

    async def player_by_token(self, token_digest: str) -> tuple[str, str] | None:
        """See `Archive.player_by_token`."""
        player_id = self._tokens.get(token_digest)
        return None if player_id is None else (player_id, self._players[player_id][0])

    async def add_token(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> None:
        """See `Archive.add_token`."""
        self._players.setdefault(player_id, (name, seen_ms, seen_ms))
        self._tokens[token_digest] = player_id

    async def put_claim(self, claim: Claim) -> bool:
        """See `Archive.put_claim`."""
        holder = self._claim_keys.get(claim.name_key)
        if holder is not None and holder != claim.player_id:
            return False
        old = self._claims.get(claim.player_id)
        if old is not None:
            del self._claim_keys[old.name_key]
        self._claims[claim.player_id] = claim
        self._claim_keys[claim.name_key] = claim.player_id
        return True

    async def claim_by_key(self, name_key: str) -> Claim | None:
        """See `Archive.claim_by_key`."""
        holder = self._claim_keys.get(name_key)
        return None if holder is None else self._claims[holder]

    async def claim_of(self, player_id: str) -> Claim | None:
        """See `Archive.claim_of`."""
        return self._claims.get(player_id)

    async def set_organiser(self, player_id: str, organiser: bool, now_ms: int) -> bool:
        """See `Archive.set_organiser`."""
        if organiser == (player_id in self._organisers):
            return False
        if organiser:
            self._organisers[player_id] = now_ms
        else:
            del self._organisers[player_id]
        return True

    async def is_organiser(self, player_id: str) -> bool:
        """See `Archive.is_organiser`."""
        return player_id in self._organisers

    async def put_transfer_code(self, code_digest: str, player_id: str, expires_ms: int) -> None:
        """See `Archive.put_transfer_code`."""
        self._codes[code_digest] = (player_id, expires_ms, False)

    async def use_transfer_code(self, code_digest: str, now_ms: int) -> str | None:
        """See `Archive.use_transfer_code`."""
        kept = self._codes.get(code_digest)
        if kept is None or kept[2] or kept[1] <= now_ms:
            return None
        self._codes[code_digest] = (kept[0], kept[1], True)
        return kept[0]

    async def forget_player(self, player_id: str, anonymous_name: str) -> int:
        """See `Archive.forget_player`."""
        self._players.pop(player_id, None)
        for digest in [d for d, holder in self._tokens.items() if holder == player_id]:
            del self._tokens[digest]
        claim = self._claims.pop(player_id, None)
        if claim is not None:
            del self._claim_keys[claim.name_key]
        for digest in [d for d, kept in self._codes.items() if kept[0] == player_id]:
            del self._codes[digest]
        self._organisers.pop(player_id, None)
        for tid in self._entries.get(player_id, {}):
            blob, finished = self._tournaments[tid]
            info, standings = msgspec.msgpack.decode(blob, type=_TournamentBody)
            renamed = anonymised_standings(standings, player_id, anonymous_name)
            self._tournaments[tid] = (msgspec.msgpack.encode((info, renamed)), finished)
        self._forget_ratings(player_id)
        self._forget_stats(player_id)
        self._forget_daily(player_id, anonymous_name)
        self._forget_follows(player_id)
        self._forget_passkeys(player_id)
        codes = list(self._rows.get(player_id, {}))
        for code in codes:
            blob, finished = self._races[code]
            record = anonymised(msgspec.msgpack.decode(blob, type=RaceRecord), player_id, anonymous_name)
            self._races[code] = (msgspec.msgpack.encode(record), finished)
        return len(codes)

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
        old = {tid for tid, (_, finished) in self._tournaments.items() if finished < ms}
        for tid in old:
            del self._tournaments[tid]
        for player in list(self._entry_order):
            self._entry_order[player] = [key for key in self._entry_order[player] if key[1] not in old]
            for tid in old:
                self._entries[player].pop(tid, None)
            if not self._entry_order[player]:
                del self._entry_order[player], self._entries[player]
        return len(gone)


_Row = TypeVar("_Row", RaceRow, TournamentRow)


def _page(
    order: list[tuple[int, str]], rows: dict[str, _Row], before: str | None, limit: int
) -> tuple[list[_Row], str | None]:
    """One page of a player's lines: ``order`` its sorted ``(finished_ms, key)``, ``rows`` its
    lines by key; newest first after the cursor ``before``, at most ``limit``. Raises
    `ArchiveError` (a bad cursor or limit)."""
    if limit < 1:
        raise ArchiveError(f"a history page holds at least one line (limit {limit})")
    end = len(order) if before is None else bisect.bisect_left(order, decode_cursor(before))
    keys = order[max(0, end - limit) : end][::-1]
    more = end - limit > 0
    return [rows[key] for _, key in keys], (encode_cursor(*keys[-1]) if more and keys else None)
