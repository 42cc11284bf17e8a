"""Guests marked and ratings beside names, over a real server with a SQLite archive: a rated
race's standings say which entrants are claimed and carry each claimed entrant's rating as the
race started (the lobby's race list says who is claimed too), its saved description keeps both
over a rebuild; an unrated race carries no rating; a tournament's standings mark guests."""

from __future__ import annotations

import asyncio

from client.connection import ArenaClient
from server.app import ArenaServer
from server.config import ServerConfig
from server.race import Race
from tests.server.test_rated_races import _player, _race
from tests.server.test_tournament import ADMIN, iso_after


async def _until(predicate, timeout_s: float = 10.0) -> None:
    for _ in range(int(timeout_s / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached in time")


def _marks(standings) -> dict[str, tuple[bool, int | None, bool]]:
    return {s.name: (s.claimed, s.rating, s.provisional) for s in standings}


async def test_a_rated_race_shows_who_is_claimed_and_their_ratings(tmp_path):
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, password_per_s=20.0)
    async with ArenaServer(config) as server:
        alice = await _player(server.url, "alice")
        bob = await _player(server.url, "bob")
        carol = await _player(server.url, "carol", claim=False)
        async with alice, bob, carol:
            await _race(server, alice, bob)  # (alice and bob now have ratings)
            board = {row.name: row for row in (await carol.leaderboard("golf")).rows}
            assert board["alice"].rating > board["bob"].rating

            info = await alice.create_race("golf", countdown_s=1, rated=True)
            await bob.join_race(info.code)
            await carol.join_race(info.code)
            (listed,) = [r for r in (await carol.list_races(status="open")).races if r.code == info.code]
            assert listed.entrants == ["alice", "bob", "carol"] and listed.claimed == [True, True, False]
            await alice.start_race(info.code)
            race = server.races[info.code]
            await _until(lambda: race.entrants[alice.player].rating is not None)
            await carol.wait_for(lambda: info.code in carol.started, 10)
            await carol.resign(info.code)  # (a standings change: what every entrant receives now)
            snapshot = await bob.sync(info.code, bob.last_version.get(info.code, 0))
            expected = {
                "alice": (True, board["alice"].rating, True),
                "bob": (True, board["bob"].rating, True),
                "carol": (False, None, False),
            }
            assert _marks(snapshot.standings) == expected
            assert snapshot.race.claimed == [True, True, False]

            rebuilt = await Race.rebuild(
                info.code, await server.store.load_race(info.code), store=server.store, clock=server.clock
            )
            assert _marks(rebuilt.standings()) == expected and rebuilt.info().claimed == [True, True, False]

            for client in (alice, bob):
                await client.resign(info.code)
            await alice.wait_for(lambda: info.code in alice.finished, 10)
            assert _marks(alice.finished[info.code].standings) == expected

            casual = await alice.create_race("golf", countdown_s=0)
            await carol.join_race(casual.code)
            await alice.start_race(casual.code)
            await alice.wait_for(lambda: casual.code in alice.started, 10)
            await alice.resign(casual.code)
            await asyncio.sleep(0.1)  # (a rating task, if one were started, would have run)
            snapshot = await alice.sync(casual.code, 0)
            assert _marks(snapshot.standings) == {"alice": (True, None, False), "carol": (False, None, False)}


async def test_tournament_standings_mark_guests(tmp_path):
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, password_per_s=20.0, admin_token=ADMIN)
    async with ArenaServer(config) as server:
        alice = await _player(server.url, "alice")
        carol = await ArenaClient.connect(server.url, "carol")
        async with alice, carol:
            info = await alice.create_tournament(
                ADMIN, "Marks", "golf", 1, starts_at=iso_after(server, 3600), max_entries_per_address=0
            )
            for client in (alice, carol):
                await client.register_tournament(info.id)
            followed = await carol.follow_tournament(info.id)
            assert {s.name: s.claimed for s in followed.standings} == {"alice": True, "carol": False}
            tournament = server.tournaments[info.id]
            rebuilt = await type(tournament).rebuild(server, info.id, tournament._description())  # (as saved)
            assert {s.name: s.claimed for s in rebuilt.standings()} == {"alice": True, "carol": False}
