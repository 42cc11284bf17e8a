"""The daily challenge: one deal per game per UTC day, the same for everyone, played once per
player (ranked), and afterwards as practice; results, the calendar and streaks; and the spoiler
lock that keeps a daily's or an arena tournament's deals from being watched, replayed or read
until their window closes.

A day's deal is derived from the server's secret (`ServerConfig.daily_secret`): its seed and
salt are an HMAC-SHA256 of the secret with the game and the date, so nobody can work a deal out
before its day, and every player's race of a day carries the same commitment. A ranked race holds
its seed (`server.race.Race.hold_seed`) until the day ends; then it is revealed and archived.

The book (`DailyBook`) keeps the ranked results in the archive (`server.archive.Archive`'s daily
methods, written by the archiver's task, off the move path: `server.archiving.Archiver.daily_result`):
a row when an attempt starts (``playing``), replaced by its final result when it ends. It reads a
day's leaderboard, a player's calendar month and the days its streak counts with one indexed query
each, and merges what this node holds in memory and the archive has not written yet. Without an
archive, its memory of the last ``daily_days_kept`` days is all there is.

The secret: ``daily_secret`` (``ARENA_DAILY_SECRET``) when set; else the one kept in the archive
(made once, shared by every node over one archive, `DailyBook.open`); else, with no archive, a
random one for this process only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.deal import MAX_SEED
from server.archive import DAILY_VOID, Archive, daily_order
from server.protocol import CalendarDay, DailyResult, RaceInfo, Streak
from server.race import Clock, Entrant, Race

if TYPE_CHECKING:
    from server.archiving import Archiver

__all__ = [
    "DAY_MS",
    "SECRET_NAME",
    "DailyBook",
    "day_end_ms",
    "day_of",
    "day_start_ms",
    "derive_deal",
    "month_days",
    "ranked_order",
    "streak_of",
]

#: Milliseconds in a UTC day.
DAY_MS = 86_400_000
#: The name the daily deals' secret is kept under in the archive (`server.archive.Archive.kept_secret`).
SECRET_NAME = "daily"
#: The statuses of an attempt played to its end, for a streak; a void attempt counts too (the player
#: played that day; the server lost its moves).
_FINAL = ("won", "stuck", "resigned", "out_of_time", DAILY_VOID)


def day_of(ms: int) -> str:
    """The UTC day (YYYY-MM-DD) of the instant ``ms`` (Unix epoch milliseconds)."""
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).date().isoformat()


def day_start_ms(day: str) -> int:
    """The first millisecond (Unix epoch) of UTC day ``day`` (YYYY-MM-DD). Raises ValueError
    for a date that does not exist."""
    date = dt.date.fromisoformat(day)
    return int(dt.datetime(date.year, date.month, date.day, tzinfo=dt.UTC).timestamp() * 1000)


def day_end_ms(day: str) -> int:
    """The instant UTC day ``day`` ends (the next day's first millisecond, Unix epoch ms)."""
    return day_start_ms(day) + DAY_MS


def month_days(month: str, today: str) -> list[str]:
    """The days (YYYY-MM-DD) of ``month`` (YYYY-MM) up to ``today``, first first (empty for a
    month after today's). Raises ValueError for a month that does not exist."""
    first = dt.date.fromisoformat(f"{month}-01")
    last = dt.date.fromisoformat(today)
    days = []
    day = first
    while day.month == first.month and day <= last:
        days.append(day.isoformat())
        day += dt.timedelta(days=1)
    return days


def derive_deal(secret: bytes, game: str, day: str) -> tuple[int, str]:
    """The seed (0..MAX_SEED) and salt (32 hex digits) of ``game``'s deal on ``day``: HMAC-SHA256
    of ``secret`` with the game and the day, so that only the server can work them out."""
    mac = hmac.new(secret, f"daily|{game}|{day}".encode(), hashlib.sha256).digest()
    seed = int.from_bytes(mac[:8], "big") & MAX_SEED
    salt = hmac.new(secret, f"salt|{game}|{day}".encode(), hashlib.sha256).hexdigest()[:32]
    return seed, salt


#: A day's leaderboard order: more cards cleared, then less time, then the race code.
ranked_order = daily_order


def streak_of(days: set[str], today: str) -> Streak:
    """The streak over ``days`` (YYYY-MM-DD, each with a daily played to the end): ``current``
    counts the run of consecutive days up to ``today`` (or yesterday), ``best`` the longest run."""
    best = run = 0
    previous: dt.date | None = None
    for day in sorted(dt.date.fromisoformat(d) for d in days):
        run = run + 1 if previous is not None and (day - previous).days == 1 else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and (dt.date.fromisoformat(today) - previous).days <= 1 else 0
    return Streak(current=current, best=best)


def _status(race: Race, entrant: Entrant | None) -> str:
    """A ranked attempt's status: ``playing`` until its race ends, then its entrant's, or
    `DAILY_VOID` when the race is void (no result)."""
    if entrant is None or race.status != "finished":
        return "playing"
    return DAILY_VOID if race.finish_reason == "void" else entrant.status


@dataclass
class DailyBook:
    """The daily challenge on this node: the secret deals derive from (``fixed``: given by the
    configuration), the ranked attempts of the last ``days_kept`` days it saw (by day and game,
    and by player), the archive it keeps them in (`open`), and its ranked races still holding
    their seeds. ``clock``: the server's (its wall clock: Unix epoch ms)."""

    secret: bytes
    clock: Clock
    days_kept: int = 400
    fixed: bool = False
    archive: Archive | None = None
    archiver: Archiver | None = None
    spawn: Callable[[Coroutine[Any, Any, object]], object] | None = (
        None  # runs a task (`server.state.ServerState.spawn`)
    )
    _by_day: dict[tuple[str, str], dict[str, DailyResult]] = field(default_factory=dict)  # (day, game) -> player ->
    _by_player: dict[str, dict[tuple[str, str], DailyResult]] = field(default_factory=dict)  # player -> (day, game) ->
    _best: dict[str, int] = field(default_factory=dict)  # player -> best streak seen
    _held: dict[str, Race] = field(default_factory=dict)  # ranked races holding their seeds, by code
    revealing: set[str] = field(default_factory=set)  # days whose end a task waits for, to reveal their races

    @classmethod
    def of(cls, secret: str | None, clock: Clock, days_kept: int) -> DailyBook:
        """A book deriving deals from ``secret`` (None: a random one until `open` reads the
        archive's)."""
        key = secret.encode() if secret else secrets.token_bytes(32)
        return cls(key, clock, days_kept, fixed=bool(secret))

    async def open(self, archive: Archive | None, archiver: Archiver | None) -> None:
        """Keep results in ``archive`` (written by ``archiver``), and, unless the secret was
        given, derive deals from the one kept there (made now if there is none). Raises
        `server.archive.ArchiveError`."""
        self.archive, self.archiver = archive, archiver
        if archive is not None and not self.fixed:
            self.secret = (await archive.kept_secret(SECRET_NAME, secrets.token_hex(32))).encode()

    def wall_ms(self) -> int:
        """The server's wall clock (Unix epoch ms)."""
        return self.clock.wall_ms()

    def today(self) -> str:
        """Today's UTC day."""
        return day_of(self.wall_ms())

    def deal(self, game: str, day: str) -> tuple[int, str]:
        """``game``'s seed and salt on ``day`` (`derive_deal`)."""
        return derive_deal(self.secret, game, day)

    # ------------------------------------------------------------------------ ranked races

    def track(self, race: Race, player: str, name: str, day: str) -> None:
        """``player`` (called ``name``) began its ranked attempt at ``day``'s deal in ``race``:
        keep it (``playing``), record its end (``on_finish``), reveal its seed when the day ends."""
        race.on_finish = self.finished
        self._held[race.code] = race
        self._keep(self._result(race, player, name, day))
        self._reveal_at_end_of(day)

    def resumed(self, race: Race) -> None:
        """``race``, a ranked daily race, was rebuilt from the store (a restart, a takeover):
        record its end as `track` does, or, finished already, its result (again: idempotent)."""
        if race.daily is None:
            return
        if race.hold_seed:
            self._held[race.code] = race
            self._reveal_at_end_of(race.daily)
        if race.status == "finished":
            self.finished(race)
        else:
            race.on_finish = self.finished
            for entrant in race.entrants.values():
                self._keep(self._result(race, entrant.player, entrant.name, race.daily))

    def finished(self, race: Race) -> None:
        """A ranked daily race ended (its ``on_finish``): its entrant's result is final (kept,
        and written to the archive soon); past its day's end, its seed is revealed."""
        if race.daily is None:
            return
        for entrant in race.entrants.values():
            self._keep(self._result(race, entrant.player, entrant.name, race.daily))
        if race.hold_seed and self.wall_ms() >= day_end_ms(race.daily):
            self.reveal(race)

    def reveal(self, race: Race) -> None:
        """A ranked race whose day is over: its seed may be published; archive it."""
        race.reveal()
        self._held.pop(race.code, None)
        if self.archiver is not None:
            self.archiver.race_finished(race)

    def _reveal_at_end_of(self, day: str) -> None:
        if day not in self.revealing and self.spawn is not None:
            self.revealing.add(day)
            self.spawn(self._reveal_at_day_end(day))

    async def _reveal_at_day_end(self, day: str) -> None:
        """At the end of ``day``, reveal (and archive) that day's finished ranked races; one
        still running reveals itself as it finishes (`finished`)."""
        try:
            await self.clock.sleep_until_wall(day_end_ms(day))
            for race in list(self._held.values()):
                if race.daily == day and race.status == "finished" and race.hold_seed:
                    self.reveal(race)
        finally:
            self.revealing.discard(day)

    def _result(self, race: Race, player: str, name: str, day: str) -> DailyResult:
        entrant = race.entrants.get(player)
        return DailyResult(
            player=player,
            name=name,
            game=race.game_cls.key,
            day=day,
            cleared=entrant.cleared if entrant else 0,
            total=race.game_cls.total,
            time_ms=entrant.time_ms if entrant else 0,
            status=_status(race, entrant),
            race=race.code,
        )

    def _keep(self, result: DailyResult) -> None:
        key = (result.day, result.game)
        self._by_day.setdefault(key, {})[result.player] = result
        self._by_player.setdefault(result.player, {})[key] = result
        if self.archiver is not None:
            self.archiver.daily_result(result, self.wall_ms())
        if result.status in _FINAL:
            best = self._best.get(result.player, 0)
            self._best[result.player] = max(best, self._streak(result.player, []).current)
        self._forget_old()

    def _forget_old(self) -> None:
        """Drop what is older than ``days_kept`` days (bounded memory)."""
        oldest = day_of(self.wall_ms() - self.days_kept * DAY_MS)
        for key in [k for k in self._by_day if k[0] < oldest]:
            for player in self._by_day.pop(key):
                mine = self._by_player.get(player)
                if mine is not None:
                    mine.pop(key, None)
                    if not mine:
                        del self._by_player[player]

    # ------------------------------------------------------------------------- reading

    async def attempt(self, player: str, game: str, day: str) -> DailyResult | None:
        """``player``'s ranked attempt at ``game``'s deal of ``day``, if any (this node's
        memory, else the archive). Raises `server.archive.ArchiveError`."""
        return (await self.attempts(player, day)).get(game)

    async def attempts(self, player: str, day: str) -> dict[str, DailyResult]:
        """``player``'s ranked attempts of ``day`` by game (one read of the archive). Raises
        `server.archive.ArchiveError`."""
        return {r.game: r for r in await self._days_of(player, day, day)}

    async def _days_of(self, player: str, first: str, last: str) -> list[DailyResult]:
        """``player``'s results from ``first`` to ``last`` (days, both included): the archive's
        (one read of its player index), with this node's memory over them."""
        found = {}
        if self.archive is not None:
            found = {(r.day, r.game): r for r in await self.archive.daily_of(player, first, last)}
        for key, result in self._by_player.get(player, {}).items():
            if first <= key[0] <= last:
                found[key] = result
        return list(found.values())

    async def results(self, game: str, day: str, limit: int) -> list[DailyResult]:
        """The ranked results of ``game`` on ``day``, best first (`ranked_order`), at most
        ``limit`` (attempts still in play included, with status ``playing``; void ones left out):
        one read of the
        archive's leaderboard index, with this node's memory over it. Raises
        `server.archive.ArchiveError`."""
        found = {}
        if self.archive is not None:
            found = {r.player: r for r in await self.archive.daily_board(game, day, limit)}
        found.update(self._by_day.get((day, game), {}))
        return sorted((r for r in found.values() if r.status != DAILY_VOID), key=ranked_order)[:limit]

    async def streak(self, player: str) -> Streak:
        """``player``'s streak: consecutive UTC days with a daily played to the end (any game),
        over the last ``days_kept`` days (one read of the archive's player index). Raises
        `server.archive.ArchiveError`."""
        today = self.today()
        first = day_of(self.wall_ms() - self.days_kept * DAY_MS)
        return self._streak(player, await self._days_of(player, first, today))

    def _streak(self, player: str, kept: list[DailyResult]) -> Streak:
        mine = {(r.day, r.game): r for r in kept} | self._by_player.get(player, {})
        found = streak_of({day for (day, _), r in mine.items() if r.status in _FINAL}, self.today())
        return Streak(current=found.current, best=max(found.best, self._best.get(player, 0)))

    async def calendar(self, player: str, month: str, game: str | None) -> list[CalendarDay]:
        """Each day of ``month`` up to today with ``player``'s ranked result that day (of
        ``game``; None: its best of any game): one read of the archive's player index. Raises
        ValueError for a month that does not exist, `server.archive.ArchiveError`."""
        days = month_days(month, self.today())
        if not days:
            return []
        mine = await self._days_of(player, days[0], days[-1])
        page = []
        for day in days:
            found = [r for r in mine if r.day == day and (game is None or r.game == game)]
            page.append(CalendarDay(day=day, result=min(found, key=ranked_order) if found else None))
        return page

    def lock_opens_ms(self, info: RaceInfo) -> int | None:
        """When the spoiler lock on a daily's race opens (Unix epoch ms), or None if it is open
        (or the race is no daily)."""
        if info.daily is None:
            return None
        closes = day_end_ms(info.daily)
        return closes if self.wall_ms() < closes else None
