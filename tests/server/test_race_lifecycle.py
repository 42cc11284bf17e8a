"""Races over real websockets: joining, starting, resuming after a reconnect, limits and ends."""

from __future__ import annotations

import asyncio
import logging
import re
import socket

import pytest
from websockets.asyncio.client import connect

from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig
from tests.server.conftest import Peer


async def started_race(creator, *others, game: str = "clock", seed: int | None = 3, **fields) -> str:
    """Create a race (creator joins), let ``others`` join, start it, wait for the deal."""
    reply = await creator.request(p.CreateRace(req=1, game=game, seed=seed, countdown_s=0, **fields), p.RaceReply)
    code = reply.race.code
    for peer in others:
        await peer.request(p.JoinRace(req=1, race=code), p.RaceReply)
    await creator.request(p.StartRace(req=2, race=code), p.RaceReply)
    for peer in (creator, *others):
        await peer.expect(p.RaceStarted)
    return code


async def test_open_races_are_listed_until_they_start(peers):
    ann, bob = await peers("ann"), await peers("bob")
    code = (await ann.request(p.CreateRace(req=1, game="golf"), p.RaceReply)).race.code
    listed = await bob.request(p.ListRaces(req=2), p.Races)
    assert [r.code for r in listed.races] == [code]
    assert listed.races[0].entrants == ["ann"] and listed.races[0].status == "open"
    await ann.request(p.StartRace(req=3, race=code), p.RaceReply)
    assert (await bob.request(p.ListRaces(req=4), p.Races)).races == []


async def test_only_the_creator_may_start_a_race(peers):
    ann, bob = await peers("ann"), await peers("bob")
    code = (await ann.request(p.CreateRace(req=1, game="golf"), p.RaceReply)).race.code
    await bob.request(p.JoinRace(req=1, race=code), p.RaceReply)
    assert (await bob.request(p.StartRace(req=2, race=code), p.RaceReply)).code == "not_creator"


async def test_a_full_race_refuses_another_entrant(peers):
    ann, bob, cat = await peers("ann"), await peers("bob"), await peers("cat")
    code = (await ann.request(p.CreateRace(req=1, game="golf", max_entrants=2), p.RaceReply)).race.code
    assert (await ann.request(p.JoinRace(req=2, race=code), p.RaceReply)).code == "already_joined"
    await bob.request(p.JoinRace(req=1, race=code), p.RaceReply)
    assert (await cat.request(p.JoinRace(req=1, race=code), p.RaceReply)).code == "race_full"


async def test_nobody_joins_a_race_after_its_start(peers):
    ann, bob = await peers("ann"), await peers("bob")
    code = await started_race(ann)
    assert (await bob.request(p.JoinRace(req=1, race=code), p.RaceReply)).code == "already_started"
    assert (await ann.request(p.StartRace(req=3, race=code), p.RaceReply)).code == "already_started"


async def test_an_entrant_may_not_watch_its_own_race_while_playing(peers):
    ann, bob = await peers("ann"), await peers("bob")
    code = await started_race(ann, bob)
    assert (await ann.request(p.Watch(req=5, race=code), p.Snapshot)).code == "not_allowed"
    await ann.request(p.Resign(req=6, race=code), p.RaceReply)
    snapshot = await ann.request(p.Watch(req=7, race=code), p.Snapshot)
    assert set(snapshot.boards) == {ann.player, bob.player}


async def test_a_repeated_sequence_number_gets_the_first_answer_again(server, peers):
    """Resending a move (same seq) does not play it twice; a gap in the numbers is refused."""
    ann = await peers("ann")
    code = await started_race(ann)
    first = await ann.move(code, 1, "turn")
    again = await ann.move(code, 1, "turn")
    assert first.ok and again == first
    assert server.races[code].entrants[ann.player].game.view().moves == 1
    gap = await ann.move(code, 5, "turn")
    assert (gap.ok, gap.code) == (False, "seq_gap")


