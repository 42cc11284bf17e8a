"""Friends over a real server with an archive: following claimed players (guests refused), their
presence (online, racing, offline) in `friends`, a challenge's invitation pushed to the other
player and accepted by joining, a declined challenge, and the challenges-per-hour limit."""

from __future__ import annotations

import asyncio

import pytest

from server import protocol as p
from server.app import ArenaServer
from server.config import ServerConfig

PASSWORD = "correct horse battery"


@pytest.fixture
async def server(tmp_path):
    """A server with an archive (claims and follows) and room for a few claims a second."""
    config = ServerConfig(data_dir=tmp_path, ping_interval_s=None, password_per_s=10.0, challenges_per_hour=3)
    async with ArenaServer(config) as served:
        yield served


async def claimed(peers, name: str):
    peer = await peers(name)
    assert isinstance(await peer.request(p.Claim(req=90, password=PASSWORD), p.Claimed), p.Claimed)
    return peer


async def friends(peer) -> p.Following:
    reply = await peer.request(p.Friends(req=91), p.Following)
    assert isinstance(reply, p.Following), reply
    return reply


async def test_follow_claimed_players_and_see_them_online_racing_and_offline(peers):
    ann, bea = await claimed(peers, "ann"), await claimed(peers, "bea")
    guest = await peers("cy")
    reply = await ann.request(p.Follow(req=1, name="BEA"), p.Following)  # a claimed name, any case
    assert reply.players == [p.Friend(player=bea.player, name="bea", online=True, racing=None)]

    refused = await ann.request(p.Follow(req=2, player=guest.player), p.Following)
    assert refused.code == "not_allowed" and "guest" in refused.reason  # only claimed players
    assert (await ann.request(p.Follow(req=3, player="p000000000000"), p.Following)).code == "unknown_player"
    assert (await ann.request(p.Follow(req=4, name="nobody"), p.Following)).code == "unknown_player"
    assert (await ann.request(p.Follow(req=5, player=ann.player), p.Following)).code == "not_allowed"
    assert (await ann.request(p.Follow(req=6), p.Following)).code == "unknown_player"  # nobody named
    assert (await guest.request(p.Follow(req=7, name="bea"), p.Following)).code == "not_allowed"  # a guest follows
    assert (await guest.request(p.Friends(req=8), p.Following)).players == []

    race = (await bea.request(p.CreateRace(req=10, game="golf", max_entrants=1, countdown_s=0), p.RaceReply)).race
    await bea.request(p.StartRace(req=11, race=race.code), p.RaceReply)
    assert (await friends(ann)).players[0].racing == race.code
    await bea.request(p.Resign(req=12, race=race.code), p.RaceReply)
    assert (await friends(ann)).players[0].racing is None  # done: no longer racing
    await bea.close()
    for _ in range(100):
        shown = (await friends(ann)).players[0]
        if not shown.online:
            break
        await asyncio.sleep(0.02)
    assert shown == p.Friend(player=bea.player, name="bea", online=False, racing=None)

    assert (await ann.request(p.Unfollow(req=13, player=bea.player), p.Following)).players == []


async def test_a_challenge_invites_the_other_player_who_joins_or_declines(peers):
    ann, bea, dee = await peers("ann"), await peers("bea"), await peers("dee")
    reply = await ann.request(p.Challenge(req=1, player=bea.player, game="golf"), p.RaceReply)
    code = reply.race.code
    assert reply.race.entrants == ["ann"] and reply.race.status == "open"
    invitation = await bea.expect(p.Invitation, race=code)
    assert (invitation.game, invitation.from_player, invitation.from_name) == ("golf", ann.player, "ann")
    assert (await friends(bea)).invitations == [invitation]  # listed when the lobby opens later
    listed = await dee.request(p.ListRaces(req=2), p.Races)
    assert code not in [r.code for r in listed.races]  # a challenge is not in the lobby

    joined = await bea.request(p.JoinRace(req=3, race=code), p.RaceReply)
    assert sorted(joined.race.entrants) == ["ann", "bea"]
    assert (await friends(bea)).invitations == []  # accepted: no longer waiting

    second = (await ann.request(p.Challenge(req=4, player=bea.player, game="golf"), p.RaceReply)).race.code
    await bea.expect(p.Invitation, race=second)
    declined = await bea.request(p.Decline(req=5, race=second.lower()), p.Declined)
    assert (declined.race, declined.player) == (second, bea.player)
    assert (await ann.expect(p.Declined, race=second)).req is None  # the challenger hears of it
    assert (await friends(bea)).invitations == []
    assert (await bea.request(p.Decline(req=6, race=second), p.Declined)).code == "unknown_race"


async def test_challenges_are_limited_per_hour_and_checked(peers):
    ann, bea = await peers("ann"), await peers("bea")
    assert (await ann.request(p.Challenge(req=1, player=ann.player, game="golf"), p.RaceReply)).code == "not_allowed"
    unknown = await ann.request(p.Challenge(req=2, player="p000000000000", game="golf"), p.RaceReply)
    assert unknown.code == "unknown_player"
    assert (await ann.request(p.Challenge(req=3, player=bea.player, game="nope"), p.RaceReply)).code == "unknown_game"
    for req in (4, 5, 6):  # challenges_per_hour=3
        assert isinstance(
            await ann.request(p.Challenge(req=req, player=bea.player, game="golf"), p.RaceReply), p.RaceReply
        )
    limited = await ann.request(p.Challenge(req=7, player=bea.player, game="golf"), p.RaceReply)
    assert limited.code == "rate_limited" and "3 challenges an hour" in limited.reason
    assert len((await friends(bea)).invitations) == 3
