"""`arena bench`: each benchmark runs against its own server process and reports sane figures.

These are smoke tests with tiny numbers; the figures themselves come from running the benchmarks
(`tooling.bench`), never from timed tests.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import time
from pathlib import Path

import pytest
from rich.console import Console

from client.connection import ArenaClient
from engine.games import GAMES
from server.catalog import load_catalog, public_catalogs
from server.protocol import Progress, RaceFinished
from tooling.bench import add_bench_arguments, percentile, run_bench
from tooling.loadgen import load_warnings
from tooling.server_process import ServerProcess, ServerProcessError


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="arena bench")
    add_bench_arguments(parser.add_subparsers(dest="bench", required=True))
    return parser.parse_args(argv)


def _console() -> Console:
    return Console(file=io.StringIO(), width=160)


async def test_listing_pages_through_every_open_race_once_and_costs_server_cpu(tmp_path: Path) -> None:
    """20 open races, 7 a page: three pages hold every race once; each request costs some CPU."""
    out = tmp_path / "listing.json"
    console = _console()
    args = _parse(
        ["listing", "--races", "20", "--requests", "300", "--limit", "7", "--connections", "3", "--json", str(out)]
    )
    assert await run_bench(args, console) == 0
    (row,) = json.loads(out.read_text())
    assert row["open_races"] == 20 and row["requests"] == 300
    assert row["every_race_once"] is True
    assert row["races_listed"] == 20 and row["pages"] == 3
    assert row["cpu_ms_per_request"] > 0
    assert 0 < row["latency_p50_ms"] <= row["latency_p99_ms"]
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert "CPU ms / list_races" in printed and "fixed cost of a request" in printed


async def test_memory_server_forgets_every_race_and_player_after_the_retention_time(tmp_path: Path) -> None:
    """50 open races expire after 1 s and leave memory 1 s later; their players go too."""
    out = tmp_path / "memory.json"
    args = _parse(
        [
            "memory",
            "--races",
            "50",
            "--open-race-ttl-s",
            "1",
            "--race-retention-s",
            "1",
            "--player-retention-s",
            "1",
            "--sweep-interval-s",
            "0.2",
            "--connections",
            "3",
            "--json",
            str(out),
        ]
    )
    assert await run_bench(args, _console()) == 0
    figures = json.loads(out.read_text())
    assert figures["baseline"]["races"] == 0 and figures["baseline"]["rss_mib"] > 0
    peak, after = figures["peak"], figures["after"]
    assert (peak["races"], peak["players"], peak["sessions"]) == (50, 3, 3)
    assert (after["races"], after["players"], after["sessions"]) == (0, 0, 0)
    assert figures["emptied_after_s"] >= 1.0, "the last races stay a retention time after they expire"
    assert figures["creation_rate_per_s"] > 0
    assert figures["kib_per_race"] == pytest.approx(
        (figures["peak"]["rss_mib"] - figures["baseline"]["rss_mib"]) * 1024 / 50
    )


async def test_a_server_that_cannot_start_is_reported_with_its_output() -> None:
    """A bad flag makes `arena serve` exit with code 2; the error quotes its complaint."""
    with pytest.raises(ServerProcessError) as caught:
        async with ServerProcess({"max_moves": -1}):
            pass
    assert "exited with code 2" in caught.value.reason
    assert "at least 0" in caught.value.reason


async def test_the_server_process_is_stopped_even_when_the_benchmark_fails() -> None:
    """The child server is terminated and reaped when the body of `async with` raises."""
    with pytest.raises(RuntimeError):
        async with ServerProcess({}) as server:
            pid = server.pid
            assert (await server.health())["status"] == "ok"
            assert server.cpu_s() > 0 and server.rss_mib() > 1
            raise RuntimeError("benchmark failed")
    assert not Path(f"/proc/{pid}").exists()


def test_percentile_is_the_nearest_rank() -> None:
    samples = [float(n) for n in range(1, 101)]
    assert percentile(samples, 50) == 50.0
    assert percentile(samples, 99) == 99.0
    assert percentile(samples, 100) == 100.0
    assert percentile([7.0], 99) == 7.0


def test_bad_race_counts_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert _parse(["listing", "--races", "100,30_000"]).races == [100, 30_000]
    for bad in ("0", "ten", ""):
        with pytest.raises(SystemExit) as exc:
            _parse(["listing", "--races", bad])
        assert exc.value.code == 2
    with pytest.raises(SystemExit):
        _parse(["listing", "--limit", "101"])
    assert "1 to 100" in capsys.readouterr().err


async def test_load_plays_races_and_measures_acks_delivery_and_server_cpu(tmp_path: Path) -> None:
    """2 races of 2 entrants and 1 spectator for 3 s: every offered move is acknowledged, the
    spectators measure delivery, the server's CPU and memory are read, and nothing fails."""
    out = tmp_path / "load.json"
    console = _console()
    args = _parse(
        [
            "load",
            "--races",
            "2",
            "--entrants",
            "2",
            "--spectators",
            "1",
            "--rate",
            "5",
            "--warmup",
            "1",
            "--duration",
            "3",
            "--json",
            str(out),
        ]
    )
    assert await run_bench(args, console) == 0
    figures = json.loads(out.read_text())
    assert figures["clients_held"] == 6
    assert figures["server_connections"] >= 6, "the server counts them too, mid-window (and sockets closing, if any)"
    assert figures["offered_moves_per_s"] == 20
    assert figures["moves_acked_per_s"] > 10, "most offered moves are acknowledged within the window"
    assert 0 < figures["ack_p50_ms"] <= figures["ack_p95_ms"] <= figures["ack_p99_ms"] <= figures["ack_max_ms"]
    assert figures["spectator_samples"] > 0
    assert -5 < figures["spectator_p50_ms"] <= figures["spectator_p99_ms"] < 2000
    assert figures["staleness_samples"] > 20, "a spectator sampled every 0.1 s over 3 s"
    assert 0 <= figures["staleness_p50_ms"] <= figures["staleness_p99_ms"] < 2000
    assert figures["server_cpu_us_per_move"] > 0 and figures["server_cpu_cores"] > 0
    assert 0 <= figures["server_system_share"] <= 1, "the kernel's part of the server's CPU"
    assert figures["rss_kib_per_connection"] is not None
    assert figures["frames_per_s"] > figures["moves_acked_per_s"] and figures["bytes_per_s"] > 0
    # a move: the mover's answer and standings (one write), the other entrant's standings and the
    # spectator's event; a little more for the races that end and start again in the window, and a
    # little less when the server is busy (on a loaded machine an entrant's standings wait and merge
    # with the next: server/transport/fanout.py)
    assert 3.5 <= figures["server_frames_per_move"] < 5
    assert 2.5 <= figures["server_writes_per_move"] < 4
    assert figures["errors"] == 0 and figures["refused"] == figures["timeouts"] == figures["closed"] == 0
    assert len(figures["load_cpu_cores"]) == 1 and figures["generator_limited"] is False
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert "moves/s acknowledged" in printed and "same machine" in printed
    assert "socket writes per accepted move" in printed


