"""Names people see: normalised, readable, and unique within a race or a tournament."""

from __future__ import annotations

import datetime as dt
import time
import unicodedata

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


@pytest.mark.parametrize(
    ("name", "code_point"),
    [
        ("ali\u034fce", "U+034F"),  # combining grapheme joiner: "alice" to the eye
        ("\u3164", "U+3164"),  # Hangul filler: a name that renders blank
        ("\u115f", "U+115F"),  # Hangul choseong filler
        ("ann\u1160", "U+1160"),  # Hangul jungseong filler
        ("\uffa0", "U+FFA0"),  # half-width Hangul filler
        ("ann\u180b", "U+180B"),  # Mongolian free variation selector
        ("ann\u180f", "U+180F"),
        ("ann\ufe00", "U+FE00"),  # variation selector-1
        ("ann\U000e0100", "U+E0100"),  # variation selector-17
        ("a\u2060nn", "U+2060"),  # word joiner
        ("a\u2064nn", "U+2064"),  # invisible plus
        ("a\u206fnn", "U+206F"),  # nominal digit shapes
        ("an\u00adn", "U+00AD"),  # soft hyphen
        ("ann\U000e0041", "U+E0041"),  # a tag character
        ("\u2800", "U+2800"),  # Braille pattern blank: not ignorable, still blank
        ("ann\u2800bob", "U+2800"),
        ("ann\u00a0bob", "U+00A0"),  # whitespace other than a plain space inside the name
        ("ann\u3000bob", "U+3000"),
        ("ann\u2003bob", "U+2003"),
    ],
)
def test_invisible_and_blank_characters_are_refused_naming_the_code_point(name, code_point):
    with pytest.raises(BadName) as refused:
        normal_name(name)
    assert code_point in refused.value.reason


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("Z\u0351\u0362\u036b\u0300algo", "at most 2 accents"),  # a Zalgo stack
        ("e\u0301\u0302\u0303", "not 3 or more"),  # three accents, though NFC composes the first into é
        ("a\u0489\u20dd\u0301", "not 3 or more"),  # enclosing marks count as accents
        ("e\u0301\u0301", "the same combining mark twice"),
        ("\u0e01\u0e49\u0e49", "the same combining mark twice"),  # a Thai tone mark stacked
        ("\u0627\u064e\u064f\u0650\u0651\u0652", "at most 4 combining marks"),  # five Arabic signs on one alef
        ("\u0301abc", "begin with a combining mark"),
    ],
)
def test_stacks_of_combining_marks_are_refused(name, says):
    with pytest.raises(BadName) as refused:
        normal_name(name)
    assert says in refused.value.reason and "U+" in refused.value.reason


@pytest.mark.parametrize(
    "name",
    [
        "张伟",  # Chinese
        "\u0645\u064f\u062d\u064e\u0645\u0651\u064e\u062f",  # Arabic with its vowel marks and a shadda
        "Nguyễn",  # Vietnamese: two accents on one letter
        "Nguye\u0302\u0303n",  # the same typed with combining accents
        "देवनागरी",  # Hindi with its vowel signs
        "ज़िंदगी",  # a nukta, a vowel sign and an anusvara on one letter
        "चीज़ें",  # a nukta and two signs above
        "שָּׁלוֹם",  # pointed Hebrew: a vowel point, a dagesh and a shin dot on one letter
        "မြို့",  # Burmese
        "བསྒྲུབ",  # a Tibetan stack
        "กี่",  # Thai: a vowel and a tone mark
        "한국어",
        "Zoé",
        "Ann Lee",
    ],
)
def test_ordinary_names_in_any_script_are_kept(name):
    assert normal_name(name) == unicodedata.normalize("NFC", name)


def test_emoji_presentation_selectors_are_dropped_not_refused():
    """A phone types "❤️" as U+2764 and U+FE0F: the name keeps the heart, without the selector."""
    assert normal_name("Ann \u2764\ufe0f") == "Ann \u2764"
    assert normal_name("\u2764\ufe0e Bo") == "\u2764 Bo"
    with pytest.raises(BadName):
        normal_name("\ufe0f")  # nothing visible left


