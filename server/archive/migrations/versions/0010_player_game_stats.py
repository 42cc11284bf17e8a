"""Players' statistics per game: ``player_game_stats`` (races played and won, win times, cards
cleared, streaks of wins), filled from the history lines already kept (``race_entrants``, each
player's races in finish order, read once).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

#: Rows written per insert while filling the table.
_BATCH = 5_000


def upgrade() -> None:
    """Create the table, then fill it from ``race_entrants`` in one ordered pass."""
    table = op.create_table(
        "player_game_stats",
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("played", sa.Integer, nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("win_ms_sum", sa.BigInteger, nullable=False),
        sa.Column("best_win_ms", sa.BigInteger, nullable=True),
        sa.Column("cleared", sa.BigInteger, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("best_streak", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "game"),
    )
    assert table is not None
    entrants = sa.table(
        "race_entrants",
        sa.column("player_id"),
        sa.column("game"),
        sa.column("finished_ms"),
        sa.column("race_code"),
        sa.column("status"),
        sa.column("time_ms"),
        sa.column("cleared"),
    )
    c = entrants.c
    rows = op.get_bind().execute(
        sa.select(c.player_id, c.game, c.status, c.time_ms, c.cleared).order_by(
            c.player_id, c.game, c.finished_ms, c.race_code
        )
    )
    batch: list[dict[str, object]] = []
    key: tuple[str, str] | None = None
    played = won = win_ms_sum = cleared_sum = streak = best_streak = 0
    best_win_ms: int | None = None

    def line() -> dict[str, object]:
        assert key is not None
        return {
            "player_id": key[0],
            "game": key[1],
            "played": played,
            "won": won,
            "win_ms_sum": win_ms_sum,
            "best_win_ms": best_win_ms,
            "cleared": cleared_sum,
            "streak": streak,
            "best_streak": best_streak,
        }

    for player_id, game, status, time_ms, cleared in rows:
        if key != (player_id, game):
            if key is not None:
                batch.append(line())
            key = (player_id, game)
            played = won = win_ms_sum = cleared_sum = streak = best_streak = 0
            best_win_ms = None
        played += 1
        cleared_sum += cleared
        if status == "won":
            won += 1
            win_ms_sum += time_ms
            best_win_ms = time_ms if best_win_ms is None else min(best_win_ms, time_ms)
            streak += 1
            best_streak = max(best_streak, streak)
        else:
            streak = 0
        if len(batch) >= _BATCH:
            op.bulk_insert(table, batch)
            batch = []
    if key is not None:
        batch.append(line())
    if batch:
        op.bulk_insert(table, batch)


def downgrade() -> None:
    """Drop it."""
    op.drop_table("player_game_stats")