async def test_load_reports_how_late_a_busy_servers_fan_out_ticks_were_written(tmp_path: Path) -> None:
    """Against a server whose fan-out tick is always on (``fanout_busy_share`` 0), named with
    ``--server`` and ``--server-pid``, the figures give how late its ticks' batches were written,
    from its ``/metrics``: a p50 at or under the p99, under the spectators' own delivery p99
    (which adds the tick itself), and a row of the printed table."""
    out = tmp_path / "load.json"
    console = _console()
    async with ServerProcess({"par_workers": 0, "fanout_busy_share": 0.0}) as server:
        assert server.process is not None
        args = _parse(
            [
                "load",
                "--races",
                "2",
                "--entrants",
                "2",
                "--spectators",
                "2",
                "--rate",
                "5",
                "--warmup",
                "1",
                "--duration",
                "2",
                "--json",
                str(out),
                "--server",
                server.url,
                "--server-pid",
                str(server.process.pid),
            ]
        )
        assert await run_bench(args, console) == 0
    figures = json.loads(out.read_text())
    assert figures["errors"] == 0 and figures["spectator_samples"] > 0
    p50, p99 = figures["server_fanout_delay_p50_ms"], figures["server_fanout_delay_p99_ms"]
    assert p50 is not None and 0 <= p50 <= p99 <= 1000
    assert p50 < figures["spectator_p99_ms"], "a spectator waits the tick as well"
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert "fan-out tick's writes late p50 / p99, ms" in printed


