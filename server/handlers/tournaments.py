"""Tournaments' requests, and the schedules behind recurring ones.

Organisers (the admin token's holder, or claimed players with the organiser role, each running
its own: `server.handlers.organisers`) create and cancel tournaments, one-off or recurring (a
cron schedule: each occurrence is scheduled when the one before starts); players list, follow,
register for and withdraw from them, and open their next deal of an arena tournament. A TOML
schedule file (`server.schedule`) declares recurring ones at start (`load_schedule`). Over a
durable store a restarted server (or a new leader among several nodes) goes on with every
tournament and schedule (`resume_tournaments`). Tournaments run on one node: the leader
(`server.nodes`).
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import secrets
import time
from pathlib import Path

import msgspec

from engine.core import BadNotation, Game
from engine.deal import random_seed
from engine.games import UnknownGame, find_game
from server import fair_play_reports
from server.archive import ArchiveError
from server.handlers.organisers import check_entry, may_run, new_invite_code, organiser_of
from server.handlers.races import draw_winnable, winnable_secret_seeds
from server.logs import fields, iso_time
from server.names import BadName, normal_name
from server.players import Player
from server.protocol import (
    CancelTournament,
    CreateTournament,
    ErrorCode,
    FairPlayRequest,
    FollowTournament,
    ListTournaments,
    OpenDeal,
    ProtocolError,
    RaceReply,
    RegisterTournament,
    ReviewEntry,
    TournamentInfo,
    TournamentReply,
    Tournaments,
    TournamentSnapshot,
    WithdrawTournament,
)
from server.race import RebuildError
from server.schedule import ScheduleError, load_schedule_file, next_occurrences, parse_start, time_zone
from server.state import ServerState
from server.store import StoreUnavailable
from server.tournament import Tournament, TournamentPlan, person_key
from server.transport.session import Session

__all__ = [
    "cancel",
    "create",
    "create_tournament",
    "follow",
    "list_tournaments",
    "load_schedule",
    "fair_play_report",
    "open_deal",
    "register",
    "resume_tournaments",
    "review_entry",
    "withdraw",
]

log = logging.getLogger("arena.server")
_tournaments_log = logging.getLogger("arena.tournaments")


# ------------------------------------------------------------------------------ requests


async def create(state: ServerState, session: Session, player: Player, msg: CreateTournament) -> None:
    """An organiser's request (the admin token, or a claimed player with the organiser role:
    `server.handlers.organisers.organiser_of`, which then runs it): check it, then, for
    winnable deals with no seeds given, let the solver find fresh secret ones (the private
    catalog makes up the rest), and schedule the tournament; the reply carries the invite code
    of an "invite" one. Raises ProtocolError and creates nothing if any part is wrong."""
    who = await organiser_of(state, player, msg.admin_token)
    if who is not None:
        msg = msgspec.structs.replace(msg, organiser=who)
    if msg.entry == "invite" and msg.invite_code is None:
        msg = msgspec.structs.replace(msg, invite_code=new_invite_code())
    game_cls, starts_at = _check(state, msg)
    seeds = None
    if msg.winnable and msg.seeds is None:
        seeds = await winnable_secret_seeds(state, game_cls.key, msg.deals, dict(msg.options))
    tournament = _create_checked(state, msg, game_cls, starts_at, seeds)
    session.reply(TournamentReply(req=msg.req, tournament=tournament.info(), invite_code=tournament.plan.invite_code))


async def cancel(state: ServerState, session: Session, player: Player, msg: CancelTournament) -> None:
    """Cancel a tournament, or a schedule (its pending occurrence, and the series): the admin,
    or the organiser that runs it."""
    target = msg.tournament.upper()
    series = state.schedules.get(target)
    organiser = series.organiser if series is not None else state.tournament(target).plan.organiser
    await may_run(state, player, msg.admin_token, organiser)
    session.reply(TournamentReply(req=msg.req, tournament=await _cancel(state, msg.tournament)))


async def list_tournaments(state: ServerState, session: Session, player: Player, msg: ListTournaments) -> None:
    """The tournaments in memory, the 200 newest at most."""
    newest = list(itertools.islice(reversed(state.tournaments.values()), 200))
    session.reply(Tournaments(req=msg.req, tournaments=[t.info() for t in reversed(newest)]))


async def follow(state: ServerState, session: Session, player: Player, msg: FollowTournament) -> None:
    """Follow a tournament: its snapshot, then its events on this connection. A finished one
    that has left memory is answered from the archive (its final standings; no events follow)."""
    if msg.tournament.upper() not in state.tournaments and state.archiver is not None:
        try:
            kept = await state.archiver.archive.get_tournament(msg.tournament.upper())
        except ArchiveError as exc:
            raise ProtocolError(ErrorCode.UNAVAILABLE, f"the archive cannot be read now: {exc.reason}") from None
        if kept is not None:
            session.reply(TournamentSnapshot(req=msg.req, tournament=kept[0], standings=kept[1]))
            return
    tournament = state.tournament(msg.tournament)
    tournament.followers.add(session)
    session.following.add(tournament.id)
    session.reply(TournamentSnapshot(req=msg.req, tournament=tournament.info(), standings=tournament.standings()))


async def register(state: ServerState, session: Session, player: Player, msg: RegisterTournament) -> None:
    """Enter a tournament whose registration is open; an entry beyond the person's allowance
    (`Tournament.register`) waits for the organiser's approval, and the reply says why. One
    restricted to claimed players, an allow-list or an invite code refuses others first
    (`server.handlers.organisers.check_entry`)."""
    tournament = state.tournament(msg.tournament)
    await check_entry(state, player, tournament.plan, msg.code)
    why = await tournament.register(player, person_key(player.id, session.address))
    if why is None:
        player.tournaments.add(tournament.id)
    session.reply(TournamentReply(req=msg.req, tournament=tournament.info(), pending=why))


async def review_entry(state: ServerState, session: Session, player: Player, msg: ReviewEntry) -> None:
    """The admin or the tournament's organiser: approve or refuse an entry waiting for approval
    (`Tournament.review`)."""
    tournament = state.tournament(msg.tournament)
    await may_run(state, player, msg.admin_token, tournament.plan.organiser)
    await tournament.review(msg.player, msg.approve)
    session.reply(TournamentReply(req=msg.req, tournament=tournament.info()))


async def withdraw(state: ServerState, session: Session, player: Player, msg: WithdrawTournament) -> None:
    """Leave a tournament (docs/tournaments.md says what becomes of its deals)."""
    tournament = state.tournament(msg.tournament)
    await tournament.withdraw(player)
    session.reply(TournamentReply(req=msg.req, tournament=tournament.info()))


async def open_deal(state: ServerState, session: Session, player: Player, msg: OpenDeal) -> None:
    """Arena format: open the player's next deal, its clock starting now."""
    race = await state.tournament(msg.tournament).open_deal(player)
    session.reply(RaceReply(req=msg.req, race=race.info()))


