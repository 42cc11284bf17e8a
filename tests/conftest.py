"""Shared test settings: a time unit that an environment variable scales for slow machines, and
the frame audit that checks every frame every in-process server sends (tests/audit.py)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

from tests.audit import FrameAudit

#: `arena serve` works out each finished race's par in a worker process; servers the tests start
#: as child processes leave it off (tests/server/test_par.py turns it on where it is tested).
os.environ.setdefault("ARENA_PAR_WORKERS", "0")


def _test_run_folder(variable: str, prefix: str) -> None:
    """Point the environment variable ``variable`` at a fresh folder of this test run, removed
    when the process that made it exits (each pytest process, the controller and every xdist
    worker, makes its own); one set already is left as it is."""
    if variable not in os.environ:
        folder = tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        os.environ[variable] = folder


#: `arena` keeps every race commitment it sees in a cache (client/commitments.py): the commands the
#: tests run keep theirs in a folder of the test run, not in the user's cache.
_test_run_folder("ARENA_CACHE_DIR", "arena-test-cache-")

#: `arena` keeps the player it is on each server in its config folder (client/identity.py): the
#: commands the tests run never read or write the user's; `arena_config_dir` gives each test its own.
_test_run_folder("ARENA_CONFIG_DIR", "arena-test-config-")

#: One millisecond of test time, in seconds; ARENA_TEST_TIME_SCALE=3 makes every wait 3x longer.
MS = 0.001 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))

_TOTALS = {"tests": 0, "frames": 0, "with_cards": 0}


@pytest.fixture(scope="session", autouse=True)
def arena_data_dir(tmp_path_factory):
    """Every ``arena serve`` a test starts without ``--data-dir`` keeps its archive in this
    session's temporary data directory (``ARENA_DATA_DIR``), never in the user's."""
    folder = tmp_path_factory.mktemp("arena-data")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARENA_DATA_DIR", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def arena_config_dir(tmp_path_factory, monkeypatch: pytest.MonkeyPatch):
    """Each test's ``arena`` commands (in process, or child processes that inherit the
    environment) keep their player in a config folder of that test's own (``ARENA_CONFIG_DIR``):
    one test's kept player is never another's, nor the user's."""
    folder = tmp_path_factory.mktemp("arena-config")
    monkeypatch.setenv("ARENA_CONFIG_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def frame_audit(monkeypatch: pytest.MonkeyPatch):
    """Check every frame sent during the test; fail the test on any frame that shows an entrant
    something hidden from it, or a card nobody could see."""
    audit = FrameAudit()
    audit.install(monkeypatch)
    yield audit
    if audit.frames:
        _TOTALS["tests"] += 1
        _TOTALS["frames"] += audit.frames
        _TOTALS["with_cards"] += audit.with_cards
    if audit.violations:
        pytest.fail("frames that leak:\n" + "\n".join(audit.violations[:20]), pytrace=False)


def pytest_sessionfinish(session) -> None:
    if hasattr(session.config, "workeroutput"):  # a pytest-xdist worker: its totals go to the controller
        session.config.workeroutput["frame_audit"] = dict(_TOTALS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    """(pytest-xdist, on the controller) add a finished worker's audit totals to the summary's."""
    for key, value in getattr(node, "workeroutput", {}).get("frame_audit", {}).items():
        _TOTALS[key] += value


def pytest_terminal_summary(terminalreporter) -> None:
    if _TOTALS["frames"]:
        terminalreporter.write_line(
            f"frame audit: {_TOTALS['frames']} frames checked in {_TOTALS['tests']} tests "
            f"({_TOTALS['with_cards']} naming cards); every one passed"
            if not terminalreporter.stats.get("failed")
            else f"frame audit: {_TOTALS['frames']} frames checked in {_TOTALS['tests']} tests"
        )


# ------------------------------------------------------------------------------ Redis


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A real ``redis-server`` on a free loopback port, with its data (an append-only file) in
    ``folder``: `start` it, `stop` it (SIGKILL: as a crash), `pause` and `resume` it (SIGSTOP,
    SIGCONT: as a server that stops answering), and start it again on the same port and data.
    With ``cluster``, a node of a Redis Cluster (`RedisClusterServer`), its cluster bus on a
    free port of its own and its view of the cluster in ``folder``/nodes.conf."""

    def __init__(self, folder, *, cluster: bool = False) -> None:
        self.folder = folder
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None
        # the bus port defaults to port + 10000, which may be taken or past 65535
        self.cluster_args = (
            [
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-port",
                str(_free_port()),
                "--cluster-node-timeout",
                "1000",
            ]
            if cluster
            else []
        )

    def start(self) -> None:
        import shutil
        import subprocess
        import time

        import redis

        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail(
                "redis-server is not installed: `make test-all` installs it (Debian's redis-server), "
                "or `apt-get install redis-server`",
                pytrace=False,
            )
        self.process = subprocess.Popen(
            # appendfsync always: a write is on disk before Redis answers it, so that an acknowledged
            # move survives Redis being killed (everysec may lose the last second or two of writes)
            [
                exe,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.folder),
                "--daemonize",
                "no",
                "--loglevel",
                "warning",
                *self.cluster_args,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_timeout=0.2, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))
        try:
            while True:
                try:
                    if client.ping():
                        # (another process's redis-server may have taken the port while this one
                        # was down: its answers would be another test's data)
                        if client.info("server")["process_id"] != self.process.pid:
                            pytest.fail(f"port {self.port} is another redis-server's", pytrace=False)
                        return
                except (redis.ConnectionError, redis.TimeoutError, redis.exceptions.BusyLoadingError):
                    pass
                if self.process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server on port {self.port} did not start", pytrace=False)
                time.sleep(0.02)
        finally:
            client.close()

    def pause(self) -> None:
        import signal

        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        import signal

        self.process.send_signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


class RedisClusterServer:
    """A real Redis Cluster on this machine: ``masters`` redis-servers (`RedisServer` with
    ``cluster``; three by default, no replicas) on free loopback ports, each with its data in a
    folder of its own under ``folder``, sharing the 16384 hash slots. ``url`` is
    ``redis+cluster://`` with every master; ``masters`` are their `RedisServer`s. `start` forms
    the cluster and waits until every master says ``cluster_state:ok``; `stop` kills them and
    removes ``folder``; `kill` one master (SIGKILL) and `revive` it (same port, same data: it
    takes its slots back)."""

    def __init__(self, folder, masters: int = 3) -> None:
        self.folder = folder
        self.masters = []
        for index in range(masters):
            (folder / f"master{index}").mkdir()
            self.masters.append(RedisServer(folder / f"master{index}", cluster=True))
        self.url = "redis+cluster://" + ",".join(f"127.0.0.1:{m.port}" for m in self.masters)

    def start(self) -> None:
        import shutil
        import subprocess

        for master in self.masters:
            master.start()
        cli = shutil.which("redis-cli")
        if cli is None:
            pytest.fail("redis-cli is not installed (Debian's redis-tools, with redis-server)", pytrace=False)
        formed = subprocess.run(
            [
                cli,
                "--cluster",
                "create",
                *(f"127.0.0.1:{m.port}" for m in self.masters),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if formed.returncode != 0:
            pytest.fail(f"redis-cli --cluster create failed:\n{formed.stdout}{formed.stderr}", pytrace=False)
        self.wait_ok()

    def wait_ok(self) -> None:
        """Wait until every master says ``cluster_state:ok`` (all slots served, all masters seen)."""
        import time

        import redis

        deadline = time.monotonic() + 30 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))
        for master in self.masters:
            client = redis.Redis(port=master.port, socket_timeout=0.5, socket_connect_timeout=0.5)
            try:
                while True:
                    info = None
                    try:
                        info = client.cluster("info")
                        if info["cluster_state"] == "ok" and int(info["cluster_known_nodes"]) == len(self.masters):
                            break
                    except (redis.ConnectionError, redis.TimeoutError, redis.exceptions.BusyLoadingError):
                        pass
                    if time.monotonic() > deadline:
                        pytest.fail(f"the Redis Cluster in {self.folder} is not ok: {info}", pytrace=False)
                    time.sleep(0.05)
            finally:
                client.close()

    def master_of(self, key: str) -> RedisServer:
        """The master that serves ``key``'s hash slot now."""
        import redis

        client = redis.Redis(port=next(m.port for m in self.masters if m.process is not None), socket_timeout=2)
        try:
            slot = client.cluster("keyslot", key)
            for start, end, (_, port, *_), *_ in client.cluster("slots"):
                if start <= slot <= end:
                    return next(m for m in self.masters if m.port == port)
        finally:
            client.close()
        raise AssertionError(f"no master serves {key!r} (slot {slot})")

    def kill(self, master: RedisServer) -> None:
        """Kill one master (SIGKILL: a crash); its slots are served by nobody until `revive`."""
        master.stop()

    def revive(self, master: RedisServer) -> None:
        """Start a killed master again on its port and data, and wait until the cluster is ok."""
        master.start()
        self.wait_ok()

    def stop(self) -> None:
        import shutil

        for master in self.masters:
            master.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


class PostgresServer:
    """A real PostgreSQL (Debian's ``postgresql`` package) on a free loopback port, its cluster
    made by ``initdb`` in a fresh folder under /tmp, its socket in that folder too. As root it runs
    as the ``postgres`` user (else ``nobody``), since initdb and postgres refuse root. Its
    superuser is ``arena`` (trust authentication, loopback only); fsync is off (test data).
    ``url(database)`` is a ``postgresql://`` URL; `create_database` makes an empty one."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.folder = None
        self.process = None

    @staticmethod
    def binaries():
        """The folder holding initdb and postgres, or None when PostgreSQL is not installed."""
        import glob
        import shutil
        from pathlib import Path

        found = shutil.which("initdb")
        if found and shutil.which("postgres"):
            return Path(os.path.realpath(found)).parent
        folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda f: int(f.split("/")[-2]))
        return Path(folders[-1]) if folders and os.path.exists(folders[-1] + "/initdb") else None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://arena@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        import pwd
        import subprocess
        import time

        bin_dir = self.binaries()
        if bin_dir is None:
            pytest.skip("PostgreSQL is not installed: `make test-all` installs it (Debian's postgresql)")
        self.folder = tempfile.mkdtemp(prefix="arena-pg-")
        as_user = {}
        if os.geteuid() == 0:
            names = {entry.pw_name: entry for entry in pwd.getpwall()}
            user = names.get("postgres") or names["nobody"]
            os.chown(self.folder, user.pw_uid, user.pw_gid)
            as_user = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        data = os.path.join(self.folder, "data")
        subprocess.run(
            [bin_dir / "initdb", "-D", data, "-U", "arena", "--auth=trust", "--no-locale", "-E", "UTF8", "--no-sync"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=self.folder,
            **as_user,
        )
        self.process = subprocess.Popen(
            [bin_dir / "postgres", "-D", data, "-p", str(self.port), "-k", self.folder, "-h", "127.0.0.1"]
            + ["-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=200"],
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.folder, "log"), "wb"),  # noqa: SIM115 (the child holds it)
            cwd=self.folder,
            **as_user,
        )
        deadline = time.monotonic() + 30 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))
        while subprocess.run(
            [bin_dir / "pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)], check=False
        ).returncode:
            if self.process.poll() is not None or time.monotonic() > deadline:
                with open(os.path.join(self.folder, "log")) as log:
                    pytest.fail(f"postgres on port {self.port} did not start:\n{log.read()[-2000:]}", pytrace=False)
            time.sleep(0.05)

    def create_database(self, name: str) -> str:
        """Create the empty database ``name`` (letters, digits, underscores); returns its URL."""
        import asyncio

        import asyncpg

        async def create() -> None:
            connection = await asyncpg.connect(self.url())
            try:
                await connection.execute(f'CREATE DATABASE "{name}"')
            finally:
                await connection.close()

        asyncio.run(create())
        return self.url(name)

    def stop(self) -> None:
        import shutil
        import signal

        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # fast shutdown
            try:
                self.process.wait(10)
            except Exception:
                self.process.kill()
                self.process.wait()
        self.process = None
        if self.folder:
            shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL for the session (`PostgresServer`; each test makes its own database);
    skipped only when PostgreSQL is not installed."""
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """One redis-server for the session (each test uses its own key prefix or race codes)."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory):
    """One Redis Cluster of three masters for the session (`RedisClusterServer`; each test uses
    its own key prefix or race codes)."""
    cluster = RedisClusterServer(tmp_path_factory.mktemp("redis-cluster"))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


class RedisAt:
    """Where a test's Redis store keeps its keys: the session's one Redis (`redis_server`) or its
    Redis Cluster (`redis_cluster`). ``url`` is for `RedisStore`; `raw` is a client of the test's
    own, to look at the keys (in a cluster, KEYS asks every master)."""

    def __init__(self, kind: str, server) -> None:
        self.kind = kind
        self.cluster = kind == "redis-cluster"
        self.server = server
        self.url = server.url

    def raw(self):
        import redis.asyncio as aioredis
        from redis.asyncio.cluster import RedisCluster

        class EveryMaster(RedisCluster):
            async def keys(self, pattern="*", **kwargs):  # a random master's keys only, else
                return await super().keys(pattern, target_nodes=RedisCluster.PRIMARIES, **kwargs)

        if self.cluster:
            return EveryMaster(host="127.0.0.1", port=self.server.masters[0].port)
        return aioredis.Redis.from_url(self.url)


@pytest.fixture(params=["redis", "redis-cluster"])
def redis_at(request) -> RedisAt:
    """A test that runs twice: over one Redis, and over a Redis Cluster of three masters."""
    return RedisAt(
        request.param, request.getfixturevalue("redis_cluster" if request.param == "redis-cluster" else "redis_server")
    )


@pytest.fixture
def redis_prefix(request) -> str:
    """A key prefix of this test's own, so that tests sharing `redis_server` never meet."""
    import uuid

    return f"test-{uuid.uuid4().hex[:12]}"


def http_get(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP GET (``headers`` added): the status, the response headers and the body, for
    error statuses too."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()
