"""The server keeps every finished race in the archive (server/archiving.py): real servers (in this
process, or ``arena serve`` child processes), real clients, a real SQLite file (and a real
``redis-server`` where the test's name says redis).

A race finished on one server is found by the next one started over the same data directory,
after a close, a SIGTERM or a SIGKILL: `get_record`, replays and ``arena verify`` read it from
the archive once neither memory nor the live store holds it. Over Redis a record whose time in
Redis ran out is read from the archive too, and a race whose owner died after it ended, taken
over by another node, is archived once (in a shared SQLite file, and in the session's real
PostgreSQL, `postgres_server`)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from client.connection import ArenaClient, ArenaError
from client.verify import verify_record
from server.app import ArenaServer
from server.archive import ArchiveError
from server.archive.memory import MemoryArchive
from server.archive.sql import async_url
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from server.store.redis import RedisStore
from tests.conftest import MS, RedisServer
from tests.server.test_nodes import node_pair
from tests.server.test_restart import Node
from tooling.server_process import _ROOT, fetch_metrics

#: A public Golf deal and its winning line (seeds/golf.txt): every move of it is legal.
WINNER = load_catalog(public_catalogs(), "golf")[0]
LINE = list(WINNER.moves)
WAIT_S = 10_000 * MS


async def finished_race(url: str) -> tuple[str, str]:
    """Ann and Bob race the catalog deal on the server at ``url`` and both win: the race's code
    and the commitment published at its start."""
    ann = await ArenaClient.connect(url, "ann", timeout_s=WAIT_S)
    bob = await ArenaClient.connect(url, "bob", timeout_s=WAIT_S)
    try:
        info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
        await bob.join_race(info.code)
        await ann.start_race(info.code)
        for client in (ann, bob):
            await client.wait_for(lambda c=client: info.code in c.started, WAIT_S)
        for client in (ann, bob):
            for notation in LINE:
                assert (await client.move(info.code, notation)).ok
        for client in (ann, bob):
            await client.wait_for(lambda c=client: info.code in c.finished, WAIT_S)
        return info.code, ann.commitments[info.code]
    finally:
        for client in (ann, bob):
            await client.close()


async def check_from_archive(url: str, code: str, commitment: str) -> None:
    """The record of race ``code`` on the server at ``url`` verifies against ``commitment``
    (every move of both entrants in it), and a replay step of it is served."""
    eve = await ArenaClient.connect(url, "eve", timeout_s=WAIT_S)
    try:
        record = await eve.get_record(code)
        report = verify_record(record, commitment)
        assert report.verified, report.failed
        assert [e.moves for e in record.entrants] == [LINE, LINE]
        step = await eve.replay(code, record.entrants[0].player, len(LINE))
        assert step.steps == len(LINE) and step.move == LINE[-1]
    finally:
        await eve.close()


async def test_a_finished_race_outlives_its_server(tmp_path):
    """A race finished over a server (memory store) with its data directory; the server closes;
    a new one over the same directory serves its record and replays from the archive, and the
    record verifies. A server with no archive would not know the race."""
    config = {"data_dir": tmp_path, "ping_interval_s": None}
    async with ArenaServer(ServerConfig(**config)) as first:
        code, commitment = await finished_race(first.url)
    assert (tmp_path / "arena.db").is_file()
    async with ArenaServer(ServerConfig(**config)) as second:
        assert code not in second.races
        await check_from_archive(second.url, code, commitment)
        assert second.archiver is not None and second.archiver.races_written == 0
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as forgetful:
        eve = await ArenaClient.connect(forgetful.url, "eve", timeout_s=WAIT_S)
        with pytest.raises(ArenaError) as refused:
            await eve.get_record(code)
        assert refused.value.code == "unknown_race"
        await eve.close()


async def test_a_race_is_archived_at_its_finish_and_leaves_memory_only_once_archived():
    """The race is archived soon after its finish (by a task, not at the sweep), and the
    retention sweep keeps a race in memory until the archive has it: with the archive failing,
    the race stays; once the archive is back, the sweep archives it and lets it go, and its
    record is served from the archive."""
    archive = FlakyArchive()
    config = ServerConfig(ping_interval_s=None, race_retention_s=0.05, sweep_interval_s=0.02)
    async with ArenaServer(config, archive=archive) as server:
        assert server.archiver is not None
        code, commitment = await finished_race(server.url)
        deadline = time.monotonic() + WAIT_S
        while server.archiver.races_written < 1:
            assert time.monotonic() < deadline, "the finished race was not archived"
            await asyncio.sleep(0.01)
        assert code not in server.races or server.archiver.archived(code)

        archive.failing = True
        code2, _ = await finished_race(server.url)
        await asyncio.sleep(0.3)  # several sweeps past its retention
        assert code2 in server.races, "a race left memory before it was archived"
        assert not server.archiver.archived(code2) and server.archiver.failures > 0
        archive.failing = False
        deadline = time.monotonic() + WAIT_S
        while code2 in server.races:
            assert time.monotonic() < deadline, "the race never left memory once the archive was back"
            await asyncio.sleep(0.02)
        assert await archive.get_race(code2) is not None
        await check_from_archive(server.url, code, commitment)


class FlakyArchive(MemoryArchive):
    """A memory archive whose writes fail while ``failing`` is set (the database away)."""

    failing = False

    async def put_race(self, record, finished_ms):  # type: ignore[no-untyped-def]
        if self.failing:
            raise ArchiveError("database away")
        return await super().put_race(record, finished_ms)


# ------------------------------------------------------------------- `arena serve` restarted


def arena(*argv: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGV...`` as typed (a child process, the checkout's code), its cache kept in
    ``data_dir``."""
    env = {**os.environ, "ARENA_CACHE_DIR": str(data_dir / "cache"), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "client.cli", *argv],
        cwd=_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT_S * 3,
    )


