"""Operating a server: graceful shutdown on SIGTERM and SIGINT, structured JSON logs, and
``GET /healthz`` and ``GET /metrics`` over real HTTP."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import signal
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from client.connection import ArenaClient, ArenaConnectionError, ArenaError
from engine.games import find_game
from server import protocol as p
from server.app import SHUTDOWN_REASON, ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from server.race import Clock, Race
from server.store.memory import MemoryStore
from tests.conftest import MS, http_get
from tests.server.conftest import FastClock
from tooling.server_process import ServerProcess, cpu_seconds

#: A public Klondike deal and its winning line (seeds/klondike.txt): every move of it is legal.
WINNER = load_catalog(public_catalogs(), "klondike")[0]
GRACE_S = 5


def _wait_exit(server: ServerProcess, timeout_s: float) -> int | None:
    assert server.process is not None
    try:
        return server.process.wait(timeout_s)
    except Exception:
        return None


async def _spy_move_results(client: ArenaClient) -> list[p.MoveResult]:
    """Every MoveResult frame the client receives, repeats included."""
    seen: list[p.MoveResult] = []
    route = client._route

    def spy(message: object) -> None:
        if isinstance(message, p.MoveResult):
            seen.append(message)
        route(message)

    client._route = spy  # type: ignore[method-assign]
    return seen


async def _close_frame(client: ArenaClient) -> tuple[int | None, str | None]:
    """The close code and reason the server sent, once the client's connection has ended
    (events until then are skipped)."""
    async with asyncio.timeout(GRACE_S + 5):
        while True:
            try:
                await client.next_event(timeout_s=GRACE_S + 5)
            except ArenaConnectionError:
                ws = client._ws
                assert ws is not None
                return ws.close_code, ws.close_reason


@pytest.mark.parametrize("event_loop", ["uvloop", "asyncio"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.slow
async def test_a_signal_mid_race_drains_ends_the_race_and_exits_0(signum, event_loop):
    """A signal while an entrant moves in a loop: every move gets one answer, every accepted move
    is in the record, the race ends with server_shutdown for its entrant and spectator, both are
    closed with 1001, and the process exits 0 within the grace; on either event loop
    (``--event-loop``; uvloop is the default where it is installed)."""
    limits = {"shutdown_grace_s": GRACE_S, "rate_per_s": 10_000, "burst": 10_000}
    async with ServerProcess(limits, extra_flags=["--event-loop", event_loop]) as server:
        ann = await ArenaClient.connect(server.url, "ann")
        sam = await ArenaClient.connect(server.url, "sam")
        results = await _spy_move_results(ann)
        info = await ann.create_race("klondike", seed=WINNER.seed, countdown_s=0)
        await ann.start_race(info.code)
        await ann.wait_for(lambda: info.code in ann.started, 5)
        await sam.watch(info.code)
        accepted: list[p.MoveResult] = []

        async def play() -> None:
            for notation in WINNER.moves:
                try:
                    result = await ann.move(info.code, notation)
                except ArenaError:
                    return
                if not result.ok:
                    assert result.code in ("unavailable", "race_over"), result
                    return
                accepted.append(result)

        mover = asyncio.create_task(play())
        await ann.wait_for(lambda: len(accepted) >= 10 or mover.done(), 10)
        signalled = time.monotonic()
        server.process.send_signal(signum)
        await asyncio.wait_for(mover, GRACE_S + 5)
        assert len(accepted) < len(WINNER.moves), "the race was won before the signal"
        await ann.wait_for(lambda: info.code in ann.finished, GRACE_S)
        finished = ann.finished[info.code]
        assert finished.reason == "server_shutdown"
        assert finished.seed == WINNER.seed and finished.salt
        (standing,) = finished.standings
        assert standing.moves == len(accepted)
        try:
            record = await ann.get_record(info.code)
        except ArenaError:
            record = None  # closed before we asked: the standings above hold the count
        if record is not None:
            assert record.entrants[0].moves == [r.move for r in accepted]
        assert [r.seq for r in accepted] == list(range(1, len(accepted) + 1))
        acked = [r.seq for r in results if r.ok]
        assert len(acked) == len(set(acked)) == len(accepted), "a move was acknowledged twice"
        await sam.wait_for(lambda: info.code in sam.finished, GRACE_S)
        assert sam.finished[info.code].reason == "server_shutdown"
        for client in (ann, sam):
            assert await _close_frame(client) == (1001, SHUTDOWN_REASON)
        code = await asyncio.to_thread(_wait_exit, server, GRACE_S + 5)
        took = time.monotonic() - signalled
        assert code == 0, server.log_text()[-2000:]
        assert took < GRACE_S + 1, f"exit took {took:.1f} s"
        await ann.close()
        await sam.close()
        log = server.log_text()
        assert "1 races and 0 tournaments ended" in log and "Traceback" not in log
        assert f"(event loop: {event_loop})" in log


def _par_workers(pid: int) -> list[int]:
    """The par worker processes of server ``pid``: its children that multiprocessing spawned."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue  # (gone meanwhile)
        if ppid == pid and b"spawn_main" in command:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.slow
