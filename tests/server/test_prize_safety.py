"""Tournaments nobody can scout: one entry per person without the organiser's approval, no
registering after seeing an arena deal, and no board reaching spectators while a deal runs.
Over real websockets on 127.0.0.1 (every client shares one address), the server's clock sped up."""

from __future__ import annotations

import asyncio

import pytest

from client.connection import ArenaClient, ArenaError
from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
from server.store.redis import RedisStore
from tests.audit import cards_in
from tests.server.conftest import FastClock
from tests.server.test_tournament import ADMIN, connect_all, iso_after
from tests.server.test_tournament_restart import _config, iso_in


@pytest.fixture
async def arena():
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN, idle_timeout_s=None)
    async with ArenaServer(config, clock=FastClock(100)) as server:
        yield server


@pytest.mark.slow
async def test_a_second_entry_from_one_address_waits_for_the_organiser(arena):
    """With the default of one entry per address, a second and a third name from the same
    address are held as pending (and told so); the organiser approves one, which then plays, and
    refuses the other, which never gets a deal and cannot register again."""
    org, ann, bob, cat = await connect_all(arena, ["org", "ann", "bob", "cat"])
    try:
        info = await org.create_tournament(ADMIN, "Prize", "klondike", 1, starts_at=iso_after(arena, 300))
        assert info.max_entries_per_address == 1 and info.spectating == "standings"
        tid = info.id
        assert (await ann.register_tournament(tid)).registered == ["ann"]
        assert tid not in ann.pending_entries
        held = await bob.register_tournament(tid)
        assert held.registered == ["ann"] and held.pending == ["bob"]
        assert "address" in bob.pending_entries[tid]
        await cat.register_tournament(tid)
        assert "cat" in cat.tournaments[tid].pending
        with pytest.raises(ArenaError) as caught:
            await bob.register_tournament(tid)
        assert caught.value.code == "already_joined"
        with pytest.raises(ArenaError) as caught:
            await bob.review_entry("guess", tid, "bob", approve=True)
        assert caught.value.code == "not_organiser"
        approved = await org.review_entry(ADMIN, tid, "BOB", approve=True)  # by name, any case
        assert approved.registered == ["ann", "bob"] and approved.pending == ["cat"]
        refused = await org.review_entry(ADMIN, tid, cat.player, approve=False)  # by player id
        assert refused.registered == ["ann", "bob"] and refused.pending == []
        with pytest.raises(ArenaError) as caught:
            await cat.register_tournament(tid)
        assert caught.value.code == "registration_closed" and "refused" in caught.value.reason
        with pytest.raises(ArenaError) as caught:
            await org.review_entry(ADMIN, tid, "cat", approve=True)
        assert caught.value.code == "not_registered"
        await ann.wait_for(lambda: len(ann.tournaments[tid].races) == 1, timeout_s=30)
        code = ann.tournaments[tid].races[0]
    finally:
        for client in (org, ann, bob, cat):
            await client.close()
    race = arena.races[code]
    assert sorted(e.name for e in race.entrants.values()) == ["ann", "bob"]
    assert code not in arena.players[cat.token].races and tid not in arena.players[cat.token].tournaments


