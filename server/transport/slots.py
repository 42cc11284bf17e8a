"""The server's connection slots, counted per address key: `Slots`.

Every accepted socket holds a slot from the moment it is accepted until it is gone: the whole
server has ``max_connections``, and one address key (`server.addresses.address_key`: an IPv4
address, an IPv6 /64) holds at most ``max_connections_per_ip`` of them. When the server lowers
``max_connections`` at start to fit its open-files limit, it lowers ``max_connections_per_ip``
to `ADDRESS_SHARE`'s share of it too (`address_share`), so that a handful of addresses cannot
take every slot.

When the server is full, a newcomer whose address holds at least two slots fewer than the address
holding the most may take one of that address's slots (`Slots.crowding` names the addresses
holding the most; the server picks and closes the connection, `server.app.ArenaServer.admit`).
The addresses holding the most are found in O(1): the keys are kept in sets by how many slots
they hold.

>>> from server.config import ServerConfig
>>> slots = Slots(ServerConfig(max_connections=16, max_connections_per_ip=2))
>>> [slots.admit(object(), "10.0.0.1") for _ in range(3)]
[True, True, False]
>>> slots.by_address["10.0.0.1"], slots.crowding("10.0.0.2"), slots.crowding("10.0.0.1"), address_share(959)
(2, ['10.0.0.1'], [], 119)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from server.config import ServerConfig

__all__ = ["ADDRESS_SHARE", "Slots", "address_share"]

#: When the open-files limit lowers ``max_connections``, one address key may hold at most
#: ``max_connections // ADDRESS_SHARE`` slots (at least one).
ADDRESS_SHARE = 8


def address_share(max_connections: int) -> int:
    """The slots one address key may hold once ``max_connections`` was lowered to fit the
    open-files limit: `ADDRESS_SHARE`'s share of them, at least 1."""
    return max(1, max_connections // ADDRESS_SHARE)


class Slots:
    """The slots of ``config.max_connections`` connections, at most `per_address` per address
    key; the ``config.trusted_proxies`` (whose clients are counted under their own addresses once
    forwarded) have no limit of their own and are never `crowding`. The limits are read from
    ``config`` at each use: a change there takes effect at once.

    ``connections``: slots held, the keys' and the exempt ones'; ``by_address``: slots held per
    key (no entry for a key holding none)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.exempt = frozenset(config.trusted_proxies)
        self.connections = 0
        self.by_address: Counter[str] = Counter()
        self._holders: dict[str, set[Hashable]] = {}  # key -> its connections
        self._keys_holding: dict[int, set[str]] = {}  # n -> the keys (not exempt) holding n slots
        self._most = 0  # the most slots a key (not exempt) holds

    @property
    def per_address(self) -> int:
        """Slots one address key may hold (``max_connections_per_ip``, at least 1)."""
        return max(1, self.config.max_connections_per_ip)

    @property
    def full(self) -> bool:
        """True when every slot of the server is held."""
        return self.connections >= self.config.max_connections

    def admit(self, conn: Hashable, key: str, *, check_total: bool = True) -> bool:
        """Give ``conn`` a slot under ``key``; False (nothing held) if ``key`` holds its share
        already or (``check_total``) the server is full. ``check_total`` False: ``conn`` holds a
        slot of the server already and moves to ``key`` (a proxy's client, `release` of the
        proxy's key with ``total`` False follows)."""
        held = self.by_address[key] if key in self.by_address else 0
        if key not in self.exempt and held >= self.per_address:
            return False
        if check_total:
            if self.full:
                return False
            self.connections += 1
        self.by_address[key] = held + 1
        self._holders.setdefault(key, set()).add(conn)
        if key not in self.exempt:
            self._move(key, held, held + 1)
        return True

    def release(self, conn: Hashable, key: str, *, total: bool = True) -> None:
        """``conn`` gives its slot under ``key`` back (``total``: the server's slot too)."""
        holders = self._holders.get(key)
        if holders is None or conn not in holders:
            return
        holders.discard(conn)
        if total:
            self.connections -= 1
        held = self.by_address[key]
        if held > 1:
            self.by_address[key] = held - 1
        else:
            del self.by_address[key]
            del self._holders[key]
        if key not in self.exempt:
            self._move(key, held, held - 1)

    def crowding(self, key: str, at_most: int = 8) -> list[str]:
        """Up to ``at_most`` of the keys holding the most slots, if they hold at least two more
        than ``key`` would after one more (so that taking one of their slots for ``key`` leaves
        them no poorer than ``key``), else none. O(at_most)."""
        if not self._most or self.by_address.get(key, 0) + 2 > self._most:
            return []
        keys = self._keys_holding[self._most]
        return list(keys) if len(keys) <= at_most else [k for k, _ in zip(keys, range(at_most))]

    def holders(self, key: str) -> set[Hashable]:
        """The connections holding slots under ``key`` (do not change the set)."""
        return self._holders.get(key, set())

    def _move(self, key: str, old: int, new: int) -> None:
        if old:
            keys = self._keys_holding[old]
            keys.discard(key)
            if not keys:
                del self._keys_holding[old]
        if new:
            self._keys_holding.setdefault(new, set()).add(key)
        if new > self._most:
            self._most = new
        elif old == self._most and old not in self._keys_holding:
            self._most = new  # counts move by one: the key that was alone at the top is next