async def fair_play_report(state: ServerState, session: Session, player: Player, msg: FairPlayRequest) -> None:
    """An organiser's request: the tournament's fair-play report, one entry per deal worked out
    so far (`server.fair_play_reports`; docs/tournaments.md, "Fair play")."""
    tournament = state.tournament(msg.tournament)
    await may_run(state, player, msg.admin_token, tournament.plan.organiser)
    fair_play_reports.ensure(tournament)
    session.reply(fair_play_reports.report(tournament, msg.req))


# ----------------------------------------------------------------------------- creating


def create_tournament(state: ServerState, msg: CreateTournament) -> Tournament:
    """Check an organiser's request and schedule the tournament (or the first occurrence of a
    recurring one), winnable deals from the private catalog; raises ProtocolError and creates
    nothing if any part is wrong."""
    game_cls, starts_at = _check(state, msg)
    return _create_checked(state, msg, game_cls, starts_at, None)


def _check(state: ServerState, msg: CreateTournament) -> tuple[type[Game], int]:
    """The game and the start instant (epoch ms) of a tournament request; raises ProtocolError
    naming what is wrong with it."""
    try:
        game_cls = find_game(msg.game)
    except UnknownGame as exc:
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, exc.reason) from None
    try:
        game_cls(0, **msg.options)
    except BadNotation as exc:
        raise ProtocolError(ErrorCode.BAD_OPTION, exc.reason) from None
    try:
        normal_name(msg.name, max_chars=64)
    except BadName as exc:
        raise ProtocolError(ErrorCode.BAD_NAME, f"tournament name: {exc.reason}") from None
    if msg.deals < 1:
        raise ProtocolError(ErrorCode.BAD_TOURNAMENT, "a tournament needs at least one deal")
    if msg.seeds is not None and len(msg.seeds) != msg.deals:
        raise ProtocolError(ErrorCode.BAD_TOURNAMENT, f"{len(msg.seeds)} seeds given for {msg.deals} deals")
    _check_spectating(msg)
    _check_entry_fields(msg)
    if (msg.starts_at is None) == (msg.cron is None):
        raise ProtocolError(ErrorCode.BAD_SCHEDULE, "give either starts_at (one-off) or cron (recurring)")
    now = state.clock.wall_ms()
    try:
        time_zone(msg.timezone)
        if msg.cron is not None:
            starts_at = next_occurrences(msg.cron, msg.timezone, after_ms=now, count=1)[0]
        else:
            starts_at = parse_start(msg.starts_at or "", now_ms=now)
    except ScheduleError as exc:
        raise ProtocolError(ErrorCode.BAD_SCHEDULE, str(exc)) from None
    return game_cls, starts_at