async def test_load_over_redis_spreads_each_race_over_two_nodes(tmp_path: Path) -> None:
    """--redis local --nodes 2: a private redis-server and two nodes; each race's entrants and
    spectators alternate between the nodes, so both serve connections and half of the moves are
    forwarded to the race's node; every move is acknowledged, nothing fails, and each node's CPU
    is read (the nodes' figures add up to the total)."""
    out = tmp_path / "nodes.json"
    console = _console()
    args = _parse(
        [
            "load",
            "--redis",
            "local",
            "--nodes",
            "2",
            "--races",
            "2",
            "--entrants",
            "2",
            "--spectators",
            "2",
            "--rate",
            "5",
            "--warmup",
            "1",
            "--duration",
            "3",
            "--json",
            str(out),
        ]
    )
    assert await run_bench(args, console) == 0
    figures = json.loads(out.read_text())
    assert figures["store"] == "redis" and figures["redis"].startswith("a private redis-server")
    nodes = figures["nodes"]
    assert [node["node"] for node in nodes] == ["node1", "node2"]
    assert len({node["url"] for node in nodes}) == 2
    for node in nodes:
        assert node["clients"] == 4, "2 races x 4 connections, alternating between the nodes"
        assert node["server_connections"] >= 4
        assert node["cpu_us_per_move"] > 0 and node["cpu_cores"] > 0
    assert figures["server_cpu_us_per_move"] == pytest.approx(sum(node["cpu_us_per_move"] for node in nodes))
    assert figures["redis_cpu_cores"] is not None
    assert figures["clients_held"] == 8 and figures["offered_moves_per_s"] == 20
    assert figures["moves_acked_per_s"] > 10, "most offered moves are acknowledged within the window"
    assert 0.3 < figures["moves_forwarded_share"] < 0.7, "the second entrant of each race is on the other node"
    assert 0 < figures["ack_local_p50_ms"] and 0 < figures["ack_forwarded_p50_ms"]
    assert figures["spectator_local_p50_ms"] is not None and figures["spectator_forwarded_p50_ms"] is not None
    assert figures["errors"] == 0 and figures["refused"] == figures["timeouts"] == figures["closed"] == 0
    printed = console.file.getvalue()  # type: ignore[attr-defined]
    assert "2 (node1, node2), redis" in printed and "node2: clients" in printed


def test_load_refuses_nodes_without_redis_and_redis_with_a_server(capsys: pytest.CaptureFixture[str]) -> None:
    """Several nodes share one Redis; --redis starts servers, so it cannot go with --server."""
    for argv in (
        ["--nodes", "2"],
        ["--redis", "local", "--server", "ws://127.0.0.1:1"],
        ["--server", "ws://127.0.0.1:1", "--server", "ws://127.0.0.1:2", "--server-pid", "1"],
    ):
        assert asyncio.run(run_bench(_parse(["load", *argv]), console := _console())) == 2
        assert "error:" in console.file.getvalue()  # type: ignore[attr-defined]
    assert _parse(["load", "--server-cpu", "0"]).server_cpu == (0,)


async def test_progress_events_carry_the_server_wall_clock() -> None:
    """A spectator's progress event and race_finished carry server_ms, the server's Unix epoch
    milliseconds: within a few seconds of ours, on the same machine."""
    (entry, *_) = load_catalog(public_catalogs(), "klondike")
    async with ServerProcess({"par_workers": 0}) as server:
        async with (
            await ArenaClient.connect(server.url, "mover") as mover,
            await ArenaClient.connect(server.url, "watcher") as watcher,
        ):
            race = await mover.create_race("klondike", seed=entry.seed, countdown_s=0, max_entrants=1)
            await watcher.watch(race.code)
            await mover.start_race(race.code)
            await mover.move(race.code, entry.moves[0])
            await mover.resign(race.code)
            seen: dict[type, int] = {}
            while RaceFinished not in seen:
                event = await watcher.next_event(10)
                if isinstance(event, (Progress, RaceFinished)):
                    seen.setdefault(type(event), event.server_ms)
    now_ms = time.time() * 1000
    for kind, server_ms in seen.items():
        assert abs(now_ms - server_ms) < 5000, kind


