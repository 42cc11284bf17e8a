"""The registry of every game: find a game class by its key or any alias.

>>> find_game("solitaire").key
'klondike'
>>> [g.key for g in GAMES][:3]
['klondike', 'golf', 'clock']
"""

from __future__ import annotations

from engine.core import EngineError, Game
from engine.games.clock import Clock
from engine.games.golf import Golf
from engine.games.klondike import Klondike

__all__ = ["GAMES", "UnknownGame", "find_game"]

#: Every game, in the order `arena games` lists them.
GAMES: tuple[type[Game], ...] = (Klondike, Golf, Clock)

_BY_NAME = {name: game for game in GAMES for name in (game.key, *game.aliases)}


class UnknownGame(EngineError):
    """No game has that key or alias (code ``unknown_game``)."""


def find_game(name: str) -> type[Game]:
    """The game class registered under ``name`` (a key or alias, any case); raises `UnknownGame`."""
    game = _BY_NAME.get(name.lower().replace("-", "_").replace(" ", "_")) if isinstance(name, str) else None
    if game is None:
        known = ", ".join(g.key for g in GAMES)
        raise UnknownGame("unknown_game", f"no game called {name!r} (games: {known})", str(name)[:40])
    return game
