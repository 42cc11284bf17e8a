"""Several server nodes sharing one Redis: who serves a race, and how requests and frames travel.

**One owner per race.** Every race lives in the memory of exactly one node, its owner, which
applies all of its moves, runs its timers and publishes its events, exactly as a server on its own
does (server/race.py is unchanged by having several nodes). Redis says which node that is (the
race's ``owner`` key, set by the node that creates the race) and whether that node is alive (each
node holds a lease, a key with a time to live of ``lease_s`` that it renews four times per
lease). Each race's entrants play independent games of the same deal, so one writer per race is
all the ordering a race needs; the owner key also fences Redis itself: every script that writes a
race first checks that the writer still owns it (`server.store.redis.NotOwner`), and a move whose
number does not follow its log's last one is refused, so that no acknowledged move is lost or
applied twice even when two nodes briefly both believe they own a race.

**Any node takes any client.** A client's connection may land on any node (a load balancer spreads
them). A request about a race this node does not hold (join, start, move, resign, watch, sync,
record, replay, rematch, Double or Naught) is forwarded, as the client's own frame with who sent
it, to the owner's inbox (a sharded pub/sub channel per node), and the sending node waits up to
``forward_timeout_s`` for it to be carried out. The owner carries it out for a `RemoteSession`:
a stand-in for the far connection, which the race treats like any other listener. Whatever the
race sends that connection (the reply, the events of its audience, delayed boards) goes back to
the client's node in batches, one message per node per turn of the owner's event loop, and that
node hands the frames to the connection. The owner ends each request's frames with a "done" mark,
which releases the waiting node.

**A node that dies.** Its lease runs out within ``lease_s``, and with it the leader lock if it
led (the lock lives as long as a lease, and a node may take the lock of a node whose lease ran
out at once). The leader notices at its next heartbeat and takes the dead node's races over
(`RedisStore.adopt`), rebuilding each from its description and move logs
(`server.race.Race.rebuild`), as a restarted server does. A request does not wait for that: its
forward tells at once that nobody listens on the owner's inbox (SPUBLISH counts the receivers:
0), so the node waits out what is left of the owner's lease (at most ``lease_s``), then takes
the race over itself (the leader any race, another node a casual one: a tournament's deal races
stay with the leader, which runs the tournament) and carries the request out. A request forwarded
before the owner died is answered ``moved`` as soon as a check finds the owner's inbox deaf
(``lease_s``/4 after it was sent, then as often), and the client sends it again at once. The
dead node's clients reconnect (through the load balancer, to a live node) with their tokens;
their resent moves get their first answers (invariant 4), and what they missed comes from the
race's event stream (`sync`). A node that stops gracefully hands its races over first
(`NodeLink.hand_over`): it gives its lease and the lead up and stops listening, so that the others
take over while it drains. Pub/sub loses what is sent while a node is cut off: a forwarded
request then times out and its client is answered ``unavailable`` and sends it again; an event
that never arrived is caught up with ``sync`` (events carry versions).

**One answer per request.** Every frame the owner sends the requesting connection while it
carries a forwarded request out is tagged with the request's ticket. A forward that was answered
here already (it timed out, or its owner went deaf) is dropped, and so is every tagged frame that
arrives for it later: the client gets exactly one answer, whichever node gave it.

Wire format between nodes (MessagePack arrays, `msgspec`):

* ``[0, from_node, conn, ticket, token, player, name, address, frame]``: a request;
* ``[1, from_node, frames, items]``: frames for connections of the receiving node, ``frames``
  each payload once, ``items`` ``[index, conn]`` to deliver ``frames[index]`` to ``conn``,
  ``[index, conn, ticket]`` for a frame of the answer to request ``ticket``, or ``[-1, ticket]``
  for "request ``ticket`` is done", in the order they were sent;
* ``[2, from_node, conn]``: connection ``conn`` of ``from_node`` closed;
* ``[3, from_node]``: is anybody there (ignored: the sender reads SPUBLISH's count of receivers).

A player's session token travels inside requests (the owner keeps the player as it would for its
own connection); so Redis, which holds the store anyway, must be as private as the server.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from server.dispatch import Scope, requests_in
from server.lobby import joined_count, shared_score
from server.logs import fields
from server.protocol import ErrorCode, ProtocolError, RaceInfo, encode
from server.race import Race
from server.stopping import cancel_and_wait, stop_if_cancelled
from server.store import StoreUnavailable
from server.transport.session import Host, Session

if TYPE_CHECKING:
    from server.players import Player
    from server.store.redis import RedisStore

__all__ = ["NodeHost", "NodeLink", "RACE_REQUESTS", "RemoteSession", "TOURNAMENT_REQUESTS"]

log = logging.getLogger("arena.server")


class _RaceRequest(Protocol):
    """A request about one race: what every type in `RACE_REQUESTS` has."""

    race: str


#: The requests about one race, carried out by the node that owns it (`server.dispatch.ROUTES`).
RACE_REQUESTS: tuple[type[_RaceRequest], ...] = requests_in(Scope.RACE)

#: The requests about tournaments, carried out by the leader, which runs every tournament.
TOURNAMENT_REQUESTS = requests_in(Scope.TOURNAMENTS)

_REQUEST, _FRAMES, _GONE, _PING = 0, 1, 2, 3
#: Races taken over from a dead node per store round trip.
_ADOPT_BATCH = 50
#: Heartbeats per lease: a node that dies is seen dead at most a quarter of a lease after its
#: lease ran out.
_BEATS_PER_LEASE = 4
#: Seconds a forward that was answered here (timed out, or its owner went deaf) is remembered, so
#: that the owner's late answer to it is dropped.
_ABANDONED_S = 60.0
#: Seconds a graceful stop waits for the frames already queued for other nodes to leave.
_FLUSH_S = 0.5
#: How long a looked-up owner is trusted before it is looked up again (seconds): a move for a
#: race served elsewhere then costs no extra round trip.
_OWNER_TTL_S = 1.0

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode
_race_info = msgspec.msgpack.Decoder(RaceInfo).decode


class _Serving:
    """A forwarded request being carried out: the frames sent to its connection meanwhile are
    its answer, tagged with its ticket (`RemoteSession.send`)."""

    __slots__ = ("active", "session", "ticket")

    def __init__(self, session: RemoteSession, ticket: int) -> None:
        self.session = session
        self.ticket = ticket
        self.active = True  # (a timer started by the request copies the context: not its answer)


_serving: contextvars.ContextVar[_Serving | None] = contextvars.ContextVar("serving", default=None)


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.warning("the shared lobby was not updated: %s", exc)


class NodeHost(Host, Protocol):
    """The server as the node link needs it (`server.app.ArenaServer`)."""

    races: dict[str, Race]
    sessions_by_conn: dict[int, Session]

    def forget(self, session: Session) -> None:
        """Stop sending ``session`` anything (its connection ended)."""

    def listen(self, player: Player, listener: Player | None) -> None:
        """Point the player's entries in its races at ``listener``."""

    def receive(self, session: Session, frame: bytes | str) -> Coroutine[Any, Any, None]:
        """Carry out a forwarded frame as if ``session`` had sent it here."""

    async def adopt_race(self, code: str) -> bool:
        """Bring race ``code``, which this node owns now, into memory from the store."""

    async def became_leader(self) -> None:
        """This node has just taken the lead: resume the tournaments."""

    def remote_player(self, token: str, player_id: str, name: str) -> Player:
        """The player of a request another node forwarded."""