async def test_a_reconnecting_entrant_resumes_with_its_token_and_catches_up(server, peers):
    """After a dropped connection, hello with the token and sync from the last version seen:
    the missed events come again, then a snapshot with the entrant's own board and next seq."""
    ann, bob = await peers("ann"), await peers("bob")
    code = await started_race(ann, bob)
    await bob.move(code, 1, "turn")
    last_seen = max(f.version for f in bob.frames if hasattr(f, "version"))
    token = bob.token
    await bob.close()
    for seq in (1, 2, 3):
        assert (await ann.move(code, seq, "turn")).ok

    back = Peer(await connect(server.url, compression=None))
    try:
        welcome = await back.hello("bob", token=token)
        assert welcome.player == bob.player
        await back.send(p.Sync(req=8, race=code, since=last_seen))
        snapshot = await back.expect(p.Snapshot, req=8)
        missed = [f for f in back.frames if isinstance(f, p.Progress)]
        assert [f.version for f in missed] == list(range(last_seen + 1, last_seen + 4))
        assert all(f.player == ann.player and f.board is None for f in missed)
        assert snapshot.next_seq == 2 and snapshot.board.moves == 1 and snapshot.boards == {}
        resent = await back.move(code, 1, "turn")
        assert resent.ok and resent.board.moves == 1, "the resent move was not played twice"
        assert (await back.move(code, 2, "turn")).board.moves == 2
        await ann.move(code, 4, "turn")
        live = await back.expect(p.Progress, version=snapshot.race.version + 2)
        assert live.version == snapshot.race.version + 2
        assert live in back.frames[-3:]
    finally:
        await back.close()


async def test_a_sync_from_too_far_back_gets_a_snapshot(server, peers):
    from server.store.memory import MemoryStore

    server.store = MemoryStore(max_events=3)
    ann = await peers("ann")
    code = (await ann.request(p.CreateRace(req=1, game="clock", countdown_s=0), p.RaceReply)).race.code
    server.races[code].store = server.store
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    await ann.expect(p.RaceStarted)
    for seq in range(1, 6):
        await ann.move(code, seq, "turn")
    before = len(ann.frames)
    await ann.send(p.Sync(req=9, race=code, since=0))
    snapshot = await ann.expect(p.Snapshot, req=9)
    assert [type(f) for f in ann.frames[before:]] == [p.Snapshot]
    assert snapshot.board.moves == 5 and snapshot.next_seq == 6


async def test_the_time_limit_ends_the_race_and_ranks_by_cards_then_time(fast_server):
    """At the time limit, entrants still playing are out of time; standings rank by cards
    cleared, then by the time of the move that set them, then by join order."""
    made = []
    try:
        for name in ("ann", "bob", "cat"):
            peer = Peer(await connect(fast_server.url, compression=None))
            made.append(peer)
            await peer.hello(name)
        ann, bob, cat = made
        code = await started_race(ann, bob, cat, time_limit_s=60)
        race = fast_server.races[code]
        for peer, turns in ((ann, 3), (bob, 3), (cat, 1)):
            for seq in range(1, turns + 1):
                assert (await peer.move(code, seq, "turn")).ok
        finished = await ann.expect(p.RaceFinished, timeout_ms=10_000)
        assert finished.reason == "time_limit"
        assert race.elapsed_ms() >= 60_000
        by_name = {s.name: s for s in finished.standings}
        assert all(s.status == "out_of_time" for s in finished.standings)
        assert by_name["ann"].cleared == by_name["bob"].cleared == 3 and by_name["cat"].cleared == 1
        expected = sorted(finished.standings, key=lambda s: (-s.cleared, s.time_ms, s.order))
        assert finished.standings == expected
        assert [s.place for s in finished.standings] == [1, 2, 3]
        assert finished.standings[-1].name == "cat"
        late = await bob.move(code, 4, "turn")
        assert (late.ok, late.code) == (False, "race_over")
    finally:
        for peer in made:
            await peer.close()


async def test_the_race_ends_when_every_entrant_is_done_and_reveals_the_seed(peers):
    ann, bob = await peers("ann"), await peers("bob")
    code = await started_race(ann, bob, seed=None)
    await ann.request(p.Resign(req=3, race=code), p.RaceReply)
    assert (await ann.request(p.Resign(req=4, race=code), p.RaceReply)).code == "done"
    assert not [f for f in ann.frames if isinstance(f, p.RaceFinished)]
    record_early = await ann.request(p.GetRecord(req=5, race=code), p.RaceRecord)
    assert record_early.code == "not_finished"
    await bob.request(p.Resign(req=3, race=code), p.RaceReply)
    finished = await bob.expect(p.RaceFinished)
    assert finished.reason == "all_done" and finished.seed >= 0
    record = await bob.request(p.GetRecord(req=6, race=code), p.RaceRecord)
    assert record.race.seed == finished.seed and record.salt == finished.salt


