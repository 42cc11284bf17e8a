"""Deal catalogs: per game, seeds known to be winnable, each with one winning move list.

A catalog is a text file ``<game key>.txt`` in a catalog folder. Lines starting with ``#`` are
comments; every other line is ``SEED: MOVE,MOVE,...`` with moves in the game's notation.

Two kinds of folder, with two uses (docs/security.md, "Winnable deals stay secret"):

* the **public** catalogs (the repository's ``seeds/``, installed with the package as the data of
  ``server.seeds``: `public_catalogs`): anyone can read them, and a seed rebuilds the whole deal
  with a winning line beside it, so they serve only races whose seed is public anyway (practice
  deals, famous deals) and tests;
* a **private** catalog (``arena catalog GAME --private DIR``, served with ``arena serve
  --private-catalog DIR``), kept off the repository: it serves secret winnable deals (a
  tournament's, a race's). Every seed drawn from it is written to ``<game key>.used`` beside the
  catalog and never drawn again, because the seed is revealed when its race ends.
"""

from __future__ import annotations

import importlib.resources
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from engine.core import EngineError
from engine.deal import check_seed
from engine.games import find_game

__all__ = [
    "CatalogEntry",
    "CatalogError",
    "DealSource",
    "draw_seeds",
    "format_catalog",
    "load_catalog",
    "parse_catalog",
    "private_folder",
    "public_catalogs",
    "public_catalogs_to_write",
    "replay",
]

#: The package whose data are the public catalogs: pyproject.toml maps it to the repository's seeds/.
_PUBLIC = "server.seeds"


class CatalogError(ValueError):
    """A catalog that cannot be read, or that has too few deals for a request."""


@dataclass(frozen=True)
class CatalogEntry:
    """One winnable deal: its seed and a move list (notation) that wins it."""

    seed: int
    moves: tuple[str, ...]


def public_catalogs() -> Path:
    """The folder of the public catalogs, found through `importlib.resources` as the data of the
    package ``server.seeds``: the repository's seeds/ when the package runs from a checkout (an
    editable install, as `make setup` makes), ``site-packages/server/seeds/`` when it is
    installed from a wheel. Raises `CatalogError` if the package is installed where its data are
    not plain files (a zip archive), since a catalog is read and watched as a file."""
    folder = importlib.resources.files(_PUBLIC)
    if not isinstance(folder, Path) or not folder.is_dir():
        raise CatalogError(f"the public catalogs ({folder}) are not a folder: install the package unpacked")
    return folder


def public_catalogs_to_write() -> Path:
    """The folder that ``arena catalog GAME`` adds public winnable deals to: the repository's
    seeds/, when the package runs from a checkout (`public_catalogs` is a folder ``seeds`` beside
    a pyproject.toml). An installed package's catalogs are part of that installation, not
    written in place: a reinstall would lose the deals, and its folder is usually not its user's
    to write. Then it raises `CatalogError`: give a folder of your own, and serve it with
    ``arena serve --catalog DIR``."""
    folder = public_catalogs()
    if folder.name == "seeds" and (folder.parent / "pyproject.toml").is_file():
        return folder
    raise CatalogError(
        f"the public catalogs in {str(folder)!r} belong to the installed package, not to a "
        f"checkout: write to a folder of your own (--dir DIR) and serve it with "
        f"`arena serve --catalog DIR`"
    )


def parse_catalog(text: str) -> list[CatalogEntry]:
    """Read catalog text; raises `CatalogError` naming the first bad line."""
    entries = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        seed_text, sep, moves = line.partition(":")
        try:
            if not sep:
                raise ValueError("expected 'SEED: MOVE,MOVE,...'")
            seed = check_seed(int(seed_text))
        except ValueError as exc:
            raise CatalogError(f"line {number}: {exc}") from None
        entries.append(CatalogEntry(seed, tuple(m.strip() for m in moves.split(",") if m.strip())))
    return entries


def format_catalog(game: str, entries: list[CatalogEntry], note: str) -> str:
    """Catalog text for ``entries`` of ``game``, headed by comment lines (``note`` says how it was
    made)."""
    head = [
        f"# Winnable {game} deals: SEED: one winning move list, comma-separated.",
        *(f"# {n}" for n in note.splitlines()),
    ]
    return "\n".join(head + [f"{e.seed}: {','.join(e.moves)}" for e in entries]) + "\n"


def load_catalog(folder: str | Path, game: str) -> list[CatalogEntry]:
    """The catalog of ``game`` (key or alias) in ``folder``; an empty list if it has none."""
    path = Path(folder) / f"{find_game(game).key}.txt"
    if not path.exists():
        return []
    try:
        return parse_catalog(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"cannot read {str(path)!r}: {exc}") from None