class RemoteSession(Session):
    """Another node's connection, as the node that owns a race sees it: requests forwarded from
    it are carried out as if it were connected here, and every frame sent to it goes back to its
    node, which hands it to the client. That node watches the client's backlog and rate; here it
    has room for half of the outgoing buffer."""

    remote = True

    def __init__(self, server: NodeHost, link: NodeLink, node: str, conn: int, address: str) -> None:
        self.server = server
        self.link = link
        self.node = node
        self.conn_id = conn
        self.address = address
        self.player = None
        self.watching = set()
        self.following = set()
        self.remote_nodes = set()
        self.closing = False
        self.strikes = 0

    def send(self, frame: bytes, *, later: bool = False, standings: bool = False) -> None:
        """Queue ``frame`` for the client on its node: every frame for that node leaves in one
        batch at the end of this loop turn (``later`` and ``standings`` change nothing here). A
        frame sent while a request of this connection is carried out is tagged with its ticket."""
        serving = _serving.get()
        ticket = serving.ticket if serving is not None and serving.active and serving.session is self else 0
        self.link.deliver(self.node, self.conn_id, frame, ticket)
        tally = self.server.tally
        tally.frames_sent += 1
        tally.bytes_sent += len(frame)

    @property
    def buffered(self) -> int:
        return 0

    @property
    def room(self) -> int:
        return self.server.config.max_send_buffer_bytes // 2

    def close(self, code: int, reason: str) -> None:
        """(its own node closes the client's connection)"""

    async def flush(self) -> None:
        return None