def _check_entry_fields(msg: CreateTournament) -> None:
    """Refuse (bad_field, bad_name) an ``allow`` list with an ``entry`` other than "list" (or an
    empty one with it), an ``invite_code`` with an ``entry`` other than "invite", and a name of
    the list that no player could hold."""
    if (msg.entry == "list") != bool(msg.allow):
        raise ProtocolError(
            ErrorCode.BAD_FIELD,
            "entry 'list' takes the allow-list of claimed names that may enter (allow), and only it does",
        )
    if msg.invite_code is not None and msg.entry != "invite":
        raise ProtocolError(ErrorCode.BAD_FIELD, "an invite_code goes with entry 'invite'")
    for name in msg.allow:
        try:
            normal_name(name)
        except BadName as exc:
            raise ProtocolError(ErrorCode.BAD_NAME, f"allow-list name {name!r}: {exc.reason}") from None


#: The longest spectator delay of "live" spectating, seconds: the delayed boards wait in memory.
_LIVE_DELAY_MAX_S = 600


def _check_spectating(msg: CreateTournament) -> None:
    """Refuse (bad_field) a ``spectating`` choice that could show an entrant's board while others
    may still play it: "delayed" with a delay shorter than the deal's time limit; and "live" with
    a delay over `_LIVE_DELAY_MAX_S`."""
    if msg.spectating == "delayed" and msg.spectator_delay_s < msg.deal_time_limit_s:
        raise ProtocolError(
            ErrorCode.BAD_FIELD,
            f"spectating 'delayed' needs spectator_delay_s at least the deal time limit "
            f"({msg.spectator_delay_s} s < {msg.deal_time_limit_s} s): a shorter delay shows boards "
            f"while entrants still play them; use 'standings' for none",
        )
    if msg.spectating == "live" and msg.spectator_delay_s > _LIVE_DELAY_MAX_S:
        raise ProtocolError(
            ErrorCode.BAD_FIELD,
            f"spectating 'live' takes a spectator_delay_s of at most {_LIVE_DELAY_MAX_S} s; "
            f"'delayed' or 'standings' hold boards back longer",
        )


