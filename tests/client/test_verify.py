"""`verify_record` passes an honest race record and names the check that a tampered one fails."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from client.bot import play_game
from client.commitments import CommitmentCache, cache_path
from client.verify import CHECKS, commitment_of, verify_record
from engine.games import find_game
from server.protocol import EntrantRecord, RaceInfo, RaceRecord, Standing

SALT = "5a17" * 8


def _entrant(
    key: str, seed: int, player: str, name: str, max_moves: int, step_ms: int
) -> tuple[EntrantRecord, int, int]:
    """An entrant who played the bot's moves (at most ``max_moves``), one every ``step_ms``;
    returns its record, its cleared count and the time (ms) it reached it."""
    game = find_game(key)(seed)
    play_game(game, max_moves=max_moves)
    replay = find_game(key)(seed)
    times, time_ms = [], 0
    for number, move in enumerate(game.history, start=1):
        before = replay.cleared
        replay.apply(move)
        times.append(number * step_ms)
        if replay.cleared != before:
            time_ms = number * step_ms
    status = "won" if game.won else "stuck"
    return EntrantRecord(player, name, [str(m) for m in game.history], times, status), game.cleared, time_ms


def make_record(key: str = "golf", seed: int = 4) -> RaceRecord:
    """An honest record of a three-entrant race: each entrant stops after a different number
    of moves, at a different pace."""
    rows = [
        _entrant(key, seed, f"p{i}", f"bot-{i}", max_moves, step)
        for i, (max_moves, step) in enumerate([(30, 120), (12, 100), (30, 90)])
    ]
    standings = [
        Standing(
            place=0,
            player=rec.player,
            name=rec.name,
            cleared=cleared,
            total=find_game(key).total,
            time_ms=time_ms,
            moves=len(rec.moves),
            status=rec.status,
            order=order,
            points=cleared,
        )  # type: ignore[arg-type]
        for order, (rec, cleared, time_ms) in enumerate(rows)
    ]
    standings.sort(key=lambda s: (-s.cleared, s.time_ms, s.order))
    for place, standing in enumerate(standings, start=1):
        standing.place = place
    commitment = hashlib.sha256(f"{seed}:{SALT}".encode()).hexdigest()
    info = RaceInfo(
        code="DEMO42",
        game=key,
        options={},
        rules_version=1,
        deal_version=1,
        creator="p0",
        entrants=[rec.player for rec, _, _ in rows],
        max_entrants=8,
        countdown_s=3,
        time_limit_s=900,
        status="finished",
        seed=seed,
        commitment=commitment,
        starts_at_ms=0,
        version=50,
    )
    return RaceRecord(
        req=1,
        race=info,
        seed=seed,
        salt=SALT,
        commitment=commitment,
        entrants=[rec for rec, _, _ in rows],
        standings=standings,
    )


def _failed(record: RaceRecord) -> list[str]:
    return verify_record(record).failed


@pytest.mark.parametrize("key", ["klondike", "golf", "clock"])
def test_an_honest_record_passes_every_check(key: str) -> None:
    report = verify_record(make_record(key, seed=4))
    assert report.ok, str(report)
    assert [c.name for c in report.checks] == list(CHECKS)


def test_a_void_record_checks_the_moves_kept_and_says_why_it_has_no_result() -> None:
    """A void race's store lost acknowledged moves, so its kept moves fall short of its
    standings: that fails ``cleared`` in a record with a result, and passes, with the words of
    why, in a void one; a kept move changed still fails the replay."""
    record = make_record()
    record.entrants[0].moves[-5:] = []
    record.entrants[0].times_ms[-5:] = []
    assert "cleared" in _failed(record)
    void = msgspec.structs.replace(record, void="the server lost the last 5 moves of bot-0")
    report = verify_record(void, void.commitment)
    assert report.ok and report.verified, str(report)
    assert [c.name for c in report.checks] == ["commitment", "versions", "replay"]
    assert report.verdict == "verified; void, no result: the server lost the last 5 moves of bot-0"
    void.entrants[0].moves[3] = "r0>r1"
    assert verify_record(void, void.commitment).failed == ["replay"]


def test_the_commitment_is_sha256_of_seed_and_salt() -> None:
    assert commitment_of(42, "ab") == hashlib.sha256(b"42:ab").hexdigest()


def test_a_wrong_salt_fails_the_commitment() -> None:
    record = make_record()
    assert _failed(msgspec.structs.replace(record, salt="00" * 16)) == ["commitment"]


def test_a_seed_other_than_the_committed_one_fails() -> None:
    record = make_record()
    failed = _failed(msgspec.structs.replace(record, seed=record.seed + 1))
    assert "commitment" in failed


def test_a_changed_move_fails_the_replay() -> None:
    record = make_record()
    entrant = record.entrants[0]
    entrant.moves[3] = "r0>r1"
    report = verify_record(record)
    assert "replay" in report.failed
    assert "move 4 ('r0>r1')" in report.check("replay").reason


def test_a_move_that_is_not_notation_fails_the_replay() -> None:
    record = make_record()
    record.entrants[1].moves[0] = "fly away"
    assert "replay" in _failed(record)


def test_a_move_without_a_time_fails_the_replay() -> None:
    record = make_record()
    record.entrants[2].times_ms.pop()
    assert "replay" in _failed(record)


def test_a_wrong_cleared_count_fails_the_cleared_check() -> None:
    record = make_record()
    record.standings[-1].cleared += 1
    assert "cleared" in _failed(record)


def test_standings_out_of_order_fail_the_order_check() -> None:
    record = make_record()
    assert record.standings[0].cleared > record.standings[-1].cleared
    record.standings.reverse()
    for place, standing in enumerate(record.standings, start=1):
        standing.place = place
    assert _failed(record) == ["order"]


def test_a_tie_on_cleared_goes_to_the_faster_entrant() -> None:
    record = make_record("golf", seed=4)
    first, second = record.standings[0], record.standings[1]
    assert first.cleared == second.cleared and first.time_ms < second.time_ms
    record.standings[0], record.standings[1] = second, first
    second.place, first.place = 1, 2
    assert _failed(record) == ["order"]


def test_a_wrong_time_fails_the_time_check() -> None:
    record = make_record()
    record.standings[0].time_ms += 1
    assert _failed(record) == ["time"]


def test_wrong_rule_versions_fail() -> None:
    record = make_record()
    race = msgspec.structs.replace(record.race, rules_version=99)
    assert _failed(msgspec.structs.replace(record, race=race)) == ["versions"]


def test_an_unknown_game_fails_without_raising() -> None:
    record = make_record()
    race = msgspec.structs.replace(record.race, game="no_such_game")
    report = verify_record(msgspec.structs.replace(record, race=race))
    assert not report.ok
    assert {"versions", "replay"} <= set(report.failed)
    assert [c.name for c in report.checks] == list(CHECKS)


# ------------------------------------------------- against the commitment published at the start


def test_a_record_whose_seed_salt_and_commitment_were_swapped_fails_against_the_kept_commitment():
    """A dishonest server can make a record agree with itself (new seed, salt and commitment
    together); only the commitment published at the start catches it."""
    honest = make_record("golf", seed=4)
    kept = honest.commitment
    forged_salt = "f0" * 16
    forged = msgspec.structs.replace(
        honest,
        seed=5,
        salt=forged_salt,
        commitment=commitment_of(5, forged_salt),
        race=msgspec.structs.replace(honest.race, seed=None, commitment=commitment_of(5, forged_salt)),
        entrants=[msgspec.structs.replace(e, moves=[], times_ms=[]) for e in honest.entrants],
        standings=[
            msgspec.structs.replace(s, place=s.order + 1, cleared=0, time_ms=0, points=0, status="stuck")
            for s in sorted(honest.standings, key=lambda s: s.order)
        ],
    )
    assert verify_record(forged).check("commitment").ok, "the forged record agrees with itself"
    untrusted = verify_record(forged)
    assert untrusted.ok and not untrusted.verified and untrusted.verdict.startswith("not verified")
    assert "not verified" in str(untrusted)
    report = verify_record(forged, kept)
    assert report.failed == ["commitment"] and "published at the start" in report.check("commitment").reason
    assert "does not match" in report.check("commitment").reason
    assert verify_record(honest, kept).verified


async def test_arena_verify_checks_against_the_commitment_given_on_the_command_line(tmp_path):
    """`arena verify CODE --commitment HEX`, typed in a shell against a live server: passes with
    the commitment the race published, fails (exit 1) with another one, and without one (none in
    its cache either) says "not verified" (exit 3)."""
    import asyncio
    import os
    import sys
    from pathlib import Path

    from client.connection import ArenaClient
    from server.app import ArenaServer
    from server.config import ServerConfig

    arena = str(Path(sys.executable).parent / "arena")

    async def verify(*extra: str) -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            arena,
            "verify",
            code,
            "--server",
            server.url,
            *extra,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=os.environ | {"ARENA_CACHE_DIR": str(tmp_path)},  # an empty cache
        )
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
        return proc.returncode, out.decode()

    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        async with await ArenaClient.connect(server.url, "ann") as ann:
            info = await ann.create_race("clock", countdown_s=0)
            code = info.code
            await ann.start_race(code)
            await ann.wait_for(lambda: code in ann.finished or code in ann.started, timeout_s=5)
            assert (await ann.move(code, "turn")).ok
            await ann.resign(code)
            await ann.wait_for(lambda: code in ann.finished, timeout_s=5)
            kept = ann.commitments[code]
            good, good_out = await verify("--commitment", kept)
            bad, bad_out = await verify("--commitment", "0" * 64)
            plain, plain_out = await verify()
    assert good == 0 and "verified" in good_out
    assert bad == 1 and "FAILED" in bad_out and "commitment" in bad_out
    assert plain == 3 and "not verified" in plain_out and "--commitment" in plain_out
    assert "verified" in good_out.replace("not verified", "") and "not verified" not in good_out


# ------------------------------------------- the CLI's cache of commitments, and a forging relay


async def _relay(upstream: str, forge: Callable[[RaceRecord], RaceRecord]):
    """A websocket relay to ``upstream`` that rewrites every race record it passes on with
    ``forge``; an async context manager giving its URL."""
    from websockets.asyncio.client import connect
    from websockets.asyncio.server import serve
    from websockets.exceptions import ConnectionClosed

    from server.protocol import decode_server, encode

    async def handle(client) -> None:
        async with connect(upstream, compression=None, max_size=None) as server:

            async def down() -> None:
                async for data in server:
                    message = decode_server(data) if isinstance(data, bytes) else None
                    await client.send(encode(forge(message)) if isinstance(message, RaceRecord) else data)

            async def up() -> None:
                async for data in client:
                    await server.send(data)

            with contextlib.suppress(ConnectionClosed):
                async with asyncio.TaskGroup() as group:
                    tasks = [group.create_task(down()), group.create_task(up())]
                    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                    for task in tasks:
                        task.cancel()

    @contextlib.asynccontextmanager
    async def running():
        async with serve(handle, "127.0.0.1", 0, compression=None, max_size=None) as relay:
            port = relay.sockets[0].getsockname()[1]
            yield f"ws://127.0.0.1:{port}"

    return running()


def _swap_deal(record: RaceRecord) -> RaceRecord:
    """The record of another deal that agrees with itself: seed, salt and commitment replaced
    together (a race without moves replays the same from any deal)."""
    seed, salt = record.seed + 1, "f0" * 16
    commitment = commitment_of(seed, salt)
    race = msgspec.structs.replace(record.race, seed=seed, commitment=commitment)
    return msgspec.structs.replace(record, seed=seed, salt=salt, commitment=commitment, race=race)


async def _arena(cache: Path, *args: str) -> tuple[int, str]:
    """``arena ARGS`` typed in a shell, with ``cache`` as its cache folder: (exit code, output)."""
    proc = await asyncio.create_subprocess_exec(
        str(Path(sys.executable).parent / "arena"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=os.environ | {"ARENA_CACHE_DIR": str(cache)},
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode()


@pytest.mark.slow
async def test_a_relay_that_swaps_the_deal_is_not_verified_without_a_trusted_commitment_and_caught_with_the_cached_one(
    tmp_path,
):
    """A race `arena watch` followed: its commitment is in the CLI's cache. Through a relay that
    swaps seed, salt and commitment consistently, `arena verify` without --commitment says "not
    verified" (exit 3) with an empty cache, and catches the swap with the cached commitment;
    straight from the server, the cached commitment verifies the race."""
    from client.connection import ArenaClient
    from server.app import ArenaServer
    from server.config import ServerConfig

    watched, empty = tmp_path / "watched", tmp_path / "empty"
    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server, await _relay(server.url, _swap_deal) as relay:
        async with await ArenaClient.connect(server.url, "ann") as ann:
            code = (await ann.create_race("clock", countdown_s=0)).code
            watch = asyncio.create_task(_arena(watched, "watch", code, "--server", server.url))
            async with asyncio.timeout(30):
                while not server.races[code].spectators:
                    await asyncio.sleep(0.02)
            await ann.start_race(code)
            await ann.wait_for(lambda: code in ann.finished or code in ann.started, timeout_s=5)
            await ann.resign(code)
            await ann.wait_for(lambda: code in ann.finished, timeout_s=5)
            assert (await watch)[0] == 0
        kept = ann.commitments[code]
        assert CommitmentCache(cache_path({"ARENA_CACHE_DIR": str(watched)})).get(code) == [kept]

        forged_plain, forged_plain_out = await _arena(empty, "verify", code, "--server", relay)
        forged_cached, forged_cached_out = await _arena(watched, "verify", code, "--server", relay)
        honest, honest_out = await _arena(watched, "verify", code, "--server", server.url)
    assert forged_plain == 3 and "not verified" in forged_plain_out, forged_plain_out
    assert forged_cached == 1 and "does not match" in forged_cached_out, forged_cached_out
    assert honest == 0 and "not verified" not in honest_out and "verified" in honest_out, honest_out
    assert kept in honest_out and "kept by arena while the race ran" in honest_out  # what it checked against


async def test_a_race_arena_played_is_verified_from_its_cache(tmp_path):
    """`arena bot` plays a race alone; `arena verify` then finds the commitment it saw in its
    cache: verified, exit 0, without --commitment."""
    from client.connection import ArenaClient
    from server.app import ArenaServer
    from server.config import ServerConfig

    async with ArenaServer(ServerConfig(ping_interval_s=None)) as server:
        async with await ArenaClient.connect(server.url, "host") as host:
            code = (await host.create_race("golf", countdown_s=0, join=False, undo=False)).code
            bot = asyncio.create_task(
                _arena(tmp_path, "bot", "--race", code, "--delay-ms", "0", "--server", server.url)
            )
            async with asyncio.timeout(30):
                while not server.races[code].entrants:
                    await asyncio.sleep(0.02)
            await host.start_race(code)
            played, played_out = await bot
        assert played == 0, played_out
        deadline = time.monotonic() + 5
        while not server.races[code].revealed and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        race = server.races[code]
        assert race.revealed, (played_out, race.status, [(e.name, e.cleared) for e in race.entrants.values()])
        verified, verified_out = await _arena(tmp_path, "verify", code, "--server", server.url)
    assert verified == 0 and "not verified" not in verified_out and "verified" in verified_out, verified_out
    assert "kept by arena while the race ran" in verified_out
