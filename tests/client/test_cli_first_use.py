"""First use, typed in a shell: `arena --version`, the server URL from ARENA_URL, and a one-line
error when `arena serve` cannot listen."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest


def _arena(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def test_version():
    done = _arena("--version")
    assert done.returncode == 0 and done.stdout.startswith("arena ") and done.stdout.split()[1][0].isdigit()


def test_a_busy_port_is_one_line_not_a_traceback():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _arena("serve", "--port", str(port))
    assert done.returncode == 2
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.strip().splitlines() == [
        f"error: cannot listen on 127.0.0.1:{port}: Address already in use "
        "(is another server running there? pick another --port)"
    ]


def test_the_server_url_comes_from_arena_url():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens there once the socket is closed
    done = _arena("races", env={"ARENA_URL": f"ws://127.0.0.1:{port}"})
    assert done.returncode == 2 and f"cannot connect to ws://127.0.0.1:{port}" in done.stdout
    assert f"ws://127.0.0.1:{port}" in _arena("races", "--help", env={"ARENA_URL": f"ws://127.0.0.1:{port}"}).stdout


def test_an_unknown_game_is_one_line_with_a_suggestion_before_any_connection():
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nothing listens: the game is refused before connecting
    for args in (("create", "--game", "klondyke", "--server", f"ws://127.0.0.1:{port}"), ("solve", "pyramyd", "3")):
        done = _arena(*args)
        assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
        lines = done.stdout.strip().splitlines()
        assert len(lines) == 1 and "did you mean" in lines[0] and lines[0].endswith("[unknown_game]"), lines


@pytest.mark.slow
def test_a_bad_fan_out_setting_is_refused_in_one_line_before_the_server_starts():
    """The fan-out's flags and variables take numbers of at least 0; anything else stops
    `arena serve` at once with a usage error naming the flag (exit 2), before it listens."""
    for args, env, flag in (
        (("--fanout-busy-share", "-1"), None, "fanout-busy-share"),
        (("--fanout-tick-ms", "soon"), None, "fanout-tick-ms"),
        ((), {"ARENA_FANOUT_TICK_MS": "-25"}, "fanout-tick-ms"),
        (("--standings-tick-ms", "-5"), None, "standings-tick-ms"),
        ((), {"ARENA_STANDINGS_TICK_MS": "soon"}, "standings-tick-ms"),
    ):
        done = _arena("serve", "--port", "0", *args, env=env)
        assert done.returncode == 2, (args, env, done.stdout, done.stderr)
        assert "Traceback" not in done.stdout + done.stderr
        said = done.stdout + done.stderr
        assert flag in said.lower().replace("_", "-") and "expected a number of at least 0" in said, said
        assert "serving on" not in said


def test_an_unknown_event_loop_is_refused_in_one_line_before_the_server_starts():
    """``--event-loop`` and ``ARENA_EVENT_LOOP`` take auto, uvloop or asyncio; anything else is a
    one-line error (exit 2) naming the flag or the variable and the choices, before it listens."""
    for args, env, said_first in (
        (("--event-loop", "fast"), None, "argument --event-loop: invalid choice: 'fast'"),
        ((), {"ARENA_EVENT_LOOP": "fast"}, "error: ARENA_EVENT_LOOP: 'fast' is not one of auto, uvloop, asyncio"),
    ):
        done = _arena("serve", "--port", "0", *args, env=env)
        said = done.stdout + done.stderr
        assert done.returncode == 2 and "Traceback" not in said, said
        assert said_first in said and "serving on" not in said, said
        assert len(done.stdout.strip().splitlines()) <= 1, said


def test_asking_for_uvloop_where_it_is_missing_is_one_line_and_auto_falls_back():
    """Where uvloop cannot be imported, ``--event-loop uvloop`` stops `arena serve` with a one-line
    error (exit 2) before it listens, while ``auto`` would serve on asyncio's own loop."""
    without = "import sys; sys.modules['uvloop'] = None; from client.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", without, "serve", "--port", "0", "--event-loop", "uvloop"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "Traceback" not in done.stdout + done.stderr
    assert done.stdout.strip().splitlines() == [
        "error: --event-loop / ARENA_EVENT_LOOP: uvloop is not installed here (pip install uvloop, or choose asyncio)"
    ], done.stdout + done.stderr
    chosen = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['uvloop'] = None; "
            "from client.serving import event_loop_factory; print(event_loop_factory(None, {})[0])",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert chosen.stdout.strip() == "asyncio", chosen.stderr
