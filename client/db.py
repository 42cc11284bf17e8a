"""``arena db``: look after the archive of finished races and tournaments (`server.archive`).

    arena db upgrade [--archive URL | --data-dir DIR]   bring its schema up to date (Alembic)
    arena db backup FILE [--archive URL | --data-dir DIR]   copy a SQLite archive while in use

The archive is the one `arena serve` would use with the same options and environment:
``--archive URL`` (``sqlite:///PATH`` or ``postgresql://...``; ``$ARENA_ARCHIVE``) or the SQLite
file in ``--data-dir DIR`` (default: `arena serve`'s data directory). A backup
goes through SQLite's online backup API, so a running server may go on writing meanwhile; a
PostgreSQL archive is backed up with PostgreSQL's own ``pg_dump``. Exit codes: 0 done, 2 bad
usage or an archive that cannot be opened or copied.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

from rich.console import Console
from rich.markup import escape

__all__ = ["add_db_arguments", "archive_url", "backup_sqlite", "run_db"]


def add_db_arguments(sub: argparse.ArgumentParser) -> None:
    """Add ``arena db``'s actions (``upgrade``, ``backup``) and their options to ``sub``."""
    actions = sub.add_subparsers(dest="db_action", required=True, metavar="ACTION")

    def where(action: argparse.ArgumentParser) -> None:
        source = action.add_mutually_exclusive_group()
        source.add_argument("--archive", metavar="URL", help="the archive: sqlite:///PATH or postgresql://...")
        source.add_argument("--data-dir", metavar="DIR", help="the archive in this data directory (as arena serve's)")

    where(actions.add_parser("upgrade", help="bring the archive's schema up to date (creates it when empty)"))
    backup = actions.add_parser(
        "backup",
        help="copy a SQLite archive to FILE while it is in use (PostgreSQL: use pg_dump)",
        description="Copy a SQLite archive to FILE with SQLite's online backup API (a running server "
        "may go on writing). A PostgreSQL archive is backed up with pg_dump.",
    )
    backup.add_argument("file", metavar="FILE", help="where the copy goes (replaced if it exists)")
    where(backup)


def archive_url(args: argparse.Namespace, environ: Mapping[str, str] = os.environ) -> str:
    """The archive URL ``args`` name, as `arena serve` works it out: ``--archive`` (else
    ``$ARENA_ARCHIVE``), else the SQLite file (`server.config.ServerConfig.archive_location`)
    of ``--data-dir`` (else `client.serving.default_data_dir`)."""
    from client.serving import default_data_dir
    from server.config import ServerConfig

    chosen = args.archive or environ.get("ARENA_ARCHIVE") or ""
    if chosen and chosen.strip().lower() != "none":
        return str(chosen)
    data_dir = Path(args.data_dir) if args.data_dir else default_data_dir(environ)
    return ServerConfig(data_dir=data_dir).archive_location() or ""


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the SQLite database ``source`` to ``target`` with SQLite's online backup API (writers
    of ``source`` go on meanwhile; the copy is one consistent state), through a temporary file
    beside ``target`` renamed over it at the end. Returns the copy's size in bytes. Raises
    FileNotFoundError when ``source`` does not exist, sqlite3.Error when SQLite cannot copy it."""
    if not source.is_file():
        raise FileNotFoundError(f"no archive at {source}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as reading, closing(sqlite3.connect(partial)) as writing:
        reading.backup(writing, pages=1024)
    os.replace(partial, target)
    return target.stat().st_size


async def run_db(args: argparse.Namespace, console: Console) -> int:
    """Carry out ``arena db ACTION``; returns the exit code (0 done, 2 refused or failed, with
    the reason printed)."""
    from sqlalchemy.engine.url import make_url

    from server.archive import ArchiveError, open_archive
    from server.archive.sql import SqlArchive, async_url

    try:
        url = archive_url(args)
        if args.db_action == "upgrade":
            archive = open_archive(url)
            if not isinstance(archive, SqlArchive):
                raise ArchiveError(f"{url} keeps nothing to upgrade: name a sqlite:/// or postgresql:// archive")
            await archive.open()
            await archive.close()
            where = make_url(url).render_as_string(hide_password=True)
            if archive.upgraded_from == archive.revision:
                console.print(f"archive {where}: schema at revision {archive.revision}, up to date", highlight=False)
            else:
                before = archive.upgraded_from or "empty"
                console.print(
                    f"archive {where}: schema upgraded from {before} to revision {archive.revision}", highlight=False
                )
            return 0
        parsed = async_url(url)
        if parsed.get_backend_name() != "sqlite":
            raise ArchiveError(
                "arena db backup copies a SQLite archive; back a PostgreSQL archive up with pg_dump "
                f"(e.g. pg_dump --format=custom --file={args.file} 'postgresql://...')"
            )
        source = Path(parsed.database or "")
        size = await asyncio.to_thread(backup_sqlite, source, Path(args.file))
        console.print(f"archive {source} copied to {args.file} ({size} bytes)", highlight=False)
        return 0
    except ArchiveError as exc:
        console.print(f"[red]error:[/] {escape(exc.reason)}", highlight=False, soft_wrap=True)
    except (OSError, sqlite3.Error) as exc:
        console.print(f"[red]error:[/] cannot back the archive up: {escape(str(exc))}", highlight=False, soft_wrap=True)
    return 2
