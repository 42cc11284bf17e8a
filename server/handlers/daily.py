"""The daily challenge's requests (play_daily, daily, daily_calendar) and the spoiler lock the
races' reading requests go through (`check_spoiler_lock`). What a day's deal is, its results and
streaks: `server.daily`."""

from __future__ import annotations

import logging

from engine.deal import commitment_of
from engine.games import GAMES, UnknownGame, find_game
from server.addresses import address_key
from server.archive import DAILY_VOID, ArchiveError
from server.daily import day_end_ms, day_start_ms
from server.players import Player
from server.protocol import (
    CalendarPage,
    DailyCalendar,
    DailyDeal,
    DailyInfo,
    ErrorCode,
    GetDaily,
    PlayDaily,
    ProtocolError,
    RaceInfo,
    RaceReply,
)
from server.race import Race
from server.state import ServerState
from server.transport.session import Session

__all__ = ["check_spoiler_lock", "daily_calendar", "get_daily", "play_daily"]

log = logging.getLogger("arena.daily")

#: A ranked attempt is refused when the day has fewer seconds left than this.
_LAST_SECONDS = 10


def check_spoiler_lock(state: ServerState, info: RaceInfo) -> None:
    """Refuse (``spoiler_locked``, with ``opens_at_ms``) to show anyone but its entrant's own
    view of a race whose deal others may still play: a daily challenge's race until its UTC day
    ends, an arena tournament's deal until the tournament's window closes, whatever its
    ``spectating`` (its entrants play the same deal hours apart: a watcher could be one of them
    under a second name). Once a daily's day is over, a race in memory that held its seed
    reveals it (and is archived)."""
    opens = state.daily.lock_opens_ms(info)
    what = f"the daily {info.game} deal of {info.daily}"
    if opens is None and info.tournament is not None:
        found = state.tournaments.get(info.tournament)
        if found is not None and found.plan.format == "arena" and found.status not in ("finished", "cancelled"):
            opens = found.ends_at_ms or found.plan.starts_at_ms + found.plan.arena_window_s * 1000
            what = f"a deal of arena tournament {found.id}"
    if opens is not None:
        raise ProtocolError(
            ErrorCode.SPOILER_LOCKED,
            f"{what} may still be played: it cannot be watched, replayed or read until {opens} (Unix ms)",
            opens_at_ms=opens,
        )
    race = state.races.get(info.code)
    if info.daily is not None and race is not None and race.status == "finished" and race.hold_seed:
        state.daily.reveal(race)


def _unavailable(exc: ArchiveError) -> ProtocolError:
    log.warning("a daily request could not read the archive: %s", exc)
    return ProtocolError(ErrorCode.UNAVAILABLE, "the archive cannot be reached now: try again in a moment")


def _game_key(name: str) -> str:
    try:
        return find_game(name).key
    except UnknownGame as exc:
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None


def _day_of(msg_day: str | None, today: str) -> str:
    if msg_day is None:
        return today
    try:
        day_start_ms(msg_day)
    except ValueError:
        raise ProtocolError(ErrorCode.NO_DEAL, f"there is no day {msg_day}") from None
    return msg_day


