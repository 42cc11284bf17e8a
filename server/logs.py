"""Rate-limited logging: the same failure logged over and over is written once per window.

A flood of bad input, a client that keeps failing, or ``accept()`` failing for want of file
descriptors can each log the same line thousands of times a second, and the log then costs more
than the failure. `RepeatFilter` lets the first record of a kind through, drops the same kind for
``window_s`` seconds, and then lets the next one through with the count of those it dropped. A
kind is the logger, the level and the message's format string (not its arguments), so "slow
client 10.0.0.1" and "slow client 10.0.0.2" are one kind.

>>> f = RepeatFilter(window_s=10, now=iter([0.0, 1.0, 2.0, 11.0]).__next__)
>>> records = [logging.LogRecord("arena", logging.WARNING, "", 0, "slow client %s", (n,), None) for n in range(4)]
>>> [f.filter(r) for r in records]
[True, False, False, True]
>>> records[3].getMessage()
'slow client 3 (2 more like it in the last 11 s)'
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["RepeatFilter", "limit_repeats"]


class RepeatFilter(logging.Filter):
    """Let one record of each kind through per ``window_s`` seconds (``now``: the clock)."""

    def __init__(self, window_s: float = 10.0, now: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.window_s = window_s
        self.now = now
        self._kinds: dict[tuple[str, int, str], tuple[float, int]] = {}  # kind -> (let through at, dropped)

    def filter(self, record: logging.LogRecord) -> bool:
        kind = (record.name, record.levelno, str(record.msg))
        now = self.now()
        last = self._kinds.get(kind)
        if last is not None and now - last[0] < self.window_s:
            self._kinds[kind] = (last[0], last[1] + 1)
            return False
        if last is not None and last[1]:
            record.msg = f"{record.msg} ({last[1]} more like it in the last {now - last[0]:.0f} s)"
        if len(self._kinds) > 10_000:  # kinds are format strings, few in practice; stay bounded
            self._kinds.clear()
        self._kinds[kind] = (now, 0)
        return True


def limit_repeats(*names: str, window_s: float = 10.0) -> None:
    """Put one `RepeatFilter` on each named logger (once: calling again changes nothing)."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RepeatFilter) for f in logger.filters):
            logger.addFilter(RepeatFilter(window_s))