async def test_a_signal_while_a_par_search_runs_exits_within_the_grace():
    """A race that just finished has its par worked out in a worker process; SIGTERM while that
    search runs (Little Spider deal 1000: undecided for well over the grace) stops the worker,
    and the server exits 0 within the grace, not when the search ends."""
    limits = {"shutdown_grace_s": GRACE_S, "par_workers": 1, "par_seconds": 120, "par_memory_mb": 2048}
    async with ServerProcess(limits) as server:
        ann = await ArenaClient.connect(server.url, "ann")
        info = await ann.create_race("little_spider", seed=1000, countdown_s=0)
        await ann.start_race(info.code)
        await ann.wait_for(lambda: info.code in ann.started, 5)
        await ann.resign(info.code)
        await ann.wait_for(lambda: info.code in ann.finished, 5)
        async with asyncio.timeout(30):  # until the search has run a while (the import is quicker)
            while not (workers := _par_workers(server.pid)) or cpu_seconds(workers[0]) < 1.5:
                await asyncio.sleep(0.1)
        await ann.close()
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(_wait_exit, server, GRACE_S + 5)
        took = time.monotonic() - signalled
        assert code == 0, server.log_text()[-2000:]
        assert took < GRACE_S + 1, f"exit took {took:.1f} s"
        assert not Path(f"/proc/{workers[0]}").exists(), "the par worker outlived the server"


async def test_json_logs_carry_the_race_code_and_no_secret(monkeypatch):
    """With ARENA_LOG_FORMAT=json every line of the log is a JSON object with time, level,
    logger and event; the race's life is there with its code; no line holds the secret seed
    before the reveal, the salt, a session token or the admin token; instants are ISO 8601."""
    monkeypatch.setenv("ARENA_LOG_FORMAT", "json")
    admin = "admin-" + "s3cret" * 4
    async with ServerProcess({"admin_token": admin, "shutdown_grace_s": GRACE_S}) as server:
        ann = await ArenaClient.connect(server.url, "ann")
        bob = await ArenaClient.connect(server.url, "bob")
        info = await ann.create_race("klondike", countdown_s=0)  # a secret seed
        await bob.join_race(info.code)
        await ann.start_race(info.code)
        await ann.wait_for(lambda: info.code in ann.started, 5)
        await ann.resign(info.code)
        await bob.resign(info.code)
        await ann.wait_for(lambda: info.code in ann.finished, 5)
        finished = ann.finished[info.code]
        with pytest.raises(ArenaError) as refused:
            await ann.create_tournament("wrong-" + admin, "Cup", "klondike", 1, starts_at="2999-01-01T20:00:00Z")
        assert refused.value.code == "not_organiser"
        cup = await ann.create_tournament(admin, "Cup", "klondike", 1, starts_at="2999-01-01T20:00:00Z")
        tokens = [ann.token, bob.token]
        await ann.close()
        await bob.close()
        server.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(_wait_exit, server, GRACE_S + 5) == 0
        lines = [json.loads(line) for line in server.log_text().splitlines() if line.strip()]
    iso = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
    for line in lines:
        assert {"time", "level", "logger", "event"} <= line.keys(), line
        assert iso.fullmatch(line["time"]) and line["level"] in ("debug", "info", "warning", "error")
    events = [line["event"] for line in lines]
    of_race = {line["event"]: line for line in lines if line.get("race") == info.code}
    assert {"race_created", "player_joined", "race_started", "race_finished"} <= of_race.keys(), events
    assert of_race["race_finished"]["reason"] == "all_done" and of_race["race_finished"]["standings"]
    assert {line["player_name"] for line in lines if line["event"] == "player_joined"} == {"ann", "bob"}
    assert any(line["event"] == "request_refused" and line["code"] == "not_organiser" for line in lines)
    created = next(line for line in lines if line["event"] == "tournament_created")
    assert created["tournament"] == cup.id and created["starts_at"] == "2999-01-01T20:00:00.000Z"
    assert {"server_started", "server_stopping", "server_stopped", "tournament_cancelled"} <= set(events)
    reveal = events.index("race_finished")
    text = [json.dumps(line) for line in lines]
    assert not any(str(finished.seed) in line for line in text[:reveal]), "the seed was logged before the reveal"
    for secret in (finished.salt, admin, *tokens):
        assert secret and not any(secret in line for line in text), "a secret was logged"


