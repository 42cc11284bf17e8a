"""The Python client of Patience Arena: a connection that speaks the protocol, a bot, a verifier.

* `client.connection`: `ArenaClient`, one connection to a server (requests, moves, events,
  reconnect), and its errors;
* `client.bot`: a bot that plays from what a player sees (`run_bot`, `choose_move`);
* `client.verify`: `verify_record`, which checks a finished race from its record;
* `client.cli` and the modules it loads per command (`client.output`, `client.race_views`,
  `client.play`, `client.demo`, `client.tournaments`, `client.serving`, `client.solve`,
  `client.simulate`, `client.arguments`): the ``arena`` command.

The names below are imported on first use, not with the package: ``arena --help`` loads
`client.cli` without websockets or the protocol.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from client.connection import ArenaClient, ArenaConnectionError, ArenaError, ArenaTimeout
    from client.verify import VerifyReport, verify_record

__all__ = [
    "ArenaClient",
    "ArenaConnectionError",
    "ArenaError",
    "ArenaTimeout",
    "VerifyReport",
    "verify_record",
]

_HOMES = {
    "ArenaClient": "client.connection",
    "ArenaConnectionError": "client.connection",
    "ArenaError": "client.connection",
    "ArenaTimeout": "client.connection",
    "VerifyReport": "client.verify",
    "verify_record": "client.verify",
}


def __getattr__(name: str) -> object:
    """``client.ArenaClient`` and the other names of `__all__`, imported from their module on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'client' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
