"""The archive in SQL (SQLAlchemy 2's async engine): SQLite through aiosqlite (``sqlite:///PATH``,
the embedded default) or PostgreSQL through asyncpg (``postgresql://...``, shared by several
nodes). Tables: `server.archive.schema`; schema changes: the Alembic revisions in
``server/archive/migrations``, applied by `SqlArchive.open` when the database is behind.

Writes are idempotent inserts (``INSERT ... ON CONFLICT DO NOTHING RETURNING``, each dialect's
own insert construct), so two nodes archiving the same race (a retry, a takeover) leave one copy:
on PostgreSQL the second waits on the primary key's unique index until the first commits, then
inserts nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgspec
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.engine.url import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from server.archive import Archive, ArchiveError, RaceRow, decode_cursor, encode_cursor, race_rows
from server.archive.schema import VERSION_TABLE, players, race_entrants, races, tournaments
from server.protocol import RaceRecord, TournamentInfo, TournamentStanding

__all__ = ["MIGRATIONS", "SqlArchive", "async_url", "history_query"]

#: Where the Alembic environment and revisions are (shipped in the package).
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: Seconds to wait for a connection to the database.
CONNECT_TIMEOUT_S = 10.0
#: A fixed PostgreSQL advisory-lock key: nodes starting together migrate one at a time.
_MIGRATION_LOCK = 0x6172656E61  # "arena"

_TournamentBody = tuple[TournamentInfo, list[TournamentStanding]]
_ROW_COLUMNS = (
    race_entrants.c.race_code,
    race_entrants.c.game,
    race_entrants.c.finished_ms,
    race_entrants.c.place,
    race_entrants.c.entrants,
    race_entrants.c.cleared,
    race_entrants.c.total,
    race_entrants.c.time_ms,
    race_entrants.c.status,
    race_entrants.c.par,
)


def async_url(url: str) -> sa.URL:
    """``url`` with its async driver: ``sqlite:///PATH`` becomes ``sqlite+aiosqlite``,
    ``postgresql://`` (or ``postgres://``) ``postgresql+asyncpg``. Raises `ArchiveError` for a
    URL that is neither, or that SQLAlchemy cannot parse."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url.removeprefix("postgres://")
    try:
        parsed = make_url(url)
    except (SQLAlchemyError, ValueError) as exc:
        raise ArchiveError(f"bad archive URL: {exc}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise ArchiveError("a SQLite archive needs a file: sqlite:///PATH")
        return parsed.set(drivername="sqlite+aiosqlite")
    if backend == "postgresql":
        return parsed.set(drivername="postgresql+asyncpg")
    raise ArchiveError(f"no SQL archive for {backend!r}: use sqlite:///PATH or postgresql://...")


def history_query(player_id: str, before: tuple[int, str] | None, limit: int) -> sa.Select[Any]:
    """The one query of a history page: ``player_id``'s rows after the key ``before``
    (``(finished_ms, code)``), newest first, ``limit`` rows, read through ``ix_race_entrants_player_finished``
    (`server.archive.schema.HISTORY_INDEX`)."""
    query = sa.select(*_ROW_COLUMNS).where(race_entrants.c.player_id == player_id)
    if before is not None:
        ms, code = before
        query = query.where(sa.tuple_(race_entrants.c.finished_ms, race_entrants.c.race_code) < sa.tuple_(ms, code))
    return query.order_by(race_entrants.c.finished_ms.desc(), race_entrants.c.race_code.desc()).limit(limit)


def _alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def _migrate(connection: Connection) -> tuple[str | None, str]:
    """Bring the schema on ``connection`` (in its transaction) to Alembic's head; returns
    ``(revision before, head)``. Raises `ArchiveError` when the database holds a revision this
    code does not know (written by a newer version)."""
    if connection.dialect.name == "postgresql":
        connection.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    config = _alembic_config(connection)
    scripts = ScriptDirectory.from_config(config)
    head = scripts.get_current_head() or ""
    current = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE}).get_current_revision()
    if current is not None:
        try:
            scripts.get_revision(current)
        except CommandError:
            raise ArchiveError(
                f"the archive's schema is at revision {current!r}, ahead of this server's {head!r}:"
                " a newer version wrote it; run that version (or newer)"
            ) from None
    if current != head:
        command.upgrade(config, "head")
    return current, head


