"""Counters behind the server's limits on what one client may do; each costs O(1) per use.

* `TokenBucket`: a rate with a burst (frames per second on one connection).
* `WindowCounter`: how many times each key did something within a sliding window (races created
  per player and per address in the last hour), forgetting keys whose window is empty, so that it
  never holds more than the events of one window.

Times are seconds on any monotonic clock the caller passes in.

>>> bucket = TokenBucket(rate_per_s=1.0, burst=2, now=0.0)
>>> [bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)]
[True, True, False, True]
>>> window = WindowCounter(window_s=60)
>>> window.add("ann", now=0); window.add("ann", now=30); window.count("ann", now=61)
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
    """Events per key within the last ``window_s`` seconds."""

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self._events: deque[tuple[float, str]] = deque()  # oldest first: times never go back
        self._counts: Counter[str] = Counter()

    def add(self, key: str, now: float) -> None:
        """Count one event of ``key`` at ``now``."""
        self._expire(now)
        self._events.append((now, key))
        self._counts[key] += 1

    def count(self, key: str, now: float) -> int:
        """Events of ``key`` in the window that ends at ``now``."""
        self._expire(now)
        return self._counts.get(key, 0)

    def __len__(self) -> int:
        """Events in the window, over every key."""
        return len(self._events)

    def _expire(self, now: float) -> None:
        events, counts = self._events, self._counts
        while events and events[0][0] <= now - self.window_s:
            _, key = events.popleft()
            counts[key] -= 1
            if not counts[key]:
                del counts[key]
