"""The Patience Arena server: `ArenaServer` wires the store, the listening socket, the request
table and the background tasks together, and starts, resumes and stops them; `serve` runs one.

docs/design.md is the map: where a move is read (`server.transport.connection`), carried out
(`server.dispatch`, `server.handlers.races`, `server.race.Race.play`), stored (`server.store`),
answered and fanned out (`server.transport.fanout`). Every request costs bounded work, whatever
the number of races, players and connections (docs/design.md, invariant 8); docs/security.md lists
every limit.

Operations: ``GET /healthz`` (anyone) and ``GET /metrics`` (Prometheus, `server.metrics`; only
from ``metrics_from`` addresses) are answered on the websocket port (`server.ops`); the log has
one structured line per race, player and tournament event (`server.logs`); `ArenaServer.shutdown`
drains the server within ``shutdown_grace_s`` (`serve` calls it when asked to stop).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import resource
import socket
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, cast

from websockets.http11 import Request, Response

from server import dispatch, ops, upkeep
from server.addresses import address_key
from server.archive import Archive, ArchiveError
from server.archiving import Archiver, open_configured
from server.config import ServerConfig
from server.handlers import tournaments as tournament_requests
from server.logs import PLAYER_LINES_PER_WINDOW, fields, limit_repeats
from server.nodes import NodeLink
from server.protocol import CreateTournament, ProtocolError
from server.race import Clock
from server.schedule import ScheduleError, load_schedule_file
from server.state import ServerState
from server.stopping import cancel_and_wait
from server.store import Store, StoreUnavailable
from server.store.memory import MemoryStore
from server.tournament import Tournament
from server.transport.connection import Connection
from server.transport.session import Session
from server.transport.slots import address_share

__all__ = ["SHUTDOWN_REASON", "ArenaServer", "serve"]

log = logging.getLogger("arena.server")
_players_log = logging.getLogger("arena.players")
_connections_log = logging.getLogger("arena.connections")  # sockets opened and closed (debug)

#: File descriptors the server needs besides its connections (listening sockets, logs, catalogs).
_SPARE_FILES = 64
#: During a shutdown, a connection stays open until it has been quiet (no frame received, nothing
#: left to send) this many seconds after its races ended: time to ask for their records; but no
#: connection is kept open longer than ``_LINGER_S`` after that.
_QUIET_S = 0.5
_LINGER_S = 2.0
#: Seconds the closing handshakes of a shutdown may take, at most (kept out of the grace's
#: earlier steps); a peer that has not answered by then is cut off.
_CLOSE_S = 2.0
#: Seconds a shutdown among several nodes waits for the requests in hand before it hands the
#: races over (`server.nodes.NodeLink.hand_over`).
_HAND_OVER_WAIT_S = 0.5
#: Seconds `ArenaServer.close` waits for the finished races and tournaments not archived yet.
#: Seconds the server's own tasks have to end once cancelled, at close.
#: Seconds the server's tasks get to end on their own at close, before they are cancelled.
_TASKS_SETTLE_S = 1.0
_TASKS_END_S = 5.0
_ARCHIVE_FLUSH_S = 5.0
#: The close reason every client gets (code 1001) when the server shuts down.
SHUTDOWN_REASON = "server shutting down"


def _store_for(config: ServerConfig, clock: Clock) -> Store:
    """The store ``config`` asks for: Redis at ``redis_url``, else memory."""
    if config.redis_url is not None:
        from server.store.redis import RedisStore  # (only a server over Redis loads its client)

        return RedisStore(
            config.redis_url,
            max_events=config.max_events_per_race,
            node_id=config.node_id or "node",
            wait_replicas=config.redis_wait_replicas,
            wait_timeout_ms=config.redis_wait_timeout_ms,
        )
    return MemoryStore(max_events=config.max_events_per_race, now=clock.monotonic)


async def _until(condition: Callable[[], bool], deadline: float, step_s: float = 0.02) -> bool:
    """Wait until ``condition()`` holds (True) or the loop time ``deadline`` passes (False)."""
    loop = asyncio.get_running_loop()
    while not condition():
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(step_s)
    return True


class ArenaServer(ServerState):
    """The Patience Arena server: races in a `Store` (memory by default), served over websockets;
    finished races and tournaments kept in an archive if its config names one (``archive``: an
    opened `server.archive.Archive` to use instead, which its giver closes).

    >>> async def main():
    ...     async with ArenaServer() as server:
    ...         return server.url.startswith("ws://127.0.0.1:")
    >>> asyncio.run(main())
    True
    """

    def __init__(
        self,
        config: ServerConfig | None = None,
        *,
        store: Store | None = None,
        clock: Clock | None = None,
        archive: Archive | None = None,
    ) -> None:
        config = config or ServerConfig()
        clock = clock or Clock()
        super().__init__(config, store if store is not None else _store_for(config, clock), clock)
        self._own_store = store is None  # a store it was given is its giver's to close
        self._archive = archive  # an archive it was given (opened) is its giver's to close
        self._listener: asyncio.Server | None = None
        self.conns: set[Connection] = set()  # every accepted socket, handshake or not

    # ------------------------------------------------------------------------- lifecycle

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Connect to the store, open the archive (`server.config.ServerConfig.archive_location`),
        resume what a durable store kept, then listen on ``host``:``port`` (0 picks a free port;
        see `url`). Raises `StoreUnavailable` (an OSError) if the store does not answer,
        `server.archive.ArchiveError` if the archive cannot be opened, OSError if the address
        cannot be used (e.g. the port is taken)."""
        cfg = self.config
        store = self.store
        if store.shared:
            # a node restarted on the same port is the same node: it resumes its own races
            # (a server on a port picked at random, as in tests, keeps the id its store was given)
            self.node_id = cfg.node_id or (f"{socket.gethostname()}:{port}" if port else store.node_id)
            store.node_id = self.node_id
        try:
            await store.open()
        except StoreUnavailable:
            if self._own_store:
                await store.close()
            raise
        log.info("keeping races in %s", store, extra=fields("store_opened", store=str(store)))
        try:
            archive = self._archive if self._archive is not None else await open_configured(cfg)
        except ArchiveError:
            if self._own_store:
                await store.close()
            raise
        if archive is not None:
            self.archiver = Archiver(archive, self.clock, retention_days=cfg.archive_retention_days)
            self.spawn(self.archiver.run())
            before, now = getattr(archive, "upgraded_from", None), getattr(archive, "revision", None)
            upgraded = f" (its schema upgraded from {before or 'nothing'} to {now})" if now and before != now else ""
            log.info(
                "keeping finished races in %s%s",
                archive.url,
                upgraded,
                extra=fields("archive_opened", archive=archive.url, revision=now, upgraded_from=before),
            )
        try:
            await self.daily.open(archive, self.archiver)  # results kept there, and its secret
        except ArchiveError:
            if self._own_store:
                await store.close()
            if self.archiver is not None and self._archive is None:
                await self.archiver.close()
            raise
        limit_repeats("arena.server", "arena.requests", "asyncio", "websockets.server", window_s=cfg.log_repeat_s)
        limit_repeats("arena.players", window_s=cfg.log_repeat_s, per_window=PLAYER_LINES_PER_WINDOW)
        if store.durable:
            try:
                if store.shared:  # the lease first: nobody takes over what it resumes
                    self.link = NodeLink(self, store, lease_s=cfg.lease_s, forward_timeout_s=cfg.forward_timeout_s)  # type: ignore[arg-type]
                    await self.link.join()
                await self.resume_races()
                if self.leading:  # among several nodes only the leader runs tournaments
                    await tournament_requests.resume_tournaments(self)
                if self.link is not None:
                    await self.link.start()
            except StoreUnavailable:
                if self._own_store:
                    await store.close()
                if self.archiver is not None and self._archive is None:
                    await self.archiver.close()
                raise
        self._fit_open_files()
        loop = asyncio.get_running_loop()
        self._listener = await loop.create_server(self._accepted, host, port)
        self.spawn(upkeep.housekeeping(self))
        if self.keepalive is not None:
            self.spawn(self.keepalive.run())
        self.spawn(ops.measure_lag(self))
        if self.fanout.max_tick_s and 0 < self.fanout.busy_share <= 1:
            self.spawn(ops.measure_load(self))
        log.info(
            "serving on %s",
            self.url,
            extra=fields(
                "server_started",
                url=self.url,
                store=type(store).__name__,
                durable=store.durable,
                max_connections=cfg.max_connections,
                shutdown_grace_s=cfg.shutdown_grace_s,
            ),
        )
        log.info("open %s/ in a browser to play, watch and follow tournaments", self.url.replace("ws://", "http://", 1))

    @property
    def leading(self) -> bool:
        """True if this server runs the tournaments: on its own, always; among several nodes, while
        it holds the leader lock (`server.nodes`)."""
        return self.link is None or self.link.leading

    async def became_leader(self) -> None:
        """This node has just taken the leader lock over (the leader died or stopped), and the
        races of the dead nodes: resume the tournaments and schedules from the store, then
        schedule those of its own schedule file that the store lacks (an entry the old leader
        scheduled already is known by its digest). A file that has gone bad since the start is
        logged, not raised: the lead is kept."""
        await tournament_requests.resume_tournaments(self)
        if self.schedule_file is not None:
            try:
                self.load_schedule(self.schedule_file)
            except (ScheduleError, ProtocolError, OSError) as exc:
                log.error("node %s leads now, but its schedule file cannot be loaded: %s", self.node_id, exc)

    def _fit_open_files(self) -> None:
        """Make sure ``max_connections`` sockets fit under the process's open-files limit: raise
        the soft limit as far as the hard one allows, else lower ``max_connections``, and
        ``max_connections_per_ip`` to an eighth of it (`server.transport.slots.address_share`)
        if it was more, and say so."""
        cfg = self.config
        needed = cfg.max_connections + _SPARE_FILES
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < needed:
            target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                soft = target
        if soft != resource.RLIM_INFINITY and soft < needed:
            fitted = max(1, soft - _SPARE_FILES)
            per_address = min(cfg.max_connections_per_ip, address_share(fitted))
            log.warning(
                "the open-files limit is %d, too low for max_connections %d: serving at most %d "
                "connections, %d per address (raise it with `ulimit -n` or systemd's LimitNOFILE)",
                soft,
                cfg.max_connections,
                fitted,
                per_address,
            )
            cfg.max_connections = fitted
            cfg.max_connections_per_ip = per_address

    @property
    def url(self) -> str:
        """``ws://host:port`` of the listening socket."""
        assert self._listener is not None, "start() first"
        host, port = self._listener.sockets[0].getsockname()[:2]
        return f"ws://[{host}]:{port}" if ":" in host else f"ws://{host}:{port}"

    async def shutdown(self) -> None:
        """Stop gracefully, within ``config.shutdown_grace_s`` seconds, in this order:

        1. answer ``GET /healthz`` with 503 (a load balancer sends new clients elsewhere), and
           refuse every new request with ``unavailable`` but those a stopping server still
           carries out (`server.dispatch.Route.while_draining`: hello, sync, get_record,
           replay); the socket keeps listening until step 5, so that a client reconnecting
           meanwhile may still say hello and fetch its records;
        2. let the requests already being carried out finish: every move in flight gets its
           answer, and one that was accepted is in its race's log; among several nodes, hand
           the races over once they have (half a second at most: `server.nodes.NodeLink.hand_over`,
           the tournaments' tasks stopped first), so that the other nodes take them over while
           this one drains;
        3. over a store that is not durable (the memory store: nothing survives the process), end
           every unfinished tournament and race with reason ``server_shutdown``, seeds and salts
           revealed as at any end, so that every entrant and spectator holds the final standings;
           over a durable store (Redis) nothing ends: races and tournaments stay as they are, and
           the server that starts next over the same store resumes them, their entrants
           reconnecting to it; then every finished race and ended tournament not archived yet is
           written to the archive (`server.archiving.Archiver.flush`);
        4. keep the connections open until each has been quiet for half a second (no frame from
           it, nothing left to send it), two seconds at most: time to ask for the records;
        5. stop listening, close every connection with 1001 "server shutting down", and cut off
           a peer that has not answered within two seconds;
        6. `close`: timers, tasks and the par workers.

        Steps 2 to 4 end when the grace, less the time kept for step 5, is over. Usually it all
        takes about half a second; with peers that keep talking or never answer, about four plus
        what the requests in hand take. Calling it again does nothing.
        """
        if self.draining:
            return
        self.draining = True
        loop = asyncio.get_running_loop()
        began = loop.time()
        grace = self.config.shutdown_grace_s
        deadline = began + grace
        closing_at = deadline - min(_CLOSE_S, grace / 4)
        log.info(
            "shutting down within %g s",
            grace,
            extra=fields(
                "server_stopping",
                grace_s=grace,
                sessions=len(self.sessions),
                races=sum(self.race_counts.values()),
                durable=self.store.durable,
            ),
        )
        if self.link is not None:  # the others take the races over while this node drains
            await _until(lambda: self.busy == 0, min(closing_at, began + _HAND_OVER_WAIT_S))
            for tournament in self.tournaments.values():
                if tournament.task is not None:  # (the new leader resumes them from the store)
                    tournament.task.cancel()
            await self.link.hand_over()
        await _until(lambda: self.busy == 0, closing_at)
        races = tournaments_ended = 0
        if not self.store.durable:
            try:
                async with asyncio.timeout_at(closing_at):
                    races, tournaments_ended = await self._end_all("server_shutdown")
            except TimeoutError:
                log.warning("shutdown: the grace ran out while ending races")
        if self.archiver is not None:  # every finished race, those just ended too, goes to the archive
            await self.archiver.flush(max(0.0, closing_at - loop.time()))
        ended_at = loop.time()
        await _until(
            lambda: all(
                s.closing or not s.conn.open or (not s.buffered and s.quiet_since(ended_at) >= _QUIET_S)
                for s in self.sessions
            ),
            min(closing_at, ended_at + _LINGER_S),
        )
        if self._listener is not None:
            self._listener.close()  # no new sockets
        closed = await self._close_connections(min(deadline, loop.time() + _CLOSE_S))
        await self.close()
        log.info(
            "stopped after %.2f s: %d races and %d tournaments ended, %d connections closed",
            loop.time() - began,
            races,
            tournaments_ended,
            closed,
            extra=fields(
                "server_stopped",
                took_s=round(loop.time() - began, 3),
                races_ended=races,
                tournaments_ended=tournaments_ended,
                connections_closed=closed,
            ),
        )

    async def _end_all(self, reason: str) -> tuple[int, int]:
        """End every unfinished tournament (its races with it) and every other unfinished race
        with ``reason``, seeds revealed (an arena tournament's deals included); the numbers of
        races and tournaments ended."""
        unfinished = [t for t in self.tournaments.values() if t.status not in ("finished", "cancelled")]
        races = [r for r in self.races.values() if r.status != "finished"]
        for tournament in unfinished:
            for race in tournament.races:
                race.reveal()  # the tournament ends here: nothing is left to hold its seeds for
            await tournament.cancel(reason)
        for race in races:
            race.reveal()
            await race.stop(reason)
        return len(races), len(unfinished)

    async def _close_connections(self, deadline: float) -> int:
        """Close every connection with 1001 and wait for them until ``deadline`` (loop time); cut
        off those still open then. The number closed."""
        conns = list(self.conns)
        for conn in conns:
            if conn.session is not None:
                conn.session.close(1001, SHUTDOWN_REASON)
            else:
                conn.abort()  # still in its handshake
        if not await _until(lambda: not self.conns, max(deadline, asyncio.get_running_loop().time() + 0.1)):
            log.warning("shutdown: cutting off %d connections that did not close in time", len(self.conns))
            for conn in list(self.conns):
                conn.abort()
            await _until(lambda: not self.conns, asyncio.get_running_loop().time() + 1)
        return len(conns)

    async def close(self) -> None:
        """Stop listening, cut every connection off, write to the archive what finished and is
        not archived yet (five seconds at most), cancel every race timer, stop the par workers
        and let go of the store and the archive (those the server opened itself)."""
        if self._listener is not None:
            self._listener.close()
        for conn in list(self.conns):
            conn.abort()
        if self.archiver is not None:  # what finished and waits goes to the archive first
            await self.archiver.flush(_ARCHIVE_FLUSH_S)
        self.par.close()
        for tournament in self.tournaments.values():
            if tournament.task is not None:
                tournament.task.cancel()
        for race in list(self.races.values()):
            await race.close()
        settling = [*self.requests, *(task for writes in self.player_writes.values() for task in writes)]
        if settling:  # requests and player writes under way end on their own first (one cut off
            # mid-query leaves the database driver a connection it may never close)
            await asyncio.wait(settling, timeout=_TASKS_SETTLE_S)
        tournaments = [t.task for t in self.tournaments.values() if t.task is not None]
        # they end before the store and the archive they may be using go
        await cancel_and_wait([*self.tasks, *self.requests, *tournaments], _TASKS_END_S)
        if self.link is not None:
            await self.link.stop(release=self.draining)  # after a graceful shutdown the others take over at once
            self.link = None
        if self._own_store:
            await self.store.close()
        if self.archiver is not None:
            if self._archive is None:
                await self.archiver.close()
            self.archiver = None
        await asyncio.sleep(0)  # (the aborted connections' callbacks run)

    async def __aenter__(self) -> ArenaServer:
        if self._listener is None:
            await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ----------------------------------------------------------------------- connections

    def _accepted(self) -> Connection:
        conn = Connection(self)
        self.conns.add(conn)
        return conn

    def _slot_key(self, address: str) -> str:
        """What ``address`` is counted under: a trusted proxy's own address as it is, any other
        by its key (`server.addresses.address_key`: IPv6 by its /64)."""
        return address if address in self.slots.exempt else address_key(address)

    def admit(self, conn: Connection, address: str, *, check_total: bool = True) -> bool:
        """Count ``conn``'s socket, from ``address``, against the connection limits
        (`server.transport.slots.Slots`), or refuse it (False): its address holds its share of
        the slots already, or the server is full and no connection can make room for it
        (`_make_room`). Refusals are logged, a line per kind per ``log_repeat_s``."""
        slots = self.slots
        key = self._slot_key(address)
        if key not in slots.exempt and slots.by_address.get(key, 0) >= slots.per_address:
            log.warning(
                "refusing connections from %s: %d open (max_connections_per_ip)",
                address,
                slots.by_address[key],
                extra=fields("connection_refused", remote=address, reason="max_connections_per_ip"),
            )
            return False
        if check_total and slots.full and not self._make_room(key, address):
            log.warning(
                "refusing connections: %d open (max_connections)",
                slots.connections,
                extra=fields("connection_refused", remote=address, reason="max_connections"),
            )
            return False
        return slots.admit(conn, key, check_total=check_total)

    def may_open(self, address: str) -> bool:
        """Whether ``address`` may open one more websocket now: ``connections_per_s_per_ip`` a
        second beyond a burst of ``connections_burst_per_ip`` (a trusted proxy's own address
        always may; plain HTTP requests, such as the page's files, are not counted). A refusal
        is logged, a line per ``log_repeat_s``."""
        key = self._slot_key(address)
        if key in self.slots.exempt or self.openings.take(key, self.clock.monotonic()):
            return True
        log.warning(
            "refusing websockets from %s: over %g new a second (connections_per_s_per_ip)",
            address,
            self.config.connections_per_s_per_ip,
            extra=fields("connection_refused", remote=address, reason="connections_per_s_per_ip"),
        )
        return False

    def release(self, conn: Connection, address: str, *, total: bool = True) -> None:
        """``conn``'s socket, counted under ``address``, is gone (``total``: its slot of the
        server too)."""
        self.slots.release(conn, self._slot_key(address), total=total)

    def _make_room(self, key: str, address: str) -> bool:
        """The server is full and a newcomer from ``address`` (counted under ``key``) knocks: if
        the address keys holding the most connections hold at least two more than ``key`` would
        with the newcomer, close the one of their connections (of eight such keys at most) that
        can best spare its place (`_spare`) with 1013 and give its slot to the newcomer (True).
        False: no address holds that many more, or every connection of those that do is in a
        race. Costs O(connections of eight keys) at most, and only when the server is full."""
        slots = self.slots
        crowding = [cast(Connection, c) for crowded in slots.crowding(key) for c in slots.holders(crowded)]
        victim = self._spare(crowding)
        if victim is None:
            return False
        log.warning(
            "server full: closing a connection from %s to make room for one from %s",
            victim.client,
            address,
            extra=fields("connection_evicted", remote=victim.client, newcomer=address),
        )
        victim.evict(1013, "server full: your address holds the most connections; try again later")
        return True

    def _spare(self, conns: list[Connection]) -> Connection | None:
        """The connection of ``conns`` that can best spare its place: one that has not said hello
        (its handshake maybe not even over) first, then one that does nothing (no race in play,
        watching no race, following no tournament, no tournament to come), then one that only
        watches or follows; among them the one quiet the longest. Never one whose player has a
        race in play or an open race of its own (None if every one has). Costs O(len(conns))."""
        best: Connection | None = None
        best_rank = (3, 0.0)
        for conn in conns:
            rank = (self._spare_class(conn), conn.heard_at)
            if rank < best_rank:
                best, best_rank = conn, rank
        return best

    def _spare_class(self, conn: Connection) -> int:
        """0: no hello yet (or closing); 1: does nothing; 2: watches or follows, or has a
        tournament to come; 3: in a race (never taken)."""
        session = conn.session
        if session is None or session.player is None or session.closing:
            return 0
        player = session.player
        if player.open_races:
            return 3
        for code in player.races:
            race = self.races.get(code)
            if race is not None and race.status != "finished":
                entrant = race.entrants.get(player.id)
                if entrant is not None and not entrant.done:
                    return 3
        if session.onlooking or any(
            t.status not in ("finished", "cancelled")
            for tid in player.tournaments
            if (t := self.tournaments.get(tid)) is not None
        ):
            return 2
        return 1

    def http(self, conn: Connection, request: Request) -> Response | None:
        """The server's own answer at a handshake (`server.ops.http`), or None for a websocket."""
        return ops.http(self, conn, request)

    def connected(self, conn: Connection) -> Session:
        """``conn``'s handshake is over: its session, which has ``hello_timeout_s`` to say hello."""
        session = Session(self, conn, next(self.conn_ids))
        self.sessions.add(session)
        self.sessions_by_conn[session.conn_id] = session
        if _connections_log.isEnabledFor(logging.DEBUG):
            _connections_log.debug(
                "connection from %s opened", session.address, extra=fields("connection_opened", remote=session.address)
            )
        session.hello_timer = asyncio.get_running_loop().call_later(
            self.config.hello_timeout_s, self._hello_overdue, session
        )
        return session

    def _hello_overdue(self, session: Session) -> None:
        if session.player is None and not session.closing:
            session.close(1008, f"no hello within {self.config.hello_timeout_s:g} s")

    def lost(self, conn: Connection) -> None:
        """``conn``'s socket is gone. Its session (if its handshake was over) is forgotten once the
        request it was carrying out (if any) is over: nothing more reaches it, and its player is
        left disconnected."""
        session = conn.session
        if session is None:
            self.conns.discard(conn)
            return
        session.closing = True
        if session.running is not None:
            session.running.add_done_callback(lambda _: self._gone(conn, session))
        else:
            self._gone(conn, session)

    def _gone(self, conn: Connection, session: Session) -> None:
        if session.hello_timer is not None:
            session.hello_timer.cancel()
        self.sessions.discard(session)
        self.sessions_by_conn.pop(session.conn_id, None)
        self.conns.discard(conn)
        if self.link is not None and session.remote_nodes:
            self.link.closed(session)
        player = session.player
        if player is not None and player.session is session:
            _players_log.info(
                "%s left",
                player.name,
                extra=fields(
                    "player_left",
                    player=player.id,
                    player_name=player.name,
                    remote=session.address,
                    races=len(player.races) or None,
                ),
            )
        if _connections_log.isEnabledFor(logging.DEBUG):
            _connections_log.debug(
                "connection from %s closed",
                session.address,
                extra=fields(
                    "connection_closed",
                    remote=session.address,
                    player=player.id if player else None,
                    code=conn.close_code,
                    reason=conn.close_reason or None,
                ),
            )
        self.forget(session)

    # -------------------------------------------------------------------------- requests

    @property
    def takes_at_once(self) -> bool:
        """True when a client's frame may be carried out within the callback that read it
        (`server.transport.session.Session.take`): with a store of this process and no other
        node, a request waits for nothing that needs a task of its own (a timeout, the store's
        client)."""
        return self.link is None and self.store.in_process

    def carry_out(self, session: Session, frame: bytes | str) -> Coroutine[Any, Any, None]:
        """Carry out one frame from ``session``'s client (`server.dispatch.carry_out`)."""
        return dispatch.carry_out(self, session, frame)

    def receive(self, session: Session, frame: bytes | str) -> Coroutine[Any, Any, None]:
        """Carry out a frame another node forwarded (`server.dispatch.receive`: no rate limit
        here; the client's own node applied it)."""
        return dispatch.receive(self, session, frame)

    def create_tournament(self, msg: CreateTournament) -> Tournament:
        """Schedule a tournament as an organiser asks (`server.handlers.tournaments.create_tournament`)."""
        return tournament_requests.create_tournament(self, msg)

    def load_schedule(self, path: str | Path) -> list[Tournament]:
        """Schedule a TOML schedule file's tournaments (`server.handlers.tournaments.load_schedule`)."""
        return tournament_requests.load_schedule(self, path)

    def health(self) -> dict[str, object]:
        """What ``GET /healthz`` reports (`server.ops.health`)."""
        return ops.health(self)

    async def sweep(self) -> None:
        """Apply the retention times that are due now (`server.upkeep.sweep`)."""
        await upkeep.sweep(self)


async def serve(
    host: str = "127.0.0.1",
    port: int = 8765,
    config: ServerConfig | None = None,
    *,
    tournaments: str | Path | None = None,
    stop: asyncio.Event | None = None,
) -> None:
    """Run a server until ``stop`` is set, then shut it down gracefully within its
    ``shutdown_grace_s`` (`ArenaServer.shutdown`; `arena serve` sets it on SIGTERM and SIGINT);
    if cancelled instead, it closes at once. ``tournaments``: a TOML schedule file whose
    tournaments are scheduled at start (each is logged as ``tournament_created``), once the
    server has resumed what a durable store kept, so that none is scheduled twice (a file that
    cannot be read stops the server before it listens). Among several nodes only the leader
    schedules them; a node that takes the lead later does then (`ArenaServer.became_leader`)."""
    server = ArenaServer(config)
    if tournaments is not None:
        load_schedule_file(tournaments)
        server.schedule_file = tournaments
    await server.start(host, port)
    upkeep.settle_garbage(server.config.gc_full_threshold)
    try:
        if tournaments is not None and server.leading:
            server.load_schedule(tournaments)
        if stop is None:
            await asyncio.Future()  # until cancelled
        else:
            await stop.wait()
            await server.shutdown()
    finally:
        await server.close()
