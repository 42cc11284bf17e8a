"""Passkeys in SQL: `SqlPasskeys`, the passkey part of `server.archive.Archive` that
`server.archive.sql.SqlArchive` takes (a mixin), over `server.archive.schema.passkeys`: a
lookup by credential id is the primary key, a player's passkeys one range of
``ix_passkeys_player``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.archive import Archive, ArchiveError, Passkey
from server.archive.schema import passkeys

__all__ = ["SqlPasskeys"]

_COLUMNS = (
    passkeys.c.credential_id,
    passkeys.c.player_id,
    passkeys.c.public_key,
    passkeys.c.sign_count,
    passkeys.c.created_ms,
    passkeys.c.used_ms,
)


def _passkey(row: sa.Row[Any]) -> Passkey:
    return Passkey(
        credential_id=row.credential_id,
        player_id=row.player_id,
        public_key=bytes(row.public_key),
        sign_count=row.sign_count,
        created_ms=row.created_ms,
        used_ms=row.used_ms,
    )


class SqlPasskeys(Archive):
    """The passkey methods over the engine `server.archive.sql.SqlArchive` holds."""

    _ready: Callable[[], Awaitable[AsyncEngine]]
    _insert: Callable[[sa.Table], Any]

    async def _run(self, query: Any, what: str) -> Any:
        engine = await self._ready()
        try:
            async with engine.begin() as connection:
                result = await connection.execute(query)
                return result.all() if result.returns_rows else None
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot {what}: {exc}") from exc

    async def put_passkey(self, passkey: Passkey) -> bool:
        """See `Archive.put_passkey`: one ``INSERT ... ON CONFLICT DO NOTHING RETURNING``."""
        query = (
            self._insert(passkeys)
            .values(_row(passkey))
            .on_conflict_do_nothing(index_elements=[passkeys.c.credential_id])
            .returning(passkeys.c.credential_id)
        )
        return bool(await self._run(query, "keep a passkey"))

    async def passkey(self, credential_id: str) -> Passkey | None:
        """See `Archive.passkey`."""
        rows = await self._run(sa.select(*_COLUMNS).where(passkeys.c.credential_id == credential_id), "read a passkey")
        return _passkey(rows[0]) if rows else None

    async def passkeys_of(self, player_id: str) -> list[Passkey]:
        """See `Archive.passkeys_of`."""
        query = (
            sa.select(*_COLUMNS)
            .where(passkeys.c.player_id == player_id)
            .order_by(passkeys.c.created_ms, passkeys.c.credential_id)
        )
        return [_passkey(row) for row in await self._run(query, "read a player's passkeys")]

    async def use_passkey(self, credential_id: str, sign_count: int, used_ms: int) -> None:
        """See `Archive.use_passkey`."""
        query = (
            sa.update(passkeys)
            .where(passkeys.c.credential_id == credential_id)
            .values(sign_count=sign_count, used_ms=used_ms)
        )
        await self._run(query, "note a passkey's use")


def _row(passkey: Passkey) -> dict[str, Any]:
    """``passkey``'s fields as a row of `server.archive.schema.passkeys`."""
    return {
        "credential_id": passkey.credential_id,
        "player_id": passkey.player_id,
        "public_key": passkey.public_key,
        "sign_count": passkey.sign_count,
        "created_ms": passkey.created_ms,
        "used_ms": passkey.used_ms,
    }
