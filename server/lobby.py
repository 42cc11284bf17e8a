"""The lobby: which races are open to join and which are live to watch, newest first, in pages.

`list_races` must cost the same whether the server holds ten races or a hundred thousand
(docs/design.md, invariant 8), so the lobby keeps an index per listing instead of scanning every race:
each race gets a serial number when it is created (its place in creation order), and each listing
holds the serials of its races in a sorted list. A page is a binary search and a slice; the
cursor a client passes back is the serial of the last race it saw.

>>> lobby = Lobby()
>>> for code in ("AAA", "BBB", "CCC"):
...     lobby.add(code)
>>> lobby.move("BBB", "live")
>>> lobby.page("open", before=None, limit=1)
(['CCC'], 3)
>>> lobby.page("open", before=3, limit=5)
(['AAA'], None)
"""

from __future__ import annotations

import bisect

__all__ = ["LISTINGS", "Lobby"]

#: The listings a race can be in: "open" (it takes entrants) and "live" (starting or running).
LISTINGS = ("open", "live")


class Lobby:
    """Indexes of races by listing, in creation order. Every operation costs O(log n) plus the
    size of a page (``bisect`` on a list of ints; removal shifts the list, a C-speed copy)."""

    def __init__(self) -> None:
        self._next_serial = 0
        self._serial: dict[str, int] = {}  # race code -> serial
        self._listing: dict[str, str] = {}  # race code -> the listing it is in
        self._serials: dict[str, list[int]] = {name: [] for name in LISTINGS}
        self._codes: dict[int, str] = {}  # serial -> race code, for races in a listing

    def add(self, code: str, listing: str | None = "open") -> None:
        """Give a new race its serial and put it in ``listing`` (None: in none yet)."""
        self._next_serial += 1
        self._serial[code] = self._next_serial
        if listing is not None:
            self._codes[self._next_serial] = code
            self._listing[code] = listing
            self._serials[listing].append(self._next_serial)  # the newest serial: the list stays sorted

    def move(self, code: str, listing: str | None) -> None:
        """Put race ``code`` in ``listing`` instead (None: in no listing, e.g. once finished)."""
        serial = self._serial.get(code)
        if serial is None or self._listing.get(code) == listing:
            return
        old = self._listing.pop(code, None)
        if old is not None:
            serials = self._serials[old]
            del serials[bisect.bisect_left(serials, serial)]
        if listing is None:
            self._codes.pop(serial, None)
            return
        self._listing[code] = listing
        bisect.insort(self._serials[listing], serial)
        self._codes[serial] = code

    def forget(self, code: str) -> None:
        """Drop every trace of race ``code`` (it left the server's memory)."""
        self.move(code, None)
        self._serial.pop(code, None)

    def page(self, listing: str, *, before: int | None, limit: int) -> tuple[list[str], int | None]:
        """Up to ``limit`` race codes of ``listing``, newest first, created before the race whose
        serial is ``before`` (None: from the newest); and the cursor for the next page (None if
        there is none)."""
        serials = self._serials[listing]
        end = len(serials) if before is None else bisect.bisect_left(serials, before)
        start = max(0, end - limit)
        codes = [self._codes[s] for s in reversed(serials[start:end])]
        return codes, (serials[start] if start > 0 else None)

    def count(self, listing: str) -> int:
        """Races in ``listing`` now."""
        return len(self._serials[listing])
