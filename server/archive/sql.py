"""The archive in SQL (SQLAlchemy 2's async engine): SQLite through aiosqlite (``sqlite:///PATH``,
the embedded default) or PostgreSQL through asyncpg (``postgresql://...``, shared by several
nodes). Tables: `server.archive.schema`; schema changes: the Alembic revisions in
``server/archive/migrations``, applied by `SqlArchive.open` when the database is behind.

Writes are idempotent inserts (``INSERT ... ON CONFLICT DO NOTHING RETURNING``, each dialect's
own insert construct), so two nodes archiving the same race (a retry, a takeover) leave one copy:
on PostgreSQL the second waits on the primary key's unique index until the first commits, then
inserts nothing. A race already kept is replaced, in the same transaction, only by a newer copy
(`server.archive.record_revision`, compared with the kept record read ``FOR UPDATE``), so
writes of one race never go backwards whatever order they commit in.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
from collections.abc import AsyncIterator
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
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

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
from server.archive.schema import (
    VERSION_TABLE,
    claims,
    daily_results,
    follows,
    organisers,
    passkeys,
    player_game_stats,
    player_tokens,
    players,
    race_entrants,
    races,
    ratings,
    tournament_entrants,
    tournaments,
    transfer_codes,
)
from server.archive.sql_daily import SqlDaily, forget_daily_totals
from server.archive.sql_follows import SqlFollows
from server.archive.sql_passkeys import SqlPasskeys
from server.archive.sql_ratings import SqlRatings
from server.archive.sql_stats import SqlStats, count_stats
from server.protocol import RaceRecord, TournamentInfo, TournamentStanding

__all__ = ["MIGRATIONS", "SqlArchive", "async_url", "history_query", "tournament_history_query"]

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
_TOURNAMENT_COLUMNS = (
    tournament_entrants.c.tournament_id,
    tournament_entrants.c.title,
    tournament_entrants.c.game,
    tournament_entrants.c.format,
    tournament_entrants.c.deals,
    tournament_entrants.c.finished_ms,
    tournament_entrants.c.outcome,
    tournament_entrants.c.place,
    tournament_entrants.c.entrants,
    tournament_entrants.c.cleared,
    tournament_entrants.c.time_ms,
    tournament_entrants.c.status,
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


def tournament_history_query(player_id: str, before: tuple[int, str] | None, limit: int) -> sa.Select[Any]:
    """The one query of a page of a player's tournaments: ``player_id``'s rows after the key
    ``before`` (``(finished_ms, tournament id)``), newest first, ``limit`` rows, read through
    ``ix_tournament_entrants_player_finished`` (`server.archive.schema.TOURNAMENT_HISTORY_INDEX`)."""
    table = tournament_entrants
    query = sa.select(*_TOURNAMENT_COLUMNS).where(table.c.player_id == player_id)
    if before is not None:
        ms, tid = before
        query = query.where(sa.tuple_(table.c.finished_ms, table.c.tournament_id) < sa.tuple_(ms, tid))
    return query.order_by(table.c.finished_ms.desc(), table.c.tournament_id.desc()).limit(limit)


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


@contextlib.asynccontextmanager
async def _sqlite_file_lock(database: str | None) -> AsyncIterator[None]:
    """Hold an exclusive lock on ``DATABASE.lock`` (a file beside the SQLite file) while the
    body runs, so that processes opening one new SQLite archive together migrate it one at a
    time (SQLite runs Alembic's DDL outside a transaction). Nothing for ``None`` (PostgreSQL
    takes an advisory lock in `_migrate`) or an in-memory database. Raises OSError when the
    lock file cannot be made."""
    if not database or database == ":memory:":
        yield
        return
    descriptor = os.open(f"{database}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        await asyncio.to_thread(fcntl.flock, descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # (closing lets the lock go)


def _pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Each new SQLite connection: write-ahead log (readers never wait on the writer), and wait
    up to 10 s for another process's write lock instead of failing."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


class SqlArchive(SqlDaily, SqlRatings, SqlStats, SqlFollows, SqlPasskeys, Archive):
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
            async with _sqlite_file_lock(self._url.database if self.dialect == "sqlite" else None):
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

    async def _ready(self) -> AsyncEngine:
        """The engine, once this coroutine runs in a task: a request's first step runs outside
        any task (`server.transport.session.Session.take`), and SQLAlchemy's pool waits for a
        free connection under `asyncio.timeout`, which needs one; yielding once moves the
        request into its task. Raises `ArchiveError` before `open`."""
        if self._engine is None:
            raise ArchiveError("the archive is not open")
        if asyncio.current_task() is None:
            await asyncio.sleep(0)
        return self._engine

    def _insert(self, table: sa.Table) -> Any:
        return (postgresql.insert if self.dialect == "postgresql" else sqlite.insert)(table)

    async def put_race(self, record: RaceRecord, finished_ms: int) -> bool:
        """See `Archive.put_race`."""
        engine = await self._ready()
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
                if not written:
                    written = await self._replace_race(connection, record, blob, entrants)
                elif entrants:
                    await connection.execute(race_entrants.insert(), entrants)
                    await count_stats(connection, self._insert, record, finished_ms)  # (a first copy only)
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot archive race {race.code}: {exc}") from exc
        return written

    async def _replace_race(
        self, connection: AsyncConnection, record: RaceRecord, blob: bytes, entrants: list[dict[str, Any]]
    ) -> bool:
        """In the transaction of `put_race`, after its insert found race ``record`` kept: replace
        the kept copy and its history lines by ``record`` (encoded: ``blob``; lines:
        ``entrants``) if it is newer (`server.archive.record_revision`), keeping the kept
        ``finished_ms``. The kept row is read ``FOR UPDATE`` (PostgreSQL: concurrent writers
        of the race take turns; SQLite: the insert already holds the database's write lock).
        True if replaced."""
        code = record.race.code
        kept = (
            await connection.execute(
                sa.select(races.c.record, races.c.finished_ms).where(races.c.code == code).with_for_update()
            )
        ).first()
        if kept is None or record_revision(record) <= record_revision(msgspec.msgpack.decode(kept[0], type=RaceRecord)):
            return False
        await connection.execute(sa.update(races).where(races.c.code == code).values(record=blob))
        await connection.execute(sa.delete(race_entrants).where(race_entrants.c.race_code == code))
        if entrants:
            await connection.execute(race_entrants.insert(), [line | {"finished_ms": kept[1]} for line in entrants])
        return True

    async def get_race(self, code: str) -> RaceRecord | None:
        """See `Archive.get_race`."""
        blob = await self._scalar(sa.select(races.c.record).where(races.c.code == code), f"race {code}")
        return None if blob is None else msgspec.msgpack.decode(blob, type=RaceRecord)

    async def put_tournament(
        self, tournament_id: str, info: TournamentInfo, standings: list[TournamentStanding], finished_ms: int
    ) -> bool:
        """See `Archive.put_tournament`."""
        engine = await self._ready()
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
        entrants = []
        for player, name, row in tournament_rows(tournament_id, info, standings, finished_ms):
            line = msgspec.structs.asdict(row)
            line.update(tournament_id=line.pop("tournament"), player_id=player, name=name)
            entrants.append(line)
        try:
            async with engine.begin() as connection:
                written = (await connection.execute(insert)).first() is not None
                if written and entrants:
                    await connection.execute(tournament_entrants.insert(), entrants)
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot archive tournament {tournament_id}: {exc}") from exc
        return written

    async def get_tournament(self, tournament_id: str) -> _TournamentBody | None:
        """See `Archive.get_tournament`."""
        engine = await self._ready()
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
        engine = await self._ready()
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

    async def tournaments_of(
        self, player_id: str, *, before: str | None, limit: int
    ) -> tuple[list[TournamentRow], str | None]:
        """See `Archive.tournaments_of`: one query through the tournament history index
        (``limit + 1`` rows, the last only telling whether another page follows)."""
        if limit < 1:
            raise ArchiveError(f"a history page holds at least one tournament (limit {limit})")
        engine = await self._ready()
        key = None if before is None else decode_cursor(before)
        try:
            async with engine.connect() as connection:
                found = (await connection.execute(tournament_history_query(player_id, key, limit + 1))).all()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read the tournaments of {player_id}: {exc}") from exc
        rows = [TournamentRow(*row) for row in found[:limit]]
        more = len(found) > limit
        return rows, (encode_cursor(rows[-1].finished_ms, rows[-1].tournament) if more else None)

    async def put_player(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> bool:
        """See `Archive.put_player`: in one transaction, the token's row first (``INSERT ... ON
        CONFLICT DO NOTHING``: a concurrent write of the same token waits on its primary key),
        then the player's upsert, guarded so that an older write changes nothing."""
        engine = await self._ready()
        new_token = (
            self._insert(player_tokens)
            .values(token_digest=token_digest, player_id=player_id, created_ms=seen_ms, seen_ms=seen_ms)
            .on_conflict_do_nothing(index_elements=[player_tokens.c.token_digest])
            .returning(player_tokens.c.token_digest)
        )
        insert = self._insert(players).values(id=player_id, name=name, created_ms=seen_ms, seen_ms=seen_ms)
        try:
            async with engine.begin() as connection:
                if (await connection.execute(new_token)).first() is not None:
                    created = insert.on_conflict_do_nothing(index_elements=[players.c.id]).returning(players.c.id)
                    if (await connection.execute(created)).first() is None:  # an id kept with other tokens
                        await connection.rollback()
                        return False
                    return True
                holder = sa.select(player_tokens.c.player_id).where(player_tokens.c.token_digest == token_digest)
                if (await connection.execute(holder)).scalar_one_or_none() != player_id:
                    return False
                await connection.execute(
                    sa.update(player_tokens)
                    .where(player_tokens.c.token_digest == token_digest, player_tokens.c.seen_ms < seen_ms)
                    .values(seen_ms=seen_ms)
                )
                upsert = insert.on_conflict_do_update(
                    index_elements=[players.c.id],
                    set_={"name": insert.excluded.name, "seen_ms": insert.excluded.seen_ms},
                    where=players.c.seen_ms <= insert.excluded.seen_ms,
                ).returning(players.c.id)
                return (await connection.execute(upsert)).first() is not None
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot archive player {player_id}: {exc}") from exc

    async def player_by_token(self, token_digest: str) -> tuple[str, str] | None:
        """See `Archive.player_by_token` (through the tokens' primary key)."""
        query = (
            sa.select(players.c.id, players.c.name)
            .join(player_tokens, player_tokens.c.player_id == players.c.id)
            .where(player_tokens.c.token_digest == token_digest)
        )
        row = await self._first(query, "a player")
        return None if row is None else (str(row.id), str(row.name))

    async def add_token(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> None:
        """See `Archive.add_token`."""
        engine = await self._ready()
        player = (
            self._insert(players)
            .values(id=player_id, name=name, created_ms=seen_ms, seen_ms=seen_ms)
            .on_conflict_do_nothing(index_elements=[players.c.id])
        )
        token = (
            self._insert(player_tokens)
            .values(token_digest=token_digest, player_id=player_id, created_ms=seen_ms, seen_ms=seen_ms)
            .on_conflict_do_nothing(index_elements=[player_tokens.c.token_digest])
        )
        try:
            async with engine.begin() as connection:
                await connection.execute(player)
                await connection.execute(token)
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot keep a token of player {player_id}: {exc}") from exc

    async def put_claim(self, claim: Claim) -> bool:
        """See `Archive.put_claim`: one upsert by player id; the unique index on ``name_key``
        refuses another player's look-alike, even when two claims race."""
        engine = await self._ready()
        values = msgspec.structs.asdict(claim)
        insert = self._insert(claims).values(**values)
        upsert = insert.on_conflict_do_update(
            index_elements=[claims.c.player_id],
            set_={key: insert.excluded[key] for key in values if key != "player_id"},
        )
        try:
            async with engine.begin() as connection:
                await connection.execute(upsert)
        except sa.exc.IntegrityError:
            return False
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot keep the claim of {claim.player_id}: {exc}") from exc
        return True

    async def claim_by_key(self, name_key: str) -> Claim | None:
        """See `Archive.claim_by_key` (through the unique index on ``name_key``)."""
        row = await self._first(sa.select(*claims.c).where(claims.c.name_key == name_key), "a claim")
        return None if row is None else Claim(**row._asdict())

    async def claim_of(self, player_id: str) -> Claim | None:
        """See `Archive.claim_of`."""
        row = await self._first(sa.select(*claims.c).where(claims.c.player_id == player_id), "a claim")
        return None if row is None else Claim(**row._asdict())

    async def set_organiser(self, player_id: str, organiser: bool, now_ms: int) -> bool:
        """See `Archive.set_organiser`: an insert that does nothing on the primary key, or a delete."""
        engine = await self._ready()
        if organiser:
            change = self._insert(organisers).values(player_id=player_id, granted_ms=now_ms).on_conflict_do_nothing()
        else:
            change = sa.delete(organisers).where(organisers.c.player_id == player_id)
        try:
            async with engine.begin() as connection:
                return bool((await connection.execute(change)).rowcount)
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot change the organiser role of {player_id}: {exc}") from exc

    async def is_organiser(self, player_id: str) -> bool:
        """See `Archive.is_organiser` (by primary key)."""
        query = sa.select(organisers.c.player_id).where(organisers.c.player_id == player_id)
        return await self._first(query, "an organiser role") is not None

    async def put_transfer_code(self, code_digest: str, player_id: str, expires_ms: int) -> None:
        """See `Archive.put_transfer_code`."""
        engine = await self._ready()
        insert = transfer_codes.insert().values(
            code_digest=code_digest, player_id=player_id, expires_ms=expires_ms, used=False
        )
        try:
            async with engine.begin() as connection:
                await connection.execute(insert)
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot keep a transfer code: {exc}") from exc

    async def use_transfer_code(self, code_digest: str, now_ms: int) -> str | None:
        """See `Archive.use_transfer_code`: one guarded ``UPDATE ... RETURNING``, so that of two
        at once only one finds the code unused."""
        engine = await self._ready()
        spend = (
            sa.update(transfer_codes)
            .where(
                transfer_codes.c.code_digest == code_digest,
                transfer_codes.c.used.is_(False),
                transfer_codes.c.expires_ms > now_ms,
            )
            .values(used=True)
            .returning(transfer_codes.c.player_id)
        )
        try:
            async with engine.begin() as connection:
                return (await connection.execute(spend)).scalar_one_or_none()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read a transfer code: {exc}") from exc

    async def forget_player(self, player_id: str, anonymous_name: str) -> int:
        """See `Archive.forget_player`: one transaction; each of its races' records is read,
        rewritten (`server.archive.anonymised`) and written back."""
        engine = await self._ready()
        codes = sa.select(race_entrants.c.race_code).where(race_entrants.c.player_id == player_id)
        try:
            async with engine.begin() as connection:
                for table, column in (
                    (player_tokens, player_tokens.c.player_id),
                    (claims, claims.c.player_id),
                    (transfer_codes, transfer_codes.c.player_id),
                    (organisers, organisers.c.player_id),
                    (players, players.c.id),
                    (follows, follows.c.follower_id),
                    (follows, follows.c.followee_id),
                    (player_game_stats, player_game_stats.c.player_id),
                    (passkeys, passkeys.c.player_id),
                ):
                    await connection.execute(sa.delete(table).where(column == player_id))
                found = (
                    await connection.execute(sa.select(races.c.code, races.c.record).where(races.c.code.in_(codes)))
                ).all()
                for code, blob in found:
                    record = anonymised(msgspec.msgpack.decode(blob, type=RaceRecord), player_id, anonymous_name)
                    await connection.execute(
                        sa.update(races).where(races.c.code == code).values(record=msgspec.msgpack.encode(record))
                    )
                await connection.execute(
                    sa.update(race_entrants).where(race_entrants.c.player_id == player_id).values(name=anonymous_name)
                )
                entered = sa.select(tournament_entrants.c.tournament_id).where(
                    tournament_entrants.c.player_id == player_id
                )
                kept = (
                    await connection.execute(
                        sa.select(tournaments.c.id, tournaments.c.standings).where(tournaments.c.id.in_(entered))
                    )
                ).all()
                for tid, blob in kept:
                    standings = msgspec.msgpack.decode(blob, type=list[TournamentStanding])
                    renamed = anonymised_standings(standings, player_id, anonymous_name)
                    await connection.execute(
                        sa.update(tournaments)
                        .where(tournaments.c.id == tid)
                        .values(standings=msgspec.msgpack.encode(renamed))
                    )
                await connection.execute(
                    sa.update(tournament_entrants)
                    .where(tournament_entrants.c.player_id == player_id)
                    .values(name=anonymous_name)
                )
                await connection.execute(sa.delete(ratings).where(ratings.c.player_id == player_id))
                await forget_daily_totals(connection, player_id)
                await connection.execute(
                    sa.update(daily_results).where(daily_results.c.player_id == player_id).values(name=anonymous_name)
                )
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot forget player {player_id}: {exc}") from exc
        return len(found)

    async def _first(self, query: sa.Select[Any], what: str) -> sa.Row[Any] | None:
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                return (await connection.execute(query)).first()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read {what}: {exc}") from exc

    async def forget_before(self, ms: int) -> int:
        """See `Archive.forget_before` (through the indexes on ``finished_ms``)."""
        engine = await self._ready()
        old = sa.select(races.c.code).where(races.c.finished_ms < ms)
        ended = sa.select(tournaments.c.id).where(tournaments.c.finished_ms < ms)
        try:
            async with engine.begin() as connection:
                await connection.execute(sa.delete(race_entrants).where(race_entrants.c.race_code.in_(old)))
                gone = (await connection.execute(sa.delete(races).where(races.c.finished_ms < ms))).rowcount
                await connection.execute(
                    sa.delete(tournament_entrants).where(tournament_entrants.c.tournament_id.in_(ended))
                )
                await connection.execute(sa.delete(tournaments).where(tournaments.c.finished_ms < ms))
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot forget races before {ms}: {exc}") from exc
        return int(gone or 0)

    async def explain_history(
        self, player_id: str, before: str | None, limit: int, *, tournaments: bool = False
    ) -> str:
        """The database's plan for a history page's query (SQLite: ``EXPLAIN QUERY PLAN``;
        PostgreSQL: ``EXPLAIN``), one line per step: to check it reads the history index
        (``tournaments``: the query of `tournaments_of` and its index)."""
        engine = await self._ready()
        key = None if before is None else decode_cursor(before)
        build = tournament_history_query if tournaments else history_query
        query = build(player_id, key, limit + 1).compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True})
        prefix = "EXPLAIN QUERY PLAN " if self.dialect == "sqlite" else "EXPLAIN "
        async with engine.connect() as connection:
            plan = (await connection.exec_driver_sql(prefix + str(query))).all()
        return "\n".join(" ".join(str(part) for part in row) for row in plan)

    async def _scalar(self, query: sa.Select[Any], what: str) -> Any:
        engine = await self._ready()
        try:
            async with engine.connect() as connection:
                return (await connection.execute(query)).scalar_one_or_none()
        except SQLAlchemyError as exc:
            raise ArchiveError(f"cannot read {what}: {exc}") from exc
