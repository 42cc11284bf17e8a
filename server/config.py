"""A server's limits and timings, with their defaults: `ServerConfig`.

`arena serve` offers each limit as a flag and an environment variable (client/serving.py reads
`ServerConfig.limits`); docs/security.md says what each one stops.

>>> ServerConfig().max_frame_bytes
4096
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from server.catalog import public_catalogs
from server.protocol import MAX_FRAME_BYTES

__all__ = ["ARCHIVE_FILE", "ServerConfig"]

#: The embedded archive's file in a server's data directory (`ServerConfig.archive_location`).
ARCHIVE_FILE = "arena.db"

_T = TypeVar("_T")


def _limit(default: _T, help_text: str, *, serve: _T | None = None) -> _T:
    """A `ServerConfig` limit: its default, the line `arena serve --help` shows for it, and
    (``serve``) another default for `arena serve` where the library's differs.

    Typed as returning its default, as `dataclasses.field` is, so that each field keeps its
    declared type."""
    metadata = {"help": help_text} | ({"serve": serve} if serve is not None else {})
    return field(default=default, metadata=metadata)


@dataclass
class ServerConfig:
    """Limits and timings of a server. `arena serve` offers each field as a flag (``--max-moves``)
    and an environment variable (``ARENA_MAX_MOVES``); docs/security.md says what each one stops.

    Connections (each limit applies per connection unless it says otherwise):
      ``max_frame_bytes``: largest incoming frame, bytes (default 4096); a larger one closes the
      connection with 1009.
      ``max_send_buffer_bytes``: outgoing bytes waiting for a slow client, beyond what the
      operating system's socket buffers hold (default 1 MiB); past it the client is closed with
      1008.
      ``behind_bytes``: outgoing bytes waiting for a client (beyond the socket buffers) past
      which it counts as behind (default 64 KiB; it catches up at a quarter of that): while it
      is, the broadcast boards and standings it is sent wait, each replacing the one of the same
      entrant still waiting, and leave when it catches up (`server.transport.session.Session.send_shared`).
      ``socket_send_bytes``: the kernel's send buffer of each connection (default 0: the
      system's own, which grows to megabytes on a fast link); smaller, a slow client is behind
      sooner and its states are less old when they reach it.
      ``fanout_tick_ms`` / ``fanout_busy_share``: while the event loop is busy at least
      ``fanout_busy_share`` of the time (default 0.5), broadcast frames (the standings after a
      move, a spectator's events) may wait up to ``fanout_tick_ms`` milliseconds (default 80)
      so that each connection's leave in one write (`server.transport.fanout.Fanout`); answers to a request leave at
      once, with whatever waits. A server less busy sends every frame at the end of the loop
      turn; ``fanout_tick_ms`` 0 always does (docs/design.md, "Fan-out").
      ``standings_tick_ms``: while that tick is on, an entrant's standings after another
      entrant's move may wait up to this long (default 250), unless the entrant moves meanwhile
      (the answer takes them along) or the race sends it something else; later standings take
      the place of those still waiting (`server.transport.fanout.FanoutChannel`); at or under
      ``fanout_tick_ms``, as long as other broadcast frames.
      ``rate_per_s`` / ``burst``: incoming frames per second sustained, and the burst above it
      (defaults 100 and 200), every frame counted (pings, pongs and fragments too); a request
      over the limit gets ``rate_limited``, a ping over it no pong, and after ``max_strikes``
      (default 50) frames over it the connection is closed with 1008.
      ``max_connections``: open connections for the whole server (default 10,000), counted from
      the moment the socket is accepted; more are reset at once. At start the server lowers it
      to fit its open-files limit, and says so.
      ``max_connections_per_ip``: open connections from one address (an IPv6 /64; default 128;
      lowered to an eighth of ``max_connections`` when the open-files limit lowers that); more
      are reset at once. When the
      server is full, a newcomer from an address holding at least two fewer than the address
      holding the most takes the place of that address's idlest connection not in a race
      (closed with 1013; `server.transport.slots.Slots`).
      ``connections_per_s_per_ip`` / ``connections_burst_per_ip``: new websockets one address
      may open a second (default 50), with a burst of 500; more are refused with HTTP 429 at the
      handshake, before any session or hello, so reconnecting in a loop costs the server little
      (plain HTTP requests, such as the page's files, are not counted).
      ``trusted_proxies``: addresses of reverse proxies (default none) whose connections are
      counted against the client address they forward (``X-Forwarded-For``), refused with HTTP
      429 over the limit; the proxy's own address has no limit.
      ``open_timeout_s``: seconds a socket may take to finish the websocket handshake (default 10).
      ``hello_timeout_s``: seconds a connection may take to say hello (default 10); a silent one
      is closed with 1008.
      ``ping_interval_s`` / ``ping_timeout_s``: keepalive pings, seconds (defaults 20 and 20;
      None turns them off): a connection the server has heard nothing from for the interval is
      pinged, and closed with 1011 when the pong does not come within the timeout
      (`server.transport.keepalive.Keepalive`).
    Races:
      ``max_open_races_per_player``: races a player created that have not started yet (default 5).
      ``max_open_races_per_ip``: races created from one address (an IPv6 /64:
      `server.addresses.address_key`) that have not started yet, on this node (default 20: four
      players of a household or club behind one address, each at its own cap; a flood from 40
      addresses then holds at most 800 open races, not 10,000).
      ``races_per_hour_per_player`` / ``races_per_hour_per_ip``: races created in the last hour by
      one player (default 30) and from one address (default 300).
      ``open_race_ttl_s``: an open race nobody starts ends ("expired") after this many seconds
      (default 1800).
      ``idle_timeout_s``: an entrant that makes no move for this many seconds is out of time
      (default 300; None: never), so that nobody holds a race open by doing nothing.
      ``max_moves``: accepted moves per entrant per race (default 5000).
      ``sync_page_events``: events sent per page of a sync (default 256; fewer when the client's
      outgoing queue has less room).
    Memory:
      ``race_retention_s``: finished races and tournaments leave memory this many seconds after
      they end (default 3600); the store keeps each race's record ``record_retention_s`` longer
      (default 86400), for `get_record` and `arena verify`.
      ``max_players_per_ip``: players kept in memory that said their first hello from one address
      key (default 256: twice ``max_connections_per_ip``, so an address's connected players fit
      beside as many that left; never fewer than the connections one address may hold). A new
      player beyond it makes the address's player that left the longest ago, and that nothing
      needs (no connection, race in play, open race or tournament to come), be forgotten; if
      every one is needed, the hello is refused with ``too_many_players``.
      ``player_retention_s``: a player with no connection, no race in play and no tournament to
      come is forgotten (its token no longer resumes) after this many seconds (default 3600).
      ``max_events_per_race``: events the memory store keeps per race for catching up (default
      10,000); a client further behind gets a snapshot.
      ``sweep_interval_s``: how often the housekeeping task applies the retention times, seconds
      (default 1).
    Storage:
      ``redis_url``: keep races (descriptions, move logs, events) and records in this Redis
      (``redis://HOST:PORT/DB``; a Redis Cluster, ``redis+cluster://HOST:PORT,...``; or the
      primary Redis Sentinel watches, ``redis+sentinel://HOST:PORT,.../MASTER/DB``;
      `server.store.redis.RedisStore`) rather than in memory
      (default None: memory). The server connects at start and refuses to start without it; a
      move while Redis is away is refused with ``unavailable``, never acknowledged. A server
      restarted over the same Redis resumes its casual races and players (`server.app.ArenaServer.start`).
      ``node_id``: this node's name among the nodes sharing one Redis (default
      ``HOSTNAME:PORT``, so that a node restarted on the same port resumes its own races).
      ``lease_s``: a node counts as alive for this many seconds after each heartbeat (default 1;
      it beats four times per lease): the others take a dead node's races over within about
      that long (`server.nodes`).
      ``redis_wait_replicas``: with Redis, replicas that must hold each accepted move (and each
      race description) before it is answered (Redis ``WAIT``; default 0: none); a move fewer
      replicas took within ``redis_wait_timeout_ms`` (default 1000) is refused with
      ``unavailable``, so that a failover to a replica loses no acknowledged move.
      ``forward_timeout_s``: how long a request forwarded to the node that serves its race may
      take before it is answered ``unavailable`` (default 3).
    The archive (`server.archive`, written by `server.archiving.Archiver`):
      ``archive_url``: keep every finished race and tournament for good in this archive
      (``sqlite:///PATH``, ``postgresql://...``, ``memory://``); default None: the SQLite file
      ``DATA_DIR/arena.db`` when ``data_dir`` is set, else no archive (a library server, as in
      tests). The server opens it at start and refuses to start without it.
      ``data_dir``: the directory the embedded archive lives in (default None; `arena serve`'s
      default is ``$XDG_DATA_HOME/patience-arena``, else ``~/.local/share/patience-arena``).
      ``archive_retention_days``: the archive forgets races and tournaments that finished more
      than this many days ago (default None or 0: never), checked every few minutes.
    Tournaments and catalogs:
      ``admin_token``: the organisers' secret; create and cancel requests must carry it (None, the
      default, refuses them all).
      ``catalog_dir``: the public catalogs of winnable deals (default: the package's, seeds/ in a
      checkout: `server.catalog.public_catalogs`);
      they serve races whose seed is public anyway.
      ``private_catalog_dir``: a private catalog of winnable deals (default None: none); the only
      source of secret winnable deals (tournaments, races asking for one with a secret seed).
      ``daily_secret``: the secret each day's daily deals derive from (`server.daily`; default
      None: the one kept in the archive, made once, or with no archive a random one per
      process); ``daily_time_limit_s``: a daily race's time limit (900 s); ``daily_days_kept``:
      days of daily results kept in memory, and the days a streak counts (400).
    Logs and operations:
      ``gc_full_threshold``: `serve` sets Python's garbage collector to consider a full collection
      only after this many collections of the middle generation (default 100; Python's own is
      10), and freezes what the start made. A full collection scans every tracked object, about
      70 per connection: at 5,000 clients it holds the server for about 200 ms, every 20 s or so
      at Python's own setting (docs/performance.md §3.11). Young garbage is collected as before
      (`server.upkeep.settle_garbage`).
      ``log_repeat_s``: the same log message is written at most once per this many seconds, with
      a count of the ones left out (default 10).
      ``shutdown_grace_s``: seconds a shutdown may take (default 10): the requests in hand are
      answered, unfinished races end, clients may fetch the records, then every connection is
      closed with 1001 (`server.app.ArenaServer.shutdown`).
      ``metrics_from``: addresses or networks (``10.0.0.0/8``) that may ``GET /metrics`` (default
      the loopback addresses; empty: nobody). Behind a trusted proxy, the address that counts is
      the one it forwards.
    Par (`server.par`):
      ``par_workers``: worker processes in which the solver works out each finished race's par
      (default 0 here, 1 under `arena serve`; 0: no par).
      ``par_nodes`` / ``par_seconds`` / ``par_memory_mb``: the solver's budget for one race
      (defaults 100,000,000 moves, 10 s and 256 MiB: time decides, the move count only caps it).
      ``winnable_nodes`` / ``winnable_seconds``: the solver's budget for each fresh secret deal it
      tries when a race or tournament asks for winnable deals (defaults 100,000,000 moves and 5 s;
      the memory as for par);
      ``winnable_wait_s``: how long such a request may wait for the solver in all (default 10 s)
      before the private catalog makes up the rest (`server.par.WinnableSearch`).
      ``winnable_searches`` / ``winnable_searches_per_ip``: such requests the solver works on at
      once, on the whole server (default 4) and from one address (default 1); a request beyond
      either gets its deals from the private catalog at once (refused with ``rate_limited`` when
      there is none). A finished race's par always goes first (`server.par`).
    Costly requests (budgets per request type, `server.dispatch.BUDGETS`; beyond one, the request
    is refused with ``rate_limited`` and the connection stays open):
      ``replay_per_s`` (default 10), ``watch_per_s`` (2), ``get_record_per_s`` (0.5),
      ``history_per_s`` (2: a page of a player's history, read from the archive),
      ``sync_per_s`` (10) and ``winnable_per_s`` (0.2: ``create_race`` asking for a winnable
      secret deal): requests per second per connection, sustained; a connection may send
      ``costly_burst_s`` seconds' worth at once (default 10; at least 2); an address may send
      ``costly_per_address`` connections' worth (default 8) over all its connections.
    Claimed names (`server.claims`, `server.handlers.claims`):
      ``login_failures_per_name`` (default 5) / ``login_failures_per_ip`` (default 20): failed
      logins to one claimed name, and from one address key, within ``login_window_s`` (default
      300 s, refilled evenly over it); past either, a login is refused with ``rate_limited``
      and the seconds to wait (``retry_after_s``), whatever its password.
      ``transfer_code_minutes``: how long a transfer code stays good (default 10).
      ``passkey_challenge_s``: how long a passkey ceremony's challenge stays good (default
      120 s); a later ``passkey_finish`` is refused ``challenge_expired``. Passkeys need
      ``public_origin``: the origin players' browsers load the page from (``https://HOST``, or
      ``http://localhost:PORT`` for tests), whose host is the WebAuthn relying party id
      (`server.passkeys`); default None: no passkeys (``unavailable``).
    Friends (`server.handlers.friends`):
      ``max_following`` (default 200): players one player may follow (each `friends` request
      reads them all); ``challenges_per_hour`` (default 20): challenges one player may send in
      an hour (each creates a race and invites someone), past it ``rate_limited``.
      ``password_per_s`` (0.2): claim, login and redeem requests per second per connection, a
      costly request's budget as above (each claim or login hashes a password).
      ``password_hashes_at_once`` (default 2) / ``password_hashes_waiting`` (16): argon2id
      hashes worked out at once over the whole server, and queued behind them; past that a
      claim or login is refused with ``rate_limited`` (``retry_after_s`` 1).
    """

    max_frame_bytes: int = _limit(MAX_FRAME_BYTES, "largest incoming frame, bytes")
    max_send_buffer_bytes: int = _limit(1 << 20, "outgoing bytes waiting for a slow client before it is closed")
    behind_bytes: int = _limit(
        1 << 16, "outgoing bytes waiting for a client past which its boards and standings wait, newest only"
    )
    socket_send_bytes: int = _limit(0, "the kernel's send buffer of each connection, bytes (0: the system's own)")
    fanout_tick_ms: float = _limit(
        80.0, "milliseconds broadcast frames may wait to leave together while the server is busy (0: never)"
    )
    standings_tick_ms: float = _limit(
        250.0, "milliseconds an entrant's standings may wait to leave with other frames while the server is busy"
    )
    fanout_busy_share: float = _limit(
        0.5,
        "share of the time the event loop is busy from which broadcast frames wait for the fan-out tick "
        "(over 1: never)",
    )
    gc_full_threshold: int = _limit(100, "middle-generation garbage collections between full ones (Python's own: 10)")
    rate_per_s: float = _limit(100.0, "incoming frames per second per connection, sustained")
    burst: int = _limit(200, "incoming frames above the rate a connection may send in a burst")
    max_strikes: int = _limit(50, "frames over the rate before the connection is closed")
    max_connections: int = _limit(10_000, "open connections for the whole server")
    max_connections_per_ip: int = _limit(128, "open connections from one address")
    connections_per_s_per_ip: float = _limit(50.0, "new websockets a second from one address, sustained")
    connections_burst_per_ip: int = _limit(500, "new websockets from one address above that rate, in a burst")
    open_timeout_s: float = _limit(10.0, "seconds to finish the websocket handshake")
    hello_timeout_s: float = _limit(10.0, "seconds a new connection has to say hello")
    ping_interval_s: float | None = _limit(
        20.0, "seconds a connection may be quiet before it is pinged ('none': no pings)"
    )
    ping_timeout_s: float | None = _limit(20.0, "seconds to wait for a ping's answer ('none': forever)")
    max_open_races_per_player: int = _limit(5, "races a player created that have not started")
    max_open_races_per_ip: int = _limit(20, "races created from one address that have not started")
    races_per_hour_per_player: int = _limit(30, "races one player may create in an hour")
    races_per_hour_per_ip: int = _limit(300, "races that may be created from one address in an hour")
    open_race_ttl_s: float = _limit(1800.0, "seconds before an open race nobody started expires")
    idle_timeout_s: float | None = _limit(300.0, "seconds without a move before an entrant is out of time ('none')")
    max_moves: int = _limit(5000, "moves per entrant per race")
    sync_page_events: int = _limit(256, "events sent per page of a sync")
    race_retention_s: float = _limit(3600.0, "seconds finished races and tournaments stay in memory")
    record_retention_s: float = _limit(86_400.0, "seconds the store keeps a race's record after that")
    archive_retention_days: float | None = _limit(
        None, "days the archive keeps a finished race or tournament ('none' or 0: forever)"
    )
    player_retention_s: float = _limit(3600.0, "seconds before an idle, disconnected player is forgotten")
    max_players_per_ip: int = _limit(256, "players kept from one address (the idle one gone longest makes room)")
    max_events_per_race: int = _limit(10_000, "events kept per race for catching up")
    sweep_interval_s: float = _limit(1.0, "seconds between housekeeping sweeps")
    log_repeat_s: float = _limit(10.0, "the same log message is written at most once per this many seconds")
    shutdown_grace_s: float = _limit(10.0, "seconds a shutdown (SIGTERM, SIGINT) may take before the process exits")
    par_workers: int = _limit(0, "worker processes that work out each finished race's par (0: none)", serve=1)
    par_nodes: int = _limit(100_000_000, "moves the solver may try for one race's par")
    par_seconds: float = _limit(10.0, "seconds the solver may spend on one race's par")
    par_memory_mb: float = _limit(256.0, "mebibytes the solver may hold for one search (par or winnable)")
    winnable_nodes: int = _limit(100_000_000, "moves the solver may try on each fresh deal it tries to prove winnable")
    winnable_seconds: float = _limit(5.0, "seconds the solver may spend on each fresh deal it tries to prove winnable")
    winnable_wait_s: float = _limit(10.0, "seconds a request for winnable secret deals waits for the solver in all")
    winnable_searches: int = _limit(4, "requests for winnable secret deals the solver works on at once, whole server")
    winnable_searches_per_ip: int = _limit(
        1, "requests for winnable secret deals the solver works on at once per address"
    )
    replay_per_s: float = _limit(10.0, "replay requests per second per connection, sustained")
    watch_per_s: float = _limit(2.0, "watch requests per second per connection, sustained")
    get_record_per_s: float = _limit(0.5, "get_record requests per second per connection, sustained")
    history_per_s: float = _limit(2.0, "history requests per second per connection, sustained")
    login_failures_per_name: int = _limit(5, "failed logins to one claimed name per login_window_s")
    login_failures_per_ip: int = _limit(20, "failed logins from one address per login_window_s")
    login_window_s: float = _limit(300.0, "seconds over which failed logins are counted (refilled evenly)")
    transfer_code_minutes: float = _limit(10.0, "minutes a transfer code stays good")
    passkey_challenge_s: float = _limit(120.0, "seconds a passkey challenge (passkey_begin) stays good")
    max_following: int = _limit(200, "players one player may follow")
    challenges_per_hour: int = _limit(20, "challenges one player may send in an hour")
    password_per_s: float = _limit(0.2, "claim, login and redeem requests per second per connection, sustained")
    password_hashes_at_once: int = _limit(2, "argon2id password hashes worked out at once, server-wide")
    password_hashes_waiting: int = _limit(16, "password hashes queued behind those, server-wide, before refusing")
    sync_per_s: float = _limit(10.0, "sync requests per second per connection, sustained")
    winnable_per_s: float = _limit(0.2, "create_race requests for a winnable secret deal per second per connection")
    costly_burst_s: float = _limit(10.0, "seconds' worth of each costly request's rate a connection may send at once")
    costly_per_address: float = _limit(8.0, "an address's budget for each costly request, in connections' worth")
    lease_s: float = _limit(1.0, "with Redis: seconds a node counts as alive after each heartbeat (its races' lease)")
    forward_timeout_s: float = _limit(3.0, "with Redis: seconds a request forwarded to another node may take")
    redis_wait_replicas: int = _limit(0, "with Redis: replicas that must hold each accepted move before it is answered")
    redis_wait_timeout_ms: float = _limit(1000.0, "with Redis: milliseconds a move may wait for those replicas")
    daily_time_limit_s: int = _limit(900, "seconds a daily challenge's race lasts at most (less near the day's end)")
    daily_days_kept: int = _limit(400, "days of daily challenge results kept in memory, and the days a streak counts")
    node_id: str | None = None
    admin_token: str | None = None
    public_origin: str | None = None
    daily_secret: str | None = None
    redis_url: str | None = None
    archive_url: str | None = None
    data_dir: Path | None = None
    catalog_dir: Path = field(default_factory=public_catalogs)
    private_catalog_dir: Path | None = None
    trusted_proxies: tuple[str, ...] = ()
    metrics_from: tuple[str, ...] = ("127.0.0.1", "::1")

    @classmethod
    def limits(cls) -> list[dataclasses.Field]:
        """The fields that are limits and timings, in declaration order, each with its one-line
        ``metadata["help"]``: what `arena serve` turns into flags and environment variables."""
        return [f for f in dataclasses.fields(cls) if "help" in f.metadata]

    def archive_location(self) -> str | None:
        """The URL of the archive finished races and tournaments go to: ``archive_url``, else
        the SQLite file `ARCHIVE_FILE` in ``data_dir`` (made absolute), else None: no archive.

        >>> ServerConfig(data_dir=Path("/srv/arena")).archive_location()
        'sqlite:////srv/arena/arena.db'
        >>> ServerConfig().archive_location() is None
        True
        """
        if self.archive_url is not None:
            return self.archive_url
        if self.data_dir is not None:
            return f"sqlite:///{Path(self.data_dir).expanduser().absolute() / ARCHIVE_FILE}"
        return None
