"""`arena games` lists every registered game; bad usage exits with code 2."""

from __future__ import annotations

import pytest

from client.cli import main
from engine.games import GAMES


def test_games_lists_every_registered_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for game in GAMES:
        assert game.key in out
        assert game.name in out


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([])
    assert exc.value.code == 2


def test_create_refuses_a_malformed_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["create", "--game", "golf", "--option", "queen_on_king"])
    assert exc.value.code == 2
    assert "NAME=true" in capsys.readouterr().err
