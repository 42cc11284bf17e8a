"""The server's logs: structured lines (an event name and fields), text or JSON, rate-limited.

**Structured lines.** A line that reports something (a race created, a request refused...) is
logged with ``extra=fields("race_created", race=code, ...)``: an event name and fields that carry
the ids (race code, player id, tournament id, error code, remote address). `configure_logging`
writes them as text (``2026-05-01T20:00:00.123Z INFO arena.races: race AB12CD created
[race_created race=AB12CD game=klondike]``) or as JSON, one object per line with ``time`` (ISO
8601, UTC), ``level``, ``logger``, ``event``, ``message`` and the fields. Instants in a line are
ISO 8601 (`iso_time`), never epoch milliseconds. No line holds a secret: not a seed before it is
revealed, a salt, a session token or the admin token.

**Rate limits.** The same failure logged over and over is written once per window; a line
about one player (hello, left, resumed, renamed: the ``arena.players`` logger) at most
`PLAYER_LINES_PER_WINDOW` times per window, so that clients connecting, saying hello and leaving
in a loop write a bounded log.

A flood of bad input, a client that keeps failing, or ``accept()`` failing for want of file
descriptors can each log the same line thousands of times a second, and the log then costs more
than the failure. `RepeatFilter` lets the first record of a kind through (the first
``per_window``), drops the same kind until ``window_s`` seconds have passed since the first, and
then lets the next one through with the count of those it dropped (in its message, and as the
field ``left_out`` of a structured line). A
kind is the logger, the level, the message's format string (not its arguments) and, for a
structured line, its ``code`` field, so "slow client 10.0.0.1" and "slow client 10.0.0.2" are one
kind, and a request refused with ``race_full`` is not the same kind as one refused with
``bad_name``.

>>> f = RepeatFilter(window_s=10, now=iter([0.0, 1.0, 2.0, 11.0]).__next__)
>>> records = [logging.LogRecord("arena", logging.WARNING, "", 0, "slow client %s", (n,), None) for n in range(4)]
>>> [f.filter(r) for r in records]
[True, False, False, True]
>>> records[3].getMessage()
'slow client 3 (2 more like it in the last 11 s)'
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
import time
from collections.abc import Callable
from typing import IO

__all__ = [
    "JsonFormatter",
    "LOG_FORMATS",
    "LOG_LEVELS",
    "PLAYER_LINES_PER_WINDOW",
    "RepeatFilter",
    "TextFormatter",
    "configure_logging",
    "fields",
    "iso_time",
    "limit_repeats",
]

#: The values of ``arena serve --log-level`` and ``--log-format``.
LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")
#: Lines of each kind about players (``arena.players``) written per ``log_repeat_s`` window.
PLAYER_LINES_PER_WINDOW = 100


def fields(event: str, **values: object) -> dict[str, object]:
    """The ``extra`` of a structured log line: its event name and its fields (None values are
    left out when it is written).

    >>> fields("race_created", race="AB12CD", game="klondike")
    {'event': 'race_created', 'fields': {'race': 'AB12CD', 'game': 'klondike'}}
    """
    return {"event": event, "fields": values}


def iso_time(epoch_ms: int | float) -> str:
    """An instant (Unix epoch milliseconds) as ISO 8601 in UTC, to the millisecond.

    >>> iso_time(1_780_000_000_000)
    '2026-05-28T20:26:40.000Z'
    """
    when = dt.datetime.fromtimestamp(epoch_ms / 1000, dt.timezone.utc)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _fields_of(record: logging.LogRecord) -> dict[str, object]:
    values = getattr(record, "fields", None)
    return {k: v for k, v in values.items() if v is not None} if isinstance(values, dict) else {}


class TextFormatter(logging.Formatter):
    """One line: time (ISO 8601, UTC), level, logger, message, then ``[event key=value...]``."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{iso_time(record.created * 1000)} {record.levelname} {record.name}: {record.getMessage()}"
        event = getattr(record, "event", None)
        if event is not None:
            pairs = " ".join(f"{k}={_text(v)}" for k, v in _fields_of(record).items())
            line += f" [{event}{' ' + pairs if pairs else ''}]"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        elif record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return line


