"""Double or Naught after a casual race: only a winner may stake its points; the standings show them."""

from __future__ import annotations

import pytest

from client.connection import ArenaClient, ArenaError
from client.verify import verify_record
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig

SEEDS = public_catalogs()


@pytest.fixture
async def server():
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as srv:
        yield srv


async def won_race(server, ann: ArenaClient, bob: ArenaClient) -> str:
    """A golf race that ann wins (a catalog deal and its winning moves) and bob resigns."""
    entry = load_catalog(SEEDS, "golf")[0]
    info = await ann.create_race("golf", seed=entry.seed, countdown_s=0)
    await bob.join_race(info.code)
    await ann.start_race(info.code)
    await ann.wait_for(lambda: info.code in ann.started, timeout_s=5)
    for move in entry.moves:
        assert (await ann.move(info.code, move)).ok
    await bob.resign(info.code)
    await ann.wait_for(lambda: info.code in ann.finished, timeout_s=5)
    return info.code


async def test_a_winner_stakes_its_points_and_the_standings_show_the_outcome(server):
    async with (
        await ArenaClient.connect(server.url, "ann") as ann,
        await ArenaClient.connect(server.url, "bob") as bob,
    ):
        code = await won_race(server, ann, bob)
        finished = ann.finished[code]
        assert finished.double_or_naught == [ann.player]
        with pytest.raises(ArenaError) as caught:
            await bob.double_or_naught(code)
        assert caught.value.code == "not_allowed"

        points = 35
        for number in range(1, 20):
            bonus = await ann.double_or_naught(code)
            assert (bonus.round, bonus.stake, bonus.points, bonus.decided) == (number, points, points, False)
            assert bonus.board.piles["r0"] == ["??"] and bonus.board.piles["r5"] != ["??"]
            assert bonus.seed is None
            while not bonus.decided:
                bonus = await ann.bonus_move(code, "guess r0" if bonus.outcome != "tie" else "deal")
            assert bonus.seed is not None and bonus.outcome in ("win", "loss", "tie")
            expected = {"win": points * 2, "loss": 0}.get(bonus.outcome, points)
            assert bonus.points == expected
            points = expected
            if bonus.outcome != "win":
                break
        with pytest.raises(ArenaError) as caught:
            await ann.double_or_naught(code)
        assert caught.value.code == "not_allowed"
        record = await bob.get_record(code)
        standing = next(s for s in record.standings if s.player == ann.player)
        assert standing.points == points and standing.cleared == 35
        report = verify_record(record)
        assert report.ok and "rounds checked" in report.check("bonus").reason


async def test_a_tampered_bonus_record_fails_verification(server):
    async with (
        await ArenaClient.connect(server.url, "ann") as ann,
        await ArenaClient.connect(server.url, "bob") as bob,
    ):
        code = await won_race(server, ann, bob)
        bonus = await ann.double_or_naught(code)
        while not bonus.decided:
            bonus = await ann.bonus_move(code, "guess r1" if bonus.outcome != "tie" else "deal")
        record = await ann.get_record(code)
    winner = next(e for e in record.entrants if e.player == ann.player)
    winner.bonus[0].outcome = {"win": "loss", "loss": "win"}.get(winner.bonus[0].outcome, "win")
    assert verify_record(record).failed == ["bonus"]


async def test_no_double_or_naught_before_the_end_nor_in_bad_notation(server):
    async with (
        await ArenaClient.connect(server.url, "ann") as ann,
        await ArenaClient.connect(server.url, "bob") as bob,
    ):
        info = await ann.create_race("golf", seed=1, countdown_s=0)
        with pytest.raises(ArenaError) as caught:
            await ann.double_or_naught(info.code)
        assert caught.value.code == "not_finished"
        code = await won_race(server, ann, bob)
        with pytest.raises(ArenaError) as caught:
            await ann.bonus_move(code, "guess r1")
        assert caught.value.code == "not_allowed"
        await ann.double_or_naught(code)
        for bad, error in (("guess r5", "wrong_pile"), ("jump", "unknown_action"), ("??", "bad_notation")):
            with pytest.raises(ArenaError) as caught:
                await ann.bonus_move(code, bad)
            assert caught.value.code == error
