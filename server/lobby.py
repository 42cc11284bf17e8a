"""The lobby: which races are open to join and which are live to watch, in an order a flood of
races cannot take over, in pages.

**The order.** Every listing ("open" and "live" alike) is shown to each player in two parts:

1. *Its own part*: the races the asking player created or entered, and those its friends created
   or entered (a friend: a player it has started a casual race with; the last `FRIENDS_KEPT` of
   them are kept per player, in memory, for as long as the player is);
2. *everyone's part*: every other race, those more players **joined** first (entrants other than
   the creator: a race nobody joined but its creator comes last), then the newest first.

Each part is in the same order (joined, then newest). A flood of races from many addresses
costs the flooder a second player in each race before any of them can pass a race somebody
joined, and it never passes a player's own races or its friends'.

**Bounded work** (docs/design.md, invariant 8). Each race has a serial number (its place in
creation order on this server) and a *key*, ``joined << 40 | serial``, unique and larger for a
race that comes earlier. Each listing holds its keys in one sorted list, updated when a race
is listed, joined, moved or forgotten (O(log n) to find, plus a C-speed shift of the list). A
player's own part comes from an index of listed races by player, at most `PER_PLAYER_INDEXED`
of them per player, so it holds at most ``(1 + FRIENDS_KEPT) * PER_PLAYER_INDEXED`` races; a
page of everyone's part is a binary search and a walk that skips at most that many. A page
costs O(log n + limit + own part), whatever the number of races.

**The cursor** is an int, the position of the last race of the page: `OWN` plus its key while
the page ended in the player's own part, its key alone once in everyone's part
(`server.store.redis.RedisStore.lobby_page` has its own for the shared lobby: there, too, any
value from `OWN` up means the own part). It means something to the player that got it only.
Races that are joined or listed between two pages may be missed or shown twice by a walk;
each race is shown once by a walk over a lobby that does not change.

>>> lobby = Lobby()
>>> for code in ("AAA", "BBB", "CCC", "DDD"):
...     lobby.add(code, creator="p-" + code)
>>> lobby.entered("AAA", "p-ann")  # somebody joined the oldest race
>>> lobby.move("BBB", "live")
>>> lobby.page("open", before=None, limit=2)
(['AAA', 'DDD'], 4)
>>> lobby.page("open", before=4, limit=2)
(['CCC'], None)
"""

from __future__ import annotations

import bisect
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from server.players import Player

__all__ = [
    "FRIENDS_KEPT",
    "LISTINGS",
    "OWN",
    "PER_PLAYER_INDEXED",
    "Lobby",
    "joined_count",
    "own_part",
    "page_of",
    "shared_score",
]

#: The listings a race can be in: "open" (it takes entrants) and "live" (starting or running).
LISTINGS = ("open", "live")

#: Friends kept per player: the players it most recently started a casual race with.
FRIENDS_KEPT = 50

#: Listed races indexed per player (created or entered), for the own part of its friends and itself.
PER_PLAYER_INDEXED = 16

#: Cursors from this value up are positions in the asking player's own part.
OWN = 1 << 62

_SERIAL_BITS = 40  # a key: joined count above, serial below (2^40 races per server start)

# The shared lobby's score (`shared_score`): joined count (at most 63) above a place made of the
# creation instant (milliseconds since _EPOCH_MS, 42 bits: 139 years) and 4 bits of the code, under
# 2^52, so that Redis, whose scores are doubles, holds every score exactly.
_EPOCH_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
_PLACE_BITS = 46
_MAX_JOINED_SCORED = 63

T = TypeVar("T")


def joined_count(creator: str, entrants: Iterable[str]) -> int:
    """How many players joined a race: its entrants other than its creator."""
    return sum(1 for player in entrants if player != creator)


def shared_score(joined: int, created_ms: int, code: str) -> int:
    """A race's score in the shared lobby (a Redis sorted set, highest first): ``joined`` (entrants
    other than the creator, counted up to 63) first, then its creation instant ``created_ms``
    (Unix epoch, ms), then 4 bits of its ``code`` to tell apart races created in the same
    millisecond. Always under 2^52 (exact as a double)."""
    ms = min(max(0, created_ms - _EPOCH_MS), (1 << (_PLACE_BITS - 4)) - 1)
    place = ms << 4 | zlib.crc32(code.encode()) & 0xF
    return min(joined, _MAX_JOINED_SCORED) << _PLACE_BITS | place


