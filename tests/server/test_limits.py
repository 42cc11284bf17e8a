"""Every request costs bounded work, and everything kept has a limit or a retention time.

Each test plays one attack found against the server (docs/security.md lists them): a listing that
scanned every race, silent sockets that used up the open files, races nobody starts, entrants that
never move, a sync that queued a whole long race at once, memory that only grew.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from engine.games import find_game
from server import protocol as p
from server.app import ArenaServer
from server.logs import RepeatFilter
from server.race import RESULTS_KEPT, Race
from tests.server.conftest import FastClock, Peer
from tests.server.test_race_lifecycle import started_race


async def any_move(who: Peer, code: str, seq: int) -> p.MoveResult:
    """Play Klondike's always-legal move number ``seq``: turn the stock, or redeal it once empty."""
    result = await who.move(code, seq, "deal")
    return result if result.ok else await who.move(code, seq, "redeal")


def open_races(server: ArenaServer, count: int) -> list[str]:
    """Put ``count`` open Golf races on the server directly (the test's setup, not an attack)."""
    golf = find_game("golf")
    codes = []
    for seed in range(count):
        race = Race(
            server.new_race_code(),
            golf,
            options={},
            seed=seed,
            seed_public=True,
            creator="p-setup",
            max_entrants=8,
            countdown_s=3,
            time_limit_s=900,
            store=server.store,
            clock=server.clock,
        )
        server.add_race(race)
        codes.append(race.code)
    return codes


async def peer(server: ArenaServer, name: str) -> Peer:
    made = Peer(await connect(server.url, compression=None))
    await made.hello(name)
    return made


# ------------------------------------------------------------------------------- listing


async def test_listing_races_costs_one_page_however_many_races_are_open(server, peers, monkeypatch):
    """list_races reads only the page it answers (an index, not a scan of every race), and the
    pages, followed by their cursors, give every open race once, newest first."""
    codes = open_races(server, 3000)
    built = []
    info = Race.info
    monkeypatch.setattr(Race, "info", lambda race: built.append(race.code) or info(race))
    eve = await peers("eve")
    first = await eve.request(p.ListRaces(req=1), p.Races)  # the default page: 50
    assert len(first.races) == 50 and len(built) == 50, "a listing built every race's description"
    seen, before = [r.code for r in first.races], first.cursor
    while before is not None:
        page = await eve.request(p.ListRaces(req=2, before=before, limit=100), p.Races)
        seen += [r.code for r in page.races]
        before = page.cursor
    assert seen == codes[::-1]
    assert len(built) == 3000


async def test_live_races_are_listed_apart_from_open_ones(peers):
    ann = await peers("ann")
    code = await started_race(ann)
    live = await ann.request(p.ListRaces(req=5, status="live"), p.Races)
    assert [r.code for r in live.races] == [code] and live.races[0].status == "running"
    assert (await ann.request(p.ListRaces(req=6), p.Races)).races == []


# ---------------------------------------------------------------------------- connections


async def test_a_connection_that_never_says_hello_is_closed(make_server):
    server = await make_server(hello_timeout_s=0.2)
    silent = Peer(await connect(server.url, compression=None))
    await asyncio.wait_for(silent._reader, 2)
    assert silent.ws.close_code == 1008 and "hello" in silent.ws.close_reason


@pytest.mark.slow
async def test_one_address_cannot_lock_everyone_out_with_silent_sockets(make_server, caplog):
    """Silent sockets from one address: past max_connections_per_ip they are reset at once (one
    log line for all of them), the rest are closed at the handshake timeout, and a player from
    another address connects and plays all along."""
    # (a handshake timeout of 2 s: opening the 40 sockets must take less, even on a busy machine)
    server = await make_server(max_connections_per_ip=8, open_timeout_s=2)
    host, port = server.url.removeprefix("ws://").rsplit(":", 1)
    caplog.set_level(logging.WARNING, logger="arena.server")
    loop = asyncio.get_running_loop()
    sockets = [await asyncio.open_connection(host, int(port), local_addr=("127.0.0.2", 0)) for _ in range(40)]
    opened_at = loop.time()
    await asyncio.sleep(0.1)
    assert server.by_address["127.0.0.2"] == 8
    # the resets may take a moment to arrive on a busy machine; the other 8 stay open for 2 s
    while await closed_by_server(sockets) < 40 - 8 and loop.time() < opened_at + 1.5:
        await asyncio.sleep(0.05)
    assert await closed_by_server(sockets) == 40 - 8
    refusals = [r for r in caplog.records if "max_connections_per_ip" in r.getMessage()]
    assert len(refusals) <= 1, "one log line per refused socket"
    ann = await peer(server, "ann")
    try:
        code = await started_race(ann)
        assert (await ann.move(code, 1, "turn")).ok
        while server.by_address.get("127.0.0.2", 0) and loop.time() < opened_at + 3:
            await asyncio.sleep(0.05)
        assert server.by_address.get("127.0.0.2", 0) == 0, "silent sockets outlived the handshake timeout"
        assert await closed_by_server(sockets) == 40
        assert (await ann.move(code, 2, "turn")).ok
    finally:
        await ann.close()
        for _, writer in sockets:
            writer.close()


