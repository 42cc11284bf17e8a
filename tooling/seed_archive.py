"""Fill an archive (SQLite or PostgreSQL) with many players, races, ratings, daily results and
follows, and time what the server's leaderboard and profile requests read from it.

    python -m tooling.seed_archive seed --url sqlite:///.bench/arena_100k.db --players 100000 --races 1000000
    python -m tooling.seed_archive measure --url sqlite:///.bench/arena_100k.db --samples 2000 --repeat 3

(``--url postgresql://USER@HOST:PORT/DB`` for an empty PostgreSQL database.)

``seed`` makes the schema through `server.archive.open_archive` (the Alembic revisions), then
writes in bulk, a chunk at a time (SQLite: executemany, one transaction per chunk; PostgreSQL:
``COPY``): N ``players`` (every third one with a ``claims`` row, each with one
``player_tokens`` row), M ``races`` over the last 365 days in three games with 2 to 4 entrants
each (random players, random places, now and then a tie), their ``race_entrants`` rows, each
race's real rating update (`server.ratings.rate`) as ``rating_changes`` rows, the final
``ratings``, each player's statistics per game (``player_game_stats``, as `Archive.put_race`
keeps them), ``--daily-players`` results per game for each of the last ``--days`` days
(``daily_results``, and their week and all-time sums: ``daily_totals``) and about
``--follows`` follows of claimed players per player (``follows``).
The races' ``record`` column holds a placeholder, not a `RaceRecord`: `Archive.get_race` is not
what this measures.

``measure`` opens the archive as the server does and calls the server's own request handlers
(`server.handlers.boards.profile` and `~.leaderboard`, with a session that keeps the reply) for
``--samples`` random players each: a profile by id, a profile by claimed name, a rating board's
first page, a page after a random player's cursor, the page around a random player, the player's
friends' board, a random day's daily board, this week's daily board and the all-time daily board
around the player. It prints, per request, p50, p99 and max in ms
and the SQL statements one request runs, for each of ``--repeat`` rounds (JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from types import SimpleNamespace
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from server.archive import encode_board_cursor, open_archive
from server.archive.daily_totals import ALL_TIME, week_key
from server.archive.schema import (
    claims,
    daily_results,
    daily_totals,
    follows,
    player_game_stats,
    player_tokens,
    players,
    race_entrants,
    races,
    rating_changes,
    ratings,
)
from server.archive.sql import SqlArchive, async_url
from server.daily import day_of
from server.handlers.boards import leaderboard, profile
from server.names import name_key, normal_name
from server.protocol import GetProfile, Leaderboard
from server.ratings import Entrant, Rating, display, new_rating, rate

__all__ = ["main", "measure", "seed", "seed_daily_totals"]

GAMES = ("klondike", "golf", "pyramid")
DAY_MS = 86_400_000
ACTIVE_DAYS = 30
CHUNK = 20_000
#: One player in CLAIMED_EVERY has claimed its name (the others are guests).
CLAIMED_EVERY = 3


class _Writer:
    """Bulk inserts of rows (tuples in the order of the named columns) into one database:
    executemany in a transaction per call on SQLite, ``COPY`` on PostgreSQL (asyncpg)."""

    def __init__(self, connection: AsyncConnection, dialect: str) -> None:
        self.connection = connection
        self.dialect = dialect
        self.counts: dict[str, int] = {}

    async def write(self, table: sa.Table, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> None:
        """Insert ``rows`` into ``table``; raises what the driver raises (a duplicate key)."""
        if not rows:
            return
        if self.dialect == "postgresql":
            raw = (await self.connection.get_raw_connection()).driver_connection
            assert raw is not None
            await raw.copy_records_to_table(table.name, records=rows, columns=list(columns))
        else:
            marks = ", ".join("?" * len(columns))
            statement = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({marks})"
            await self.connection.exec_driver_sql(statement, rows)
            await self.connection.commit()
        self.counts[table.name] = self.counts.get(table.name, 0) + len(rows)


_RACE = ("code", "game", "seed", "commitment", "finished_ms", "tournament", "record")
_ENTRANT = (
    "race_code",
    "player_id",
    "name",
    "game",
    "finished_ms",
    "place",
    "entrants",
    "cleared",
    "total",
    "time_ms",
    "status",
    "par",
)
_CHANGE = (
    "race_code",
    "player_id",
    "game",
    "finished_ms",
    "mu_before",
    "sigma_before",
    "mu_after",
    "sigma_after",
    "races",
)
_STATS = ("player_id", "game", "played", "won", "win_ms_sum", "best_win_ms", "cleared", "streak", "best_streak")
_DAILY = ("day", "game", "player_id", "name", "race_code", "cleared", "total", "time_ms", "status", "finished_ms")


async def seed(
    url: str,
    players_count: int,
    races_count: int,
    *,
    days: int = 60,
    daily_players: int = 2_000,
    follows_each: int = 5,
    rng_seed: int = 1,
) -> dict[str, Any]:
    """Fill the new or empty archive at ``url`` (see the module's docstring): ``players_count``
    players, ``races_count`` rated races, ``daily_players`` daily results per game for each of
    the last ``days`` days, about ``follows_each`` follows per player. Returns the rows written
    per table and how long it took (s). Raises what the database raises for a non-empty one."""
    started = time.perf_counter()
    archive = open_archive(url)
    await archive.open()
    await archive.close()
    rng = random.Random(rng_seed)
    now = int(time.time() * 1000)
    first_ms = now - 365 * DAY_MS
    ids = [f"P{i:07d}" for i in range(players_count)]
    names = {pid: f"name {pid}" for pid in ids}
    engine = create_async_engine(async_url(url))
    async with engine.connect() as connection:
        dialect = engine.dialect.name
        if dialect == "sqlite":
            await connection.exec_driver_sql("PRAGMA synchronous=OFF")
        out = _Writer(connection, dialect)
        await _seed_players(out, ids, names, first_ms, now)
        await _seed_races(out, rng, ids, names, races_count, first_ms)
        await _seed_daily(out, rng, ids, names, now, days, daily_players)
        await _seed_follows(out, rng, ids, now, follows_each)
        await connection.exec_driver_sql("ANALYZE")
        await connection.commit()
    await engine.dispose()
    return {**out.counts, "seconds": round(time.perf_counter() - started, 1)}


async def _seed_players(out: _Writer, ids: list[str], names: dict[str, str], first_ms: int, now: int) -> None:
    """``players``, one ``player_tokens`` row each, and the claims of every CLAIMED_EVERY-th."""
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        await out.write(
            players, ("id", "name", "created_ms", "seen_ms"), [(pid, names[pid], first_ms, now) for pid in chunk]
        )
        tokens = [(hashlib.sha256(pid.encode()).hexdigest(), pid, first_ms, now) for pid in chunk]
        await out.write(player_tokens, ("token_digest", "player_id", "created_ms", "seen_ms"), tokens)
        claimed = [
            (pid, names[pid], name_key(normal_name(names[pid])), "$argon2id$v=19$seeded", first_ms)
            for pid in chunk[::CLAIMED_EVERY]
        ]
        await out.write(claims, ("player_id", "name", "name_key", "password_hash", "claimed_ms"), claimed)


async def _seed_races(
    out: _Writer, rng: random.Random, ids: list[str], names: dict[str, str], races_count: int, first_ms: int
) -> None:
    """``races``, ``race_entrants``, ``rating_changes``, then ``ratings`` and ``player_game_stats``."""
    kept: dict[tuple[str, str], tuple[Rating, int]] = {}
    stats: dict[tuple[str, str], list[Any]] = {}  # (player, game) -> the row's values, in column order
    race_rows: list[tuple[Any, ...]] = []
    entrant_rows: list[tuple[Any, ...]] = []
    change_rows: list[tuple[Any, ...]] = []
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
        race_rows.append((code, game, i, "00" * 32, finished, None, b""))
        for pid, place in zip(who, places, strict=True):
            cleared, time_ms, won = rng.randint(10, 52), rng.randint(60_000, 600_000), place == 1
            status = "won" if won else "stuck"
            entrant_rows.append(
                (code, pid, names[pid], game, finished, place, count, cleared, 52, time_ms, status, None)
            )
            _count(stats, pid, game, won, time_ms, cleared)
            b, a = before[pid], after[pid]
            change_rows.append((code, pid, game, finished, b.mu, b.sigma, a.mu, a.sigma, a.races))
            kept[pid, game] = (a, finished)
        if len(race_rows) >= CHUNK or i == races_count - 1:
            await out.write(races, _RACE, race_rows)
            await out.write(race_entrants, _ENTRANT, entrant_rows)
            await out.write(rating_changes, _CHANGE, change_rows)
            race_rows, entrant_rows, change_rows = [], [], []
    items = list(kept.items())
    for start in range(0, len(items), CHUNK):
        rows = [
            (pid, game, rating.mu, rating.sigma, rating.races, display(rating), updated)
            for (pid, game), (rating, updated) in items[start : start + CHUNK]
        ]
        await out.write(ratings, ("player_id", "game", "mu", "sigma", "races", "ordinal", "updated_ms"), rows)
    stat_items = [(pid, game, *values) for (pid, game), values in stats.items()]
    for start in range(0, len(stat_items), CHUNK):
        await out.write(player_game_stats, _STATS, stat_items[start : start + CHUNK])


def _count(stats: dict[tuple[str, str], list[Any]], pid: str, game: str, won: bool, time_ms: int, cleared: int) -> None:
    """Add one race to ``pid``'s statistics in ``game`` (played, won, win_ms_sum, best_win_ms,
    cleared, streak, best_streak), as `Archive.put_race` does."""
    row = stats.setdefault((pid, game), [0, 0, 0, None, 0, 0, 0])
    row[0] += 1
    row[4] += cleared
    if won:
        row[1] += 1
        row[2] += time_ms
        row[3] = time_ms if row[3] is None else min(row[3], time_ms)
        row[5] += 1
        row[6] = max(row[6], row[5])
    else:
        row[5] = 0


async def _seed_daily(
    out: _Writer, rng: random.Random, ids: list[str], names: dict[str, str], now: int, days: int, each: int
) -> None:
    """``each`` random players' results per game for each of the last ``days`` days, and their
    running totals per week and all time (`seed_daily_totals`)."""
    rows: list[tuple[Any, ...]] = []
    kept: list[tuple[Any, ...]] = []
    for back in range(days):
        start_ms = (now // DAY_MS - back) * DAY_MS
        day = day_of(start_ms)
        for game in GAMES:
            for n, pid in enumerate(rng.sample(ids, min(each, len(ids)))):
                cleared = rng.choice((52, 52, rng.randint(5, 51)))
                status = "won" if cleared == 52 else "stuck"
                finished = start_ms + rng.randrange(DAY_MS)
                code = f"D{day}{game[0]}{n:06d}"
                rows.append(
                    (day, game, pid, names[pid], code, cleared, 52, rng.randint(60_000, 900_000), status, finished)
                )
        if len(rows) >= CHUNK or back == days - 1:
            await out.write(daily_results, _DAILY, rows)
            kept += rows
            rows = []
    await seed_daily_totals(
        out, [(day, game, pid, cleared, time_ms) for day, game, pid, _, _, cleared, _, time_ms, *_ in kept]
    )


async def seed_daily_totals(out: _Writer, results: list[tuple[str, str, str, int, int]]) -> None:
    """The ``daily_totals`` rows of the final daily ``results`` (``(day, game, player id, cards
    cleared, time ms)``): per game, player and ISO week, and all time (as the archive keeps them)."""
    sums: dict[tuple[str, str, str], list[int]] = {}
    for day, game, pid, cleared, time_ms in results:
        for period in (week_key(day), ALL_TIME):
            total = sums.setdefault((game, period, pid), [0, 0, 0])
            total[0] += cleared
            total[1] += time_ms
            total[2] += 1
    items = [(game, period, pid, *values) for (game, period, pid), values in sums.items()]
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        await out.write(daily_totals, ("game", "period", "player_id", "cards", "time_ms", "days"), chunk)


async def _seed_follows(out: _Writer, rng: random.Random, ids: list[str], now: int, each: int) -> None:
    """About ``each`` follows (0 to 2 x ``each``) of random claimed players per player."""
    claimed = ids[::CLAIMED_EVERY]
    rows: list[tuple[Any, ...]] = []
    for pid in ids:
        chosen = set(rng.sample(claimed, min(len(claimed), rng.randint(0, 2 * each))))
        chosen.discard(pid)
        rows += [(pid, other, now - rng.randrange(365 * DAY_MS)) for other in sorted(chosen)]
        if len(rows) >= CHUNK:
            await out.write(follows, ("follower_id", "followee_id", "since_ms"), rows)
            rows = []
    await out.write(follows, ("follower_id", "followee_id", "since_ms"), rows)


class _Keeper:
    """A session stand-in that keeps the handler's reply (all `leaderboard` and `profile` use)."""

    def __init__(self) -> None:
        self.replies: list[Any] = []

    def reply(self, message: Any) -> None:
        """Keep ``message``."""
        self.replies.append(message)


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return {
        "p50_ms": round(cuts[49] * 1000, 2),
        "p99_ms": round(cuts[98] * 1000, 2),
        "max_ms": round(ordered[-1] * 1000, 2),
    }


