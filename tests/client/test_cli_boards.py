"""`arena leaderboard` and `arena profile`: a rated race's board and a player's profile, as JSON
read back into the protocol's types, and as a table."""

from __future__ import annotations

import json

import msgspec
import pytest

from client.connection import ArenaClient
from server.app import ArenaServer
from server.config import ServerConfig
from server.protocol import GameStats, HistoryRace, LeaderboardRow, RatingPoint
from tests.client.test_cli_identity import _arena
from tests.server.test_rated_races import _race


@pytest.mark.slow
async def test_arena_leaderboard_and_profile_json(tmp_path):
    config_dir = tmp_path / "config"
    config = ServerConfig(data_dir=tmp_path / "data", ping_interval_s=None, password_per_s=20.0)
    async with ArenaServer(config) as server:
        alice = await ArenaClient.connect(server.url, "alice")
        bob = await ArenaClient.connect(server.url, "bob")
        async with alice, bob:
            await alice.claim("correct horse battery")
            await bob.claim("correct horse battery")
            await _race(server, alice, bob)
        _, out = await _arena(config_dir, "leaderboard", "golf", "--json", "--server", server.url)
        page = json.loads(out)
        rows = msgspec.convert(page["rows"], list[LeaderboardRow])
        assert (page["game"], page["board"], page["cursor"]) == ("golf", "rating", None)
        assert [row.name for row in rows] == ["alice", "bob"] and rows[0].rating > rows[1].rating
        _, out = await _arena(config_dir, "profile", "Alice", "--json", "--server", server.url)
        found = json.loads(out)
        games = msgspec.convert(found["games"], list[GameStats])
        points = msgspec.convert(found["rating_history"], list[RatingPoint])
        recent = msgspec.convert(found["recent"], list[HistoryRace])
        assert (found["name"], found["claimed"]) == ("alice", True)
        assert [(g.game, g.played, g.rating) for g in games] == [("golf", 1, rows[0].rating)]
        assert [p.rating for p in points] == [rows[0].rating] and len(recent) == 1
        _, out = await _arena(config_dir, "leaderboard", "golf", "--server", server.url)  # piped: tab-separated
        assert out.splitlines()[0].split("\t") == ["name", "rating", "races"] and "alice" in out


async def test_arena_create_rated_makes_a_rated_race(tmp_path):
    """`arena create --rated` asks for a rated race on a secret deal; the server says so."""
    config = ServerConfig(data_dir=tmp_path / "data", ping_interval_s=None)
    async with ArenaServer(config) as server:
        _, out = await _arena(tmp_path / "config", "create", "--game", "golf", "--rated", "--server", server.url)
        code = out.split()[1]
        assert server.races[code].info().rated is True
        _, out = await _arena(tmp_path / "config", "create", "--game", "golf", "--server", server.url)
        assert server.races[out.split()[1]].info().rated is False
