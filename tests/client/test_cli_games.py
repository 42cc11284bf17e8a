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


def test_simulate_prints_the_bots_wins_beside_the_texts_odds(capsys):
    from client.cli import main

    assert main(["simulate", "golf", "--deals", "6", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "golf" in out and "/6" in out and "40 to 1" in out


def test_the_win_share_of_quoted_odds():
    from client.simulate import odds_share, simulate

    assert odds_share("25 to 1") == 1 / 26 and odds_share("") is None
    result = simulate("clock", 4, first_seed=10, workers=1)
    assert [o.seed for o in result.outcomes] == [10, 11, 12, 13]
    assert result.outcomes[0].won, "Clock seed 10 is won by turning alone"