def draw_seeds(entries: list[CatalogEntry], count: int) -> list[int]:
    """``count`` different seeds drawn at random (`secrets`) from ``entries``; raises
    `CatalogError` if the catalog has fewer."""
    seeds = sorted({e.seed for e in entries})
    if len(seeds) < count:
        raise CatalogError(f"the catalog has {len(seeds)} winnable deals; {count} wanted")
    drawn = []
    for _ in range(count):
        drawn.append(seeds.pop(secrets.randbelow(len(seeds))))
    return drawn


def replay(game: str, entry: CatalogEntry, options: dict[str, bool] | None = None) -> bool:
    """Play an entry's moves on its deal; True if they are all legal and win it."""
    board = find_game(game)(entry.seed, **(options or {}))
    try:
        for move in entry.moves:
            board.apply(move)
    except EngineError:
        return False
    return board.won


_RANDOM = secrets.SystemRandom()


@dataclass
class _Loaded:
    """One game's catalog as read: the file's modification time and the seeds not yet drawn."""

    mtime_ns: int
    seeds: list[int] = field(default_factory=list)


class DealSource:
    """Winnable deals to draw from one catalog folder, read once per game and again only when its
    file changes, so that a draw costs O(count), whatever the catalog's size.

    ``private``: every drawn seed is appended to ``<game key>.used`` and is never drawn again (the
    file survives restarts); a public source draws with replacement between calls. ``folder``
    None: a source with no catalog at all (every draw raises).
    """

    def __init__(self, folder: str | Path | None, *, private: bool) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.private = private
        self._games: dict[str, _Loaded] = {}

    def available(self, game: str) -> int:
        """How many deals of ``game`` can still be drawn (0 without a catalog)."""
        return len(self._load(find_game(game).key).seeds)

    def draw(self, game: str, count: int) -> list[int]:
        """``count`` different winnable seeds of ``game`` (key or alias), drawn with `secrets`.
        Raises `CatalogError` if there is no catalog, too few deals are left, or it cannot be
        read or (private) the draw cannot be recorded."""
        key = find_game(game).key
        loaded = self._load(key)
        if self.folder is None:
            raise CatalogError("this server has no catalog folder")
        if not loaded.seeds and not self.folder.is_dir():
            raise CatalogError(f"there is no catalog folder {str(self.folder)!r}")
        if len(loaded.seeds) < count:
            kind = "private " if self.private else ""
            left = "unused " if self.private else ""
            raise CatalogError(
                f"the {kind}catalog in {str(self.folder)!r} has {len(loaded.seeds)} {left}"
                f"winnable {key} deals; {count} wanted"
            )
        if not self.private:
            return _RANDOM.sample(loaded.seeds, count)
        pool, drawn = loaded.seeds, []
        for _ in range(count):
            index = secrets.randbelow(len(pool))
            pool[index], pool[-1] = pool[-1], pool[index]  # swap-remove: O(1) a seed
            drawn.append(pool.pop())
        try:
            with open(self.folder / f"{key}.used", "a", encoding="utf-8") as used:
                used.write("".join(f"{seed}\n" for seed in drawn))
        except OSError as exc:
            pool.extend(drawn)
            raise CatalogError(f"cannot record drawn seeds in {str(self.folder)!r}: {exc}") from None
        return drawn

    def _load(self, key: str) -> _Loaded:
        if self.folder is None:
            return _Loaded(0)
        path = self.folder / f"{key}.txt"
        try:
            mtime = path.stat().st_mtime_ns
        except FileNotFoundError:
            self._games.pop(key, None)
            return _Loaded(0)
        except OSError as exc:
            raise CatalogError(f"cannot read {str(path)!r}: {exc}") from None
        loaded = self._games.get(key)
        if loaded is None or loaded.mtime_ns != mtime:
            used = self._used(key) if self.private else set()
            seeds = sorted({e.seed for e in load_catalog(self.folder, key)} - used)
            loaded = self._games[key] = _Loaded(mtime, seeds)
        return loaded

    def _used(self, key: str) -> set[int]:
        assert self.folder is not None
        path = self.folder / f"{key}.used"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return set()
        except (OSError, UnicodeDecodeError) as exc:
            raise CatalogError(f"cannot read {str(path)!r}: {exc}") from None
        return {int(line) for line in text.split() if line.isdigit()}


def private_folder(folder: str | Path) -> Path:
    """Create ``folder`` for a private catalog, readable by its owner only (mode 0700); return it."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path