async def measure(
    url: str, samples: int, *, repeat: int = 1, limit: int = 20, active_days: int = ACTIVE_DAYS, rng_seed: int = 2
) -> dict[str, Any]:
    """Time ``samples`` random requests of each kind (see the module's docstring), ``repeat``
    rounds, on the archive at ``url``; returns per round ``{request: {p50_ms, p99_ms, max_ms,
    statements}}`` (``statements``: SQL statements per request, the mean) and the table sizes."""
    archive = open_archive(url)
    await archive.open()
    assert isinstance(archive, SqlArchive)
    engine = await archive._ready()
    async with engine.connect() as connection:
        sample = (
            await connection.execute(
                sa.select(ratings.c.player_id, ratings.c.game, ratings.c.ordinal)
                .order_by(sa.func.random())
                .limit(max(samples, 100))
            )
        ).all()
        named = (await connection.execute(sa.select(claims.c.name).order_by(sa.func.random()).limit(1000))).scalars()
        names = list(named)
        day_rows = await connection.execute(sa.select(daily_results.c.day).distinct())
        days = sorted(day_rows.scalars())
        sizes = {
            table.name: (await connection.execute(sa.select(sa.func.count()).select_from(table))).scalar_one()
            for table in (players, races, race_entrants, rating_changes, ratings, daily_results, follows)
        }
    statements = [0]

    def counted(*_args: Any) -> None:
        statements[0] += 1

    sa.event.listen(engine.sync_engine, "before_cursor_execute", counted)
    now = int(time.time() * 1000)
    state = cast(
        Any, SimpleNamespace(archiver=SimpleNamespace(archive=archive), clock=SimpleNamespace(wall_ms=lambda: now))
    )
    rounds = []
    session: Any = None  # a _Keeper per request, made before each call
    for round_number in range(repeat):
        rng = random.Random(rng_seed + round_number)
        timings: dict[str, list[float]] = {}
        counts: dict[str, int] = {}
        for i in range(samples):
            player_id, game, ordinal = sample[rng.randrange(len(sample))]
            asker = cast(Any, SimpleNamespace(id=player_id))
            cursor = encode_board_cursor(ordinal, player_id)
            requests: dict[str, Callable[[], Awaitable[None]]] = {
                "profile": lambda: profile(state, session, asker, GetProfile(req=i, player=player_id)),
                "profile_by_name": lambda: profile(state, session, asker, GetProfile(req=i, name=rng.choice(names))),
                "board_top": lambda: leaderboard(
                    state, session, asker, Leaderboard(req=i, game=GAMES[i % 3], active_days=active_days, limit=limit)
                ),
                "board_after": lambda: leaderboard(
                    state, session, asker, Leaderboard(req=i, game=game, after=cursor, limit=limit)
                ),
                "board_around": lambda: leaderboard(
                    state, session, asker, Leaderboard(req=i, game=game, view="around_me", limit=limit)
                ),
                "board_friends": lambda: leaderboard(
                    state, session, asker, Leaderboard(req=i, game=game, view="friends", limit=limit)
                ),
                "board_daily": lambda: leaderboard(
                    state,
                    session,
                    asker,
                    Leaderboard(req=i, game=game, board="daily", day=rng.choice(days) if days else None, limit=limit),
                ),
                "board_week": lambda: leaderboard(
                    state, session, asker, Leaderboard(req=i, game=game, board="daily", period="week", limit=limit)
                ),
                "board_all_around": lambda: leaderboard(
                    state,
                    session,
                    asker,
                    Leaderboard(req=i, game=game, board="daily", period="all", view="around_me", limit=limit),
                ),
            }
            for name, request in requests.items():
                session = _Keeper()
                before = statements[0]
                begun = time.perf_counter()
                await request()
                timings.setdefault(name, []).append(time.perf_counter() - begun)
                counts[name] = counts.get(name, 0) + statements[0] - before
                assert len(session.replies) == 1, f"{name}: no reply"
        rounds.append(
            {name: {**_percentiles(v), "statements": round(counts[name] / samples, 1)} for name, v in timings.items()}
        )
    await archive.close()
    return {"url": archive._described(), "samples": samples, "limit": limit, "sizes": sizes, "rounds": rounds}


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    parser = argparse.ArgumentParser(prog="python -m tooling.seed_archive", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    seeding = commands.add_parser("seed", help="fill a new archive")
    seeding.add_argument("--url", required=True, help="sqlite:///PATH (a new or empty file) or postgresql://...")
    seeding.add_argument("--players", type=int, default=100_000)
    seeding.add_argument("--races", type=int, default=1_000_000)
    seeding.add_argument("--days", type=int, default=60, help="days of daily results")
    seeding.add_argument("--daily-players", type=int, default=2_000, help="daily results per game and day")
    seeding.add_argument("--follows", type=int, default=5, help="follows per player (the mean)")
    measuring = commands.add_parser("measure", help="time the leaderboard and profile requests")
    measuring.add_argument("--url", required=True)
    measuring.add_argument("--samples", type=int, default=2_000, help="requests of each kind per round")
    measuring.add_argument("--repeat", type=int, default=1, help="rounds")
    measuring.add_argument("--active-days", type=int, default=ACTIVE_DAYS, help="the boards' active window (days)")
    for sub in (seeding, measuring):
        sub.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args(argv)
    if args.command == "seed":
        result = asyncio.run(
            seed(
                args.url,
                args.players,
                args.races,
                days=args.days,
                daily_players=args.daily_players,
                follows_each=args.follows,
            )
        )
    else:
        result = asyncio.run(measure(args.url, args.samples, repeat=args.repeat, active_days=args.active_days))
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