async def play_daily(state: ServerState, session: Session, player: Player, msg: PlayDaily) -> None:
    """Start (or resume) ``player``'s ranked attempt at today's deal of ``msg.game``, or a past
    day's deal as practice (unranked: not in the day's results). Raises ProtocolError
    (unknown_game, already_played, no_deal: a day not over yet or that does not exist, or today's
    ending; too_many_races: over the races a player or address may create an hour; unavailable:
    the archive, where earlier attempts are kept, cannot be read)."""
    game_cls = find_game(_game_key(msg.game))
    book = state.daily
    today = book.today()
    day = _day_of(msg.day, today)
    if day > today:
        raise ProtocolError(ErrorCode.NO_DEAL, f"the daily deals of {day} are not dealt yet (today is {today})")
    seed, salt = book.deal(game_cls.key, day)
    ranked = day == today
    if ranked:
        try:
            mine = await book.attempt(player.id, game_cls.key, day)
        except ArchiveError as exc:
            raise _unavailable(exc) from None
        if mine is not None:
            race = state.races.get(mine.race)
            if race is not None and race.status != "finished" and player.id in race.entrants:
                session.reply(RaceReply(req=msg.req, race=race.info()))  # resume it
                return
            played = (
                f"your attempt at today's {game_cls.key} daily challenge (race {mine.race}) is void: the server "
                f"lost moves it had acknowledged, so it has no result, and the deal, which you have seen, "
                f"cannot be played ranked again"
                if mine.status == DAILY_VOID
                else f"you have played today's {game_cls.key} daily challenge (race {mine.race})"
            )
            raise ProtocolError(
                ErrorCode.ALREADY_PLAYED, f"{played}; past days may be played as practice once they are over"
            )
        left_s = (day_end_ms(day) - state.clock.wall_ms()) // 1000
        if left_s < _LAST_SECONDS:
            raise ProtocolError(ErrorCode.NO_DEAL, f"the daily challenge of {day} is closing: try again in a moment")
        limit_s = min(state.config.daily_time_limit_s, left_s)
    else:
        limit_s = state.config.daily_time_limit_s
    _count_creation(state, session, player)
    race = Race(
        state.new_race_code(),
        game_cls,
        options={},
        seed=seed,
        seed_public=not ranked,  # a past day's deal is no secret any more
        creator=player.id,
        max_entrants=1,
        countdown_s=0,
        time_limit_s=limit_s,
        store=state.store,
        clock=state.clock,
        salt=salt,
        hold_seed=ranked,  # revealed when the day ends (`check_spoiler_lock`)
        casual=False,  # nobody else joins; no rematch, no Double or Naught
    )
    if ranked:
        race.daily = day
    state.add_race(race)
    await race._save()
    await race.join(player.id, player.name, player, claimed=player.claimed)
    player.races.add(race.code)
    if ranked:
        book.track(race, player.id, player.name, day)
    await race.start(player.id)
    session.reply(RaceReply(req=msg.req, race=race.info()))


def _count_creation(state: ServerState, session: Session, player: Player) -> None:
    """Count a daily race against the races a player and an address may create an hour (as
    `create_race` does); raises ProtocolError (too_many_races) over either."""
    cfg = state.config
    now = state.clock.monotonic()
    keys = (
        (f"p:{player.id}", cfg.races_per_hour_per_player),
        (f"a:{address_key(session.address)}", cfg.races_per_hour_per_ip),
    )
    for key, most in keys:
        if state.created.count(key, now) >= most:
            raise ProtocolError(ErrorCode.TOO_MANY_RACES, f"at most {most} races an hour, daily ones included")
    for key, _ in keys:
        state.created.add(key, now)


async def get_daily(state: ServerState, session: Session, player: Player, msg: GetDaily) -> None:
    """Today's deals (with ``player``'s attempts), its streak, and one game's results of a day.
    Raises ProtocolError (unknown_game; unavailable: the archive cannot be read)."""
    book = state.daily
    today = book.today()
    day = _day_of(msg.day, today)
    game = _game_key(msg.game) if msg.game is not None else None
    try:
        mine = await book.attempts(player.id, today)
        streak = await book.streak(player.id)
        results = await book.results(game, day, msg.limit) if game is not None else []
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    closes = day_end_ms(today)
    deals = []
    for game_cls in GAMES:
        seed, salt = book.deal(game_cls.key, today)
        deals.append(
            DailyDeal(
                game=game_cls.key,
                day=today,
                commitment=commitment_of(seed, salt),
                closes_at_ms=closes,
                mine=mine.get(game_cls.key),
            )
        )
    session.reply(DailyInfo(req=msg.req, day=today, deals=deals, streak=streak, results_day=day, results=results))


async def daily_calendar(state: ServerState, session: Session, player: Player, msg: DailyCalendar) -> None:
    """``player``'s daily challenges of one month, day by day, and its streak. Raises
    ProtocolError (unknown_game; no_deal: a month that does not exist; unavailable: the archive
    cannot be read)."""
    game = _game_key(msg.game) if msg.game is not None else None
    try:
        days = await state.daily.calendar(player.id, msg.month, game)
        streak = await state.daily.streak(player.id)
    except ValueError:
        raise ProtocolError(ErrorCode.NO_DEAL, f"there is no month {msg.month}") from None
    except ArchiveError as exc:
        raise _unavailable(exc) from None
    session.reply(CalendarPage(req=msg.req, month=msg.month, game=game, days=days, streak=streak))
