"""``arena db upgrade`` and ``arena db backup`` (client/db.py) on real archives: a SQLite file and
the session's PostgreSQL (`postgres_server`)."""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from pathlib import Path

import pytest

from client.cli import main
from server.archive import open_archive
from tests.server.test_archive import record

#: The newest schema revision this code ships (the highest numbered migration).
HEAD = max(
    path.name.split("_")[0]
    for path in (Path(__file__).parents[2] / "server" / "archive" / "migrations" / "versions").glob("[0-9]*.py")
)


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["db", *argv])
    out = capsys.readouterr()
    return code, " ".join((out.out + out.err).split())


async def _put_then_get(url: str, codes: list[str]) -> list[object]:
    archive = open_archive(url)
    await archive.open()
    try:
        for i, code in enumerate(codes):
            await archive.put_race(record(code, ["p1", "p2"]), 1_000 + i)
        return [await archive.get_race(code) for code in codes]
    finally:
        await archive.close()


def test_upgrade_makes_the_schema_once_then_finds_it_current(tmp_path, capsys):
    code, out = _run(capsys, "upgrade", "--data-dir", str(tmp_path / "data"))
    assert code == 0 and f"upgraded from empty to revision {HEAD}" in out, out
    tables = sqlite3.connect(tmp_path / "data" / "arena.db").execute("SELECT name FROM sqlite_master").fetchall()
    assert {"races", "race_entrants", "tournaments", "ix_race_entrants_player_finished"} <= {t for (t,) in tables}
    code, out = _run(capsys, "upgrade", "--archive", f"sqlite:///{tmp_path}/data/arena.db")
    assert code == 0 and f"at revision {HEAD}, up to date" in out, out
    code, out = _run(capsys, "upgrade", "--archive", "memory://")
    assert code == 2 and "nothing to upgrade" in out


def test_upgrade_a_postgresql_archive(postgres_server, capsys):
    url = postgres_server.create_database(f"cli_{uuid.uuid4().hex[:10]}")
    code, out = _run(capsys, "upgrade", "--archive", url)
    assert code == 0 and f"upgraded from empty to revision {HEAD}" in out, out
    assert _run(capsys, "upgrade", "--archive", url)[1].endswith("up to date")


def test_backup_copies_a_sqlite_archive_and_points_postgresql_to_pg_dump(tmp_path, capsys):
    url = f"sqlite:///{tmp_path}/live/arena.db"
    kept = asyncio.run(_put_then_get(url, ["B1", "B2", "B3"]))
    copy = tmp_path / "backups" / "arena-copy.db"
    code, out = _run(capsys, "backup", str(copy), "--archive", url)
    assert code == 0 and "copied to" in out, out
    assert asyncio.run(_read(f"sqlite:///{copy}", ["B1", "B2", "B3"])) == kept
    assert not list(copy.parent.glob("*.partial"))
    code, out = _run(capsys, "backup", str(tmp_path / "x.db"), "--archive", "postgresql://arena@127.0.0.1:1/db")
    assert code == 2 and "pg_dump" in out
    code, out = _run(capsys, "backup", str(tmp_path / "x.db"), "--data-dir", str(tmp_path / "empty"))
    assert code == 2 and "no archive at" in out
    assert not (tmp_path / "x.db").exists()


async def _read(url: str, codes: list[str]) -> list[object]:
    archive = open_archive(url)
    await archive.open()
    try:
        return [await archive.get_race(code) for code in codes]
    finally:
        await archive.close()


@pytest.mark.parametrize("action", ["upgrade", "backup x.db"])
def test_archive_and_data_dir_are_exclusive(action, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["db", *action.split(), "--archive", "memory://", "--data-dir", "d"])
    assert exited.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
