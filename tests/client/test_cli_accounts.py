"""`arena claim`, `login`, `transfer`, `redeem` and `forget-me`, typed as a person would, each
config folder standing for a device: the same player (`arena whoami`) on both."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest

from client.connection import ArenaClient, ArenaError
from client.identity import KeptPlayers
from server.app import ArenaServer
from server.config import ServerConfig


async def _arena(config_dir, *args: str, stdin: str = "") -> tuple[int, str, str]:
    """Run ``arena ARGS`` with ``config_dir`` as its config folder and ``stdin`` typed in;
    returns (exit code, stdout, stderr)."""
    env = os.environ | {"ARENA_CONFIG_DIR": str(config_dir), "ARENA_CACHE_DIR": str(config_dir / "cache")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def _whoami(config_dir, url: str) -> dict[str, object]:
    code, out, err = await _arena(config_dir, "whoami", "--json", "--server", url)
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
async def url(tmp_path):
    async with ArenaServer(ServerConfig(data_dir=tmp_path / "data", ping_interval_s=None)) as server:
        yield server.url


@pytest.mark.slow
async def test_claim_then_login_on_a_second_device_is_the_same_player(tmp_path, url):
    phone, laptop = tmp_path / "phone", tmp_path / "laptop"
    code, out, err = await _arena(phone, "whoami", "--server", url, "--name", "Zoe")
    assert code == 0 and out.rstrip("\n").split("\t")[1:] == ["Zoe", "guest"], err
    me = await _whoami(phone, url)

    code, out, err = await _arena(phone, "claim", "--server", url, "--password-stdin", stdin="zoe's long secret\n")
    assert code == 0 and "Zoe is claimed" in out, err
    assert (await _whoami(phone, url))["claimed"] is True

    code, out, err = await _arena(
        laptop, "login", "zoe", "--server", url, "--password-stdin", stdin="zoe's long secret\n"
    )
    assert code == 0 and me["player"] in out, err
    assert await _whoami(laptop, url) == me | {"claimed": True}
    assert KeptPlayers(laptop / "player.json").get(url).token != KeptPlayers(phone / "player.json").get(url).token
    assert (await _whoami(phone, url))["player"] == me["player"]  # the first device's token still works

    code, out, err = await _arena(
        tmp_path / "other", "login", "Zoe", "--server", url, "--password-stdin", stdin="wrong!\n"
    )
    assert code == 2 and "no claimed name with that password" in out + err and "[bad_login]" in out + err
    assert not (tmp_path / "other" / "player.json").exists()

    code, out, err = await _arena(phone, "claim", "--server", url, "--password-stdin", stdin="short\n")
    assert code == 2 and "[bad_field]" in out and "10 characters" in out


@pytest.mark.slow
async def test_transfer_then_redeem_on_a_second_device_then_forget_me(tmp_path, url):
    old, new = tmp_path / "old", tmp_path / "new"
    guest = await _whoami(old, url)
    code, out, err = await _arena(old, "transfer", "--server", url)
    assert code == 0, err
    transfer = out.splitlines()[0]
    assert len(transfer) == 10 and "within 10 minutes" in out

    code, out, err = await _arena(new, "redeem", transfer.lower(), "--server", url)
    assert code == 0 and guest["player"] in out, err
    assert await _whoami(new, url) == guest
    code, out, err = await _arena(tmp_path / "third", "redeem", transfer, "--server", url)  # spent
    assert code == 2 and "[bad_code]" in out

    code, out, err = await _arena(new, "forget-me", "--server", url)
    assert code == 2 and "--yes" in out
    code, out, err = await _arena(new, "forget-me", "--yes", "--server", url)
    assert code == 0 and "deleted player" in out, err
    assert KeptPlayers(new / "player.json").get(url) is None
    assert (await _whoami(old, url))["player"] != guest["player"]  # its token is gone too: a new guest


async def test_the_library_logs_in_and_redeems_after_hello_and_reads_retry_after(url):
    """`ArenaClient.login` and `redeem` after hello: the reply (a `welcome`, with no request
    number) makes the client that player; a refusal comes back as `ArenaError` by its number."""
    async with await ArenaClient.connect(url, "Yuki") as yuki:
        await yuki.claim("yuki's long secret")
        made = await yuki.transfer_code()
    async with await ArenaClient.connect(url, "guest") as other:
        guest = other.player
        with pytest.raises(ArenaError) as refused:
            await other.login("yuki", "not the password")
        assert refused.value.code == "bad_login" and other.player == guest
        welcome = await other.login("YUKI", "yuki's long secret")
        assert (other.player, other.name, other.claimed, other.token) == (yuki.player, "Yuki", True, welcome.token)
        assert (await other.rename("Yuki")) == "Yuki"  # the connection goes on as that player
    async with await ArenaClient.connect(url, "guest") as third:
        await third.redeem(made.code)
        assert third.player == yuki.player
        with pytest.raises(ArenaError) as refused:
            await third.redeem(made.code)
        assert refused.value.code == "bad_code"
    for attempt in range(25):  # the address's failures: 20 within the window, then a wait
        try:
            await ArenaClient.connect_login(url, "yuki", f"wrong {attempt}")
        except ArenaError as exc:
            if exc.code == "rate_limited":
                assert exc.retry_after_s is not None and exc.retry_after_s >= 1
                break
            assert exc.code == "bad_login"
    else:
        pytest.fail("never rate limited")
