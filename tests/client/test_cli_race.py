"""`arena create` prints the commands to go on with; typed as printed, they work: as the player
the CLI keeps (no token printed), or, where it can keep none, with a session token, even one that
starts with a dash (token_urlsafe makes one about one time in 64)."""

from __future__ import annotations

import asyncio
import shlex
import sys

import server.handlers.players as players
from client.connection import ArenaClient
from server.app import ArenaServer
from server.config import ServerConfig


async def _arena(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client.cli", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode, out.decode()


async def test_the_printed_start_command_works_with_a_token_that_starts_with_a_dash(monkeypatch, tmp_path):
    made = iter(range(10**6))
    monkeypatch.setattr(players.secrets, "token_urlsafe", lambda n: f"-dash{next(made):027d}")
    (tmp_path / "file").write_text("")  # a config folder that cannot be made: no kept player,
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(tmp_path / "file" / "config"))  # so the token is printed
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        code, out = await _arena("create", "--game", "golf", "--seed", "12", "--server", server.url)
        assert code == 0, out
        start = next(line for line in out.splitlines() if line.startswith("Start it:")).split(":", 1)[1]
        words = shlex.split(start)
        assert words[0] == "arena" and "--token=-dash" in start
        race_code = next(line for line in out.splitlines() if line.startswith("Race ")).split()[1]
        async with await ArenaClient.connect(server.url, "robin") as robin:
            await robin.join_race(race_code)
            code, out = await _arena(*words[1:])
        assert code == 0, out
        race = server.races[out.split()[1]]
        assert race.status in ("starting", "running") and "starts in" in out


async def test_the_printed_start_command_runs_as_the_kept_player_without_a_token():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        code, out = await _arena("create", "--game", "golf", "--seed", "12", "--server", server.url)
        assert code == 0, out
        start = next(line for line in out.splitlines() if line.startswith("Start it:")).split(":", 1)[1]
        assert "--token" not in out and shlex.split(start)[:2] == ["arena", "start"]
        race_code = next(line for line in out.splitlines() if line.startswith("Race ")).split()[1]
        async with await ArenaClient.connect(server.url, "robin") as robin:
            await robin.join_race(race_code)
            code, out = await _arena(*shlex.split(start)[1:])
        assert code == 0, out
        assert server.races[race_code].status in ("starting", "running") and "starts in" in out