async def test_one_address_reconnecting_in_a_loop_gets_only_so_many_handshakes(make_server, caplog):
    """An address may open 2 new websockets a second with a burst of 5: of 12 opened at once from
    it the first 5 are served and the rest refused with 429 at the handshake (one log line for all
    of them), while plain HTTP requests from it are still answered; a token later it may open one
    more; a player from another address connects and plays all along."""
    server = await make_server(connections_per_s_per_ip=2, connections_burst_per_ip=5)
    caplog.set_level(logging.WARNING, logger="arena.server")
    ann = await peer(server, "ann")
    opened, refused = [], 0
    try:
        code = await started_race(ann, game="klondike", seed=11)
        for _ in range(12):
            try:
                opened.append(await connect(server.url, local_addr=("127.0.0.2", 0), open_timeout=5))
            except InvalidStatus as exc:
                assert exc.response.status_code == 429
                refused += 1
        assert (len(opened), refused) == (5, 7)
        host, port = server.url.removeprefix("ws://").rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port), local_addr=("127.0.0.2", 0))
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: arena\r\n\r\n")
        assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"HTTP/1.1 200")
        writer.close()
        assert (await any_move(ann, code, 1)).ok
        lines = [r for r in caplog.records if "connections_per_s_per_ip" in r.getMessage()]
        assert len(lines) == 1, "one log line for every refused socket"
        await asyncio.sleep(0.6)  # (one token back at 2 a second)
        opened.append(await connect(server.url, local_addr=("127.0.0.2", 0), open_timeout=5))
        assert server.by_address["127.0.0.2"] == 6
        assert (await any_move(ann, code, 2)).ok
    finally:
        await ann.close()
        for ws in opened:
            await ws.close()


