"""Follows in SQL: `SqlFollows`, the follow part of `server.archive.Archive` that
`server.archive.sql.SqlArchive` takes (a mixin), over `server.archive.schema.follows`.

A follow is an idempotent insert (``ON CONFLICT DO NOTHING RETURNING``); a player's follows are
one range of the primary key ``(follower_id, followee_id)``, joined to ``claims`` for their names.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.archive import Archive, ArchiveError, Followed
from server.archive.schema import claims, follows

__all__ = ["SqlFollows", "following_query"]


def following_query(player_id: str, limit: int) -> sa.Select[Any]:
    """The one query of `Archive.following`: ``player_id``'s follows (a range of the primary
    key) with each followee's claimed name, the oldest first, ``limit`` rows."""
    return (
        sa.select(follows.c.followee_id, claims.c.name, follows.c.since_ms)
        .join(claims, claims.c.player_id == follows.c.followee_id)
        .where(follows.c.follower_id == player_id)
        .order_by(follows.c.since_ms, follows.c.followee_id)
        .limit(limit)
    )


class SqlFollows(Archive):
    """The follow methods over the engine `server.archive.sql.SqlArchive` holds."""

    _ready: Callable[[], Awaitable[AsyncEngine]]
    _insert: Callable[[sa.Table], Any]

    async def follow(self, follower_id: str, followee_id: str, since_ms: int) -> bool:
        """See `Archive.follow`."""
        engine = await self._ready()
        query = (
            self._insert(follows)
            .values(follower_id=follower_id, followee_id=followee_id, since_ms=since_ms)
            .on_conflict_do_nothing(index_elements=[follows.c.follower_id, follows.c.followee_id])
            .returning(follows.c.follower_id)
        )
        try:
            async with engine.begin() as connection:
                return (await connection.execute(query)).first() is not None
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot keep a follow: {exc}") from exc

    async def unfollow(self, follower_id: str, followee_id: str) -> bool:
        """See `Archive.unfollow`."""
        engine = await self._ready()
        query = sa.delete(follows).where(follows.c.follower_id == follower_id, follows.c.followee_id == followee_id)
        try:
            async with engine.begin() as connection:
                return bool((await connection.execute(query)).rowcount)
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot drop a follow: {exc}") from exc

    async def following(self, player_id: str, limit: int) -> list[Followed]:
        """See `Archive.following`."""
        if limit < 1:
            raise ArchiveError(f"a list of followed players holds at least one (limit {limit})")
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                rows = (await connection.execute(following_query(player_id, limit))).all()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the players {player_id} follows: {exc}") from exc
        return [Followed(pid, name, since) for pid, name, since in rows]
