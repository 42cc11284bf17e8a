"""A finished tournament's results stay: once it has left the server's memory, `follow_tournament`
answers from the archive (a real SQLite file), on that server and on the next one started over
the same data directory."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from client.bot import run_tournament_bot
from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.config import ServerConfig
from server.protocol import ProtocolError, decode
from tests.server.conftest import FastClock
from tests.server.test_tournament import ADMIN, SPEED, finished_event, iso_after


async def test_a_finished_tournament_is_followed_from_the_archive_after_it_left_memory(tmp_path):
    """A one-deal rounds tournament with one bot entrant ends and leaves memory (a short
    retention); following it then gives its final standings and its deals, as at its end, on the
    same server and on a new one over the same data directory. Without an archive it is unknown."""
    config = ServerConfig(
        ping_interval_s=None,
        admin_token=ADMIN,
        idle_timeout_s=None,
        data_dir=tmp_path,
        race_retention_s=1.0,  # (server seconds: a real millisecond at this clock's speed)
        sweep_interval_s=0.02,
    )
    async with ArenaServer(config, clock=FastClock(SPEED)) as server:
        org = await ArenaClient.connect(server.url, "org")
        bot = await ArenaClient.connect(server.url, "bot")
        try:
            info = await org.create_tournament(
                ADMIN,
                "Kept results",
                "golf",
                1,
                format="rounds",
                starts_at=iso_after(server, 60),
                deal_time_limit_s=600,
                countdown_s=5,
            )
            tid = info.id
            await org.follow_tournament(tid)
            await run_tournament_bot(bot, tid)
            final = await finished_event(org, tid)
            at_end = next(
                e
                for e in reversed(org.pending_events())
                if type(e).__name__ == "TournamentEvent" and e.kind == "finished"
            ).standings
            assert [s.name for s in at_end] == ["bot"] and len(final.races) == 1
            for _ in range(500):  # it is archived, then leaves memory
                if tid not in server.tournaments:
                    break
                await asyncio.sleep(0.01)
            assert tid not in server.tournaments
            kept = await bot.follow_tournament(tid.lower())
        finally:
            for client in (org, bot):
                await client.close()
    assert kept.standings == at_end
    assert kept.tournament.status == "finished" and kept.tournament.races == final.races
    assert kept.tournament.seeds == final.seeds and kept.tournament.salts == final.salts

    async with ArenaServer(ServerConfig(ping_interval_s=None, data_dir=tmp_path)) as again:
        eve = await ArenaClient.connect(again.url, "eve")
        try:
            assert tid not in again.tournaments
            later = await eve.follow_tournament(tid)
        finally:
            await eve.close()
    assert later.standings == at_end and later.tournament.races == final.races

    async with ArenaServer(ServerConfig(ping_interval_s=None)) as forgetful:  # no archive: the old answer
        eve = await ArenaClient.connect(forgetful.url, "eve")
        try:
            with pytest.raises(ArenaError) as refused:
                await eve.follow_tournament(tid)
        finally:
            await eve.close()
    assert refused.value.code == "unknown_tournament"


async def test_a_players_history_lists_the_tournaments_it_played_with_its_place(tmp_path):
    """Two bots play a two-deal rounds tournament to its end; `history` of kind tournaments then
    lists it for each of them (its name, deals, its place of 2, its score), while kind races
    still lists races only; the organiser, who did not enter, has no tournament line."""
    config = ServerConfig(ping_interval_s=None, admin_token=ADMIN, idle_timeout_s=None, data_dir=tmp_path)
    async with ArenaServer(config, clock=FastClock(SPEED)) as server:
        org = await ArenaClient.connect(server.url, "org")
        ann = await ArenaClient.connect(server.url, "ann")
        bob = await ArenaClient.connect(server.url, "bob")
        try:
            info = await org.create_tournament(
                ADMIN,
                "Two deals",
                "golf",
                2,
                format="rounds",
                starts_at=iso_after(server, 60),
                deal_time_limit_s=600,
                countdown_s=5,
                max_entries_per_address=0,  # (both entrants connect from 127.0.0.1)
            )
            tid = info.id
            await org.follow_tournament(tid)
            await asyncio.gather(run_tournament_bot(ann, tid), run_tournament_bot(bob, tid))
            await finished_event(org, tid)
            for _ in range(1000):
                if server.archiver.tournaments_written:
                    break
                await asyncio.sleep(0.01)
            kept = await server.archiver.archive.get_tournament(tid)
            assert kept is not None
            places = {line.player: line for line in kept[1]}
            for client in (ann, bob):
                page = await client.history(tournaments=True)
                assert page.races == [] and page.cursor is None
                [line] = page.tournaments
                mine = places[client.player]
                assert (line.tournament, line.name, line.game, line.format, line.deals, line.outcome) == (
                    tid,
                    "Two deals",
                    "golf",
                    "rounds",
                    2,
                    "finished",
                )
                assert (line.place, line.entrants, line.cleared, line.time_ms, line.status) == (
                    mine.place,
                    2,
                    mine.cleared,
                    mine.time_ms,
                    mine.status,
                )
                assert line.finished_ms > 1_700_000_000_000
                races = await client.history()
                assert races.tournaments == [] and len(races.races) == 2  # its two deals, as races
            assert sorted(places[c.player].place for c in (ann, bob)) == [1, 2]
            assert (await org.history(tournaments=True)).tournaments == []
            with pytest.raises(ProtocolError) as refused:
                decode(msgspec.msgpack.encode({"type": "history", "req": 3, "kind": "medals"}))
            assert refused.value.code == "bad_field"
        finally:
            for client in (org, ann, bob):
                await client.close()
