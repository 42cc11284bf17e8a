"""Follows in this process's memory: `MemoryFollows`, the follow part of `server.archive.Archive`
that `server.archive.memory.MemoryArchive` takes (a mixin). Two dicts: each follower's followees
(with since when), and each followee's followers, so that forgetting a player costs its own
follows both ways."""

from __future__ import annotations

from server.archive import Archive, ArchiveError, Claim, Followed

__all__ = ["MemoryFollows"]


class MemoryFollows(Archive):
    """`Archive.follow`, `Archive.unfollow` and `Archive.following` over two dicts; names come
    from the claims the archive keeps (``_claims``, player id -> `Claim`)."""

    _claims: dict[str, Claim]

    @property
    def _follows(self) -> dict[str, dict[str, int]]:
        """Follower -> followee -> since when (ms); made on first use (the archive's
        ``__init__`` is its own)."""
        return self.__dict__.setdefault("_follows_kept", {})

    @property
    def _followers(self) -> dict[str, set[str]]:
        """Followee -> its followers."""
        return self.__dict__.setdefault("_followers_kept", {})

    async def follow(self, follower_id: str, followee_id: str, since_ms: int) -> bool:
        """See `Archive.follow`."""
        mine = self._follows.setdefault(follower_id, {})
        if followee_id in mine:
            return False
        mine[followee_id] = since_ms
        self._followers.setdefault(followee_id, set()).add(follower_id)
        return True

    async def unfollow(self, follower_id: str, followee_id: str) -> bool:
        """See `Archive.unfollow`."""
        mine = self._follows.get(follower_id, {})
        if mine.pop(followee_id, None) is None:
            return False
        self._followers.get(followee_id, set()).discard(follower_id)
        return True

    async def following(self, player_id: str, limit: int) -> list[Followed]:
        """See `Archive.following`."""
        if limit < 1:
            raise ArchiveError(f"a list of followed players holds at least one (limit {limit})")
        rows = sorted(self._follows.get(player_id, {}).items(), key=lambda kv: (kv[1], kv[0]))
        found = [(pid, since, self._claims.get(pid)) for pid, since in rows]
        return [Followed(pid, claim.name, since) for pid, since, claim in found if claim is not None][:limit]

    def _forget_follows(self, player_id: str) -> None:
        """Drop ``player_id``'s follows, both ways (`Archive.forget_player`)."""
        for followee in self._follows.pop(player_id, {}):
            self._followers.get(followee, set()).discard(player_id)
        for follower in self._followers.pop(player_id, set()):
            self._follows.get(follower, {}).pop(player_id, None)
