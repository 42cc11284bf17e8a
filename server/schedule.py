"""When tournaments happen: one-off start times, recurring cron schedules, and the schedule file.

Cron expressions have five fields (minute, hour, day of month, month, day of week) and are
evaluated by ``croniter`` in the schedule's own time zone (an IANA name such as
``Europe/London``), so "every Friday at 20:00" stays at 20:00 local time across daylight-saving
changes. Two choices where the clock itself is odd: a time that does not exist on the day the
clocks go forward happens at the first valid instant after it (croniter's choice); a time that
happens twice on the day the clocks go back happens once, the first time.

The schedule file (``arena serve --tournaments FILE``) is TOML: one ``[[tournament]]`` table per
tournament, with the fields of a create_tournament message (docs/tournaments.md), for example::

    [[tournament]]
    name = "Friday Klondike"
    game = "klondike"
    deals = 3
    cron = "0 20 * * FRI"
    timezone = "Europe/London"
"""

from __future__ import annotations

import datetime as dt
import tomllib
import zoneinfo
from pathlib import Path
from typing import Any

from croniter import croniter

__all__ = ["ScheduleError", "load_schedule_file", "next_occurrences", "parse_start", "time_zone"]


class ScheduleError(ValueError):
    """A start time, cron expression, time zone or schedule file that cannot be used."""


def time_zone(name: str) -> zoneinfo.ZoneInfo:
    """The IANA time zone called ``name``; raises `ScheduleError` for an unknown one."""
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(f"unknown time zone {name!r} (use an IANA name such as 'Europe/Paris')") from None


def parse_start(text: str, *, now_ms: int) -> int:
    """A one-off start time: ISO 8601 with a time zone (``2026-12-04T20:00:00+01:00``, or ``Z``),
    as Unix epoch milliseconds. Raises `ScheduleError` if it has no zone or is not after now."""
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise ScheduleError(f"not an ISO 8601 date and time: {text!r}") from None
    if when.tzinfo is None:
        raise ScheduleError(f"the start time {text!r} needs a time zone (e.g. +00:00 or Z)")
    instant = int(when.timestamp() * 1000)
    if instant <= now_ms:
        raise ScheduleError(f"the start time {text!r} is in the past")
    return instant


def next_occurrences(cron: str, zone: str, *, after_ms: int, count: int) -> list[int]:
    """The next ``count`` instants (epoch ms) after ``after_ms`` at which ``cron`` fires in time
    zone ``zone``. Raises `ScheduleError` for a bad expression or zone."""
    tz = time_zone(zone)
    if not croniter.is_valid(cron) or len(cron.split()) != 5:
        raise ScheduleError(f"not a five-field cron expression: {cron!r}")
    start = dt.datetime.fromtimestamp(after_ms / 1000, tz)
    times = croniter(cron, start)
    found: list[int] = []
    last_local: dt.datetime | None = None
    while len(found) < count:
        when: dt.datetime = times.get_next(dt.datetime)
        local = when.replace(tzinfo=None)
        if local == last_local:  # the same wall-clock time again as the clocks go back
            continue
        last_local = local
        found.append(int(when.timestamp() * 1000))
    return found


def load_schedule_file(path: str | Path) -> list[dict[str, Any]]:
    """The ``[[tournament]]`` tables of a TOML schedule file, as dicts of create_tournament fields.
    Raises `ScheduleError` for a file that is missing, not TOML, or has no such table."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ScheduleError(f"cannot read schedule file {str(path)!r}: {exc}") from None
    tables = data.get("tournament")
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ScheduleError(f"{str(path)!r} needs one or more [[tournament]] tables")
    return tables
