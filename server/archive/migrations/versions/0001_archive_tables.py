"""The archive's first tables: races, race_entrants (with the history index) and tournaments.

Revision ID: 0001
Revises:
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the three tables and their indexes."""
    op.create_table(
        "races",
        sa.Column("code", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("commitment", sa.String(128), nullable=False),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.Column("tournament", sa.String(64), nullable=True),
        sa.Column("record", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_races_finished", "races", ["finished_ms"])
    op.create_table(
        "race_entrants",
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
    )
    op.create_index(
        "ix_race_entrants_player_finished",
        "race_entrants",
        ["player_id", sa.text("finished_ms DESC"), sa.text("race_code DESC")],
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("finished_ms", sa.BigInteger, nullable=False),
        sa.Column("info", sa.LargeBinary, nullable=False),
        sa.Column("standings", sa.LargeBinary, nullable=False),
    )
    op.create_index("ix_tournaments_finished", "tournaments", ["finished_ms"])


def downgrade() -> None:
    """Drop them."""
    op.drop_table("tournaments")
    op.drop_index("ix_race_entrants_player_finished", "race_entrants")
    op.drop_table("race_entrants")
    op.drop_index("ix_races_finished", "races")
    op.drop_table("races")
