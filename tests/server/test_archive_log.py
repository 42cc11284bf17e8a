"""What an operator reads when a server opens its archive: one line naming it and, when its
schema was brought up to date, from which revision to which; not Alembic's own lines (one per
migration step, several lines each)."""

from __future__ import annotations

import io
import logging

from server.app import ArenaServer
from server.config import ServerConfig
from server.logs import configure_logging


async def test_opening_an_archive_logs_one_line_with_its_upgrade(tmp_path):
    out = io.StringIO()
    root = logging.getLogger()
    kept = (list(root.handlers), root.level)
    configure_logging("info", stream=out)
    try:
        async with ArenaServer(ServerConfig(data_dir=tmp_path, ping_interval_s=None)):
            pass
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in kept[0]:
            root.addHandler(handler)
        root.setLevel(kept[1])
        logging.getLogger("alembic").setLevel(logging.NOTSET)
        logging.getLogger("websockets").setLevel(logging.NOTSET)
    lines = [line for line in out.getvalue().splitlines() if "keeping finished races" in line]
    assert len(lines) == 1 and "upgraded from nothing to" in lines[0]
    assert "alembic" not in out.getvalue()
