"""A rated race's ratings applied once it is archived (`apply_race_ratings`, called by
`server.archiving.Archiver` after it wrote the race, in its own task: never on a move's path).

Who is rated: the entrants with a claimed name (`server.archive.Archive.claim_of`, read at the
end) that are not bots; whether the race counts at all: `server.ratings.is_rated`. Their places
come from the final standings, among themselves: more cards cleared first, then less time; equal
cards and time are a tie (the standings' last key, join order, is no skill). The write is
`server.archive.Archive.apply_ratings`, idempotent by race code; a `RatingConflict` (another race
of the game was applied to one of them since their ratings were read) reads them again and
computes the update anew, up to `ATTEMPTS` times.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from server.archive import Archive, RatedPlayer, RatingConflict, RatingUpdate
from server.protocol import RaceRecord, Standing
from server.ratings import Entrant, display, is_rated, new_rating, provisional, rate

__all__ = ["ATTEMPTS", "apply_race_ratings", "places", "ratings_at_start"]

log = logging.getLogger("arena.archive")

#: How many times a rated race's update is computed and written before a conflict is given up
#: on (raised to the archiver, which tries the whole write again later).
ATTEMPTS = 5


def places(lines: list[Standing]) -> dict[str, int]:
    """Each player's place (1 first) among the standings ``lines``: more cards cleared first,
    then less time (ms); equal cards and time share a place (the next place skips, as in "1, 1,
    3")."""
    ranked = sorted(lines, key=lambda line: (-line.cleared, line.time_ms))
    found: dict[str, int] = {}
    for index, line in enumerate(ranked):
        before = ranked[index - 1] if index else None
        same = before is not None and (before.cleared, before.time_ms) == (line.cleared, line.time_ms)
        found[line.player] = found[before.player] if same and before is not None else index + 1
    return found


async def apply_race_ratings(
    archive: Archive, record: RaceRecord, finished_ms: int, *, bots: Collection[str], secret_seed: bool
) -> bool:
    """Apply the finished race ``record``'s ratings (finished at ``finished_ms``, Unix epoch ms)
    if it is rated (`server.ratings.is_rated`: ``record.race.rated``, ``secret_seed``, no player
    of ``bots``, two claimed entrants at least) and has a result (``record.void`` empty). True if
    applied now; False if the race is not rated, is void or was applied already. Raises
    `server.archive.ArchiveError` (the archive cannot be read or written; `RatingConflict` after
    `ATTEMPTS` conflicts)."""
    race = record.race
    if not race.rated or record.void:
        return False
    lines = {line.player: line for line in record.standings}
    claimed = [player for player in lines if player not in bots and await archive.claim_of(player) is not None]
    if not is_rated(
        claimed_players=len(claimed),
        secret_seed=secret_seed,
        bots=sum(player in bots for player in lines),
        chosen=True,
    ):
        return False
    place_of = places([lines[player] for player in claimed])
    for attempt in range(1, ATTEMPTS + 1):
        kept = await _ratings(archive, race.game, claimed)
        before = {player: kept[player].rating if player in kept else new_rating() for player in claimed}
        after = rate([Entrant(player, place_of[player], before[player]) for player in claimed])
        updates = [RatingUpdate(player, before[player], after[player]) for player in claimed]
        try:
            return await archive.apply_ratings(race.code, race.game, finished_ms, updates)
        except RatingConflict as exc:
            if attempt == ATTEMPTS:
                raise
            log.info("race %s: ratings read again (%s)", race.code, exc.reason)
    return False  # (not reached: the last attempt returns or raises)


async def _ratings(archive: Archive, game: str, players: list[str]) -> dict[str, RatedPlayer]:
    """The kept ratings in ``game`` of those of ``players`` who have one, by player id."""
    return {row.player_id: row for row in await archive.ratings_among(game, players)}


async def ratings_at_start(archive: Archive, game: str, players: list[str]) -> dict[str, tuple[int, bool]]:
    """What a rated race's standings show of each of ``players`` (its claimed, non-bot
    entrants) in ``game`` as it starts, by player id: ``(display points rounded, provisional)``,
    a player without a kept rating showing a new one's (1000, provisional). One query
    (`Archive.ratings_among`); raises `server.archive.ArchiveError` if the archive cannot be read."""
    kept = await _ratings(archive, game, players) if players else {}
    shown = {}
    for player in players:
        rating = kept[player].rating if player in kept else new_rating()
        shown[player] = (round(display(rating)), provisional(rating))
    return shown
