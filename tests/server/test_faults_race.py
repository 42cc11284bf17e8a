"""Faults seen from a race's side, over a real ``redis-server``: a node that lost its race lets it
go at once and its players go on through it; a move log that Redis lost the tail of voids the
race, in words, with an operator alert.

(a) Two ``arena serve`` nodes; node two owns the race and is paused (SIGSTOP) past its lease, so
that node one takes the race over; when two runs again, its entrant's moves reach node one
through it, with no endless ``unavailable``, and the race finishes with every acknowledged move
in its record exactly once. (b) One node; the tail of an entrant's move log is deleted in Redis
behind the server's back (as a lost append-only file tail would): the race ends ``void``, the
entrants are told which moves were lost, /metrics counts it, and no further move is accepted.
Each prints its figures (acknowledged, lost, doubled, the longest gap between acknowledgements
as a client saw it)."""

from __future__ import annotations

import asyncio
import logging
import signal
import time

import pytest
import redis.asyncio as aioredis

from client.connection import ArenaClient
from client.verify import verify_record
from server.app import ArenaServer
from server.catalog import load_catalog, public_catalogs
from server.config import ServerConfig
from server.store.redis import RedisStore
from tests.conftest import MS, RedisServer, http_get
from tests.server.test_nodes import node_pair

#: A public Golf deal and its winning line (seeds/golf.txt): every move of it is legal.
WINNER = load_catalog(public_catalogs(), "golf")[0]
LINE = list(WINNER.moves)
WAIT_S = 10_000 * MS
#: How long node two is paused: three of its one-second leases.
PAUSE_S = 3.0


class Player:
    """One entrant playing ``LINE`` from its client, resending a move refused ``unavailable`` or
    ``moved``; it counts what it sees: acknowledged moves (seq -> answer), answers per seq,
    refusals by code, and when each acknowledgement came (monotonic seconds)."""

    def __init__(self, client: ArenaClient, code: str) -> None:
        self.client = client
        self.code = code
        self.acked: dict[int, object] = {}
        self.answers: dict[int, int] = {}
        self.refused: dict[str, int] = {}
        self.times: list[float] = []

    async def play(self, moves: list[str], pause_s: float = 0.02) -> None:
        deadline = time.monotonic() + 4 * WAIT_S
        for notation in moves:
            while True:
                result = await self.client.move(self.code, notation)
                self.answers[result.seq] = self.answers.get(result.seq, 0) + 1
                if result.ok:
                    break
                self.refused[result.code] = self.refused.get(result.code, 0) + 1
                assert result.code in ("unavailable", "moved"), result
                assert time.monotonic() < deadline, f"{self.client.name}: refused {self.refused} and never played"
                await asyncio.sleep(0.05)
            assert result.seq not in self.acked, f"move {result.seq} acknowledged twice"
            self.acked[result.seq] = result
            self.times.append(time.monotonic())
            await asyncio.sleep(pause_s)

    def longest_gap_s(self) -> float:
        return max((b - a for a, b in zip(self.times, self.times[1:], strict=False)), default=0.0)


@pytest.mark.slow
async def test_a_node_paused_past_its_lease_lets_its_race_go_and_its_entrant_plays_on_through_it(tmp_path):
    """Node two owns the race and serves Ann; Bob plays through node one. Node two is stopped
    (SIGSTOP) for three leases: node one takes the race over. When node two runs again, Ann's
    next move is carried out by node one (node two lets the race go and passes the move on), so
    Ann is never refused over and over; both win, and the record holds each acknowledged move
    once."""
    async with node_pair(RedisServer(tmp_path), {"shutdown_grace_s": 5}) as (one, two):
        ann = await ArenaClient.connect(two.url, "ann", timeout_s=WAIT_S)
        bob = await ArenaClient.connect(one.url, "bob", timeout_s=WAIT_S)
        code = (await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)).code
        await bob.join_race(code)
        await ann.start_race(code)
        for client in (ann, bob):
            await client.wait_for(lambda c=client: code in c.started, WAIT_S)
        players = {"ann": Player(ann, code), "bob": Player(bob, code)}

        async def pause_two() -> float:
            while len(players["ann"].acked) < 10:
                await asyncio.sleep(0.005)
            assert two.process is not None
            two.process.send_signal(signal.SIGSTOP)
            stopped = time.monotonic()
            try:
                await asyncio.sleep(PAUSE_S)
            finally:
                two.process.send_signal(signal.SIGCONT)
            return stopped

        pauser = asyncio.ensure_future(pause_two())
        await asyncio.gather(players["ann"].play(LINE, 0.05), players["bob"].play(LINE, 0.05))
        stopped = await pauser
        for client in (ann, bob):
            await client.wait_for(lambda c=client: code in c.finished, WAIT_S)
        assert [s.status for s in ann.finished[code].standings] == ["won", "won"]

        record = await bob.get_record(code)
        assert verify_record(record, ann.commitments[code]).ok
        for entrant in record.entrants:
            player = players[entrant.name]
            acked = sorted(player.acked)
            lost = len(set(acked) - set(range(1, len(entrant.moves) + 1)))
            doubled = len(entrant.moves) - len(acked)
            assert acked == list(range(1, len(LINE) + 1)) and entrant.moves == LINE
            assert lost == 0 and doubled == 0
            print(
                f"\n{entrant.name} (on node {'two' if entrant.name == 'ann' else 'one'}): "
                f"acknowledged {len(acked)}, lost {lost}, doubled {doubled}, "
                f"refused {player.refused or 'never'}, longest gap {player.longest_gap_s():.2f} s "
                f"(node two stopped {PAUSE_S:.0f} s)"
            )
        # Ann's moves stall while her node is stopped, then go on at once: a refusal or two at most
        # while the race changes hands, never one per retry for as long as she tries
        assert sum(players["ann"].refused.values()) <= 3, players["ann"].refused
        assert players["ann"].longest_gap_s() < PAUSE_S + 3.0
        assert time.monotonic() - stopped < 4 * WAIT_S
        log = two.log_text()
        assert "leaves this node's memory" in log, log[-3000:]
        assert "Traceback" not in log and "Traceback" not in one.log_text(), log[-3000:]
        for client in (ann, bob):
            await client.close()


