"""Counters behind the server's limits on what one client may do; each costs O(1) per use.

* `TokenBucket`: a rate with a burst (frames per second on one connection).
* `WindowCounter`: how many times each key did something within a sliding window (races created
  per player and per address in the last hour), in one count per key and slice of the window, so
  that its memory follows the keys, not the events, and empties as the slices age out.

Times are seconds on any monotonic clock the caller passes in.

>>> bucket = TokenBucket(rate_per_s=1.0, burst=2, now=0.0)
>>> [bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)]
[True, True, False, True]
>>> window = WindowCounter(window_s=60)
>>> window.add("ann", now=0); window.add("ann", now=30); window.count("ann", now=45)
2
>>> window.count("ann", now=61)
1
"""

from __future__ import annotations

from collections import Counter, deque

__all__ = ["TokenBucket", "WindowCounter"]


class TokenBucket:
    """``rate_per_s`` tokens a second, at most ``burst`` saved up; `take` spends one."""

    __slots__ = ("rate_per_s", "burst", "tokens", "last")

    def __init__(self, rate_per_s: float, burst: int, now: float) -> None:
        self.rate_per_s = rate_per_s
        self.burst = burst
        self.tokens = float(burst)
        self.last = now

    def take(self, now: float) -> bool:
        """Spend one token at ``now``; False (and nothing spent) when none is left."""
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate_per_s)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class WindowCounter:
    """Events per key within the last ``window_s`` seconds, counted in ``buckets`` slices of the
    window (default 60: one a minute for an hour), so that memory holds one count per key and
    slice, not one entry per event, and frees it as the slices age out. A count may include
    events up to one slice older than the window (they leave with their slice)."""

    def __init__(self, window_s: float, buckets: int = 60) -> None:
        self.window_s = window_s
        self.slice_s = window_s / buckets
        self._slices: deque[tuple[int, Counter[str]]] = deque()  # (slice number, counts), oldest first

    def add(self, key: str, now: float) -> None:
        """Count one event of ``key`` at ``now``."""
        number = int(now // self.slice_s)
        self._expire(number)
        if not self._slices or self._slices[-1][0] != number:
            self._slices.append((number, Counter()))
        self._slices[-1][1][key] += 1

    def count(self, key: str, now: float) -> int:
        """Events of ``key`` in the window that ends at ``now``."""
        self._expire(int(now // self.slice_s))
        return sum(counts.get(key, 0) for _, counts in self._slices)

    def __len__(self) -> int:
        """Events in the window, over every key."""
        return sum(sum(counts.values()) for _, counts in self._slices)

    def _expire(self, number: int) -> None:
        oldest = number - round(self.window_s / self.slice_s)
        while self._slices and self._slices[0][0] <= oldest:
            self._slices.popleft()
