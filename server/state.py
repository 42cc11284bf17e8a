"""What a server holds in memory, and the steps that every concern takes on it: `ServerState`.

Races, players, tournaments and sessions by their keys; the lobby's index; the counters behind
the limits; the queues of what is due to leave memory (`server.upkeep`). The request handlers
(`server.handlers`), the node link (`server.nodes`) and the upkeep all work on one `ServerState`,
which `server.app.ArenaServer` is.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Protocol

from server.archive import Archive, ArchiveError
from server.archiving import Archiver
from server.catalog import DealSource
from server.claims import LoginLimiter, PasswordGate
from server.config import ServerConfig
from server.daily import DailyBook
from server.friends import Invitations
from server.limits import Budgets, KeyedRate, WindowCounter
from server.lobby import Lobby
from server.logs import fields
from server.metrics import Metrics, Tally
from server.par import ParService
from server.passkeys import Challenges
from server.players import Player, token_digest
from server.protocol import ClientMessage, CreateTournament, ErrorCode, ProtocolError, RaceInfo
from server.race import Clock, Race, RebuildError
from server.rated_races import ratings_at_start
from server.replay import Replays
from server.store import DataLoss, StaleRace, Store, StoreUnavailable
from server.tournament import Tournament
from server.transport.fanout import Fanout, FanoutChannel
from server.transport.keepalive import Keepalive
from server.transport.session import Session
from server.transport.slots import Slots
from server.web import WebClient

__all__ = ["Link", "ServerState"]

log = logging.getLogger("arena.server")
_races_log = logging.getLogger("arena.races")

_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_HOUR_S = 3600.0


class Link(Protocol):
    """This node among the others sharing its store, as the rest of the server sees it
    (`server.nodes.NodeLink`)."""

    leading: bool  # this node runs the tournaments

    def listed(self, race: Race, listing: str | None) -> None:
        """Show ``race`` in the shared lobby in ``listing`` ("open", "live", or None: not listed)."""

    def lost(self, code: str) -> None:
        """Race ``code`` is no longer this node's."""

    def closed(self, session: Session) -> None:
        """A connection of this node closed: tell the nodes it sent requests to."""

    async def lobby_page(
        self, listing: str, before: int | None, count: int, skip: set[str]
    ) -> list[tuple[int, RaceInfo]]:
        """Up to ``count`` races of everyone's part of the shared lobby after the cursor ``before``
        (None: from the first), without those in ``skip``: ``(cursor after it, race)``."""

    async def route(self, session: Session, message: ClientMessage) -> str | None:
        """The node that carries ``message`` out, or None for this one."""

    async def forward(self, node: str, session: Session, frame: bytes, message: ClientMessage) -> bool:
        """Have ``node`` carry ``frame`` out for ``session``, and wait until it has (True); False
        if ``node`` is gone and this node took its race over (carry it out here)."""

    async def hand_over(self) -> None:
        """Give this node's lease, lead and races up to the others (a graceful stop)."""

    async def start(self) -> None:
        """Listen to the other nodes and keep the lease, once this node has resumed its races."""

    async def stop(self, *, release: bool) -> None:
        """Stop, giving the lease up with ``release``."""


