"""Tournaments in a player's history: ``tournament_entrants``, one row per player of an ended
tournament, read a page at a time through ``ix_tournament_entrants_player_finished``.

An archive that already keeps tournaments gets their rows from the final standings each one
keeps (``tournaments.standings``), so its players' histories list them at once. The blobs are
read as plain MessagePack maps, not through the server's message types, so that this revision
stays what it is when those types change.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-28
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_INDEX = "ix_tournament_entrants_player_finished"
#: Rows inserted per statement while backfilling.
_BATCH = 500


def upgrade() -> None:
    """Create ``tournament_entrants`` and its history index, then fill it from the tournaments
    already kept."""
    table = op.create_table(
        "tournament_entrants",
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("title", sa.String(256), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("entrants", sa.Integer, nullable=False),
        sa.Column("cleared", sa.Integer, nullable=False),
        sa.Column("time_ms", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "player_id"),
    )
    op.create_index(
        _INDEX, "tournament_entrants", ["player_id", sa.text("finished_ms DESC"), sa.text("tournament_id DESC")]
    )
    kept = op.get_bind().execute(sa.text("SELECT id, finished_ms, info, standings FROM tournaments"))
    batch: list[dict[str, Any]] = []
    for tournament_id, finished_ms, info, standings in kept:
        batch += _rows(tournament_id, finished_ms, msgspec.msgpack.decode(info), msgspec.msgpack.decode(standings))
        if len(batch) >= _BATCH:
            op.bulk_insert(table, batch)
            batch = []
    if batch:
        op.bulk_insert(table, batch)


def _rows(tournament_id: str, finished_ms: int, info: dict[str, Any], standings: list[Any]) -> list[dict[str, Any]]:
    """The rows of one kept tournament: one per player of its standings (its better entry)."""
    rows: dict[str, dict[str, Any]] = {}
    for line in sorted(standings, key=lambda line: line["place"]):
        rows.setdefault(
            line["player"],
            {
                "tournament_id": tournament_id,
                "player_id": line["player"],
                "name": line["name"],
                "title": info["name"],
                "game": info["game"],
                "format": info["format"],
                "deals": info["deals"],
                "outcome": info["status"],
                "finished_ms": finished_ms,
                "place": line["place"],
                "entrants": len(standings),
                "cleared": line["cleared"],
                "time_ms": line["time_ms"],
                "status": line["status"],
            },
        )
    return list(rows.values())


def downgrade() -> None:
    """Drop it (the tournaments keep their standings)."""
    op.drop_index(_INDEX, "tournament_entrants")
    op.drop_table("tournament_entrants")
