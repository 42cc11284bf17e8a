"""Follows: ``follows`` (who follows whom, since when), with an index by followee for "who follows
a player" (forgetting a player removes its follows both ways).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the table and its index."""
    op.create_table(
        "follows",
        sa.Column("follower_id", sa.String(64), nullable=False),
        sa.Column("followee_id", sa.String(64), nullable=False),
        sa.Column("since_ms", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("follower_id", "followee_id"),
    )
    op.create_index("ix_follows_followee", "follows", ["followee_id", "follower_id"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_follows_followee", "follows")
    op.drop_table("follows")
