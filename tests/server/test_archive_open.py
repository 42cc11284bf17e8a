"""Several processes opening one new SQLite archive at once (the nodes of deploy/local-cluster
starting together): each finds the schema made once, none fails on a table another made."""

from __future__ import annotations

import subprocess
import sys

import pytest

OPEN = """
import asyncio, sys
from server.archive.sql import SqlArchive

async def main():
    archive = SqlArchive(sys.argv[1])
    await archive.open()
    print(archive.upgraded_from, archive.revision)
    await archive.close()

asyncio.run(main())
"""


@pytest.mark.slow
def test_processes_opening_one_new_sqlite_archive_together_migrate_it_once(tmp_path):
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    processes = [
        subprocess.Popen([sys.executable, "-c", OPEN, url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    results = [process.communicate(timeout=60) for process in processes]
    assert [process.returncode for process in processes] == [0] * 4, [err[-400:] for _, err in results]
    befores = sorted(out.split()[0] for out, _ in results)
    heads = {out.split()[1] for out, _ in results}
    assert len(heads) == 1
    assert befores.count("None") == 1  # one process made the schema; the others found it made