def _pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Each new SQLite connection: write-ahead log (readers never wait on the writer), and wait
    up to 10 s for another process's write lock instead of failing."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class SqlArchive(Archive):
    """`Archive` over SQLAlchemy's async engine (SQLite or PostgreSQL, picked by ``url``; see
    `async_url`). After `open`: ``revision``, the schema's revision; ``upgraded_from``, the
    revision it had before (None: the database was empty)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._url = async_url(url)
        self.dialect = self._url.get_backend_name()
        self._engine: AsyncEngine | None = None
        self.revision: str | None = None
        self.upgraded_from: str | None = None

    def _described(self) -> str:
        return self._url.render_as_string(hide_password=True)

    async def open(self) -> None:
        """See `Archive.open`. Creates a SQLite file's folder when missing."""
        if self._engine is not None:
            return
        if self.dialect == "sqlite":
            Path(self._url.database or "").parent.mkdir(parents=True, exist_ok=True)
            engine = create_async_engine(self._url, connect_args={"timeout": CONNECT_TIMEOUT_S})
            sa.event.listen(engine.sync_engine, "connect", _pragmas)
        else:
            engine = create_async_engine(self._url, pool_pre_ping=True, connect_args={"timeout": CONNECT_TIMEOUT_S})
        try:
            async with engine.begin() as connection:
                before, self.revision = await connection.run_sync(_migrate)
        except ArchiveError:
            await engine.dispose()
            raise
        except (SQLAlchemyError, OSError, asyncio.TimeoutError) as exc:
            await engine.dispose()
            raise ArchiveError(f"cannot open the archive {self._described()}: {exc}") from exc
        self.upgraded_from = before
        self._engine = engine

    async def close(self) -> None:
        """See `Archive.close`."""
        engine, self._engine = self._engine, None
        if engine is not None:
            await engine.dispose()

    def _ready(self) -> AsyncEngine:
        if self._engine is None:
            raise ArchiveError("the archive is not open")
        return self._engine

    def _insert(self, table: sa.Table) -> Any:
        return (postgresql.insert if self.dialect == "postgresql" else sqlite.insert)(table)

    async def put_race(self, record: RaceRecord, finished_ms: int) -> bool:
        """See `Archive.put_race`."""
        engine = self._ready()
        race = record.race
        blob = msgspec.msgpack.encode(msgspec.structs.replace(record, req=0))
        entrants = [
            {
                "race_code": race.code,
                "player_id": player,
                "name": next((line.name for line in record.standings if line.player == player), player),
                "game": row.game,
                "finished_ms": finished_ms,
                "place": row.standing,
                "entrants": row.entrants,
                "cleared": row.cleared,
                "total": row.total,
                "time_ms": row.time_ms,
                "status": row.status,
                "par": row.par,
            }
            for player, row in race_rows(record, finished_ms)
        ]
        insert = (
            self._insert(races)
            .values(
                code=race.code,
                game=race.game,
                seed=record.seed,
                commitment=record.commitment,
                finished_ms=finished_ms,
                tournament=race.tournament,
                record=blob,
            )
            .on_conflict_do_nothing(index_elements=[races.c.code])
            .returning(races.c.code)
        )
        try:
            async with engine.begin() as connection:
                written = (await connection.execute(insert)).first() is not None
                if written and entrants:
                    await connection.execute(race_entrants.insert(), entrants)
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot archive race {race.code}: {exc}") from exc
        return written

    async def get_race(self, code: str) -> RaceRecord | None:
        """See `Archive.get_race`."""
        blob = await self._scalar(sa.select(races.c.record).where(races.c.code == code), f"race {code}")
        return None if blob is None else msgspec.msgpack.decode(blob, type=RaceRecord)

    async def put_tournament(
        self, tournament_id: str, info: TournamentInfo, standings: list[TournamentStanding], finished_ms: int
    ) -> bool:
        """See `Archive.put_tournament`."""
        engine = self._ready()
        insert = (
            self._insert(tournaments)
            .values(
                id=tournament_id,
                finished_ms=finished_ms,
                info=msgspec.msgpack.encode(info),
                standings=msgspec.msgpack.encode(standings),
            )
            .on_conflict_do_nothing(index_elements=[tournaments.c.id])
            .returning(tournaments.c.id)
        )
        try:
            async with engine.begin() as connection:
                return (await connection.execute(insert)).first() is not None
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot archive tournament {tournament_id}: {exc}") from exc

    async def get_tournament(self, tournament_id: str) -> _TournamentBody | None:
        """See `Archive.get_tournament`."""
        engine = self._ready()
        query = sa.select(tournaments.c.info, tournaments.c.standings).where(tournaments.c.id == tournament_id)
        try:
            async with engine.connect() as connection:
                row = (await connection.execute(query)).first()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read tournament {tournament_id}: {exc}") from exc
        if row is None:
            return None
        info = msgspec.msgpack.decode(row[0], type=TournamentInfo)
        return info, msgspec.msgpack.decode(row[1], type=list[TournamentStanding])

    async def races_of(self, player_id: str, *, before: str | None, limit: int) -> tuple[list[RaceRow], str | None]:
        """See `Archive.races_of`: one query through the history index (``limit + 1`` rows, the
        last only telling whether another page follows)."""
        if limit < 1:
            raise ArchiveError(f"a history page holds at least one race (limit {limit})")
        engine = self._ready()
        key = None if before is None else decode_cursor(before)
        try:
            async with engine.connect() as connection:
                found = (await connection.execute(history_query(player_id, key, limit + 1))).all()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the history of {player_id}: {exc}") from exc
        rows = [
            RaceRow(
                code=code,
                game=game,
                finished_ms=ms,
                standing=place,
                entrants=entrants,
                cleared=cleared,
                total=total,
                time_ms=time_ms,
                status=status,
                par=par,
            )
            for code, game, ms, place, entrants, cleared, total, time_ms, status, par in found[:limit]
        ]
        more = len(found) > limit
        return rows, (encode_cursor(rows[-1].finished_ms, rows[-1].code) if more else None)

    async def put_player(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> bool:
        """See `Archive.put_player`: one upsert (``INSERT ... ON CONFLICT (id) DO UPDATE ...
        WHERE`` the digest is the same and the time not older), so concurrent writes need no
        lock."""
        engine = self._ready()
        insert = self._insert(players).values(
            id=player_id, name=name, token_digest=token_digest, created_ms=seen_ms, seen_ms=seen_ms
        )
        upsert = insert.on_conflict_do_update(
            index_elements=[players.c.id],
            set_={"name": insert.excluded.name, "seen_ms": insert.excluded.seen_ms},
            where=sa.and_(
                players.c.token_digest == insert.excluded.token_digest, players.c.seen_ms <= insert.excluded.seen_ms
            ),
        ).returning(players.c.id)
        try:
            async with engine.begin() as connection:
                return (await connection.execute(upsert)).first() is not None
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot archive player {player_id}: {exc}") from exc

    async def player_by_token(self, token_digest: str) -> tuple[str, str] | None:
        """See `Archive.player_by_token` (through the unique index on the digest)."""
        engine = self._ready()
        query = sa.select(players.c.id, players.c.name).where(players.c.token_digest == token_digest)
        try:
            async with engine.connect() as connection:
                row = (await connection.execute(query)).first()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read a player: {exc}") from exc
        return None if row is None else (row[0], row[1])

    async def forget_before(self, ms: int) -> int:
        """See `Archive.forget_before` (through the indexes on ``finished_ms``)."""
        engine = self._ready()
        old = sa.select(races.c.code).where(races.c.finished_ms < ms)
        try:
            async with engine.begin() as connection:
                await connection.execute(sa.delete(race_entrants).where(race_entrants.c.race_code.in_(old)))
                gone = (await connection.execute(sa.delete(races).where(races.c.finished_ms < ms))).rowcount
                await connection.execute(sa.delete(tournaments).where(tournaments.c.finished_ms < ms))
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot forget races before {ms}: {exc}") from exc
        return int(gone or 0)

    async def explain_history(self, player_id: str, before: str | None, limit: int) -> str:
        """The database's plan for a history page's query (SQLite: ``EXPLAIN QUERY PLAN``;
        PostgreSQL: ``EXPLAIN``), one line per step: to check it reads the history index."""
        engine = self._ready()
        key = None if before is None else decode_cursor(before)
        query = history_query(player_id, key, limit + 1).compile(
            dialect=engine.dialect, compile_kwargs={"literal_binds": True}
        )
        prefix = "EXPLAIN QUERY PLAN " if self.dialect == "sqlite" else "EXPLAIN "
        async with engine.connect() as connection:
            plan = (await connection.exec_driver_sql(prefix + str(query))).all()
        return "\n".join(" ".join(str(part) for part in row) for row in plan)

    async def _scalar(self, query: sa.Select[Any], what: str) -> Any:
        engine = self._ready()
        try:
            async with engine.connect() as connection:
                return (await connection.execute(query)).scalar_one_or_none()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read {what}: {exc}") from exc
