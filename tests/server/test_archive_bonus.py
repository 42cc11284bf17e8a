"""A Double or Naught round decided after its race was archived reaches the archive
(`server.archiving.Archiver.race_changed`): a real server with a memory archive whose writes can
be made to fail, real clients; the live store keeps no record once a race leaves memory, so what
`get_record` and ``arena verify`` (`client.verify.verify_record`) show then is the archive's."""

from __future__ import annotations

import asyncio
import time

import msgspec
import pytest

from client.connection import ArenaClient
from client.verify import verify_record
from server.app import ArenaServer
from server.config import ServerConfig
from tests.server.test_archive_server import WAIT_S, FlakyArchive
from tests.server.test_bonus import won_race

#: Seconds a finished race stays in memory here: time enough to play a round after it is archived.
RETENTION_S = 2.5


async def wait_until(condition, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


@pytest.mark.slow
async def test_a_round_decided_after_the_race_was_archived_is_archived_too():
    """Ann wins a casual race and it is archived; then (the archive failing for a while) she plays
    a Double or Naught round: the race stays in memory past its retention until the archive's
    copy carries the round, then leaves; its record, read from the archive, shows the round and
    her points, and verifies."""
    archive = FlakyArchive()
    config = ServerConfig(
        ping_interval_s=None, race_retention_s=RETENTION_S, sweep_interval_s=0.02, record_retention_s=0
    )
    async with ArenaServer(config, archive=archive) as server:
        archiver = server.archiver
        assert archiver is not None
        async with (
            await ArenaClient.connect(server.url, "ann", timeout_s=WAIT_S) as ann,
            await ArenaClient.connect(server.url, "bob", timeout_s=WAIT_S) as bob,
        ):
            code = await won_race(server, ann, bob)
            finished_at = time.monotonic()
            await wait_until(lambda: archiver.archived(code), "the finished race was not archived")
            assert (await archive.get_race(code)) is not None
            archive.failing = True
            bonus = await ann.double_or_naught(code)
            while not bonus.decided:
                bonus = await ann.bonus_move(code, "guess r0" if bonus.outcome != "tie" else "deal")
            assert time.monotonic() - finished_at < RETENTION_S, "the round came too late for this test"
            assert not archiver.archived(code)
            await asyncio.sleep(RETENTION_S - (time.monotonic() - finished_at) + 0.3)  # sweeps past its retention
            assert code in server.races, "the race left memory before the archive had its round"
            archive.failing = False
            await wait_until(lambda: code not in server.races, "the race never left memory")
            kept = await archive.get_race(code)
            assert kept is not None
            winner = next(e for e in kept.entrants if e.player == ann.player)
            assert [(r.seed, r.outcome) for r in winner.bonus] == [(bonus.seed, bonus.outcome)]
            eve = await ArenaClient.connect(server.url, "eve", timeout_s=WAIT_S)
            try:
                record = await eve.get_record(code)
            finally:
                await eve.close()
    assert msgspec.structs.replace(record, req=0) == kept
    standing = next(s for s in record.standings if s.player == ann.player)
    assert standing.points == bonus.points
    report = verify_record(record)
    assert report.ok and "rounds checked" in report.check("bonus").reason
