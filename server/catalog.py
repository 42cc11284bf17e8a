"""Deal catalogs: per game, seeds known to be winnable, each with one winning move list.

A catalog is a text file ``<game key>.txt`` in a catalog folder (the repository's ``seeds/``, or a
private folder an organiser keeps out of the repository). Lines starting with ``#`` are comments;
every other line is ``SEED: MOVE,MOVE,...`` with moves in the game's notation. A public catalog
gives its deals away (a seed rebuilds the whole deal): it serves casual races, famous deals and
tests; a tournament that wants winnable deals uses a private catalog (seeds/README.md).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from engine.core import EngineError
from engine.deal import check_seed
from engine.games import find_game

__all__ = ["CatalogEntry", "CatalogError", "draw_seeds", "format_catalog", "load_catalog", "parse_catalog", "replay"]


class CatalogError(ValueError):
    """A catalog that cannot be read, or that has too few deals for a request."""


@dataclass(frozen=True)
class CatalogEntry:
    """One winnable deal: its seed and a move list (notation) that wins it."""

    seed: int
    moves: tuple[str, ...]


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
    head = [f"# Winnable {game} deals: SEED: one winning move list, comma-separated.", *(f"# {n}" for n in note.splitlines())]
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