def _create_checked(
    state: ServerState,
    msg: CreateTournament,
    game_cls: type[Game],
    starts_at: int,
    seeds: list[int] | None,
    *,
    ident: str | None = None,
) -> Tournament:
    """Schedule a checked tournament request (``seeds``: winnable ones already found).
    ``ident``: the digest of a schedule file's entry (`load_schedule`), which names its schedule
    (``S`` + it) or its one-off tournament (``T`` + it) at every start."""
    if seeds is None and msg.winnable and msg.seeds is None and state.private_deals.available(game_cls.key) < msg.deals:
        draw_winnable(state, game_cls.key, msg.deals, private=True)  # raises: too few secret deals
    schedule_id = None
    if msg.cron is not None:
        schedule_id = "S" + (ident or secrets.token_hex(3).upper())
        state.schedules[schedule_id] = msg
        if state.store.durable:  # a restarted server goes on with the series (`resume_tournaments`)
            state.spawn(_keep_schedule(state, schedule_id, msg))
    return _schedule(
        state,
        msg,
        game_cls,
        starts_at,
        schedule_id,
        seeds,
        tournament_id=f"T{ident}" if ident is not None and schedule_id is None else None,
    )


async def _keep_schedule(state: ServerState, schedule_id: str, msg: CreateTournament) -> None:
    """Save a recurring schedule's request in the store (not its admin token); if the store
    cannot be reached, say so: the series goes on in memory, and its first occurrence is kept
    (a restart then finds it, without its schedule)."""
    try:
        await state.store.save_schedule(
            schedule_id, msgspec.msgpack.encode(msgspec.structs.replace(msg, req=0, admin_token="-"))
        )
    except StoreUnavailable as exc:
        log.warning("schedule %s not stored: %s", schedule_id, exc)


def _pend(state: ServerState, schedule_id: str, tournament: Tournament) -> None:
    """``tournament`` is schedule ``schedule_id``'s pending occurrence: the next one is
    scheduled when it starts (`_next_occurrence`)."""
    tournament.on_starting = lambda t: _next_occurrence(state, schedule_id, t.plan.starts_at_ms)
    state.pending[schedule_id] = tournament.id


def _schedule(
    state: ServerState,
    msg: CreateTournament,
    game_cls: type[Game],
    starts_at: int,
    schedule_id: str | None,
    found: list[int] | None = None,
    *,
    tournament_id: str | None = None,
) -> Tournament:
    if found is not None:
        seeds = tuple(found)
    elif msg.seeds is not None:
        seeds = tuple(msg.seeds)
    elif msg.winnable:
        seeds = tuple(draw_winnable(state, game_cls.key, msg.deals, private=True))
    else:
        seeds = tuple(random_seed() for _ in range(msg.deals))
    plan = TournamentPlan(
        name=normal_name(msg.name, max_chars=64),
        game_cls=game_cls,
        options=dict(msg.options),
        format=msg.format,
        seeds=seeds,
        starts_at_ms=starts_at,
        deal_time_limit_s=msg.deal_time_limit_s,
        max_entrants=msg.max_entrants,
        registration_opens_s=msg.registration_opens_s,
        arena_window_s=msg.arena_window_s,
        break_s=msg.break_s,
        countdown_s=msg.countdown_s,
        schedule=f"{schedule_id}: {msg.cron}" if schedule_id else None,
        timezone=msg.timezone,
        spectator_delay_s=msg.spectator_delay_s,
        undo=msg.undo,
        spectating=msg.spectating,
        max_entries_per_address=msg.max_entries_per_address,
        organiser=msg.organiser,
        entry=msg.entry,
        allow=tuple(normal_name(name) for name in msg.allow),
        invite_code=msg.invite_code,
        rated=msg.rated,
    )
    tournament = Tournament(state, tournament_id or "T" + secrets.token_hex(3).upper(), plan)
    if schedule_id is not None:
        _pend(state, schedule_id, tournament)
    state.tournaments[tournament.id] = tournament
    tournament.start()
    _tournaments_log.info(
        "tournament %s %r created, starting at %s",
        tournament.id,
        plan.name,
        iso_time(plan.starts_at_ms),
        extra=fields(
            "tournament_created",
            tournament=tournament.id,
            tournament_name=plan.name,
            game=game_cls.key,
            format=plan.format,
            deals=len(plan.seeds),
            starts_at=iso_time(plan.starts_at_ms),
            registration_opens_at=iso_time(tournament.registration_opens_ms),
            status=tournament.status,
            schedule=plan.schedule,
            timezone=plan.timezone,
        ),
    )
    return tournament