def _text(value: object) -> str:
    text = str(value)
    return json.dumps(text) if not text or any(c.isspace() or c in '"=[]' for c in text) else text


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``event`` (the
    structured line's name, else the message), ``message``, the line's fields, and ``exc`` (the
    traceback) when there is one.

    >>> record = logging.LogRecord("arena.races", logging.INFO, "", 0, "race %s created", ("AB12CD",), None)
    >>> record.__dict__.update(fields("race_created", race="AB12CD", seed=None))
    >>> line = json.loads(JsonFormatter().format(record))
    >>> line["level"], line["event"], line["race"], "seed" in line
    ('info', 'race_created', 'AB12CD', False)
    """

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        line: dict[str, object] = {
            "time": iso_time(record.created * 1000),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": getattr(record, "event", None) or message,
            "message": message,
        }
        for key, value in _fields_of(record).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        elif record.stack_info:
            line["exc"] = self.formatStack(record.stack_info)
        return json.dumps(line, default=str, ensure_ascii=False)


def configure_logging(level: str = "info", log_format: str = "text", stream: IO[str] | None = None) -> None:
    """Send every log line at ``level`` (one of `LOG_LEVELS`) and above to ``stream`` (default:
    standard error) in ``log_format`` (``text`` or ``json``), replacing earlier handlers. The
    websockets library writes only warnings and errors (its informational lines, one per
    connection, repeat the server's own ``connection_opened``/``connection_closed``) and, at
    ``debug``, informational lines too, never its debug lines (one per frame); so does Alembic
    (its lines, one per migration step, are summed up by the server's ``archive_opened``). Raises
    ValueError for an unknown level or format."""
    if level not in LOG_LEVELS:
        raise ValueError(f"unknown log level {level!r} (one of {', '.join(LOG_LEVELS)})")
    if log_format not in LOG_FORMATS:
        raise ValueError(f"unknown log format {log_format!r} (one of {', '.join(LOG_FORMATS)})")
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    numeric = getattr(logging, level.upper())
    root.setLevel(numeric)
    for library in ("websockets", "alembic"):
        logging.getLogger(library).setLevel(logging.INFO if numeric <= logging.DEBUG else max(numeric, logging.WARNING))


class RepeatFilter(logging.Filter):
    """Let ``per_window`` records of each kind through per ``window_s`` seconds (``now``: the
    clock), the first of the next window with the count of those dropped. A kind is the logger,
    the level, the message's format and its ``code`` field; for errors, also its ``race`` or
    ``races`` field, so that an alert about one race never hides another's.

    >>> f = RepeatFilter(window_s=10, per_window=2, now=iter([0.0, 1.0, 2.0, 3.0, 12.0]).__next__)
    >>> records = [logging.LogRecord("arena.players", 20, "", 0, "%s said hello", (n,), None) for n in range(5)]
    >>> [f.filter(r) for r in records], records[4].getMessage()
    ([True, True, False, False, True], '4 said hello (2 more like it in the last 12 s)')
    """

    def __init__(self, window_s: float = 10.0, now: Callable[[], float] = time.monotonic, per_window: int = 1) -> None:
        super().__init__()
        self.window_s = window_s
        self.per_window = per_window
        self.now = now
        #: kind -> (when its window began, records let through in it, records dropped in it)
        self._kinds: dict[tuple[str, int, str, object], tuple[float, int, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        values = getattr(record, "fields", None)
        code = values.get("code") if isinstance(values, dict) else None
        if record.levelno >= logging.ERROR and isinstance(values, dict):  # an alert about one race is not another's
            code = (code, values.get("race"), values.get("races"))
        kind = (record.name, record.levelno, str(record.msg), code)
        now = self.now()
        last = self._kinds.get(kind)
        if last is not None and now - last[0] < self.window_s:
            began, passed, dropped = last
            if passed < self.per_window:
                self._kinds[kind] = (began, passed + 1, dropped)
                return True
            self._kinds[kind] = (began, passed, dropped + 1)
            return False
        if last is not None and last[2]:
            record.msg = f"{record.msg} ({last[2]} more like it in the last {now - last[0]:.0f} s)"
            if isinstance(values, dict):
                values["left_out"] = last[2]
        if len(self._kinds) > 10_000:  # kinds are format strings, few in practice; stay bounded
            self._kinds.clear()
        self._kinds[kind] = (now, 1, 0)
        return True


def limit_repeats(*names: str, window_s: float = 10.0, per_window: int = 1) -> None:
    """Put one `RepeatFilter` (``per_window`` records of a kind per ``window_s`` seconds) on each
    named logger (once: calling again changes nothing)."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RepeatFilter) for f in logger.filters):
            logger.addFilter(RepeatFilter(window_s, per_window=per_window))