async def test_a_slow_spectator_does_not_hold_up_the_race(server, peers):
    """A spectator that never reads is cut off once the bytes waiting for it pass the limit
    (the socket buffers on both sides made small, so that they fill quickly); entrants play on."""
    server.config.max_send_buffer_bytes = 4096
    server.fanout.tick_s = 0  # each frame leaves at once: the backlog grows move by move
    ann = await peers("ann")
    code = await started_race(ann, seed=11)
    lazy = await peers("lazy")
    await lazy.request(p.Watch(req=1, race=code), p.Snapshot)
    lazy._reader.cancel()  # stop reading: frames pile up on the server side
    lazy.ws.transport.pause_reading()
    lazy.ws.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    session = next(s for s in server.sessions if s.player and s.player.name == "lazy")
    session.max_buffer = 4096
    session.conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    for seq in range(1, 400):
        result = await ann.move(code, seq, "turn")
        assert result.ok or result.code == "game_over"
        if session.closing:
            break
    assert session.closing and seq < 399
    assert server.tally.slow_closes == 1
    lazy.ws.transport.abort()  # it would never answer the close handshake


async def test_the_movers_frames_of_a_move_are_flushed_once(server, peers, monkeypatch):
    """With no tick (a quiet server), a move's answer and the standings of that move leave for
    the mover in one write at the end of the loop turn: its connection is written once, not
    once per frame it is sent."""
    from server.transport.session import Session

    writes: list[Session] = []
    flush = Session._flush
    monkeypatch.setattr(Session, "_flush", lambda session: (writes.append(session), flush(session))[1])
    ann = await peers("ann")
    code = await started_race(ann)
    writes.clear()
    for seq in (1, 2, 3):
        assert (await ann.move(code, seq, "turn")).ok
    assert len(writes) == 3, f"{len(writes)} writes for 3 moves"
    assert [type(f).__name__ for f in ann.frames[-6:]] == ["Progress", "MoveResult"] * 3


async def test_broadcast_frames_wait_for_the_fan_out_tick_and_answers_do_not(server, peers):
    """With a fan-out tick of 300 ms, an entrant's answers come at once (with the standings of
    its own move ahead of each), while a spectator gets, about a tick after the first move, the
    newest of the three moves' events only: each carries the entrant's whole board and the
    whole standings, so the newer took the older's place. (A busy share of 0: the tick is on
    whatever the load.)"""
    server.fanout.max_tick_s = server.fanout.tick_s = 0.3
    server.fanout.busy_share = 0.0
    ann, sue = await peers("ann"), await peers("sue")
    code = await started_race(ann)
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    loop = asyncio.get_running_loop()
    began = loop.time()
    for seq in (1, 2, 3):
        result = await ann.move(code, seq, "turn")
        assert result.ok
    answered = loop.time() - began
    assert answered < 0.25, f"three answers took {answered:.3f} s"
    kinds = [type(f).__name__ for f in ann.frames[-6:]]
    assert kinds == ["Progress", "MoveResult"] * 3, kinds
    assert not [f for f in sue.frames if isinstance(f, p.Progress)], "a spectator's event left before the tick"
    newest = await sue.expect(p.Progress, timeout_ms=2000)
    arrived = loop.time() - began
    assert newest.board.moves == 3
    assert 0.25 <= arrived < 1.5, f"the event came {arrived:.3f} s after the first move"
    await asyncio.sleep(0.4)
    assert len([f for f in sue.frames if isinstance(f, p.Progress)]) == 1


