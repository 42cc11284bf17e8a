"""The Redis store: races, move logs, events and records in Redis (`redis.asyncio`, hiredis parsing).

Key layout, for the key prefix ``P`` (``arena`` unless told otherwise) and a race ``CODE``. Every
key of one race, its record included, carries the hash tag ``{CODE}``, so that Redis Cluster
keeps them in one slot and one script or transaction may touch them all:

``P:race:{CODE}:meta``
    hash: the race's description (`Store.save_race`), one field per key, each value
    JSON-encoded so that ``42``, ``"42"``, ``true`` and ``null`` come back as they went in.
``P:race:{CODE}:moves:PLAYER``
    stream: the entrant's accepted moves in order, one entry per move with the fields ``s``
    (sequence number), ``m`` (notation) and ``t`` (race time, milliseconds); entry ids are
    Redis's own (so they also say when Redis stored the move).
``P:race:{CODE}:players``
    set: the players that have a move log in the race (what `archive_race` deletes).
``P:race:{CODE}:events``
    stream: the race's events, entry id ``VERSION-1`` (so ``XRANGE`` finds a version without
    a search), fields ``e`` (the entrants' frame) and ``s`` (the spectators' frame, absent when
    both audiences received the same bytes); trimmed to the last ``max_events`` entries.
``P:record:{CODE}``
    string: a finished race's encoded `server.protocol.RaceRecord`, with a time to live of
    ``keep_s`` (`archive_race`).
``P:records``
    sorted set: the codes of the kept records by when they expire (milliseconds since the
    epoch), so that at most ``max_records`` are kept; the oldest go first.
``P:races``
    set: the codes of the races with a description, saved and not archived yet
    (`Store.live_races`): the races a restarted server resumes. (It has no hash tag: the
    transactions of `save_race` and `archive_race` that change it span two slots, which a
    Redis Cluster would refuse; this store speaks to one Redis.)
``P:player:DIGEST``
    string: a player's id and display name (JSON ``{"p": ID, "n": NAME}``) under the SHA-256
    hex digest of its token (never the token itself), with a time to live (`save_player`), so
    that a hello with an old token is the same player after a restart.
``P:tournament:{TID}:meta``
    hash: a tournament's description (`Store.save_tournament`), one field per key, each value
    JSON-encoded as in a race's ``meta``.
``P:tournaments``
    set: the ids of the tournaments with a description, saved and not archived yet
    (`Store.live_tournaments`): the tournaments a restarted server resumes.
``P:schedules``
    hash: each recurring schedule's id -> its `server.protocol.CreateTournament` request,
    msgspec MessagePack (`Store.save_schedule`; its admin token is not kept).

Round trips: `append_move` one (a small script: it also replaces a last entry with the same
sequence number, see `Store.append_move`), `append_event` one, `events_since` one, `moves` one,
`save_race` one (a transaction), `load_race` one, `load_record` one, `archive_race` three or
four (a race ends once), `live_races`, `last_version`, `save_player`, `player_by_token` and
`forget_player` one each, and so is each tournament and schedule method (`save_tournament` and
`archive_tournament` are transactions).

Errors: when Redis cannot be reached, or does not answer within ``timeout_s``, every method
raises `server.store.StoreUnavailable` (an `OSError`) naming the server, so that nothing is
acknowledged that Redis does not have. The client reconnects by itself at the next command once
Redis is back: a connection that broke is tried once more at once, a timeout is not (the command
may have run; the caller refuses the request and the client may resend it).

Redis's own durability bounds ours: only with ``appendonly yes`` and ``appendfsync always`` is a
write on disk before Redis answers it. With ``everysec`` (Redis's default once the append-only
file is on) a Redis that crashes may lose the last second or two of acknowledged moves (seen in
tests/server/test_redis.py's outage test); `open` warns when Redis is set up so.

Durability: `durable` is True. A server that stops (SIGTERM, or killed) and starts again over
the same Redis resumes every casual race from it (`server.service.ArenaServer.start`, then
`server.race.Race.rebuild`): the race's description (settings, entrants, wall-clock instants),
each entrant's game replayed from its move log, its event numbering, and its players, whose
tokens still work. So a shutdown over Redis no longer ends races: their entrants are closed with
1001 and reconnect to the restarted node. Tournaments resume too
(`server.tournament.Tournament.rebuild`): their deal races as above, their entrants, scores and
status from their description, their task at the point of the schedule where it stood (an
instant that passed while no server ran is acted on at once; no deal is dealt twice or
skipped), and recurring schedules with their next occurrence. Not yet: Double or Naught rounds
and a finished race's par are not kept, and several nodes sharing one Redis (each race served by one
node at a time) are a later step too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterator

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.store import MoveEntry, Store, StoredEvent, StoredPlayer, StoreUnavailable

__all__ = ["RedisStore"]

log = logging.getLogger("arena.server")

#: Fencing, in every script that writes a race (KEYS[1]: the race's owner key; ARGV[1]: this
#: node's id): a node that is no longer the race's owner (another node took it over while this
#: one was cut off or stalled) writes nothing and is told so.
_FENCE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then
  return redis.error_reply('NOTOWNER ' .. owner)
end
"""

