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
up (no move and no resignation in any deal) are listed as absent. docs/tournaments.md gives the
outcome of late registration, withdrawal and disconnection.

Nobody can scout a deal for an entrant: spectators of a deal see what ``spectating`` allows
(`server.race.Race.spectating`: by default the standings only until the deal's race is over);
one person (`person_key`) holds ``max_entries_per_address`` entries, further ones waiting for
the organiser (`Tournament.review`); and in an arena tournament whoever has seen one of its
deals may not register (`Tournament.saw_deal`).

Over a durable store a tournament outlives the server process: it saves its description
(`Tournament._description`: the plan, salts, status, entrants and their scores, each deal's race)
at every change that matters, always before the event that announces the change, and a
restarted server rebuilds it (`Tournament.rebuild`, after its deal races) and goes on where it
stood (`Tournament.resume`). A deal's race is named in the stored description before the race
is stored or dealt, so that a restarted server finds every deal it dealt and never deals one
twice: when the store cannot take that description, the deal waits for it (rounds) or
`open_deal` is refused with ``unavailable`` (arena). Every other description that cannot be
stored is logged and the tournament goes on, as a race does. The instants of the schedule are
on the wall clock (the break before a rounds deal too: ``next_deal_ms``), so time passes while
no server runs, and an instant that passed meanwhile is acted on at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec

from engine.core import BadNotation, Game
from engine.deal import DEAL_VERSION, commitment_of
from engine.games import UnknownGame, find_game
from server import fair_play_reports
from server.addresses import address_key
from server.logs import fields, iso_time
from server.names import name_key
from server.protocol import (
    DealScore,
    ErrorCode,
    ProtocolError,
    TournamentEvent,
    TournamentInfo,
    TournamentStanding,
    encode,
)
from server.race import Clock, Entrant, Listener, Race, RebuildError
from server.store import Store, StoreUnavailable

__all__ = ["ArchivedRace", "TournamentEntrant", "Tournament", "TournamentHost", "TournamentPlan", "person_key"]

log = logging.getLogger("arena.server")
events = logging.getLogger("arena.tournaments")

#: Seconds between two tries to store the description that names a new rounds deal's race, while
#: the store cannot be reached (the deal waits: it is never dealt unless a restart would find it).
_RETRY_S = 1.0


def person_key(player: str, address: str | None) -> str:
    """Who is behind player ``player`` connected from ``address``, for "one person, one entry"
    (`Tournament.register`) and for who has seen a tournament's deals (`Tournament.saw_deal`):
    the one place that decides when two names are the same person. Today the key of the
    address (`server.addresses.address_key`: an IPv4 address, an IPv6 /64), whatever the
    player: people sharing an address (a household, a club's network, a carrier's NAT) count as
    one and ask the organiser for their further entries. Claimed identities (accounts) will
    decide it from ``player`` instead."""
    return "a:" + address_key(address or "")


class TournamentHost(Protocol):
    """What a tournament needs from the server that runs it."""

    store: Store
    clock: Clock
    races: dict[str, Race]  # every race in memory, by code (a rebuilt tournament finds its deals' here)

    def add_race(self, race: Race) -> None:
        """Make a race reachable by its code (moves, watch, sync, records), under the server's
        limits (idle timeout, move cap, retention)."""

    def new_race_code(self) -> str:
        """A race code no race has."""

    def tournament_ended(self, tournament: Tournament) -> None:
        """The tournament finished or was cancelled: it may leave memory after the retention."""

    def player_by_id(self, player_id: str, name: str) -> Player:
        """The player ``player_id`` (display name ``name``), for a rebuilt tournament's entrant:
        the one in memory, or a new disconnected one that the player becomes again when it says
        hello with its token."""


class Player(Protocol):
    """A registered player as the tournament sees it (`server.players.Player`)."""

    id: str
    name: str
    races: set[str]
    tournaments: set[str]
    bot: bool  # its hello said it is a program: its races are never rated
    claimed: bool  # its name is claimed (`server.handlers.claims`); guests' names are marked

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Deliver a frame to the player's connection, if it has one (``later``: a broadcast;
        ``standings``: one that may wait longer; `server.race.Listener`)."""


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
    undo: bool = False  # entrants may take back moves in its deals
    spectating: str = "standings"  # what spectators see while a deal runs (`server.protocol.Spectating`)
    max_entries_per_address: int = 1  # entries one person may hold without approval (0: no limit)
    rated: bool = False  # each deal is a rated race (`server.ratings.is_rated`)
    organiser: str | None = None  # the player id of the organiser who runs it (None: the admin)
    entry: str = "open"  # who may register (`server.protocol.Entry`; checked by `server.handlers.organisers`)
    allow: tuple[str, ...] = ()  # entry "list": the claimed names that may register
    invite_code: str | None = None  # entry "invite": the code a registration gives


@dataclass(eq=False)
class TournamentEntrant:
    """A registered player (or one whose entry waits for approval: ``why``): join ``order``, its
    result per deal index, whether it withdrew, its race for each deal it was dealt, (arena) the
    race of the deal it is playing, and ``person``: who registered it, as
    `person_key` says (today the address it registered from)."""

    player: Player
    order: int
    person: str = ""
    why: str = ""  # an entry held for the organiser's approval: the reason
    scores: dict[int, DealScore] = field(default_factory=dict)
    moved: bool = False
    withdrawn: bool = False
    current: Race | None = None
    deal_races: dict[int, Race | ArchivedRace] = field(default_factory=dict)
    claimed: bool = False  # its name was claimed when it registered or last renamed


class ArchivedRace:
    """A deal's race that had left the store's live races (archived: its record is kept, and
    `get_record` answers it) when its tournament was rebuilt: its code, nothing more. It stands
    in the tournament's lists for a race that finished long ago."""

    status = "finished"

    def __init__(self, code: str) -> None:
        self.code = code
        self.entrants: dict[str, Entrant] = {}

    async def stop(self, reason: str) -> None:
        """Nothing to stop: it finished."""

    def reveal(self) -> None:
        """Nothing to reveal: its record is public already."""


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
        self._names: dict[str, str] = {}  # `name_key` of each entrant's (or pending entry's) name -> its player id
        self.pending: dict[str, TournamentEntrant] = {}  # entries waiting for the organiser's approval, by player id
        self.refused: set[str] = set()  # player ids whose entry the organiser refused
        self.looked: set[str] = set()  # arena: player ids that watched or fetched a deal (registration closed)
        self.looked_persons: set[str] = set()  # arena: the `person` of each of them
        self.followers: set[Listener] = set()
        self.races: list[Race | ArchivedRace] = []  # rounds: deal i's race at index i; arena: in opening order
        self.current_deal: int | None = None
        self.ends_at_ms: int | None = None
        self.next_deal_ms: int | None = None  # rounds: when the next deal is due (the break's end), once one ended
        self.lock = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        self.on_starting: Callable[[Tournament], None] | None = None  # a schedule's next occurrence
        self._done: dict[int, asyncio.Event] = {}  # rounds: set once deal i has been scored and announced
        self._tasks: set[asyncio.Task[None]] = set()  # deals being scored (`_deal_over`)

    @property
    def registration_opens_ms(self) -> int:
        """The instant registration opens, Unix epoch milliseconds."""
        return self.plan.starts_at_ms - self.plan.registration_opens_s * 1000

    @property
    def expected_end_ms(self) -> int:
        """When it should end, Unix epoch milliseconds: an arena tournament when its window
        closes; a rounds one after every deal played to its time limit, with the breaks between
        (an upper estimate: deals often end sooner)."""
        plan = self.plan
        if plan.format == "arena":
            return self.ends_at_ms or plan.starts_at_ms + plan.arena_window_s * 1000
        deals = len(plan.seeds)
        return plan.starts_at_ms + (deals * plan.deal_time_limit_s + max(deals - 1, 0) * plan.break_s) * 1000

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
            next_deal_ms=self._next_deal_due(),
            undo=plan.undo,
            spectating=plan.spectating,  # type: ignore[arg-type]
            max_entries_per_address=plan.max_entries_per_address,
            entry=plan.entry,  # type: ignore[arg-type]
            organiser=plan.organiser,
            pending=[e.player.name for e in self.pending.values()],
        )

    def _next_deal_due(self) -> int | None:
        """Rounds, in a break between two deals: when the next deal is dealt (wall clock, ms)."""
        between = (
            self.status == "running"
            and self.plan.format == "rounds"
            and len(self.races) < len(self.plan.seeds)
            and all(r.status == "finished" for r in self.races)
        )
        return self.next_deal_ms if between else None

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
            TournamentStanding(
                place=i + 1,
                player=e.player.id,
                name=e.player.name,
                cleared=cleared,
                time_ms=time_ms,
                deals=scores,
                status=self._status_of(e),
                order=e.order,
                claimed=e.claimed,
            )
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
        return race is not None and (race.status == "finished" or race.entrants[player].done)

    # ------------------------------------------------------------------------ requests

    def _registration_open(self) -> bool:
        return self.status in ("registration", "starting") or (self.status == "running" and self.plan.format == "arena")

    async def register(self, player: Player, person: str) -> str | None:
        """Enter the tournament. Rounds: until the first deal starts; arena: until the window
        closes, and never for a player that watched or fetched one of its deals (`saw_deal`).
        ``person``: who is registering (`person_key`). Returns None
        once registered, or why the entry waits for the organiser's approval (`review`): the
        person holds ``max_entries_per_address`` entries already, or (arena) another of its
        names watched a deal. Raises ProtocolError (registration_closed, tournament_full,
        already_joined, name_taken: another entrant's name is the same by
        `server.names.name_key`)."""
        async with self.lock:
            if not self._registration_open():
                raise ProtocolError(
                    ErrorCode.REGISTRATION_CLOSED, f"registration for {self.id} is not open ({self.status})"
                )
            if player.id in self.refused:
                raise ProtocolError(ErrorCode.REGISTRATION_CLOSED, f"the organiser refused your entry to {self.id}")
            if player.id in self.pending:
                raise ProtocolError(
                    ErrorCode.ALREADY_JOINED, f"your entry to {self.id} waits for the organiser's approval"
                )
            entrant = self.entrants.get(player.id)
            if entrant is not None and not entrant.withdrawn:
                raise ProtocolError(ErrorCode.ALREADY_JOINED, f"you are registered for {self.id} already")
            if entrant is not None:
                raise ProtocolError(ErrorCode.REGISTRATION_CLOSED, "you withdrew from this tournament")
            if player.id in self.looked:
                raise ProtocolError(
                    ErrorCode.REGISTRATION_CLOSED,
                    f"you watched or fetched a deal of {self.id}: whoever has seen its cards may not enter it",
                )
            self._check_room()
            key = name_key(player.name)
            if key in self._names:
                raise ProtocolError(ErrorCode.NAME_TAKEN, f"an entrant of {self.id} is already called {player.name!r}")
            why = self._held_because(person)
            self._names[key] = player.id
            if why:
                self.pending[player.id] = TournamentEntrant(player, -1, person=person, why=why, claimed=player.claimed)
                await self._announce("pending", also=player)
            else:
                self.entrants[player.id] = TournamentEntrant(
                    player, len(self.entrants), person=person, claimed=player.claimed
                )
                await self._announce("registered")
            events.info(
                "%s %s for tournament %s%s",
                player.name,
                "asked to register" if why else "registered",
                self.id,
                f" (held for approval: {why})" if why else "",
                extra=fields(
                    "tournament_pending" if why else "tournament_registered",
                    tournament=self.id,
                    player=player.id,
                    player_name=player.name,
                    person=person,
                    reason=why or None,
                ),
            )
            return why or None

    def check_rename(self, player: Player, name: str) -> None:
        """Raise ProtocolError (name_taken) if ``player`` holds a name in this tournament (an
        entrant, or an entry awaiting approval, of a tournament not over) and another entrant's
        name is ``name`` by `server.names.name_key`: entrants' names stay unique through renames."""
        holder = self._names.get(name_key(name))
        if holder in (None, player.id) or self.status in ("finished", "cancelled"):
            return
        if self._names.get(name_key(player.name)) == player.id:
            raise ProtocolError(ErrorCode.NAME_TAKEN, f"an entrant of {self.id} is already called {name!r}")

    def renamed(self, player: Player, old: str) -> None:
        """Move ``player``'s name key from ``old`` to its name now (after `check_rename`), and
        mark its entry claimed or not as its name is now."""
        for entry in (self.entrants.get(player.id), self.pending.get(player.id)):
            if entry is not None:
                entry.claimed = player.claimed
        if old != player.name and self._names.get(name_key(old)) == player.id:
            del self._names[name_key(old)]
            self._names[name_key(player.name)] = player.id

    def _check_room(self) -> None:
        if sum(not e.withdrawn for e in self.entrants.values()) >= self.plan.max_entrants:
            raise ProtocolError(ErrorCode.TOURNAMENT_FULL, f"{self.id} is full ({self.plan.max_entrants})")

    def _held_because(self, person: str) -> str:
        """Why an entry by ``person`` must wait for the organiser's approval ("" if it need not):
        the person's entries (registered or waiting) reached ``max_entries_per_address``, or, in
        an arena tournament, the person watched or fetched one of its deals under another name.
        With no limit (0) an address is not taken for a person at all."""
        limit = self.plan.max_entries_per_address
        if not limit:
            return ""
        held = [e for e in (*self.entrants.values(), *self.pending.values()) if not e.withdrawn and e.person == person]
        if len(held) >= limit:
            return (
                f"your address holds {len(held)} of {self.id}'s entries already, and one person may hold "
                f"{limit} without the organiser's approval: your entry waits for it"
            )
        if self.plan.format == "arena" and person in self.looked_persons:
            return f"someone at your address watched a deal of {self.id}: your entry waits for the organiser's approval"
        return ""

    async def review(self, who: str, approve: bool) -> None:
        """The organiser's decision on an entry waiting for approval (``who``: its player id or
        name): approved, it is registered (as `register` does, announced ``registered``);
        refused, it is dropped for good (announced ``refused``, to that player too) and never
        dealt a deal. Raises ProtocolError (not_registered: no such entry waits;
        registration_closed, tournament_full: approved too late)."""
        async with self.lock:
            entry = self.pending.get(who) or next(
                (e for e in self.pending.values() if name_key(e.player.name) == name_key(who)), None
            )
            if entry is None:
                raise ProtocolError(ErrorCode.NOT_REGISTERED, f"no entry of {who!r} waits for approval in {self.id}")
            player = entry.player
            if approve:
                if not self._registration_open():
                    raise ProtocolError(
                        ErrorCode.REGISTRATION_CLOSED, f"registration for {self.id} is not open ({self.status})"
                    )
                self._check_room()
                del self.pending[player.id]
                self.entrants[player.id] = TournamentEntrant(
                    player, len(self.entrants), person=entry.person, claimed=entry.claimed
                )
                player.tournaments.add(self.id)
                await self._announce("registered")
            else:
                del self.pending[player.id]
                self._names.pop(name_key(player.name), None)
                self.refused.add(player.id)
                await self._announce("refused", also=player)
            events.info(
                "tournament %s: the organiser %s the entry of %s",
                self.id,
                "approved" if approve else "refused",
                player.name,
                extra=fields(
                    "tournament_entry_approved" if approve else "tournament_entry_refused",
                    tournament=self.id,
                    player=player.id,
                    player_name=player.name,
                ),
            )

    async def saw_deal(self, player: str, person: str, deal: int | None) -> None:
        """``player`` (registered by ``person``, `person_key`) is
        about to see the boards or the record of deal ``deal``: watch, sync as a spectator,
        get_record, replay. In an arena tournament, whose deals others may still open, this
        closes its registration for that player (and holds for approval any later entry of the
        same person, `register`); raises ProtocolError(not_allowed), recording nothing, when
        another entry of the same person may still play that deal (unless the tournament has no
        ``max_entries_per_address``: then an address is not taken for a person)."""
        if self.plan.format != "arena" or self.status in ("finished", "cancelled"):
            return
        for e in self.entrants.values() if self.plan.max_entries_per_address else ():
            if e.person == person and e.player.id != player and deal is not None and not e.withdrawn:
                if not self.may_watch_deal(e.player.id, deal):
                    raise ProtocolError(
                        ErrorCode.NOT_ALLOWED,
                        f"an entry of {self.id} from your address has not finished deal {deal + 1} yet",
                    )
        if player in self.looked and person in self.looked_persons:
            return
        async with self.lock:
            self.looked.add(player)
            self.looked_persons.add(person)
            await self._save()

    async def withdraw(self, player: Player) -> None:
        """Leave: before the start, off the list; later, the deal in play counts as resigned and no
        further deal is played. Raises ProtocolError (not_registered)."""
        async with self.lock:
            if player.id in self.pending:  # (an entry waiting for approval: dropped)
                del self.pending[player.id]
                self._names.pop(name_key(player.name), None)
                await self._announce("withdrawn", also=player)
                return
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
            racing = [
                r for r in self.races if isinstance(r, Race) and r.status == "running" and player.id in r.entrants
            ]
            await self._announce("withdrawn")
            events.info(
                "%s withdrew from tournament %s",
                player.name,
                self.id,
                extra=fields("tournament_withdrawn", tournament=self.id, player=player.id, player_name=player.name),
            )
        for race in racing:
            with contextlib.suppress(ProtocolError):
                await race.resign(player.id)

    async def open_deal(self, player: Player) -> Race:
        """Arena: start the entrant's next deal now and return its race (the one in play, if
        any). Raises ProtocolError (not_registered, no_deal, not_allowed), `StoreUnavailable`
        when the store cannot take the description that names the new deal's race (the deal is
        not dealt; asked again, it is)."""
        async with self.lock:
            entrant = self.entrants.get(player.id)
            if self.plan.format != "arena":
                raise ProtocolError(ErrorCode.NOT_ALLOWED, "deals open by themselves in a rounds tournament")
            if entrant is None or entrant.withdrawn:
                raise ProtocolError(ErrorCode.NOT_REGISTERED, f"you are not registered for {self.id}")
            if self.status != "running" or self.ends_at_ms is None:
                raise ProtocolError(ErrorCode.NO_DEAL, f"the arena window of {self.id} is not open")
            race = entrant.current
            if race is None or race.status == "finished":
                # The next deal is the first one never dealt to this entrant (not the first one
                # unscored: a deal that just ended is scored a moment later, `_deal_over`).
                deal = len(entrant.deal_races)
                if deal >= len(self.plan.seeds):
                    raise ProtocolError(ErrorCode.NO_DEAL, "you have played every deal")
                left_s = (self.ends_at_ms - self.host.clock.wall_ms()) // 1000
                if left_s < 1:
                    raise ProtocolError(ErrorCode.NO_DEAL, f"the arena window of {self.id} is closing")
                race = self._new_race(deal, [entrant], min(self.plan.deal_time_limit_s, left_s), hold_seed=True)
                entrant.current = race
            if race.status != "open":
                return race  # the deal in play
            # Not dealt yet (new, or its opening failed before): named in the store first.
            await self._save(strict=True)
            self._log_deal(len(entrant.deal_races) - 1, race, player.id)
        try:  # (another open_deal of the same entrant may be a step ahead: the deal is the same)
            if player.id not in race.entrants:
                await race.join(player.id, player.name, player, bot=player.bot, claimed=entrant.claimed)
            if race.status == "open":
                await race.start(self.id)
        except ProtocolError as exc:
            if exc.code not in (ErrorCode.ALREADY_JOINED, ErrorCode.ALREADY_STARTED):
                raise
        return race

    async def cancel(self, reason: str = "cancelled") -> None:
        """Stop the tournament: running deals end (their races finish with ``reason``), nothing
        more is played; results so far stand."""
        async with self.lock:
            if self.status in ("finished", "cancelled"):
                return
            self.status = "cancelled"
            await self._announce("cancelled")
            self._log_status(reason)
            self.host.tournament_ended(self)
        if self.task is not None and self.task is not asyncio.current_task():
            self.task.cancel()
        for race in self.races:
            await race.stop(reason)
            race.reveal()

    # ------------------------------------------------------------------------- running

    def start(self) -> None:
        """Start the tournament's task: it stores the tournament, then waits for each instant of
        the schedule. Registration that opens at once is open when this returns."""
        if self.registration_opens_ms <= self.host.clock.wall_ms():
            self.status = "registration"
        self._run_task()

    def resume(self) -> None:
        """Go on with a rebuilt tournament (`rebuild`): re-attach its deal races (their end is
        scored, their watching allowed as before), score each deal whose race finished while no
        server ran (once: a deal scored before is not scored again), and restart its task where
        `_run` stood: waiting for the next instant of the schedule (one that passed is acted on
        at once), for the deal in play, for the break, or for the arena window to close. A
        finished or cancelled tournament only gets its races back."""
        for deal, race in self._deal_races():
            self._attach(race, deal)
            if self._unscored(race, deal):
                self._finished(race, deal)  # it ended while no server ran (or before this tournament was back)
        if self.status not in ("finished", "cancelled"):
            self._run_task()
            return
        for listed in self.races:
            listed.reveal()  # its end revealed every seed (an arena deal's description still holds it)

    def _deal_races(self) -> list[tuple[int, Race]]:
        """(deal, race) for every deal race in memory (not `ArchivedRace`), each once."""
        seen: dict[str, tuple[int, Race]] = {}
        for entrant in self._by_order():
            for deal, race in entrant.deal_races.items():
                if isinstance(race, Race):
                    seen.setdefault(race.code, (deal, race))
        return list(seen.values())

    def _unscored(self, race: Race, deal: int) -> bool:
        """True for a finished deal race some of whose entrants have no score for that deal."""
        return race.status == "finished" and any(
            (entrant := self.entrants.get(player)) is not None and deal not in entrant.scores
            for player in race.entrants
        )

    def _run_task(self) -> None:
        self.task = asyncio.ensure_future(self._run())
        self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("tournament %s stopped by an error", self.id, exc_info=task.exception())

    async def _run(self) -> None:
        """The tournament's life from wherever it stands (a new tournament is ``scheduled`` or in
        ``registration``; a rebuilt one may stand anywhere before ``finished``)."""
        clock = self.host.clock
        plan = self.plan
        async with self.lock:
            await self._save()  # a new tournament's first description; a rebuilt one's, as it resumes
        if self.status == "scheduled":
            await clock.sleep_until_wall(self.registration_opens_ms)
            await self._become("registration", "registration_open")
        if self.status == "registration":
            await clock.sleep_until_wall(plan.starts_at_ms - plan.countdown_s * 1000)
            await self._become("starting", "starting")
            if self.on_starting is not None:
                self.on_starting(self)
        if self.status == "starting":
            await clock.sleep_until_wall(plan.starts_at_ms)
            if plan.format == "arena":
                self.ends_at_ms = plan.starts_at_ms + plan.arena_window_s * 1000
            await self._become("running", "standings")
        if plan.format == "rounds":
            await self._play_rounds()
        else:
            await clock.sleep_until_wall(self.ends_at_ms or 0)
            for race in list(self.races):
                await race.stop("window_closed")
        await self._scoring()  # every deal_ended goes before finished
        for race in self.races:
            race.reveal()
        await self._become("finished", "finished")
        self.host.tournament_ended(self)

    async def _become(self, status: str, kind: str) -> None:
        async with self.lock:
            if self.status == "cancelled":
                raise asyncio.CancelledError
            self.status = status
            await self._announce(kind)
            self._log_status()

    async def _play_rounds(self) -> None:
        """Deal each deal in turn to every entrant not withdrawn, after the break that follows
        the one before; a deal dealt already (a rebuilt tournament) is not dealt again: its race
        is waited for (one that was named but not started yet is started)."""
        clock = self.host.clock
        for deal in range(len(self.plan.seeds)):
            race = self.races[deal] if deal < len(self.races) else None
            if race is None or race.status == "open":
                if race is None and self.next_deal_ms is not None:
                    await clock.sleep_until_wall(self.next_deal_ms)
                race = await self._deal(deal, race if isinstance(race, Race) else None)
                if race is None:
                    return
            if deal in self._done:  # (an `ArchivedRace` was scored long ago)
                await self._done[deal].wait()

    async def _deal(self, deal: int, race: Race | None = None) -> Race | None:
        """Rounds: deal ``deal`` now in a new race holding every entrant not withdrawn (None if
        there is none), or in ``race``, named already and not started (a rebuilt tournament).
        The race is named in the stored description before it is stored itself or dealt, so that
        a restarted server finds it and never deals the deal twice; while the store cannot take
        that description the deal waits, trying again every `_RETRY_S` seconds."""
        clock = self.host.clock
        while True:
            async with self.lock:
                if self.status == "cancelled":
                    raise asyncio.CancelledError
                if race is None:
                    players = [e for e in self._by_order() if not e.withdrawn]
                    if not players:
                        return None
                    race = self._new_race(deal, players, self.plan.deal_time_limit_s, hold_seed=False)
                    self.current_deal = deal
                try:
                    await self._save(strict=True)
                    break
                except StoreUnavailable as exc:
                    log.warning("tournament %s: deal %d waits until its race can be stored: %s", self.id, deal + 1, exc)
            await clock.sleep_until(clock.monotonic() + _RETRY_S)
        for e in self._by_order():
            if e.deal_races.get(deal) is race and e.player.id not in race.entrants:
                await race.join(e.player.id, e.player.name, e.player, bot=e.player.bot, claimed=e.claimed)
        if race.status == "open" and not race.entrants:  # (every entrant withdrew meanwhile)
            await race.expire()
            return None
        if race.status == "open":
            await race.start(self.id)
        async with self.lock:
            await self._announce("deal_started", deal=deal, race=race.code)
            self._log_deal(deal, race)
        return race

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
            hold_seed=hold_seed,
            casual=False,
            spectator_delay_s=plan.spectator_delay_s,
            undo=plan.undo,
            rated=plan.rated,
        )
        self._attach(race, deal)
        self.races.append(race)
        self.host.add_race(race)
        for e in entrants:
            e.player.races.add(race.code)
            e.deal_races[deal] = race
        return race

    def _attach(self, race: Race, deal: int) -> None:
        """Make ``race`` deal ``deal`` of this tournament: its end is scored (`_finished`), and
        an entrant may watch it once it has finished the deal itself (`may_watch_deal`)."""
        race.deal = deal
        race.spectating = self.plan.spectating
        race.watch_policy = lambda player, d=deal: self.may_watch_deal(player, d)
        race.on_finish = lambda r, d=deal: self._finished(r, d)
        if self.plan.format == "rounds":
            self._done.setdefault(deal, asyncio.Event())
            if race.status == "finished" and not self._unscored(race, deal):
                self._done[deal].set()

    def _finished(self, race: Race, deal: int) -> None:
        """A deal's race finished (its ``on_finish``, inside the race's lock): record each
        entrant's result now, so that the standings and the next `open_deal` see it, and store
        and announce it in a task of its own (`_deal_over`)."""
        self._score(race, deal)
        fair_play_reports.deal_finished(self, race, deal)  # (the organiser's report, worked out aside)
        task = asyncio.ensure_future(self._deal_over(race, deal))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._ended)

    def _score(self, race: Race, deal: int) -> None:
        """Record each entrant's result in ``race``, deal ``deal`` (again: the same result)."""
        for line in race.standings():
            entrant = self.entrants.get(line.player)
            if entrant is None:
                continue
            entrant.scores[deal] = DealScore(
                race=race.code, cleared=line.cleared, time_ms=line.time_ms, status=line.status
            )
            entrant.moved = entrant.moved or line.moves > 0 or line.status == "resigned"

    async def _deal_over(self, race: Race, deal: int) -> None:
        """Store and announce a deal's results (``deal_ended``); in a rounds tournament the break
        starts now, and the next deal is due at its end (``next_deal_ms``, on the wall clock)."""
        async with self.lock:
            self._score(race, deal)
            if self.plan.format == "rounds" and self.status == "running" and deal + 1 < len(self.plan.seeds):
                self.next_deal_ms = self.host.clock.wall_ms() + self.plan.break_s * 1000
            await self._announce("deal_ended", deal=deal, race=race.code)
        if deal in self._done:
            self._done[deal].set()

    async def _scoring(self) -> None:
        """Wait until every deal that ended has been stored and announced (`_deal_over`)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # ---------------------------------------------------------------------------- logs

    def _log_status(self, reason: str | None = None) -> None:
        """Log the tournament's new status (``tournament_registration``, ``tournament_starting``,
        ``tournament_running``, ``tournament_finished`` with the leader, ``tournament_cancelled``)."""
        leader = None
        if self.status in ("finished", "cancelled"):
            leader = next(iter(self.standings()), None)
        events.info(
            "tournament %s: %s",
            self.id,
            self.status,
            extra=fields(
                f"tournament_{self.status}",
                tournament=self.id,
                tournament_name=self.plan.name,
                status=self.status,
                reason=reason,
                entrants=sum(not e.withdrawn for e in self.entrants.values()),
                starts_at=iso_time(self.plan.starts_at_ms),
                ends_at=iso_time(self.ends_at_ms) if self.ends_at_ms is not None else None,
                winner=leader.player if leader else None,
                winner_name=leader.name if leader else None,
            ),
        )

    def _log_deal(self, deal: int, race: Race, player: str | None = None) -> None:
        events.info(
            "tournament %s: deal %d started in race %s",
            self.id,
            deal + 1,
            race.code,
            extra=fields(
                "tournament_deal_started",
                tournament=self.id,
                deal=deal,
                race=race.code,
                player=player,
                entrants=len(race.entrants) or None,
            ),
        )

    # ---------------------------------------------------------------------- publishing

    async def _announce(
        self, kind: str, *, deal: int | None = None, race: str | None = None, also: Player | None = None
    ) -> None:
        """Store the tournament as it stands, with the event's version (`_save`), then send the
        event, encoded once, to every entrant and follower, and to ``also`` (a player whose entry
        waits for approval, or was refused; callers hold the lock). So a rebuilt tournament
        numbers its next event after every one its audience received."""
        self.version += 1
        await self._save()
        frame = encode(
            TournamentEvent(
                tournament=self.info(),
                version=self.version,
                kind=kind,
                standings=self.standings(),
                deal=deal,
                race=race,
            )
        )
        for entrant in list(self.entrants.values()):
            entrant.player.send(frame, later=True)
        if also is not None and also.id not in self.entrants:
            also.send(frame, later=True)
        for follower in list(self.followers):
            follower.send(frame, later=True)

    # ------------------------------------------------------------------------- storing

    async def _save(self, *, strict: bool = False) -> None:
        """Store the tournament's description (`_description`) in a durable store (nothing
        outlives a store that is not). Callers hold the lock, so descriptions land in the order
        of the changes. If the store cannot be reached, say so and go on (a rebuild reads the
        one saved before); ``strict``: raise `StoreUnavailable` instead."""
        if not self.host.store.durable:
            return
        try:
            await self.host.store.save_tournament(self.id, self._description())
        except StoreUnavailable as exc:
            if strict:
                raise
            log.warning("tournament %s: description not stored: %s", self.id, exc)

    def _description(self) -> dict[str, object]:
        """Everything `rebuild` reads, as a flat dict (lists and maps as JSON strings, as a race's
        entrants are): the plan, the salts and commitments, the status and event version, the
        deal races (``races``: codes, rounds deal i at index i), ``current_deal``, ``ends_at_ms``,
        ``next_deal_ms``, the entrants: ``[{"p": id, "n": name, "o": order, "k": person,
        "w": withdrawn, "m": moved, "r": {deal: race code}, "s": {deal: [race code, cleared,
        time_ms, status]}, "c": claimed}]`` (deal indexes as strings, JSON's keys), the entries
        waiting for approval (``pending``: ``[{"p": id, "n": name, "k": person, "y": why, "c":
        claimed}]``), the refused player ids (``refused``), and who has seen an arena deal
        (``looked``, ``looked_persons``)."""
        plan = self.plan
        entrants = [
            {
                "p": e.player.id,
                "n": e.player.name,
                "o": e.order,
                "k": e.person,
                "w": e.withdrawn,
                "m": e.moved,
                "r": {str(d): r.code for d, r in sorted(e.deal_races.items())},
                "s": {str(d): [s.race, s.cleared, s.time_ms, s.status] for d, s in sorted(e.scores.items())},
                "c": e.claimed,
            }
            for e in self._by_order()
        ]
        return {
            "name": plan.name,
            "game": plan.game_cls.key,
            "options": ",".join(f"{k}={int(v)}" for k, v in plan.options.items()),
            "rules_version": plan.game_cls.rules_version,
            "deal_version": DEAL_VERSION,
            "format": plan.format,
            "seeds": _json(list(plan.seeds)),
            "starts_at_ms": plan.starts_at_ms,
            "deal_time_limit_s": plan.deal_time_limit_s,
            "max_entrants": plan.max_entrants,
            "registration_opens_s": plan.registration_opens_s,
            "arena_window_s": plan.arena_window_s,
            "break_s": plan.break_s,
            "countdown_s": plan.countdown_s,
            "schedule": plan.schedule,
            "timezone": plan.timezone,
            "spectator_delay_s": plan.spectator_delay_s,
            "undo": plan.undo,
            "spectating": plan.spectating,
            "max_entries_per_address": plan.max_entries_per_address,
            "rated": plan.rated,
            "organiser": plan.organiser,
            "entry": plan.entry,
            "allow": _json(list(plan.allow)),
            "invite_code": plan.invite_code,
            "pending": _json(
                [
                    {"p": e.player.id, "n": e.player.name, "k": e.person, "y": e.why, "c": e.claimed}
                    for e in self.pending.values()
                ]
            ),
            "refused": _json(sorted(self.refused)),
            "looked": _json(sorted(self.looked)),
            "looked_persons": _json(sorted(self.looked_persons)),
            "salts": _json(self.salts),
            "commitments": _json(self.commitments),
            "status": self.status,
            "version": self.version,
            "current_deal": self.current_deal,
            "ends_at_ms": self.ends_at_ms,
            "next_deal_ms": self.next_deal_ms,
            "races": _json([r.code for r in self.races]),
            "entrants": _json(entrants),
        }

    # ------------------------------------------------------------------------ rebuilding

    @classmethod
    async def rebuild(cls, host: TournamentHost, tournament_id: str, meta: dict[str, object]) -> Tournament:
        """The tournament ``tournament_id`` as its description ``meta`` (`_description`) says it
        stood: same plan, seeds, salts and commitments, status, event version and instants; its
        entrants as the host's players (`TournamentHost.player_by_id`), with their scores; its
        deal races from the host's races (rebuilt before it), a race archived since as an
        `ArchivedRace`, and a race that was named but never stored (the server stopped between
        the two) left out, so that its deal is dealt when the tournament goes on. Nothing runs
        until `resume`. Raises `RebuildError` if it cannot be rebuilt faithfully (a field missing
        or unreadable, a game or rules version this server lacks, seeds and salts that do not
        give the commitments, a deal race the store has but the host could not rebuild),
        `StoreUnavailable` if the store does not answer."""
        m: dict[str, Any] = meta  # its fields' types are checked below, or raise on use
        try:
            game_cls = find_game(m["game"])
            if m["rules_version"] != game_cls.rules_version or m["deal_version"] != DEAL_VERSION:
                raise RebuildError(
                    f"tournament {tournament_id} was played under {m['game']} rules "
                    f"{m['rules_version']}, deal {m['deal_version']}; this server has rules "
                    f"{game_cls.rules_version}, deal {DEAL_VERSION}"
                )
            options = {k: v == "1" for k, _, v in (o.partition("=") for o in m["options"].split(",") if o)}
            game_cls(0, **options)  # raises BadNotation for an option this server does not know
            plan = TournamentPlan(
                name=str(m["name"]),
                game_cls=game_cls,
                options=options,
                format=str(m["format"]),
                seeds=tuple(int(s) for s in msgspec.json.decode(m["seeds"])),
                starts_at_ms=int(m["starts_at_ms"]),
                deal_time_limit_s=int(m["deal_time_limit_s"]),
                max_entrants=int(m["max_entrants"]),
                registration_opens_s=int(m["registration_opens_s"]),
                arena_window_s=int(m["arena_window_s"]),
                break_s=int(m["break_s"]),
                countdown_s=int(m["countdown_s"]),
                schedule=m["schedule"],
                timezone=str(m["timezone"]),
                spectator_delay_s=int(m["spectator_delay_s"]),
                undo=bool(m.get("undo", False)),  # (a tournament saved before undo existed had none)
                # (saved before spectating and the entry limit existed: live boards, no limit)
                spectating=str(m.get("spectating", "live")),
                max_entries_per_address=int(m.get("max_entries_per_address", 0)),
                rated=bool(m.get("rated", False)),  # (older: none)
                # (saved before organisers and entry restrictions existed: the admin's, open)
                organiser=m.get("organiser"),
                entry=str(m.get("entry", "open")),
                allow=tuple(str(n) for n in msgspec.json.decode(m.get("allow", "[]"))),
                invite_code=m.get("invite_code"),
            )
            tournament = cls(host, tournament_id, plan)
            tournament.salts = [str(s) for s in msgspec.json.decode(m["salts"])]
            tournament.commitments = [commitment_of(seed, salt) for seed, salt in zip(plan.seeds, tournament.salts)]
            if len(tournament.salts) != len(plan.seeds) or tournament.commitments != msgspec.json.decode(
                m["commitments"]
            ):
                raise RebuildError(
                    f"tournament {tournament_id}: its seeds and salts do not give its published commitments"
                )
            tournament.status = str(m["status"])
            tournament.version = int(m["version"])
            tournament.current_deal = m["current_deal"]
            tournament.ends_at_ms = m["ends_at_ms"]
            tournament.next_deal_ms = m["next_deal_ms"]
            codes = [str(c) for c in msgspec.json.decode(m["races"])]
            pending = [
                (str(e["p"]), str(e["n"]), str(e["k"]), str(e["y"]), bool(e.get("c", False)))
                for e in msgspec.json.decode(m.get("pending", "[]"))
            ]
            tournament.refused = {str(p) for p in msgspec.json.decode(m.get("refused", "[]"))}
            tournament.looked = {str(p) for p in msgspec.json.decode(m.get("looked", "[]"))}
            tournament.looked_persons = {str(p) for p in msgspec.json.decode(m.get("looked_persons", "[]"))}
            saved = [
                (
                    str(e["p"]),
                    str(e["n"]),
                    int(e["o"]),
                    str(e.get("k", "")),
                    bool(e["w"]),
                    bool(e["m"]),
                    {int(d): str(c) for d, c in e["r"].items()},
                    {
                        int(d): DealScore(race=str(s[0]), cleared=int(s[1]), time_ms=int(s[2]), status=str(s[3]))
                        for d, s in e["s"].items()
                    },
                    bool(e.get("c", False)),  # (older: none)
                )
                for e in msgspec.json.decode(m["entrants"])
            ]
        except RebuildError:
            raise
        except (UnknownGame, BadNotation) as exc:
            raise RebuildError(f"tournament {tournament_id}: {exc.reason}") from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, msgspec.DecodeError) as exc:
            raise RebuildError(
                f"tournament {tournament_id}: its stored description cannot be read ({type(exc).__name__}: {exc})"
            ) from None
        races: dict[str, Race | ArchivedRace] = {}
        for code in codes:
            live = host.races.get(code)
            if live is not None:
                races[code] = live
            elif await host.store.load_record(code) is not None:
                races[code] = ArchivedRace(code)
            elif await host.store.load_race(code) is not None:
                raise RebuildError(
                    f"tournament {tournament_id}: its deal race {code} is in the store but was not rebuilt"
                )
            else:  # named, then the server stopped before the race was stored: never dealt
                log.warning("tournament %s: race %s was never dealt; its deal is dealt again", tournament_id, code)
        tournament.races = [races[c] for c in codes if c in races]
        for player_id, name, person, why, claimed in pending:
            tournament.pending[player_id] = TournamentEntrant(
                host.player_by_id(player_id, name), -1, person, why, claimed=claimed
            )
            tournament._names[name_key(name)] = player_id
        for player_id, name, order, person, withdrawn, moved, deal_races, scores, claimed in saved:
            player = host.player_by_id(player_id, name)
            entrant = TournamentEntrant(
                player, order, person, scores=scores, moved=moved, withdrawn=withdrawn, claimed=claimed
            )
            for deal, code in sorted(deal_races.items()):
                race = races.get(code)
                if race is None:
                    continue
                entrant.deal_races[deal] = race
                entrant.current = race if isinstance(race, Race) else None
                if isinstance(race, Race):
                    player.races.add(code)
                elif deal not in scores:
                    log.warning(
                        "tournament %s: deal %d of %s (race %s) was archived unscored",
                        tournament_id,
                        deal + 1,
                        player_id,
                        code,
                    )
            tournament.entrants[player_id] = entrant
            tournament._names[name_key(name)] = player_id
        if tournament.current_deal is not None and tournament.plan.format == "rounds":
            tournament.current_deal = len(tournament.races) - 1 if tournament.races else None
        return tournament


def _json(value: object) -> str:
    """``value`` as one JSON string (a description stays flat)."""
    return msgspec.json.encode(value).decode()
