"""The registry of every game: find a game class by its key or any alias.

>>> find_game("solitaire").key
'klondike'
>>> [g.key for g in GAMES][:3]
['klondike', 'golf', 'clock']
"""

from __future__ import annotations

import difflib

from engine.core import EngineError, Game
from engine.games.baroness import Baroness
from engine.games.besieged_city import BesiegedCity
from engine.games.bristol import Bristol
from engine.games.calculation import Calculation
from engine.games.canfield import Canfield
from engine.games.chameleon import Chameleon
from engine.games.clock import Clock
from engine.games.double_or_naught import DoubleOrNaught
from engine.games.dutchess import Dutchess
from engine.games.eight_off import EightOff
from engine.games.four_seasons import FourSeasons
from engine.games.friday_13 import Friday13
from engine.games.generals_patience import GeneralsPatience
from engine.games.golf import Golf
from engine.games.idiots_delight import IdiotsDelight
from engine.games.kings_clover import KingsClover
from engine.games.klondike import Klondike
from engine.games.little_spider import LittleSpider
from engine.games.osmosis import Osmosis
from engine.games.penguin import Penguin
from engine.games.perpetual_motion import PerpetualMotion
from engine.games.pyramid import Pyramid
from engine.games.queens_quadrille import QueensQuadrille
from engine.games.scorpion import Scorpion
from engine.games.strategy import Strategy
from engine.games.tournament import Tournament
from engine.games.try_again import TryAgain

__all__ = ["GAMES", "UnknownGame", "find_game"]

#: Every game, in the order `arena games` lists them.
GAMES: tuple[type[Game], ...] = (
    Klondike,
    Golf,
    Clock,
    Baroness,
    IdiotsDelight,
    Pyramid,
    PerpetualMotion,
    Scorpion,
    DoubleOrNaught,
    Friday13,
    Tournament,
    GeneralsPatience,
    BesiegedCity,
    Bristol,
    Calculation,
    Canfield,
    Chameleon,
    Dutchess,
    EightOff,
    FourSeasons,
    KingsClover,
    LittleSpider,
    Osmosis,
    Penguin,
    Strategy,
    TryAgain,
    QueensQuadrille,
)

_BY_NAME = {name: game for game in GAMES for name in (game.key, *game.aliases)}


class UnknownGame(EngineError):
    """No game has that key or alias (code ``unknown_game``)."""


def find_game(name: str) -> type[Game]:
    """The game class registered under ``name`` (a key or alias, any case); raises `UnknownGame`."""
    game = _BY_NAME.get(name.lower().replace("-", "_").replace(" ", "_")) if isinstance(name, str) else None
    if game is None:
        close = difflib.get_close_matches(str(name).lower().replace("-", "_").replace(" ", "_"), _BY_NAME, n=1)
        if close:
            why = f"no game called {name!r}: did you mean {_BY_NAME[close[0]].key!r}?"
        else:
            why = f"no game called {name!r} (games: {', '.join(g.key for g in GAMES)})"
        raise UnknownGame("unknown_game", why, str(name)[:40])
    return game
