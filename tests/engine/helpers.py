"""Helpers shared by the engine's game tests."""

import pytest

from engine.core import Game, IllegalMove


def refusal_of(game: Game, text: str) -> IllegalMove:
    """Play ``text``, expect a refusal, check nothing changed, and return the refusal."""
    before = game.position()
    with pytest.raises(IllegalMove) as info:
        game.apply(text)
    assert game.position() == before
    return info.value


def refused(game: Game, text: str) -> str:
    """The error code of refused move ``text`` (`refusal_of`)."""
    return refusal_of(game, text).code


def refusal(game: Game, text: str) -> str:
    """The reason of refused move ``text`` (`refusal_of`), in a player's words."""
    return refusal_of(game, text).reason
