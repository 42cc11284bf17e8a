"""The organiser's side over a real server with an archive: the admin grants the organiser role
to a claimed player, who then creates, cancels and reviews its own tournaments without the admin
token; each entry restriction refusing and allowing; the calendar file of a tournament."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import sys
import time
import urllib.error
import urllib.request

import icalendar
import pytest

from client.connection import ArenaClient, ArenaError
from server.app import ArenaServer
from server.config import ServerConfig
from server.store.redis import RedisStore

ADMIN = "the admin's token"
PASSWORD = "a long enough password"


@pytest.fixture
async def server(tmp_path):
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, admin_token=ADMIN, password_per_s=50.0)
    async with ArenaServer(config) as served:
        yield served


def _in(seconds: int) -> str:
    return dt.datetime.fromtimestamp(time.time() + seconds, dt.UTC).isoformat()


async def _claimed(server: ArenaServer, name: str) -> ArenaClient:
    client = await ArenaClient.connect(server.url, name)
    await client.claim(PASSWORD)
    return client


async def _organiser(server: ArenaServer, name: str) -> ArenaClient:
    client = await _claimed(server, name)
    async with await ArenaClient.connect(server.url, "admin") as admin:
        granted = await admin.grant_organiser(ADMIN, name)
    assert granted.organiser and granted.player == client.player and granted.name == name
    return client


async def test_the_admin_grants_the_role_and_an_organiser_runs_its_own_tournaments_only(server):
    alice = await _claimed(server, "alice")
    bob = await _organiser(server, "bob")
    guest = await ArenaClient.connect(server.url, "guest")
    try:
        for who in (alice, guest):  # not an organiser: refused, saying why
            with pytest.raises(ArenaError) as refused:
                await who.create_tournament(None, "Cup", "klondike", 1, starts_at=_in(3600))
            assert refused.value.code == "not_organiser"
        assert "claim your name" in refused.value.reason
        with pytest.raises(ArenaError) as wrong:  # granting takes the admin token
            await bob.grant_organiser("not the token", "alice")
        assert wrong.value.code == "not_organiser"
        with pytest.raises(ArenaError) as unknown:
            await alice.grant_organiser(ADMIN, "guest")  # a guest's name: not claimed
        assert unknown.value.code == "unknown_player"

        mine = await bob.create_tournament(None, "Bob's cup", "klondike", 1, starts_at=_in(3600))
        assert mine.organiser == bob.player
        admins = await alice.create_tournament(ADMIN, "Admin cup", "klondike", 1, starts_at=_in(3600))
        assert admins.organiser is None
        with pytest.raises(ArenaError) as not_his:  # bob runs his own, not the admin's
            await bob.cancel_tournament(None, admins.id)
        assert not_his.value.code == "not_organiser"
        with pytest.raises(ArenaError):
            await bob.fair_play_report(None, admins.id)
        assert (await bob.fair_play_report(None, mine.id)).tournament == mine.id
        assert (await bob.cancel_tournament(None, mine.id)).status == "cancelled"
        assert (await alice.cancel_tournament(ADMIN, admins.id)).status == "cancelled"  # the admin's token: all

        await alice.grant_organiser(ADMIN, "bob", revoke=True)
        with pytest.raises(ArenaError) as revoked:
            await bob.create_tournament(None, "Again", "klondike", 1, starts_at=_in(3600))
        assert revoked.value.code == "not_organiser" and "not an organiser" in revoked.value.reason
    finally:
        for client in (alice, bob, guest):
            await client.close()


async def test_each_entry_restriction_refuses_and_allows(server):
    organiser = await _organiser(server, "olga")
    carol = await _claimed(server, "carol")
    dave = await _claimed(server, "dave")
    guest = await ArenaClient.connect(server.url, "guest")
    soon = {"starts_at": _in(3600), "max_entries_per_address": 0}
    try:
        with pytest.raises(ArenaError) as bad:  # an allow-list goes with entry "list" only
            await organiser.create_tournament(None, "X", "klondike", 1, allow=["carol"], **soon)
        assert bad.value.code == "bad_field"
        with pytest.raises(ArenaError) as bad:
            await organiser.create_tournament(None, "X", "klondike", 1, entry="list", **soon)
        assert bad.value.code == "bad_field"

        claimed = await organiser.create_tournament(None, "Members", "klondike", 1, entry="claimed", **soon)
        assert claimed.entry == "claimed"
        with pytest.raises(ArenaError) as refused:
            await guest.register_tournament(claimed.id)
        assert refused.value.code == "not_allowed" and "claimed players" in refused.value.reason
        assert "carol" in (await carol.register_tournament(claimed.id)).registered

        listed = await organiser.create_tournament(None, "Listed", "klondike", 1, entry="list", allow=["CAROL"], **soon)
        with pytest.raises(ArenaError) as refused:
            await dave.register_tournament(listed.id)
        assert refused.value.code == "not_allowed" and "list" in refused.value.reason
        with pytest.raises(ArenaError) as refused:
            await guest.register_tournament(listed.id)
        assert refused.value.code == "not_allowed"
        assert "carol" in (await carol.register_tournament(listed.id)).registered  # by name key: any case

        invited = await organiser.create_tournament(None, "Invited", "klondike", 1, entry="invite", **soon)
        code = organiser.invite_codes[invited.id]
        assert len(code) == 8 and invited.entry == "invite"
        for given in (None, "WRONGCODE"):
            with pytest.raises(ArenaError) as refused:
                await guest.register_tournament(invited.id, code=given)
            assert refused.value.code == "bad_code"
        assert "guest" in (await guest.register_tournament(invited.id, code=code.lower())).registered

        chosen = await organiser.create_tournament(
            None, "Chosen", "klondike", 1, entry="invite", invite_code="club-night", **soon
        )
        assert organiser.invite_codes[chosen.id] == "club-night"
        assert "dave" in (await dave.register_tournament(chosen.id, code="club-night")).registered

        opened = await organiser.create_tournament(None, "Open", "klondike", 1, **soon)  # open: anyone
        assert opened.entry == "open" and opened.id not in organiser.invite_codes
        assert "guest" in (await guest.register_tournament(opened.id)).registered
    finally:
        for client in (organiser, carol, dave, guest):
            await client.close()


async def test_a_tournament_calendar_file_parses_back_with_icalendar(server):
    async with await ArenaClient.connect(server.url, "admin") as admin:
        starts = dt.datetime.fromtimestamp(int(time.time()) + 7200, dt.UTC)
        info = await admin.create_tournament(
            ADMIN, "Friday, the; club\\cup", "klondike", 3, starts_at=starts.isoformat(), deal_time_limit_s=300
        )
    http = server.url.replace("ws://", "http://")

    def get(path: str) -> tuple[int, str, bytes]:
        try:
            with urllib.request.urlopen(http + path, timeout=5) as answer:
                return answer.status, answer.headers["Content-Type"], answer.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers["Content-Type"], exc.read()

    status, kind, body = await asyncio.to_thread(get, f"/t/{info.id.lower()}.ics")
    assert status == 200 and kind.startswith("text/calendar")
    calendar = icalendar.Calendar.from_ical(body)
    (event,) = calendar.walk("VEVENT")
    assert str(event["SUMMARY"]) == "Friday, the; club\\cup"  # escaped on the wire, read back as written
    assert event.decoded("DTSTART") == starts
    assert event.decoded("DTEND") == starts + dt.timedelta(seconds=3 * 300 + 2 * 10)  # deals and breaks
    assert str(event["URL"]).endswith(f"/t/{info.id}") and info.id in str(event["UID"])
    assert (await asyncio.to_thread(get, "/t/NOSUCH.ics"))[0] == 404


async def _arena(*args: str, env: dict[str, str], stdin: str = "") -> tuple[int, str, str]:
    """Run the ``arena`` command as typed in a shell: (exit code, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "client.cli",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**{k: v for k, v in os.environ.items() if k != "ARENA_ADMIN_TOKEN"}, **env},
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), 90)
    return process.returncode or 0, out.decode(), err.decode()


