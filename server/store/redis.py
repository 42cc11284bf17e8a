"""The Redis store: races, move logs, events and records in Redis (`redis.asyncio`, hiredis parsing).

Key layout, for the key prefix ``P`` (``arena`` unless told otherwise) and a race ``CODE``. Every
key of one race, its record included, carries the hash tag ``{CODE}``, so that Redis Cluster
keeps them in one slot and one script may touch them all (below: what a cluster changes):

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
``P:race:{CODE}:owner``
    string: the id of the node that serves the race (set when the race is first saved, changed
    only by `claim` when another node takes it over); every script that writes the race checks
    it first, so that a node that lost the race writes nothing (`NotOwner`).
``P:node:{NODE}``
    string: node ``NODE``'s lease, with a time to live (`heartbeat`); gone: the node is dead.
``P:node:{NODE}:races``
    set: the races node ``NODE`` owns and has not archived (`live_races`, `adopt`).
``P:node:{NODE}:inbox``
    sharded pub/sub channel: what other nodes send node ``NODE`` (`publish`, `listen`).
``P:nodes``
    set: every node id seen (so that a dead one's races are found).
``P:lobby:open``, ``P:lobby:live``
    sorted sets: the shared lobby, race codes by their place (`server.lobby.shared_score`:
    entrants joined, then creation instant, then 4 bits of the code; `list_race`,
    `lobby_page`), kept by each race's owner.
``P:race:{CODE}:info``
    string: the race as the lobby shows it (an encoded `server.protocol.RaceInfo`).
``P:leader``
    string: the leader lock, the leader's node id with a time to live (`lead`).
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
``P:marker``
    string: a random value the first node writes and every node remembers; gone or changed,
    Redis lost its data (`check_data`).

In a Redis Cluster (``redis+cluster://HOST:PORT,HOST:PORT``: `cluster_seeds`) the keys are the
same. A race's keys hash to the slot of ``{CODE}``, a node's to that of ``{NODE}``, a
tournament's to that of ``{TID}``: each script touches one of these groups only, so it runs
whole on the one master of that slot, and races spread over the masters. The keys without a
hash tag (``P:records``, ``P:nodes``, ``P:lobby:*``, ``P:leader``, ``P:tournaments``, ``P:marker``,
``P:schedules``, ``P:player:DIGEST``) each lie in a slot of their own. Nothing here is atomic
across two slots, and no transaction (MULTI/EXEC) is used, in a cluster or not: a method that
writes a race's or a tournament's keys and one of those does it in separate steps, in an order
that a server stopped between them cannot turn into a loss (`archive_race` drops the race and
keeps its record in one script, then leaves the node's set and the records' index;
`save_tournament` lists before it describes, `archive_tournament` undescribes before it
unlists). A pipeline may still span slots (the client sends each master its part, with no order
between masters). A node's inbox ``P:node:{NODE}:inbox`` is a sharded channel (``SPUBLISH``,
``SSUBSCRIBE``): only the master of ``{NODE}``'s slot carries it, so the nodes' traffic spreads
over the masters as the nodes do, and `listen` subscribes again wherever that slot is served
after a failover. `open` checks the durability settings of every master.

Writes of moves and events are batched: `append_move`, `append_event` and `queue_event` stage
their write, and at the next loop turn every staged write goes in one pipeline, one script call
per race (`_WRITE_RACE`: the race's queued events and its move together), so that under
``appendfsync always`` a batch costs one fsync, and a move's answer waits for one round trip;
`queue_event` (a published event) does not wait at all. One batch is in flight at a time. A
move whose seq does not follow its entrant's stored log is refused (an empty log takes move 1
only): a log that ends early means Redis lost moves (`LostMoves`, reported).

Lost data is looked for as it happens, not at the next start: every `watch_s` seconds the store
reads Redis's run id (``INFO server``); when it changed (Redis restarted), or Redis answers again
after an outage, `check_data` compares what Redis holds with what this node wrote: the marker
``P:marker`` (a random value written once; gone: Redis restarted empty) and, for each race, the
last move of each entrant it answered. A loss is logged (ERROR, event ``store_data_lost``),
counted (``arena_store_data_lost_total``) and handed to `Store.on_data_loss`.

Round trips: `append_move` one (shared with the writes of its loop turn), `append_event` one
(likewise), `events_since` one, `moves` one,
`save_race` two (a script, then the node's set), `load_race` one, `load_record` one,
`archive_race` three (its entrants, the script, a pipeline; five when old records must go: a
race ends once), `live_races`, `last_version`, `save_player`, `player_by_token` and
`forget_player` one each, and so is each tournament and schedule method but `save_tournament`
and `archive_tournament` (two each).

Errors: when Redis cannot be reached, or does not answer within ``timeout_s``, every method
raises `server.store.StoreUnavailable` (an `OSError`) naming the server, so that nothing is
acknowledged that Redis does not have. The client reconnects by itself at the next command once
Redis is back: a connection that broke is tried once more at once, a timeout is not (the command
may have run; the caller refuses the request and the client may resend it). In a cluster, also
a cluster that is down (``CLUSTERDOWN``: a master failed and no replica took over yet) or a
slot that no master serves raises it; and a broken connection or a timeout is tried once more,
after the client has asked the cluster which master serves the slot now (every script is safe to
run twice: a move or event stored already is kept once, a claim made already answers True).

Redis's own durability bounds ours: only with ``appendonly yes`` and ``appendfsync always`` is a
write on disk before Redis answers it. With ``everysec`` (Redis's default once the append-only
file is on) a Redis that crashes may lose the last second or two of acknowledged moves (seen in
tests/server/test_redis.py's outage test); `open` warns when Redis is set up so.

Durability: `durable` is True. A server that stops (SIGTERM, or killed) and starts again over
the same Redis resumes every casual race from it (`server.app.ArenaServer.start`, then
`server.race.Race.rebuild`): the race's description (settings, entrants, wall-clock instants),
each entrant's game replayed from its move log, its event numbering, and its players, whose
tokens still work. So a shutdown over Redis no longer ends races: their entrants are closed with
1001 and reconnect to the restarted node. Tournaments resume too
(`server.tournament.Tournament.rebuild`): their deal races as above, their entrants, scores and
status from their description, their task at the point of the schedule where it stood (an
instant that passed while no server ran is acted on at once; no deal is dealt twice or
skipped), and recurring schedules with their next occurrence. Not yet: Double or Naught rounds
and a finished race's par are not kept. Several nodes share one Redis as server/nodes.py
describes: each race is served by its owner, and a dead node's races are taken over.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import secrets
import time
import urllib.parse
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import NamedTuple, TypedDict, cast

import msgspec
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, ClusterPubSub, RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import (
    ClusterError,
    NoScriptError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.logs import fields as log_fields
from server.stopping import cancel_and_wait, stop_if_cancelled
from server.store import (
    DataLoss,
    LostMoves,
    MoveEntry,
    StaleRace,
    Store,
    StoredEvent,
    StoredPlayer,
    StoreUnavailable,
)

__all__ = ["CLUSTER_SCHEMES", "SENTINEL_SCHEMES", "RedisStore", "SentinelService", "cluster_seeds", "sentinel_service"]

log = logging.getLogger("arena.server")

#: The URL schemes that name a Redis Cluster, each with the scheme of one of its nodes.
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
#: The URL schemes that name a primary watched by Redis Sentinel (``rediss+sentinel``: TLS to the
#: primary; the Sentinels themselves are asked in plain text).
SENTINEL_SCHEMES = {"redis+sentinel": "redis", "rediss+sentinel": "rediss"}

#: Reply shapes, as this store's clients give them. redis-py types each reply for a client that may
#: decode its strings (``bytes | str``; looser still for streams and sorted sets), but these clients
#: never do (no ``decode_responses``): every string in a reply is bytes. The reads cast to these
#: (`RedisStore._get`, `RedisStore._smembers` and `RedisStore._hgetall` to their own) to say so.
_Stream = list[tuple[bytes, dict[bytes, bytes]]]  # XRANGE, XREVRANGE: (entry id, fields)
_Scored = list[tuple[bytes, float]]  # ZREVRANGEBYSCORE ... WITHSCORES, ZPOPMIN: (member, score)
_TIE_BITS = 10  # a lobby cursor: the score above, how many races of that score were shown below


class _ClientOptions(TypedDict):
    """What `RedisStore` tells redis-py's client, single or cluster."""

    socket_timeout: float
    socket_connect_timeout: float
    retry: Retry


