"""Fair play: nothing an entrant receives tells it about its own hidden cards (docs/security.md).

Every entrant plays the same deal, so another entrant's move or board is information about one's
own stock. These tests play the attacks found against the server and check that each is closed;
the frame audit (tests/audit.py) checks every frame of every test besides.
"""

from __future__ import annotations

import asyncio

from websockets.asyncio.client import connect

from engine.core import Audience
from server import protocol as p
from server.protocol import board_of
from tests.server.conftest import FastClock, Peer
from tests.server.test_race_lifecycle import started_race


async def test_an_entrant_receives_the_standings_of_the_others_never_their_moves_or_boards(peers):
    """Ann's moves reach Bob as standings only (cards cleared, moves, status, time); a spectator
    gets the move and Ann's board, which shows the cards Ann turned from the stock, cards that
    lie face down in Bob's own stock."""
    ann, bob, sue = await peers("ann"), await peers("bob"), await peers("sue")
    code = await started_race(ann, bob, game="klondike", seed=5)
    await sue.request(p.Watch(req=3, race=code), p.Snapshot)
    for seq in (1, 2, 3):
        assert (await ann.move(code, seq, "deal")).ok
    to_bob = [await bob.expect(p.Progress, player=ann.player) for _ in range(3)]
    to_sue = [await sue.expect(p.Progress, player=ann.player) for _ in range(3)]
    assert all(f.move == "" and f.board is None for f in to_bob), "an entrant saw another's move or board"
    mine = next(s for s in to_bob[-1].standings if s.player == ann.player)
    assert (mine.moves, mine.status, mine.cleared) == (3, "playing", 0)
    assert [f.move for f in to_sue] == ["deal"] * 3
    assert "??" not in to_sue[-1].board.piles["w"][-1:], "the spectator sees Ann's waste"


async def test_watching_a_race_then_joining_it_ends_the_watch(server, peers):
    """A player that watched an open race and then joined it gets no spectator frame any more:
    no other entrant's board, in the live events or in a sync."""
    ann, eve = await peers("ann"), await peers("eve")
    code = (await ann.request(p.CreateRace(req=1, game="klondike", countdown_s=0), p.RaceReply)).race.code
    await eve.request(p.Watch(req=1, race=code), p.Snapshot)
    await eve.request(p.JoinRace(req=2, race=code), p.RaceReply)
    assert not server.races[code].spectators
    await ann.request(p.StartRace(req=3, race=code), p.RaceReply)
    await eve.expect(p.RaceStarted)
    for seq, move in enumerate(["deal", "deal", "deal"], start=1):
        assert (await ann.move(code, seq, move)).ok
        await eve.expect(p.Progress, player=ann.player)
    boards = [f for f in eve.frames if isinstance(f, p.Progress) and f.board is not None]
    assert boards == [], "the entrant kept receiving its opponent's boards"
    snapshot = await eve.request(p.Sync(req=4, race=code, since=0), p.Snapshot)
    assert snapshot.boards == {} and snapshot.board is not None


async def test_a_second_connection_of_an_entrant_cannot_watch_its_race(server, peers):
    """The same player on a second connection (a second tab) is still an entrant: no watching;
    and the first connection, replaced, receives nothing more."""
    ann, bob = await peers("ann"), await peers("bob")
    code = await started_race(ann, bob, game="klondike", seed=9)
    tab = Peer(await connect(server.url, compression=None))
    try:
        await tab.hello("bob", token=bob.token)
        refused = await tab.request(p.Watch(req=1, race=code), p.Snapshot)
        assert (type(refused), refused.code) == (p.Error, "not_allowed")
        before = len(bob.frames)
        assert (await ann.move(code, 1, "deal")).ok
        await tab.expect(p.Progress, player=ann.player)
        assert not [f for f in bob.frames[before:] if isinstance(f, p.Progress)], "the old connection got events"
    finally:
        await tab.close()


async def test_spectators_see_the_boards_late_and_the_standings_live():
    """With a spectator delay, a spectator gets each move's standings at once and the board only
    once the delay has passed on the server's clock, never before; a new spectator's snapshot
    shows the boards as they were that long ago."""
    from server.app import ArenaServer
    from server.config import ServerConfig

    clock = FastClock(20)  # a 10-second delay lasts half a real second
    async with ArenaServer(ServerConfig(ping_interval_s=None), clock=clock) as server:
        ann, sue = Peer(await connect(server.url)), Peer(await connect(server.url))
        try:
            await ann.hello("ann")
            await sue.hello("sue")
            created = await ann.request(
                p.CreateRace(req=1, game="klondike", seed=4, countdown_s=0, spectator_delay_s=10), p.RaceReply
            )
            code = created.race.code
            assert created.race.spectator_delay_s == 10
            await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
            await ann.expect(p.RaceStarted)
            await sue.request(p.Watch(req=1, race=code), p.Snapshot)
            moved_at = clock.monotonic()
            assert (await ann.move(code, 1, "deal")).ok
            live = await sue.expect(p.Progress, player=ann.player)
            assert live.board is None and live.move == "" and live.standings[0].moves == 1
            late = await sue.expect(p.DelayedBoard, timeout_ms=5000)
            assert clock.monotonic() - moved_at >= 10, "a delayed board was sent early"
            board = server.races[code].entrants[ann.player].game.view(Audience.SPECTATOR)
            assert (late.version, late.move, late.board) == (live.version, "deal", board_of(board))
        finally:
            await ann.close()
            await sue.close()


async def test_a_new_spectator_sees_the_boards_as_they_were_a_delay_ago():
    from server.app import ArenaServer
    from server.config import ServerConfig

    clock = FastClock(20)
    async with ArenaServer(ServerConfig(ping_interval_s=None), clock=clock) as server:
        ann, tom = Peer(await connect(server.url)), Peer(await connect(server.url))
        try:
            await ann.hello("ann")
            await tom.hello("tom")
            code = (
                await ann.request(
                    p.CreateRace(req=1, game="klondike", seed=4, countdown_s=0, spectator_delay_s=10), p.RaceReply
                )
            ).race.code
            await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
            deal = (await ann.expect(p.RaceStarted)).board
            for seq in (1, 2):
                assert (await ann.move(code, seq, "deal")).ok
            snapshot = await tom.request(p.Watch(req=1, race=code), p.Snapshot)
            assert snapshot.boards[ann.player] == deal, "a new spectator saw a board younger than the delay"
            assert snapshot.standings[0].moves == 2, "the standings are live"
            await asyncio.sleep(0.6)
            again = await tom.request(p.Watch(req=2, race=code), p.Snapshot)
            assert again.boards[ann.player].moves == 2
        finally:
            await ann.close()
            await tom.close()
