"""A server over a Redis primary that Redis Sentinel watches (`server.store.redis.RedisStore` with a
``redis+sentinel://`` URL), end to end on 127.0.0.1 with real processes: a primary, a replica
(linked to the primary through a TCP relay of the test's own, which can cut the link as a network
partition would), and one Sentinel that promotes the replica when the primary dies.

The primary is killed (SIGKILL) in the middle of a race. With ``redis_wait_replicas=1`` (Redis
``WAIT`` before each answer) every acknowledged move is on the promoted replica and the race goes
on to its end; without it, the moves acknowledged while the replica was cut off are lost, as
README's "What survives what" says. Each test prints its figures (``-s`` shows them): moves
acknowledged, lost, doubled, refused, and the longest gap between two acknowledgements.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import shutil
import socket
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from client.verify import verify_record
from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
from server.store.redis import RedisStore
from tests.conftest import MS, RedisServer, _free_port
from tests.server.test_redis import golf_line, logged, start_race

MASTER = "arena"  # the name Sentinel knows the primary by
DOWN_AFTER_MS = 1000  # Sentinel: a primary that has not answered for this long is down (500 flaps under load)
FAILOVER_TIMEOUT_MS = 2000
WAIT_TIMEOUT_MS = 500  # how long a move waits for the replica (redis_wait_timeout_ms)


def quiet_port() -> int:
    """A free loopback port below the ephemeral range: a client connecting to a killed server's
    port from an ephemeral port can land on that very port and talk to itself (TCP's
    self-connect), which Sentinel then takes for the dead primary answering again."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    for _ in range(100):
        port = random.randrange(max(1024, low - 12000), low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return _free_port()


class Relay:
    """A TCP relay on a free loopback port to ``target_port``: what one side sends, the other
    gets, until `cut`: from then on every byte, either way, is dropped (a partition: what was in
    flight never arrives). When either side closes, so does the other."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.cut_off = False
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def cut(self) -> None:
        self.cut_off = True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        pumps = [
            asyncio.create_task(self._pump(reader, up_writer)),
            asyncio.create_task(self._pump(up_reader, writer)),
        ]
        self._tasks.update(pumps)
        try:
            await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the test is over
            pass
        finally:
            for task in pumps:
                task.cancel()
            for end in (writer, up_writer):
                end.close()

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                if not self.cut_off:
                    writer.write(data)
                    await writer.drain()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in self._tasks:
            task.cancel()


class SentinelProcess:
    """One real Redis Sentinel (``redis-server CONF --sentinel``) on a free loopback port,
    watching the primary on ``primary_port`` under the name `MASTER`, its config (which Sentinel
    rewrites) in ``folder``."""

    def __init__(self, folder: Path, primary_port: int) -> None:
        self.port = quiet_port()
        self.conf = folder / "sentinel.conf"
        self.conf.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {folder}\nlogfile {folder / 'sentinel.log'}\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {primary_port} 1\n"
            f"sentinel down-after-milliseconds {MASTER} {DOWN_AFTER_MS}\n"
            f"sentinel failover-timeout {MASTER} {FAILOVER_TIMEOUT_MS}\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            pytest.fail("redis-server is not installed: `make redis` installs it", pytrace=False)
        self.process = subprocess.Popen(
            [exe, str(self.conf), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def client(self) -> aioredis.Redis:
        return aioredis.Redis(port=self.port, socket_timeout=1, socket_connect_timeout=1)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def quiet(server: RedisServer) -> RedisServer:
    """``server`` moved to a `quiet_port`."""
    server.port = quiet_port()
    server.url = f"redis://127.0.0.1:{server.port}/0"
    return server


class Replica(RedisServer):
    """A `RedisServer` that replicates the primary reached at ``127.0.0.1:upstream_port``."""

    def __init__(self, folder: Path, upstream_port: int) -> None:
        super().__init__(folder)
        quiet(self)
        # (RedisServer puts these arguments on the command line after its own)
        self.cluster_args = ["--replicaof", "127.0.0.1", str(upstream_port)]


async def until(condition, what: str, timeout_s: float = 15.0) -> None:
    """Poll the coroutine function ``condition`` every 50 ms until it is true; fail naming ``what``."""
    deadline = asyncio.get_running_loop().time() + timeout_s * MS * 1000
    while True:
        with contextlib.suppress(OSError, aioredis.RedisError):
            if await condition():
                return
        if asyncio.get_running_loop().time() > deadline:
            pytest.fail(f"timed out waiting for {what}", pytrace=False)
        await asyncio.sleep(0.05)


class Deployment:
    """A primary, ``replicas`` replicas each linked to it through a `Relay` of its own, and a
    Sentinel; ``url`` is the store's ``redis+sentinel://`` URL."""

    def __init__(self, folder: Path, replicas: int = 2) -> None:
        self.folder = folder
        for name in ("primary", "sentinel", *(f"replica{i}" for i in range(replicas))):
            (folder / name).mkdir()
        self.primary = quiet(RedisServer(folder / "primary"))
        self.count = replicas
        self.relays: list[Relay] = []
        self.replicas: list[Replica] = []
        self.sentinel: SentinelProcess | None = None
        self.promoted: Replica | None = None
        self.url = ""

    async def start(self) -> None:
        self.primary.start()
        for index in range(self.count):
            relay = Relay(self.primary.port)
            await relay.start()
            self.relays.append(relay)
            self.replicas.append(Replica(self.folder / f"replica{index}", relay.port))
            self.replicas[-1].start()
        primary = aioredis.Redis(port=self.primary.port)
        try:

            async def replicas_online() -> bool:
                replication = await primary.info("replication")
                return all(replication.get(f"slave{i}", {}).get("state") == "online" for i in range(self.count))

            await until(replicas_online, "the replicas to catch up with the primary")
        finally:
            await primary.aclose()
        # Sentinel learns of the replicas from the primary's INFO, which it asks for at once
        self.sentinel = SentinelProcess(self.folder / "sentinel", self.primary.port)
        self.sentinel.start()
        self.url = f"redis+sentinel://127.0.0.1:{self.sentinel.port}/{MASTER}/0"
        ports = {replica.port for replica in self.replicas}
        sentinel = self.sentinel

        async def replicas_known() -> bool:
            client = sentinel.client()
            try:
                known = await client.sentinel_slaves(MASTER)
            finally:
                await client.aclose()
            return {r["port"] for r in known if r["flags"] == "slave"} == ports

        await until(replicas_known, "Sentinel to know the replicas")

    async def primary_port(self) -> int | None:
        """The port of the primary Sentinel names now."""
        assert self.sentinel is not None
        client = self.sentinel.client()
        try:
            found = await client.sentinel_get_master_addr_by_name(MASTER)
        finally:
            await client.aclose()
        return int(found[1]) if found else None

    async def kill_primary_and_wait_for_failover(self) -> float:
        """SIGKILL the primary; wait until Sentinel names a replica as the primary and it says
        it is one (`promoted`). Returns the seconds that took."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        self.primary.stop()

        async def failed_over() -> bool:
            port = await self.primary_port()
            chosen = next((r for r in self.replicas if r.port == port), None)
            if chosen is None:
                return False
            client = aioredis.Redis(port=chosen.port, socket_timeout=1)
            try:
                if (await client.info("replication"))["role"] != "master":
                    return False
            finally:
                await client.aclose()
            self.promoted = chosen
            return True

        await until(failed_over, "Sentinel to promote a replica", timeout_s=20)
        return loop.time() - began

    def promoted_client(self) -> aioredis.Redis:
        assert self.promoted is not None
        return aioredis.Redis(port=self.promoted.port)

    async def stop(self) -> None:
        for process in (self.sentinel, *self.replicas, self.primary):
            if process is not None:
                process.stop()
        for relay in self.relays:
            await relay.close()


@pytest.fixture
async def deployment(tmp_path) -> AsyncIterator[Deployment]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed: `make redis` installs it", pytrace=False)
    made = Deployment(tmp_path)
    try:
        await made.start()
        yield made
    finally:
        await made.stop()


class Tally:
    """What one test saw: each acknowledged move (when, entrant, seq) and the refusals."""

    def __init__(self) -> None:
        self.acked: list[tuple[float, str, int]] = []
        self.refused = 0

    def longest_gap_s(self) -> float:
        times = sorted(t for t, _, _ in self.acked)
        return max((b - a for a, b in zip(times, times[1:], strict=False)), default=0.0)

    async def play(self, peer, code: str, line: list[str], first: int = 1, pace_s: float = 0.02) -> None:
        """Play ``line`` from move ``first`` on, sending a refused move again (``unavailable``)
        until it is accepted."""
        for seq in range(first, len(line) + 1):
            while True:
                result = await peer.move(code, seq, line[seq - 1])
                if result.ok:
                    self.acked.append((asyncio.get_running_loop().time(), peer.player, seq))
                    break
                assert result.code == p.ErrorCode.UNAVAILABLE, result
                self.refused += 1
                await asyncio.sleep(0.05)
            await asyncio.sleep(pace_s)

    async def lost_and_doubled(self, raw: aioredis.Redis, code: str, players: list[str]) -> tuple[int, int]:
        """Acknowledged moves missing from the move logs in ``raw``, and seqs logged twice."""
        lost = doubled = 0
        for player in players:
            seqs = [seq for seq, _ in await logged(raw, code, player)]
            doubled += len(seqs) - len(set(seqs))
            lost += sum(1 for _, who, seq in self.acked if who == player and seq not in seqs)
        return lost, doubled


def report(name: str, tally: Tally, lost: int, doubled: int, failover_s: float) -> None:
    print(
        f"\n{name}: acknowledged {len(tally.acked)}, lost {lost}, doubled {doubled}, refused "
        f"{tally.refused}, longest gap between acknowledgements {tally.longest_gap_s():.2f} s, "
        f"failover {failover_s:.2f} s"
    )


def config(url: str, wait: int) -> ServerConfig:
    return ServerConfig(
        ping_interval_s=None, redis_url=url, redis_wait_replicas=wait, redis_wait_timeout_ms=WAIT_TIMEOUT_MS
    )


@pytest.mark.slow  # four processes and a failover: about 5 s
async def test_with_wait_a_primary_killed_mid_race_loses_no_acknowledged_move(deployment, peers):
    """Two entrants race; the primary is killed when one has 10 moves acknowledged. Moves are
    refused with ``unavailable`` until Sentinel has promoted the replica, then accepted there:
    every acknowledged move is in the promoted replica's log, none twice, and the race ends with
    a record that verifies."""
    async with ArenaServer(config(deployment.url, 1)) as server:
        assert isinstance(server.store, RedisStore) and server.store.wait_replicas == 1
        ann, bob = await peers("ann", url=server.url), await peers("bob", url=server.url)
        code = await start_race(ann, bob)
        line = golf_line()
        tally = Tally()
        players = asyncio.gather(tally.play(ann, code, line), tally.play(bob, code, line, pace_s=0.03))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while sum(1 for _, who, _ in tally.acked if who == ann.player) < 10 and loop.time() < deadline:
            await asyncio.sleep(0.005)
        assert 0 < len(tally.acked) < 2 * len(line), "the primary must die mid-race"
        failover_s = await deployment.kill_primary_and_wait_for_failover()
        async with asyncio.timeout(30):
            await players
        finished = await ann.expect(p.RaceFinished, timeout_ms=5000)
        assert [s.status for s in finished.standings] == ["won", "won"]
        record = await ann.request(p.GetRecord(req=3, race=code), p.RaceRecord)
        assert verify_record(record, finished.commitment).ok

        promoted = deployment.promoted_client()
        try:
            lost, doubled = await tally.lost_and_doubled(promoted, code, [ann.player, bob.player])
            for peer in (ann, bob):
                assert await logged(promoted, code, peer.player) == list(enumerate(line, start=1))
        finally:
            await promoted.aclose()
        report("WAIT 1, primary killed mid-race", tally, lost, doubled, failover_s)
        assert (lost, doubled) == (0, 0)
        assert len(tally.acked) == 2 * len(line)
        assert tally.refused > 0, "moves sent while no primary answered are refused, not acknowledged"


@pytest.mark.slow
@pytest.mark.parametrize("wait", [0, 1], ids=["no-wait", "wait"])
async def test_moves_acknowledged_while_the_replica_is_cut_off(deployment, peers, wait):
    """The replica's link is cut (a partition), then the primary dies and the replica is
    promoted. Without WAIT the moves acknowledged meanwhile are lost (none else); with WAIT
    they were refused with ``unavailable`` instead, and the race goes on to its end."""
    async with ArenaServer(config(deployment.url, wait)) as server:
        ann, bob = await peers("ann", url=server.url), await peers("bob", url=server.url)
        code = await start_race(ann, bob)
        line = golf_line()
        tally = Tally()
        await tally.play(ann, code, line[:3])
        primary = aioredis.Redis(port=deployment.primary.port)
        try:  # what came before the cut is on the replica (the race's description too)
            async with primary.pipeline(transaction=False) as pipe:
                assert (await pipe.ping().wait(2, 5000).execute())[1] == 2
        finally:
            await primary.aclose()

        for relay in deployment.relays:
            relay.cut()
        cut_off = []
        for seq in range(4, 9):
            result = await ann.move(code, seq, line[seq - 1])
            cut_off.append(result)
            if not result.ok:
                tally.refused += 1
                break
            tally.acked.append((asyncio.get_running_loop().time(), ann.player, seq))
        failover_s = await deployment.kill_primary_and_wait_for_failover()
        promoted = deployment.promoted_client()
        try:
            lost, doubled = await tally.lost_and_doubled(promoted, code, [ann.player])
            if not wait:
                report("WAIT 0, replicas cut off, then primary killed", tally, lost, doubled, failover_s)
                assert all(r.ok for r in cut_off)
                assert (lost, doubled) == (5, 0)  # every move acknowledged after the cut, no other
                assert await logged(promoted, code, ann.player) == list(enumerate(line[:3], start=1))
                return
            assert [(r.ok, r.code) for r in cut_off] == [(False, p.ErrorCode.UNAVAILABLE)]
            assert (lost, doubled) == (0, 0)
            entrant = server.races[code].entrants[ann.player]
            assert entrant.last_seq == 3  # refused: not played
            async with asyncio.timeout(30):
                await asyncio.gather(tally.play(ann, code, line, first=4), tally.play(bob, code, line))
            finished = await ann.expect(p.RaceFinished, timeout_ms=5000)
            assert [s.status for s in finished.standings] == ["won", "won"]
            for peer in (ann, bob):
                assert await logged(promoted, code, peer.player) == list(enumerate(line, start=1))
            lost, doubled = await tally.lost_and_doubled(promoted, code, [ann.player, bob.player])
            report("WAIT 1, replicas cut off, then primary killed", tally, lost, doubled, failover_s)
            assert (lost, doubled) == (0, 0)
        finally:
            await promoted.aclose()


def test_a_sentinel_url_is_read_and_a_wrong_one_refused():
    """`arena serve --redis redis+sentinel://...` is accepted, a Sentinel URL without the
    primary's name is refused naming the form, and WAIT with a Redis Cluster is refused."""
    import argparse

    from client.serving import add_server_arguments, server_config

    parser = argparse.ArgumentParser()
    add_server_arguments(parser)
    url = "redis+sentinel://10.0.0.1:26379,10.0.0.2/arena/1"
    made = server_config(parser.parse_args(["--redis", url, "--redis-wait-replicas", "1"]), {})
    assert (made.redis_url, made.redis_wait_replicas, made.redis_wait_timeout_ms) == (url, 1, 1000.0)
    store = RedisStore(url, wait_replicas=1)
    assert "primary 'arena'/1 of Sentinel 10.0.0.1:26379,10.0.0.2:26379" in str(store)
    with pytest.raises(ValueError, match="names the primary after the Sentinels"):
        server_config(parser.parse_args(["--redis", "redis+sentinel://10.0.0.1:26379"]), {})
    with pytest.raises(ValueError, match="not with a Redis Cluster"):
        server_config(parser.parse_args(["--redis", "redis+cluster://10.0.0.1", "--redis-wait-replicas", "1"]), {})
    with pytest.raises(ValueError, match="not a Redis Cluster"):
        RedisStore("redis+cluster://10.0.0.1", wait_replicas=1)