async def test_healthz_and_metrics_over_http(server, peers):
    """/healthz answers ok (503 while shutting down); /metrics, in Prometheus' text format,
    counts the moves accepted and refused, the requests by type, the races by status and the
    frames sent."""
    base = server.url.replace("ws://", "http://", 1)
    ann = await peers("ann")
    reply = await ann.request(p.CreateRace(req=1, game="klondike", seed=WINNER.seed, countdown_s=0), p.RaceReply)
    code = reply.race.code
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    await ann.expect(p.RaceStarted)
    for seq, move in enumerate(WINNER.moves[:3], 1):
        assert (await ann.move(code, seq, move)).ok
    assert (await ann.move(code, 4, "t9>>")).code == "bad_notation"
    assert (await ann.move(code, 9, WINNER.moves[3])).code == "seq_gap"
    assert (await ann.request(p.JoinRace(req=3, race="NOSUCH"), p.RaceReply)).code == "unknown_race"

    status, headers, body = await asyncio.to_thread(http_get, base + "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, headers, body = await asyncio.to_thread(http_get, base + "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }
    assert samples[("arena_moves_accepted_total", ())] == 3
    assert samples[("arena_moves_refused_total", (("code", "bad_notation"),))] == 1
    assert samples[("arena_moves_refused_total", (("code", "seq_gap"),))] == 1
    assert samples[("arena_requests_total", (("type", "move"),))] == 5
    assert samples[("arena_requests_total", (("type", "hello"),))] == 1
    assert samples[("arena_requests_refused_total", (("code", "unknown_race"),))] == 1
    assert samples[("arena_races", (("status", "running"),))] == 1
    assert samples[("arena_sessions_open", ())] == 1 and samples[("arena_connections_open", ())] >= 1
    assert samples[("arena_frames_sent_total", ())] >= 8 and samples[("arena_bytes_sent_total", ())] > 100
    assert samples[("arena_shutting_down", ())] == 0
    assert ("arena_event_loop_lag_seconds_count", ()) in samples

    server.draining = True  # as during a shutdown: what a health check sees (the listener stays here)
    try:
        status, _, body = await asyncio.to_thread(http_get, base + "/healthz")
    finally:
        server.draining = False
    assert status == 503 and json.loads(body)["status"] == "shutting_down"


async def test_metrics_are_served_only_to_the_metrics_from_addresses():
    """Loopback may read /metrics by default; a client a trusted proxy forwards from elsewhere
    may not, nor anyone when the list is empty."""
    config = ServerConfig(ping_interval_s=None, trusted_proxies=("127.0.0.1",))
    async with ArenaServer(config) as server:
        base = server.url.replace("ws://", "http://", 1)
        assert (await asyncio.to_thread(http_get, base + "/metrics"))[0] == 200
        forwarded = await asyncio.to_thread(http_get, base + "/metrics", **{"X-Forwarded-For": "203.0.113.9"})
        assert forwarded[0] == 403
    async with ArenaServer(ServerConfig(ping_interval_s=None, metrics_from=())) as server:
        assert (await asyncio.to_thread(http_get, server.url.replace("ws://", "http://", 1) + "/metrics"))[0] == 403
    async with ArenaServer(ServerConfig(ping_interval_s=None, metrics_from=("10.0.0.0/8", "127.0.0.0/8"))) as server:
        assert (await asyncio.to_thread(http_get, server.url.replace("ws://", "http://", 1) + "/metrics"))[0] == 200


async def test_while_draining_only_records_are_served_then_1001(server, peers):
    """During a shutdown a new request is refused with unavailable, a finished race's record is
    still served, and then the connection is closed with 1001."""
    ann = await peers("ann")
    reply = await ann.request(p.CreateRace(req=1, game="klondike", seed=WINNER.seed, countdown_s=0), p.RaceReply)
    code = reply.race.code
    await ann.request(p.StartRace(req=2, race=code), p.RaceReply)
    await ann.expect(p.RaceStarted)
    assert (await ann.move(code, 1, WINNER.moves[0])).ok
    stopping = asyncio.create_task(server.shutdown())
    finished = await ann.expect(p.RaceFinished)
    assert finished.reason == "server_shutdown" and finished.seed == WINNER.seed
    record = await ann.request(p.GetRecord(req=3, race=code), p.RaceRecord)
    assert record.entrants[0].moves == [WINNER.moves[0]]
    refused = await ann.request(p.CreateRace(req=4, game="klondike"), p.RaceReply)
    assert isinstance(refused, p.Error) and refused.code == "unavailable"
    assert (await ann.move(code, 2, WINNER.moves[1])).code == "unavailable"
    await asyncio.wait_for(stopping, 5000 * MS + GRACE_S)
    await asyncio.wait_for(ann._reader, 5)
    assert ann.ws.close_code == 1001 and ann.ws.close_reason == SHUTDOWN_REASON