def _next_occurrence(state: ServerState, schedule_id: str, after_ms: int) -> None:
    msg = state.schedules.get(schedule_id)
    if msg is not None and msg.cron is not None:
        try:
            starts_at = next_occurrences(msg.cron, msg.timezone, after_ms=after_ms, count=1)[0]
            _schedule(state, msg, find_game(msg.game), starts_at, schedule_id)
        except (ProtocolError, ScheduleError) as exc:  # e.g. the private catalog ran out of deals
            log.error("schedule %s: cannot schedule the next occurrence: %s", schedule_id, exc)


def _schedule_id(tournament: Tournament) -> str | None:
    """The id of the recurring schedule ``tournament`` is an occurrence of (its ``schedule`` is
    ``"ID: CRON"``), or None for a one-off."""
    schedule = tournament.plan.schedule
    return schedule.split(":", 1)[0] if schedule else None


async def _cancel(state: ServerState, target: str) -> TournamentInfo:
    """Cancel a tournament, or a schedule (its pending occurrence, and the series). A schedule's
    pending occurrence cancelled on its own is skipped: the series goes on with the next one (as
    a restarted server would go on with it, `resume_tournaments`)."""
    target = target.upper()  # ids are shown in capitals; like race codes, any case finds them
    if target in state.schedules:  # a schedule: no more occurrences, and the pending one goes
        if state.store.durable:
            await state.store.drop_schedule(target)  # (raises StoreUnavailable: refused, nothing changed)
        del state.schedules[target]
        pending = state.tournaments.get(state.pending.pop(target, ""))
        if pending is None or pending.status not in ("scheduled", "registration"):
            raise ProtocolError(ErrorCode.UNKNOWN_TOURNAMENT, f"schedule {target} has no pending tournament")
        await pending.cancel()
        return pending.info()
    tournament = state.tournament(target)
    pending_one = tournament.status in ("scheduled", "registration")
    await tournament.cancel()
    schedule_id = _schedule_id(tournament)
    if pending_one and schedule_id in state.schedules and state.pending.get(schedule_id) == tournament.id:
        _next_occurrence(state, schedule_id, tournament.plan.starts_at_ms)
    return tournament.info()


def load_schedule(state: ServerState, path: str | Path) -> list[Tournament]:
    """Schedule every tournament of a TOML schedule file (`server.schedule`); raises
    ScheduleError or ProtocolError naming the first bad entry, before scheduling any.

    Each entry's schedule (or one-off tournament) is named by a digest of the entry, so that one
    a durable store kept (`resume_tournaments`: call this after the server's start) is not
    scheduled again: its pending tournament is returned instead. An entry removed from the file
    does not end its schedule: cancel it by its id."""
    messages = []
    for number, table in enumerate(load_schedule_file(path), 1):
        try:
            messages.append(msgspec.convert({"req": 0, "admin_token": "file", **table}, CreateTournament))
        except msgspec.ValidationError as exc:
            raise ScheduleError(f"tournament {number} in {str(path)!r}: {exc}") from None
    made = []
    for msg in messages:
        ident = hashlib.sha256(msgspec.msgpack.encode(msg)).hexdigest()[:6].upper()
        if msg.cron is not None and f"S{ident}" in state.schedules:  # kept by the store: going on already
            pending = state.tournaments.get(state.pending.get(f"S{ident}", ""))
            made.extend([pending] if pending is not None else [])
        elif msg.cron is None and f"T{ident}" in state.tournaments:
            made.append(state.tournaments[f"T{ident}"])
        else:
            made.append(_create_checked(state, msg, *_check(state, msg), None, ident=ident))
    return made


