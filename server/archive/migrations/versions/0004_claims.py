"""Claimed names and players on several devices: ``player_tokens`` (one row per device's token,
moved out of ``players.token_digest``), ``claims`` (a claimed name, its confusable-insensitive
key, unique, and the password's argon2id hash) and ``transfer_codes`` (one-time codes, their
digest only).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the three tables, move each player's token digest into ``player_tokens``, and drop
    ``players.token_digest`` (a batch copy of the table on SQLite)."""
    op.create_table(
        "player_tokens",
        sa.Column("token_digest", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("seen_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_player_tokens_player", "player_tokens", ["player_id"])
    op.execute(
        "INSERT INTO player_tokens (token_digest, player_id, created_ms, seen_ms)"
        " SELECT token_digest, id, created_ms, seen_ms FROM players"
    )
    op.drop_index("ux_players_token", "players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("token_digest")
    op.create_table(
        "claims",
        sa.Column("player_id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("name_key", sa.String(512), nullable=False),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column("claimed_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ux_claims_name_key", "claims", ["name_key"], unique=True)
    op.create_table(
        "transfer_codes",
        sa.Column("code_digest", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("expires_ms", sa.BigInteger, nullable=False),
        sa.Column("used", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_transfer_codes_player", "transfer_codes", ["player_id"])


def downgrade() -> None:
    """Drop the new tables; each player keeps the digest of its oldest token."""
    op.drop_index("ix_transfer_codes_player", "transfer_codes")
    op.drop_table("transfer_codes")
    op.drop_index("ux_claims_name_key", "claims")
    op.drop_table("claims")
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("token_digest", sa.String(64), nullable=False, server_default=""))
    op.execute(
        "UPDATE players SET token_digest = (SELECT t.token_digest FROM player_tokens t"
        " WHERE t.player_id = players.id ORDER BY t.created_ms, t.token_digest LIMIT 1)"
        " WHERE EXISTS (SELECT 1 FROM player_tokens t WHERE t.player_id = players.id)"
    )
    op.create_index("ux_players_token", "players", ["token_digest"], unique=True)
    op.drop_index("ix_player_tokens_player", "player_tokens")
    op.drop_table("player_tokens")
