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

Round trips: `append_move` one (a small script: it also replaces a last entry with the same
sequence number, see `Store.append_move`), `append_event` one, `events_since` one, `moves` one,
`save_race` one (a transaction), `load_race` one, `load_record` one, `archive_race` three or
four (a race ends once), `live_races`, `last_version`, `save_player`, `player_by_token` and
`forget_player` one each.

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
1001 and reconnect to the restarted node. Not yet: a tournament's races are left in Redis as
they are (tournaments resume in a later step of issue 12), Double or Naught rounds and a
finished race's par are not kept, and several nodes sharing one Redis (each race served by one
node at a time) are a later step too.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator

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

#: Appends one move (KEYS: the move stream, the race's player set; ARGV: seq, notation, time in
#: ms, player). A last entry with the same seq is a write whose caller gave up on it: replaced.
_APPEND_MOVE = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
if last and last[2][2] == ARGV[1] then
  redis.call('XDEL', KEYS[1], last[1])
end
redis.call('XADD', KEYS[1], '*', 's', ARGV[1], 'm', ARGV[2], 't', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
return 1
"""


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
                 max_records: int = 100_000) -> None:
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
        self._append_move = self._redis.register_script(_APPEND_MOVE)

    def __str__(self) -> str:
        return f"redis {self.where}, key prefix {self.prefix!r}"

    # ---------------------------------------------------------------------------- keys

    def _race_key(self, code: str, part: str) -> str:
        return f"{self.prefix}:race:{{{code}}}:{part}"

    def _record_key(self, code: str) -> str:
        return f"{self.prefix}:record:{{{code}}}"

    @property
    def _races_key(self) -> str:
        return f"{self.prefix}:races"

    def _player_key(self, token_digest: str) -> str:
        return f"{self.prefix}:player:{token_digest}"

    # --------------------------------------------------------------------- connection

    @contextlib.contextmanager
    def _reaching(self) -> Iterator[None]:
        """Turn Redis being away (refused, reset, timed out, still loading its data) into
        `StoreUnavailable`."""
        try:
            yield
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

    # -------------------------------------------------------------------------- races

    async def save_race(self, code: str, meta: dict[str, object]) -> None:
        key = self._race_key(code, "meta")
        with self._reaching():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.delete(key)
                if meta:
                    pipe.hset(key, mapping={k: msgspec.json.encode(v) for k, v in meta.items()})
                    pipe.sadd(self._races_key, code)
                await pipe.execute()

    async def load_race(self, code: str) -> dict[str, object] | None:
        with self._reaching():
            fields = await self._redis.hgetall(self._race_key(code, "meta"))
        if not fields:
            return None
        return {k.decode(): msgspec.json.decode(v) for k, v in fields.items()}

    async def live_races(self) -> list[str]:
        with self._reaching():
            codes = await self._redis.smembers(self._races_key)
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
        keys = [self._race_key(code, f"moves:{player}"), self._race_key(code, "players")]
        with self._reaching():
            await self._append_move(keys=keys, args=[entry.seq, entry.move, entry.time_ms, player])

    async def moves(self, code: str, player: str) -> list[MoveEntry]:
        with self._reaching():
            entries = await self._redis.xrange(self._race_key(code, f"moves:{player}"))
        return [MoveEntry(int(f[b"s"]), f[b"m"].decode(), int(f[b"t"])) for _, f in entries]

    async def append_event(self, code: str, event: StoredEvent) -> None:
        fields = {"e": event.entrant_frame}
        if event.spectator_frame != event.entrant_frame:
            fields["s"] = event.spectator_frame
        try:
            with self._reaching():
                await self._redis.xadd(self._race_key(code, "events"), fields, id=f"{event.version}-1",
                                       maxlen=self.max_events, approximate=False)
        except ResponseError as exc:
            if "equal or smaller" not in str(exc):
                raise
            # That version is there already: a write whose answer was lost, tried again.

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
        players_key = self._race_key(code, "players")
        with self._reaching():
            players = await self._redis.smembers(players_key)
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.delete(self._race_key(code, "meta"), self._race_key(code, "events"), players_key,
                            *(self._race_key(code, f"moves:{p.decode()}") for p in players))
                pipe.srem(self._races_key, code)
                if record is not None and keep_s > 0:
                    pipe.set(self._record_key(code), record, px=max(1, round(keep_s * 1000)))
                await pipe.execute()
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


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value