def test_names_are_compared_by_their_confusable_skeleton():
    """UTS #39: a Cyrillic а, capitals and full-width letters are one name; confusables.txt maps
    the digit 1 to l and 0 to O (so "al1ce" is "allce", not "alice") and m to rn."""
    assert len({name_key(n) for n in ("alice", "\u0430lice", "ALICE", "ａｌｉｃｅ", "\u0410LICE")}) == 1
    assert name_key("al1ce") == name_key("allce") != name_key("alice")
    assert name_key("b0b") == name_key("bob") == name_key("BOB")
    assert name_key("kim") == name_key("kirn")
    assert name_key("Ann  Lee") == name_key("ann lee")
    assert len({name_key(n) for n in ("alice", "bob", "Ann", "Anna", "张伟", "Nguyễn", "Nguyen")}) == 7


async def test_look_alike_and_blank_names_cannot_impersonate_an_entrant(peers):
    """A race holding "alice": a Cyrillic "аlice" may say hello but not join it (name_taken), nor
    may a player renamed to it; "ali\u034fce" (an invisible joiner) and a Hangul filler name are
    refused at hello (bad_name), with a reason naming the character."""
    alice, cyrillic, bob = await peers("alice"), await peers("\u0430lice"), await peers("bob")
    code = (await alice.request(p.CreateRace(req=1, game="golf"), p.RaceReply)).race.code
    refused = await cyrillic.request(p.JoinRace(req=2, race=code), p.RaceReply)
    assert (type(refused), refused.code, refused.req) == (p.Error, "name_taken", 2)
    await bob.request(p.Rename(req=3, name="\u0430LICE"), p.Renamed)
    refused = await bob.request(p.JoinRace(req=4, race=code), p.RaceReply)
    assert (refused.code, refused.req) == ("name_taken", 4)
    for name, code_point in (("ali\u034fce", "U+034F"), ("\u3164", "U+3164"), ("\u3164\u3164", "U+3164")):
        eve = await peers("eve", hello=False)
        error = await eve.request(p.Hello(name=name), p.Welcome)
        assert (type(error), error.code) == (p.Error, "bad_name")
        assert code_point in error.reason and "invisible" in error.reason
    carol = await peers("carol")
    joined = await carol.request(p.JoinRace(req=5, race=code), p.RaceReply)
    assert joined.race.entrants == ["alice", "carol"]


async def test_an_entrant_may_not_rename_itself_to_another_entrants_name():
    """A tournament shows its entrants' names as they are now, and deals its races under them:
    a rename to (or to a look-alike of) another entrant's name is refused, name_taken, and a
    rename that is allowed frees the old name."""
    from client.connection import ArenaClient, ArenaError
    from server.app import ArenaServer
    from server.config import ServerConfig

    async with ArenaServer(ServerConfig(ping_interval_s=None, admin_token="t")) as server:
        clients = [await ArenaClient.connect(server.url, name) for name in ("org", "alice", "bob", "carol", "dan")]
        try:
            org, alice, bob, carol, dan = clients
            in_an_hour = dt.datetime.fromtimestamp(time.time() + 3000, dt.UTC).isoformat()
            info = await org.create_tournament("t", "Renames", "golf", 1, starts_at=in_an_hour)
            await alice.register_tournament(info.id)
            await bob.register_tournament(info.id)
            for name in ("alice", "\u0430LICE"):
                with pytest.raises(ArenaError) as caught:
                    await bob.rename(name)
                assert caught.value.code == "name_taken" and info.id in str(caught.value)
            assert await carol.rename("\u0430LICE") == "\u0430LICE", "outside the tournament the name is free"
            assert await bob.rename("robin") == "robin"
            await dan.rename("BOB")
            await dan.register_tournament(info.id)  # bob's old name is free
            await carol.rename("Robin")
            with pytest.raises(ArenaError) as caught:
                await carol.register_tournament(info.id)
            assert caught.value.code == "name_taken"
        finally:
            for client in clients:
                await client.close()
