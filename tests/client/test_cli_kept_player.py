"""The commands a person runs as themselves (`arena create`, `start`, `play`, `bot --as-me`) are
the player the CLI keeps (client/identity.py), typed as a person would, each a process of its
own: `start` proves the creator of the race `create` made, `history` lists the race `play`
played, `--name` renames the kept player; each plain `arena bot` is a fresh entrant; a server that
forgot the kept token gets a new player, kept from then on."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import pytest

from client.identity import KeptPlayer, KeptPlayers, identity_path
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig

WINNER = load_catalog(public_catalogs(), "golf")[0]


async def _arena(*args: str, stdin: str | None = None) -> str:
    """Run ``arena ARGS`` (stdin: the lines typed, piped); its output once it exited 0."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        *args,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(process.communicate(stdin.encode() if stdin is not None else None), 90)
    assert process.returncode == 0, out.decode()
    return out.decode()


async def _wait(condition, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_a_race_created_started_and_played_from_the_cli_is_in_the_kept_players_history(tmp_path):
    async with ArenaServer(ServerConfig(data_dir=tmp_path / "data", ping_interval_s=None)) as server:
        url = ("--server", server.url)
        me = json.loads(await _arena("whoami", "--json", "--name", "ann", *url))
        out = await _arena("create", "--game", "golf", "--seed", str(WINNER.seed), "--countdown", "0", "--join", *url)
        code = out.split()[-1]
        assert "--token" not in out and f"arena play {code} --server" in out
        assert [e.player for e in server.races[code].entrants.values()] == [me["player"]]
        assert "starts in 0 s with 1 entrants" in await _arena("start", code, *url)  # the creator, as kept
        out = await _arena("play", code, "--no-collect", *url, stdin="\n".join(WINNER.moves) + "\n")
        assert f"ann is in race {code} already" in out and "Won" in out
        await _wait(lambda: server.archiver.races_written >= 1)
        page = json.loads(await _arena("history", "--json", *url))
    assert page["player"] == me["player"]
    assert [(r["race"], r["place"], r["status"]) for r in page["races"]] == [(code, 1, "won")]


@pytest.mark.slow
async def test_two_bots_are_two_fresh_entrants_and_bot_as_me_is_the_kept_player_renamed():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        url = ("--server", server.url)
        me = json.loads(await _arena("whoami", "--json", "--name", "ann", *url))
        code = (await _arena("create", "--game", "golf", "--seed", "12", "--countdown", "0", *url)).split()[-1]
        bots = [
            await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "client.cli",
                "bot",
                "--race",
                code,
                "--name",
                name,
                *url,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            for name in ("robin", "wren")
        ]
        race = server.races[code]
        await _wait(lambda: len(race.entrants) == 2)
        out = await _arena("bot", "--race", code, "--as-me", "--name", "cat", "--start", *url)
        assert f"cat joined race {code}" in out
        for bot in bots:
            assert await asyncio.wait_for(bot.wait(), 60) == 0
        entrants = {e.name: e.player for e in race.entrants.values()}
        assert set(entrants) == {"robin", "wren", "cat"} and entrants["cat"] == me["player"]
        assert len({entrants["robin"], entrants["wren"], me["player"]}) == 3
        again = json.loads(await _arena("whoami", "--json", *url))
        kept = KeptPlayers(identity_path()).get(server.url)
    assert (again["player"], again["name"]) == (me["player"], "cat")
    assert kept is not None and (kept.player, kept.name) == (me["player"], "cat")


async def test_a_server_that_forgot_the_kept_token_gets_a_new_player_kept_from_then_on():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        players = KeptPlayers(identity_path(os.environ))
        players.save(server.url, KeptPlayer(player="p000000000000", name="ann", token="forgotten"))
        out = await _arena("create", "--game", "golf", "--name", "bea", "--server", server.url)
        code = out.split()[-1]
        kept = players.get(server.url)
        assert kept is not None and kept.name == "bea" and kept.token != "forgotten"
        assert server.races[code].creator == kept.player


async def test_tournament_register_enters_the_kept_player():
    async with ArenaServer(ServerConfig(ping_interval_s=None, admin_token="s3cret")) as server:
        url = ("--server", server.url)
        me = json.loads(await _arena("whoami", "--json", "--name", "ann", *url))
        tid = (
            await _arena(
                "tournament",
                "create",
                "--name",
                "Cup",
                "--game",
                "golf",
                "--in",
                "600",
                "--admin-token",
                "s3cret",
                *url,
            )
        ).split()[-1]
        out = await _arena("tournament", "register", tid, "--name", "bea", *url)
        assert f"bea registered for {tid}" in out
        [tournament] = server.tournaments.values()
        assert list(tournament.entrants) == [me["player"]] and tournament.info().registered == ["bea"]
