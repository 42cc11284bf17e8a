"""The archive's contract for players on several devices, claimed names, transfer codes and
deleted identities (`Archive.add_token`, `put_claim`, `claim_by_key`, `claim_of`,
`put_transfer_code`, `use_transfer_code`, `forget_player`), over memory, SQLite and a real
PostgreSQL; and an archive at revision 0003 whose players hold tokens, upgraded to 0004 with
every token still resuming its player."""

from __future__ import annotations

import asyncio
from pathlib import Path

import msgspec
import sqlalchemy as sa
from alembic import command
from sqlalchemy.ext.asyncio import create_async_engine

from server.archive import Archive, Claim, Passkey, RatingUpdate, open_archive
from server.archive.sql import SqlArchive, _alembic_config, async_url
from server.protocol import DailyResult, RaceRecord
from server.ratings import Entrant, new_rating, rate
from tests.server.test_archive import archive, archive_url, every_backend, record, sql_backends, tournament

__all__ = ["archive", "archive_url"]  # (fixtures, used by name)

PHONE, LAPTOP, OTHER = "a" * 64, "b" * 64, "c" * 64


def claim(player_id: str, name: str, key: str, password_hash: str = "$argon2id$h") -> Claim:
    return Claim(player_id=player_id, name=name, name_key=key, password_hash=password_hash, claimed_ms=5_000)


@every_backend
async def test_a_player_has_a_token_per_device_and_one_claimed_name(archive: Archive):
    assert await archive.put_player("p1", "alice", PHONE, 1_000) is True
    await archive.add_token("p1", "alice", LAPTOP, 2_000)
    await archive.add_token("p1", "alice", LAPTOP, 2_500)  # again: nothing new
    assert await archive.player_by_token(PHONE) == ("p1", "alice")
    assert await archive.player_by_token(LAPTOP) == ("p1", "alice")
    await archive.add_token("p2", "bob", OTHER, 3_000)  # a player not kept yet is kept with it
    assert await archive.player_by_token(OTHER) == ("p2", "bob")

    assert await archive.claim_of("p1") is None
    assert await archive.claim_by_key("alice") is None
    assert await archive.put_claim(claim("p1", "Alice", "alice")) is True
    assert await archive.claim_of("p1") == claim("p1", "Alice", "alice")
    assert await archive.claim_by_key("alice") == claim("p1", "Alice", "alice")
    assert await archive.put_claim(claim("p2", "ALICE", "alice")) is False  # another player's key
    assert await archive.claim_of("p2") is None
    assert await archive.put_claim(claim("p1", "Alice", "alice", "$argon2id$new")) is True  # a new password
    assert (await archive.claim_by_key("alice")).password_hash == "$argon2id$new"  # type: ignore[union-attr]
    assert await archive.put_claim(claim("p1", "Alicia", "alicia")) is True  # the player's name changes
    assert await archive.claim_by_key("alice") is None
    assert await archive.put_claim(claim("p2", "alice", "alice")) is True  # free again


@every_backend
async def test_a_transfer_code_is_spent_once_and_never_after_it_expires(archive: Archive):
    await archive.put_transfer_code("1" * 64, "p1", 10_000)
    await archive.put_transfer_code("2" * 64, "p1", 10_000)
    assert await archive.use_transfer_code("9" * 64, 5_000) is None  # unknown
    assert await archive.use_transfer_code("2" * 64, 10_001) is None  # expired
    results = await asyncio.gather(*(archive.use_transfer_code("1" * 64, 5_000) for _ in range(5)))
    assert sorted(results, key=str) == [None, None, None, None, "p1"]  # one of five at once
    assert await archive.use_transfer_code("1" * 64, 5_000) is None  # replayed


def passkey(credential_id: str, player_id: str, created_ms: int = 1_000) -> Passkey:
    return Passkey(credential_id, player_id, b"\xa5\x01\x02" + credential_id.encode(), 0, created_ms, created_ms)


@every_backend
async def test_passkeys_are_kept_per_player_and_note_their_use(archive: Archive):
    assert await archive.passkey("K1") is None
    assert await archive.put_passkey(passkey("K2", "p1", 2_000)) is True
    assert await archive.put_passkey(passkey("K1", "p1", 1_000)) is True
    assert await archive.put_passkey(passkey("K1", "p2", 3_000)) is False  # an id kept already
    assert await archive.put_passkey(passkey("K3", "p2")) is True
    assert await archive.passkey("K1") == passkey("K1", "p1")
    assert [key.credential_id for key in await archive.passkeys_of("p1")] == ["K1", "K2"]  # oldest first
    await archive.use_passkey("K1", 7, 9_000)
    await archive.use_passkey("nothing", 7, 9_000)  # unknown: nothing changes
    used = await archive.passkey("K1")
    assert used is not None and (used.sign_count, used.used_ms, used.created_ms) == (7, 9_000, 1_000)
    assert used.public_key == b"\xa5\x01\x02K1"


def named(kept: RaceRecord) -> RaceRecord:
    """``kept`` with its description listing entrants by name, as a server writes it."""
    names = [entrant.name for entrant in kept.entrants]
    return msgspec.structs.replace(kept, race=msgspec.structs.replace(kept.race, entrants=names))


