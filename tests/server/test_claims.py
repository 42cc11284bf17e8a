"""Claimed names over a real server with an archive: claim, login from another connection,
wrong passwords and the login limit, look-alike names, transfer codes, forget_me."""

from __future__ import annotations

import asyncio
import threading
import time

import msgspec
import pytest
from websockets.asyncio.client import connect

from client.connection import ArenaClient
from server.app import ArenaServer
from server.archive.memory import MemoryArchive
from server.catalog import load_catalog, public_catalogs
from server.claims import GateFull, PasswordGate, hash_password
from server.config import ServerConfig
from server.players import token_digest
from server.protocol import (
    Claim,
    ForgetMe,
    Hello,
    Login,
    Redeem,
    Rename,
    TransferCodeRequest,
    encode,
)
from tests.conftest import RedisServer

_decoder = msgspec.msgpack.Decoder()
WINNER = load_catalog(public_catalogs(), "golf")[0]


async def ask(ws, message):
    """Send ``message`` and return the next reply as a dict (its ``type`` key names it)."""
    await ws.send(encode(message))
    return _decoder.decode(await ws.recv())


@pytest.fixture
async def server(tmp_path):
    config = ServerConfig(
        data_dir=tmp_path, ping_interval_s=None, login_failures_per_name=3, login_failures_per_ip=5, password_per_s=10.0
    )
    async with ArenaServer(config) as served:
        yield served


async def test_claim_then_login_elsewhere_is_the_same_player_and_refuses_look_alikes(server):
    async with connect(server.url) as ws:
        welcome = await ask(ws, Hello(name="Alice"))
        assert welcome["type"] == "welcome" and welcome["claimed"] is False
        await ws.send(msgspec.msgpack.encode({"type": "claim", "req": 1, "password": "short"}))
        short = _decoder.decode(await ws.recv())  # (the protocol's rule: Claim cannot even be built)
        assert short["code"] == "bad_field" and "10 characters" in short["reason"]
        assert (await ask(ws, Claim(req=2, password="correct horse")))["type"] == "claimed"
    async with connect(server.url) as other:  # another device: a guest may not take the name
        refused = await ask(other, Hello(name="\u0430lice"))  # Cyrillic a
        assert refused["code"] == "name_taken"
    async with connect(server.url) as other:
        assert (await ask(other, Hello(name="bob")))["type"] == "welcome"
        taken = await ask(other, Claim(req=1, password="another password", name="ALICE"))
        assert taken["code"] == "name_taken"
        assert (await ask(other, Rename(req=2, name="alice")))["code"] == "name_taken"
        back = await ask(other, Login(req=3, name="alice", password="correct horse"))
        assert back["type"] == "welcome" and back["player"] == welcome["player"] and back["claimed"] is True
        assert back["token"] != welcome["token"]
    async with connect(server.url) as third:  # both devices' tokens resume the player
        for token in (welcome["token"], back["token"]):
            again = await ask(third, Hello(name="x", token=token))
            assert again["player"] == welcome["player"]
            break


async def test_wrong_passwords_are_refused_alike_then_rate_limited_per_name_and_address(server):
    async with connect(server.url) as ws:
        await ask(ws, Hello(name="carol"))
        await ask(ws, Claim(req=1, password="carol's password"))
    async with connect(server.url) as ws:
        unknown = await ask(ws, Login(req=1, name="nobody here", password="whatever it is"))
        wrong = await ask(ws, Login(req=2, name="carol", password="not the password"))
        assert unknown["code"] == wrong["code"] == "bad_login" and unknown["reason"] == wrong["reason"]
        await ask(ws, Login(req=3, name="carol", password="still wrong!"))
        await ask(ws, Login(req=4, name="carol", password="wrong again"))  # the name's third failure
        limited = await ask(ws, Login(req=5, name="carol", password="carol's password"))
        assert limited["code"] == "rate_limited" and limited["retry_after_s"] >= 1
        # the address: 4 failures so far, its fifth on another name, then it is out too
        assert (await ask(ws, Login(req=6, name="dave", password="some password")))["code"] == "bad_login"
        limited = await ask(ws, Login(req=7, name="erin", password="some password"))
        assert limited["code"] == "rate_limited"