#: Appends one move (KEYS: owner, the move stream, the race's player set; ARGV: node, seq,
#: notation, time in ms, player). A last entry with the same seq is a write whose caller gave up
#: on it: replaced. A seq that does not follow the log's last one is refused (``BADSEQ``), so
#: that no move is ever logged twice or out of order, whichever node sends it.
_APPEND_MOVE = _FENCE + """
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
local seq = tonumber(ARGV[2])
if last then
  local last_seq = tonumber(last[2][2])
  if last_seq == seq then
    redis.call('XDEL', KEYS[2], last[1])
  elseif last_seq ~= seq - 1 then
    return redis.error_reply('BADSEQ ' .. last_seq)
  end
end
redis.call('XADD', KEYS[2], '*', 's', ARGV[2], 'm', ARGV[3], 't', ARGV[4])
redis.call('SADD', KEYS[3], ARGV[5])
return 1
"""

#: Appends one event (KEYS: owner, the event stream; ARGV: node, version, max events, the
#: entrants' frame, the spectators' frame or ''): 0 if that version is there already (a write
#: whose answer was lost, tried again).
_APPEND_EVENT = _FENCE + """
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
if last and tonumber(string.match(last[1], '^(%d+)')) >= tonumber(ARGV[2]) then
  return 0
end
if ARGV[5] == '' then
  redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], ARGV[2] .. '-1', 'e', ARGV[4])
else
  redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], ARGV[2] .. '-1', 'e', ARGV[4], 's', ARGV[5])
end
return 1
"""

#: Saves a race's description (KEYS: owner, meta; ARGV: node, then field, value pairs) and
#: makes this node its owner if it has none (a new race).
_SAVE_RACE = _FENCE + """
redis.call('DEL', KEYS[2])
if #ARGV > 1 then
  redis.call('HSET', KEYS[2], unpack(ARGV, 2))
end
if not owner then
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
"""

#: Takes a race over (KEYS: owner; ARGV: the owner it must have now, '' for none, then the new
#: one): 1 if it did.
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if (owner or '') ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""


class StaleRace(StoreUnavailable):
    """The race ``code`` in this node's memory no longer matches Redis: nothing was written, the
    race must leave this node's memory (rebuilt from Redis when next asked for), and the
    client's request is refused with ``unavailable`` (sent again, it finds the race as Redis has
    it)."""

    def __init__(self, code: str, why: str) -> None:
        super().__init__(f"race {code}: {why}")
        self.code = code


class NotOwner(StaleRace):
    """This node no longer owns race ``code``: node ``owner`` took it over (this node's lease
    lapsed while it was cut off from Redis or stalled)."""

    def __init__(self, code: str, owner: str) -> None:
        super().__init__(code, f"now served by node {owner}")
        self.owner = owner


