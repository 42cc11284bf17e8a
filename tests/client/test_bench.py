"""`arena bench`: each benchmark runs against its own server process and reports sane figures.

These are smoke tests with tiny numbers; the figures themselves come from running the benchmarks
(`client.bench`), never from timed tests.
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from client.bench import add_bench_arguments, percentile, run_bench
from client.server_process import ServerProcess, ServerProcessError


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
    args = _parse(["listing", "--races", "20", "--requests", "300", "--limit", "7", "--connections", "3",
                   "--json", str(out)])
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
    args = _parse(["memory", "--races", "50", "--open-race-ttl-s", "1", "--race-retention-s", "1",
                   "--player-retention-s", "1", "--sweep-interval-s", "0.2", "--connections", "3",
                   "--json", str(out)])
    assert await run_bench(args, _console()) == 0
    figures = json.loads(out.read_text())
    assert figures["baseline"]["races"] == 0 and figures["baseline"]["rss_mib"] > 0
    peak, after = figures["peak"], figures["after"]
    assert (peak["races"], peak["players"], peak["sessions"]) == (50, 3, 3)
    assert (after["races"], after["players"], after["sessions"]) == (0, 0, 0)
    assert figures["emptied_after_s"] >= 1.0, "the last races stay a retention time after they expire"
    assert figures["creation_rate_per_s"] > 0
    assert figures["kib_per_race"] == pytest.approx(
        (figures["peak"]["rss_mib"] - figures["baseline"]["rss_mib"]) * 1024 / 50)


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
