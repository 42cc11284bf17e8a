"""The lobby a flood cannot take over (server/lobby.py, docs/security.md "Lobby floods").

A flood of 10,000 open races from 40 addresses once pushed a real user's race to page 101 of the
newest-first lobby for half an hour. Now each player sees its own races and its friends' first,
then the races somebody joined, then the newest; and one address holds at most
``max_open_races_per_ip`` open races. The unit tests check the order and the cursor on the index
itself; the others flood a real server from loopback addresses 127.0.0.2 and up (Linux routes
all of 127/8 to the loopback interface).
"""

from __future__ import annotations

import asyncio
import random

import pytest
from websockets.asyncio.client import connect

from server import protocol as p
from server.app import ArenaServer
from server.lobby import FRIENDS_KEPT, OWN, PER_PLAYER_INDEXED, Lobby, shared_score
from server.players import Player
from server.store.redis import RedisStore
from tests.server.conftest import Peer


def walk(lobby: Lobby, listing: str, limit: int, player: Player | None = None) -> list[str]:
    """Every page of ``listing``, following the cursors, as ``player`` sees it."""
    codes, before = lobby.page(listing, before=None, limit=limit, player=player)
    while before is not None:
        page, before = lobby.page(listing, before=before, limit=limit, player=player)
        assert page, "a cursor led to an empty page"
        codes += page
    return codes


# ------------------------------------------------------------------------------- the index


def test_own_and_friends_races_come_first_then_those_joined_then_the_newest():
    lobby = Lobby()
    ann, bob = Player("p-ann", "ann", "t-ann"), Player("p-bob", "bob", "t-bob")
    for code, creator in [("A1", "p-x"), ("A2", "p-y"), ("A3", "p-bob"), ("A4", "p-z"), ("A5", "p-ann"), ("A6", "p-w")]:
        lobby.add(code, creator=creator)
    lobby.entered("A2", "p-q")
    lobby.entered("A1", "p-q")
    lobby.entered("A1", "p-r")
    lobby.entered("A4", "p-z")  # its creator: nobody joined it
    assert walk(lobby, "open", 10) == ["A1", "A2", "A6", "A5", "A4", "A3"]
    assert walk(lobby, "open", 10, ann) == ["A5", "A1", "A2", "A6", "A4", "A3"], "ann's own race first"
    lobby.raced([ann, bob], ["p-ann", "p-bob"])
    assert lobby.friends(ann) == ["p-bob"] and lobby.friends(bob) == ["p-ann"]
    assert walk(lobby, "open", 10, ann) == ["A5", "A3", "A1", "A2", "A6", "A4"], "then her friend's"
    lobby.entered("A6", "p-bob")  # a race her friend entered is hers to see first too
    assert walk(lobby, "open", 2, ann) == ["A6", "A5", "A3", "A1", "A2", "A4"]
    assert walk(lobby, "open", 10) == ["A1", "A6", "A2", "A5", "A4", "A3"]
    lobby.move("A1", "live")  # the live listing has the same order
    lobby.move("A3", "live")
    assert walk(lobby, "live", 1) == ["A1", "A3"] and walk(lobby, "live", 1, ann) == ["A3", "A1"]
    lobby.forget("A3")
    assert walk(lobby, "live", 5, ann) == ["A1"] and lobby.count("open") == 4


def test_the_cursor_says_which_part_the_page_ended_in():
    lobby = Lobby()
    ann = Player("p-ann", "ann", "t-ann")
    for n in range(5):
        lobby.add(f"R{n}", creator="p-ann" if n < 2 else "p-x")
    first, cursor = lobby.page("open", before=None, limit=1, player=ann)
    assert first == ["R1"] and cursor is not None and cursor >= OWN
    second, cursor = lobby.page("open", before=cursor, limit=2, player=ann)
    assert second == ["R0", "R4"] and cursor is not None and cursor < OWN
    assert lobby.page("open", before=cursor, limit=5, player=ann) == (["R3", "R2"], None)
    # a page that ends exactly with the last own race goes on with everyone's from their start
    own, cursor = lobby.page("open", before=None, limit=2, player=ann)
    assert own == ["R1", "R0"] and lobby.page("open", before=cursor, limit=5, player=ann) == (["R4", "R3", "R2"], None)


