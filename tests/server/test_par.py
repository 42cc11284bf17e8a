"""Par: when a race with a public seed ends, the solver works out, in a worker process, what the
deal allowed; the race's audience gets it as `race_par`, and the record keeps it."""

from __future__ import annotations

import datetime as dt

import pytest
from websockets.asyncio.client import connect

from engine.games import find_game
from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
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


async def test_a_secret_winnable_race_gets_a_fresh_deal_the_solver_proved_winnable():
    """No private catalog: the solver finds the deal. Its seed, revealed at the end, is one the
    solver wins again, and no catalog holds it (a fresh random seed)."""
    from solver import solve

    config = ServerConfig(
        ping_interval_s=None, par_workers=1, winnable_nodes=4000, winnable_seconds=5, winnable_wait_s=60
    )
    async with ArenaServer(config) as server:
        assert server.config.private_catalog_dir is None
        ann = Peer(await connect(server.url, compression=None))
        await ann.hello("ann")
        reply = await ann.request(
            p.CreateRace(req=1, game="eight_off", winnable=True, countdown_s=0), p.RaceReply, timeout_ms=60_000
        )
        assert reply.race.seed is None  # secret until the end
        await ann.request(p.StartRace(req=2, race=reply.race.code), p.RaceReply)
        await ann.request(p.Resign(req=3, race=reply.race.code), p.RaceReply)
        finished = await ann.expect(p.RaceFinished)
        await ann.close()
    assert finished.seed is not None and finished.seed >= 2**32  # drawn at random, not a small public seed
    assert solve(find_game("eight_off")(finished.seed)).result == "won"  # (the par budget)


@pytest.mark.slow
async def test_a_winnable_tournament_gets_fresh_secret_deals_from_the_solver():
    from solver import solve

    config = ServerConfig(
        ping_interval_s=None, admin_token="org", par_workers=1, winnable_seconds=5, winnable_wait_s=60
    )
    async with ArenaServer(config) as server:
        org = Peer(await connect(server.url, compression=None))
        await org.hello("org")
        reply = await org.request(
            p.CreateTournament(
                req=1,
                admin_token="org",
                name="Proved",
                game="eight_off",
                deals=2,
                winnable=True,
                starts_at=f"{dt.datetime.now(dt.UTC) + dt.timedelta(hours=1):%Y-%m-%dT%H:%M:%S}Z",
            ),
            p.TournamentReply,
            timeout_ms=60_000,
        )
        seeds = server.tournaments[reply.tournament.id].plan.seeds
        await org.close()
    assert len(set(seeds)) == 2
    for seed in seeds:
        assert solve(find_game("eight_off")(seed)).result == "won"  # (the par budget)


async def test_when_the_solver_proves_too_few_the_private_catalog_is_asked_and_its_absence_said():
    config = ServerConfig(ping_interval_s=None, par_workers=1, winnable_nodes=1, winnable_wait_s=30)
    async with ArenaServer(config) as server:
        ann = Peer(await connect(server.url, compression=None))
        await ann.hello("ann")
        error = await ann.request(p.CreateRace(req=1, game="eight_off", winnable=True), p.Error, timeout_ms=60_000)
        await ann.close()
        assert not server.races
    assert error.code == "no_private_catalog"
    assert error.reason.startswith("the solver proved 0 of 1 fresh eight_off deals winnable")