def _shared_writes(monkeypatch) -> list[tuple[object, bytes, int]]:  # type: ignore[no-untyped-def]
    """Record each `Session.send_shared` for the test: (session, the bytes written, frames)."""
    from server.transport.session import Session

    shared: list[tuple[object, bytes, int]] = []
    send_shared = Session.send_shared

    def spied(session: Session, wire: bytes, frames: list[bytes], *rest: object) -> bool:
        shared.append((session, wire, len(frames)))
        return send_shared(session, wire, frames, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(Session, "send_shared", spied)
    return shared


async def test_a_races_spectators_are_written_the_same_bytes_once_per_tick(server, peers, monkeypatch):
    """A race's spectator frames wait in the race's channel, not in each spectator's
    connection: with a fan-out tick of 300 ms, three moves reach each of three spectators in
    one write, framed once for all of them (the same bytes object): the newest move's event,
    which took the place of the two before it; and a spectator gone before the tick is not
    written at all while the others are."""
    server.fanout.max_tick_s = server.fanout.tick_s = 0.3
    server.fanout.busy_share = 0.0
    shared = _shared_writes(monkeypatch)
    ann = await peers("ann")
    code = await started_race(ann)
    watchers = [await peers(name) for name in ("sue", "tom", "una")]
    for watcher in watchers:
        await watcher.request(p.Watch(req=1, race=code), p.Snapshot)
    shared.clear()
    for seq in (1, 2, 3):
        assert (await ann.move(code, seq, "turn")).ok
    assert not shared, "a spectator was written before the tick"
    for watcher in watchers:
        assert (await watcher.expect(p.Progress, timeout_ms=2000)).board.moves == 3
    assert len(shared) == 3 and all(count == 1 for _, _, count in shared), shared
    assert len({id(wire) for _, wire, _ in shared}) == 1, "each spectator's frames were framed apart"
    assert {session.player.name for session, _, _ in shared} == {"sue", "tom", "una"}

    shared.clear()
    assert (await ann.move(code, 4, "turn")).ok
    await watchers[0].ws.close()  # gone before the tick
    for watcher in watchers[1:]:
        assert (await watcher.expect(p.Progress, timeout_ms=2000)).board.moves == 4
    assert {session.player.name for session, _, _ in shared} == {"tom", "una"}


async def test_the_other_entrants_get_a_movers_latest_standings_at_the_tick_in_the_same_bytes(
    server, peers, monkeypatch
):
    """With a standings tick of 300 ms, three moves of bob's reach ann and cat, the other
    entrants, at the tick in one write each, framed once for both: the standings of the third
    move only, which replaced those of the first two (each carries the whole table); bob gets
    the standings of each of his moves at once, ahead of its answer."""
    fanout = server.fanout
    fanout.max_tick_s, fanout.max_standings_tick_s, fanout.busy_share = 0.05, 0.3, 0.0
    fanout.adapt(1.0)
    shared = _shared_writes(monkeypatch)
    ann, bob, cat = await peers("ann"), await peers("bob"), await peers("cat")
    code = await started_race(ann, bob, cat)
    await asyncio.sleep(0.4)  # (the start's frames gone)
    shared.clear()
    superseded = server.tally.standings_superseded
    for seq in (1, 2, 3):
        assert (await bob.move(code, seq, "turn")).ok
    assert [type(f).__name__ for f in bob.frames[-6:]] == ["Progress", "MoveResult"] * 3
    assert [next(x.moves for x in f.standings if x.player == bob.player) for f in bob.frames[-6::2]] == [1, 2, 3]
    assert not shared, "the standings left before the standings tick"
    for other in (ann, cat):
        latest = await other.expect(p.Progress, player=bob.player, timeout_ms=2000)
        assert next(x.moves for x in latest.standings if x.player == bob.player) == 3
    assert sorted(session.player.name for session, _, _ in shared) == ["ann", "cat"], shared
    assert all(count == 1 for _, _, count in shared) and len({id(wire) for _, wire, _ in shared}) == 1
    assert server.tally.standings_superseded - superseded == 2


async def test_an_entrants_standings_wait_for_the_standings_tick_unless_something_else_leaves(server, peers):
    """On a busy server (a busy share of 0: always), with a fan-out tick of 50 ms and a
    standings tick of 600 ms: after bob's move the spectator gets its event within a fan-out
    tick, while ann, the other entrant, gets the standings only at the standings tick; when ann
    moves before it, bob's standings leave at once with her answer, ahead of it. With no
    standings tick of their own, the standings leave at the fan-out tick."""
    fanout = server.fanout
    fanout.max_tick_s, fanout.max_standings_tick_s, fanout.busy_share = 0.05, 0.6, 0.0
    fanout.adapt(1.0)
    assert (fanout.tick_s, fanout.standings_tick_s) == (0.05, 0.6)
    ann, bob, sue = await peers("ann"), await peers("bob"), await peers("sue")
    code = await started_race(ann, bob)
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    loop = asyncio.get_running_loop()
    began = loop.time()
    assert (await bob.move(code, 1, "turn")).ok
    watched = await sue.expect(p.Progress, timeout_ms=2000)
    assert watched.player == bob.player and loop.time() - began < 0.4
    standings = await ann.expect(p.Progress, timeout_ms=2000)
    waited = loop.time() - began
    assert standings.player == bob.player and standings.move == ""
    assert 0.45 <= waited < 1.5, f"ann's standings came {waited:.3f} s after bob's move"

    assert (await bob.move(code, 2, "turn")).ok
    began = loop.time()
    assert (await ann.move(code, 1, "turn")).ok
    assert loop.time() - began < 0.4
    kinds = [(type(f).__name__, getattr(f, "player", None)) for f in ann.frames[-3:]]
    assert kinds == [("Progress", bob.player), ("Progress", ann.player), ("MoveResult", None)], kinds

    fanout.max_standings_tick_s = 0.0  # no standings tick of its own: the standings wait as the rest
    fanout.adapt(1.0)
    assert (fanout.tick_s, fanout.standings_tick_s) == (0.05, 0.0)
    began = loop.time()
    assert (await bob.move(code, 3, "turn")).ok
    await ann.expect(p.Progress, player=bob.player, version=watched.version + 3, timeout_ms=2000)
    assert loop.time() - began < 0.4


async def test_metrics_tell_how_late_the_fan_out_ticks_writes_left(server, peers):
    """With the fan-out tick on, each tick's batch adds one observation to
    ``arena_fanout_delay_seconds``, the time from the tick's end to its last write; an entrant's
    answer, written at once, adds none."""
    fanout = server.fanout
    fanout.max_tick_s, fanout.busy_share = 0.2, 0.0
    fanout.adapt(1.0)

    def count() -> float:
        text = server.metrics.render().decode()
        return float(re.search(r"^arena_fanout_delay_seconds_count (\S+)$", text, re.M).group(1))

    ann, sue = await peers("ann"), await peers("sue")
    code = await started_race(ann)
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    await asyncio.sleep(0.1)  # the start's own frames: written and counted by now
    before = count()
    assert (await ann.move(code, 1, "turn")).ok
    assert count() == before  # the answer left at once; the spectator's frame waits for the tick
    await sue.expect(p.Progress, player=ann.player, timeout_ms=2000)
    assert count() == before + 1
    text = server.metrics.render().decode()
    assert 'arena_fanout_delay_seconds_bucket{le="0.05"}' in text  # finer buckets than the loop lag's


@pytest.mark.slow
async def test_the_fan_out_tick_is_on_while_the_event_loop_is_busy_and_off_once_it_is_quiet(caplog):
    """A server whose event loop is kept busy for a while turns its fan-out tick on, and off
    again once the loop is quiet; /metrics and the log show both."""
    caplog.set_level(logging.INFO, logger="arena.server")
    # (a low share: on a machine busy with other work the loop's thread gets less of the CPU)
    config = ServerConfig(ping_interval_s=None, fanout_tick_ms=300, fanout_busy_share=0.2)
    async with ArenaServer(config) as server:
        loop = asyncio.get_running_loop()
        assert server.fanout.tick_s == 0
        # busy: the loop's thread on the CPU, with short turns, until the tick is on (at most 10 s)
        busy_until = loop.time() + 10.0
        while server.fanout.tick_s == 0 and loop.time() < busy_until:
            sum(range(20_000))
            await asyncio.sleep(0)
        assert server.fanout.tick_s == 0.3 and server.fanout.busy >= 0.2
        metrics = server.metrics.render().decode()
        assert "arena_fanout_tick_ms 300.0" in metrics, metrics
        await asyncio.sleep(4 * server.fanout.LOAD_INTERVAL_S)
        assert server.fanout.tick_s == 0 and server.fanout.busy < 0.15
        assert "arena_fanout_tick_ms 0.0" in server.metrics.render().decode()
    said = [r.getMessage() for r in caplog.records if getattr(r, "event", None) == "fanout_tick"]
    assert len(said) == 2, said
    assert "wait up to 300 ms" in said[0] and "leave at once again" in said[1]


async def test_a_spectator_back_on_a_new_connection_syncs_and_watches_again(server, peers):
    ann, sue = await peers("ann"), await peers("sue")
    code = await started_race(ann)
    await sue.request(p.Watch(req=1, race=code), p.Snapshot)
    await ann.move(code, 1, "turn")
    seen = (await sue.expect(p.Progress)).version
    await sue.close()
    await ann.move(code, 2, "turn")
    again = Peer(await connect(server.url, compression=None))
    try:
        await again.hello("sue", token=sue.token)
        snapshot = await again.request(p.Sync(req=2, race=code, since=seen), p.Snapshot)
        missed = [f for f in again.frames if isinstance(f, p.Progress)]
        assert [f.version for f in missed] == [seen + 1] and missed[0].board.moves == 2
        assert snapshot.boards[ann.player].moves == 2
        await ann.move(code, 3, "turn")
        live = await again.expect(p.Progress, version=seen + 2)
        assert live.board.moves == 3
    finally:
        await again.close()


async def test_the_race_clock_stops_when_the_race_ends(server, peers):
    """After the end, a snapshot and a refused move give the race time of the end, not a time
    that keeps growing."""
    ann = await peers("ann")
    code = await started_race(ann, seed=11)
    await ann.request(p.Resign(req=5, race=code), p.RaceReply)
    await ann.expect(p.RaceFinished)
    ended = server.races[code].finished_ms
    await asyncio.sleep(0.05)
    snapshot = await ann.request(p.Sync(req=6, race=code, since=0), p.Snapshot)
    late = await ann.move(code, 1, "turn")
    assert snapshot.elapsed_ms == ended and late.elapsed_ms == ended and not late.ok
