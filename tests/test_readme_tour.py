"""The README's tour, typed line by line in a shell against a server this test starts.

Every command of the tour's ``sh`` blocks runs as written, through bash, from the repository's
root, with these stand-ins for what a person does by hand:

* ``make run`` (in either form) is the server the test starts: `arena serve` on a free port, with
  the tour's admin token, and ``ARENA_URL`` pointing at it (as the README says every command
  reads it);
* CODE, HEX and TID are replaced by what the commands before them printed;
* a line ending in ``&`` runs in the background, and the next line waits for its first line of
  output (a person reads "waiting for the start" before typing on);
* ``--in 120`` (the tournament's start, two minutes away for a person to register) becomes
  ``--in 12``, so that the test does not wait two minutes.

Each command must exit 0; the background ones too, once the race or tournament has ended.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import markdown_it
import pytest

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"


def tour_lines() -> list[str]:
    """The command lines of the ``sh`` blocks in the README's "A tour" section, comments and
    blank lines left out."""
    tokens = markdown_it.MarkdownIt("commonmark").parse((ROOT / "README.md").read_text())
    lines, in_tour = [], False
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            in_tour = tokens[i + 1].content == "A tour"
        elif in_tour and token.type == "fence" and token.info.strip() == "sh":
            for line in token.content.splitlines():
                command = re.sub(r"\s+#.*$", "", line).strip()
                if command and not command.startswith("#"):
                    lines.append(command)
    return lines


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def tour_server(tmp_path):
    """`arena serve` on a free port with the tour's admin token; yields the environment that
    the tour's commands run in."""
    port = _free_port()
    env = {
        **os.environ,
        "ARENA_ADMIN_TOKEN": "s3cret",
        "ARENA_URL": f"ws://127.0.0.1:{port}",
        "ARENA_CONFIG_DIR": str(tmp_path / "config"),  # the player `arena` keeps: never the user's
    }
    server = subprocess.Popen(
        [str(ARENA), "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
    yield env
    server.terminate()
    server.wait(30)


def test_the_readme_tour_works_typed_line_by_line(tour_server):
    lines = tour_lines()
    assert any(" create " in line for line in lines) and any(" tournament show " in line for line in lines)
    found: dict[str, str] = {}
    background: list[tuple[str, subprocess.Popen[str]]] = []
    for line in lines:
        if "make run" in line:
            continue  # the server this test started
        command = line.replace(".venv/bin/arena", shlex.quote(str(ARENA))).replace("--in 120", "--in 12")
        for name, value in found.items():
            command = re.sub(rf"\b{name}\b", value, command)
        if command.endswith("&"):
            process = subprocess.Popen(
                ["bash", "-c", command[:-1]],
                cwd=ROOT,
                env=tour_server,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            first = process.stdout.readline() if process.stdout else ""
            assert first.strip(), f"{line!r} printed nothing"
            background.append((line, process))
            continue
        done = subprocess.run(
            ["bash", "-c", command], cwd=ROOT, env=tour_server, text=True, capture_output=True, timeout=180
        )
        assert done.returncode == 0, f"{line!r} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        out = done.stdout + done.stderr
        if " create --game " in line:
            found["CODE"] = done.stdout.split()[-1]
            assert "--token" not in out  # the kept player created it: `arena start CODE` runs as it
        elif " watch " in line:
            found["HEX"] = re.search(r"--commitment ([0-9a-f]{64})", out).group(1)
        elif " tournament create " in line:
            found["TID"] = done.stdout.split()[-1]
        elif " verify " in line:
            assert "FAILED" not in out and "verified" in out
        elif " tournament show " in line:
            assert "final standings" in out and "robin" in out
    assert set(found) == {"CODE", "HEX", "TID"}
    for line, process in background:
        out, _ = process.communicate(timeout=180)
        assert process.returncode == 0, f"{line!r} exited {process.returncode}:\n{out}"