class NodeLink:
    """This node's part among the nodes sharing one Redis (the `RedisStore` ``store``): its
    lease, its inbox, the requests it forwards and the ones it carries out for other nodes.

    ``lease_s`` (seconds): how long the node counts as alive after each heartbeat (it beats four
    times per lease); another node takes its races over within about that long after it dies.
    ``forward_timeout_s`` (seconds): how long a forwarded request may take before its client is
    answered ``unavailable``. Start it with `start` (after the server has resumed its own races),
    hand its races over with `hand_over` when it stops gracefully, and stop it with `stop`.
    """

    def __init__(self, server: NodeHost, store: RedisStore, *, lease_s: float, forward_timeout_s: float) -> None:
        self.server = server
        self.store = store
        self.node = store.node_id
        self.lease_s = lease_s
        self.forward_timeout_s = forward_timeout_s
        self.dead: set[str] = set()  # other nodes whose lease ran out, at the last heartbeat
        self.leading = False  # this node holds the leader lock: it runs the tournaments
        self.remote: dict[tuple[str, int], RemoteSession] = {}  # stand-ins for other nodes' connections
        self._owners: dict[str, tuple[str, float]] = {}  # race code -> (owner, trusted until, loop time)
        self._adopting: dict[str, asyncio.Future[None]] = {}
        self._pending: dict[int, asyncio.Future[None]] = {}  # tickets of requests forwarded, waiting
        self._abandoned: dict[int, float] = {}  # tickets answered here already -> forgotten at (loop time)
        self._tickets = itertools.count(1)
        self._outbox: dict[str, list[tuple[int, int, bytes | None, int]]] = {}  # node -> (kind, conn, frame, ticket)
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._beating = asyncio.Lock()
        self._beat_began = float("-inf")  # loop time the last heartbeat began
        self._renewed = float("-inf")  # loop time of the last renewal of the lease
        self._listening: dict[str, asyncio.Future[bool]] = {}  # node -> its inbox check in flight
        self._handed_over = False
        self._listings: dict[str, tuple[Race, str | None]] = {}  # lobby changes waiting for the turn's end
        self._listing_soon = False
        self.forwarded = 0  # requests sent to other nodes
        self.served = 0  # requests carried out for other nodes
        self.adopted = 0  # races taken over from dead nodes
        self.late_dropped = 0  # frames of answers that came after their request was answered here

    @property
    def beat_s(self) -> float:
        """Seconds between heartbeats (a quarter of a lease)."""
        return self.lease_s / _BEATS_PER_LEASE

    # ------------------------------------------------------------------------ lifecycle

    async def join(self) -> None:
        """Take this node's lease, and the leader lock if nobody holds it (raises
        `StoreUnavailable` if Redis does not answer): before the server resumes its own races,
        so that nobody takes them over meanwhile, and only a leader resumes tournaments."""
        await self.store.heartbeat(self.lease_s)
        self._renewed = asyncio.get_running_loop().time()
        self.leading = await self.store.lead(self.lease_s)
        if self.leading:
            log.info("node %s leads: it runs the tournaments", self.node, extra=fields("node_leads", node=self.node))

    async def start(self) -> None:
        """Listen to the inbox and keep the lease (and the lead) in the background (after `join`)."""
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(), name="inbox"),
            loop.create_task(self._send(), name="sender"),
            loop.create_task(self._keep_lease(), name="lease"),
        ]

    async def hand_over(self) -> None:
        """Hand this node's races over to the others (a graceful stop, once the requests in hand
        are carried out): stop renewing the lease, give it and the lead up, stop listening, and
        let the frames already queued leave (half a second at most). The others take the races
        over at once: their next forward finds nobody listening and no lease, and the leader's
        next heartbeat finds this node gone. Raises nothing (a Redis that does not answer: the
        lease runs out by itself)."""
        if self._handed_over:
            return
        self._handed_over = True
        listening = [t for t in self._tasks if t.get_name() in ("lease", "inbox")]
        self._tasks = [t for t in self._tasks if t not in listening]
        await cancel_and_wait(listening, 1)
        try:
            await self.store.release()
        except StoreUnavailable as exc:
            log.warning("node %s: lease not given up (it runs out by itself): %s", self.node, exc)
        self.leading = False
        log.info("node %s hands its races over", self.node, extra=fields("node_hands_over", node=self.node))
        deadline = asyncio.get_running_loop().time() + _FLUSH_S
        while (self._outbox or self._wake.is_set()) and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)

    async def stop(self, *, release: bool) -> None:
        """Stop listening and sending; with ``release``, give the lease up so that the other
        nodes take this node's races over at once (a graceful shutdown, once this node has
        stopped carrying out moves; done already after `hand_over`)."""
        if release and not self._handed_over:
            try:
                await self.store.release()
            except StoreUnavailable as exc:
                log.warning("node %s: lease not given up (it runs out by itself): %s", self.node, exc)
        for task in await cancel_and_wait(self._tasks, 1):  # (one still running is left to the loop's end)
            log.warning("node %s: %s did not stop within a second", self.node, task.get_name())
        self._tasks = []

    async def _keep_lease(self) -> None:
        """Beat four times per lease (`_beat`)."""
        while True:
            await asyncio.sleep(self.beat_s)
            try:
                await self._beat()
            except StoreUnavailable as exc:
                log.warning("node %s: heartbeat failed: %s", self.node, exc)
            except Exception:
                log.exception("node %s: heartbeat failed; trying again", self.node)
            stop_if_cancelled()

    async def _beat(self, *, since: float | None = None) -> None:
        """One heartbeat: renew the lease, note the nodes whose lease ran out, take or keep the
        lead (a dead node's lock is taken at once), and, leading, take the dead nodes' races
        over. With ``since`` (loop time), nothing if a heartbeat began after it (one at a time:
        a request that waits for a takeover shares the heartbeat another began). Raises
        `StoreUnavailable`."""
        async with self._beating:
            loop = asyncio.get_running_loop()
            if since is not None and self._beat_began >= since:
                return
            self._beat_began = loop.time()
            await self.store.heartbeat(self.lease_s)
            self._renewed = self._beat_began
            dead = set(await self.store.dead_nodes())
            for node in dead - self.dead:
                log.warning("node %s is gone (its lease ran out)", node, extra=fields("node_gone", node=node))
                self._forget_node(node)
            self.dead = dead
            # the lock lives as long as a lease and is renewed after it: once it is free, or held
            # by a node seen dead, that node's races are listed among the dead ones' already
            leading = await self.store.lead(self.lease_s, sorted(dead))
            gained = leading and not self.leading
            if self.leading and not leading:
                log.error(
                    "node %s lost the lead (it was cut off from Redis longer than its lease)",
                    self.node,
                    extra=fields("node_lost_lead", node=self.node),
                )
            self.leading = leading
            for node in dead if leading else ():
                while codes := await self.store.adopt(node, _ADOPT_BATCH):
                    log.warning(
                        "node %s takes over %d races of node %s",
                        self.node,
                        len(codes),
                        node,
                        extra=fields("races_taken_over", node=node, races=len(codes)),
                    )
                    for code in codes:
                        await self._rebuild(code)
                    if loop.time() - self._renewed > self.beat_s:  # a long takeover keeps the lease
                        await self.store.heartbeat(self.lease_s)
                        self._renewed = loop.time()
            if gained:
                log.warning(
                    "node %s leads now: it takes over the tournaments",
                    self.node,
                    extra=fields("node_leads", node=self.node),
                )
                task = loop.create_task(self.server.became_leader(), name="leads")
                task.add_done_callback(_log_leading)
                self._tasks.append(task)

    def _forget_node(self, node: str) -> None:
        """Drop the stand-ins of a dead node's connections (their clients reconnect elsewhere)."""
        for key in [key for key in self.remote if key[0] == node]:
            self.server.forget(self.remote.pop(key))
        for code in [code for code, (owner, _) in self._owners.items() if owner == node]:
            del self._owners[code]

    # -------------------------------------------------------------------------- routing

    async def route(self, session: Session, message: object) -> str | None:
        """The node to forward ``message`` to, or None to carry it out here: a race this node
        holds, one nobody holds any more (unknown, or archived: its record is in the store),
        or one this node has just taken over from a dead node (rebuilt from Redis)."""
        if session.player is None or session.remote:
            return None
        if isinstance(message, TOURNAMENT_REQUESTS):
            return await self._leader()
        if not isinstance(message, RACE_REQUESTS):
            return None
        code = message.race.upper()
        if code in self.server.races:
            return None
        loop = asyncio.get_running_loop()
        known = self._owners.get(code)
        owner: str | None
        if known is not None and known[1] > loop.time():
            owner = known[0]
        else:
            owner = await self.store.owner(code)
            if owner is None:
                return None
            self._owners[code] = (owner, loop.time() + _OWNER_TTL_S)
        if owner == self.node:  # ours (taken over, or ours before a restart) but not rebuilt yet
            await self._rebuild(code)
            return None
        if owner in self.dead:
            if await self._take_over(code, owner):
                return None
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                f"race {code} is being taken over from node {owner}, which is gone: send it again in a moment",
            )
        return owner

    async def _take_over(self, code: str, owner: str) -> bool:
        """Take race ``code`` over from ``owner``, whose lease has run out, and rebuild it here;
        False if this node may not (a tournament's deal race, and this node does not lead: the
        leader takes it) or another node took it first."""
        self._owners.pop(code, None)
        if not self.leading:
            meta = await self.store.load_race(code)
            if meta is None or not meta.get("casual", True):
                return False
        if not await self.store.claim(code, owner):
            return code in self.server.races
        await self._rebuild(code)
        return code in self.server.races

    async def _leader(self) -> str | None:
        """The leader to forward a tournament request to, or None to carry it out here (this node
        leads, or nobody does at the moment)."""
        if self.leading:
            return None
        loop = asyncio.get_running_loop()
        known = self._owners.get("")  # the leader, cached under the empty code
        if known is not None and known[1] > loop.time():
            return known[0]
        leader = await self.store.leader()
        if leader is None or leader == self.node:
            return None
        self._owners[""] = (leader, loop.time() + _OWNER_TTL_S)
        return leader

    async def _rebuild(self, code: str) -> None:
        """Bring race ``code``, owned by this node now, into memory (once, however many requests
        ask at the same time)."""
        if code in self.server.races:
            return
        waiting = self._adopting.get(code)
        if waiting is not None:
            await asyncio.shield(waiting)
            return
        done = asyncio.get_running_loop().create_future()
        self._adopting[code] = done
        try:
            if await self.server.adopt_race(code):
                self.adopted += 1
        finally:
            del self._adopting[code]
            done.set_result(None)

    def lost(self, code: str) -> None:
        """Race ``code`` is no longer this node's (another node owns it, or its log moved on):
        forget who owned it, so that the next request looks again."""
        self._owners.pop(code, None)

    # ---------------------------------------------------------------------------- lobby

    def listed(self, race: Race, listing: str | None) -> None:
        """Show ``race`` in the shared lobby as it stands now, in ``listing`` ("open", "live" or
        None); written at the end of this loop turn, once per race however often it changed."""
        self._listings[race.code] = (race, listing)
        if not self._listing_soon:
            self._listing_soon = True
            asyncio.get_running_loop().call_soon(self._write_listings)

    def _write_listings(self) -> None:
        self._listing_soon = False
        changed, self._listings = self._listings, {}
        for code, (race, listing) in changed.items():
            score = shared_score(joined_count(race.creator, race.entrants), race.created_ms, code)
            task = asyncio.get_running_loop().create_task(
                self.store.list_race(code, listing, score, encode(race.info()) if listing else b"")
            )
            task.add_done_callback(_log_failure)

    async def lobby_page(
        self, listing: str, before: int | None, count: int, skip: set[str]
    ) -> list[tuple[int, RaceInfo]]:
        """Up to ``count`` races of the shared lobby (every node's races; the order of
        `server.lobby`'s everyone's part) after the cursor ``before`` (None: from the first),
        without the codes in ``skip``: ``(cursor after it, race)``."""
        found = await self.store.lobby_page(listing, before, count, skip)
        return [(after, _race_info(info)) for after, info in found]

    # ------------------------------------------------------------------------ forwarding

    async def forward(self, node: str, session: Session, frame: bytes, message: Any) -> bool:
        """Have node ``node`` carry out ``frame`` (``message`` decoded) for ``session``, and wait
        until it has; its answers reach ``session`` through this node's inbox. True once it has;
        False if ``node`` does not listen and this node has taken the race (or the lead) over
        from it: carry the request out here.

        While it waits, a ``node`` whose lease runs out (paused: it still listens, but no longer
        beats) is taken over as one that does not listen, and False returned.

        Raises ProtocolError: ``unavailable`` if ``node`` has not answered within
        ``forward_timeout_s``, or does not listen and still holds its lease (or its race went to
        a third node); ``moved`` if ``node`` stopped listening after the request reached it
        (it may have carried it out: the client sends it again, and a move sent again gets its
        first answer). Either way any later answer from ``node`` is dropped."""
        player = session.player
        assert player is not None
        code = getattr(message, "race", "").upper()
        ticket = next(self._tickets)
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        self._pending[ticket] = done
        session.remote_nodes.add(node)
        self.forwarded += 1
        answered = False
        try:
            receivers = await self.store.publish(
                node,
                _encode(
                    [
                        _REQUEST,
                        self.node,
                        session.conn_id,
                        ticket,
                        player.token,
                        player.id,
                        player.name,
                        session.address,
                        frame,
                    ]
                ),
            )
            if receivers == 0:  # nobody got it: nothing was done for it
                if await self._owner_deaf(node, code):
                    return False
                raise ProtocolError(
                    ErrorCode.UNAVAILABLE, f"node {node}, which serves {_what(code)}, is not listening: try again"
                )
            deadline = loop.time() + self.forward_timeout_s
            while True:
                await asyncio.wait([done], timeout=max(0.0, min(self.beat_s, deadline - loop.time())))
                if done.done():
                    answered = True
                    return True
                if loop.time() >= deadline:
                    self._owners.pop(code, None)
                    raise ProtocolError(
                        ErrorCode.UNAVAILABLE,
                        f"node {node}, which serves {_what(code)}, did not answer in time: try again",
                    )
                if not await self._listens(node):
                    self._owners.pop(code, None)
                    raise ProtocolError(
                        ErrorCode.MOVED, f"node {node}, which served {_what(code)}, stopped: send it again now"
                    )
                if await self.store.lease_left(node) <= 0 and await self._owner_deaf(node, code):
                    return False  # it listens but no longer beats (paused): taken over, carried out here
        finally:
            self._pending.pop(ticket, None)
            if not answered:
                self._abandon(ticket)

    def _abandon(self, ticket: int) -> None:
        """Request ``ticket`` was answered here: drop whatever its owner still sends for it."""
        now = asyncio.get_running_loop().time()
        abandoned = self._abandoned
        for old, until in list(abandoned.items()):  # (in the order abandoned: the oldest first)
            if until > now:
                break
            del abandoned[old]
        abandoned[ticket] = now + _ABANDONED_S

    async def _listens(self, node: str) -> bool:
        """True if somebody listens on node ``node``'s inbox (one ping per node at a time,
        however many requests wait for it); True too if Redis does not answer (the forward's
        timeout decides then)."""
        asking = self._listening.get(node)
        if asking is None:
            asking = self._listening[node] = asyncio.get_running_loop().create_future()
            try:
                heard = await self.store.publish(node, _encode([_PING, self.node])) > 0
            except StoreUnavailable:
                heard = True
            finally:
                del self._listening[node]
            asking.set_result(heard)
            return heard
        return await asyncio.shield(asking)

    async def _owner_deaf(self, node: str, code: str) -> bool:
        """Node ``node``, which serves race ``code`` (the tournaments if ``code`` is empty), does
        not listen: wait out what is left of its lease (if that ends within the forward's
        timeout), beat at once, and take the race over if it is still ``node``'s. True if this
        node now holds the race (or leads, for the tournaments)."""
        loop = asyncio.get_running_loop()
        left = await self.store.lease_left(node)
        if left > self.forward_timeout_s:
            return False
        if left > 0:
            await asyncio.sleep(left + 0.005)
            if await self.store.lease_left(node) > 0:  # renewed: alive, only its inbox is away
                return False
        await self._beat(since=loop.time())
        if not code:
            return self.leading
        if code in self.server.races:
            return True
        owner = await self.store.owner(code)
        if owner == self.node:
            await self._rebuild(code)
            return code in self.server.races
        if owner != node:  # archived meanwhile (None), or a third node took it
            self._owners.pop(code, None)
            return owner is None
        return await self._take_over(code, node)

    def closed(self, session: Session) -> None:
        """A connection of this node closed: tell the nodes it sent requests to."""
        for node in session.remote_nodes:
            self._queue(node, (_GONE, session.conn_id, None, 0))

    # ---------------------------------------------------------------------- the far side

    def deliver(self, node: str, conn: int, frame: bytes, ticket: int = 0) -> None:
        """Queue ``frame`` for connection ``conn`` of node ``node`` (sent at the end of this turn
        of the event loop, with everything else queued for that node); ``ticket``: the request
        whose answer it is (0: none)."""
        self._queue(node, (_FRAMES, conn, frame, ticket))

    def _queue(self, node: str, item: tuple[int, int, bytes | None, int]) -> None:
        box = self._outbox.get(node)
        if box is None:
            box = self._outbox[node] = []
        box.append(item)
        self._wake.set()

    async def _send(self) -> None:
        """Send what was queued, one message per node per round, in order (one sender, so that a
        request's frames and its done mark never overtake each other)."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            outbox, self._outbox = self._outbox, {}
            for node, items in outbox.items():
                rest = [item for item in items if item[0] != _GONE]
                messages = [self._batch(rest)] if rest else []
                messages += [_encode([_GONE, self.node, conn]) for kind, conn, _, _ in items if kind == _GONE]
                for payload in messages:
                    try:
                        await self.store.publish(node, payload)
                    except StoreUnavailable as exc:
                        log.warning("node %s: frames for node %s lost: %s", self.node, node, exc)
            stop_if_cancelled()

    def _batch(self, items: list[tuple[int, int, bytes | None, int]]) -> bytes:
        """One message of frames and done marks, each payload in it once (a fan-out sends the
        same bytes object to every connection of an audience)."""
        frames: list[bytes] = []
        index: dict[int, int] = {}  # id(payload) -> its place in frames
        out: list[list[int]] = []
        for _, conn, frame, ticket in items:
            if frame is None:  # a done mark: (_REQUEST, ticket, None, 0)
                out.append([-1, conn])
                continue
            at = index.get(id(frame))
            if at is None:
                at = index[id(frame)] = len(frames)
                frames.append(frame)
            out.append([at, conn, ticket] if ticket else [at, conn])
        return _encode([_FRAMES, self.node, frames, out])

    async def _listen(self) -> None:
        async for payload in self.store.listen():
            try:
                message = _decode(payload)
                kind = message[0]
                if kind == _FRAMES:
                    self._arrived(message[2], message[3])
                elif kind == _REQUEST:
                    asyncio.get_running_loop().create_task(self._serve(*message[1:]))
                elif kind == _GONE:
                    session = self.remote.pop((message[1], message[2]), None)
                    if session is not None:
                        self.server.forget(session)
            except Exception:
                log.exception("node %s: a message from another node could not be handled", self.node)

    def _arrived(self, frames: list[bytes], items: list[list[int]]) -> None:
        sessions = self.server.sessions_by_conn
        abandoned = self._abandoned
        for item in items:
            at, conn = item[0], item[1]
            if at == -1:
                done = self._pending.get(conn)
                if done is not None and not done.done():
                    done.set_result(None)
                abandoned.pop(conn, None)  # (nothing more comes for it)
                continue
            if len(item) > 2 and item[2] in abandoned:  # a late answer: the client had one already
                self.late_dropped += 1
                continue
            session = sessions.get(conn)
            if session is not None:
                session.send(frames[at])

    async def _serve(
        self, node: str, conn: int, ticket: int, token: str, player_id: str, name: str, address: str, frame: bytes
    ) -> None:
        """Carry out a request forwarded by node ``node`` for its connection ``conn``, then mark
        it done; what it sends the connection meanwhile is tagged with ``ticket``."""
        self.served += 1
        serving: _Serving | None = None
        try:
            session = self.remote.get((node, conn))
            if session is None:
                session = self.remote[(node, conn)] = RemoteSession(self.server, self, node, conn, address)
            player = self.server.remote_player(token, player_id, name)
            session.player = player
            if player.session is not session:
                player.session = session
                self.server.listen(player, player)
            serving = _Serving(session, ticket)
            _serving.set(serving)  # (this task's own context)
            await self.server.receive(session, frame)
        except Exception:
            log.exception("node %s: a request forwarded by node %s failed", self.node, node)
        finally:
            if serving is not None:
                serving.active = False
            self._queue(node, (_REQUEST, ticket, None, 0))  # done


def _what(code: str) -> str:
    """What a node serves, in words: race ``code``, or the tournaments (``code`` empty)."""
    return f"race {code}" if code else "the tournaments"


def _log_leading(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("the tournaments were not taken over: %s", exc, exc_info=exc)
