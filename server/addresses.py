"""The key a client's address is counted under, for every limit per address: `address_key`.

One person with an IPv6 connection usually holds a whole /64 (a home's or a server's prefix), and
can pick a new address in it for every connection; one with IPv4 holds one address. So every limit
per address (connections, races created an hour, players kept) counts an IPv6 address by its /64,
an IPv4 address as it is, and an IPv4-mapped IPv6 address (``::ffff:192.0.2.1``, what a dual-stack
socket reports for an IPv4 client) as the IPv4 address. Anything that is not an IP address (an
empty peer name, a Unix socket's path) is its own key.

>>> address_key("192.0.2.1"), address_key("::ffff:192.0.2.1")
('192.0.2.1', '192.0.2.1')
>>> address_key("2001:db8:1:2:3:4:5:6"), address_key("2001:DB8:1:2::9%eth0")
('2001:db8:1:2::/64', '2001:db8:1:2::/64')
>>> address_key("not an address")
'not an address'
"""

from __future__ import annotations

import functools
import ipaddress

__all__ = ["IPV6_PREFIX", "address_key"]

#: The length of the IPv6 prefix one client is taken to hold, in bits.
IPV6_PREFIX = 64


@functools.lru_cache(maxsize=4096)
def address_key(address: str) -> str:
    """The key ``address`` (an IPv4 or IPv6 address as text, a zone such as ``%eth0`` allowed) is
    counted under: IPv4 as it is, IPv6 as its /64 network (``2001:db8:1:2::/64``), IPv4-mapped IPv6
    as the IPv4 address; any other text as it is. Costs a few microseconds the first time an
    address is seen (the last 4,096 are remembered). Raises nothing."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.IPv6Network((int(ip) >> (128 - IPV6_PREFIX) << (128 - IPV6_PREFIX), IPV6_PREFIX)))
