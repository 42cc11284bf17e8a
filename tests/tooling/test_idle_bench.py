"""`arena bench idle`: a tiny run as a subprocess holds every client, counts no error, and reads
the server's memory (a smoke test: the figures themselves come from real runs, see
docs/performance.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tooling.idle_bench import IdleSettings

_ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.slow
def test_idle_holds_every_client_and_reads_the_servers_memory(tmp_path: Path) -> None:
    """50 clients from 2 load processes, half of them watching one of the races: all 50 held
    (by the load processes' count and the server's own), no error, memory read before and after."""
    out = tmp_path / "idle.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "client.cli",
            "bench",
            "idle",
            "--clients",
            "50",
            "--load-processes",
            "2",
            "--watching",
            "0.5",
            "--settle-s",
            "0.5",
            "--json",
            str(out),
        ],
        cwd=_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(out.read_text())
    assert figures["clients"] == figures["clients_held"] == 50
    assert figures["server_connections"] == figures["server_sessions"] == 50
    assert figures["watching"] == 25 and figures["races"] == 4 and figures["load_processes"] == 2
    assert figures["errors"] == figures["refused"] == figures["closed"] == 0
    assert figures["connect_rate_per_s"] > 0
    assert 0 < figures["before"]["rss"] and 0 < figures["after"]["rss"]
    assert figures["rss_kib_per_connection"] is not None and figures["target_kib"] == 16
    assert figures["raised_limits"]["max_connections"] >= 50
    printed = done.stdout
    assert "RSS per connection" in printed and "raised on the server" in printed


def test_idle_settings_pick_enough_load_processes_and_refuse_nonsense() -> None:
    """By default each load process holds at most 9,000 sockets; a share outside 0..1 is refused."""
    assert IdleSettings(clients=19_500).processes == 3
    assert IdleSettings(clients=50).processes == 1
    assert IdleSettings(clients=50, load_processes=2).processes == 2
    assert IdleSettings(clients=10, watching=0.5).watchers == 5
    with pytest.raises(ValueError):
        IdleSettings(clients=10, watching=1.5)
    with pytest.raises(ValueError):
        IdleSettings(clients=10, server_pid=1234)
