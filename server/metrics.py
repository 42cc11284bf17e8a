"""What ``GET /metrics`` reports, in Prometheus' text format (``prometheus-client``).

The hot path only adds to plain integers (`Tally`): about 55 ns an increment, where a
``prometheus_client`` counter takes a lock and costs about 430 ns, too much once per frame sent.
`Metrics` reads those integers, and the server's own counts (connections, races and tournaments
by status), when it is scraped, and keeps one registry per server, so that several servers in
one process (tests) never share or clash. Metric names (``_total``: counters):

* ``arena_connections_open``, ``arena_sessions_open``, ``arena_players``: sockets accepted
  (handshake or not), connections that are websockets, players in memory;
* ``arena_races{status}``, ``arena_tournaments{status}``: in memory, by status;
* ``arena_moves_accepted_total``, ``arena_moves_refused_total{code}``;
* ``arena_races_void_total``: races ended without a result because the store lost moves this
  node had acknowledged (an operator alert: `server.race.Race.void`; each also logged at ERROR);
* ``arena_requests_total{type}`` (a frame that decoded, by message type),
  ``arena_requests_refused_total{code}`` (every `Error` answered, bad frames included; a refused
  move is counted in ``arena_moves_refused_total`` instead);
* ``arena_frames_sent_total``, ``arena_bytes_sent_total``: handed to the socket;
  ``arena_socket_writes_total``: the writes that carried them (a system call each; frames sent to
  one connection in the same loop turn or fan-out tick share one);
* ``arena_send_queue_drops_total`` (frames dropped for a client being closed as too slow),
  ``arena_slow_client_closes_total``;
* ``arena_standings_superseded_total``: frames of a state (an entrant's standings, a
  spectator's board and standings of one entrant) replaced, before they were sent, by a newer
  frame of the same state, in a race's channel or for a client that is behind
  (`server.transport.fanout.FanoutChannel`, `server.transport.session.Session.send_shared`);
* ``arena_keepalive_pings_total``, ``arena_keepalive_timeouts_total``: pings sent to quiet
  connections, and connections closed for leaving one unanswered (`server.transport.keepalive.Keepalive`);
* ``arena_event_loop_lag_seconds``: how late a periodic sleep wakes up (a histogram), the time any
  request or timer may have waited for the event loop;
* ``arena_loop_busy_share``: the share of the last quarter second the event loop spent on the CPU,
  and ``arena_fanout_tick_ms``: how long broadcast frames may wait to leave together now (not 0
  while that share is high: `server.transport.fanout.Fanout`);
* ``arena_fanout_delay_seconds``: how late each fan-out tick's frames were written, from the end
  of the tick to the last write of its batch (a histogram; nothing while the tick is off). A
  spectator waits the tick plus this: when it grows, the loop has more to write than time to
  write it (docs/performance.md §2.3);
* ``arena_store_data_lost_total``: times the store found it had lost data this node wrote (Redis
  restarted empty, or without its last writes: `server.store.Store.on_data_loss`);
* ``arena_archive_pending`` (finished races and tournaments not archived yet),
  ``arena_archive_races_written_total``, ``arena_archive_tournaments_written_total``,
  ``arena_archive_repeated_total`` (writes the archive held already: retries, takeovers),
  ``arena_archive_failures_total`` (writes that failed, each tried again): only with an archive
  (`server.archiving.Archiver`);
* ``arena_shutting_down``: 1 while the server drains before it stops.

>>> tally = Tally()
>>> tally.moves_accepted += 1; tally.moves_refused["does_not_fit"] += 1
>>> metrics = Metrics(tally, lambda: {"connections": 2})
>>> text = metrics.render().decode()
>>> "arena_moves_accepted_total 1.0" in text, 'arena_moves_refused_total{code="does_not_fit"} 1.0' in text
(True, True)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE", "Metrics", "Tally"]

#: The ``Content-Type`` of a ``GET /metrics`` answer.
CONTENT_TYPE = CONTENT_TYPE_LATEST
#: Buckets of the event-loop lag histogram, seconds: a healthy loop stays in the first two.
_LAG_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
#: Buckets of the fan-out delay histogram, seconds: finer where a spectator's 50 ms budget is spent.
_FANOUT_DELAY_BUCKETS = (0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 1.0)


class Tally:
    """Counts the server bumps as it works (plain integers and dicts: no lock, no allocation once
    a key has been seen); read only when /metrics is scraped. ``requests`` is a plain dict
    (``d[k] = d.get(k, 0) + 1``: a `collections.Counter` costs half as much again), as it is
    bumped for every request."""

    __slots__ = (
        "moves_accepted",
        "moves_refused",
        "requests",
        "refused",
        "frames_sent",
        "bytes_sent",
        "socket_writes",
        "queue_drops",
        "slow_closes",
        "standings_superseded",
        "keepalive_pings",
        "keepalive_timeouts",
        "races_void",
    )

    def __init__(self) -> None:
        self.moves_accepted = 0
        self.moves_refused: Counter[str] = Counter()  # by code
        self.requests: dict[type, int] = {}  # by message class
        self.refused: Counter[str] = Counter()  # by code
        self.frames_sent = 0
        self.bytes_sent = 0
        self.socket_writes = 0  # writes to the sockets; a connection's frames of one turn or tick share one
        self.queue_drops = 0
        self.slow_closes = 0
        self.standings_superseded = 0
        self.keepalive_pings = 0
        self.keepalive_timeouts = 0
        self.races_void = 0  # races voided for moves the store lost (`server.race.Race.void`)


def _type_name(cls: type) -> str:
    """A message class's ``type`` on the wire (its msgspec tag), else its class name."""
    config = getattr(cls, "__struct_config__", None)
    tag = getattr(config, "tag", None)
    return str(tag) if tag is not None else cls.__name__


