"""Scheduled tournaments made of races: registration, deals, live standings and results.

A tournament plays ``deals`` seeded deals of one game. Its seeds are fixed when it is created
(given, drawn from a catalog of winnable deals, or drawn at random) and committed to when it
starts: each deal's commitment is SHA-256 of ``f"{seed}:{salt}"``, and seeds and salts are
revealed when the tournament finishes. Two formats:

* ``rounds``: every entrant plays deal 1 at the same instant (one race holding them all), then
  deal 2 after a break of ``break_s`` seconds, and so on.
* ``arena``: within a window of ``arena_window_s`` seconds each entrant opens the deals in order
  at its own pace (`Tournament.open_deal`); each opening starts that entrant's own race, and its
  clock for the deal. The deal's seed stays secret until the window closes.

Life: ``scheduled`` -> ``registration`` (``registration_opens_s`` before the start) ->
``starting`` (``countdown_s`` before) -> ``running`` -> ``finished``; or ``cancelled`` at any
point. Every change is announced as a `TournamentEvent` to the entrants and every follower.

Scoring: each deal ranks by the race's standings; the tournament adds cards cleared over all deals,
breaks ties by total time (milliseconds), then by registration order. Entrants who never showed
up (no move and no resignation in any deal) are listed as absent. docs/tournaments.md gives the outcome of late registration,
withdrawal and disconnection.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from engine.core import Game
from engine.deal import DEAL_VERSION, commitment_of
from server.protocol import (
    DealScore,
    ErrorCode,
    ProtocolError,
    TournamentEvent,
    TournamentInfo,
    TournamentStanding,
    encode,
)
from server.logs import fields, iso_time
from server.names import name_key
from server.race import Clock, Listener, Race
from server.store import Store

__all__ = ["TournamentEntrant", "Tournament", "TournamentHost", "TournamentPlan"]

log = logging.getLogger("arena.server")
events = logging.getLogger("arena.tournaments")


class TournamentHost(Protocol):
    """What a tournament needs from the server that runs it."""

    store: Store
    clock: Clock

    def add_race(self, race: Race) -> None:
        """Make a race reachable by its code (moves, watch, sync, records), under the server's
        limits (idle timeout, move cap, retention)."""

    def new_race_code(self) -> str:
        """A race code no race has."""

    def tournament_ended(self, tournament: Tournament) -> None:
        """The tournament finished or was cancelled: it may leave memory after the retention."""


class Player(Protocol):
    """A registered player as the tournament sees it (`server.service.Player`)."""

    id: str
    name: str
    races: set[str]

    def send(self, frame: bytes) -> None:
        """Deliver a frame to the player's connection, if it has one."""


@dataclass(frozen=True)
class TournamentPlan:
    """What an organiser asked for. Times: seconds; instants: Unix epoch milliseconds."""

    name: str
    game_cls: type[Game]
    options: dict[str, bool]
    format: str
    seeds: tuple[int, ...]
    starts_at_ms: int
    deal_time_limit_s: int = 600
    max_entrants: int = 256
    registration_opens_s: int = 3600
    arena_window_s: int = 86_400
    break_s: int = 10
    countdown_s: int = 5
    schedule: str | None = None
    timezone: str = "UTC"
    spectator_delay_s: int = 1


@dataclass(eq=False)
class TournamentEntrant:
    """A registered player: join ``order``, its result per deal index, whether it withdrew, its
    race for each deal it was dealt, and (arena) the race of the deal it is playing."""

    player: Player
    order: int
    scores: dict[int, DealScore] = field(default_factory=dict)
    moved: bool = False
    withdrawn: bool = False
    current: Race | None = None
    deal_races: dict[int, Race] = field(default_factory=dict)


