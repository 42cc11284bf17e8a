"""`arena whoami` and `arena history`: the CLI keeps one player per server in its config
directory (only the owner may read the file), so every command is the same player, on the same
server and on a new one over the same data directory; `history --json` lists its races."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import time

from client.connection import ArenaClient
from client.identity import KeptPlayers
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig

WINNER = load_catalog(public_catalogs(), "golf")[0]


async def _arena(config_dir, *args: str) -> tuple[int, str]:
    env = os.environ | {"ARENA_CONFIG_DIR": str(config_dir), "ARENA_CACHE_DIR": str(config_dir / "cache")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, err.decode()
    return process.returncode, out.decode()


async def test_whoami_and_history_are_the_same_player_across_commands_and_servers(tmp_path):
    config_dir = tmp_path / "config"
    server_config = {"data_dir": tmp_path / "data", "ping_interval_s": None}
    async with ArenaServer(ServerConfig(**server_config)) as server:
        port = int(server.url.rsplit(":", 1)[1])
        _, out = await _arena(config_dir, "whoami", "--json", "--server", server.url, "--name", "cli ann")
        me = json.loads(out)
        assert me["name"] == "cli ann" and me["player"].startswith("p")
        path = config_dir / "player.json"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        kept = KeptPlayers(path).get(server.url)
        assert kept is not None and kept.player == me["player"] and kept.token not in out
        _, out = await _arena(config_dir, "whoami", "--server", server.url, "--name", "someone else")
        assert out.split("\t") == [me["player"], "cli ann", "guest\n"]

        async with await ArenaClient.connect(server.url, "x", token=kept.token) as ann:  # the CLI's player races
            assert ann.player == me["player"]
            info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
            await ann.start_race(info.code)
            await ann.wait_for(lambda: info.code in ann.started, 10)
            for notation in WINNER.moves:
                assert (await ann.move(info.code, notation)).ok
            await ann.wait_for(lambda: info.code in ann.finished, 10)
        deadline = time.monotonic() + 10
        while server.archiver.races_written < 1:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        _, out = await _arena(config_dir, "history", "--json", "--server", server.url)
        page = json.loads(out)
        assert page["cursor"] is None and page["player"] == me["player"]
        assert [(r["race"], r["place"], r["status"]) for r in page["races"]] == [(info.code, 1, "won")]
        _, out = await _arena(config_dir, "history", "--server", server.url)  # piped: tab-separated
        assert out.splitlines()[0].split("\t")[:3] == ["finished", "race", "game"]
        assert f"/w/{info.code}" in out
    again = ArenaServer(ServerConfig(**server_config))  # a restart: the same URL, the same data
    await again.start(port=port)
    try:
        _, out = await _arena(config_dir, "whoami", "--json", "--server", again.url)
        assert json.loads(out)["player"] == me["player"]
        _, out = await _arena(config_dir, "history", "--json", "--server", again.url)
        assert [r["race"] for r in json.loads(out)["races"]] == [info.code]
    finally:
        await again.close()


async def test_history_tournaments_lists_the_cli_players_tournaments_with_place_and_link(tmp_path):
    """The CLI's player plays a one-deal tournament to its end (as a bot, with the kept token);
    ``arena history --tournaments --json`` lists it with its place and score, the table links its
    results page, and ``arena history --json`` still lists races only."""
    from client.bot import run_tournament_bot
    from tests.server.conftest import FastClock
    from tests.server.test_tournament import ADMIN, SPEED, finished_event, iso_after

    config_dir = tmp_path / "config"
    config = ServerConfig(data_dir=tmp_path / "data", ping_interval_s=None, admin_token=ADMIN, idle_timeout_s=None)
    async with ArenaServer(config, clock=FastClock(SPEED)) as server:
        _, out = await _arena(config_dir, "whoami", "--json", "--server", server.url, "--name", "cli cat")
        me = json.loads(out)
        kept = KeptPlayers(config_dir / "player.json").get(server.url)
        assert kept is not None
        async with await ArenaClient.connect(server.url, "org") as org:
            info = await org.create_tournament(
                ADMIN, "CLI cup", "golf", 1, format="rounds", starts_at=iso_after(server, 60), countdown_s=5
            )
            await org.follow_tournament(info.id)
            async with await ArenaClient.connect(server.url, "x", token=kept.token) as cat:
                await run_tournament_bot(cat, info.id)
                await finished_event(org, info.id)
        deadline = time.monotonic() + 10
        while server.archiver.tournaments_written < 1:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        _, out = await _arena(config_dir, "history", "--tournaments", "--json", "--server", server.url)
        page = json.loads(out)
        assert page["player"] == me["player"] and page["cursor"] is None and "races" not in page
        [line] = page["tournaments"]
        assert (line["tournament"], line["name"], line["place"], line["entrants"], line["deals"]) == (
            info.id,
            "CLI cup",
            1,
            1,
            1,
        )
        assert line["cleared"] > 0 and line["outcome"] == "finished"
        _, out = await _arena(config_dir, "history", "--tournaments", "--server", server.url)  # piped
        assert out.splitlines()[0].split("\t")[:4] == ["ended", "tournament", "name", "game"]
        assert f"/t/{info.id}" in out and "1/1" in out
        _, out = await _arena(config_dir, "history", "--json", "--server", server.url)
        assert [r["status"] for r in json.loads(out)["races"]] and "tournaments" not in json.loads(out)
