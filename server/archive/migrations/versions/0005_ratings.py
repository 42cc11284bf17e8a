"""Ratings per game: ``ratings`` (a player's current rating in a game, with the board's index)
and ``rating_changes`` (one row per rated race and player: the history, and what makes applying a
race twice change nothing).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create both tables and their indexes."""
    op.create_table(
        "ratings",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("mu", sa.Float(53), nullable=False),
        sa.Column("sigma", sa.Float(53), nullable=False),
        sa.Column("races", sa.Integer, nullable=False),
        sa.Column("ordinal", sa.Float(53), nullable=False),
        sa.Column("updated_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game"),
    )
    op.create_index(
        "ix_ratings_board",
        "ratings",
        ["game", sa.text("ordinal DESC"), sa.text("player_id DESC"), "updated_ms"],
    )
    op.create_table(
        "rating_changes",
        sa.Column("race_code", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.Column("mu_before", sa.Float(53), nullable=False),
        sa.Column("sigma_before", sa.Float(53), nullable=False),
        sa.Column("mu_after", sa.Float(53), nullable=False),
        sa.Column("sigma_after", sa.Float(53), nullable=False),
        sa.Column("races", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("race_code", "player_id"),
    )
    op.create_index(
        "ix_rating_changes_player",
        "rating_changes",
        ["player_id", "game", sa.text("finished_ms DESC"), sa.text("race_code DESC")],
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_rating_changes_player", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_board", "ratings")
    op.drop_table("ratings")
