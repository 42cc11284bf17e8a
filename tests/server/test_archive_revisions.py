"""The archive's contract for a race written again after Double or Naught rounds decided since its
first write (`server.archive.Archive.put_race`, `server.archive.record_revision`), over every
backend (memory, SQLite, a real PostgreSQL; the fixtures of tests/server/test_archive.py): a
newer copy replaces the kept one, its history lines with it; an older or equal copy never does;
writes that race each other leave the newest."""

from __future__ import annotations

import asyncio
import random

import msgspec

from server.archive import Archive, record_revision
from server.protocol import BonusRecord, RaceRecord
from tests.server.test_archive import archive, archive_url, count_rows, every_backend, record

__all__ = ["archive", "archive_url"]  # the fixtures, found here by pytest


def with_rounds(base: RaceRecord, rounds: int) -> RaceRecord:
    """``base`` after its winner (the first entrant) decided ``rounds`` Double or Naught rounds,
    each a win that doubles its points (the standings show them)."""
    bonus = [
        BonusRecord(stake=30 << i, seed=1000 + i, salt=f"s{i}", commitment="ef" * 32, moves=["guess r1"], outcome="win")
        for i in range(rounds)
    ]
    winner = msgspec.structs.replace(base.entrants[0], bonus=bonus)
    points = msgspec.structs.replace(base.standings[0], points=30 << rounds)
    return msgspec.structs.replace(base, entrants=[winner, *base.entrants[1:]], standings=[points, *base.standings[1:]])


def kept(found: RaceRecord | None) -> tuple[int, int | None]:
    """(rounds decided, the winner's points) of a kept record."""
    assert found is not None
    return record_revision(found), found.standings[0].points


@every_backend
async def test_a_newer_copy_replaces_the_kept_one_and_an_older_never_does(archive: Archive, archive_url: str):
    first = record("DBL1", ["p1", "p2"])
    assert await archive.put_race(first, 5_000) is True
    assert kept(await archive.get_race("DBL1")) == (0, 30)
    one = with_rounds(first, 1)
    moved = msgspec.structs.replace(one.standings[1], status="resigned")  # a history line that changed
    one = msgspec.structs.replace(one, standings=[one.standings[0], moved])
    assert await archive.put_race(one, 9_000) is True
    assert await archive.get_race("DBL1") == msgspec.structs.replace(one, req=0)
    rows, _ = await archive.races_of("p2", before=None, limit=10)
    assert [(r.code, r.finished_ms, r.status) for r in rows] == [("DBL1", 5_000, "resigned")]  # the first finish
    assert await archive.put_race(one, 9_000) is False  # the same copy again: nothing changes
    assert await archive.put_race(first, 5_000) is False  # an older one (a retry, a stale node): never backwards
    assert kept(await archive.get_race("DBL1")) == (1, 60)
    assert await archive.put_race(with_rounds(first, 3), 5_000) is True
    assert await archive.put_race(with_rounds(first, 2), 5_000) is False
    assert kept(await archive.get_race("DBL1")) == (3, 240)
    for player in ("p1", "p2"):
        rows, cursor = await archive.races_of(player, before=None, limit=10)
        assert [r.code for r in rows] == ["DBL1"] and cursor is None
    if archive_url != "memory://":
        assert await count_rows(archive_url, "races", "DBL1") == 1
        assert await count_rows(archive_url, "race_entrants", "DBL1") == 2


@every_backend
async def test_concurrent_copies_of_a_race_leave_the_newest(archive: Archive, archive_url: str):
    base = record("DBL2", ["p1", "p2", "p3"])
    copies = [with_rounds(base, rounds) for rounds in range(6)] * 2
    random.Random(38).shuffle(copies)
    results = await asyncio.gather(*(archive.put_race(copy, 7_000) for copy in copies))
    assert any(results) and not all(results)
    assert kept(await archive.get_race("DBL2")) == (5, 30 << 5)
    assert await archive.put_race(with_rounds(base, 4), 7_000) is False
    rows, _ = await archive.races_of("p3", before=None, limit=10)
    assert [r.code for r in rows] == ["DBL2"]
    if archive_url != "memory://":
        assert await count_rows(archive_url, "races", "DBL2") == 1
        assert await count_rows(archive_url, "race_entrants", "DBL2") == 3
