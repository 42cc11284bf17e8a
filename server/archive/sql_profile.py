"""A profile's reads in SQL as two statements (`server.archive.Archive.profile_reads`): `profile_query`
(the player's card, statistics, ratings and latest races: one ``UNION ALL``) and `histories_query`
(the latest rating changes of each of its rated games: one ``UNION ALL`` of one limited range per
game), and `profile_from_rows`, which reads their rows back.

Each branch is a range of a primary key or an index: the card one row of ``players`` (primary
key) and of ``claims`` (primary key); the statistics and ratings one range of the primary keys of
``player_game_stats`` and ``ratings`` ``(player_id, game)``; the latest races the first rows of
``ix_race_entrants_player_finished``; each game's history the first rows of
``ix_rating_changes_player`` ``(player_id, game, finished_ms DESC, race_code DESC)``. So a
profile costs the same whatever the number of players, and whatever the player's number of races.

A ``UNION ALL`` needs one column type per position (PostgreSQL checks it), so every branch fills
typed slots: ``kind`` (which branch), text ``t1``-``t4``, integers ``n1``-``n7``, floats
``f1``-``f3``; a branch's unused slots are typed NULLs.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from server.archive import PlayerCard, PlayerGameStats, RaceRow, RatedPlayer, RatingChange
from server.archive.schema import claims, player_game_stats, players, race_entrants, rating_changes, ratings
from server.ratings import Rating

__all__ = ["histories_from_rows", "histories_query", "profile_from_rows", "profile_query"]

_TEXT = ("t1", "t2", "t3", "t4")
_INTS = ("n1", "n2", "n3", "n4", "n5", "n6", "n7")
_FLOATS = ("f1", "f2", "f3")

# Which branch a row of `profile_query` comes from.
_CARD, _STATS, _RATING, _RACE = "c", "s", "r", "h"


def _branch(kind: str, source: Any, where: Any, **slots: Any) -> sa.Select[Any]:
    """One branch of `profile_query`: ``slots`` named by slot, the others typed NULLs."""
    columns: list[Any] = [sa.literal(kind, sa.String(1)).label("kind")]
    for names, kind_type in ((_TEXT, sa.String()), (_INTS, sa.BigInteger()), (_FLOATS, sa.Float(53))):
        for name in names:
            value = slots.pop(name, None)
            columns.append((sa.cast(sa.null(), kind_type) if value is None else sa.cast(value, kind_type)).label(name))
    assert not slots, f"unknown slots {sorted(slots)}"
    return sa.select(*columns).select_from(source).where(where)


def profile_query(player_id: str, recent: int) -> sa.CompoundSelect[Any]:
    """The one query of a profile's card, statistics, ratings and ``recent`` latest races (see
    the module's docstring); `profile_from_rows` reads its rows."""
    s, r, e = player_game_stats.c, ratings.c, race_entrants.c
    latest = (
        sa.select(
            e.race_code, e.game, e.status, e.par, e.finished_ms, e.place, e.entrants, e.cleared, e.total, e.time_ms
        )
        .where(e.player_id == player_id)
        .order_by(e.finished_ms.desc(), e.race_code.desc())
        .limit(recent)
        .subquery()
    )
    q = latest.c
    card = players.outerjoin(claims, claims.c.player_id == players.c.id)
    return sa.union_all(
        _branch(_CARD, card, players.c.id == player_id, t1=players.c.name, t2=claims.c.name, n1=players.c.created_ms),
        _branch(
            _STATS,
            player_game_stats,
            s.player_id == player_id,
            t1=s.game,
            n1=s.played,
            n2=s.won,
            n3=s.win_ms_sum,
            n4=s.best_win_ms,
            n5=s.cleared,
            n6=s.streak,
            n7=s.best_streak,
        ),
        _branch(
            _RATING,
            ratings,
            r.player_id == player_id,
            t1=r.game,
            n1=r.races,
            n2=r.updated_ms,
            f1=r.mu,
            f2=r.sigma,
            f3=r.ordinal,
        ),
        _branch(
            _RACE,
            latest,
            sa.true(),
            t1=q.race_code,
            t2=q.game,
            t3=q.status,
            t4=q.par,
            n1=q.finished_ms,
            n2=q.place,
            n3=q.entrants,
            n4=q.cleared,
            n5=q.total,
            n6=q.time_ms,
        ),
    )


def profile_from_rows(
    player_id: str, rows: list[Any]
) -> tuple[PlayerCard, list[PlayerGameStats], list[RatedPlayer], list[RaceRow]] | None:
    """The card, statistics (by game), ratings (by game) and latest races (newest first) in the
    rows of `profile_query`; None without the card's row (a player the archive does not keep)."""
    card: PlayerCard | None = None
    stats: list[PlayerGameStats] = []
    rated: list[RatedPlayer] = []
    recent: list[RaceRow] = []
    for kind, t1, t2, t3, t4, n1, n2, n3, n4, n5, n6, n7, f1, f2, f3 in rows:
        if kind == _CARD:
            card = PlayerCard(player_id, t2 or t1, t2 is not None, n1)
        elif kind == _STATS:
            stats.append(PlayerGameStats(t1, n1, n2, n3, n4, n5, n6, n7))
        elif kind == _RATING:
            rated.append(RatedPlayer(player_id, t1, Rating(f1, f2, n1), f3, n2))
        else:
            recent.append(RaceRow(t1, t2, n1, n2, n3, n4, n5, n6, t3, t4))
    if card is None:
        return None
    stats.sort(key=lambda row: row.game)
    rated.sort(key=lambda row: row.game)
    recent.sort(key=lambda row: (row.finished_ms, row.code), reverse=True)
    return card, stats, rated, recent


def histories_query(player_id: str, games: list[str], limit: int) -> sa.CompoundSelect[Any] | sa.Select[Any]:
    """The one query of ``player_id``'s latest ``limit`` rating changes in each of ``games`` (one
    or more): one limited range of ``ix_rating_changes_player`` per game; `histories_from_rows`
    reads its rows."""
    c = rating_changes.c
    branches = [
        sa.select(
            sa.select(
                c.game, c.race_code, c.finished_ms, c.mu_before, c.sigma_before, c.mu_after, c.sigma_after, c.races
            )
            .where(c.player_id == player_id, c.game == game)
            .order_by(c.finished_ms.desc(), c.race_code.desc())
            .limit(limit)
            .subquery()
        )
        for game in games
    ]
    return branches[0] if len(branches) == 1 else sa.union_all(*branches)


def histories_from_rows(games: list[str], rows: list[Any]) -> dict[str, list[RatingChange]]:
    """Each of ``games``' rating changes in the rows of `histories_query`, newest first."""
    history: dict[str, list[RatingChange]] = {game: [] for game in games}
    for game, code, ms, mu0, sigma0, mu1, sigma1, races in rows:
        history[game].append(RatingChange(code, game, ms, Rating(mu0, sigma0, races - 1), Rating(mu1, sigma1, races)))
    for changes in history.values():
        changes.sort(key=lambda change: (change.finished_ms, change.race_code), reverse=True)
    return history
