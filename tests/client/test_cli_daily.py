"""`arena daily`: today's daily deals with the kept player's attempt and streak, and one game's
results of the day, as JSON and as a table."""

from __future__ import annotations

import json

from client.connection import ArenaClient
from client.identity import KeptPlayers
from server.app import ArenaServer
from server.config import ServerConfig
from tests.client.test_cli_identity import _arena


async def test_arena_daily_lists_todays_deals_and_a_games_results(tmp_path):
    config_dir = tmp_path / "config"
    async with ArenaServer(ServerConfig(ping_interval_s=None, daily_secret="x")) as server:
        _, out = await _arena(config_dir, "whoami", "--json", "--server", server.url, "--name", "cli cat")
        kept = KeptPlayers(config_dir / "player.json").get(server.url)
        async with await ArenaClient.connect(server.url, "x", token=kept.token) as cat:
            race = await cat.play_daily("golf")
            await cat.wait_for(lambda: race.code in cat.started, timeout_s=5)
            await cat.resign(race.code)
        _, out = await _arena(config_dir, "daily", "--json", "--server", server.url)
        today = json.loads(out)
        golf = next(d for d in today["deals"] if d["game"] == "golf")
        assert golf["mine"]["race"] == race.code and golf["commitment"] == server.races[race.code].commitment
        assert today["streak"] == {"current": 1, "best": 1} and today["results"] == []
        _, out = await _arena(config_dir, "daily", "golf", "--json", "--server", server.url)
        [line] = json.loads(out)["results"]
        assert (line["name"], line["status"]) == ("cli cat", "resigned")
        _, out = await _arena(config_dir, "daily", "golf", "--server", server.url)  # piped: tab-separated
        assert out.splitlines()[0].split("\t") == ["place", "name", "cleared", "time", "status"]
        assert "cli cat" in out
