"""Par: when a race with a public seed ends, the solver works out, in a worker process, what the
deal allowed; the race's audience gets it as `race_par`, and the record keeps it."""

from __future__ import annotations

import pytest
from websockets.asyncio.client import connect

from server import protocol as p
from server.service import ArenaServer, ServerConfig
from tests.server.conftest import Peer


async def _finished_race(server: ArenaServer, game: str, seed: int) -> tuple[Peer, Peer, str]:
    ann = Peer(await connect(server.url, compression=None))
    sue = Peer(await connect(server.url, compression=None))
    await ann.hello("ann")
    await sue.hello("sue")
    code = (await ann.request(p.CreateRace(req=1, game=game, seed=seed, countdown_s=0), p.RaceReply)).race.code
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    await ann.request(p.Resign(req=3, race=code), p.RaceReply)
    await ann.expect(p.RaceFinished)
    return ann, sue, code


async def test_a_finished_race_gets_its_par_from_a_worker_process():
    config = ServerConfig(ping_interval_s=None, par_workers=1, par_nodes=5000, par_seconds=30)
    async with ArenaServer(config) as server:
        ann, sue, code = await _finished_race(server, "golf", 12)  # a deal the catalog wins
        event = await ann.expect(p.RacePar, timeout_ms=60_000)
        assert (event.par.result, event.par.best_cleared, event.par.total) == ("won", 35, 35)
        assert (await sue.expect(p.RacePar, timeout_ms=5000)).par == event.par
        record = await ann.request(p.GetRecord(req=9, race=code), p.RaceRecord)
        assert record.race.par == event.par
        snapshot = await sue.request(p.Sync(req=10, race=code, since=0), p.Snapshot)
        assert snapshot.race.par == event.par
        for peer in (ann, sue):
            await peer.close()


async def test_without_par_workers_there_is_no_par():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        assert server.config.par_workers == 0
        ann, sue, code = await _finished_race(server, "golf", 12)
        with pytest.raises(TimeoutError):
            await ann.expect(p.RacePar, timeout_ms=500)
        assert server.races[code].info().par is None
        for peer in (ann, sue):
            await peer.close()


def test_arena_serve_turns_par_on_by_default():
    import argparse

    from client.serving import add_server_arguments, server_config

    parser = argparse.ArgumentParser()
    add_server_arguments(parser)
    assert server_config(parser.parse_args([]), {}).par_workers == 1
    assert server_config(parser.parse_args([]), {"ARENA_PAR_WORKERS": "0"}).par_workers == 0
    assert server_config(parser.parse_args(["--par-workers", "3"]), {}).par_workers == 3