@every_backend
async def test_forgetting_a_player_deletes_its_identity_and_anonymises_its_races(archive: Archive):
    assert await archive.put_player("p1", "alice", PHONE, 1_000) is True
    await archive.add_token("p1", "alice", LAPTOP, 2_000)
    assert await archive.put_claim(claim("p1", "alice", "alice")) is True
    await archive.put_transfer_code("1" * 64, "p1", 10_000)
    assert await archive.put_passkey(passkey("K1", "p1")) is True
    assert await archive.put_player("p2", "bob", OTHER, 1_000) is True
    assert await archive.put_passkey(passkey("K2", "p2")) is True
    assert await archive.put_claim(claim("p2", "bob", "bob")) is True
    assert await archive.follow("p1", "p2", 1_000) is True and await archive.follow("p2", "p1", 1_000) is True
    for code, players, finished_ms in (("R1", ["p1", "p2"], 1_000), ("R2", ["p2", "p1"], 2_000), ("R3", ["p2"], 3_000)):
        assert await archive.put_race(named(record(code, players)), finished_ms) is True

    info, standings = tournament("T1", ("p1", "p2"))
    assert await archive.put_tournament("T1", info, standings, 4_000) is True
    for player, name in (("p1", "alice"), ("p2", "bob")):
        daily = DailyResult(player, name, "golf", "2026-03-10", 52, 52, 1_000, "won", f"D{player}")
        assert await archive.put_daily_result(daily, 5_000) is True
    fresh = new_rating()
    after = rate([Entrant("p1", 1, fresh), Entrant("p2", 2, fresh)])
    updates = [RatingUpdate(player, fresh, after[player]) for player in ("p1", "p2")]
    assert await archive.apply_ratings("R1", "klondike", 1_000, updates) is True

    assert await archive.forget_player("p1", "deleted player") == 2
    kept_tournament = await archive.get_tournament("T1")
    assert kept_tournament is not None
    assert {line.player: line.name for line in kept_tournament[1]} == {"p1": "deleted player", "p2": "np2"}
    lines, _ = await archive.tournaments_of("p2", before=None, limit=5)
    assert [line.tournament for line in lines] == ["T1"]  # the other entrant's history is whole
    assert await archive.ratings_of("p1") == []
    for digest in (PHONE, LAPTOP):
        assert await archive.player_by_token(digest) is None
    assert await archive.claim_of("p1") is None and await archive.claim_by_key("alice") is None
    assert await archive.use_transfer_code("1" * 64, 5_000) is None
    assert await archive.passkey("K1") is None and await archive.passkeys_of("p1") == []
    assert await archive.passkeys_of("p2") == [passkey("K2", "p2")]  # the other player's are kept
    assert await archive.following("p2", 10) == []  # its follows went both ways: kept again as new ones
    assert await archive.follow("p2", "p1", 9_000) is True and await archive.follow("p1", "p2", 9_000) is True
    for code in ("R1", "R2"):
        kept = await archive.get_race(code)
        assert kept is not None
        names = {e.player: e.name for e in kept.entrants} | {s.player: s.name for s in kept.standings}
        assert names == {"p1": "deleted player", "p2": "name p2"}
        assert sorted(kept.race.entrants) == ["deleted player", "name p2"]
    rows, _ = await archive.races_of("p2", before=None, limit=10)
    assert [row.code for row in rows] == ["R3", "R2", "R1"]  # the other player's history is whole
    assert await archive.player_by_token(OTHER) == ("p2", "bob")
    board = await archive.daily_board("golf", "2026-03-10", 5)
    assert {line.player: line.name for line in board} == {"p1": "deleted player", "p2": "bob"}  # its daily too
    assert [line.name for line in await archive.daily_of("p1", "2026-03-01", "2026-03-31")] == ["deleted player"]
    for period in ("2026-W11", "all"):  # its week's and all time's totals go (p2's stay)
        totals, _ = await archive.daily_totals_board("golf", period, limit=5)
        assert [total.player_id for total in totals] == ["p2"]
    assert await archive.forget_player("p1", "deleted player") == 2  # again: nothing more to delete


@sql_backends
async def test_an_archive_at_0003_keeps_its_players_tokens_at_0004(archive_url: str):
    """Players kept before several devices (one token digest in ``players``) are upgraded on
    open: each token still resumes its player, and a second device's token can be added."""
    url = async_url(archive_url)
    if url.get_backend_name() == "sqlite":
        Path(url.database or "").parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(lambda sync: command.upgrade(_alembic_config(sync), "0003"))
        for player_id, name, digest in (("p1", "alice", PHONE), ("p2", "bob", OTHER)):
            await connection.execute(
                sa.text(
                    "INSERT INTO players (id, name, token_digest, created_ms, seen_ms)"
                    " VALUES (:id, :name, :digest, 1000, 2000)"
                ),
                {"id": player_id, "name": name, "digest": digest},
            )
    await engine.dispose()
    kept = open_archive(archive_url)
    await kept.open()
    try:
        assert isinstance(kept, SqlArchive) and kept.upgraded_from == "0003"
        assert await kept.player_by_token(PHONE) == ("p1", "alice")
        assert await kept.player_by_token(OTHER) == ("p2", "bob")
        await kept.add_token("p1", "alice", LAPTOP, 3_000)
        assert await kept.player_by_token(LAPTOP) == ("p1", "alice")
        assert await kept.put_player("p1", "alice b", PHONE, 4_000) is True  # a rename from the old device
        assert await kept.player_by_token(LAPTOP) == ("p1", "alice b")
    finally:
        await kept.close()
