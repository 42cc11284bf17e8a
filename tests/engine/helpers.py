"""Helpers shared by the engine's game tests."""

import pytest

from engine.core import Game, IllegalMove


def refused(game: Game, text: str) -> str:
    """Play ``text``, expect a refusal, check nothing changed, and return the error code."""
    before = game.position()
    with pytest.raises(IllegalMove) as info:
        game.apply(text)
    assert game.position() == before
    return info.value.code