#: How redis-py's cluster client says that it could not reach or map the cluster (a plain
#: RedisClusterException, which it also raises for mistakes in a command).
_CLUSTER_AWAY = (
    "Redis Cluster cannot be connected",
    "Cluster mode is not enabled",
    "All slots are not covered",
    "startup_nodes could not agree",
    "No targets were found",
)


def cluster_seeds(url: str) -> list[tuple[str, int]] | None:
    """The seed nodes of a Redis Cluster URL, ``redis+cluster://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]``
    (``rediss+cluster://`` for TLS; a port left out is 6379; a path, if any, is ``/0``: a
    cluster has one database), or None for any other URL (one Redis). Any seed that answers is
    enough: the client learns the rest of the cluster from it. Raises ValueError saying what is
    wrong with a cluster URL (never quoting its password).

    >>> cluster_seeds("redis+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]")
    [('10.0.0.1', 7000), ('10.0.0.2', 7001), ('::1', 6379)]
    >>> cluster_seeds("redis://127.0.0.1:6379/0") is None
    True
    >>> cluster_seeds("rediss+cluster://user:secret@10.0.0.1:7000/1")
    Traceback (most recent call last):
    ...
    ValueError: a Redis Cluster has database 0 only, not '/1'
    >>> cluster_seeds("redis+cluster://10.0.0.1:7000,10.0.0.2:port")
    Traceback (most recent call last):
    ...
    ValueError: a Redis Cluster URL lists HOST:PORT,HOST:PORT...: not '10.0.0.2:port'
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in CLUSTER_SCHEMES or "://" not in url:
        return None
    seeds = []
    for item in parts.netloc.rpartition("@")[2].split(","):
        try:
            seed = urllib.parse.urlsplit("//" + item.strip())
            host, port = seed.hostname, seed.port or 6379
        except ValueError:
            host = None
        if not host or seed.path or seed.username is not None:
            raise ValueError(f"a Redis Cluster URL lists HOST:PORT,HOST:PORT...: not {item.strip()!r}")
        seeds.append((host, port))
    if parts.path not in ("", "/", "/0"):
        raise ValueError(f"a Redis Cluster has database 0 only, not {parts.path!r}")
    return seeds


class SentinelService(NamedTuple):
    """What a ``redis+sentinel://`` URL names: the Sentinels to ask (host, port), the name of
    the primary they watch, its database, and the primary's user, password and TLS."""

    sentinels: list[tuple[str, int]]
    master: str
    db: int
    username: str | None
    password: str | None
    tls: bool


def sentinel_service(url: str) -> SentinelService | None:
    """The Sentinels and primary of a Redis Sentinel URL,
    ``redis+sentinel://[USER:PASSWORD@]HOST:PORT[,HOST:PORT...]/MASTER[/DB]`` (a port left out
    is 26379, Sentinel's; ``rediss+sentinel://`` for TLS to the primary; USER and PASSWORD are
    the primary's), or None for any other URL. Any Sentinel that answers is enough. Raises
    ValueError saying what is wrong with a Sentinel URL (never quoting its password).

    >>> sentinel_service("redis+sentinel://10.0.0.1,10.0.0.2:26380/arena/2")[:3]
    ([('10.0.0.1', 26379), ('10.0.0.2', 26380)], 'arena', 2)
    >>> sentinel_service("redis://127.0.0.1:6379/0") is None
    True
    >>> sentinel_service("redis+sentinel://:secret@10.0.0.1:26379")
    Traceback (most recent call last):
    ...
    ValueError: a Redis Sentinel URL names the primary after the Sentinels: redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]
    """
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in SENTINEL_SCHEMES or "://" not in url:
        return None
    userinfo, _, hosts = parts.netloc.rpartition("@")
    sentinels = []
    for item in hosts.split(","):
        try:
            seed = urllib.parse.urlsplit("//" + item.strip())
            host, port = seed.hostname, seed.port or 26379
        except ValueError:
            host = None
        if not host or seed.path or seed.username is not None:
            raise ValueError(f"a Redis Sentinel URL lists HOST:PORT,HOST:PORT...: not {item.strip()!r}")
        sentinels.append((host, port))
    master, _, db = parts.path.strip("/").partition("/")
    if not master:
        raise ValueError(
            "a Redis Sentinel URL names the primary after the Sentinels: "
            "redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]"
        )
    if not (db or "0").isdigit():
        raise ValueError(f"a Redis Sentinel URL ends with the database's number: not {db!r}")
    if parts.query:
        raise ValueError("a Redis Sentinel URL takes no query (?...)")
    username, colon, password = userinfo.partition(":")
    return SentinelService(
        sentinels,
        urllib.parse.unquote(master),
        int(db or "0"),
        urllib.parse.unquote(username) or None,
        urllib.parse.unquote(password) if colon else None,
        parts.scheme == "rediss+sentinel",
    )


def _cluster_client(url: str, seeds: list[tuple[str, int]] | None, **options: object) -> RedisCluster:
    """redis-py's cluster client for ``url`` with the seeds ``cluster_seeds`` found in it (None:
    a plain ``redis://`` or ``rediss://`` URL naming one node of the cluster)."""
    if seeds is None:
        return RedisCluster.from_url(url, **options)
    parts = urllib.parse.urlsplit(url)
    userinfo, at, _ = parts.netloc.rpartition("@")
    host, port = seeds[0]
    netloc = f"{userinfo}{at}{f'[{host}]' if ':' in host else host}:{port}"
    first = urllib.parse.urlunsplit((CLUSTER_SCHEMES[parts.scheme], netloc, parts.path, parts.query, ""))
    return RedisCluster.from_url(first, startup_nodes=[ClusterNode(h, p) for h, p in seeds[1:]], **options)


