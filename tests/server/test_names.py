"""Names people see: normalised, readable, and unique within a race or a tournament."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from server import protocol as p
from server.names import BadName, name_key, normal_name


@pytest.mark.parametrize(
    "name",
    [
        "   ",  # whitespace only
        "\t\n",
        "ann\x00",  # a control character
        "ann\x1b[31m",  # a terminal escape
        "ann\u202ezyx",  # a right-to-left override
        "a\u200bnn",  # a zero-width space
        "\u2066ann\u2069",  # bidirectional isolates
        "ann\u2028bob",  # a line separator
        "\ue000ann",  # private use
    ],
)
async def test_a_name_with_control_format_or_no_visible_characters_is_refused(peers, name):
    eve = await peers("eve", hello=False)
    error = await eve.request(p.Hello(name=name), p.Welcome)
    assert (type(error), error.code) == (p.Error, "bad_name") and error.reason


async def test_a_name_is_kept_in_normal_form(peers):
    """NFC, outer whitespace trimmed: a name typed with a combining accent is the same name."""
    eve = await peers("eve", hello=False)
    welcome = await eve.request(p.Hello(name="  Zoe\u0301  "), p.Welcome)
    assert welcome.name == "Zo\u00e9"


def test_names_that_look_alike_have_one_key():
    assert len({name_key(n) for n in ("Ann", "ANN", "ａｎｎ", "ann")}) == 1
    assert name_key("Ann  Lee") == name_key("ann lee")
    with pytest.raises(BadName):
        normal_name("x" * 33)


async def test_two_entrants_of_a_race_may_not_share_a_name(peers):
    ann, other, lookalike, bob = await peers("Ann"), await peers("ann"), await peers("ＡＮＮ"), await peers("bob")
    code = (await ann.request(p.CreateRace(req=1, game="golf"), p.RaceReply)).race.code
    for req, twin in enumerate((other, lookalike), start=2):
        refused = await twin.request(p.JoinRace(req=req, race=code), p.RaceReply)
        assert (refused.code, refused.req) == ("name_taken", req)
    joined = await bob.request(p.JoinRace(req=4, race=code), p.RaceReply)
    assert joined.race.entrants == ["Ann", "bob"]


async def test_two_entrants_of_a_tournament_may_not_share_a_name():
    from client.connection import ArenaClient, ArenaError
    from server.app import ArenaServer
    from server.config import ServerConfig

    async with ArenaServer(ServerConfig(ping_interval_s=None, admin_token="t")) as server:
        clients = [await ArenaClient.connect(server.url, name) for name in ("org", "robin", "Robin")]
        try:
            org, robin, twin = clients
            in_an_hour = dt.datetime.fromtimestamp(time.time() + 3000, dt.UTC).isoformat()
            info = await org.create_tournament("t", "Names", "golf", 1, starts_at=in_an_hour)
            await robin.register_tournament(info.id)
            with pytest.raises(ArenaError) as caught:
                await twin.register_tournament(info.id)
            assert caught.value.code == "name_taken"
            await robin.withdraw_tournament(info.id)
            assert (await twin.register_tournament(info.id)).registered == ["Robin"], "a name withdrawn is free"
        finally:
            for client in clients:
                await client.close()


async def test_a_player_may_rename_itself_for_the_races_it_enters_next(server, peers):
    """`rename` keeps the player (its id, token and races) and changes the name the next join
    uses; the races it is already in keep the name it entered with."""
    ann, bob, carol = await peers("ann"), await peers("bob"), await peers("carol")
    first = (await ann.request(p.CreateRace(req=1, game="golf"), p.RaceReply)).race.code
    renamed = await ann.request(p.Rename(req=2, name="  Zoe\u0301 "), p.Renamed)
    assert (renamed.req, renamed.name) == (2, "Zo\u00e9")  # normal form, as at hello
    second = (await bob.request(p.CreateRace(req=3, game="golf"), p.RaceReply)).race.code
    joined = await ann.request(p.JoinRace(req=4, race=second), p.RaceReply)
    assert joined.race.entrants == ["bob", "Zo\u00e9"]
    assert server.races[first].info().entrants == ["ann"]
    bad = await ann.request(p.Rename(req=5, name="a\u200bnn"), p.Renamed)
    assert (type(bad), bad.code, bad.req) == (p.Error, "bad_name", 5)
    await carol.request(p.Rename(req=6, name="BOB"), p.Renamed)  # names are unique within a race
    clash = await carol.request(p.JoinRace(req=7, race=second), p.RaceReply)
    assert clash.code == "name_taken"
    again = await peers("ann", hello=False)  # a new connection resuming the session keeps the new name
    welcome = await again.request(p.Hello(name="whatever", token=ann.token), p.Welcome)
    assert (welcome.player, welcome.name) == (ann.player, "Zo\u00e9")
