"""Profiles in this process's memory: `MemoryStats`, the statistics and names part of
`server.archive.Archive` that `server.archive.memory.MemoryArchive` takes (a mixin)."""

from __future__ import annotations

from server.archive import Archive, Claim, PlayerCard, PlayerGameStats, RatedPlayer, game_stats_deltas
from server.protocol import RaceRecord

__all__ = ["MemoryStats"]


class MemoryStats(Archive):
    """Each player's statistics per game in a dict by ``(player, game)``, added to as a race is
    kept for the first time (`_count_stats`); names from the players and claims the archive
    holds."""

    _players: dict[str, tuple[str, int, int]]
    _claims: dict[str, Claim]

    @property
    def _stats(self) -> dict[tuple[str, str], PlayerGameStats]:
        kept = self.__dict__.get("_stats_kept")
        if kept is None:
            kept = self.__dict__["_stats_kept"] = {}
        return kept

    def _count_stats(self, record: RaceRecord, finished_ms: int) -> None:
        """Add the race ``record``, kept now for the first time, to its players' statistics."""
        for player, game, won, time_ms, cleared in game_stats_deltas(record, finished_ms):
            old = self._stats.get((player, game)) or PlayerGameStats(game, 0, 0, 0, None, 0, 0, 0)
            streak = old.streak + 1 if won else 0
            best = old.best_win_ms
            if won:
                best = time_ms if best is None else min(best, time_ms)
            self._stats[player, game] = PlayerGameStats(
                game,
                old.played + 1,
                old.won + won,
                old.win_ms_sum + (time_ms if won else 0),
                best,
                old.cleared + cleared,
                streak,
                max(old.best_streak, streak),
            )

    def _forget_stats(self, player_id: str) -> None:
        """Drop ``player_id``'s statistics (a deleted identity)."""
        for key in [key for key in self._stats if key[0] == player_id]:
            del self._stats[key]

    async def game_stats(self, player_id: str) -> list[PlayerGameStats]:
        """See `Archive.game_stats`."""
        return sorted((s for (p, _), s in self._stats.items() if p == player_id), key=lambda s: s.game)

    async def player_card(self, player_id: str) -> PlayerCard | None:
        """See `Archive.player_card`."""
        kept = self._players.get(player_id)
        if kept is None:
            return None
        claim = self._claims.get(player_id)
        return PlayerCard(player_id, claim.name if claim else kept[0], claim is not None, kept[1])

    async def player_names(self, player_ids: list[str]) -> dict[str, tuple[str, bool]]:
        """See `Archive.player_names`."""
        found: dict[str, tuple[str, bool]] = {}
        for player_id in player_ids:
            card = await self.player_card(player_id)
            if card is not None:
                found[player_id] = (card.name, card.claimed)
        return found

    async def ratings_among(self, game: str, player_ids: list[str]) -> list[RatedPlayer]:
        """See `Archive.ratings_among`."""
        rows = [row for row in await self._ratings_of_each(player_ids) if row.game == game]
        return sorted(rows, key=lambda row: (row.ordinal, row.player_id), reverse=True)

    async def _ratings_of_each(self, player_ids: list[str]) -> list[RatedPlayer]:
        return [row for player_id in player_ids for row in await self.ratings_of(player_id)]
