"""deploy/local-cluster typed as a person types it: ``up`` starts Redis, PostgreSQL, two nodes and
nginx from Debian's packages on ports free for the test (state in a folder of the test's own), the
balancer answers and spreads websockets over both nodes, ``arena demo --url`` plays a whole race
through it, the race lands in the cluster's PostgreSQL archive, and ``down`` leaves nothing running.

Needs redis-server, postgresql and nginx (`make test-all` installs them; `make test` leaves this
file out).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import asyncpg
import pytest
from websockets.sync.client import connect

from server.protocol import Hello, Welcome, decode_server, encode
from tests.conftest import http_get

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "deploy" / "local-cluster"
ARENA = Path(sys.executable).parent / "arena"
#: Seconds a command of the script may take: `up` waits up to 30 s for each part by itself.
COMMAND_S = 120 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))


def free_ports(count: int) -> list[int]:
    """``count`` different loopback ports that nothing listens on (all held open at once while
    they are chosen, so that no two are the same)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


def port_free(port: int) -> bool:
    """True if a server could listen on 127.0.0.1:``port`` (bound as servers bind, so that
    connections in TIME_WAIT are no obstacle)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def process_runs(pid: int) -> bool:
    """True while ``pid`` runs (a zombie, exited but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class Cluster:
    """The script's settings for one test: its ports, its state folder and its environment."""

    def __init__(self, folder: Path) -> None:
        self.port, self.redis_port, self.pg_port, *self.node_ports = free_ports(5)
        self.state = folder / "cluster"
        env = {key: value for key, value in os.environ.items() if key != "ARENA_CLUSTER_ARCHIVE"}
        self.env = {
            **env,
            "ARENA_CLUSTER_DIR": str(self.state),
            "ARENA_CLUSTER_PORT": str(self.port),
            "ARENA_CLUSTER_REDIS_PORT": str(self.redis_port),
            "ARENA_CLUSTER_PG_PORT": str(self.pg_port),
            "ARENA_CLUSTER_NODE_PORTS": " ".join(map(str, self.node_ports)),
        }
        self.url = f"ws://127.0.0.1:{self.port}"
        #: The cluster's own PostgreSQL: database arena, user arena, trusted on loopback.
        self.archive = f"postgresql://arena@127.0.0.1:{self.pg_port}/arena"

    def run(self, *command: str) -> subprocess.CompletedProcess[str]:
        """Run ``deploy/local-cluster COMMAND...`` from the repository's root, as typed there."""
        return subprocess.run(
            [str(SCRIPT), *command], cwd=ROOT, env=self.env, text=True, capture_output=True, timeout=COMMAND_S
        )

    def sessions(self) -> list[int]:
        """Each node's open websocket sessions, from its own /healthz (a GET is no session)."""
        counts = []
        for port in self.node_ports:
            status, _, body = http_get(f"http://127.0.0.1:{port}/healthz")
            assert status == 200, body
            counts.append(json.loads(body)["sessions"])
        return counts

    def archived(self, code: str) -> tuple[int, int]:
        """How many rows of the archive's ``races`` hold race ``code``, and of ``race_entrants``."""

        async def count() -> tuple[int, int]:
            connection = await asyncpg.connect(self.archive, timeout=10)
            try:
                races = await connection.fetchval("SELECT count(*) FROM races WHERE code = $1", code)
                entrants = await connection.fetchval("SELECT count(*) FROM race_entrants WHERE race_code = $1", code)
                return races, entrants
            finally:
                await connection.close()

        return asyncio.run(count())


@pytest.fixture
def cluster():
    """The settings of a cluster of this test's own; whatever the test leaves running is stopped.
    Its state folder is not under pytest's tmp_path: as root, PostgreSQL runs as the user postgres,
    who must be able to enter every folder above its data (pytest's base folder is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-cluster-"))
    folder.chmod(0o755)
    cluster = Cluster(folder)
    try:
        yield cluster
    finally:
        cluster.run("down")
        shutil.rmtree(folder, ignore_errors=True)


def say_hello(stack: contextlib.ExitStack, url: str, name: str) -> Welcome:
    """Open a websocket through ``url`` (closed with ``stack``) and say hello; return the Welcome."""
    ws = stack.enter_context(connect(url, compression=None, open_timeout=10))
    ws.send(encode(Hello(name=name)))
    welcome = decode_server(ws.recv(timeout=10))
    assert isinstance(welcome, Welcome), welcome
    return welcome


def test_up_serves_through_nginx_over_both_nodes_and_down_stops_everything(cluster):
    done = cluster.run("up")
    assert done.returncode == 0, f"up exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert cluster.url in done.stdout and f"http://127.0.0.1:{cluster.port}/" in done.stdout
    for port in cluster.node_ports:
        assert f"ws://127.0.0.1:{port}" in done.stdout

    status = cluster.run("status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.count("running") == 5, status.stdout
    assert "postgres:  running (pid " in status.stdout and cluster.archive in status.stdout, status.stdout

    # /healthz through nginx, and on each node directly.
    for base in [f"http://127.0.0.1:{cluster.port}"] + [f"http://127.0.0.1:{p}" for p in cluster.node_ports]:
        code, headers, body = http_get(f"{base}/healthz")
        assert code == 200 and json.loads(body)["status"] == "ok", (base, code, body)

    # Websockets through nginx land on both nodes (least_conn: each goes to the node with fewer).
    before = cluster.sessions()
    with contextlib.ExitStack() as stack:
        welcomes = [say_hello(stack, cluster.url, f"probe-{i}") for i in range(6)]
        opened = [now - then for now, then in zip(cluster.sessions(), before)]
    assert sum(opened) == 6 and min(opened) >= 1, f"sessions per node: {opened}"
    nodes = [getattr(welcome, "node", "") for welcome in welcomes]
    if any(nodes):  # a server whose welcome names its node: the names agree with the counts
        assert sorted(nodes) == sorted(["node1"] * opened[0] + ["node2"] * opened[1]), (nodes, opened)

    # A whole race through the balancer: bots and the spectator on connections of their own.
    demo = subprocess.run(
        [str(ARENA), "demo", "--url", cluster.url, "--game", "clock", "--bots", "3", "--delay-ms", "0"],
        cwd=ROOT,
        env=cluster.env,
        text=True,
        capture_output=True,
        timeout=COMMAND_S,
    )
    assert demo.returncode == 0, f"arena demo --url exited {demo.returncode}:\n{demo.stdout}\n{demo.stderr}"
    assert "verified" in demo.stdout, demo.stdout
    if any(nodes):  # it says where each connection landed: on both nodes
        landed = re.search(r"^Nodes: (.*)$", demo.stdout, re.MULTILINE)
        assert landed and "on node1" in landed.group(1) and "on node2" in landed.group(1), demo.stdout

    # The race is in the cluster's PostgreSQL archive: once, with its three bots (its owner writes
    # it just after its end).
    raced = re.search(r"^Race (\w+): ", demo.stdout, re.MULTILINE)
    assert raced, demo.stdout
    deadline = time.monotonic() + COMMAND_S / 4
    while (found := cluster.archived(raced.group(1))) == (0, 0) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert found == (1, 3), f"race {raced.group(1)} in the archive: {found}"

    pids = {path.stem: int(path.read_text()) for path in cluster.state.glob("*.pid")}
    assert set(pids) == {"redis", "postgres", "node1", "node2", "nginx"}, pids
    done = cluster.run("down")
    assert done.returncode == 0, f"down exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert not list(cluster.state.glob("*.pid"))
    assert not [name for name, pid in pids.items() if process_runs(pid)], "processes left after down"
    for port in [cluster.port, cluster.redis_port, cluster.pg_port, *cluster.node_ports]:
        assert port_free(port), f"port {port} still taken after down"

    status = cluster.run("status")
    assert status.returncode == 3 and "running" not in status.stdout, status.stdout
    again = cluster.run("down")  # harmless when nothing runs
    assert again.returncode == 0 and "nothing runs" in again.stdout, again.stdout + again.stderr


def test_up_refuses_a_taken_port_in_one_line_and_starts_nothing(cluster):
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", cluster.port))
        squatter.listen()
        done = cluster.run("up")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().count("\n") == 0 and f"port {cluster.port} (nginx) is taken" in done.stderr
    assert not list(cluster.state.glob("*.pid"))
    for port in [cluster.redis_port, cluster.pg_port, *cluster.node_ports]:
        assert port_free(port)


def test_up_refuses_a_taken_postgresql_port_in_one_line_and_starts_nothing(cluster):
    with socket.socket() as squatter:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", cluster.pg_port))
        squatter.listen()
        done = cluster.run("up")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert f"port {cluster.pg_port} (PostgreSQL) is taken" in done.stderr and "ARENA_CLUSTER_PG_PORT" in done.stderr
    assert not list(cluster.state.glob("*.pid"))


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands PostgreSQL to another user")
def test_as_root_up_refuses_a_state_folder_postgresql_cannot_enter(cluster, tmp_path):
    """pytest's tmp_path is under a folder only root may enter: PostgreSQL's user could not."""
    cluster.state = tmp_path / "cluster"
    cluster.env["ARENA_CLUSTER_DIR"] = str(cluster.state)
    done = cluster.run("up")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "cannot reach" in done.stderr and "ARENA_CLUSTER_DIR" in done.stderr, done.stderr
    assert not list(cluster.state.glob("*.pid"))
    for port in [cluster.redis_port, cluster.pg_port, *cluster.node_ports]:
        assert port_free(port)
