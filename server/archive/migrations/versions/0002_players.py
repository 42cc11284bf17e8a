"""Players kept for good: a persistent id, a display name, created and last-seen times, and the
digest of the token that resumes the player (never the token).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``players`` and its unique index on the token's digest."""
    op.create_table(
        "players",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("token_digest", sa.String(64), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("seen_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ux_players_token", "players", ["token_digest"], unique=True)


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ux_players_token", "players")
    op.drop_table("players")