async def test_a_connection_sending_logins_at_full_rate_is_refused_before_any_hash(tmp_path):
    """Each login hashes a password (about 0.1 s of a core): past its budget (``password_per_s``,
    a burst of 2 by default) a connection's logins are refused at once, and it stays open."""
    async with ArenaServer(ServerConfig(data_dir=tmp_path, ping_interval_s=None)) as server:
        async with connect(server.url) as ws:
            answers = [await ask(ws, Login(req=n, name="nobody", password="a long password")) for n in (1, 2, 3)]
            assert [a["code"] for a in answers] == ["bad_login", "bad_login", "rate_limited"]
            assert (await ask(ws, Hello(name="still here")))["type"] == "welcome"
        assert server.password_gate.refused == 0


async def test_the_password_gate_bounds_hashes_at_once_and_waiting():
    """At most ``at_once`` hashes run and ``waiting`` wait; one more is refused at once, and the
    gate serves again once they are done."""
    gate = PasswordGate(1, 1)
    release = threading.Event()
    running = [asyncio.create_task(gate.run(lambda: release.wait(5))) for _ in range(2)]
    await asyncio.sleep(0.05)
    with pytest.raises(GateFull):
        await gate.run(lambda: True)
    assert gate.refused == 1
    release.set()
    assert await asyncio.gather(*running) == [True, True]
    assert await gate.run(lambda: 7) == 7


async def test_a_transfer_code_works_once_and_not_after_it_expires(server):
    async with connect(server.url) as ws:
        guest = await ask(ws, Hello(name="frank"))
        code = await ask(ws, TransferCodeRequest(req=1))
        assert code["type"] == "transfer_code_made"
    async with connect(server.url) as ws:
        moved = await ask(ws, Redeem(req=1, code=code["code"].lower()))
        assert moved["type"] == "welcome" and moved["player"] == guest["player"] and moved["name"] == "frank"
    async with connect(server.url) as ws:
        assert (await ask(ws, Redeem(req=1, code=code["code"])))["code"] == "bad_code"
    archive = server.archiver.archive
    from server.claims import code_digest

    await archive.put_transfer_code(code_digest("OLDCODE234"), guest["player"], int(time.time() * 1000) - 1)
    async with connect(server.url) as ws:
        assert (await ask(ws, Redeem(req=1, code="OLDCODE234")))["code"] == "bad_code"


async def test_forget_me_deletes_the_identity(server):
    async with connect(server.url) as ws:
        guest = await ask(ws, Hello(name="gina"))
        await ask(ws, Claim(req=1, password="gina's password"))
        gone = await ask(ws, ForgetMe(req=2))
        assert gone["type"] == "forgotten"
    async with connect(server.url) as ws:
        assert (await ask(ws, Hello(name="x", token=guest["token"])))["code"] == "bad_token"
    async with connect(server.url) as ws:  # the name is free again
        assert (await ask(ws, Hello(name="gina")))["type"] == "welcome"


async def test_argon2id_hash_time(capsys):
    started = time.perf_counter()
    hashed = await hash_password(PasswordGate(1, 0), "correct horse battery")
    elapsed = time.perf_counter() - started
    assert hashed.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    with capsys.disabled():
        print(f"\nargon2id m=64MiB t=3 p=4: {elapsed * 1000:.0f} ms")


class SlowPlayerWrites(MemoryArchive):
    """A memory archive whose player writes wait for ``go`` (a database slow under load)."""

    def __init__(self) -> None:
        super().__init__()
        self.go = asyncio.Event()

    async def put_player(self, player_id, name, digest, seen_ms):  # type: ignore[no-untyped-def]
        await self.go.wait()
        return await super().put_player(player_id, name, digest, seen_ms)