async def test_the_cli_grants_the_role_and_the_organiser_creates_an_invite_only_tournament(server, tmp_path):
    mine = {"ARENA_CONFIG_DIR": str(tmp_path / "config"), "ARENA_CACHE_DIR": str(tmp_path / "cache")}
    url = ["--server", server.url]
    code, _, err = await _arena("claim", "--name", "olga", "--password-stdin", *url, env=mine, stdin=PASSWORD + "\n")
    assert code == 0, err
    create = ("tournament", "create", "--name", "Club night", "--game", "klondike", "--in", "3600", "--entry", "invite")
    code, out, err = await _arena(*create, *url, env=mine)
    assert code == 2 and "[not_organiser]" in out + err  # not an organiser yet
    code, out, err = await _arena("organiser", "grant", "olga", *url, env={"ARENA_ADMIN_TOKEN": ADMIN})
    assert code == 0 and "olga" in out and "is an organiser" in out, err
    code, out, err = await _arena(*create, *url, env=mine)
    assert code == 0, err
    tournament = out.strip().splitlines()[-1]
    invite = out.split("invite code ", 1)[1].split()[0].rstrip(";")
    async with await ArenaClient.connect(server.url, "guest") as guest:
        info = await guest.register_tournament(tournament, code=invite)
    assert info.organiser is not None and info.entry == "invite" and info.registered == ["guest"]


async def test_a_restarted_server_keeps_a_tournaments_organiser_and_invite_code(redis_server, redis_prefix, tmp_path):
    """Over Redis, a tournament comes back after a restart with its organiser, its entry
    restriction and its invite code: its organiser still runs it, and the code still admits."""
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, admin_token=ADMIN, password_per_s=50.0)
    try:
        async with ArenaServer(config, store=store) as first:
            organiser = await _organiser(first, "olga")
            token = organiser.token
            info = await organiser.create_tournament(None, "Kept", "golf", 1, starts_at=_in(3600), entry="invite")
            code = organiser.invite_codes[info.id]
            await organiser.close()
            await asyncio.sleep(0.1)  # (the description is stored in a task of its own)
        async with ArenaServer(config, store=store) as again:
            kept = again.tournaments[info.id].plan
            assert (kept.organiser, kept.entry, kept.invite_code) == (info.organiser, "invite", code)
            async with await ArenaClient.connect(again.url, "guest") as guest:
                with pytest.raises(ArenaError) as refused:
                    await guest.register_tournament(info.id)
                assert refused.value.code == "bad_code"
                assert (await guest.register_tournament(info.id, code=code)).registered == ["guest"]
            async with await ArenaClient.connect(again.url, "olga", token) as olga:
                assert (await olga.cancel_tournament(None, info.id)).status == "cancelled"
    finally:
        await store.close()
