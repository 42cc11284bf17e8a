"""Passkeys: ``passkeys``, one row per claimed player's WebAuthn credential (its id, the COSE
public key, the authenticator's sign count), found by credential id (the primary key) and by
player (``ix_passkeys_player``).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``passkeys`` and its index."""
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.String(512), primary_key=True),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("public_key", sa.LargeBinary, nullable=False),
        sa.Column("sign_count", sa.BigInteger, nullable=False),
        sa.Column("created_ms", sa.BigInteger, nullable=False),
        sa.Column("used_ms", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_passkeys_player", "passkeys", ["player_id"])


def downgrade() -> None:
    """Drop ``passkeys``."""
    op.drop_index("ix_passkeys_player", "passkeys")
    op.drop_table("passkeys")