async def archived_count(node: Node, *, written: bool = True) -> float:
    """What the node's ``/metrics`` says it archived (races written, or already held)."""
    metrics = await fetch_metrics(node.url)
    assert metrics is not None, "the node does not answer /metrics"
    name = "arena_archive_races_written_total" if written else "arena_archive_repeated_total"
    return metrics.get(name, 0.0)


async def until_archived(node: Node, *, written: bool = True) -> None:
    deadline = time.monotonic() + WAIT_S
    while await archived_count(node, written=written) < 1:
        assert time.monotonic() < deadline, f"the node archived nothing:\n{node.log_text()[-2000:]}"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
@pytest.mark.slow
async def test_arena_serve_restarted_keeps_finished_races(tmp_path, signum):
    """``arena serve --data-dir DIR``: a race finishes; the server stops (SIGTERM: drained;
    SIGKILL: once the race is archived) and starts again over the same directory; ``arena
    verify CODE --commitment HEX``, typed, passes."""
    node = Node({"ping_interval_s": "none", "rate_per_s": 10_000, "burst": 10_000}, data_dir=tmp_path / "data")
    try:
        await node.start()
        code, commitment = await finished_race(node.url)
        if signum == signal.SIGKILL:
            await until_archived(node)
        assert await node.halt(signum) == (0 if signum == signal.SIGTERM else -signal.SIGKILL)
        await node.start()
        done = await asyncio.to_thread(
            arena, "verify", code, "--commitment", commitment, "--server", node.url, data_dir=tmp_path
        )
        assert done.returncode == 0, done.stdout + done.stderr + node.log_text()[-2000:]
        assert commitment in done.stdout
    finally:
        node.stop()


