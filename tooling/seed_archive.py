"""Fill a SQLite archive with many players, races and ratings (for measurements), and measure the
rating board's queries on it.

    python -m tooling.seed_archive seed --url sqlite:///.bench/archive.db --players 100000 --races 1000000
    python -m tooling.seed_archive measure --url sqlite:///.bench/archive.db --pages 2000

``seed`` makes the schema through `server.archive.open_archive` (the Alembic revisions), then
writes in bulk (one sync connection, executemany in chunks, one transaction per chunk): N
``players``, M ``races`` over the last 365 days in three games with 2 to 4 entrants each (random
players, random places, now and then a tie), their ``race_entrants`` rows, each race's real
rating update (`server.ratings.rate`) as ``rating_changes`` rows, the final ``ratings``, and each
player's statistics per game (``player_game_stats``, as `Archive.put_race` keeps them). The
races' ``record`` column holds a placeholder, not a `RaceRecord`: `Archive.get_race` is not what
this measures.

``measure`` opens the archive as the server does (async engine) and times, over ``--pages``
random pages each: the board's first page, a page after a random player's cursor, a page around a
random player (20 rows, "active" meaning the last 30 days, or ``--active-days``), a player's
ratings, a rating history of 20 lines, a player's statistics (``stats``: `Archive.game_stats`)
and a whole profile's reads (``profile``: what `server.handlers.boards.profile` asks the archive);
it prints p50, p99 and max in ms per query (JSON with ``--json``). An archive seeded before
``player_game_stats`` existed gets it, filled from its history lines, by the migration that
``measure`` runs as it opens it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from typing import Any

import sqlalchemy as sa

from server.archive import encode_board_cursor, open_archive
from server.archive.schema import player_game_stats, players, race_entrants, races, rating_changes, ratings
from server.archive.sql import SqlArchive
from server.ratings import Entrant, Rating, display, new_rating, rate

__all__ = ["main", "measure", "seed"]

GAMES = ("klondike", "freecell", "spider")
DAY_MS = 86_400_000
ACTIVE_DAYS = 30
CHUNK = 20_000


def _sync_url(url: str) -> str:
    if not url.startswith("sqlite:///"):
        raise SystemExit("seed writes SQLite archives only: sqlite:///PATH")
    return url


def seed(url: str, players_count: int, races_count: int, *, rng_seed: int = 1) -> dict[str, Any]:
    """Fill the (new or empty) SQLite archive at ``url`` with ``players_count`` players and
    ``races_count`` rated races; returns what it wrote and how long it took (s)."""
    started = time.perf_counter()

    async def make_schema() -> None:
        archive = open_archive(url)
        await archive.open()
        await archive.close()

    asyncio.run(make_schema())
    rng = random.Random(rng_seed)
    now = int(time.time() * 1000)
    first_ms = now - 365 * DAY_MS
    engine = sa.create_engine(_sync_url(url))
    ids = [f"P{i:07d}" for i in range(players_count)]
    kept: dict[tuple[str, str], tuple[Rating, int]] = {}
    counts = {"players": players_count, "races": 0, "race_entrants": 0, "rating_changes": 0, "ratings": 0}
    stats: dict[tuple[str, str], list[Any]] = {}  # (player, game) -> the row's values, in column order
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA synchronous=OFF")
        for start in range(0, players_count, CHUNK):
            rows = [
                {"id": pid, "name": f"name {pid}", "created_ms": first_ms, "seen_ms": now}
                for pid in ids[start : start + CHUNK]
            ]
            connection.execute(players.insert(), rows)
            connection.commit()
        race_rows: list[dict[str, Any]] = []
        entrant_rows: list[dict[str, Any]] = []
        change_rows: list[dict[str, Any]] = []
        for i in range(races_count):
            code = f"S{i:08d}"
            game = GAMES[i % len(GAMES)]
            finished = first_ms + (i * 365 * DAY_MS) // max(1, races_count)
            count = rng.randint(2, 4)
            who = rng.sample(ids, count)
            places = list(range(1, count + 1))
            rng.shuffle(places)
            if rng.random() < 0.05:  # a tie for the last place
                worst = max(places)
                places = [worst - 1 if place == worst else place for place in places]
            before = {pid: kept.get((pid, game), (new_rating(), 0))[0] for pid in who}
            after = rate([Entrant(pid, place, before[pid]) for pid, place in zip(who, places, strict=True)])
            race_rows.append(
                {
                    "code": code,
                    "game": game,
                    "seed": i,
                    "commitment": "00" * 32,
                    "finished_ms": finished,
                    "tournament": None,
                    "record": b"",
                }
            )
            for pid, place in zip(who, places, strict=True):
                entrant_rows.append(
                    {
                        "race_code": code,
                        "player_id": pid,
                        "name": f"name {pid}",
                        "game": game,
                        "finished_ms": finished,
                        "place": place,
                        "entrants": count,
                        "cleared": rng.randint(10, 52),
                        "total": 52,
                        "time_ms": rng.randint(60_000, 600_000),
                        "status": "won" if place == 1 else "stuck",
                        "par": None,
                    }
                )
                _count(stats, pid, game, entrant_rows[-1])
                change_rows.append(
                    {
                        "race_code": code,
                        "player_id": pid,
                        "game": game,
                        "finished_ms": finished,
                        "mu_before": before[pid].mu,
                        "sigma_before": before[pid].sigma,
                        "mu_after": after[pid].mu,
                        "sigma_after": after[pid].sigma,
                        "races": after[pid].races,
                    }
                )
                kept[pid, game] = (after[pid], finished)
            if len(race_rows) >= CHUNK or i == races_count - 1:
                connection.execute(races.insert(), race_rows)
                connection.execute(race_entrants.insert(), entrant_rows)
                connection.execute(rating_changes.insert(), change_rows)
                connection.commit()
                counts["races"] += len(race_rows)
                counts["race_entrants"] += len(entrant_rows)
                counts["rating_changes"] += len(change_rows)
                race_rows, entrant_rows, change_rows = [], [], []
        items = list(kept.items())
        for start in range(0, len(items), CHUNK):
            rows = [
                {
                    "player_id": pid,
                    "game": game,
                    "mu": rating.mu,
                    "sigma": rating.sigma,
                    "races": rating.races,
                    "ordinal": display(rating),
                    "updated_ms": updated,
                }
                for (pid, game), (rating, updated) in items[start : start + CHUNK]
            ]
            connection.execute(ratings.insert(), rows)
            connection.commit()
            counts["ratings"] += len(rows)
        stat_items = list(stats.items())
        counts["player_game_stats"] = len(stat_items)
        columns = ("played", "won", "win_ms_sum", "best_win_ms", "cleared", "streak", "best_streak")
        for start in range(0, len(stat_items), CHUNK):
            rows = [
                {"player_id": pid, "game": game, **dict(zip(columns, values, strict=True))}
                for (pid, game), values in stat_items[start : start + CHUNK]
            ]
            connection.execute(player_game_stats.insert(), rows)
            connection.commit()
        connection.exec_driver_sql("ANALYZE")
        connection.commit()
    engine.dispose()
    return {**counts, "seconds": round(time.perf_counter() - started, 1)}


def _count(stats: dict[tuple[str, str], list[Any]], pid: str, game: str, line: dict[str, Any]) -> None:
    """Add the history ``line`` to ``pid``'s statistics in ``game`` (played, won, win_ms_sum,
    best_win_ms, cleared, streak, best_streak), as `Archive.put_race` does."""
    row = stats.setdefault((pid, game), [0, 0, 0, None, 0, 0, 0])
    won = line["status"] == "won"
    row[0] += 1
    row[4] += line["cleared"]
    if won:
        row[1] += 1
        row[2] += line["time_ms"]
        row[3] = line["time_ms"] if row[3] is None else min(row[3], line["time_ms"])
        row[5] += 1
        row[6] = max(row[6], row[5])
    else:
        row[5] = 0


async def _profile_reads(archive: SqlArchive, player: str) -> None:
    """What a profile asks the archive (`server.handlers.boards.profile`), in its order."""
    await archive.player_card(player)
    await archive.game_stats(player)
    for rated in await archive.ratings_of(player):
        await archive.rating_history(player, rated.game, 50)
    await archive.races_of(player, before=None, limit=10)


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return {
        "p50_ms": round(cuts[49] * 1000, 3),
        "p99_ms": round(cuts[98] * 1000, 3),
        "max_ms": round(ordered[-1] * 1000, 3),
    }


async def measure(
    url: str, pages: int, *, limit: int = 20, active_days: int = ACTIVE_DAYS, rng_seed: int = 2
) -> dict[str, Any]:
    """Time ``pages`` random queries of each kind (see the module's docstring) on the archive at
    ``url``, the boards' "active" being the last ``active_days`` days; returns ``{query:
    {p50_ms, p99_ms, max_ms}}`` and the board's sizes."""
    rng = random.Random(rng_seed)
    archive = open_archive(url)
    await archive.open()
    assert isinstance(archive, SqlArchive)
    engine = sa.create_engine(url)
    with engine.connect() as connection:
        sample = connection.execute(
            sa.select(ratings.c.player_id, ratings.c.game, ratings.c.ordinal)
            .order_by(sa.func.random())
            .limit(max(pages, 100))
        ).all()
        sizes = {
            "ratings": connection.execute(sa.select(sa.func.count()).select_from(ratings)).scalar_one(),
            "rating_changes": connection.execute(sa.select(sa.func.count()).select_from(rating_changes)).scalar_one(),
        }
    engine.dispose()
    since = int(time.time() * 1000) - active_days * DAY_MS
    timings: dict[str, list[float]] = {
        "top": [],
        "after": [],
        "around": [],
        "ratings_of": [],
        "history": [],
        "stats": [],
        "profile": [],
    }
    for i in range(pages):
        player, game, ordinal = sample[rng.randrange(len(sample))]
        calls = {
            "top": archive.rating_board(GAMES[i % len(GAMES)], active_since_ms=since, limit=limit),
            "after": archive.rating_board(
                game, active_since_ms=since, after=encode_board_cursor(ordinal, player), limit=limit
            ),
            "around": archive.rating_board(game, active_since_ms=since, around=player, limit=limit),
            "ratings_of": archive.ratings_of(player),
            "history": archive.rating_history(player, game, limit),
            "stats": archive.game_stats(player),
            "profile": _profile_reads(archive, player),
        }
        for name, call in calls.items():
            begun = time.perf_counter()
            await call
            timings[name].append(time.perf_counter() - begun)
    await archive.close()
    return {
        "pages": pages,
        "limit": limit,
        "active_days": active_days,
        **sizes,
        "queries": {k: _percentiles(v) for k, v in timings.items()},
    }


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(prog="python -m tooling.seed_archive", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    seeding = commands.add_parser("seed", help="fill a new SQLite archive")
    seeding.add_argument("--url", required=True, help="sqlite:///PATH (a new or empty file)")
    seeding.add_argument("--players", type=int, default=100_000)
    seeding.add_argument("--races", type=int, default=1_000_000)
    measuring = commands.add_parser("measure", help="time the board's queries")
    measuring.add_argument("--url", required=True)
    measuring.add_argument("--pages", type=int, default=2_000)
    measuring.add_argument("--active-days", type=int, default=ACTIVE_DAYS, help="the boards' active window (days)")
    for sub in (seeding, measuring):
        sub.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.command == "seed":
        result = seed(args.url, args.players, args.races)
    else:
        result = asyncio.run(measure(args.url, args.pages, active_days=args.active_days))
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
