"""Passkey ceremonies over a real server with an archive, refused where they must be: an expired
challenge (the server's clock moved past ``passkey_challenge_s``), a challenge the server never
made or that was used, a guest registering, a server without an HTTPS origin, a bad origin.
(A passkey registered and used for real, through Chromium's virtual authenticator, is
tests/web/test_account.py's.)"""

from __future__ import annotations

import base64
import json

import msgspec
import pytest
from websockets.asyncio.client import connect

from server.app import ArenaServer
from server.config import ServerConfig
from server.passkeys import ChallengeExpired, Challenges, UnknownChallenge, relying_party
from server.protocol import Claim, Hello, PasskeyBegin, PasskeyFinish, encode
from tests.server.test_daily import DayClock

_decoder = msgspec.msgpack.Decoder()
ORIGIN = "http://localhost:8765"


async def ask(ws, message):
    """Send ``message`` and return the next reply as a dict."""
    await ws.send(encode(message))
    return _decoder.decode(await ws.recv())


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def answering(options_json: str, origin: str = ORIGIN) -> str:
    """A registration credential's JSON that answers the challenge of ``options_json`` (its
    attestation is junk: it never gets as far as being checked when the challenge is refused)."""
    challenge = json.loads(options_json)["challenge"]
    client_data = json.dumps({"type": "webauthn.create", "challenge": challenge, "origin": origin}).encode()
    return json.dumps(
        {
            "id": b64(b"credential"),
            "rawId": b64(b"credential"),
            "type": "public-key",
            "response": {"clientDataJSON": b64(client_data), "attestationObject": b64(b"junk")},
        }
    )


@pytest.fixture
async def server(tmp_path):
    config = ServerConfig(ping_interval_s=None, data_dir=tmp_path, public_origin=ORIGIN, password_per_s=10.0)
    async with ArenaServer(config, clock=DayClock(1_800_000_000_000)) as served:
        yield served


async def test_an_expired_or_unknown_challenge_is_refused_and_nothing_is_kept(server):
    async with connect(server.url) as ws:
        assert (await ask(ws, Hello(name="Alice")))["type"] == "welcome"
        guest = await ask(ws, PasskeyBegin(req=1, purpose="register"))
        assert guest["code"] == "not_allowed" and "claim" in guest["reason"]
        assert (await ask(ws, Claim(req=2, password="correct horse")))["type"] == "claimed"

        begun = await ask(ws, PasskeyBegin(req=3, purpose="register"))
        assert begun["type"] == "passkey_options"
        options = json.loads(begun["options"])
        assert options["rp"]["id"] == "localhost" and options["user"]["name"] == "Alice"
        assert abs(begun["expires_ms"] - (server.clock.wall_ms() + 120_000)) < 5_000
        server.clock.jump(121_000)  # past passkey_challenge_s (120 s)
        late = await ask(ws, PasskeyFinish(req=4, credential=answering(begun["options"])))
        assert late["code"] == "challenge_expired" and late["req"] == 4
        again = await ask(ws, PasskeyFinish(req=5, credential=answering(begun["options"])))
        assert again["code"] == "bad_passkey"  # spent: never twice, expired or not

        fresh = await ask(ws, PasskeyBegin(req=6, purpose="register"))
        forged = await ask(ws, PasskeyFinish(req=7, credential=answering(fresh["options"])))
        assert forged["code"] == "bad_passkey" and "did not verify" in forged["reason"]  # a junk attestation
        junk = await ask(ws, PasskeyFinish(req=8, credential='{"id": "x"}'))
        assert junk["code"] == "bad_passkey" and "WebAuthn" in junk["reason"]
        login = await ask(ws, PasskeyBegin(req=9, purpose="login", name="ALICE"))
        assert login["type"] == "passkey_options" and json.loads(login["options"])["allowCredentials"] == []
    assert await server.archiver.archive.passkeys_of(begun_player(server)) == []


def begun_player(server: ArenaServer) -> str:
    (player,) = [p.id for p in server.players_by_id.values() if p.name == "Alice"]
    return player


async def test_a_server_without_an_https_origin_offers_no_passkeys(tmp_path):
    async with ArenaServer(ServerConfig(ping_interval_s=None, data_dir=tmp_path)) as served:
        async with connect(served.url) as ws:
            refused = await ask(ws, PasskeyBegin(req=1, purpose="login"))  # (before hello, as a login may)
            assert refused["code"] == "unavailable" and "HTTPS origin" in refused["reason"]


def test_the_relying_party_is_the_origins_host_and_plain_http_only_on_localhost():
    assert relying_party("https://Arena.Example.org:8443/") == ("arena.example.org", "https://arena.example.org:8443")
    for bad in ("http://arena.example.org", "ftp://localhost", "https://x.org/path", "https://u:p@x.org", "x.org"):
        with pytest.raises(ValueError):
            relying_party(bad)


def test_a_challenge_is_good_once_within_its_life():
    challenges = Challenges(life_s=10.0, limit=3)
    first = challenges.issue("login", None, now=100.0)
    assert challenges.take(first, now=105.0).purpose == "login"
    with pytest.raises(UnknownChallenge):
        challenges.take(first, now=105.0)
    late = challenges.issue("register", "p1", now=100.0)
    with pytest.raises(ChallengeExpired):
        challenges.take(late, now=110.0)
    for _ in range(5):
        challenges.issue("login", None, now=100.0)
    assert len(challenges) == 3  # bounded: the oldest go first