#: Fencing, in every script that writes a race (KEYS[1]: the race's owner key; ARGV[1]: this
#: node's id): a node that is no longer the race's owner (another node took it over while this
#: one was cut off or stalled) writes nothing and is told so.
_FENCE = """
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then
  return redis.error_reply('NOTOWNER ' .. owner)
end
"""

#: Writes a race's moves and events, in order, in one call (KEYS: owner, the event stream, the
#: race's player set, then one move stream per move; ARGV: node, max events, then each write:
#: ``e VERSION ENTRANTS SPECTATORS`` (the spectators' frame '' when it is the entrants') or
#: ``m KEY SEQ NOTATION TIME PLAYER VERSION`` (KEY: the index of the move's stream in KEYS;
#: VERSION: its event's, `MoveEntry.version`)); one reply
#: per write, in order. An event: ``1``, or ``0`` if that version is there already (a write whose
#: answer was lost, tried again). A move: ``OK``; a last entry with the same seq is a write whose
#: caller gave up on it: replaced; a seq that does not follow the log's last one is refused, so
#: that no move is ever logged twice, out of order, or after a gap, whichever node sends it:
#: ``LOSTMOVES LAST`` when the log ends before the move it follows (an empty one included: Redis
#: lost moves), ``BADSEQ LAST`` when it ends after it (another writer went on).
_WRITE_RACE = (
    _FENCE
    + """
local replies = {}
local i = 3
while i <= #ARGV do
  if ARGV[i] == 'e' then
    local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
    if last and tonumber(string.match(last[1], '^(%d+)')) >= tonumber(ARGV[i + 1]) then
      replies[#replies + 1] = 0
    elseif ARGV[i + 3] == '' then
      redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], ARGV[i + 1] .. '-1', 'e', ARGV[i + 2])
      replies[#replies + 1] = 1
    else
      redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[2], ARGV[i + 1] .. '-1', 'e', ARGV[i + 2], 's', ARGV[i + 3])
      replies[#replies + 1] = 1
    end
    i = i + 4
  else
    local key = KEYS[tonumber(ARGV[i + 1])]
    local seq = tonumber(ARGV[i + 2])
    local last = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)[1]
    local last_seq = 0
    if last then
      last_seq = tonumber(last[2][2])
    end
    if last and last_seq == seq then
      redis.call('XDEL', key, last[1])
      last_seq = seq - 1
    end
    if last_seq == seq - 1 then
      redis.call('XADD', key, '*', 's', ARGV[i + 2], 'm', ARGV[i + 3], 't', ARGV[i + 4], 'v', ARGV[i + 6])
      redis.call('SADD', KEYS[3], ARGV[i + 5])
      replies[#replies + 1] = 'OK'
    elseif last_seq < seq then
      replies[#replies + 1] = 'LOSTMOVES ' .. last_seq
    else
      replies[#replies + 1] = 'BADSEQ ' .. last_seq
    end
    i = i + 7
  end
end
return replies
"""
)

#: Saves a race's description (KEYS: owner, meta; ARGV: node, then field, value pairs) and
#: makes this node its owner if it has none (a new race).
_SAVE_RACE = (
    _FENCE
    + """
redis.call('DEL', KEYS[2])
if #ARGV > 1 then
  redis.call('HSET', KEYS[2], unpack(ARGV, 2))
end
if not owner then
  redis.call('SET', KEYS[1], ARGV[1])
end
return 1
"""
)

#: Archives a race at once (KEYS: owner, meta, record, players, then every other key to drop:
#: events, info and each move log; ARGV: node, the record, its time to live in ms ('0': none kept),
#: the move logs' key prefix): 0 if it is archived already (a record and no description), 1 if it
#: is now (or was by this very call, run again after its answer was lost: the same record). A
#: player missing from the move logs given (one whose first move came after they were read) is
#: refused (``NEWPLAYER``): read them again.
_ARCHIVE_RACE = (
    _FENCE
    + """
if redis.call('EXISTS', KEYS[2]) == 0 then
  local kept = redis.call('GET', KEYS[3])
  if kept then
    if kept == ARGV[2] then
      return 1
    end
    return 0
  end
end
local given = {}
for i = 5, #KEYS do
  given[KEYS[i]] = true
end
for _, player in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  if not given[ARGV[4] .. player] then
    return redis.error_reply('NEWPLAYER ' .. player)
  end
end
redis.call('DEL', KEYS[1], KEYS[2], unpack(KEYS, 4))
if ARGV[3] ~= '0' then
  redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
end
return 1
"""
)

#: Replaces a hash (KEYS: the hash; ARGV: field, value pairs, none: the hash is dropped).
_REPLACE_HASH = """
redis.call('DEL', KEYS[1])
if #ARGV > 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
end
return 1
"""

