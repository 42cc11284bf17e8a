"""The archive's SQL tables as this code reads and writes them (SQLAlchemy Core). The schema in
a database is made by the Alembic revisions in ``migrations/versions``; a change here goes with a
new revision there.

- ``races``: one row per finished race: ``code`` (primary key), ``game``, ``seed``,
  ``commitment``, ``finished_ms`` (Unix epoch ms; indexed for retention), ``tournament`` (its
  id, if a tournament's deal), ``record`` (the `server.protocol.RaceRecord`, msgspec
  MessagePack).
- ``race_entrants``: one row per player of a race, with everything a history line shows
  (`server.archive.RaceRow`), so a page is one scan of ``ix_race_entrants_player_finished``:
  ``(player_id, finished_ms DESC, race_code DESC)``.
- ``tournaments``: ``id``, ``finished_ms``, ``info`` and ``standings`` (MessagePack).
- ``players``: one row per player: ``id`` (primary key), ``name`` (as last seen), ``token_digest``
  (`server.players.token_digest` of its token, never the token; unique: a hello's lookup),
  ``created_ms`` and ``seen_ms`` (Unix epoch ms).
"""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["HISTORY_INDEX", "VERSION_TABLE", "metadata", "players", "race_entrants", "races", "tournaments"]

#: Alembic's table of the schema's revision.
VERSION_TABLE = "archive_version"
#: The index a history page (`server.archive.Archive.races_of`) is read through.
HISTORY_INDEX = "ix_race_entrants_player_finished"

metadata = sa.MetaData()

races = sa.Table(
    "races",
    metadata,
    sa.Column("code", sa.String(64), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("commitment", sa.String(128), nullable=False),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("tournament", sa.String(64), nullable=True),
    sa.Column("record", sa.LargeBinary, nullable=False),
    sa.Index("ix_races_finished", "finished_ms"),
)

race_entrants = sa.Table(
    "race_entrants",
    metadata,
    sa.Column("race_code", sa.String(64), nullable=False),
    sa.Column("player_id", sa.String(64), nullable=False),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("place", sa.Integer, nullable=False),
    sa.Column("entrants", sa.Integer, nullable=False),
    sa.Column("cleared", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    sa.Column("time_ms", sa.BigInteger, nullable=False),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("par", sa.String(16), nullable=True),
    sa.PrimaryKeyConstraint("race_code", "player_id"),
    sa.Index(HISTORY_INDEX, "player_id", sa.text("finished_ms DESC"), sa.text("race_code DESC")),
)

tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("finished_ms", sa.BigInteger, nullable=False),
    sa.Column("info", sa.LargeBinary, nullable=False),
    sa.Column("standings", sa.LargeBinary, nullable=False),
    sa.Index("ix_tournaments_finished", "finished_ms"),
)

players = sa.Table(
    "players",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(128), nullable=False),
    sa.Column("token_digest", sa.String(64), nullable=False),
    sa.Column("created_ms", sa.BigInteger, nullable=False),
    sa.Column("seen_ms", sa.BigInteger, nullable=False),
    sa.Index("ux_players_token", "token_digest", unique=True),
)
