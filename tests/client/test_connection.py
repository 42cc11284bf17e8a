"""The client library, the bots and the demo against a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio

import pytest
from rich.console import Console

from client.bot import run_bot
from client.connection import ArenaClient, ArenaError
from client.demo import run_demo
from client.verify import verify_record
from server.app import ArenaServer
from server.config import ServerConfig


@pytest.fixture
async def server():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as srv:
        yield srv


async def test_two_bots_race_a_golf_deal_to_the_end_and_the_record_verifies(server):
    """Bots join, the creator starts, both play to the end, the spectator sees the finish,
    and the published record passes every check of `arena verify`."""
    async with (
        await ArenaClient.connect(server.url, "ann") as ann,
        await ArenaClient.connect(server.url, "bob") as bob,
        await ArenaClient.connect(server.url, "sue") as sue,
    ):
        info = await ann.create_race("golf", seed=3, countdown_s=0)
        assert (await bob.join_race(info.code)).entrants == ["ann", "bob"]
        snapshot = await sue.watch(info.code)
        assert snapshot.race.status == "open"
        await ann.start_race(info.code)
        results = await asyncio.gather(run_bot(ann, info.code), run_bot(bob, info.code))
        assert all(r.end in ("won", "stuck", "resigned") for r in results)
        finished = None
        async with asyncio.timeout(5):
            async for event in sue.events():
                if type(event).__name__ == "RaceFinished":
                    finished = event
                    break
        assert finished is not None and finished.seed == 3
        assert {s.cleared for s in finished.standings} == {r.cleared for r in results}
        report = verify_record(await sue.get_record(info.code))
        assert report.ok, report


async def test_a_refused_request_raises_an_error_with_its_code(server):
    async with await ArenaClient.connect(server.url, "ann") as ann:
        with pytest.raises(ArenaError) as caught:
            await ann.create_race("tetris")
        assert caught.value.code == "unknown_game"
        with pytest.raises(ArenaError) as caught:
            await ann.join_race("NOSUCH")
        assert caught.value.code == "unknown_race"


async def test_a_client_that_reconnects_mid_race_plays_on_without_doubling_a_move(server):
    async with await ArenaClient.connect(server.url, "ann") as ann:
        info = await ann.create_race("clock", seed=9, countdown_s=0)
        await ann.start_race(info.code)
        await ann.next_event(timeout_s=3)  # entrant_joined
        first = await ann.move(info.code, "turn")
        while not first.ok:  # the deal may not have arrived yet
            await asyncio.sleep(0.01)
            first = await ann.move(info.code, "turn")
        await ann.reconnect()
        second = await ann.move(info.code, "turn")
        assert second.ok and second.seq == first.seq + 1 and second.board.moves == 2
        game = server.races[info.code].entrants[ann.player].game
        assert len(game.history) == 2


async def test_the_demo_runs_a_whole_race_and_verifies_it():
    console = Console(record=True, width=120)
    code = await run_demo("clock", seed=42, bots=2, delay_ms=0, console=console)
    text = console.export_text()
    assert code == 0
    assert "clock seed 42: first cards dealt TC 4D 4C KC 2D" in text
    assert "verified" in text


@pytest.mark.slow
async def test_the_tournament_demo_plays_three_deals_and_prints_the_standings():
    from client.tournaments import run_tournament_demo

    console = Console(record=True, width=120)
    assert await run_tournament_demo("clock", bots=3, console=console) == 0
    text = console.export_text()
    assert "after deal 1" in text and "after deal 3" in text and "final standings" in text
    assert "seeds revealed" in text
