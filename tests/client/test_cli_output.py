"""The listing commands typed in a shell: tab-separated rows when piped, one JSON document with
`--json`; `watch` and `tournament show --follow` stream one line per event as it happens and
follow a tournament through quiet spells; `tournament register --bot` plays and is ranked."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import subprocess
import sys

import pytest
from rich.console import Console

from client.bot import run_bot, run_tournament_bot
from client.connection import ArenaClient, ArenaTimeout
from client.tournaments import _show
from engine.games import GAMES
from server.app import ArenaServer
from server.config import ServerConfig
from tests.server.conftest import FastClock

ADMIN = "organiser-token-for-tests"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "client.cli", *args], capture_output=True, text=True, timeout=60)


async def _arena(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "client.cli", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(process.communicate(), 90)
    return process.returncode or 0, out.decode(), err.decode()


def test_games_piped_is_one_line_per_game_and_json_is_one_document():
    piped = _run("games")
    assert piped.returncode == 0
    lines = piped.stdout.splitlines()
    assert lines[0].split("\t") == ["key", "name", "summary"]
    assert [line.split("\t")[0] for line in lines[1:]] == [g.key for g in GAMES]
    assert all(len(line.split("\t")) == 3 for line in lines)
    assert "Games" in piped.stderr and "━" not in piped.stdout  # the title apart, no box drawing
    data = json.loads(_run("games", "--json").stdout)
    assert [g["key"] for g in data] == [g.key for g in GAMES]
    golf = next(g for g in data if g["key"] == "golf")
    assert golf["cards"] == 35 and golf["options"] == {"queen_on_king": True} and golf["rules_text"]


@pytest.mark.slow
async def test_races_lists_and_watch_streams_each_event_as_it_happens():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        async with await ArenaClient.connect(server.url, "robin") as robin:
            info = await robin.create_race("golf", seed=12, countdown_s=1)
            code, out, _ = await _arena("races", "--server", server.url)
            assert code == 0 and out.splitlines()[0].startswith("code\tgame\tentrants")
            assert out.splitlines()[1].split("\t")[:4] == [info.code, "golf", "1/8", "12"]
            code, out, _ = await _arena("races", "--json", "--server", server.url)
            page = json.loads(out)
            assert [r["code"] for r in page["races"]] == [info.code] and page["cursor"] is None

            watch = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "client.cli",
                "watch",
                info.code,
                "--server",
                server.url,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            as_json = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "client.cli",
                "watch",
                info.code,
                "--json",
                "--server",
                server.url,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            # the first line comes while the race is still open: nothing waits for the end
            first = await asyncio.wait_for(watch.stdout.readline(), 30)
            assert first.decode().strip() == f"golf race {info.code}: open"
            first_json = json.loads(await asyncio.wait_for(as_json.stdout.readline(), 30))
            assert first_json["type"] == "snapshot" and first_json["race"]["code"] == info.code
            assert server.races[info.code].status == "open"

            await robin.start_race(info.code)
            result = await run_bot(robin, info.code, delay_ms=5)
            out, _ = await asyncio.wait_for(watch.communicate(), 30)
            json_out, _ = await asyncio.wait_for(as_json.communicate(), 30)
    assert watch.returncode == 0 and as_json.returncode == 0
    lines = out.decode().splitlines()
    assert lines[0].startswith("starting in 1 s; commitment ") and lines[1] == "running; time limit 900 s"
    moves = [line for line in lines if " s  robin: " in line]
    assert len(moves) == result.moves and moves[-1].endswith(
        f"({result.cleared}/35 cleared, {result.moves} moves, {result.end})"
    )
    finished = lines.index(next(line for line in lines if line.startswith("finished: ")))
    assert lines[finished + 1].split("\t") == ["#", "player", "status", "cleared", "time", "moves"]
    assert lines[finished + 2].split("\t")[1:4] == ["robin", result.end, f"{result.cleared}/35"]
    events = [json.loads(line) for line in json_out.decode().splitlines()]  # after the first line, read above
    assert events[-1]["type"] == "race_finished" and events[-1]["seed"] == 12
    assert {e["type"] for e in events[:-1]} == {"race_starting", "race_started", "progress"}
    assert sum(e["type"] == "progress" for e in events) == result.moves


@pytest.mark.slow
async def test_tournament_commands_list_show_register_a_bot_and_follow():
    async with ArenaServer(ServerConfig(ping_interval_s=None, admin_token=ADMIN)) as server:
        url = ("--server", server.url)
        code, out, err = await _arena(
            "tournament",
            "create",
            "--name",
            "Cup",
            "--game",
            "golf",
            "--deals",
            "2",
            "--in",
            "10",
            "--countdown",
            "1",
            "--break",
            "1",
            "--deal-time-limit",
            "30",
            "--admin-token",
            ADMIN,
            *url,
        )
        assert code == 0, err
        tid = out.split()[-1]
        # The follower and the bot start at once: each command's start-up takes seconds on a busy
        # machine, and both must be in before the first deal starts.
        follow = asyncio.create_task(_arena("tournament", "show", tid, "--follow", *url))
        register = asyncio.create_task(_arena("tournament", "register", tid, "--name", "robin", "--bot", *url))
        code, out, _ = await _arena("tournament", "list", "--json", *url)
        assert [t["id"] for t in json.loads(out)] == [tid]
        code, out, _ = await _arena("tournament", "list", *url)
        assert out.splitlines()[1].split("\t")[:5] == [tid, "Cup", "golf", "rounds", "2"]

        (code, out, err), (reg_code, reg_out, reg_err) = await asyncio.gather(follow, register)
        assert code == 0 and reg_code == 0, err + reg_out + reg_err
        code, shown, _ = await _arena("tournament", "show", tid, "--json", *url)
    assert "already" not in reg_out + reg_err and [line.split(":")[0] for line in reg_out.splitlines()[1:]] == [
        "deal 1",
        "deal 2",
    ]
    lines = out.splitlines()
    kinds = [line.split("  ")[2] for line in lines if line.startswith("20")]
    assert kinds[-1].startswith("finished; leader robin")  # "starting" may come before the follower is in
    assert sum(k.startswith("deal started") for k in kinds) == 2 and sum(k.startswith("deal ended") for k in kinds) == 2
    header = lines.index("#\tplayer\tstatus\tcleared\ttime\tdeal 1\tdeal 2")
    robin = lines[header + 1].split("\t")
    assert robin[1] == "robin" and robin[2] != "absent"
    data = json.loads(shown)
    standing = data["standings"][0]
    assert data["tournament"]["status"] == "finished" and standing["name"] == "robin"
    assert len(standing["deals"]) == 2 and standing["cleared"] == sum(d["cleared"] for d in standing["deals"])
    assert robin[3] == str(standing["cleared"])


@pytest.mark.slow
async def test_follow_goes_on_through_a_quiet_minute():
    """A minute of tournament time with no event (the wait before the start), on a clock running
    20 times faster, while the follower counts a quiet spell every 0.1 s: it keeps following and
    prints the final standings."""
    clock = FastClock(20)
    async with ArenaServer(ServerConfig(ping_interval_s=None, admin_token=ADMIN), clock=clock) as server:
        async with (
            await ArenaClient.connect(server.url, "org") as org,
            await ArenaClient.connect(server.url, "robin") as robin,
        ):
            starts = dt.datetime.fromtimestamp(clock.wall_ms() / 1000 + 60, dt.UTC).isoformat()
            info = await org.create_tournament(
                ADMIN, "Quiet cup", "golf", 1, starts_at=starts, countdown_s=1, deal_time_limit_s=600
            )
            quiet = 0
            next_event = org.next_event

            async def counting(timeout_s: float | None = None):
                nonlocal quiet
                try:
                    return await next_event(timeout_s)
                except ArenaTimeout:
                    quiet += 1
                    raise

            org.next_event = counting  # type: ignore[method-assign]
            player = asyncio.create_task(run_tournament_bot(robin, info.id))
            out = io.StringIO()
            await asyncio.wait_for(
                _show(org, info.id, follow=True, console=Console(file=out, width=200), quiet_s=0.1), 60
            )
            results = await player
    assert quiet >= 10, quiet
    header, row = out.getvalue().splitlines()[-2:]
    assert header == "#\tplayer\tstatus\tcleared\ttime\tdeal 1"
    assert row.split("\t")[:4] == ["1", "robin", "finished", str(results[0].cleared)]
    assert len(results) == 1 and server.tournaments[info.id].status == "finished"


@pytest.mark.slow
def test_simulate_and_catalog_have_json_and_piped_rows(tmp_path):
    done = _run("simulate", "golf", "clock", "--deals", "6", "--workers", "1", "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert [r["game"] for r in rows] == ["golf", "clock"] and all(r["deals"] == 6 for r in rows)
    assert all(0 <= r["wins"] <= 6 and r["win_share"] == r["wins"] / 6 for r in rows)
    piped = _run("simulate", "golf", "--deals", "6", "--workers", "1").stdout.splitlines()
    assert piped[0].split("\t")[:3] == ["game", "rules text", "won"] and piped[1].startswith("golf\t")

    done = _run("catalog", "golf", "--count", "2", "--dir", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr
    public = json.loads(done.stdout)
    assert public["added"] == 2 and len(public["seeds"]) == 2 and public["private"] is False
    assert all(f"{seed}:" in (tmp_path / "golf.txt").read_text() for seed in public["seeds"])
    done = _run("catalog", "golf", "--count", "1", "--private", str(tmp_path / "secret"), "--json")
    secret = json.loads(done.stdout)
    assert secret["added"] == 1 and secret["private"] is True and "seeds" not in secret
