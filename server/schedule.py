"""When tournaments happen: one-off start times, recurring cron schedules, and the schedule file.

Cron expressions have five fields (minute, hour, day of month, month, day of week) and are
evaluated by ``croniter`` in the schedule's own time zone (an IANA name such as
``Europe/London``), so "every Friday at 20:00" stays at 20:00 local time across daylight-saving
changes. Two choices where the clock itself is odd: a time that does not exist on the day the
clocks go forward happens at the first valid instant after it (croniter's choice); a time that
happens twice on the day the clocks go back happens once, the first time.

An expression is checked when a tournament is created and when the schedule file is loaded: one
that never fires (``0 0 30 2 *``) is refused with `ScheduleError` after a bounded search
(`MAX_YEARS_BETWEEN`).

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

from croniter import CroniterError, croniter

__all__ = [
    "MAX_YEARS_BETWEEN",
    "ScheduleError",
    "check_cron",
    "load_schedule_file",
    "next_occurrences",
    "parse_start",
    "time_zone",
]

#: Years croniter searches for a schedule's next occurrence before calling it one that never
#: fires: 8 covers the longest gap a valid expression has (February 29th: 2096, then 2104).
MAX_YEARS_BETWEEN = 8


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
    zone ``zone``. Raises `ScheduleError` for a bad expression or zone, and for one that never
    fires (``0 0 30 2 *``: no February has a 30th): croniter looks at most `MAX_YEARS_BETWEEN`
    years ahead for each occurrence, a fraction of a millisecond."""
    tz = time_zone(zone)
    if not croniter.is_valid(cron) or len(cron.split()) != 5:
        raise ScheduleError(f"not a five-field cron expression: {cron!r}")
    start = dt.datetime.fromtimestamp(after_ms / 1000, tz)
    times = croniter(cron, start, max_years_between_matches=MAX_YEARS_BETWEEN)
    found: list[int] = []
    last_local: dt.datetime | None = None
    while len(found) < count:
        try:
            when: dt.datetime = times.get_next(dt.datetime)
        except CroniterError as exc:  # CroniterBadDateError: nothing matches within the horizon
            raise ScheduleError(
                f"cron {cron!r} never fires: no date in the next {MAX_YEARS_BETWEEN} years matches it "
                f"(check the day of month against the month: {exc})"
            ) from None
        local = when.replace(tzinfo=None)
        if local == last_local:  # the same wall-clock time again as the clocks go back
            continue
        last_local = local
        found.append(int(when.timestamp() * 1000))
    return found


def check_cron(cron: str, zone: str = "UTC", *, now_ms: int | None = None) -> int:
    """The next instant (epoch ms) after ``now_ms`` (default: now) at which ``cron`` fires in
    ``zone``; raises `ScheduleError` for an expression that is malformed or never fires, or an
    unknown zone. Bounded work: at most `MAX_YEARS_BETWEEN` years searched.

    >>> check_cron("0 0 30 2 *")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    server.schedule.ScheduleError: cron '0 0 30 2 *' never fires: no date in the next 8 years matches it ...
    """
    after = int(dt.datetime.now(dt.UTC).timestamp() * 1000) if now_ms is None else now_ms
    return next_occurrences(cron, zone, after_ms=after, count=1)[0]


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
    for number, table in enumerate(tables, 1):
        cron, zone = table.get("cron"), table.get("timezone", "UTC")
        if isinstance(cron, str) and isinstance(zone, str):
            try:
                check_cron(cron, zone)
            except ScheduleError as exc:
                raise ScheduleError(f"tournament {number} in {str(path)!r}: {exc}") from None
    return tables