@pytest.mark.slow
async def test_arena_deals_are_spoiler_locked_until_the_window_closes(arena):
    """Arena format: nobody may watch, replay or read the record of a deal while the window is
    open, not even an early finisher's deal (spoiler_locked, with the instant the window closes);
    a refused watch closes nobody's registration; after the window all of it is answered."""
    org, ann, wes, bea, xan = await connect_all(arena, ["org", "ann", "wes", "bea", "xan"])
    try:
        info = await org.create_tournament(
            ADMIN,
            "Daily",
            "golf",
            1,
            format="arena",
            starts_at=iso_after(arena, 30),
            arena_window_s=600,  # (6 s here; its finished deal stays in memory an hour)
            deal_time_limit_s=600,
            max_entries_per_address=5,
        )
        tid = info.id
        await ann.register_tournament(tid)
        await ann.wait_for(lambda: ann.tournaments[tid].status == "running", timeout_s=10)
        first = await ann.open_deal(tid)
        await ann.wait_for(lambda: first.code in ann.started, timeout_s=5)
        await ann.resign(first.code)
        closes = arena.tournaments[tid].ends_at_ms
        for ask in (
            lambda: wes.watch(first.code),  # an early finisher's deal 1
            lambda: wes.get_record(first.code),
            lambda: wes.replay(first.code, ann.player, 0),
            lambda: ann.watch(first.code),
        ):
            with pytest.raises(ArenaError) as caught:
                await ask()
            assert caught.value.code == "spoiler_locked" and caught.value.opens_at_ms == closes
        await wes.register_tournament(tid)  # its refused watch closed nothing
        await ann.wait_for(lambda: ann.tournaments[tid].status == "finished", timeout_s=60)
        watched = await xan.watch(first.code)
        assert watched.race.status == "finished" and watched.race.seed is not None
        assert (await xan.get_record(first.code)).seed == watched.race.seed
    finally:
        for client in (org, ann, wes, bea, xan):
            await client.close()


async def _spectate_a_deal(arena: ArenaServer, **fields: object) -> tuple[list[object], p.Snapshot, p.Snapshot]:
    """A one-deal rounds tournament of klondike with one entrant, who plays ten moves and
    resigns, and one spectator watching from the deal's start: what the spectator received up
    to the deal's end (its watch snapshot first), and its snapshot once the deal was over."""
    org, ann, sue = await connect_all(arena, ["org", "ann", "sue"])
    try:
        info = await org.create_tournament(
            ADMIN, "Watched", "klondike", 1, starts_at=iso_after(arena, 20), deal_time_limit_s=600, **fields
        )
        tid = info.id
        await ann.register_tournament(tid)
        await ann.wait_for(lambda: len(ann.tournaments[tid].races) == 1, timeout_s=10)
        code = ann.tournaments[tid].races[0]
        during = await sue.sync(code, 0)  # every event so far in the spectators' form, the deal's too
        await ann.wait_for(lambda: code in ann.started, timeout_s=5)
        board = ann.started[code].board
        for _ in range(10):
            legal = [m for m in board.legal if m != "undo"]
            result = await ann.move(code, legal[0])
            assert result.ok
            board = result.board
        await asyncio.sleep(0.2)  # (20 s of server time: a 1 s delay would have shown every board)
        await ann.resign(code)
        await sue.wait_for(lambda: code in sue.finished, timeout_s=5)
        await asyncio.sleep(0.05)
        received = [during, *sue.pending_events()]
        after = await sue.watch(code)
    finally:
        for client in (org, ann, sue):
            await client.close()
    return received, during, after


def _until_finished(received: list[object]) -> list[object]:
    end = next(i for i, m in enumerate(received) if isinstance(m, p.RaceFinished))
    return received[:end]


@pytest.mark.parametrize("fields", [{}, {"spectating": "delayed", "spectator_delay_s": 600}])
async def test_spectators_of_a_prize_deal_see_no_card_until_it_is_over(arena, fields):
    """ "standings" (the default) and "delayed" (by the deal's time limit): while the deal runs
    the spectator receives the standings only, no board and no card of the entrant's game (the
    deal itself face down); once the deal is over every board is shown, the final one sent."""
    received, during, after = await _spectate_a_deal(arena, **fields)
    running = _until_finished(received)
    assert during.boards == {} and during.race.spectating == (fields.get("spectating") or "standings")
    assert any(isinstance(m, p.Progress) for m in running), "the standings came live"
    (deal,) = [m for m in running if isinstance(m, p.RaceStarted)]
    assert {card for pile in deal.board.piles.values() for card in pile} == {"??"}, "the deal, face down"
    for message in running:
        assert not isinstance(message, p.DelayedBoard)
        assert getattr(message, "board", None) is None or isinstance(message, p.RaceStarted)
        assert not getattr(message, "boards", None)
        assert not cards_in(message), f"{type(message).__name__} named cards while the deal ran"
    finals = [m for m in received[len(running) :] if isinstance(m, p.DelayedBoard)]
    assert len(finals) == 1 and finals[0].board.moves == 10, "the final board follows the finish"
    assert len(after.boards) == 1 and next(iter(after.boards.values())).moves == 10