async def test_a_move_log_shorter_than_acknowledged_voids_the_race_and_says_so(redis_server, redis_prefix, caplog):
    """Ann plays 8 moves and Bob 3; then the last 3 of Ann's are deleted from Redis (a lost
    append-only file tail). Ann's next move finds it: she is told that the server lost her last 3
    moves; both get ``race_finished`` with reason ``void`` and the words; the race is counted in
    /metrics and logged at ERROR; no further move of either is accepted."""
    config = ServerConfig(redis_url=redis_server.url, rate_per_s=10_000, burst=10_000, ping_interval_s=None)
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    server = ArenaServer(config, store=store)
    await server.start()
    raw = aioredis.Redis.from_url(redis_server.url)
    try:
        ann = await ArenaClient.connect(server.url, "ann", timeout_s=WAIT_S)
        bob = await ArenaClient.connect(server.url, "bob", timeout_s=WAIT_S)
        code = (await ann.create_race("golf", seed=WINNER.seed, countdown_s=0)).code
        await bob.join_race(code)
        await ann.start_race(code)
        for client in (ann, bob):
            await client.wait_for(lambda c=client: code in c.started, WAIT_S)
        for client, count in ((ann, 8), (bob, 3)):
            for notation in LINE[:count]:
                assert (await client.move(code, notation)).ok

        key = f"{redis_prefix}:race:{{{code}}}:moves:{ann.player}"
        tail = await raw.xrevrange(key, count=3)
        assert await raw.xdel(key, *[entry_id for entry_id, _ in tail]) == 3

        with caplog.at_level(logging.ERROR, logger="arena.races"):
            refused = await ann.move(code, LINE[8])
        assert not refused.ok and refused.code == "race_over", refused
        assert "lost your last 3 moves" in refused.reason and "void" in refused.reason, refused.reason
        for client in (ann, bob):
            await client.wait_for(lambda c=client: code in c.finished, WAIT_S)
            finished = client.finished[code]
            assert finished.reason == "void" and finished.double_or_naught == []
            assert "the last 3 moves of ann" in finished.detail and "void" in finished.detail, finished.detail
        assert any(r.levelno == logging.ERROR and getattr(r, "event", "") == "race_void" for r in caplog.records)
        status, _, body = await asyncio.to_thread(http_get, server.url.replace("ws://", "http://") + "/metrics")
        assert status == 200 and b"arena_races_void_total 1.0" in body, body[-2000:]
        for client, notation in ((bob, LINE[3]), (ann, LINE[5])):
            later = await client.move(code, notation)
            assert not later.ok and later.code == "race_over", later
        assert [m.seq for m in await store.moves(code, ann.player)] == [1, 2, 3, 4, 5]
        record = await bob.get_record(code)
        assert "the last 3 moves of ann" in record.void and len(record.entrants[0].moves) == 5, record.void
        report = verify_record(record, bob.commitments[code])
        assert report.verified and report.verdict.startswith("verified; void, no result: "), str(report)
        print(
            "\nlost tail: ann acknowledged 8, Redis kept 5 (3 lost, all named to the entrants), "
            "0 doubled; race void, 1 counted in arena_races_void_total"
        )
        for client in (ann, bob):
            await client.close()
    finally:
        await raw.aclose()
        await server.close()
        await store.close()