class Tournament:
    """One tournament run by its own task. Requests raise `ProtocolError` with a code."""

    def __init__(self, host: TournamentHost, tournament_id: str, plan: TournamentPlan) -> None:
        self.host = host
        self.id = tournament_id
        self.plan = plan
        self.salts = [secrets.token_hex(16) for _ in plan.seeds]
        self.commitments = [commitment_of(seed, salt) for seed, salt in zip(plan.seeds, self.salts)]
        self.status = "scheduled"
        self.version = 0
        self.entrants: dict[str, TournamentEntrant] = {}
        self._names: dict[str, str] = {}  # `name_key` of each entrant's name -> its player id
        self.followers: set[Listener] = set()
        self.races: list[Race] = []
        self.current_deal: int | None = None
        self.ends_at_ms: int | None = None
        self.lock = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.on_starting: Callable[[Tournament], None] | None = None  # a schedule's next occurrence
        self._deal_done: asyncio.Event | None = None

    @property
    def registration_opens_ms(self) -> int:
        """The instant registration opens, Unix epoch milliseconds."""
        return self.plan.starts_at_ms - self.plan.registration_opens_s * 1000

    # ---------------------------------------------------------------------------- reading

    def info(self) -> TournamentInfo:
        """The tournament's public description (seeds only once finished)."""
        plan = self.plan
        done = self.status == "finished"
        return TournamentInfo(
            id=self.id,
            name=plan.name,
            game=plan.game_cls.key,
            options=plan.options,
            rules_version=plan.game_cls.rules_version,
            deal_version=DEAL_VERSION,
            format=plan.format,
            deals=len(plan.seeds),
            deal_time_limit_s=plan.deal_time_limit_s,
            max_entrants=plan.max_entrants,
            registered=[e.player.name for e in self._by_order() if not e.withdrawn],
            status=self.status,  # type: ignore[arg-type]
            registration_opens_ms=self.registration_opens_ms,
            starts_at_ms=plan.starts_at_ms,
            ends_at_ms=self.ends_at_ms,
            schedule=plan.schedule,
            timezone=plan.timezone,
            current_deal=self.current_deal,
            races=[r.code for r in self.races],
            commitments=self.commitments if self.status not in ("scheduled", "registration") else [],
            seeds=list(plan.seeds) if done else None,
            salts=list(self.salts) if done else None,
            version=self.version,
            spectator_delay_s=plan.spectator_delay_s,
        )

    def _by_order(self) -> list[TournamentEntrant]:
        return sorted(self.entrants.values(), key=lambda e: e.order)

    def standings(self) -> list[TournamentStanding]:
        """Entrants ranked by cards cleared over all deals, then total time, then registration."""
        lines = []
        for e in self.entrants.values():
            scores = [e.scores[i] for i in sorted(e.scores)]
            lines.append((sum(s.cleared for s in scores), sum(s.time_ms for s in scores), e, scores))
        lines.sort(key=lambda line: (-line[0], line[1], line[2].order))
        return [
            TournamentStanding(place=i + 1, player=e.player.id, name=e.player.name, cleared=cleared,
                               time_ms=time_ms, deals=scores, status=self._status_of(e), order=e.order)
            for i, (cleared, time_ms, e, scores) in enumerate(lines)
        ]

    def _status_of(self, e: TournamentEntrant) -> str:
        if e.withdrawn:
            return "withdrawn"
        if self.status in ("scheduled", "registration", "starting"):
            return "registered"
        if self.status in ("finished", "cancelled"):
            return "finished" if e.moved else "absent"
        return "finished" if len(e.scores) == len(self.plan.seeds) else "playing"

    def may_watch_deal(self, player: str, deal: int) -> bool:
        """An entrant may watch a deal of its own tournament only once it has finished that deal
        (won, stuck, resigned or out of time in its race for it)."""
        entrant = self.entrants.get(player)
        if entrant is None or entrant.withdrawn or deal in entrant.scores or self.status == "finished":
            return True
        race = entrant.deal_races.get(deal)
        return race is not None and race.entrants[player].done

    # ------------------------------------------------------------------------ requests

    async def register(self, player: Player) -> None:
        """Enter the tournament. Rounds: until the first deal starts; arena: until the window
        closes. Raises ProtocolError (registration_closed, tournament_full, already_joined,
        name_taken: another entrant's name is the same by `server.names.name_key`)."""
        async with self.lock:
            open_now = self.status in ("registration", "starting") or (
                self.status == "running" and self.plan.format == "arena"
            )
            if not open_now:
                raise ProtocolError(ErrorCode.REGISTRATION_CLOSED, f"registration for {self.id} is not open ({self.status})")
            entrant = self.entrants.get(player.id)
            if entrant is not None and not entrant.withdrawn:
                raise ProtocolError(ErrorCode.ALREADY_JOINED, f"you are registered for {self.id} already")
            if entrant is not None:
                raise ProtocolError(ErrorCode.REGISTRATION_CLOSED, "you withdrew from this tournament")
            if sum(not e.withdrawn for e in self.entrants.values()) >= self.plan.max_entrants:
                raise ProtocolError(ErrorCode.TOURNAMENT_FULL, f"{self.id} is full ({self.plan.max_entrants})")
            key = name_key(player.name)
            if key in self._names:
                raise ProtocolError(ErrorCode.NAME_TAKEN,
                                    f"an entrant of {self.id} is already called {player.name!r}")
            self.entrants[player.id] = TournamentEntrant(player, len(self.entrants))
            self._names[key] = player.id
            self._announce("registered")
            events.info("%s registered for tournament %s", player.name, self.id,
                        extra=fields("tournament_registered", tournament=self.id, player=player.id,
                                     player_name=player.name))

    async def withdraw(self, player: Player) -> None:
        """Leave: before the start, off the list; later, the deal in play counts as resigned and no
        further deal is played. Raises ProtocolError (not_registered)."""
        async with self.lock:
            entrant = self.entrants.get(player.id)
            if entrant is None or entrant.withdrawn:
                raise ProtocolError(ErrorCode.NOT_REGISTERED, f"you are not registered for {self.id}")
            if self.status in ("finished", "cancelled"):
                raise ProtocolError(ErrorCode.REGISTRATION_CLOSED, f"{self.id} is over")
            if self.status in ("scheduled", "registration", "starting"):
                del self.entrants[player.id]
                self._names.pop(name_key(player.name), None)
            else:
                entrant.withdrawn = True
            racing = [r for r in self.races if r.status == "running" and player.id in r.entrants]
            self._announce("withdrawn")
            events.info("%s withdrew from tournament %s", player.name, self.id,
                        extra=fields("tournament_withdrawn", tournament=self.id, player=player.id,
                                     player_name=player.name))
        for race in racing:
            with contextlib.suppress(ProtocolError):
                await race.resign(player.id)

    async def open_deal(self, player: Player) -> Race:
        """Arena: start the entrant's next deal now and return its race. Raises ProtocolError
        (not_registered, no_deal, not_allowed)."""
        async with self.lock:
            entrant = self.entrants.get(player.id)
            if self.plan.format != "arena":
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "deals open by themselves in a rounds tournament")
            if entrant is None or entrant.withdrawn:
                raise ProtocolError(ErrorCode.NOT_REGISTERED, f"you are not registered for {self.id}")
            if self.status != "running" or self.ends_at_ms is None:
                raise ProtocolError(ErrorCode.NO_DEAL, f"the arena window of {self.id} is not open")
            if entrant.current is not None and entrant.current.status != "finished":
                return entrant.current
            deal = len(entrant.scores)
            if deal >= len(self.plan.seeds):
                raise ProtocolError(ErrorCode.NO_DEAL, "you have played every deal")
            left_s = (self.ends_at_ms - self.host.clock.wall_ms()) // 1000
            if left_s < 1:
                raise ProtocolError(ErrorCode.NO_DEAL, f"the arena window of {self.id} is closing")
            race = self._new_race(deal, [entrant], min(self.plan.deal_time_limit_s, left_s), hold_seed=True)
            entrant.current = race
            race.on_finish = lambda r, d=deal: self._scored(r, d)
            self._log_deal(deal, race, player.id)
        await race.join(player.id, player.name, player)
        await race.start(self.id)
        return race

    async def cancel(self, reason: str = "cancelled") -> None:
        """Stop the tournament: running deals end (their races finish with ``reason``), nothing
        more is played; results so far stand."""
        async with self.lock:
            if self.status in ("finished", "cancelled"):
                return
            self.status = "cancelled"
            self._announce("cancelled")
            self._log_status(reason)
            self.host.tournament_ended(self)
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
        for race in self.races:
            await race.stop(reason)
            race.reveal()

    # ------------------------------------------------------------------------- running

    def start(self) -> None:
        """Start the tournament's task: it waits for each instant of the schedule. Registration
        that opens at once is open when this returns."""
        if self.registration_opens_ms <= self.host.clock.wall_ms():
            self.status = "registration"
        self.task = asyncio.ensure_future(self._run())
        self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("tournament %s stopped by an error", self.id, exc_info=task.exception())

    async def _run(self) -> None:
        clock = self.host.clock
        if self.status == "scheduled":
            await clock.sleep_until_wall(self.registration_opens_ms)
            await self._become("registration", "registration_open")
        await clock.sleep_until_wall(self.plan.starts_at_ms - self.plan.countdown_s * 1000)
        await self._become("starting", "starting")
        if self.on_starting is not None:
            self.on_starting(self)
        await clock.sleep_until_wall(self.plan.starts_at_ms)
        if self.plan.format == "arena":
            self.ends_at_ms = self.plan.starts_at_ms + self.plan.arena_window_s * 1000
        await self._become("running", "standings")
        if self.plan.format == "rounds":
            await self._play_rounds()
        else:
            await clock.sleep_until_wall(self.ends_at_ms or 0)
            for race in list(self.races):
                await race.stop("window_closed")
        for race in self.races:
            race.reveal()
        await self._become("finished", "finished")
        self.host.tournament_ended(self)

    async def _become(self, status: str, kind: str) -> None:
        async with self.lock:
            if self.status == "cancelled":
                raise asyncio.CancelledError
            self.status = status
            self._announce(kind)
            self._log_status()

    async def _play_rounds(self) -> None:
        for deal in range(len(self.plan.seeds)):
            async with self.lock:
                players = [e for e in self._by_order() if not e.withdrawn]
                if not players:
                    return
                race = self._new_race(deal, players, self.plan.deal_time_limit_s, hold_seed=False)
                self.current_deal = deal
                done = asyncio.Event()
                race.on_finish = lambda r, d=deal: (self._scored(r, d), done.set())
            for e in players:
                await race.join(e.player.id, e.player.name, e.player)
            await race.start(self.id)
            async with self.lock:
                self._announce("deal_started", deal=deal, race=race.code)
                self._log_deal(deal, race)
            await done.wait()
            if deal + 1 < len(self.plan.seeds):
                await self.host.clock.sleep_until(self.host.clock.monotonic() + self.plan.break_s)

    def _new_race(self, deal: int, entrants: list[TournamentEntrant], limit_s: int, *, hold_seed: bool) -> Race:
        plan = self.plan
        race = Race(
            self.host.new_race_code(),
            plan.game_cls,
            options=plan.options,
            seed=plan.seeds[deal],
            seed_public=False,
            creator=self.id,
            max_entrants=len(entrants),
            countdown_s=0,
            time_limit_s=limit_s,
            store=self.host.store,
            clock=self.host.clock,
            salt=self.salts[deal],
            watch_policy=lambda player, d=deal: self.may_watch_deal(player, d),
            hold_seed=hold_seed,
            casual=False,
            spectator_delay_s=plan.spectator_delay_s,
        )
        self.races.append(race)
        self.host.add_race(race)
        for e in entrants:
            e.player.races.add(race.code)
            e.deal_races[deal] = race
        return race

    def _scored(self, race: Race, deal: int) -> None:
        """A deal's race finished: record each entrant's result and announce it."""
        for line in race.standings():
            entrant = self.entrants.get(line.player)
            if entrant is None:
                continue
            entrant.scores[deal] = DealScore(race=race.code, cleared=line.cleared, time_ms=line.time_ms,
                                             status=line.status)
            entrant.moved = entrant.moved or line.moves > 0 or line.status == "resigned"
        self._announce("deal_ended", deal=deal, race=race.code)

    # ---------------------------------------------------------------------------- logs

    def _log_status(self, reason: str | None = None) -> None:
        """Log the tournament's new status (``tournament_registration``, ``tournament_starting``,
        ``tournament_running``, ``tournament_finished`` with the leader, ``tournament_cancelled``)."""
        leader = None
        if self.status in ("finished", "cancelled"):
            leader = next(iter(self.standings()), None)
        events.info("tournament %s: %s", self.id, self.status,
                    extra=fields(f"tournament_{self.status}", tournament=self.id, tournament_name=self.plan.name,
                                 status=self.status, reason=reason,
                                 entrants=sum(not e.withdrawn for e in self.entrants.values()),
                                 starts_at=iso_time(self.plan.starts_at_ms),
                                 ends_at=iso_time(self.ends_at_ms) if self.ends_at_ms is not None else None,
                                 winner=leader.player if leader else None,
                                 winner_name=leader.name if leader else None))

    def _log_deal(self, deal: int, race: Race, player: str | None = None) -> None:
        events.info("tournament %s: deal %d started in race %s", self.id, deal + 1, race.code,
                    extra=fields("tournament_deal_started", tournament=self.id, deal=deal, race=race.code,
                                 player=player, entrants=len(race.entrants) or None))

    # ---------------------------------------------------------------------- publishing

    def _announce(self, kind: str, *, deal: int | None = None, race: str | None = None) -> None:
        """Send one event, encoded once, to every entrant and follower (callers hold the lock,
        or run inside a race's lock at a deal's end)."""
        self.version += 1
        frame = encode(TournamentEvent(tournament=self.info(), version=self.version, kind=kind,
                                       standings=self.standings(), deal=deal, race=race))
        for entrant in list(self.entrants.values()):
            entrant.player.send(frame)
        for follower in list(self.followers):
            follower.send(frame)
