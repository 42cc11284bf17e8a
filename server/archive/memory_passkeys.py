"""Passkeys in this process's memory: `MemoryPasskeys`, the passkey part of
`server.archive.Archive` that `server.archive.memory.MemoryArchive` takes (a mixin)."""

from __future__ import annotations

import msgspec

from server.archive import Archive, Passkey

__all__ = ["MemoryPasskeys"]


class MemoryPasskeys(Archive):
    """Passkeys in a dict by credential id."""

    @property
    def _passkeys(self) -> dict[str, Passkey]:
        kept = self.__dict__.get("_passkeys_kept")
        if kept is None:
            kept = self.__dict__["_passkeys_kept"] = {}
        return kept

    async def put_passkey(self, passkey: Passkey) -> bool:
        """See `Archive.put_passkey`."""
        if passkey.credential_id in self._passkeys:
            return False
        self._passkeys[passkey.credential_id] = passkey
        return True

    async def passkey(self, credential_id: str) -> Passkey | None:
        """See `Archive.passkey`."""
        return self._passkeys.get(credential_id)

    async def passkeys_of(self, player_id: str) -> list[Passkey]:
        """See `Archive.passkeys_of` (a scan of every passkey: memory archives are for tests)."""
        mine = [key for key in self._passkeys.values() if key.player_id == player_id]
        return sorted(mine, key=lambda key: (key.created_ms, key.credential_id))

    async def use_passkey(self, credential_id: str, sign_count: int, used_ms: int) -> None:
        """See `Archive.use_passkey`."""
        kept = self._passkeys.get(credential_id)
        if kept is not None:
            self._passkeys[credential_id] = msgspec.structs.replace(kept, sign_count=sign_count, used_ms=used_ms)

    def _forget_passkeys(self, player_id: str) -> None:
        """Drop ``player_id``'s passkeys (`Archive.forget_player`)."""
        for credential_id in [c for c, key in self._passkeys.items() if key.player_id == player_id]:
            del self._passkeys[credential_id]