def test_paging_shows_every_race_exactly_once_in_the_order():
    """500 races, some joined, some live, some of a player's friends: every walk, at every page
    size, gives each race of the listing once, in the order the module docstring states."""
    rng = random.Random(7)
    lobby = Lobby()
    ann = Player("p-ann", "ann", "t-ann")
    friends = [f"p-f{n}" for n in range(5)]
    lobby.raced([ann], ["p-ann", *friends])
    joined: dict[str, int] = {}
    serial: dict[str, int] = {}
    mine: set[str] = set()
    for n in range(500):
        code = f"R{n:03}"
        creator = rng.choice(["p-ann", *friends]) if n % 50 == 0 else f"p-{n}"
        lobby.add(code, creator=creator)
        serial[code], joined[code] = n, 0
        if creator == "p-ann" or creator in friends:
            mine.add(code)
    for code in rng.sample(sorted(serial), 150):
        for k in range(rng.randint(1, 3)):
            lobby.entered(code, f"p-joiner-{code}-{k}")
            joined[code] += 1
    live = set(rng.sample(sorted(serial), 100))
    for code in live:
        lobby.move(code, "live")
    for listing, codes in (("open", set(serial) - live), ("live", live)):
        expected = sorted(codes, key=lambda c: (c in mine, joined[c], serial[c]), reverse=True)
        anyone = sorted(codes, key=lambda c: (joined[c], serial[c]), reverse=True)
        for limit in (1, 7, 50, 100):
            assert walk(lobby, listing, limit, ann) == expected
            assert walk(lobby, listing, limit) == anyone


def test_what_is_kept_per_player_is_bounded():
    lobby = Lobby()
    ann = Player("p-ann", "ann", "t-ann")
    lobby.raced([ann], ["p-ann", *(f"p-{n}" for n in range(FRIENDS_KEPT + 10))])
    assert lobby.friends(ann) == [f"p-{n}" for n in range(10, FRIENDS_KEPT + 10)], "the most recent ones"
    for n in range(PER_PLAYER_INDEXED + 5):
        lobby.add(f"R{n}", creator="p-x", entrants=["p-ann"])
    assert len(lobby.own("open", ann)) == PER_PLAYER_INDEXED
    lobby.move("R0", None)  # a race that leaves the listings makes room in the index
    lobby.add("NEW", creator="p-ann")
    assert "NEW" in {code for _, code in lobby.own("open", ann)}


def test_open_races_count_against_the_address_that_created_them_until_they_leave_the_open_listing():
    lobby = Lobby()
    for code in ("A", "B", "C"):
        lobby.add(code, creator="p-x")
        lobby.opened_from(code, "192.0.2.1")
    assert lobby.open_from("192.0.2.1") == 3 and lobby.open_from("192.0.2.2") == 0
    lobby.move("A", "live")
    lobby.forget("B")
    assert lobby.open_from("192.0.2.1") == 1


async def test_the_shared_lobby_in_redis_orders_by_players_joined_and_shows_tied_races_once(redis_at, redis_prefix):
    """Several nodes share the lobby in a Redis sorted set scored by `shared_score`: races
    somebody joined first, then the newest; races created in the same millisecond with the same
    score each come once however the pages fall, and ``skip`` leaves a player's own races out."""
    store = RedisStore(redis_at.url, prefix=redis_prefix)
    now_ms = 1_790_000_000_000
    placed = {f"T{n}": shared_score(0, now_ms, "T0") for n in range(7)}  # seven races of one score
    placed |= {"OLD": shared_score(0, now_ms - 1, "OLD"), "NEW": shared_score(0, now_ms + 1, "NEW")}
    placed["JOINED"] = shared_score(1, now_ms - 5000, "JOINED")
    try:
        for code, score in placed.items():
            await store.list_race(code, "open", score, code.encode())
        for count in (1, 2, 3, 100):
            seen, before = [], None
            while True:
                page = await store.lobby_page("open", before, count + 1, skip={"T3"})
                seen += [info.decode() for _, info in page[:count]]
                if len(page) <= count:
                    break
                before = page[count - 1][0]
            assert len(seen) == len(set(seen)) == 9 and "T3" not in seen, (count, seen)
            assert seen[:2] == ["JOINED", "NEW"] and seen[-1] == "OLD"
            assert all(after < OWN for after, _ in await store.lobby_page("open", None, 10, set()))
    finally:
        await store.close()


# ---------------------------------------------------------------------------- a real server


@pytest.fixture
async def open_peer():
    """``await open_peer(server, name, address)``: a Peer connected from ``address`` that said hello."""
    made: list[Peer] = []

    async def make(server: ArenaServer, name: str, address: str = "127.0.0.1") -> Peer:
        made.append(Peer(await connect(server.url, compression=None, local_addr=(address, 0))))
        await made[-1].hello(name)
        return made[-1]

    yield make
    for peer in made:
        await peer.close()