def own_part(own: Sequence[tuple[int, T]], before: int | None) -> tuple[list[tuple[int, T]], int | None]:
    """Where a page starts, from its ``before`` cursor (None: the first page): the entries of the
    player's own part ``own`` (``(key, item)``, highest key first) that the page may still show,
    each as ``(cursor after it, item)``, and the cursor of everyone's part to go on from (None:
    its start)."""
    if before is not None and before < OWN:
        return [], before
    after = None if before is None else before - OWN
    return [(OWN | key, item) for key, item in own if after is None or key < after], None


def page_of(entries: Sequence[tuple[int, T]], limit: int) -> tuple[list[T], int | None]:
    """The first ``limit`` of ``entries`` (``(cursor after it, item)``, at least ``limit + 1`` of
    them when there are more) and the cursor of the next page (None: this is the last)."""
    shown = entries[:limit]
    return [item for _, item in shown], (shown[-1][0] if len(entries) > limit else None)


class Lobby:
    """The indexes of the lobby (see the module docstring): races by listing in order, listed
    races by player, friends by player, and open races by the address that created them."""

    def __init__(self) -> None:
        self._next_serial = 0
        self._serial: dict[str, int] = {}  # race code -> serial, for every race known
        self._creator: dict[str, str] = {}
        self._joined: Counter[str] = Counter()  # race code -> entrants other than its creator
        self._people: dict[str, dict[str, None]] = {}  # race code -> its creator and entrants, indexed
        self._listing: dict[str, str] = {}  # race code -> the listing it is in
        self._key: dict[str, int] = {}  # race code -> its key, while listed
        self._keys: dict[str, list[int]] = {name: [] for name in LISTINGS}  # ascending
        self._codes: dict[int, str] = {}  # key -> race code, for races in a listing
        self._by_player: dict[str, set[str]] = {}  # player id -> listed races it created or entered
        self._friends: WeakKeyDictionary[Player, dict[str, None]] = WeakKeyDictionary()  # oldest first
        self._address: dict[str, str] = {}  # open race code -> the address (key) that created it
        self._open_from: Counter[str] = Counter()

    # ------------------------------------------------------------------------ changes

    def add(
        self,
        code: str,
        listing: str | None = "open",
        *,
        creator: str = "",
        entrants: Iterable[str] = (),
        index: bool = True,
    ) -> None:
        """Give a new race (created by player ``creator``, with ``entrants`` so far) its serial
        and put it in ``listing`` (None: in none yet). ``index``: its players see it in their
        own part (False for a tournament's deal: it only counts its entrants)."""
        self._next_serial += 1
        self._serial[code] = self._next_serial
        self._creator[code] = creator
        entrants = list(entrants)
        self._joined[code] = joined_count(creator, entrants)
        self._people[code] = {}
        if index:
            for player in (creator, *entrants):
                self._index(code, player)
        self.move(code, listing)

    def entered(self, code: str, player: str, *, index: bool = True) -> None:
        """Player ``player`` entered race ``code``: it moves up its listing if ``player`` is not
        its creator. ``index``: as for `add`."""
        if code not in self._serial:
            return
        if index:
            self._index(code, player)
        if player == self._creator[code]:
            return
        listing = self._listing.get(code)
        self._unlist(code)
        self._joined[code] += 1
        if listing is not None:
            self._list(code, listing)

    def move(self, code: str, listing: str | None) -> None:
        """Put race ``code`` in ``listing`` instead (None: in no listing, e.g. once finished). A
        race leaving "open" no longer counts against the address that created it."""
        if code not in self._serial or self._listing.get(code) == listing:
            return
        if code not in self._listing:  # listed again: in its players' indexes again
            for player in self._people[code]:
                self._by_player_add(player, code)
        elif listing is None:
            for player in self._people[code]:
                self._by_player_drop(player, code)
        self._unlist(code)
        if listing != "open" and (address := self._address.pop(code, None)) is not None:
            self._open_from[address] -= 1
            if not self._open_from[address]:
                del self._open_from[address]
        if listing is not None:
            self._list(code, listing)

    def forget(self, code: str) -> None:
        """Drop every trace of race ``code`` (it left the server's memory)."""
        self.move(code, None)
        self._people.pop(code, None)
        self._serial.pop(code, None)
        self._creator.pop(code, None)
        self._joined.pop(code, None)

    def opened_from(self, code: str, address: str) -> None:
        """Count open race ``code`` against ``address`` (the key of the address that created it)
        until it leaves the open listing."""
        if self._listing.get(code) == "open" and code not in self._address:
            self._address[code] = address
            self._open_from[address] += 1

    def open_from(self, address: str) -> int:
        """Open races created from ``address`` (as `opened_from` counted them) now."""
        return self._open_from.get(address, 0)

    def raced(self, players: Iterable[Player], entrants: Sequence[str]) -> None:
        """The ``entrants`` (player ids) of a race started together: each of ``players`` (those of
        them in memory) keeps the others as its most recent friends, `FRIENDS_KEPT` at most."""
        for player in players:
            friends = self._friends.setdefault(player, {})
            for other in entrants:
                if other != player.id:
                    friends.pop(other, None)
                    friends[other] = None  # the most recent last
            while len(friends) > FRIENDS_KEPT:
                del friends[next(iter(friends))]

    def friends(self, player: Player) -> list[str]:
        """The ids of ``player``'s friends, the most recent last."""
        return list(self._friends.get(player, ()))

    # ------------------------------------------------------------------------ pages

    def own(self, listing: str, player: Player | None) -> list[tuple[int, str]]:
        """The races of ``listing`` in ``player``'s own part (its own and its friends'), as
        ``(key, code)``, highest key (first shown) first; [] for no player. At most
        ``(1 + FRIENDS_KEPT) * PER_PLAYER_INDEXED`` races."""
        if player is None:
            return []
        found: dict[str, int] = {}
        for someone in (player.id, *self._friends.get(player, ())):
            for code in self._by_player.get(someone, ()):
                if self._listing.get(code) == listing:
                    found[code] = self._key[code]
        return sorted(((key, code) for code, key in found.items()), reverse=True)

    def page(
        self, listing: str, *, before: int | None, limit: int, player: Player | None = None
    ) -> tuple[list[str], int | None]:
        """Up to ``limit`` race codes of ``listing`` in the order ``player`` sees them (None: no
        own part), from the cursor ``before`` (None: the first page); and the cursor for the next
        page (None if there is none)."""
        own = self.own(listing, player)
        entries, general_before = own_part(own, before)
        del entries[limit + 1 :]
        if len(entries) <= limit:
            skip = {code for _, code in own}
            entries += self.others(listing, general_before, limit + 1 - len(entries), skip)
        return page_of(entries, limit)

    def others(self, listing: str, before: int | None, count: int, skip: set[str]) -> list[tuple[int, str]]:
        """Up to ``count`` races of everyone's part of ``listing`` after the cursor ``before``
        (None: from the first), leaving out the codes in ``skip``: ``(cursor after it, code)``."""
        keys = self._keys[listing]
        index = len(keys) if before is None else bisect.bisect_left(keys, before)
        found: list[tuple[int, str]] = []
        while index > 0 and len(found) < count:
            index -= 1
            code = self._codes[keys[index]]
            if code not in skip:
                found.append((keys[index], code))
        return found

    def count(self, listing: str) -> int:
        """Races in ``listing`` now."""
        return len(self._keys[listing])

    # ------------------------------------------------------------------------ inside

    def _index(self, code: str, player: str) -> None:
        people = self._people[code]
        if not player or player in people:
            return
        people[player] = None
        if code in self._listing:
            self._by_player_add(player, code)

    def _by_player_add(self, player: str, code: str) -> None:
        codes = self._by_player.setdefault(player, set())
        if len(codes) < PER_PLAYER_INDEXED:
            codes.add(code)

    def _by_player_drop(self, player: str, code: str) -> None:
        codes = self._by_player.get(player)
        if codes is not None:
            codes.discard(code)
            if not codes:
                del self._by_player[player]

    def _list(self, code: str, listing: str) -> None:
        key = self._joined[code] << _SERIAL_BITS | self._serial[code]
        self._listing[code] = listing
        self._key[code] = key
        self._codes[key] = code
        bisect.insort(self._keys[listing], key)

    def _unlist(self, code: str) -> None:
        listing = self._listing.pop(code, None)
        if listing is None:
            return
        key = self._key.pop(code)
        del self._codes[key]
        keys = self._keys[listing]
        del keys[bisect.bisect_left(keys, key)]
