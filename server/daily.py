"""The daily challenge: one deal per game per UTC day, the same for everyone, played once per
player (ranked), and afterwards as practice; results, the calendar and streaks; and the spoiler
lock that keeps a daily's or an arena tournament's deals from being watched, replayed or read
until their window closes.

A day's deal is derived from the server's secret (`ServerConfig.daily_secret`): its seed and
salt are an HMAC-SHA256 of the secret with the game and the date, so nobody can work a deal out
before its day, and every player's race of a day carries the same commitment. A ranked race holds
its seed (`server.race.Race.hold_seed`) until the day ends; then it is revealed and archived.

The book holds the ranked results of the last ``daily_days_kept`` days in memory: a day's results
per game, and each player's attempts (its calendar and streak).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.deal import MAX_SEED
from server.protocol import CalendarDay, DailyResult, RaceInfo, Streak
from server.race import Race

__all__ = [
    "DAY_MS",
    "DailyBook",
    "day_end_ms",
    "day_of",
    "day_start_ms",
    "derive_deal",
    "month_days",
    "ranked_order",
]

#: Milliseconds in a UTC day.
DAY_MS = 86_400_000
_FINAL = ("won", "stuck", "resigned", "out_of_time")


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


def ranked_order(result: DailyResult) -> tuple[int, int, str]:
    """A day's leaderboard order: more cards cleared, then less time, then the race code."""
    return (-result.cleared, result.time_ms, result.race)


@dataclass
class DailyBook:
    """The daily challenge's state on this node: the secret deals derive from, the ranked
    attempts of the last ``days_kept`` days (by day and game, and by player), and the best
    streaks seen. ``wall_ms``: the server's wall clock (Unix epoch ms)."""

    secret: bytes
    wall_ms: Callable[[], int]
    days_kept: int = 400
    _by_day: dict[tuple[str, str], dict[str, DailyResult]] = field(default_factory=dict)  # (day, game) -> player ->
    _by_player: dict[str, dict[tuple[str, str], DailyResult]] = field(default_factory=dict)  # player -> (day, game) ->
    _best: dict[str, int] = field(default_factory=dict)  # player -> best streak seen
    revealing: set[str] = field(default_factory=set)  # days whose end a task waits for, to reveal their races

    @classmethod
    def of(cls, secret: str | None, wall_ms: Callable[[], int], days_kept: int) -> DailyBook:
        """A book deriving deals from ``secret`` (None: a random one, good for this process only)."""
        key = secret.encode() if secret else secrets.token_bytes(32)
        return cls(key, wall_ms, days_kept)

    def today(self) -> str:
        """Today's UTC day."""
        return day_of(self.wall_ms())

    def deal(self, game: str, day: str) -> tuple[int, str]:
        """``game``'s seed and salt on ``day`` (`derive_deal`)."""
        return derive_deal(self.secret, game, day)

    def attempt(self, player: str, game: str, day: str) -> DailyResult | None:
        """``player``'s ranked attempt at ``game``'s deal of ``day``, if any."""
        return self._by_player.get(player, {}).get((day, game))

    def started(self, race: Race, player: str, name: str, day: str) -> None:
        """``player`` began its ranked attempt at ``day``'s deal in ``race``."""
        self._keep(self._result(race, player, name, day))

    def finished(self, race: Race) -> None:
        """A ranked daily race ended (its ``on_finish``): its entrant's result is final."""
        if race.daily is None:
            return
        for entrant in race.entrants.values():
            self._keep(self._result(race, entrant.player, entrant.name, race.daily))

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
            status=entrant.status if entrant and race.status == "finished" else "playing",
            race=race.code,
        )

    def _keep(self, result: DailyResult) -> None:
        key = (result.day, result.game)
        self._by_day.setdefault(key, {})[result.player] = result
        self._by_player.setdefault(result.player, {})[key] = result
        if result.status in _FINAL:
            best = self._best.get(result.player, 0)
            self._best[result.player] = max(best, self.streak(result.player).current)
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

    def results(self, game: str, day: str, limit: int) -> list[DailyResult]:
        """The ranked results of ``game`` on ``day``, best first (`ranked_order`), at most
        ``limit`` (attempts still in play included, with status ``playing``)."""
        return sorted(self._by_day.get((day, game), {}).values(), key=ranked_order)[:limit]

    def streak(self, player: str) -> Streak:
        """``player``'s streak: consecutive UTC days with a daily played to the end (any game)."""
        days = sorted(
            {dt.date.fromisoformat(d) for (d, _), r in self._by_player.get(player, {}).items() if r.status in _FINAL}
        )
        best = run = 0
        previous: dt.date | None = None
        for day in days:
            run = run + 1 if previous is not None and (day - previous).days == 1 else 1
            best = max(best, run)
            previous = day
        today = dt.date.fromisoformat(self.today())
        current = run if previous is not None and (today - previous).days <= 1 else 0
        return Streak(current=current, best=max(best, self._best.get(player, 0)))

    def calendar(self, player: str, month: str, game: str | None) -> list[CalendarDay]:
        """Each day of ``month`` up to today with ``player``'s ranked result that day (of
        ``game``; None: its best of any game). Raises ValueError for a month that does not exist."""
        mine = self._by_player.get(player, {})
        days = []
        for day in month_days(month, self.today()):
            found = [r for (d, g), r in mine.items() if d == day and (game is None or g == game)]
            days.append(CalendarDay(day=day, result=min(found, key=ranked_order) if found else None))
        return days

    def lock_opens_ms(self, info: RaceInfo) -> int | None:
        """When the spoiler lock on a daily's race opens (Unix epoch ms), or None if it is open
        (or the race is no daily)."""
        if info.daily is None:
            return None
        closes = day_end_ms(info.daily)
        return closes if self.wall_ms() < closes else None
