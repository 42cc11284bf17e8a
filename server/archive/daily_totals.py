"""The daily challenge's week and all-time boards: running totals of each player's ranked daily
results per game and period, kept up as each final result is written (never summed at read
time), and what both backends share to read them: `DailyTotal`, `period_key`, `week_key`,
`totals_order` and the opaque page cursor (`encode_totals_cursor`, `decode_totals_cursor`).

A period is an ISO week of UTC days (``"2026-W48"``) or all time (``"all"``). A board's order:
more cards cleared, then less time, then the player id (ascending).
"""

from __future__ import annotations

import datetime as dt
import re

import msgspec

__all__ = [
    "ALL_TIME",
    "DailyTotal",
    "decode_totals_cursor",
    "encode_totals_cursor",
    "period_key",
    "periods_of_day",
    "totals_order",
    "week_key",
]

#: The period key of the all-time boards.
ALL_TIME = "all"

_CURSOR = re.compile(r"^(\d{1,12})\.(\d{1,15})/(.{1,64})$")


class DailyTotal(msgspec.Struct, frozen=True):
    """One player's sums over a period's ranked daily results of one game: cards ``cleared``,
    ``time_ms`` (race times, ms) and ``days`` (results counted)."""

    player_id: str
    game: str
    period: str
    cleared: int
    time_ms: int
    days: int


def week_key(day: str) -> str:
    """The ISO week (``"YYYY-Www"``) of UTC ``day`` (``YYYY-MM-DD``). Raises ValueError for a
    date that does not exist."""
    year, week, _ = dt.date.fromisoformat(day).isocalendar()
    return f"{year}-W{week:02d}"


def periods_of_day(day: str) -> tuple[str, str]:
    """The two periods a result of ``day`` counts in: its week and all time."""
    return week_key(day), ALL_TIME


def period_key(period: str, day: str) -> str:
    """The key of ``period`` ("week" or "all") as of UTC ``day``. Raises ValueError for another
    period or a date that does not exist."""
    if period == "week":
        return week_key(day)
    if period == "all":
        return ALL_TIME
    raise ValueError(f"no running totals for the period {period!r}")


def totals_order(total: DailyTotal) -> tuple[int, int, str]:
    """A board's sort key: more cards, then less time, then the player id."""
    return (-total.cleared, total.time_ms, total.player_id)


def encode_totals_cursor(total: DailyTotal) -> str:
    """The cursor that continues a board after ``total``'s row (``"<cleared>.<time_ms>/<player>"``,
    opaque to clients)."""
    return f"{total.cleared}.{total.time_ms}/{total.player_id}"


def decode_totals_cursor(cursor: str) -> tuple[int, int, str]:
    """``(cleared, time_ms, player_id)`` from a cursor `encode_totals_cursor` made. Raises
    ValueError for one it did not make."""
    found = _CURSOR.match(cursor)
    if found is None:
        raise ValueError(f"bad daily board cursor {cursor[:40]!r}")
    return int(found[1]), int(found[2]), found[3]
