"""``arena serve`` in a child process, measured from outside: for the benchmarks and the fuzzer.

A benchmark or a fuzzing campaign must measure the server apart from its own work, so it starts
the server as a child process (``python -m client.cli serve`` on a free port of 127.0.0.1, with
the limits it asks for as flags), reads the server's CPU time and resident memory from
``/proc/PID`` (Linux), its counts from ``GET /healthz``, and its log, and stops it at the end,
after an error or Ctrl-C too: the server runs in a process group of its own, and stopping it ends
the whole group, the par workers it spawned included (`ServerProcess.stop`).

>>> cpu_seconds(os.getpid()) > 0, rss_mib(os.getpid()) > 1
(True, True)
>>> abs(cpu_seconds(os.getpid()) - time.process_time()) < 0.05
True
>>> user, system = cpu_times(os.getpid()); user > 0 and system >= 0
True
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from prometheus_client.parser import text_string_to_metric_families

__all__ = ["ServerProcess", "ServerProcessError", "cpu_seconds", "cpu_times", "fetch_health", "rss_mib"]

#: The repository root: the child server runs from here, so that ``-m client.cli`` imports.
_ROOT = Path(__file__).resolve().parent.parent
#: Clock ticks per second, the unit of CPU times in ``/proc/PID/stat`` (usually 100: 10 ms a tick).
_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


class ServerProcessError(Exception):
    """The child server did not start, or died (``reason``: what happened, with its log's end)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def cpu_times(pid: int) -> tuple[float, float]:
    """CPU time process ``pid`` has used so far, (user, system) in seconds, from
    ``/proc/PID/stat`` (resolution: one clock tick, usually 10 ms). System time is the kernel's
    work for the process: on a server, mostly its socket writes. Raises OSError if there is no
    such process."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()  # the name, in parentheses, may hold spaces
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5); fields[0] is field 3
    return utime / _TICKS_PER_S, stime / _TICKS_PER_S


def cpu_seconds(pid: int) -> float:
    """CPU time process ``pid`` has used so far, user plus system, all its threads, in seconds,
    to the nanosecond: read from the kernel's CPU-time clock of that process (Linux), else from
    `cpu_times` (one clock tick). Raises OSError if there is no such process."""
    try:
        return time.clock_gettime(_process_cpu_clock(pid))
    except OSError:
        if not Path(f"/proc/{pid}").exists():
            raise
        return sum(cpu_times(pid))


def _process_cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time, as ``clock_getcpuclockid(3)`` makes it on Linux:
    the complement of the pid shifted left three bits, and 2 (the scheduler's exact runtime,
    the whole thread group)."""
    return ((~pid) << 3) | 2


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` (``VmRSS`` in ``/proc/PID/status``), in MiB. Raises
    OSError if there is no such process, ServerProcessError if it has none (a zombie)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024  # the kernel writes kB
    raise ServerProcessError(f"process {pid} reports no resident memory (has it exited?)")


def _free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _http_get(url: str, path: str, timeout_s: float) -> bytes | None:
    """The body of ``GET path`` on the port of the websocket ``url`` (``ws://host:port``), or
    None if there is no answer within ``timeout_s`` seconds, or no 200."""
    parts = urlsplit(url)
    if parts.scheme != "ws" or parts.hostname is None:
        return None
    try:
        async with asyncio.timeout(timeout_s):
            reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            response = await reader.read()
            writer.close()
    except (OSError, TimeoutError):
        return None
    head, _, body = response.partition(b"\r\n\r\n")
    return body if head.startswith(b"HTTP/1.1 200") else None


async def fetch_health(url: str, timeout_s: float = 5.0) -> dict[str, Any] | None:
    """``GET /healthz`` on the port of the websocket ``url`` (``ws://host:port``): its JSON
    (connections, sessions, players, races by status, tournaments), or None if there is no
    answer within ``timeout_s`` seconds, or no 200."""
    body = await _http_get(url, "/healthz", timeout_s)
    if body is None:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


async def fetch_metrics(url: str, timeout_s: float = 5.0) -> dict[str, float] | None:
    """``GET /metrics`` on the port of the websocket ``url``: each sample without labels, by name
    (``arena_moves_accepted_total``...), and each histogram bucket under its name and bound as
    the text format writes it (``arena_fanout_delay_seconds_bucket{le="0.01"}``: a cumulative
    count); None if there is no answer (none within ``timeout_s`` seconds, or the server does
    not serve its metrics to this address)."""
    body = await _http_get(url, "/metrics", timeout_s)
    if body is None:
        return None
    try:
        families = list(text_string_to_metric_families(body.decode()))
    except ValueError:
        return None
    return {
        sample.name if not sample.labels else f'{sample.name}{{le="{sample.labels["le"]}"}}': sample.value
        for family in families
        for sample in family.samples
        if not sample.labels or set(sample.labels) == {"le"}
    }


class ServerProcess:
    """``arena serve`` in a child process on a free port of 127.0.0.1, with ``limits`` (a
    `server.config.ServerConfig` field name -> value, e.g. ``{"open_race_ttl_s": 5}``) as flags.

    ``async with ServerProcess(limits) as server:`` starts it and waits until it answers, and
    stops it at the end whatever happened. Its output goes to a temporary file (`log_text`);
    `ServerProcessError` quotes the file's end if the server dies. ``extra_flags``: more flags
    of ``arena serve``, after the limits (e.g. ``["--redis", URL, "--node-id", "node1"]``).
    ``data_dir``: its ``--data-dir`` (the archive of finished races, `data_dir` after the
    start); by default a temporary directory of its own, kept across its restarts, so that a
    child server never writes to the user's data directory. Not given when the limits or the
    flags name ``--data-dir`` or ``--archive`` themselves.
    """

    def __init__(
        self,
        limits: dict[str, object] | None = None,
        *,
        extra_flags: Sequence[str] = (),
        data_dir: str | Path | None = None,
    ) -> None:
        self.limits = dict(limits or {})
        self.extra_flags = list(extra_flags)
        self.data_dir = Path(data_dir) if data_dir is not None else None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None  # the default data_dir
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        """``ws://127.0.0.1:PORT`` of the server's websocket."""
        return f"ws://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        """The server's process id (for ``/proc/PID``)."""
        assert self.process is not None, "start() first"
        return self.process.pid

    @property
    def alive(self) -> bool:
        """True while the server process runs."""
        return self.process is not None and self.process.poll() is None

    def command(self) -> list[str]:
        """The command line that starts the server: ``python -m client.cli serve`` and its flags."""
        flags = [f"--{name.replace('_', '-')}={value}" for name, value in self.limits.items()]
        if self.data_dir is not None and not self._archive_chosen():
            flags.append(f"--data-dir={self.data_dir}")
        return [
            sys.executable,
            "-m",
            "client.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            *flags,
            *self.extra_flags,
        ]

    async def start(self, timeout_s: float = 30.0) -> None:
        """Start the server and wait until ``GET /healthz`` answers (at most ``timeout_s``
        seconds). Started again after a stop, it keeps its port and its log (one log across its
        lives). Raises ServerProcessError if it exits or stays silent."""
        if not self.port:
            self.port = _free_port()
        if self.data_dir is None and not self._archive_chosen():
            self._scratch = tempfile.TemporaryDirectory(prefix="arena-data-")
            self.data_dir = Path(self._scratch.name)
        if self._log is None:
            self._log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            self.command(),
            cwd=_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group (its id the server's pid): `stop` ends it all
        )
        deadline = time.monotonic() + timeout_s
        while await fetch_health(self.url, 1.0) is None:
            self._check_alive()
            if time.monotonic() > deadline:
                raise ServerProcessError(f"the server did not answer within {timeout_s:g} s{self._log_tail()}")
            await asyncio.sleep(0.05)

    def _archive_chosen(self) -> bool:
        """True when the limits or the extra flags say where the archive is (or that there is none)."""
        named = {"data_dir", "archive"} & set(self.limits)
        return bool(named) or any(f.split("=")[0] in ("--data-dir", "--archive") for f in self.extra_flags)

    def _check_alive(self) -> None:
        assert self.process is not None
        code = self.process.poll()
        if code is not None:
            raise ServerProcessError(f"the server exited with code {code}{self._log_tail()}")

    def log_text(self) -> str:
        """Everything the server has written so far (its log: stdout and stderr)."""
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")

    def _log_tail(self, lines: int = 10) -> str:
        tail = self.log_text().splitlines()[-lines:]
        return (":\n" + "\n".join(tail)) if tail else ""

    async def health(self) -> dict[str, Any]:
        """What ``GET /healthz`` answers now (its ``connections`` count this request's own
        socket). Raises ServerProcessError if the server does not answer."""
        health = await fetch_health(self.url)
        if health is None:
            self._check_alive()
            raise ServerProcessError(f"the server did not answer GET /healthz{self._log_tail()}")
        return health

    def cpu_s(self) -> float:
        """The server's CPU time so far, seconds (`cpu_seconds`)."""
        self._check_alive()
        return cpu_seconds(self.pid)

    def rss_mib(self) -> float:
        """The server's resident memory now, MiB (`rss_mib`)."""
        self._check_alive()
        return rss_mib(self.pid)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 5 s) and wait for it, then end what is
        left of its process group (its par workers: SIGKILL, they hold nothing to save); harmless
        twice. The log stays readable until the object is dropped."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):  # (none left)
            os.killpg(process.pid, signal.SIGKILL)

    async def __aenter__(self) -> ServerProcess:
        try:
            await self.start()
        except BaseException:
            self.stop()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop()
