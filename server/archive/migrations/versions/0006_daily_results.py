"""The daily challenge: ``daily_results``, one row per player's ranked attempt at a day's deal of a
game, read through an index for a day's leaderboard and one for a player's days (calendar,
streak); and ``kept_secrets``, the secrets every node shares (the daily deals' one).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``daily_results`` with its two indexes, and ``kept_secrets``."""
    op.create_table(
        "daily_results",
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("race_code", sa.String(64), nullable=False),
        sa.Column("cleared", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("time_ms", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("day", "game", "player_id"),
    )
    op.create_index(
        "ix_daily_results_board",
        "daily_results",
        ["day", "game", sa.text("cleared DESC"), "time_ms", "race_code"],
    )
    op.create_index("ix_daily_results_player", "daily_results", ["player_id", sa.text("day DESC"), "game"])
    op.create_table(
        "kept_secrets",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("value", sa.String(256), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("kept_secrets")
    op.drop_index("ix_daily_results_player", "daily_results")
    op.drop_index("ix_daily_results_board", "daily_results")
    op.drop_table("daily_results")
