"""Alembic's environment for the archive: runs the migrations on the connection that
`server.archive.sql.SqlArchive` hands over in ``config.attributes["connection"]`` (a sync
facade of its async connection, inside its transaction); without one (the ``alembic`` command
pointed at this folder, with ``sqlalchemy.url`` set), it opens an async engine itself. Imported
other than by Alembic (a test collector), it does nothing."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from server.archive.schema import VERSION_TABLE, metadata


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=metadata, version_table=VERSION_TABLE)
    with context.begin_transaction():
        context.run_migrations()


async def _run_own_engine(url: str) -> None:
    engine = create_async_engine(url, poolclass=pool.NullPool)
    async with engine.begin() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


def main() -> None:
    """Run the migrations Alembic asked for, on the connection given, else on one of its own."""
    config = context.config
    url = config.get_main_option("sqlalchemy.url") or ""
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=metadata, version_table=VERSION_TABLE)
        with context.begin_transaction():
            context.run_migrations()
    elif (shared := config.attributes.get("connection")) is not None:
        _run(shared)
    else:
        asyncio.run(_run_own_engine(url))


if hasattr(context, "config"):  # Alembic runs this file within its environment
    main()