async def test_live_spectating_still_shows_the_boards(arena):
    """The check above fails where boards reach spectators: "live" shows them (a casual event)."""
    received, during, _ = await _spectate_a_deal(arena, spectating="live", spectator_delay_s=1)
    assert any(isinstance(m, p.DelayedBoard) and cards_in(m) for m in _until_finished(received))


@pytest.mark.parametrize(
    ("fields", "allowed"),
    [
        ({"spectating": "delayed", "spectator_delay_s": 599}, False),
        ({"spectating": "delayed", "spectator_delay_s": 600}, True),
        ({"spectating": "live", "spectator_delay_s": 601}, False),
        ({"spectating": "standings"}, True),
    ],
)
async def test_a_spectator_delay_shorter_than_the_deal_is_refused(arena, fields, allowed):
    org = await ArenaClient.connect(arena.url, "org")
    try:
        create = org.create_tournament(
            ADMIN, "Delayed", "golf", 1, starts_at=iso_after(arena, 600), deal_time_limit_s=600, **fields
        )
        if allowed:
            assert (await create).spectating == fields["spectating"]
        else:
            with pytest.raises(ArenaError) as caught:
                await create
            assert caught.value.code == "bad_field" and "spectator_delay_s" in caught.value.reason
            assert arena.tournaments == {}
    finally:
        await org.close()


@pytest.fixture
async def store(redis_server, redis_prefix):
    kept = RedisStore(redis_server.url, prefix=redis_prefix)
    yield kept
    await kept.close()


async def test_held_refused_and_watched_entries_survive_a_restart(store):
    """Over Redis: an arena tournament's entry held for approval and a refused one are the same
    after the server restarts (and its deals stay spoiler-locked while the window is open)."""
    async with ArenaServer(_config(), store=store) as first:
        org, ann, wes, bob, cat = await connect_all(first, ["org", "ann", "wes", "bob", "cat"])
        try:
            info = await org.create_tournament(
                ADMIN,
                "Kept",
                "golf",
                2,
                format="arena",
                starts_at=iso_in(1),
                arena_window_s=3600,
                max_entries_per_address=1,
            )
            tid = info.id
            await ann.register_tournament(tid)
            await ann.wait_for(lambda: ann.tournaments[tid].status == "running", timeout_s=10)
            first_deal = await ann.open_deal(tid)
            await ann.wait_for(lambda: first_deal.code in ann.started, timeout_s=5)
            await ann.resign(first_deal.code)
            with pytest.raises(ArenaError) as caught:
                await wes.watch(first_deal.code)
            assert caught.value.code == "spoiler_locked"
            for client in (bob, cat):
                await client.register_tournament(tid)
                assert tid in client.pending_entries
            await org.review_entry(ADMIN, tid, "cat", approve=False)
            tokens = {c.name: c.token for c in (org, ann, wes, bob, cat)}
        finally:
            for client in (org, ann, wes, bob, cat):
                await client.close()
    async with ArenaServer(_config(), store=store) as second:
        clients = [await ArenaClient.connect(second.url, n, token=t) for n, t in tokens.items()]
        org, ann, wes, bob, cat = clients
        try:
            tournament = second.tournaments[tid]
            assert tournament.info().pending == ["bob"] and tournament.info().registered == ["ann"]
            for client, why in ((cat, "refused"),):
                with pytest.raises(ArenaError) as caught:
                    await client.register_tournament(tid)
                assert caught.value.code == "registration_closed" and why in caught.value.reason
            assert (await org.review_entry(ADMIN, tid, "bob", approve=True)).registered == ["ann", "bob"]
            second_deal = await ann.open_deal(tid)
            assert second_deal.spectating == "standings"
            await ann.wait_for(lambda: second_deal.code in ann.started, timeout_s=5)
            with pytest.raises(ArenaError) as caught:  # the window is open
                await org.watch(second_deal.code)
            assert caught.value.code == "spoiler_locked"
            assert second.races[second_deal.code].snapshot(0, None, spectator=True).boards == {}
        finally:
            for client in clients:
                await client.close()
