"""The system of record: every finished race and tournament, kept for good (the `Archive` interface).

The live store (`server.store.Store`) holds races while they are played and lets a finished
race's record go after a retention time; the archive keeps it until an operator says otherwise
(`Archive.forget_before`). Each finished race is written once, by the node that owns it, with
`Archive.put_race`; the write is idempotent by race code, so a retry or a takeover that writes
the same race again changes nothing. A player's history is read a page at a time with
`Archive.races_of` (one indexed query per page, newest first, paged by an opaque cursor).

Backends, picked by `open_archive` from a URL:

- ``memory://``: this process only, lost at exit (tests);
- ``sqlite:///PATH``: one SQLite file (the embedded default), through SQLAlchemy's async engine
  and aiosqlite;
- ``postgresql://USER:PASSWORD@HOST:PORT/DB``: PostgreSQL, shared by several nodes, through
  asyncpg.

The SQL backends keep their schema with Alembic migrations shipped in
``server/archive/migrations``; `Archive.open` brings an older schema up to date and refuses one
that is newer than this code.

Errors: every method may raise `ArchiveError` (its ``reason`` says why: the database cannot be
reached, its schema is ahead of this code, a call before `Archive.open`...).
"""

from __future__ import annotations

import abc

import msgspec

from server.protocol import RaceRecord, TournamentInfo, TournamentStanding

__all__ = [
    "Archive",
    "ArchiveError",
    "RaceRow",
    "decode_cursor",
    "encode_cursor",
    "open_archive",
    "race_rows",
]