#: Takes a race over (KEYS: owner; ARGV: the owner it must have now, '' for none, then the new
#: one): 1 if it did, or if the new one owns it already (a claim tried again after its answer was
#: lost: it is the new owner's).
_CLAIM = """
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[2] then
  return 1
end
if (owner or '') ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""


#: Takes or keeps the leader lock (KEYS: the lock; ARGV: node, lease in ms, then the dead nodes
#: whose lock may be taken): 1 if this node holds it.
_LEAD = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
local free = not holder
for i = 3, #ARGV do
  if holder == ARGV[i] then
    free = true
  end
end
if free then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

#: Gives the leader lock up if this node holds it (KEYS: the lock; ARGV: node).
_STEP_DOWN = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class _Write:
    """One write staged for the next batch (`RedisStore._stage`): ``args``, its script arguments
    after its letter (`_WRITE_RACE`); ``stream``, the move log's key (None: an event); ``player``
    and ``seq``, a move's (an event's: "" and its version); ``done``, what its caller awaits."""

    __slots__ = ("args", "done", "player", "seq", "stream")

    def __init__(self, args: list[object], stream: str | None, player: str, seq: int) -> None:
        self.args = args
        self.stream = stream
        self.player = player
        self.seq = seq
        self.done: asyncio.Future[object] = asyncio.get_running_loop().create_future()


def _event_stored(code: str, version: int, done: asyncio.Future[object]) -> None:
    """Log an event that `RedisStore.queue_event` could not store."""
    if not done.cancelled() and (exc := done.exception()) is not None:
        log.warning("event %d of race %s not stored: %s", version, code, exc)


class NotOwner(StaleRace):
    """This node no longer owns race ``code``: node ``owner`` took it over (this node's lease
    lapsed while it was cut off from Redis or stalled)."""

    def __init__(self, code: str, owner: str) -> None:
        super().__init__(code, f"now served by node {owner}")
        self.owner = owner


class RedisStore(Store):
    """Keeps races, move logs, the last ``max_events`` events of each race, and the records of
    archived races in the Redis at ``url`` (``redis://HOST:PORT/DB``, ``rediss://`` for TLS,
    ``unix:///path/to/socket``), or in the Redis Cluster at ``url``
    (``redis+cluster://HOST:PORT[,HOST:PORT...]``, ``rediss+cluster://`` for TLS: `cluster_seeds`;
    ``cluster=True`` takes a ``redis://`` URL naming one node of a cluster too), or in the
    primary that Redis Sentinel watches at ``url``
    (``redis+sentinel://HOST:PORT[,HOST:PORT...]/MASTER[/DB]``: `sentinel_service`; each new
    connection asks a Sentinel where the primary is, so that after a failover the store writes
    to the replica promoted in its place); raises ValueError for a URL redis-py cannot read.
    ``cluster`` says which it is (a Sentinel's primary is not a cluster).

    ``wait_replicas`` (default 0: none) makes each accepted move wait, before it is answered,
    until that many replicas hold it (Redis ``WAIT``, at most ``wait_timeout_ms``, default
    1000; `_replicated`): a move fewer replicas acknowledged in time is refused as if Redis
    were away, so that a failover to a replica never loses an acknowledged move. Not with a
    Redis Cluster (ValueError).

    ``prefix`` (default ``arena``) starts every key, so that several servers or tests can share
    one Redis. ``timeout_s`` (seconds, default 1) bounds connecting and each command; a move
    waits at most about twice that before it is refused (one fresh connection is tried when a
    pooled one turns out broken). ``max_events`` and ``max_records`` as in
    `server.store.memory.MemoryStore` (defaults 10,000 events per race and 100,000 records).
    Connect with `open` (the server does, before it listens) and let go with `close`.
    """

    durable = True  # a restarted server resumes its races from here (`Store.live_races`)
    shared = True  # several nodes share one Redis (`server.nodes`)

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "arena",
        timeout_s: float = 1.0,
        max_events: int = 10_000,
        max_records: int = 100_000,
        node_id: str = "node",
        cluster: bool | None = None,
        wait_replicas: int = 0,
        wait_timeout_ms: float = 1000.0,
    ) -> None:
        seeds = cluster_seeds(url)
        service = sentinel_service(url)
        self.cluster = seeds is not None if cluster is None else cluster
        if wait_replicas > 0 and self.cluster:
            raise ValueError(
                "waiting for replicas (WAIT) is for one Redis or a Sentinel's primary, not a Redis Cluster"
            )
        self.wait_replicas = wait_replicas
        self.wait_timeout_ms = max(1, round(wait_timeout_ms))
        self._sentinel: Sentinel | None = None
        options: _ClientOptions = {
            "socket_timeout": timeout_s,
            "socket_connect_timeout": timeout_s,
            # a broken connection is tried once more at once (the cluster client also once
            # more after a timeout, having asked the cluster which node serves the slot now)
            "retry": Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
        }
        self._redis: aioredis.Redis | RedisCluster
        if self.cluster:
            try:
                self._redis = _cluster_client(url, seeds, **options)
            except RedisClusterException as exc:  # a database other than 0, a unix socket
                raise ValueError(f"not a Redis Cluster URL: {exc}") from None
            named: Sequence[tuple[str, int | str]] = seeds or [
                (node.host, node.port) for node in self._redis.startup_nodes
            ]
            self.where = ",".join(f"{host}:{port}" for host, port in named) + " (cluster)"
        elif service is not None:
            self._sentinel = Sentinel(
                service.sentinels,
                sentinel_kwargs={"socket_timeout": timeout_s, "socket_connect_timeout": timeout_s},
            )
            self._redis = self._sentinel.master_for(
                service.master,
                db=service.db,
                username=service.username,
                password=service.password,
                ssl=service.tls,
                **options,
            )
            named_sentinels = ",".join(f"{host}:{port}" for host, port in service.sentinels)
            self.where = f"primary {service.master!r}/{service.db} of Sentinel {named_sentinels}"
        else:
            self._redis = aioredis.Redis.from_url(url, **options)
            kwargs = self._redis.connection_pool.connection_kwargs
            self.where = (
                f"{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}/{kwargs.get('db', 0)}"
                if "path" not in kwargs
                else f"{kwargs['path']} (db {kwargs.get('db', 0)})"
            )
        self.prefix = prefix
        self.max_events = max_events
        self.max_records = max_records
        self.node_id = node_id
        self._write_race = self._redis.register_script(_WRITE_RACE)
        # the writes of one loop turn, by race, sent together (`_stage`, `_flush`)
        self._staged: dict[str, list[_Write]] = {}
        self._flusher: asyncio.Task[None] | None = None
        self._pending: dict[str, asyncio.Future[object]] = {}  # race -> its last write staged or in flight
        self._acked: dict[str, dict[str, int]] = {}  # race -> player -> last seq stored and answered
        self._watcher: asyncio.Task[None] | None = None
        self._run_ids: frozenset[str] | None = None  # Redis's run id(s) as last seen (`check_data`)
        self._marker: bytes | None = None  # the value of the persistence marker as last seen
        self._save_race = self._redis.register_script(_SAVE_RACE)
        self._claim = self._redis.register_script(_CLAIM)
        self._archive_race = self._redis.register_script(_ARCHIVE_RACE)
        self._replace_hash = self._redis.register_script(_REPLACE_HASH)
        self._lead = self._redis.register_script(_LEAD)
        self._step_down = self._redis.register_script(_STEP_DOWN)

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

    # ------------------------------------------------------------------------ replies

    async def _get(self, key: str) -> bytes | None:
        """GET ``key`` as bytes (see `_Stream`)."""
        return cast("bytes | None", await self._redis.get(key))

    async def _smembers(self, key: str) -> set[bytes]:
        """SMEMBERS ``key`` as bytes (see `_Stream`)."""
        return cast("set[bytes]", await self._redis.smembers(key))

    async def _hgetall(self, key: str) -> dict[bytes, bytes]:
        """HGETALL ``key`` as bytes (see `_Stream`)."""
        return cast("dict[bytes, bytes]", await self._redis.hgetall(key))

    # --------------------------------------------------------------------- connection

    @contextlib.contextmanager
    def _reaching(self, code: str | None = None) -> Iterator[None]:
        """Turn Redis being away (refused, reset, timed out, still loading its data) into
        `StoreUnavailable`, and a fenced script's refusal for race ``code`` into `NotOwner` or
        `StaleRace`."""
        try:
            yield
        except (ClusterError, SlotNotCoveredError, RedisClusterException) as exc:
            # a cluster that is down (CLUSTERDOWN, a ResponseError too), a slot no node serves (a
            # master died and no replica took over yet), or no node to ask; anything else the
            # cluster client raises is a mistake in a command, not Redis being away
            if (
                isinstance(exc, RedisClusterException)
                and not isinstance(exc, SlotNotCoveredError)
                and not str(exc).startswith(_CLUSTER_AWAY)
            ):
                raise
            why = str(exc).split("\n", 1)[0] or type(exc).__name__
            raise StoreUnavailable(f"Redis at {self.where} is unavailable: {why}") from exc
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
            try:  # a cluster's node would answer most commands with MOVED
                clustered = not self.cluster and (await self._redis.info("cluster")).get("cluster_enabled")
            except ResponseError:  # INFO turned off: the first command sent elsewhere will say
                clustered = False
            if clustered:
                raise StoreUnavailable(
                    f"Redis at {self.where} is a node of a Redis Cluster: name the cluster with "
                    f"redis+cluster://HOST:PORT[,HOST:PORT...]"
                )
            await self.check_data()  # (the first look: what Redis is now, and its marker)
            if self._watcher is None:
                self._watcher = asyncio.get_running_loop().create_task(self._watch())
            if self.wait_replicas > 0:
                try:
                    replication = cast("dict[str, object]", await self._redis.info("replication"))
                except ResponseError:  # INFO turned off: moves will say
                    replication = {}
                replicas = int(cast(int, replication.get("connected_slaves", self.wait_replicas)))
                if replicas < self.wait_replicas:
                    log.warning(
                        "Redis at %s has %d replicas connected, and every move waits for %d: moves are "
                        "refused with unavailable until enough replicas are connected",
                        self.where,
                        replicas,
                        self.wait_replicas,
                    )
            try:
                # (self.cluster) each master answers for its own slots: ask them all
                if isinstance(self._redis, RedisCluster):
                    each = {
                        node.name: await self._redis.config_get("append*", target_nodes=node)
                        for node in self._redis.get_primaries()
                    }
                else:
                    each = {self.where: await self._redis.config_get("append*")}
            except ResponseError:  # CONFIG is often turned off on managed Redis: nothing to check
                log.info("Redis at %s does not answer CONFIG GET: its durability settings are not checked", self.where)
                return
        for where, settings in sorted(each.items()):
            appendonly, appendfsync = (_text(settings.get(name, "?")) for name in ("appendonly", "appendfsync"))
            if (appendonly, appendfsync) != ("yes", "always"):
                log.warning(
                    "Redis at %s has appendonly %s, appendfsync %s: if it crashes it may lose moves already "
                    "acknowledged (set appendonly yes and appendfsync always)",
                    where,
                    appendonly,
                    appendfsync,
                )

    async def close(self) -> None:
        tasks = [task for task in (self._watcher, self._flusher) if task is not None]
        await cancel_and_wait(tasks, math.inf)
        for task in tasks:  # (what it raised was logged, or answered to the writes' callers)
            if not task.cancelled():
                task.exception()
        self._watcher = None
        for writes in self._staged.values():
            for write in writes:
                if not write.done.done():
                    write.done.set_exception(StoreUnavailable(f"the store of Redis at {self.where} is closed"))
        self._staged.clear()
        await self._redis.aclose()
        if self._sentinel is not None:
            await self._sentinel.aclose()

    # ------------------------------------------------------------------ data lost

    #: Seconds between two looks at Redis's run id (`_watch`): how soon a Redis that restarted
    #: is checked for what it lost.
    watch_s: float = 0.25

    @property
    def _marker_key(self) -> str:
        return f"{self.prefix}:marker"

    async def _watch(self) -> None:
        """Look at Redis's run id every `watch_s` seconds; when it changed (Redis restarted, or
        another one took its place), or Redis answers again after it did not, check at once what
        it lost (`check_data`). Runs from `open` to `close`."""
        away = False
        while True:
            await asyncio.sleep(self.watch_s)
            try:
                if away or await self._current_run_ids() != self._run_ids:
                    await self.check_data()
                away = False
            except (StoreUnavailable, RedisError, RedisClusterException):
                away = True
            stop_if_cancelled()

    async def _current_run_ids(self) -> frozenset[str]:
        """The run id of Redis (of each master, in a cluster): a new one after every restart.
        Empty when INFO is turned off (then only the marker and the move logs say)."""
        with self._reaching():
            try:
                if isinstance(self._redis, RedisCluster):
                    each = cast(
                        "dict[str, dict[str, object]]",
                        await self._redis.info("server", target_nodes=RedisCluster.PRIMARIES),
                    )
                    return frozenset(str(info.get("run_id", "")) for info in each.values())
                return frozenset([str((await self._redis.info("server")).get("run_id", ""))])
            except ResponseError:
                return frozenset()

    async def check_data(self) -> DataLoss | None:
        """Compare what Redis holds with what this node wrote, and report a loss (`_report`:
        an ERROR log, `data_losses`, `on_data_loss`): Redis lost everything if the persistence
        marker ``P:marker`` (a random value the first node writes) is gone or changed; a race
        lost moves if an entrant's log in Redis ends before the last move this node stored and
        answered in it (a race that another node took over or archived since is left out). The
        marker is written again when it is gone. One round trip, two when races are checked;
        raises `StoreUnavailable`. The loss found, or None (also the first time: nothing to
        compare with)."""
        ids = await self._current_run_ids()
        acked = [(code, player, seq) for code, players in self._acked.items() for player, seq in players.items()]
        codes = sorted({code for code, _, _ in acked})
        with self._reaching():
            await self._redis.set(self._marker_key, secrets.token_hex(8), nx=True)
            marker = await self._get(self._marker_key)
            last: list[object] = []
            if acked:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for code, player, _ in acked:
                        pipe.xrevrange(self._race_key(code, f"moves:{player}"), count=1)
                    for code in codes:
                        pipe.get(self._race_key(code, "owner"))
                        pipe.exists(self._record_key(code))
                    last = await pipe.execute()
        first, self._run_ids = self._run_ids is None, ids
        wiped = not first and marker != self._marker
        self._marker = marker
        taken = {
            code
            for code, owner, archived in zip(codes, last[len(acked) :: 2], last[len(acked) + 1 :: 2], strict=True)
            if (owner is not None and cast(bytes, owner).decode() != self.node_id) or (owner is None and archived)
        }
        short: dict[str, list[str]] = {}
        for (code, player, seq), entries in zip(acked, last, strict=False):
            stored = int(cast(_Stream, entries)[0][1][b"s"]) if entries else 0
            if code not in taken and stored < seq:
                short.setdefault(code, []).append(f"{player} {stored}/{seq}")
        for code in taken:
            self._acked.pop(code, None)
        if first or not (wiped or short):
            return None
        why = "; ".join(
            (
                [f"its marker {self._marker_key} is gone (Redis restarted empty, or its data was removed)"]
                if wiped
                else []
            )
            + [
                f"race {code} lost moves ({', '.join(lines)} stored/acknowledged)"
                for code, lines in sorted(short.items())
            ]
        )
        return self._report(why, sorted(short))

    def _report(self, why: str, races: list[str]) -> DataLoss:
        """Say that Redis lost data (``why``; ``races``: the races that lost moves): an ERROR
        log line with its fields, `data_losses` counted, `on_data_loss` called; those races are
        no longer compared (they are reported once)."""
        self.data_losses += 1
        for code in races:
            self._acked.pop(code, None)
        loss = DataLoss(why, tuple(races))
        log.error(
            "Redis at %s lost data this node wrote: %s",
            self.where,
            why,
            extra=log_fields("store_data_lost", store=self.where, node=self.node_id, races=",".join(races), why=why),
        )
        if self.on_data_loss is not None:
            try:
                self.on_data_loss(loss)
            except Exception:
                log.exception("on_data_loss failed for %s", loss)
        return loss

    async def _replicated(self) -> None:
        """With ``wait_replicas``, wait until that many replicas hold every write this store made
        so far (at most ``wait_timeout_ms``); raise `StoreUnavailable` if fewer did in time (the
        writes stay on the primary: the caller refuses what it wrote, and its resend is safe).
        Without, return at once. One round trip: ``PING`` then ``WAIT`` on one connection
        (``WAIT`` counts up to the replication offset of that connection's previous command, so
        the ``PING`` makes it cover writes sent on other connections). Call it after a batch of
        writes, before their answers."""
        if self.wait_replicas <= 0:
            return
        with self._reaching():
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.ping()
                pipe.wait(self.wait_replicas, self.wait_timeout_ms)
                _, acked = await pipe.execute()
        if acked < self.wait_replicas:
            raise StoreUnavailable(
                f"Redis at {self.where}: {acked} of {self.wait_replicas} replicas took the write "
                f"within {self.wait_timeout_ms} ms"
            )

    # -------------------------------------------------------------------------- nodes

    async def owner(self, code: str) -> str | None:
        """The id of the node that serves race ``code``, or None (no such race, or archived)."""
        with self._reaching():
            owner = await self._get(self._race_key(code, "owner"))
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

    async def lead(self, lease_s: float, dead: Sequence[str] = ()) -> bool:
        """Take the leader lock if nobody holds it, or one of the ``dead`` nodes (whose lease has
        run out) does, or keep it for ``lease_s`` more seconds if this node holds it; True if
        this node is the leader now. The leader runs the tournaments and their schedules, and
        takes dead nodes' races over (`server.nodes`)."""
        with self._reaching():
            return bool(
                await self._lead(
                    keys=[f"{self.prefix}:leader"], args=[self.node_id, max(1, round(lease_s * 1000)), *dead]
                )
            )

    async def leader(self) -> str | None:
        """The id of the node holding the leader lock, or None."""
        with self._reaching():
            holder = await self._get(f"{self.prefix}:leader")
        return holder.decode() if holder is not None else None

    async def release(self) -> None:
        """Give up this node's lease at once (a graceful shutdown): the other nodes take its races
        over at their next look instead of when the lease would have run out."""
        with self._reaching():
            await self._redis.delete(self._node_key(self.node_id))
            await self._step_down(keys=[f"{self.prefix}:leader"], args=[self.node_id])

    async def lease_left(self, node: str) -> float:
        """Seconds left of node ``node``'s lease (0 if it has run out, or was given up)."""
        with self._reaching():
            left = int(await self._redis.pttl(self._node_key(node)))
        return max(0, left) / 1000

    async def dead_nodes(self) -> list[str]:
        """The listed nodes whose lease has run out (one round trip per listed node, in one
        pipeline: there are a handful)."""
        with self._reaching():
            listed = [n.decode() for n in await self._smembers(f"{self.prefix}:nodes")]
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
            # (with a count, SPOP answers a list of members)
            popped = cast("list[bytes] | None", await self._redis.spop(self._node_key(dead, "races"), count))
            taken = []
            for raw in popped or ():
                code = raw.decode()
                if await self.claim(code, dead):
                    taken.append(code)
            if not popped:
                await self._redis.srem(f"{self.prefix}:nodes", dead)
        return taken

    async def list_race(self, code: str, listing: str | None, score: int, info: bytes) -> None:
        """Show race ``code`` in the shared lobby's ``listing`` ("open" or "live"; None: in
        neither) at ``score`` (its place, newest highest), with ``info`` (an encoded
        `server.protocol.RaceInfo`) as the lobby shows it."""
        with self._reaching():
            async with self._redis.pipeline(transaction=False) as pipe:
                for name in ("open", "live"):
                    if name == listing:
                        pipe.zadd(f"{self.prefix}:lobby:{name}", {code: score})
                    else:
                        pipe.zrem(f"{self.prefix}:lobby:{name}", code)
                if listing is None:
                    pipe.delete(self._race_key(code, "info"))
                else:
                    pipe.set(self._race_key(code, "info"), info)
                await pipe.execute()

    async def lobby_page(self, listing: str, before: int | None, count: int, skip: set[str]) -> list[tuple[int, bytes]]:
        """Up to ``count`` races of the shared lobby's ``listing``, highest score first, after the
        cursor ``before`` (None: from the top), leaving out the codes in ``skip``: ``(cursor
        after it, its encoded info)``; a race archived meanwhile (no info) is left out too. A
        cursor is ``score << 10 | n``, ``n`` the races of that score already shown (Redis orders
        races of one score by code), so that races created in the same millisecond are each
        shown once. Two round trips."""
        if before is None:
            top: int | str = "+inf"
            score, shown = -1, 0
        else:
            score, shown = before >> _TIE_BITS, before & ((1 << _TIE_BITS) - 1)
            top = score
        kept: list[tuple[int, str]] = []
        with self._reaching():
            found = cast(
                _Scored,
                await self._redis.zrevrangebyscore(
                    f"{self.prefix}:lobby:{listing}", top, "-inf", start=shown, num=count + len(skip), withscores=True
                ),
            )
            for raw, value in found:
                shown = shown + 1 if int(value) == score else 1
                score = int(value)
                if (code := raw.decode()) not in skip:
                    kept.append((score << _TIE_BITS | min(shown, (1 << _TIE_BITS) - 1), code))
                    if len(kept) == count:
                        break
            async with self._redis.pipeline(transaction=False) as pipe:
                for _, code in kept:
                    pipe.get(self._race_key(code, "info"))
                infos = await pipe.execute()
        return [(after, info) for (after, _), info in zip(kept, infos, strict=True) if info is not None]

    def inbox_channel(self, node: str) -> str:
        """The sharded pub/sub channel on which node ``node`` receives what other nodes send it."""
        return self._node_key(node, "inbox")

    async def publish(self, node: str, payload: bytes) -> int:
        """Send ``payload`` to node ``node`` (at most once: lost if it is not listening now); the
        number of subscribers that received it: 0 says at once that node ``node`` does not
        listen (it died, or lost its connection to Redis). (In a cluster the count covers the
        clients of the master serving the inbox's slot, where `listen` subscribes.)"""
        with self._reaching():
            return int(await self._redis.spublish(self.inbox_channel(node), payload))

    async def listen(self) -> AsyncIterator[bytes]:
        """What other nodes send this node, as it arrives, forever; while Redis is away it waits
        and subscribes again (what was sent meanwhile is lost: the senders time out). In a
        cluster the inbox is a sharded channel, served by the master of its slot (`ClusterPubSub`):
        when that master fails, or the slot moves, this subscribes again wherever the cluster
        serves the slot then."""
        channel = self.inbox_channel(self.node_id)
        while True:
            pubsub = self._redis.pubsub()
            sharded = pubsub if isinstance(pubsub, ClusterPubSub) else None  # (a cluster's: self.cluster)
            try:
                if self.cluster:
                    # a command on the inbox's slot first: the client maps the cluster afresh if it
                    # changed (a failover, a slot moved), so that it subscribes where the slot is now
                    await self._redis.exists(channel)
                await pubsub.ssubscribe(channel)
                stop_if_cancelled()  # (a node stopped as it subscribed would wait here forever)
                while True:
                    message = await (
                        # (None: wait for a message, as get_message says; redis-py annotates this one float only)
                        sharded.get_sharded_message(timeout=None)  # type: ignore[arg-type]
                        if sharded is not None
                        else pubsub.get_message(timeout=None)
                    )
                    kind = _text(message["type"]) if message is not None else "nothing"
                    if kind == "smessage":
                        assert message is not None  # (its kind says so)
                        yield message["data"]
                    elif kind not in ("ssubscribe", "pong"):
                        # sunsubscribe: Redis dropped the subscription (its slot moved); nothing:
                        # the client holds no subscription any more
                        why = f"it got {kind} from it"
                        break
            except (RedisError, RedisClusterException, OSError) as exc:
                why = str(exc).split("\n", 1)[0] or type(exc).__name__
            finally:
                with contextlib.suppress(Exception):  # (a timeout too: closing never holds a stop up)
                    async with asyncio.timeout(1):
                        await pubsub.aclose()
            log.warning("node %s: lost its inbox at Redis %s (%s); subscribing again", self.node_id, self.where, why)
            await asyncio.sleep(0.5)

    # -------------------------------------------------------------------------- races

    async def save_race(self, code: str, meta: dict[str, object]) -> None:
        """As `Store.save_race`; a new race becomes this node's (its owner key, and this node's
        set of races). Raises `NotOwner` if another node owns it."""
        pairs = [x for k, v in meta.items() for x in (k, msgspec.json.encode(v))]
        with self._reaching(code):
            await self._save_race(
                keys=[self._race_key(code, "owner"), self._race_key(code, "meta")], args=[self.node_id, *pairs]
            )
            if meta:
                await self._redis.sadd(self._node_key(self.node_id, "races"), code)
        await self._replicated()  # (with wait_replicas: a failover keeps what it describes)

    async def load_race(self, code: str) -> dict[str, object] | None:
        with self._reaching():
            fields = await self._hgetall(self._race_key(code, "meta"))
        if not fields:
            return None
        return {k.decode(): msgspec.json.decode(v) for k, v in fields.items()}

    async def live_races(self) -> list[str]:
        """As `Store.live_races`, for this node: the races it owns (a node that restarts under
        the same id resumes its own; the others' go to their owners, or to whoever takes over a
        dead node's races, `RedisNodes.adopt`)."""
        with self._reaching():
            codes = await self._smembers(self._node_key(self.node_id, "races"))
        return [c.decode() for c in codes]

    async def last_version(self, code: str) -> int:
        await self._settled(code)
        with self._reaching():
            last = cast(_Stream, await self._redis.xrevrange(self._race_key(code, "events"), count=1))
        return int(last[0][0].split(b"-", 1)[0]) if last else 0

    async def save_player(self, player: str, token_digest: str, name: str, keep_s: float) -> None:
        with self._reaching():
            await self._redis.set(
                self._player_key(token_digest),
                msgspec.json.encode({"p": player, "n": name}),
                px=max(1, round(keep_s * 1000)),
            )

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
        """As `Store.append_move`, sent with the other writes of this loop turn (`_flush`: one
        round trip, one script call per race, with the race's queued events); raises `NotOwner`
        if another node owns the race now, `LostMoves` if the log ends before ``entry.seq - 1``
        (Redis lost moves: reported too, `on_data_loss`), `StaleRace` if it ends after
        ``entry.seq``."""
        key = self._race_key(code, f"moves:{player}")
        write = _Write([entry.seq, entry.move, entry.time_ms, player, entry.version], key, player, entry.seq)
        await self._stage(code, write)

    async def moves(self, code: str, player: str) -> list[MoveEntry]:
        with self._reaching():
            entries = cast(_Stream, await self._redis.xrange(self._race_key(code, f"moves:{player}")))
        return [MoveEntry(int(f[b"s"]), f[b"m"].decode(), int(f[b"t"]), int(f.get(b"v", 0))) for _, f in entries]

    async def append_event(self, code: str, event: StoredEvent) -> None:
        """As `Store.append_event` (a version stored already is left as it is: a write whose
        answer was lost, tried again), sent with the other writes of this loop turn; raises
        `NotOwner` if another node owns the race now."""
        await self._stage(code, self._event_write(event))

    def queue_event(self, code: str, event: StoredEvent) -> None:
        """As `Store.queue_event`: staged for the next batch, in one script call with the race's
        next move if one comes in the same loop turn; a failure is logged."""
        done = self._stage(code, self._event_write(event))
        done.add_done_callback(functools.partial(_event_stored, code, event.version))

    def _event_write(self, event: StoredEvent) -> _Write:
        spectator = b"" if event.spectator_frame == event.entrant_frame else event.spectator_frame
        return _Write([event.version, event.entrant_frame, spectator], None, "", event.version)

    # --------------------------------------------------------------------- batching

    def _stage(self, code: str, write: _Write) -> asyncio.Future[object]:
        """Add ``write`` to the batch the next loop turn sends (`_flush`); its future: what
        the caller awaits."""
        self._staged.setdefault(code, []).append(write)
        self._pending[code] = write.done
        if self._flusher is None:
            self._flusher = asyncio.get_running_loop().create_task(self._flush())
        return write.done

    async def _settled(self, code: str) -> None:
        """Wait until every write staged for race ``code`` so far was sent (and answered), so
        that a read sees it; a failed one is no matter here (its caller was told)."""
        pending = self._pending.get(code)
        if pending is not None and not pending.done():
            await asyncio.wait([pending])

    async def _flush(self) -> None:
        """Send the staged writes, batch after batch, while there are any: one pipeline (one
        round trip; under ``appendfsync always``, one fsync for the whole batch) with one script
        call per race (`_WRITE_RACE`: its writes in the order they were staged); then, with
        ``wait_replicas``, one ``WAIT`` for the batch (`_replicated`). One batch is in flight at
        a time, so that a race's writes land in the order they were made; what is staged
        meanwhile goes in the next. In a cluster the races' calls go out one per race, at once
        (each to the master of its slot)."""
        try:
            await asyncio.sleep(0)  # (one turn more: the tasks that the same turn woke write too)
            while self._staged:
                staged, self._staged = self._staged, {}
                try:
                    await self._send(staged)
                except BaseException as exc:  # (cancelled too: `close`) nothing may stay unanswered
                    failed = (
                        exc if isinstance(exc, StoreUnavailable) else StoreUnavailable(f"Redis at {self.where}: {exc}")
                    )
                    for writes in staged.values():
                        for write in writes:
                            if not write.done.done():  # (nor cancelled)
                                write.done.set_exception(StoreUnavailable(str(failed)))
                    if isinstance(exc, asyncio.CancelledError):
                        raise
                    if not isinstance(exc, StoreUnavailable):
                        log.exception("a batch of writes to Redis at %s failed", self.where)
                for code, writes in staged.items():
                    if self._pending.get(code) is writes[-1].done:
                        del self._pending[code]
        finally:
            self._flusher = None

    async def _send(self, staged: dict[str, list[_Write]]) -> None:
        """One batch of `_flush`: each race's writes in one `_WRITE_RACE` call, the calls in one
        pipeline; each write's future gets its outcome."""
        calls: list[tuple[str, list[_Write], list[str], list[object]]] = []
        for code, writes in staged.items():
            keys = [self._race_key(code, "owner"), self._race_key(code, "events"), self._race_key(code, "players")]
            args: list[object] = [self.node_id, self.max_events]
            for write in writes:
                if write.stream is None:
                    args += ["e", *write.args]
                else:
                    keys.append(write.stream)
                    args += ["m", len(keys), *write.args]
            calls.append((code, writes, keys, args))
        with self._reaching():
            if isinstance(self._redis, RedisCluster):
                replies = await asyncio.gather(
                    *(
                        self._write_race(keys=keys, args=cast("list[str | bytes | int]", args))
                        for _, _, keys, args in calls
                    ),
                    return_exceptions=True,
                )
            else:
                replies = await self._pipelined([(keys, args) for _, _, keys, args in calls])
        await self._replicated()
        for (code, writes, _, _), reply in zip(calls, replies, strict=True):
            self._settle(code, writes, reply)

    async def _pipelined(self, calls: list[tuple[list[str], list[object]]]) -> list[object]:
        """Run `_WRITE_RACE` once per call in one pipeline (EVALSHA; the script loaded again
        and those calls sent again if Redis no longer knows it: a restarted Redis); each call's
        reply, or the error it got."""
        sha = self._write_race.sha
        async with self._redis.pipeline(transaction=False) as pipe:
            for keys, args in calls:
                pipe.evalsha(sha, len(keys), *keys, *args)  # type: ignore[arg-type]
            replies: list[object] = await pipe.execute(raise_on_error=False)
        again = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if again:
            await self._redis.script_load(_WRITE_RACE)
            for i, reply in zip(again, await self._pipelined([calls[i] for i in again]), strict=True):
                replies[i] = reply
        return replies

    def _settle(self, code: str, writes: list[_Write], reply: object) -> None:
        """Give each write of race ``code`` its outcome from its call's ``reply`` (a list, one
        reply per write, or the error the whole call got)."""
        if isinstance(reply, BaseException):
            try:
                with self._reaching(code):  # (the error as every other call raises it)
                    raise reply
            except BaseException as exc:
                failed = exc
            if isinstance(failed, NotOwner):
                self._acked.pop(code, None)
            for write in writes:
                if not write.done.done():  # (cancelled: its caller stopped waiting)
                    write.done.set_exception(failed)
            return
        for write, outcome in zip(writes, cast("list[object]", reply), strict=True):
            text = _text(outcome) if isinstance(outcome, bytes) else outcome
            error: StaleRace | None = None
            if write.stream is None or text == "OK":
                if write.stream is not None:
                    self._acked.setdefault(code, {})[write.player] = write.seq
            elif (word_last := str(text).partition(" "))[0] == "LOSTMOVES":
                error = LostMoves(code, write.player, int(word_last[2]), write.seq)
                self._report(f"race {code}: {error}", [code])
            else:
                error = StaleRace(
                    code, f"its move log of {write.player} ends at move {word_last[2]}, after {write.seq}"
                )
            if write.done.done():  # (cancelled: its caller stopped waiting)
                continue
            if error is None:
                write.done.set_result(outcome)
            else:
                write.done.set_exception(error)

    async def events_since(self, code: str, since: int, limit: int | None = None) -> list[StoredEvent] | None:
        """As `Store.events_since`; also None when an event in the range is missing (one that
        could not be stored while Redis was away), so that the caller sends a snapshot."""
        start = f"{since + 1}-0" if since + 1 >= 0 else "-"
        await self._settled(code)
        with self._reaching():
            entries = cast(
                _Stream,
                await self._redis.xrange(
                    self._race_key(code, "events"), min=start, count=None if limit is None else max(1, limit)
                ),
            )
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
        while the move logs were still there, stands). The live keys go and the record comes in
        one script (one slot: the race's), so that no reader ever finds neither; then the node's
        set of races and the records' index (other slots) follow."""
        keep = record is not None and keep_s > 0
        await self._settled(code)  # (a write landing after it would leave keys of the race behind)
        self._acked.pop(code, None)
        moves = self._race_key(code, "moves:")
        keys = [
            self._race_key(code, "owner"),
            self._race_key(code, "meta"),
            self._record_key(code),
            self._race_key(code, "players"),
            self._race_key(code, "events"),
            self._race_key(code, "info"),
        ]
        with self._reaching(code):
            for _ in range(3):
                players = await self._smembers(keys[3])
                try:
                    archived = await self._archive_race(
                        keys=[*keys, *(moves + p.decode() for p in sorted(players))],
                        args=[
                            self.node_id,
                            record if keep and record is not None else b"",
                            max(1, round(keep_s * 1000)) if keep else 0,
                            moves,
                        ],
                    )
                    break
                except ResponseError as exc:
                    if not str(exc).startswith("NEWPLAYER "):
                        raise
            else:
                raise StaleRace(code, "its entrants kept changing while it was archived")
            index = f"{self.prefix}:records"
            now_ms = time.time() * 1000
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.srem(self._node_key(self.node_id, "races"), code)
                if archived and keep:
                    pipe.zadd(index, {code: now_ms + keep_s * 1000})
                    pipe.zremrangebyscore(index, "-inf", now_ms)  # their keys expired by themselves
                    pipe.zcard(index)
                *_, kept = await pipe.execute()
            if archived and keep and kept > self.max_records:
                oldest = cast(_Scored, await self._redis.zpopmin(index, kept - self.max_records))
                async with self._redis.pipeline(transaction=False) as pipe:
                    for old, _ in oldest:
                        pipe.delete(self._record_key(old.decode()))  # one by one: each has its own slot
                    await pipe.execute()

    async def load_record(self, code: str) -> bytes | None:
        with self._reaching():
            return await self._get(self._record_key(code))

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
        """As `Store.save_tournament`: listed first, then its description replaced at once (a
        script: the description's keys and the list are in different slots of a cluster, so this
        is two round trips); a server stopped in between leaves it listed with its description of
        before, or none (a listed id without one is not resumed), never described and unlisted."""
        pairs = [x for k, v in meta.items() for x in (k, msgspec.json.encode(v))]
        with self._reaching():
            if meta:
                await self._redis.sadd(self._tournaments_key, tournament_id)
            await self._replace_hash(keys=[self._tournament_key(tournament_id)], args=pairs)

    async def load_tournament(self, tournament_id: str) -> dict[str, object] | None:
        with self._reaching():
            fields = await self._hgetall(self._tournament_key(tournament_id))
        if not fields:
            return None
        return {k.decode(): msgspec.json.decode(v) for k, v in fields.items()}

    async def live_tournaments(self) -> list[str]:
        with self._reaching():
            ids = await self._smembers(self._tournaments_key)
        return [i.decode() for i in ids]

    async def archive_tournament(self, tournament_id: str) -> None:
        """As `Store.archive_tournament`: its description goes first, then it is unlisted (two
        round trips, as for `save_tournament`)."""
        with self._reaching():
            await self._redis.delete(self._tournament_key(tournament_id))
            await self._redis.srem(self._tournaments_key, tournament_id)

    async def save_schedule(self, schedule_id: str, message: bytes) -> None:
        with self._reaching():
            await self._redis.hset(self._schedules_key, schedule_id, message)

    async def schedules(self) -> dict[str, bytes]:
        with self._reaching():
            kept = await self._hgetall(self._schedules_key)
        return {k.decode(): v for k, v in kept.items()}

    async def drop_schedule(self, schedule_id: str) -> None:
        with self._reaching():
            await self._redis.hdel(self._schedules_key, schedule_id)


def _text(value: str | bytes | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