async def closed_by_server(sockets: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> int:
    """How many of these raw sockets the server has closed or reset."""
    closed = 0
    for reader, _ in sockets:
        try:
            closed += await asyncio.wait_for(reader.read(1), 0.02) == b""
        except ConnectionError:
            closed += 1
        except TimeoutError:
            pass
    return closed


def test_the_same_log_line_is_written_once_per_window():
    times = iter(float(t) for t in range(1000))
    repeat = RepeatFilter(window_s=100, now=lambda: next(times))
    records = [
        logging.LogRecord("asyncio", logging.ERROR, "", 0, "socket.accept() out of system resource", (), None)
        for _ in range(250)
    ]
    passed = [r for r in records if repeat.filter(r)]
    assert len(passed) == 3
    assert "99 more like it" in passed[1].getMessage()


# ---------------------------------------------------------------------------------- races


async def test_a_player_may_have_only_so_many_races_open_and_create_only_so_many_an_hour(make_server):
    server = await make_server(max_open_races_per_player=2, races_per_hour_per_player=3, races_per_hour_per_ip=5)
    ann, bob = await peer(server, "ann"), await peer(server, "bob")

    async def create(who: Peer, req: int):
        return await who.request(p.CreateRace(req=req, game="golf", countdown_s=0), p.RaceReply)

    try:
        first, second = (await create(ann, 1)).race.code, (await create(ann, 2)).race.code
        refused = await create(ann, 3)
        assert (refused.code, refused.req) == ("too_many_races", 3) and "not started" in refused.reason
        await ann.request(p.StartRace(req=4, race=first), p.RaceReply)
        assert isinstance(await create(ann, 5), p.RaceReply), "starting a race makes room for another"
        await ann.request(p.StartRace(req=6, race=second), p.RaceReply)
        hourly = await create(ann, 7)
        assert hourly.code == "too_many_races" and "an hour" in hourly.reason
        bobs = (await create(bob, 1)).race.code
        await bob.request(p.StartRace(req=2, race=bobs), p.RaceReply)
        assert isinstance(await create(bob, 3), p.RaceReply)
        address = await create(bob, 4)
        assert address.code == "too_many_races" and "address" in address.reason
        assert len(server.races) == 5
    finally:
        await ann.close()
        await bob.close()


async def test_an_open_race_nobody_starts_expires(make_server):
    server = await make_server(clock=FastClock(1000), open_race_ttl_s=60)
    ann = await peer(server, "ann")
    try:
        code = (await ann.request(p.CreateRace(req=1, game="golf"), p.RaceReply)).race.code
        finished = await ann.expect(p.RaceFinished, timeout_ms=3000)
        assert (finished.race, finished.reason) == (code, "expired")
        assert server.clock.monotonic() >= 60
        assert (await ann.request(p.ListRaces(req=2), p.Races)).races == []
        assert (await ann.request(p.CreateRace(req=3, game="golf"), p.RaceReply)).race.code != code
    finally:
        await ann.close()


async def test_an_entrant_that_stops_moving_cannot_hold_the_race_hostage(make_server):
    """Bob never moves: after idle_timeout_s he is out of time and Ann races on; once she stops
    too the race ends, long before its time limit."""
    # (100 times faster: the idle timeout is 300 real ms, room for a garbage collection of
    # this test process between the start and the first move)
    server = await make_server(clock=FastClock(100), idle_timeout_s=30)
    ann, bob = await peer(server, "ann"), await peer(server, "bob")
    try:
        code = await started_race(ann, bob, time_limit_s=3600)
        for seq in (1, 2, 3):
            assert (await ann.move(code, seq, "turn")).ok
            await asyncio.sleep(0.12)  # 12 seconds of race time between moves
        idle = await ann.expect(p.Progress, player=bob.player, timeout_ms=2000)
        assert {s.name: s.status for s in idle.standings} == {"ann": "playing", "bob": "out_of_time"}
        finished = await ann.expect(p.RaceFinished, timeout_ms=3000)
        assert finished.reason == "all_done" and server.races[code].elapsed_ms() < 3_600_000
        assert {s.name: s.status for s in finished.standings} == {"ann": "out_of_time", "bob": "out_of_time"}
        assert next(s for s in finished.standings if s.name == "ann").moves == 3
    finally:
        await ann.close()
        await bob.close()


async def test_an_entrant_may_make_only_so_many_moves_in_a_race(make_server):
    server = await make_server(max_moves=5)
    ann = await peer(server, "ann")
    try:
        code = await started_race(ann)
        for seq in range(1, 6):
            assert (await ann.move(code, seq, "turn")).ok
        capped = await ann.move(code, 6, "turn")
        assert (capped.ok, capped.code) == (False, "move_limit")
        assert server.races[code].entrants[ann.player].game.view().moves == 5
        assert isinstance(await ann.request(p.Resign(req=9, race=code), p.RaceReply), p.RaceReply)
    finally:
        await ann.close()


async def test_only_the_last_answers_are_kept_for_repeated_move_numbers(server, peers):
    """The answers to the last RESULTS_KEPT moves come back byte for byte; an older number gets
    old_seq and changes nothing."""
    ann = await peers("ann")
    code = await started_race(ann, game="klondike", seed=2)
    last = None
    for seq in range(1, RESULTS_KEPT + 11):
        last = await any_move(ann, code, seq)
        assert last.ok
    entrant = server.races[code].entrants[ann.player]
    assert len(entrant.results) == RESULTS_KEPT
    assert await ann.move(code, last.seq, "deal") == last
    old = await ann.move(code, 3, "redeal")
    assert (old.ok, old.code) == (False, "old_seq")
    assert entrant.game.view().moves == RESULTS_KEPT + 10


# ------------------------------------------------------------------------------ catching up


async def test_a_sync_of_a_long_race_comes_in_pages_that_fit_the_queue(make_server):
    """A race with many more events than a client's queue holds: sync answers a page at a time
    (sync_page), the client asks on, and ends with the snapshot, never closed as too slow."""
    server = await make_server(max_send_buffer_bytes=8000)  # pages of 256 would not fit: they shrink to the room
    ann, sue = await peer(server, "ann"), await peer(server, "sue")
    try:
        code = await started_race(ann, game="klondike")
        await sue.request(p.Watch(req=1, race=code), p.Snapshot)
        await sue.close()
        for seq in range(1, 101):
            assert (await any_move(ann, code, seq)).ok
        back = Peer(await connect(server.url, compression=None))
        try:
            await back.hello("sue", token=sue.token)
            since, pages = 0, 0
            while True:
                reply = await back.request(p.Sync(req=pages, race=code, since=since), (p.Snapshot, p.SyncPage))
                if isinstance(reply, p.Snapshot):
                    break
                assert isinstance(reply, p.SyncPage) and since < reply.until < since + 100
                since, pages = reply.until, pages + 1
            versions = [f.version for f in back.frames if isinstance(f, p.Progress)]
            assert versions == list(range(versions[0], reply.race.version + 1)) and len(versions) == 100
            assert pages >= 2
            assert back.ws.close_code is None, "closed as too slow while catching up"
            assert reply.boards[ann.player].moves == 100
        finally:
            await back.close()
    finally:
        await ann.close()


async def test_a_spectator_that_reads_slowly_gets_the_newest_boards_never_a_backlog(make_server):
    """A spectator whose socket is full (it stops reading) is behind: the boards it is sent wait,
    each entrant's newest replacing the older, and when it reads again it gets that newest board,
    versions only rising, far fewer frames than moves; a spectator that keeps up gets every
    move, and a sync still returns every event."""
    import socket

    server = await make_server(  # (no fan-out tick: the spectator that keeps up gets each move at once)
        behind_bytes=4096, socket_send_bytes=4096, rate_per_s=10_000, burst=10_000, fanout_busy_share=2.0
    )
    ann, bob = await peer(server, "ann"), await peer(server, "bob")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # (before connecting: a small window)
    sock.setblocking(False)
    host, port = server.url.removeprefix("ws://").rsplit(":", 1)
    await asyncio.get_running_loop().sock_connect(sock, (host, int(port)))
    slow = Peer(await connect(server.url, sock=sock, compression=None, max_queue=1))
    try:
        await slow.hello("sue")
        code = await started_race(ann, game="klondike")
        await slow.request(p.Watch(req=1, race=code), p.Snapshot)
        await bob.request(p.Watch(req=1, race=code), p.Snapshot)
        slow._reader.cancel()  # sue stops reading: her socket fills
        moves = 400
        for seq in range(1, moves + 1):
            last = await any_move(ann, code, seq)
            assert last.ok
        await bob.expect(p.Progress, move=last.move, timeout_ms=5000)
        latest = server.races[code].version
        while (bob_seen := [f.version for f in bob.frames if isinstance(f, p.Progress)])[-1] < latest:
            await asyncio.sleep(0.01)
        assert len(bob_seen) == moves and bob_seen == sorted(bob_seen)  # keeping up: every move
        session = next(s for s in server.sessions if s.player is not None and s.player.id == slow.player)
        assert session._held, "the slow spectator never counted as behind"
        got: list[p.Progress] = []
        async with asyncio.timeout(10):
            while not got or got[-1].version < latest:
                message = p.decode_server(await slow.ws.recv())
                if isinstance(message, p.Progress):
                    got.append(message)
        versions = [m.version for m in got]
        assert versions == sorted(set(versions)), "an older board came after a newer one"
        assert len(got) < moves // 2, f"{len(got)} frames for {moves} moves: the backlog was sent"
        assert got[-1].board is not None and got[-1].board.piles == last.board.piles
        assert server.tally.standings_superseded > 0
        slow._reader = asyncio.create_task(slow._read())
        since, events = 0, []
        while True:  # every event is still there for whoever asks
            reply = await slow.request(p.Sync(req=since + 10, race=code, since=since), (p.Snapshot, p.SyncPage))
            events = [f.version for f in slow.frames if isinstance(f, p.Progress)]
            if isinstance(reply, p.Snapshot):
                break
            since = reply.until
        assert set(range(latest - moves + 1, latest + 1)) <= set(events)
    finally:
        for who in (ann, bob, slow):
            await who.close()


async def test_the_client_library_catches_up_on_a_long_race(make_server):
    from client.connection import ArenaClient

    server = await make_server(max_send_buffer_bytes=8000, sync_page_events=16)
    async with await ArenaClient.connect(server.url, "ann") as ann:
        info = await ann.create_race("klondike", seed=3, countdown_s=0)
        await ann.start_race(info.code)
        await ann.wait_for(lambda: info.code in ann.started, timeout_s=5)
        for _ in range(90):
            result = await ann.move(info.code, "deal")
            assert result.ok or (await ann.move(info.code, "redeal")).ok
        ann.last_version[info.code] = 0  # as if it had missed everything
        snapshot = await ann.sync(info.code, 0)
        assert snapshot.board.moves == 90 and snapshot.next_seq == 91
        assert ann.connected


# --------------------------------------------------------------------------------- memory


async def test_finished_races_and_idle_players_leave_memory_and_records_stay_verifiable(make_server):
    """After the retention times: the race leaves the server's memory and the store keeps only
    its record (get_record and verify still work), the disconnected player is forgotten (its
    token no longer resumes), and once the record's own time is over the race is unknown."""
    from client.verify import verify_record

    server = await make_server(
        clock=FastClock(1000), race_retention_s=60, player_retention_s=60, record_retention_s=600
    )
    ann, bob = await peer(server, "ann"), await peer(server, "bob")
    code = await started_race(ann, bob)
    commitment = next(f for f in ann.frames if isinstance(f, p.RaceStarting)).commitment
    for seq in (1, 2):
        assert (await ann.move(code, seq, "turn")).ok
    for entrant in (ann, bob):
        await entrant.request(p.Resign(req=7, race=code), p.RaceReply)
    await ann.expect(p.RaceFinished)
    token = bob.token
    await bob.close()
    try:
        for _ in range(100):
            await asyncio.sleep(0.02)
            if code not in server.races and token not in server.players:
                break
        assert code not in server.races and token not in server.players
        assert len(server.store) == 0, "the store kept the race's events and move logs"
        assert ann.token in server.players, "a connected player is kept"
        record = await ann.request(p.GetRecord(req=8, race=code), p.RaceRecord)
        assert record.req == 8 and record.entrants[0].moves == ["turn", "turn"]
        assert verify_record(record, commitment).ok
        again = Peer(await connect(server.url, compression=None))
        try:
            assert (await again.request(p.Hello(name="bob", token=token), p.Welcome)).code == "bad_token"
        finally:
            await again.close()
        await asyncio.sleep(0.7)
        gone = await ann.request(p.GetRecord(req=9, race=code), p.RaceRecord)
        assert gone.code == "unknown_race"
    finally:
        await ann.close()


async def test_memory_freed_by_a_burst_of_evictions_is_given_back_once_it_is_over(make_server, monkeypatch):
    from server import upkeep

    trims = []
    monkeypatch.setattr(upkeep, "TRIM_MIN", 20)
    monkeypatch.setattr(upkeep, "give_back_memory", lambda: trims.append(len(server.races)))
    server = await make_server(
        clock=FastClock(1000),
        open_race_ttl_s=30,
        race_retention_s=30,
        max_open_races_per_player=100,
        max_open_races_per_ip=100,
        races_per_hour_per_player=100,
    )
    ann = await peer(server, "ann")
    try:
        for req in range(25):
            await ann.request(p.CreateRace(req=req, game="golf"), p.RaceReply)
        for _ in range(150):
            await asyncio.sleep(0.02)
            if trims:
                break
        assert trims and 25 - trims[0] >= 20, "given back once at least TRIM_MIN races had left, not before"
    finally:
        await ann.close()


async def test_races_left_alone_leave_no_trace_in_memory(make_server):
    """Hundreds of races created and never started: they expire, then leave memory with every
    index entry and stored event; only the bounded counters of the last hour remain."""
    server = await make_server(
        clock=FastClock(1000),
        open_race_ttl_s=30,
        race_retention_s=30,
        max_open_races_per_player=1000,
        max_open_races_per_ip=1000,
        races_per_hour_per_player=1000,
        races_per_hour_per_ip=1000,
        rate_per_s=10_000,
        burst=10_000,
    )
    ann = await peer(server, "ann")
    try:
        for req in range(300):
            assert isinstance(await ann.request(p.CreateRace(req=req, game="golf"), p.RaceReply), p.RaceReply)
        for _ in range(150):
            await asyncio.sleep(0.02)
            if not server.races:
                break
        assert server.races == {} and server.race_counts == {}
        assert server.lobby.count("open") == server.lobby.count("live") == 0
        assert len(server.store) == 0
        assert server.players[ann.token].open_races == set() and server.players[ann.token].races == set()
    finally:
        await ann.close()


async def test_behind_a_trusted_proxy_the_limit_applies_to_each_forwarded_address(make_server):
    """Every connection through a reverse proxy comes from the proxy's address; the server counts
    each against the client address the proxy forwards, and refuses one over the limit with 429."""
    from websockets.exceptions import InvalidStatus

    server = await make_server(max_connections_per_ip=2, trusted_proxies=("127.0.0.1",))

    async def through_proxy(client: str):
        return await connect(server.url, additional_headers={"X-Forwarded-For": f"198.51.100.9, {client}"})

    first, second = await through_proxy("203.0.113.7"), await through_proxy("203.0.113.7")
    with pytest.raises(InvalidStatus) as refused:
        await through_proxy("203.0.113.7")
    assert refused.value.response.status_code == 429
    others = [await through_proxy(f"203.0.113.{n}") for n in range(20, 25)]
    assert server.by_address["203.0.113.7"] == 2 and server.connections == 7
    for ws in (first, second, *others):
        await ws.close()
