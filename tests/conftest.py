"""Shared test settings: a time unit that an environment variable scales for slow machines, and
the frame audit that checks every frame every in-process server sends (tests/audit.py)."""

from __future__ import annotations

import os

import pytest

from tests.audit import FrameAudit

#: `arena serve` works out each finished race's par in a worker process; servers the tests start
#: as child processes leave it off (tests/server/test_par.py turns it on where it is tested).
os.environ.setdefault("ARENA_PAR_WORKERS", "0")

#: One millisecond of test time, in seconds; ARENA_TEST_TIME_SCALE=3 makes every wait 3x longer.
MS = 0.001 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))

_TOTALS = {"tests": 0, "frames": 0, "with_cards": 0}


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


def pytest_terminal_summary(terminalreporter) -> None:
    if _TOTALS["frames"]:
        terminalreporter.write_line(
            f"frame audit: {_TOTALS['frames']} frames checked in {_TOTALS['tests']} tests "
            f"({_TOTALS['with_cards']} naming cards); every one passed"
            if not terminalreporter.stats.get("failed") else
            f"frame audit: {_TOTALS['frames']} frames checked in {_TOTALS['tests']} tests"
        )


# ------------------------------------------------------------------------------ Redis

class RedisServer:
    """A real ``redis-server`` on a free loopback port, with its data (an append-only file) in
    ``folder``: `start` it, `stop` it (SIGKILL: as a crash), `pause` and `resume` it (SIGSTOP,
    SIGCONT: as a server that stops answering), and start it again on the same port and data."""

    def __init__(self, folder) -> None:
        import socket

        self.folder = folder
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None

    def start(self) -> None:
        import shutil
        import subprocess
        import time

        import redis

        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail("redis-server is not installed: `make test-all` installs it (Debian's redis-server), "
                        "or `apt-get install redis-server`", pytrace=False)
        self.process = subprocess.Popen(
            # appendfsync always: a write is on disk before Redis answers it, so that an acknowledged
            # move survives Redis being killed (everysec may lose the last second or two of writes)
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
             "--appendfsync", "always", "--dir", str(self.folder), "--daemonize", "no", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_timeout=0.2, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10 * float(os.environ.get("ARENA_TEST_TIME_SCALE", "1"))
        try:
            while True:
                try:
                    if client.ping():
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


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """One redis-server for the session (each test uses its own key prefix or race codes)."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


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
