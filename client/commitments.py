"""The ``arena`` command's cache of race commitments: every commitment it saw while a race ran.

A race's seed is secret until its end, behind a commitment (SHA-256 of ``seed:salt``) that the
server publishes before anyone plays (``race_starting``, and race descriptions of a race starting
or running). ``arena verify`` checks the record's seed and salt against a commitment it can trust:
one given with ``--commitment``, or one this cache kept from what the CLI itself saw before the
race ended (``arena bot``, ``play``, ``watch``, ``races``, ``create``...). A record's own
commitment proves nothing: a dishonest server or relay can swap seed, salt and commitment together.

The cache is one JSON file, ``commitments.json``, in ``$ARENA_CACHE_DIR``, else
``$XDG_CACHE_HOME/patience-arena``, else ``~/.cache/patience-arena`` (`cache_path`):
``{"races": {"CODE": ["HEX", ...]}}``, the newest `MAX_RACES` races kept. Codes are keyed alone,
not by server: a code two servers both used keeps both commitments, and a record passes only if
its seed and salt hash to one of them (a forger cannot make them hash to a commitment it did not
publish). Writing it never fails a command: a cache that cannot be read or written is skipped.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> cache = CommitmentCache(Path(folder) / "commitments.json")
>>> cache.add("ab12cd", "F" * 64); cache.add("AB12CD", "f" * 64)
>>> CommitmentCache(cache.path).get("AB12CD") == ["f" * 64]
True
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from client.folders import user_folder

__all__ = ["MAX_RACES", "CommitmentCache", "cache_path", "keep_commitments"]

#: Races whose commitments the cache keeps (the oldest are dropped): about 100 bytes each.
MAX_RACES = 5_000
_HEX = re.compile(r"[0-9a-f]{64}")


def cache_path(environ: Mapping[str, str] = os.environ) -> Path:
    """Where the cache file is (see the module docstring); nothing is created.

    >>> str(cache_path({"ARENA_CACHE_DIR": "/tmp/x"}))
    '/tmp/x/commitments.json'
    >>> str(cache_path({"XDG_CACHE_HOME": "/c", "HOME": "/h"}))
    '/c/patience-arena/commitments.json'
    """
    return user_folder("cache", environ) / "commitments.json"


class CommitmentCache:
    """The commitments kept per race code (upper case), read from ``path`` at once; `add` reads
    it again (keeping what other ``arena`` commands added meanwhile) and writes it (a few hundred
    kilobytes at most)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.races: dict[str, list[str]] = self._read()

    def _read(self) -> dict[str, list[str]]:
        """The file's races ({} if it is missing or unreadable; bad entries left out)."""
        races: dict[str, list[str]] = {}
        with contextlib.suppress(OSError, ValueError):
            data = json.loads(self.path.read_text(encoding="utf-8"))
            kept = data.get("races", {}) if isinstance(data, dict) else {}
            for code, found in kept.items() if isinstance(kept, dict) else ():
                if isinstance(code, str) and isinstance(found, list):
                    races[code.upper()] = [c for c in found if isinstance(c, str) and _HEX.fullmatch(c)]
        return races

    def get(self, code: str) -> list[str]:
        """The commitments (lower-case hex) kept for race ``code``, oldest first; [] if none."""
        return list(self.races.get(code.upper(), []))

    def add(self, code: str, commitment: str) -> None:
        """Keep ``commitment`` (64 hex digits; anything else is ignored) for race ``code`` and
        write the file (silently skipped if it cannot be written)."""
        commitment, code = commitment.lower(), code.upper()
        if not _HEX.fullmatch(commitment) or commitment in self.races.get(code, ()):
            return
        self.races = {**self._read(), **self.races}  # (what another arena command wrote meanwhile too)
        self.races[code] = [*self.races.pop(code, []), commitment]  # (newest last)
        while len(self.races) > MAX_RACES:
            del self.races[next(iter(self.races))]
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            spare = self.path.with_name(f".{self.path.name}.{os.getpid()}")
            spare.write_text(json.dumps({"races": self.races}), encoding="utf-8")
            spare.replace(self.path)  # whole, or not at all


@contextlib.contextmanager
def keep_commitments(path: Path | None = None) -> Iterator[CommitmentCache]:
    """Within the block, every `client.connection.ArenaClient` of this process keeps each
    commitment it sees in the cache at ``path`` (default `cache_path`) as soon as it sees it;
    gives the cache."""
    from client.connection import ArenaClient

    cache = CommitmentCache(path or cache_path())
    before = ArenaClient.commitment_seen
    ArenaClient.commitment_seen = cache.add
    try:
        yield cache
    finally:
        ArenaClient.commitment_seen = before