async def create(who: Peer, req: int, **fields) -> p.RaceReply | p.Error:
    return await who.request(p.CreateRace(req=req, game="golf", countdown_s=0, **fields), p.RaceReply)


async def first_page(who: Peer, req: int = 900, status: str = "open") -> list[str]:
    page = await who.request(p.ListRaces(req=req, status=status), p.Races)
    assert isinstance(page, p.Races), page
    return [race.code for race in page.races]


async def test_a_flood_from_forty_addresses_leaves_a_joined_race_on_everyones_first_page(make_server, open_peer):
    """Six players on each of 40 addresses each try to open five races (1,200 tries); each address
    gets its 20 open races (the rest are refused), and the race ann opened before the flood and
    bob joined is the first race on the first page for a newcomer, and on a flooder's first page
    right after its own races."""
    server = await make_server()
    ann, bob = await open_peer(server, "ann"), await open_peer(server, "bob")
    real = (await create(ann, 1)).race.code
    await bob.request(p.JoinRace(req=1, race=real), p.RaceReply)

    flooders: list[Peer] = []

    async def flood(host: int) -> list[str]:
        peers = [await open_peer(server, f"flood{host}-{n}", f"127.0.0.{host}") for n in range(6)]
        flooders.extend(peers)
        replies = await asyncio.gather(*(create(who, req) for who in peers for req in range(1, 6)))
        return [r.code if isinstance(r, p.Error) else "created" for r in replies]

    outcomes = [o for host in range(2, 42) for o in await flood(host)]
    assert outcomes.count("created") == 40 * 20 and outcomes.count("too_many_races") == 40 * 10
    assert server.lobby.count("open") == 801
    eve = await open_peer(server, "eve")
    assert (await first_page(eve))[0] == real, "the joined race is not the first a newcomer sees"
    assert (await first_page(ann))[0] == real
    for flooder in (flooders[0], flooders[-1]):
        seen, own = await first_page(flooder), len(server.players_by_id[flooder.player].open_races)
        assert seen[own] == real and all(server.races[c].creator == flooder.player for c in seen[:own])


async def test_a_players_own_race_and_a_friends_come_first_for_that_player(make_server, open_peer):
    """ann raced bob once; later bob opens a race, carol opens one dave joins, and a flood opens
    30 more. ann sees her own race and bob's first, then carol's; eve, no friend of bob, sees
    carol's first and bob's among the flood, newest first."""
    server = await make_server()
    ann, bob = await open_peer(server, "ann"), await open_peer(server, "bob")
    carol, dave = await open_peer(server, "carol", "127.0.0.2"), await open_peer(server, "dave", "127.0.0.2")
    together = (await create(ann, 1)).race.code
    await bob.request(p.JoinRace(req=1, race=together), p.RaceReply)
    await ann.request(p.StartRace(req=2, race=together), p.RaceReply)
    bobs = (await create(bob, 2)).race.code
    carols = (await create(carol, 1)).race.code
    await dave.request(p.JoinRace(req=1, race=carols), p.RaceReply)
    anns = (await create(ann, 3)).race.code
    flood = [await open_peer(server, f"flood{n}", f"127.0.0.{3 + n}") for n in range(6)]
    for who in flood:
        for req in range(1, 6):
            assert isinstance(await create(who, req), p.RaceReply)
    assert (await first_page(ann))[:3] == [anns, bobs, carols]
    eve = await open_peer(server, "eve")
    seen = await first_page(eve)
    assert seen[0] == carols and seen.index(bobs) > 30 and seen.index(anns) > 30
    assert (await first_page(ann, status="live")) == [together]


async def test_one_address_may_hold_only_so_many_open_races(make_server, open_peer):
    server = await make_server(max_open_races_per_ip=3)
    ann, bob = await open_peer(server, "ann"), await open_peer(server, "bob")
    carol = await open_peer(server, "carol", "127.0.0.2")
    first = (await create(ann, 1)).race.code
    assert isinstance(await create(ann, 2), p.RaceReply) and isinstance(await create(bob, 1), p.RaceReply)
    refused = await create(bob, 2)
    assert isinstance(refused, p.Error) and (refused.code, refused.req) == ("too_many_races", 2)
    assert "address" in refused.reason and "3" in refused.reason
    assert isinstance(await create(carol, 1), p.RaceReply), "another address is not held back"
    await ann.request(p.StartRace(req=3, race=first), p.RaceReply)
    assert isinstance(await create(bob, 3), p.RaceReply), "a race that started makes room"
    assert server.lobby.open_from("127.0.0.1") == 3
