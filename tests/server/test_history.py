"""A player's identity lasts, and its history: real servers over a real SQLite archive in a
temporary data directory, real clients.

A player's token resumes the same player (id and name) on a server that has forgotten it, from
the archive, which keeps the token only as a digest; `history` lists the player's finished races
newest first, a page at a time by cursor, and still does on a new server over the same data
directory."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest

from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from server.players import token_digest
from tests.conftest import MS

#: A public Golf deal and its winning line (seeds/golf.txt).
WINNER = load_catalog(public_catalogs(), "golf")[0]
LINE = list(WINNER.moves)
WAIT_S = 10_000 * MS


async def race(ann: ArenaClient, bob: ArenaClient, *, bob_resigns: bool) -> str:
    """Ann and Bob race the catalog deal: Ann wins; Bob wins too, or resigns at once. The race's code."""
    info = await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)
    await bob.join_race(info.code)
    await ann.start_race(info.code)
    for client in (ann, bob):
        await client.wait_for(lambda c=client: info.code in c.started, WAIT_S)
    if bob_resigns:
        await bob.resign(info.code)
    for client in (ann,) if bob_resigns else (ann, bob):
        for notation in LINE:
            assert (await client.move(info.code, notation)).ok
    for client in (ann, bob):
        await client.wait_for(lambda c=client: info.code in c.finished, WAIT_S)
    return info.code


async def until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not await condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


async def test_history_pages_newest_first_and_a_player_outlives_its_server(tmp_path):
    config = {"data_dir": tmp_path, "ping_interval_s": None}
    async with ArenaServer(ServerConfig(**config)) as first:
        archive = first.archiver.archive
        ann = await ArenaClient.connect(first.url, "ann", timeout_s=WAIT_S)
        bob = await ArenaClient.connect(first.url, "bob", timeout_s=WAIT_S)
        older = await race(ann, bob, bob_resigns=False)
        newer = await race(ann, bob, bob_resigns=True)

        async def both_archived() -> bool:
            rows, _ = await archive.races_of(ann.player, before=None, limit=5)
            return len(rows) == 2

        await until(both_archived, "the two races were not archived")
        page = await ann.history(limit=1)
        assert [r.race for r in page.races] == [newer] and page.cursor is not None
        last = await ann.history(before=page.cursor, limit=1)
        assert [r.race for r in last.races] == [older] and last.cursor is None
        whole = await bob.history()
        assert whole.cursor is None
        assert [(r.race, r.game, r.place, r.entrants, r.status) for r in whole.races] == [
            (newer, "golf", 2, 2, "resigned"),
            (older, "golf", 1, 2, "won") if whole.races[1].place == 1 else (older, "golf", 2, 2, "won"),
        ]
        mine = await ann.history()
        assert [(r.race, r.place, r.status, r.cleared == r.total) for r in mine.races] == [
            (newer, 1, "won", True),
            (older, mine.races[1].place, "won", True),
        ]
        assert all(r.time_ms > 0 and r.finished_ms > 1_700_000_000_000 for r in mine.races)
        assert mine.races[0].finished_ms >= mine.races[1].finished_ms
        with pytest.raises(ArenaError) as refused:
            await ann.history(before="not a cursor")
        assert refused.value.code == "bad_field"

        await ann.rename("annie")
        ann_id, ann_token = ann.player, ann.token

        async def renamed() -> bool:
            return await archive.player_by_token(token_digest(ann_token)) == (ann_id, "annie")

        await until(renamed, "the rename did not reach the archive")
        for client in (ann, bob):
            await client.close()

    with sqlite3.connect(tmp_path / "arena.db") as db:  # the token is kept only as its digest
        kept = db.execute(
            "SELECT p.id, p.name, t.token_digest, p.created_ms <= p.seen_ms"
            " FROM players p JOIN player_tokens t ON t.player_id = p.id"
        ).fetchall()
    assert (ann_id, "annie", token_digest(ann_token), 1) in kept
    assert not any(ann_token in str(row) for row in kept)

    async with ArenaServer(ServerConfig(**config)) as second:
        again = await ArenaClient.connect(second.url, "someone else", token=ann_token, timeout_s=WAIT_S)
        assert (again.player, again.name) == (ann_id, "annie")
        page = await again.history()
        assert [r.race for r in page.races] == [newer, older]
        await again.close()

    async with ArenaServer(ServerConfig(ping_interval_s=None)) as forgetful:  # no archive
        with pytest.raises(ArenaError) as refused:
            await ArenaClient.connect(forgetful.url, "ann", token=ann_token, timeout_s=WAIT_S)
        assert refused.value.code == "bad_token"
        eve = await ArenaClient.connect(forgetful.url, "eve", timeout_s=WAIT_S)
        with pytest.raises(ArenaError) as refused:
            await eve.history()
        assert refused.value.code == "unavailable"
        await eve.close()


async def test_a_player_forgotten_in_memory_comes_back_from_the_archive(tmp_path):
    """A player idle past ``player_retention_s`` leaves the server's memory; its token still
    resumes it (same id, same name) from the archive."""
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, player_retention_s=0.05, sweep_interval_s=0.02)
    async with ArenaServer(config) as server:
        ann = await ArenaClient.connect(server.url, "ann", timeout_s=WAIT_S)
        ann_id, token = ann.player, ann.token

        async def archived() -> bool:
            return await server.archiver.archive.player_by_token(token_digest(token)) is not None

        await until(archived, "the player was not archived")
        await ann.close()

        async def forgotten() -> bool:
            return token not in server.players

        await until(forgotten, "the idle player was not forgotten")
        back = await ArenaClient.connect(server.url, "other", token=token, timeout_s=WAIT_S)
        assert (back.player, back.name) == (ann_id, "ann")
        assert server.players[token].id == ann_id
        await back.close()