async def test_a_shutdown_ends_tournaments_and_reveals_an_arena_deal():
    """An arena tournament's deal holds its seed until the tournament ends; a shutdown ends the
    tournament (cancelled) and the deal (server_shutdown), so the entrant gets seed and salt."""
    admin = "organiser-secret"
    config = ServerConfig(ping_interval_s=None, admin_token=admin, idle_timeout_s=None)
    async with ArenaServer(config, clock=FastClock(100)) as server:
        org = await ArenaClient.connect(server.url, "org")
        ann = await ArenaClient.connect(server.url, "ann")
        try:
            starts = dt.datetime.fromtimestamp(server.clock.wall_ms() / 1000 + 60, dt.UTC).isoformat()
            cup = await org.create_tournament(
                admin,
                "Daily Golf",
                "golf",
                1,
                format="arena",
                starts_at=starts,
                arena_window_s=600,
                deal_time_limit_s=600,
                countdown_s=5,
            )
            await org.follow_tournament(cup.id)
            await ann.wait_for(lambda: server.tournaments[cup.id].status == "registration", timeout_s=5)
            await ann.register_tournament(cup.id)
            await ann.wait_for(lambda: ann.tournaments[cup.id].status == "running", timeout_s=10)
            deal = await ann.open_deal(cup.id)
            await ann.wait_for(lambda: deal.code in ann.started, timeout_s=5)
            await server.shutdown()
            await ann.wait_for(lambda: deal.code in ann.finished, timeout_s=5)
            finished = ann.finished[deal.code]
            assert finished.reason == "server_shutdown" and finished.seed is not None and finished.salt
            await org.wait_for(lambda: org.tournaments[cup.id].status == "cancelled", timeout_s=5)
        finally:
            await org.close()
            await ann.close()


async def test_serve_sets_the_full_collection_threshold_and_freezes_what_the_start_made():
    """`serve` (what `arena serve` runs) makes full garbage collections rarer (its
    ``gc_full_threshold``) and freezes the objects the start made, so that a full collection
    scans only what came later; the threshold and the frozen objects are given back after."""
    import gc

    from server.app import serve
    from tests.conftest import _free_port

    before = gc.get_threshold()
    port = _free_port()
    stop = asyncio.Event()
    task = asyncio.ensure_future(serve("127.0.0.1", port, ServerConfig(gc_full_threshold=37), stop=stop))
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                status, _, _ = await asyncio.to_thread(http_get, f"http://127.0.0.1:{port}/healthz")
                if status == 200:
                    break
            except OSError:
                await asyncio.sleep(0.05)
        assert gc.get_threshold() == (before[0], before[1], 37)
        assert gc.get_freeze_count() > 0
    finally:
        stop.set()
        await asyncio.wait_for(task, 15)
        gc.set_threshold(*before)
        gc.unfreeze()


async def test_closing_a_race_ends_a_timer_that_swallowed_its_cancellation():
    """A cancellation that lands in a Redis command can be lost (`server.stopping`). A race's
    timer caught so in a store call would go on to sleep until the race's time limit (here ten
    minutes), and closing the race (the server's close) would wait for it: the timer is
    cancelled again until it ends."""

    class SwallowingStore(MemoryStore):
        slow = False

        async def save_race(self, code: str, meta: dict[str, object]) -> None:
            if self.slow:
                try:
                    await asyncio.sleep(0.5)
                except asyncio.CancelledError:
                    pass  # lost, as in a Redis command
            await super().save_race(code, meta)

    store = SwallowingStore()
    race = Race(
        "RSWALLOW",
        find_game("golf"),
        options={},
        seed=7,
        seed_public=True,
        creator="ann",
        max_entrants=2,
        countdown_s=0,
        time_limit_s=600,
        store=store,
        clock=Clock(),
    )
    await race.join("ann", "ann", None)
    await race.start("ann")
    store.slow = True  # the start's own save is done; the timer's, as the race starts, is slow
    await asyncio.sleep(0.1)
    (timer,) = race._tasks
    assert race.status == "running" and not timer.done()  # in its save
    closing = asyncio.ensure_future(race.close())
    done, _ = await asyncio.wait({closing}, timeout=3)
    timer.cancel()  # (where the close waits in vain: the timer sleeps now, and this ends it)
    await closing
    assert closing in done, "the close waited for the time limit"
    assert race.version == 3  # the timer went on past its cancellation (race_started), then ended