async def test_a_player_write_under_way_does_not_bring_a_forgotten_player_back():
    """A hello's archive write is still under way when the player deletes its identity: the
    deletion waits for it, and the player's token resumes nobody afterwards."""
    archive = SlowPlayerWrites()
    async with ArenaServer(ServerConfig(ping_interval_s=None), archive=archive) as server:
        async with connect(server.url) as ws:
            me = await ask(ws, Hello(name="ivy"))
            await ws.send(encode(ForgetMe(req=1)))
            await asyncio.sleep(0.2)
            assert await archive.player_by_token(token_digest(me["token"])) is None  # (the write waits)
            archive.go.set()
            assert (_decoder.decode(await ws.recv()))["type"] == "forgotten"
        assert await archive.player_by_token(token_digest(me["token"])) is None
        async with connect(server.url) as ws:
            again = await ask(ws, Hello(name="ivy", token=me["token"]))
            assert (again["type"], again["code"]) == ("error", "bad_token")


async def test_a_forgotten_players_archived_races_show_deleted_player(tmp_path):
    """Alice and Bob race; the race reaches the archive and leaves memory (a restart); Alice
    deletes her identity; Bob's `get_record` of that race (read from the archive) shows
    ``deleted player`` where Alice was, and the race stays in Bob's history."""
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None)
    async with ArenaServer(config) as first:
        alice = await ArenaClient.connect(first.url, "alice")
        bob = await ArenaClient.connect(first.url, "bob")
        async with alice, bob:
            info = await alice.create_race("golf", seed=WINNER.seed, countdown_s=0)
            await bob.join_race(info.code)
            await alice.start_race(info.code)
            await alice.wait_for(lambda: info.code in alice.started, 10)
            await bob.resign(info.code)
            for notation in WINNER.moves:
                assert (await alice.move(info.code, notation)).ok
            await alice.wait_for(lambda: info.code in alice.finished, 10)
    async with ArenaServer(config) as again:  # (closing wrote the race to the archive)
        async with await ArenaClient.connect(again.url, "x", token=alice.token) as back:
            assert back.player == alice.player
            assert await back.forget_me() == 1
        async with await ArenaClient.connect(again.url, "x", token=bob.token) as reader:
            kept = await reader.get_record(info.code)
            names = {e.player: e.name for e in kept.entrants} | {s.player: s.name for s in kept.standings}
            assert names == {alice.player: "deleted player", bob.player: "bob"}
            assert sorted(kept.race.entrants) == ["bob", "deleted player"]
            assert [race.race for race in (await reader.history()).races] == [info.code]


async def test_forget_me_with_redis_unreachable_is_refused_and_changes_nothing(tmp_path):
    """The store is deleted from first: with Redis down, forget_me answers ``unavailable`` and
    the player is whole (its claim logs in, its token resumes it) once Redis is back."""
    (tmp_path / "redis").mkdir()
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    config = ServerConfig(data_dir=tmp_path / "data", ping_interval_s=None, redis_url=redis.url)
    try:
        async with ArenaServer(config) as server:
            async with connect(server.url) as ws:
                me = await ask(ws, Hello(name="hana"))
                assert (await ask(ws, Claim(req=1, password="hana's password")))["type"] == "claimed"
                redis.pause()  # no answer: the store's calls time out
                refused = await ask(ws, ForgetMe(req=2))
                assert refused["type"] == "error" and refused["code"] == "unavailable", refused
            redis.resume()
            async with connect(server.url) as ws:
                back = await ask(ws, Login(req=1, name="hana", password="hana's password"))
                assert back["type"] == "welcome" and back["player"] == me["player"]
            async with connect(server.url) as ws:
                assert (await ask(ws, Hello(name="x", token=me["token"])))["player"] == me["player"]
    finally:
        redis.resume()
        redis.stop()