class ServerState:
    """A server's memory (see the module docstring) over ``store``, on ``clock``."""

    def __init__(self, config: ServerConfig, store: Store, clock: Clock) -> None:
        self.config = config
        self.clock = clock
        self.store = store
        store.on_data_loss = self.data_lost
        self.races: dict[str, Race] = {}
        self.players: dict[str, Player] = {}  # by token
        self.players_by_id: dict[str, Player] = {}
        #: Address key -> its players by token, those that left longest ago first (`room_for_player`).
        self.players_from: dict[str, OrderedDict[str, Player]] = {}
        self.sessions: set[Session] = set()
        self.sessions_by_conn: dict[int, Session] = {}
        self.tournaments: dict[str, Tournament] = {}
        self.schedules: dict[str, CreateTournament] = {}  # recurring: by schedule id
        self.pending: dict[str, str] = {}  # schedule id -> its pending tournament's id
        self.schedule_file: str | Path | None = None  # `serve`'s TOML schedule file, loaded by the leader
        self.lobby = Lobby()
        self.invitations = Invitations(config.open_race_ttl_s)  # challenges waiting (`server.friends`)
        self.replays = Replays()
        self.daily = DailyBook.of(config.daily_secret, clock, config.daily_days_kept)
        self.daily.spawn = self.spawn
        self.par = ParService(config.par_workers, config.par_nodes, config.par_seconds, config.par_memory_mb)
        self.web = WebClient()
        self.public_deals = DealSource(config.catalog_dir, private=False)
        self.private_deals = DealSource(config.private_catalog_dir, private=True)
        self.budgets = Budgets(config.costly_per_address, config.max_connections)  # costly requests per address
        self.slots = Slots(config)  # accepted sockets, handshake or not, by address key
        # new sockets a second by address key (at most as many keys as connections are kept)
        self.openings = KeyedRate(
            config.connections_per_s_per_ip, config.connections_burst_per_ip, config.max_connections
        )
        self.race_counts: Counter[str] = Counter()  # races in memory by status
        self.created = WindowCounter(_HOUR_S)  # race creations: keys "p:<player id>", "a:<address>"
        # failed logins (`server.handlers.claims.login`): per claimed name's key, per address key
        self.failed_logins_by_name = LoginLimiter(config.login_failures_per_name, config.login_window_s)
        self.failed_logins_by_address = LoginLimiter(config.login_failures_per_ip, config.login_window_s)
        self.password_gate = PasswordGate(config.password_hashes_at_once, config.password_hashes_waiting)
        self.passkey_challenges = Challenges(config.passkey_challenge_s)  # passkey ceremonies under way
        self.expiring: deque[tuple[float, str]] = deque()  # (when, race code): open-race time to live
        self.retiring: deque[tuple[float, str, str]] = deque()  # (when, "race"/"tournament", id) to leave memory
        self.leaving: deque[tuple[float, str]] = deque()  # (when, token) of a player who disconnected
        self.resumed: dict[str, set[str]] = {}  # player id -> rebuilt races it entered or created, until its hello
        self.freed = 0  # races and players that left memory since it was last given back (`server.upkeep`)
        self.tasks: set[asyncio.Task[object]] = set()
        #: Requests that had to wait (`server.transport.session.Session.running`), while they do.
        self.requests: set[asyncio.Task[None]] = set()
        #: Archive writes of a player under way, by player id (`spawn`'s ``player``): a deleted
        #: identity waits for them, so that none brings it back after the deletion.
        self.player_writes: dict[str, set[asyncio.Task[object]]] = {}
        self.tally = Tally()
        self.fanout = Fanout(config.fanout_tick_ms, config.fanout_busy_share, config.standings_tick_ms, self.tally)
        self.metrics = Metrics(self.tally, self.counts)
        self.fanout.observe_delay = self.metrics.observe_fanout_delay
        interval = config.ping_interval_s
        self.keepalive = Keepalive(self.tally, interval, config.ping_timeout_s) if interval else None
        self.draining = False  # shutting down: new requests are refused (`server.app.ArenaServer.shutdown`)
        self.busy = 0  # requests being carried out now
        self.conn_ids = itertools.count(1)
        self.link: Link | None = None  # with a shared store: this node among the others (`server.nodes`)
        self.archiver: Archiver | None = None  # where finished races go for good (`server.archiving`)
        self.node_id = ""

    def spawn(self, coro: Coroutine[Any, Any, object], *, player: str | None = None) -> None:
        """Run ``coro`` in a task kept until it is done (cancelled at `server.app.ArenaServer.close`);
        ``player``: the task writes that player id to the archive (`player_writes`)."""
        task = asyncio.ensure_future(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        if player is not None:
            writes = self.player_writes.setdefault(player, set())
            writes.add(task)

            def done(task: asyncio.Task[object]) -> None:
                writes.discard(task)
                if not writes and self.player_writes.get(player) is writes:
                    del self.player_writes[player]

            task.add_done_callback(done)

    async def player_written(self, player: str) -> None:
        """Wait until the archive writes of ``player`` under way now are done (or failed)."""
        writes = list(self.player_writes.get(player, ()))
        if writes:
            await asyncio.gather(*writes, return_exceptions=True)

    def counts(self) -> dict[str, object]:
        """The counts `server.metrics.Metrics` reads at each scrape (tournaments: a count by
        status over the tournaments in memory, which their retention keeps few)."""
        return {
            "connections": self.connections,
            "sessions": len(self.sessions),
            "players": len(self.players),
            "races": self.race_counts,
            "tournaments": Counter(t.status for t in self.tournaments.values()),
            "shutting_down": self.draining,
            "fanout_tick_ms": self.fanout.tick_s * 1000,
            "loop_busy_share": self.fanout.busy,
            "store_data_lost": self.store.data_losses,
            **(self.archiver.counts() if self.archiver is not None else {}),
        }

    # ---------------------------------------------------------------------- connections

    @property
    def connections(self) -> int:
        """Accepted sockets, handshake or not (`server.transport.slots.Slots`)."""
        return self.slots.connections

    @property
    def by_address(self) -> Counter[str]:
        """Accepted sockets per address key (`server.addresses.address_key`)."""
        return self.slots.by_address

    def forget(self, session: Session) -> None:
        """A connection ended (or was replaced by the same player's new one): stop sending it
        anything. Costs what the session itself watched and followed, nothing more."""
        for tournament_id in session.following:
            tournament = self.tournaments.get(tournament_id)
            if tournament is not None:
                tournament.followers.discard(session)
        session.following.clear()
        for code in session.watching:
            race = self.races.get(code)
            if race is not None:
                race.unwatch(session)
        session.watching.clear()
        player = session.player
        if player is not None and player.session is session:
            player.session = None
            player.left_at = self.clock.monotonic()
            kept = self.players_from.get(player.address_key)
            if kept is not None and player.token in kept:
                kept.move_to_end(player.token)  # (the players of an address in the order they left)
            self.leaving.append((player.left_at + self.config.player_retention_s, player.token))
            self.listen(player, None)

    def listen(self, player: Player, listener: Player | None) -> None:
        """Point the player's entries in its races at ``listener`` (None: disconnected)."""
        for code in player.races:
            race = self.races.get(code)
            entrant = race.entrants.get(player.id) if race is not None else None
            if entrant is not None:
                entrant.listener = listener

    # -------------------------------------------------------------------------- players

    def add_player(self, player: Player, key: str) -> None:
        """Keep the new ``player``, counted under address key ``key`` (`room_for_player` first)."""
        player.address_key = key
        self.players[player.token] = player
        self.players_by_id[player.id] = player
        self.players_from.setdefault(key, OrderedDict())[player.token] = player

    def room_for_player(self, key: str) -> bool:
        """Whether a new player may be kept under address key ``key``: True if it holds fewer
        than ``max_players_per_ip`` (never fewer than the connections one address may hold), or
        once the player of ``key`` that left the longest ago and that nothing needs
        (`player_idle`) is forgotten to make room (its token no longer resumes); False if every
        one is needed. Costs O(1) under the limit, O(players of ``key``) at most at it."""
        kept = self.players_from.get(key)
        if kept is None or len(kept) < max(self.config.max_players_per_ip, self.slots.per_address):
            return True
        for player in kept.values():
            if self.player_idle(player):
                self.drop_player(player)
                log.info(
                    "forgot player %s to make room for a new one from the same address",
                    player.id,
                    extra=fields("player_forgotten", player=player.id, reason="max_players_per_ip"),
                )
                if self.store.durable:  # forgotten by the store too
                    self.spawn(self._forget_stored_player(token_digest(player.token)))
                return True
        return False

    async def _forget_stored_player(self, digest: str) -> None:
        try:
            await self.store.forget_player(digest)
        except StoreUnavailable as exc:  # it expires by itself
            log.warning("a forgotten player stays in the store until it expires: %s", exc)

    def player_idle(self, player: Player) -> bool:
        """True if nothing needs ``player`` kept: no connection, no open race it created, no race
        in play it entered, no tournament to come it registered for."""
        if player.session is not None or player.open_races:
            return False
        for code in player.races:
            race = self.races.get(code)
            if race is not None and race.status != "finished":
                entrant = race.entrants.get(player.id)
                if entrant is not None and not entrant.done:
                    return False
        for tournament_id in player.tournaments:
            tournament = self.tournaments.get(tournament_id)
            if tournament is not None and tournament.status not in ("finished", "cancelled"):
                return False
        return True

    def drop_player(self, player: Player) -> None:
        """Forget ``player`` in memory (its tokens no longer resume it here)."""
        self.players.pop(player.token, None)
        for token in player.devices:
            self.players.pop(token, None)
        if self.players_by_id.get(player.id) is player:
            del self.players_by_id[player.id]
        kept = self.players_from.get(player.address_key)
        if kept is not None:
            kept.pop(player.token, None)
            if not kept:
                del self.players_from[player.address_key]

    def player_by_id(self, player_id: str, name: str) -> Player:
        """The player ``player_id`` for a rebuilt tournament's entrant
        (`server.tournament.TournamentHost`): the one in memory, else a new disconnected one
        without a token, which a later hello with that player's token becomes, so that the
        tournament's frames reach it from then on. Until then nothing is sent to it; it leaves
        memory with its tournaments if it never comes back."""
        player = self.players_by_id.get(player_id)
        if player is None:
            player = Player(id=player_id, name=name, token="")
            player.left_at = self.clock.monotonic()
            self.players_by_id[player_id] = player
        return player

    def player_back(self, token: str, player_id: str, name: str) -> Player:
        """Player ``player_id``, whose ``token`` was checked, in memory again: the `Player` a
        rebuilt tournament holds for it if there is one (`player_by_id`: it gets its token), else
        a new one; either way with the rebuilt races it entered or created."""
        player = self.players_by_id.get(player_id)
        if player is not None and not player.token:  # awaited by a rebuilt tournament
            player.token = token
        else:
            player = Player(id=player_id, name=name, token=token)
        for code in self.resumed.pop(player.id, ()):
            race = self.races.get(code)
            if race is None:
                continue
            if player.id in race.entrants:
                player.races.add(code)
            if race.creator == player.id and race.status == "open":
                player.open_races.add(code)
        self.players[token] = player
        self.players_by_id[player.id] = player
        return player

    def remote_player(self, token: str, player_id: str, name: str) -> Player:
        """The player of a request forwarded by another node, which checked its token: the one in
        memory, else the one a rebuilt tournament awaits, else a new one (`player_back`), with
        the races it entered that this node rebuilt. Its name is the one the request carries (the
        player may have renamed itself on its own node)."""
        player = self.players.get(token)
        if player is not None:
            player.name = name
            return player
        return self.player_back(token, player_id, name)

    # ----------------------------------------------------------------- races in memory

    def race(self, code: str) -> Race:
        """The race ``code`` (any case); raises ProtocolError ``unknown_race``."""
        race = self.races.get(code.upper())
        if race is None:
            raise ProtocolError(ErrorCode.UNKNOWN_RACE, f"no race with code {code!r}")
        return race

    def tournament(self, tournament_id: str) -> Tournament:
        """The tournament ``tournament_id`` (any case); raises ProtocolError ``unknown_tournament``."""
        tournament = self.tournaments.get(tournament_id.upper())
        if tournament is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r}")
        return tournament

    def new_race_code(self) -> str:
        """A six-character race code that no race has."""
        while True:
            code = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(6))
            if code not in self.races:
                return code

    def add_race(self, race: Race, *, resumed: bool = False) -> None:
        """Make ``race`` reachable by its code, under the server's limits: idle timeout, move cap,
        time to live while open, and retention once finished. ``resumed``: a race rebuilt from
        the store after a restart, in whatever status it had: an open one keeps what was left of
        its time to live, a finished one its retention from now."""
        race.idle_timeout_s = self.config.idle_timeout_s
        race.max_moves = self.config.max_moves
        race.on_status = self.race_status
        race.on_join = self.race_joined
        race.on_lost = self.race_lost
        race.tally = self.tally
        race.entrant_channel = FanoutChannel(self.fanout, race.listeners)
        race.spectator_channel = FanoutChannel(self.fanout, race.spectators.keys)
        self.races[race.code] = race
        if resumed and race.daily is not None:  # its end is recorded, its seed revealed at the day's end
            self.daily.resumed(race)
        if resumed:
            _races_log.info(
                "race %s resumed (%s, %d entrants, event %d)",
                race.code,
                race.status,
                len(race.entrants),
                race.version,
                extra=fields(
                    "race_resumed",
                    race=race.code,
                    game=race.game_cls.key,
                    status=race.status,
                    entrants=len(race.entrants),
                    version=race.version,
                    moves=sum(e.moves for e in race.entrants.values()),
                ),
            )
        else:
            _races_log.info(
                "race %s created",
                race.code,
                extra=fields(
                    "race_created",
                    race=race.code,
                    game=race.game_cls.key,
                    creator=race.creator if race.casual else None,
                    tournament=None if race.casual else race.creator,
                    seed=race.seed if race.seed_public else None,
                    seed_public=race.seed_public,
                    max_entrants=race.max_entrants,
                    time_limit_s=race.time_limit_s,
                ),
            )
        self.race_counts[race.status] += 1
        listing = {"open": "open", "starting": "live", "running": "live"}.get(race.status) if race.casual else None
        self.lobby.add(race.code, listing, creator=race.creator, entrants=race.entrants, index=race.casual)
        if self.link is not None and listing is not None:
            self.link.listed(race, listing)
        now = self.clock.monotonic()
        if race.casual and race.status == "open":
            ttl_s = self.config.open_race_ttl_s
            if resumed:
                ttl_s = max(0.0, ttl_s - (self.clock.wall_ms() - race.created_ms) / 1000)
            self.expiring.append((now + ttl_s, race.code))
        elif resumed and race.status == "finished":
            self.retiring.append((now + self.config.race_retention_s, "race", race.code))
            if self.archiver is not None:  # (its owner may have stopped before it archived it)
                self.archiver.race_finished(race)

    async def adopt_race(self, code: str) -> bool:
        """Bring race ``code``, which this node owns now (taken over from a dead node, or its own
        before a restart), into memory from the store, as a restarted server does, and restart
        its timers; its players already here get it back at once, the others at their hello.
        False if the store has no such race or it cannot be rebuilt (logged). Raises
        `server.store.StoreUnavailable`."""
        if code in self.races:
            return True
        meta = await self.store.load_race(code)
        if meta is None:
            return False
        try:
            race = await Race.rebuild(code, meta, store=self.store, clock=self.clock)
        except RebuildError as exc:
            log.error(
                "race %s not taken over: %s", code, exc, extra=fields("race_not_resumed", race=code, reason=str(exc))
            )
            return False
        if code in self.races:  # rebuilt meanwhile by another request
            return True
        self.add_race(race, resumed=True)
        for player_id in {race.creator, *race.entrants}:
            player = self.players_by_id.get(player_id)
            if player is None:
                self.resumed.setdefault(player_id, set()).add(code)
                continue
            if player_id in race.entrants:
                player.races.add(code)
                race.entrants[player_id].listener = player
            if race.creator == player_id and race.status == "open":
                player.open_races.add(code)
        await race.resume()
        return True

    def race_lost(self, race: Race, exc: StaleRace) -> None:
        """A timer of ``race`` found it no longer this node's (``exc``): let it go, in a task of
        its own (the timer is among the tasks that letting go ends)."""
        if self.races.get(race.code) is race:
            self.spawn(self.let_go(race.code))

    def data_lost(self, loss: DataLoss) -> None:
        """The store lost data this node wrote (`server.store.Store.on_data_loss`): check each
        race of ``loss.races`` held here (every race held here if it names none) against the
        store, and void those that lost acknowledged moves (`server.race.Race.void`)."""
        for code in loss.races or list(self.races):
            race = self.races.get(code)
            if race is not None and race.status == "running":
                self.spawn(self._check_log(race))

    async def _check_log(self, race: Race) -> None:
        try:
            await race.void()
        except StaleRace:
            await self.let_go(race.code)
        except StoreUnavailable as exc:  # checked again at the race's next move (its append is refused)
            log.warning("race %s: its move logs were not checked after a data loss: %s", race.code, exc)

    async def let_go(self, code: str) -> None:
        """Race ``code`` is no longer this node's (`server.store.StaleRace`): drop it from
        memory, and close its spectators' connections here with 1012 so that they reconnect and
        watch it where it is served now (its entrants reach it with their next request)."""
        if self.link is not None:
            self.link.lost(code)
        race = self.races.get(code)
        if race is None:
            return
        for spectator in list(race.spectators):
            if isinstance(spectator, Session) and not spectator.remote and not spectator.closing:
                spectator.close(1012, f"race {code} moved to another node: reconnect")
        await self.drop_race(race)

    async def drop_race(self, race: Race) -> None:
        """Take ``race`` out of this node's memory (its timers stop), and out of its players' and
        spectators' lists; the store keeps whatever it has of it."""
        code = race.code
        del self.races[code]
        self.race_counts[race.status] -= 1
        if not self.race_counts[race.status]:
            del self.race_counts[race.status]
        self.lobby.forget(code)
        if self.archiver is not None:
            self.archiver.forget(code)
        for entrant in race.entrants.values():
            player = self.players_by_id.get(entrant.player)
            if player is not None:
                player.races.discard(code)
        for player_id in {race.creator, *race.entrants}:
            waiting = self.resumed.get(player_id)
            if waiting is not None:
                waiting.discard(code)
                if not waiting:
                    del self.resumed[player_id]
        for spectator in list(race.spectators):
            if isinstance(spectator, Session):
                spectator.watching.discard(code)
        race.spectators.clear()
        await race.close()

    def race_joined(self, race: Race, player: str) -> None:
        """Keep the lobby's order in step with a race's entrants (``player`` joined it)."""
        self.lobby.entered(race.code, player, index=race.casual)
        if self.link is not None and race.casual and race.status == "open":
            self.link.listed(race, "open")

    def race_status(self, race: Race, old: str) -> None:
        """Keep the lobby, the counts and the creator's open races in step with a race's status."""
        self.race_counts[old] -= 1
        if not self.race_counts[old]:
            del self.race_counts[old]
        self.race_counts[race.status] += 1
        listing = "live" if race.status in ("starting", "running") and race.daily is None else None
        self.lobby.move(race.code, listing)
        if self.link is not None:
            self.link.listed(race, listing)
        if old == "open":
            creator = self.players_by_id.get(race.creator)
            if creator is not None:
                creator.open_races.discard(race.code)
            if race.casual and race.status == "starting":  # its entrants are friends now (the lobby's order)
                entrants = list(race.entrants)
                self.lobby.raced([p for e in entrants if (p := self.players_by_id.get(e)) is not None], entrants)
            if race.rated and self.archiver is not None:  # its standings show ratings: read once, here
                self.spawn(self._ratings_at_start(race, self.archiver.archive))
        if race.status == "finished":
            self.retiring.append((self.clock.monotonic() + self.config.race_retention_s, "race", race.code))
            par = bool(self.par.workers and race.revealed and race.entrants and not self.draining)
            if self.archiver is not None:  # archived once its par is kept (a task: never on a move's path)
                self.archiver.race_finished(race, hold=par)
            if par:
                self.spawn(self._work_out_par(race))

    async def _ratings_at_start(self, race: Race, archive: Archive) -> None:
        """Give a rated race that is starting its claimed, non-bot entrants' ratings (one archive
        query, in a task: never on a move's path); an archive that cannot be read leaves them
        out (logged)."""
        players = [e.player for e in race.entrants.values() if e.claimed and e.player not in race.bots]
        if not players:
            return
        try:
            shown = await ratings_at_start(archive, race.game_cls.key, players)
        except ArchiveError as exc:
            log.warning("race %s: ratings not shown: %s", race.code, exc.reason)
            return
        try:
            await race.set_ratings(shown)
        except StaleRace:  # another node serves it now
            return

    async def _work_out_par(self, race: Race) -> None:
        """Ask the solver, in a worker process, what the finished race's deal allowed; then
        the race may be archived."""
        try:
            par = await self.par.compute(race.game_cls.key, race.seed, race.options)
            if par is not None:
                await race.set_par(par)
        finally:
            if self.archiver is not None:
                self.archiver.release(race.code)

    def tournament_ended(self, tournament: Tournament) -> None:
        """A tournament finished or was cancelled: it is archived, and leaves memory after
        ``race_retention_s``."""
        self.retiring.append((self.clock.monotonic() + self.config.race_retention_s, "tournament", tournament.id))
        if self.archiver is not None:
            self.archiver.tournament_ended(tournament)

    async def resume_races(self) -> list[Race]:
        """Rebuild every race the durable store lists as still in play (`Race.rebuild`), oldest
        first, and restart its timers; a race that cannot be rebuilt is logged and left in the
        store. Its players get their races back at their hello (their tokens are in the store).
        A race in memory already is left as it is, so that calling this again is harmless.
        Returns the races rebuilt."""
        began = time.perf_counter()
        codes = await self.store.live_races()
        races, skipped = [], 0
        for code in codes:
            if code in self.races:
                continue
            meta = await self.store.load_race(code)
            if meta is None:
                continue  # archived since it was listed
            try:
                races.append(await Race.rebuild(code, meta, store=self.store, clock=self.clock))
            except RebuildError as exc:
                skipped += 1
                log.error(
                    "race %s not resumed: %s", code, exc, extra=fields("race_not_resumed", race=code, reason=str(exc))
                )
        for race in sorted(races, key=lambda r: (r.created_ms, r.code)):
            self.add_race(race, resumed=True)
            players = {race.creator, *race.entrants} if race.casual else set(race.entrants)  # (not a tournament)
            for player in players:
                self.resumed.setdefault(player, set()).add(race.code)
        for race in races:
            await race.resume()
        took_ms = (time.perf_counter() - began) * 1000
        if codes:
            log.info(
                "resumed %d races from the store in %.0f ms (%d left as they are)",
                len(races),
                took_ms,
                skipped,
                extra=fields("races_resumed", races=len(races), skipped=skipped, took_ms=round(took_ms, 1)),
            )
        return races
