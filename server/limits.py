"""Counters behind the server's limits on what one client may do; each costs O(1) per use.

* `TokenBucket`: a rate with a burst (frames per second on one connection).
* `KeyedRate`: a token bucket per key, for the keys most recently used (new connections a second
  per address).
* `Budgets`: token buckets per kind of costly request, for each connection and each address
  (replays, watches, records, syncs, winnable searches: `server.dispatch.BUDGETS`).
* `WindowCounter`: how many times each key did something within a sliding window (races created
  per player and per address in the last hour), in one count per key and slice of the window, so
  that its memory follows the keys, not the events, and empties as the slices age out.

Times are seconds on any monotonic clock the caller passes in.

>>> bucket = TokenBucket(rate_per_s=1.0, burst=2, now=0.0)
>>> [bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)]
[True, True, False, True]
>>> budgets = Budgets(per_address=2.0)
>>> mine, other = {}, {}
>>> [budgets.take(mine, "10.0.0.1", "watch", 1.0, 1, now=0.0) for _ in range(2)]
[None, 'connection']
>>> budgets.take(other, "10.0.0.1", "watch", 1.0, 1, now=0.0), budgets.take({}, "10.0.0.1", "watch", 1.0, 1, now=0.0)
(None, 'address')
>>> openings = KeyedRate(rate_per_s=1.0, burst=2, keys=2)
>>> [openings.take("10.0.0.1", now=0.0) for _ in range(3)], openings.take("10.0.0.2", now=0.0)
([True, True, False], True)
>>> window = WindowCounter(window_s=60)
>>> window.add("ann", now=0); window.add("ann", now=30); window.count("ann", now=45)
2
>>> window.count("ann", now=61)
1
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque

__all__ = ["Budgets", "KeyedRate", "TokenBucket", "WindowCounter"]


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

    def ready(self, now: float) -> bool:
        """Whether `take` at ``now`` would succeed (nothing spent)."""
        return self.tokens + (now - self.last) * self.rate_per_s >= 1


class Budgets:
    """Token buckets per kind of request, so that one kind of costly request has its own budget
    beside the connection's frame rate: each connection holds its own buckets (a dict the caller
    keeps with the connection, so they go with it), and every address has buckets
    ``per_address`` times as large (rate and burst) shared by its connections, kept here for
    the `addresses` most recently used (an address dropped from them starts afresh: full
    buckets). Costs O(1) per request."""

    def __init__(self, per_address: float, addresses: int = 10_000) -> None:
        self.per_address = per_address
        self.addresses = addresses
        self._by_address: OrderedDict[str, dict[str, TokenBucket]] = OrderedDict()

    def take(
        self, mine: dict[str, TokenBucket], address: str, kind: str, rate_per_s: float, burst: int, now: float
    ) -> str | None:
        """Spend one ``kind`` request from the connection's buckets ``mine`` and from
        ``address``'s, at ``rate_per_s`` and ``burst`` per connection; None when both had one,
        else which was out ("connection" or "address"), and nothing spent."""
        bucket = mine.get(kind)
        if bucket is None:
            bucket = mine[kind] = TokenBucket(rate_per_s, burst, now)
        shared = self._by_address.get(address)
        if shared is None:
            shared = self._by_address[address] = {}
            if len(self._by_address) > self.addresses:
                self._by_address.popitem(last=False)
        else:
            self._by_address.move_to_end(address)
        pooled = shared.get(kind)
        if pooled is None:
            pooled = shared[kind] = TokenBucket(
                rate_per_s * self.per_address, max(1, round(burst * self.per_address)), now
            )
        if not bucket.ready(now):
            return "connection"
        if not pooled.take(now):
            return "address"
        bucket.take(now)
        return None

    def __len__(self) -> int:
        """Addresses whose buckets are kept."""
        return len(self._by_address)


class KeyedRate:
    """A `TokenBucket` (``rate_per_s``, ``burst``) per key, kept for the ``keys`` most recently
    used: a key dropped from them starts afresh, with a full bucket, so memory stays bounded
    whatever keys arrive. O(1) per use."""

    def __init__(self, rate_per_s: float, burst: int, keys: int = 10_000) -> None:
        self.rate_per_s = rate_per_s
        self.burst = max(1, burst)
        self.keys = keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def take(self, key: str, now: float) -> bool:
        """Spend one of ``key``'s tokens at ``now``; False (nothing spent) when it has none."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.rate_per_s, self.burst, now)
            if len(self._buckets) > self.keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take(now)


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