class RedisStore(Store):
    """Keeps races, move logs, the last ``max_events`` events of each race, and the records of
    archived races in the Redis at ``url`` (``redis://HOST:PORT/DB``, ``rediss://`` for TLS,
    ``unix:///path/to/socket``); raises ValueError for a URL redis-py cannot read.

    ``prefix`` (default ``arena``) starts every key, so that several servers or tests can share
    one Redis. ``timeout_s`` (seconds, default 1) bounds connecting and each command; a move
    waits at most about twice that before it is refused (one fresh connection is tried when a
    pooled one turns out broken). ``max_events`` and ``max_records`` as in
    `server.store.memory.MemoryStore` (defaults 10,000 events per race and 100,000 records).
    Connect with `open` (the server does, before it listens) and let go with `close`.
    """

    durable = True  # a restarted server resumes its races from here (`Store.live_races`)

    def __init__(self, url: str, *, prefix: str = "arena", timeout_s: float = 1.0, max_events: int = 10_000,
                 max_records: int = 100_000, node_id: str = "node") -> None:
        self._redis = aioredis.Redis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        )
        kwargs = self._redis.connection_pool.connection_kwargs
        self.where = (f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}/{kwargs.get('db', 0)}"
                      if "path" not in kwargs else f"{kwargs['path']} (db {kwargs.get('db', 0)})")
        self.prefix = prefix
        self.max_events = max_events
        self.max_records = max_records
        self.node_id = node_id
        self._append_move = self._redis.register_script(_APPEND_MOVE)
        self._append_event = self._redis.register_script(_APPEND_EVENT)
        self._save_race = self._redis.register_script(_SAVE_RACE)
        self._claim = self._redis.register_script(_CLAIM)

    def __str__(self) -> str:
        return f"redis {self.where}, key prefix {self.prefix!r}"

    # ---------------------------------------------------------------------------- keys

    def _race_key(self, code: str, part: str) -> str:
        return f"{self.prefix}:race:{{{code}}}:{part}"

    def _record_key(self, code: str) -> str:
        return f"{self.prefix}:record:{{{code}}}"

    def _node_key(self, node: str, part: str = "") -> str:
        return f"{self.prefix}:node:{{{node}}}{':' + part if part else ''}"

    def _player_key(self, token_digest: str) -> str:
        return f"{self.prefix}:player:{token_digest}"

    # --------------------------------------------------------------------- connection

    @contextlib.contextmanager
    def _reaching(self, code: str | None = None) -> Iterator[None]:
        """Turn Redis being away (refused, reset, timed out, still loading its data) into
        `StoreUnavailable`, and a fenced script's refusal for race ``code`` into `NotOwner` or
        `StaleRace`."""
        try:
            yield
        except ResponseError as exc:
            text = str(exc)
            if code is not None and text.startswith("NOTOWNER "):
                raise NotOwner(code, text.split(" ", 1)[1]) from None
            if code is not None and text.startswith("BADSEQ "):
                raise StaleRace(code, f"its move log ends at another move ({text})") from None
            raise
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            if isinstance(exc, StoreUnavailable):
                raise
            why = str(exc) or type(exc).__name__
            raise StoreUnavailable(f"Redis at {self.where} is unavailable: {why}") from exc

    async def open(self) -> None:
        """Check that Redis answers (raises `StoreUnavailable`), and warn if it may lose
        acknowledged writes when it crashes (not ``appendonly yes`` with ``appendfsync always``)."""
        with self._reaching():
            await self._redis.ping()
            try:
                settings = await self._redis.config_get("append*")
            except ResponseError:  # CONFIG is often turned off on managed Redis: nothing to check
                return
        appendonly, appendfsync = (_text(settings.get(name, "?")) for name in ("appendonly", "appendfsync"))
        if (appendonly, appendfsync) != ("yes", "always"):
            log.warning("Redis at %s has appendonly %s, appendfsync %s: if it crashes it may lose moves already "
                        "acknowledged (set appendonly yes and appendfsync always)", self.where, appendonly, appendfsync)

    async def close(self) -> None:
        await self._redis.aclose()

    # -------------------------------------------------------------------------- nodes

    async def owner(self, code: str) -> str | None:
        """The id of the node that serves race ``code``, or None (no such race, or archived)."""
        with self._reaching():
            owner = await self._redis.get(self._race_key(code, "owner"))
        return owner.decode() if owner is not None else None

    async def claim(self, code: str, expected: str | None) -> bool:
        """Make this node the owner of race ``code`` if its owner is still ``expected`` (None:
        none); False if another node changed it first. The race joins this node's races."""
        with self._reaching():
            taken = await self._claim(keys=[self._race_key(code, "owner")], args=[expected or "", self.node_id])
            if taken:
                await self._redis.sadd(self._node_key(self.node_id, "races"), code)
        return bool(taken)

    async def heartbeat(self, lease_s: float) -> None:
        """Say that this node is alive for the next ``lease_s`` seconds (its lease: while it
        holds, no other node takes its races over), and list it among the nodes."""
        with self._reaching():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(self._node_key(self.node_id), b"1", px=max(1, round(lease_s * 1000)))
                pipe.sadd(f"{self.prefix}:nodes", self.node_id)
                await pipe.execute()

    async def release(self) -> None:
        """Give up this node's lease at once (a graceful shutdown): the other nodes take its races
        over at their next look instead of when the lease would have run out."""
        with self._reaching():
            await self._redis.delete(self._node_key(self.node_id))

    async def dead_nodes(self) -> list[str]:
        """The listed nodes whose lease has run out (one round trip per listed node, in one
        pipeline: there are a handful)."""
        with self._reaching():
            listed = [n.decode() for n in await self._redis.smembers(f"{self.prefix}:nodes")]
            others = [n for n in listed if n != self.node_id]
            if not others:
                return []
            async with self._redis.pipeline(transaction=False) as pipe:
                for node in others:
                    pipe.exists(self._node_key(node))
                alive = await pipe.execute()
        return [node for node, up in zip(others, alive) if not up]

    async def adopt(self, dead: str, count: int) -> list[str]:
        """Take over up to ``count`` races of the dead node ``dead`` (each one by one node only:
        the first to pop it from the dead node's set, then to change its owner); the codes taken.
        Once the dead node has no race left it is no longer listed."""
        with self._reaching():
            popped = await self._redis.spop(self._node_key(dead, "races"), count)
            taken = []
            for raw in popped or ():
                code = raw.decode()
                if await self.claim(code, dead):
                    taken.append(code)
            if not popped:
                await self._redis.srem(f"{self.prefix}:nodes", dead)
        return taken

    def inbox_channel(self, node: str) -> str:
        """The sharded pub/sub channel on which node ``node`` receives what other nodes send it."""
        return self._node_key(node, "inbox")

    async def publish(self, node: str, payload: bytes) -> None:
        """Send ``payload`` to node ``node`` (at most once: lost if it is not listening now)."""
        with self._reaching():
            await self._redis.spublish(self.inbox_channel(node), payload)

    async def listen(self) -> AsyncIterator[bytes]:
        """What other nodes send this node, as it arrives, forever; while Redis is away it waits
        and subscribes again (what was sent meanwhile is lost: the senders time out)."""
        channel = self.inbox_channel(self.node_id)
        while True:
            pubsub = self._redis.pubsub()
            try:
                await pubsub.ssubscribe(channel)
                while True:
                    message = await pubsub.get_sharded_message(timeout=None) if hasattr(
                        pubsub, "get_sharded_message") else await pubsub.get_message(timeout=None)
                    if message is not None and message.get("type") in ("smessage", "message"):
                        yield message["data"]
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                log.warning("node %s: lost its inbox at Redis %s (%s); subscribing again", self.node_id, self.where,
                            exc)
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    # -------------------------------------------------------------------------- races

    async def save_race(self, code: str, meta: dict[str, object]) -> None:
        """As `Store.save_race`; a new race becomes this node's (its owner key, and this node's
        set of races). Raises `NotOwner` if another node owns it."""
        pairs = [x for k, v in meta.items() for x in (k, msgspec.json.encode(v))]
        with self._reaching(code):
            await self._save_race(keys=[self._race_key(code, "owner"), self._race_key(code, "meta")],
                                  args=[self.node_id, *pairs])
            if meta:
                await self._redis.sadd(self._node_key(self.node_id, "races"), code)

    async def load_race(self, code: str) -> dict[str, object] | None:
        with self._reaching():
            fields = await self._redis.hgetall(self._race_key(code, "meta"))
        if not fields:
            return None
        return {k.decode(): msgspec.json.decode(v) for k, v in fields.items()}

    async def live_races(self) -> list[str]:
        """As `Store.live_races`, for this node: the races it owns (a node that restarts under
        the same id resumes its own; the others' go to their owners, or to whoever takes over a
        dead node's races, `RedisNodes.adopt`)."""
        with self._reaching():
            codes = await self._redis.smembers(self._node_key(self.node_id, "races"))
        return [c.decode() for c in codes]

    async def last_version(self, code: str) -> int:
        with self._reaching():
            last = await self._redis.xrevrange(self._race_key(code, "events"), count=1)
        return int(last[0][0].split(b"-", 1)[0]) if last else 0

    async def save_player(self, player: str, token_digest: str, name: str, keep_s: float) -> None:
        with self._reaching():
            await self._redis.set(self._player_key(token_digest), msgspec.json.encode({"p": player, "n": name}),
                                  px=max(1, round(keep_s * 1000)))

    async def player_by_token(self, token_digest: str) -> StoredPlayer | None:
        with self._reaching():
            kept = await self._redis.get(self._player_key(token_digest))
        if kept is None:
            return None
        fields = msgspec.json.decode(kept)
        return StoredPlayer(fields["p"], fields["n"])

    async def forget_player(self, token_digest: str) -> None:
        with self._reaching():
            await self._redis.delete(self._player_key(token_digest))

    async def append_move(self, code: str, player: str, entry: MoveEntry) -> None:
        """As `Store.append_move`; raises `NotOwner` if another node owns the race now, and
        `StaleRace` if the log's last move is neither ``entry.seq`` nor the one before it."""
        keys = [self._race_key(code, "owner"), self._race_key(code, f"moves:{player}"),
                self._race_key(code, "players")]
        with self._reaching(code):
            await self._append_move(keys=keys, args=[self.node_id, entry.seq, entry.move, entry.time_ms, player])

    async def moves(self, code: str, player: str) -> list[MoveEntry]:
        with self._reaching():
            entries = await self._redis.xrange(self._race_key(code, f"moves:{player}"))
        return [MoveEntry(int(f[b"s"]), f[b"m"].decode(), int(f[b"t"])) for _, f in entries]

    async def append_event(self, code: str, event: StoredEvent) -> None:
        """As `Store.append_event` (a version stored already is left as it is: a write whose
        answer was lost, tried again); raises `NotOwner` if another node owns the race now."""
        spectator = b"" if event.spectator_frame == event.entrant_frame else event.spectator_frame
        with self._reaching(code):
            await self._append_event(keys=[self._race_key(code, "owner"), self._race_key(code, "events")],
                                     args=[self.node_id, event.version, self.max_events, event.entrant_frame,
                                           spectator])

    async def events_since(self, code: str, since: int, limit: int | None = None) -> list[StoredEvent] | None:
        """As `Store.events_since`; also None when an event in the range is missing (one that
        could not be stored while Redis was away), so that the caller sends a snapshot."""
        start = f"{since + 1}-0" if since + 1 >= 0 else "-"
        with self._reaching():
            entries = await self._redis.xrange(self._race_key(code, "events"), min=start,
                                               count=None if limit is None else max(1, limit))
        if not entries:
            return [] if since >= 0 else None
        events = []
        for expected, (entry_id, fields) in enumerate(entries, start=since + 1):
            version = int(entry_id.split(b"-", 1)[0])
            if version != expected:
                return None  # trimmed away, or never stored
            entrant_frame = fields[b"e"]
            events.append(StoredEvent(version, entrant_frame, fields.get(b"s", entrant_frame)))
        return events if limit is None else events[:limit]

    async def archive_race(self, code: str, record: bytes | None, keep_s: float) -> None:
        """As `Store.archive_race`. Raises `NotOwner` if another node owns the race now; does
        nothing if the race is archived already (by a node that owned it before: its record, made
        while the move logs were still there, stands)."""
        players_key = self._race_key(code, "players")
        with self._reaching():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.get(self._race_key(code, "owner"))
                pipe.exists(self._race_key(code, "meta"))
                pipe.exists(self._record_key(code))
                pipe.smembers(players_key)
                owner, described, archived, players = await pipe.execute()
            if owner is not None and owner.decode() != self.node_id:
                raise NotOwner(code, owner.decode())
            if archived and not described:
                await self._redis.srem(self._node_key(self.node_id, "races"), code)
                return
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.delete(self._race_key(code, "meta"), self._race_key(code, "events"), players_key,
                            self._race_key(code, "owner"),
                            *(self._race_key(code, f"moves:{p.decode()}") for p in players))
                if record is not None and keep_s > 0:
                    pipe.set(self._record_key(code), record, px=max(1, round(keep_s * 1000)))
                await pipe.execute()
            await self._redis.srem(self._node_key(self.node_id, "races"), code)
            if record is None or keep_s <= 0:
                return
            index = f"{self.prefix}:records"
            now_ms = time.time() * 1000
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zadd(index, {code: now_ms + keep_s * 1000})
                pipe.zremrangebyscore(index, "-inf", now_ms)  # their keys expired by themselves
                pipe.zcard(index)
                *_, kept = await pipe.execute()
            if kept > self.max_records:
                oldest = await self._redis.zpopmin(index, kept - self.max_records)
                async with self._redis.pipeline(transaction=False) as pipe:
                    for old, _ in oldest:
                        pipe.delete(self._record_key(old.decode()))  # one by one: each has its own slot
                    await pipe.execute()

    async def load_record(self, code: str) -> bytes | None:
        with self._reaching():
            return await self._redis.get(self._record_key(code))

    # -------------------------------------------------------------------- tournaments

    def _tournament_key(self, tournament_id: str) -> str:
        return f"{self.prefix}:tournament:{{{tournament_id}}}:meta"

    @property
    def _tournaments_key(self) -> str:
        return f"{self.prefix}:tournaments"

    @property
    def _schedules_key(self) -> str:
        return f"{self.prefix}:schedules"

    async def save_tournament(self, tournament_id: str, meta: dict[str, object]) -> None:
        key = self._tournament_key(tournament_id)
        with self._reaching():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.delete(key)
                if meta:
                    pipe.hset(key, mapping={k: msgspec.json.encode(v) for k, v in meta.items()})
                    pipe.sadd(self._tournaments_key, tournament_id)
                await pipe.execute()

    async def load_tournament(self, tournament_id: str) -> dict[str, object] | None:
        with self._reaching():
            fields = await self._redis.hgetall(self._tournament_key(tournament_id))
        if not fields:
            return None
        return {k.decode(): msgspec.json.decode(v) for k, v in fields.items()}

    async def live_tournaments(self) -> list[str]:
        with self._reaching():
            ids = await self._redis.smembers(self._tournaments_key)
        return [i.decode() for i in ids]

    async def archive_tournament(self, tournament_id: str) -> None:
        with self._reaching():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.delete(self._tournament_key(tournament_id))
                pipe.srem(self._tournaments_key, tournament_id)
                await pipe.execute()

    async def save_schedule(self, schedule_id: str, message: bytes) -> None:
        with self._reaching():
            await self._redis.hset(self._schedules_key, schedule_id, message)

    async def schedules(self) -> dict[str, bytes]:
        with self._reaching():
            kept = await self._redis.hgetall(self._schedules_key)
        return {k.decode(): v for k, v in kept.items()}

    async def drop_schedule(self, schedule_id: str) -> None:
        with self._reaching():
            await self._redis.hdel(self._schedules_key, schedule_id)


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
