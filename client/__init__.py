"""The Python client of Patience Arena: a connection that speaks the protocol, a bot, a verifier.

* `client.connection`: `ArenaClient`, one connection to a server (requests, moves, events,
  reconnect), and its errors;
* `client.bot`: a bot that plays from what a player sees (`run_bot`, `choose_move`);
* `client.verify`: `verify_record`, which checks a finished race from its record;
* `client.cli` and `client.demo`: the ``arena`` command.
"""

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