@pytest.mark.slow
async def test_arena_serve_stops_on_sigterm_just_after_many_hellos(tmp_path):
    """50 players say hello at once (each hello reads the archive's claims; more than its pool of
    connections) and drop; a SIGTERM right after stops `arena serve` with exit 0 (a request cut
    off mid-query can leave the database driver a task that never ends: the exit does not wait
    for it)."""
    for _ in range(3):  # (the timing it needs is not every run's)
        node = Node({"ping_interval_s": "none", "rate_per_s": 10_000, "burst": 10_000}, data_dir=tmp_path / "data")
        try:
            await node.start()
            clients = await asyncio.gather(*(ArenaClient.connect(node.url, f"p{i}") for i in range(50)))
            await asyncio.gather(*(client.close() for client in clients))
            assert await node.halt(signal.SIGTERM) == 0, node.log_text()[-2000:]
        finally:
            node.stop()


async def test_arena_serve_refuses_an_archive_it_cannot_open(tmp_path):
    """A data directory that cannot be made stops `arena serve` before it listens, with the reason."""
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = await asyncio.to_thread(
        arena, "serve", "--port", "0", "--data-dir", str(blocker / "data"), data_dir=tmp_path
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "archive cannot be opened" in done.stdout and "data directory" in done.stdout


# ------------------------------------------------------------------------------------ Redis


async def test_over_redis_a_record_gone_from_redis_is_read_from_the_archive(redis_server, redis_prefix, tmp_path):
    """Over Redis with a record kept there only 50 ms once the race left memory: once Redis has
    let it go, get_record, verify and replays are served from the archive."""
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    config = ServerConfig(
        redis_url=redis_server.url,
        data_dir=tmp_path,
        race_retention_s=0.05,
        record_retention_s=0.05,
        sweep_interval_s=0.02,
        ping_interval_s=None,
    )
    server = ArenaServer(config, store=store)
    await server.start()
    try:
        code, commitment = await finished_race(server.url)
        deadline = time.monotonic() + WAIT_S
        while code in server.races:
            assert time.monotonic() < deadline, "the race never left memory"
            await asyncio.sleep(0.02)
        while await store.load_record(code) is not None:
            assert time.monotonic() < deadline, "Redis kept the record"
            await asyncio.sleep(0.02)
        await check_from_archive(server.url, code, commitment)
    finally:
        await server.close()
        await store.close()


async def archived_rows(url: str, code: str) -> tuple[int, int]:
    """How many rows of the archive at ``url`` hold race ``code``: in ``races``, in ``race_entrants``."""
    engine = create_async_engine(async_url(url))
    try:
        async with engine.connect() as conn:
            races = await conn.scalar(sa.text("SELECT count(*) FROM races WHERE code = :code"), {"code": code})
            entrants = await conn.scalar(
                sa.text("SELECT count(*) FROM race_entrants WHERE race_code = :code"), {"code": code}
            )
            return races, entrants
    finally:
        await engine.dispose()


@pytest.fixture
def shared_archive(request, tmp_path) -> str:
    """The URL of an empty archive of the backend ``request.param``: a SQLite file in tmp_path, or
    a database of its own in the session's PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'arena.db'}"
    return request.getfixturevalue("postgres_server").create_database(f"takeover_{uuid.uuid4().hex[:12]}")


@pytest.mark.parametrize("shared_archive", ["sqlite", "postgresql"], indirect=True)
async def test_over_redis_a_race_taken_over_after_its_end_is_archived_once(tmp_path, shared_archive):
    """Two ``arena serve`` nodes over one Redis share one archive (a SQLite file, or a database of
    a real PostgreSQL). Node one owns a race, which ends; node one archives it and is killed; node
    two takes the race over and archives it again: the archive keeps one copy (one row), and node
    two serves the record, which verifies."""
    url = shared_archive
    async with node_pair(RedisServer(tmp_path), {"archive": url}) as (one, two):
        code, commitment = await finished_race(one.url)
        await until_archived(one)
        assert await one.halt(signal.SIGKILL) == -signal.SIGKILL
        await until_archived(two, written=False)  # its write found the race there already
        assert await archived_count(two) == 0
        assert await archived_rows(url, code) == (1, 2)
        await check_from_archive(two.url, code, commitment)
