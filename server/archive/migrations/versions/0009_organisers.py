"""The organiser role: ``organisers``, one row per claimed player the server's admin made an
organiser (``player_id``, ``granted_ms``).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``organisers`` (empty: nobody is an organiser until the admin grants it)."""
    op.create_table(
        "organisers",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("granted_ms", sa.BigInteger, nullable=False),
    )


def downgrade() -> None:
    """Drop ``organisers``: every organiser's role goes (its tournaments stay)."""
    op.drop_table("organisers")