class Metrics:
    """One server's registry: its `Tally`, the counts ``counts()`` returns at scrape time
    (``connections``, ``sessions``, ``players``: ints; ``races``, ``tournaments``: {status: n};
    ``shutting_down``: bool; any may be left out), the event-loop lag histogram that the
    server's lag task feeds (`observe_lag`), and the fan-out delay histogram that its
    `server.transport.fanout.Fanout` feeds (`observe_fanout_delay`)."""

    def __init__(self, tally: Tally, counts: Callable[[], Mapping[str, object]]) -> None:
        self.tally = tally
        self._counts = counts
        self.registry = CollectorRegistry()
        self.registry.register(self)  # a collector: `collect`
        self._lag = Histogram(
            "arena_event_loop_lag_seconds",
            "How late a periodic sleep of the event loop woke up",
            buckets=_LAG_BUCKETS,
            registry=self.registry,
        )
        self._fanout_delay = Histogram(
            "arena_fanout_delay_seconds",
            "How late a fan-out tick's frames were written, from the tick's end to its last write",
            buckets=_FANOUT_DELAY_BUCKETS,
            registry=self.registry,
        )

    def observe_lag(self, seconds: float) -> None:
        """Record one measurement of the event loop's lag."""
        self._lag.observe(max(0.0, seconds))

    def observe_fanout_delay(self, seconds: float) -> None:
        """Record how late, in seconds, one fan-out tick's batch was written (once a tick)."""
        self._fanout_delay.observe(max(0.0, seconds))

    def render(self) -> bytes:
        """Every metric in Prometheus' text format (`CONTENT_TYPE`)."""
        return generate_latest(self.registry)

    def collect(self) -> Iterator[Metric]:
        """The server's counts, read now (called by the registry at each scrape)."""
        counts = self._counts()
        tally = self.tally
        for name, help_text in (
            ("connections", "Sockets accepted and open, handshake or not"),
            ("sessions", "Websocket connections open"),
            ("players", "Players in memory"),
        ):
            if name in counts:
                suffix = "_open" if name != "players" else ""
                yield GaugeMetricFamily(f"arena_{name}{suffix}", help_text, value=counts[name])  # type: ignore[arg-type]
        for name, help_text in (
            ("races", "Races in memory, by status"),
            ("tournaments", "Tournaments in memory, by status"),
        ):
            by_status = counts.get(name)
            if isinstance(by_status, Mapping):
                family = GaugeMetricFamily(f"arena_{name}", help_text, labels=["status"])
                for status, number in sorted(by_status.items()):
                    family.add_metric([str(status)], number)
                yield family
        for name, help_text in (
            (
                "fanout_tick_ms",
                "Milliseconds broadcast frames may wait to leave together now "
                "(0: at once; the server is not busy enough)",
            ),
            ("loop_busy_share", "Share of the last quarter second the event loop spent on the CPU"),
        ):
            if name in counts:
                yield GaugeMetricFamily(f"arena_{name}", help_text, value=counts[name])  # type: ignore[arg-type]
        if "shutting_down" in counts:
            yield GaugeMetricFamily(
                "arena_shutting_down",
                "1 while the server drains before it stops",
                value=1 if counts["shutting_down"] else 0,
            )
        if "store_data_lost" in counts:
            yield CounterMetricFamily(
                "arena_store_data_lost",
                "Times the store was found to have lost data this node wrote (server.store.Store.on_data_loss)",
                value=counts["store_data_lost"],  # type: ignore[arg-type]
            )
        if "archive_pending" in counts:
            yield GaugeMetricFamily(
                "arena_archive_pending",
                "Finished races and tournaments not archived yet (server.archiving)",
                value=counts["archive_pending"],  # type: ignore[arg-type]
            )
            for name, help_text in (
                ("archive_races_written", "Finished races written to the archive"),
                ("archive_tournaments_written", "Ended tournaments written to the archive"),
                ("archive_repeated", "Writes the archive already held (a retry, a takeover)"),
                ("archive_failures", "Archive writes that failed (each tried again)"),
            ):
                yield CounterMetricFamily(f"arena_{name}", help_text, value=counts[name])  # type: ignore[arg-type]
        yield CounterMetricFamily("arena_moves_accepted", "Moves accepted", value=tally.moves_accepted)
        yield _by_label("arena_moves_refused", "Moves refused, by code", "code", tally.moves_refused)
        yield CounterMetricFamily(
            "arena_races_void",
            "Races ended without a result because the store lost acknowledged moves",
            value=tally.races_void,
        )
        requests = {_type_name(cls): n for cls, n in tally.requests.items() if n}
        yield _by_label("arena_requests", "Requests decoded, by message type", "type", requests)
        yield _by_label(
            "arena_requests_refused", "Requests and frames answered with an error, by code", "code", tally.refused
        )
        yield CounterMetricFamily("arena_frames_sent", "Frames handed to the sockets", value=tally.frames_sent)
        yield CounterMetricFamily(
            "arena_bytes_sent", "Bytes of the frames handed to the sockets", value=tally.bytes_sent
        )
        yield CounterMetricFamily(
            "arena_socket_writes", "Writes of frames to the sockets (a system call each)", value=tally.socket_writes
        )
        yield CounterMetricFamily(
            "arena_send_queue_drops", "Frames dropped for a client closed as too slow", value=tally.queue_drops
        )
        yield CounterMetricFamily(
            "arena_slow_client_closes", "Clients closed because too many bytes waited for them", value=tally.slow_closes
        )
        yield CounterMetricFamily(
            "arena_standings_superseded",
            "Standings and board frames replaced by newer ones of the same state before they were sent",
            value=tally.standings_superseded,
        )
        yield CounterMetricFamily(
            "arena_keepalive_pings", "Keepalive pings sent to quiet connections", value=tally.keepalive_pings
        )
        yield CounterMetricFamily(
            "arena_keepalive_timeouts",
            "Connections closed for an unanswered keepalive ping",
            value=tally.keepalive_timeouts,
        )


def _by_label(name: str, help_text: str, label: str, counts: Mapping[str, int]) -> CounterMetricFamily:
    family = CounterMetricFamily(name, help_text, labels=[label])
    for key, number in sorted((str(k), n) for k, n in counts.items()):
        family.add_metric([key], number)
    return family
