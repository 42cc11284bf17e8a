"""The daily challenge's week and all-time boards: ``daily_totals``, running sums of each
player's final daily results per game and period (ISO week or all time), read through
``ix_daily_totals_board``; filled from the ``daily_results`` already kept.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

#: Rows written per insert while filling the table.
_BATCH = 5_000


def _week(day: str) -> str:
    year, week, _ = dt.date.fromisoformat(day).isocalendar()
    return f"{year}-W{week:02d}"


def upgrade() -> None:
    """Create the table and its board index, then fill it from the final ``daily_results``."""
    table = op.create_table(
        "daily_totals",
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("period", sa.String(10), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("cards", sa.BigInteger, nullable=False),
        sa.Column("time_ms", sa.BigInteger, nullable=False),
        sa.Column("days", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("game", "period", "player_id"),
    )
    assert table is not None
    op.create_index(
        "ix_daily_totals_board",
        "daily_totals",
        ["game", "period", sa.text("cards DESC"), "time_ms", "player_id"],
    )
    results = sa.table(
        "daily_results",
        sa.column("day"),
        sa.column("game"),
        sa.column("player_id"),
        sa.column("cleared"),
        sa.column("time_ms"),
        sa.column("status"),
    )
    c = results.c
    rows = op.get_bind().execute(
        sa.select(c.day, c.game, c.player_id, c.cleared, c.time_ms).where(c.status != "playing")
    )
    sums: dict[tuple[str, str, str], list[int]] = {}
    for day, game, player_id, cleared, time_ms in rows:
        for period in (_week(day), "all"):
            kept = sums.setdefault((game, period, player_id), [0, 0, 0])
            kept[0] += cleared
            kept[1] += time_ms
            kept[2] += 1
    batch: list[dict[str, object]] = []
    for (game, period, player_id), (cards, time_ms, days) in sums.items():
        batch.append(
            {"game": game, "period": period, "player_id": player_id, "cards": cards, "time_ms": time_ms, "days": days}
        )
        if len(batch) >= _BATCH:
            op.bulk_insert(table, batch)
            batch = []
    if batch:
        op.bulk_insert(table, batch)


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ix_daily_totals_board", "daily_totals")
    op.drop_table("daily_totals")