def test_load_warns_when_the_generator_is_the_limit() -> None:
    assert load_warnings([0.5], 0.01, 100, 200.0, 199.0) == []
    (busy,) = load_warnings([0.95], 0.01, 100, 200.0, 199.0)
    assert "generator is the limit" in busy
    (late,) = load_warnings([0.5], 0.2, 100, 200.0, 199.0)
    assert "behind schedule" in late
    (slow,) = load_warnings([0.5], 0.0, 100, 200.0, 100.0)
    assert "server" in slow


async def test_engine_times_moves_and_views_of_the_chosen_games(tmp_path: Path) -> None:
    """Two games for a tenth of a second each: moves were played, each call and view was timed."""
    out = tmp_path / "engine.json"
    console = _console()
    args = _parse(["engine", "--games", "klondike,golf", "--seconds", "0.1", "--json", str(out)])
    assert await run_bench(args, console) == 0
    rows = json.loads(out.read_text())
    assert [row["game"] for row in rows] == ["klondike", "golf"]
    for row in rows:
        assert row["moves"] > 0 and row["playouts"] >= 1 and row["moves_per_s"] > 0
        assert row["legal_us"] > 0 and row["apply_us"] > 0
        assert row["views"] > 0 and row["view_player_us"] > 0 and row["view_spectator_us"] > 0
    assert "moves/s" in console.file.getvalue()  # type: ignore[attr-defined]


def test_engine_benchmark_covers_every_game_by_default_and_refuses_unknown_ones() -> None:
    assert _parse(["engine"]).games is None and len(GAMES) > 20
    with pytest.raises(SystemExit) as exc:
        _parse(["engine", "--games", "klondike,nosuchgame"])
    assert exc.value.code == 2


async def test_the_generators_wire_reads_whole_split_fragmented_and_control_frames() -> None:
    """The load generator's connection (`_Wire`) reads frames itself once open: messages of
    every length form, arriving a few bytes at a time, each whole and in order; it answers a
    ping; a fragmented message and the closing handshake go on through websockets' parser."""
    from websockets.asyncio.server import serve

    from tooling.loadgen import _Wire

    big, huge = bytes(range(200)), bytes(70_000)
    pinged = asyncio.Event()

    async def handler(ws) -> None:
        await ws.recv()  # the client is open and in its own reading mode
        transport = ws.transport
        for payload in (b"one", big, huge):  # 7-, 16- and 64-bit lengths, written 7 bytes at a time
            frame = (
                bytes((0x82, len(payload)))
                if len(payload) < 126
                else (
                    bytes((0x82, 126)) + len(payload).to_bytes(2, "big")
                    if len(payload) < 65_536
                    else bytes((0x82, 127)) + len(payload).to_bytes(8, "big")
                )
            )
            data = frame + payload
            for start in range(0, len(data), 7 if len(payload) < 1000 else 65_000):
                transport.write(data[start : start + 7 if len(payload) < 1000 else start + 65_000])
                await asyncio.sleep(0)
        await (await ws.ping(b"hi"))  # answered by the wire, or this waits forever
        pinged.set()
        await ws.send([b"frag", b"ment", b"ed"])  # a fragmented message: websockets' parser from here
        await ws.send(b"after")
        await ws.close(1000)

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        wire = await _Wire.connect(f"ws://127.0.0.1:{port}")
        got: list[bytes] = []
        read_here: list[bool] = []

        def on_message(data: bytes) -> None:
            got.append(data)
            read_here.append(wire._raw is not None)

        wire.on_message = on_message
        wire.send(b"hello")
        async with asyncio.timeout(5):
            await wire.lost
    assert pinged.is_set()
    assert got == [b"one", big, huge, b"fragmented", b"after"]
    assert read_here == [True, True, True, False, False]  # websockets' parser from the fragment on
    assert wire.protocol.close_code == 1000