class ArchiveError(Exception):
    """The archive cannot do what was asked; ``reason`` says why in words (the database cannot
    be reached, its schema is ahead of this code, the URL names no known backend...)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RaceRow(msgspec.Struct, frozen=True):
    """One line of a player's history (`Archive.races_of`): the race ``code`` and ``game``,
    when it finished (``finished_ms``, Unix epoch milliseconds), the player's ``standing``
    (1-based place) among ``entrants`` entrants, its cards ``cleared`` of ``total``, its
    ``time_ms`` (race time of its last clearing move, ms), its final ``status`` (won, stuck,
    resigned, out_of_time...), and ``par``: what the deal allowed (`server.protocol.Par`'s
    ``result``: won, lost or unknown), None when the race carried no par."""

    code: str
    game: str
    finished_ms: int
    standing: int
    entrants: int
    cleared: int
    total: int
    time_ms: int
    status: str
    par: str | None = None


def race_rows(record: RaceRecord, finished_ms: int) -> list[tuple[str, RaceRow]]:
    """One ``(player id, RaceRow)`` per player of the finished race ``record`` (from its
    standings; a player with two entries gets its better one), as every backend lists them."""
    par = record.race.par.result if record.race.par is not None else None
    count = len(record.standings)
    rows: dict[str, RaceRow] = {}
    for line in sorted(record.standings, key=lambda line: line.place):
        if line.player not in rows:
            rows[line.player] = RaceRow(
                code=record.race.code,
                game=record.race.game,
                finished_ms=finished_ms,
                standing=line.place,
                entrants=count,
                cleared=line.cleared,
                total=line.total,
                time_ms=line.time_ms,
                status=line.status,
                par=par,
            )
    return list(rows.items())


def encode_cursor(finished_ms: int, code: str) -> str:
    """The cursor that continues a history page after the race ``code`` finished at
    ``finished_ms`` (opaque to clients: ``"<finished_ms>.<code>"``)."""
    return f"{finished_ms}.{code}"


def decode_cursor(cursor: str) -> tuple[int, str]:
    """``(finished_ms, code)`` from a cursor `encode_cursor` made. Raises `ArchiveError` for a
    cursor it did not make."""
    ms, sep, code = cursor.partition(".")
    if not sep or not code or not ms.isdigit() or len(ms) > 19:
        raise ArchiveError(f"bad history cursor {cursor[:40]!r}")
    return int(ms), code


class Archive(abc.ABC):
    """Finished races and tournaments, kept until `forget_before` removes them. Open it once
    (`open`) before any other call and `close` it at shutdown. Every method may raise
    `ArchiveError`."""

    url: str = ""

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect, and bring the schema up to date when it is behind this code's (Alembic's
        head). Raises `ArchiveError` when the database cannot be reached or its schema is ahead
        of this code (written by a newer version: upgrade the server instead)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Let the connections go; calling it twice, or without `open`, does nothing."""

    @abc.abstractmethod
    async def put_race(self, record: RaceRecord, finished_ms: int) -> bool:
        """Keep the finished race ``record`` (its ``req`` is not kept) for good, as finished at
        ``finished_ms`` (Unix epoch ms). Idempotent by race code: True if it was written now,
        False if a race with that code was already kept (then nothing changes)."""

    @abc.abstractmethod
    async def get_race(self, code: str) -> RaceRecord | None:
        """The record kept for race ``code`` (with ``req`` 0), or None."""

    @abc.abstractmethod
    async def put_tournament(
        self, tournament_id: str, info: TournamentInfo, standings: list[TournamentStanding], finished_ms: int
    ) -> bool:
        """Keep a finished tournament's description and final standings, finished at
        ``finished_ms`` (Unix epoch ms). Idempotent by id: True if written now, False if it was
        already kept."""

    @abc.abstractmethod
    async def get_tournament(self, tournament_id: str) -> tuple[TournamentInfo, list[TournamentStanding]] | None:
        """``(info, standings)`` kept for the tournament, or None."""

    @abc.abstractmethod
    async def races_of(self, player_id: str, *, before: str | None, limit: int) -> tuple[list[RaceRow], str | None]:
        """One page of ``player_id``'s finished races, newest first (by finished time, then
        race code, both descending), at most ``limit`` (>= 1) rows, after the cursor
        ``before`` (None: from the newest). Returns ``(rows, cursor)``: ``cursor`` continues
        with the next page, None when this page is the last. Raises `ArchiveError` for a
        cursor this archive did not make or a ``limit`` below 1."""

    @abc.abstractmethod
    async def put_player(self, player_id: str, name: str, token_digest: str, seen_ms: int) -> bool:
        """Keep player ``player_id`` for good: its display ``name``, the digest of its token
        (`server.players.token_digest`: 64 hex digits, never the token) and when it was seen
        (``seen_ms``, Unix epoch ms; a new player's created time too). A player already kept
        under the same digest gets the name and time unless it was seen later than ``seen_ms``
        already (writes that arrive out of order keep the newest). True if something was
        written; False if nothing changed: an older write, or an id kept with another token's
        digest (which is left as it is)."""

    @abc.abstractmethod
    async def player_by_token(self, token_digest: str) -> tuple[str, str] | None:
        """``(player id, name)`` of the player kept under ``token_digest``, or None."""

    @abc.abstractmethod
    async def forget_before(self, ms: int) -> int:
        """Remove every race (and tournament) that finished before ``ms`` (Unix epoch ms),
        the operators' retention; returns how many races it removed."""


def open_archive(url: str) -> Archive:
    """An (unopened) archive for ``url``: ``memory://``, ``sqlite:///PATH`` (a file; relative
    with three slashes, absolute with four), ``postgresql://...`` (``postgres://`` and
    ``postgresql+asyncpg://`` too). Raises `ArchiveError` for any other scheme."""
    scheme = url.partition("://")[0].lower()
    if scheme == "memory":
        from server.archive.memory import MemoryArchive

        return MemoryArchive()
    if scheme in ("sqlite", "sqlite+aiosqlite", "postgresql", "postgres", "postgresql+asyncpg"):
        from server.archive.sql import SqlArchive

        return SqlArchive(url)
    raise ArchiveError(f"unknown archive URL {url[:60]!r}: use memory://, sqlite:///PATH or postgresql://...")