# ----------------------------------------------------------------------------- resuming


async def resume_tournaments(state: ServerState) -> None:
    """Rebuild every tournament the durable store lists as live and memory lacks
    (`Tournament.rebuild`: after the races, whose deal races it takes back), and go on with it
    (`Tournament.resume`); one that cannot be rebuilt is logged and left in the store. Its
    entrants are the players in memory, or players awaited until their hello
    (`ServerState.player_by_id`). Then every kept recurring schedule comes back: its pending
    occurrence is the rebuilt one not started yet, or, if the server stopped between an
    occurrence's start and the next one's creation, the next one is scheduled now, once. A
    tournament or schedule in memory already is left as it is, so that calling this again is
    harmless."""
    began = time.perf_counter()
    ids = await state.store.live_tournaments()
    rebuilt, skipped = [], 0
    for tournament_id in ids:
        if tournament_id in state.tournaments:
            continue
        meta = await state.store.load_tournament(tournament_id)
        if meta is None:
            continue  # archived since it was listed
        try:
            rebuilt.append(await Tournament.rebuild(state, tournament_id, meta))
        except RebuildError as exc:
            skipped += 1
            log.error(
                "tournament %s not resumed: %s",
                tournament_id,
                exc,
                extra=fields("tournament_not_resumed", tournament=tournament_id, reason=str(exc)),
            )
    kept = await state.store.schedules()
    for schedule_id, data in kept.items():
        if schedule_id in state.schedules:
            continue
        try:
            state.schedules[schedule_id] = msgspec.msgpack.decode(data, type=CreateTournament)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            log.error(
                "schedule %s not resumed: %s",
                schedule_id,
                exc,
                extra=fields("schedule_not_resumed", schedule=schedule_id, reason=str(exc)),
            )
    for tournament in sorted(rebuilt, key=lambda t: (t.plan.starts_at_ms, t.id)):
        state.tournaments[tournament.id] = tournament
        for entrant in tournament.entrants.values():
            entrant.player.tournaments.add(tournament.id)
        series = _schedule_id(tournament)
        if series in state.schedules and tournament.status in ("scheduled", "registration"):
            _pend(state, series, tournament)
        if tournament.status in ("finished", "cancelled"):
            state.tournament_ended(tournament)  # it leaves memory after the retention, as it would have
        tournament.resume()
        _tournaments_log.info(
            "tournament %s resumed (%s, %d entrants, %d races, event %d)",
            tournament.id,
            tournament.status,
            len(tournament.entrants),
            len(tournament.races),
            tournament.version,
            extra=fields(
                "tournament_resumed",
                tournament=tournament.id,
                status=tournament.status,
                entrants=len(tournament.entrants),
                races=len(tournament.races),
                version=tournament.version,
                schedule=tournament.plan.schedule,
            ),
        )
    for schedule_id in list(state.schedules):
        pending = state.tournaments.get(state.pending.get(schedule_id, ""))
        if pending is not None and pending.status in ("scheduled", "registration"):
            continue
        # Every occurrence there is has started (or there is none): the next one, after the latest.
        latest = max(
            (t.plan.starts_at_ms for t in state.tournaments.values() if _schedule_id(t) == schedule_id), default=0
        )
        _next_occurrence(state, schedule_id, max(latest, state.clock.wall_ms()))
    took_ms = (time.perf_counter() - began) * 1000
    if ids or kept:
        log.info(
            "resumed %d tournaments and %d schedules from the store in %.0f ms (%d left as they are)",
            len(rebuilt),
            len(state.schedules),
            took_ms,
            skipped,
            extra=fields(
                "tournaments_resumed",
                tournaments=len(rebuilt),
                schedules=len(state.schedules),
                skipped=skipped,
                took_ms=round(took_ms, 1),
            ),
        )
