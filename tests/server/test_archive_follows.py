"""The archive's contract for follows (`Archive.follow`, `unfollow`, `following`) over memory,
SQLite and a real PostgreSQL: only claimed players are listed, with their claimed names, the
oldest follow first, at most ``limit``; following twice changes nothing."""

from __future__ import annotations

import pytest

from server.archive import Archive, ArchiveError, Claim, Followed
from tests.server.test_archive import archive, archive_url, every_backend

__all__ = ["archive", "archive_url"]  # (fixtures, used by name)


def claim(player_id: str, name: str) -> Claim:
    return Claim(player_id=player_id, name=name, name_key=name, password_hash="$argon2id$h", claimed_ms=5_000)


@every_backend
async def test_follows_are_kept_once_listed_oldest_first_and_dropped(archive: Archive):
    for number, name in enumerate(("ann", "bea", "cy", "dot"), 1):
        assert await archive.put_player(f"p{number}", name, str(number) * 64, 1_000) is True
        assert await archive.put_claim(claim(f"p{number}", name)) is True
    assert await archive.follow("p1", "p3", 2_000) is True
    assert await archive.follow("p1", "p2", 3_000) is True
    assert await archive.follow("p1", "p3", 4_000) is False  # followed already: nothing changes
    assert await archive.follow("p1", "p4", 1_500) is True
    assert await archive.following("p1", 10) == [
        Followed("p4", "dot", 1_500),
        Followed("p3", "cy", 2_000),
        Followed("p2", "bea", 3_000),
    ]
    assert [f.player_id for f in await archive.following("p1", 2)] == ["p4", "p3"]
    assert await archive.following("p2", 10) == []  # one way only
    assert await archive.unfollow("p1", "p3") is True
    assert await archive.unfollow("p1", "p3") is False
    assert [f.player_id for f in await archive.following("p1", 10)] == ["p4", "p2"]
    with pytest.raises(ArchiveError):
        await archive.following("p1", 0)
